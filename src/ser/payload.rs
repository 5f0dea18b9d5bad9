//! Serializers for the headerless payloads behind marker names: the floats of a math
//! type, the elements of a pool array, NodePath parts and Object properties.

use serde::ser::{self, Impossible, Serialize};

use super::{patch_count, put_u32, Serializer};
use crate::dialect::STRING_ID;
use crate::error::{Error, ErrorKind, Result};
use crate::table::PoolElem;
use crate::words::{has_nul, has_zero, le, tiny, word, BOM};

/// Godot strings cannot hold NUL (the decoder stops there): refuse what the engine
/// would silently cut.
#[inline]
pub(crate) fn check_godot_str(s: &str) -> Result<()> {
    // Word tests, not a call to memchr: most strings that come here are short.
    if has_nul(s.as_bytes()) {
        return Err(Error::new(ErrorKind::Unrepresentable(
            "a string containing NUL (Godot cuts strings at NUL)".into(),
        )));
    }
    Ok(())
}

/// The length of the BOM written before `s`. The engine drops a BOM at the start of
/// every string it reads, so a string that starts with one is written with one more in
/// front: the engine (and this crate) then reads the string as it was. The engine
/// itself writes such a string without it, and reads back one character less.
#[inline]
fn bom_len(s: &str) -> usize {
    if s.starts_with('\u{feff}') {
        BOM.len()
    } else {
        0
    }
}

#[inline]
fn pad(out: &mut Vec<u8>, len: usize) {
    let p = (4 - len % 4) % 4;
    out.extend_from_slice(&[0u8; 3][..p]);
}

/// Length, UTF-8 bytes, zero padding, after the NUL check.
#[inline]
pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) -> Result<()> {
    // The short path refuses a leading BOM: the length is the string's.
    if put_short(out, (s.len() as u32).to_le_bytes(), s.as_bytes(), 0) {
        return Ok(());
    }
    put_str_long(out, s)
}

#[cold]
fn put_str_long(out: &mut Vec<u8>, s: &str) -> Result<()> {
    check_godot_str(s)?;
    let len = bom_len(s) + s.len();
    out.reserve(4 + len + 3);
    put_u32(out, len as u32);
    put_str_body(out, s);
    Ok(())
}

/// A String Variant: header, length, UTF-8 bytes, zero padding, after the NUL check.
#[inline]
pub(crate) fn put_tagged_str(out: &mut Vec<u8>, header: u32, s: &str) -> Result<()> {
    let mut head = [0u8; 8];
    head[..4].copy_from_slice(&header.to_le_bytes());
    head[4..].copy_from_slice(&(s.len() as u32).to_le_bytes());
    if put_short(out, head, s.as_bytes(), 0) {
        return Ok(());
    }
    put_tagged_str_long(out, header, s)
}

/// A struct's field name as a String Variant. Always inlined, so that for a constant
/// name (a derived `Serialize`) the checks fold away and the item is one store of
/// constant bytes: a quarter of a typed struct's encode went to names.
#[inline(always)]
pub(crate) fn put_key(out: &mut Vec<u8>, key: &str) -> Result<()> {
    let b = key.as_bytes();
    let len = b.len();
    let mut buf = [0u8; 24];
    buf[..4].copy_from_slice(&STRING_ID.to_le_bytes());
    buf[4..8].copy_from_slice(&(len as u32).to_le_bytes());
    // As `put_short`: 1 to 16 bytes without NUL or a leading BOM, else the general way.
    let short = match len {
        8..=16 => {
            let (lo, hi) = (word(b, 0, 8), word(b, len - 8, 8));
            buf[8..16].copy_from_slice(&lo.to_le_bytes());
            buf[len..len + 8].copy_from_slice(&hi.to_le_bytes());
            !has_zero(lo) && !has_zero(hi) && lo & 0xFF_FFFF != 0xBF_BBEF
        }
        4..=7 => {
            let (lo, hi) = (word(b, 0, 4), word(b, len - 4, 4));
            buf[8..12].copy_from_slice(&(lo as u32).to_le_bytes());
            buf[4 + len..8 + len].copy_from_slice(&(hi as u32).to_le_bytes());
            !has_zero(lo | hi << 32) && lo & 0xFF_FFFF != 0xBF_BBEF
        }
        1..=3 => {
            let w = tiny(b);
            buf[8..12].copy_from_slice(&(w as u32).to_le_bytes());
            !has_zero(w | u64::MAX << (8 * len)) && w != 0xBF_BBEF
        }
        _ => false,
    };
    if !short {
        return put_tagged_str_long(out, STRING_ID, key);
    }
    out.extend_from_slice(&buf[..8 + ((len + 3) & !3)]);
    Ok(())
}

