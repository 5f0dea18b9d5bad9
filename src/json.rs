//! A lossless JSON mapping of [`Variant`] (feature `json`): Godot values for `jq`
//! and other JSON tools, and back.
//!
//! Plain data maps to plain JSON: `null`, booleans, ints, floats, Strings, Arrays, and
//! Dictionaries whose keys are Strings. Every other value is an object with one key,
//! `"$"` and the type's Godot 4 name, whose value (the payload) holds the data:
//! `{"$Vector2": [1.0, 2.0]}`. Reading the JSON back gives the same Variant, exactly:
//! ints stay ints and floats floats, every float keeps its bits (NaN payloads and `-0.0`
//! included), and Strings, StringNames, typed and untyped containers stay apart.
//!
//! ```
//! use godot_bin::{json, Dictionary, Variant, Vector2};
//! let mut player = Dictionary::new();
//! player.insert("name", "Ada");
//! player.insert("hp", 10);
//! player.insert("speed", 2.0);
//! player.insert("pos", Vector2::new(1.5, -2.0));
//! let v = Variant::Dictionary(player);
//!
//! let text = json::to_string(&v);
//! assert_eq!(text, r#"{"name":"Ada","hp":10,"speed":2.0,"pos":{"$Vector2":[1.5,-2.0]}}"#);
//! assert_eq!(json::from_str(&text)?, v);
//! # Ok::<(), godot_bin::Error>(())
//! ```
//!
//! # The mapping
//!
//! | Variant | JSON |
//! |---|---|
//! | `Nil` | `null` |
//! | `Bool` | `true`, `false` |
//! | `Int` | an integer: `-3` |
//! | `Float` | a number with a fraction or an exponent: `1.0`, `-0.0`, `0.1`, `1e+300` |
//! | `Float`, not finite | `{"$float": "inf"}`; also `"-inf"`, `"nan"`, `"-nan"`, `"nan:0x…"` (below) |
//! | `String` | a string |
//! | `Array` | an array |
//! | `Dictionary` whose keys are all Strings, none starting with `$` | an object, in order: `{"hp": 10}` |
//! | any other `Dictionary` | `{"$Dictionary": [[key, value], ...]}` |
//! | `TypedArray` | `{"$Array": {"type": T, "values": [...]}}` |
//! | `TypedDictionary` | `{"$Dictionary": {"key": T, "value": T, "entries": E}}`: `null` for an untyped side; `E` an object when every key is a String, else `[[key, value], ...]` |
//! | `Vector2`, `Vector2i`, `Rect2`, `Rect2i`, `Vector3`, `Vector3i`, `Transform2D`, `Vector4`, `Vector4i`, `Plane`, `Quat`, `Aabb`, `Basis`, `Transform`, `Projection`, `Color` | the numbers of Godot's text form, in its order: `{"$Rect2": [x, y, width, height]}`, `{"$Quaternion": [x, y, z, w]}`, `{"$AABB": [...]}`, `{"$Transform3D": [...]}` |
//! | `StringName` | `{"$StringName": "name"}` |
//! | `NodePath` | `{"$NodePath": "../Player:position"}`; `{"$NodePath": {"absolute": false, "names": [...], "subnames": [...]}}` for the rare path whose text reads back as another path (a name holding `/` or `:`, an empty name) |
//! | `Rid` | `{"$RID": 42}` |
//! | `Object` | `{"$Object": {"class": "Node", "properties": {"name": ...}}}`, properties in order; `[[name, value], ...]` if a name repeats |
//! | `ObjectId` | `{"$EncodedObjectAsID": 1234}` |
//! | `Callable` | `{"$Callable": null}` |
//! | `Signal` | `{"$Signal": {"name": "hit", "object": 1234}}` |
//! | `PoolByteArray` | `{"$PackedByteArray": "AAEC"}`: standard Base64, padded |
//! | `PoolIntArray`, `PackedInt64Array` | `{"$PackedInt32Array": [1, 2]}`, `{"$PackedInt64Array": [...]}` |
//! | `PoolRealArray`, `PackedFloat64Array` | `{"$PackedFloat32Array": [0.5, "nan"]}`, `{"$PackedFloat64Array": [...]}` |
//! | `PoolStringArray` | `{"$PackedStringArray": ["a", "b"]}` |
//! | `PoolVector2Array`, `PoolVector3Array`, `PoolColorArray`, `PackedVector4Array` | one array per element: `{"$PackedVector2Array": [[1.0, 2.0], [3.0, 4.0]]}` |
//! | `Image` (Godot 2) | `{"$Image": {"format": 4, "mipmaps": 0, "width": 1, "height": 1, "data": "/wAA/w=="}}` |
//! | `InputEvent` (Godot 2) | `{"$InputEvent": {"type": "KEY", "device": 0, "modifiers": 0, "scancode": 65}}`: the fields the engine sends for the type (below) |
//! | `ResourceRef` | `{"$ResourceRef": {"kind": "ExtResource", "args": ["1_abc"]}}` |
//!
//! A type `T` of a typed container is the Godot 4 type name (`"int"`, `"Vector2"`),
//! `{"class": "Node"}`, or `{"script": "res://enemy.gd"}`.
//!
//! **Numbers.** Ints are JSON integers; floats always have a fraction or an exponent
//! (serde_json writes the shortest text that reads back to the same `f64`), so a
//! number's form says which it is. The `f32` components of math types and
//! `PackedFloat32Array` are written as the shortest text that reads back to the same
//! `f32` (`0.1`, not `0.10000000149011612`). Non-finite components are strings in
//! place of the number: `"inf"`, `"-inf"`, `"nan"` (the quiet NaN `0x7fc00000` or
//! `0x7ff8000000000000`), `"-nan"` (the same with the sign bit, what x86 engines make),
//! and `"nan:0x"` with the 8 or 16 hex digits of any other NaN's bits.
//!
//! **InputEvent types** are Godot 2's names, with the fields the engine sends:
//! `"NONE"`, `"KEY"` (`modifiers`, `scancode`), `"MOUSE_MOTION"`, `"MOUSE_BUTTON"`
//! (`button_index`), `"JOYSTICK_MOTION"` (`axis`, `axis_value`), `"JOYSTICK_BUTTON"`
//! (`button_index`), `"SCREEN_TOUCH"` (`index`), `"SCREEN_DRAG"`, `"ACTION"`; a type
//! id the engine does not know is a number.
//!
//! **Reading** also takes what a person may write: any number where a math type wants
//! a float (`[1, 2]`), Godot 2 and 3 names for tags and container types (`$Quat`,
//! `$Transform`, `$PoolRealArray`, `"Matrix32"`), and the tagged form of the plain types
//! (`{"$float": 1}` is a float, `{"$int": 1}`, `{"$String": "a"}`, `{"$Array": [...]}`).
//! It refuses everything else, naming where in the JSON the problem is (see
//! [`ErrorKind::Json`]): an unknown tag, a tag beside other keys, a payload of the
//! wrong shape, an unknown or missing field, an int out of its type's range (a JSON
//! integer beyond 64 bits is refused rather than read as a float), a float beyond
//! `f32` for an `f32` component, bad Base64, an unknown type name. Containers may nest
//! [`DEFAULT_MAX_DEPTH`] deep, as in the binary decoder. The items of a typed container
//! are taken as written, not checked against its type (a [`TypedArray`] holds what it
//! is given).
//!
//! # Plain data is plain JSON
//!
//! For data made of ints, `f64`s, bools, Strings, `Option`s, sequences, maps with
//! String keys and structs, the JSON of the Variant [`to_variant`](crate::to_variant)
//! makes is the JSON serde_json makes of the value itself, so `jq` sees the structure
//! the Rust code has:
//!
//! ```
//! #[derive(serde::Serialize)]
//! struct Save { level: u32, name: String, scores: Vec<i64>, pos: Option<Pos> }
//! #[derive(serde::Serialize)]
//! struct Pos { x: f64, y: f64 }
//!
//! let save = Save { level: 3, name: "Ada".into(), scores: vec![10, -2], pos: Some(Pos { x: 1.5, y: 0.0 }) };
//! let v = godot_bin::to_variant(&save)?;
//! assert_eq!(godot_bin::json::to_value(&v), serde_json::to_value(&save).unwrap());
//! assert_eq!(godot_bin::json::to_string(&v), r#"{"level":3,"name":"Ada","scores":[10,-2],"pos":{"x":1.5,"y":0.0}}"#);
//! # Ok::<(), godot_bin::Error>(())
//! ```
//!
//! Godot types, maps with other keys, map keys starting with `$` and non-finite floats
//! take the tagged forms above.
//!
//! Through `jq`, the exact round trip holds where jq keeps numbers as written (jq 1.7
//! keeps the literals it does not change). jq 1.6 prints `1.0` as `1` and rounds ints
//! beyond 2^53 to doubles (`1e+17`): read back, such a float becomes an int and such an
//! int a float. The components of math types and packed float arrays do not change
//! type that way, as any number is read as their float.
//!
//! # serde_json features
//!
//! The `json` feature turns on serde_json's `preserve_order` (Dictionaries keep their
//! order through [`Value`]; every `serde_json::Map` in the build then keeps insertion
//! order), `float_roundtrip` (exact float parsing) and `unbounded_depth` (for
//! [`from_str`], which bounds the nesting itself).

