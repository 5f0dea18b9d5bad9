//! Rust types for Godot's built-in types.

mod math;
mod node_path;
pub mod pool;
mod rid;

pub(crate) use math::Floats;
pub use math::{Aabb, Basis, Color, Plane, Quat, Rect2, Transform, Transform2D, Vector2, Vector3};
pub use node_path::NodePath;
pub use pool::{
    PoolByteArray, PoolColorArray, PoolIntArray, PoolRealArray, PoolStringArray, PoolVector2Array,
    PoolVector3Array,
};
pub use rid::Rid;
