//! RPC arguments as Godot 4 sends them: top-level bools and ints compressed into a
//! type byte, everything else as plain `var_to_bytes` (ints inside containers too);
//! and Godot 3's, all plain `var2bytes`, read in place the same way.

use godot_bin::de::{IoRead, SliceRead};
use godot_bin::{Config, Dialect, Variant, VariantType, Vector2, Vector3};
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, SeqAccess, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;

const BOOL: u8 = 1;
const INT: u8 = 2;
/// Plain Godot 4 type tags read by the typed fast paths.
const FLOAT: u8 = 3;
const STRING: u8 = 4;
pub(crate) const VECTOR2: u8 = 5;
pub(crate) const VECTOR3: u8 = 9;
/// Godot 3's Vector3 tag (its bool, int, float, String and Vector2 tags are Godot 4's).
const VECTOR3_G3: u8 = 7;

/// The Vector3 tag of Godot 4, or (`G3`) of Godot 3.
const fn vector3<const G3: bool>() -> u8 {
    if G3 {
        VECTOR3_G3
    } else {
        VECTOR3
    }
}

/// Godot 4's arguments: the receiving engine decodes them without full Objects, so
/// none is written (nor read).
pub(crate) fn config() -> Config {
    Config::new().dialect(Dialect::Godot4).encode_objects(false)
}

/// Appends `args` in the compressed form (without the count byte).
pub(crate) fn encode(args: &[Variant], out: &mut Vec<u8>) -> Result<()> {
    let cfg = config();
    for (index, arg) in args.iter().enumerate() {
        encode_one(&cfg, arg, index, out)?;
    }
    Ok(())
}

/// Appends argument `index`, `arg`, in the compressed form.
#[inline(always)]
pub(crate) fn encode_one(
    cfg: &Config,
    arg: &Variant,
    index: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    match *arg {
        Variant::Bool(v) => put_bool(v, out),
        Variant::Int(v) => put_int(v, out),
        // The usual arguments besides ints and bools, written here: half of a
        // movement call's encode went to godot_bin's serializer around them.
        Variant::Vector2(v) => put_floats(VECTOR2, [v.x, v.y], out),
        Variant::Vector3(v) => put_floats(VECTOR3, [v.x, v.y, v.z], out),
        // A String the engine reads back as it is (no NUL, no leading BOM): its
        // header, length, bytes and padding, as godot_bin writes them, without the
        // trip through `Variant`'s serializer (a chat call's encode 432 to 339
        // instructions).
        Variant::String(ref s) if plain_str(s) => put_str(s, out),
        _ => {
            let start = out.len();
            cfg.to_vec_into(arg, out)
                .map_err(|source| Error::at(ErrorKind::Argument { index, source }, start))?;
        }
    }
    Ok(())
}

/// A compressed bool: its value in the type byte's top bit.
#[inline]
pub(crate) fn put_bool(v: bool, out: &mut Vec<u8>) {
    out.push(BOOL | u8::from(v) << 7);
}

/// A compressed int in the engine's narrowest size.
#[inline]
pub(crate) fn put_int(v: i64, out: &mut Vec<u8>) {
    // The low bytes of the little-endian i64 are the narrower integer.
    let mode = int_mode(v);
    // Head and all 8 bytes in one fixed-size write, then cut to size (a write of
    // 1 << mode bytes is a call to memcpy).
    let mut b = [INT | mode << 6; 9];
    b[1..].copy_from_slice(&v.to_le_bytes());
    let end = out.len() + 1 + (1 << mode);
    out.extend_from_slice(&b);
    out.truncate(end);
}

/// A String for which [`plain_str`] holds: header, length, bytes and padding.
#[inline]
pub(crate) fn put_str(s: &str, out: &mut Vec<u8>) {
    let len = s.len();
    out.extend_from_slice(&[STRING, 0, 0, 0]);
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.extend_from_slice(&[0; 3][..(4 - len % 4) % 4]);
}

/// Whether godot_bin writes `s` as its bytes alone: no NUL (an error) and no leading
/// BOM (written doubled), at most `i32::MAX` bytes.
pub(crate) fn plain_str(s: &str) -> bool {
    s.len() <= i32::MAX as usize && !s.starts_with('\u{feff}') && no_nul(s.as_bytes())
}

/// Whether `b` has no NUL. A string of 8 to 64 bytes is checked a word at a time
/// without an early exit, quicker than memchr's setup or a byte loop.
#[inline]
fn no_nul(b: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // Nonzero exactly when a byte of `w` is 0 (a borrow sets bits only above a zero).
    let zero = |w: &[u8]| {
        let w = u64::from_le_bytes(w.try_into().unwrap());
        w.wrapping_sub(ONES) & !w & HIGHS
    };
    match b.len() {
        0..=7 => b.iter().fold(true, |ok, &c| ok & (c != 0)),
        // The last word overlaps the one before it when the length is not a multiple
        // of 8: bytes seen twice change nothing.
        n @ 8..=64 => {
            b.chunks_exact(8)
                .fold(zero(&b[n - 8..]), |f, w| f | zero(w))
                == 0
        }
        _ => !b.contains(&0),
    }
}

/// A plain single-precision math value: its header, then its floats (the bytes
/// godot_bin writes for it, checked by `vectors_are_written_as_godot_bin_writes_them`).
pub(crate) fn put_floats<const N: usize>(tag: u8, floats: [f32; N], out: &mut Vec<u8>) {
    // One write of a fixed-size buffer (N is 2 or 3), not one per float.
    let mut b = [0u8; 16];
    b[0] = tag;
    for (i, f) in floats.iter().enumerate() {
        b[4 + 4 * i..8 + 4 * i].copy_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&b[..4 + 4 * N]);
}

/// The size mode of a compressed int as the engine writes it: the smallest of 1, 2, 4
/// or 8 bytes (0 to 3).
fn int_mode(v: i64) -> u8 {
    if i8::try_from(v).is_ok() {
        0
    } else if i16::try_from(v).is_ok() {
        1
    } else if i32::try_from(v).is_ok() {
        2
    } else {
        3
    }
}

/// Whether compressed int `v` took more bytes (`head`'s size mode) than the engine
/// gives it.
fn wide(head: u8, v: i64) -> bool {
    int_mode(v) != head >> 6
}

/// A compressed int's 1, 2, 4 or 8 little-endian bytes, sign-extended from the top one.
/// Each size its own fixed-size load: a copy of a run-time length cost a call.
#[inline]
fn sign_extended(b: &[u8]) -> i64 {
    match *b {
        [v] => i64::from(v as i8),
        [a, b] => i64::from(i16::from_le_bytes([a, b])),
        [a, b, c, d] => i64::from(i32::from_le_bytes([a, b, c, d])),
        _ => <[u8; 8]>::try_from(b).map_or(0, i64::from_le_bytes),
    }
}

