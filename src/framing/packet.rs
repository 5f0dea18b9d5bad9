//! Unframed values: `PacketPeer` packets and `Marshalls` Base64 text.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::de::{Deserialize, DeserializeOwned};
use serde::ser::Serialize;

use super::{too_large, PACKET_PEER_MAX};
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};

/// Encodes one `PacketPeer.put_var` packet (`PacketPeerUDP`, `WebSocketPeer`, ENet):
/// the bare value, which the transport delimits. Refused above [`PACKET_PEER_MAX`]
/// (8 MiB), as the engine's default `encode_buffer_max_size` refuses it.
///
/// ```
/// use std::net::UdpSocket;
/// use godot_bin::framing::{decode_packet, encode_packet};
/// use godot_bin::{Config, Dialect, Vector2};
///
/// let godot4 = Config::new().dialect(Dialect::Godot4);
/// let socket = UdpSocket::bind("127.0.0.1:0")?;
/// socket.send_to(&encode_packet(godot4, &("pos", Vector2::new(1.0, 2.0)))?, socket.local_addr()?)?;
///
/// let mut packet = [0; 1500];
/// let (n, _) = socket.recv_from(&mut packet)?;
/// let (name, pos): (&str, Vector2) = decode_packet(godot4, &packet[..n])?;
/// assert_eq!((name, pos), ("pos", Vector2::new(1.0, 2.0)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_packet<T: ?Sized + Serialize>(cfg: Config, value: &T) -> Result<Vec<u8>> {
    let bytes = cfg.to_vec(value)?;
    if bytes.len() > PACKET_PEER_MAX {
        return Err(too_large(bytes.len(), PACKET_PEER_MAX));
    }
    Ok(bytes)
}

/// Decodes one packet from `PacketPeer.put_var`, borrowing strings from it where the
/// type allows. The packet must hold exactly one value.
pub fn decode_packet<'de, T: Deserialize<'de>>(cfg: Config, packet: &'de [u8]) -> Result<T> {
    cfg.from_slice(packet)
}

/// `Marshalls.variant_to_base64`: standard Base64, padded, of the bare value.
///
/// ```
/// use godot_bin::framing::{base64_to_variant, variant_to_base64};
/// use godot_bin::{Config, Dialect, Variant};
///
/// let godot3 = Config::new();
/// let godot4 = Config::new().dialect(Dialect::Godot4);
/// assert_eq!(variant_to_base64(godot3, &1)?, "AgAAAAEAAAA=");
/// assert_eq!(variant_to_base64(godot4, &[1])?, "HAAAAAEAAAACAAAAAQAAAA==");
/// assert_eq!(base64_to_variant::<Variant>(godot4, "HAAAAAEAAAACAAAAAQAAAA==")?, Variant::Array(vec![1.into()]));
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn variant_to_base64<T: ?Sized + Serialize>(cfg: Config, value: &T) -> Result<String> {
    Ok(STANDARD.encode(cfg.to_vec(value)?))
}

/// `Marshalls.base64_to_variant`: decodes standard, padded Base64 text, then the value.
/// Whitespace and line breaks are skipped (the engine skips line breaks).
pub fn base64_to_variant<T: DeserializeOwned>(cfg: Config, text: &str) -> Result<T> {
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let bytes = STANDARD
        .decode(compact)
        .map_err(|e| Error::new(ErrorKind::InvalidBase64(e.to_string())))?;
    cfg.from_slice(&bytes)
}
