//! Godot 2 dialect. No Godot 2 engine runs on this machine, so every expected byte
//! string here is SOURCE-DERIVED: built from the 2.0/2.1 engine source facts recorded
//! in the format spec (godot-format.md §2: core/variant.h ids, core/io/marshalls.cpp
//! payloads) and the bytes quoted from Godot issue #6226. Each test names its source.

mod common;

use common::unhex;
use godot_bin::*;

fn g2() -> Config {
    Config::new().dialect(Dialect::Godot2)
}

/// Source-derived: spec test vector #106 (2.1 marshalls.cpp: REAL is always f32).
#[test]
fn floats_are_32_bit() {
    assert_eq!(g2().to_vec(&1.0f64).unwrap(), unhex("03000000 0000803f"));
    // 0.1 cannot be written without changing it: Godot 2 would narrow it silently.
    let err = g2().to_vec(&0.1f64).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)));
    assert_eq!(g2().to_vec(&0.1f32).unwrap(), unhex("03000000 cdcccc3d"));
    assert_eq!(
        g2().from_slice::<f32>(&unhex("03000000 cdcccc3d")).unwrap(),
        0.1f32
    );
}

/// Source-derived: 2.x Variant INT is a 32-bit int; the encoder writes i32.
#[test]
fn ints_are_32_bit() {
    assert_eq!(g2().to_vec(&-1).unwrap(), unhex("02000000 ffffffff"));
    let err = g2().to_vec(&(1i64 << 40)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IntOutOfRange(..)));
}

/// Source-derived: spec vector #107 / issue #6226 — script arrays carry the "shared"
/// bit 31 in the count, which the decoder honours as a flag, not a count.
#[test]
fn shared_bit_is_a_flag() {
    let bytes = unhex("15000000 02000080 02000000 01000000 02000000 02000000");
    assert_eq!(g2().from_slice::<Vec<i32>>(&bytes).unwrap(), [1, 2]);
    let v: Variant = g2().from_slice(&bytes).unwrap();
    assert_eq!(v, Variant::Array(vec![1.into(), 2.into()]));
    // We write the plain count, which every 2.x decoder accepts.
    assert_eq!(
        g2().to_vec(&v).unwrap(),
        unhex("15000000 02000000 02000000 01000000 02000000 02000000")
    );
    let shared_dict = unhex("14000000 01000080 02000000 01000000 02000000 02000000");
    let d: Variant = g2().from_slice(&shared_dict).unwrap();
    assert_eq!(
        d.as_dictionary().unwrap().get(&1.into()),
        Some(&Variant::Int(2))
    );
}

/// Source-derived: spec vector #108 (2.1: RID and Object are written as the bare type).
#[test]
fn rid_and_object_are_bare() {
    assert_eq!(g2().to_vec(&Rid::default()).unwrap(), unhex("11000000"));
    assert_eq!(
        g2().from_slice::<Variant>(&unhex("11000000")).unwrap(),
        Variant::Rid(Rid(0))
    );
    assert_eq!(
        g2().from_slice::<Variant>(&unhex("12000000")).unwrap(),
        Variant::Nil
    );
}

/// Source-derived: spec vector #109 (2.1 INPUT_EVENT: type, device, total length, then
/// the KEY fields: modifier mask with SHIFT = 1<<25, scancode).
#[test]
fn input_event_key() {
    let bytes = unhex("13000000 01000000 00000000 14000000 00000002 41000000");
    let ev = InputEvent {
        device: 0,
        kind: InputEventKind::Key {
            modifiers: 1 << 25,
            scancode: 65,
        },
    };
    assert_eq!(
        g2().from_slice::<Variant>(&bytes).unwrap(),
        Variant::InputEvent(ev)
    );
    assert_eq!(g2().to_vec(&ev).unwrap(), bytes);
}