use std::collections::HashSet;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::types::{Floats, Ints};
use crate::{
    ContainerType, Dialect, Dictionary, Image, InputEvent, InputEventKind, NodePath, Object,
    ResourceRef, Signal, StringName, TypedArray, TypedDictionary, Variant, VariantType,
    DEFAULT_MAX_DEPTH,
};

/// The tag of [`Variant::ObjectId`]: the class Godot decodes such an object into.
const OBJECT_ID: &str = "EncodedObjectAsID";
/// The tag of [`Variant::ResourceRef`], which is no Godot type.
const RESOURCE_REF: &str = "ResourceRef";

/// Containers (Arrays, Dictionaries, Objects, resource references) nested in what
/// [`from_value`] reads: the binary decoder's default limit.
const MAX_DEPTH: usize = DEFAULT_MAX_DEPTH;

/// The JSON nesting [`from_str`] parses: enough for any Variant within [`MAX_DEPTH`],
/// whose containers take at most four JSON levels each (`{"$Dictionary": {"entries":
/// [[key, value]]}}`) and whose leaves at most three (`{"$NodePath": {"names": [...]}}`).
/// The bound keeps the parser's recursion, which serde_json's own limit of 128 would
/// cut at a depth some Variants need, off the end of the stack.
const MAX_JSON_DEPTH: usize = 4 * MAX_DEPTH + 3;

/// The JSON form of `v`, as in the [module docs](self).
///
/// ```
/// use godot_bin::{json, StringName, Variant};
/// use serde_json::json;
/// let v = Variant::Array(vec![1.into(), 1.0.into(), StringName::from("idle").into()]);
/// assert_eq!(json::to_value(&v), json!([1, 1.0, {"$StringName": "idle"}]));
/// ```
pub fn to_value(v: &Variant) -> Value {
    // Only containers recurse. Their arms come first and call functions of their own,
    // so that a nesting level adds only this small frame: a debug build's frame holds
    // the temporaries of every arm, and the leaves' are in `leaf`'s, gone by then.
    match v {
        Variant::Array(items) => items.iter().map(to_value).collect(),
        Variant::Dictionary(d) => dictionary(d),
        Variant::TypedArray(a) => typed_array(a),
        Variant::TypedDictionary(d) => typed_dictionary(d),
        Variant::Object(o) => object(o),
        Variant::ResourceRef(r) => resource_ref(r),
        _ => leaf(v),
    }
}

