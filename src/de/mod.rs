//! Serde `Deserializer` reading Godot Variant bytes.

mod access;
mod fixed;
pub(crate) mod in_order;
mod keys;
pub mod read;
#[cfg(test)]
mod tests;
mod variant;

use std::cell::Cell;

use serde::de::{self, Visitor};

use crate::config::Config;
use crate::dialect::{
    Dialect, VariantType, BOOL_ID, FLAG_64, FLOAT_ID, INT_ID, STRING_ID, TYPE_MASK,
};
use crate::error::{Error, ErrorKind, Result};
use crate::marker::Marker;
use crate::table::{Layout, PoolElem};
use crate::words::{is_key, is_short_key, le, short_ascii, BOM};

pub(crate) use access::ContainerType;
use access::{DictEnum, ObjectAccess, SeqAccess, StrSeq, StructAccess, VariantEnum};
pub use in_order::Trust;
pub use read::{IoRead, Read, Reference, SliceRead};

/// The longest count or string length: Godot reads them as signed 32-bit.
const MAX_LEN: u32 = 0x7FFF_FFFF;

#[cfg(test)]
thread_local! {
    /// Unit tests: everything read the general way, the reference for the fast paths.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the fast paths (`plain`, `variant::read_directly`) may be taken: always,
/// but in the unit tests that hold them to the general way.
#[inline(always)]
fn fast_paths() -> bool {
    #[cfg(test)]
    if GENERAL_ONLY.with(|g| g.get()) {
        return false;
    }
    true
}

/// Runs `f` with the fast paths off (`general`) or on.
#[cfg(test)]
fn with_fast_paths<T>(general: bool, f: impl FnOnce() -> T) -> T {
    GENERAL_ONLY.with(|g| g.set(general));
    let r = f();
    GENERAL_ONLY.with(|g| g.set(false));
    r
}

/// A decoded header word: the type and the raw word (for its flag bits).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Header {
    pub(crate) ty: VariantType,
    pub(crate) raw: u32,
    /// Offset of the header in the input.
    pub(crate) at: usize,
}

impl Header {
    fn is_64(self) -> bool {
        self.raw & FLAG_64 != 0
    }
}

/// Deserializes Godot Variant bytes into Rust values.
///
/// ```
/// use serde::Deserialize;
/// let bytes = [2, 0, 0, 0, 5, 0, 0, 0, 0xff];
/// let mut de = godot_bin::Deserializer::from_slice(&bytes);
/// let v = i32::deserialize(&mut de)?;
/// assert_eq!((v, de.byte_offset()), (5, 8));
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub struct Deserializer<R> {
    read: R,
    cfg: Config,
    /// Containers currently open around the value being read.
    depth: usize,
    /// A header already read on behalf of the next value (option checks, `Variant`).
    pending: Option<Header>,
    /// The declared element (key, value) types of the typed container being opened,
    /// kept for `items` when typed containers are strict.
    declared: [Option<access::Declared>; 2],
    scratch: Vec<u8>,
    /// Input bytes that the items containers announce ahead of reading them may
    /// still claim (see [`Deserializer::hint`]).
    room: Cell<usize>,
    /// The field list and keys of the struct read last, and whether they are not to
    /// be read on trust (`keys::Known`).
    keys: Option<keys::Known>,
    /// Whether derived structs whose keys come in field order may be read as
    /// sequences on trust (`in_order.rs`): only when the caller reads the value again
    /// after `retry` is set.
    on_trust: bool,
    /// Reading a struct on trust gave up (a key out of order, entries left, an
    /// error): the value read is not to be used, the caller reads it again without
    /// trust.
    retry: bool,
    /// The `type_name` of the struct visitor seen last (by address), and whether it is
    /// one serde's derive writes (`in_order::derived`).
    derived: (usize, bool),
}

impl<'de> Deserializer<SliceRead<'de>> {
    /// Reads a Godot 3 value from a slice, borrowing strings and bytes from it.
    pub fn from_slice(bytes: &'de [u8]) -> Self {
        Deserializer::with_config(SliceRead::new(bytes), Config::default())
    }

    /// Lets this deserializer read a derived struct whose Dictionary holds its keys in
    /// field order as a sequence, on trust, as `from_slice` does (faster: no field
    /// names matched by serde's field visitor). A key found out of order, or any error
    /// met on trust, stops the reading with [`gave_up`](Self::gave_up) set: whatever
    /// the value's `deserialize` returned is then not to be used, and the caller reads
    /// the value again from the start with a deserializer that does not trust. The
    /// leave, a [`Trust`], goes only to the outermost decode on a
    /// thread, so that decodes nested in a value cannot double the work per level.
    ///
    /// ```
    /// use godot_bin::de::Trust;
    /// use godot_bin::{Deserializer, Dictionary, Variant};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
    /// struct Move { x: f32, y: f32 }
    ///
    /// fn read(bytes: &[u8]) -> godot_bin::Result<Move> {
    ///     // Held until the value is read, the second time included.
    ///     let trust = Trust::outermost();
    ///     let mut de = Deserializer::from_slice(bytes);
    ///     if let Some(trust) = &trust {
    ///         de = de.on_trust(trust);
    ///     }
    ///     let first = Move::deserialize(&mut de);
    ///     if !de.gave_up() {
    ///         return first;
    ///     }
    ///     Move::deserialize(&mut Deserializer::from_slice(bytes))
    /// }
    /// let in_order = godot_bin::to_vec(&Move { x: 1.0, y: 2.0 })?;
    /// assert_eq!(read(&in_order)?, Move { x: 1.0, y: 2.0 });
    /// // The same Dictionary with its keys the other way round: read again.
    /// let mut swapped = Dictionary::new();
    /// swapped.insert(Variant::from("y"), Variant::from(2.0));
    /// swapped.insert(Variant::from("x"), Variant::from(1.0));
    /// assert_eq!(read(&godot_bin::to_vec(&swapped)?)?, Move { x: 1.0, y: 2.0 });
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn on_trust(mut self, _leave: &in_order::Trust) -> Self {
        self.on_trust = true;
        self
    }
}

