//! How Godot puts Variants on streams, in files and in packets.
//!
//! | Godot API | bytes | here |
//! |---|---|---|
//! | `File.store_var` / `FileAccess.store_var`, `StreamPeer.put_var` | `u32` length (big-endian when the file's `endian_swap` / `big_endian` or the peer's `big_endian` is set) + value | [`VarWriter`], [`VarReader`], [`read_all`], [`append`] |
//! | `PacketPeerStream.put_var` (over a `StreamPeerTCP`) | little-endian `u32` length + value, at most 65532 bytes | `VarReader`/`VarWriter` with [`Framing::PacketPeerStream`] |
//! | `PacketPeer.put_var` over UDP, WebSocket, ENet | the bare value as one packet | [`encode_packet`], [`decode_packet`] |
//! | `Marshalls.variant_to_base64` | Base64 of the bare value | [`variant_to_base64`], [`base64_to_variant`] |
//!
//! The value itself is always little-endian; only the length prefix follows the
//! endian setting.
//!
//! ```
//! use godot_bin::framing::{Framing, VarReader, VarWriter};
//!
//! let mut wire = Vec::new();
//! let mut w = VarWriter::new(&mut wire, Framing::StreamPeer { big_endian: false });
//! w.put_var(&"hi")?;
//! w.put_var(&42)?;
//! assert_eq!(&wire[..4], [12, 0, 0, 0]);
//!
//! let mut r = VarReader::new(&wire[..], Framing::StreamPeer { big_endian: false });
//! assert_eq!(r.get_var::<String>()?.as_deref(), Some("hi"));
//! assert_eq!(r.get_var::<i32>()?, Some(42));
//! assert_eq!(r.get_var::<i32>()?, None); // clean end between frames
//! # Ok::<(), godot_bin::Error>(())
//! ```

use std::fs::OpenOptions;
use std::io::{self, Read, Write};
use std::path::Path;

use base64::Engine as _;
use serde::de::{Deserialize, DeserializeOwned};
use serde::ser::Serialize;

use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};

/// `PacketPeerStream`'s largest packet with the default buffer (`2^16` bytes less the
/// 4-byte length), as the engine reports it.
pub const PACKET_PEER_STREAM_MAX: usize = 65532;

/// `PacketPeer.encode_buffer_max_size`'s default: the largest value `put_var` sends.
pub const PACKET_PEER_MAX: usize = 8 << 20;

/// The default frame limit for streams and files: the same 8 MiB as `PacketPeer`,
/// large for game data, small enough that a lying length cannot exhaust memory.
pub const DEFAULT_MAX_FRAME: usize = PACKET_PEER_MAX;

/// Which length prefix frames carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `StreamPeer.put_var` and `File.store_var`: `big_endian` as the peer's
    /// `big_endian` (Godot 4) or the file's `endian_swap` (Godot 3).
    StreamPeer {
        /// Whether the length prefix is big-endian.
        big_endian: bool,
    },
    /// `PacketPeerStream`: always little-endian, at most [`PACKET_PEER_STREAM_MAX`].
    PacketPeerStream,
}

impl Framing {
    /// `store_var` / `put_var` with default (little-endian) settings.
    pub const STORE_VAR: Framing = Framing::StreamPeer { big_endian: false };

    fn big_endian(self) -> bool {
        matches!(self, Framing::StreamPeer { big_endian: true })
    }

    fn default_max(self) -> usize {
        match self {
            Framing::StreamPeer { .. } => DEFAULT_MAX_FRAME,
            Framing::PacketPeerStream => PACKET_PEER_STREAM_MAX,
        }
    }

    /// The 4-byte length prefix for a payload of `len` bytes.
    pub fn prefix(self, len: usize) -> Result<[u8; 4]> {
        let n = u32::try_from(len).map_err(|_| too_large(len, u32::MAX as usize))?;
        Ok(if self.big_endian() {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        })
    }

