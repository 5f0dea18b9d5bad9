//! The raw layout's `Serializer`: fields one after another, as `StreamPeer.put_*`.

use std::io;
use std::marker::PhantomData;

use serde::ser::{self, Serialize};

use super::config::{Config, Count, Endian, Strings, Width};
use super::known::{agrees, Choice, Known, LittleNul, LittleUtf8, Runtime};
use super::marker::{variant_id, Marker};
use crate::error::{Error, ErrorKind, Result};
use crate::table::Layout;
use crate::types::FloatBytes;

/// Serializes values in the raw `StreamPeer` layout to any `io::Write` (a `Vec<u8>`
/// among them), as it goes: every count is known before its items.
///
/// ```
/// use serde::Serialize;
/// let mut out = Vec::new();
/// (1u8, 2u16).serialize(&mut godot_bin::raw::Serializer::new(&mut out, Default::default()))?;
/// assert_eq!(out, [1, 2, 0]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub struct Serializer<W, K = Runtime, C = Counted> {
    out: W,
    cfg: Config,
    /// Inside a [`Half`](super::Half): the next float is written as binary16.
    half: bool,
    /// Where the output stands: an item of a sequence must write some bytes.
    tally: C,
    known: PhantomData<K>,
}

/// How a raw [`Serializer`] tells where its output stands, so that it can refuse an
/// item of a sequence that writes nothing (the reader could not count it).
pub trait Tally<W>: sealed::Sealed + Default {
    #[doc(hidden)]
    fn wrote(&mut self, n: usize);
    #[doc(hidden)]
    fn mark(&self, out: &W) -> usize;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Counted {}
    impl Sealed for super::VecLen {}
}

/// Counts the bytes written, for any writer.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counted(usize);

impl<W> Tally<W> for Counted {
    #[inline(always)]
    fn wrote(&mut self, n: usize) {
        self.0 = self.0.wrapping_add(n);
    }
    #[inline(always)]
    fn mark(&self, _: &W) -> usize {
        self.0
    }
}

/// A `Vec`'s length is where it stands: `to_vec` keeps no count per write.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct VecLen;

impl Tally<&mut Vec<u8>> for VecLen {
    #[inline(always)]
    fn wrote(&mut self, _: usize) {}
    #[inline(always)]
    fn mark(&self, out: &&mut Vec<u8>) -> usize {
        out.len()
    }
}

/// Serializes `value` to `out`, with the settings known at compile time where they
/// are common ones (each such choice compiles `T`'s serialization once more), telling
/// where the output stands by `C`: [`Counted`] for any writer, [`VecLen`] for a `Vec`.
#[inline]
pub(crate) fn serialize<W: io::Write, C: Tally<W>, T: ?Sized + Serialize>(
    out: W,
    cfg: Config,
    value: &T,
) -> Result<()> {
    match Choice::of(&cfg) {
        Choice::LittleNul => value.serialize(&mut Serializer::<W, LittleNul, C>::known(out, cfg)),
        Choice::LittleUtf8 => value.serialize(&mut Serializer::<W, LittleUtf8, C>::known(out, cfg)),
        Choice::Runtime => value.serialize(&mut Serializer::<W, Runtime, C>::known(out, cfg)),
    }
}

/// Serializes `value` with the settings `cfg` through a [`Runtime`] serializer on
/// `ser`'s output; what it writes counts toward `ser`'s item.
pub(super) fn runtime_on<W: io::Write, K: Known, C: Tally<W>, T: ?Sized + Serialize>(
    ser: &mut Serializer<W, K, C>,
    cfg: Config,
    value: &T,
) -> Result<()> {
    let mut runtime = Serializer::<_, Runtime>::new(&mut ser.out, cfg);
    runtime.half = ser.half;
    let r = value.serialize(&mut runtime);
    ser.half = runtime.half;
    ser.tally.wrote(runtime.tally.0);
    r
}

