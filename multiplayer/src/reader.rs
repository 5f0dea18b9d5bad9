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

    /// A NUL-terminated UTF-8 string that must end the packet exactly.
    pub(crate) fn last_cstr(&mut self, what: &'static str) -> Result<String> {
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
        Ok(s.to_owned())
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