impl<R> Deserializer<R> {
    /// Whether reading on trust ([`on_trust`](Deserializer::on_trust)) gave up: the
    /// value is to be read again without trust.
    pub fn gave_up(&self) -> bool {
        self.retry
    }
}

impl<R: std::io::Read> Deserializer<IoRead<R>> {
    /// Reads a Godot 3 value from an `io::Read`.
    pub fn from_reader(reader: R) -> Self {
        Deserializer::with_config(IoRead::new(reader), Config::default())
    }
}

impl<'de, R: Read<'de>> Deserializer<R> {
    /// Reads from `read` with the given settings.
    pub fn with_config(mut read: R, cfg: Config) -> Self {
        read.set_limit(cfg.max_bytes);
        Deserializer {
            cfg,
            depth: 0,
            pending: None,
            declared: [None, None],
            scratch: Vec::new(),
            room: Cell::new(read.remaining().unwrap_or(0)),
            keys: None,
            derived: (0, false),
            on_trust: false,
            retry: false,
            read,
        }
    }

    /// How many of a container's `left` items, each taking at least `min` input
    /// bytes, to announce to its visitor (which reserves room for them). From a
    /// slice: as many as the bytes not yet claimed by an enclosing container's
    /// announcement can hold, so that nested containers, each of whose counts the
    /// bytes left allow, reserve no more in all than the input could fill (a well-formed
    /// input always gets its real counts: every item's own bytes are claimed once).
    /// From a stream: a few, and collections grow as items really arrive.
    pub(crate) fn hint(&self, left: usize, min: usize) -> usize {
        if self.read.remaining().is_none() {
            return left.min(16);
        }
        let room = self.room.get();
        let n = left.min(room / min);
        self.room.set(room - n * min);
        n
    }

    /// How many bytes have been consumed: after a value, its encoded length.
    pub fn byte_offset(&self) -> usize {
        self.read.pos()
    }

    /// Fails unless the input is exhausted (what `from_slice` checks after its value).
    pub fn end(&mut self) -> Result<()> {
        let at = self.read.pos();
        if self.read.at_end()? {
            Ok(())
        } else {
            Err(Error::at(ErrorKind::TrailingBytes, at))
        }
    }

    /// The settings it reads with.
    pub(crate) fn config(&self) -> Config {
        self.cfg
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.read
    }

    fn value_start(&self) -> usize {
        self.pending.map_or(self.read.pos(), |h| h.at)
    }

    #[inline]
    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32> {
        let mut b = [0; 4];
        self.read.read_exact(&mut b, what)?;
        Ok(u32::from_le_bytes(b))
    }

    #[inline]
    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64> {
        let mut b = [0; 8];
        self.read.read_exact(&mut b, what)?;
        Ok(u64::from_le_bytes(b))
    }

    #[inline]
    pub(crate) fn header(&mut self) -> Result<Header> {
        if let Some(h) = self.pending.take() {
            return Ok(h);
        }
        let at = self.read.pos();
        let raw = self.u32("a Variant header")?;
        let ty = self
            .cfg
            .dialect
            .type_of(raw & TYPE_MASK)
            .ok_or_else(|| self.unknown_type(raw & TYPE_MASK, at))?;
        Ok(Header { ty, raw, at })
    }

    #[cold]
    fn unknown_type(&self, id: u32, at: usize) -> Error {
        Error::at(
            ErrorKind::UnknownType {
                id,
                dialect: self.cfg.dialect,
            },
            at,
        )
    }

    pub(crate) fn peek(&mut self) -> Result<Header> {
        let h = self.header()?;
        self.pending = Some(h);
        Ok(h)
    }

    /// A count that bounds how many items follow; each takes at least `min_size` bytes,
    /// so a count the input cannot hold is refused before anything is allocated.
    pub(crate) fn count(
        &mut self,
        what: &'static str,
        min_size: usize,
        mask: u32,
    ) -> Result<usize> {
        let at = self.read.pos();
        let raw = self.u32(what)?;
        let n = (raw & mask) as usize;
        if raw & mask > MAX_LEN {
            return Err(Error::at(
                ErrorKind::InvalidLength {
                    len: raw.into(),
                    what,
                },
                at,
            ));
        }
        if let Some(left) = self.read.remaining() {
            // More items than the bytes left can hold: the input ends inside them.
            if n.saturating_mul(min_size) > left {
                return Err(self.read.truncated(what, n, left, at));
            }
        }
        Ok(n)
    }

    pub(crate) fn int(&mut self, h: Header) -> Result<i64> {
        if h.is_64() {
            Ok(self.u64("a 64-bit int")? as i64)
        } else {
            Ok(self.u32("an int")? as i32 as i64)
        }
    }

