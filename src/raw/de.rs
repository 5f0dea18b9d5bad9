//! The raw layout's `Deserializer`: the Rust type says what comes next, as the
//! `get_*` calls of a GDScript reader do.

use std::cell::Cell;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;

use super::config::{Config, Count, Endian, Strings, Width};
use super::known::{agrees, Choice, Known, LittleNul, LittleUtf8, Runtime};
use super::marker::{numeric, Marker};
use crate::de::read::SliceRead;
use crate::error::{Error, ErrorKind, Result};
use crate::table::Layout;

/// Reads the raw layout from a byte slice; strings and byte slices borrow from it.
///
/// Every length and count is checked against the bytes left before anything is
/// allocated, and errors carry the byte offset of the item that failed. Every struct,
/// tuple, sequence, map, `Option` and enum counts as a level against the depth limit of
/// [`Config::variant`](super::Config::variant) (for recursive types; the encoder has
/// none, so a deeper value needs a higher limit to be read back).
///
/// One made with [`from_slice`](Self::from_slice) reads its settings as it runs
/// ([`Runtime`]); [`Config::from_slice`](super::Config::from_slice) reads the same
/// bytes the same way with the common settings compiled in (see [`Known`]).
///
/// ```
/// use serde::Deserialize;
/// let mut de = godot_bin::raw::Deserializer::from_slice(&[7, 0xFE, 0xFF], Default::default());
/// assert_eq!(<(u8, i16)>::deserialize(&mut de)?, (7, -2));
/// de.end()?;
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub struct Deserializer<'de, K = Runtime> {
    input: &'de [u8],
    pos: usize,
    /// Where the last item read started: the offset of an error a visitor returns.
    last: usize,
    cfg: Config,
    depth: usize,
    /// Inside a [`Half`](super::Half): the next float is binary16.
    half: bool,
    /// Input bytes that the items sequences announce ahead of reading them may still
    /// claim, one each (see `Items::size_hint`).
    room: Cell<usize>,
    known: PhantomData<K>,
}

/// Reads one `T` from the front of `bytes`, with the settings known at compile time
/// where they are common ones (each such choice compiles `T`'s deserialization once
/// more). With `used`, it is set to the bytes the value took; without, the value must
/// take them all.
#[inline]
pub(crate) fn deserialize<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    cfg: Config,
    used: Option<&mut usize>,
) -> Result<T> {
    match Choice::of(&cfg) {
        Choice::LittleNul => Deserializer::<LittleNul>::known(bytes, cfg).read(used),
        Choice::LittleUtf8 => Deserializer::<LittleUtf8>::known(bytes, cfg).read(used),
        Choice::Runtime => Deserializer::<Runtime>::known(bytes, cfg).read(used),
    }
}

impl<'de> Deserializer<'de> {
    /// Reads `input` from its start with `cfg`.
    pub fn from_slice(input: &'de [u8], cfg: Config) -> Self {
        Deserializer::known(input, cfg)
    }
}

impl<'de, K: Known> Deserializer<'de, K> {
    /// `cfg` must agree with what `K` knows.
    fn known(input: &'de [u8], cfg: Config) -> Self {
        debug_assert!(agrees::<K>(&cfg));
        Deserializer {
            input,
            pos: 0,
            last: 0,
            cfg,
            depth: 0,
            half: false,
            room: Cell::new(input.len()),
            known: PhantomData,
        }
    }

