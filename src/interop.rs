//! Conversions with the glam and mint math crates (features `glam`, `mint`).

/// `From` both ways between a foreign math type and ours.
macro_rules! both_ways {
    ($theirs:ty, $ours:ty, |$a:ident| $to_ours:expr, |$b:ident| $to_theirs:expr) => {
        impl From<$theirs> for $ours {
            fn from($a: $theirs) -> Self {
                $to_ours
            }
        }
        impl From<$ours> for $theirs {
            fn from($b: $ours) -> Self {
                $to_theirs
            }
        }
    };
}

#[cfg(feature = "glam")]
pub mod glam {
    //! `glam` types as native Godot types (feature `glam`), as Rust game code (bevy)
    //! holds them: `From` conversions both ways, and `with`-modules so a glam field
    //! is written as the Godot type.
    //!
    //! ```
    //! use serde::{Deserialize, Serialize};
    //!
    //! #[derive(Serialize, Deserialize)]
    //! struct Unit {
    //!     #[serde(with = "godot_bin::glam::vec3")]
    //!     position: glam::Vec3,
    //!     #[serde(with = "godot_bin::glam::quat")]
    //!     rotation: glam::Quat,
    //! }
    //!
    //! let u = Unit { position: glam::Vec3::new(1.0, 2.0, 3.0), rotation: glam::Quat::IDENTITY };
    //! let bytes = godot_bin::to_vec(&u)?;
    //! assert_eq!(
    //!     bytes,
    //!     godot_bin::to_vec(&godot_bin::Dictionary::from_iter([
    //!         ("position", godot_bin::Variant::from(godot_bin::Vector3::new(1.0, 2.0, 3.0))),
    //!         ("rotation", godot_bin::Quat::IDENTITY.into()),
    //!     ]))?
    //! );
    //! # Ok::<(), godot_bin::Error>(())
    //! ```

    use glam::{
        Affine2, Affine3A, IVec2, IVec3, IVec4, Mat3, Mat3A, Mat4, Vec2, Vec3, Vec3A, Vec4,
    };

    use crate::{
        Basis, Projection, Quat, Transform, Transform2D, Vector2, Vector2i, Vector3, Vector3i,
        Vector4, Vector4i,
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
    both_ways!(glam::Quat, Quat, |q| Quat::new(q.x, q.y, q.z, q.w), |q| {
        glam::Quat::from_xyzw(q.x, q.y, q.z, q.w)
    });
    // glam matrices are column-major, like Godot's axes.
    both_ways!(
        Mat3,
        Basis,
        |m| Basis::from_columns(m.x_axis.into(), m.y_axis.into(), m.z_axis.into()),
        |b| Mat3::from_cols(b.x.into(), b.y.into(), b.z.into())
    );
    both_ways!(
        Affine3A,
        Transform,
        |a| Transform::new(Mat3::from(a.matrix3).into(), a.translation.into()),
        |t| Affine3A::from_mat3_translation(Mat3::from(t.basis), t.origin.into())
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

    impl From<Mat3A> for Basis {
        fn from(m: Mat3A) -> Self {
            Mat3::from(m).into()
        }
    }

    macro_rules! with_module {
        ($($module:ident: $g:ident => $ours:ident),* $(,)?) => {
            $(
                #[doc = concat!("`#[serde(with = \"godot_bin::glam::", stringify!($module), "\")]` on a `glam::", stringify!($g), "`: written as a Godot `", stringify!($ours), "`.")]
                pub mod $module {
                    use serde::{Deserialize, Deserializer, Serialize, Serializer};

                    /// Writes the glam value as the Godot type.
                    pub fn serialize<S: Serializer>(v: &glam::$g, s: S) -> Result<S::Ok, S::Error> {
                        crate::$ours::from(*v).serialize(s)
                    }

                    /// Reads the Godot type into the glam value.
                    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<glam::$g, D::Error> {
                        crate::$ours::deserialize(d).map(Into::into)
                    }
                }
            )*
        };
    }

    with_module!(
        vec2: Vec2 => Vector2,
        vec3: Vec3 => Vector3,
        vec3a: Vec3A => Vector3,
        vec4: Vec4 => Vector4,
        ivec2: IVec2 => Vector2i,
        ivec3: IVec3 => Vector3i,
        ivec4: IVec4 => Vector4i,
        quat: Quat => Quat,
        mat3: Mat3 => Basis,
        affine3a: Affine3A => Transform,
        affine2: Affine2 => Transform2D,
        mat4: Mat4 => Projection,
    );
}

#[cfg(feature = "mint")]
mod mint_impls {
    //! `From` conversions with the mint interchange types (feature `mint`).

    use crate::{Basis, Projection, Quat, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i};

    both_ways!(
        mint::Vector2<f32>,
        Vector2,
        |v| Vector2::new(v.x, v.y),
        |v| mint::Vector2 { x: v.x, y: v.y }
    );
    both_ways!(
        mint::Vector3<f32>,
        Vector3,
        |v| Vector3::new(v.x, v.y, v.z),
        |v| mint::Vector3 {
            x: v.x,
            y: v.y,
            z: v.z
        }
    );
    both_ways!(
        mint::Vector4<f32>,
        Vector4,
        |v| Vector4::new(v.x, v.y, v.z, v.w),
        |v| mint::Vector4 {
            x: v.x,
            y: v.y,
            z: v.z,
            w: v.w
        }
    );
    both_ways!(
        mint::Vector2<i32>,
        Vector2i,
        |v| Vector2i::new(v.x, v.y),
        |v| mint::Vector2 { x: v.x, y: v.y }
    );
    both_ways!(
        mint::Vector3<i32>,
        Vector3i,
        |v| Vector3i::new(v.x, v.y, v.z),
        |v| mint::Vector3 {
            x: v.x,
            y: v.y,
            z: v.z
        }
    );
    both_ways!(
        mint::Vector4<i32>,
        Vector4i,
        |v| Vector4i::new(v.x, v.y, v.z, v.w),
        |v| mint::Vector4 {
            x: v.x,
            y: v.y,
            z: v.z,
            w: v.w
        }
    );
    both_ways!(
        mint::Quaternion<f32>,
        Quat,
        |q| Quat::new(q.v.x, q.v.y, q.v.z, q.s),
        |q| mint::Quaternion {
            v: mint::Vector3 {
                x: q.x,
                y: q.y,
                z: q.z
            },
            s: q.w
        }
    );
    both_ways!(
        mint::ColumnMatrix3<f32>,
        Basis,
        |m| Basis::from_columns(m.x.into(), m.y.into(), m.z.into()),
        |b| mint::ColumnMatrix3 {
            x: b.x.into(),
            y: b.y.into(),
            z: b.z.into()
        }
    );
    both_ways!(
        mint::ColumnMatrix4<f32>,
        Projection,
        |m| Projection::from_columns(m.x.into(), m.y.into(), m.z.into(), m.w.into()),
        |p| mint::ColumnMatrix4 {
            x: p.x.into(),
            y: p.y.into(),
            z: p.z.into(),
            w: p.w.into()
        }
    );
}