    /// A Godot string: length, bytes, padding. Like the engine, it ends at the first
    /// NUL and drops a leading BOM; invalid UTF-8 is an error.
    pub(crate) fn str<'s>(&'s mut self) -> Result<Str<'de, 's>> {
        let at = self.read.pos();
        let len = self.u32("a string length")?;
        if len > MAX_LEN {
            return Err(Error::at(
                ErrorKind::InvalidLength {
                    len: len.into(),
                    what: "a string",
                },
                at,
            ));
        }
        self.str_body(at, len as usize)
    }

    /// A string's bytes and padding, after its length `len` (at most `MAX_LEN`) at `at`.
    #[inline]
    fn str_body<'s>(&'s mut self, at: usize, len: usize) -> Result<Str<'de, 's>> {
        let padded = (len + 3) & !3;
        Ok(
            match self.read.read_bytes(
                padded,
                padded,
                &mut self.scratch,
                "a string and its padding",
            )? {
                Reference::Borrowed(b) => Str::Borrowed(godot_utf8(&b[..len], at)?),
                Reference::Copied(b) => Str::Copied(godot_utf8(&b[..len], at)?),
            },
        )
    }

    pub(crate) fn visit_str<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let s = self.str()?;
        visit(s, visitor)
    }

    /// The header and 32-bit payload of a plain value of wire id `id` (no flags) when
    /// `payload` takes it, read as one word when the input has it at hand and nothing
    /// was peeked; `None` leaves the input as it was, for the general way.
    #[inline]
    fn word_of(&mut self, id: u32, payload: impl FnOnce(u32) -> bool) -> Option<(usize, u32)> {
        let (at, b) = self.plain(id, 4, |b| payload(u32::from_le_bytes(le(b))))?;
        Some((at, u32::from_le_bytes(le(b))))
    }

    /// Most strings: a plain String header and its length read as one word, then the
    /// text; with the header's offset. Always inlined: out of line, the returned pair
    /// cost 2% of a decode (callgrind).
    #[inline(always)]
    fn plain_str<'s>(&'s mut self) -> Option<(usize, Result<Str<'de, 's>>)> {
        let (at, len) = self.word_of(STRING_ID, |len| len <= MAX_LEN)?;
        Some((at, self.str_body(at + 4, len as usize)))
    }

    /// The bytes the next key takes when it is a plain String of exactly `name`. Such
    /// a key needs no reading as text: its bytes were compared with the name's. `None`
    /// leaves the input as it was.
    #[inline]
    fn field_key(&mut self, name: &str) -> Option<usize> {
        if self.pending.is_some() || !fast_paths() {
            return None;
        }
        let len = name.len();
        let rest = self.read.ahead();
        let head = (STRING_ID as u64 | (len as u64) << 32).to_le_bytes();
        let same = match rest.get(..24) {
            Some(b) if len <= 16 => b[..8] == head && is_short_key(&le(&b[8..]), name.as_bytes()),
            _ => {
                let size = len.checked_add(3)? & !3;
                let key = rest.get(8..)?.get(..size)?;
                rest[..8] == head && is_key(&key[..len], name.as_bytes())
            }
        };
        same.then_some(8 + ((len + 3) & !3))
    }

    /// [`Self::field_key`] by the name's word form, when it has one and the input has
    /// 24 bytes at hand.
    #[inline]
    fn struct_key(&mut self, key: &keys::Key) -> Option<usize> {
        if self.pending.is_some() || !fast_paths() {
            return None;
        }
        match self.read.ahead().get(..24) {
            Some(b) if key.has_words() => key.find(&le(b)),
            _ => self.field_key(key.name),
        }
    }

    /// Whether `visitor` is a struct visitor serde's derive writes: kept for the visitor
    /// type read last, and on the thread for a few (`in_order::derived_known`).
    #[inline]
    fn derived<V: Visitor<'de>>(&mut self, visitor: &V) -> bool {
        let name = std::any::type_name::<V>();
        if name.as_ptr() as usize != self.derived.0 {
            self.derived = (
                name.as_ptr() as usize,
                in_order::derived_known(name, visitor),
            );
        }
        self.derived.1
    }

    /// Which of a struct's fields the next key is, when it is a plain String of exactly
    /// that name, with the bytes it takes: for keys out of the expected order.
    #[cold]
    fn any_field_key(&mut self, keys: &[keys::Key]) -> Option<(usize, &'static str, usize)> {
        keys.iter()
            .enumerate()
            .find_map(|(i, key)| Some((i, key.name, self.field_key(key.name)?)))
    }

    /// The offset and `n` payload bytes of a plain value of wire id `id` (no flags)
    /// when `payload` takes them, read with the header at once when the input has them
    /// at hand and nothing was peeked; `None` leaves the input as it was.
    #[inline]
    fn plain(
        &mut self,
        id: u32,
        n: usize,
        payload: impl FnOnce(&[u8]) -> bool,
    ) -> Option<(usize, &'de [u8])> {
        if self.pending.is_some() || !fast_paths() {
            return None;
        }
        let at = self.read.pos();
        let b = self.read.take_if(4 + n, |b| {
            u32::from_le_bytes(le(&b[..4])) == id && payload(&b[4..])
        })?;
        Some((at, &b[4..]))
    }

    pub(crate) fn bytes<'s>(
        &'s mut self,
        n: usize,
        what: &'static str,
    ) -> Result<Reference<'de, 's>> {
        self.read.read_bytes(n, n, &mut self.scratch, what)
    }

    fn pool_bytes<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let n = self.count("a PoolByteArray count", 1, u32::MAX)?;
        let padded = (n + 3) & !3;
        let at = self.read.pos();
        // Short, the error is the one of reading the bytes one by one, then the padding.
        let read = self
            .read
            .read_bytes(padded, 1, &mut self.scratch, "pool array elements");
        if let Err(e) = &read {
            if e.is_eof() && e.offset() >= Some(at + n) {
                return Err(Error::at(ErrorKind::Eof("PoolByteArray padding"), at + n));
            }
        }
        match read? {
            Reference::Borrowed(b) => visitor.visit_borrowed_bytes(&b[..n]),
            Reference::Copied(b) => visitor.visit_bytes(&b[..n]),
        }
    }

    /// Reads the `count` items of a container one level deeper, with `f`; deeper than
    /// the limit is an error (Godot's rule: values may sit at most `max_depth`
    /// containers deep). The depth is restored however `f` ends.
    pub(crate) fn nested<T>(
        &mut self,
        count: usize,
        at: usize,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if count > 0 && self.depth >= self.cfg.max_depth {
            return Err(Error::at(ErrorKind::DepthLimit(self.cfg.max_depth), at));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// The element type of a Godot 4.3+ typed container, after its header.
    pub(crate) fn container_type(&mut self, kind: u32) -> Result<ContainerType> {
        Ok(match kind {
            0 => ContainerType::default(),
            1 => {
                let at = self.read.pos();
                let id = self.u32("a typed container's element type")?;
                let ty = self
                    .cfg
                    .dialect
                    .type_of(id)
                    .ok_or_else(|| self.unknown_type(id, at))?;
                if ty == VariantType::Nil {
                    // The engine reads `Array[Nil]` as an untyped Array.
                    return Ok(ContainerType::default());
                }
                if ty == VariantType::Object && !self.cfg.allow_objects {
                    // As for a class: without objects the engine holds ids.
                    return Ok(ContainerType {
                        kind: 2,
                        name: "EncodedObjectAsID".into(),
                    });
                }
                ContainerType {
                    kind,
                    name: ty.name_in(Dialect::Godot4).into(),
                }
            }
            _ => {
                let name = self.str()?.to_owned();
                if self.cfg.allow_objects {
                    ContainerType { kind, name }
                } else {
                    // Without objects the engine holds ids, and types the container so.
                    ContainerType {
                        kind: 2,
                        name: "EncodedObjectAsID".into(),
                    }
                }
            }
        })
    }

    /// Type info of an Array (one) or Dictionary (two) header; Godot 4 only.
    pub(crate) fn container_types(&mut self, h: Header) -> Result<[ContainerType; 2]> {
        if self.cfg.dialect != Dialect::Godot4 {
            return Ok(Default::default());
        }
        let first = self.container_type((h.raw >> 16) & 3)?;
        let second = if h.ty == VariantType::Dictionary {
            self.container_type((h.raw >> 18) & 3)?
        } else {
            ContainerType::default()
        };
        if self.cfg.strict_typed_containers {
            self.declared = [access::Declared::of(&first), access::Declared::of(&second)];
        }
        Ok([first, second])
    }

    fn seq<V: Visitor<'de>>(&mut self, h: Header, visitor: V) -> Result<V::Value> {
        self.container_types(h)?;
        self.items(h, visitor)
    }

    /// The count and elements of an Array or Dictionary whose type info was read.
    pub(crate) fn items<V: Visitor<'de>>(&mut self, h: Header, visitor: V) -> Result<V::Value> {
        // Bit 31 was Godot 2's "shared" flag; later versions ignore it.
        let dict = h.ty == VariantType::Dictionary;
        let n = if dict {
            self.count("a Dictionary count", 8, MAX_LEN)?
        } else {
            self.count("an Array count", 4, MAX_LEN)?
        };
        let declared = std::mem::take(&mut self.declared);
        self.nested(n, h.at, |de| {
            let mut access = SeqAccess::new(de, n).declared(declared);
            let v = if dict {
                visitor.visit_map(&mut access)?
            } else {
                visitor.visit_seq(&mut access)?
            };
            access.finish()?;
            Ok(v)
        })
    }

    /// Whether a math value or pool array carries 64-bit reals (Godot 4 double builds).
    fn wide(&self, h: Header) -> bool {
        self.cfg.dialect == Dialect::Godot4 && h.is_64() && h.ty.has_reals()
    }

    /// A pool array; a byte array goes to `visit_bytes` unless asked for element by
    /// element (`Vec<u8>` without `serde_bytes` wants a sequence).
    fn pool<V: Visitor<'de>>(
        &mut self,
        h: Header,
        elem: PoolElem,
        visitor: V,
        seq_bytes: bool,
    ) -> Result<V::Value> {
        if elem == PoolElem::Byte && !seq_bytes {
            return self.pool_bytes(visitor);
        }
        let wide = self.wide(h);
        let n = self.count("a pool array count", elem.min_size(wide), u32::MAX)?;
        if elem == PoolElem::String {
            let mut access = StrSeq::new(self, n);
            let v = visitor.visit_seq(&mut access)?;
            access.finish()?;
            return Ok(v);
        }
        let v = self.items_of(elem, wide, n, "pool array elements", visitor)?;
        if elem == PoolElem::Byte {
            self.bytes((4 - n % 4) % 4, "PoolByteArray padding")?;
        }
        Ok(v)
    }

    /// A PoolStringArray's count and strings, as a `Vec<String>`: what reading them
    /// into one through serde gives, errors and their offsets included.
    fn owned_strs(&mut self) -> Result<Vec<String>> {
        self.pool_strs(|s, _| Ok(s.to_owned()))
    }

    /// [`Self::owned_strs`] borrowed from the input, for an input that lends its
    /// strings (a string copied out is an error here).
    fn borrowed_strs(&mut self) -> Result<Vec<&'de str>> {
        self.pool_strs(|s, at| match s {
            Str::Borrowed(s) => Ok(s),
            Str::Copied(_) => Err(Error::at(
                ErrorKind::Message("a string copied out where a borrowed one was expected".into()),
                at,
            )),
        })
    }

    /// A PoolStringArray's count, then each string (and where it starts) as `take`
    /// keeps it.
    #[inline]
    fn pool_strs<T>(
        &mut self,
        mut take: impl FnMut(Str<'de, '_>, usize) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.count(
            "a pool array count",
            PoolElem::String.min_size(false),
            u32::MAX,
        )?;
        // serde's own cap on room reserved for a count from the input: 1 MiB.
        let mut v = Vec::with_capacity(n.min((1 << 20) / std::mem::size_of::<T>().max(1)));
        for _ in 0..n {
            let at = self.read.pos();
            let s = self.str()?;
            v.push(take(s, at)?);
        }
        Ok(v)
    }

    /// Fixed-size payloads read as a sequence: math types, integer vectors.
    #[inline]
    fn fixed<V: Visitor<'de>>(&mut self, elem: PoolElem, n: usize, visitor: V) -> Result<V::Value> {
        self.items_of(elem, false, n, "a math value", visitor)
    }

    /// `n` fixed-size items of `elem`, read at once and handed to `visitor` as a
    /// sequence; a visitor that takes fewer is an error.
    #[inline]
    fn items_of<V: Visitor<'de>>(
        &mut self,
        elem: PoolElem,
        wide: bool,
        n: usize,
        what: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.read.pos();
        let bytes = self.item_bytes(n, elem.min_size(wide), what)?;
        let mut access = fixed::FixedSeq::new(&bytes, elem, wide, at);
        let v = visitor.visit_seq(&mut access)?;
        match de::SeqAccess::size_hint(&access) {
            Some(0) => Ok(v),
            left => Err(access::unconsumed(left.unwrap_or_default())),
        }
    }

    /// The bytes of `n` items of `size` bytes; at the end of the input, the error is
    /// where the first item that does not fit starts, as if read one by one.
    #[inline]
    fn item_bytes(
        &mut self,
        n: usize,
        size: usize,
        what: &'static str,
    ) -> Result<Reference<'de, '_>> {
        let at = self.read.pos();
        let len = n.checked_mul(size).ok_or_else(|| {
            Error::at(
                ErrorKind::InvalidLength {
                    len: n as u64,
                    what,
                },
                at,
            )
        })?;
        self.read.read_bytes(len, size, &mut self.scratch, what)
    }

    /// The class name and, for non-null objects, the property count of a full Object.
    pub(crate) fn object_head(&mut self, h: Header) -> Result<Option<(String, usize)>> {
        if !self.cfg.allow_objects {
            return Err(Error::at(ErrorKind::ObjectsNotAllowed, h.at));
        }
        let class = match self.str()? {
            s if s.is_empty() => return Ok(None),
            s => s.to_owned(),
        };
        let n = self.count("an Object property count", 8, u32::MAX)?;
        Ok(Some((class, n)))
    }

    fn any<V: Visitor<'de>>(&mut self, h: Header, visitor: V, seq_bytes: bool) -> Result<V::Value> {
        match h.ty.layout() {
            Layout::Nil | Layout::Callable => visitor.visit_unit(),
            Layout::Rid => match self.cfg.dialect {
                Dialect::Godot4 => visitor.visit_u64(self.u64("an RID")?),
                Dialect::Godot2 | Dialect::Godot3 => visitor.visit_unit(),
            },
            Layout::Bool => visitor.visit_bool(self.u32("a bool")? != 0),
            Layout::Int => visitor.visit_i64(self.int(h)?),
            Layout::Float => {
                if h.is_64() {
                    visitor.visit_f64(f64::from_bits(self.u64("a 64-bit float")?))
                } else {
                    visitor.visit_f32(f32::from_bits(self.u32("a float")?))
                }
            }
            Layout::String | Layout::StringName => self.visit_str(visitor),
            Layout::NodePath => {
                let path = access::read_node_path(self)?;
                visitor.visit_string(path.to_string())
            }
            Layout::Object => self.object(h, visitor, false),
            Layout::Dictionary | Layout::Array => self.seq(h, visitor),
            Layout::Signal => {
                let name = self.str()?.to_owned();
                let id = self.u64("a Signal's object id")?;
                visitor.visit_seq(access::Fields::signal(name, id))
            }
            Layout::Image => {
                let mut words = [0u32; 4];
                for (w, what) in words.iter_mut().zip([
                    "Image format",
                    "Image mipmaps",
                    "Image width",
                    "Image height",
                ]) {
                    *w = self.u32(what)?;
                }
                if words[0] >= crate::types::IMAGE_FORMAT_MAX {
                    return Err(Error::at(
                        ErrorKind::Malformed("an Image format beyond the last one Godot 2 has"),
                        h.at + 4,
                    ));
                }
                let n = self.count("Image data length", 1, u32::MAX)?;
                let data = self.bytes((n + 3) & !3, "Image data and padding")?[..n].to_vec();
                visitor.visit_seq(access::Fields::image(words, data))
            }
            Layout::InputEvent => {
                let ty = self.u32("an InputEvent type")?;
                let device = self.u32("an InputEvent device")?;
                // The encoded total length is not trusted: the type says what follows.
                self.u32("an InputEvent length")?;
                let mut words = vec![ty, device];
                for _ in 0..crate::types::InputEventKind::extra_words(ty) {
                    words.push(self.u32("InputEvent fields")?);
                }
                visitor.visit_seq(de::value::SeqDeserializer::new(words.into_iter()))
            }
            Layout::Reals(n) => {
                let elem = if self.wide(h) {
                    PoolElem::Float64
                } else {
                    PoolElem::Float32
                };
                self.fixed(elem, n, visitor)
            }
            Layout::F32s(n) => self.fixed(PoolElem::Float32, n, visitor),
            Layout::Ints(n) => self.fixed(PoolElem::Int32, n, visitor),
            Layout::Pool(elem) => self.pool(h, elem, visitor, seq_bytes),
        }
    }

    /// An Object: null, an instance id, or (as a map, or with `as_seq` as the
    /// `(class, properties)` sequence of the Object marker) a full object.
    fn object<V: Visitor<'de>>(&mut self, h: Header, visitor: V, as_seq: bool) -> Result<V::Value> {
        if self.cfg.dialect == Dialect::Godot2 {
            // Godot 2 writes objects as the bare type: always null.
            return visitor.visit_unit();
        }
        if h.is_64() {
            return match self.u64("an object id")? {
                0 => visitor.visit_unit(),
                id => visitor.visit_u64(id),
            };
        }
        let Some((class, n)) = self.object_head(h)? else {
            return visitor.visit_unit();
        };
        self.nested(n, h.at, |de| {
            if as_seq {
                let mut access = ObjectAccess::new(de, class, n);
                let v = visitor.visit_seq(&mut access)?;
                access.finish()?;
                Ok(v)
            } else {
                let mut access = ObjectAccess::props(de, n);
                let v = visitor.visit_map(&mut access)?;
                access.finish()?;
                Ok(v)
            }
        })
    }

    /// A newtype marker of a Godot type (RID, StringName, Callable, pool arrays).
    fn marked_newtype<V: Visitor<'de>>(
        &mut self,
        ty: VariantType,
        h: Header,
        visitor: V,
    ) -> Result<V::Value> {
        match ty.layout() {
            Layout::Rid if h.ty == ty => {
                let id = match self.cfg.dialect {
                    Dialect::Godot4 => self.u64("an RID")?,
                    Dialect::Godot2 | Dialect::Godot3 => 0,
                };
                visitor.visit_u64(id)
            }
            // A StringName field also takes a String (Godot converts them freely).
            Layout::StringName if matches!(h.ty, VariantType::StringName | VariantType::String) => {
                self.visit_str(visitor)
            }
            Layout::Callable if h.ty == ty => visitor.visit_unit(),
            // Our pool visitors take numbers and vectors as their bytes, in one piece.
            Layout::Pool(elem) if h.ty == ty && elem.is_fixed() && !self.wide(h) => {
                let n = self.count("a pool array count", elem.min_size(false), u32::MAX)?;
                let len = n.saturating_mul(elem.min_size(false));
                let bytes = self.bytes(len, "pool array elements")?;
                visitor.visit_bytes(&bytes)
            }
            // Our pool visitor's `Vec<String>` (a `PoolStringArray`, a `Vec<String>` with
            // `pool::string`) is built here: serde's element-by-element path costs more
            // than the strings themselves (benches/instructions.rs).
            Layout::Pool(PoolElem::String) if h.ty == ty && fast_paths() => {
                if let Some(v) = crate::cast::try_make_plain::<V::Value, Vec<String>, Error>(|| {
                    self.owned_strs()
                }) {
                    return v;
                }
                // Borrowed strings, from an input that lends them.
                if typeid::of::<R>() == typeid::of::<SliceRead<'static>>() {
                    if let Some(v) =
                        crate::cast::try_make_borrowed_strs::<V, Error>(|| self.borrowed_strs())
                    {
                        return v;
                    }
                }
                self.pool(h, PoolElem::String, visitor, false)
            }
            // A pool array field also takes an Array of its elements.
            Layout::Pool(elem) if h.ty == ty => self.pool(h, elem, visitor, false),
            Layout::Pool(_) if h.ty == VariantType::Array => self.seq(h, visitor),
            Layout::Rid
            | Layout::StringName
            | Layout::Callable
            | Layout::Pool(_)
            | Layout::Nil
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
            | Layout::InputEvent => Err(self.invalid(h, ty.name())),
        }
    }

    fn invalid(&self, h: Header, expected: &'static str) -> Error {
        Error::at(
            ErrorKind::InvalidType {
                found: h.ty.name().to_string(),
                expected: expected.to_string(),
            },
            h.at,
        )
    }
}

