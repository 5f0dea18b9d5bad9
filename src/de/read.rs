//! Input sources for the deserializer: a borrowed slice (zero-copy) or any `io::Read`.

use std::io::{self, Read as _};

use crate::error::{Error, ErrorKind, Result};

/// Bytes read from the input: borrowed from it for the whole `'de`, or copied into a
/// scratch buffer that lives as long as the borrow `'s` of the reader.
pub enum Reference<'de, 's> {
    /// Borrowed from the input.
    Borrowed(&'de [u8]),
    /// Copied into scratch space.
    Copied(&'s [u8]),
}

impl std::ops::Deref for Reference<'_, '_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Reference::Borrowed(b) => b,
            Reference::Copied(b) => b,
        }
    }
}

/// The bytes of the whole pieces of `unit` bytes among `got`.
fn whole(got: usize, unit: usize) -> usize {
    got / unit.max(1) * unit
}

/// Where the deserializer's bytes come from. Sealed: implemented by [`SliceRead`] and
/// [`IoRead`].
pub trait Read<'de>: private::Sealed {
    /// Bytes consumed so far.
    fn pos(&self) -> usize;

    /// Bytes still available, when the source knows (slices do, streams do not).
    fn remaining(&self) -> Option<usize>;

    /// Fills `buf` completely or fails with `Eof` at the offset of the first missing byte.
    fn read_exact(&mut self, buf: &mut [u8], what: &'static str) -> Result<()>;

    /// Reads `n` bytes, borrowing them from the input when possible. Short of them,
    /// fails with `Eof` where the first piece of `unit` bytes that is not all there
    /// starts (`unit` = `n`: where the bytes start).
    fn read_bytes<'s>(
        &'s mut self,
        n: usize,
        unit: usize,
        scratch: &'s mut Vec<u8>,
        what: &'static str,
    ) -> Result<Reference<'de, 's>>;

    /// Whether the input is exhausted (for trailing-byte checks).
    fn at_end(&mut self) -> Result<bool>;

    /// Consumes the next `n` bytes when the input has them at hand and `want` takes
    /// them: a header and its payload in one read. Streams never do, and are read the
    /// general way.
    fn take_if(&mut self, n: usize, want: impl FnOnce(&[u8]) -> bool) -> Option<&'de [u8]>;

    /// The bytes not yet read, when the input has them at hand (slices); streams give
    /// nothing.
    fn ahead(&self) -> &'de [u8];

    /// The error for needing more bytes at `at` than the input (or the limit) has.
    #[cold]
    fn eof(&self, what: &'static str, at: usize) -> Error {
        Error::at(ErrorKind::Eof(what), at)
    }

    /// The error for a count at `at` whose `count` items cannot fit in the `left` bytes.
    #[cold]
    fn truncated(&self, what: &'static str, count: usize, left: usize, at: usize) -> Error {
        match self.eof(what, at).into_kind() {
            ErrorKind::Eof(_) => Error::at(
                ErrorKind::Truncated {
                    what,
                    count: count as u64,
                    left,
                },
                at,
            ),
            limit => Error::at(limit, at),
        }
    }

    /// Refuses to read past `limit` bytes from the start ([`Config::max_bytes`](crate::Config::max_bytes)).
    fn set_limit(&mut self, limit: usize);
}

fn over_limit(pos: usize, n: usize, limit: usize) -> Result<()> {
    if pos.saturating_add(n) > limit {
        return Err(Error::at(ErrorKind::LimitExceeded(limit), pos));
    }
    Ok(())
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::SliceRead<'_> {}
    impl<R: std::io::Read> Sealed for super::IoRead<R> {}
}

/// `b`'s first `n` bytes and the rest, when it has them (`split_at_checked`, which
/// needs Rust 1.80).
#[inline]
fn split(b: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (n <= b.len()).then(|| b.split_at(n))
}

/// Reads from a byte slice; strings and byte arrays borrow from it.
pub struct SliceRead<'de> {
    /// The input, cut at the byte limit.
    slice: &'de [u8],
    /// What of `slice` is not read yet: a read checks one length, with no offset
    /// arithmetic to check for overflow.
    rest: &'de [u8],
    /// `Config::max_bytes` when it cut the input.
    limit: Option<usize>,
}

impl<'de> SliceRead<'de> {
    /// Reads `slice` from its start.
    pub fn new(slice: &'de [u8]) -> Self {
        SliceRead {
            slice,
            rest: slice,
            limit: None,
        }
    }
}

