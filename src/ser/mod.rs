//! Serde `Serializer` producing Godot Variant bytes.

pub(crate) mod capacity;
mod payload;

use std::io;

use serde::ser::{self, Serialize};

use crate::config::{Config, Precision};
use crate::dialect::{Dialect, VariantType, BOOL_ID, FLAG_64, FLOAT_ID, INT_ID, NIL_ID, STRING_ID};
use crate::error::{Error, ErrorKind, Result};
use crate::marker::Marker;
use crate::table::{Layout, PoolElem};

pub(crate) use payload::{check_godot_str, is_pool_serializer, is_serializer};
use payload::{
    put_str, put_tagged_str, Capture, Elem, ElemSerializer, Fields, FieldsCompound, PoolSerializer,
    Scalar, UniformCompound,
};

/// How much a streaming serializer buffers before it writes to its sink.
const CHUNK: usize = 32 * 1024;

/// Serializes values into Godot's binary Variant encoding.
///
/// Output goes to a `Vec<u8>` because Godot puts element counts in front of
/// containers. Counts serde announces (structs, `Vec`s, maps) are written at once;
/// when serde does not know one (`flatten`, iterators) a placeholder is patched in
/// place when the container ends.
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
    /// A typed container wrote its own header: the next container of this type
    /// writes only its count.
    bare: Option<VariantType>,
    /// Streaming ([`Config::to_writer`]): where full chunks of `out` go.
    sink: Option<&'a mut dyn io::Write>,
    /// Open containers whose count is a placeholder still to patch: while there are
    /// any, nothing may leave `out`.
    holds: usize,
    /// Before an element, `out` at least this long takes the slow way: 0 when the
    /// depth is past the limit (the element is refused), a chunk when streaming with
    /// nothing to patch (`out` is flushed), else never. One test per element for both.
    flush_at: usize,
    /// How many times `out` was flushed: a container opened before a flush can no
    /// longer patch its count.
    flushes: u32,
}