/// Writes `head` (the words before the string), then `b` and `nul` terminating NULs
/// (0 or 1), zero padded to a word, when `b` is 1 to 16 bytes without NUL or a leading
/// BOM: most keys, names and tags. Anything else writes nothing and returns `false`.
///
/// Two overlapping fixed-size loads cover the bytes and one fixed-size store writes
/// the whole item, padding included (cut to size after), instead of calls to memchr
/// and memcpy. Constant sizes in each branch: fixed-size loads, not copies.
#[inline(always)]
fn put_short<const H: usize>(out: &mut Vec<u8>, head: [u8; H], b: &[u8], nul: usize) -> bool {
    let len = b.len();
    let mut buf = [0u8; 24];
    let lo = match len {
        8..=16 => {
            let (lo, hi) = (word(b, 0, 8), word(b, len - 8, 8));
            if has_zero(lo) || has_zero(hi) {
                return false;
            }
            buf[H..H + 8].copy_from_slice(&lo.to_le_bytes());
            buf[H + len - 8..H + len].copy_from_slice(&hi.to_le_bytes());
            lo
        }
        4..=7 => {
            let (lo, hi) = (word(b, 0, 4), word(b, len - 4, 4));
            if has_zero(lo | hi << 32) {
                return false;
            }
            buf[H..H + 4].copy_from_slice(&(lo as u32).to_le_bytes());
            buf[H + len - 4..H + len].copy_from_slice(&(hi as u32).to_le_bytes());
            lo
        }
        // Keys like "id": the words before and one word of bytes, zeros above them
        // (two small writes measured 10% faster on `mesh` than the buffer below).
        1..=3 => {
            let w = tiny(b);
            if has_zero(w | u64::MAX << (8 * len)) || w == 0xBF_BBEF {
                return false;
            }
            out.extend_from_slice(&head);
            out.extend_from_slice(&(w as u32).to_le_bytes());
            return true;
        }
        _ => return false,
    };
    if lo & 0xFF_FFFF == 0xBF_BBEF {
        // A leading BOM: one more is written, on the general path.
        return false;
    }
    buf[..H].copy_from_slice(&head);
    let end = out.len() + H + ((len + nul + 3) & !3);
    out.extend_from_slice(&buf);
    out.truncate(end);
    true
}

// Cold: out of line, so that the short path stays small enough to inline (the
// attribute is worth a tenth of a typed encode, measured).
#[cold]
fn put_tagged_str_long(out: &mut Vec<u8>, header: u32, s: &str) -> Result<()> {
    check_godot_str(s)?;
    let len = bom_len(s) + s.len();
    out.reserve(8 + len + 3);
    super::put_u64(out, header, len as u32);
    put_str_body(out, s);
    Ok(())
}

/// The string with a BOM in front when it starts with one, then zero padding.
#[inline]
fn put_str_body(out: &mut Vec<u8>, s: &str) {
    let bom = bom_len(s);
    out.extend_from_slice(&BOM[..bom]);
    out.extend_from_slice(s.as_bytes());
    pad(out, bom + s.len());
}

/// Count, bytes, zero padding.
pub(crate) fn put_bytes(out: &mut Vec<u8>, v: &[u8]) -> Result<()> {
    let at = out.len();
    put_u32(out, 0);
    patch_count(out, at, v.len())?;
    out.extend_from_slice(v);
    pad(out, v.len());
    Ok(())
}

/// A PoolStringArray element: length with the NUL, bytes, NUL, zero padding.
#[inline]
fn put_pool_str(out: &mut Vec<u8>, s: &str) -> Result<()> {
    if put_short(out, (s.len() as u32 + 1).to_le_bytes(), s.as_bytes(), 1) {
        return Ok(());
    }
    put_pool_str_long(out, s)
}

/// A PoolStringArray's count and elements, as `PoolSeq` writes them one by one.
pub(crate) fn put_pool_strings(out: &mut Vec<u8>, v: &[String]) -> Result<()> {
    let at = out.len();
    put_u32(out, 0);
    patch_count(out, at, v.len())?;
    for s in v {
        put_pool_str(out, s)?;
    }
    Ok(())
}

#[cold]
fn put_pool_str_long(out: &mut Vec<u8>, s: &str) -> Result<()> {
    check_godot_str(s)?;
    let bom = bom_len(s);
    put_u32(out, (bom + s.len()) as u32 + 1);
    out.extend_from_slice(&BOM[..bom]);
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    pad(out, bom + s.len() + 1);
    Ok(())
}

fn wrong(expected: &'static str, found: &str) -> Error {
    Error::new(ErrorKind::Message(format!(
        "invalid type: {found} where the Godot payload needs {expected}"
    )))
}

/// What one headerless payload item is.
#[derive(Clone, Copy)]
pub(crate) enum Elem {
    F32,
    F64,
    I32,
    I64,
    U32,
    U8,
    U64,
    /// A plain Godot string.
    Str,
    /// A PoolStringArray element (counted with its NUL).
    PoolStr,
    /// Count, bytes, padding.
    Bytes,
    /// A math value of n reals, 32 or 64 bits each.
    Reals(usize, bool),
    /// A math value of n 32-bit floats whose header (this word) is not written yet:
    /// header and floats go in one write.
    Headed(usize, u32),
    /// A `u32` (or `bool`) written over the placeholder at this offset.
    Patch(usize),
}

