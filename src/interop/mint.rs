//! [`mint`](::mint) interchange types as native Godot types (feature `mint`): the way
//! in for nalgebra, cgmath, ultraviolet and other math crates that convert to mint.
//!
//! - `From` both ways: `Vector2<f32>` ↔ [`Vector2`], `Vector3<f32>` ↔ [`Vector3`],
//!   `Vector4<f32>` ↔ [`Vector4`], `Vector2/3/4<i32>` ↔ [`Vector2i`]/[`Vector3i`]/[`Vector4i`],
//!   `Quaternion<f32>` ↔ [`Quat`], `ColumnMatrix3<f32>` ↔ [`Basis`],
//!   `ColumnMatrix3x4<f32>` ↔ [`Transform`] (basis columns, then origin),
//!   `ColumnMatrix2x3<f32>` ↔ [`Transform2D`], `ColumnMatrix4<f32>` ↔ [`Projection`]; and
//!   `From` each for [`Variant`]. mint's row matrices convert to these with `From`.
//! - `with`-modules that write a mint field as the Godot type: `vector2`, `vector3`,
//!   `quaternion`, `column_matrix3x4`, ... and `vector3_array` for a `Vec` as a pool array.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Camera {
//!     #[serde(with = "godot_bin::mint::vector3")]
//!     eye: mint::Vector3<f32>,
//!     #[serde(with = "godot_bin::mint::quaternion")]
//!     look: mint::Quaternion<f32>,
//! }
//!
//! let camera = Camera {
//!     eye: [0.0, 2.0, 5.0].into(),
//!     look: mint::Quaternion { v: [0.0, 0.0, 0.0].into(), s: 1.0 },
//! };
//! let any: godot_bin::Variant = godot_bin::from_slice(&godot_bin::to_vec(&camera)?)?;
//! assert_eq!(any.get("eye"), Some(&godot_bin::Vector3::new(0.0, 2.0, 5.0).into()));
//! assert_eq!(any.get("look"), Some(&godot_bin::Quat::IDENTITY.into()));
//! # Ok::<(), godot_bin::Error>(())
//! ```

use ::mint::{
    ColumnMatrix2x3, ColumnMatrix3, ColumnMatrix3x4, ColumnMatrix4, Quaternion, Vector2 as MVec2,
    Vector3 as MVec3, Vector4 as MVec4,
};

use super::{array_modules, both_ways, into_variant, with_modules};
#[cfg(doc)]
use crate::Variant;
use crate::{
    Basis, Projection, Quat, Transform, Transform2D, Vector2, Vector2i, Vector3, Vector3i, Vector4,
    Vector4i,
};

both_ways!(MVec2<f32>, Vector2, |v| Vector2::new(v.x, v.y), |v| MVec2 {
    x: v.x,
    y: v.y
});
both_ways!(MVec3<f32>, Vector3, |v| Vector3::new(v.x, v.y, v.z), |v| {
    MVec3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
});
both_ways!(
    MVec4<f32>,
    Vector4,
    |v| Vector4::new(v.x, v.y, v.z, v.w),
    |v| MVec4 {
        x: v.x,
        y: v.y,
        z: v.z,
        w: v.w
    }
);
both_ways!(MVec2<i32>, Vector2i, |v| Vector2i::new(v.x, v.y), |v| {
    MVec2 { x: v.x, y: v.y }
});
both_ways!(
    MVec3<i32>,
    Vector3i,
    |v| Vector3i::new(v.x, v.y, v.z),
    |v| MVec3 {
        x: v.x,
        y: v.y,
        z: v.z
    }
);
both_ways!(
    MVec4<i32>,
    Vector4i,
    |v| Vector4i::new(v.x, v.y, v.z, v.w),
    |v| MVec4 {
        x: v.x,
        y: v.y,
        z: v.z,
        w: v.w
    }
);
both_ways!(
    Quaternion<f32>,
    Quat,
    |q| Quat::new(q.v.x, q.v.y, q.v.z, q.s),
    |q| Quaternion {
        v: MVec3 {
            x: q.x,
            y: q.y,
            z: q.z
        },
        s: q.w
    }
);
both_ways!(
    ColumnMatrix3<f32>,
    Basis,
    |m| Basis::from_columns(m.x.into(), m.y.into(), m.z.into()),
    |b| ColumnMatrix3 {
        x: b.x.into(),
        y: b.y.into(),
        z: b.z.into()
    }
);
both_ways!(
    ColumnMatrix3x4<f32>,
    Transform,
    |m| Transform::new(
        Basis::from_columns(m.x.into(), m.y.into(), m.z.into()),
        m.w.into()
    ),
    |t| ColumnMatrix3x4 {
        x: t.basis.x.into(),
        y: t.basis.y.into(),
        z: t.basis.z.into(),
        w: t.origin.into()
    }
);
both_ways!(
    ColumnMatrix2x3<f32>,
    Transform2D,
    |m| Transform2D::new(m.x.into(), m.y.into(), m.z.into()),
    |t| ColumnMatrix2x3 {
        x: t.x.into(),
        y: t.y.into(),
        z: t.origin.into()
    }
);
both_ways!(
    ColumnMatrix4<f32>,
    Projection,
    |m| Projection::from_columns(m.x.into(), m.y.into(), m.z.into(), m.w.into()),
    |p| ColumnMatrix4 {
        x: p.x.into(),
        y: p.y.into(),
        z: p.z.into(),
        w: p.w.into()
    }
);

into_variant!(
    MVec2<f32> => Vector2, MVec3<f32> => Vector3, MVec4<f32> => Vector4,
    MVec2<i32> => Vector2i, MVec3<i32> => Vector3i, MVec4<i32> => Vector4i,
    Quaternion<f32> => Quat, ColumnMatrix3<f32> => Basis, ColumnMatrix3x4<f32> => Transform,
    ColumnMatrix2x3<f32> => Transform2D, ColumnMatrix4<f32> => Projection,
);

with_modules!(
    "godot_bin::mint",
    vector2: ::mint::Vector2<f32> => Vector2,
    vector3: ::mint::Vector3<f32> => Vector3,
    vector4: ::mint::Vector4<f32> => Vector4,
    vector2i: ::mint::Vector2<i32> => Vector2i,
    vector3i: ::mint::Vector3<i32> => Vector3i,
    vector4i: ::mint::Vector4<i32> => Vector4i,
    quaternion: ::mint::Quaternion<f32> => Quat,
    column_matrix3: ::mint::ColumnMatrix3<f32> => Basis,
    column_matrix3x4: ::mint::ColumnMatrix3x4<f32> => Transform,
    column_matrix2x3: ::mint::ColumnMatrix2x3<f32> => Transform2D,
    column_matrix4: ::mint::ColumnMatrix4<f32> => Projection,
);

array_modules!(
    "godot_bin::mint",
    vector2_array: ::mint::Vector2<f32> => Vector2 as vector2, "PoolVector2Array",
    vector3_array: ::mint::Vector3<f32> => Vector3 as vector3, "PoolVector3Array",
    vector4_array: ::mint::Vector4<f32> => Vector4 as vector4, "PackedVector4Array (Godot 4.3+)",
);