impl<'a> Serializer<'a> {
    /// A Godot 3 serializer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self::with_config(out, Config::default())
    }

    /// A serializer with the given settings appending to `out`.
    pub fn with_config(out: &'a mut Vec<u8>, cfg: Config) -> Self {
        Serializer {
            out,
            cfg,
            depth: 0,
            bare: None,
            sink: None,
            holds: 0,
            flush_at: usize::MAX,
            flushes: 0,
        }
    }

    /// A serializer that buffers in `buf` and writes every full chunk to `sink`; the
    /// caller writes what is left in `buf` at the end.
    pub(crate) fn streaming(
        buf: &'a mut Vec<u8>,
        sink: &'a mut dyn io::Write,
        cfg: Config,
    ) -> Self {
        Serializer {
            sink: Some(sink),
            flush_at: CHUNK,
            ..Self::with_config(buf, cfg)
        }
    }

    #[inline]
    fn header(&mut self, ty: VariantType, flags: u32) -> Result<()> {
        match self.cfg.dialect.id_of(ty) {
            Some(id) => {
                put_u32(self.out, id | flags);
                Ok(())
            }
            None => Err(self.missing(ty)),
        }
    }

    #[cold]
    fn missing(&self, ty: VariantType) -> Error {
        Error::new(ErrorKind::Unrepresentable(format!(
            "{} does not exist in {:?}",
            ty, self.cfg.dialect
        )))
    }

    #[inline]
    fn int(&mut self, v: i64) -> Result<()> {
        // Godot's rule: 32 bits when the value fits, else the 64-bit flag.
        if let Ok(small) = i32::try_from(v) {
            put_u64(self.out, INT_ID, small as u32);
            Ok(())
        } else {
            self.wide_int(v)
        }
    }

    fn wide_int(&mut self, v: i64) -> Result<()> {
        if self.cfg.dialect == Dialect::Godot2 {
            return Err(Error::new(ErrorKind::IntOutOfRange(
                v.into(),
                "a Godot 2 int (i32)",
            )));
        }
        put_wide(self.out, INT_ID | FLAG_64, v.to_le_bytes());
        Ok(())
    }

    /// Writes `out` to the sink (streaming, no count left to patch, a chunk full).
    #[cold]
    fn flush(&mut self) -> Result<()> {
        if let Some(sink) = self.sink.as_mut() {
            sink.write_all(self.out)?;
            self.out.clear();
            self.flushes = self.flushes.wrapping_add(1);
        }
        Ok(())
    }

    /// Before writing an item of the innermost open container: values may sit at most
    /// `max_depth` containers deep (the decoder's rule, and Godot's).
    #[inline]
    fn child(&self) -> Result<()> {
        if self.depth > self.cfg.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit(self.cfg.max_depth)));
        }
        Ok(())
    }

    /// The slow way before an element (see `flush_at`).
    #[cold]
    fn slow_item(&mut self) -> Result<()> {
        self.child()?;
        self.flush()
    }

    /// `flush_at` for the depth, holds and sink as they are now.
    fn set_limit(&mut self) {
        self.flush_at = if self.depth > self.cfg.max_depth {
            0
        } else if self.holds == 0 && self.sink.is_some() {
            CHUNK
        } else {
            usize::MAX
        };
    }

    /// One container deeper.
    #[inline]
    fn enter(&mut self) {
        self.depth += 1;
        if self.depth > self.cfg.max_depth {
            self.set_limit();
        }
    }

    /// One container less deep.
    #[inline]
    fn leave(&mut self) {
        self.depth -= 1;
        if self.depth == self.cfg.max_depth {
            self.set_limit();
        }
    }

    /// Starts a container: header plus its count, the announced one or a placeholder.
    #[inline]
    fn open(&mut self, ty: VariantType, len: Option<usize>) -> Result<Open> {
        self.enter();
        match self.bare.take() {
            // The usual case in one write: header and announced count.
            None => match (self.cfg.dialect.id_of(ty), len) {
                (Some(id), Some(n)) if n <= 0x7FFF_FFFF => {
                    put_u64(self.out, id, n as u32);
                    return Ok(Open {
                        at: self.out.len() - 4,
                        announced: len,
                        flushes: self.flushes,
                    });
                }
                _ => self.header(ty, 0)?,
            },
            Some(t) if t == ty => {}
            Some(t) => return Err(typed_mismatch(t, ty)),
        }
        let at = self.out.len();
        put_u32(self.out, 0);
        match len {
            Some(n) => patch_count(self.out, at, n)?,
            None => self.hold(),
        }
        Ok(Open {
            at,
            announced: len,
            flushes: self.flushes,
        })
    }

    #[inline]
    fn close(&mut self, open: Open, count: usize) -> Result<()> {
        self.leave();
        if open.announced == Some(count) {
            return Ok(());
        }
        self.patch(open, count)
    }

    /// A container's count that was not announced, or announced wrong.
    fn patch(&mut self, open: Open, count: usize) -> Result<()> {
        match open.announced {
            Some(n) if open.flushes != self.flushes => Err(wrong_count(n, count)),
            Some(_) => patch_count(self.out, open.at, count),
            None => {
                self.release();
                patch_count(self.out, open.at, count)
            }
        }
    }

    /// A count placeholder is open: keep everything in `out` until it is patched.
    fn hold(&mut self) {
        self.holds += 1;
        self.set_limit();
    }

    fn release(&mut self) {
        self.holds -= 1;
        self.set_limit();
    }

    /// `{name: <value>}`, serde_json's external enum tagging.
    fn open_variant(&mut self, variant: &str) -> Result<Open> {
        let open = self.open(VariantType::Dictionary, Some(1))?;
        self.child()?;
        self.str_value(variant)?;
        Ok(open)
    }

    #[inline]
    fn str_value(&mut self, v: &str) -> Result<()> {
        put_tagged_str(self.out, STRING_ID, v)
    }
}

#[cold]
fn no_doubles(ty: VariantType) -> Error {
    Error::new(ErrorKind::Unrepresentable(format!(
        "double-precision {ty}: only Godot 4 engines encode it correctly"
    )))
}