    /// Reads a length prefix.
    pub fn length(self, prefix: [u8; 4]) -> usize {
        (if self.big_endian() {
            u32::from_be_bytes(prefix)
        } else {
            u32::from_le_bytes(prefix)
        }) as usize
    }
}

fn too_large(len: usize, max: usize) -> Error {
    Error::new(ErrorKind::FrameTooLarge { len, max })
}

/// Writes values one frame each: what `put_var` / `store_var` send.
pub struct VarWriter<W> {
    inner: W,
    framing: Framing,
    cfg: Config,
    max_frame: usize,
    buf: Vec<u8>,
}

impl<W: Write> VarWriter<W> {
    /// Frames values onto `inner` (Godot 3 dialect; see [`with_config`](Self::with_config)).
    pub fn new(inner: W, framing: Framing) -> Self {
        VarWriter {
            inner,
            framing,
            cfg: Config::default(),
            max_frame: framing.default_max(),
            buf: Vec::new(),
        }
    }

    /// Encodes with these settings (dialect, precision).
    pub fn with_config(mut self, cfg: Config) -> Self {
        self.cfg = cfg;
        self
    }

    /// Refuses to send a frame larger than `max` bytes (the peer would refuse it).
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }

    /// Encodes `value` and writes its frame in one `write_all`.
    pub fn put_var<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; 4]);
        value.serialize(&mut crate::Serializer::with_config(&mut self.buf, self.cfg))?;
        let len = self.buf.len() - 4;
        if len > self.max_frame {
            return Err(too_large(len, self.max_frame));
        }
        let prefix = self.framing.prefix(len)?;
        self.buf[..4].copy_from_slice(&prefix);
        self.inner.write_all(&self.buf)?;
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush().map_err(Error::from)
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// Reads framed values one by one: what `get_var` reads.
///
/// A frame is read whole before it is decoded, so after a decoding error the reader is
/// at the next frame. A frame longer than the limit is refused before anything is
/// allocated or read for it; the stream cannot be trusted after that (nor after one
/// that ended inside a frame), so every later call fails too rather than reading a
/// frame's middle as a length. Drop such a connection.
pub struct VarReader<R> {
    inner: R,
    framing: Framing,
    cfg: Config,
    max_frame: usize,
    buf: Vec<u8>,
    /// Bytes consumed from the stream, for error offsets.
    pos: usize,
    /// Where the current frame's value starts in the stream.
    frame_at: usize,
    /// Set when the stream lost its frame boundaries (oversized or cut-off frame).
    broken: bool,
}

impl<R: Read> VarReader<R> {
    /// Reads frames from `inner` (Godot 3 dialect; see [`with_config`](Self::with_config)).
    /// Wrap unbuffered sources (`File`, `TcpStream`) in a `BufReader`.
    pub fn new(inner: R, framing: Framing) -> Self {
        VarReader {
            inner,
            framing,
            cfg: Config::default(),
            max_frame: framing.default_max(),
            buf: Vec::new(),
            pos: 0,
            frame_at: 0,
            broken: false,
        }
    }

    /// Decodes with these settings (dialect, limits, objects).
    pub fn with_config(mut self, cfg: Config) -> Self {
        self.cfg = cfg;
        self
    }

