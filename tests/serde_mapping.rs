//! The serde data model on the wire: attributes, enums, options, zero-copy, errors.
//! Shapes are checked against `Variant` values built by hand, so these tests say how
//! serde maps to Godot types; the engine fixtures (golden.rs) say the bytes are Godot's.

use std::borrow::Cow;
use std::collections::BTreeMap;

use godot_bin::*;
use serde::{Deserialize, Serialize};

fn dict<const N: usize>(entries: [(Variant, Variant); N]) -> Variant {
    Variant::Dictionary(entries.into_iter().collect())
}

fn s(v: &str) -> Variant {
    Variant::from(v)
}

fn as_variant<T: Serialize>(v: &T) -> Variant {
    from_slice(&to_vec(v).unwrap()).unwrap()
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Player {
    name: String,
    hp: i32,
    pos: Vector2,
}

#[test]
fn struct_is_dictionary_in_field_order() {
    let p = Player {
        name: "Ann".into(),
        hp: 7,
        pos: Vector2::new(1.0, 2.0),
    };
    let v = as_variant(&p);
    assert_eq!(
        v,
        dict([
            (s("name"), s("Ann")),
            (s("hp"), 7.into()),
            (s("pos"), Vector2::new(1.0, 2.0).into())
        ])
    );
    let keys: Vec<_> = v.as_dictionary().unwrap().keys().cloned().collect();
    assert_eq!(keys, [s("name"), s("hp"), s("pos")]);
    assert_eq!(from_slice::<Player>(&to_vec(&p).unwrap()).unwrap(), p);
}

#[test]
fn struct_reads_from_array_by_position() {
    let bytes = to_vec(&("Bo", 3, Vector2::new(0.5, 0.25))).unwrap();
    let p: Player = from_slice(&bytes).unwrap();
    assert_eq!(
        p,
        Player {
            name: "Bo".into(),
            hp: 3,
            pos: Vector2::new(0.5, 0.25)
        }
    );
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum Msg {
    Ping,
    Chat(String),
    Move(f32, f32),
    Hit { target: u32, damage: i16 },
}

#[test]
fn enums_are_externally_tagged() {
    assert_eq!(as_variant(&Msg::Ping), s("Ping"));
    assert_eq!(
        as_variant(&Msg::Chat("hi".into())),
        dict([(s("Chat"), s("hi"))])
    );
    assert_eq!(
        as_variant(&Msg::Move(1.5, 2.0)),
        dict([(
            s("Move"),
            Variant::Array(vec![1.5f32.into(), 2.0f32.into()])
        )])
    );
    assert_eq!(
        as_variant(&Msg::Hit {
            target: 3,
            damage: -2
        }),
        dict([(
            s("Hit"),
            dict([(s("target"), 3.into()), (s("damage"), (-2).into())])
        )])
    );
    for m in [
        Msg::Ping,
        Msg::Chat("hi".into()),
        Msg::Move(1.5, 2.0),
        Msg::Hit {
            target: 3,
            damage: -2,
        },
    ] {
        assert_eq!(from_slice::<Msg>(&to_vec(&m).unwrap()).unwrap(), m);
    }
    // A unit variant also reads from its index, as Godot enums are ints.
    assert_eq!(from_slice::<Msg>(&to_vec(&0).unwrap()).unwrap(), Msg::Ping);
}

#[test]
fn unknown_variant_is_an_invalid_value() {
    let err = from_slice::<Msg>(&to_vec("Pong").unwrap()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Message(m) if m.contains("unknown variant")),
        "{err}"
    );
    assert_eq!(err.offset(), Some(0));
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(tag = "type")]
enum Tagged {
    Join { name: String },
    Leave { id: i64 },
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(untagged)]
enum Loose {
    Num(i64),
    Text(String),
    Point(Vector3),
    List(Vec<Loose>),
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Inner {
    x: i32,
    y: i32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Outer {
    id: u8,
    #[serde(flatten)]
    inner: Inner,
    #[serde(flatten)]
    extra: BTreeMap<String, i64>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Default)]
struct Sparse {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    note: Option<String>,
    #[serde(default)]
    count: u16,
    #[serde(rename = "Speed")]
    speed: f64,
    #[serde(skip)]
    cache: u8,
}

#[test]
fn internally_tagged() {
    let j = Tagged::Join { name: "Cy".into() };
    assert_eq!(
        as_variant(&j),
        dict([(s("type"), s("Join")), (s("name"), s("Cy"))])
    );
    assert_eq!(from_slice::<Tagged>(&to_vec(&j).unwrap()).unwrap(), j);
    let l = Tagged::Leave { id: 1 << 40 };
    assert_eq!(from_slice::<Tagged>(&to_vec(&l).unwrap()).unwrap(), l);
}

#[test]
fn untagged() {
    for v in [
        Loose::Num(-4),
        Loose::Text("t".into()),
        Loose::Point(Vector3::new(1.0, 2.0, 3.0)),
        Loose::List(vec![Loose::Num(1), Loose::Text("x".into())]),
    ] {
        assert_eq!(from_slice::<Loose>(&to_vec(&v).unwrap()).unwrap(), v);
    }
}

#[test]
fn flatten_patches_counts() {
    let o = Outer {
        id: 1,
        inner: Inner { x: 2, y: 3 },
        extra: [("z".to_string(), 4)].into_iter().collect(),
    };
    assert_eq!(
        as_variant(&o),
        dict([
            (s("id"), 1.into()),
            (s("x"), 2.into()),
            (s("y"), 3.into()),
            (s("z"), 4.into())
        ])
    );
    assert_eq!(from_slice::<Outer>(&to_vec(&o).unwrap()).unwrap(), o);
}

#[test]
fn skip_default_rename() {
    let v = Sparse {
        note: None,
        count: 2,
        speed: 0.1,
        cache: 9,
    };
    assert_eq!(
        as_variant(&v),
        dict([(s("count"), 2.into()), (s("Speed"), Variant::Float(0.1))])
    );
    let back: Sparse = from_slice(&to_vec(&v).unwrap()).unwrap();
    assert_eq!(back, Sparse { cache: 0, ..v });
    let only_speed = to_vec(&dict([(s("Speed"), Variant::Float(2.0))])).unwrap();
    assert_eq!(
        from_slice::<Sparse>(&only_speed).unwrap(),
        Sparse {
            speed: 2.0,
            ..Sparse::default()
        }
    );
}

#[test]
fn missing_field_is_an_error() {
    let err = from_slice::<Inner>(&to_vec(&dict([(s("x"), 1.into())])).unwrap()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Message(m) if m == "missing field `y`"),
        "{err}"
    );
}

#[test]
fn options_units_and_nil() {
    assert_eq!(to_vec(&None::<i32>).unwrap(), to_vec(&()).unwrap());
    assert_eq!(to_vec(&Some(5)).unwrap(), to_vec(&5).unwrap());
    assert_eq!(
        from_slice::<Option<i32>>(&to_vec(&()).unwrap()).unwrap(),
        None
    );
    assert_eq!(
        from_slice::<Option<i32>>(&to_vec(&5).unwrap()).unwrap(),
        Some(5)
    );
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Unit;
    assert_eq!(as_variant(&Unit), Variant::Nil);
    assert_eq!(from_slice::<Unit>(&to_vec(&()).unwrap()).unwrap(), Unit);
}

#[test]
fn integers_follow_godot_widths_and_ranges() {
    assert_eq!(to_vec(&5u8).unwrap(), to_vec(&5i64).unwrap());
    assert_eq!(
        to_vec(&(i32::MAX as i128)).unwrap(),
        to_vec(&i32::MAX).unwrap()
    );
    assert_eq!(
        to_vec(&u64::from(u32::MAX)).unwrap(),
        to_vec(&i64::from(u32::MAX)).unwrap()
    );
    let err = to_vec(&u64::MAX).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IntOutOfRange(v, _) if *v == u64::MAX as i128));
    let err = to_vec(&i128::MIN).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IntOutOfRange(..)));
    let err = from_slice::<u8>(&to_vec(&300).unwrap()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidValue { .. }),
        "{err}"
    );
    assert_eq!(
        from_slice::<i128>(&to_vec(&i64::MIN).unwrap()).unwrap(),
        i64::MIN as i128
    );
}