/// A decoded string, borrowed from the input or from scratch space.
pub(crate) enum Str<'de, 's> {
    Borrowed(&'de str),
    Copied(&'s str),
}

impl std::ops::Deref for Str<'_, '_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Copied(s) => s,
        }
    }
}

/// A string to its visitor, borrowed for `'de` when it can be.
#[inline]
fn visit<'de, V: Visitor<'de>>(s: Str<'de, '_>, visitor: V) -> Result<V::Value> {
    match s {
        Str::Borrowed(s) => visitor.visit_borrowed_str(s),
        Str::Copied(s) => visitor.visit_str(s),
    }
}

/// A String's text as Godot reads it from `bytes`, its length's worth (the padding
/// after it left out): up to the first NUL, without a leading BOM, strict UTF-8. The
/// deserializer's own reading of every String, for code that frames strings itself
/// (the multiplayer package reads RPC arguments with it); short ASCII text is checked
/// a word at a time, faster than `std::str::from_utf8` and a search for NUL.
///
/// ```
/// use godot_bin::de::godot_str;
/// assert_eq!(godot_str(b"hello").unwrap(), "hello");
/// assert_eq!(godot_str(b"cut\0here").unwrap(), "cut");
/// assert_eq!(godot_str("\u{feff}bom".as_bytes()).unwrap(), "bom");
/// assert!(godot_str(b"\xff").is_err());
/// ```
pub fn godot_str(bytes: &[u8]) -> Result<&str> {
    godot_utf8(bytes, 0)
}

