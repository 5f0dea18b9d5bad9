//! `CallRef`: calls read in place, their arguments straight into Rust types. What
//! Godot 4.6 sent (tests/fixtures/godot4.6.jsonl) reads as `Packet::decode` reads
//! it (its strings and byte arrays lent by the packet), typed reads agree with reading the `Variant`s (`Call::args`), and mutated
//! packets fail in both or in neither, at the same byte.

use godot_bin::{Variant, Vector2, Vector3};
use godot_bin_multiplayer::{Call, CallRef, ErrorKind, NodeRef, Packet, RemoteCall};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

fn packets() -> Vec<Vec<u8>> {
    include_str!("fixtures/godot4.6.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l.get("packet").is_some())
        .map(|l| hex::decode(l["hex"].as_str().unwrap()).unwrap())
        .collect()
}

fn packet(args: Vec<Variant>) -> Vec<u8> {
    Packet::Call(RemoteCall {
        node: NodeRef::Cached(3),
        method: 1,
        args,
    })
    .encode()
    .unwrap()
}

/// `T` read from the packet in place, and through `Variant`s as `Call::args` reads.
fn both<T: DeserializeOwned>(p: &[u8]) -> (Result<T, String>, Result<T, String>) {
    let call = CallRef::decode(p).unwrap().unwrap();
    let in_place = call.args.get::<T>().map_err(|e| e.to_string());
    let variants = Call {
        from: 2,
        node: "".into(),
        method: "".into(),
        args: call.args.to_variants().unwrap().into(),
    };
    (in_place, variants.args::<T>().map_err(|e| e.to_string()))
}

#[test]
fn every_engine_call_reads_in_place_as_decoded() {
    let (mut calls, mut strings, mut arrays) = (0, 0, 0);
    for p in packets() {
        let Some(call) = CallRef::decode(&p).unwrap() else {
            assert!(!matches!(Packet::decode(&p).unwrap(), Packet::Call(_)));
            continue;
        };
        calls += 1;
        let Packet::Call(decoded) = Packet::decode(&p).unwrap() else {
            panic!("{p:?} is a call")
        };
        assert_eq!(call.to_remote_call().unwrap(), decoded);
        assert_eq!(call.args.len(), decoded.args.len());
        // Exactly (`Debug`): `==` takes a String for a StringName.
        let in_place = call.args.get::<Vec<Variant>>().unwrap();
        assert_eq!(format!("{in_place:?}"), format!("{:?}", decoded.args));
        assert_eq!(
            call.args.get::<Variant>().unwrap(),
            Variant::Array(decoded.args.clone())
        );
        if decoded.args.is_empty() {
            call.args.get::<()>().unwrap();
        }
        // What the engine sent as Strings and PackedByteArrays is lent by the packet.
        let lent: Vec<Lent> = call.args.get().unwrap();
        for (arg, lent) in decoded.args.iter().zip(&lent) {
            match (arg, lent) {
                (Variant::String(s), Lent::Str(t)) => {
                    assert_eq!(s, t);
                    assert!(within(t.as_bytes(), &p), "{t:?} of {p:?}");
                    strings += 1;
                }
                (Variant::PoolByteArray(b), Lent::Bytes(t)) => {
                    assert_eq!(b.0, *t);
                    assert!(within(t, &p));
                    arrays += 1;
                }
                (Variant::String(_) | Variant::PoolByteArray(_), _) => {
                    panic!("{arg:?} read as {lent:?} from {p:?}")
                }
                _ => {}
            }
        }
    }
    assert!(calls > 300, "{calls}");
    assert!(
        strings > 10 && arrays > 10,
        "{strings} strings, {arrays} byte arrays"
    );
}

/// An argument as `deserialize_any` gives it: a string or byte array lent by the
/// packet, one copied out of it, or something else.
#[derive(Debug)]
enum Lent<'a> {
    Str(&'a str),
    Bytes(&'a [u8]),
    Copied,
    Other,
}

impl<'de> serde::Deserialize<'de> for Lent<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Deserialize, IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V;
        macro_rules! other {
            ($($m:ident: $t:ty),*) => {$(
                fn $m<E>(self, _: $t) -> Result<Lent<'de>, E> {
                    Ok(Lent::Other)
                }
            )*};
        }
        impl<'de> Visitor<'de> for V {
            type Value = Lent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any argument")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Lent<'de>, E> {
                Ok(Lent::Str(v))
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Lent<'de>, E> {
                Ok(Lent::Bytes(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Lent<'de>, E> {
                Ok(Lent::Copied)
            }
            fn visit_bytes<E>(self, _: &[u8]) -> Result<Lent<'de>, E> {
                Ok(Lent::Copied)
            }
            other!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
            fn visit_unit<E>(self) -> Result<Lent<'de>, E> {
                Ok(Lent::Other)
            }
            fn visit_none<E>(self) -> Result<Lent<'de>, E> {
                Ok(Lent::Other)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Lent<'de>, D::Error> {
                IgnoredAny::deserialize(d).map(|_| Lent::Other)
            }
            fn visit_newtype_struct<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Lent<'de>, D::Error> {
                IgnoredAny::deserialize(d).map(|_| Lent::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Lent<'de>, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lent::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Lent<'de>, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Lent::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// An argument of a type the typed reader handles itself, or another one.
#[derive(Clone, Debug)]
struct Arg(Variant);

impl Arbitrary for Arg {
    fn arbitrary(g: &mut Gen) -> Self {
        let edge = |g: &mut Gen| -> i64 {
            *g.choose(&[
                0,
                -1,
                127,
                -128,
                128,
                32767,
                -32769,
                i64::from(i32::MAX),
                i64::from(i32::MIN) - 1,
                i64::MAX,
                i64::MIN,
            ])
            .unwrap()
        };
        let f = |g: &mut Gen| -> f32 {
            *g.choose(&[
                0.0,
                -0.0,
                1.5,
                f32::INFINITY,
                f32::MIN_POSITIVE,
                1e-45,
                3.25,
            ])
            .unwrap()
        };
        Arg(match u8::arbitrary(g) % 10 {
            0 => Variant::Bool(bool::arbitrary(g)),
            1 => Variant::Int(i64::arbitrary(g)),
            2 => Variant::Int(edge(g)),
            3 => Variant::Float(f64::from(f(g))),
            4 => Variant::Float(f64::arbitrary(g)),
            5 => Variant::Vector2(Vector2::new(f(g), f32::arbitrary(g))),
            6 => Variant::Vector3(Vector3::new(f(g), f32::arbitrary(g), f(g))),
            7 => Variant::String(String::arbitrary(g).replace('\0', "")),
            // ASCII, read by the typed reader itself; a leading BOM, which is not.
            8 if bool::arbitrary(g) => Variant::from(
                *g.choose(&["", "gg", "hello everyone, gg!", "\u{feff}x", "tab\there"])
                    .unwrap(),
            ),
            8 => Variant::Nil,
            _ => Variant::Array(vec![Variant::Int(edge(g)), Variant::Bool(true)]),
        })
    }
}

/// A value's exact bits, as godot_bin writes it: NaN equals NaN here (with its
/// payload), and 0.0 differs from -0.0, where `PartialEq` says otherwise.
fn bits<T: serde::Serialize>(v: &T) -> Vec<u8> {
    godot_bin::to_vec(v).expect("every target type writes")
}

#[test]
fn typed_reads_agree_with_reading_the_variants() {
    fn prop(args: Vec<Arg>) -> TestResult {
        let args: Vec<Variant> = args.into_iter().map(|a| a.0).collect();
        if args.is_empty() {
            return TestResult::discard();
        }
        let p = packet(args.clone());
        macro_rules! agree {
            ($($t:ty),*) => {$(
                let (a, b) = both::<$t>(&p);
                if a.is_ok() != b.is_ok() || a.as_ref().ok().map(bits) != b.as_ref().ok().map(bits) {
                    return TestResult::error(format!(
                        "{} from {args:?}: in place {a:?}, through Variants {b:?}",
                        stringify!($t)
                    ));
                }
            )*};
        }
        agree!(
            Vec<Variant>,
            (bool,),
            (i64,),
            (i32,),
            (u8,),
            (f64,),
            (f32,),
            (Vector2,),
            (Vector3,),
            (String,),
            (String, i64),
            Vec<String>,
            (Option<i64>,),
            (Option<Vector3>,),
            (Variant,),
            Vec<i64>,
            Vec<f32>,
            Vec<bool>,
            (Vector3, Vector3, i64, bool),
            (Variant, Variant)
        );
        // Borrowed reads give what owned reads give, or fail where they fail (with
        // their own words: "expected a borrowed string").
        let call = CallRef::decode(&p).unwrap().unwrap();
        macro_rules! borrowed_agree {
            ($($b:ty => $o:ty: $own:expr),*) => {$(
                let a = call.args.get::<$b>().map($own).map_err(place);
                let b = call.args.get::<$o>().map_err(place);
                if a != b {
                    return TestResult::error(format!(
                        "{} from {args:?}: {a:?}, as {}: {b:?}",
                        stringify!($b),
                        stringify!($o)
                    ));
                }
            )*};
        }
        borrowed_agree!(
            (&str,) => (String,): |(s,): (&str,)| (s.to_owned(),),
            (&str, i64) => (String, i64): |(s, n): (&str, i64)| (s.to_owned(), n),
            (Cow<str>,) => (String,): |(s,): (Cow<str>,)| (s.into_owned(),),
            Vec<&str> => Vec<String>: |v: Vec<&str>| v.into_iter().map(str::to_owned).collect::<Vec<_>>()
        );
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Vec<Arg>) -> TestResult);
}

