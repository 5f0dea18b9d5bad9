//! Reading framed values: `StreamPeer.get_var`, `File.get_var`, `PacketPeerStream.get_var`.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::iter::FusedIterator;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::Framing;
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};

/// A frame buffer larger than this is released after use instead of being kept.
const RETAIN: usize = 1 << 20;

/// The most reserved for a frame ahead of the bytes that have arrived.
const RESERVE_AHEAD: usize = 64 << 10;

/// Reads framed values one by one: what the engine's `get_var` loop reads.
///
/// Each call reads one whole frame, then decodes it, so a value that fails to decode
/// (wrong type, bad bytes) is an error and the reader is ready for the next frame.
///
/// Reads that fail with an I/O error (a read timeout, `WouldBlock` on a non-blocking
/// socket) keep what has arrived: call again to go on with the same frame. Nothing is
/// lost and nothing is read twice.
///
/// Two errors lose the frame boundaries: a length above [`max_frame_len`](Self::max_frame_len)
/// ([`ErrorKind::FrameTooLarge`], refused before anything is read or allocated for the
/// frame) and an end of input inside a frame ([`ErrorKind::Eof`]). After them every call
/// fails with [`ErrorKind::Desynchronized`] instead of reading a frame's middle as a
/// length: drop such a connection.
///
/// Wrap an unbuffered source (`TcpStream`, `File`) in a [`BufReader`]:
///
/// ```no_run
/// use std::io::BufReader;
/// use std::net::TcpStream;
/// use godot_bin::framing::{Framing, VarReader};
/// use godot_bin::Variant;
///
/// let stream = TcpStream::connect("127.0.0.1:4242")?;
/// let mut input = VarReader::new(BufReader::new(stream), Framing::PacketPeerStream);
/// while let Some(message) = input.get_var::<Variant>()? {
///     println!("{message}");
/// }
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub struct VarReader<R> {
    inner: R,
    framing: Framing,
    cfg: Config,
    max_frame: usize,
    /// The current frame's length prefix and how many of its bytes are in.
    head: [u8; 4],
    head_len: usize,
    /// The current frame's value length, once its prefix is in and accepted.
    body_len: Option<usize>,
    /// The current frame's value bytes read so far.
    buf: Vec<u8>,
    /// Whether `buf` holds a complete frame already handed out.
    handed_out: bool,
    /// Bytes consumed from `inner`.
    pos: usize,
    /// Where the current frame (its prefix) starts in the stream.
    frame_at: usize,
    /// Set once the stream has lost its frame boundaries.
    broken: bool,
}

impl<R: Read> VarReader<R> {
    /// Reads frames from `inner` with Godot 3 settings ([`with_config`](Self::with_config)
    /// selects another dialect) and the framing's default limit.
    pub fn new(inner: R, framing: Framing) -> Self {
        VarReader {
            inner,
            framing,
            cfg: Config::default(),
            max_frame: framing.default_read_max(),
            head: [0; 4],
            head_len: 0,
            body_len: None,
            buf: Vec::new(),
            handed_out: false,
            pos: 0,
            frame_at: 0,
            broken: false,
        }
    }

    /// Decodes with these settings: dialect, depth limit, objects.
    pub fn with_config(mut self, cfg: Config) -> Self {
        self.cfg = cfg;
        self
    }

