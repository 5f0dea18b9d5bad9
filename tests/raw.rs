//! The raw `StreamPeer` layout: packets the engines wrote (tests/fixtures/raw, from
//! tests/oracle/rawfacts*.gd), every error path with its offset, the layout switches,
//! zero-copy reads, and round trips of generated values.

mod common;
#[path = "common/peak.rs"]
mod peak;

#[path = "../examples/freeblox/protocol.rs"]
mod protocol;

use std::collections::BTreeMap;

use common::{hex, unhex};
use godot_bin::raw::{self, Config, Count, Half, Strings, Var, Width};
use godot_bin::{Dialect, ErrorKind, Quat, Variant, Vector3};
use protocol::Packet;
use quickcheck::{Arbitrary, Gen, QuickCheck};
use serde::{Deserialize, Serialize};

/// The packet `name` as engine `set` wrote it (tests/fixtures/raw/, from
/// scripts/gen-raw-fixtures.sh).
fn fixture(set: &str, name: &str) -> Vec<u8> {
    #[derive(Deserialize)]
    struct Line {
        name: String,
        hex: String,
    }
    let path = common::root().join(format!("tests/fixtures/raw/{set}.jsonl"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Line>(l).unwrap())
        .find(|l| l.name == name)
        .map(|l| unhex(&l.hex))
        .unwrap_or_else(|| panic!("no fixture {name} in {}", path.display()))
}

/// `value` encodes to the engine's bytes and decodes back to itself.
fn both_ways<T>(cfg: Config, value: &T, engine: &[u8])
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    assert_eq!(hex(&cfg.to_vec(value).unwrap()), hex(engine), "{value:?}");
    assert_eq!(&cfg.from_slice::<T>(engine).unwrap(), value);
}

#[test]
fn freeblox_packets_are_the_engines_bytes() {
    let cfg = protocol::config();
    // 0.7071068 in the GDScript: the f32 the engine stores for it.
    let h = f32::from_bits(0x3F35_04F4);
    let q = Quat::new(0.0, h, 0.0, h);
    let cases = [
        (
            "freeblox_auth",
            Packet::Auth {
                player: "3f2a-11".into(),
                token: "tok€n".into(),
                version: 7,
            },
        ),
        ("freeblox_keepalive", Packet::Keepalive),
        (
            "freeblox_stream_transform",
            Packet::StreamTransform {
                object: "obj-9".into(),
                position: Vector3::new(1.5, -2.0, 0.25),
                rotation: q,
                linear_velocity: Vector3::default(),
                angular_velocity: Vector3::new(0.0, 3.5, 0.0),
            },
        ),
        (
            "freeblox_player_list",
            Packet::PlayerList {
                players: vec![("p1".into(), "Ann".into()), ("p2".into(), "Bo".into())],
            },
        ),
        (
            "freeblox_player_movement",
            Packet::PlayerMovement {
                player: "p1".into(),
                linear_velocity: Vector3::new(1.0, 0.0, -1.0),
                look_at: Vector3::new(0.0, 1.0, 0.0),
                jump: true,
            },
        ),
        (
            "freeblox_stream_asset",
            Packet::StreamAsset {
                path: "res://a.png".into(),
                name: "a".into(),
                kind: "Texture".into(),
                data: vec![137, 80, 78, 71, 0, 255],
            },
        ),
        (
            "freeblox_error",
            Packet::Error {
                kind: "bad token".into(),
            },
        ),
    ];
    for (name, packet) in cases {
        both_ways(cfg, &packet, &fixture("godot4.6", name));
    }
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Ints(u8, i8, u16, i16, u32, i32, u64, i64);

#[test]
fn integers_in_both_byte_orders() {
    for set in ["godot3.6", "godot4.6"] {
        let le = Ints(255, -128, 65535, -2, u32::MAX, -3, u64::MAX, i64::MIN);
        both_ways(Config::new(), &le, &fixture(set, "ints_le"));
        let be = Ints(
            255,
            -128,
            258,
            -2,
            0x0102_0304,
            -3,
            0x0102_0304_0506_0708,
            -4,
        );
        both_ways(
            Config::new().big_endian(true),
            &be,
            &fixture(set, "ints_be"),
        );
    }
}

#[test]
fn floats_halves_and_vars_follow_the_byte_order_but_variant_bytes_do_not() {
    let be = Config::new().big_endian(true);
    both_ways(be, &(1.5f32, -0.1f64), &fixture("godot3.6", "floats_be"));
    both_ways(
        be,
        &(1.5f32, -0.1f64, Half::from_f32(1.5)),
        &fixture("godot4.6", "floats_be"),
    );
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Mixed {
        five: Var<i32>,
        utf8: String,
        #[serde(with = "raw::string3")]
        hi: String,
        x: Var<Variant>,
    }
    let mixed = Mixed {
        five: Var(5),
        utf8: "hé".into(),
        hi: "hi".into(),
        x: Var(Variant::String("x".into())),
    };
    for (set, dialect) in [("godot3.6", Dialect::Godot3), ("godot4.6", Dialect::Godot4)] {
        let cfg = be.variant(godot_bin::Config::new().dialect(dialect));
        both_ways(cfg, &mixed, &fixture(set, "var_and_strings_be"));
    }
}

#[test]
fn string_styles() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct G3(String, #[serde(with = "raw::string3")] String);
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct G4(String, #[serde(with = "raw::string4")] String);
    let (a, b) = ("hé€😀".to_string(), "hi!".to_string());
    both_ways(
        Config::new(),
        &G3(a.clone(), b.clone()),
        &fixture("godot3.6", "strings_le"),
    );
    both_ways(Config::new(), &G4(a, b), &fixture("godot4.6", "strings_le"));
    // Godot 3's put_string writes Latin-1 and cuts what is above (refused here);
    // Godot 4's writes a space for anything not ASCII (refused here, read as Latin-1).
    let g3 = Config::new().strings(Strings::Godot3);
    both_ways(
        g3,
        &"hé".to_string(),
        &fixture("godot3.6", "put_string_latin1"),
    );
    assert_eq!(
        fixture("godot3.6", "put_string_above_latin1"),
        unhex("0200000068ac")
    );
    let err = g3.to_vec("h€").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)), "{err}");
    let g4 = Config::new().strings(Strings::Godot4);
    let err = g4.to_vec("hé").unwrap_err();
    assert!(err.to_string().contains("writes a space"), "{err}");
    assert_eq!(
        g4.from_slice::<String>(&fixture("godot4.6", "put_string_non_ascii"))
            .unwrap(),
        "h "
    );
    assert_eq!(
        g4.from_slice::<String>(&unhex("0200000068e9")).unwrap(),
        "hé"
    );
}