#[cold]
fn typed_mismatch(t: VariantType, ty: VariantType) -> Error {
    Error::new(ErrorKind::Unrepresentable(format!(
        "a typed {t} holding a {ty}"
    )))
}

#[cold]
fn wrong_count(n: usize, count: usize) -> Error {
    Error::new(ErrorKind::Message(format!(
        "a Serialize impl announced {n} items and wrote {count} (streaming needs the true count)"
    )))
}

/// Where an open container's count is, and what was announced for it.
#[derive(Clone, Copy)]
struct Open {
    at: usize,
    announced: Option<usize>,
    flushes: u32,
}

#[inline]
pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Two words in one write: a header and its 32-bit payload.
#[inline]
pub(crate) fn put_u64(out: &mut Vec<u8>, a: u32, b: u32) {
    out.extend_from_slice(&(u64::from(a) | u64::from(b) << 32).to_le_bytes());
}

/// A header and its 64-bit payload in one write.
#[inline]
fn put_wide(out: &mut Vec<u8>, header: u32, payload: [u8; 8]) {
    let mut b = [0; 12];
    b[..4].copy_from_slice(&header.to_le_bytes());
    b[4..].copy_from_slice(&payload);
    out.extend_from_slice(&b);
}

#[inline]
pub(crate) fn patch_count(out: &mut [u8], at: usize, count: usize) -> Result<()> {
    // Godot reads counts as signed 32-bit and keeps bit 31 for flags.
    match u32::try_from(count) {
        Ok(n) if n <= 0x7FFF_FFFF => {
            out[at..at + 4].copy_from_slice(&n.to_le_bytes());
            Ok(())
        }
        _ => Err(too_many(count)),
    }
}

#[cold]
fn too_many(count: usize) -> Error {
    Error::new(ErrorKind::Unrepresentable(format!(
        "{count} elements is more than Godot can count"
    )))
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

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        put_u64(self.out, BOOL_ID, v as u32);
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(v.into())
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(v.into())
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.int(v.into())
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.int(i64::try_from(v).map_err(|_| out_of_range(v))?)
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(v.into())
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(v.into())
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(v.into())
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.int(i64::try_from(v).map_err(|_| out_of_range(v.into()))?)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        let v = i64::try_from(v)
            .map_err(|_| Error::new(ErrorKind::UintOutOfRange(v, "a Godot int (i64)")))?;
        self.int(v)
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        // Godot floats are doubles: apply its rule to the widened value (NaN goes 64-bit).
        self.serialize_f64(v.into())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        // Godot's rule, bit for bit: f32 iff `(double)(float)v == v`.
        let narrow = f64::from(v as f32) == v;
        if !narrow && self.cfg.dialect == Dialect::Godot2 && !v.is_nan() {
            return Err(Error::new(ErrorKind::Unrepresentable(format!(
                "{v}: Godot 2 floats are 32-bit and it would change"
            ))));
        }
        if narrow || self.cfg.dialect == Dialect::Godot2 {
            put_u64(self.out, FLOAT_ID, (v as f32).to_bits());
        } else {
            put_wide(self.out, FLOAT_ID | FLAG_64, v.to_le_bytes());
        }
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.str_value(v.encode_utf8(&mut [0; 4]))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.str_value(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.header(VariantType::PoolByteArray, 0)?;
        payload::put_bytes(self.out, v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        put_u32(self.out, NIL_ID);
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        put_u32(self.out, NIL_ID);
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.str_value(variant)
    }

    // Always inlined, as `serialize_tuple_struct`: the marker name folds.
    #[inline(always)]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        match Marker::lookup(name) {
            // Math values in one piece (see `types::math::ser_floats`): the hot path.
            Some(Marker::Type(ty)) => match ty.layout() {
                Layout::Reals(n) => self.math(ty, n, true, value),
                Layout::F32s(n) => self.math(ty, n, false, value),
                Layout::Pool(PoolElem::String) => self.pool_strings(ty, value),
                _ => self.marked_newtype(Marker::Type(ty), value),
            },
            Some(marker) => self.marked_newtype(marker, value),
            None => value.serialize(self),
        }
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let open = self.open_variant(variant)?;
        value.serialize(&mut *self)?;
        self.close(open, 1)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, 'b>> {
        let open = self.open(VariantType::Array, len)?;
        Ok(Compound::new(self, open, None))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'b>> {
        self.serialize_seq(Some(len))
    }

    #[inline(always)]
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<TupleStruct<'a, 'b>> {
        match Marker::lookup(name) {
            Some(marker) => self.marked_tuple(marker, len),
            None => Ok(TupleStruct::Array(self.serialize_seq(Some(len))?)),
        }
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>> {
        let outer = self.open_variant(variant)?;
        let open = self.open(VariantType::Array, Some(len))?;
        Ok(Compound::new(self, open, Some(outer)))
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, 'b>> {
        let open = self.open(VariantType::Dictionary, len)?;
        Ok(Compound::new(self, open, None))
    }

    #[inline]
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, 'b>> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>> {
        let outer = self.open_variant(variant)?;
        let open = self.open(VariantType::Dictionary, Some(len))?;
        Ok(Compound::new(self, open, Some(outer)))
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        self.str_value(&value.to_string())
    }
}

