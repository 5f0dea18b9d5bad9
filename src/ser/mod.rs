//! Serde `Serializer` producing Godot Variant bytes.

mod payload;

use serde::ser::{self, Serialize};

use crate::config::Config;
use crate::dialect::{VariantType, FLAG_64};
use crate::error::{Error, ErrorKind, Result};
use crate::marker;

use payload::{check_godot_str, put_str, Elem, ElemSerializer, FloatsCompound, PoolSerializer};

/// Serializes values into Godot's binary Variant encoding.
///
/// Output goes to a `Vec<u8>` because Godot puts element counts in front of
/// containers, and serde does not always know them up front (`flatten`, iterators):
/// counts are written as placeholders and patched in place.
///
/// ```
/// use serde::Serialize;
/// let mut out = Vec::new();
/// 5i32.serialize(&mut godot_bin::Serializer::new(&mut out))?;
/// assert_eq!(out, [2, 0, 0, 0, 5, 0, 0, 0]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub struct Serializer<'a> {
    out: &'a mut Vec<u8>,
    cfg: Config,
    depth: usize,
}

impl<'a> Serializer<'a> {
    /// A Godot 3 serializer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self::with_config(out, Config::default())
    }

    /// A serializer with the given settings appending to `out`.
    pub fn with_config(out: &'a mut Vec<u8>, cfg: Config) -> Self {
        Serializer { out, cfg, depth: 0 }
    }

    fn header(&mut self, ty: VariantType, flags: u32) -> Result<()> {
        let id = self.cfg.dialect.id_of(ty).ok_or_else(|| {
            Error::new(ErrorKind::Unrepresentable(format!(
                "{} does not exist in {:?}",
                ty, self.cfg.dialect
            )))
        })?;
        put_u32(self.out, id | flags);
        Ok(())
    }

    fn int(&mut self, v: i64) -> Result<()> {
        // Godot's rule: 32 bits when the value fits, else the 64-bit flag.
        if let Ok(small) = i32::try_from(v) {
            self.header(VariantType::Int, 0)?;
            self.out.extend_from_slice(&small.to_le_bytes());
        } else {
            self.header(VariantType::Int, FLAG_64)?;
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    /// Before writing an item of the innermost open container: values may sit at most
    /// `max_depth` containers deep (the decoder's rule, and Godot's).
    fn child(&self) -> Result<()> {
        if self.depth > self.cfg.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit(self.cfg.max_depth)));
        }
        Ok(())
    }

    /// Starts a container: header plus a count placeholder, returning where the count is.
    fn open(&mut self, ty: VariantType) -> Result<usize> {
        self.depth += 1;
        self.header(ty, 0)?;
        let at = self.out.len();
        put_u32(self.out, 0);
        Ok(at)
    }

    fn close(&mut self, at: usize, count: usize) -> Result<()> {
        self.depth -= 1;
        patch_count(self.out, at, count)
    }

    /// `{name: <value>}`, serde_json's external enum tagging.
    fn open_variant(&mut self, variant: &str) -> Result<usize> {
        let at = self.open(VariantType::Dictionary)?;
        patch_count(self.out, at, 1)?;
        self.child()?;
        self.str_value(variant)?;
        Ok(at)
    }

    fn str_value(&mut self, v: &str) -> Result<()> {
        check_godot_str(v)?;
        self.header(VariantType::String, 0)?;
        put_str(self.out, v);
        Ok(())
    }
}

pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn patch_count(out: &mut [u8], at: usize, count: usize) -> Result<()> {
    // Godot reads counts as signed 32-bit and keeps bit 31 for flags.
    let n = u32::try_from(count)
        .ok()
        .filter(|n| *n <= 0x7FFF_FFFF)
        .ok_or_else(|| {
            Error::new(ErrorKind::Unrepresentable(format!(
                "{count} elements is more than Godot can count"
            )))
        })?;
    out[at..at + 4].copy_from_slice(&n.to_le_bytes());
    Ok(())
}

fn out_of_range(v: i128) -> Error {
    Error::new(ErrorKind::IntOutOfRange(v, "a Godot int (i64)"))
}

