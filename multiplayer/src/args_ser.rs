//! RPC arguments from a Rust value (usually a tuple) straight to their compressed
//! Godot 4 bytes, with no `Variant` built: what [`Session::rpc`](crate::Session::rpc)
//! sends. It writes only what gives exactly the bytes of the `Variant` route
//! (`to_variant`, then `args::encode`): bools, integers, floats, strings the engine
//! reads back as they are, `Vector2`, `Vector3`, nil, and options and newtypes of
//! these. A container (a sequence, tuple, map or struct) goes to godot_bin's
//! serializer as it is, set to refuse full Objects: `to_vec` of a value is `to_vec`
//! of its `Variant`, and the receiving engine reads containers in plain form. At anything else (another Godot type, a string with a
//! NUL or a leading BOM, a full Object, any error) it gives up, and the caller takes
//! the `Variant` route, which then gives that value's bytes or error.

use std::fmt;

use godot_bin::{Variant, VariantType, DEFAULT_MAX_DEPTH};
use serde::ser::{self, Impossible, Serialize, SerializeSeq, SerializeTuple, Serializer};

use crate::args::{self, VECTOR2, VECTOR3};

/// Appends the compressed arguments of `args` (without their count) to `out` and
/// gives their count, or `None` when the `Variant` route must write them (`out` then
/// holds a part to cut off).
pub(crate) fn encode<A: Serialize + ?Sized>(args: &A, out: &mut Vec<u8>) -> Option<u8> {
    args.serialize(List { out }).ok()
}

/// Why the writer stopped: the `Variant` route takes over, so nothing more is kept;
/// but an argument that is a container goes to godot_bin's serializer first.
#[derive(Debug, PartialEq)]
pub(crate) enum GiveUp {
    /// The argument is a sequence, tuple, map or struct.
    Container,
    /// Anything else: the `Variant` route writes the whole list.
    Other,
}

use GiveUp::Other;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("not written directly")
    }
}

impl std::error::Error for GiveUp {}

impl ser::Error for GiveUp {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Other
    }
}

/// The methods of a serializer here that give up; `@common` those every one but the
/// argument's gives up at (enums with data, maps and structs; `@variants` the enums
/// alone), `@scalars` the scalars but `f32` and unit, for a serializer whose `Ok` is
/// `$ok`.
macro_rules! give_up {
    (@scalars $ok:ty) => {
        give_up! {
            serialize_bool(bool) -> $ok;
            serialize_i8(i8) -> $ok;
            serialize_i16(i16) -> $ok;
            serialize_i32(i32) -> $ok;
            serialize_i64(i64) -> $ok;
            serialize_u8(u8) -> $ok;
            serialize_u16(u16) -> $ok;
            serialize_u32(u32) -> $ok;
            serialize_u64(u64) -> $ok;
            serialize_f64(f64) -> $ok;
            serialize_char(char) -> $ok;
            serialize_str(&str) -> $ok;
            serialize_bytes(&[u8]) -> $ok;
            serialize_unit_variant(&'static str, u32, &'static str) -> $ok;
        }
    };
    (@common $ok:ty) => {
        give_up! {
            serialize_map(Option<usize>) -> Self::SerializeMap;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        }
        give_up!(@variants $ok);
    };
    (@variants $ok:ty) => {
        give_up! {
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<$ok, GiveUp> {
            Err(Other)
        }
    };
    ($($m:ident($($t:ty),*) -> $r:ty;)*) => {$(
        fn $m(self, $(_: $t),*) -> Result<$r, GiveUp> {
            Err(Other)
        }
    )*};
}

/// Whether a serde name is ordinary (not one of godot_bin's reserved names, which
/// all start with `$`).
fn ordinary(name: &str) -> bool {
    !name.starts_with('$')
}

/// The whole argument list: a sequence, tuple or tuple struct of arguments; unit or
/// `None` for none (as `to_variant` gives `Nil`); options and newtypes around these.
struct List<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Serializer for List<'a> {
    type Ok = u8;
    type Error = GiveUp;
    type SerializeSeq = Items<'a>;
    type SerializeTuple = Items<'a>;
    type SerializeTupleStruct = Items<'a>;
    type SerializeTupleVariant = Impossible<u8, GiveUp>;
    type SerializeMap = Impossible<u8, GiveUp>;
    type SerializeStruct = Impossible<u8, GiveUp>;
    type SerializeStructVariant = Impossible<u8, GiveUp>;

    /// As godot_bin's serializer: Godot types write their binary form.
    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_unit(self) -> Result<u8, GiveUp> {
        Ok(0)
    }
    fn serialize_none(self) -> Result<u8, GiveUp> {
        Ok(0)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<u8, GiveUp> {
        Ok(0)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<u8, GiveUp> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<u8, GiveUp> {
        if !ordinary(name) {
            return Err(Other);
        }
        v.serialize(self)
    }
    #[inline]
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'a>, GiveUp> {
        Ok(Items {
            out: self.out,
            count: 0,
        })
    }
    #[inline]
    fn serialize_tuple(self, _: usize) -> Result<Items<'a>, GiveUp> {
        self.serialize_seq(None)
    }
    fn serialize_tuple_struct(self, name: &'static str, _: usize) -> Result<Items<'a>, GiveUp> {
        if !ordinary(name) {
            return Err(Other);
        }
        self.serialize_seq(None)
    }
    give_up! {
        serialize_f32(f32) -> u8;
    }
    give_up!(@scalars u8);
    give_up!(@common u8);
}

/// The arguments, one after the other (at most 255, as a call's count byte holds).
struct Items<'a> {
    out: &'a mut Vec<u8>,
    count: u8,
}