/// A call without arguments (meta bit 7, no count): `()`, a unit struct and `None`
/// read it, and an empty sequence; one that wants an argument is refused; in place
/// and through `Variant`s alike.
#[test]
fn a_call_without_arguments_reads_alike_both_ways() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ping;
    let p = packet(vec![]);
    assert_eq!(p, [0x80, 3, 1]);
    assert_eq!(both::<()>(&p), (Ok(()), Ok(())));
    assert_eq!(both::<Ping>(&p), (Ok(Ping), Ok(Ping)));
    assert_eq!(both::<Option<(i64,)>>(&p), (Ok(None), Ok(None)));
    assert_eq!(both::<Option<()>>(&p), (Ok(None), Ok(None)));
    assert_eq!(both::<Option<Vec<i64>>>(&p), (Ok(None), Ok(None)));
    assert_eq!(both::<Vec<i64>>(&p), (Ok(vec![]), Ok(vec![])));
    assert_eq!(both::<Vec<Variant>>(&p), (Ok(vec![]), Ok(vec![])));
    let (a, b) = both::<(i64,)>(&p);
    assert!(a.unwrap_err().contains("invalid length 0"));
    assert!(b.unwrap_err().contains("invalid length 0"));
    // With arguments, `Option` is `Some` of them and a unit struct is refused.
    let p = packet(vec![Variant::Int(7)]);
    assert_eq!(both::<Option<(i64,)>>(&p), (Ok(Some((7,))), Ok(Some((7,)))));
    let (a, b) = both::<Ping>(&p);
    assert!(a.is_err() && b.is_err(), "{a:?} {b:?}");
}