#[test]
fn halves_round_as_the_engine_does() {
    let bytes = fixture("godot4.6", "halves");
    let inputs = [
        1.5f32,
        0.1,
        65504.0,
        65519.0,
        65520.0,
        1e6,
        6.1e-5,
        3e-5,
        6e-8,
        -0.0,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let ours: Vec<Half> = inputs.iter().map(|&v| Half::from_f32(v)).collect();
    let tuple = raw::to_vec(&ours).unwrap();
    assert_eq!(hex(&tuple[4..]), hex(&bytes));
    let read: Vec<Half> = Config::new().count(Count::Rest).from_slice(&bytes).unwrap();
    let bits = |v: &[Half]| v.iter().map(|h| h.0.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&read), bits(&ours));
    // Other formats see the exact f32; only exact halves come back.
    assert_eq!(serde_json::to_string(&Half::from_f32(1.5)).unwrap(), "1.5");
    assert!(serde_json::from_str::<Half>("1.5").is_ok());
    assert!(serde_json::from_str::<Half>("0.1").is_err());
}

#[test]
fn vars_hold_any_type_in_the_dialect() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Two(Var<Vector3>, Var<(i32, String)>);
    let v = Two(Var(Vector3::new(1.0, 2.0, 3.0)), Var((1, "a".into())));
    for (set, dialect) in [("godot3.6", Dialect::Godot3), ("godot4.6", Dialect::Godot4)] {
        let cfg = Config::new().variant(godot_bin::Config::new().dialect(dialect));
        both_ways(cfg, &v, &fixture(set, "vars"));
    }
    // JSON sees the value itself.
    assert_eq!(serde_json::to_string(&Var(5)).unwrap(), "5");
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Ids {
    #[serde(rename = "0")]
    Hello,
    #[serde(rename = "1")]
    Bye(u8),
    #[serde(rename = "5")]
    Move { x: f32 },
    #[serde(rename = "17")]
    Error(String),
}

#[test]
fn variant_names_that_are_numbers_are_the_ids() {
    let cfg = Config::new();
    assert_eq!(cfg.to_vec(&Ids::Hello).unwrap(), [0]);
    assert_eq!(cfg.to_vec(&Ids::Bye(9)).unwrap(), [1, 9]);
    assert_eq!(
        cfg.to_vec(&Ids::Move { x: 1.0 }).unwrap(),
        [5, 0, 0, 0x80, 0x3F]
    );
    let e = Ids::Error("no".into());
    let bytes = cfg.to_vec(&e).unwrap();
    assert_eq!(bytes, [17, 2, 0, 0, 0, b'n', b'o']);
    assert_eq!(cfg.from_slice::<Ids>(&bytes).unwrap(), e);
    let err = cfg.from_slice::<Ids>(&[3]).unwrap_err();
    assert_eq!(err.offset(), Some(0));
    assert!(err.to_string().contains("variant id 3"), "{err}");
    assert!(err.to_string().contains("0, 1, 5, 17"), "{err}");
    // Wider ids, in the stream's byte order.
    let cfg16 = Config::new().tag(Width::U16).big_endian(true);
    assert_eq!(
        cfg16.to_vec(&Ids::Error(String::new())).unwrap(),
        [0, 17, 0, 0, 0, 0]
    );
    let cfg32 = Config::new().tag(Width::U32);
    assert_eq!(
        cfg32.from_slice::<Ids>(&[5, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
        Ids::Move { x: 0.0 }
    );
}

#[test]
fn fields_change_the_layout_of_what_they_hold() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Fields {
        #[serde(with = "raw::str0")]
        names: Vec<String>,
        #[serde(with = "raw::count8")]
        small: Vec<u16>,
        #[serde(with = "raw::tag16")]
        id: Ids,
        #[serde(with = "raw::count16")]
        map: BTreeMap<u8, bool>,
        #[serde(with = "raw::rest")]
        tail: Vec<u8>,
    }
    let v = Fields {
        names: vec!["a".into(), "bc".into()],
        small: vec![1, 2],
        id: Ids::Hello,
        map: [(7, true)].into_iter().collect(),
        tail: vec![9, 8],
    };
    let bytes = raw::to_vec(&v).unwrap();
    assert_eq!(
        hex(&bytes),
        "02000000\
         6100\
         626300\
         02 0100 0200\
         0000\
         0100 07 01\
         0908"
            .replace(' ', "")
    );
    assert_eq!(raw::from_slice::<Fields>(&bytes).unwrap(), v);
    // Other formats see the fields unchanged.
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["names"], serde_json::json!(["a", "bc"]));
    assert_eq!(json["tail"], serde_json::json!([9, 8]));
}