impl Items<'_> {
    #[inline]
    fn push<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), GiveUp> {
        self.count = self.count.checked_add(1).ok_or(Other)?;
        match v.serialize(Arg { out: self.out }) {
            Err(GiveUp::Container) => container(v, self.out),
            r => r,
        }
    }
}

/// A container argument, in plain form as the `Variant` route writes it, from the
/// value itself: it sits in the argument list's Array there, one level deeper.
fn container<T: ?Sized + Serialize>(v: &T, out: &mut Vec<u8>) -> Result<(), GiveUp> {
    args::config()
        .max_depth(DEFAULT_MAX_DEPTH - 1)
        .to_vec_into(v, out)
        .map(drop)
        .map_err(|_| Other)
}

/// The three kinds of list, each an element at a time.
macro_rules! items {
    ($($tr:path, $m:ident;)*) => {$(
        impl $tr for Items<'_> {
            type Ok = u8;
            type Error = GiveUp;
            #[inline]
            fn $m<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), GiveUp> {
                self.push(v)
            }
            #[inline]
            fn end(self) -> Result<u8, GiveUp> {
                Ok(self.count)
            }
        }
    )*};
}
items! {
    SerializeSeq, serialize_element;
    SerializeTuple, serialize_element;
    ser::SerializeTupleStruct, serialize_field;
}

/// One argument.
struct Arg<'a> {
    out: &'a mut Vec<u8>,
}

impl Arg<'_> {
    /// What `args::encode` writes for `v` (a value that always encodes).
    fn variant(self, v: &Variant) -> Result<(), GiveUp> {
        args::encode_one(&args::config(), v, 0, self.out).map_err(|_| Other)
    }

    #[inline]
    fn int(self, v: i64) -> Result<(), GiveUp> {
        args::put_int(v, self.out);
        Ok(())
    }
}

/// Integer types that always fit in a Godot int.
macro_rules! ints {
    ($($m:ident: $t:ty),*) => {$(
        #[inline]
        fn $m(self, v: $t) -> Result<(), GiveUp> {
            self.int(v.into())
        }
    )*};
}

