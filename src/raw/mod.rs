//! Godot's `StreamPeer` layout as a second serde format: the packets that games build
//! by hand with `StreamPeerBuffer.put_u8`, `put_float`, `put_string` … instead of
//! sending Variants.
//!
//! The layout is not self-describing: the Rust type says what comes next, exactly as
//! the GDScript reading the packet does. Fields follow each other with no names and no
//! padding:
//!
//! | Rust | bytes | GDScript |
//! |---|---|---|
//! | `u8` `i8` `u16` `i16` `u32` `i32` `u64` `i64` | their width | `put_u8` `put_8` `put_u16` `put_16` `put_u32` `put_32` `put_u64` `put_64` |
//! | `f32`, `f64` | 4, 8 | `put_float`, `put_double` |
//! | [`Half`] | 2 (IEEE binary16) | `put_half` (Godot 4) |
//! | `bool` | one byte, 0 or 1 | `put_u8` |
//! | `String`, `&str` | by [`Strings`]: NUL-terminated, or a `u32` length first | `put_utf8_string`, `put_string`, `get_string_from_utf8` |
//! | `Vec<T>`, maps, `&[u8]` (serde_bytes) | a count ([`Count`]), then the items | a loop of `put_*` |
//! | structs, tuples, arrays `[T; N]` | the fields in order, no count | |
//! | `Option<T>` | a byte, 0 or 1, then `T` when 1 | |
//! | enums | the variant's id ([`Width`]), then its fields | `put_u8(PacketId.AUTH)` |
//! | `Vector3`, `Quat`, `Color`, … | their floats as `f32` (`Quat` = x y z w) | `put_float` each |
//! | [`Var<T>`] | a `u32` byte length, then `T` as Variant bytes | `put_var` |
//! | `char` | its code point as a `u32` | |
//!
//! Integers, floats and length prefixes are little-endian unless
//! [`Config::big_endian`] (`StreamPeer.big_endian = true`); a [`Var`]'s Variant bytes stay
//! little-endian inside its prefix, as the engine writes them.
//!
//! An enum's id is its variant's index, unless the variant is named by a number
//! (`#[serde(rename = "17")]`): then that number. So ids with gaps (0, 1, 5, 17) need no
//! placeholder variants. Number every variant or none: an id that is both a number
//! and another variant's index is refused on decode. An unknown id is an error (a
//! `#[serde(other)]` variant never sees it).
//!
//! Every item of a sequence or map takes at least a byte (a `Vec<()>` is refused),
//! which bounds a count by the bytes left. [`Count::Rest`] runs only the outermost
//! sequence to the end of the message; what it holds is counted (`u32`). Strings and
//! byte slices borrow from the input, but for `put_string` strings with characters
//! above 0x7F, which are decoded (Latin-1) into a `String`.
//!
//! Fields can change the string style, the count width or the id width for everything
//! they hold with `#[serde(with = ...)]`: [`str0`], [`utf8`], [`string3`], [`string4`],
//! [`count8`], [`count16`], [`count32`], [`rest`], [`tag8`], [`tag16`], [`tag32`].
//!
//! Packets and messages: over WebSocket, ENet or UDP one message is one packet
//! ([`from_slice`] on it). Over TCP, put each packet in the crate's length-prefixed
//! frames ([`Framing::prefix`](crate::framing::Framing::prefix) to write,
//! [`VarReader::next_frame`](crate::framing::VarReader::next_frame) to cut).
//! `examples/freeblox` is a whole game protocol served this way, with its Godot 4
//! client.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use godot_bin::{raw, Vector3};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! enum Packet {
//!     Auth { player: String, token: String, version: u8 },
//!     Keepalive,
//!     #[serde(rename = "14")]
//!     Movement { player: String, velocity: Vector3, jump: bool },
//! }
//!
//! let cfg = raw::Config::new().strings(raw::Strings::Nul);
//! let p = Packet::Movement { player: "p1".into(), velocity: Vector3::new(0.0, 1.0, 0.0), jump: true };
//! let bytes = cfg.to_vec(&p)?;
//! assert_eq!(bytes[..4], [14, b'p', b'1', 0]);
//! assert_eq!(bytes.len(), 1 + 3 + 12 + 1);
//! assert_eq!(cfg.from_slice::<Packet>(&bytes)?, p);
//! # Ok::<(), godot_bin::Error>(())
//! ```

mod config;
mod de;
mod half;
mod known;
mod layout;
mod marker;
mod modules;
mod ser;
mod var;

use std::io;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// IEEE binary16, the value a [`Half`] holds (re-exported from the `half` crate).
pub use ::half::f16;
pub use config::{Config, Count, Endian, Strings, Width};
pub use de::Deserializer;
pub use half::Half;
pub use known::{Known, Runtime};
pub use layout::{Field, Layout, Value};
pub use modules::{
    count16, count32, count8, rest, str0, string3, string4, tag16, tag32, tag8, utf8,
};
pub(crate) use ser::is_vec_serializer;
pub use ser::{Counted, Serializer, Tally};
pub use var::Var;

/// `value` in the raw layout with the default [`Config`].
///
/// ```
/// let bytes = godot_bin::raw::to_vec(&(7u8, -2i16, 1.5f32))?;
/// assert_eq!(bytes, [7, 0xFE, 0xFF, 0, 0, 0xC0, 0x3F]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    Config::new().to_vec(value)
}

/// Writes `value` in the raw layout to `writer` as it goes (no buffer of the whole).
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    Config::new().to_writer(writer, value)
}

/// Reads one `T` that fills `bytes` exactly; strings and byte slices borrow from it.
///
/// ```
/// let (id, name): (u8, &str) = godot_bin::raw::Config::new()
///     .strings(godot_bin::raw::Strings::Nul)
///     .from_slice(b"\x02world\0")?;
/// assert_eq!((id, name), (2, "world"));
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Config::new().from_slice(bytes)
}

/// Reads one `T` from `reader`, which must end right after it.
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Config::new().from_reader(reader)
}