    /// The largest frame accepted; a longer length prefix is an error.
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }

    /// The next frame's raw value bytes, or `None` at a clean end between frames.
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>> {
        if self.broken {
            return Err(Error::at(ErrorKind::Desynchronized, self.pos));
        }
        // Cleared again once the whole frame is in.
        self.broken = true;
        let got = self.read_frame()?;
        self.broken = false;
        Ok(got.then_some(&self.buf[..]))
    }

    /// Reads one frame into `buf`; `false` at a clean end.
    fn read_frame(&mut self) -> Result<bool> {
        let start = self.pos;
        let mut prefix = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.inner.read(&mut prefix[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => return Err(Error::at(ErrorKind::Eof("a frame length"), start)),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::at(ErrorKind::Io(e), start)),
            }
        }
        self.pos += 4;
        let len = self.framing.length(prefix);
        if len > self.max_frame {
            return Err(too_large(len, self.max_frame).or_at(start));
        }
        self.buf.clear();
        // Grows with the data that arrives, never to what a prefix merely claims.
        let n = (&mut self.inner)
            .take(len as u64)
            .read_to_end(&mut self.buf)
            .map_err(|e| Error::at(ErrorKind::Io(e), self.pos))?;
        self.frame_at = self.pos;
        self.pos += n;
        if n < len {
            return Err(Error::at(ErrorKind::Eof("a frame"), self.pos));
        }
        Ok(true)
    }

    /// Reads and decodes the next value, or `None` at a clean end between frames. A
    /// frame must hold exactly one value.
    pub fn get_var<T: DeserializeOwned>(&mut self) -> Result<Option<T>> {
        let cfg = self.cfg;
        match self.next_frame()? {
            None => Ok(None),
            // Offsets count from the start of the stream.
            Some(frame) => cfg
                .from_slice(frame)
                .map(Some)
                .map_err(|e| e.shifted(self.frame_at)),
        }
    }

    /// An iterator over the remaining values.
    pub fn iter<T: DeserializeOwned>(&mut self) -> impl Iterator<Item = Result<T>> + '_ {
        std::iter::from_fn(move || self.get_var().transpose())
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

/// Every value of a `store_var` file (or buffer) in order, as `get_var` would read them
/// until the end.
///
/// ```
/// let mut file = Vec::new();
/// godot_bin::framing::append_to(&mut file, &1)?;
/// godot_bin::framing::append_to(&mut file, &"two")?;
/// let values: Vec<godot_bin::Variant> = godot_bin::framing::read_all(&file[..])?;
/// assert_eq!(values, [godot_bin::Variant::Int(1), "two".into()]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn read_all<T: DeserializeOwned, R: Read>(reader: R) -> Result<Vec<T>> {
    VarReader::new(io::BufReader::new(reader), Framing::STORE_VAR)
        .iter()
        .collect()
}

/// Writes one `store_var` frame (little-endian length, Godot 3) to `writer`.
pub fn append_to<W: Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    VarWriter::new(writer, Framing::STORE_VAR).put_var(value)
}

/// Appends `value` to the `store_var` file at `path` (created if missing), with the
/// given settings and framing; what the engine's `get_var` loop reads back.
pub fn append<P: AsRef<Path>, T: ?Sized + Serialize>(
    path: P,
    value: &T,
    cfg: Config,
    framing: Framing,
) -> Result<()> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    VarWriter::new(file, framing)
        .with_config(cfg)
        .put_var(value)
}

/// Encodes one `PacketPeer.put_var` packet (UDP, WebSocket, ENet): the bare value,
/// refused above the engine's default 8 MiB encode buffer.
pub fn encode_packet<T: ?Sized + Serialize>(cfg: Config, value: &T) -> Result<Vec<u8>> {
    let bytes = cfg.to_vec(value)?;
    if bytes.len() > PACKET_PEER_MAX {
        return Err(too_large(bytes.len(), PACKET_PEER_MAX));
    }
    Ok(bytes)
}

/// Decodes one packet from `PacketPeer.put_var`, borrowing from it where it can.
pub fn decode_packet<'de, T: Deserialize<'de>>(cfg: Config, packet: &'de [u8]) -> Result<T> {
    cfg.from_slice(packet)
}

/// `Marshalls.variant_to_base64`: standard Base64 (with padding) of the bare value.
///
/// ```
/// assert_eq!(godot_bin::framing::variant_to_base64(&1)?, "AgAAAAEAAAA=");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn variant_to_base64<T: ?Sized + Serialize>(value: &T) -> Result<String> {
    Ok(base64::engine::general_purpose::STANDARD.encode(crate::to_vec(value)?))
}

/// `Marshalls.base64_to_variant`: decodes Base64 text, then the value.
pub fn base64_to_variant<T: DeserializeOwned>(text: &str) -> Result<T> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| Error::new(ErrorKind::InvalidBase64(e.to_string())))?;
    crate::from_slice(&bytes)
}
