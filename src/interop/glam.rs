//! [`glam`](::glam) types as native Godot types (feature `glam`), as Rust game code
//! (bevy) holds them.
//!
//! - `From` both ways: `Vec2` ↔ [`Vector2`], `Vec3`/`Vec3A` ↔ [`Vector3`], `Vec4` ↔
//!   [`Vector4`], `IVec2`/`IVec3`/`IVec4` ↔ [`Vector2i`]/[`Vector3i`]/[`Vector4i`], `Quat` ↔
//!   [`Quat`], `Mat3`/`Mat3A` ↔ [`Basis`], `Affine3A` ↔ [`Transform`], `Affine2` ↔
//!   [`Transform2D`], `Mat4` ↔ [`Projection`]; and `From` each glam type for [`Variant`].
//!   glam matrices are column-major like Godot's axes: `Mat3::x_axis` is `Basis::x`.
//! - `with`-modules that write a glam field as the Godot type: `vec3`, `quat`,
//!   `affine3a`, ... (one per type above, named after the glam type), and
//!   `vec2_array`, `vec3_array`, `vec4_array` for a `Vec` of them as a pool array.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Unit {
//!     #[serde(with = "godot_bin::glam::vec3")]
//!     position: glam::Vec3,
//!     #[serde(with = "godot_bin::glam::quat")]
//!     rotation: glam::Quat,
//!     #[serde(with = "godot_bin::glam::vec3_array")]
//!     path: Vec<glam::Vec3>,
//! }
//!
//! let unit = Unit {
//!     position: glam::Vec3::new(1.0, 2.0, 3.0),
//!     rotation: glam::Quat::IDENTITY,
//!     path: vec![glam::Vec3::ZERO, glam::Vec3::X],
//! };
//! let bytes = godot_bin::to_vec(&unit)?;
//!
//! // What a GDScript `{"position": Vector3(1, 2, 3), "rotation": Quat(0, 0, 0, 1),
//! // "path": PoolVector3Array([Vector3(0, 0, 0), Vector3(1, 0, 0)])}` is on the wire:
//! let any: godot_bin::Variant = godot_bin::from_slice(&bytes)?;
//! assert_eq!(any.get("position"), Some(&godot_bin::Vector3::new(1.0, 2.0, 3.0).into()));
//! assert_eq!(any.get("rotation"), Some(&godot_bin::Quat::IDENTITY.into()));
//! assert!(matches!(any.get("path"), Some(godot_bin::Variant::PoolVector3Array(_))));
//! assert_eq!(godot_bin::from_slice::<Unit>(&bytes)?, unit);
//! # Ok::<(), godot_bin::Error>(())
//! ```

use ::glam::{Affine2, Affine3A, IVec2, IVec3, IVec4, Mat3, Mat3A, Mat4, Vec2, Vec3, Vec3A, Vec4};

use super::{array_modules, both_ways, into_variant, with_modules};
#[cfg(doc)]
use crate::Variant;
use crate::{
    Basis, Projection, Quat, Transform, Transform2D, Vector2, Vector2i, Vector3, Vector3i, Vector4,
    Vector4i,
};

both_ways!(Vec2, Vector2, |v| Vector2::new(v.x, v.y), |v| Vec2::new(
    v.x, v.y
));
both_ways!(Vec3, Vector3, |v| Vector3::new(v.x, v.y, v.z), |v| {
    Vec3::new(v.x, v.y, v.z)
});
both_ways!(Vec3A, Vector3, |v| Vector3::new(v.x, v.y, v.z), |v| {
    Vec3A::new(v.x, v.y, v.z)
});
both_ways!(Vec4, Vector4, |v| Vector4::new(v.x, v.y, v.z, v.w), |v| {
    Vec4::new(v.x, v.y, v.z, v.w)
});
both_ways!(
    IVec2,
    Vector2i,
    |v| Vector2i::new(v.x, v.y),
    |v| IVec2::new(v.x, v.y)
);
both_ways!(IVec3, Vector3i, |v| Vector3i::new(v.x, v.y, v.z), |v| {
    IVec3::new(v.x, v.y, v.z)
});
both_ways!(
    IVec4,
    Vector4i,
    |v| Vector4i::new(v.x, v.y, v.z, v.w),
    |v| IVec4::new(v.x, v.y, v.z, v.w)
);
both_ways!(::glam::Quat, Quat, |q| Quat::new(q.x, q.y, q.z, q.w), |q| {
    ::glam::Quat::from_xyzw(q.x, q.y, q.z, q.w)
});
both_ways!(
    Mat3,
    Basis,
    |m| Basis::from_columns(m.x_axis.into(), m.y_axis.into(), m.z_axis.into()),
    |b| Mat3::from_cols(b.x.into(), b.y.into(), b.z.into())
);
both_ways!(Mat3A, Basis, |m| Mat3::from(m).into(), |b| Mat3A::from(
    Mat3::from(b)
));
both_ways!(
    Affine3A,
    Transform,
    |a| Transform::new(a.matrix3.into(), a.translation.into()),
    |t| Affine3A::from_mat3_translation(t.basis.into(), t.origin.into())
);
both_ways!(
    Affine2,
    Transform2D,
    |a| Transform2D::new(
        a.matrix2.x_axis.into(),
        a.matrix2.y_axis.into(),
        a.translation.into()
    ),
    |t| Affine2::from_cols(t.x.into(), t.y.into(), t.origin.into())
);
both_ways!(
    Mat4,
    Projection,
    |m| Projection::from_columns(
        m.x_axis.into(),
        m.y_axis.into(),
        m.z_axis.into(),
        m.w_axis.into()
    ),
    |p| Mat4::from_cols(p.x.into(), p.y.into(), p.z.into(), p.w.into())
);

into_variant!(
    Vec2 => Vector2, Vec3 => Vector3, Vec3A => Vector3, Vec4 => Vector4,
    IVec2 => Vector2i, IVec3 => Vector3i, IVec4 => Vector4i, ::glam::Quat => Quat,
    Mat3 => Basis, Mat3A => Basis, Affine3A => Transform, Affine2 => Transform2D,
    Mat4 => Projection,
);

with_modules!(
    "godot_bin::glam",
    vec2: ::glam::Vec2 => Vector2,
    vec3: ::glam::Vec3 => Vector3,
    vec3a: ::glam::Vec3A => Vector3,
    vec4: ::glam::Vec4 => Vector4,
    ivec2: ::glam::IVec2 => Vector2i,
    ivec3: ::glam::IVec3 => Vector3i,
    ivec4: ::glam::IVec4 => Vector4i,
    quat: ::glam::Quat => Quat,
    mat3: ::glam::Mat3 => Basis,
    mat3a: ::glam::Mat3A => Basis,
    affine3a: ::glam::Affine3A => Transform,
    affine2: ::glam::Affine2 => Transform2D,
    mat4: ::glam::Mat4 => Projection,
);

array_modules!(
    "godot_bin::glam",
    vec2_array: ::glam::Vec2 => Vector2 as vector2, "PoolVector2Array",
    vec3_array: ::glam::Vec3 => Vector3 as vector3, "PoolVector3Array",
    vec4_array: ::glam::Vec4 => Vector4 as vector4, "PackedVector4Array (Godot 4.3+)",
);