    /// One `T`: see [`deserialize`].
    #[inline]
    fn read<T: Deserialize<'de>>(mut self, used: Option<&mut usize>) -> Result<T> {
        match T::deserialize(&mut self) {
            Ok(value) => match used {
                Some(used) => {
                    *used = self.pos;
                    Ok(value)
                }
                None => self.end().map(|()| value),
            },
            Err(e) => Err(e.or_at(self.last)),
        }
    }

    /// Bytes consumed so far: after a value, its length.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Fails with `TrailingBytes` unless the input is used up.
    pub fn end(&self) -> Result<()> {
        if self.pos == self.input.len() {
            Ok(())
        } else {
            Err(Error::at(ErrorKind::TrailingBytes, self.pos))
        }
    }

    fn left(&self) -> usize {
        self.input.len() - self.pos
    }

    /// The next `n` bytes, borrowed.
    #[inline]
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'de [u8]> {
        self.last = self.pos;
        match self.input.get(self.pos..self.pos.wrapping_add(n)) {
            Some(b) if n <= self.left() => {
                self.pos += n;
                Ok(b)
            }
            _ => Err(Error::at(ErrorKind::Eof(what), self.pos)),
        }
    }

    #[inline]
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let b = self.take(N, what)?;
        Ok(b.try_into().unwrap_or([0; N]))
    }

    /// A `u32` length of `what` (strings, `put_var`), checked against the bytes left.
    fn len32(&mut self, what: &'static str) -> Result<usize> {
        let at = self.pos;
        let n = u32::read(self, what)? as usize;
        if n > self.left() {
            return Err(Error::at(
                ErrorKind::Truncated {
                    what,
                    count: n as u64,
                    left: self.left(),
                },
                at,
            ));
        }
        Ok(n)
    }

    /// A sequence's count in the configured width (`None`: to the end), checked
    /// against the bytes left: every item takes at least a byte.
    fn count(&mut self, what: &'static str) -> Result<Option<usize>> {
        let at = self.pos;
        let n = match self.cfg.count {
            Count::U8 => usize::from(u8::read(self, what)?),
            Count::U16 => usize::from(u16::read(self, what)?),
            Count::U32 => u32::read(self, what)? as usize,
            Count::Rest => return Ok(None),
        };
        if n > self.left() {
            return Err(Error::at(
                ErrorKind::Truncated {
                    what,
                    count: n as u64,
                    left: self.left(),
                },
                at,
            ));
        }
        Ok(Some(n))
    }

    fn string(&mut self) -> Result<Text<'de>> {
        let at = self.pos;
        let (bytes, start) = match K::strings(&self.cfg) {
            Strings::Nul => {
                if let Some(s) = crate::words::ascii_to_nul(&self.input[self.pos..]) {
                    self.take(s.len() + 1, "a string")?;
                    return Ok(Text::Borrowed(s));
                }
                let Some(n) = memchr::memchr(0, &self.input[self.pos..]) else {
                    return Err(Error::at(ErrorKind::Eof("the NUL that ends a string"), at));
                };
                let b = self.take(n + 1, "a string")?;
                (&b[..n], at)
            }
            style => {
                let n = self.len32("a string length")?;
                let b = self.take(n, "a string")?;
                // The engines' readers stop at a NUL (the length still counts it all).
                let b = memchr::memchr(0, b).map_or(b, |nul| &b[..nul]);
                if style != Strings::Utf8 && !b.is_ascii() {
                    // One byte per character: Latin-1, what `put_string` wrote.
                    return Ok(Text::Owned(b.iter().map(|&c| char::from(c)).collect()));
                }
                (b, at + 4)
            }
        };
        if let Some(s) = crate::words::short_ascii(bytes) {
            return Ok(Text::Borrowed(s));
        }
        // The engines' UTF-8 readers drop a leading BOM (the writer doubles one).
        let (bytes, start) = match bytes.strip_prefix("\u{FEFF}".as_bytes()) {
            Some(rest) if K::strings(&self.cfg).is_utf8() => (rest, start + 3),
            _ => (bytes, start),
        };
        std::str::from_utf8(bytes)
            .map(Text::Borrowed)
            .map_err(|e| Error::at(ErrorKind::InvalidUtf8, start + e.valid_up_to()))
    }

    fn tag(&mut self) -> Result<u32> {
        Ok(match K::tag(&self.cfg) {
            Width::U8 => u8::read(self, "a variant id")?.into(),
            Width::U16 => u16::read(self, "a variant id")?.into(),
            Width::U32 => u32::read(self, "a variant id")?,
        })
    }

    #[inline]
    fn nest(&mut self) -> Result<()> {
        if self.depth >= self.cfg.variant.max_depth {
            return Err(Error::at(
                ErrorKind::DepthLimit(self.cfg.variant.max_depth),
                self.pos,
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Fields of a tuple or a struct.
    fn fields<V: Visitor<'de>>(&mut self, n: usize, visitor: V) -> Result<V::Value> {
        self.nest()?;
        let r = visitor.visit_seq(Items {
            de: self,
            left: Some(n),
            counted: false,
        });
        self.depth -= 1;
        r
    }

    /// A sequence or a map after its count (`None`: to the end, and then only this
    /// outermost one: what it holds is counted again).
    fn counted<V: Visitor<'de>>(
        &mut self,
        n: Option<usize>,
        map: bool,
        visitor: V,
    ) -> Result<V::Value> {
        self.nest()?;
        let saved = self.cfg.count;
        if n.is_none() {
            self.cfg.count = Count::U32;
        }
        let items = Items {
            de: self,
            left: n,
            counted: true,
        };
        let r = if map {
            visitor.visit_map(items)
        } else {
            visitor.visit_seq(items)
        };
        self.cfg.count = saved;
        self.depth -= 1;
        r
    }

    /// A math value: `n` floats, read at once and handed to the math types' visitor
    /// as their little-endian bytes.
    #[inline]
    fn floats<V: Visitor<'de>>(&mut self, n: usize, visitor: V) -> Result<V::Value> {
        let at = self.pos;
        let bytes = self.take(4 * n, "a math value's floats")?;
        match K::endian(&self.cfg) {
            Endian::Little => visitor.visit_borrowed_bytes(bytes),
            Endian::Big => swapped(bytes, visitor),
        }
        .map_err(|e| e.or_at(at))
    }

    /// A one-byte flag, 0 or 1.
    #[inline]
    fn flag(&mut self, what: &'static str) -> Result<bool> {
        let at = self.pos;
        match u8::read(self, what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(not_a_flag(b, what, at)),
        }
    }

    /// Deserializes with `change` applied to the settings, through a [`Runtime`]
    /// deserializer that goes on from here.
    fn with<V: Visitor<'de>>(
        &mut self,
        change: impl FnOnce(&mut Config),
        visitor: V,
    ) -> Result<V::Value> {
        let mut cfg = self.cfg;
        change(&mut cfg);
        let mut runtime = Deserializer::<Runtime> {
            input: self.input,
            pos: self.pos,
            last: self.last,
            cfg,
            depth: self.depth,
            half: self.half,
            room: self.room.clone(),
            known: PhantomData,
        };
        let r = visitor.visit_newtype_struct(&mut runtime);
        self.pos = runtime.pos;
        self.last = runtime.last;
        self.half = runtime.half;
        self.room.set(runtime.room.get());
        r
    }

    /// `put_var`: a `u32` length, then a Variant of exactly that many bytes.
    fn var<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let n = self.len32("a put_var length")?;
        let base = self.pos;
        let bytes = self.take(n, "a put_var value")?;
        let mut inner = crate::Deserializer::with_config(SliceRead::new(bytes), self.cfg.variant);
        let value = visitor
            .visit_newtype_struct(&mut inner)
            .map_err(|e| e.or_at(inner.byte_offset()).shifted(base))?;
        inner.end().map_err(|e| e.shifted(base))?;
        Ok(value)
    }
}