/// Reads `argc` compressed arguments from `r`, which must hold exactly them.
#[inline(always)]
pub(crate) fn decode(r: &mut Reader<'_>, argc: usize) -> Result<Vec<Variant>> {
    let cfg = config();
    let mut args = Vec::with_capacity(counted(r, argc)?);
    for index in 0..argc {
        args.push(one(r, &cfg, index)?);
    }
    Ok(args)
}

/// Checks `argc` compressed arguments from `r` as [`decode`] reads them, with the same
/// errors, without making them: bools, ints, floats, Strings, Vector2 and Vector3 as
/// [`fast_len`] reads them, others as godot_bin's decoder would
/// ([`crate::godot3::skip_variant`]).
#[inline(always)]
pub(crate) fn check(r: &mut Reader<'_>, argc: usize) -> Result<()> {
    counted(r, argc)?;
    for index in 0..argc {
        if let Plain(at) = compressed(r)? {
            match fast_len::<false>(&r.bytes[at..]) {
                Some(used) => r.pos = at + used,
                None => {
                    r.pos = at;
                    crate::godot3::skip_variant(&config(), r, index)?;
                }
            }
        }
    }
    Ok(())
}

/// `argc`, when `r` has a byte left for each argument (each takes one at least): a
/// count beyond the bytes left is refused before anything is allocated for it.
#[inline(always)]
fn counted(r: &Reader<'_>, argc: usize) -> Result<usize> {
    let left = r.bytes.len() - r.pos;
    if argc > left {
        return Err(Error::at(
            ErrorKind::Truncated("the arguments"),
            r.bytes.len(),
        ));
    }
    Ok(argc)
}

/// An argument's type byte: a compressed bool or int, read whole, or the offset of a
/// plain value (whose first byte the type byte is).
enum Head {
    Bool(bool),
    Int(i64),
    Plain(usize),
}
use Head::Plain;

#[inline(always)]
fn compressed(r: &mut Reader<'_>) -> Result<Head> {
    let at = r.pos;
    let head = r.u8("an argument")?;
    Ok(match head & 0x3F {
        BOOL if head & 0x40 == 0 => Head::Bool(head >> 7 == 1),
        INT => {
            let b = r.take(1 << (head >> 6), "a compressed int")?;
            let v = sign_extended(b);
            if wide(head, v) {
                return Err(Error::at(ErrorKind::WideInt(v, b.len()), at));
            }
            Head::Int(v)
        }
        BOOL => return Err(Error::at(ErrorKind::Compressed(head), at)),
        _ if head & 0xC0 != 0 => return Err(Error::at(ErrorKind::Compressed(head), at)),
        _ => Plain(at),
    })
}

/// One compressed value from `r` (argument `index`, for errors).
#[inline(always)]
pub(crate) fn one(r: &mut Reader<'_>, cfg: &Config, index: usize) -> Result<Variant> {
    let at = match compressed(r)? {
        Head::Bool(v) => return Ok(Variant::Bool(v)),
        Head::Int(v) => return Ok(Variant::Int(v)),
        Plain(at) => at,
    };
    if let Some((v, used)) = fast(&r.bytes[at..]) {
        r.pos = at + used;
        return Ok(v);
    }
    r.pos = at;
    crate::godot3::variant(cfg, r, index)
}

/// The bytes the plain value that `b` starts with takes when [`fast_in`] reads it, found
/// without making it (a String's text is checked, not copied).
#[inline(always)]
pub(crate) fn fast_len<const G3: bool>(b: &[u8]) -> Option<usize> {
    fast_value::<G3, ()>(b).map(|((), used)| used)
}

/// The common argument types read straight from their bytes, skipping the general
/// decoder's setup (most RPC arguments are these; strings read by godot_bin's own
/// `godot_str`). `None` whenever the general decoder might decide otherwise (a 64-bit
/// vector, bad UTF-8, a bool that is not 0 or 1, too few bytes): it then reads the
/// argument, so the two always agree.
#[inline(always)]
fn fast(b: &[u8]) -> Option<(Variant, usize)> {
    fast_in::<false>(b)
}

/// [`fast`] of a plain Godot 4 value, or (`G3`) a Godot 3 one (whose tags for these
/// types are Godot 4's but Vector3's).
#[inline(always)]
pub(crate) fn fast_in<const G3: bool>(b: &[u8]) -> Option<(Variant, usize)> {
    fast_value::<G3, Variant>(b)
}

/// What [`fast_value`] makes of a value it reads: its `Variant`, or (`()`, for a
/// check) nothing, which leaves nothing to drop.
trait Made<'a> {
    fn nil() -> Self;
    fn bool(v: bool) -> Self;
    fn int(v: i64) -> Self;
    fn float(v: f64) -> Self;
    fn string(v: &'a str) -> Self;
    fn vector2(v: Vector2) -> Self;
    fn vector3(v: Vector3) -> Self;
}

impl Made<'_> for Variant {
    fn nil() -> Self {
        Variant::Nil
    }
    fn bool(v: bool) -> Self {
        Variant::Bool(v)
    }
    fn int(v: i64) -> Self {
        Variant::Int(v)
    }
    fn float(v: f64) -> Self {
        Variant::Float(v)
    }
    fn string(v: &str) -> Self {
        Variant::String(v.to_owned())
    }
    fn vector2(v: Vector2) -> Self {
        Variant::Vector2(v)
    }
    fn vector3(v: Vector3) -> Self {
        Variant::Vector3(v)
    }
}

impl Made<'_> for () {
    fn nil() {}
    fn bool(_: bool) {}
    fn int(_: i64) {}
    fn float(_: f64) {}
    fn string(_: &str) {}
    fn vector2(_: Vector2) {}
    fn vector3(_: Vector3) {}
}