/// Godot's string decoding: up to the first NUL, without a leading BOM, strict UTF-8.
#[inline]
fn godot_utf8(b: &[u8], at: usize) -> Result<&str> {
    // Most strings are short ASCII keys: word tests rule out NUL, BOM (whose bytes are
    // not ASCII) and invalid UTF-8 at once. A final NUL (every PoolStringArray element
    // has one) ends the string either way.
    let b = b.strip_suffix(b"\0").unwrap_or(b);
    match short_ascii(b) {
        Some(s) => Ok(s),
        None => godot_utf8_general(b, at),
    }
}

fn godot_utf8_general(b: &[u8], at: usize) -> Result<&str> {
    // Longer strings: std's UTF-8 check and a memchr for NUL are both vectorised; only
    // a string with a NUL in it (the engine cuts it there) needs the byte scan below.
    if let Ok(s) = std::str::from_utf8(b) {
        if !b.contains(&0) {
            return Ok(s.strip_prefix('\u{feff}').unwrap_or(s));
        }
    }
    let b = match b.iter().position(|&c| c == 0) {
        Some(end) => &b[..end],
        None => b,
    };
    let b = b.strip_prefix(BOM).unwrap_or(b);
    std::str::from_utf8(b).map_err(|_| Error::at(ErrorKind::InvalidUtf8, at))
}