/// The JSON of a value that holds no Variants (containers go back to [`to_value`]).
fn leaf(v: &Variant) -> Value {
    use VariantType as T;
    match v {
        Variant::Nil => Value::Null,
        Variant::Bool(b) => Value::Bool(*b),
        Variant::Int(i) => Value::from(*i),
        Variant::Float(f) if f.is_finite() => Value::from(*f),
        Variant::Float(f) => tag(T::Float, special(f.to_bits(), &F64).into()),
        Variant::String(s) => Value::from(s.as_str()),
        Variant::Vector2(x) => reals(T::Vector2, x),
        Variant::Rect2(x) => reals(T::Rect2, x),
        Variant::Vector3(x) => reals(T::Vector3, x),
        Variant::Transform2D(x) => reals(T::Transform2D, x),
        Variant::Plane(x) => reals(T::Plane, x),
        Variant::Quat(x) => reals(T::Quat, x),
        Variant::Aabb(x) => reals(T::Aabb, x),
        Variant::Basis(x) => reals(T::Basis, &**x),
        Variant::Transform(x) => reals(T::Transform, &**x),
        Variant::Color(x) => reals(T::Color, x),
        Variant::Vector4(x) => reals(T::Vector4, x),
        Variant::Projection(x) => reals(T::Projection, &**x),
        Variant::Vector2i(x) => ints(T::Vector2i, x),
        Variant::Rect2i(x) => ints(T::Rect2i, x),
        Variant::Vector3i(x) => ints(T::Vector3i, x),
        Variant::Vector4i(x) => ints(T::Vector4i, x),
        Variant::NodePath(p) => tag(T::NodePath, node_path(p)),
        Variant::Rid(r) => tag(T::Rid, r.0.into()),
        Variant::ObjectId(id) => tagged(OBJECT_ID, (*id).into()),
        Variant::PoolByteArray(b) => tag(T::PoolByteArray, BASE64.encode(&b.0).into()),
        Variant::PoolIntArray(a) => tag(T::PoolIntArray, a.iter().copied().collect()),
        Variant::PoolRealArray(a) => {
            tag(T::PoolRealArray, a.iter().map(|x| f32_value(*x)).collect())
        }
        Variant::PoolStringArray(a) => {
            tag(T::PoolStringArray, a.iter().map(String::as_str).collect())
        }
        Variant::PoolVector2Array(a) => tag(T::PoolVector2Array, a.iter().map(numbers).collect()),
        Variant::PoolVector3Array(a) => tag(T::PoolVector3Array, a.iter().map(numbers).collect()),
        Variant::PoolColorArray(a) => tag(T::PoolColorArray, a.iter().map(numbers).collect()),
        Variant::PackedVector4Array(a) => {
            tag(T::PackedVector4Array, a.iter().map(numbers).collect())
        }
        Variant::PackedInt64Array(a) => tag(T::PackedInt64Array, a.iter().copied().collect()),
        Variant::PackedFloat64Array(a) => tag(
            T::PackedFloat64Array,
            a.iter().map(|x| f64_value(*x)).collect(),
        ),
        Variant::StringName(s) => tag(T::StringName, s.0.as_str().into()),
        Variant::Callable(_) => tag(T::Callable, Value::Null),
        Variant::Signal(s) => tag(
            T::Signal,
            fields([
                ("name", s.name.as_str().into()),
                ("object", s.object.into()),
            ]),
        ),
        Variant::Image(i) => tag(
            T::Image,
            fields([
                ("format", i.format.into()),
                ("mipmaps", i.mipmaps.into()),
                ("width", i.width.into()),
                ("height", i.height.into()),
                ("data", BASE64.encode(&i.data).into()),
            ]),
        ),
        Variant::InputEvent(e) => tag(T::InputEvent, input_event(e)),
        Variant::Array(_)
        | Variant::Dictionary(_)
        | Variant::TypedArray(_)
        | Variant::TypedDictionary(_)
        | Variant::Object(_)
        | Variant::ResourceRef(_) => to_value(v),
    }
}

/// The compact JSON text of `v`.
///
/// ```
/// use godot_bin::{json, Variant};
/// assert_eq!(json::to_string(&Variant::Float(f64::INFINITY)), r#"{"$float":"inf"}"#);
/// ```
pub fn to_string(v: &Variant) -> String {
    to_value(v).to_string()
}

/// The JSON text of `v`, indented.
///
/// ```
/// use godot_bin::{json, Variant, Vector2i};
/// let v = Variant::Array(vec![Vector2i::new(1, 2).into()]);
/// assert_eq!(json::to_string_pretty(&v), "[\n  {\n    \"$Vector2i\": [\n      1,\n      2\n    ]\n  }\n]");
/// ```
pub fn to_string_pretty(v: &Variant) -> String {
    format!("{:#}", to_value(v))
}

/// Reads a Variant from its JSON form; see the [module docs](self) for what is accepted.
///
/// ```
/// use godot_bin::{json, ErrorKind, Variant};
/// use serde_json::json;
/// let v = json::from_value(&json!({"$PackedInt32Array": [1, 2]}))?;
/// assert_eq!(v, Variant::PoolIntArray(vec![1, 2].into()));
///
/// let err = json::from_value(&json!({"players": [{"avatar": {"$Vector2": [1, 2, 3]}}]})).unwrap_err();
/// assert_eq!(err.to_string(), "$.players[0].avatar: $Vector2 needs 2 numbers, found 3");
/// let ErrorKind::Json { path, .. } = err.kind() else { unreachable!() };
/// assert_eq!(path, "$.players[0].avatar");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn from_value(j: &Value) -> Result<Variant> {
    read(j, Path::Root, 0)
}

/// Parses JSON text and reads the Variant it holds, like [`from_value`].
///
/// Errors in the text itself (bad syntax, nesting too deep to be a Variant within
/// [`DEFAULT_MAX_DEPTH`], an integer beyond 64 bits) have the path `$` and say where
/// they are by line and column.
///
/// The nesting bound is deeper than serde_json's default of 128 levels, as the tagged
/// forms take up to four JSON levels per container: the deepest text accepted takes
/// about 0.5 MiB of stack in release builds and 1.5 MiB in debug builds.
///
/// ```
/// use godot_bin::{json, Variant};
/// let v = json::from_str(r#"{"$Array": {"type": "int", "values": [1, 2]}}"#)?;
/// let Variant::TypedArray(a) = &v else { panic!() };
/// assert_eq!(a.items, [Variant::Int(1), Variant::Int(2)]);
/// assert!(json::from_str("[1, 2").is_err());
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn from_str(s: &str) -> Result<Variant> {
    check_text(s)?;
    let mut de = serde_json::Deserializer::from_str(s);
    // `check_text` bounded the nesting, at a depth serde_json's own limit would refuse.
    de.disable_recursion_limit();
    let j = Value::deserialize(&mut de).map_err(text_error)?;
    de.end().map_err(text_error)?;
    from_value(&j)
}

// ---------------------------------------------------------------------------------
// Writing

/// `{"$Name": payload}` with the type's Godot 4 name.
fn tag(ty: VariantType, payload: Value) -> Value {
    tagged(ty.name_in(Dialect::Godot4), payload)
}

fn tagged(name: &str, payload: Value) -> Value {
    let mut map = Map::with_capacity(1);
    map.insert(format!("${name}"), payload);
    Value::Object(map)
}

/// An object with these fields, in this order.
fn fields<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn reals<T: Floats>(ty: VariantType, x: &T) -> Value {
    tag(ty, numbers(x))
}

fn numbers<T: Floats>(x: &T) -> Value {
    x.floats().map(f32_value).collect()
}

fn ints<T: Ints>(ty: VariantType, x: &T) -> Value {
    tag(ty, x.ints()[..T::N].iter().copied().collect())
}

/// The bit patterns behind the names of a float width's non-finite values.
struct Width {
    sign: u64,
    inf: u64,
    nan: u64,
    hex_digits: usize,
}

const F32: Width = Width {
    sign: 1 << 31,
    inf: 0x7f80_0000,
    nan: 0x7fc0_0000,
    hex_digits: 8,
};

