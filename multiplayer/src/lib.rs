//! Godot's high-level multiplayer from Rust, without IO: the SceneMultiplayer packets
//! that `@rpc` calls travel in, read and written exactly as the engine does.
//!
//! Feed it the payload of each WebSocket message or ENet packet; send what it
//! encodes. Arguments are [`godot_bin::Variant`]s (Godot 4 encoding, with the
//! engine's compressed top-level bools and ints).
//!
//! ```
//! use godot_bin::Variant;
//! use godot_bin_multiplayer::{NodeRef, Packet, RemoteCall, RpcNames};
//!
//! // `@rpc func one(a)` on the node at "Game", whose rpc names are these:
//! let names = RpcNames::new(["blob", "one", "ping", "three", "two"]);
//! let call = Packet::Call(RemoteCall {
//!     node: NodeRef::Path("Game".into()),
//!     method: names.id("one").unwrap(),
//!     args: vec![Variant::Int(42)],
//! });
//! // What Godot 4.6 sends for `rpc_id(1, "one", 42)` before the path is cached.
//! let bytes = call.encode()?;
//! assert_eq!(bytes, b"\x20\x09\x00\x00\x80\x01\x01\x02\x2aGame\0");
//! assert_eq!(Packet::decode(&bytes)?, call);
//! # Ok::<(), godot_bin_multiplayer::Error>(())
//! ```
//!
//! Input is held stricter than the engine, which passes malformed arguments as null:
//! a packet that is not exactly what the engine would send is an [`Error`] with its
//! byte offset, never a panic, and nothing is allocated beyond a small multiple of
//! the packet's size.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod args;
#[cfg(feature = "enet")]
pub mod enet;
mod error;
pub mod godot3;
mod names;
mod reader;
mod scene4;
mod session;
#[cfg(feature = "websocket")]
pub mod ws;

pub use error::{Error, ErrorKind, Result};
pub use names::RpcNames;
pub use scene4::{NodeRef, Packet, RemoteCall, Sys};
pub use session::{
    Call, Delivery, Event, Limits, Mode, Protocol, Scene, Session, Target, Transmit, SERVER,
};
