//! Rust types for Godot's built-in types.

mod godot2;
mod godot4;
pub(crate) mod math;
mod node_path;
pub mod pool;
mod rid;
pub mod typed;

pub(crate) use godot2::IMAGE_FORMAT_MAX;
pub use godot2::{Image, InputEvent, InputEventKind};
pub(crate) use godot4::Ints;
pub use godot4::{
    Callable, Projection, Rect2i, Signal, StringName, Vector2i, Vector3i, Vector4, Vector4i,
};
pub(crate) use math::{from_wire, FloatBytes, Floats};
pub use math::{Aabb, Basis, Color, Plane, Quat, Rect2, Transform, Transform2D, Vector2, Vector3};
pub use node_path::NodePath;
pub use pool::{
    PackedFloat64Array, PackedInt64Array, PackedVector4Array, PoolByteArray, PoolColorArray,
    PoolIntArray, PoolRealArray, PoolStringArray, PoolVector2Array, PoolVector3Array,
};
pub use rid::Rid;

/// Godot 4's name for [`Quat`].
pub type Quaternion = Quat;
/// Godot 4's name for [`Transform`].
pub type Transform3D = Transform;
/// Godot 4's name for [`PoolByteArray`].
pub type PackedByteArray = PoolByteArray;
/// Godot 4's name for [`PoolIntArray`].
pub type PackedInt32Array = PoolIntArray;
/// Godot 4's name for [`PoolRealArray`].
pub type PackedFloat32Array = PoolRealArray;
/// Godot 4's name for [`PoolStringArray`].
pub type PackedStringArray = PoolStringArray;
/// Godot 4's name for [`PoolVector2Array`].
pub type PackedVector2Array = PoolVector2Array;
/// Godot 4's name for [`PoolVector3Array`].
pub type PackedVector3Array = PoolVector3Array;
/// Godot 4's name for [`PoolColorArray`].
pub type PackedColorArray = PoolColorArray;