#[test]
fn strings_and_bytes_borrow_from_the_input() {
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        #[serde(borrow, with = "raw::str0")]
        a: &'a str,
        b: &'a str,
        #[serde(borrow)]
        c: &'a serde_bytes::Bytes,
    }
    let input = b"xy\0\x02\0\0\0hi\x01\0\0\0\xff";
    let v: Borrowed = raw::from_slice(input).unwrap();
    assert_eq!((v.a, v.b, v.c.as_ref()), ("xy", "hi", &[0xFF][..]));
    let range = input.as_ptr_range();
    for p in [v.a.as_ptr(), v.b.as_ptr(), v.c.as_ptr()] {
        assert!(range.contains(&p), "a copy, not a borrow");
    }
}

#[test]
fn writers_readers_and_prefixes() {
    let p = Packet::PlayerJoin {
        player: "p".into(),
        name: "n".into(),
    };
    let cfg = protocol::config();
    let bytes = cfg.to_vec(&p).unwrap();
    let mut w = Vec::new();
    cfg.to_writer(&mut w, &p).unwrap();
    assert_eq!(w, bytes);
    assert_eq!(cfg.from_reader::<_, Packet>(&bytes[..]).unwrap(), p);
    let mut two = bytes.clone();
    two.extend_from_slice(&bytes);
    let (first, used) = cfg.take_from_slice::<Packet>(&two).unwrap();
    assert_eq!((first, used), (p.clone(), bytes.len()));
    let mut out = vec![1, 2];
    assert_eq!(cfg.to_vec_into(&p, &mut out).unwrap(), bytes.len());
    assert_eq!(out[2..], bytes[..]);
    // On error the buffer keeps what it held.
    let bad = Packet::Error {
        kind: "a\0b".into(),
    };
    assert!(cfg.to_vec_into(&bad, &mut out).is_err());
    assert_eq!(out.len(), 2 + bytes.len());
}

/// The error kind and offset of decoding `bytes` as `T`.
fn fails<T: for<'de> Deserialize<'de> + std::fmt::Debug>(
    cfg: Config,
    bytes: &[u8],
) -> (ErrorKind, Option<usize>) {
    let err = cfg.from_slice::<T>(bytes).unwrap_err();
    let offset = err.offset();
    (err.into_kind(), offset)
}