impl<'a> Serializer for Arg<'a> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Floats<'a>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Impossible<(), GiveUp>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    /// As godot_bin's serializer: Godot types write their binary form.
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), GiveUp> {
        args::put_bool(v, self.out);
        Ok(())
    }
    ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32);
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<(), GiveUp> {
        self.int(i64::try_from(v).map_err(|_| Other)?)
    }
    fn serialize_f32(self, v: f32) -> Result<(), GiveUp> {
        self.variant(&Variant::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<(), GiveUp> {
        self.variant(&Variant::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<(), GiveUp> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), GiveUp> {
        if !args::plain_str(v) {
            return Err(Other);
        }
        args::put_str(v, self.out);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), GiveUp> {
        self.variant(&Variant::Nil)
    }
    fn serialize_unit(self) -> Result<(), GiveUp> {
        self.variant(&Variant::Nil)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), GiveUp> {
        self.variant(&Variant::Nil)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), GiveUp> {
        self.serialize_str(variant)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), GiveUp> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<(), GiveUp> {
        if !ordinary(name) {
            return Err(Other);
        }
        v.serialize(self)
    }
    /// `Vector2` and `Vector3` come as their floats behind their serde names.
    #[inline]
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Floats<'a>, GiveUp> {
        let tag = match (name, len) {
            (n, 3) if n == VariantType::Vector3.serde_name() => VECTOR3,
            (n, 2) if n == VariantType::Vector2.serde_name() => VECTOR2,
            (n, _) if ordinary(n) => return Err(GiveUp::Container),
            _ => return Err(Other),
        };
        Ok(Floats {
            out: self.out,
            tag,
            floats: [0.0; 3],
            len: 0,
        })
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, GiveUp> {
        Err(GiveUp::Container)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, GiveUp> {
        Err(GiveUp::Container)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, GiveUp> {
        Err(GiveUp::Container)
    }
    fn serialize_struct(
        self,
        name: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, GiveUp> {
        Err(if ordinary(name) {
            GiveUp::Container
        } else {
            Other
        })
    }
    give_up! {
        serialize_bytes(&[u8]) -> ();
    }
    give_up!(@variants ());
}

/// A `Vector2` or `Vector3` argument's floats, written at its end.
struct Floats<'a> {
    out: &'a mut Vec<u8>,
    tag: u8,
    floats: [f32; 3],
    len: usize,
}

impl ser::SerializeTupleStruct for Floats<'_> {
    type Ok = ();
    type Error = GiveUp;

    #[inline]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), GiveUp> {
        let slot = self.floats.get_mut(self.len).ok_or(Other)?;
        *slot = v.serialize(F32)?;
        self.len += 1;
        Ok(())
    }

    #[inline]
    fn end(self) -> Result<(), GiveUp> {
        // A signalling NaN: the Variant route keeps one of godot_bin's own vectors
        // but quiets one a field at a time; it decides.
        if self
            .floats
            .iter()
            .any(|f| f.is_nan() && f.to_bits() & 0x0040_0000 == 0)
        {
            return Err(Other);
        }
        let [x, y, z] = self.floats;
        match (self.tag, self.len) {
            (VECTOR3, 3) => args::put_floats(VECTOR3, [x, y, z], self.out),
            (VECTOR2, 2) => args::put_floats(VECTOR2, [x, y], self.out),
            _ => return Err(Other),
        }
        Ok(())
    }
}

/// A math type's field: an `f32`, and nothing else.
struct F32;

impl Serializer for F32 {
    type Ok = f32;
    type Error = GiveUp;
    type SerializeSeq = Impossible<f32, GiveUp>;
    type SerializeTuple = Impossible<f32, GiveUp>;
    type SerializeTupleStruct = Impossible<f32, GiveUp>;
    type SerializeTupleVariant = Impossible<f32, GiveUp>;
    type SerializeMap = Impossible<f32, GiveUp>;
    type SerializeStruct = Impossible<f32, GiveUp>;
    type SerializeStructVariant = Impossible<f32, GiveUp>;

    /// As godot_bin's serializer: Godot types write their binary form.
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<f32, GiveUp> {
        Ok(v)
    }
    give_up!(@scalars f32);
    give_up!(@common f32);
    give_up! {
        serialize_none() -> f32;
        serialize_unit() -> f32;
        serialize_unit_struct(&'static str) -> f32;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<f32, GiveUp> {
        Err(Other)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<f32, GiveUp> {
        Err(Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use godot_bin::{Vector2, Vector3};
    use quickcheck::QuickCheck;
    use serde::Serialize;

    /// The `Variant` route's bytes for `args` and their count, or `None` where it
    /// fails (as `Session::rpc_with` takes it: `Nil` is no arguments).
    fn via_variants<A: Serialize>(args: &A) -> Option<(usize, Vec<u8>)> {
        let a = match args::config().to_variant(args) {
            Ok(Variant::Array(a)) => a,
            Ok(Variant::Nil) => Vec::new(),
            _ => return None,
        };
        let mut out = Vec::new();
        args::encode(&a, &mut out).ok()?;
        Some((a.len(), out))
    }

    /// Writes `args` directly: `None` if it gave up, else whether it wrote what the
    /// `Variant` route writes.
    fn agrees<A: Serialize>(args: &A) -> Option<bool> {
        let mut out = Vec::new();
        let argc = encode(args, &mut out)?;
        Some(via_variants(args) == Some((usize::from(argc), out)))
    }

    #[test]
    fn rust_values_are_written_as_the_variant_route_writes_them() {
        #[allow(clippy::too_many_arguments)]
        fn prop(
            b: bool,
            i: i64,
            u: u64,
            bits: (u32, u32, u32),
            d: f64,
            s: String,
            c: char,
            o: Option<i16>,
        ) -> bool {
            let [x, y, z] = [bits.0, bits.1, bits.2].map(f32::from_bits);
            let (v2, v3) = (Vector2::new(x, y), Vector3::new(x, y, z));
            let plain = |s: &str| args::plain_str(s);
            // Given up exactly where the Variant route is needed: a u64 no Godot int
            // holds, a string the engine would not read back as it is.
            // A vector with a signalling NaN goes the Variant way too.
            let quiet = [x, y, z]
                .iter()
                .all(|f| !f.is_nan() || f.to_bits() & 0x0040_0000 != 0);
            let direct =
                u <= i64::MAX as u64 && plain(&s) && plain(c.encode_utf8(&mut [0; 4])) && quiet;
            let typed = (b, i, u, x, d, s.as_str(), c, o, v2, v3, (), i as u8);
            let variants = vec![
                Variant::Bool(b),
                Variant::Int(i),
                Variant::Float(d),
                Variant::from(s.as_str()),
                Variant::Vector2(v2),
                Variant::Vector3(v3),
                Variant::Nil,
            ];
            let always = plain(&s) && quiet;
            agrees(&typed) == direct.then_some(true)
                && agrees(&variants) == always.then_some(true)
                && agrees(&Some((v3, i, b))) == quiet.then_some(true)
                && agrees(&()) == Some(true)
        }
        QuickCheck::new().tests(2000).quickcheck(
            prop as fn(bool, i64, u64, (u32, u32, u32), f64, String, char, Option<i16>) -> bool,
        );
    }

    /// A vector of another type under a vector's serde name (godot_bin's own as a
    /// serializer of another crate would see it): field by field.
    struct FieldwiseVector2([f32; 2]);

    impl Serialize for FieldwiseVector2 {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeTupleStruct;
            let mut t = s.serialize_tuple_struct(VariantType::Vector2.serde_name(), 2)?;
            for f in &self.0 {
                t.serialize_field(f)?;
            }
            t.end()
        }
    }

    #[test]
    fn vectors_field_by_field_agree_with_the_variant_route_nans_included() {
        fn prop(x: u32, y: u32) -> bool {
            let v = FieldwiseVector2([x, y].map(f32::from_bits));
            let signalling = |b: u32| f32::from_bits(b).is_nan() && b & 0x0040_0000 == 0;
            agrees(&(v,)) == (!signalling(x) && !signalling(y)).then_some(true)
        }
        for bits in [0x7f80_0001, 0xff80_0001, 0x7fc0_0000, 0x7f80_0000, 0] {
            assert!(prop(bits, 0x3f80_0000), "{bits:#x}");
        }
        QuickCheck::new()
            .tests(2000)
            .quickcheck(prop as fn(u32, u32) -> bool);
    }

    #[test]
    fn other_godot_types_and_non_lists_take_the_variant_route() {
        let mut out = Vec::new();
        assert_eq!(
            encode(&(godot_bin::Color::new(1.0, 0.0, 0.0, 1.0),), &mut out),
            None
        );
        // Binary, not human-readable: a NodePath is not its text.
        assert_eq!(encode(&(godot_bin::NodePath::from("a/b"),), &mut out), None);
        assert_eq!(encode(&(godot_bin::StringName::from("a"),), &mut out), None);
        assert_eq!(
            encode(&(godot_bin::PoolByteArray(vec![1]),), &mut out),
            None
        );
        assert_eq!(encode(&(Side::Left(1),), &mut out), None);
        assert_eq!(encode(&5, &mut out), None);
        assert_eq!(encode(&"a", &mut out), None);
        let many: Vec<i32> = (0..256).collect();
        assert_eq!(encode(&many, &mut out), None);
        out.clear();
        assert_eq!(encode(&many[..255], &mut out), Some(255));
    }

    #[derive(Serialize)]
    enum Side {
        Left(i32),
    }

    #[derive(Serialize)]
    struct Player {
        name: String,
        pos: Vector3,
        hp: i32,
        tags: Vec<String>,
        home: Option<Vector2>,
    }

    /// Nested `depth` Arrays deep around an int.
    fn nested(depth: usize) -> Variant {
        (0..depth).fold(Variant::Int(7), |v, _| Variant::Array(vec![v]))
    }

    #[test]
    fn containers_are_written_as_the_variant_route_writes_them() {
        fn prop(
            v: Vec<i64>,
            m: std::collections::BTreeMap<String, (u32, bool)>,
            s: String,
            f: f32,
        ) -> bool {
            let player = Player {
                name: s.clone(),
                pos: Vector3::new(f, 0.5, -f),
                hp: v.len() as i32,
                tags: vec![s.clone(), "a".into()],
                home: (f > 0.0).then(|| Vector2::new(f, f)),
            };
            let words: Vec<Variant> = v.iter().map(|&i| Variant::Int(i)).collect();
            // Written directly exactly where the Variant route writes (a NUL in a
            // string fails both).
            fn direct<A: Serialize>(args: &A) -> bool {
                agrees(args) == via_variants(args).is_some().then_some(true)
            }
            direct(&(v.clone(), 1))
                && direct(&(m.clone(), player, Some(v.clone())))
                && direct(&[Variant::Array(words.clone()), Variant::Int(3)])
                && direct(&((1, s.as_str()), ((), f)))
        }
        QuickCheck::new().tests(500).quickcheck(
            prop as fn(
                Vec<i64>,
                std::collections::BTreeMap<String, (u32, bool)>,
                String,
                f32,
            ) -> bool,
        );
    }

    #[test]
    fn containers_holding_full_objects_or_too_deep_take_the_variant_route() {
        let object = Variant::Object(Default::default());
        let mut out = Vec::new();
        for arg in [
            Variant::Array(vec![Variant::Int(1), object.clone()]),
            Variant::Dictionary([(Variant::Int(1), object.clone())].into_iter().collect()),
            Variant::Dictionary([(object.clone(), Variant::Nil)].into_iter().collect()),
            Variant::Array(vec![Variant::Array(vec![object.clone()])]),
        ] {
            assert_eq!(encode(&(1, arg.clone()), &mut out), None, "{arg:?}");
            assert_eq!(via_variants(&(1, arg)), None);
        }
        // In the argument list's Array the Variant route takes one level less.
        let limit = DEFAULT_MAX_DEPTH - 1;
        assert_eq!(agrees(&(nested(limit),)), Some(true));
        assert_eq!(encode(&(nested(limit + 1),), &mut out), None);
        assert_eq!(via_variants(&(nested(limit + 1),)), None);
    }
}