impl<'b> Serializer<'b> {
    /// Godot 2 writes every Object as a bare null: nothing of one can be sent.
    fn no_objects_in_godot2(&self) -> Result<()> {
        if self.cfg.dialect == Dialect::Godot2 {
            return Err(Error::new(ErrorKind::Unrepresentable(
                "Godot 2 cannot send Objects (it writes them as null)".into(),
            )));
        }
        Ok(())
    }

    /// A sequence written as `Array[element]` (a `godot_bin::typed` module).
    fn typed_array<T: ?Sized + Serialize>(
        &mut self,
        element: VariantType,
        value: &T,
    ) -> Result<()> {
        let g4 = Dialect::Godot4;
        if self.cfg.dialect != g4 {
            return Err(Error::new(ErrorKind::Unrepresentable(format!(
                "Array[{}]: typed arrays need Godot 4, not {:?}",
                element.name_in(g4),
                self.cfg.dialect
            ))));
        }
        self.header(VariantType::Array, 1 << 16)?;
        put_u32(self.out, g4.id_of(element).unwrap_or_default());
        self.bare = Some(VariantType::Array);
        let r = value.serialize(&mut *self);
        self.bare = None;
        r
    }

    /// Whether math type `ty` is written with 64-bit reals.
    #[inline(always)]
    fn wide(&self, ty: VariantType) -> Result<bool> {
        if self.cfg.precision == Precision::Single || !ty.has_reals() {
            return Ok(false);
        }
        if self.cfg.dialect != Dialect::Godot4 {
            return Err(no_doubles(ty));
        }
        Ok(true)
    }

    /// Header, with the 64-bit flag when a double-precision engine would set it.
    #[inline(always)]
    fn real_header(&mut self, ty: VariantType) -> Result<bool> {
        let wide = self.wide(ty)?;
        self.header(ty, if wide { FLAG_64 } else { 0 })?;
        Ok(wide)
    }