#[test]
fn hostile_input_gets_errors_with_offsets() {
    let cfg = protocol::config();
    // Truncated in a field (a Vector3, read whole: at its start), and trailing bytes.
    let (kind, at) = fails::<Packet>(cfg, &unhex("0e7031000000803f"));
    assert!(matches!(kind, ErrorKind::Eof(_)), "{kind:?}");
    assert_eq!(at, Some(4));
    let (kind, at) = fails::<(u8, u32)>(cfg, &unhex("0e7031"));
    assert!(matches!(kind, ErrorKind::Eof(_)), "{kind:?}");
    assert_eq!(at, Some(1));
    let mut long = cfg.to_vec(&Packet::Keepalive).unwrap();
    long.push(0);
    assert!(matches!(
        fails::<Packet>(cfg, &long),
        (ErrorKind::TrailingBytes, Some(1))
    ));
    // A string without its NUL.
    let (kind, at) = fails::<Packet>(cfg, b"\x05abc");
    assert!(
        matches!(kind, ErrorKind::Eof(w) if w.contains("NUL")),
        "{kind:?}"
    );
    assert_eq!(at, Some(1));
    // Invalid UTF-8, at the bad byte.
    let (kind, at) = fails::<Packet>(cfg, b"\x05ab\xff\0");
    assert!(matches!((kind, at), (ErrorKind::InvalidUtf8, Some(3))));
    let (kind, at) = fails::<String>(Config::new(), b"\x03\0\0\0a\xc3(");
    assert!(matches!((kind, at), (ErrorKind::InvalidUtf8, Some(5))));
    // An unknown packet id.
    let (kind, at) = fails::<Packet>(cfg, &[18]);
    assert!(matches!(kind, ErrorKind::InvalidValue { .. }), "{kind:?}");
    assert_eq!(at, Some(0));
    // A bool that is neither 0 nor 1, a bad Option flag, a bad char.
    let mut moving = cfg
        .to_vec(&Packet::PlayerMovement {
            player: "p".into(),
            linear_velocity: Vector3::default(),
            look_at: Vector3::default(),
            jump: true,
        })
        .unwrap();
    *moving.last_mut().unwrap() = 2;
    let (kind, at) = fails::<Packet>(cfg, &moving);
    assert!(matches!(kind, ErrorKind::InvalidValue { .. }), "{kind:?}");
    assert_eq!(at, Some(27));
    assert!(matches!(
        fails::<Option<u8>>(cfg, &[2, 0]).0,
        ErrorKind::InvalidValue { .. }
    ));
    assert!(matches!(
        fails::<char>(cfg, &[0, 0xD8, 0, 0]).0,
        ErrorKind::InvalidValue { .. }
    ));
    // Lengths and counts beyond the input are refused before anything is allocated.
    let (kind, at) = fails::<Packet>(cfg, &unhex("0affffffff"));
    assert!(
        matches!(
            kind,
            ErrorKind::Truncated {
                count: 0xFFFF_FFFF,
                left: 0,
                ..
            }
        ),
        "{kind:?}"
    );
    assert_eq!(at, Some(1));
    let (kind, _) = fails::<String>(Config::new(), &unhex("ffffff7f41"));
    assert!(
        matches!(kind, ErrorKind::Truncated { left: 1, .. }),
        "{kind:?}"
    );
    let (kind, _) = fails::<Var<Variant>>(Config::new(), &unhex("ffffffff"));
    assert!(matches!(kind, ErrorKind::Truncated { .. }), "{kind:?}");
    // Inside a put_var: the Variant's own errors, at their place in the packet, and
    // bytes the Variant leaves over.
    let (kind, at) = fails::<(u8, Var<Variant>)>(
        Config::new(),
        &unhex(&"07 06000000 02000000 0500".replace(' ', "")),
    );
    assert!(matches!(kind, ErrorKind::Eof(_)), "{kind:?}");
    assert_eq!(at, Some(9));
    let (kind, at) = fails::<Var<i32>>(Config::new(), &unhex("0900000002000000050000000a"));
    assert!(matches!((kind, at), (ErrorKind::TrailingBytes, Some(12))));
    // The layout is not self-describing.
    let (kind, _) = fails::<serde::de::IgnoredAny>(cfg, &[0]);
    assert!(matches!(kind, ErrorKind::Message(m) if m.contains("self-describing")));
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Tree {
    Leaf,
    Node(Box<Tree>),
}

#[test]
fn recursive_types_stop_at_the_depth_limit() {
    let deep = vec![1u8; 100_000];
    let (kind, _) = fails::<Tree>(Config::new(), &deep);
    assert!(
        matches!(kind, ErrorKind::DepthLimit(godot_bin::DEFAULT_MAX_DEPTH)),
        "{kind:?}"
    );
    let mut ok = vec![1u8; 50];
    ok.push(0);
    assert!(Config::new().from_slice::<Tree>(&ok).is_ok());
}

#[test]
fn zero_byte_items_cannot_spin() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Units(#[serde(with = "raw::rest")] Vec<()>);
    let (kind, _) = fails::<Units>(Config::new(), &[1]);
    assert!(matches!(kind, ErrorKind::Message(m) if m.contains("no bytes")));
    // A count of zero-byte items above the bytes left is refused too.
    let (kind, _) = fails::<Vec<()>>(Config::new(), &[5, 0, 0, 0]);
    assert!(matches!(kind, ErrorKind::Truncated { .. }), "{kind:?}");
}

#[test]
fn what_the_layout_cannot_carry_is_refused() {
    let cfg = Config::new();
    let no = |r: godot_bin::Result<Vec<u8>>| r.unwrap_err().into_kind();
    assert!(matches!(
        no(cfg.to_vec(&1u128)),
        ErrorKind::Unrepresentable(_)
    ));
    assert!(matches!(
        no(cfg.to_vec("a\0b")),
        ErrorKind::Unrepresentable(_)
    ));
    assert!(matches!(
        no(cfg.count(Count::U8).to_vec(&vec![0u8; 256])),
        ErrorKind::UintOutOfRange(256, _)
    ));
    assert_eq!(
        cfg.count(Count::U8).to_vec(&vec![0u8; 255]).unwrap().len(),
        256
    );
    #[derive(Serialize)]
    enum Big {
        #[serde(rename = "300")]
        Id,
    }
    assert!(matches!(
        no(cfg.to_vec(&Big::Id)),
        ErrorKind::UintOutOfRange(300, _)
    ));
    assert_eq!(cfg.tag(Width::U16).to_vec(&Big::Id).unwrap(), [44, 1]);
    #[derive(Serialize)]
    struct Skips {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<u8>,
    }
    assert!(matches!(
        no(cfg.to_vec(&Skips { a: None })),
        ErrorKind::Message(_)
    ));
    struct Unsized;
    impl Serialize for Unsized {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq((0..3u8).filter(|_| true))
        }
    }
    assert!(matches!(no(cfg.to_vec(&Unsized)), ErrorKind::Message(_)));
    assert_eq!(cfg.count(Count::Rest).to_vec(&Unsized).unwrap(), [0, 1, 2]);
}