impl Elem {
    /// One pool array element; `wide` for a double-precision engine's math values.
    #[inline]
    fn pool(e: PoolElem, wide: bool) -> Elem {
        match e {
            PoolElem::Byte => Elem::U8,
            PoolElem::Int32 => Elem::I32,
            PoolElem::Int64 => Elem::I64,
            PoolElem::Float32 => Elem::F32,
            PoolElem::Float64 => Elem::F64,
            PoolElem::String => Elem::PoolStr,
            PoolElem::Math(t) => Elem::Reals(t.component_count().unwrap_or_default(), wide),
        }
    }
}

impl Elem {
    /// Bytes one item takes at least (strings: their length word).
    #[inline]
    fn size(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::F32 | Elem::I32 | Elem::U32 | Elem::Str | Elem::PoolStr | Elem::Bytes => 4,
            Elem::F64 | Elem::I64 | Elem::U64 => 8,
            Elem::Reals(n, wide) => n * if wide { 8 } else { 4 },
            Elem::Headed(n, _) => 4 * n,
            Elem::Patch(_) => 0,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Elem::F32 | Elem::F64 => "a float",
            Elem::I32 => "an int32",
            Elem::I64 => "an int64",
            Elem::U32 => "a u32",
            Elem::U8 => "a byte",
            Elem::U64 => "a 64-bit id",
            Elem::Str | Elem::PoolStr => "a string",
            Elem::Bytes => "bytes",
            Elem::Reals(..) | Elem::Headed(..) => "a math value (tuple of floats)",
            Elem::Patch(_) => "a flag word",
        }
    }
}

/// The methods a payload serializer refuses, each with `self.bad(what)`.
macro_rules! reject_compound {
    ($ok:ty; $($m:ident),*) => { $(reject_compound!(@ $ok; $m);)* };
    (@ $ok:ty; some) => {
        fn serialize_some<T: ?Sized + Serialize>(self, _v: &T) -> Result<$ok> {
            Err(self.bad("Some"))
        }
    };
    (@ $ok:ty; newtype_variant) => {
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _n: &'static str,
            _i: u32,
            _v: &'static str,
            _value: &T,
        ) -> Result<$ok> {
            Err(self.bad("an enum"))
        }
    };
    (@ $ok:ty; seq) => {
        fn serialize_seq(self, _l: Option<usize>) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("a sequence"))
        }
    };
    (@ $ok:ty; tuple) => {
        fn serialize_tuple(self, _l: usize) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("a tuple"))
        }
    };
    (@ $ok:ty; tuple_struct) => {
        fn serialize_tuple_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("a tuple struct"))
        }
    };
    (@ $ok:ty; tuple_variant) => {
        fn serialize_tuple_variant(
            self,
            _n: &'static str,
            _i: u32,
            _v: &'static str,
            _l: usize,
        ) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("an enum"))
        }
    };
    (@ $ok:ty; map) => {
        fn serialize_map(self, _l: Option<usize>) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("a map"))
        }
    };
    (@ $ok:ty; struct) => {
        fn serialize_struct(self, _n: &'static str, _l: usize) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("a struct"))
        }
    };
    (@ $ok:ty; struct_variant) => {
        fn serialize_struct_variant(
            self,
            _n: &'static str,
            _i: u32,
            _v: &'static str,
            _l: usize,
        ) -> Result<Impossible<$ok, Error>> {
            Err(self.bad("an enum"))
        }
    };
}

/// Writes one headerless item of the given kind.
pub(crate) struct ElemSerializer<'a> {
    out: &'a mut Vec<u8>,
    elem: Elem,
}

fn range_err(v: i128, what: &'static str) -> Error {
    Error::new(ErrorKind::IntOutOfRange(v, what))
}