    fn marked_newtype<T: ?Sized + Serialize>(&mut self, marker: Marker, value: &T) -> Result<()> {
        let ty = match marker {
            Marker::Type(ty) => ty,
            Marker::ObjectId => {
                self.no_objects_in_godot2()?;
                self.header(VariantType::Object, FLAG_64)?;
                return value.serialize(ElemSerializer::new(self.out, Elem::U64));
            }
            Marker::ArrayOf(element) => return self.typed_array(element, value),
            Marker::Variant | Marker::TypedArray | Marker::TypedDictionary => {
                return value.serialize(self)
            }
        };
        match ty.layout() {
            Layout::Pool(elem) => {
                let wide = self.real_header(ty)?;
                value.serialize(PoolSerializer::new(self.out, elem, wide))
            }
            Layout::Rid => {
                let id = value.serialize(Capture)?.int()?;
                self.header(ty, 0)?;
                if self.cfg.dialect == Dialect::Godot4 {
                    self.out.extend_from_slice(&id.to_le_bytes());
                } else if id != 0 {
                    // Godot 2 and 3 send RIDs without their id.
                    return Err(Error::new(ErrorKind::Unrepresentable(format!(
                        "RID {id}: {:?} writes RIDs without their id",
                        self.cfg.dialect
                    ))));
                }
                Ok(())
            }
            Layout::StringName => {
                self.header(ty, 0)?;
                value.serialize(ElemSerializer::new(self.out, Elem::Str))
            }
            Layout::Callable => self.header(ty, 0),
            // Types whose Rust form is not a newtype: the name is only a wrapper.
            Layout::Nil
            | Layout::Bool
            | Layout::Int
            | Layout::Float
            | Layout::String
            | Layout::Reals(_)
            | Layout::F32s(_)
            | Layout::Ints(_)
            | Layout::NodePath
            | Layout::Object
            | Layout::Dictionary
            | Layout::Array
            | Layout::Signal
            | Layout::Image
            | Layout::InputEvent => value.serialize(self),
        }
    }

    /// A math value of `n` floats given as their bytes: reals when `reals` (64-bit
    /// in a double-precision engine), else always 32-bit.
    #[inline(always)]
    fn math<T: ?Sized + Serialize>(
        &mut self,
        ty: VariantType,
        n: usize,
        reals: bool,
        value: &T,
    ) -> Result<()> {
        if reals && self.wide(ty)? {
            self.header(ty, FLAG_64)?;
            return value.serialize(ElemSerializer::new(self.out, Elem::Reals(n, true)));
        }
        let Some(id) = self.cfg.dialect.id_of(ty) else {
            return Err(self.missing(ty));
        };
        value.serialize(ElemSerializer::new(self.out, Elem::Headed(n, id)))
    }

    /// `PoolStringArray` and `pool::string`: a `Vec<String>` in one loop, not through
    /// serde's calls per element (a fifth of a world snapshot's encode), and inlined
    /// where it is used (6% of a world snapshot's encode, measured).
    #[inline(always)]
    fn pool_strings<T: ?Sized + Serialize>(&mut self, ty: VariantType, value: &T) -> Result<()> {
        match crate::cast::as_plain::<T, Vec<String>>(value) {
            Some(v) => {
                self.header(ty, 0)?;
                payload::put_pool_strings(self.out, v)
            }
            None => self.marked_newtype(Marker::Type(ty), value),
        }
    }

    /// The `n` fields of one kind of a math type or integer vector, after its header.
    #[inline]
    fn uniform<'a>(
        &'a mut self,
        elem: Scalar,
        n: usize,
        len: usize,
    ) -> Result<TupleStruct<'a, 'b>> {
        UniformCompound::new(self.out, elem, n, len).map(TupleStruct::Uniform)
    }

    #[inline(always)]
    fn marked_tuple<'a>(&'a mut self, marker: Marker, len: usize) -> Result<TupleStruct<'a, 'b>> {
        let ty = match marker {
            Marker::Type(ty) => ty,
            Marker::TypedArray | Marker::TypedDictionary => {
                if self.cfg.dialect != Dialect::Godot4 {
                    return Err(Error::new(ErrorKind::Unrepresentable(format!(
                        "typed containers (Godot 4) have no {} form",
                        self.cfg.dialect.engine_name()
                    ))));
                }
                let ty = if marker == Marker::TypedArray {
                    VariantType::Array
                } else {
                    VariantType::Dictionary
                };
                let at = self.out.len();
                self.header(ty, 0)?;
                return Ok(TupleStruct::Typed(Typed {
                    ser: self,
                    at,
                    ty,
                    captured: Vec::new(),
                }));
            }
            Marker::Variant | Marker::ObjectId | Marker::ArrayOf(_) => {
                return Err(ser::Error::custom(
                    "a newtype marker used as a tuple struct",
                ))
            }
        };
        let fields = match ty.layout() {
            Layout::Reals(n) => {
                let elem = Scalar::real(self.real_header(ty)?);
                return self.uniform(elem, n, len);
            }
            Layout::F32s(n) => {
                self.header(ty, 0)?;
                return self.uniform(Scalar::F32, n, len);
            }
            Layout::Ints(n) => {
                self.header(ty, 0)?;
                return self.uniform(Scalar::I32, n, len);
            }
            Layout::Signal => {
                self.header(ty, 0)?;
                Fields::Signal
            }
            Layout::Image => {
                self.header(ty, 0)?;
                Fields::Image
            }
            Layout::InputEvent => {
                self.header(ty, 0)?;
                Fields::InputEvent
            }
            Layout::NodePath => {
                self.header(ty, 0)?;
                return Ok(TupleStruct::NodePath(payload::NodePathCompound::new(
                    self.out,
                )));
            }
            Layout::Object => {
                self.no_objects_in_godot2()?;
                if !self.cfg.encode_objects {
                    return Err(Error::new(ErrorKind::ObjectsNotAllowed));
                }
                self.enter();
                self.header(VariantType::Object, 0)?;
                return Ok(TupleStruct::Object(self, 0));
            }
            Layout::Nil
            | Layout::Bool
            | Layout::Int
            | Layout::Float
            | Layout::String
            | Layout::Rid
            | Layout::Dictionary
            | Layout::Array
            | Layout::Pool(_)
            | Layout::StringName
            | Layout::Callable => {
                return Err(ser::Error::custom(format_args!(
                    "{ty} is not a tuple marker"
                )))
            }
        };
        Ok(TupleStruct::Fields(FieldsCompound::new(
            self.out, fields, len,
        )?))
    }
}

