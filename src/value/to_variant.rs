//! `to_variant`: a serde `Serializer` whose output is a [`Variant`], with exactly the
//! mapping of the byte serializer (`to_vec(&to_variant(&x)?) == to_vec(&x)`).
//!
//! Plain serde shapes (numbers, strings, sequences, maps, structs, enums) become
//! Variants directly. A Godot type behind a marker name is written with the byte
//! serializer and read back: those are leaves or small payloads, and it keeps one
//! definition of what each marker means.

use serde::ser::{self, Serialize};

use super::{Dictionary, Variant};
use crate::config::{Config, Precision};
use crate::dialect::Dialect;
use crate::error::{Error, ErrorKind, Result};
use crate::marker::Marker;
use crate::ser::check_godot_str;
use crate::table::{Layout, VariantType};
use crate::types::{from_wire, FloatBytes, PoolByteArray};

/// Whether `S` is [`VariantSerializer`], which takes a math value's floats in one
/// piece as bytes (`types::math::ser_floats`).
#[inline]
pub(crate) fn is_variant_serializer<S: ?Sized>() -> bool {
    typeid::of::<S>() == typeid::of::<VariantSerializer>()
}

/// Writes serde values as [`Variant`]s.
pub(crate) struct VariantSerializer {
    cfg: Config,
    /// Containers open around the value being written.
    depth: usize,
}

impl VariantSerializer {
    pub(crate) fn new(cfg: Config) -> Self {
        VariantSerializer { cfg, depth: 0 }
    }

    fn int(&self, v: i64) -> Result<Variant> {
        if self.cfg.dialect == Dialect::Godot2 && i32::try_from(v).is_err() {
            return Err(Error::new(ErrorKind::IntOutOfRange(
                v.into(),
                "a Godot 2 int (i32)",
            )));
        }
        Ok(Variant::Int(v))
    }

    /// A value of a container one level further in.
    fn child(&self) -> Result<VariantSerializer> {
        if self.depth + 1 > self.cfg.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit(self.cfg.max_depth)));
        }
        Ok(VariantSerializer {
            cfg: self.cfg,
            depth: self.depth + 1,
        })
    }

    /// A Godot type behind a marker: its bytes, read back as a Variant.
    fn via_bytes<T: ?Sized + Serialize>(&self, value: &T) -> Result<Variant> {
        let limit = self.cfg.max_depth.saturating_sub(self.depth);
        let cfg = self.cfg.max_depth(limit).allow_objects(true);
        cfg.from_slice(&cfg.encode_passing(value)?)
    }

    fn in_variant(&self, variant: &'static str, value: Variant) -> Variant {
        let mut d = Dictionary::with_capacity(1);
        d.insert(variant, value);
        Variant::Dictionary(d)
    }
}

/// The math value of type `ty` whose floats' little-endian bytes are `b`.
fn math(ty: VariantType, b: &[u8]) -> Result<Variant> {
    use VariantType as T;
    Ok(match ty {
        T::Vector2 => Variant::Vector2(from_wire(b)?),
        T::Rect2 => Variant::Rect2(from_wire(b)?),
        T::Vector3 => Variant::Vector3(from_wire(b)?),
        T::Transform2D => Variant::Transform2D(from_wire(b)?),
        T::Plane => Variant::Plane(from_wire(b)?),
        T::Quat => Variant::Quat(from_wire(b)?),
        T::Aabb => Variant::Aabb(from_wire(b)?),
        T::Basis => Variant::Basis(Box::new(from_wire(b)?)),
        T::Transform => Variant::Transform(Box::new(from_wire(b)?)),
        T::Color => Variant::Color(from_wire(b)?),
        T::Vector4 => Variant::Vector4(from_wire(b)?),
        T::Projection => Variant::Projection(Box::new(from_wire(b)?)),
        _ => return Err(Error::new(ErrorKind::Message("not a math type".into()))),
    })
}

fn out_of_range(v: i128) -> Error {
    Error::new(ErrorKind::IntOutOfRange(v, "a Godot int (i64)"))
}

/// Integer types that always fit in a Godot int.
macro_rules! small_ints {
    ($($m:ident: $t:ty),*) => {
        $(fn $m(self, v: $t) -> Result<Variant> {
            self.int(v.into())
        })*
    };
}