impl Arbitrary for Packet {
    fn arbitrary(g: &mut Gen) -> Packet {
        let s = |g: &mut Gen| String::arbitrary(g).replace('\0', "");
        let f = |g: &mut Gen| f32::arbitrary(g);
        let v = |g: &mut Gen| Vector3::new(f32::arbitrary(g), f32::arbitrary(g), f32::arbitrary(g));
        match u8::arbitrary(g) % 18 {
            0 => Packet::Auth {
                player: s(g),
                token: s(g),
                version: u8::arbitrary(g),
            },
            1 => Packet::Keepalive,
            2 => Packet::StreamStart { world: s(g) },
            3 => Packet::StreamAsset {
                path: s(g),
                name: s(g),
                kind: s(g),
                data: Vec::arbitrary(g),
            },
            4 => Packet::StreamObject {
                object: s(g),
                parent: s(g),
                kind: s(g),
                data: s(g),
            },
            5 => Packet::StreamDestroy { object: s(g) },
            6 => Packet::StreamEvent {
                object: s(g),
                event: s(g),
                data: s(g),
            },
            7 => Packet::StreamFinish { world: s(g) },
            8 => Packet::StreamTransform {
                object: s(g),
                position: v(g),
                rotation: Quat::new(f(g), f(g), f(g), f(g)),
                linear_velocity: v(g),
                angular_velocity: v(g),
            },
            9 => Packet::StreamChat {
                player: s(g),
                kind: s(g),
                message: s(g),
            },
            10 => Packet::PlayerList {
                players: (0..u8::arbitrary(g) % 5).map(|_| (s(g), s(g))).collect(),
            },
            11 => Packet::PlayerJoin {
                player: s(g),
                name: s(g),
            },
            12 => Packet::PlayerQuit {
                player: s(g),
                name: s(g),
                reason: s(g),
            },
            13 => Packet::PlayerCharacter {
                player: s(g),
                name: s(g),
                position: v(g),
                rotation: Quat::new(f(g), f(g), f(g), f(g)),
                character: s(g),
                customization: s(g),
            },
            14 => Packet::PlayerMovement {
                player: s(g),
                linear_velocity: v(g),
                look_at: v(g),
                jump: bool::arbitrary(g),
            },
            15 => Packet::PlayerChat {
                player: s(g),
                kind: s(g),
                message: s(g),
            },
            16 => Packet::PlayerEvent {
                player: s(g),
                object: s(g),
                event: s(g),
                data: s(g),
            },
            _ => Packet::Error { kind: s(g) },
        }
    }
}

#[test]
fn packets_round_trip() {
    fn prop(p: Packet, big: bool) -> bool {
        let cfg = protocol::config().big_endian(big);
        let bytes = cfg.to_vec(&p).unwrap();
        // Compared as bytes: NaN floats are not equal to themselves.
        let back: Packet = cfg.from_slice(&bytes).unwrap();
        cfg.to_vec(&back).unwrap() == bytes && format!("{back:?}") == format!("{p:?}")
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Packet, bool) -> bool);
}

/// `to_vec` and its siblings compile the common settings in (`raw::Known`); a
/// `Serializer` made with `new` reads them as it runs. Both write the same bytes, and
/// so does a writer that is no `Vec` (which takes math values a float at a time).
#[test]
fn settings_known_at_compile_time_write_what_runtime_ones_write() {
    fn prop(p: Packet, nul: bool, big: bool) -> bool {
        let strings = if nul { Strings::Nul } else { Strings::Utf8 };
        let cfg = Config::new().strings(strings).big_endian(big);
        let known = match cfg.to_vec(&p) {
            Ok(b) => b,
            // Only a NUL inside a string (or a string too long) fails: at run time too.
            Err(_) => {
                let mut out = Vec::new();
                return p
                    .serialize(&mut raw::Serializer::new(&mut out, cfg))
                    .is_err();
            }
        };
        let mut runtime = Vec::new();
        p.serialize(&mut raw::Serializer::new(&mut runtime, cfg))
            .unwrap();
        let mut written = Vec::new();
        cfg.to_writer(std::io::Cursor::new(&mut written), &p)
            .unwrap();
        known == runtime && known == written
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Packet, bool, bool) -> bool);
}

/// What one read gives: the value's bytes written back and its Debug text (NaN floats
/// are not equal to themselves), or the error's text (offset included) and kind.
fn outcome<T: Serialize + std::fmt::Debug>(cfg: Config, r: godot_bin::Result<T>) -> String {
    match r {
        Ok(v) => format!("{v:?} {:?}", cfg.to_vec(&v).map(|b| hex(&b))),
        Err(e) => format!("error {e} {:?}", e.kind()),
    }
}