/// A decoded string: borrowed when the bytes are its UTF-8.
enum Text<'de> {
    Borrowed(&'de str),
    Owned(String),
}

/// A number in the configured byte order.
trait Number: Sized {
    fn read<K: Known>(de: &mut Deserializer<'_, K>, what: &'static str) -> Result<Self>;
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn read<K: Known>(de: &mut Deserializer<'_, K>, what: &'static str) -> Result<Self> {
                let b = de.array(what)?;
                Ok(match K::endian(&de.cfg) {
                    Endian::Little => <$t>::from_le_bytes(b),
                    Endian::Big => <$t>::from_be_bytes(b),
                })
            }
        }
    )*};
}
number!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

#[cold]
fn not_a_flag(b: u8, what: &str, at: usize) -> Error {
    Error::at(
        ErrorKind::InvalidValue {
            found: format!("byte {b}"),
            expected: format!("{what} (0 or 1)"),
        },
        at,
    )
}

#[cold]
fn not_self_describing() -> Error {
    Error::new(ErrorKind::Message(
        "the raw layout is not self-describing: the Rust type must say what comes next".into(),
    ))
}

macro_rules! numbers {
    ($($m:ident: $t:ty => $visit:ident, $what:literal;)*) => {$(
        #[inline]
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.$visit(<$t>::read(self, $what)?)
        }
    )*};
}