/// Where an error is, and what kind (the argument's index, for one in an argument).
fn place(e: godot_bin_multiplayer::Error) -> (usize, std::mem::Discriminant<ErrorKind>, usize) {
    let index = match e.kind() {
        ErrorKind::Argument { index, .. } => *index,
        _ => usize::MAX,
    };
    (e.offset(), std::mem::discriminant(e.kind()), index)
}

/// Whether `part` lies in `whole` (an empty part lies anywhere: the decoder may lend
/// a `""` of its own).
fn within(part: &[u8], whole: &[u8]) -> bool {
    part.is_empty() || whole.as_ptr_range().contains(&part.as_ptr()) && part.len() <= whole.len()
}

#[test]
fn strings_and_byte_arrays_borrow_from_the_packet() {
    let chat = packet(vec![Variant::from("hello everyone, gg!"), Variant::Int(42)]);
    let call = CallRef::decode(&chat).unwrap().unwrap();
    let (text, n): (&str, i64) = call.args.get().unwrap();
    assert_eq!((text, n), ("hello everyone, gg!", 42));
    assert!(within(text.as_bytes(), &chat));
    // A compressed argument's plain form is made for the read: nothing borrows it.
    let e = call.args.get::<(&str, &str)>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 1, .. }),
        "{e}"
    );
    assert_eq!(e.offset(), chat.len() - 2, "{e}");

    // A StringName's text lies in the packet as a String's does; a NodePath's is made
    // from its names, so it reads as a `String`, and as a `&str` is an error.
    let names = packet(vec![
        Variant::StringName(godot_bin::StringName("jump".into())),
        Variant::NodePath(godot_bin::NodePath::from("Player/Hand:position")),
    ]);
    let call = CallRef::decode(&names).unwrap().unwrap();
    let (name, path): (&str, String) = call.args.get().unwrap();
    assert_eq!((name, path.as_str()), ("jump", "Player/Hand:position"));
    assert!(within(name.as_bytes(), &names));
    let e = call.args.get::<(&str, &str)>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 1, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("expected a borrowed string"), "{e}");

    // One PackedByteArray goes without a count; among others, with one.
    let bytes = godot_bin::PoolByteArray(vec![1, 2, 3, 4, 5]);
    for args in [
        vec![Variant::PoolByteArray(bytes.clone())],
        vec![Variant::PoolByteArray(bytes.clone()), Variant::Bool(false)],
    ] {
        let p = packet(args.clone());
        let call = CallRef::decode(&p).unwrap().unwrap();
        let (first, buf, owned): (&[u8], serde_bytes::ByteBuf, godot_bin::PoolByteArray) =
            match args.len() {
                1 => (
                    call.args.get::<(&[u8],)>().unwrap().0,
                    call.args.get::<(serde_bytes::ByteBuf,)>().unwrap().0,
                    call.args.get::<(godot_bin::PoolByteArray,)>().unwrap().0,
                ),
                _ => (
                    call.args.get::<(&[u8], bool)>().unwrap().0,
                    call.args.get::<(serde_bytes::ByteBuf, bool)>().unwrap().0,
                    call.args
                        .get::<(godot_bin::PoolByteArray, bool)>()
                        .unwrap()
                        .0,
                ),
            };
        assert_eq!(first, [1, 2, 3, 4, 5], "{args:?}");
        assert!(within(first, &p), "{args:?}");
        assert_eq!(buf.as_slice(), first);
        assert_eq!(owned, bytes);
        assert_eq!(call.args.get::<Vec<Variant>>().unwrap(), args);
    }
}