/// `from_slice` and its siblings compile the common settings in (`raw::Known`); a
/// `Deserializer` made with `from_slice` reads them as it runs. Both read the same
/// value from the same bytes, or fail with the same error at the same offset: on
/// encoded packets, on those bytes cut or with a byte changed, and on packets whose
/// fields carry their own settings (which the compiled reader hands to a run-time one).
#[test]
fn settings_known_at_compile_time_read_what_runtime_ones_read() {
    #[derive(Serialize, Deserialize, Debug)]
    struct Own {
        #[serde(with = "raw::utf8")]
        utf8: String,
        #[serde(with = "raw::str0")]
        names: Vec<String>,
        #[serde(with = "raw::tag16")]
        id: Ids,
        #[serde(with = "raw::count8")]
        pairs: Vec<(Half, Vector3)>,
        after: Option<(String, Quat)>,
        #[serde(with = "raw::rest")]
        tail: Vec<u8>,
    }
    fn same<T>(cfg: Config, bytes: &[u8]) -> bool
    where
        T: Serialize + for<'de> Deserialize<'de> + std::fmt::Debug,
    {
        let known = outcome(cfg, cfg.from_slice::<T>(bytes));
        let mut de = raw::Deserializer::from_slice(bytes, cfg);
        let runtime = T::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
        let runtime = outcome(cfg, runtime);
        known == runtime
    }
    fn prop(p: Packet, names: Vec<String>, nul: bool, big: bool, cut: u16, flip: u16) -> bool {
        let strings = if nul { Strings::Nul } else { Strings::Utf8 };
        let cfg = Config::new().strings(strings).big_endian(big);
        let names: Vec<String> = names.into_iter().map(|n| n.replace('\0', "")).collect();
        let own = Own {
            utf8: names.concat(),
            names: names.clone(),
            id: Ids::Move { x: 1.5 },
            pairs: vec![(Half::from_f32(0.5), Vector3::new(1.0, -2.0, 3.0))],
            after: names
                .first()
                .map(|n| (n.clone(), Quat::new(0.0, 0.5, 0.0, 0.866))),
            tail: vec![7, 8],
        };
        let mut cases = Vec::new();
        for bytes in [cfg.to_vec(&p), cfg.to_vec(&own)].into_iter().flatten() {
            let mut flipped = bytes.clone();
            if !flipped.is_empty() {
                let i = usize::from(flip) % flipped.len();
                flipped[i] ^= 1 << (flip % 8);
            }
            let cut = bytes[..usize::from(cut) % (bytes.len() + 1)].to_vec();
            cases.extend([bytes, flipped, cut]);
        }
        cases
            .iter()
            .all(|b| same::<Packet>(cfg, b) && same::<Own>(cfg, b))
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Packet, Vec<String>, bool, bool, u16, u16) -> bool);
}

/// A field with its own settings goes on at run time, on the same output: what it
/// writes still counts for the item that holds it.
#[test]
fn items_made_only_of_fields_with_their_own_settings_count() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Name(#[serde(with = "raw::str0")] String);
    let names = vec![Name("a".into()), Name("bc".into())];
    for cfg in [Config::new(), Config::new().big_endian(true)] {
        let bytes = cfg.to_vec(&names).unwrap();
        let count = if cfg == Config::new() {
            "02000000"
        } else {
            "00000002"
        };
        assert_eq!(hex(&bytes), format!("{count}6100626300"));
        assert_eq!(cfg.from_slice::<Vec<Name>>(&bytes).unwrap(), names);
    }
}

#[test]
fn every_string_style_round_trips() {
    fn prop(s: String, big: bool) -> bool {
        let s = s.replace('\0', "");
        [
            Strings::Utf8,
            Strings::Nul,
            Strings::Godot3,
            Strings::Godot4,
        ]
        .into_iter()
        .all(|style| {
            let cfg = Config::new().strings(style).big_endian(big);
            match cfg.to_vec(&s) {
                Ok(bytes) => cfg.from_slice::<String>(&bytes).unwrap() == s,
                // Only what the engine's put_string cannot write.
                Err(_) => match style {
                    Strings::Godot3 => s.chars().any(|c| u32::from(c) > 0xFF),
                    Strings::Godot4 => !s.is_ascii(),
                    _ => false,
                },
            }
        })
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(String, bool) -> bool);
}

/// Over TCP, raw packets travel in the crate's length-prefixed frames (here
/// `PacketPeerStream`'s): `Framing::prefix` writes them, `VarReader::next_frame` cuts
/// them, and each frame is one raw packet.
#[test]
fn raw_packets_in_length_prefixed_frames() {
    use godot_bin::framing::{Framing, VarReader};
    let cfg = protocol::config();
    let packets = [
        Packet::Keepalive,
        Packet::PlayerJoin {
            player: "p".into(),
            name: "Ann".into(),
        },
        Packet::StreamAsset {
            path: "a".into(),
            name: "b".into(),
            kind: "Mesh".into(),
            data: vec![1, 2, 3],
        },
    ];
    let mut stream = Vec::new();
    for p in &packets {
        let bytes = cfg.to_vec(p).unwrap();
        stream.extend_from_slice(&Framing::PacketPeerStream.prefix(bytes.len()).unwrap());
        stream.extend_from_slice(&bytes);
    }
    let mut reader = VarReader::new(&stream[..], Framing::PacketPeerStream);
    let mut got = Vec::new();
    while let Some(frame) = reader.next_frame().unwrap() {
        got.push(cfg.from_slice::<Packet>(frame).unwrap());
    }
    assert_eq!(got, packets);
}

