//! The JSON mapping of `Variant` (`godot_bin::json`): the exact text of every arm, as
//! the module docs' table gives it; exact round trips of random values of every
//! dialect; errors with their paths; hostile input; plain data as serde_json writes it.
#![cfg(feature = "json")]

#[path = "common/arbitrary.rs"]
mod arbitrary;
#[path = "common/random.rs"]
mod random;

use std::collections::BTreeMap;

use arbitrary::{string, AnyVariant, AnyVariant2, AnyVariant4};
use godot_bin::json;
use godot_bin::*;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use serde_json::Value;

/// Exactly the same value: the same arms (String is not StringName, typed is not
/// untyped, which `==` allows), the same order, `-0.0` apart from `0.0` (`Debug`), and
/// the same float bits, NaN payloads included (the JSON text carries them).
fn same(a: &Variant, b: &Variant) -> bool {
    format!("{a:?}") == format!("{b:?}") && json::to_string(a) == json::to_string(b)
}

/// Through the text (compact and pretty) and through `serde_json::Value`; where an
/// engine dialect can encode the value, the bytes are the same too.
fn round_trip(v: &Variant) -> std::result::Result<(), String> {
    let text = json::to_string(v);
    for (how, back) in [
        ("text", json::from_str(&text)),
        ("pretty text", json::from_str(&json::to_string_pretty(v))),
        ("Value", json::from_value(&json::to_value(v))),
    ] {
        let back = back.map_err(|e| format!("{how}: {e}\n  json: {text}"))?;
        if !same(v, &back) {
            return Err(format!(
                "{how}: read back as another value\n  json: {text}\n  sent: {v:?}\n  read: {back:?}"
            ));
        }
        for dialect in Dialect::ALL {
            let cfg = Config::new().dialect(dialect).allow_objects(true);
            if let Ok(bytes) = cfg.to_vec(v) {
                if cfg.to_vec(&back).ok() != Some(bytes) {
                    return Err(format!("{how}: other {dialect:?} bytes\n  json: {text}"));
                }
            }
        }
    }
    Ok(())
}

/// The smallest part of `v` that still fails, for the report.
fn smallest_failing(v: &Variant) -> Variant {
    random::children(v)
        .iter()
        .find(|c| round_trip(c).is_err())
        .map_or_else(|| v.clone(), smallest_failing)
}

fn check(v: &Variant) {
    if let Err(e) = round_trip(v) {
        let small = smallest_failing(v);
        panic!("{e}\n  smallest failing part: {small:?}");
    }
}

fn columns(x: [f32; 3], y: [f32; 3], z: [f32; 3]) -> Basis {
    let v = |[a, b, c]: [f32; 3]| Vector3::new(a, b, c);
    Basis::from_columns(v(x), v(y), v(z))
}

fn dict<K: Into<Variant>, V: Into<Variant>>(entries: Vec<(K, V)>) -> Dictionary {
    entries.into_iter().collect()
}

fn event(device: u32, kind: InputEventKind) -> Variant {
    Variant::InputEvent(InputEvent { device, kind })
}