#[test]
fn a_movement_reads_to_its_values() {
    let p = packet(vec![
        Variant::Vector3(Vector3::new(12.5, 0.0, -3.25)),
        Variant::Vector3(Vector3::new(1.0, 0.0, 0.5)),
        Variant::Int(1_234_567),
        Variant::Bool(true),
    ]);
    let call = CallRef::decode(&p).unwrap().unwrap();
    assert_eq!((call.node.clone(), call.method), (NodeRef::Cached(3), 1));
    let got: (Vector3, Vector3, i64, bool) = call.args.get().unwrap();
    assert_eq!(
        got,
        (
            Vector3::new(12.5, 0.0, -3.25),
            Vector3::new(1.0, 0.0, 0.5),
            1_234_567,
            true
        )
    );
    // Fewer or more arguments than the tuple holds, and a wrong type, are errors.
    let e = call.args.get::<(Vector3, Vector3, i64)>().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Arguments(_)), "{e}");
    let e = call
        .args
        .get::<(Vector3, Vector3, i64, bool, i64)>()
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Arguments(_)), "{e}");
    // The first Vector3 is at byte 4 (meta, node, method, count): its error is there.
    let e = call.args.get::<(String, Vector3, i64, bool)>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 0, .. }),
        "{e}"
    );
    assert_eq!(e.offset(), 4, "{e}");
    // The bool is compressed, in the packet's last byte.
    let e = call.args.get::<(Vector3, Vector3, i64, i64)>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 3, .. }),
        "{e}"
    );
    assert_eq!(e.offset(), p.len() - 1, "{e}");
    // The int (a compressed one of 4 bytes, at byte 36) read as a narrower type:
    // in range it is its value, out of range an error there.
    let (.., n, _): (Vector3, Vector3, u32, bool) = call.args.get().unwrap();
    assert_eq!(n, 1_234_567);
    let e = call
        .args
        .get::<(Vector3, Vector3, u16, bool)>()
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 2, .. }),
        "{e}"
    );
    assert_eq!(e.offset(), 36, "{e}");
    assert!(e.to_string().contains("1234567"), "{e}");
    // Packets that are no call read as `None`.
    assert_eq!(CallRef::decode(&[7, 1, 5, 0, 0, 0]).unwrap(), None);
    assert!(matches!(
        CallRef::decode(&[]).unwrap_err().kind(),
        ErrorKind::Empty
    ));
}

#[test]
fn bytes_only_and_no_argument_calls_read_typed() {
    let none = packet(vec![]);
    let call = CallRef::decode(&none).unwrap().unwrap();
    assert!(call.args.is_empty());
    call.args.get::<()>().unwrap();
    assert_eq!(call.args.get::<Vec<i64>>().unwrap(), Vec::<i64>::new());
    assert!(call.args.get::<(i64,)>().is_err());

    let blob = packet(vec![Variant::PoolByteArray(godot_bin::PoolByteArray(
        vec![1, 2, 3],
    ))]);
    let call = CallRef::decode(&blob).unwrap().unwrap();
    assert_eq!(call.args.len(), 1);
    let (b,): (godot_bin::PoolByteArray,) = call.args.get().unwrap();
    assert_eq!(b.0, [1, 2, 3]);
    assert_eq!(
        call.args.get::<Vec<Variant>>().unwrap(),
        call.args.to_variants().unwrap()
    );
}

