//! Property tests: round trips over generated values, and no panics on any input.

use godot_bin::*;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
struct AnyVariant(Variant);

/// A value of any Godot 4 type, typed containers included.
#[derive(Clone, Debug)]
struct AnyVariant4(Variant);

/// A value Godot 2 can carry (32-bit ints and floats, Image, InputEvent).
#[derive(Clone, Debug)]
struct AnyVariant2(Variant);

fn string(g: &mut Gen) -> String {
    // Godot strings cannot hold NUL (the encoder refuses it); a leading BOM is kept
    // by writing one more.
    let s: String = String::arbitrary(g)
        .chars()
        .filter(|c| *c != '\0')
        .collect();
    if u8::arbitrary(g) % 8 == 0 {
        format!("\u{feff}{s}")
    } else {
        s
    }
}

fn f32s<const N: usize>(g: &mut Gen) -> [f32; N] {
    std::array::from_fn(|_| f32::arbitrary(g))
}

fn v2(g: &mut Gen) -> Vector2 {
    let [x, y] = f32s(g);
    Vector2::new(x, y)
}

fn v3(g: &mut Gen) -> Vector3 {
    let [x, y, z] = f32s(g);
    Vector3::new(x, y, z)
}

fn color(g: &mut Gen) -> Color {
    let [r, gr, b, a] = f32s(g);
    Color::new(r, gr, b, a)
}

fn name(g: &mut Gen) -> String {
    let s: String = string(g)
        .chars()
        .filter(|c| !matches!(c, '/' | ':'))
        .collect();
    if s.is_empty() {
        "n".into()
    } else {
        s
    }
}

fn variant(g: &mut Gen, depth: usize) -> Variant {
    let kinds = if depth == 0 { 26 } else { 28 };
    match usize::arbitrary(g) % kinds {
        0 => Variant::Nil,
        1 => Variant::Bool(bool::arbitrary(g)),
        2 => Variant::Int(i64::arbitrary(g)),
        3 => Variant::Int(i32::arbitrary(g).into()),
        4 => Variant::Float(f64::arbitrary(g)),
        5 => Variant::Float(f32::arbitrary(g).into()),
        6 => Variant::String(string(g)),
        7 => Variant::Vector2(v2(g)),
        8 => Variant::Rect2(Rect2 {
            position: v2(g),
            size: v2(g),
        }),
        9 => Variant::Vector3(v3(g)),
        10 => Variant::Transform2D(Transform2D::new(v2(g), v2(g), v2(g))),
        11 => {
            let [a, b, c, d] = f32s(g);
            Variant::Plane(Plane::new(a, b, c, d))
        }
        12 => {
            let [x, y, z, w] = f32s(g);
            Variant::Quat(Quat::new(x, y, z, w))
        }
        13 => Variant::Aabb(Aabb::new(v3(g), v3(g))),
        14 => Variant::from(Basis::from_columns(v3(g), v3(g), v3(g))),
        15 => Variant::from(Transform::new(
            Basis::from_columns(v3(g), v3(g), v3(g)),
            v3(g),
        )),
        16 => Variant::Color(color(g)),
        17 => {
            let names: Vec<String> = (0..usize::arbitrary(g) % 4).map(|_| name(g)).collect();
            let subnames: Vec<String> = (0..usize::arbitrary(g) % 3).map(|_| name(g)).collect();
            // Godot 3 reads an absolute path with no names as NodePath(""): such a value
            // does not survive bytes (`godot3_reads_an_empty_absolute_path` pins it).
            let absolute = bool::arbitrary(g) && !(names.is_empty() && subnames.is_empty());
            Variant::NodePath(NodePath::from_parts(absolute, names, subnames))
        }
        18 => Variant::Rid(Rid::default()),
        19 => Variant::ObjectId(u64::arbitrary(g).max(1)),
        20 => Variant::PoolByteArray(PoolByteArray(Vec::arbitrary(g))),
        21 => Variant::PoolIntArray(PoolIntArray(Vec::arbitrary(g))),
        22 => Variant::PoolRealArray(PoolRealArray(Vec::arbitrary(g))),
        23 => Variant::PoolStringArray((0..usize::arbitrary(g) % 5).map(|_| string(g)).collect()),
        24 => Variant::PoolVector2Array((0..usize::arbitrary(g) % 5).map(|_| v2(g)).collect()),
        25 => {
            if bool::arbitrary(g) {
                Variant::PoolVector3Array((0..usize::arbitrary(g) % 5).map(|_| v3(g)).collect())
            } else {
                Variant::PoolColorArray((0..usize::arbitrary(g) % 5).map(|_| color(g)).collect())
            }
        }
        26 => Variant::Array(
            (0..usize::arbitrary(g) % 5)
                .map(|_| variant(g, depth - 1))
                .collect(),
        ),
        _ => {
            let mut d = Dictionary::new();
            for _ in 0..usize::arbitrary(g) % 5 {
                d.insert(variant(g, depth - 1), variant(g, depth - 1));
            }
            Variant::Dictionary(d)
        }
    }
}

impl Arbitrary for AnyVariant {
    fn arbitrary(g: &mut Gen) -> Self {
        AnyVariant(variant(g, 3))
    }
}

fn i32s<const N: usize>(g: &mut Gen) -> [i32; N] {
    std::array::from_fn(|_| i32::arbitrary(g))
}

fn v4(g: &mut Gen) -> Vector4 {
    let [x, y, z, w] = f32s(g);
    Vector4::new(x, y, z, w)
}

