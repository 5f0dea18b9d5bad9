//! glam and mint types as native Godot types (features `glam`, `mint`).

#[cfg(feature = "glam")]
#[test]
fn glam_round_trips_through_godot_types() {
    use godot_bin::{Basis, Transform, Vector3};
    let affine = glam::Affine3A::from_scale_rotation_translation(
        glam::Vec3::new(1.0, 2.0, 3.0),
        glam::Quat::from_rotation_y(0.5),
        glam::Vec3::new(4.0, 5.0, 6.0),
    );
    let t = Transform::from(affine);
    assert_eq!(t.origin, Vector3::new(4.0, 5.0, 6.0));
    // Godot's basis columns are glam's matrix columns.
    assert_eq!(
        t.basis.x,
        Vector3::from(glam::Vec3::from(affine.matrix3.x_axis))
    );
    assert_eq!(glam::Affine3A::from(t), affine);
    let m = glam::Mat3::from_cols_array(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    assert_eq!(
        Basis::from(m),
        Basis::from_columns(
            Vector3::new(1.0, 2.0, 3.0),
            Vector3::new(4.0, 5.0, 6.0),
            Vector3::new(7.0, 8.0, 9.0)
        )
    );

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Body {
        #[serde(with = "godot_bin::glam::affine3a")]
        transform: glam::Affine3A,
        #[serde(with = "godot_bin::glam::vec2")]
        velocity: glam::Vec2,
        #[serde(with = "godot_bin::glam::ivec3")]
        cell: glam::IVec3,
    }
    let body = Body {
        transform: affine,
        velocity: glam::Vec2::new(0.5, -1.0),
        cell: glam::IVec3::new(1, 2, 3),
    };
    let g4 = godot_bin::Config::new().dialect(godot_bin::Dialect::Godot4);
    let v: godot_bin::Variant = g4.from_slice(&g4.to_vec(&body).unwrap()).unwrap();
    assert_eq!(v.get("transform"), Some(&godot_bin::Variant::from(t)));
    assert_eq!(
        v.get("cell"),
        Some(&godot_bin::Variant::from(godot_bin::Vector3i::new(1, 2, 3)))
    );
    assert_eq!(
        g4.from_slice::<Body>(&g4.to_vec(&body).unwrap()).unwrap(),
        body
    );
}

#[cfg(feature = "mint")]
#[test]
fn mint_conversions() {
    use godot_bin::{Quat, Vector3};
    let v: mint::Vector3<f32> = Vector3::new(1.0, 2.0, 3.0).into();
    assert_eq!((v.x, v.y, v.z), (1.0, 2.0, 3.0));
    assert_eq!(Vector3::from(v), Vector3::new(1.0, 2.0, 3.0));
    let q: mint::Quaternion<f32> = Quat::new(0.0, 0.6, 0.0, 0.8).into();
    assert_eq!((q.v.y, q.s), (0.6, 0.8));
    assert_eq!(Quat::from(q), Quat::new(0.0, 0.6, 0.0, 0.8));
}
