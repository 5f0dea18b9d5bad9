//! glam and mint types as native Godot types (features `glam`, `mint`).

#[cfg(feature = "glam")]
mod glam_types {
    use godot_bin::{
        Basis, Config, Dialect, Projection, Quat, Transform, Transform2D, Variant, Vector2,
        Vector3, Vector3i, Vector4,
    };
    use serde::{Deserialize, Serialize};

    fn affine() -> glam::Affine3A {
        glam::Affine3A::from_scale_rotation_translation(
            glam::Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::from_rotation_y(0.5),
            glam::Vec3::new(4.0, 5.0, 6.0),
        )
    }

    #[test]
    fn conversions_keep_godots_axes() {
        let t = Transform::from(affine());
        assert_eq!(t.origin, Vector3::new(4.0, 5.0, 6.0));
        // Godot's basis columns are glam's matrix columns.
        assert_eq!(t.basis.x, glam::Vec3::from(affine().matrix3.x_axis).into());
        assert_eq!(glam::Affine3A::from(t), affine());

        let m = glam::Mat3::from_cols_array(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        let b = Basis::from_columns(
            Vector3::new(1.0, 2.0, 3.0),
            Vector3::new(4.0, 5.0, 6.0),
            Vector3::new(7.0, 8.0, 9.0),
        );
        assert_eq!(Basis::from(m), b);
        assert_eq!(Basis::from(glam::Mat3A::from(m)), b);
        assert_eq!(glam::Mat3A::from(b), glam::Mat3A::from(m));
        // Godot writes the rows: x.x, y.x, z.x, ...
        assert_eq!(b.rows()[0], [1.0, 4.0, 7.0]);

        let a2 = glam::Affine2::from_cols(
            glam::Vec2::new(1.0, 2.0),
            glam::Vec2::new(3.0, 4.0),
            glam::Vec2::new(5.0, 6.0),
        );
        let t2 = Transform2D::from(a2);
        assert_eq!(t2.origin, Vector2::new(5.0, 6.0));
        assert_eq!(glam::Affine2::from(t2), a2);

        let m4 = glam::Mat4::from_cols_array(&std::array::from_fn(|i| i as f32));
        let p = Projection::from(m4);
        assert_eq!(p.w, Vector4::new(12.0, 13.0, 14.0, 15.0));
        assert_eq!(glam::Mat4::from(p), m4);

        let q = glam::Quat::from_xyzw(0.0, 0.6, 0.0, 0.8);
        assert_eq!(Quat::from(q), Quat::new(0.0, 0.6, 0.0, 0.8));
        assert_eq!(glam::Quat::from(Quat::from(q)), q);
        assert_eq!(Variant::from(q), Quat::new(0.0, 0.6, 0.0, 0.8).into());
        assert_eq!(
            Variant::from(glam::IVec3::new(1, 2, 3)),
            Vector3i::new(1, 2, 3).into()
        );
        assert_eq!(Variant::from(affine()), t.into());
    }

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Body {
        #[serde(with = "godot_bin::glam::affine3a")]
        transform: glam::Affine3A,
        #[serde(with = "godot_bin::glam::vec2")]
        velocity: glam::Vec2,
        #[serde(with = "godot_bin::glam::ivec3")]
        cell: glam::IVec3,
        #[serde(with = "godot_bin::glam::vec3a")]
        aligned: glam::Vec3A,
        #[serde(with = "godot_bin::glam::mat4")]
        projection: glam::Mat4,
        #[serde(with = "godot_bin::glam::vec3_array")]
        path: Vec<glam::Vec3>,
        #[serde(with = "godot_bin::glam::vec2_array")]
        outline: Vec<glam::Vec2>,
    }

    #[test]
    fn with_modules_write_native_types() {
        let body = Body {
            transform: affine(),
            velocity: glam::Vec2::new(0.5, -1.0),
            cell: glam::IVec3::new(1, 2, 3),
            aligned: glam::Vec3A::new(7.0, 8.0, 9.0),
            projection: glam::Mat4::IDENTITY,
            path: vec![glam::Vec3::X, glam::Vec3::Y],
            outline: vec![],
        };
        let g4 = Config::new().dialect(Dialect::Godot4);
        let bytes = g4.to_vec(&body).unwrap();
        let v: Variant = g4.from_slice(&bytes).unwrap();
        assert_eq!(v.get("transform"), Some(&Transform::from(affine()).into()));
        assert_eq!(v.get("cell"), Some(&Vector3i::new(1, 2, 3).into()));
        assert_eq!(v.get("aligned"), Some(&Vector3::new(7.0, 8.0, 9.0).into()));
        assert_eq!(
            v.get("path"),
            Some(&Variant::PoolVector3Array(
                vec![Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0)].into()
            ))
        );
        assert!(matches!(v.get("outline"), Some(Variant::PoolVector2Array(a)) if a.0.is_empty()));
        assert!(matches!(v.get("projection"), Some(Variant::Projection(_))));
        assert_eq!(g4.from_slice::<Body>(&bytes).unwrap(), body);
        // The same bytes as the Godot types themselves give.
        assert_eq!(
            godot_bin::to_vec(&godot_bin::PoolVector3Array(vec![Vector3::new(
                1.0, 0.0, 0.0
            )]))
            .unwrap(),
            {
                #[derive(Serialize)]
                struct W(#[serde(with = "godot_bin::glam::vec3_array")] Vec<glam::Vec3>);
                godot_bin::to_vec(&W(vec![glam::Vec3::X])).unwrap()
            }
        );
    }

    #[test]
    fn arrays_also_read_from_plain_arrays() {
        #[derive(Deserialize, Debug)]
        struct P(#[serde(with = "godot_bin::glam::vec3_array")] Vec<glam::Vec3>);
        let plain = Variant::Array(vec![Vector3::new(1.0, 2.0, 3.0).into()]);
        let P(path) = godot_bin::from_slice(&godot_bin::to_vec(&plain).unwrap()).unwrap();
        assert_eq!(path, [glam::Vec3::new(1.0, 2.0, 3.0)]);
        let err = godot_bin::from_slice::<P>(&godot_bin::to_vec(&1).unwrap()).unwrap_err();
        assert!(
            matches!(err.kind(), godot_bin::ErrorKind::InvalidType { .. }),
            "{err}"
        );
    }
}

#[cfg(feature = "mint")]
mod mint_types {
    use godot_bin::{
        Basis, Config, Dialect, Quat, Transform, Transform2D, Variant, Vector2, Vector2i, Vector3,
    };

    #[test]
    fn conversions() {
        let v: mint::Vector3<f32> = Vector3::new(1.0, 2.0, 3.0).into();
        assert_eq!((v.x, v.y, v.z), (1.0, 2.0, 3.0));
        assert_eq!(Vector3::from(v), Vector3::new(1.0, 2.0, 3.0));
        let q: mint::Quaternion<f32> = Quat::new(0.0, 0.6, 0.0, 0.8).into();
        assert_eq!((q.v.y, q.s), (0.6, 0.8));
        assert_eq!(Quat::from(q), Quat::new(0.0, 0.6, 0.0, 0.8));

        let t = Transform::new(Basis::IDENTITY, Vector3::new(4.0, 5.0, 6.0));
        let m: mint::ColumnMatrix3x4<f32> = t.into();
        assert_eq!(m.w, mint::Vector3::from([4.0, 5.0, 6.0]));
        assert_eq!(m.x, mint::Vector3::from([1.0, 0.0, 0.0]));
        assert_eq!(Transform::from(m), t);
        // Row matrices come in through mint's own conversion.
        let rows = mint::RowMatrix3::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]);
        let b = Basis::from(mint::ColumnMatrix3::from(rows));
        assert_eq!(
            b.rows(),
            [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
        );
        let t2 = Transform2D::from(mint::ColumnMatrix2x3::from([
            [1.0, 0.0],
            [0.0, 1.0],
            [3.0, 4.0],
        ]));
        assert_eq!(t2.origin, Vector2::new(3.0, 4.0));
        assert_eq!(Variant::from(v), Vector3::new(1.0, 2.0, 3.0).into());
    }

    #[test]
    fn with_modules() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Shot {
            #[serde(with = "godot_bin::mint::column_matrix3x4")]
            from: mint::ColumnMatrix3x4<f32>,
            #[serde(with = "godot_bin::mint::vector3_array")]
            trail: Vec<mint::Vector3<f32>>,
            #[serde(with = "godot_bin::mint::vector2i")]
            tile: mint::Vector2<i32>,
        }
        let shot = Shot {
            from: Transform::new(Basis::IDENTITY, Vector3::new(1.0, 2.0, 3.0)).into(),
            trail: vec![[1.0, 1.0, 1.0].into()],
            tile: [3, -4].into(),
        };
        let g4 = Config::new().dialect(Dialect::Godot4);
        let bytes = g4.to_vec(&shot).unwrap();
        let v: Variant = g4.from_slice(&bytes).unwrap();
        assert!(matches!(v.get("from"), Some(Variant::Transform(_))));
        assert!(matches!(v.get("trail"), Some(Variant::PoolVector3Array(_))));
        assert_eq!(v.get("tile"), Some(&Vector2i::new(3, -4).into()));
        assert_eq!(g4.from_slice::<Shot>(&bytes).unwrap(), shot);
        // Godot 3 has no Vector2i: refused, not silently changed.
        assert!(godot_bin::to_vec(&shot).is_err());
    }
}
