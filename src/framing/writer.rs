//! Writing framed values: `StreamPeer.put_var`, `File.store_var`, `PacketPeerStream.put_var`.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::ser::Serialize;

use super::Framing;
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};

/// A frame buffer larger than this is released after use instead of being kept.
const RETAIN: usize = 1 << 20;

/// Writes values one frame each: what `put_var` / `store_var` send.
///
/// A frame (length and value) is encoded whole, then handed to the underlying writer
/// in as few `write` calls as it takes. When the writer fails part-way (a write
/// timeout, `WouldBlock` on a non-blocking socket), what it did not take stays queued,
/// whole frames only, and goes out first with the next [`put_var`](Self::put_var),
/// [`put_frame`](Self::put_frame) or [`flush`](Self::flush): the peer never sees a frame
/// cut in two. So a value whose `put_var` failed with an I/O error is queued already; do
/// not send it again. A value that fails to encode, or is too large, queues nothing.
///
/// ```
/// use godot_bin::framing::{Framing, VarWriter};
/// use godot_bin::{Config, Dialect, Vector3};
///
/// let mut out = VarWriter::new(Vec::new(), Framing::PacketPeerStream)
///     .with_config(Config::new().dialect(Dialect::Godot4));
/// out.put_var(&Vector3::new(1.0, 2.0, 3.0))?;
/// assert_eq!(out.get_ref()[..8], [16, 0, 0, 0, 9, 0, 0, 0]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub struct VarWriter<W> {
    inner: W,
    framing: Framing,
    cfg: Config,
    max_frame: usize,
    /// The frames being sent: length prefixes and values.
    buf: Vec<u8>,
    /// How much of `buf` the underlying writer has taken; the rest is pending.
    sent: usize,
}

impl<W: Write> VarWriter<W> {
    /// Writes frames to `inner` with Godot 3 settings ([`with_config`](Self::with_config)
    /// selects another dialect) and the framing's default limit.
    pub fn new(inner: W, framing: Framing) -> Self {
        VarWriter {
            inner,
            framing,
            cfg: Config::default(),
            max_frame: framing.default_write_max(),
            buf: Vec::new(),
            sent: 0,
        }
    }

    /// Encodes with these settings: dialect, precision, depth limit.
    pub fn with_config(mut self, cfg: Config) -> Self {
        self.cfg = cfg;
        self
    }

    /// The longest value a frame may carry; a longer one is refused
    /// ([`ErrorKind::FrameTooLarge`]) and nothing is sent. Defaults: see the
    /// [module documentation](super#limits).
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }

    /// Encodes `value` and sends it as one frame.
    pub fn put_var<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.begin_frame();
        self.framing
            .encode_frame(&self.cfg, value, self.max_frame, &mut self.buf)?;
        self.send_pending()
    }

    /// Sends an already encoded value as one frame: encode a message once with
    /// [`Config::to_vec`] and send it to many peers, or forward a frame from
    /// [`VarReader::next_frame`](super::VarReader::next_frame).
    pub fn put_frame(&mut self, value: &[u8]) -> Result<()> {
        let prefix = self.framing.sized_prefix(value.len(), self.max_frame)?;
        self.begin_frame();
        self.buf.extend_from_slice(&prefix);
        self.buf.extend_from_slice(value);
        self.send_pending()
    }

    /// Sends what is pending, then flushes the underlying writer.
    pub fn flush(&mut self) -> Result<()> {
        self.send_pending()?;
        self.inner.flush()?;
        Ok(())
    }

    /// How many bytes wait to be sent after a failed write.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.sent
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The underlying writer. Writing to it directly between frames is fine; while a
    /// frame is [`pending`](Self::pending) it cuts that frame.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The underlying writer; [`pending`](Self::pending) bytes are lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Makes room for a new frame behind what is pending; returns where it starts.
    fn begin_frame(&mut self) -> usize {
        if self.sent < self.buf.len() {
            self.buf.drain(..self.sent);
        } else if self.buf.capacity() > RETAIN {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
        self.sent = 0;
        self.buf.len()
    }

    fn send_pending(&mut self) -> Result<()> {
        while self.sent < self.buf.len() {
            match self.inner.write(&self.buf[self.sent..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero).into()),
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

impl VarWriter<File> {
    /// Creates (or truncates) a `store_var` file, like `FileAccess.open(path, WRITE)`.
    /// File frames have no length limit but the prefix's `u32`.
    pub fn create<P: AsRef<Path>>(path: P, framing: Framing) -> Result<Self> {
        let file = File::create(path)?;
        Ok(VarWriter::new(file, framing).max_frame_len(usize::MAX))
    }

    /// Opens a `store_var` file to add values at its end (created when missing), like
    /// `FileAccess.open(path, READ_WRITE)` then `seek_end()`.
    ///
    /// Unlike the engine, it first walks the file's length prefixes: a file that does not
    /// end on a frame boundary (cut off, not a `store_var` file, or written with the
    /// other endianness) is an [`ErrorKind::Eof`] error at the offset of its last frame,
    /// since a value appended there could never be read back.
    ///
    /// ```no_run
    /// use godot_bin::framing::{Framing, VarWriter};
    ///
    /// let mut save = VarWriter::append("scores.dat", Framing::STORE_VAR)?;
    /// save.put_var(&("Ann", 1200))?;
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn append<P: AsRef<Path>>(path: P, framing: Framing) -> Result<Self> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        check_boundaries(&mut file, framing)?;
        Ok(VarWriter::new(file, framing).max_frame_len(usize::MAX))
    }
}

/// Checks that the frames of `file` fill it exactly, seeking over each value.
fn check_boundaries(file: &mut File, framing: Framing) -> Result<()> {
    let end = file.metadata()?.len();
    let mut at = 0u64;
    while at < end {
        let cut_off = || {
            let offset = usize::try_from(at).unwrap_or(usize::MAX);
            Err(Error::at(ErrorKind::Eof("a frame"), offset))
        };
        if end - at < 4 {
            return cut_off();
        }
        let mut prefix = [0u8; 4];
        file.seek(SeekFrom::Start(at))?;
        file.read_exact(&mut prefix)?;
        let len = u64::try_from(framing.frame_len(prefix)).unwrap_or(u64::MAX);
        let next = at.saturating_add(4).saturating_add(len);
        if next > end {
            return cut_off();
        }
        at = next;
    }
    Ok(())
}

impl<W> fmt::Debug for VarWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VarWriter")
            .field("framing", &self.framing)
            .field("config", &self.cfg)
            .field("max_frame_len", &self.max_frame)
            .field("pending", &(self.buf.len() - self.sent))
            .finish_non_exhaustive()
    }
}