/// [`fast_in`]'s reading, made into an `M`, and the bytes the value takes.
#[inline(always)]
fn fast_value<'a, const G3: bool, M: Made<'a>>(b: &'a [u8]) -> Option<(M, usize)> {
    let word = |i: usize| -> Option<[u8; 4]> { b.get(i..i + 4)?.try_into().ok() };
    let f32_at = |i: usize| word(i).map(f32::from_le_bytes);
    let head = u32::from_le_bytes(word(0)?);
    let wide = head & (1 << 16) != 0;
    if head & !(0xFF | 1 << 16) != 0 {
        return None;
    }
    Some(match (head & 0xFF, wide) {
        (0, false) => (M::nil(), 4),
        (1, false) => match u32::from_le_bytes(word(4)?) {
            v @ (0 | 1) => (M::bool(v == 1), 8),
            _ => return None,
        },
        (2, false) => (M::int(i64::from(i32::from_le_bytes(word(4)?))), 8),
        (2, true) => {
            let v: [u8; 8] = b.get(4..12)?.try_into().ok()?;
            (M::int(i64::from_le_bytes(v)), 12)
        }
        (3, false) => (M::float(f64::from(f32_at(4)?)), 8),
        (3, true) => {
            let v: [u8; 8] = b.get(4..12)?.try_into().ok()?;
            (M::float(f64::from_le_bytes(v)), 12)
        }
        (4, false) => {
            let (text, used) = plain_text(b)?;
            (M::string(text), used)
        }
        (5, false) => (M::vector2(Vector2::new(f32_at(4)?, f32_at(8)?)), 12),
        (tag, false) if tag == u32::from(vector3::<G3>()) => (
            M::vector3(Vector3::new(f32_at(4)?, f32_at(8)?, f32_at(12)?)),
            16,
        ),
        _ => return None,
    })
}

/// The text of the plain String that `b` starts with (header included), as
/// godot_bin's decoder reads it (`godot_str`: cut at a NUL, one leading BOM dropped,
/// the padding ignored, as the engine does), and the bytes it takes. `None` (too
/// short, not UTF-8) leaves it to that decoder, for its error.
// Always: left to itself, the compiler stopped inlining it into `Args::to_variants`
// (a `chat` decode took 19 instructions more).
#[inline(always)]
fn plain_text(b: &[u8]) -> Option<(&str, usize)> {
    let head: [u8; 8] = b.get(..8)?.try_into().ok()?;
    if head[..4] != [STRING, 0, 0, 0] {
        return None;
    }
    let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
    let padded = len.checked_add(3)? & !3;
    let all = b.get(8..8usize.checked_add(padded)?)?;
    let text = godot_bin::de::godot_str(&all[..len]).ok()?;
    Some((text, 8 + padded))
}

/// A bool as Godot 4's plain bytes, for the typed decoder.
static TRUE: [u8; 8] = [1, 0, 0, 0, 1, 0, 0, 0];
static FALSE: [u8; 8] = [1, 0, 0, 0, 0, 0, 0, 0];

/// Where reading the arguments into a Rust value went wrong, in the packet.
#[derive(Clone, Copy)]
enum Failure {
    Truncated(&'static str, usize),
    Compressed(u8, usize),
    WideInt(i64, usize, usize),
    Argument(usize, usize),
}

/// Reads the `argc` compressed arguments of `bytes[start..]` (which must hold exactly
/// them) as a `T`, usually a tuple: each argument goes from the packet's bytes
/// straight to its Rust type through godot_bin's typed decoder, with no `Variant` in
/// between. Compressed bools and ints are given to that decoder as the plain Godot 4
/// value they stand for, so every type reads them as it reads a plain one. A value
/// may borrow from the packet (`&str`, `&[u8]`), not from a compressed argument.
/// Errors and their offsets are those of [`decode`].
#[inline(always)]
pub(crate) fn get<'x, T: Deserialize<'x>>(bytes: &'x [u8], start: usize, argc: usize) -> Result<T> {
    get_in::<T, false>(bytes, start, argc)
}

/// [`get`], or (`G3`) of a Godot 3 call's arguments: plain Godot 3 values, none
/// compressed, the usual ones read here and the rest by godot_bin's decoder in the
/// Godot 3 dialect, with the errors and offsets of [`crate::godot3::call_args`]. A
/// parameter, so that Godot 4's reads test nothing for Godot 3.
#[inline(always)]
pub(crate) fn get_in<'x, T: Deserialize<'x>, const G3: bool>(
    bytes: &'x [u8],
    start: usize,
    argc: usize,
) -> Result<T> {
    // Every argument takes a byte at least, and a Godot 3 value 4.
    if argc << (2 * usize::from(G3)) > bytes.len() - start {
        return Err(Error::at(
            ErrorKind::Truncated("the arguments"),
            bytes.len(),
        ));
    }
    read(Seq::<G3> {
        bytes,
        pos: start,
        index: 0,
        argc,
        byte_array: false,
        failed: None,
        trust: None,
        gave_up: false,
    })
}

/// [`get`] of a call that sends one PackedByteArray as its bytes alone (`raw`, not
/// empty), without a count or the array's header: `raw` is the one argument, lent
/// to a value that borrows bytes (`&[u8]`); other types read its plain form.
pub(crate) fn get_byte_array<'x, T: Deserialize<'x>>(raw: &'x [u8]) -> Result<T> {
    read(Seq::<false> {
        bytes: raw,
        pos: 0,
        index: 0,
        argc: 1,
        byte_array: true,
        failed: None,
        trust: None,
        gave_up: false,
    })
}

/// An empty argument list as a `T`, as [`get`] reads one: `()`, a unit struct,
/// `None`, or an empty sequence. For [`crate::Call::args`], so that a call without
/// arguments reads the same through `Variant`s as in place.
pub(crate) fn none<T: de::DeserializeOwned>() -> std::result::Result<T, godot_bin::Error> {
    T::deserialize(ArgList(&mut Seq::<false> {
        bytes: &[],
        pos: 0,
        index: 0,
        argc: 0,
        byte_array: false,
        failed: None,
        trust: None,
        gave_up: false,
    }))
}

/// `seq`'s arguments, all of them, as a `T`, or the error placed in the packet.
#[inline(always)]
fn read<'x, T: Deserialize<'x>, const G3: bool>(seq: Seq<'x, '_, G3>) -> Result<T> {
    // Structs in arguments on trust (godot_bin's `Trust`, held to the end); read again
    // without, should one of them give up. Nested in another decode, once, without.
    let (bytes, start, argc) = (seq.bytes, seq.pos, seq.argc);
    let trust = godot_bin::de::Trust::outermost();
    let again = Seq { ..seq };
    let mut seq = Seq {
        trust: trust.as_ref(),
        ..seq
    };
    let mut read = T::deserialize(ArgList(&mut seq));
    if seq.gave_up {
        seq = again;
        read = T::deserialize(ArgList(&mut seq));
    }
    let (pos, index, failed) = (seq.pos, seq.index, seq.failed);
    let value = read.map_err(|source| match failed {
        Some(Failure::Truncated(what, at)) => Error::at(ErrorKind::Truncated(what), at),
        Some(Failure::Compressed(head, at)) => Error::at(ErrorKind::Compressed(head), at),
        Some(Failure::WideInt(v, n, at)) => Error::at(ErrorKind::WideInt(v, n), at),
        Some(Failure::Argument(index, at)) => {
            let offset = at + source.offset().unwrap_or(0);
            Error::at(ErrorKind::Argument { index, source }, offset)
        }
        // The value's own complaint (a count or type that does not fit): at the
        // arguments, naming the first one it did not take.
        None => Error::at(ErrorKind::Arguments(source), start.saturating_sub(1)),
    })?;
    if index < argc {
        return Err(Error::at(
            ErrorKind::Arguments(de::Error::invalid_length(argc, &"fewer arguments")),
            pos,
        ));
    }
    if pos != bytes.len() {
        return Err(Error::at(ErrorKind::Trailing(bytes.len() - pos), pos));
    }
    Ok(value)
}

/// The arguments being read, one after the other; `'t` is the reading's leave to
/// read structs on trust. `G3`: a Godot 3 call's, every argument plain, read in the
/// Godot 3 dialect.
struct Seq<'x, 't, const G3: bool> {
    bytes: &'x [u8],
    pos: usize,
    /// Arguments read so far.
    index: usize,
    argc: usize,
    /// `bytes` are one PackedByteArray's (see [`get_byte_array`]).
    byte_array: bool,
    failed: Option<Failure>,
    /// Leave to read structs on trust, and whether reading on trust gave up.
    trust: Option<&'t godot_bin::de::Trust>,
    gave_up: bool,
}

impl<'x, const G3: bool> Seq<'x, '_, G3> {
    /// The decoder's settings for these arguments' dialect.
    fn config(&self) -> Config {
        match G3 {
            true => Config::new().dialect(Dialect::Godot3),
            false => config(),
        }
    }