impl<'a> ElemSerializer<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>, elem: Elem) -> Self {
        ElemSerializer { out, elem }
    }

    fn int(self, v: i128) -> Result<()> {
        match self.elem {
            Elem::I32 => {
                let v = i32::try_from(v)
                    .map_err(|_| range_err(v, "an int32 (PoolIntArray element, integer vector)"))?;
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            Elem::I64 => {
                let v = i64::try_from(v).map_err(|_| range_err(v, "an int64"))?;
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            Elem::U32 => {
                let v = u32::try_from(v).map_err(|_| range_err(v, "a u32"))?;
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            Elem::U8 => {
                let v =
                    u8::try_from(v).map_err(|_| range_err(v, "a PoolByteArray element (u8)"))?;
                self.out.push(v);
            }
            Elem::U64 => {
                let v = u64::try_from(v).map_err(|_| range_err(v, "an id (u64)"))?;
                self.out.extend_from_slice(&v.to_le_bytes());
            }
            Elem::Patch(at) => {
                let v = u32::try_from(v).map_err(|_| range_err(v, "a flag word (u32)"))?;
                self.out[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            e => return Err(wrong(e.name(), "an integer")),
        }
        Ok(())
    }

    fn float(self, v: f64) -> Result<()> {
        match self.elem {
            Elem::F32 => {
                let f = v as f32;
                if f64::from(f) != v && !v.is_nan() {
                    return Err(Error::new(ErrorKind::Unrepresentable(format!(
                        "{v} in a 32-bit float field (it would change)"
                    ))));
                }
                self.out.extend_from_slice(&f.to_le_bytes());
                Ok(())
            }
            Elem::F64 => {
                self.out.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            e => Err(wrong(e.name(), "a float")),
        }
    }

    fn bad(&self, found: &str) -> Error {
        wrong(self.elem.name(), found)
    }

    fn reals(self, len: usize) -> Result<UniformCompound<'a>> {
        match self.elem {
            Elem::Reals(n, wide) => UniformCompound::new(self.out, Scalar::real(wide), n, len),
            Elem::Headed(n, header) => {
                put_u32(self.out, header);
                UniformCompound::new(self.out, Scalar::F32, n, len)
            }
            e => Err(wrong(e.name(), "a sequence")),
        }
    }
}

/// The element of a math value's fields: one byte, so that building an
/// `ElemSerializer` per field is a register move (copying a whole `Elem` per field
/// stalled on store forwarding).
#[derive(Clone, Copy)]
pub(crate) enum Scalar {
    F32,
    F64,
    I32,
}

impl Scalar {
    /// A real of a single- or (`wide`) double-precision engine.
    pub(crate) fn real(wide: bool) -> Scalar {
        if wide {
            Scalar::F64
        } else {
            Scalar::F32
        }
    }

    #[inline(always)]
    fn elem(self) -> Elem {
        match self {
            Scalar::F32 => Elem::F32,
            Scalar::F64 => Elem::F64,
            Scalar::I32 => Elem::I32,
        }
    }
}

macro_rules! ints {
    ($($m:ident: $t:ty),*) => {
        $(fn $m(self, v: $t) -> Result<()> { self.int(v as i128) })*
    };
}

impl<'a> ser::Serializer for ElemSerializer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = UniformCompound<'a>;
    type SerializeTuple = UniformCompound<'a>;
    type SerializeTupleStruct = UniformCompound<'a>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
          serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        match i128::try_from(v) {
            Ok(v) => self.int(v),
            Err(_) => Err(Error::new(ErrorKind::UintOutOfRange(v, self.elem.name()))),
        }
    }
    fn serialize_bool(self, v: bool) -> Result<()> {
        match self.elem {
            Elem::Patch(_) => self.int(v as i128),
            e => Err(wrong(e.name(), "a bool")),
        }
    }
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        // The common case in math types: an f32 into an f32 field needs no checks.
        if let Elem::F32 = self.elem {
            self.out.extend_from_slice(&v.to_le_bytes());
            return Ok(());
        }
        self.float(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        match self.elem {
            Elem::Str => put_str(self.out, v),
            Elem::PoolStr => put_pool_str(self.out, v),
            e => Err(wrong(e.name(), "a string")),
        }
    }
    #[inline(always)]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        match self.elem {
            Elem::Bytes => put_bytes(self.out, v),
            // A math value's floats in one piece (little-endian `f32`s).
            Elem::Reals(n, wide) if v.len() == 4 * n => {
                if wide {
                    for f in v.chunks_exact(4) {
                        let f = f32::from_le_bytes([f[0], f[1], f[2], f[3]]);
                        self.out.extend_from_slice(&f64::from(f).to_le_bytes());
                    }
                } else {
                    self.out.extend_from_slice(v);
                }
                Ok(())
            }
            Elem::Headed(n, header) if v.len() == 4 * n && n <= 16 => {
                let mut b = [0u8; 68];
                b[..4].copy_from_slice(&header.to_le_bytes());
                b[4..4 + v.len()].copy_from_slice(v);
                self.out.extend_from_slice(&b[..4 + v.len()]);
                Ok(())
            }
            e => Err(wrong(e.name(), "bytes")),
        }
    }
    fn serialize_none(self) -> Result<()> {
        Err(wrong(self.elem.name(), "None"))
    }
    fn serialize_unit(self) -> Result<()> {
        Err(wrong(self.elem.name(), "()"))
    }
    fn serialize_unit_struct(self, _n: &'static str) -> Result<()> {
        Err(wrong(self.elem.name(), "a unit struct"))
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Result<()> {
        Err(wrong(self.elem.name(), "an enum"))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<UniformCompound<'a>> {
        let n = match self.elem {
            Elem::Reals(n, _) | Elem::Headed(n, _) => n,
            _ => 0,
        };
        self.reals(len.unwrap_or(n))
    }
    fn serialize_tuple(self, len: usize) -> Result<UniformCompound<'a>> {
        self.reals(len)
    }
    #[inline]
    fn serialize_tuple_struct(self, _n: &'static str, len: usize) -> Result<UniformCompound<'a>> {
        self.reals(len)
    }

    reject_compound!((); some, newtype_variant, tuple_variant, map, struct, struct_variant);
}

/// The n fields of one kind of a math type or integer vector.
pub struct UniformCompound<'a> {
    out: &'a mut Vec<u8>,
    elem: Scalar,
    left: usize,
}

