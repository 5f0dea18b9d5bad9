//! The Freeblox protocol (a Godot game with its own packet layout) as one Rust enum:
//! each packet is a `u8` id, then its fields as the client's `StreamPeerBuffer` writes
//! them, strings NUL-terminated, floats little-endian. Variant order is the id.

use godot_bin::raw::{self, Strings};
use godot_bin::{Quat, Vector3};
use serde::{Deserialize, Serialize};

/// The layout both sides use.
pub fn config() -> raw::Config {
    raw::Config::new().strings(Strings::Nul)
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Packet {
    /// 0: player uuid, session token, client version.
    Auth {
        player: String,
        token: String,
        version: u8,
    },
    /// 1.
    Keepalive,
    /// 2: world name.
    StreamStart { world: String },
    /// 3: the asset's bytes run to the end of the message.
    StreamAsset {
        path: String,
        name: String,
        /// Texture, CubeTexture or Mesh.
        kind: String,
        #[serde(with = "raw::rest")]
        data: Vec<u8>,
    },
    /// 4: `data` is JSON.
    StreamObject {
        object: String,
        parent: String,
        kind: String,
        data: String,
    },
    /// 5.
    StreamDestroy { object: String },
    /// 6: `data` is JSON.
    StreamEvent {
        object: String,
        event: String,
        data: String,
    },
    /// 7: world name.
    StreamFinish { world: String },
    /// 8.
    StreamTransform {
        object: String,
        position: Vector3,
        rotation: Quat,
        linear_velocity: Vector3,
        angular_velocity: Vector3,
    },
    /// 9.
    StreamChat {
        player: String,
        kind: String,
        message: String,
    },
    /// 10: a u32 count, then (uuid, name) pairs.
    PlayerList { players: Vec<(String, String)> },
    /// 11.
    PlayerJoin { player: String, name: String },
    /// 12.
    PlayerQuit {
        player: String,
        name: String,
        reason: String,
    },
    /// 13: `customization` is JSON.
    PlayerCharacter {
        player: String,
        name: String,
        position: Vector3,
        rotation: Quat,
        character: String,
        customization: String,
    },
    /// 14.
    PlayerMovement {
        player: String,
        linear_velocity: Vector3,
        look_at: Vector3,
        jump: bool,
    },
    /// 15.
    PlayerChat {
        player: String,
        kind: String,
        message: String,
    },
    /// 16: `data` is JSON.
    PlayerEvent {
        player: String,
        object: String,
        event: String,
        data: String,
    },
    /// 17.
    Error { kind: String },
}