/// `to_vec` takes math values in one piece; `to_writer` (any `io::Write`) field by
/// field. Both give the same floats, in either byte order, for every math type.
#[test]
fn math_values_in_one_piece_match_field_by_field() {
    use godot_bin::{
        Aabb, Basis, Color, Plane, Projection, Rect2, Transform, Transform2D, Vector2, Vector4,
    };
    fn same<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
        v: T,
        n: usize,
    ) {
        for big in [false, true] {
            let cfg = Config::new().big_endian(big);
            let whole = cfg.to_vec(&v).unwrap();
            let mut parts = Vec::new();
            cfg.to_writer(std::io::Cursor::new(&mut parts), &v).unwrap();
            assert_eq!(whole, parts, "{v:?} big {big}");
            assert_eq!(whole.len(), 4 * n);
            assert_eq!(cfg.from_slice::<T>(&whole).unwrap(), v);
        }
    }
    let f = |i: usize| 1.5 + i as f32;
    same(Vector2::new(f(0), -f(1)), 2);
    same(Vector3::new(f(0), -f(1), f(2)), 3);
    same(Vector4::new(f(0), f(1), f(2), f(3)), 4);
    same(Quat::new(f(0), f(1), -f(2), f(3)), 4);
    same(Color::new(f(0), f(1), f(2), f(3)), 4);
    same(Rect2::new(f(0), f(1), f(2), f(3)), 4);
    same(Plane::new(f(0), f(1), f(2), f(3)), 4);
    same(
        Transform2D::new(
            Vector2::new(f(0), f(1)),
            Vector2::new(f(2), f(3)),
            Vector2::new(f(4), f(5)),
        ),
        6,
    );
    same(
        Aabb::new(
            Vector3::new(f(0), f(1), f(2)),
            Vector3::new(f(3), f(4), f(5)),
        ),
        6,
    );
    let basis = Basis::from_rows([[f(0), f(1), f(2)], [f(3), f(4), f(5)], [f(6), f(7), f(8)]]);
    same(basis, 9);
    same(Transform::new(basis, Vector3::new(f(9), f(10), f(11))), 12);
    same(Projection::default(), 16);
}

/// Found in review: the fixes for counted zero-byte items, clashing ids, nested
/// `rest`, `from_reader`'s limit and the offsets of visitor errors.
#[test]
fn review_findings_stay_fixed() {
    use std::num::{NonZeroU32, NonZeroU8};
    let cfg = Config::new();
    // Every item of a sequence takes a byte, on both sides: no quadratic decode of
    // zero-byte items, and nothing written that could not be read.
    let mut nested = vec![2, 0, 0, 0];
    nested.extend_from_slice(&[4, 0, 0, 0, 0, 0, 0, 0]);
    let (kind, at) = fails::<Vec<Vec<()>>>(cfg, &nested);
    assert!(
        matches!(kind, ErrorKind::Message(m) if m.contains("no bytes")),
        "at {at:?}"
    );
    assert_eq!(at, Some(8));
    let err = cfg.to_vec(&vec![(); 3]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)), "{err}");
    // The same on every output and with every settings path: `to_vec` tells an empty
    // item by the Vec's length (also after bytes it already held), a writer by a count,
    // and a field with its own settings writes through a serializer of its own.
    #[derive(Serialize, Clone)]
    struct OwnSettings(#[serde(with = "raw::count8")] ());
    let big = cfg.big_endian(true);
    let utf8 = cfg.strings(raw::Strings::Utf8);
    for c in [cfg, big, utf8, cfg.strings(raw::Strings::Nul)] {
        let mut held = vec![7u8; 5];
        let err = c.to_vec_into(&vec![OwnSettings(()); 2], &mut held);
        assert!(
            matches!(
                err.as_ref().map_err(|e| e.kind()),
                Err(ErrorKind::Unrepresentable(_))
            ),
            "{err:?}"
        );
        assert_eq!(held, [7; 5], "what the Vec held is kept");
        let err = c
            .to_writer(Vec::new(), &vec![OwnSettings(()); 1])
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Unrepresentable(_)), "{err}");
        let err = c.to_vec(&[(1u8, OwnSettings(())), (2, OwnSettings(()))]);
        assert_eq!(err.unwrap(), [1, 2], "items that write something pass");
        #[derive(Serialize)]
        struct Str0(#[serde(with = "raw::str0")] &'static str);
        let mut out = Vec::new();
        c.to_writer(&mut out, &vec![Str0("a")]).unwrap();
        assert_eq!(out, c.to_vec(&(1u32, Str0("a"))).unwrap());
        assert!(
            out.ends_with(b"a\0"),
            "an item written only through its own settings counts"
        );
    }
    // Two variants with one id are refused, not decoded as the first.
    #[derive(Serialize, Deserialize, Debug)]
    enum Clash {
        #[serde(rename = "1")]
        A,
        B,
    }
    let (kind, at) = fails::<Clash>(cfg, &cfg.to_vec(&Clash::B).unwrap());
    assert!(
        matches!(&kind, ErrorKind::InvalidValue { expected, .. } if expected.contains("not two")),
        "{kind:?}"
    );
    assert_eq!(at, Some(0));
    // `rest` runs only the outermost sequence to the end; what it holds is counted.
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Tail(u8, #[serde(with = "raw::rest")] Vec<Vec<u8>>);
    let tail = Tail(7, vec![vec![1], vec![2, 3]]);
    let bytes = cfg.to_vec(&tail).unwrap();
    assert_eq!(hex(&bytes), "07010000000102000000 0203".replace(' ', ""));
    assert_eq!(cfg.from_slice::<Tail>(&bytes).unwrap(), tail);
    // from_reader reads at most max_bytes of the Variant settings.
    let limited = cfg.variant(godot_bin::Config::new().max_bytes(1024));
    let err = limited
        .from_reader::<_, Vec<u8>>(std::io::repeat(0))
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::LimitExceeded(1024)),
        "{err}"
    );
    // A visitor's error belongs to the item it was given.
    assert_eq!(fails::<NonZeroU32>(cfg, &[0; 4]).1, Some(0));
    #[derive(Deserialize, Debug)]
    enum E {
        #[allow(dead_code)]
        A(NonZeroU8),
    }
    assert_eq!(fails::<E>(cfg, &[0, 0]).1, Some(1));
    assert_eq!(fails::<(u8, Option<NonZeroU8>)>(cfg, &[9, 1, 0]).1, Some(2));
    let (kind, at) = fails::<Tree>(cfg, &[1; 129]);
    assert!(matches!(kind, ErrorKind::DepthLimit(_)), "{kind:?}");
    assert_eq!(at, Some(godot_bin::DEFAULT_MAX_DEPTH));
}