impl<'a> UniformCompound<'a> {
    /// `n` fields of `elem`, of which serde announced `len`.
    #[inline]
    pub(crate) fn new(out: &'a mut Vec<u8>, elem: Scalar, n: usize, len: usize) -> Result<Self> {
        if len != n {
            return Err(wrong(
                "a fixed number of fields",
                "a sequence of another length",
            ));
        }
        out.reserve(n * if let Scalar::F64 = elem { 8 } else { 4 });
        Ok(UniformCompound { out, elem, left: n })
    }

    #[inline(always)]
    pub(crate) fn field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if self.left == 0 {
            return Err(wrong("a fixed number of fields", "too many fields"));
        }
        self.left -= 1;
        value.serialize(ElemSerializer::new(self.out, self.elem.elem()))
    }

    #[inline]
    pub(crate) fn finish(self) -> Result<()> {
        if self.left != 0 {
            return Err(wrong("a fixed number of fields", "too few fields"));
        }
        Ok(())
    }
}

macro_rules! uniform_compound {
    ($($tr:ident :: $m:ident),*) => {
        $(impl ser::$tr for UniformCompound<'_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.field(value)
            }
            #[inline]
            fn end(self) -> Result<()> {
                self.finish()
            }
        })*
    };
}
uniform_compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

/// The field kinds of a fixed-layout payload of mixed fields.
#[derive(Clone, Copy)]
pub(crate) enum Fields {
    /// Signal: name, object id.
    Signal,
    /// Image: format, mipmaps, width, height, data.
    Image,
    /// InputEvent: type, device, then (after the total length word) extra words.
    InputEvent,
}

impl Fields {
    fn elem(self, i: usize) -> Elem {
        match self {
            Fields::Signal => [Elem::Str, Elem::U64][i.min(1)],
            Fields::Image if i < 4 => Elem::U32,
            Fields::Image => Elem::Bytes,
            Fields::InputEvent => Elem::U32,
        }
    }

    fn accepts(self, len: usize) -> bool {
        match self {
            Fields::Signal => len == 2,
            Fields::Image => len == 5,
            Fields::InputEvent => (2..=4).contains(&len),
        }
    }
}

/// The fields of a fixed-layout payload.
pub struct FieldsCompound<'a> {
    out: &'a mut Vec<u8>,
    layout: Fields,
    index: usize,
    len: usize,
}

impl<'a> FieldsCompound<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>, layout: Fields, len: usize) -> Result<Self> {
        if !layout.accepts(len) {
            return Err(wrong(
                "a fixed number of fields",
                "a sequence of another length",
            ));
        }
        Ok(FieldsCompound {
            out,
            layout,
            index: 0,
            len,
        })
    }

    pub(crate) fn field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if self.index == self.len {
            return Err(wrong("a fixed number of fields", "too many fields"));
        }
        value.serialize(ElemSerializer::new(self.out, self.layout.elem(self.index)))?;
        self.index += 1;
        if matches!(self.layout, Fields::InputEvent) && self.index == 2 {
            // The base is 12 bytes (type, device, this word); extra words follow.
            put_u32(self.out, 12 + 4 * (self.len as u32 - 2));
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<()> {
        if self.index != self.len {
            return Err(wrong("a fixed number of fields", "too few fields"));
        }
        Ok(())
    }
}

macro_rules! fields_compound {
    ($($tr:ident :: $m:ident),*) => {
        $(impl ser::$tr for FieldsCompound<'_> {
            type Ok = ();
            type Error = Error;
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.field(value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        })*
    };
}
fields_compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

/// The payload of a pool array marker: a sequence (or bytes) of elements.
pub(crate) struct PoolSerializer<'a> {
    out: &'a mut Vec<u8>,
    elem: PoolElem,
    wide: bool,
}

impl<'a> PoolSerializer<'a> {
    #[inline]
    pub(crate) fn new(out: &'a mut Vec<u8>, elem: PoolElem, wide: bool) -> Self {
        PoolSerializer { out, elem, wide }
    }

    #[inline]
    fn seq(self, len: Option<usize>) -> Result<PoolSeq<'a>> {
        let at = self.out.len();
        let elem = Elem::pool(self.elem, self.wide);
        if let Some(n) = len {
            // The announced length is only a hint here (the count is patched): trust it
            // up to 64 MiB.
            self.out
                .reserve(4 + n.saturating_mul(elem.size()).min(1 << 26));
        }
        put_u32(self.out, 0);
        Ok(PoolSeq {
            out: self.out,
            elem,
            byte: self.elem == PoolElem::Byte,
            at,
            count: 0,
        })
    }

    fn bad(&self, found: &str) -> Error {
        wrong("a sequence of pool array elements", found)
    }
}