#[test]
fn mutated_calls_fail_in_place_where_decoding_fails() {
    fn prop(which: usize, flips: Vec<(usize, u8)>) -> TestResult {
        static CALLS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
        let calls = CALLS.get_or_init(|| {
            packets()
                .into_iter()
                .filter(|p| p[0] & 7 == 0 && p[0] & 0x80 == 0)
                .collect()
        });
        let mut p = calls[which % calls.len()].clone();
        // A few changes, so that many mutants still read as calls.
        for (at, b) in flips.into_iter().take(3) {
            let i = at % p.len();
            p[i] ^= b;
        }
        let decoded = Packet::decode(&p);
        // `Session::receive` reads a call so, as `Packet::decode` reads it: the same
        // call or the same error.
        let head = CallRef::decode(&p).and_then(|c| c.map(|c| c.args.to_variants()).transpose());
        match (&decoded, &head) {
            (Ok(Packet::Call(c)), Ok(Some(args)))
                if format!("{:?}", c.args) == format!("{args:?}") => {}
            (Ok(q), Ok(None)) if !matches!(q, Packet::Call(_)) => {}
            (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
            (Err(_), Ok(None)) => {}
            (a, b) => return TestResult::error(format!("{p:?}: decoded {a:?}, by its head {b:?}")),
        }
        let in_place = CallRef::decode(&p).and_then(|c| match c {
            Some(c) => c.args.get::<Vec<Variant>>().map(Some),
            None => Ok(None),
        });
        match (decoded, in_place) {
            (Ok(Packet::Call(c)), Ok(Some(args))) => {
                READ.fetch_add(1, Ordering::Relaxed);
                TestResult::from_bool(format!("{:?}", c.args) == format!("{args:?}"))
            }
            // Not a call: what else it is (or why it is refused) is Packet's business.
            (Ok(q), Ok(None)) => TestResult::from_bool(!matches!(q, Packet::Call(_))),
            (Err(_), Ok(None)) => TestResult::passed(),
            (Err(a), Err(b)) if a.offset() == b.offset() => TestResult::passed(),
            (a, b) => TestResult::error(format!("{p:?}: decoded {a:?}, in place {b:?}")),
        }
    }
    static READ: AtomicUsize = AtomicUsize::new(0);
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(usize, Vec<(usize, u8)>) -> TestResult);
    // Both ways read most mutants as calls: the comparison of values is exercised.
    let read = READ.load(Ordering::Relaxed);
    assert!(read > 1000, "{read} of 5000 mutants read as calls");
}

/// Typed string reads of changed `chat` calls: where the engine's arguments read, the
/// typed read gives what reading them as `Variant`s gives; where they do not, it fails.
#[test]
fn mutated_strings_read_typed_as_through_variants() {
    fn prop(text: String, flips: Vec<(usize, u8)>) -> TestResult {
        let text: String = text
            .chars()
            .filter(|c| c.is_ascii() && *c != '\0')
            .collect();
        let mut p = packet(vec![Variant::from(text), Variant::Int(42)]);
        for (at, b) in flips.into_iter().take(3) {
            let i = at % p.len();
            p[i] ^= b;
        }
        let Ok(Some(call)) = CallRef::decode(&p) else {
            return TestResult::discard();
        };
        let in_place = call.args.get::<(String, i64)>();
        let through = call.args.to_variants().map(|args| {
            Call {
                from: 2,
                node: "".into(),
                method: "".into(),
                args: args.into(),
            }
            .args::<(String, i64)>()
        });
        match (in_place, through) {
            (Ok(a), Ok(Ok(b))) => {
                TYPED.fetch_add(1, Ordering::Relaxed);
                TestResult::from_bool(a == b)
            }
            (Err(_), Ok(Err(_)) | Err(_)) => TestResult::passed(),
            (a, b) => TestResult::error(format!("{p:?}: in place {a:?}, through Variants {b:?}")),
        }
    }
    static TYPED: AtomicUsize = AtomicUsize::new(0);
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(String, Vec<(usize, u8)>) -> TestResult);
    let typed = TYPED.load(Ordering::Relaxed);
    assert!(typed > 500, "{typed} of 5000 mutants read typed");
}