#[test]
fn floats_read_leniently() {
    assert_eq!(
        from_slice::<f32>(&to_vec(&0.1f64).unwrap()).unwrap(),
        0.1f32
    );
    assert_eq!(from_slice::<f64>(&to_vec(&3).unwrap()).unwrap(), 3.0);
    assert_eq!(
        from_slice::<f64>(&to_vec(&0.1f32).unwrap()).unwrap(),
        f64::from(0.1f32)
    );
    assert!(from_slice::<bool>(&to_vec(&1).unwrap()).unwrap());
    assert!(!from_slice::<bool>(&to_vec(&0).unwrap()).unwrap());
    let err = from_slice::<bool>(&to_vec(&2).unwrap()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IntOutOfRange(2, _)));
}

#[test]
fn chars_and_strings() {
    assert_eq!(to_vec(&'é').unwrap(), to_vec("é").unwrap());
    assert_eq!(from_slice::<char>(&to_vec("日").unwrap()).unwrap(), '日');
    let err = from_slice::<char>(&to_vec("ab").unwrap()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidValue { .. }),
        "{err}"
    );
    let err = to_vec("a\0b").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)));
    // The engine drops one leading BOM when it reads a string: one more goes in front
    // of a string that starts with one, so it reads back whole (engine-checked in
    // tests/engine_divergences.rs).
    let bytes = to_vec("\u{feff}x").unwrap();
    assert_eq!(
        bytes,
        [4, 0, 0, 0, 7, 0, 0, 0, 0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, b'x', 0]
    );
    assert_eq!(from_slice::<String>(&bytes).unwrap(), "\u{feff}x");
    let pool = to_vec(&PoolStringArray(vec!["\u{feff}".into()])).unwrap();
    assert_eq!(
        from_slice::<PoolStringArray>(&pool).unwrap().0,
        ["\u{feff}"]
    );
}