    fn fail<E>(&mut self, failure: Failure) -> std::result::Result<E, godot_bin::Error> {
        self.failed = Some(failure);
        Err(de::Error::custom("an argument"))
    }

    /// The next argument, read by `seed`.
    fn next<S: DeserializeSeed<'x>>(
        &mut self,
        seed: S,
    ) -> std::result::Result<S::Value, godot_bin::Error> {
        let at = self.pos;
        if self.byte_array {
            return seed.deserialize(Arg {
                plain: &[],
                compressed: Some(self.bytes.len()),
                fast: Fast::Bytes(self.bytes),
                at,
                seq: self,
            });
        }
        // Godot 3's are all plain: a plain bool or int is told here, the rest by their
        // readers below, and anything else goes to the decoder, as `godot3::call_args`
        // reads them (a missing one included).
        if G3 {
            let plain = &self.bytes[at..];
            return seed.deserialize(Arg {
                plain,
                compressed: None,
                fast: plain3(plain),
                at,
                seq: self,
            });
        }
        let Some(&head) = self.bytes.get(at) else {
            return self.fail(Failure::Truncated("an argument", at));
        };
        let arg = match head & 0x3F {
            BOOL if head & 0x40 == 0 => {
                let v = head >> 7 == 1;
                Arg {
                    plain: if v { &TRUE } else { &FALSE },
                    compressed: Some(1),
                    fast: Fast::Bool(v),
                    at,
                    seq: self,
                }
            }
            INT => {
                let n = 1 << (head >> 6);
                let Some(b) = self.bytes.get(at + 1..at + 1 + n) else {
                    return self.fail(Failure::Truncated("a compressed int", at + 1));
                };
                let v = sign_extended(b);
                if wide(head, v) {
                    return self.fail(Failure::WideInt(v, n, at));
                }
                Arg {
                    plain: &[],
                    compressed: Some(1 + n),
                    fast: Fast::Int(v),
                    at,
                    seq: self,
                }
            }
            BOOL => return self.fail(Failure::Compressed(head, at)),
            _ if head & 0xC0 != 0 => return self.fail(Failure::Compressed(head, at)),
            _ => Arg {
                plain: &self.bytes[at..],
                compressed: None,
                fast: Fast::Plain,
                at,
                seq: self,
            },
        };
        seed.deserialize(arg)
    }
}

/// A plain Godot 3 bool or int at the start of `b`, as godot_bin's decoder reads
/// one into a bool or an integer type (the bytes it takes: [`Arg::used`]);
/// `Fast::Plain` for anything else.
#[inline(always)]
fn plain3(b: &[u8]) -> Fast<'_> {
    let Some(&head) = b.first_chunk::<8>() else {
        return Fast::Plain;
    };
    let word = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    match head[..4] {
        [BOOL, 0, 0, 0] => Fast::Bool(word != 0),
        [INT, 0, 0, 0] => Fast::Int(i64::from(word as i32)),
        [INT, 0, 1, 0] => match b.get(4..12).and_then(|v| <[u8; 8]>::try_from(v).ok()) {
            Some(v) => Fast::Int(i64::from_le_bytes(v)),
            None => Fast::Plain,
        },
        _ => Fast::Plain,
    }
}

/// What an argument is known to be without the general decoder.
#[derive(Clone, Copy)]
enum Fast<'x> {
    Bool(bool),
    Int(i64),
    /// A PackedByteArray of these bytes, sent alone.
    Bytes(&'x [u8]),
    Plain,
}

/// One argument as a serde `Deserializer`: a compressed bool or int (Godot 3: a
/// plain one), or a plain 32-bit float, Vector2, Vector3 or String asked for as
/// itself, is read here, its visitor's errors placed as the decoder places them;
/// anything else by godot_bin's decoder from the argument's plain bytes, so the two
/// always agree (checked by `the_typed_readers_read_as_the_decoder` below and
/// `typed_reads_agree_with_reading_the_variants` in `tests/call_ref.rs`).
struct Arg<'s, 'x, 't, const G3: bool> {
    seq: &'s mut Seq<'x, 't, G3>,
    /// The argument's plain bytes (and what follows, for one in the packet;
    /// a bool's made up; empty for an int or a PackedByteArray sent alone, whose
    /// plain form is made when it is needed).
    plain: &'x [u8],
    /// A compressed argument's length in the packet.
    compressed: Option<usize>,
    fast: Fast<'x>,
    /// Its offset in the packet.
    at: usize,
}

impl<'x, const G3: bool> Arg<'_, 'x, '_, G3> {
    /// Read here: the argument took `plain_len` bytes of its plain form.
    fn done(self, plain_len: usize) {
        self.seq.pos = self.at + self.compressed.unwrap_or(plain_len);
    }

