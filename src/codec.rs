//! A `tokio_util::codec` for length-prefixed variants (feature `tokio`): what
//! `StreamPeer.put_var` and `PacketPeerStream` send over TCP.
//!
//! ```
//! use bytes::BytesMut;
//! use godot_bin::codec::VarCodec;
//! use godot_bin::framing::Framing;
//! use godot_bin::Variant;
//! use tokio_util::codec::{Decoder, Encoder};
//!
//! let mut codec = VarCodec::<Variant>::new(Framing::PacketPeerStream);
//! let mut buf = BytesMut::new();
//! codec.encode(&Variant::from("hi"), &mut buf)?;
//! assert_eq!(&buf[..], [12, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0]);
//! assert_eq!(codec.decode(&mut buf)?, Some(Variant::from("hi")));
//! # Ok::<(), godot_bin::Error>(())
//! ```

use std::marker::PhantomData;

use bytes::{Buf, BufMut, BytesMut};
use serde::de::DeserializeOwned;
use serde::ser::Serialize;
use tokio_util::codec::{Decoder, Encoder};

use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};
use crate::framing::Framing;

/// Encodes and decodes length-prefixed values of type `T` (`Variant` for any value).
#[derive(Debug, Clone)]
pub struct VarCodec<T> {
    framing: Framing,
    cfg: Config,
    max_frame: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> VarCodec<T> {
    /// A codec for `framing` with the Godot 3 dialect and the framing's size limit
    /// (8 MiB for stream peers, 65532 bytes for `PacketPeerStream`).
    pub fn new(framing: Framing) -> Self {
        let max_frame = match framing {
            Framing::StreamPeer { .. } => crate::framing::DEFAULT_MAX_FRAME,
            Framing::PacketPeerStream => crate::framing::PACKET_PEER_STREAM_MAX,
        };
        VarCodec {
            framing,
            cfg: Config::default(),
            max_frame,
            _type: PhantomData,
        }
    }

    /// Uses these settings (dialect, limits, objects).
    pub fn with_config(mut self, cfg: Config) -> Self {
        self.cfg = cfg;
        self
    }

    /// The largest frame accepted or sent.
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }
}

impl<T: DeserializeOwned> Decoder for VarCodec<T> {
    type Item = T;
    type Error = Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<T>> {
        if src.len() < 4 {
            return Ok(None);
        }
        let len = self.framing.length([src[0], src[1], src[2], src[3]]);
        if len > self.max_frame {
            return Err(Error::new(ErrorKind::FrameTooLarge {
                len,
                max: self.max_frame,
            }));
        }
        if src.len() < 4 + len {
            // Room for the rest of this frame only: the limit above bounds it.
            src.reserve(4 + len - src.len());
            return Ok(None);
        }
        src.advance(4);
        let frame = src.split_to(len);
        self.cfg.from_slice(&frame).map(Some)
    }
}

impl<T: Serialize> Encoder<&T> for VarCodec<T> {
    type Error = Error;

    fn encode(&mut self, item: &T, dst: &mut BytesMut) -> Result<()> {
        let bytes = self.cfg.to_vec(item)?;
        if bytes.len() > self.max_frame {
            return Err(Error::new(ErrorKind::FrameTooLarge {
                len: bytes.len(),
                max: self.max_frame,
            }));
        }
        dst.reserve(4 + bytes.len());
        dst.put_slice(&self.framing.prefix(bytes.len())?);
        dst.put_slice(&bytes);
        Ok(())
    }
}

impl<T: Serialize> Encoder<T> for VarCodec<T> {
    type Error = Error;

    fn encode(&mut self, item: T, dst: &mut BytesMut) -> Result<()> {
        Encoder::<&T>::encode(self, &item, dst)
    }
}
