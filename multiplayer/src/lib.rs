//! Godot's high-level multiplayer from Rust: the packets that `@rpc` calls travel in,
//! read and written exactly as the engine does, and servers and clients that Godot
//! games talk to.
//!
//! - [`Packet`] (Godot 4's SceneMultiplayer) and [`godot3::Packet`] (Godot 3's
//!   MultiplayerAPI): one packet each way, no IO. Arguments are
//!   [`godot_bin::Variant`]s.
//! - [`Session`]: one side (the server or a client) without IO: peers, path caches,
//!   relay, calls in as [`Event`]s and out from any `Serialize` tuple. Feed it each
//!   payload; send what [`Session::poll_transmit`] gives.
//! - [`Replicator`]: the authority's side of `MultiplayerSpawner` and
//!   `MultiplayerSynchronizer` on top of a [`Session`]: network ids, visibility,
//!   spawns for peers that join, syncs and deltas.
//! - `ws` (feature `websocket`) and `enet` (feature `enet`): servers and clients on
//!   tokio for Godot 4's `WebSocketMultiplayerPeer` / `ENetMultiplayerPeer` and
//!   Godot 3's equivalents.
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
//! a packet the engine could not read is an [`Error`] with its byte offset, never a
//! panic, and so are forms of the call it never writes (an int compressed into more
//! bytes than it needs, a count before no arguments); nothing is allocated beyond a
//! small multiple of the packet's size. Other forms the engine reads but does not
//! write (a cached node id in two bytes that one holds, a 64-bit float that 32 bits
//! hold) are read as the engine reads them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod args;
mod args_ser;
mod arguments;
#[cfg(any(feature = "websocket", feature = "enet"))]
mod auth_clock;
#[cfg(feature = "enet")]
pub mod enet;
#[cfg(feature = "enet")]
mod enet_queue;
mod error;
pub mod godot3;
#[cfg(feature = "enet")]
mod mailbox;
mod names;
#[cfg(feature = "websocket")]
mod outbox;
mod reader;
mod replication;
mod replicator;
mod rpc_mode;
mod scene4;
#[cfg(any(feature = "websocket", feature = "enet"))]
mod send_queue;
mod session;
pub mod wire;
#[cfg(feature = "websocket")]
pub mod ws;

pub use arguments::Arguments;
pub use error::{Error, ErrorKind, Result};
pub use names::{Name, RpcNames};
pub use replication::{Delta, DeltaEntry, Spawn, SpawnSource, Sync, SyncEntry, MAX_STATE_VALUES};
pub use replicator::{NodeId, Property, ReplicationMode, Replicator, Synchronizer, MAX_WATCHED};
pub use rpc_mode::{Rpc, RpcMode};
pub use scene4::{Args, CallRef, NodeRef, Packet, RemoteCall, Sys};
pub use session::{
    Call, CallIn, Delivery, Event, Limits, Mode, Protocol, Scene, Session, Target, Transmit, SERVER,
};