    /// The plain argument's `N` floats, as their little-endian bytes, after a 4-byte
    /// header of `tag`, if it is that.
    fn floats<const N: usize>(&self, tag: u8) -> Option<&'x [u8]> {
        if !typed_readers() || self.compressed.is_some() || self.plain.get(..4)? != [tag, 0, 0, 0] {
            return None;
        }
        self.plain.get(4..4 + 4 * N)
    }

    /// The bytes a plain Godot 3 bool or int takes: 12 for a 64-bit int (its header's
    /// flag), else 8. (A compressed argument's length is `compressed`.)
    fn used(&self) -> usize {
        match self.plain.get(2) {
            Some(1) => 12,
            _ => 8,
        }
    }

    /// A compressed int's value, or a plain Godot 3 one's.
    fn int(&self) -> Option<i64> {
        match self.fast {
            Fast::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The bytes of a PackedByteArray sent alone.
    fn bytes(&self) -> Option<&'x [u8]> {
        match self.fast {
            Fast::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The plain argument's text, if it is a String (see [`plain_text`]), with the
    /// bytes it takes.
    fn text(&self) -> Option<(&'x str, usize)> {
        match self.compressed {
            None if typed_readers() => plain_text(self.plain),
            _ => None,
        }
    }

    /// The plain argument's one 32-bit float, if it is that.
    fn float(&self) -> Option<f32> {
        let b = self.floats::<1>(FLOAT)?;
        Some(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Through godot_bin's decoder (`packet` and `made` are the same call, given the
    /// `visitor`): of the argument's plain bytes in the packet, which a value may
    /// borrow, or of a plain form made here, which it cannot. Out of line, so that
    /// the fast paths around it inline into the visitor's loop.
    #[inline(never)]
    fn general<V, T>(
        self,
        visitor: V,
        packet: impl FnOnce(
            &mut godot_bin::Deserializer<SliceRead<'x>>,
            V,
        ) -> std::result::Result<T, godot_bin::Error>,
        made: impl FnOnce(
            &mut godot_bin::Deserializer<IoRead<&[u8]>>,
            V,
        ) -> std::result::Result<T, godot_bin::Error>,
    ) -> std::result::Result<T, godot_bin::Error> {
        let mut int = [0u8; 12];
        let array;
        let plain: &[u8] = match self.fast {
            // Godot 3's are plain in the packet.
            Fast::Int(v) if !G3 => match i32::try_from(v) {
                Ok(v) => {
                    int[..4].copy_from_slice(&[2, 0, 0, 0]);
                    int[4..8].copy_from_slice(&v.to_le_bytes());
                    &int[..8]
                }
                Err(_) => {
                    int[..4].copy_from_slice(&[2, 0, 1, 0]);
                    int[4..].copy_from_slice(&v.to_le_bytes());
                    &int
                }
            },
            Fast::Bytes(raw) => match config().to_vec(&godot_bin::PoolByteArray(raw.to_vec())) {
                Ok(plain) => {
                    array = plain;
                    &array
                }
                Err(e) => return self.finish(0, Err(e)),
            },
            Fast::Int(_) | Fast::Bool(_) | Fast::Plain => {
                let cfg = self.seq.config();
                let mut de = godot_bin::Deserializer::with_config(SliceRead::new(self.plain), cfg);
                if let Some(trust) = self.seq.trust {
                    de = de.on_trust(trust);
                }
                let read = packet(&mut de, visitor);
                self.seq.gave_up |= de.gave_up();
                let used = de.byte_offset();
                return self.finish(used, read);
            }
        };
        let mut de = godot_bin::Deserializer::with_config(IoRead::new(plain), config());
        let read = made(&mut de, visitor);
        let used = de.byte_offset();
        self.finish(used, read)
    }

    /// The argument read, taking `plain_len` bytes of its plain form, or the error of
    /// reading it.
    #[inline]
    fn finish<T>(
        self,
        plain_len: usize,
        read: std::result::Result<T, godot_bin::Error>,
    ) -> std::result::Result<T, godot_bin::Error> {
        match read {
            Ok(v) => {
                self.done(plain_len);
                Ok(v)
            }
            Err(e) => {
                self.seq.failed = Some(Failure::Argument(self.seq.index, self.at));
                // A compressed argument's offsets in its plain form mean nothing.
                Err(match self.compressed {
                    Some(_) => e.into_kind().into(),
                    None => e,
                })
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Unit tests: the typed readers here are off, every argument goes to the decoder.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the typed readers here may read an argument: always, but in the unit
/// tests that hold them to godot_bin's decoder.
#[inline(always)]
fn typed_readers() -> bool {
    #[cfg(test)]
    if GENERAL_ONLY.with(std::cell::Cell::get) {
        return false;
    }
    true
}

/// Methods with a fast path: `$fast` gives the value when the argument is one, which
/// took `$used` plain bytes; anything else goes through godot_bin's decoder. The
/// visitor's own errors (an int out of its type's range) are placed as that decoder
/// places them.
macro_rules! fast {
    ($($m:ident: $fast:expr, $used:expr => $visit:ident;)*) => {$(
        #[inline]
        fn $m<V: Visitor<'x>>(self, visitor: V) -> std::result::Result<V::Value, godot_bin::Error> {
            match if typed_readers() { ($fast)(&self) } else { None } {
                Some(v) => {
                    let used = ($used)(&self);
                    let read = visitor.$visit::<godot_bin::Error>(v).map_err(|e| e.or_at(0));
                    self.finish(used, read)
                }
                None => self.general(visitor, |de, v| de.$m(v), |de, v| de.$m(v)),
            }
        }
    )*};
}

macro_rules! general {
    ($($m:ident($($a:ident: $t:ty),*)),* $(,)?) => {$(
        fn $m<V: Visitor<'x>>(self, $($a: $t,)* visitor: V) -> std::result::Result<V::Value, godot_bin::Error> {
            self.general(visitor, |de, v| de.$m($($a,)* v), |de, v| de.$m($($a,)* v))
        }
    )*};
}

impl<'x, const G3: bool> Deserializer<'x> for Arg<'_, 'x, '_, G3> {
    type Error = godot_bin::Error;

    // Every integer type as godot_bin reads an int: the i64 to the visitor, which
    // checks its own range.
    fast! {
        deserialize_bool: |a: &Self| match a.fast { Fast::Bool(v) => Some(v), _ => None }, Self::used => visit_bool;
        deserialize_i8: Self::int, Self::used => visit_i64;
        deserialize_i16: Self::int, Self::used => visit_i64;
        deserialize_i32: Self::int, Self::used => visit_i64;
        deserialize_i64: Self::int, Self::used => visit_i64;
        deserialize_u8: Self::int, Self::used => visit_i64;
        deserialize_u16: Self::int, Self::used => visit_i64;
        deserialize_u32: Self::int, Self::used => visit_i64;
        deserialize_u64: Self::int, Self::used => visit_i64;
        deserialize_f32: Self::float, |_: &Self| 8 => visit_f32;
        deserialize_f64: |a: &Self| a.float().map(f64::from), |_: &Self| 8 => visit_f64;
        // A PackedByteArray sent alone is lent as the packet's bytes, as godot_bin
        // lends one in the packet.
        deserialize_bytes: Self::bytes, Self::used => visit_borrowed_bytes;
        deserialize_byte_buf: Self::bytes, Self::used => visit_borrowed_bytes;
        deserialize_any: Self::bytes, Self::used => visit_borrowed_bytes;
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'x>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        // A math type's visitor takes its floats as their bytes in one piece, as
        // godot_bin's decoder gives them.
        if name == VariantType::Vector3.serde_name() {
            if let Some(v) = self.floats::<3>(vector3::<G3>()) {
                let read = visitor
                    .visit_bytes::<godot_bin::Error>(v)
                    .map_err(|e| e.or_at(0));
                return self.finish(16, read);
            }
        } else if name == VariantType::Vector2.serde_name() {
            if let Some(v) = self.floats::<2>(VECTOR2) {
                let read = visitor
                    .visit_bytes::<godot_bin::Error>(v)
                    .map_err(|e| e.or_at(0));
                return self.finish(12, read);
            }
        }
        self.general(
            visitor,
            |de, v| de.deserialize_tuple_struct(name, len, v),
            |de, v| de.deserialize_tuple_struct(name, len, v),
        )
    }

    // A String as it lies in the packet, lent as godot_bin lends one from a slice.
    #[inline]
    fn deserialize_str<V: Visitor<'x>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        match self.text() {
            Some((text, used)) => {
                let read = visitor
                    .visit_borrowed_str::<godot_bin::Error>(text)
                    .map_err(|e| e.or_at(0));
                self.finish(used, read)
            }
            None => self.general(
                visitor,
                |de, v| de.deserialize_str(v),
                |de, v| de.deserialize_str(v),
            ),
        }
    }

    #[inline]
    fn deserialize_string<V: Visitor<'x>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        self.deserialize_str(visitor)
    }

    general!(
        deserialize_i128(),
        deserialize_u128(),
        deserialize_char(),
        deserialize_option(),
        deserialize_unit(),
        deserialize_seq(),
        deserialize_map(),
        deserialize_identifier(),
        deserialize_ignored_any(),
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    );

    fn is_human_readable(&self) -> bool {
        false
    }
}

impl<'x, const G3: bool> SeqAccess<'x> for Seq<'x, '_, G3> {
    type Error = godot_bin::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'x>>(
        &mut self,
        seed: S,
    ) -> std::result::Result<Option<S::Value>, godot_bin::Error> {
        if self.index == self.argc {
            return Ok(None);
        }
        let v = self.next(seed)?;
        self.index += 1;
        Ok(Some(v))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.argc - self.index)
    }
}