#[derive(Deserialize)]
struct Borrowed<'a> {
    name: &'a str,
    #[serde(borrow)]
    cow: Cow<'a, str>,
    #[serde(with = "serde_bytes")]
    blob: &'a [u8],
    #[serde(borrow, with = "godot_bin::pool::string")]
    tags: Vec<&'a str>,
}

#[test]
fn zero_copy_from_slices() {
    #[derive(Serialize)]
    struct Owned {
        name: String,
        cow: String,
        #[serde(with = "serde_bytes")]
        blob: Vec<u8>,
        tags: PoolStringArray,
    }
    let bytes = to_vec(&Owned {
        name: "hero".into(),
        cow: "c".into(),
        blob: vec![1, 2, 3],
        tags: PoolStringArray(vec!["a".into(), "bc".into()]),
    })
    .unwrap();
    let b: Borrowed = from_slice(&bytes).unwrap();
    let range = bytes.as_ptr_range();
    for p in [
        b.name.as_ptr(),
        b.blob.as_ptr(),
        b.tags[0].as_ptr(),
        b.tags[1].as_ptr(),
    ] {
        assert!(range.contains(&p), "not borrowed from the input");
    }
    assert!(matches!(b.cow, Cow::Borrowed("c")));
    assert_eq!(
        (b.name, b.blob, b.tags),
        ("hero", &[1u8, 2, 3][..], vec!["a", "bc"])
    );
}