impl ser::Serializer for VariantSerializer {
    type Ok = Variant;
    type Error = Error;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = TupleStructBuilder;
    type SerializeTupleVariant = SeqBuilder;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = MapBuilder;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<Variant> {
        Ok(Variant::Bool(v))
    }
    small_ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_u8: u8,
        serialize_u16: u16, serialize_u32: u32);
    fn serialize_i64(self, v: i64) -> Result<Variant> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<Variant> {
        self.int(i64::try_from(v).map_err(|_| out_of_range(v))?)
    }
    fn serialize_u64(self, v: u64) -> Result<Variant> {
        self.int(i64::try_from(v).map_err(|_| out_of_range(v.into()))?)
    }
    fn serialize_u128(self, v: u128) -> Result<Variant> {
        match i64::try_from(v) {
            Ok(v) => self.int(v),
            Err(_) => Err(Error::new(ErrorKind::UintOutOfRange(
                v,
                "a Godot int (i64)",
            ))),
        }
    }

    fn serialize_f32(self, v: f32) -> Result<Variant> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Variant> {
        if self.cfg.dialect == Dialect::Godot2 && f64::from(v as f32) != v && !v.is_nan() {
            return Err(Error::new(ErrorKind::Unrepresentable(format!(
                "{v}: Godot 2 floats are 32-bit and it would change"
            ))));
        }
        Ok(Variant::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Variant> {
        Ok(Variant::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Variant> {
        check_godot_str(v)?;
        Ok(Variant::String(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Variant> {
        Ok(Variant::PoolByteArray(PoolByteArray(v.to_vec())))
    }
    fn serialize_none(self) -> Result<Variant> {
        Ok(Variant::Nil)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Variant> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Variant> {
        Ok(Variant::Nil)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Variant> {
        Ok(Variant::Nil)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Variant> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Variant> {
        match Marker::lookup(name) {
            // A math value as its floats, without the trip through bytes; anything
            // else under its name (or a type this dialect lacks, or doubles it
            // cannot encode) takes that trip, which gives the byte serializer's value
            // or error.
            Some(Marker::Type(ty))
                if matches!(ty.layout(), Layout::Reals(_) | Layout::F32s(_))
                    && self.cfg.dialect.id_of(ty).is_some()
                    && (self.cfg.precision == Precision::Single
                        || self.cfg.dialect == Dialect::Godot4
                        || !ty.has_reals()) =>
            {
                value
                    .serialize(FloatBytes(|b: &[u8]| math(ty, b)))
                    .or_else(|_| self.via_bytes(&Newtype(name, value)))
            }
            Some(_) => self.via_bytes(&Newtype(name, value)),
            None => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Variant> {
        check_godot_str(variant)?;
        let inner = value.serialize(self.child()?)?;
        Ok(self.in_variant(variant, inner))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder> {
        Ok(SeqBuilder {
            ser: self.child()?,
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<TupleStructBuilder> {
        Ok(match Marker::lookup(name) {
            Some(_) => TupleStructBuilder::Marked {
                name,
                fields: Vec::with_capacity(len.min(64)),
                ser: self,
            },
            None => TupleStructBuilder::Array(self.serialize_seq(Some(len))?),
        })
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<SeqBuilder> {
        check_godot_str(variant)?;
        let mut seq = self.child()?.serialize_seq(Some(len))?;
        seq.variant = Some((variant, self.depth));
        Ok(seq)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder> {
        Ok(MapBuilder {
            ser: self.child()?,
            map: Dictionary::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
            variant: None,
        })
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapBuilder> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<MapBuilder> {
        check_godot_str(variant)?;
        let mut map = self.child()?.serialize_map(Some(len))?;
        map.variant = Some((variant, self.depth));
        Ok(map)
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<Variant> {
        self.serialize_str(&value.to_string())
    }
}

/// Re-issues a newtype marker call to the byte serializer.
struct Newtype<'a, T: ?Sized>(&'static str, &'a T);

impl<T: ?Sized + Serialize> Serialize for Newtype<'_, T> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(self.0, self.1)
    }
}

/// The wrapping `{variant: value}` of an enum variant, and the depth it sits at.
type Wrap = Option<(&'static str, usize)>;

fn wrap(cfg: Config, variant: Wrap, value: Variant) -> Variant {
    match variant {
        Some((name, depth)) => VariantSerializer { cfg, depth }.in_variant(name, value),
        None => value,
    }
}

/// An Array being built (sequences, tuples, tuple variants).
pub(crate) struct SeqBuilder {
    /// Writes the elements (one level in).
    ser: VariantSerializer,
    items: Vec<Variant>,
    variant: Wrap,
}

impl SeqBuilder {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let ser = VariantSerializer {
            cfg: self.ser.cfg,
            depth: self.ser.depth,
        };
        self.items.push(value.serialize(ser)?);
        Ok(())
    }

    fn finish(self) -> Result<Variant> {
        Ok(wrap(self.ser.cfg, self.variant, Variant::Array(self.items)))
    }
}

macro_rules! seq_builder {
    ($($tr:ident :: $m:ident),*) => {
        $(impl ser::$tr for SeqBuilder {
            type Ok = Variant;
            type Error = Error;
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }
            fn end(self) -> Result<Variant> {
                self.finish()
            }
        })*
    };
}
seq_builder!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleVariant::serialize_field
);

/// A Dictionary being built (maps, structs, struct variants).
pub(crate) struct MapBuilder {
    ser: VariantSerializer,
    map: Dictionary,
    key: Option<Variant>,
    variant: Wrap,
}

impl MapBuilder {
    fn value_ser(&self) -> VariantSerializer {
        VariantSerializer {
            cfg: self.ser.cfg,
            depth: self.ser.depth,
        }
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Variant;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(self.value_ser())?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("a map value without a key"))?;
        let value = value.serialize(self.value_ser())?;
        self.map.insert(key, value);
        Ok(())
    }
    fn end(self) -> Result<Variant> {
        Ok(wrap(
            self.ser.cfg,
            self.variant,
            Variant::Dictionary(self.map),
        ))
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Variant;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::SerializeMap::serialize_key(self, key)?;
        ser::SerializeMap::serialize_value(self, value)
    }
    fn end(self) -> Result<Variant> {
        ser::SerializeMap::end(self)
    }
}

impl ser::SerializeStructVariant for MapBuilder {
    type Ok = Variant;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<Variant> {
        ser::SerializeMap::end(self)
    }
}

/// A tuple struct: a Godot type behind a marker (its fields are kept, then written
/// with the byte serializer), or an ordinary tuple struct (an Array).
pub(crate) enum TupleStructBuilder {
    Array(SeqBuilder),
    Marked {
        name: &'static str,
        fields: Vec<Field>,
        ser: VariantSerializer,
    },
}

/// A kept field of a marker: a Variant, or a `u64` above `i64::MAX` (object ids),
/// which no Variant holds.
pub(crate) enum Field {
    Value(Variant),
    U64(u64),
}

impl Serialize for Field {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Field::Value(v) => v.serialize(s),
            Field::U64(v) => s.serialize_u64(*v),
        }
    }
}

/// Re-issues a tuple struct marker call, with its kept fields, to the byte serializer.
struct Marked<'a>(&'static str, &'a [Field]);

impl Serialize for Marked<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeTupleStruct;
        let mut t = s.serialize_tuple_struct(self.0, self.1.len())?;
        for f in self.1 {
            t.serialize_field(f)?;
        }
        t.end()
    }
}

impl ser::SerializeTupleStruct for TupleStructBuilder {
    type Ok = Variant;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match self {
            TupleStructBuilder::Array(seq) => seq.push(value),
            TupleStructBuilder::Marked { fields, ser, .. } => {
                // Payload fields are not Godot values: Godot 2's 32-bit limits are for
                // the byte serializer to apply to the value as a whole.
                let dialect = match ser.cfg.dialect {
                    Dialect::Godot2 => Dialect::Godot3,
                    d => d,
                };
                let ser = VariantSerializer {
                    cfg: ser.cfg.dialect(dialect),
                    depth: ser.depth,
                };
                fields.push(value.serialize(FieldSerializer(ser))?);
                Ok(())
            }
        }
    }

    fn end(self) -> Result<Variant> {
        match self {
            TupleStructBuilder::Array(seq) => seq.finish(),
            TupleStructBuilder::Marked { name, fields, ser } => {
                ser.via_bytes(&Marked(name, &fields))
            }
        }
    }
}

/// Keeps one marker field: like [`VariantSerializer`], but a large `u64` survives.
struct FieldSerializer(VariantSerializer);

macro_rules! field_forward {
    ($($m:ident($($a:ident: $t:ty),*)),*) => {
        $(fn $m(self, $($a: $t),*) -> Result<Field> {
            ser::Serializer::$m(self.0, $($a),*).map(Field::Value)
        })*
    };
}

impl ser::Serializer for FieldSerializer {
    type Ok = Field;
    type Error = Error;
    type SerializeSeq = FieldOf<SeqBuilder>;
    type SerializeTuple = FieldOf<SeqBuilder>;
    type SerializeTupleStruct = FieldOf<TupleStructBuilder>;
    type SerializeTupleVariant = FieldOf<SeqBuilder>;
    type SerializeMap = FieldOf<MapBuilder>;
    type SerializeStruct = FieldOf<MapBuilder>;
    type SerializeStructVariant = FieldOf<MapBuilder>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_u64(self, v: u64) -> Result<Field> {
        match i64::try_from(v) {
            Ok(small) => self.0.int(small).map(Field::Value),
            Err(_) => Ok(Field::U64(v)),
        }
    }

    field_forward!(serialize_bool(v: bool), serialize_i8(v: i8), serialize_i16(v: i16),
        serialize_i32(v: i32), serialize_i64(v: i64), serialize_i128(v: i128),
        serialize_u8(v: u8), serialize_u16(v: u16), serialize_u32(v: u32),
        serialize_u128(v: u128), serialize_f32(v: f32), serialize_f64(v: f64),
        serialize_char(v: char), serialize_str(v: &str), serialize_bytes(v: &[u8]),
        serialize_none(), serialize_unit(), serialize_unit_struct(n: &'static str),
        serialize_unit_variant(n: &'static str, i: u32, v: &'static str));

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Field> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Field> {
        match Marker::lookup(name) {
            Some(_) => self
                .0
                .serialize_newtype_struct(name, value)
                .map(Field::Value),
            None => value.serialize(self),
        }
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Field> {
        ser::Serializer::serialize_newtype_variant(self.0, name, index, variant, value)
            .map(Field::Value)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<FieldOf<SeqBuilder>> {
        ser::Serializer::serialize_seq(self.0, len).map(FieldOf)
    }
    fn serialize_tuple(self, len: usize) -> Result<FieldOf<SeqBuilder>> {
        ser::Serializer::serialize_tuple(self.0, len).map(FieldOf)
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<FieldOf<TupleStructBuilder>> {
        ser::Serializer::serialize_tuple_struct(self.0, name, len).map(FieldOf)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<FieldOf<SeqBuilder>> {
        ser::Serializer::serialize_tuple_variant(self.0, name, index, variant, len).map(FieldOf)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<FieldOf<MapBuilder>> {
        ser::Serializer::serialize_map(self.0, len).map(FieldOf)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<FieldOf<MapBuilder>> {
        ser::Serializer::serialize_struct(self.0, name, len).map(FieldOf)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<FieldOf<MapBuilder>> {
        ser::Serializer::serialize_struct_variant(self.0, name, index, variant, len).map(FieldOf)
    }
}

/// A compound of [`VariantSerializer`] whose result is a kept field.
pub(crate) struct FieldOf<B>(B);

macro_rules! field_of {
    ($b:ty; $($tr:ident :: $m:ident),*) => {
        $(impl ser::$tr for FieldOf<$b> {
            type Ok = Field;
            type Error = Error;
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                ser::$tr::$m(&mut self.0, value)
            }
            fn end(self) -> Result<Field> {
                ser::$tr::end(self.0).map(Field::Value)
            }
        })*
    };
}
field_of!(SeqBuilder; SerializeSeq::serialize_element, SerializeTuple::serialize_element,
    SerializeTupleVariant::serialize_field);
field_of!(TupleStructBuilder; SerializeTupleStruct::serialize_field);

impl ser::SerializeMap for FieldOf<MapBuilder> {
    type Ok = Field;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        ser::SerializeMap::serialize_key(&mut self.0, key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeMap::serialize_value(&mut self.0, value)
    }
    fn end(self) -> Result<Field> {
        ser::SerializeMap::end(self.0).map(Field::Value)
    }
}

macro_rules! field_of_struct {
    ($($tr:ident),*) => {
        $(impl ser::$tr for FieldOf<MapBuilder> {
            type Ok = Field;
            type Error = Error;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                ser::$tr::serialize_field(&mut self.0, key, value)
            }
            fn end(self) -> Result<Field> {
                ser::$tr::end(self.0).map(Field::Value)
            }
        })*
    };
}
field_of_struct!(SerializeStruct, SerializeStructVariant);