/// One value of every arm (and of every form an arm can take), with its JSON text.
fn every_arm() -> Vec<(Variant, &'static str)> {
    let basis = columns([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]);
    vec![
        (Variant::Nil, "null"),
        (Variant::Bool(true), "true"),
        (Variant::Int(-3), "-3"),
        (Variant::Int(i64::MIN), "-9223372036854775808"),
        (Variant::Float(1.0), "1.0"),
        (Variant::Float(-0.0), "-0.0"),
        (Variant::Float(0.1), "0.1"),
        (Variant::Float(1e300), "1e+300"),
        (Variant::Float(5e-324), "5e-324"),
        (Variant::Float(f64::INFINITY), r#"{"$float":"inf"}"#),
        (Variant::Float(f64::NEG_INFINITY), r#"{"$float":"-inf"}"#),
        (
            Variant::Float(f64::from_bits(0x7ff8_0000_0000_0000)),
            r#"{"$float":"nan"}"#,
        ),
        (
            Variant::Float(f64::from_bits(0xfff8_0000_0000_0000)),
            r#"{"$float":"-nan"}"#,
        ),
        (
            Variant::Float(f64::from_bits(0x7ff0_0000_0000_0001)),
            r#"{"$float":"nan:0x7ff0000000000001"}"#,
        ),
        (Variant::from("a\"b\n$"), r#""a\"b\n$""#),
        (Vector2::new(1.5, -2.0).into(), r#"{"$Vector2":[1.5,-2.0]}"#),
        (
            Rect2::new(1.0, 2.0, 3.0, 4.0).into(),
            r#"{"$Rect2":[1.0,2.0,3.0,4.0]}"#,
        ),
        (
            Vector3::new(0.1, 0.0, -0.0).into(),
            r#"{"$Vector3":[0.1,0.0,-0.0]}"#,
        ),
        (
            Transform2D::new(
                Vector2::new(1.0, 2.0),
                Vector2::new(3.0, 4.0),
                Vector2::new(5.0, 6.0),
            )
            .into(),
            r#"{"$Transform2D":[1.0,2.0,3.0,4.0,5.0,6.0]}"#,
        ),
        (
            Plane::new(0.0, 1.0, 0.0, 5.0).into(),
            r#"{"$Plane":[0.0,1.0,0.0,5.0]}"#,
        ),
        (
            Quat::new(0.0, 0.0, 0.0, 1.0).into(),
            r#"{"$Quaternion":[0.0,0.0,0.0,1.0]}"#,
        ),
        (
            Aabb::new(Vector3::new(1.0, 2.0, 3.0), Vector3::new(4.0, 5.0, 6.0)).into(),
            r#"{"$AABB":[1.0,2.0,3.0,4.0,5.0,6.0]}"#,
        ),
        // Godot's text form lists a Basis by rows: x.x, y.x, z.x, x.y, ...
        (
            basis.into(),
            r#"{"$Basis":[1.0,4.0,7.0,2.0,5.0,8.0,3.0,6.0,9.0]}"#,
        ),
        (
            Transform::new(basis, Vector3::new(10.0, 11.0, 12.0)).into(),
            r#"{"$Transform3D":[1.0,4.0,7.0,2.0,5.0,8.0,3.0,6.0,9.0,10.0,11.0,12.0]}"#,
        ),
        (
            Color::new(1.0, 0.5, 0.25, 1.0).into(),
            r#"{"$Color":[1.0,0.5,0.25,1.0]}"#,
        ),
        (
            NodePath::from("/root/Main:position:x").into(),
            r#"{"$NodePath":"/root/Main:position:x"}"#,
        ),
        (NodePath::from("").into(), r#"{"$NodePath":""}"#),
        (
            NodePath::from_parts(false, vec!["a/b".into()], vec![]).into(),
            r#"{"$NodePath":{"absolute":false,"names":["a/b"],"subnames":[]}}"#,
        ),
        (
            NodePath::from_parts(true, vec![], vec!["".into()]).into(),
            r#"{"$NodePath":{"absolute":true,"names":[],"subnames":[""]}}"#,
        ),
        (Rid(42).into(), r#"{"$RID":42}"#),
        (
            Object {
                class: "Node".into(),
                properties: vec![("name".into(), "n".into()), ("script".into(), Variant::Nil)],
            }
            .into(),
            r#"{"$Object":{"class":"Node","properties":{"name":"n","script":null}}}"#,
        ),
        (
            Object {
                class: "Node".into(),
                properties: vec![("a".into(), 1.into()), ("a".into(), 2.into())],
            }
            .into(),
            r#"{"$Object":{"class":"Node","properties":[["a",1],["a",2]]}}"#,
        ),
        (
            Variant::ObjectId(u64::MAX),
            r#"{"$EncodedObjectAsID":18446744073709551615}"#,
        ),
        (
            dict(vec![
                ("b", Variant::Int(1)),
                ("a", Variant::Array(vec![2.into()])),
            ])
            .into(),
            r#"{"b":1,"a":[2]}"#,
        ),
        (Dictionary::new().into(), "{}"),
        (
            dict(vec![("$x", 1)]).into(),
            r#"{"$Dictionary":[["$x",1]]}"#,
        ),
        (
            dict(vec![
                (Variant::Int(1), Variant::from("one")),
                (StringName::from("s").into(), 2.into()),
            ])
            .into(),
            r#"{"$Dictionary":[[1,"one"],[{"$StringName":"s"},2]]}"#,
        ),
        (
            Variant::Array(vec![1.into(), "a".into(), Variant::Nil]),
            r#"[1,"a",null]"#,
        ),
        (Variant::Array(vec![]), "[]"),
        (
            PoolByteArray(vec![0, 1, 2, 255]).into(),
            r#"{"$PackedByteArray":"AAEC/w=="}"#,
        ),
        (
            PoolIntArray(vec![1, -2]).into(),
            r#"{"$PackedInt32Array":[1,-2]}"#,
        ),
        (
            PoolRealArray(vec![
                0.1,
                16777216.0,
                1e-45,
                f32::MAX,
                f32::from_bits(0x7fc0_0000),
                f32::from_bits(0xffc0_0000),
                f32::from_bits(0x7f80_0001),
                f32::NEG_INFINITY,
            ])
            .into(),
            r#"{"$PackedFloat32Array":[0.1,16777216.0,1e-45,3.4028235e+38,"nan","-nan","nan:0x7f800001","-inf"]}"#,
        ),
        (
            PoolStringArray(vec!["a".into(), "".into()]).into(),
            r#"{"$PackedStringArray":["a",""]}"#,
        ),
        (
            PoolVector2Array(vec![Vector2::new(1.0, 2.0), Vector2::new(3.0, 4.0)]).into(),
            r#"{"$PackedVector2Array":[[1.0,2.0],[3.0,4.0]]}"#,
        ),
        (
            PoolVector3Array(vec![Vector3::new(1.0, 2.0, 3.0)]).into(),
            r#"{"$PackedVector3Array":[[1.0,2.0,3.0]]}"#,
        ),
        (
            PoolColorArray(vec![Color::new(1.0, 0.0, 0.0, 1.0)]).into(),
            r#"{"$PackedColorArray":[[1.0,0.0,0.0,1.0]]}"#,
        ),
        (Vector2i::new(1, -2).into(), r#"{"$Vector2i":[1,-2]}"#),
        (Rect2i::new(1, 2, 3, 4).into(), r#"{"$Rect2i":[1,2,3,4]}"#),
        (Vector3i::new(1, 2, 3).into(), r#"{"$Vector3i":[1,2,3]}"#),
        (
            Vector4::new(1.0, 2.0, 3.0, 4.0).into(),
            r#"{"$Vector4":[1.0,2.0,3.0,4.0]}"#,
        ),
        (
            Vector4i::new(1, 2, 3, i32::MIN).into(),
            r#"{"$Vector4i":[1,2,3,-2147483648]}"#,
        ),
        (
            Projection::IDENTITY.into(),
            r#"{"$Projection":[1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0]}"#,
        ),
        (StringName::from("idle").into(), r#"{"$StringName":"idle"}"#),
        (Callable.into(), r#"{"$Callable":null}"#),
        (
            Signal {
                name: "hit".into(),
                object: 7,
            }
            .into(),
            r#"{"$Signal":{"name":"hit","object":7}}"#,
        ),
        (
            PackedInt64Array(vec![i64::MIN, i64::MAX]).into(),
            r#"{"$PackedInt64Array":[-9223372036854775808,9223372036854775807]}"#,
        ),
        (
            PackedFloat64Array(vec![0.1, 1.0, f64::NEG_INFINITY]).into(),
            r#"{"$PackedFloat64Array":[0.1,1.0,"-inf"]}"#,
        ),
        (
            PackedVector4Array(vec![Vector4::new(1.0, 2.0, 3.0, 4.0)]).into(),
            r#"{"$PackedVector4Array":[[1.0,2.0,3.0,4.0]]}"#,
        ),
        (
            TypedArray {
                element: ContainerType::Builtin(VariantType::Int),
                items: vec![1.into(), 2.into()],
            }
            .into(),
            r#"{"$Array":{"type":"int","values":[1,2]}}"#,
        ),
        (
            TypedArray {
                element: ContainerType::Builtin(VariantType::Quat),
                items: vec![],
            }
            .into(),
            r#"{"$Array":{"type":"Quaternion","values":[]}}"#,
        ),
        (
            TypedArray {
                element: ContainerType::Class("Node".into()),
                items: vec![],
            }
            .into(),
            r#"{"$Array":{"type":{"class":"Node"},"values":[]}}"#,
        ),
        (
            TypedArray {
                element: ContainerType::Script("res://enemy.gd".into()),
                items: vec![Variant::Nil],
            }
            .into(),
            r#"{"$Array":{"type":{"script":"res://enemy.gd"},"values":[null]}}"#,
        ),
        (
            TypedDictionary {
                key: Some(ContainerType::Builtin(VariantType::String)),
                value: Some(ContainerType::Builtin(VariantType::Int)),
                entries: dict(vec![("a", 1), ("$b", 2)]),
            }
            .into(),
            r#"{"$Dictionary":{"key":"String","value":"int","entries":{"a":1,"$b":2}}}"#,
        ),
        (
            TypedDictionary {
                key: None,
                value: Some(ContainerType::Builtin(VariantType::Vector2)),
                entries: dict(vec![(1, Vector2::new(1.0, 2.0))]),
            }
            .into(),
            r#"{"$Dictionary":{"key":null,"value":"Vector2","entries":[[1,{"$Vector2":[1.0,2.0]}]]}}"#,
        ),
        (
            TypedDictionary {
                key: Some(ContainerType::Builtin(VariantType::StringName)),
                value: None,
                entries: dict(vec![(StringName::from("a"), 1)]),
            }
            .into(),
            r#"{"$Dictionary":{"key":"StringName","value":null,"entries":[[{"$StringName":"a"},1]]}}"#,
        ),
        (
            Image {
                format: 4,
                mipmaps: 0,
                width: 1,
                height: 1,
                data: vec![255, 0, 0, 255],
            }
            .into(),
            r#"{"$Image":{"format":4,"mipmaps":0,"width":1,"height":1,"data":"/wAA/w=="}}"#,
        ),
        (
            event(0, InputEventKind::None),
            r#"{"$InputEvent":{"type":"NONE","device":0}}"#,
        ),
        (
            event(
                0,
                InputEventKind::Key {
                    modifiers: 1 << 25,
                    scancode: 65,
                },
            ),
            r#"{"$InputEvent":{"type":"KEY","device":0,"modifiers":33554432,"scancode":65}}"#,
        ),
        (
            event(1, InputEventKind::MouseMotion),
            r#"{"$InputEvent":{"type":"MOUSE_MOTION","device":1}}"#,
        ),
        (
            event(1, InputEventKind::MouseButton { button_index: 2 }),
            r#"{"$InputEvent":{"type":"MOUSE_BUTTON","device":1,"button_index":2}}"#,
        ),
        (
            event(
                2,
                InputEventKind::JoystickMotion {
                    axis: 1,
                    axis_value: -0.5,
                },
            ),
            r#"{"$InputEvent":{"type":"JOYSTICK_MOTION","device":2,"axis":1,"axis_value":-0.5}}"#,
        ),
        (
            event(2, InputEventKind::JoystickButton { button_index: 3 }),
            r#"{"$InputEvent":{"type":"JOYSTICK_BUTTON","device":2,"button_index":3}}"#,
        ),
        (
            event(0, InputEventKind::ScreenTouch { index: 4 }),
            r#"{"$InputEvent":{"type":"SCREEN_TOUCH","device":0,"index":4}}"#,
        ),
        (
            event(0, InputEventKind::ScreenDrag),
            r#"{"$InputEvent":{"type":"SCREEN_DRAG","device":0}}"#,
        ),
        (
            event(0, InputEventKind::Action),
            r#"{"$InputEvent":{"type":"ACTION","device":0}}"#,
        ),
        // An id the engine does not know stays a number; so does one it knows, which
        // `Other` can hold too.
        (
            event(3, InputEventKind::Other(42)),
            r#"{"$InputEvent":{"type":42,"device":3}}"#,
        ),
        (
            event(3, InputEventKind::Other(1)),
            r#"{"$InputEvent":{"type":1,"device":3}}"#,
        ),
        (
            Variant::ResourceRef(Box::new(ResourceRef {
                kind: "ExtResource".into(),
                args: vec!["1_abc".into(), 2.into()],
            })),
            r#"{"$ResourceRef":{"kind":"ExtResource","args":["1_abc",2]}}"#,
        ),
    ]
}

#[test]
fn every_arm_has_its_documented_json() {
    for (v, text) in every_arm() {
        assert_eq!(json::to_string(&v), text, "{v:?}");
        let back = json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(same(&v, &back), "{text}: read as {back:?}");
        check(&v);
    }
}

#[test]
fn every_arm_is_covered() {
    // The arm names (the debug text up to the payload): all 45 arms of `Variant` have a
    // row. (`json.rs` matches them exhaustively: a new arm does not compile there.)
    let arms: std::collections::BTreeSet<String> = every_arm()
        .iter()
        .map(|(v, _)| {
            let d = format!("{v:?}");
            d.split(['(', ' ']).next().unwrap_or("").to_owned()
        })
        .collect();
    assert_eq!(arms.len(), 45, "{arms:?}");
}

#[test]
fn all_arms_nested_in_one_value_round_trip() {
    let items: Vec<Variant> = every_arm().into_iter().map(|(v, _)| v).collect();
    let keyed: Dictionary = items.iter().map(|v| (v.clone(), v.clone())).collect();
    check(&Variant::Array(items));
    check(&keyed.into());
}

#[test]
fn pretty_text_is_indented() {
    let v: Variant = dict(vec![("pos", Vector2i::new(1, 2))]).into();
    assert_eq!(
        json::to_string_pretty(&v),
        "{\n  \"pos\": {\n    \"$Vector2i\": [\n      1,\n      2\n    ]\n  }\n}"
    );
}

#[test]
fn older_names_and_explicit_tags_are_read() {
    let cases: &[(&str, Variant)] = &[
        (r#"{"$Quat":[0,0,0,1]}"#, Quat::IDENTITY.into()),
        (
            r#"{"$Transform":[1,0,0,0,1,0,0,0,1,0,0,0]}"#,
            Transform::default().into(),
        ),
        (
            r#"{"$Matrix32":[1,0,0,1,0,0]}"#,
            Transform2D::IDENTITY.into(),
        ),
        (
            r#"{"$Matrix3":[1,0,0,0,1,0,0,0,1]}"#,
            Basis::IDENTITY.into(),
        ),
        (
            r#"{"$PoolRealArray":[1,0.5]}"#,
            PoolRealArray(vec![1.0, 0.5]).into(),
        ),
        (r#"{"$RealArray":[1]}"#, PoolRealArray(vec![1.0]).into()),
        (r#"{"$RawArray":"AQ=="}"#, PoolByteArray(vec![1]).into()),
        (r#"{"$PoolByteArray":""}"#, PoolByteArray(vec![]).into()),
        (
            r#"{"$PoolVector2Array":[[1,2]]}"#,
            PoolVector2Array(vec![Vector2::new(1.0, 2.0)]).into(),
        ),
        (
            r#"{"$PoolStringArray":["a"]}"#,
            PoolStringArray(vec!["a".into()]).into(),
        ),
        (r#"{"$PoolIntArray":[-1]}"#, PoolIntArray(vec![-1]).into()),
        (
            r#"{"$PoolColorArray":[[1,1,1,1]]}"#,
            PoolColorArray(vec![Color::new(1.0, 1.0, 1.0, 1.0)]).into(),
        ),
        (
            r#"{"$Array":{"type":"Quat","values":[]}}"#,
            TypedArray {
                element: ContainerType::Builtin(VariantType::Quat),
                items: vec![],
            }
            .into(),
        ),
        (
            r#"{"$Dictionary":{"entries":{}}}"#,
            TypedDictionary {
                key: None,
                value: None,
                entries: Dictionary::new(),
            }
            .into(),
        ),
        // The tagged form of the plain types.
        (r#"{"$float":1}"#, Variant::Float(1.0)),
        (r#"{"$float":"-inf"}"#, Variant::Float(f64::NEG_INFINITY)),
        (r#"{"$int":5}"#, Variant::Int(5)),
        (r#"{"$bool":false}"#, Variant::Bool(false)),
        (r#"{"$Nil":null}"#, Variant::Nil),
        (r#"{"$String":"$x"}"#, Variant::from("$x")),
        (
            r#"{"$Array":[1,"a"]}"#,
            Variant::Array(vec![1.into(), "a".into()]),
        ),
        (r#"{"$Dictionary":[["a",1]]}"#, dict(vec![("a", 1)]).into()),
        // Numbers as a person writes them: ints for floats, any exponent.
        (r#"{"$Vector2":[1,2e0]}"#, Vector2::new(1.0, 2.0).into()),
        (
            r#"{"$Color":[1,0.5,0,1]}"#,
            Color::new(1.0, 0.5, 0.0, 1.0).into(),
        ),
        (r#"1E2"#, Variant::Float(100.0)),
        // serde_json reads the integer literal -0 as the float -0.0, which it is.
        (r#"-0"#, Variant::Float(-0.0)),
        // Rounded to the nearest f32.
        (
            r#"{"$Vector2":[0.1,16777217]}"#,
            Vector2::new(0.1, 16777216.0).into(),
        ),
        // As Godot's NodePath(String) reads it.
        (
            r#"{"$NodePath":"a//b:"}"#,
            NodePath::from_parts(false, vec!["a".into(), "b".into()], vec![]).into(),
        ),
        // A JSON object's repeated key keeps its first place and last value, as
        // setting a key does in Godot.
        (
            r#"{"a":1,"b":2,"a":3}"#,
            dict(vec![("a", 3), ("b", 2)]).into(),
        ),
        (
            r#"{"$Dictionary":[[1,"x"],[2,"y"],[1,"z"]]}"#,
            dict(vec![(1, "z"), (2, "y")]).into(),
        ),
    ];
    for (text, want) in cases {
        let got = json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(same(&got, want), "{text}: {got:?}, want {want:?}");
    }
}

#[test]
fn f32_components_are_short_and_exact() {
    // Every 4093rd bit pattern (about a million, all exponents), in packed arrays.
    let xs: Vec<f32> = (0..=u32::MAX).step_by(4093).map(f32::from_bits).collect();
    for chunk in xs.chunks(8192) {
        let v = Variant::PoolRealArray(chunk.to_vec().into());
        let Ok(Variant::PoolRealArray(back)) = json::from_str(&json::to_string(&v)) else {
            panic!("not read back as a PackedFloat32Array");
        };
        for (x, y) in chunk.iter().zip(back.iter()) {
            assert_eq!(x.to_bits(), y.to_bits(), "{x:e}");
        }
    }
    // The short text, not the f64 the f32 widens to.
    for (x, text) in [
        (0.1f32, "0.1"),
        (1.0 / 3.0, "0.33333334"),
        (123456.79, "123456.79"),
        (1e-7, "1e-7"),
        (f32::MIN_POSITIVE, "1.1754944e-38"),
        // One of the two f32s (the other is its negative) whose shortest decimal,
        // read as an f64, narrows to the next f32: written as the exact f64 instead.
        (f32::from_bits(0x15ae_43fd), "7.038530691851209e-26"),
    ] {
        assert_eq!(
            json::to_value(&Vector2::new(x, 0.0).into()),
            serde_json::from_str::<Value>(&format!(r#"{{"$Vector2":[{text},0.0]}}"#)).unwrap()
        );
    }
}

#[test]
fn f64_floats_keep_their_bits() {
    let mut rng = random::Rng::new(7);
    for _ in 0..100_000 {
        let f = f64::from_bits(rng.next());
        let back = json::from_str(&json::to_string(&Variant::Float(f))).unwrap();
        let Variant::Float(g) = back else {
            panic!("{f:e} read as {back:?}")
        };
        assert_eq!(f.to_bits(), g.to_bits(), "{f:e}");
    }
}

/// Seeded random Variants of every dialect (the differential tests' generator); the
/// seed is printed, `GODOT_RANDOM_SEED=n` repeats a run.
#[test]
fn random_variants_of_every_dialect_round_trip() {
    let seed = random::seed();
    println!("GODOT_RANDOM_SEED={seed}");
    let mut rng = random::Rng::new(seed);
    for dialect in Dialect::ALL {
        for _ in 0..1500 {
            check(&random::variant(&mut rng, dialect, 4));
        }
    }
}

#[test]
fn quickcheck_godot3_values_round_trip() {
    fn prop(v: AnyVariant) -> bool {
        round_trip(&v.0).is_ok()
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(AnyVariant) -> bool);
}

#[test]
fn quickcheck_godot4_values_round_trip() {
    fn prop(v: AnyVariant4) -> bool {
        round_trip(&v.0).is_ok()
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(AnyVariant4) -> bool);
}

#[test]
fn quickcheck_godot2_values_round_trip() {
    fn prop(v: AnyVariant2) -> bool {
        round_trip(&v.0).is_ok()
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(AnyVariant2) -> bool);
}

/// Values neither generator makes: full Objects (repeated property names too),
/// resource references, paths whose text is another path, odd NaNs, `Other` events.
#[test]
fn quickcheck_rarer_values_round_trip() {
    #[derive(Clone, Debug)]
    struct Rare(Variant);
    impl Arbitrary for Rare {
        fn arbitrary(g: &mut Gen) -> Self {
            let name = |g: &mut Gen| {
                g.choose(&["a", "a/b", "", ":", "$x", "é"])
                    .unwrap()
                    .to_string()
            };
            let inner = AnyVariant4::arbitrary(g).0;
            Rare(match u8::arbitrary(g) % 6 {
                0 => Object {
                    class: String::arbitrary(g),
                    properties: (0..usize::arbitrary(g) % 4)
                        .map(|_| (name(g), AnyVariant::arbitrary(g).0))
                        .collect(),
                }
                .into(),
                1 => Variant::ResourceRef(Box::new(ResourceRef {
                    kind: String::arbitrary(g),
                    args: vec![inner],
                })),
                2 => NodePath::from_parts(
                    bool::arbitrary(g),
                    (0..usize::arbitrary(g) % 3).map(|_| name(g)).collect(),
                    (0..usize::arbitrary(g) % 3).map(|_| name(g)).collect(),
                )
                .into(),
                3 => PoolVector3Array(vec![Vector3::new(
                    // A NaN with any sign and payload.
                    f32::from_bits(0x7f80_0000 | ((u32::arbitrary(g) | 1) & 0x807f_ffff)),
                    f32::arbitrary(g),
                    f32::arbitrary(g),
                )])
                .into(),
                4 => event(u32::arbitrary(g), InputEventKind::Other(u32::arbitrary(g))),
                _ => TypedArray {
                    element: ContainerType::Builtin(VariantType::Nil),
                    items: vec![inner],
                }
                .into(),
            })
        }
    }
    fn prop(v: Rare) -> bool {
        round_trip(&v.0).is_ok()
    }
    QuickCheck::new()
        .tests(1000)
        .quickcheck(prop as fn(Rare) -> bool);
}

/// The error's message and path.
fn json_error(e: Error) -> (String, String) {
    assert_eq!(e.classify(), Category::Data);
    match e.into_kind() {
        ErrorKind::Json { message, path } => (path, message),
        other => panic!("not a Json error: {other:?}"),
    }
}

#[test]
fn errors_name_the_path() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"players": [1, 2, 3, {"avatar": {"$Vector2": [1, 2, 3]}}]}"#,
            "$.players[3].avatar",
            "$Vector2 needs 2 numbers, found 3",
        ),
        (
            r#"{"a b": {"$Vector5": []}}"#,
            r#"$["a b"]"#,
            r#"unknown type "$Vector5""#,
        ),
        (
            r#"[{"$Vector2": [1, 2], "x": 1}]"#,
            "$[0]",
            r#""$Vector2" is a type tag and must be the object's only key (a Dictionary with keys starting with "$" is written {"$Dictionary": [[key, value], ...]})"#,
        ),
        (
            r#"{"a": 1, "$b": 2}"#,
            "$",
            r#""$b" is a type tag and must be the object's only key (a Dictionary with keys starting with "$" is written {"$Dictionary": [[key, value], ...]})"#,
        ),
        (
            r#"{"$Vector2": "1, 2"}"#,
            "$",
            "$Vector2 needs an array of 2 numbers, found a string",
        ),
        (
            r#"{"$Vector2": [1, "x"]}"#,
            r#"$["$Vector2"][1]"#,
            r#"expected a number or "inf", "-inf", "nan", "-nan", "nan:0x" and 8 hex digits, found "x""#,
        ),
        (
            r#"{"$Vector2": [1e39, 0]}"#,
            r#"$["$Vector2"][0]"#,
            "1e+39 out of range for a 32-bit float",
        ),
        (
            r#"{"$Vector2i": [1, 2147483648]}"#,
            r#"$["$Vector2i"][1]"#,
            "integer 2147483648 out of range for a 32-bit int",
        ),
        (
            r#"{"$Vector3i": [1, 2.5, 3]}"#,
            r#"$["$Vector3i"][1]"#,
            "expected a 32-bit int, found 2.5",
        ),
        (
            "[18446744073709551615]",
            "$[0]",
            "integer 18446744073709551615 out of range for a 64-bit int",
        ),
        (
            r#"{"$RID": -1}"#,
            r#"$["$RID"]"#,
            "integer -1 out of range for a 64-bit unsigned int",
        ),
        (
            r#"{"$EncodedObjectAsID": "12"}"#,
            r#"$["$EncodedObjectAsID"]"#,
            "expected a 64-bit unsigned int, found a string",
        ),
        (
            r#"{"$PackedInt64Array": [1, null]}"#,
            r#"$["$PackedInt64Array"][1]"#,
            "expected a 64-bit int, found null",
        ),
        (
            r#"{"$PackedVector2Array": [[1, 2], [3]]}"#,
            r#"$["$PackedVector2Array"][1]"#,
            "Vector2 needs 2 numbers, found 1",
        ),
        (
            r#"{"$PackedStringArray": {}}"#,
            "$",
            "$PackedStringArray needs an array of strings, found an object",
        ),
        (
            r#"{"$PackedByteArray": "AQ="}"#,
            r#"$["$PackedByteArray"]"#,
            "invalid Base64: Invalid padding",
        ),
        (
            r#"{"$PackedFloat64Array": ["nan:0x7ff0000000000000"]}"#,
            r#"$["$PackedFloat64Array"][0]"#,
            r#"expected a number or "inf", "-inf", "nan", "-nan", "nan:0x" and 16 hex digits, found "nan:0x7ff0000000000000""#,
        ),
        (
            r#"{"$float": "NaN"}"#,
            r#"$["$float"]"#,
            r#"expected a number or "inf", "-inf", "nan", "-nan", "nan:0x" and 16 hex digits, found "NaN""#,
        ),
        (
            r#"{"x": {"$Array": {"type": "Integer", "values": []}}}"#,
            r#"$.x["$Array"].type"#,
            r#"unknown type name "Integer""#,
        ),
        (
            r#"{"$Array": {"type": {"klass": "Node"}, "values": []}}"#,
            r#"$["$Array"].type"#,
            r#"a class or script type is {"class": name} or {"script": path}"#,
        ),
        (
            r#"{"$Array": {"values": []}}"#,
            "$",
            r#"$Array needs the field "type""#,
        ),
        (
            r#"{"$Array": {"type": "int", "values": [], "size": 0}}"#,
            "$",
            r#"$Array has no field "size" (its fields: type, values)"#,
        ),
        (
            r#"{"$Array": {"type": "int", "values": [1, {"$Nope": 0}]}}"#,
            r#"$["$Array"].values[1]"#,
            r#"unknown type "$Nope""#,
        ),
        (
            r#"{"$Dictionary": [[1, 2, 3]]}"#,
            r#"$["$Dictionary"][0]"#,
            "a [key, value] pair needs 2 items, found 3",
        ),
        (
            r#"{"$Dictionary": [[{"$Vector2": [1]}, 2]]}"#,
            r#"$["$Dictionary"][0][0]"#,
            "$Vector2 needs 2 numbers, found 1",
        ),
        (
            r#"{"$Dictionary": {"key": "String", "value": 5, "entries": {}}}"#,
            r#"$["$Dictionary"].value"#,
            r#"expected a type name, {"class": name} or {"script": path}, found 5"#,
        ),
        (
            r#"{"$Dictionary": "x"}"#,
            "$",
            r#"$Dictionary needs [[key, value], ...] or an object with "key", "value" and "entries", found a string"#,
        ),
        (
            r#"{"$Object": {"class": "Node", "properties": [["a", 1], [2, 3]]}}"#,
            r#"$["$Object"].properties[1][0]"#,
            "expected a string, found 2",
        ),
        (
            r#"{"$Signal": {"name": "a", "object": 1, "extra": 2}}"#,
            "$",
            r#"$Signal has no field "extra" (its fields: name, object)"#,
        ),
        (
            r#"{"$Image": {"format": 4, "mipmaps": 0, "width": 1, "height": 1}}"#,
            "$",
            r#"$Image needs the field "data""#,
        ),
        (
            r#"{"$InputEvent": {"type": "KEY", "device": 0, "modifiers": 0}}"#,
            "$",
            r#"$InputEvent needs the field "scancode""#,
        ),
        (
            r#"{"$InputEvent": {"type": "KEY", "device": 0, "modifiers": 0, "scancode": 1, "x": 0}}"#,
            "$",
            r#"$InputEvent has no field "x" (its fields: type, device, modifiers, scancode)"#,
        ),
        (
            r#"{"$InputEvent": {"type": "PRESS", "device": 0}}"#,
            r#"$["$InputEvent"].type"#,
            r#"unknown InputEvent type "PRESS""#,
        ),
        (
            r#"{"$NodePath": {"absolute": 1, "names": [], "subnames": []}}"#,
            r#"$["$NodePath"].absolute"#,
            "expected a boolean, found 1",
        ),
        (
            r#"{"$NodePath": {"absolute": true, "names": ["a", 1], "subnames": []}}"#,
            r#"$["$NodePath"].names[1]"#,
            "expected a string, found 1",
        ),
        (r#"{"$Callable": {}}"#, "$", "$Callable needs null, found an object"),
        (
            r#"{"$ResourceRef": {"kind": "Resource", "args": "res://a"}}"#,
            r#"$["$ResourceRef"].args"#,
            "args needs an array of values, found a string",
        ),
        // Errors in the text itself: the path is the document, the message says where.
        (
            "[1, 123456789012345678901234567890]",
            "$",
            "integer 123456789012345678901234567890 out of range for a 64-bit int at line 1 column 5",
        ),
        ("[1e400]", "$", "number out of range at line 1 column 6"),
        ("[1,", "$", "EOF while parsing a value at line 1 column 3"),
        ("1 2", "$", "trailing characters at line 1 column 3"),
    ];
    for (text, path, message) in cases {
        let e = json::from_str(text).expect_err(text);
        assert_eq!(
            json_error(e),
            (path.to_string(), message.to_string()),
            "{text}"
        );
    }
}

#[test]
fn error_display_is_path_then_message() {
    let e = json::from_str(r#"{"a": {"$Vector2": [1]}}"#).unwrap_err();
    assert_eq!(e.to_string(), "$.a: $Vector2 needs 2 numbers, found 1");
    assert_eq!(e.offset(), None);
}

/// `n` Arrays, one inside the other, around `1`.
fn nested_arrays(n: usize) -> String {
    format!("{}1{}", "[".repeat(n), "]".repeat(n))
}

#[test]
fn nesting_is_bounded_by_the_default_depth() {
    assert!(json::from_str(&nested_arrays(DEFAULT_MAX_DEPTH)).is_ok());
    let (path, message) =
        json_error(json::from_str(&nested_arrays(DEFAULT_MAX_DEPTH + 1)).unwrap_err());
    assert_eq!(path, format!("${}", "[0]".repeat(DEFAULT_MAX_DEPTH)));
    assert_eq!(message, "nesting deeper than the limit of 128");

    // A serde_json Value deeper than any Variant: refused at the limit, not walked.
    let mut deep = Value::from(1);
    for _ in 0..2000 {
        deep = Value::Array(vec![deep]);
    }
    assert!(json::from_value(&deep).is_err());

    // Text far deeper is refused before it is parsed.
    let (path, message) = json_error(json::from_str(&nested_arrays(1_000_000)).unwrap_err());
    assert_eq!(path, "$");
    assert_eq!(
        message,
        "nesting deeper than 515 levels at line 1 column 516"
    );
    let tags = r#"{"$Array": {"type": "int", "values": ["#.repeat(100_000);
    assert!(json::from_str(&tags).is_err());
}

/// The deepest Variant the default limit allows, in the form that nests JSON the most
/// (a typed Dictionary with pairs per level, a NodePath by parts at the bottom), reads
/// back from text on a test thread's stack.
#[test]
fn the_deepest_variants_round_trip() {
    let mut v: Variant = NodePath::from_parts(false, vec!["a/b".into()], vec![]).into();
    for _ in 0..DEFAULT_MAX_DEPTH {
        v = TypedDictionary {
            key: None,
            value: Some(ContainerType::Class("Node".into())),
            entries: dict(vec![(1, v)]),
        }
        .into();
    }
    check(&v);
    let too_deep: Variant = Variant::Array(vec![v]);
    assert!(json::from_str(&json::to_string(&too_deep)).is_err());
    let (path, message) = json_error(json::from_value(&json::to_value(&too_deep)).unwrap_err());
    assert_eq!(message, "nesting deeper than the limit of 128");
    assert!(
        path.starts_with(r#"$[0]["$Dictionary"].entries[0][1]["$Dictionary"]"#),
        "{path}"
    );

    let mut v = Variant::Nil;
    for i in 0..DEFAULT_MAX_DEPTH {
        v = if i % 2 == 0 {
            Variant::Array(vec![v])
        } else {
            dict(vec![("k", v)]).into()
        };
    }
    check(&v);
}

/// JSON made of the mapping's own pieces, shuffled: any text is a value or an error.
#[test]
fn token_soup_never_panics() {
    const TOKENS: &[&str] = &[
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "null",
        "true",
        "1",
        "-0",
        "1.5",
        "1e400",
        "-1e39",
        "18446744073709551616",
        "\"a\"",
        "\"$Vector2\"",
        "\"$Dictionary\"",
        "\"$Array\"",
        "\"$Object\"",
        "\"$InputEvent\"",
        "\"$NodePath\"",
        "\"$float\"",
        "\"nan\"",
        "\"type\"",
        "\"values\"",
        "\"entries\"",
        "\"key\"",
        "\"class\"",
        "\"properties\"",
        "\"$PackedByteArray\"",
        "\"AA==\"",
        "\"\\u0000\"",
        "\"KEY\"",
        "\"device\"",
    ];
    fn prop(picks: Vec<u8>) -> TestResult {
        let text: String = picks
            .iter()
            .map(|p| TOKENS[*p as usize % TOKENS.len()])
            .collect();
        let _ = json::from_str(&text);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(20_000)
        .quickcheck(prop as fn(Vec<u8>) -> TestResult);
}

/// The JSON of valid values with one byte changed: a value or an error, never a panic.
#[test]
fn mutated_json_never_panics() {
    let mut rng = random::Rng::new(random::seed());
    let texts: Vec<String> = every_arm().iter().map(|(_, t)| t.to_string()).collect();
    for _ in 0..20_000 {
        let mut bytes = texts[rng.below(texts.len())].clone().into_bytes();
        let i = rng.below(bytes.len());
        bytes[i] = rng.pick(b"[]{}\":,0123456789-.eE$aznx ");
        if let Ok(text) = String::from_utf8(bytes) {
            let _ = json::from_str(&text);
        }
    }
}

// Plain data: what serde_json writes of the value itself.

#[derive(serde::Serialize, Clone, Debug)]
struct Save {
    level: u32,
    name: String,
    alive: bool,
    gold: i64,
    speed: f64,
    inventory: Vec<Item>,
    pos: Option<Pos>,
    flags: BTreeMap<String, bool>,
    mode: Mode,
    pair: (i32, String),
}

#[derive(serde::Serialize, Clone, Debug)]
struct Item {
    id: i32,
    tags: Vec<String>,
}

#[derive(serde::Serialize, Clone, Debug)]
struct Pos {
    x: f64,
    y: f64,
}

#[derive(serde::Serialize, Clone, Debug)]
enum Mode {
    Easy,
    Custom { lives: u8 },
    Seeded(u32),
}

impl Arbitrary for Save {
    fn arbitrary(g: &mut Gen) -> Self {
        let finite = |g: &mut Gen| {
            let f = f64::arbitrary(g);
            if f.is_finite() {
                f
            } else {
                0.5
            }
        };
        // Map keys starting with "$" take the tagged form: not plain data.
        let key = |g: &mut Gen| string(g).trim_start_matches('$').to_owned();
        Save {
            level: u32::arbitrary(g),
            name: string(g),
            alive: bool::arbitrary(g),
            gold: i64::arbitrary(g),
            speed: finite(g),
            inventory: (0..usize::arbitrary(g) % 4)
                .map(|_| Item {
                    id: i32::arbitrary(g),
                    tags: (0..usize::arbitrary(g) % 3).map(|_| string(g)).collect(),
                })
                .collect(),
            pos: Option::<()>::arbitrary(g).map(|_| Pos {
                x: finite(g),
                y: finite(g),
            }),
            flags: (0..usize::arbitrary(g) % 4)
                .map(|_| (key(g), bool::arbitrary(g)))
                .collect(),
            mode: match u8::arbitrary(g) % 3 {
                0 => Mode::Easy,
                1 => Mode::Custom {
                    lives: u8::arbitrary(g),
                },
                _ => Mode::Seeded(u32::arbitrary(g)),
            },
            pair: (i32::arbitrary(g), string(g)),
        }
    }
}

#[test]
fn plain_data_is_what_serde_json_writes() {
    fn prop(save: Save) -> bool {
        let v = godot_bin::to_variant(&save).unwrap();
        json::to_value(&v) == serde_json::to_value(&save).unwrap()
            && json::to_string(&v) == serde_json::to_string(&save).unwrap()
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Save) -> bool);
}

#[test]
fn plain_data_example() {
    let save = Save {
        level: 3,
        name: "Ada".into(),
        alive: true,
        gold: -5,
        speed: 1.0,
        inventory: vec![Item {
            id: 7,
            tags: vec!["sword".into()],
        }],
        pos: None,
        flags: [("seen_intro".to_owned(), true)].into_iter().collect(),
        mode: Mode::Custom { lives: 3 },
        pair: (1, "x".into()),
    };
    let v = godot_bin::to_variant(&save).unwrap();
    assert_eq!(
        json::to_string(&v),
        r#"{"level":3,"name":"Ada","alive":true,"gold":-5,"speed":1.0,"inventory":[{"id":7,"tags":["sword"]}],"pos":null,"flags":{"seen_intro":true},"mode":{"Custom":{"lives":3}},"pair":[1,"x"]}"#
    );
    assert_eq!(json::to_string(&v), serde_json::to_string(&save).unwrap());
}
