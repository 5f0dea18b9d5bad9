//! The transports' own bytes around the packets, as pure functions, for a network
//! loop of your own: Godot 4's WebSocket id message, and Godot 3's ENet payload
//! header and peer notices. (Godot 3's WebSocket header is
//! [`godot3::WsHeader`](crate::godot3::WsHeader); Godot 4's ENet has no header.)
//!
//! ```
//! use godot_bin_multiplayer::wire;
//! assert_eq!(wire::id_message(1234), [0xd2, 0x04, 0, 0]);
//! assert_eq!(wire::read_id_message(&[0xd2, 0x04, 0, 0]), Some(1234));
//! // Godot 3 over ENet: from 7 to the server, then the packet.
//! let payload = wire::enet3_payload(7, 1, b"\x04hi");
//! assert_eq!(wire::split_enet3_payload(&payload)?, (7, 1, &b"\x04hi"[..]));
//! # Ok::<(), godot_bin_multiplayer::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::session::SERVER;

/// Godot 4's WebSocket id message, the server's first message to a client.
pub fn id_message(id: i32) -> [u8; 4] {
    id.to_le_bytes()
}

/// The id in a Godot 4 id message: exactly 4 bytes, 2..2^31-1 (anything else makes
/// a Godot client close with "Invalid ID received from server").
pub fn read_id_message(bytes: &[u8]) -> Option<i32> {
    let id = i32::from_le_bytes(bytes.try_into().ok()?);
    (id > SERVER).then_some(id)
}

/// `[source u32][target u32]` then `packet`: a Godot 3 ENet payload (target 1 the
/// server, 0 all, -id all but id).
pub fn enet3_payload(from: i32, to: i32, packet: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + packet.len());
    b.extend_from_slice(&from.to_le_bytes());
    b.extend_from_slice(&to.to_le_bytes());
    b.extend_from_slice(packet);
    b
}

/// A Godot 3 ENet payload's source, target and packet.
pub fn split_enet3_payload(bytes: &[u8]) -> Result<(i32, i32, &[u8])> {
    if bytes.len() < 8 {
        return Err(Error::at(
            ErrorKind::Truncated("the source and target ids"),
            bytes.len(),
        ));
    }
    let id = |i: usize| i32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Ok((id(0), id(4), &bytes[8..]))
}

/// A Godot 3 ENet server's peer notice (channel 0): `[0 add | 1 remove u32][id u32]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enet3Notice {
    /// A peer joined.
    Add(i32),
    /// A peer left.
    Remove(i32),
}

impl Enet3Notice {
    /// Its 8 bytes.
    pub fn encode(self) -> [u8; 8] {
        let (kind, id) = match self {
            Enet3Notice::Add(id) => (0u32, id),
            Enet3Notice::Remove(id) => (1, id),
        };
        let mut b = [0; 8];
        b[..4].copy_from_slice(&kind.to_le_bytes());
        b[4..].copy_from_slice(&id.to_le_bytes());
        b
    }

    /// Reads one (the engine reads the first 8 bytes and ignores the rest; this
    /// refuses anything but 8).
    pub fn decode(bytes: &[u8]) -> Result<Enet3Notice> {
        let (kind, id, rest) = split_enet3_payload(bytes)?;
        if !rest.is_empty() {
            return Err(Error::at(ErrorKind::Trailing(rest.len()), 8));
        }
        match kind {
            0 => Ok(Enet3Notice::Add(id)),
            1 => Ok(Enet3Notice::Remove(id)),
            k => Err(Error::at(ErrorKind::UnknownCommand(k as u8), 0)),
        }
    }
}