/// Source-derived: §2.3 INPUT_EVENT payloads per type (2.1 marshalls.cpp).
#[test]
fn input_event_kinds() {
    let cases = [
        (
            InputEventKind::MouseButton { button_index: 2 },
            "13000000 03000000 01000000 10000000 02000000",
        ),
        (
            InputEventKind::JoystickMotion {
                axis: 1,
                axis_value: 0.5,
            },
            "13000000 04000000 01000000 14000000 01000000 0000003f",
        ),
        (
            InputEventKind::JoystickButton { button_index: 7 },
            "13000000 05000000 01000000 10000000 07000000",
        ),
        (
            InputEventKind::ScreenTouch { index: 3 },
            "13000000 06000000 01000000 10000000 03000000",
        ),
        (
            InputEventKind::MouseMotion,
            "13000000 02000000 01000000 0c000000",
        ),
        (
            InputEventKind::Action,
            "13000000 08000000 01000000 0c000000",
        ),
    ];
    for (kind, h) in cases {
        let ev = InputEvent { device: 1, kind };
        let bytes = unhex(h);
        assert_eq!(g2().to_vec(&ev).unwrap(), bytes, "{kind:?}");
        assert_eq!(g2().from_slice::<InputEvent>(&bytes).unwrap(), ev);
    }
    // The decoder trusts the type, not the encoded total length (as 2.1 does).
    let lying = unhex("13000000 03000000 01000000 ff000000 02000000");
    assert_eq!(
        g2().from_slice::<InputEvent>(&lying).unwrap().kind,
        InputEventKind::MouseButton { button_index: 2 }
    );
}

/// Source-derived: §2.3 IMAGE payload (format, mipmaps, width, height, data length,
/// data, padding); format ids >= 23 (FORMAT_MAX) are refused.
#[test]
fn image() {
    let img = Image {
        format: 4,
        mipmaps: 0,
        width: 1,
        height: 1,
        data: vec![1, 2, 3, 4, 5],
    };
    let bytes = unhex("0f000000 04000000 00000000 01000000 01000000 05000000 01020304 05000000");
    assert_eq!(g2().to_vec(&img).unwrap(), bytes);
    assert_eq!(g2().from_slice::<Image>(&bytes).unwrap(), img);
    assert_eq!(
        g2().from_slice::<Variant>(&bytes).unwrap(),
        Variant::from(img)
    );
    let bad = unhex("0f000000 17000000 00000000 01000000 01000000 00000000");
    assert!(g2().from_slice::<Variant>(&bad).is_err());
}

/// Source-derived: §2.1 id table — NodePath is 16, Dictionary 20, pool arrays 22..28.
#[test]
fn ids_follow_the_2x_table() {
    let path = NodePath::from("/root/x");
    assert_eq!(g2().to_vec(&path).unwrap()[0], 16);
    assert_eq!(
        g2().to_vec(&Dictionary::new()).unwrap(),
        unhex("14000000 00000000")
    );
    assert_eq!(
        g2().to_vec(&PoolByteArray(vec![7])).unwrap(),
        unhex("16000000 01000000 07000000")
    );
    assert_eq!(
        g2().to_vec(&PoolColorArray(vec![])).unwrap(),
        unhex("1c000000 00000000")
    );
    // Godot 4-only types do not exist in Godot 2.
    let err = g2().to_vec(&Vector2i::new(1, 2)).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)));
    assert!(matches!(
        g2().from_slice::<Variant>(&unhex("1d000000"))
            .unwrap_err()
            .kind(),
        ErrorKind::UnknownType {
            id: 29,
            dialect: Dialect::Godot2
        }
    ));
}

/// Source-derived: a tolerant 2.x decoder accepts the 64-bit flag some 2.1.x-based
/// builds wrote (spec §2.3, "Uncertain"), and reads the value it stands for.
#[test]
fn tolerant_64_bit_flag() {
    let bytes = unhex("02000100 00000000 01000000");
    assert_eq!(g2().from_slice::<i64>(&bytes).unwrap(), 1 << 32);
}

#[test]
fn variant_round_trips_in_godot2() {
    let mut d = Dictionary::new();
    d.insert("pos", Vector2::new(1.0, 2.0));
    d.insert(1, PoolStringArray(vec!["a".into()]));
    let v = Variant::Array(vec![
        Variant::Dictionary(d),
        Basis::IDENTITY.into(),
        NodePath::from("a/b:c").into(),
        Variant::from(Image {
            format: 3,
            mipmaps: 1,
            width: 2,
            height: 1,
            data: vec![9; 6],
        }),
    ]);
    let bytes = g2().to_vec(&v).unwrap();
    assert_eq!(g2().from_slice::<Variant>(&bytes).unwrap(), v);
}