impl<'de> Read<'de> for SliceRead<'de> {
    #[inline]
    fn pos(&self) -> usize {
        self.slice.len() - self.rest.len()
    }

    #[inline]
    fn remaining(&self) -> Option<usize> {
        Some(self.rest.len())
    }

    #[inline]
    fn read_exact(&mut self, buf: &mut [u8], what: &'static str) -> Result<()> {
        match split(self.rest, buf.len()) {
            Some((src, rest)) => {
                buf.copy_from_slice(src);
                self.rest = rest;
                Ok(())
            }
            None => Err(self.eof(what, self.pos())),
        }
    }

    #[inline]
    fn read_bytes<'s>(
        &'s mut self,
        n: usize,
        unit: usize,
        _scratch: &'s mut Vec<u8>,
        what: &'static str,
    ) -> Result<Reference<'de, 's>> {
        match split(self.rest, n) {
            Some((out, rest)) => {
                self.rest = rest;
                Ok(Reference::Borrowed(out))
            }
            None => Err(self.eof(what, self.pos() + whole(self.rest.len(), unit))),
        }
    }

    fn at_end(&mut self) -> Result<bool> {
        Ok(self.rest.is_empty())
    }

    #[inline]
    fn take_if(&mut self, n: usize, want: impl FnOnce(&[u8]) -> bool) -> Option<&'de [u8]> {
        let (b, rest) = split(self.rest, n)?;
        if !want(b) {
            return None;
        }
        self.rest = rest;
        Some(b)
    }

    #[inline]
    fn ahead(&self) -> &'de [u8] {
        self.rest
    }

    #[cold]
    fn eof(&self, what: &'static str, at: usize) -> Error {
        match self.limit {
            Some(limit) => Error::at(ErrorKind::LimitExceeded(limit), at),
            None => Error::at(ErrorKind::Eof(what), at),
        }
    }

    fn set_limit(&mut self, limit: usize) {
        if limit < self.slice.len() {
            let read = self.pos();
            self.slice = &self.slice[..limit];
            self.rest = &self.slice[read.min(limit)..];
            self.limit = Some(limit);
        }
    }
}

/// Reads from any `io::Read`. Wrap unbuffered sources (files, sockets) in a
/// `BufReader`: values are read in many small pieces.
pub struct IoRead<R> {
    inner: R,
    pos: usize,
    limit: usize,
}

impl<R: io::Read> IoRead<R> {
    /// Reads from `inner`.
    pub fn new(inner: R) -> Self {
        IoRead {
            inner,
            pos: 0,
            limit: usize::MAX,
        }
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

fn io_err(e: io::Error, what: &'static str, at: usize) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        Error::at(ErrorKind::Eof(what), at)
    } else {
        Error::at(ErrorKind::Io(e), at)
    }
}

impl<'de, R: io::Read> Read<'de> for IoRead<R> {
    fn pos(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> Option<usize> {
        None
    }

    fn read_exact(&mut self, buf: &mut [u8], what: &'static str) -> Result<()> {
        over_limit(self.pos, buf.len(), self.limit)?;
        self.inner
            .read_exact(buf)
            .map_err(|e| io_err(e, what, self.pos))?;
        self.pos += buf.len();
        Ok(())
    }

    fn read_bytes<'s>(
        &'s mut self,
        n: usize,
        unit: usize,
        scratch: &'s mut Vec<u8>,
        what: &'static str,
    ) -> Result<Reference<'de, 's>> {
        over_limit(self.pos, n, self.limit)?;
        scratch.clear();
        // `take` + `read_to_end` grows the buffer with the data that really arrives, so a
        // lying length field cannot make us allocate more than the stream delivers.
        let got = (&mut self.inner)
            .take(n as u64)
            .read_to_end(scratch)
            .map_err(|e| io_err(e, what, self.pos))?;
        if got < n {
            return Err(Error::at(ErrorKind::Eof(what), self.pos + whole(got, unit)));
        }
        self.pos += got;
        Ok(Reference::Copied(scratch))
    }

    fn at_end(&mut self) -> Result<bool> {
        let mut b = [0u8; 1];
        loop {
            return match self.inner.read(&mut b) {
                Ok(0) => Ok(true),
                Ok(_) => Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(Error::at(ErrorKind::Io(e), self.pos)),
            };
        }
    }

    fn take_if(&mut self, _n: usize, _want: impl FnOnce(&[u8]) -> bool) -> Option<&'de [u8]> {
        None
    }

    fn ahead(&self) -> &'de [u8] {
        &[]
    }

    fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }
}
