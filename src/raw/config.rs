//! The settings of the raw layout: what the GDScript on the other side does.

use std::io::{self, Read};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::ser::{Counted, VecLen};
use crate::error::{Error, ErrorKind, Result};

/// Byte order of numbers and length prefixes (`StreamPeer.big_endian`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Godot's default.
    #[default]
    Little,
    /// `big_endian = true`.
    Big,
}

/// How strings are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strings {
    /// `put_utf8_string`: a `u32` byte length, then UTF-8. Any string fits.
    #[default]
    Utf8,
    /// UTF-8 ending in a NUL byte, read with `PackedByteArray.get_string_from_utf8`
    /// (which stops at the first NUL): strings holding a NUL are refused.
    Nul,
    /// Godot 3's `put_string`: a `u32` length, then one byte per character (Latin-1).
    /// Characters above U+00FF are refused (the engine would cut them to a byte).
    Godot3,
    /// Godot 4's `put_string`: a `u32` length, then one byte per character, ASCII.
    /// Other characters are refused (the engine would write a space).
    Godot4,
}

impl Strings {
    /// Whether strings are UTF-8 (whose readers drop a leading BOM).
    pub(crate) fn is_utf8(self) -> bool {
        matches!(self, Strings::Utf8 | Strings::Nul)
    }
}

/// The width of an enum's variant id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Width {
    /// `put_u8`: the usual packet id.
    #[default]
    U8,
    /// `put_u16`.
    U16,
    /// `put_u32`.
    U32,
}

/// What comes before the items of a sequence, a map or a byte string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Count {
    /// A `u8` count.
    U8,
    /// A `u16` count.
    U16,
    /// A `u32` count (`put_u32(array.size())`).
    #[default]
    U32,
    /// No count: the items run to the end of the message, so this can only be the
    /// last field (a packet's trailing payload). Only the outermost sequence: what it
    /// holds is counted with `u32`.
    Rest,
}

/// Settings for the raw layout; `Config::new()` is little-endian, `put_utf8_string`
/// strings, `u8` enum ids and `u32` counts.
///
/// ```
/// use godot_bin::raw::{Config, Strings};
/// let cfg = Config::new().big_endian(true).strings(Strings::Nul);
/// assert_eq!(cfg.to_vec(&(258u16, "ok"))?, [1, 2, b'o', b'k', 0]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Config {
    pub(crate) endian: Endian,
    pub(crate) strings: Strings,
    pub(crate) tag: Width,
    pub(crate) count: Count,
    pub(crate) variant: crate::Config,
}

impl Config {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Big-endian numbers and prefixes (`StreamPeer.big_endian = true`).
    pub fn big_endian(mut self, big: bool) -> Self {
        self.endian = if big { Endian::Big } else { Endian::Little };
        self
    }

    /// The string layout (fields can override it, see [`str0`](super::str0) …).
    pub fn strings(mut self, strings: Strings) -> Self {
        self.strings = strings;
        self
    }

    /// The width of enum variant ids.
    pub fn tag(mut self, tag: Width) -> Self {
        self.tag = tag;
        self
    }

    /// What comes before the items of sequences, maps and byte strings.
    pub fn count(mut self, count: Count) -> Self {
        self.count = count;
        self
    }

    /// The Variant settings of [`Var`](super::Var) fields (`put_var`): the dialect
    /// above all, and the decoder's limits. The depth limit applies to raw values too.
    pub fn variant(mut self, variant: crate::Config) -> Self {
        self.variant = variant;
        self
    }

    /// `value` in this layout.
    pub fn to_vec<T: ?Sized + Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(64);
        super::ser::serialize::<_, VecLen, _>(&mut out, *self, value)?;
        Ok(out)
    }

    /// Appends `value` to `out`, which keeps what it held (also on error, where
    /// nothing is appended). Returns the number of bytes appended.
    pub fn to_vec_into<T: ?Sized + Serialize>(
        &self,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        let start = out.len();
        match super::ser::serialize::<_, VecLen, _>(out, *self, value) {
            Ok(()) => Ok(out.len() - start),
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    /// Writes `value` to `writer` as it goes.
    pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(
        &self,
        writer: W,
        value: &T,
    ) -> Result<()> {
        super::ser::serialize::<_, Counted, _>(writer, *self, value)
    }

    /// Reads one `T` that fills `bytes` exactly; strings and byte slices borrow.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        super::de::deserialize(bytes, *self, None)
    }

    /// Reads one `T` from the front of `bytes`, and how many bytes it took: for
    /// packets followed by more data.
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, usize)> {
        let mut used = 0;
        let value = super::de::deserialize(bytes, *self, Some(&mut used))?;
        Ok((value, used))
    }

    /// Reads one `T` from `reader`, which must end right after it (a packet's bytes:
    /// read to its end, which bounds the memory by what the reader delivers).
    pub fn from_reader<R: io::Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        // At most `max_bytes` of the Variant settings, and one more to tell it was more.
        let limit = self.variant.max_bytes;
        let mut bytes = Vec::new();
        reader
            .take((limit as u64).saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() > limit {
            return Err(Error::at(ErrorKind::LimitExceeded(limit), limit));
        }
        self.from_slice(&bytes)
    }
}
