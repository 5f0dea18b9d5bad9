//! A [`tokio_util::codec`] for length-prefixed values (feature `tokio`): what
//! `StreamPeer.put_var` and `PacketPeerStream` send over TCP.
//!
//! [`VarCodec<T>`] decodes frames into `T` (any `Deserialize` type, or [`Variant`]
//! when the messages have no fixed shape) and encodes any `Serialize` value, so one
//! `Framed` socket reads client messages and sends server messages. Framing, limits and
//! errors are those of [`VarReader`](crate::framing::VarReader) and
//! [`VarWriter`](crate::framing::VarWriter).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), godot_bin::Error> {
//! use futures::{SinkExt, StreamExt};
//! use godot_bin::codec::VarCodec;
//! use godot_bin::framing::Framing;
//! use godot_bin::{Config, Dialect, Variant};
//! use tokio_util::codec::Framed;
//!
//! let godot4 = Config::new().dialect(Dialect::Godot4);
//! let (server_end, client_end) = tokio::io::duplex(1024);
//! let mut server = Framed::new(server_end, VarCodec::<Variant>::new(Framing::PacketPeerStream).with_config(godot4));
//! let mut client = Framed::new(client_end, VarCodec::<String>::new(Framing::PacketPeerStream).with_config(godot4));
//!
//! client.send(("ping", 1)).await?;
//! assert_eq!(server.next().await.transpose()?, Some(Variant::Array(vec!["ping".into(), 1.into()])));
//! server.send("pong").await?;
//! assert_eq!(client.next().await.transpose()?.as_deref(), Some("pong"));
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::marker::PhantomData;

use bytes::{Buf, BufMut, BytesMut};
use serde::de::DeserializeOwned;
use serde::ser::Serialize;
use tokio_util::codec::{Decoder, Encoder};

use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::framing::Framing;
use crate::Variant;

/// The most reserved for a frame ahead of the bytes that have arrived.
const RESERVE_AHEAD: usize = 64 << 10;

/// Decodes length-prefixed values into `T` and encodes any `Serialize` value.
///
/// A value that fails to decode is an error and the codec is at the next frame. A length
/// above the limit is refused before anything is buffered for it; it stays at the front
/// of the buffer, so decoding fails the same way again. At the end of the input, a
/// partial frame is an [`ErrorKind::Eof`] error. Error offsets count from the start of
/// the stream.
///
/// A `FramedRead` ends its stream after any error (tokio-util's rule), a bad value
/// included. To skip bad messages instead, read the raw frames with tokio-util's
/// `LengthDelimitedCodec` and decode each one yourself:
///
/// ```
/// use bytes::BytesMut;
/// use godot_bin::codec::VarCodec;
/// use godot_bin::framing::{Framing, PACKET_PEER_STREAM_SEND_MAX};
/// use godot_bin::Config;
/// use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};
///
/// let mut wire = BytesMut::new();
/// let mut encoder = VarCodec::<()>::new(Framing::PacketPeerStream);
/// encoder.encode("not a number", &mut wire)?;
/// encoder.encode(7, &mut wire)?;
///
/// // The same frames: a 4-byte little-endian length (big-endian for a
/// // `StreamPeer` with `big_endian` set), then the value.
/// let mut frames = LengthDelimitedCodec::builder()
///     .length_field_length(4)
///     .little_endian()
///     .max_frame_length(PACKET_PEER_STREAM_SEND_MAX)
///     .new_codec();
/// let mut got = Vec::new();
/// while let Some(frame) = frames.decode(&mut wire)? {
///     got.push(Config::new().from_slice::<i32>(&frame).ok());
/// }
/// assert_eq!(got, [None, Some(7)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// As the encoder takes any type (like tokio-util's `LinesCodec`), sink methods that
/// send nothing need the item type named: `SinkExt::<&ServerMsg>::close(&mut framed)`.
pub struct VarCodec<T = Variant> {
    framing: Framing,
    cfg: Config,
    max_read: usize,
    max_write: usize,
    /// Bytes consumed by `decode` so far, for error offsets.
    pos: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> VarCodec<T> {
    /// A codec for `framing` with Godot 3 settings ([`with_config`](Self::with_config)
    /// selects another dialect) and the framing's default limits (see the
    /// [`framing` module](crate::framing#limits)).
    pub fn new(framing: Framing) -> Self {
        VarCodec {
            framing,
            cfg: Config::default(),
            max_read: framing.default_read_max(),
            max_write: framing.default_write_max(),
            pos: 0,
            _type: PhantomData,
        }
    }

    /// Uses these settings: dialect, precision, limits, objects.
    pub fn with_config(mut self, cfg: Config) -> Self {
        self.cfg = cfg;
        self
    }

    /// The longest value a frame may carry, read or written.
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_read = max;
        self.max_write = max;
        self
    }
}

impl<T> Clone for VarCodec<T> {
    fn clone(&self) -> Self {
        VarCodec {
            framing: self.framing,
            cfg: self.cfg,
            max_read: self.max_read,
            max_write: self.max_write,
            pos: self.pos,
            _type: PhantomData,
        }
    }
}

impl<T> fmt::Debug for VarCodec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VarCodec")
            .field("framing", &self.framing)
            .field("config", &self.cfg)
            .field("max_read", &self.max_read)
            .field("max_write", &self.max_write)
            .finish_non_exhaustive()
    }
}

impl<T: DeserializeOwned> Decoder for VarCodec<T> {
    type Item = T;
    type Error = Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<T>> {
        if src.len() < 4 {
            return Ok(None);
        }
        let len = self
            .framing
            .body_len([src[0], src[1], src[2], src[3]], self.max_read)
            .map_err(|e| e.or_at(self.pos))?;
        if src.len() - 4 < len {
            // Room for more of this frame, never more than has a chance to arrive soon.
            src.reserve((4 + len - src.len()).min(RESERVE_AHEAD));
            return Ok(None);
        }
        src.advance(4);
        let frame = src.split_to(len);
        let value_at = self.pos + 4;
        self.pos += 4 + len;
        Framing::decode_body(&self.cfg, &frame, value_at).map(Some)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<T>> {
        match self.decode(src)? {
            None if !src.is_empty() => {
                let what = if src.len() < 4 {
                    "a frame length"
                } else {
                    "a frame"
                };
                Err(Error::at(ErrorKind::Eof(what), self.pos + src.len()))
            }
            decoded => Ok(decoded),
        }
    }
}

impl<T, I: Serialize> Encoder<I> for VarCodec<T> {
    type Error = Error;

    fn encode(&mut self, item: I, dst: &mut BytesMut) -> Result<()> {
        let mut frame = Vec::new();
        self.framing
            .encode_frame(&self.cfg, &item, self.max_write, &mut frame)?;
        dst.put_slice(&frame);
        Ok(())
    }
}