/// Sequences in sequences, each counting as many items as the bytes after it could
/// hold: every count passes the check against the bytes left, so what each reserves
/// ahead of its items comes out of one allowance for the whole input.
#[test]
fn nested_count_bombs_fail_without_allocating() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Nest(Vec<Nest>);
    let n = 32768u32;
    let mut bytes = Vec::new();
    for _ in 0..127 {
        bytes.extend(n.to_le_bytes());
    }
    // The innermost sequence's items, empty ones; the levels around it then run out.
    bytes.resize(bytes.len() + 4 * n as usize, 0);
    let (r, p) = peak::peak(|| raw::from_slice::<Nest>(&bytes));
    assert!(r.is_err());
    assert!(
        p <= 64 * bytes.len() + 4096,
        "{p} bytes allocated for {} bytes",
        bytes.len()
    );
}

/// A well-formed message's sequences announce their real counts to their visitors,
/// however deep: the allowance behind the test above is never short for them.
#[test]
fn well_formed_sequences_announce_their_counts() {
    use serde::de::{SeqAccess, Visitor};
    use std::cell::RefCell;
    thread_local! {
        static MET: RefCell<Vec<(Option<usize>, usize)>> = const { RefCell::new(Vec::new()) };
    }
    #[derive(Serialize, Clone, Debug)]
    struct Tree(Vec<Tree>);
    impl Arbitrary for Tree {
        fn arbitrary(g: &mut Gen) -> Self {
            fn tree(g: &mut Gen, depth: usize) -> Tree {
                let n = if depth == 0 {
                    0
                } else {
                    usize::from(u8::arbitrary(g) % 5)
                };
                Tree((0..n).map(|_| tree(g, depth - 1)).collect())
            }
            tree(g, 4)
        }
    }
    /// A `Tree` read back, noting each sequence's announcement and count in `MET`.
    struct Noted;
    impl<'de> Deserialize<'de> for Noted {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_newtype_struct("Tree", Noted)
        }
    }
    impl<'de> Visitor<'de> for Noted {
        type Value = Noted;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a tree")
        }
        fn visit_newtype_struct<D: serde::Deserializer<'de>>(
            self,
            d: D,
        ) -> Result<Noted, D::Error> {
            d.deserialize_seq(Noted)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Noted, A::Error> {
            let hint = seq.size_hint();
            let mut n = 0;
            while seq.next_element::<Noted>()?.is_some() {
                n += 1;
            }
            MET.with(|m| m.borrow_mut().push((hint, n)));
            Ok(Noted)
        }
    }
    fn prop(t: Tree) -> bool {
        let bytes = raw::to_vec(&t).unwrap();
        raw::from_slice::<Noted>(&bytes).unwrap();
        MET.with(|m| m.take())
            .iter()
            .all(|&(hint, n)| hint == Some(n))
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Tree) -> bool);
}