const F64: Width = Width {
    sign: 1 << 63,
    inf: 0x7ff0_0000_0000_0000,
    nan: 0x7ff8_0000_0000_0000,
    hex_digits: 16,
};

/// The name of a non-finite float: `inf`, `-inf`, `nan`, `-nan`, or `nan:0x` and its bits.
fn special(bits: u64, w: &Width) -> String {
    match bits {
        b if b == w.inf => "inf".into(),
        b if b == w.inf | w.sign => "-inf".into(),
        b if b == w.nan => "nan".into(),
        b if b == w.nan | w.sign => "-nan".into(),
        b => format!("nan:0x{b:0digits$x}", digits = w.hex_digits),
    }
}

/// The bits a non-finite float's name stands for.
fn special_bits(name: &str, w: &Width) -> Option<u64> {
    Some(match name {
        "inf" => w.inf,
        "-inf" => w.inf | w.sign,
        "nan" => w.nan,
        "-nan" => w.nan | w.sign,
        _ => {
            let hex = name.strip_prefix("nan:0x")?;
            if hex.len() != w.hex_digits || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let bits = u64::from_str_radix(hex, 16).ok()?;
            // Only NaNs: every exponent bit set and a fraction that is not zero.
            return ((bits & !w.sign) > w.inf).then_some(bits);
        }
    })
}

fn f64_value(x: f64) -> Value {
    if x.is_finite() {
        Value::from(x)
    } else {
        special(x.to_bits(), &F64).into()
    }
}

fn f32_value(x: f32) -> Value {
    if !x.is_finite() {
        return special(x.to_bits().into(), &F32).into();
    }
    // The f64 nearest to the f32's shortest decimal prints as that decimal ("0.1", not
    // "0.10000000149011612"). Reading it rounds twice (decimal to f64 to f32), which
    // for two f32s (±7.038531e-26, of all 2^32) gives the next f32: those are written
    // as their exact value instead.
    let short = x
        .to_string()
        .parse::<f64>()
        .ok()
        .filter(|y| (*y as f32).to_bits() == x.to_bits())
        .unwrap_or(f64::from(x));
    Value::from(short)
}

/// A Dictionary's entries: an object when every key is a String (not starting with `$`
/// when `tag_free`, as an untyped Dictionary's object stands where a tag could), else
/// `[key, value]` pairs.
fn entries(d: &Dictionary, tag_free: bool) -> Value {
    let keys: Option<Vec<&str>> = d
        .keys()
        .map(|k| match k {
            Variant::String(s) if !(tag_free && s.starts_with('$')) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    match keys {
        Some(keys) => Value::Object(
            keys.into_iter()
                .zip(d.values())
                .map(|(k, v)| (k.to_owned(), to_value(v)))
                .collect(),
        ),
        None => d
            .iter()
            .map(|(k, v)| Value::Array(vec![to_value(k), to_value(v)]))
            .collect(),
    }
}

fn dictionary(d: &Dictionary) -> Value {
    match entries(d, true) {
        plain @ Value::Object(_) => plain,
        pairs => tag(VariantType::Dictionary, pairs),
    }
}

fn typed_array(a: &TypedArray) -> Value {
    tag(
        VariantType::Array,
        fields([
            ("type", container_type(&a.element)),
            ("values", a.items.iter().map(to_value).collect()),
        ]),
    )
}

fn typed_dictionary(d: &TypedDictionary) -> Value {
    let side = |t: &Option<ContainerType>| t.as_ref().map_or(Value::Null, container_type);
    tag(
        VariantType::Dictionary,
        fields([
            ("key", side(&d.key)),
            ("value", side(&d.value)),
            ("entries", entries(&d.entries, false)),
        ]),
    )
}

fn resource_ref(r: &ResourceRef) -> Value {
    tagged(
        RESOURCE_REF,
        fields([
            ("kind", r.kind.as_str().into()),
            ("args", r.args.iter().map(to_value).collect()),
        ]),
    )
}

fn object(o: &Object) -> Value {
    let mut seen = HashSet::new();
    let properties = if o.properties.iter().all(|(k, _)| seen.insert(k)) {
        Value::Object(
            o.properties
                .iter()
                .map(|(k, v)| (k.clone(), to_value(v)))
                .collect(),
        )
    } else {
        // A JSON object would keep one value per name.
        o.properties
            .iter()
            .map(|(k, v)| Value::Array(vec![k.as_str().into(), to_value(v)]))
            .collect()
    };
    tag(
        VariantType::Object,
        fields([
            ("class", o.class.as_str().into()),
            ("properties", properties),
        ]),
    )
}

fn node_path(p: &NodePath) -> Value {
    let text = p.to_string();
    if NodePath::from(text.as_str()) == *p {
        text.into()
    } else {
        fields([
            ("absolute", p.is_absolute().into()),
            ("names", p.names().into()),
            ("subnames", p.subnames().into()),
        ])
    }
}

fn container_type(t: &ContainerType) -> Value {
    match t {
        ContainerType::Builtin(ty) => ty.name_in(Dialect::Godot4).into(),
        ContainerType::Class(c) => fields([("class", c.as_str().into())]),
        ContainerType::Script(s) => fields([("script", s.as_str().into())]),
    }
}

fn input_event(e: &InputEvent) -> Value {
    use InputEventKind as K;
    let (ty, extra): (Value, Vec<(&str, Value)>) = match e.kind {
        K::None => ("NONE".into(), vec![]),
        K::Key {
            modifiers,
            scancode,
        } => (
            "KEY".into(),
            vec![
                ("modifiers", modifiers.into()),
                ("scancode", scancode.into()),
            ],
        ),
        K::MouseMotion => ("MOUSE_MOTION".into(), vec![]),
        K::MouseButton { button_index } => (
            "MOUSE_BUTTON".into(),
            vec![("button_index", button_index.into())],
        ),
        K::JoystickMotion { axis, axis_value } => (
            "JOYSTICK_MOTION".into(),
            vec![("axis", axis.into()), ("axis_value", f32_value(axis_value))],
        ),
        K::JoystickButton { button_index } => (
            "JOYSTICK_BUTTON".into(),
            vec![("button_index", button_index.into())],
        ),
        K::ScreenTouch { index } => ("SCREEN_TOUCH".into(), vec![("index", index.into())]),
        K::ScreenDrag => ("SCREEN_DRAG".into(), vec![]),
        K::Action => ("ACTION".into(), vec![]),
        K::Other(id) => (id.into(), vec![]),
    };
    let mut map = Map::new();
    map.insert("type".into(), ty);
    map.insert("device".into(), e.device.into());
    for (k, v) in extra {
        map.insert(k.into(), v);
    }
    Value::Object(map)
}

// ---------------------------------------------------------------------------------
// Reading

/// Where a JSON value is, as a chain of steps from the root; rendered only for errors.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn key<'b>(&'b self, k: &'b str) -> Path<'b> {
        Path::Key(self, k)
    }

    fn index(&self, i: usize) -> Path<'_> {
        Path::Index(self, i)
    }

    /// `$.players[3].avatar`, `$.a["$Vector2"][1]`: jq's syntax after the `$`.
    fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut p = self;
        loop {
            match p {
                Path::Root => break,
                Path::Key(up, _) | Path::Index(up, _) => {
                    steps.push(p);
                    p = up;
                }
            }
        }
        let mut out = String::from("$");
        for step in steps.iter().rev() {
            match step {
                Path::Key(_, k) if is_identifier(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Path::Key(_, k) => {
                    out.push('[');
                    out.push_str(&quoted(k));
                    out.push(']');
                }
                Path::Index(_, i) => out.push_str(&format!("[{i}]")),
                Path::Root => {}
            }
        }
        out
    }

    #[cold]
    fn error(&self, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Json {
            message: message.into(),
            path: self.render(),
        })
    }
}

fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A string as a JSON string literal, for messages.
fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}

/// What a JSON value is, for messages.
fn kind(j: &Value) -> String {
    match j {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(_) => "a string".into(),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// One container deeper, if the limit allows.
fn deeper(depth: usize, at: Path) -> Result<usize> {
    if depth >= MAX_DEPTH {
        Err(at.error(format!("nesting deeper than the limit of {MAX_DEPTH}")))
    } else {
        Ok(depth + 1)
    }
}

fn read(j: &Value, at: Path, depth: usize) -> Result<Variant> {
    Ok(match j {
        Value::Null => Variant::Nil,
        Value::Bool(b) => Variant::Bool(*b),
        Value::Number(n) => number(n, at)?,
        Value::String(s) => Variant::String(s.clone()),
        Value::Array(items) => Variant::Array(variants(items, at, deeper(depth, at)?)?),
        Value::Object(map) => match the_tag(map, at)? {
            Some((name, payload)) => tagged_value(name, payload, at, depth)?,
            None => Variant::Dictionary(string_keyed(map, at, deeper(depth, at)?)?),
        },
    })
}

/// An int from an integer, a float from a number with a fraction or exponent.
fn number(n: &Number, at: Path) -> Result<Variant> {
    if let Some(i) = n.as_i64() {
        Ok(Variant::Int(i))
    } else if n.is_u64() {
        Err(at.error(format!("integer {n} out of range for {I64}")))
    } else {
        n.as_f64()
            .map(Variant::Float)
            .ok_or_else(|| at.error(format!("{n} out of range for float")))
    }
}

fn variants(items: &[Value], at: Path, depth: usize) -> Result<Vec<Variant>> {
    items
        .iter()
        .enumerate()
        .map(|(i, x)| read(x, at.index(i), depth))
        .collect()
}

fn string_keyed(map: &Map<String, Value>, at: Path, depth: usize) -> Result<Dictionary> {
    let mut d = Dictionary::with_capacity(map.len());
    for (k, v) in map {
        d.insert(k.as_str(), read(v, at.key(k), depth)?);
    }
    Ok(d)
}

/// The `$` key of a tagged object, and its payload; `None` for a plain object.
fn the_tag<'a>(map: &'a Map<String, Value>, at: Path) -> Result<Option<(&'a str, &'a Value)>> {
    let Some((name, payload)) = map.iter().find(|(k, _)| k.starts_with('$')) else {
        return Ok(None);
    };
    if map.len() > 1 {
        return Err(at.error(format!(
            "{} is a type tag and must be the object's only key (a Dictionary with keys \
             starting with \"$\" is written {{\"$Dictionary\": [[key, value], ...]}})",
            quoted(name)
        )));
    }
    Ok(Some((name, payload)))
}

/// The type a tag or a container type names, in any Godot version's spelling.
fn type_named(name: &str) -> Option<VariantType> {
    VariantType::all()
        .iter()
        .copied()
        .find(|t| Dialect::ALL.iter().any(|d| t.name_in(*d) == name))
}

/// The Variant of a tagged object at `at`, from its tag (`$Vector2`) and payload.
fn tagged_value(tag: &str, payload: &Value, at: Path, depth: usize) -> Result<Variant> {
    // Where the payload's parts are.
    let inside = at.key(tag);
    let name = &tag[1..];
    // As in `to_value`: the containers, which recurse, first and through functions of
    // their own, so that a nesting level does not carry the leaves' big frame.
    if name == RESOURCE_REF {
        return resource_ref_of(payload, at, &inside, tag, depth);
    }
    if name == OBJECT_ID {
        return integer(payload, inside, U64).map(Variant::ObjectId);
    }
    let ty = type_named(name).ok_or_else(|| at.error(format!("unknown type {}", quoted(tag))))?;
    match ty {
        VariantType::Array => array_of(payload, at, &inside, tag, depth),
        VariantType::Dictionary => dictionary_of(payload, at, &inside, tag, depth),
        VariantType::Object => object_of(payload, at, &inside, tag, depth),
        _ => leaf_of(ty, payload, at, &inside, tag, depth),
    }
}

/// A tagged value that holds no Variants (containers go back to [`tagged_value`]).
fn leaf_of(
    ty: VariantType,
    payload: &Value,
    at: Path,
    inside: &Path,
    tag: &str,
    depth: usize,
) -> Result<Variant> {
    use VariantType as T;
    let p = *inside;
    match ty {
        T::Nil => null_of(payload, at, tag).map(|()| Variant::Nil),
        T::Bool => boolean(payload, p).map(Variant::Bool),
        T::Int => integer(payload, p, I64).map(Variant::Int),
        T::Float => real64(payload, p).map(Variant::Float),
        T::String => string(payload, p).map(Variant::String),
        T::Vector2 => math(payload, at, p, tag).map(Variant::Vector2),
        T::Rect2 => math(payload, at, p, tag).map(Variant::Rect2),
        T::Vector3 => math(payload, at, p, tag).map(Variant::Vector3),
        T::Transform2D => math(payload, at, p, tag).map(Variant::Transform2D),
        T::Plane => math(payload, at, p, tag).map(Variant::Plane),
        T::Quat => math(payload, at, p, tag).map(Variant::Quat),
        T::Aabb => math(payload, at, p, tag).map(Variant::Aabb),
        T::Basis => math(payload, at, p, tag).map(|x| Variant::Basis(Box::new(x))),
        T::Transform => math(payload, at, p, tag).map(|x| Variant::Transform(Box::new(x))),
        T::Color => math(payload, at, p, tag).map(Variant::Color),
        T::Vector4 => math(payload, at, p, tag).map(Variant::Vector4),
        T::Projection => math(payload, at, p, tag).map(|x| Variant::Projection(Box::new(x))),
        T::Vector2i => int_math(payload, at, p, tag).map(Variant::Vector2i),
        T::Rect2i => int_math(payload, at, p, tag).map(Variant::Rect2i),
        T::Vector3i => int_math(payload, at, p, tag).map(Variant::Vector3i),
        T::Vector4i => int_math(payload, at, p, tag).map(Variant::Vector4i),
        T::NodePath => node_path_of(payload, at, inside, tag).map(Variant::NodePath),
        T::Rid => integer(payload, p, U64).map(|id| Variant::Rid(crate::Rid(id))),
        T::PoolByteArray => base64(payload, p).map(|b| Variant::PoolByteArray(b.into())),
        T::PoolIntArray => list(payload, at, p, tag, "32-bit ints", |x, p| {
            integer(x, p, I32)
        })
        .map(|a| Variant::PoolIntArray(a.into())),
        T::PoolRealArray => {
            list(payload, at, p, tag, "numbers", real32).map(|a| Variant::PoolRealArray(a.into()))
        }
        T::PoolStringArray => {
            list(payload, at, p, tag, "strings", string).map(|a| Variant::PoolStringArray(a.into()))
        }
        T::PoolVector2Array => {
            math_list(payload, at, p, tag).map(|a| Variant::PoolVector2Array(a.into()))
        }
        T::PoolVector3Array => {
            math_list(payload, at, p, tag).map(|a| Variant::PoolVector3Array(a.into()))
        }
        T::PoolColorArray => {
            math_list(payload, at, p, tag).map(|a| Variant::PoolColorArray(a.into()))
        }
        T::PackedVector4Array => {
            math_list(payload, at, p, tag).map(|a| Variant::PackedVector4Array(a.into()))
        }
        T::PackedInt64Array => list(payload, at, p, tag, "ints", |x, p| integer(x, p, I64))
            .map(|a| Variant::PackedInt64Array(a.into())),
        T::PackedFloat64Array => list(payload, at, p, tag, "numbers", real64)
            .map(|a| Variant::PackedFloat64Array(a.into())),
        T::StringName => string(payload, p).map(|s| Variant::StringName(StringName(s))),
        T::Callable => null_of(payload, at, tag).map(|()| Variant::Callable(crate::Callable)),
        T::Signal => signal_of(payload, at, inside, tag),
        T::Image => image_of(payload, at, inside, tag),
        T::InputEvent => input_event_of(payload, at, inside, tag).map(Variant::InputEvent),
        T::Array | T::Dictionary | T::Object => tagged_value(tag, payload, at, depth),
    }
}

fn array_of(payload: &Value, at: Path, inside: &Path, tag: &str, depth: usize) -> Result<Variant> {
    match payload {
        Value::Array(items) => variants(items, *inside, deeper(depth, at)?).map(Variant::Array),
        Value::Object(_) => {
            let mut f = Fields::of(payload, at, inside, tag)?;
            let (ty, values) = (f.req("type")?, f.req("values")?);
            f.done()?;
            let element = container_type_of(ty.0, ty.1)?;
            let depth = deeper(depth, at)?;
            let items = list(values.0, values.1, values.1, "values", "values", |x, p| {
                read(x, p, depth)
            })?;
            Ok(Variant::TypedArray(Box::new(TypedArray { element, items })))
        }
        other => Err(at.error(format!(
            "{tag} needs an array, or an object with \"type\" and \"values\", found {}",
            kind(other)
        ))),
    }
}

fn dictionary_of(
    payload: &Value,
    at: Path,
    inside: &Path,
    tag: &str,
    depth: usize,
) -> Result<Variant> {
    match payload {
        Value::Array(pairs) => {
            pairs_of(pairs, *inside, deeper(depth, at)?).map(Variant::Dictionary)
        }
        Value::Object(_) => {
            let mut f = Fields::of(payload, at, inside, tag)?;
            let (key, value, entries) = (f.opt("key"), f.opt("value"), f.req("entries")?);
            f.done()?;
            let side = |s: Option<(&Value, Path)>| match s {
                None | Some((Value::Null, _)) => Ok(None),
                Some((t, at)) => container_type_of(t, at).map(Some),
            };
            Ok(Variant::TypedDictionary(Box::new(TypedDictionary {
                key: side(key)?,
                value: side(value)?,
                entries: entries_of(entries.0, entries.1, deeper(depth, at)?)?,
            })))
        }
        other => Err(at.error(format!(
            "{tag} needs [[key, value], ...] or an object with \"key\", \"value\" and \
             \"entries\", found {}",
            kind(other)
        ))),
    }
}

fn resource_ref_of(
    payload: &Value,
    at: Path,
    inside: &Path,
    tag: &str,
    depth: usize,
) -> Result<Variant> {
    let mut f = Fields::of(payload, at, inside, tag)?;
    let (ref_kind, args) = (f.req("kind")?, f.req("args")?);
    f.done()?;
    let depth = deeper(depth, at)?;
    Ok(Variant::ResourceRef(Box::new(ResourceRef {
        kind: string(ref_kind.0, ref_kind.1)?,
        args: list(args.0, args.1, args.1, "args", "values", |x, p| {
            read(x, p, depth)
        })?,
    })))
}

fn signal_of(payload: &Value, at: Path, inside: &Path, tag: &str) -> Result<Variant> {
    let mut f = Fields::of(payload, at, inside, tag)?;
    let (name, object) = (f.req("name")?, f.req("object")?);
    f.done()?;
    Ok(Variant::Signal(Box::new(Signal {
        name: string(name.0, name.1)?,
        object: integer(object.0, object.1, U64)?,
    })))
}

fn image_of(payload: &Value, at: Path, inside: &Path, tag: &str) -> Result<Variant> {
    let mut f = Fields::of(payload, at, inside, tag)?;
    let [format, mipmaps, width, height, data] =
        ["format", "mipmaps", "width", "height", "data"].map(|k| f.req(k));
    f.done()?;
    let int = |field: Result<(&Value, Path)>| field.and_then(|(x, p)| integer(x, p, U32));
    let data = data?;
    Ok(Variant::Image(Box::new(Image {
        format: int(format)?,
        mipmaps: int(mipmaps)?,
        width: int(width)?,
        height: int(height)?,
        data: base64(data.0, data.1)?,
    })))
}

/// `null`, the payload of types that carry nothing.
fn null_of(payload: &Value, at: Path, tag: &str) -> Result<()> {
    match payload {
        Value::Null => Ok(()),
        other => Err(at.error(format!("{tag} needs null, found {}", kind(other)))),
    }
}

fn boolean(j: &Value, at: Path) -> Result<bool> {
    match j {
        Value::Bool(b) => Ok(*b),
        other => Err(at.error(format!("expected a boolean, found {}", kind(other)))),
    }
}

/// The fields of a payload object: each taken once, and none unknown.
struct Fields<'a, 'p> {
    map: &'a Map<String, Value>,
    /// The tagged object, for errors about the payload as a whole.
    at: Path<'p>,
    /// The payload.
    inside: &'p Path<'p>,
    what: &'p str,
    taken: Vec<&'static str>,
}

impl<'a, 'p> Fields<'a, 'p> {
    fn of(j: &'a Value, at: Path<'p>, inside: &'p Path<'p>, what: &'p str) -> Result<Self> {
        match j {
            Value::Object(map) => Ok(Fields {
                map,
                at,
                inside,
                what,
                taken: Vec::new(),
            }),
            other => Err(at.error(format!("{what} needs an object, found {}", kind(other)))),
        }
    }

    fn opt(&mut self, name: &'static str) -> Option<(&'a Value, Path<'p>)> {
        self.taken.push(name);
        self.map.get(name).map(|v| (v, self.inside.key(name)))
    }

    fn req(&mut self, name: &'static str) -> Result<(&'a Value, Path<'p>)> {
        self.opt(name).ok_or_else(|| {
            self.at
                .error(format!("{} needs the field {name:?}", self.what))
        })
    }

    fn u32(&mut self, name: &'static str) -> Result<u32> {
        self.req(name).and_then(|(x, p)| integer(x, p, U32))
    }

    fn done(self) -> Result<()> {
        match self.map.keys().find(|k| !self.taken.contains(&k.as_str())) {
            Some(k) => Err(self.at.error(format!(
                "{} has no field {} (its fields: {})",
                self.what,
                quoted(k),
                self.taken.join(", ")
            ))),
            None => Ok(()),
        }
    }
}

/// The items of a JSON array, each read by `item` at its path under `items`; errors
/// about the array itself are reported at `at`.
fn list<T>(
    j: &Value,
    at: Path,
    items: Path,
    what: &str,
    of: &str,
    item: impl Fn(&Value, Path) -> Result<T>,
) -> Result<Vec<T>> {
    match j {
        Value::Array(xs) => xs
            .iter()
            .enumerate()
            .map(|(i, x)| item(x, items.index(i)))
            .collect(),
        other => Err(at.error(format!(
            "{what} needs an array of {of}, found {}",
            kind(other)
        ))),
    }
}

/// The items of an array of exactly `n`.
fn exactly<'a>(j: &'a Value, n: usize, at: Path, what: &str, of: &str) -> Result<&'a [Value]> {
    match j {
        Value::Array(items) if items.len() == n => Ok(items),
        Value::Array(items) => {
            Err(at.error(format!("{what} needs {n} {of}, found {}", items.len())))
        }
        other => Err(at.error(format!(
            "{what} needs an array of {n} {of}, found {}",
            kind(other)
        ))),
    }
}

