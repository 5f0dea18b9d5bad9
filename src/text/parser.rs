//! `VariantParser::parse_value`: Godot text to a `Variant`, with the engine's grammar
//! and error messages. Resources are never loaded nor objects instantiated: they
//! become inert values ([`ResourceRef`], [`Object`]).

use std::collections::hash_map::{Entry, HashMap};

use super::lexer::{Fail, Lexer, Res, Tok};
use crate::types::*;
use crate::value::TypedDictionary;
use crate::value::{
    c_int32, c_int64, c_uint64, conform_all, ContainerType, Dictionary, Object, ResourceRef,
    TypedArray,
};
use crate::{Dialect, Variant, VariantType};

pub(crate) struct Parser<'a> {
    pub(crate) lex: Lexer<'a>,
    depth: usize,
    max_depth: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, dialect: Dialect, max_depth: usize) -> Self {
        Parser {
            lex: Lexer::new(src, dialect),
            depth: 0,
            max_depth,
        }
    }

    fn g3(&self) -> bool {
        self.lex.g3
    }

    fn fail<T>(&self, msg: impl Into<String>) -> Res<T> {
        self.lex.fail(msg)
    }

    fn expect(&mut self, want: Tok, msg: &str) -> Res<()> {
        if self.lex.next()? == want {
            Ok(())
        } else {
            self.fail(msg)
        }
    }

    /// One value from its first token.
    pub(crate) fn value(&mut self, tok: Tok) -> Res<Variant> {
        Ok(match tok {
            Tok::CurlyOpen => Variant::Dictionary(self.nested(|p| p.dictionary())?),
            Tok::BracketOpen => Variant::Array(self.nested(|p| p.array())?),
            Tok::Int(i) => Variant::Int(i),
            Tok::Float(f) => Variant::Float(f),
            Tok::Str(s) => Variant::String(s),
            Tok::StringName(s) => Variant::StringName(StringName(s)),
            Tok::Color(c) => Variant::Color(c),
            // The constructors that hold values, here; the others apart, so that
            // each level of nesting costs only this small frame (unoptimised, one
            // with room for every constructor would take a thread's stack at a
            // fraction of the depth limit).
            Tok::Ident(id) => match id.as_str() {
                "Object" => self.object()?,
                "Array" if !self.g3() => self.typed_array()?,
                "Dictionary" if !self.g3() => self.typed_dictionary()?,
                _ => self.identifier(id)?,
            },
            other if self.g3() => {
                return self.fail(format!("Expected value, got {}.", other.name()))
            }
            other => return self.fail(format!("Expected value, got '{}'", other.name())),
        })
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Res<T>) -> Res<T> {
        if self.depth >= self.max_depth {
            return self.fail(format!("nested deeper than {} containers", self.max_depth));
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn eof_in(&self, what: &str) -> Res<()> {
        if self.lex.at_end() {
            let msg = if self.g3() {
                format!("Unexpected End of File while parsing {what}")
            } else {
                format!("Unexpected EOF while parsing {what}")
            };
            return self.fail(msg);
        }
        Ok(())
    }

    fn array(&mut self) -> Res<Vec<Variant>> {
        let mut items = Vec::new();
        let mut need_comma = false;
        loop {
            self.eof_in("array")?;
            let tok = self.lex.next()?;
            if tok == Tok::BracketClose {
                return Ok(items);
            }
            if need_comma {
                if tok != Tok::Comma {
                    return self.fail("Expected ','");
                }
                need_comma = false;
                continue;
            }
            items.push(self.value(tok)?);
            need_comma = true;
        }
    }

    fn dictionary(&mut self) -> Res<Dictionary> {
        let mut d = Dictionary::new();
        let mut need_comma = false;
        loop {
            self.eof_in("dictionary")?;
            let tok = self.lex.next()?;
            if tok == Tok::CurlyClose {
                return Ok(d);
            }
            if need_comma {
                if tok != Tok::Comma {
                    return self.fail("Expected '}' or ','");
                }
                need_comma = false;
                continue;
            }
            let key = self.value(tok)?;
            if self.lex.next()? != Tok::Colon {
                return self.fail("Expected ':'");
            }
            self.eof_in("dictionary")?;
            let tok = self.lex.next()?;
            let value = self.value(tok)?;
            // The last value wins; the key keeps its first place.
            d.insert(key, value);
            need_comma = true;
        }
    }

    /// A constructor (or keyword) whose arguments are numbers or strings.
    #[inline(never)]
    fn identifier(&mut self, id: String) -> Res<Variant> {
        let g3 = self.g3();
        let real = |v: f64| Variant::Float(v);
        Ok(match id.as_str() {
            "true" => Variant::Bool(true),
            "false" => Variant::Bool(false),
            "null" | "nil" => Variant::Nil,
            "inf" => real(f64::INFINITY),
            "nan" => real(f64::NAN),
            "inf_neg" | "-inf" => real(f64::NEG_INFINITY),
            "Vector2" => {
                let [x, y] = self.reals()?;
                Variant::Vector2(Vector2::new(x, y))
            }
            "Rect2" => {
                let [x, y, w, h] = self.reals()?;
                Variant::Rect2(Rect2::new(x, y, w, h))
            }
            "Vector3" => {
                let [x, y, z] = self.reals()?;
                Variant::Vector3(Vector3::new(x, y, z))
            }
            "Transform2D" | "Matrix32" => {
                let v: [f32; 6] = self.reals()?;
                Variant::Transform2D(Transform2D::new(
                    Vector2::new(v[0], v[1]),
                    Vector2::new(v[2], v[3]),
                    Vector2::new(v[4], v[5]),
                ))
            }
            "Plane" => {
                let [a, b, c, d] = self.reals()?;
                Variant::Plane(Plane::new(a, b, c, d))
            }
            "Quat" => {
                let [x, y, z, w] = self.reals()?;
                Variant::Quat(Quat::new(x, y, z, w))
            }
            "AABB" | "Rect3" => {
                let v: [f32; 6] = self.reals()?;
                Variant::Aabb(Aabb::new(
                    Vector3::new(v[0], v[1], v[2]),
                    Vector3::new(v[3], v[4], v[5]),
                ))
            }
            "Basis" | "Matrix3" => {
                let v: [f32; 9] = self.reals()?;
                Variant::Basis(Box::new(Basis::from_rows([
                    [v[0], v[1], v[2]],
                    [v[3], v[4], v[5]],
                    [v[6], v[7], v[8]],
                ])))
            }
            "Transform" => {
                let v: [f32; 12] = self.reals()?;
                Variant::Transform(Box::new(transform(&v)))
            }
            "Color" => {
                let [r, g, b, a] = self.reals()?;
                Variant::Color(Color::new(r, g, b, a))
            }
            "NodePath" => {
                self.expect(Tok::ParenOpen, "Expected '('")?;
                let Tok::Str(s) = self.lex.next()? else {
                    return self.fail("Expected string as argument for NodePath()");
                };
                self.expect(Tok::ParenClose, "Expected ')'")?;
                Variant::NodePath(NodePath::from(s.as_str()))
            }
            "RID" if g3 => {
                // Godot 3 reads `RID(n)` as the number n.
                self.expect(Tok::ParenOpen, "Expected '('")?;
                let v = match self.lex.next()? {
                    Tok::Int(i) => Variant::Int(i),
                    Tok::Float(f) => Variant::Float(f),
                    _ => return self.fail("Expected number as argument"),
                };
                self.expect(Tok::ParenClose, "Expected ')'")?;
                v
            }
            "Resource" | "ExtResource" | "SubResource" => self.resource(id)?,
            "PoolByteArray" | "ByteArray" | "PackedByteArray" => {
                if !g3 {
                    return self.byte_array();
                }
                let v = self.args()?;
                Variant::PoolByteArray(PoolByteArray(v.into_iter().map(Num::u8).collect()))
            }
            "PackedIntArray" | "PackedRealArray" if g3 => {
                return self.fail(format!("Unexpected identifier: '{id}'."))
            }
            "PoolIntArray" | "IntArray" | "PackedInt32Array" | "PackedIntArray" => {
                Variant::PoolIntArray(PoolIntArray(self.int32_list()?))
            }
            "PackedInt64Array" if g3 => Variant::PoolIntArray(PoolIntArray(self.int32_list()?)),
            "PackedInt64Array" => Variant::PackedInt64Array(PackedInt64Array(self.int_list()?)),
            "PoolRealArray" | "FloatArray" | "PackedFloat32Array" | "PackedRealArray" => {
                let v = self.numbers()?;
                Variant::PoolRealArray(PoolRealArray(v.into_iter().map(|f| f as f32).collect()))
            }
            "PackedFloat64Array" if g3 => {
                let v = self.numbers()?;
                Variant::PoolRealArray(PoolRealArray(v.into_iter().map(|f| f as f32).collect()))
            }
            "PackedFloat64Array" => {
                Variant::PackedFloat64Array(PackedFloat64Array(self.numbers()?))
            }
            "PoolStringArray" | "StringArray" | "PackedStringArray" => {
                Variant::PoolStringArray(PoolStringArray(self.strings()?))
            }
            "PoolVector2Array" | "Vector2Array" | "PackedVector2Array" => {
                let v = self.floats()?;
                Variant::PoolVector2Array(PoolVector2Array(
                    v.chunks_exact(2)
                        .map(|c| Vector2::new(c[0], c[1]))
                        .collect(),
                ))
            }
            "PoolVector3Array" | "Vector3Array" | "PackedVector3Array" => {
                let v = self.floats()?;
                Variant::PoolVector3Array(PoolVector3Array(
                    v.chunks_exact(3)
                        .map(|c| Vector3::new(c[0], c[1], c[2]))
                        .collect(),
                ))
            }
            "PoolColorArray" | "ColorArray" | "PackedColorArray" => {
                let v = self.floats()?;
                Variant::PoolColorArray(PoolColorArray(
                    v.chunks_exact(4)
                        .map(|c| Color::new(c[0], c[1], c[2], c[3]))
                        .collect(),
                ))
            }
            _ if g3 => return self.fail(format!("Unexpected identifier: '{id}'.")),
            _ => return self.godot4_identifier(id),
        })
    }

    /// The constructors only Godot 4 has.
    fn godot4_identifier(&mut self, id: String) -> Res<Variant> {
        Ok(match id.as_str() {
            "Vector2i" => {
                let [x, y] = self.ints32()?;
                Variant::Vector2i(Vector2i::new(x, y))
            }
            "Rect2i" => {
                let [x, y, w, h] = self.ints32()?;
                Variant::Rect2i(Rect2i::new(x, y, w, h))
            }
            "Vector3i" => {
                let [x, y, z] = self.ints32()?;
                Variant::Vector3i(Vector3i::new(x, y, z))
            }
            "Vector4" => {
                let [x, y, z, w] = self.reals()?;
                Variant::Vector4(Vector4::new(x, y, z, w))
            }
            "Vector4i" => {
                let [x, y, z, w] = self.ints32()?;
                Variant::Vector4i(Vector4i::new(x, y, z, w))
            }
            "Quaternion" => {
                let [x, y, z, w] = self.reals()?;
                Variant::Quat(Quat::new(x, y, z, w))
            }
            "Transform3D" => {
                let v: [f32; 12] = self.reals()?;
                Variant::Transform(Box::new(transform(&v)))
            }
            "Projection" => {
                let v: [f32; 16] = self.reals()?;
                let col = |i: usize| Vector4::new(v[i], v[i + 1], v[i + 2], v[i + 3]);
                Variant::Projection(Box::new(Projection::from_columns(
                    col(0),
                    col(4),
                    col(8),
                    col(12),
                )))
            }
            "RID" => {
                self.expect(Tok::ParenOpen, "Expected '('")?;
                match self.lex.next()? {
                    Tok::ParenClose => Variant::Rid(Rid(0)),
                    Tok::Int(i) => {
                        self.expect(Tok::ParenClose, "Expected ')'")?;
                        Variant::Rid(Rid(i as u64))
                    }
                    Tok::Float(f) => {
                        self.expect(Tok::ParenClose, "Expected ')'")?;
                        Variant::Rid(Rid(c_uint64(f)))
                    }
                    _ => return self.fail("Expected number as argument or ')'"),
                }
            }
            "Signal" | "Callable" => {
                self.expect(Tok::ParenOpen, "Expected '('")?;
                self.expect(Tok::ParenClose, "Expected ')'")?;
                if id == "Signal" {
                    Variant::Signal(Box::default())
                } else {
                    Variant::Callable(Callable)
                }
            }
            "PoolVector4Array" | "Vector4Array" | "PackedVector4Array" => {
                let v = self.floats()?;
                Variant::PackedVector4Array(PackedVector4Array(
                    v.chunks_exact(4)
                        .map(|c| Vector4::new(c[0], c[1], c[2], c[3]))
                        .collect(),
                ))
            }
            _ => return self.fail(format!("Unexpected identifier '{id}'")),
        })
    }

    /// One constructor argument: a number, or `inf` / `nan` (and `inf_neg`, `-inf`)
    /// where the engine takes them.
    fn num(&self, tok: Tok, expected: &str) -> Res<Num> {
        match tok {
            Tok::Int(i) => Ok(Num::Int(i)),
            Tok::Float(f) => Ok(Num::Float(f)),
            Tok::Ident(id) => match self.special_float(&id) {
                Some(f) => Ok(Num::Float(f)),
                None => self.fail(expected),
            },
            _ => self.fail(expected),
        }
    }

    /// `(` arguments `)` of a numeric constructor; no trailing comma.
    fn args(&mut self) -> Res<Vec<Num>> {
        self.expect(Tok::ParenOpen, "Expected '(' in constructor")?;
        let mut out = Vec::new();
        let mut first = true;
        loop {
            if !first {
                match self.lex.next()? {
                    Tok::ParenClose => return Ok(out),
                    Tok::Comma => {}
                    _ => return self.fail("Expected ',' or ')' in constructor"),
                }
            }
            let tok = self.lex.next()?;
            if first && tok == Tok::ParenClose {
                return Ok(out);
            }
            first = false;
            out.push(self.num(tok, "Expected float in constructor")?);
        }
    }

    fn numbers(&mut self) -> Res<Vec<f64>> {
        Ok(self.args()?.into_iter().map(Num::f64).collect())
    }

    fn int_list(&mut self) -> Res<Vec<i64>> {
        Ok(self.args()?.into_iter().map(Num::i64).collect())
    }

    fn int32_list(&mut self) -> Res<Vec<i32>> {
        Ok(self.args()?.into_iter().map(Num::i32).collect())
    }

    fn special_float(&self, id: &str) -> Option<f64> {
        match id {
            "inf" => Some(f64::INFINITY),
            "nan" => Some(f64::NAN),
            "inf_neg" => Some(f64::NEG_INFINITY),
            "-inf" if !self.g3() => Some(f64::NEG_INFINITY),
            _ => None,
        }
    }

    fn floats(&mut self) -> Res<Vec<f32>> {
        Ok(self.numbers()?.into_iter().map(|f| f as f32).collect())
    }

    fn reals<const N: usize>(&mut self) -> Res<[f32; N]> {
        let v = self.floats()?;
        v.try_into()
            .or_else(|_| self.fail(format!("Expected {N} arguments for constructor")))
    }

    fn ints32<const N: usize>(&mut self) -> Res<[i32; N]> {
        let v = self.int32_list()?;
        v.try_into()
            .or_else(|_| self.fail(format!("Expected {N} arguments for constructor")))
    }

    fn strings(&mut self) -> Res<Vec<String>> {
        self.expect(Tok::ParenOpen, "Expected '('")?;
        let mut out = Vec::new();
        let mut first = true;
        loop {
            if !first {
                match self.lex.next()? {
                    Tok::ParenClose => return Ok(out),
                    Tok::Comma => {}
                    _ => return self.fail("Expected ',' or ')'"),
                }
            }
            first = false;
            match self.lex.next()? {
                Tok::ParenClose => return Ok(out),
                Tok::Str(s) => out.push(s),
                _ => return self.fail("Expected string"),
            }
        }
    }

    /// Godot 4's `PackedByteArray(...)`: base64 in a string, or numbers.
    fn byte_array(&mut self) -> Res<Variant> {
        self.expect(Tok::ParenOpen, "Expected '(' in constructor")?;
        let bytes = match self.lex.next()? {
            Tok::ParenClose => Vec::new(),
            Tok::Str(s) => {
                use base64::Engine as _;
                let clean: String = s.chars().filter(|c| *c != '\n' && *c != '\r').collect();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(clean.trim_end_matches(' '))
                    .or_else(|_| self.fail("Invalid base64-encoded string"))?;
                self.expect(Tok::ParenClose, "Expected ')' in constructor")?;
                bytes
            }
            tok @ (Tok::Int(_) | Tok::Float(_) | Tok::Ident(_)) => {
                let mut out = Vec::new();
                let mut tok = tok;
                loop {
                    out.push(self.num(tok, "Expected number in constructor")?.u8());
                    match self.lex.next()? {
                        Tok::ParenClose => break out,
                        Tok::Comma => tok = self.lex.next()?,
                        _ => return self.fail("Expected ',' or ')' in constructor"),
                    }
                }
            }
            _ => return self.fail("Expected base64 string, or list of numbers in constructor"),
        };
        Ok(Variant::PoolByteArray(PoolByteArray(bytes)))
    }

    /// `Object(Class, "prop": value, ...)`: kept as data, never instantiated.
    fn object(&mut self) -> Res<Variant> {
        self.expect(Tok::ParenOpen, "Expected '('")?;
        let Tok::Ident(class) = self.lex.next()? else {
            return self.fail("Expected identifier with type of object");
        };
        self.expect(Tok::Comma, "Expected ',' after object type")?;
        let mut properties: Vec<(String, Variant)> = Vec::new();
        // Where each name is in `properties`: a repeated one sets the first (as the
        // engine's `set` does), found without a scan of those before it.
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut need_comma = false;
        loop {
            if self.lex.at_end() {
                return self.fail(if self.g3() {
                    "Unexpected End of File while parsing Object()"
                } else {
                    "Unexpected EOF while parsing Object()"
                });
            }
            let tok = self.lex.next()?;
            if tok == Tok::ParenClose {
                break;
            }
            if need_comma {
                if tok != Tok::Comma {
                    return self.fail("Expected '}' or ','");
                }
                need_comma = false;
                continue;
            }
            let Tok::Str(name) = tok else {
                return self.fail("Expected property name as string");
            };
            self.expect(Tok::Colon, "Expected ':'")?;
            let tok = self.lex.next()?;
            let value = self.nested(|p| p.value(tok))?;
            match index.entry(name) {
                Entry::Occupied(at) => properties[*at.get()].1 = value,
                Entry::Vacant(at) => {
                    properties.push((at.key().clone(), value));
                    at.insert(properties.len() - 1);
                }
            }
            need_comma = true;
        }
        Ok(Variant::Object(Box::new(Object { class, properties })))
    }

    /// `Resource("path")`, `ExtResource("id")`, `SubResource("id")`: an inert reference.
    fn resource(&mut self, kind: String) -> Res<Variant> {
        self.expect(Tok::ParenOpen, "Expected '('")?;
        let mut args = Vec::new();
        loop {
            match self.lex.next()? {
                Tok::ParenClose if !args.is_empty() => break,
                Tok::Str(s) => args.push(Variant::String(s)),
                Tok::Int(i) if kind != "Resource" => args.push(Variant::Int(i)),
                _ if args.is_empty() => {
                    return self.fail("Expected string as argument for Resource()")
                }
                _ => return self.fail("Expected string in Resource reference"),
            }
            match self.lex.next()? {
                Tok::ParenClose => break,
                Tok::Comma => {}
                _ => return self.fail("Expected ')'"),
            }
        }
        Ok(Variant::ResourceRef(Box::new(ResourceRef { kind, args })))
    }

    /// A type name in `Array[T]` / `Dictionary[K, V]`; `None` is untyped (`Variant`).
    fn container_type(&mut self, missing: &str) -> Res<Option<ContainerType>> {
        let Tok::Ident(name) = self.lex.next()? else {
            return self.fail(missing);
        };
        Ok(match VariantType::from_godot4_name(&name) {
            Some(VariantType::Nil) => None,
            Some(ty) => Some(ContainerType::Builtin(ty)),
            None if name == "Variant" => None,
            None if name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                Some(ContainerType::Class(name))
            }
            None => None,
        })
    }

    fn typed_array(&mut self) -> Res<Variant> {
        self.expect(Tok::BracketOpen, "Expected '['")?;
        let element = self.container_type("Expected type identifier")?;
        self.expect(Tok::BracketClose, "Expected ']'")?;
        self.expect(Tok::ParenOpen, "Expected '('")?;
        self.expect(Tok::BracketOpen, "Expected '['")?;
        let items = self.nested(|p| p.array())?;
        self.expect(Tok::ParenClose, "Expected ')'")?;
        Ok(match element {
            None => Variant::Array(items),
            Some(element) => {
                // `Array::assign`: all convert, or the array stays empty.
                let items = conform_all(&element, items).map_err(|msg| self.fail_now(msg))?;
                Variant::TypedArray(Box::new(TypedArray { element, items }))
            }
        })
    }

    fn typed_dictionary(&mut self) -> Res<Variant> {
        self.expect(Tok::BracketOpen, "Expected '['")?;
        let key = self.container_type("Expected type identifier for key")?;
        self.expect(Tok::Comma, "Expected ',' after key type")?;
        let value = self.container_type("Expected type identifier for value")?;
        self.expect(Tok::BracketClose, "Expected ']'")?;
        self.expect(Tok::ParenOpen, "Expected '('")?;
        self.expect(Tok::CurlyOpen, "Expected '{'")?;
        let entries = self.nested(|p| p.dictionary())?;
        self.expect(Tok::ParenClose, "Expected ')'")?;
        if key.is_none() && value.is_none() {
            return Ok(Variant::Dictionary(entries));
        }
        let (keys, values): (Vec<Variant>, Vec<Variant>) = entries.into_iter().unzip();
        let convert = |ty: &Option<ContainerType>, v: Vec<Variant>| match ty {
            Some(ty) => conform_all(ty, v),
            None => Ok(v),
        };
        let keys = convert(&key, keys).map_err(|m| self.fail_now(m))?;
        let values = convert(&value, values).map_err(|m| self.fail_now(m))?;
        let entries = if keys.is_empty() || values.is_empty() {
            Dictionary::new()
        } else {
            keys.into_iter().zip(values).collect()
        };
        Ok(Variant::TypedDictionary(Box::new(TypedDictionary {
            key,
            value,
            entries,
        })))
    }

    fn fail_now(&self, msg: String) -> Fail {
        Fail {
            msg,
            at: self.lex.start,
        }
    }
}

/// A numeric constructor argument, converted to its element type as the engine's C
/// casts do: integers wrap, floats truncate (out of range: the minimum).
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    fn i64(self) -> i64 {
        match self {
            Num::Int(i) => i,
            Num::Float(f) => c_int64(f),
        }
    }

    fn i32(self) -> i32 {
        match self {
            Num::Int(i) => i as i32,
            Num::Float(f) => c_int32(f),
        }
    }

    fn u8(self) -> u8 {
        self.i64() as u8
    }
}

fn transform(v: &[f32; 12]) -> Transform {
    Transform::new(
        Basis::from_rows([[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]]),
        Vector3::new(v[9], v[10], v[11]),
    )
}