#[test]
fn pool_with_modules_and_arrays() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Pools {
        #[serde(with = "godot_bin::pool::int")]
        ints: Vec<i32>,
        #[serde(with = "godot_bin::pool::byte")]
        bytes: Vec<u8>,
        #[serde(with = "godot_bin::pool::vector2")]
        v2: Vec<Vector2>,
        #[serde(with = "godot_bin::pool::vector3")]
        v3: Vec<Vector3>,
        #[serde(with = "godot_bin::pool::color")]
        colors: Vec<Color>,
        #[serde(with = "godot_bin::pool::string")]
        strings: Vec<String>,
    }
    let p = Pools {
        ints: vec![1, -1],
        bytes: vec![9; 5],
        v2: vec![Vector2::new(1.0, 2.0)],
        v3: vec![Vector3::new(1.0, 2.0, 3.0)],
        colors: vec![Color::new(1.0, 0.0, 0.0, 1.0)],
        strings: vec!["x".into()],
    };
    let v = as_variant(&p);
    let d = v.as_dictionary().unwrap();
    let types: Vec<_> = d.values().map(Variant::get_type).collect();
    assert_eq!(
        types,
        [
            VariantType::PoolIntArray,
            VariantType::PoolByteArray,
            VariantType::PoolVector2Array,
            VariantType::PoolVector3Array,
            VariantType::PoolColorArray,
            VariantType::PoolStringArray
        ]
    );
    assert_eq!(from_slice::<Pools>(&to_vec(&p).unwrap()).unwrap(), p);
    // Plain Vec fields read pool arrays element by element, and pool fields read Arrays.
    #[derive(Deserialize, PartialEq, Debug)]
    struct Plain {
        ints: Vec<i64>,
        bytes: Vec<u8>,
        v2: Vec<Vector2>,
        v3: Vec<(f32, f32, f32)>,
        colors: Vec<Color>,
        strings: Vec<String>,
    }
    let plain: Plain = from_slice(&to_vec(&p).unwrap()).unwrap();
    assert_eq!(plain.ints, [1, -1]);
    assert_eq!(plain.bytes, [9; 5]);
    assert_eq!(plain.v3, [(1.0, 2.0, 3.0)]);
    let ints: PoolIntArray = from_slice(&to_vec(&vec![1, 2]).unwrap()).unwrap();
    assert_eq!(ints.0, [1, 2]);
}

#[test]
fn pool_elements_are_checked() {
    #[derive(Serialize)]
    struct Bad(#[serde(with = "godot_bin::pool::int")] Vec<i64>);
    let err = to_vec(&Bad(vec![1 << 40])).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IntOutOfRange(..)));
    #[derive(Serialize)]
    struct Lossy(#[serde(with = "godot_bin::pool::real")] Vec<f64>);
    let err = to_vec(&Lossy(vec![0.1])).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)));
    assert!(to_vec(&Lossy(vec![0.5])).is_ok());
}

#[test]
fn trailing_bytes_and_take_from_slice() {
    let mut bytes = to_vec(&42).unwrap();
    bytes.extend(to_vec("x").unwrap());
    let err = from_slice::<i32>(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TrailingBytes));
    assert_eq!(err.offset(), Some(8));
    let (n, used): (i32, usize) = take_from_slice(&bytes).unwrap();
    assert_eq!((n, used), (42, 8));
    let (x, used2): (String, usize) = take_from_slice(&bytes[used..]).unwrap();
    assert_eq!((x.as_str(), used + used2), ("x", bytes.len()));
    let err = from_reader::<_, i32>(&bytes[..]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TrailingBytes));
    assert_eq!(from_reader::<_, i32>(&bytes[..8]).unwrap(), 42);
}

#[test]
fn to_writer_matches_to_vec() {
    let p = Player {
        name: "W".into(),
        hp: -1,
        pos: Vector2::default(),
    };
    let mut out = Vec::new();
    to_writer(&mut out, &p).unwrap();
    assert_eq!(out, to_vec(&p).unwrap());
}

#[test]
fn wrong_types_name_both_sides() {
    let err = from_slice::<Vector2>(&to_vec(&Vector3::new(1.0, 2.0, 3.0)).unwrap()).unwrap_err();
    match err.kind() {
        ErrorKind::InvalidType { found, expected } => {
            assert_eq!((found.as_str(), expected.as_str()), ("Vector3", "Vector2"))
        }
        k => panic!("{k:?}"),
    }
    let err = from_slice::<String>(&to_vec(&5).unwrap()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidType { .. }), "{err}");
    assert_eq!(err.offset(), Some(0));
    // Inside a container, the offset points at the bad element.
    let err = from_slice::<Vec<i32>>(&to_vec(&(1, "x")).unwrap()).unwrap_err();
    assert_eq!(err.offset(), Some(16));
}