impl<'de, R: Read<'de>> Deserializer<R> {
    /// A math type or integer vector asked for by its marker.
    #[inline]
    fn math<V: Visitor<'de>>(&mut self, ty: VariantType, visitor: V) -> Result<V::Value> {
        // 32-bit floats after a plain header of this type: all of it in one read.
        if let (Layout::Reals(n) | Layout::F32s(n), None) = (ty.layout(), self.pending) {
            let id = self.cfg.dialect.id_of(ty).unwrap_or(u32::MAX);
            if let Some((at, floats)) = self.plain(id, 4 * n, |_| true) {
                return visitor
                    .visit_bytes::<Error>(floats)
                    .map_err(|e| e.or_at(at));
            }
        }
        let h = self.header()?;
        if h.ty != ty {
            return Err(self.invalid(h, ty.name()));
        }
        let (n, ints) = match ty.layout() {
            Layout::Reals(n) if !self.wide(h) => (n, false),
            Layout::F32s(n) => (n, false),
            Layout::Ints(n) => (n, true),
            // Double-precision reals (the caller sends only math layouts here).
            _ => return self.any(h, visitor, false).map_err(|e| e.or_at(h.at)),
        };
        let bytes = self.item_bytes(n, 4, "a math value")?;
        if !ints {
            // The floats in one piece (the math types' visitor takes them as bytes).
            return visitor
                .visit_bytes::<Error>(&bytes)
                .map_err(|e| e.or_at(h.at));
        }
        let mut words = fixed::Words::new(&bytes);
        let v = visitor.visit_seq(&mut words).map_err(|e| e.or_at(h.at))?;
        match words.left() {
            0 => Ok(v),
            left => Err(access::unconsumed(left).or_at(h.at)),
        }
    }

    fn marked_tuple<V: Visitor<'de>>(&mut self, marker: Marker, visitor: V) -> Result<V::Value> {
        let at = self.value_start();
        let h = self.header()?;
        let result = match marker {
            Marker::TypedArray | Marker::TypedDictionary => {
                let want = if marker == Marker::TypedArray {
                    VariantType::Array
                } else {
                    VariantType::Dictionary
                };
                if h.ty != want {
                    Err(self.invalid(h, want.name()))
                } else {
                    let types = self.container_types(h)?;
                    visitor.visit_seq(access::TypedAccess::new(self, h, types))
                }
            }
            Marker::Type(ty) if h.ty != ty => Err(self.invalid(h, ty.name())),
            Marker::Type(ty) => match ty.layout() {
                Layout::NodePath => {
                    let path = access::read_node_path(self)?;
                    visitor.visit_seq(access::NodePathAccess::new(path))
                }
                Layout::Object => self.object(h, visitor, true),
                Layout::Reals(_)
                | Layout::F32s(_)
                | Layout::Ints(_)
                | Layout::Signal
                | Layout::Image
                | Layout::InputEvent
                | Layout::Nil
                | Layout::Bool
                | Layout::Int
                | Layout::Float
                | Layout::String
                | Layout::Rid
                | Layout::Dictionary
                | Layout::Array
                | Layout::Pool(_)
                | Layout::StringName
                | Layout::Callable => self.any(h, visitor, false),
            },
            Marker::Variant | Marker::ObjectId | Marker::ArrayOf(_) => self.any(h, visitor, false),
        };
        result.map_err(|e| e.or_at(at))
    }

    /// What a string is asked for: a String straight away, anything else as
    /// `deserialize_seq` has it.
    #[inline]
    fn string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        if let Some((at, s)) = self.plain_str() {
            return s.and_then(|s| visit(s, visitor)).map_err(|e| e.or_at(at));
        }
        let h = self.header()?;
        match h.ty {
            VariantType::String => self.visit_str(visitor),
            _ => self.any(h, visitor, true),
        }
        .map_err(|e| e.or_at(h.at))
    }
}