/// Whether `S` is our serializer of whole values (`&mut Serializer`), which takes a
/// math value's floats in one piece as bytes.
#[inline]
pub(crate) fn is_serializer<S: ?Sized>() -> bool {
    typeid::of::<S>() == typeid::of::<&mut super::Serializer<'static>>()
}

/// Whether `S` is the serializer of a pool array's elements (which takes numbers and
/// vectors in one piece as bytes).
#[inline]
pub(crate) fn is_pool_serializer<S: ?Sized>() -> bool {
    typeid::of::<S>() == typeid::of::<PoolSerializer<'static>>()
}

/// The elements of a pool array being written.
pub(crate) struct PoolSeq<'a> {
    out: &'a mut Vec<u8>,
    elem: Elem,
    /// A byte array: padded after its elements.
    byte: bool,
    at: usize,
    count: usize,
}

impl PoolSeq<'_> {
    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        value.serialize(ElemSerializer::new(self.out, self.elem))
    }

    #[inline]
    fn finish(self) -> Result<()> {
        patch_count(self.out, self.at, self.count)?;
        if self.byte {
            pad(self.out, self.count);
        }
        Ok(())
    }
}

impl ser::SerializeSeq for PoolSeq<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl ser::SerializeTuple for PoolSeq<'_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

macro_rules! reject {
    ($what:literal; $($m:ident($($a:ident: $t:ty),*)),*) => {
        $(fn $m(self, $($a: $t),*) -> Result<Self::Ok> { $(let _ = $a;)* Err(self.bad($what)) })*
    };
}

impl<'a> ser::Serializer for PoolSerializer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = PoolSeq<'a>;
    type SerializeTuple = PoolSeq<'a>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn is_human_readable(&self) -> bool {
        false
    }

    reject!("a scalar"; serialize_bool(v: bool), serialize_i8(v: i8), serialize_i16(v: i16),
        serialize_i32(v: i32), serialize_i64(v: i64), serialize_u8(v: u8), serialize_u16(v: u16),
        serialize_u32(v: u32), serialize_u64(v: u64), serialize_f32(v: f32), serialize_f64(v: f64),
        serialize_char(v: char), serialize_str(v: &str), serialize_none(), serialize_unit(),
        serialize_unit_struct(n: &'static str),
        serialize_unit_variant(n: &'static str, i: u32, v: &'static str));

    /// A PoolByteArray's bytes, or the little-endian elements of a pool array of
    /// numbers or math values in one piece (what `pool::*` hands over).
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        if self.elem == PoolElem::Byte {
            return put_bytes(self.out, v);
        }
        if !self.elem.is_fixed() {
            return Err(self.bad("bytes"));
        }
        let size = self.elem.min_size(false);
        if v.len() % size != 0 {
            return Err(self.bad("bytes that are not whole elements"));
        }
        let at = self.out.len();
        put_u32(self.out, 0);
        patch_count(self.out, at, v.len() / size)?;
        if self.wide && matches!(self.elem, PoolElem::Math(_)) {
            // Vectors of a double-precision build: every float as a double.
            self.out.reserve(2 * v.len());
            for c in v.chunks_exact(4) {
                let f = f32::from_le_bytes(le(c));
                self.out.extend_from_slice(&f64::from(f).to_le_bytes());
            }
        } else {
            self.out.extend_from_slice(v);
        }
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<()> {
        v.serialize(self)
    }
    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<PoolSeq<'a>> {
        self.seq(len)
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<PoolSeq<'a>> {
        self.seq(Some(len))
    }

    reject_compound!((); some, newtype_variant, tuple_struct, tuple_variant, map, struct, struct_variant);
}

/// NodePath: `(absolute, names, subnames)`, written as Godot's counts-first layout.
pub struct NodePathCompound<'a> {
    out: &'a mut Vec<u8>,
    /// Where the three words (name count, subname count, flags) start.
    at: usize,
    field: usize,
}

impl<'a> NodePathCompound<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        let at = out.len();
        out.extend_from_slice(&[0; 12]);
        NodePathCompound { out, at, field: 0 }
    }

    pub(crate) fn field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.field += 1;
        match self.field {
            1 => value.serialize(ElemSerializer::new(self.out, Elem::Patch(self.at + 8))),
            2 | 3 => {
                let at = self.at + 4 * (self.field - 2);
                // Names, then subnames: the order the fields arrive in is the wire order.
                let n = value.serialize(NameList(self.out))?;
                let word = if self.field == 2 {
                    n as u32 | 0x8000_0000
                } else {
                    n as u32
                };
                self.out[at..at + 4].copy_from_slice(&word.to_le_bytes());
                Ok(())
            }
            _ => Err(wrong(
                "NodePath (absolute, names, subnames)",
                "too many fields",
            )),
        }
    }

    pub(crate) fn finish(self) -> Result<()> {
        if self.field != 3 {
            return Err(wrong(
                "NodePath (absolute, names, subnames)",
                "too few fields",
            ));
        }
        Ok(())
    }
}