/// A math type from its numbers; errors about the array at `at`, about a number at
/// its index under `items`.
fn math<T: Floats>(j: &Value, at: Path, items: Path, what: &str) -> Result<T> {
    let xs = exactly(j, T::N, at, what, "numbers")?;
    let mut buf = [0f32; 16];
    for (i, (slot, x)) in buf.iter_mut().zip(xs).enumerate() {
        *slot = real32(x, items.index(i))?;
    }
    Ok(T::read(&buf[..T::N]))
}

fn int_math<T: Ints>(j: &Value, at: Path, items: Path, what: &str) -> Result<T> {
    let xs = exactly(j, T::N, at, what, "ints")?;
    let mut buf = [0i32; 4];
    for (i, (slot, x)) in buf.iter_mut().zip(xs).enumerate() {
        *slot = integer(x, items.index(i), I32)?;
    }
    Ok(T::read(&buf[..T::N]))
}

/// A packed array of math values, one array of numbers each.
fn math_list<T: Floats>(j: &Value, at: Path, items: Path, tag: &str) -> Result<Vec<T>> {
    list(j, at, items, tag, &format!("{}s", T::NAME), |x, p| {
        math(x, p, p, T::NAME)
    })
}

/// What an integer must fit, for messages.
const I32: &str = "a 32-bit int";
const I64: &str = "a 64-bit int";
const U32: &str = "a 32-bit unsigned int";
const U64: &str = "a 64-bit unsigned int";