/// Whether `S` is a raw serializer into a `Vec<u8>` (of `to_vec`), which takes a math
/// value's floats in one piece as bytes.
#[inline]
pub(crate) fn is_vec_serializer<S: ?Sized>() -> bool {
    let s = typeid::of::<S>();
    s == typeid::of::<&mut Serializer<&mut Vec<u8>, LittleNul, VecLen>>()
        || s == typeid::of::<&mut Serializer<&mut Vec<u8>, LittleUtf8, VecLen>>()
        || s == typeid::of::<&mut Serializer<&mut Vec<u8>, Runtime, VecLen>>()
}

impl<W: io::Write> Serializer<W> {
    /// A serializer writing to `out` with `cfg`.
    pub fn new(out: W, cfg: Config) -> Self {
        Serializer::known(out, cfg)
    }
}

impl<W: io::Write, K: Known, C: Tally<W>> Serializer<W, K, C> {
    /// `cfg` must agree with what `K` knows.
    fn known(out: W, cfg: Config) -> Self {
        debug_assert!(agrees::<K>(&cfg));
        Serializer {
            out,
            cfg,
            half: false,
            tally: C::default(),
            known: PhantomData,
        }
    }

    /// Puts `cfg` in place of the settings, and gives back those it replaced.
    pub(super) fn replace_config(&mut self, cfg: Config) -> Config {
        std::mem::replace(&mut self.cfg, cfg)
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    #[inline]
    fn write(&mut self, b: &[u8]) -> Result<()> {
        self.tally.wrote(b.len());
        self.out.write_all(b).map_err(Error::from)
    }

    /// A count or length prefix in the configured width.
    fn count(&mut self, n: usize) -> Result<()> {
        match self.cfg.count {
            Count::U8 => self.prefix::<u8>(n, "a u8 count"),
            Count::U16 => self.prefix::<u16>(n, "a u16 count"),
            Count::U32 => self.prefix::<u32>(n, "a u32 count"),
            Count::Rest => Ok(()),
        }
    }

    #[inline]
    fn prefix<T: TryFrom<usize> + Number>(&mut self, n: usize, what: &'static str) -> Result<()> {
        match T::try_from(n) {
            Ok(v) => v.put(self),
            Err(_) => Err(Error::new(ErrorKind::UintOutOfRange(n as u128, what))),
        }
    }

    /// A `u32` length (strings, `put_var`), whatever the count setting.
    #[inline]
    fn len32(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.prefix::<u32>(n, what)
    }

    /// A string in the configured style: NUL-terminated and length-prefixed UTF-8
    /// inline, everything else (a BOM, a NUL inside, `put_string`) out of line.
    #[inline]
    fn string(&mut self, s: &str) -> Result<()> {
        let b = s.as_bytes();
        if b.first() != Some(&BOM[0]) && !crate::words::has_nul(b) {
            match K::strings(&self.cfg) {
                Strings::Nul => {
                    self.write(b)?;
                    return self.write(&[0]);
                }
                Strings::Utf8 => {
                    self.len32(b.len(), "a string length (u32)")?;
                    return self.write(b);
                }
                Strings::Godot3 | Strings::Godot4 => {}
            }
        }
        self.string_slow(s)
    }

    #[inline(never)]
    fn string_slow(&mut self, s: &str) -> Result<()> {
        // Every engine reader stops at a NUL: the rest would be lost.
        if crate::words::has_nul(s.as_bytes()) {
            return Err(nul_inside(s));
        }
        // The engines' UTF-8 readers drop a leading BOM: one more keeps the string's.
        let bom = if s.starts_with('\u{FEFF}') {
            BOM
        } else {
            &[][..]
        };
        match K::strings(&self.cfg) {
            Strings::Utf8 => {
                self.len32(bom.len() + s.len(), "a string length (u32)")?;
                self.write(bom)?;
                self.write(s.as_bytes())
            }
            Strings::Nul => {
                self.write(bom)?;
                self.write(s.as_bytes())?;
                self.write(&[0])
            }
            Strings::Godot3 | Strings::Godot4 if s.is_ascii() => {
                self.len32(s.len(), "a string length (u32)")?;
                self.write(s.as_bytes())
            }
            Strings::Godot3 => {
                let bytes = s
                    .chars()
                    .map(|c| {
                        u8::try_from(u32::from(c))
                            .map_err(|_| one_byte(c, "U+00FF", "keeps its low byte"))
                    })
                    .collect::<Result<Vec<u8>>>()?;
                self.len32(bytes.len(), "a string length (u32)")?;
                self.write(&bytes)
            }
            Strings::Godot4 => {
                let c = s.chars().find(|c| !c.is_ascii()).unwrap_or_default();
                Err(one_byte(c, "U+007F", "writes a space"))
            }
        }
    }

    // Always inlined: a derived enum's constant variant name folds to its id.
    #[inline(always)]
    fn tag(&mut self, index: u32, variant: &'static str) -> Result<()> {
        let id = variant_id(index, variant) as usize;
        match K::tag(&self.cfg) {
            Width::U8 => self.prefix::<u8>(id, "a u8 variant id"),
            Width::U16 => self.prefix::<u16>(id, "a u16 variant id"),
            Width::U32 => self.prefix::<u32>(id, "a u32 variant id"),
        }
    }

    /// A sequence or map: its count, which must be known unless the items run to the
    /// end of the message.
    fn open(&mut self, len: Option<usize>) -> Result<Compound<'_, W, K, C>> {
        let saved = self.cfg.count;
        match (len, self.cfg.count) {
            // Only this outermost sequence runs to the end: what it holds is counted.
            (_, Count::Rest) => self.cfg.count = Count::U32,
            (Some(n), _) => self.count(n)?,
            (None, _) => {
                return Err(Error::new(ErrorKind::Message(
                    "a raw sequence needs its length up front (its count comes first)".into(),
                )))
            }
        }
        Ok(Compound {
            ser: self,
            counted: Some(saved),
        })
    }