#[test]
fn tuple_length_mismatch_is_an_error() {
    let err = from_slice::<(i32, i32)>(&to_vec(&(1, 2, 3)).unwrap()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidLength { len: 1, .. }),
        "{err}"
    );
}

#[test]
fn other_formats_see_plain_shapes() {
    let p = Player {
        name: "J".into(),
        hp: 1,
        pos: Vector2::new(1.0, 2.0),
    };
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        r#"{"name":"J","hp":1,"pos":[1.0,2.0]}"#
    );
    assert_eq!(
        serde_json::from_str::<Player>(r#"{"name":"J","hp":1,"pos":[1.0,2.0]}"#).unwrap(),
        p
    );
    assert_eq!(
        serde_json::to_string(&NodePath::from("/root/a:b")).unwrap(),
        r#""/root/a:b""#
    );
    assert_eq!(
        serde_json::to_string(&PoolIntArray(vec![1, 2])).unwrap(),
        "[1,2]"
    );
    let v: Variant = serde_json::from_str(r#"{"a":[1,2.5,"x",null,true]}"#).unwrap();
    assert_eq!(
        v,
        dict([(
            s("a"),
            Variant::Array(vec![
                1.into(),
                2.5f64.into(),
                s("x"),
                Variant::Nil,
                true.into()
            ])
        )])
    );
    let back: Player = bincode::deserialize(&bincode::serialize(&p).unwrap()).unwrap();
    assert_eq!(back, p);
    // And Godot bytes read into serde_json's Value by shape.
    let j: serde_json::Value = from_slice(&to_vec(&p).unwrap()).unwrap();
    assert_eq!(
        j,
        serde_json::json!({"name": "J", "hp": 1, "pos": [1.0, 2.0]})
    );
}

/// The engine reads a full Object whose class name is empty as a null Object and
/// stops there (`marshalls.cpp`), so what follows would be read as the next value:
/// such an Object cannot be written.
#[test]
fn an_object_without_a_class_name_cannot_be_written() {
    let obj = Object {
        class: String::new(),
        properties: vec![],
    };
    for dialect in [Dialect::Godot3, Dialect::Godot4] {
        let cfg = Config::new().dialect(dialect);
        for r in [
            cfg.to_vec(&obj),
            cfg.to_vec(&Variant::Object(Box::new(obj.clone()))),
        ] {
            assert!(matches!(
                r.unwrap_err().kind(),
                ErrorKind::Unrepresentable(_)
            ));
        }
        assert!(cfg.to_variant(&obj).is_err());
    }
    // A one-letter class is written, and reads back.
    let named = Object {
        class: "A".into(),
        properties: vec![],
    };
    let cfg = Config::new().allow_objects(true);
    assert_eq!(
        cfg.from_slice::<Object>(&cfg.to_vec(&named).unwrap())
            .unwrap(),
        named
    );
}

#[test]
fn objects_are_refused_unless_allowed() {
    let obj = Object {
        class: "Reference".into(),
        properties: vec![("script".into(), Variant::Nil)],
    };
    let bytes = to_vec(&obj).unwrap();
    let err = from_slice::<Variant>(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::ObjectsNotAllowed));
    assert_eq!(err.offset(), Some(0));
    let cfg = Config::new().allow_objects(true);
    assert_eq!(
        cfg.from_slice::<Variant>(&bytes).unwrap(),
        Variant::from(obj.clone())
    );
    assert_eq!(cfg.from_slice::<Object>(&bytes).unwrap(), obj);
    // Instance ids are always allowed; id 0 is null.
    let id = to_vec(&Variant::ObjectId(1288)).unwrap();
    assert_eq!(from_slice::<Variant>(&id).unwrap(), Variant::ObjectId(1288));
}

