//! Property tests: round trips over generated values, and no panics on any input.

#[path = "common/arbitrary.rs"]
mod arbitrary;

use arbitrary::{string, v2, AnyVariant, AnyVariant2, AnyVariant4};
use godot_bin::*;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use serde::{Deserialize, Serialize};

fn round_trips(cfg: Config, v: &Variant) -> bool {
    let bytes = cfg.to_vec(v).unwrap();
    let back: Variant = cfg.from_slice(&bytes).unwrap();
    back == *v && cfg.to_vec(&back).unwrap() == bytes
}

#[test]
fn godot4_variant_bytes_variant() {
    fn prop(v: AnyVariant4) -> bool {
        // With objects: without them the engine (and the crate) reads a class- or
        // script-typed container as typed EncodedObjectAsID.
        let g4 = Config::new().dialect(Dialect::Godot4).allow_objects(true);
        round_trips(g4, &v.0) && round_trips(g4.precision(Precision::Double), &v.0)
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(AnyVariant4) -> bool);
}

#[test]
fn godot2_variant_bytes_variant() {
    fn prop(v: AnyVariant2) -> bool {
        round_trips(Config::new().dialect(Dialect::Godot2), &v.0)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(AnyVariant2) -> bool);
}

/// Byte-exact: encoding the decoded value gives the same bytes again.
#[test]
fn variant_bytes_variant() {
    fn prop(v: AnyVariant) -> bool {
        let bytes = to_vec(&v.0).unwrap();
        let back: Variant = from_slice(&bytes).unwrap();
        back == v.0 && to_vec(&back).unwrap() == bytes
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(AnyVariant) -> bool);
}

/// The reader path agrees with the slice path.
#[test]
fn reader_agrees_with_slice() {
    fn prop(v: AnyVariant) -> bool {
        let bytes = to_vec(&v.0).unwrap();
        let a: Variant = from_slice(&bytes).unwrap();
        let b: Variant = from_reader(&bytes[..]).unwrap();
        a == b
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(AnyVariant) -> bool);
}