    #[inline]
    fn float(&mut self, v: f32) -> Result<()> {
        if self.half {
            return self.half(v);
        }
        v.put(self)
    }

    /// Inside a [`Half`](super::Half): `v` as its binary16 bits.
    #[cold]
    fn half(&mut self, v: f32) -> Result<()> {
        self.half = false;
        match super::half::narrow(v) {
            Some(bits) => bits.put(self),
            None => Err(Error::new(ErrorKind::Unrepresentable(format!(
                "{v} is no half-precision float"
            )))),
        }
    }

    /// A math value's floats given as little-endian bytes, in the stream's order.
    #[inline]
    fn floats(&mut self, v: &[u8]) -> Result<()> {
        match K::endian(&self.cfg) {
            Endian::Little => self.write(v),
            Endian::Big => self.floats_swapped(v),
        }
    }

    /// Big-endian floats, out of line: inlined, their byte swaps cost every
    /// little-endian math field a stack frame.
    #[cold]
    #[inline(never)]
    fn floats_swapped(&mut self, v: &[u8]) -> Result<()> {
        for f in v.chunks_exact(4) {
            self.write(&[f[3], f[2], f[1], f[0]])?;
        }
        Ok(())
    }

    /// Serializes `value` with `change` applied to the settings, then restores them.
    fn with<T: ?Sized + Serialize>(
        &mut self,
        change: impl FnOnce(&mut Config),
        value: &T,
    ) -> Result<()> {
        let mut cfg = self.cfg;
        change(&mut cfg);
        K::changed(self, cfg, value)
    }
}

#[cold]
fn nul_inside(s: &str) -> Error {
    let at = s.bytes().position(|b| b == 0).unwrap_or_default();
    Error::new(ErrorKind::Unrepresentable(format!(
        "{s:?} holds a NUL at byte {at}, where Godot's readers stop"
    )))
}

/// U+FEFF in UTF-8.
const BOM: &[u8] = "\u{FEFF}".as_bytes();

