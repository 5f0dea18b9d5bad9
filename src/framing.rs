//! Values on streams, in files and in packets, framed exactly as the engine frames them.
//!
//! | Godot API | bytes | here |
//! |---|---|---|
//! | `File.store_var` (3) / `FileAccess.store_var` (4), `StreamPeer.put_var` | `u32` length, then the value. The length is big-endian when the file's `endian_swap` (3) / `big_endian` (4) or the peer's `big_endian` is set | [`VarWriter`] / [`VarReader`] with [`Framing::StreamPeer`]; files: [`VarReader::open`], [`VarWriter::create`], [`VarWriter::append`] |
//! | `PacketPeerStream.put_var` over `StreamPeerTCP` | `u32` length, always little-endian, then the value | the same types with [`Framing::PacketPeerStream`] |
//! | `PacketPeer.put_var` over UDP, WebSocket, ENet | the bare value, one per packet | [`encode_packet`], [`decode_packet`] |
//! | `Marshalls.variant_to_base64` | Base64 of the bare value | [`variant_to_base64`], [`base64_to_variant`] |
//! | `File.open_encrypted_with_pass` (3) / `FileAccess.open_encrypted_with_pass` (4) | the file's bytes (often `store_var` frames) in a `GDEC` container, AES-256 encrypted | `encrypted::open`, `encrypted::seal` (feature `encryption`) |
//!
//! The value itself is always little-endian; only the length prefix follows the endian
//! setting. Every frame holds exactly one value (the engine ignores bytes after the
//! value inside a frame; this crate reports them as [`ErrorKind::TrailingBytes`]).
//!
//! ```
//! use godot_bin::framing::{Framing, VarReader, VarWriter};
//!
//! let mut wire = Vec::new();
//! let mut w = VarWriter::new(&mut wire, Framing::StreamPeer { big_endian: true });
//! w.put_var("hi")?;
//! w.put_var(&42)?;
//! assert_eq!(wire[..16], [0, 0, 0, 12, 4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0]);
//!
//! let mut r = VarReader::new(&wire[..], Framing::StreamPeer { big_endian: true });
//! assert_eq!(r.get_var::<String>()?.as_deref(), Some("hi"));
//! assert_eq!(r.get_var::<i32>()?, Some(42));
//! assert_eq!(r.get_var::<i32>()?, None); // a clean end between frames
//! # Ok::<(), godot_bin::Error>(())
//! ```
//!
//! # Limits
//!
//! A reader refuses a length prefix above its limit ([`ErrorKind::FrameTooLarge`])
//! before it reads or allocates anything for the frame, and its buffer grows only with
//! the bytes that really arrive, so a lying prefix costs nothing. A writer refuses to
//! send a frame the peer would refuse. The defaults are the engine's own:
//!
//! | framing | reads up to | writes up to | why |
//! |---|---|---|---|
//! | `StreamPeer`, `store_var` | [`DEFAULT_MAX_FRAME`] (8 MiB) | 8 MiB | the engine sets no limit here; 8 MiB is `PacketPeer.encode_buffer_max_size`, its own idea of the largest sensible value |
//! | `PacketPeerStream` | [`PACKET_PEER_STREAM_SEND_MAX`] (65532) | [`PACKET_PEER_STREAM_RECV_MAX`] (65531) | what a default `PacketPeerStream` (`max_buffer_po2` = 16) sends and can receive |
//! | `PacketPeer` | | [`PACKET_PEER_MAX`] (8 MiB) | `encode_buffer_max_size` |
//!
//! Files opened with [`VarReader::open`] have no limit: their length bounds every frame.
//! Set `max_frame_len` on either side when the Godot peer raised its buffer sizes.

#[cfg(feature = "encryption")]
pub mod encrypted;
mod packet;
mod reader;
mod writer;

pub use packet::{base64_to_variant, decode_packet, encode_packet, variant_to_base64};
pub use reader::{Iter, VarReader};
pub use writer::VarWriter;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::{Config, Serializer};

/// `PacketPeer.encode_buffer_max_size`'s default (8 MiB): `put_var` refuses larger values.
pub const PACKET_PEER_MAX: usize = 8 << 20;

/// The largest packet a default `PacketPeerStream` sends: its 64 KiB output buffer
/// less the 4-byte length (the engine's `output_buffer_max_size`).
pub const PACKET_PEER_STREAM_SEND_MAX: usize = 65532;

/// The largest packet a default `PacketPeerStream` can receive: one byte less than it
/// can send, because its input ring buffer holds at most 65535 bytes, length included.
/// A 65532-byte packet never becomes available there and blocks the connection (checked
/// with Godot 3.2, 3.6 and 4.6), so writers refuse it. A value's length is a multiple
/// of 4, so in practice the largest value that arrives is 65528 bytes.
pub const PACKET_PEER_STREAM_RECV_MAX: usize = 65531;