fn container_type(g: &mut Gen) -> ContainerType {
    match u8::arbitrary(g) % 3 {
        0 => ContainerType::Builtin(
            *g.choose(&[VariantType::Int, VariantType::String, VariantType::Vector3])
                .unwrap(),
        ),
        1 => ContainerType::Class(name(g)),
        _ => ContainerType::Script(format!("res://{}.gd", name(g))),
    }
}

/// An element a container of type `ty` holds as it is (Godot 4 converts or drops others).
fn element(g: &mut Gen, ty: &ContainerType) -> Variant {
    match ty {
        ContainerType::Builtin(VariantType::Int) => Variant::Int(i64::arbitrary(g)),
        ContainerType::Builtin(VariantType::String) => Variant::String(string(g)),
        ContainerType::Builtin(_) => Variant::Vector3(v3(g)),
        ContainerType::Class(_) | ContainerType::Script(_) => Variant::Nil,
    }
}

fn variant4(g: &mut Gen, depth: usize) -> Variant {
    match u8::arbitrary(g) % 18 {
        0 => Variant::Vector2i(Vector2i::new(i32::arbitrary(g), i32::arbitrary(g))),
        1 => {
            let [a, b, c, d] = i32s(g);
            Variant::Rect2i(Rect2i::new(a, b, c, d))
        }
        2 => {
            let [x, y, z] = i32s(g);
            Variant::Vector3i(Vector3i::new(x, y, z))
        }
        3 => Variant::Vector4(v4(g)),
        4 => {
            let [x, y, z, w] = i32s(g);
            Variant::Vector4i(Vector4i::new(x, y, z, w))
        }
        5 => Variant::from(Projection::from_columns(v4(g), v4(g), v4(g), v4(g))),
        6 => Variant::StringName(StringName(string(g))),
        7 => Variant::Callable(Callable),
        8 => Variant::from(Signal {
            name: string(g),
            object: u64::arbitrary(g),
        }),
        9 => Variant::PackedInt64Array(PackedInt64Array(Vec::arbitrary(g))),
        10 => Variant::PackedFloat64Array(PackedFloat64Array(Vec::arbitrary(g))),
        11 => Variant::PackedVector4Array((0..usize::arbitrary(g) % 4).map(|_| v4(g)).collect()),
        12 => Variant::Rid(Rid(u64::arbitrary(g))),
        13 if depth > 0 => {
            let ty = container_type(g);
            Variant::from(TypedArray {
                items: (0..usize::arbitrary(g) % 4)
                    .map(|_| element(g, &ty))
                    .collect(),
                element: ty,
            })
        }
        14 if depth > 0 => {
            let key = Option::<()>::arbitrary(g).map(|_| container_type(g));
            let mut entries = Dictionary::new();
            for _ in 0..usize::arbitrary(g) % 4 {
                let k = match &key {
                    Some(ty) => element(g, ty),
                    None => variant4(g, depth - 1),
                };
                entries.insert(k, variant4(g, depth - 1));
            }
            // Both untyped is a plain Dictionary on the wire.
            let value = match (&key, Option::<()>::arbitrary(g)) {
                (None, _) | (_, Some(())) => Some(container_type(g)),
                _ => None,
            };
            Variant::from(TypedDictionary {
                key,
                value,
                entries,
            })
        }
        15 if depth > 0 => Variant::Array(
            (0..usize::arbitrary(g) % 4)
                .map(|_| variant4(g, depth - 1))
                .collect(),
        ),
        _ => variant(g, depth.min(1)),
    }
}

impl Arbitrary for AnyVariant4 {
    fn arbitrary(g: &mut Gen) -> Self {
        AnyVariant4(variant4(g, 3))
    }
}

/// Godot 2 has no 64-bit numbers: keep ints in i32 and floats f32-exact.
fn narrow2(v: Variant) -> Variant {
    match v {
        Variant::Int(i) => Variant::Int(i as i32 as i64),
        Variant::Float(f) => Variant::Float(f64::from(f as f32)),
        Variant::ObjectId(_) => Variant::Nil,
        Variant::Array(a) => Variant::Array(a.into_iter().map(narrow2).collect()),
        Variant::Dictionary(d) => Variant::Dictionary(
            d.into_iter()
                .map(|(k, v)| (narrow2(k), narrow2(v)))
                .collect(),
        ),
        v => v,
    }
}

impl Arbitrary for AnyVariant2 {
    fn arbitrary(g: &mut Gen) -> Self {
        let v = match u8::arbitrary(g) % 8 {
            0 => Variant::from(Image {
                format: u32::arbitrary(g) % 23,
                mipmaps: u32::arbitrary(g),
                width: u32::arbitrary(g),
                height: u32::arbitrary(g),
                data: Vec::arbitrary(g),
            }),
            1 => {
                let kind = match u8::arbitrary(g) % 5 {
                    0 => InputEventKind::Key {
                        modifiers: u32::arbitrary(g),
                        scancode: u32::arbitrary(g),
                    },
                    1 => InputEventKind::JoystickMotion {
                        axis: u32::arbitrary(g),
                        axis_value: f32::arbitrary(g),
                    },
                    2 => InputEventKind::ScreenTouch {
                        index: u32::arbitrary(g),
                    },
                    3 => InputEventKind::Other(9 + u32::arbitrary(g) % 1000),
                    _ => InputEventKind::MouseMotion,
                };
                Variant::InputEvent(InputEvent {
                    device: u32::arbitrary(g),
                    kind,
                })
            }
            _ => narrow2(variant(g, 3)),
        };
        AnyVariant2(v)
    }
}

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
