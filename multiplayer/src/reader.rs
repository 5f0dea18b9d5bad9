//! A cursor over a packet that knows its offset, for errors that say where.

use crate::error::{Error, ErrorKind, Result};

pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], pos: usize) -> Self {
        Reader { bytes, pos }
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if n > self.bytes.len() - self.pos {
            return Err(Error::at(ErrorKind::Truncated(what), self.pos));
        }
        let b = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut w = [0; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }

    pub(crate) fn flag(&mut self, what: &'static str) -> Result<bool> {
        let at = self.pos;
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Error::at(ErrorKind::Flag(what, b), at)),
        }
    }

    /// A NUL-terminated UTF-8 string that must end the packet exactly, without one
    /// leading BOM ([`engine_text`]).
    pub(crate) fn last_cstr(&mut self, what: &'static str) -> Result<String> {
        Ok(engine_text(self.last_text(what)?).to_owned())
    }

    /// A NUL-terminated UTF-8 string that must end the packet exactly, as it is.
    pub(crate) fn last_text(&mut self, what: &'static str) -> Result<&'a str> {
        let at = self.pos;
        let rest = &self.bytes[self.pos..];
        let Some((&0, body)) = rest.split_last() else {
            return Err(Error::at(ErrorKind::Unterminated, at));
        };
        if body.contains(&0) {
            return Err(Error::at(ErrorKind::Unterminated, at));
        }
        let s = std::str::from_utf8(body)
            .map_err(|e| Error::at(ErrorKind::Utf8(what), at + e.valid_up_to()))?;
        self.pos = self.bytes.len();
        Ok(s)
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let r = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        r
    }

    pub(crate) fn end(&self) -> Result<()> {
        match self.bytes.len() - self.pos {
            0 => Ok(()),
            n => Err(Error::at(ErrorKind::Trailing(n), self.pos)),
        }
    }
}

/// A node path's, spawned node's name's or (Godot 3) method name's text as the engine
/// takes it (`String::parse_utf8`, Godot 3.6 and 4.6 alike): one leading BOM dropped.
/// Paths and method names are checked against both engines by `tests/names_engines.rs`;
/// the engine reads a spawned node's name with the same function.
pub(crate) fn engine_text(s: &str) -> &str {
    // By its bytes: `strip_prefix` took 8 instructions more a Godot 3 call.
    match s.as_bytes() {
        [0xEF, 0xBB, 0xBF, ..] => &s[3..],
        _ => s,
    }
}

/// `s` and its NUL, as the engine reads back `s` ([`engine_text`]): a leading BOM
/// written twice. A NUL inside would cut it short on the other side.
pub(crate) fn put_cstr(s: &str, out: &mut Vec<u8>) -> Result<()> {
    put(extra_bom(s), s, out)
}

/// `s` and its NUL, as it is.
pub(crate) fn put_text(s: &str, out: &mut Vec<u8>) -> Result<()> {
    put("", s, out)
}

/// How many bytes [`put_cstr`] writes for `s`.
pub(crate) fn cstr_len(s: &str) -> usize {
    extra_bom(s).len() + s.len() + 1
}

/// What [`put_cstr`] writes before `s`: a BOM when `s` starts with one, which the
/// engine drops.
fn extra_bom(s: &str) -> &'static str {
    if s.starts_with('\u{feff}') {
        "\u{feff}"
    } else {
        ""
    }
}

fn put(prefix: &str, s: &str, out: &mut Vec<u8>) -> Result<()> {
    if s.as_bytes().contains(&0) {
        return Err(Error::at(ErrorKind::Unterminated, 0));
    }
    out.extend_from_slice(prefix.as_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Ok(())
}