#[cold]
fn one_byte(c: char, max: &str, engine: &str) -> Error {
    Error::new(ErrorKind::Unrepresentable(format!(
        "{c:?} in a put_string string: only characters up to {max} fit (the engine {engine})"
    )))
}

/// A number in the configured byte order.
pub(crate) trait Number: Copy {
    fn put<W: io::Write, K: Known, C: Tally<W>>(self, s: &mut Serializer<W, K, C>) -> Result<()>;
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn put<W: io::Write, K: Known, C: Tally<W>>(self, s: &mut Serializer<W, K, C>) -> Result<()> {
                match K::endian(&s.cfg) {
                    Endian::Little => s.write(&self.to_le_bytes()),
                    Endian::Big => s.write(&self.to_be_bytes()),
                }
            }
        }
    )*};
}
number!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// Whether `name` is the reserved name of a Godot math type (folds for a constant).
#[inline(always)]
fn is_math(name: &str) -> bool {
    match crate::marker::Marker::lookup(name) {
        Some(crate::marker::Marker::Type(ty)) => {
            matches!(ty.layout(), Layout::Reals(_) | Layout::F32s(_))
        }
        _ => false,
    }
}

/// Integers at their own width, in the configured byte order.
macro_rules! numbers {
    ($($m:ident: $t:ty),*) => {$(
        #[inline]
        fn $m(self, v: $t) -> Result<()> {
            v.put(self)
        }
    )*};
}

#[cold]
fn no_128(v: &dyn std::fmt::Display) -> Error {
    Error::new(ErrorKind::Unrepresentable(format!(
        "{v}: the StreamPeer layout has no 128-bit integers"
    )))
}

impl<'a, W: io::Write, K: Known, C: Tally<W>> ser::Serializer for &'a mut Serializer<W, K, C> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W, K, C>;
    type SerializeTuple = Compound<'a, W, K, C>;
    type SerializeTupleStruct = Compound<'a, W, K, C>;
    type SerializeTupleVariant = Compound<'a, W, K, C>;
    type SerializeMap = Compound<'a, W, K, C>;
    type SerializeStruct = Compound<'a, W, K, C>;
    type SerializeStructVariant = Compound<'a, W, K, C>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        (v as u8).put(self)
    }
    numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
             serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);
    fn serialize_i128(self, v: i128) -> Result<()> {
        Err(no_128(&v))
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        Err(no_128(&v))
    }
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.float(v)
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        if self.half {
            let narrow = v as f32;
            if f64::from(narrow).to_bits() != v.to_bits() && !v.is_nan() {
                self.half = false;
                return Err(Error::new(ErrorKind::Unrepresentable(format!(
                    "{v} is no half-precision float"
                ))));
            }
            return self.float(narrow);
        }
        v.put(self)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        u32::from(v).put(self)
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.string(v)
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.count(v.len())?;
        self.write(v)
    }
    #[inline]
    fn serialize_none(self) -> Result<()> {
        0u8.put(self)
    }
    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        1u8.put(self)?;
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Ok(())
    }
    // Always inlined, as `tag`: the variant name is a constant at the call.
    #[inline(always)]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        i: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.tag(i, variant)
    }
    // Always inlined: the reserved names of constant callers fold.
    #[inline(always)]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if is_math(name) {
            // A math value's floats in one piece (see `types::math::ser_floats`).
            return value.serialize(FloatBytes(|v: &[u8]| self.floats(v)));
        }
        match Marker::lookup(name) {
            None => value.serialize(self),
            Some(Marker::Strings(s)) => self.with(|c| c.strings = s, value),
            Some(Marker::Count(n)) => self.with(|c| c.count = n, value),
            Some(Marker::Tag(w)) => self.with(|c| c.tag = w, value),
            Some(Marker::Half) => {
                self.half = true;
                let r = value.serialize(&mut *self);
                if std::mem::take(&mut self.half) {
                    return Err(Error::new(ErrorKind::Message(
                        "a Half holds a float".into(),
                    )));
                }
                r
            }
            Some(Marker::Var) => {
                let bytes = self.cfg.variant.encode_passing(value)?;
                self.len32(bytes.len(), "a put_var length (u32)")?;
                self.write(&bytes)
            }
        }
    }
    // Always inlined, as `tag`: the variant name is a constant at the call.
    #[inline(always)]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.tag(i, variant)?;
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, W, K, C>> {
        self.open(len)
    }
    #[inline]
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a, W, K, C>> {
        Ok(Compound {
            ser: self,
            counted: None,
        })
    }
    #[inline]
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W, K, C>> {
        Ok(Compound {
            ser: self,
            counted: None,
        })
    }
    // Always inlined, as `tag`: the variant name is a constant at the call.
    #[inline(always)]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W, K, C>> {
        self.tag(i, variant)?;
        Ok(Compound {
            ser: self,
            counted: None,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, W, K, C>> {
        self.open(len)
    }
    #[inline]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a, W, K, C>> {
        Ok(Compound {
            ser: self,
            counted: None,
        })
    }
    // Always inlined, as `tag`: the variant name is a constant at the call.
    #[inline(always)]
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W, K, C>> {
        self.tag(i, variant)?;
        Ok(Compound {
            ser: self,
            counted: None,
        })
    }
    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        self.string(&value.to_string())
    }
}