#[test]
fn encode_objects_false_refuses_a_full_object_at_any_depth() {
    let obj = Object {
        class: "Reference".into(),
        properties: vec![("script".into(), Variant::Nil)],
    };
    #[derive(Serialize)]
    struct Holder {
        hp: i32,
        thing: Object,
    }
    let mut dict = Dictionary::new();
    dict.insert(
        Variant::from("k"),
        Variant::Array(vec![Variant::from(obj.clone())]),
    );
    let keyed = BTreeMap::from([(1, Variant::Array(vec![])), (2, Variant::from(obj.clone()))]);
    let deep = Variant::Array(vec![Variant::Int(1), Variant::Dictionary(dict)]);
    let holder = Holder {
        hp: 3,
        thing: obj.clone(),
    };
    for dialect in [Dialect::Godot3, Dialect::Godot4] {
        let cfg = Config::new().dialect(dialect);
        let refusing = cfg.encode_objects(false);
        let refused = [
            refusing.to_vec(&obj),
            refusing.to_vec(&Variant::from(obj.clone())),
            refusing.to_vec(&deep),
            refusing.to_vec(&keyed),
            refusing.to_vec(&holder),
        ];
        for r in refused {
            assert!(matches!(
                r.unwrap_err().kind(),
                ErrorKind::ObjectsNotAllowed
            ));
        }
        // By default they are written; an instance id and values without objects are
        // written the same either way.
        assert!(cfg.to_vec(&deep).is_ok());
        assert!(cfg.to_vec(&holder).is_ok());
        let plain = Variant::Array(vec![Variant::ObjectId(1288), Variant::from("x")]);
        assert_eq!(
            refusing.to_vec(&plain).unwrap(),
            cfg.to_vec(&plain).unwrap()
        );
        let mut out = Vec::new();
        assert!(matches!(
            refusing.to_writer(&mut out, &deep).unwrap_err().kind(),
            ErrorKind::ObjectsNotAllowed
        ));
    }
}

#[test]
fn depth_limit_both_ways() {
    let mut v = Variant::Array(vec![]);
    for _ in 0..DEFAULT_MAX_DEPTH {
        v = Variant::Array(vec![v]);
    }
    // DEFAULT_MAX_DEPTH + 1 nested arrays: the innermost (empty) one sits at the limit.
    let bytes = to_vec(&v).unwrap();
    assert!(from_slice::<Variant>(&bytes).is_ok());
    let deeper = Variant::Array(vec![v]);
    let err = to_vec(&deeper).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::DepthLimit(DEFAULT_MAX_DEPTH)
    ));
    let bytes = Config::new()
        .max_depth(DEFAULT_MAX_DEPTH + 1)
        .to_vec(&deeper)
        .unwrap();
    let err = from_slice::<Variant>(&bytes).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::DepthLimit(DEFAULT_MAX_DEPTH)
    ));
    assert_eq!(err.offset(), Some(8 * DEFAULT_MAX_DEPTH));
}

/// `from_variant` counts a container as one level, as `from_slice` does: Arrays,
/// Dictionaries and Godot 4 typed Arrays nested to the limit read, one deeper fails.
#[test]
fn from_variant_nests_to_the_same_depth_as_from_slice() {
    let g4 = Config::new().dialect(Dialect::Godot4);
    type Nest = fn(Variant) -> Variant;
    let nests: [(&str, Nest); 3] = [
        ("Array", |v| Variant::Array(vec![v])),
        ("Dictionary", |v| {
            let mut d = Dictionary::new();
            d.insert(Variant::from("c"), v);
            Variant::Dictionary(d)
        }),
        ("typed Array", |v| {
            Variant::TypedArray(Box::new(TypedArray {
                element: ContainerType::Builtin(VariantType::Array),
                items: vec![v],
            }))
        }),
    ];
    for (what, nest) in nests {
        let mut v = Variant::Array(vec![]);
        for _ in 0..DEFAULT_MAX_DEPTH {
            v = nest(v);
        }
        let bytes = g4.to_vec(&v).unwrap();
        assert_eq!(g4.from_slice::<Variant>(&bytes).unwrap(), v, "{what}");
        assert_eq!(g4.from_variant::<Variant>(v.clone()).unwrap(), v, "{what}");
        let err = g4.from_variant::<Variant>(nest(v)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::DepthLimit(DEFAULT_MAX_DEPTH)),
            "{what}: {err}"
        );
    }
}