/// A list of NodePath names: each a Godot string; returns how many.
struct NameList<'a>(&'a mut Vec<u8>);

struct NameSeq<'a> {
    out: &'a mut Vec<u8>,
    count: usize,
}

impl ser::SerializeSeq for NameSeq<'_> {
    type Ok = usize;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        value.serialize(ElemSerializer::new(self.out, Elem::Str))
    }
    fn end(self) -> Result<usize> {
        if self.count > 0x7FFF_FFFF {
            return Err(wrong("a NodePath", "too many names"));
        }
        Ok(self.count)
    }
}

impl NameList<'_> {
    fn bad(&self, found: &str) -> Error {
        wrong("a list of NodePath names", found)
    }
}

impl<'a> ser::Serializer for NameList<'a> {
    type Ok = usize;
    type Error = Error;
    type SerializeSeq = NameSeq<'a>;
    type SerializeTuple = Impossible<usize, Error>;
    type SerializeTupleStruct = Impossible<usize, Error>;
    type SerializeTupleVariant = Impossible<usize, Error>;
    type SerializeMap = Impossible<usize, Error>;
    type SerializeStruct = Impossible<usize, Error>;
    type SerializeStructVariant = Impossible<usize, Error>;

    reject!("a scalar"; serialize_bool(v: bool), serialize_i8(v: i8), serialize_i16(v: i16),
        serialize_i32(v: i32), serialize_i64(v: i64), serialize_u8(v: u8), serialize_u16(v: u16),
        serialize_u32(v: u32), serialize_u64(v: u64), serialize_f32(v: f32), serialize_f64(v: f64),
        serialize_char(v: char), serialize_str(v: &str), serialize_bytes(v: &[u8]),
        serialize_none(), serialize_unit(), serialize_unit_struct(n: &'static str),
        serialize_unit_variant(n: &'static str, i: u32, v: &'static str));

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<usize> {
        v.serialize(self)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<NameSeq<'a>> {
        Ok(NameSeq {
            out: self.0,
            count: 0,
        })
    }

    reject_compound!(usize; some, newtype_variant, tuple, tuple_struct, tuple_variant, map, struct, struct_variant);
}

/// An Object's property map: name strings (headerless) to full values.
pub(crate) struct PropsSerializer<'s, 'b>(pub(crate) &'s mut Serializer<'b>);

pub(crate) struct PropsMap<'s, 'b> {
    ser: &'s mut Serializer<'b>,
    at: usize,
    count: usize,
}

impl ser::SerializeMap for PropsMap<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.ser.child()?;
        self.count += 1;
        key.serialize(ElemSerializer::new(self.ser.out, Elem::Str))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.ser.release();
        patch_count(self.ser.out, self.at, self.count)
    }
}

impl PropsSerializer<'_, '_> {
    fn bad(&self, found: &str) -> Error {
        wrong("a map of Object properties", found)
    }
}

impl<'s, 'b> ser::Serializer for PropsSerializer<'s, 'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = PropsMap<'s, 'b>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    reject!("a scalar"; serialize_bool(v: bool), serialize_i8(v: i8), serialize_i16(v: i16),
        serialize_i32(v: i32), serialize_i64(v: i64), serialize_u8(v: u8), serialize_u16(v: u16),
        serialize_u32(v: u32), serialize_u64(v: u64), serialize_f32(v: f32), serialize_f64(v: f64),
        serialize_char(v: char), serialize_str(v: &str), serialize_bytes(v: &[u8]),
        serialize_none(), serialize_unit(), serialize_unit_struct(n: &'static str),
        serialize_unit_variant(n: &'static str, i: u32, v: &'static str));

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<()> {
        v.serialize(self)
    }
    fn serialize_map(self, _l: Option<usize>) -> Result<PropsMap<'s, 'b>> {
        let at = self.0.out.len();
        put_u32(self.0.out, 0);
        self.0.hold();
        Ok(PropsMap {
            ser: self.0,
            at,
            count: 0,
        })
    }

    reject_compound!((); some, newtype_variant, seq, tuple, tuple_struct, tuple_variant, struct, struct_variant);
}

/// A scalar taken out of a marker's field (ids, type tags, names).
pub(crate) enum Captured {
    Int(u64),
    Str(String),
}

impl Captured {
    pub(crate) fn int(self) -> Result<u64> {
        match self {
            Captured::Int(v) => Ok(v),
            Captured::Str(_) => Err(wrong("an integer", "a string")),
        }
    }

    pub(crate) fn string(self) -> Result<String> {
        match self {
            Captured::Str(v) => Ok(v),
            Captured::Int(_) => Err(wrong("a string", "an integer")),
        }
    }
}

/// Takes the scalar out of a marker's field.
pub(crate) struct Capture;

