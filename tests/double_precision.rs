//! Engines built with `precision=double` (Godot 4). No such engine runs here, so the
//! encoder's expected bytes are SOURCE-DERIVED from Godot 4.6.3 core/io/marshalls.cpp
//! (spec §4.2 and test vector #104); the decoding case is the one the spec ran on the
//! real single-precision 4.6.3 engine, which honours the flag (vector #103).

mod common;

use common::unhex;
use godot_bin::*;

fn double() -> Config {
    Config::new()
        .dialect(Dialect::Godot4)
        .precision(Precision::Double)
}

/// Source-derived: vector #104.
#[test]
fn vector2_is_written_with_doubles_and_the_flag() {
    assert_eq!(
        double().to_vec(&Vector2::new(1.0, 2.0)).unwrap(),
        unhex("05000100 00000000 0000f03f 00000000 00000040")
    );
}

/// Engine-checked on 4.6.3 (vector #103): any build decodes the flagged form.
#[test]
fn flagged_vector2_decodes_in_any_build() {
    let bytes = unhex("05000100 00000000 0000f03f 00000000 00000040");
    let g4 = Config::new().dialect(Dialect::Godot4);
    assert_eq!(
        g4.from_slice::<Vector2>(&bytes).unwrap(),
        Vector2::new(1.0, 2.0)
    );
    assert_eq!(
        g4.from_slice::<Variant>(&bytes).unwrap(),
        Variant::Vector2(Vector2::new(1.0, 2.0))
    );
}

/// Source-derived: §4.2 — every real math type and the real packed vector arrays get
/// the flag and 8-byte reals; Color, PackedColorArray, integer vectors and
/// PackedFloat32Array never do.
#[test]
fn which_types_widen() {
    let d = double();
    let widened: Vec<Variant> = vec![
        Vector3::new(1.0, 2.0, 3.0).into(),
        Rect2::new(1.0, 2.0, 3.0, 4.0).into(),
        Transform2D::IDENTITY.into(),
        Vector4::new(1.0, 2.0, 3.0, 4.0).into(),
        Plane::new(0.0, 1.0, 0.0, 5.0).into(),
        Quat::IDENTITY.into(),
        Aabb::default().into(),
        Basis::IDENTITY.into(),
        Transform::default().into(),
        Projection::IDENTITY.into(),
        PoolVector2Array(vec![Vector2::new(1.0, 2.0)]).into(),
        PoolVector3Array(vec![Vector3::new(1.0, 2.0, 3.0)]).into(),
        PackedVector4Array(vec![Vector4::default()]).into(),
    ];
    for v in widened {
        let single = Config::new().dialect(Dialect::Godot4).to_vec(&v).unwrap();
        let bytes = d.to_vec(&v).unwrap();
        assert_eq!(bytes[2], 1, "{v:?} has the 64-bit flag");
        // Header, plus the count word for pool arrays; the rest are 4-byte reals.
        let pool = matches!(
            v,
            Variant::PoolVector2Array(_)
                | Variant::PoolVector3Array(_)
                | Variant::PackedVector4Array(_)
        );
        let reals = (single.len() - if pool { 8 } else { 4 }) / 4;
        assert_eq!(bytes.len(), single.len() + 4 * reals, "{v:?}");
        assert_eq!(d.from_slice::<Variant>(&bytes).unwrap(), v);
    }
    for v in [
        Variant::Color(Color::rgb(1.0, 0.0, 0.0)),
        PoolColorArray(vec![Color::default()]).into(),
        Vector2i::new(1, 2).into(),
        PoolRealArray(vec![1.5]).into(),
    ] {
        let single = Config::new().dialect(Dialect::Godot4).to_vec(&v).unwrap();
        assert_eq!(d.to_vec(&v).unwrap(), single, "{v:?} stays 32-bit");
    }
}

/// Godot 3 double builds write broken bytes (spec §3.3): refuse rather than imitate.
#[test]
fn godot3_double_is_refused() {
    let cfg = Config::new().precision(Precision::Double);
    let err = cfg.to_vec(&Vector2::new(1.0, 2.0)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)));
    assert_eq!(cfg.to_vec(&1.5).unwrap(), to_vec(&1.5).unwrap());
    // `to_variant` has the byte mapping: the same refusal, in Godot 2 too; a Color
    // (always 32-bit floats) goes.
    for cfg in [cfg, cfg.dialect(godot_bin::Dialect::Godot2)] {
        let err = cfg.to_variant(&Vector2::new(1.0, 2.0)).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)), "{err}");
        let red = godot_bin::Color::new(1.0, 0.0, 0.0, 1.0);
        assert_eq!(
            cfg.to_variant(&red).unwrap(),
            godot_bin::Variant::Color(red)
        );
    }
}

/// A double-precision value keeps its 64-bit reals when read as numbers (a tuple or a
/// `Vec` of `f64`), and is rounded to 32 bits, as a single-precision engine rounds it,
/// when read as godot_bin's math type or as a `Variant`, whose components are `f32`.
#[test]
fn flagged_reals_read_as_f64_are_not_rounded() {
    let bytes = unhex("05000100 9c7500883ce4377e 9a9999999999b93f");
    let g4 = Config::new().dialect(Dialect::Godot4);
    assert_eq!(g4.from_slice::<(f64, f64)>(&bytes).unwrap(), (1e300, 0.1));
    assert_eq!(g4.from_slice::<Vec<f64>>(&bytes).unwrap(), [1e300, 0.1]);
    let rounded = Vector2::new(f32::INFINITY, 0.1);
    assert_eq!(g4.from_slice::<Vector2>(&bytes).unwrap(), rounded);
    assert_eq!(
        g4.from_slice::<Variant>(&bytes).unwrap(),
        Variant::Vector2(rounded)
    );
}
