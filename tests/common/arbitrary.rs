//! quickcheck generators of Variants: every type of Godot 2, 3 and 4, shared by the
//! property tests (`properties.rs`, `json.rs`).
// Each test crate that includes this file uses only some of it.
#![allow(dead_code)]

use godot_bin::*;
use quickcheck::{Arbitrary, Gen};

#[derive(Clone, Debug)]
pub struct AnyVariant(pub Variant);

/// A value of any Godot 4 type, typed containers included.
#[derive(Clone, Debug)]
pub struct AnyVariant4(pub Variant);

/// A value Godot 2 can carry (32-bit ints and floats, Image, InputEvent).
#[derive(Clone, Debug)]
pub struct AnyVariant2(pub Variant);

pub fn string(g: &mut Gen) -> String {
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

pub fn f32s<const N: usize>(g: &mut Gen) -> [f32; N] {
    std::array::from_fn(|_| f32::arbitrary(g))
}

pub fn v2(g: &mut Gen) -> Vector2 {
    let [x, y] = f32s(g);
    Vector2::new(x, y)
}

pub fn v3(g: &mut Gen) -> Vector3 {
    let [x, y, z] = f32s(g);
    Vector3::new(x, y, z)
}

pub fn color(g: &mut Gen) -> Color {
    let [r, gr, b, a] = f32s(g);
    Color::new(r, gr, b, a)
}

pub fn name(g: &mut Gen) -> String {
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

pub fn variant(g: &mut Gen, depth: usize) -> Variant {
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

pub fn i32s<const N: usize>(g: &mut Gen) -> [i32; N] {
    std::array::from_fn(|_| i32::arbitrary(g))
}

pub fn v4(g: &mut Gen) -> Vector4 {
    let [x, y, z, w] = f32s(g);
    Vector4::new(x, y, z, w)
}

pub fn container_type(g: &mut Gen) -> ContainerType {
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
pub fn element(g: &mut Gen, ty: &ContainerType) -> Variant {
    match ty {
        ContainerType::Builtin(VariantType::Int) => Variant::Int(i64::arbitrary(g)),
        ContainerType::Builtin(VariantType::String) => Variant::String(string(g)),
        ContainerType::Builtin(_) => Variant::Vector3(v3(g)),
        ContainerType::Class(_) | ContainerType::Script(_) => Variant::Nil,
    }
}

pub fn variant4(g: &mut Gen, depth: usize) -> Variant {
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
pub fn narrow2(v: Variant) -> Variant {
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

/// Arrays and Dictionaries (keys too) nested up to `depth` deep around Godot 4 values
/// of every type, with a full Object for some of them when `plant` (the RPC tests:
/// the engine refuses full Objects in arguments).
pub fn tree(g: &mut Gen, depth: usize, plant: bool) -> Variant {
    let n = usize::arbitrary(g) % 4;
    match u8::arbitrary(g) % 6 {
        0 | 1 if depth > 0 => Variant::Array((0..n).map(|_| tree(g, depth - 1, plant)).collect()),
        2 | 3 if depth > 0 => Variant::Dictionary(
            (0..n)
                .map(|_| (tree(g, depth - 1, plant), tree(g, depth - 1, plant)))
                .collect(),
        ),
        4 if plant => Variant::Object(Box::new(Object {
            class: "Node".into(),
            properties: vec![("name".into(), Variant::from("n"))],
        })),
        _ => variant4(g, 1),
    }
}