fn integer<T: TryFrom<i128>>(j: &Value, at: Path, what: &str) -> Result<T> {
    let wide = match j {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    };
    let Some(i) = wide else {
        return Err(at.error(format!("expected {what}, found {}", kind(j))));
    };
    T::try_from(i).map_err(|_| at.error(format!("integer {i} out of range for {what}")))
}

fn special_of(j: &Value, at: Path, w: &Width) -> Result<u64> {
    let bits = match j {
        Value::String(s) => special_bits(s, w),
        _ => None,
    };
    bits.ok_or_else(|| {
        at.error(format!(
            "expected a number or \"inf\", \"-inf\", \"nan\", \"-nan\", \"nan:0x\" and {} hex \
             digits, found {}",
            w.hex_digits,
            match j {
                Value::String(s) => quoted(s),
                other => kind(other),
            }
        ))
    })
}

fn real32(j: &Value, at: Path) -> Result<f32> {
    match j {
        Value::Number(n) => match n.as_f64().map(|y| y as f32) {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(at.error(format!("{n} out of range for a 32-bit float"))),
        },
        _ => special_of(j, at, &F32).map(|bits| f32::from_bits(bits as u32)),
    }
}

fn real64(j: &Value, at: Path) -> Result<f64> {
    match j {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| at.error(format!("{n} out of range for a float"))),
        _ => special_of(j, at, &F64).map(f64::from_bits),
    }
}

fn string(j: &Value, at: Path) -> Result<String> {
    match j {
        Value::String(s) => Ok(s.clone()),
        other => Err(at.error(format!("expected a string, found {}", kind(other)))),
    }
}

fn base64(j: &Value, at: Path) -> Result<Vec<u8>> {
    match j {
        Value::String(s) => BASE64
            .decode(s)
            .map_err(|e| at.error(format!("invalid Base64: {e}"))),
        other => Err(at.error(format!("expected a Base64 string, found {}", kind(other)))),
    }
}