    /// The longest value a frame may announce; a longer one is an error. Defaults: see
    /// the [module documentation](super#limits).
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }

    /// Reads and decodes the next value; `None` at a clean end between frames.
    ///
    /// Error offsets count from the start of the stream.
    pub fn get_var<T: DeserializeOwned>(&mut self) -> Result<Option<T>> {
        if !self.advance()? {
            return Ok(None);
        }
        let value_at = self.frame_at + 4;
        Framing::decode_body(&self.cfg, &self.buf, value_at).map(Some)
    }

    /// The next frame's value bytes, undecoded; `None` at a clean end between frames.
    ///
    /// Decode them with [`Config::from_slice`] to borrow strings from the frame, or
    /// forward them as they are with [`VarWriter::put_frame`](super::VarWriter::put_frame).
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>> {
        Ok(if self.advance()? {
            Some(&self.buf)
        } else {
            None
        })
    }

    /// An iterator over the values that remain. It ends at the clean end of the input
    /// and after an error the reader cannot go past (an I/O error, an oversized or
    /// cut-off frame); after a value that fails to decode it goes on with the next one.
    pub fn iter<T: DeserializeOwned>(&mut self) -> Iter<'_, R, T> {
        Iter {
            reader: self,
            done: false,
            _type: PhantomData,
        }
    }

    /// Every value that remains, in order, like the engine's
    /// `while f.get_position() < f.get_length(): f.get_var()`. Stops at the first error.
    pub fn read_all<T: DeserializeOwned>(&mut self) -> Result<Vec<T>> {
        self.iter().collect()
    }

    /// Whether the stream has lost its frame boundaries (after an oversized or cut-off
    /// frame), so that every later call fails. A value that failed to decode, or an I/O
    /// error, does not do that.
    pub fn is_desynchronized(&self) -> bool {
        self.broken
    }

    /// How many bytes have been consumed from the underlying reader.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The underlying reader. Reading from it directly loses the frame boundaries.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The underlying reader; the bytes of a partly read frame are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads until a whole frame is in `buf`; `false` at a clean end before a frame.
    fn advance(&mut self) -> Result<bool> {
        if self.broken {
            return Err(Error::at(ErrorKind::Desynchronized, self.pos));
        }
        if self.handed_out {
            self.handed_out = false;
            self.head_len = 0;
            self.body_len = None;
            if self.buf.capacity() > RETAIN {
                self.buf = Vec::new();
            } else {
                self.buf.clear();
            }
        }
        while self.head_len < 4 {
            match self.inner.read(&mut self.head[self.head_len..]) {
                Ok(0) if self.head_len == 0 => return Ok(false),
                Ok(0) => return Err(self.cut_off("a frame length")),
                Ok(n) => {
                    if self.head_len == 0 {
                        self.frame_at = self.pos;
                    }
                    self.head_len += n;
                    self.pos += n;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::at(ErrorKind::Io(e), self.pos)),
            }
        }
        let len = match self.body_len {
            Some(len) => len,
            None => {
                let len = match self.framing.body_len(self.head, self.max_frame) {
                    Ok(len) => len,
                    Err(e) => {
                        self.broken = true;
                        return Err(e.or_at(self.frame_at));
                    }
                };
                self.buf.reserve(len.min(RESERVE_AHEAD));
                self.body_len = Some(len);
                len
            }
        };
        while self.buf.len() < len {
            let before = self.buf.len();
            // Grows with the bytes that arrive, never to what the prefix merely claims;
            // on an error the bytes read so far stay in `buf`.
            let read = (&mut self.inner)
                .take((len - before) as u64)
                .read_to_end(&mut self.buf);
            self.pos += self.buf.len() - before;
            match read {
                Ok(_) if self.buf.len() < len => return Err(self.cut_off("a frame")),
                Ok(_) => {}
                Err(e) => return Err(Error::at(ErrorKind::Io(e), self.pos)),
            }
        }
        self.handed_out = true;
        Ok(true)
    }

    fn cut_off(&mut self, what: &'static str) -> Error {
        self.broken = true;
        Error::at(ErrorKind::Eof(what), self.pos)
    }
}

impl VarReader<BufReader<File>> {
    /// Opens a `store_var` file for reading, like `FileAccess.open(path, READ)`, with no
    /// frame limit: the file's length bounds every frame.
    ///
    /// ```no_run
    /// use godot_bin::framing::{Framing, VarReader};
    /// use godot_bin::{Config, Dialect, Variant};
    ///
    /// let godot4 = Config::new().dialect(Dialect::Godot4);
    /// let values: Vec<Variant> = VarReader::open("save.dat", Framing::STORE_VAR)?
    ///     .with_config(godot4)
    ///     .read_all()?;
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn open<P: AsRef<Path>>(path: P, framing: Framing) -> Result<Self> {
        let file = File::open(path)?;
        Ok(VarReader::new(BufReader::new(file), framing).max_frame_len(usize::MAX))
    }
}

impl<R> fmt::Debug for VarReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VarReader")
            .field("framing", &self.framing)
            .field("config", &self.cfg)
            .field("max_frame_len", &self.max_frame)
            .field("position", &self.pos)
            .field("desynchronized", &self.broken)
            .finish_non_exhaustive()
    }
}

/// The values of a [`VarReader`], from [`VarReader::iter`].
pub struct Iter<'a, R, T> {
    reader: &'a mut VarReader<R>,
    done: bool,
    _type: PhantomData<fn() -> T>,
}

impl<R: Read, T: DeserializeOwned> Iterator for Iter<'_, R, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        match self.reader.get_var() {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = self.reader.broken || matches!(e.kind(), ErrorKind::Io(_));
                Some(Err(e))
            }
        }
    }
}

impl<R: Read, T: DeserializeOwned> FusedIterator for Iter<'_, R, T> {}

impl<R, T> fmt::Debug for Iter<'_, R, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("reader", &self.reader)
            .field("done", &self.done)
            .finish()
    }
}