impl<'de, K: Known> de::Deserializer<'de> for &mut Deserializer<'de, K> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(not_self_describing().or_at(self.pos))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(not_self_describing().or_at(self.pos))
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_bool(self.flag("a bool")?)
    }

    numbers! {
        deserialize_i8: i8 => visit_i8, "an i8";
        deserialize_i16: i16 => visit_i16, "an i16";
        deserialize_i32: i32 => visit_i32, "an i32";
        deserialize_i64: i64 => visit_i64, "an i64";
        deserialize_u8: u8 => visit_u8, "a u8";
        deserialize_u16: u16 => visit_u16, "a u16";
        deserialize_u32: u32 => visit_u32, "a u32";
        deserialize_u64: u64 => visit_u64, "a u64";
    }

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if std::mem::take(&mut self.half) {
            let bits = u16::read(self, "a half float")?;
            return visitor.visit_f32(super::half::widen(bits));
        }
        visitor.visit_f32(f32::read(self, "a float")?)
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.half {
            return self.deserialize_f32(visitor);
        }
        visitor.visit_f64(f64::read(self, "a double")?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.pos;
        let code = u32::read(self, "a char")?;
        match char::from_u32(code) {
            Some(c) => visitor.visit_char(c),
            None => Err(Error::at(
                ErrorKind::InvalidValue {
                    found: format!("code point {code:#x}"),
                    expected: "a char".into(),
                },
                at,
            )),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.string()? {
            Text::Borrowed(s) => visitor.visit_borrowed_str(s),
            Text::Owned(s) => visitor.visit_string(s),
        }
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = match self.count("a byte string")? {
            Some(n) => n,
            None => self.left(),
        };
        visitor.visit_borrowed_bytes(self.take(n, "a byte string")?)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.flag("an Option's presence flag")? {
            self.nest()?;
            let at = self.pos;
            let r = visitor.visit_some(&mut *self).map_err(|e| e.or_at(at));
            self.depth -= 1;
            r
        } else {
            visitor.visit_none()
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match Marker::lookup(name) {
            None => visitor.visit_newtype_struct(self),
            Some(Marker::Strings(s)) => self.with(|c| c.strings = s, visitor),
            Some(Marker::Count(n)) => self.with(|c| c.count = n, visitor),
            Some(Marker::Tag(w)) => self.with(|c| c.tag = w, visitor),
            Some(Marker::Half) => {
                self.half = true;
                let r = visitor.visit_newtype_struct(&mut *self);
                self.half = false;
                r
            }
            Some(Marker::Var) => self.var(visitor),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.count("a sequence count")?;
        self.counted(n, false, visitor)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.fields(len, visitor)
    }

    /// Inlined so that the marker lookup of a constant name folds: a Godot math type
    /// reads its floats in one piece.
    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        match crate::marker::Marker::lookup(name) {
            Some(crate::marker::Marker::Type(ty)) => match ty.layout() {
                Layout::Reals(n) | Layout::F32s(n) => self.floats(n, visitor),
                _ => self.fields(len, visitor),
            },
            _ => self.fields(len, visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.count("a map count")?;
        self.counted(n, true, visitor)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.fields(fields.len(), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.pos;
        let id = self.tag()?;
        let Some(index) = variant_index(id, variants) else {
            let ids = ids(variants);
            let expected = if ids.split(", ").filter(|i| *i == id.to_string()).count() > 1 {
                format!("one variant of {name} with it, not two (ids {ids})")
            } else {
                format!("an id of {name} ({ids})")
            };
            return Err(Error::at(
                ErrorKind::InvalidValue {
                    found: format!("variant id {id}"),
                    expected,
                },
                at,
            ));
        };
        // A depth error belongs to the enum, at its id.
        self.nest()
            .map_err(|_| Error::at(ErrorKind::DepthLimit(self.cfg.variant.max_depth), at))?;
        let r = visitor.visit_enum(Enum { de: self, index });
        self.depth -= 1;
        r
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(not_self_describing().or_at(self.pos))
    }
}

/// The position of the variant with wire id `id`: the one named by that number, else
/// the one at that index unless it is named by a number.
#[inline]
fn variant_index(id: u32, variants: &'static [&'static str]) -> Option<u32> {
    if !has_numbered(variants) {
        return ((id as usize) < variants.len()).then_some(id);
    }
    numbered_index(id, variants)
}

/// [`variant_index`] for an enum with variants named by numbers.
#[inline(never)]
fn numbered_index(id: u32, variants: &'static [&'static str]) -> Option<u32> {
    // Two variants with this id (one named by it, one at this index): ambiguous.
    let named = variants.iter().position(|v| numeric(v) == Some(id));
    let indexed = variants.get(id as usize).filter(|v| numeric(v).is_none());
    if named.is_some() && indexed.is_some() {
        return None;
    }
    if let Some(i) = named {
        return Some(i as u32);
    }
    indexed.map(|_| id)
}

/// Whether any variant is named by a number. serde passes an enum's same static list
/// every time: the answer for the last list is kept, so a stream of packets of one
/// enum checks its names once.
#[inline]
fn has_numbered(variants: &'static [&'static str]) -> bool {
    thread_local! {
        static LAST: std::cell::Cell<(usize, usize, bool)> = const { std::cell::Cell::new((0, 0, false)) };
    }
    let (ptr, len) = (variants.as_ptr() as usize, variants.len());
    LAST.with(|last| {
        let (p, l, numbered) = last.get();
        if (p, l) == (ptr, len) {
            return numbered;
        }
        let numbered = any_numbered(variants);
        last.set((ptr, len, numbered));
        numbered
    })
}

#[inline(never)]
fn any_numbered(variants: &[&str]) -> bool {
    variants
        .iter()
        .any(|v| v.as_bytes().first().is_some_and(u8::is_ascii_digit))
}

/// The ids of an enum, for an error message.
fn ids(variants: &[&str]) -> String {
    let ids: Vec<String> = variants
        .iter()
        .enumerate()
        .map(|(i, v)| super::marker::variant_id(i as u32, v).to_string())
        .collect();
    ids.join(", ")
}

/// Big-endian floats (at most a Projection's 16) to the visitor as little-endian
/// bytes; out of line, as the little-endian path does not need its buffer.
#[inline(never)]
fn swapped<'de, V: Visitor<'de>>(bytes: &[u8], visitor: V) -> Result<V::Value> {
    let mut buf = [0u8; 64];
    let buf = &mut buf[..bytes.len()];
    for (to, from) in buf.chunks_exact_mut(4).zip(bytes.chunks_exact(4)) {
        to.copy_from_slice(&[from[3], from[2], from[1], from[0]]);
    }
    visitor.visit_bytes(buf)
}

/// Every item of a sequence (and key of a map) takes a byte: a count of zero-byte items
/// would cost time without input, and `Rest` would never end.
#[cold]
fn no_bytes(at: usize) -> Error {
    Error::at(
        ErrorKind::Message("an item of a sequence or map that takes no bytes".into()),
        at,
    )
}

/// Items that follow each other: `left` of them, or (`None`) up to the end.
struct Items<'a, 'de, K> {
    de: &'a mut Deserializer<'de, K>,
    left: Option<usize>,
    /// The items of a sequence or map (not the fields of a tuple or struct): each must
    /// take at least a byte, which bounds their number by the input's size.
    counted: bool,
}

impl<K> Items<'_, '_, K> {
    /// Whether another item comes.
    #[inline]
    fn more(&mut self) -> bool {
        match &mut self.left {
            Some(0) => false,
            Some(n) => {
                *n -= 1;
                true
            }
            None => self.de.pos < self.de.input.len(),
        }
    }
}

impl<'de, K: Known> Items<'_, 'de, K> {
    /// The next item (or map key), at its offset; one of a sequence or map must take a
    /// byte.
    #[inline]
    fn next<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.more() {
            return Ok(None);
        }
        let at = self.de.pos;
        let item = seed.deserialize(&mut *self.de).map_err(|e| e.or_at(at))?;
        if self.counted && self.de.pos == at {
            return Err(no_bytes(at));
        }
        Ok(Some(item))
    }
}