/// A typed Array or Dictionary (Godot 4.3+ / 4.4+): the element type fields come
/// first, then the container itself.
pub struct Typed<'a, 'b> {
    ser: &'a mut Serializer<'b>,
    /// Where the header is.
    at: usize,
    ty: VariantType,
    captured: Vec<payload::Captured>,
}

impl Typed<'_, '_> {
    /// Fields: (kind, type tag, class or script name) for the element, or for the key
    /// and then the value; the container comes last.
    fn field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let types = if self.ty == VariantType::Array { 1 } else { 2 };
        if self.captured.len() < 2 * types {
            self.captured.push(value.serialize(Capture)?);
            return Ok(());
        }
        let mut flags = 0;
        let mut info = Vec::new();
        let mut captured = std::mem::take(&mut self.captured).into_iter();
        for shift in [16, 18].into_iter().take(types) {
            let (kind, name) = (
                captured.next().map_or(Ok(0), |c| c.int())?,
                captured.next().map_or(Ok(String::new()), |c| c.string())?,
            );
            flags |= (kind as u32 & 3) << shift;
            match kind {
                0 => {}
                1 => {
                    let id = VariantType::from_godot4_name(&name)
                        .and_then(|t| Dialect::Godot4.id_of(t))
                        .ok_or_else(|| {
                            <Error as ser::Error>::custom(format_args!(
                                "element type {name:?} is not a Godot 4 type"
                            ))
                        })?;
                    put_u32(&mut info, id);
                }
                2 | 3 => {
                    put_str(&mut info, &name)?;
                }
                k => {
                    return Err(<Error as ser::Error>::custom(format_args!(
                        "container kind {k} does not exist"
                    )))
                }
            }
        }
        let header = u32::from_le_bytes(
            self.ser.out[self.at..self.at + 4]
                .try_into()
                .unwrap_or_default(),
        );
        self.ser.out[self.at..self.at + 4].copy_from_slice(&(header | flags).to_le_bytes());
        self.ser.out.extend_from_slice(&info);
        self.ser.bare = Some(self.ty);
        let r = value.serialize(&mut *self.ser);
        self.ser.bare = None;
        r
    }
}

/// A sequence, map or struct being written; checks or patches its count at the end.
pub struct Compound<'a, 'b> {
    ser: &'a mut Serializer<'b>,
    open: Open,
    count: usize,
    /// Set for enum variants: the `{name: ...}` dictionary around this one.
    outer: Option<Open>,
}