/// The items of anything with parts: they follow each other.
pub struct Compound<'a, W, K = Runtime, C = Counted> {
    ser: &'a mut Serializer<W, K, C>,
    /// A sequence or map: the count setting to restore at its end.
    counted: Option<Count>,
}

impl<W: io::Write, K: Known, C: Tally<W>> Compound<'_, W, K, C> {
    /// An item of a sequence or map, which must write a byte at least (the decoder
    /// bounds counts by the bytes left, and a `Rest` sequence must reach its end).
    #[inline]
    fn item<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let before = self.ser.tally.mark(&self.ser.out);
        value.serialize(&mut *self.ser)?;
        if self.ser.tally.mark(&self.ser.out) == before {
            return Err(Error::new(ErrorKind::Unrepresentable(
                "an item of a sequence or map that takes no bytes (a unit type): the reader \
                 could not count it"
                    .into(),
            )));
        }
        Ok(())
    }

    #[inline]
    fn close(self) -> Result<()> {
        if let Some(count) = self.counted {
            self.ser.cfg.count = count;
        }
        Ok(())
    }
}

impl<W: io::Write, K: Known, C: Tally<W>> ser::SerializeSeq for Compound<'_, W, K, C> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.item(value)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.close()
    }
}

macro_rules! items {
    ($($tr:ident :: $m:ident),*) => {$(
        impl<W: io::Write, K: Known, C: Tally<W>> ser::$tr for Compound<'_, W, K, C> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                value.serialize(&mut *self.ser)
            }
            #[inline]
            fn end(self) -> Result<()> {
                Ok(())
            }
        }
    )*};
}
items!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<W: io::Write, K: Known, C: Tally<W>> ser::SerializeMap for Compound<'_, W, K, C> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.item(key)
    }
    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

macro_rules! fields {
    ($($tr:ident),*) => {$(
        impl<W: io::Write, K: Known, C: Tally<W>> ser::$tr for Compound<'_, W, K, C> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn serialize_field<T: ?Sized + Serialize>(&mut self, _key: &'static str, value: &T) -> Result<()> {
                value.serialize(&mut *self.ser)
            }
            // Fields have no names: a skipped one would shift every field after it.
            fn skip_field(&mut self, key: &'static str) -> Result<()> {
                Err(Error::new(ErrorKind::Message(format!(
                    "field {key:?} skipped: raw fields have no names, so none can be left out"
                ))))
            }
            #[inline]
            fn end(self) -> Result<()> {
                Ok(())
            }
        }
    )*};
}
fields!(SerializeStruct, SerializeStructVariant);