/// The arguments as one serde value: a sequence (tuples, `Vec`, structs by
/// position), or `()` when there are none.
struct ArgList<'s, 'x, 't, const G3: bool>(&'s mut Seq<'x, 't, G3>);

impl<'x, const G3: bool> Deserializer<'x> for ArgList<'_, 'x, '_, G3> {
    type Error = godot_bin::Error;

    fn deserialize_any<V: Visitor<'x>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        visitor.visit_seq(self.0)
    }

    fn deserialize_unit<V: Visitor<'x>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        match self.0.argc {
            0 => visitor.visit_unit(),
            _ => visitor.visit_seq(self.0),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'x>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        self.deserialize_unit(visitor)
    }

    // No arguments are `None`; any are `Some` of the list.
    fn deserialize_option<V: Visitor<'x>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        match self.0.argc {
            0 => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'x>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, godot_bin::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'x>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

    /// A string argument that must be "dash": its visitor refuses anything else (a
    /// visitor's own error, which the decoder places at the argument).
    #[derive(Debug)]
    struct Dash;

    impl<'de> Deserialize<'de> for Dash {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Dash, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Dash;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("\"dash\"")
                }
                fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Dash, E> {
                    match s {
                        "dash" => Ok(Dash),
                        _ => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
                    }
                }
            }
            d.deserialize_str(V)
        }
    }

    /// An argument of a type the typed readers read, mostly.
    #[derive(Clone, Debug)]
    struct Typed(Variant);

    impl Arbitrary for Typed {
        fn arbitrary(g: &mut Gen) -> Self {
            let int = |g: &mut Gen| -> i64 {
                *g.choose(&[0, 1, -1, 255, 256, -129, 65535, 1 << 31, i64::MIN, i64::MAX])
                    .unwrap()
            };
            Typed(match u8::arbitrary(g) % 9 {
                0 => Variant::Bool(bool::arbitrary(g)),
                1 => Variant::Int(int(g)),
                2 => Variant::Int(i64::arbitrary(g)),
                3 => Variant::Float(f64::from(f32::arbitrary(g))),
                4 => Variant::Float(f64::arbitrary(g)),
                5 => Variant::from(*g.choose(&["dash", "", "run", "\u{feff}dash"]).unwrap()),
                6 => Variant::Vector2(Vector2::new(f32::arbitrary(g), 1.5)),
                7 => Variant::Vector3(Vector3::new(f32::arbitrary(g), -2.0, 0.5)),
                _ => Variant::Nil,
            })
        }
    }

    /// Every typed reader gives what godot_bin's decoder gives with the readers off:
    /// the same value, or the same error, its message and every offset included (a
    /// value its visitor refuses: an int out of a `u8`'s range, a string that is not
    /// "dash"), for Godot 4's compressed and plain arguments and Godot 3's plain
    /// ones, whole and with a byte changed.
    #[test]
    fn the_typed_readers_read_as_the_decoder() {
        fn prop(args: Vec<Typed>, g3: bool, change: Option<(usize, u8)>) -> TestResult {
            if args.is_empty() || args.len() > 255 {
                return TestResult::discard();
            }
            let args: Vec<Variant> = args.into_iter().map(|a| a.0).collect();
            let mut bytes = Vec::new();
            if g3 {
                let cfg = Config::new().dialect(Dialect::Godot3);
                for a in &args {
                    cfg.to_vec_into(a, &mut bytes).unwrap();
                }
            } else {
                encode(&args, &mut bytes).unwrap();
            }
            if let Some((at, b)) = change {
                let at = at % bytes.len();
                bytes[at] = b;
            }
            fn both<'x, T: Deserialize<'x> + std::fmt::Debug>(
                bytes: &'x [u8],
                argc: usize,
                g3: bool,
            ) -> (String, String) {
                let read = || match g3 {
                    true => format!("{:?}", get_in::<T, true>(bytes, 0, argc)),
                    false => format!("{:?}", get_in::<T, false>(bytes, 0, argc)),
                };
                let typed = read();
                GENERAL_ONLY.with(|g| g.set(true));
                let general = read();
                GENERAL_ONLY.with(|g| g.set(false));
                (typed, general)
            }
            macro_rules! agree {
                ($($t:ty),*) => {$(
                    let (typed, general) = both::<$t>(&bytes, args.len(), g3);
                    if typed != general {
                        return TestResult::error(format!(
                            "{} from {args:?} (Godot 3: {g3}): {typed}, by the decoder {general}",
                            stringify!($t)
                        ));
                    }
                )*};
            }
            agree!(
                (bool,),
                (i64,),
                (u8,),
                (i8, bool),
                (u64,),
                (f32,),
                (f64,),
                (Vector2,),
                (Vector3,),
                (&str,),
                (String,),
                (Dash,),
                (Vector3, &str, i8, bool),
                (u16, u16, u16, u16),
                Vec<Variant>
            );
            TestResult::passed()
        }
        QuickCheck::new()
            .tests(4000)
            .quickcheck(prop as fn(Vec<Typed>, bool, Option<(usize, u8)>) -> TestResult);
    }

    /// The word-at-a-time NUL test finds a NUL at every place of every length up to
    /// past the long-string cut-over, next to the bytes whose borrows could mislead a
    /// word test (0x01, 0x80, 0xFF), and finds none where there is none.
    #[test]
    fn no_nul_finds_every_nul() {
        for len in 0..=72 {
            for fill in [0x01, 0x80, 0xFF, b'a'] {
                let b = vec![fill; len];
                assert!(no_nul(&b), "len {len} fill {fill:#x}");
                for at in 0..len {
                    let mut b = b.clone();
                    b[at] = 0;
                    assert!(!no_nul(&b), "len {len} fill {fill:#x} NUL at {at}");
                }
            }
        }
    }

    /// A String argument read in place into a `String` or a `&str` (the typed
    /// reader's own path for a String as it lies in the packet) gives what
    /// godot_bin's decoder gives for the same bytes, and fails where it fails: text
    /// with NULs, BOMs, bytes that are not UTF-8, padding that is not zero, lengths
    /// past the end.
    #[test]
    fn strings_read_in_place_agree_with_the_decoder() {
        fn prop(text: String, edits: Vec<(usize, u8)>, pad: u8, cut: u8) -> bool {
            let mut t = text.into_bytes();
            let n = t.len();
            for (i, v) in edits.into_iter().take(2).filter(|_| n > 0) {
                t[i % n] = v;
            }
            let mut b = vec![STRING, 0, 0, 0];
            b.extend_from_slice(&(n as u32).to_le_bytes());
            b.extend_from_slice(&t);
            b.resize(8 + ((n + 3) & !3), 0);
            if pad % 3 == 1 && b.len() > 8 + n {
                b[8 + n] = pad;
            }
            if cut % 5 == 0 {
                b.truncate(b.len() - usize::from(cut % 3).min(b.len() - 8));
            }
            let general = config()
                .take_from_slice::<String>(&b)
                .ok()
                .filter(|(_, used)| *used == b.len())
                .map(|(s, _)| s);
            let owned = get::<(String,)>(&b, 0, 1).ok().map(|(s,)| s);
            let borrowed = get::<(&str,)>(&b, 0, 1).ok().map(|(s,)| s.to_owned());
            owned == general && borrowed == general
        }
        QuickCheck::new()
            .tests(20_000)
            .quickcheck(prop as fn(String, Vec<(usize, u8)>, u8, u8) -> bool);
        // As a peer may send them (godot_bin's encoder refuses a NUL and doubles a
        // leading BOM): the engine cuts at a NUL and drops one leading BOM.
        for (text, read) in [
            (&b"hello"[..], "hello"),
            (b"a\0b", "a"),
            (b"\xef\xbb\xbfx", "x"),
        ] {
            let mut b = vec![STRING, 0, 0, 0, text.len() as u8, 0, 0, 0];
            b.extend_from_slice(text);
            b.resize(8 + ((text.len() + 3) & !3), 0);
            assert_eq!(get::<(&str,)>(&b, 0, 1).unwrap(), (read,));
            assert_eq!(get::<(String,)>(&b, 0, 1).unwrap(), (read.to_owned(),));
        }
    }

    #[test]
    fn vectors_are_written_as_godot_bin_writes_them() {
        fn prop(x: u32, y: u32, z: u32) -> bool {
            let [x, y, z] = [x, y, z].map(f32::from_bits);
            [
                Variant::Vector2(Vector2::new(x, y)),
                Variant::Vector3(Vector3::new(x, y, z)),
            ]
            .iter()
            .all(|v| {
                let mut out = vec![0xAA];
                encode(std::slice::from_ref(v), &mut out).unwrap();
                out[1..] == config().to_vec(v).unwrap()[..]
            })
        }
        QuickCheck::new()
            .tests(20_000)
            .quickcheck(prop as fn(u32, u32, u32) -> bool);
    }

    #[test]
    fn strings_are_written_as_godot_bin_writes_them() {
        // `bom` puts a BOM at the front (written doubled), `nul` a NUL at that place
        // (an error), each on any text, multibyte characters included.
        fn prop(text: String, bom: bool, nul: Option<usize>) -> bool {
            let mut s = text;
            if let Some(at) = nul {
                let at = (0..=at % (s.len() + 1))
                    .rev()
                    .find(|&i| s.is_char_boundary(i));
                s.insert(at.unwrap_or(0), '\0');
            }
            if bom {
                s.insert(0, '\u{feff}');
            }
            let v = Variant::String(s);
            let mut out = vec![0xAA];
            match (
                encode(std::slice::from_ref(&v), &mut out),
                config().to_vec(&v),
            ) {
                (Ok(()), Ok(bytes)) => out[1..] == bytes[..],
                (Err(e), Err(expected)) => {
                    matches!(e.kind(), ErrorKind::Argument { index: 0, source }
                        if source.to_string() == expected.to_string())
                        && e.offset() == 1
                }
                _ => false,
            }
        }
        QuickCheck::new()
            .tests(20_000)
            .quickcheck(prop as fn(String, bool, Option<usize>) -> bool);
        // Padding to every length mod 4, and a string at the 16-byte edge.
        for len in 0..=20 {
            assert!(prop(
                "é".repeat(len / 2) + &"a".repeat(len % 2),
                false,
                None
            ));
        }
    }

    /// Wherever the fast path reads an argument, the general decoder reads the same
    /// value and length: on random bytes behind each fast type's header, and on
    /// values of those types written by the encoder.
    #[test]
    fn the_fast_path_agrees_with_the_decoder() {
        fn prop(kind: u8, wide: bool, body: Vec<u8>, g3: bool) -> TestResult {
            // Godot 3's tags, and the tags of Godot 4's Vector3 in both.
            let kind = [0u8, 1, 2, 3, 4, 5, 7, 9][usize::from(kind) % 8];
            let mut b = vec![kind, 0, u8::from(wide), 0];
            b.extend_from_slice(&body);
            let (fast, dialect) = match g3 {
                true => (fast_in::<true>(&b), Dialect::Godot3),
                false => (fast(&b), Dialect::Godot4),
            };
            let Some((v, used)) = fast else {
                return TestResult::discard();
            };
            match Config::new()
                .dialect(dialect)
                .take_from_slice::<Variant>(&b)
            {
                Ok((w, n)) => {
                    TestResult::from_bool(n == used && format!("{v:?}") == format!("{w:?}"))
                }
                Err(e) => TestResult::error(format!("{e}: fast path read {v:?}")),
            }
        }
        QuickCheck::new()
            .tests(20_000)
            .max_tests(200_000)
            .quickcheck(prop as fn(u8, bool, Vec<u8>, bool) -> TestResult);

        let cfg = config();
        let values = [
            Variant::Nil,
            Variant::Bool(true),
            Variant::Int(-5),
            Variant::Int(1 << 40),
            Variant::Float(1.5),
            Variant::Float(0.1),
            Variant::Float(f64::NAN),
            Variant::String(String::new()),
            Variant::String("héllo".into()),
            Variant::String("\u{feff}bom".into()),
            Variant::Vector2(Vector2::new(1.0, -2.0)),
            Variant::Vector3(Vector3::new(1.0, 2.0, f32::INFINITY)),
        ];
        for v in values {
            let b = cfg.to_vec(&v).unwrap();
            let general = cfg.take_from_slice::<Variant>(&b).unwrap();
            if let Some((f, n)) = fast(&b) {
                assert_eq!(
                    (format!("{f:?}"), n),
                    (format!("{:?}", general.0), general.1)
                );
            }
        }
        // The common ones do take the fast path, in both dialects.
        let cfg3 = Config::new().dialect(Dialect::Godot3);
        for v in [
            Variant::Int(3),
            Variant::String("hi".into()),
            Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
        ] {
            assert!(fast(&cfg.to_vec(&v).unwrap()).is_some(), "{v:?}");
            let b = cfg3.to_vec(&v).unwrap();
            assert_eq!(
                fast_in::<true>(&b).map(|(f, n)| (format!("{f:?}"), n)),
                Some((format!("{v:?}"), b.len())),
                "Godot 3: {v:?}"
            );
        }
    }

    /// A struct argument whose keys come in field order is read on trust (godot_bin's
    /// `Deserializer::on_trust`, with the thread's `Trust`); keys out of order, or a
    /// field under its name and an alias, make the arguments be read again without
    /// trust: the same value, or the same error, as godot_bin's decoder gives for the
    /// argument.
    #[test]
    fn struct_arguments_are_read_on_trust_or_again() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Unit {
            hp: i64,
            name: String,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Aliased {
            #[serde(alias = "b")]
            a: i64,
            c: i64,
        }
        let dict = |entries: &[(&str, Variant)]| {
            let mut d = godot_bin::Dictionary::new();
            for (k, v) in entries {
                d.insert(Variant::from(*k), v.clone());
            }
            Variant::Dictionary(d)
        };
        let packed = |args: &[Variant]| {
            let mut b = Vec::new();
            encode(args, &mut b).unwrap();
            b
        };
        let unit = || Unit {
            hp: 7,
            name: "a".into(),
        };
        let in_order = dict(&[("hp", 7.into()), ("name", "a".into())]);
        let swapped = dict(&[("name", "a".into()), ("hp", 7.into())]);
        for args in [
            [in_order.clone(), in_order.clone()],
            [in_order.clone(), swapped.clone()],
            [swapped.clone(), in_order],
        ] {
            let b = packed(&args);
            assert_eq!(get::<(Unit, Unit)>(&b, 0, 2).unwrap(), (unit(), unit()));
        }
        let both = dict(&[("a", 1.into()), ("b", 2.into()), ("c", 3.into())]);
        let b = packed(std::slice::from_ref(&both));
        let err = get::<(Aliased,)>(&b, 0, 1).unwrap_err();
        let general = config()
            .from_slice::<Aliased>(&config().to_vec(&both).unwrap())
            .unwrap_err();
        assert!(
            err.to_string().contains(&general.to_string()),
            "{err} / {general}"
        );
        assert!(
            general.to_string().contains("duplicate field `a`"),
            "{general}"
        );
    }

    /// A value that does not fit the arguments (here more of them than were sent)
    /// complains at the arguments' count, the byte before the first one, whether or
    /// not structs were read on trust.
    #[test]
    fn a_value_that_does_not_fit_the_arguments_is_an_error_at_their_count() {
        let mut b = vec![2];
        encode(&[Variant::Int(1), Variant::Int(2)], &mut b).unwrap();
        let e = get::<(i64, i64, i64)>(&b, 1, 2).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Arguments(_)), "{e}");
        assert_eq!(e.offset(), 0, "{e}");
    }

    /// Arguments that carry the next level's arguments, read by their own
    /// `Deserialize` (a review's case): only the outermost read is on trust, so a
    /// failure at the bottom reads the innermost level twice, not twice per level.
    #[test]
    fn arguments_read_inside_arguments_are_read_once_without_trust() {
        thread_local! {
            static INNERMOST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Level {
            depth: i64,
            #[serde(deserialize_with = "next_level")]
            next: Option<Box<Level>>,
        }
        fn next_level<'de, D: Deserializer<'de>>(
            d: D,
        ) -> std::result::Result<Option<Box<Level>>, D::Error> {
            let bytes = <&[u8]>::deserialize(d)?;
            if bytes.is_empty() {
                INNERMOST.with(|n| n.set(n.get() + 1));
                return Err(de::Error::custom("the innermost level"));
            }
            get::<(Level,)>(bytes, 0, 1)
                .map(|(l,)| Some(Box::new(l)))
                .map_err(de::Error::custom)
        }
        let mut bytes = Vec::new();
        for depth in 0..12 {
            let mut level = godot_bin::Dictionary::new();
            level.insert(Variant::from("depth"), Variant::Int(depth));
            level.insert(
                Variant::from("next"),
                Variant::PoolByteArray(godot_bin::PoolByteArray(bytes)),
            );
            bytes = Vec::new();
            encode(&[Variant::Dictionary(level)], &mut bytes).unwrap();
        }
        let err = get::<(Level,)>(&bytes, 0, 1).unwrap_err();
        assert!(err.to_string().contains("the innermost level"), "{err}");
        assert_eq!(INNERMOST.with(|n| n.get()), 2);
    }
}