/// Every strict prefix of a valid encoding fails with an end-of-input error.
#[test]
fn prefixes_fail() {
    fn prop(v: AnyVariant) -> bool {
        let bytes = to_vec(&v.0).unwrap();
        (0..bytes.len()).all(|n| {
            from_slice::<Variant>(&bytes[..n])
                .map_err(|e| e.is_eof())
                .err()
                == Some(true)
        })
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(AnyVariant) -> bool);
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Shape {
    Empty,
    Circle(f32),
    Line(Vector2, Vector2),
    Poly { points: Vec<Vector2>, closed: bool },
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Typed {
    a: i64,
    b: u32,
    c: f64,
    d: Option<String>,
    e: Vec<i16>,
    f: (bool, char),
    shape: Shape,
    #[serde(with = "godot_bin::pool::real")]
    samples: Vec<f32>,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    map: std::collections::BTreeMap<i32, String>,
}

impl Arbitrary for Shape {
    fn arbitrary(g: &mut Gen) -> Self {
        match u8::arbitrary(g) % 4 {
            0 => Shape::Empty,
            1 => Shape::Circle(f32::arbitrary(g)),
            2 => Shape::Line(v2(g), v2(g)),
            _ => Shape::Poly {
                points: (0..usize::arbitrary(g) % 4).map(|_| v2(g)).collect(),
                closed: bool::arbitrary(g),
            },
        }
    }
}

impl Arbitrary for Typed {
    fn arbitrary(g: &mut Gen) -> Self {
        Typed {
            a: i64::arbitrary(g),
            b: u32::arbitrary(g),
            c: f64::arbitrary(g),
            d: Option::<()>::arbitrary(g).map(|_| string(g)),
            e: Vec::arbitrary(g),
            f: (bool::arbitrary(g), string(g).chars().next().unwrap_or('x')),
            shape: Shape::arbitrary(g),
            samples: Vec::arbitrary(g),
            blob: Vec::arbitrary(g),
            map: (0..usize::arbitrary(g) % 4)
                .map(|_| (i32::arbitrary(g), string(g)))
                .collect(),
        }
    }
}

fn same_bits(a: &Typed, b: &Typed) -> bool {
    // NaN != NaN for f32/f64 fields: compare through the encoding instead.
    to_vec(a).unwrap() == to_vec(b).unwrap()
}

#[test]
fn typed_round_trip() {
    fn prop(t: Typed) -> bool {
        let bytes = to_vec(&t).unwrap();
        let back: Typed = from_slice(&bytes).unwrap();
        same_bits(&back, &t)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Typed) -> bool);
}

/// Typed values read as `Variant` and written back give the same bytes.
#[test]
fn typed_through_variant() {
    fn prop(t: Typed) -> bool {
        let bytes = to_vec(&t).unwrap();
        let v: Variant = from_slice(&bytes).unwrap();
        to_vec(&v).unwrap() == bytes
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(Typed) -> bool);
}

/// Random bytes never panic; errors carry an offset inside the input.
#[test]
fn garbage_never_panics() {
    fn prop(bytes: Vec<u8>) -> TestResult {
        match from_slice::<Variant>(&bytes) {
            Ok(v) => {
                let _ = (v.to_string(), v.display(Dialect::Godot4).to_string());
                TestResult::from_bool(to_vec(&v).is_ok())
            }
            Err(e) => TestResult::from_bool(e.offset().is_some_and(|o| o <= bytes.len())),
        }
    }
    QuickCheck::new()
        .tests(20000)
        .quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

/// Random bytes behind a valid header still never panic (reach deeper paths).
#[test]
fn headed_garbage_never_panics() {
    fn prop(ty: u8, flags: u8, body: Vec<u8>) -> bool {
        let mut bytes = vec![ty % 40, 0, flags & 0xF, 0];
        bytes.extend_from_slice(&body);
        for dialect in [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4] {
            let cfg = Config::new().allow_objects(true).dialect(dialect);
            if let Ok((v, _)) = cfg.take_from_slice::<Variant>(&bytes) {
                // Whatever decodes prints in every text form and goes through the
                // Variant format without a panic.
                let _ = v.to_string();
                let _ = v.display(dialect).to_string();
                let _ = v.display(dialect).godot_3_2().to_string();
                let _ = cfg.from_variant::<Typed>(v.clone());
                let _ = cfg.to_variant(&v);
            }
            let _ = cfg.from_reader::<_, Variant>(&bytes[..]);
            let _ = cfg.from_slice::<Typed>(&bytes);
        }
        true
    }
    QuickCheck::new()
        .tests(20000)
        .quickcheck(prop as fn(u8, u8, Vec<u8>) -> bool);
}

/// `to_variant` has exactly the byte mapping, and `from_variant` reads a decoded
/// Variant exactly as `from_slice` reads its bytes: for every dialect.
fn variant_format_agrees(cfg: Config, v: &Variant) -> bool {
    let bytes = cfg.to_vec(v).unwrap();
    let via = cfg.to_variant(v).unwrap();
    let decoded: Variant = cfg.from_slice(&bytes).unwrap();
    let read_back: Variant = cfg.from_variant(decoded.clone()).unwrap();
    cfg.to_vec(&via).unwrap() == bytes && read_back == decoded && via == decoded
}

#[test]
fn variant_format_godot3() {
    fn prop(v: AnyVariant) -> bool {
        variant_format_agrees(Config::new(), &v.0)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(AnyVariant) -> bool);
}

#[test]
fn variant_format_godot4() {
    fn prop(v: AnyVariant4) -> bool {
        // With objects: without them the engine (and the crate) reads a class- or
        // script-typed container as typed EncodedObjectAsID.
        let g4 = Config::new().dialect(Dialect::Godot4).allow_objects(true);
        variant_format_agrees(g4, &v.0)
            && variant_format_agrees(g4.precision(Precision::Double), &v.0)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(AnyVariant4) -> bool);
}

#[test]
fn variant_format_godot2() {
    fn prop(v: AnyVariant2) -> bool {
        variant_format_agrees(Config::new().dialect(Dialect::Godot2), &v.0)
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(AnyVariant2) -> bool);
}

#[test]
fn typed_through_variant_format() {
    fn prop(t: Typed) -> bool {
        let bytes = to_vec(&t).unwrap();
        let via = godot_bin::to_variant(&t).unwrap();
        let from_bytes: Typed = from_slice(&bytes).unwrap();
        let decoded: Variant = from_slice(&bytes).unwrap();
        let from_var: Typed = godot_bin::from_variant(decoded).unwrap();
        to_vec(&via).unwrap() == bytes && same_bits(&from_var, &from_bytes)
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Typed) -> bool);
}

/// As the engine (tests/engine_divergences.rs): Godot 2 and 3 read an absolute path with
/// no names as the empty path; Godot 4 keeps it. Encoding writes what each engine writes.
#[test]
fn godot3_reads_an_empty_absolute_path() {
    let root = Variant::NodePath(NodePath::from("/"));
    for (dialect, kept) in [
        (Dialect::Godot2, false),
        (Dialect::Godot3, false),
        (Dialect::Godot4, true),
    ] {
        let cfg = Config::new().dialect(dialect);
        let bytes = cfg.to_vec(&root).unwrap();
        assert_eq!(bytes[8..12], [0, 0, 0, 0]);
        assert_eq!(bytes[12..16], [1, 0, 0, 0], "the absolute flag is written");
        let back: Variant = cfg.from_slice(&bytes).unwrap();
        assert_eq!(back == root, kept, "{dialect:?}");
        if !kept {
            assert_eq!(back, Variant::NodePath(NodePath::from("")));
        }
    }
}