/// Numbers asked for by type: an int or a float straight away, anything else
/// through the general match (which gives the same answer, only slower).
macro_rules! scalars {
    ($($m:ident)*) => {
        $(#[inline]
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            // A 32-bit int or float: header and value in one read.
            if let Some((at, v)) = self.word_of(INT_ID, |_| true) {
                return visitor.visit_i64(v as i32 as i64).map_err(|e: Error| e.or_at(at));
            }
            if let Some((at, v)) = self.word_of(FLOAT_ID, |_| true) {
                return visitor.visit_f32(f32::from_bits(v)).map_err(|e: Error| e.or_at(at));
            }
            let h = self.header()?;
            match h.ty {
                VariantType::Int => self.int(h).and_then(|v| visitor.visit_i64(v)),
                VariantType::Float if !h.is_64() => {
                    self.u32("a float").and_then(|v| visitor.visit_f32(f32::from_bits(v)))
                }
                _ => self.any(h, visitor, false),
            }
            .map_err(|e| e.or_at(h.at))
        })*
    };
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Deserializer<R> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.value_start();
        let h = self.header()?;
        self.any(h, visitor, false).map_err(|e| e.or_at(at))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.value_start();
        let h = self.header()?;
        self.any(h, visitor, true).map_err(|e| e.or_at(at))
    }

    /// Strings come from String, StringName and NodePath. A PoolByteArray is offered as a
    /// sequence here, not as bytes, which serde's `String` would take as UTF-8: a string
    /// must not hold what a Godot string cannot (NUL).
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.string(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    serde::forward_to_deserialize_any! {
        i128 u128 bytes byte_buf map ignored_any
    }

    scalars!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64
    );

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.string(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((at, v)) = self.word_of(BOOL_ID, |_| true) {
            return visitor.visit_bool(v != 0).map_err(|e: Error| e.or_at(at));
        }
        let h = self.header()?;
        // A bool, or an int 0 / 1 (what some GDScript writes for flags).
        if h.ty == VariantType::Bool {
            visitor.visit_bool(self.u32("a bool")? != 0)
        } else if h.ty == VariantType::Int {
            match self.int(h)? {
                0 => visitor.visit_bool(false),
                1 => visitor.visit_bool(true),
                v => Err(Error::at(
                    ErrorKind::IntOutOfRange(v.into(), "a bool (0 or 1)"),
                    h.at,
                )),
            }
        } else {
            Err(self.invalid(h, "a bool"))
        }
        .map_err(|e| e.or_at(h.at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek()?.ty == VariantType::Nil {
            self.pending = None;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let h = self.header()?;
        if h.ty != VariantType::Nil {
            return Err(self.invalid(h, "null"));
        }
        visitor.visit_unit().map_err(|e: Error| e.or_at(h.at))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    /// Always inlined, as `serialize_newtype_struct`: the marker name folds.
    #[inline(always)]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        let Some(marker) = Marker::lookup(name) else {
            return visitor.visit_newtype_struct(self);
        };
        let at = self.value_start();
        let h = self.header()?;
        let result = match marker {
            // `Variant` itself (the marker's only user) is read without the visitors.
            Marker::Variant => match variant::read_directly(self, h) {
                Some(v) => v,
                None => visitor.visit_enum(VariantEnum::new(self, h)),
            },
            Marker::ObjectId => {
                if h.ty == VariantType::Object && h.is_64() {
                    visitor.visit_u64(self.u64("an object id")?)
                } else {
                    Err(self.invalid(h, "an Object id"))
                }
            }
            Marker::Type(ty) => self.marked_newtype(ty, h, visitor),
            Marker::TypedArray | Marker::TypedDictionary | Marker::ArrayOf(_) => {
                self.pending = Some(h);
                visitor.visit_newtype_struct(&mut *self)
            }
        };
        result.map_err(|e| e.or_at(at))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    /// Inlined so that the marker lookup of a constant name folds away: a math type
    /// goes straight to its floats.
    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        match Marker::lookup(name) {
            None => self.deserialize_any(visitor),
            Some(Marker::Type(ty))
                if matches!(
                    ty.layout(),
                    Layout::Reals(_) | Layout::F32s(_) | Layout::Ints(_)
                ) =>
            {
                self.math(ty, visitor)
            }
            Some(marker) => self.marked_tuple(marker, visitor),
        }
    }

    /// A plain Dictionary (the usual struct) goes to a map access that knows the
    /// field names; anything else the general way.
    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let id = self.cfg.dialect.id_of(VariantType::Dictionary);
        // The count's check of `count`, when it passes: every entry takes 8 bytes or more.
        let room = self.read.remaining().unwrap_or(0).saturating_sub(8) / 8;
        let plain = id.and_then(|id| self.word_of(id, |n| n <= MAX_LEN && n as usize <= room));
        let Some((at, n)) = plain else {
            return self.deserialize_any(visitor);
        };
        let n = n as usize;
        // The keys of the struct read last are at hand: a snapshot's many entities
        // take them without a lookup.
        let (keys, untrusted) = match self.keys.take() {
            Some((f, keys, untrusted)) if std::ptr::eq(f, fields) => (keys, untrusted),
            _ => keys::keys(fields),
        };
        if self.on_trust && n == keys.len() && !untrusted && fast_paths() && self.derived(&visitor)
        {
            return self
                .nested(n, at, |de| {
                    let v = in_order::read(de, fields, &keys, visitor)?;
                    de.keys = Some((fields, keys, false));
                    Ok(v)
                })
                .map_err(|e| e.or_at(at));
        }
        self.nested(n, at, |de| {
            let mut access = StructAccess::new(de, n, keys);
            let v = visitor.visit_map(&mut access)?;
            de.keys = Some((fields, access.finish()?, untrusted));
            Ok(v)
        })
        .map_err(|e| e.or_at(at))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let h = self.header()?;
        // serde_json's forms: a unit variant by name (or index), others as `{name: value}`.
        let result = if h.ty == VariantType::String {
            match self.str()? {
                Str::Borrowed(s) => visitor.visit_enum(de::value::BorrowedStrDeserializer::new(s)),
                Str::Copied(s) => {
                    let s = s.to_owned();
                    visitor.visit_enum(de::value::StringDeserializer::new(s))
                }
            }
        } else if h.ty == VariantType::Int {
            let i = self.int(h)?;
            let i = u32::try_from(i).map_err(|_| {
                Error::at(ErrorKind::IntOutOfRange(i.into(), "a variant index"), h.at)
            })?;
            visitor.visit_enum(de::value::U32Deserializer::new(i))
        } else if h.ty == VariantType::Dictionary {
            self.container_types(h)?;
            // The one entry names the variant: its types are not checked.
            self.declared = [None, None];
            let n = self.count("a Dictionary count", 8, MAX_LEN)?;
            if n != 1 {
                return Err(Error::at(
                    ErrorKind::InvalidLength {
                        len: n as u64,
                        what: "an enum (a Dictionary of one entry)",
                    },
                    h.at,
                ));
            }
            self.nested(n, h.at, |de| visitor.visit_enum(DictEnum::new(de)))
        } else {
            Err(self.invalid(h, "an enum (String, int or one-entry Dictionary)"))
        };
        result.map_err(|e| e.or_at(h.at))
    }
}