macro_rules! capture_ints {
    ($($m:ident: $t:ty),*) => {
        $(fn $m(self, v: $t) -> Result<Captured> {
            u64::try_from(v).map(Captured::Int).map_err(|_| range_err(v as i128, "an id"))
        })*
    };
}

impl ser::Serializer for Capture {
    type Ok = Captured;
    type Error = Error;
    type SerializeSeq = Impossible<Captured, Error>;
    type SerializeTuple = Impossible<Captured, Error>;
    type SerializeTupleStruct = Impossible<Captured, Error>;
    type SerializeTupleVariant = Impossible<Captured, Error>;
    type SerializeMap = Impossible<Captured, Error>;
    type SerializeStruct = Impossible<Captured, Error>;
    type SerializeStructVariant = Impossible<Captured, Error>;

    capture_ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_str(self, v: &str) -> Result<Captured> {
        Ok(Captured::Str(v.to_owned()))
    }

    reject!("not an id or a name"; serialize_bool(v: bool), serialize_f32(v: f32), serialize_f64(v: f64),
        serialize_char(v: char), serialize_bytes(v: &[u8]),
        serialize_none(), serialize_unit(), serialize_unit_struct(n: &'static str),
        serialize_unit_variant(n: &'static str, i: u32, v: &'static str));

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<Captured> {
        v.serialize(self)
    }

    reject_compound!(Captured; some, newtype_variant, seq, tuple, tuple_struct, tuple_variant, map, struct, struct_variant);
}

impl Capture {
    fn bad(&self, found: &str) -> Error {
        wrong("an id or a name", found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{Arbitrary, Gen, QuickCheck};

    /// Names of 0 to 20 bytes from an alphabet with NUL, multibyte characters and a
    /// leading BOM now and then: every branch of `put_key`.
    #[derive(Clone, Debug)]
    struct Name(String);

    impl Arbitrary for Name {
        fn arbitrary(g: &mut Gen) -> Self {
            let n = usize::arbitrary(g) % 21;
            let mut s: String = (0..n)
                .map(|_| {
                    *g.choose(&['a', 'z', '_', '\0', 'é', '\u{feff}', '9'])
                        .unwrap()
                })
                .collect();
            if u8::arbitrary(g) % 6 == 0 {
                s.insert(0, '\u{feff}');
            }
            while s.len() > 20 {
                s.pop();
            }
            Name(s)
        }
    }

    /// A name gives the bytes (or the refusal) of the general string writer.
    #[test]
    fn put_key_writes_what_the_general_way_writes() {
        fn prop(name: Name) -> bool {
            let (mut fast, mut general) = (vec![7u8], vec![7u8]);
            let (a, b) = (
                put_key(&mut fast, &name.0),
                put_tagged_str_long(&mut general, STRING_ID, &name.0),
            );
            a.is_ok() == b.is_ok() && (a.is_err() || fast == general)
        }
        QuickCheck::new()
            .tests(20_000)
            .quickcheck(prop as fn(Name) -> bool);
    }

    /// Constant names, folded where a derived `Serialize` inlines them: every short
    /// length, and the NUL and BOM refusals and escapes.
    #[test]
    fn constant_field_names_fold_to_the_same_bytes() {
        #[derive(serde::Serialize)]
        struct S {
            a: u8,
            bb: u8,
            ccc: u8,
            dddd: u8,
            eeeeeee: u8,
            ffffffff: u8,
            ggggggggggggggg: u8,
            hhhhhhhhhhhhhhhh: u8,
            iiiiiiiiiiiiiiiii: u8,
            #[serde(rename = "\u{feff}x")]
            bom: u8,
            #[serde(rename = "é")]
            e: u8,
            #[serde(rename = "")]
            empty: u8,
        }
        #[derive(serde::Serialize)]
        struct Nul {
            #[serde(rename = "a\0b")]
            a: u8,
        }
        let s = S {
            a: 1,
            bb: 2,
            ccc: 3,
            dddd: 4,
            eeeeeee: 5,
            ffffffff: 6,
            ggggggggggggggg: 7,
            hhhhhhhhhhhhhhhh: 8,
            iiiiiiiiiiiiiiiii: 9,
            bom: 10,
            e: 11,
            empty: 12,
        };
        let names = [
            "a",
            "bb",
            "ccc",
            "dddd",
            "eeeeeee",
            "ffffffff",
            "ggggggggggggggg",
            "hhhhhhhhhhhhhhhh",
            "iiiiiiiiiiiiiiiii",
            "\u{feff}x",
            "é",
            "",
        ];
        let mut expected = Vec::new();
        super::super::put_u64(&mut expected, 18, names.len() as u32);
        for (i, n) in names.iter().enumerate() {
            put_tagged_str_long(&mut expected, STRING_ID, n).unwrap();
            super::super::put_u64(&mut expected, 2, i as u32 + 1);
        }
        assert_eq!(crate::to_vec(&s).unwrap(), expected);
        let err = crate::to_vec(&Nul { a: 1 }).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Unrepresentable(m) if m.contains("NUL")),
            "{err}"
        );
    }
}