impl<'a, 'b> Compound<'a, 'b> {
    #[inline]
    fn new(ser: &'a mut Serializer<'b>, open: Open, outer: Option<Open>) -> Self {
        Compound {
            ser,
            open,
            count: 0,
            outer,
        }
    }

    /// Before each item: the depth check, the count, and a streaming flush.
    #[inline(always)]
    fn item(&mut self) -> Result<()> {
        if self.ser.out.len() >= self.ser.flush_at {
            self.ser.slow_item()?;
        }
        self.count += 1;
        Ok(())
    }

    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.item()?;
        value.serialize(&mut *self.ser)
    }

    #[inline]
    fn finish(self) -> Result<()> {
        self.ser.close(self.open, self.count)?;
        if let Some(outer) = self.outer {
            self.ser.close(outer, 1)?;
        }
        Ok(())
    }
}

/// Sequences, tuples and tuple variants: every item is one element.
macro_rules! element_compound {
    ($($tr:ident :: $m:ident),*) => {
        $(impl ser::$tr for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            #[inline]
            fn end(self) -> Result<()> {
                self.finish()
            }
        })*
    };
}
element_compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.element(key)
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.item()?;
        payload::put_key(self.ser.out, key)?;
        value.serialize(&mut *self.ser)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
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
    Uniform(UniformCompound<'a>),
    #[doc(hidden)]
    Array(Compound<'a, 'b>),
    #[doc(hidden)]
    Fields(FieldsCompound<'a>),
    #[doc(hidden)]
    Typed(Typed<'a, 'b>),
    #[doc(hidden)]
    NodePath(payload::NodePathCompound<'a>),
    /// Object: field 0 is the class name, field 1 the property map.
    #[doc(hidden)]
    Object(&'a mut Serializer<'b>, usize),
}

impl ser::SerializeTupleStruct for TupleStruct<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        // Math types first, and alone: their fields are the hot path.
        if let TupleStruct::Uniform(c) = self {
            return c.field(value);
        }
        self.other_field(value)
    }

    #[inline(always)]
    fn end(self) -> Result<()> {
        if let TupleStruct::Uniform(c) = self {
            return c.finish();
        }
        self.other_end()
    }
}

impl TupleStruct<'_, '_> {
    fn other_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match self {
            TupleStruct::Uniform(c) => c.field(value),
            TupleStruct::Array(c) => c.element(value),
            TupleStruct::Fields(c) => c.field(value),
            TupleStruct::Typed(t) => t.field(value),
            TupleStruct::NodePath(c) => c.field(value),
            TupleStruct::Object(ser, field) => {
                *field += 1;
                match *field {
                    1 => {
                        let start = ser.out.len();
                        value.serialize(ElemSerializer::new(ser.out, Elem::Str))?;
                        // The engine reads an empty class as a null Object, and the
                        // property count after it as the next value.
                        if ser.out.get(start..) == Some(&[0; 4][..]) {
                            return Err(Error::new(ErrorKind::Unrepresentable(
                                "an Object with an empty class name (Godot reads it as null)"
                                    .into(),
                            )));
                        }
                        Ok(())
                    }
                    2 => value.serialize(payload::PropsSerializer(ser)),
                    _ => Err(ser::Error::custom(
                        "an Object marker takes (class, properties)",
                    )),
                }
            }
        }
    }

    fn other_end(self) -> Result<()> {
        match self {
            TupleStruct::Uniform(c) => c.finish(),
            TupleStruct::Array(c) => c.finish(),
            TupleStruct::Fields(c) => c.finish(),
            TupleStruct::Typed(t) => {
                if !t.captured.is_empty() || t.ser.bare.is_some() {
                    return Err(ser::Error::custom(
                        "a typed container marker needs its element type and items",
                    ));
                }
                Ok(())
            }
            TupleStruct::NodePath(c) => c.finish(),
            TupleStruct::Object(ser, field) => {
                if field != 2 {
                    return Err(ser::Error::custom(
                        "an Object marker takes (class, properties)",
                    ));
                }
                ser.leave();
                Ok(())
            }
        }
    }
}