/// The default frame limit for `StreamPeer` framing: 8 MiB, like [`PACKET_PEER_MAX`].
pub const DEFAULT_MAX_FRAME: usize = 8 << 20;

/// Which length prefix frames carry.
///
/// The engine reads and writes the prefix with the peer's or file's own `put_32` /
/// `get_32`, so it follows the endian setting, while `PacketPeerStream` encodes it
/// itself, always little-endian (even on a big-endian `StreamPeer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framing {
    /// `StreamPeer.put_var` and `File.store_var` / `FileAccess.store_var`.
    StreamPeer {
        /// The peer's `big_endian` (Godot 3 and 4), the file's `endian_swap` (Godot 3)
        /// or `big_endian` (Godot 4). Off by default in the engine.
        big_endian: bool,
    },
    /// `PacketPeerStream.put_var` / `get_var`: always a little-endian length.
    PacketPeerStream,
}

impl Framing {
    /// `store_var` / `put_var` with the engine's default little-endian length.
    pub const STORE_VAR: Framing = Framing::StreamPeer { big_endian: false };

    fn big_endian(self) -> bool {
        matches!(self, Framing::StreamPeer { big_endian: true })
    }

    /// The default limit for reading frames (what the engine may send).
    pub(crate) fn default_read_max(self) -> usize {
        match self {
            Framing::StreamPeer { .. } => DEFAULT_MAX_FRAME,
            Framing::PacketPeerStream => PACKET_PEER_STREAM_SEND_MAX,
        }
    }

    /// The default limit for writing frames (what the engine can receive).
    pub(crate) fn default_write_max(self) -> usize {
        match self {
            Framing::StreamPeer { .. } => DEFAULT_MAX_FRAME,
            Framing::PacketPeerStream => PACKET_PEER_STREAM_RECV_MAX,
        }
    }

    /// The 4-byte length prefix for a value of `len` bytes.
    ///
    /// ```
    /// use godot_bin::framing::Framing;
    /// assert_eq!(Framing::StreamPeer { big_endian: true }.prefix(8)?, [0, 0, 0, 8]);
    /// assert_eq!(Framing::PacketPeerStream.prefix(8)?, [8, 0, 0, 0]);
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn prefix(self, len: usize) -> Result<[u8; 4]> {
        let n = u32::try_from(len).map_err(|_| too_large(len, u32::MAX as usize))?;
        Ok(if self.big_endian() {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        })
    }

    /// The value length a 4-byte prefix announces.
    pub fn frame_len(self, prefix: [u8; 4]) -> usize {
        let n = if self.big_endian() {
            u32::from_be_bytes(prefix)
        } else {
            u32::from_le_bytes(prefix)
        };
        usize::try_from(n).unwrap_or(usize::MAX)
    }
}

/// The frame logic that [`VarReader`], [`VarWriter`] and the tokio codec share.
impl Framing {
    /// The value length a received prefix announces; above `max` it is refused before
    /// anything is read or allocated for the frame.
    pub(crate) fn body_len(self, prefix: [u8; 4], max: usize) -> Result<usize> {
        let len = self.frame_len(prefix);
        if len > max {
            return Err(too_large(len, max));
        }
        Ok(len)
    }

    /// Decodes the value of one frame whose value starts at stream offset `value_at`:
    /// the whole frame is the value, and error offsets count from the stream's start.
    pub(crate) fn decode_body<'de, T: Deserialize<'de>>(
        cfg: &Config,
        body: &'de [u8],
        value_at: usize,
    ) -> Result<T> {
        cfg.from_slice(body).map_err(|e| e.shifted(value_at))
    }

    /// Appends one frame (prefix and value) to `out`; on an error (the value does not
    /// encode or is longer than `max`) `out` is left as it was.
    pub(crate) fn encode_frame<T: ?Sized + Serialize>(
        self,
        cfg: &Config,
        value: &T,
        max: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        let encoded = value
            .serialize(&mut Serializer::with_config(out, *cfg))
            .and_then(|()| self.sized_prefix(out.len() - start - 4, max));
        match encoded {
            Ok(prefix) => {
                out[start..start + 4].copy_from_slice(&prefix);
                Ok(())
            }
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    /// The prefix for a value of `len` bytes, refused above `max`.
    pub(crate) fn sized_prefix(self, len: usize, max: usize) -> Result<[u8; 4]> {
        if len > max {
            return Err(too_large(len, max));
        }
        self.prefix(len)
    }
}

fn too_large(len: usize, max: usize) -> Error {
    Error::new(ErrorKind::FrameTooLarge { len, max })
}