/// `[[key, value], ...]`.
fn pairs_of(pairs: &[Value], at: Path, depth: usize) -> Result<Dictionary> {
    let mut d = Dictionary::with_capacity(pairs.len());
    for (i, pair) in pairs.iter().enumerate() {
        let at = at.index(i);
        let kv = exactly(pair, 2, at, "a [key, value] pair", "items")?;
        d.insert(
            read(&kv[0], at.index(0), depth)?,
            read(&kv[1], at.index(1), depth)?,
        );
    }
    Ok(d)
}

/// A typed Dictionary's entries: an object (String keys) or `[[key, value], ...]`.
fn entries_of(j: &Value, at: Path, depth: usize) -> Result<Dictionary> {
    match j {
        Value::Object(map) => string_keyed(map, at, depth),
        Value::Array(pairs) => pairs_of(pairs, at, depth),
        other => Err(at.error(format!(
            "entries need an object or [[key, value], ...], found {}",
            kind(other)
        ))),
    }
}

fn container_type_of(j: &Value, at: Path) -> Result<ContainerType> {
    match j {
        Value::String(name) => type_named(name)
            .map(ContainerType::Builtin)
            .ok_or_else(|| at.error(format!("unknown type name {}", quoted(name)))),
        Value::Object(map) => match map.iter().next() {
            Some((k, Value::String(s))) if map.len() == 1 && k == "class" => {
                Ok(ContainerType::Class(s.clone()))
            }
            Some((k, Value::String(s))) if map.len() == 1 && k == "script" => {
                Ok(ContainerType::Script(s.clone()))
            }
            _ => Err(at.error("a class or script type is {\"class\": name} or {\"script\": path}")),
        },
        other => Err(at.error(format!(
            "expected a type name, {{\"class\": name}} or {{\"script\": path}}, found {}",
            kind(other)
        ))),
    }
}

fn object_of(j: &Value, at: Path, inside: &Path, tag: &str, depth: usize) -> Result<Variant> {
    let mut f = Fields::of(j, at, inside, tag)?;
    let (class, properties) = (f.req("class")?, f.req("properties")?);
    f.done()?;
    let depth = deeper(depth, at)?;
    let (props, props_at) = properties;
    let properties = match props {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), read(v, props_at.key(k), depth)?)))
            .collect::<Result<_>>()?,
        Value::Array(pairs) => pairs
            .iter()
            .enumerate()
            .map(|(i, pair)| {
                let at = props_at.index(i);
                let kv = exactly(pair, 2, at, "a [name, value] pair", "items")?;
                Ok((
                    string(&kv[0], at.index(0))?,
                    read(&kv[1], at.index(1), depth)?,
                ))
            })
            .collect::<Result<_>>()?,
        other => {
            return Err(props_at.error(format!(
                "properties need an object or [[name, value], ...], found {}",
                kind(other)
            )))
        }
    };
    Ok(Variant::Object(Box::new(Object {
        class: string(class.0, class.1)?,
        properties,
    })))
}

fn node_path_of(j: &Value, at: Path, inside: &Path, tag: &str) -> Result<NodePath> {
    if let Value::String(s) = j {
        return Ok(NodePath::from(s.as_str()));
    }
    let mut f = Fields::of(j, at, inside, tag)?;
    let (absolute, names, subnames) = (f.req("absolute")?, f.req("names")?, f.req("subnames")?);
    f.done()?;
    let absolute = boolean(absolute.0, absolute.1)?;
    let names = list(names.0, names.1, names.1, "names", "strings", string)?;
    let subnames = list(
        subnames.0, subnames.1, subnames.1, "subnames", "strings", string,
    )?;
    Ok(NodePath::from_parts(absolute, names, subnames))
}

fn input_event_of(j: &Value, at: Path, inside: &Path, tag: &str) -> Result<InputEvent> {
    use InputEventKind as K;
    let mut f = Fields::of(j, at, inside, tag)?;
    let (ty, device) = (f.req("type")?, f.req("device")?);
    let device = integer(device.0, device.1, U32)?;
    let kind = match ty.0 {
        Value::Number(_) => K::Other(integer(ty.0, ty.1, U32)?),
        Value::String(s) => match s.as_str() {
            "NONE" => K::None,
            "KEY" => K::Key {
                modifiers: f.u32("modifiers")?,
                scancode: f.u32("scancode")?,
            },
            "MOUSE_MOTION" => K::MouseMotion,
            "MOUSE_BUTTON" => K::MouseButton {
                button_index: f.u32("button_index")?,
            },
            "JOYSTICK_MOTION" => {
                let axis = f.u32("axis")?;
                let (value, value_at) = f.req("axis_value")?;
                K::JoystickMotion {
                    axis,
                    axis_value: real32(value, value_at)?,
                }
            }
            "JOYSTICK_BUTTON" => K::JoystickButton {
                button_index: f.u32("button_index")?,
            },
            "SCREEN_TOUCH" => K::ScreenTouch {
                index: f.u32("index")?,
            },
            "SCREEN_DRAG" => K::ScreenDrag,
            "ACTION" => K::Action,
            other => {
                return Err(ty
                    .1
                    .error(format!("unknown InputEvent type {}", quoted(other))))
            }
        },
        other => {
            return Err(ty.1.error(format!(
                "expected an InputEvent type name or id, found {}",
                kind(other)
            )))
        }
    };
    f.done()?;
    Ok(InputEvent { device, kind })
}

// ---------------------------------------------------------------------------------
// Text

fn text_error(e: serde_json::Error) -> Error {
    Path::Root.error(e.to_string())
}

/// Refuses, before serde_json parses the text, nesting deeper than [`MAX_JSON_DEPTH`]
/// and integer literals beyond 64 bits (which serde_json would read as floats, where
/// an int was meant).
fn check_text(s: &str) -> Result<()> {
    let bytes = s.as_bytes();
    let at = |i: usize, message: String| {
        let before = &s[..i];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        Path::Root.error(format!("{message} at line {line} column {column}"))
    };
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_JSON_DEPTH {
                        return Err(at(
                            i,
                            format!("nesting deeper than {MAX_JSON_DEPTH} levels"),
                        ));
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                b'-' | b'0'..=b'9' => {
                    let len = bytes[i..]
                        .iter()
                        .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                        .unwrap_or(bytes.len() - i);
                    let literal = &s[i..i + len];
                    let digits = literal.strip_prefix('-').unwrap_or(literal);
                    let integral = !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit());
                    if integral
                        && literal.parse::<i64>().is_err()
                        && literal.parse::<u64>().is_err()
                    {
                        return Err(at(i, format!("integer {literal} out of range for {I64}")));
                    }
                    i += len;
                    continue;
                }
                _ => {}
            }
        }
        i += 1;
    }
    Ok(())
}