/// A key that is not text names no field or variant, from bytes or from a `Variant`:
/// a PoolByteArray key is refused both ways (its bytes are not taken as a name).
#[test]
fn from_variant_takes_field_names_as_from_slice_does() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct S {
        a: i32,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum En {
        A,
        B(i32),
    }
    for (key, text) in [
        (Variant::PoolByteArray(PoolByteArray(b"a".to_vec())), false),
        (Variant::from("a"), true),
    ] {
        let mut d = Dictionary::new();
        d.insert(key, Variant::Int(1));
        let v = Variant::Dictionary(d);
        let bytes = to_vec(&v).unwrap();
        assert_eq!(from_slice::<S>(&bytes).is_ok(), text, "{v:?}");
        assert_eq!(
            godot_bin::from_variant::<S>(v.clone()).is_ok(),
            text,
            "{v:?}"
        );
    }
    let mut d = Dictionary::new();
    d.insert(
        Variant::PoolByteArray(PoolByteArray(b"B".to_vec())),
        Variant::Int(1),
    );
    let v = Variant::Dictionary(d);
    assert!(from_slice::<En>(&to_vec(&v).unwrap()).is_err());
    assert!(godot_bin::from_variant::<En>(v).is_err());
}

#[test]
fn max_bytes_bounds_one_decode() {
    let bytes = to_vec(&vec!["x"; 100]).unwrap();
    let cfg = Config::new().max_bytes(64);
    let err = cfg.from_reader::<_, Vec<String>>(&bytes[..]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LimitExceeded(64)), "{err}");
    assert!(err.offset().is_some_and(|o| o <= 64));
    let err = cfg.from_slice::<Vec<String>>(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LimitExceeded(64)), "{err}");
    assert_eq!(
        Config::new()
            .max_bytes(bytes.len())
            .from_slice::<Vec<String>>(&bytes)
            .unwrap()
            .len(),
        100
    );
}

/// Typed containers name their element type as Godot 4 does, so other formats see a
/// stable form (not an enum discriminant that moves with declaration order).
#[test]
fn typed_containers_name_their_types_in_other_formats() {
    let a = Variant::TypedArray(Box::new(TypedArray {
        element: ContainerType::Builtin(VariantType::Quat),
        items: vec![Variant::Int(1)],
    }));
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        r#"[1,"Quaternion",[1]]"#
    );
    let d = Variant::TypedDictionary(Box::new(TypedDictionary {
        key: Some(ContainerType::Builtin(VariantType::String)),
        value: Some(ContainerType::Class("Node".into())),
        entries: Dictionary::new(),
    }));
    assert_eq!(
        serde_json::to_string(&d).unwrap(),
        r#"[1,"String",2,"Node",{}]"#
    );
    let back: TypedArray = serde_json::from_str(r#"[1,"PackedFloat32Array",[]]"#).unwrap();
    assert_eq!(
        back.element,
        ContainerType::Builtin(VariantType::PoolRealArray)
    );
    let err = serde_json::from_str::<TypedArray>(r#"[1,"Nope",[]]"#).unwrap_err();
    assert!(
        err.to_string().contains("\"Nope\" is not a Godot 4 type"),
        "{err}"
    );
}

/// A string field does not take a PoolByteArray as UTF-8 (serde's `String` would): a
/// string must not hold what a Godot string cannot. Found by the `decode_struct` fuzzer.
#[test]
fn strings_do_not_come_from_byte_arrays() {
    let bytes = to_vec(&PoolByteArray(vec![b'a', 0, b'b'])).unwrap();
    let err = from_slice::<String>(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidType { .. }), "{err}");
    assert_eq!(err.offset(), Some(0));
    let v: Variant = from_slice(&bytes).unwrap();
    assert!(godot_bin::from_variant::<String>(v).is_err());
    // Bytes still read as bytes.
    assert_eq!(
        from_slice::<serde_bytes::ByteBuf>(&bytes)
            .unwrap()
            .into_vec(),
        b"a\0b"
    );
}