impl<'a, 'b> ser::Serializer for &'a mut Serializer<'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'b>;
    type SerializeTuple = Compound<'a, 'b>;
    type SerializeTupleStruct = TupleStruct<'a, 'b>;
    type SerializeTupleVariant = Compound<'a, 'b>;
    type SerializeMap = Compound<'a, 'b>;
    type SerializeStruct = Compound<'a, 'b>;
    type SerializeStructVariant = Compound<'a, 'b>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.header(VariantType::Bool, 0)?;
        put_u32(self.out, v as u32);
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.int(i64::try_from(v).map_err(|_| out_of_range(v))?)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.int(i64::try_from(v).map_err(|_| out_of_range(v.into()))?)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        let v = i64::try_from(v).map_err(|_| out_of_range(v.min(i128::MAX as u128) as i128))?;
        self.int(v)
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        // Godot floats are doubles: apply its rule to the widened value (NaN goes 64-bit).
        self.serialize_f64(v.into())
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        // Godot's rule, bit for bit: f32 iff `(double)(float)v == v`.
        if f64::from(v as f32) == v {
            self.header(VariantType::Float, 0)?;
            self.out.extend_from_slice(&(v as f32).to_le_bytes());
        } else {
            self.header(VariantType::Float, FLAG_64)?;
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.str_value(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        self.str_value(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.header(VariantType::PoolByteArray, 0)?;
        payload::put_bytes(self.out, v)
    }

    fn serialize_none(self) -> Result<()> {
        self.header(VariantType::Nil, 0)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        self.header(VariantType::Nil, 0)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.header(VariantType::Nil, 0)
    }

    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Result<()> {
        self.str_value(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if let Some(ty) = marker::marker_type(name) {
            return self.marked_newtype(ty, value);
        }
        if name == marker::OBJECT_ID {
            self.header(VariantType::Object, FLAG_64)?;
            return value.serialize(ElemSerializer::new(self.out, Elem::U64));
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let at = self.open_variant(variant)?;
        value.serialize(&mut *self)?;
        self.close(at, 1)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a, 'b>> {
        let at = self.open(VariantType::Array)?;
        Ok(Compound::new(self, at, None))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'b>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<TupleStruct<'a, 'b>> {
        if let Some(ty) = marker::marker_type(name) {
            if let Some(n) = ty.float_count() {
                self.header(ty, 0)?;
                return Ok(TupleStruct::Floats(FloatsCompound::new(self.out, n, len)?));
            }
            if ty == VariantType::NodePath {
                self.header(ty, 0)?;
                return Ok(TupleStruct::NodePath(payload::NodePathCompound::new(self.out)));
            }
        }
        if name == marker::OBJECT {
            self.depth += 1;
            self.header(VariantType::Object, 0)?;
            return Ok(TupleStruct::Object(self, 0));
        }
        Ok(TupleStruct::Array(self.serialize_seq(Some(len))?))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'b>> {
        let outer = self.open_variant(variant)?;
        let at = self.open(VariantType::Array)?;
        Ok(Compound::new(self, at, Some(outer)))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, 'b>> {
        let at = self.open(VariantType::Dictionary)?;
        Ok(Compound::new(self, at, None))
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, 'b>> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'b>> {
        let outer = self.open_variant(variant)?;
        let at = self.open(VariantType::Dictionary)?;
        Ok(Compound::new(self, at, Some(outer)))
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        self.str_value(&value.to_string())
    }
}

impl Serializer<'_> {
    fn marked_newtype<T: ?Sized + Serialize>(&mut self, ty: VariantType, value: &T) -> Result<()> {
        if let Some(elem) = ty.pool_elem() {
            self.header(ty, 0)?;
            return value.serialize(PoolSerializer::new(self.out, elem));
        }
        match ty {
            // Godot 3 RIDs carry nothing on the wire, so only the empty one is exact.
            VariantType::Rid => {
                let id = value.serialize(payload::U64Capture)?;
                if id != 0 {
                    return Err(Error::new(ErrorKind::Unrepresentable(format!(
                        "RID {id}: Godot 3 writes RIDs without their id"
                    ))));
                }
                self.header(ty, 0)
            }
            _ => value.serialize(self),
        }
    }
}

/// A sequence, map or struct being written; patches its count at the end.
pub struct Compound<'a, 'b> {
    ser: &'a mut Serializer<'b>,
    at: usize,
    count: usize,
    /// Set for enum variants: the `{name: ...}` dictionary around this one.
    outer: Option<usize>,
}

impl<'a, 'b> Compound<'a, 'b> {
    fn new(ser: &'a mut Serializer<'b>, at: usize, outer: Option<usize>) -> Self {
        Compound {
            ser,
            at,
            count: 0,
            outer,
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.ser.child()?;
        self.count += 1;
        value.serialize(&mut *self.ser)
    }

    fn finish(self) -> Result<()> {
        self.ser.close(self.at, self.count)?;
        if let Some(outer) = self.outer {
            self.ser.close(outer, 1)?;
        }
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.element(key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.ser.child()?;
        self.count += 1;
        self.ser.str_value(key)?;
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// A tuple struct: a Godot math type, NodePath or Object behind a marker name, or an
/// ordinary tuple struct written as an Array.
pub enum TupleStruct<'a, 'b> {
    #[doc(hidden)]
    Array(Compound<'a, 'b>),
    #[doc(hidden)]
    Floats(FloatsCompound<'a>),
    #[doc(hidden)]
    NodePath(payload::NodePathCompound<'a>),
    /// Object: field 0 is the class name, field 1 the property map.
    #[doc(hidden)]
    Object(&'a mut Serializer<'b>, usize),
}

impl ser::SerializeTupleStruct for TupleStruct<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match self {
            TupleStruct::Array(c) => c.element(value),
            TupleStruct::Floats(c) => c.field(value),
            TupleStruct::NodePath(c) => c.field(value),
            TupleStruct::Object(ser, field) => {
                *field += 1;
                match *field {
                    1 => value.serialize(ElemSerializer::new(ser.out, Elem::Str)),
                    2 => value.serialize(payload::PropsSerializer(ser)),
                    _ => Err(ser::Error::custom("an Object marker takes (class, properties)")),
                }
            }
        }
    }

    fn end(self) -> Result<()> {
        match self {
            TupleStruct::Array(c) => c.finish(),
            TupleStruct::Floats(c) => c.finish(),
            TupleStruct::NodePath(c) => c.finish(),
            TupleStruct::Object(ser, field) => {
                if field != 2 {
                    return Err(ser::Error::custom("an Object marker takes (class, properties)"));
                }
                ser.depth -= 1;
                Ok(())
            }
        }
    }
}