impl<'de, K: Known> Items<'_, 'de, K> {
    /// How many of the items left to announce to a visitor (which reserves room for
    /// them): of a counted sequence, as many as the input bytes not yet claimed by an
    /// enclosing one's announcement can hold, each item taking at least a byte. So
    /// nested sequences, each of whose counts the bytes left allow, reserve no more in
    /// all than the input could fill; a well-formed input gets its real counts.
    fn hint(&self) -> Option<usize> {
        let left = self.left?;
        if !self.counted {
            return Some(left);
        }
        let room = self.de.room.get();
        let n = left.min(room);
        self.de.room.set(room - n);
        Some(n)
    }
}

impl<'de, K: Known> de::SeqAccess<'de> for Items<'_, 'de, K> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.next(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.hint()
    }
}

impl<'de, K: Known> de::MapAccess<'de> for Items<'_, 'de, K> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        self.next(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let at = self.de.pos;
        seed.deserialize(&mut *self.de).map_err(|e| e.or_at(at))
    }

    fn size_hint(&self) -> Option<usize> {
        self.hint()
    }
}

/// An enum whose variant is known; its fields follow.
struct Enum<'a, 'de, K> {
    de: &'a mut Deserializer<'de, K>,
    index: u32,
}

impl<'de, K: Known> de::EnumAccess<'de> for Enum<'_, 'de, K> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let d: de::value::U32Deserializer<Error> = self.index.into_deserializer();
        Ok((seed.deserialize(d)?, self))
    }
}

impl<'de, K: Known> de::VariantAccess<'de> for Enum<'_, 'de, K> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let at = self.de.pos;
        seed.deserialize(&mut *self.de).map_err(|e| e.or_at(at))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items {
            de: self.de,
            left: Some(len),
            counted: false,
        })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(Items {
            de: self.de,
            left: Some(fields.len()),
            counted: false,
        })
    }
}
