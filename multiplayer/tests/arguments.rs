//! `Arguments`: a Godot 4 call received as an `Event::Call` keeps its arguments'
//! bytes, checked on arrival, and reads them when asked. Seeded random argument lists
//! of every Godot 4 type, and mutations of their packets, are received exactly as
//! decoding the packet's arguments to `Variant`s goes (the same arguments, or the
//! same error at the same byte), and read by `Call::args` and `Arguments::get` as they
//! read in place (`receive_call`). Godot 3's are held alike in `tests/call_in_place3.rs`.

#[path = "common/mutate.rs"]
mod mutate;
#[path = "../../tests/common/random.rs"]
#[allow(dead_code)]
mod random;

use godot_bin::{Dialect, Variant, Vector3};
use godot_bin_multiplayer::{
    Arguments, Call, CallRef, Delivery, ErrorKind, Event, NodeRef, Packet, RemoteCall, Scene,
    Session,
};
use quickcheck::{QuickCheck, TestResult};
use random::Rng;

const PEER: i32 = 5;

fn server() -> Session {
    let mut s = Session::server(Scene::new().node("Game", ["a", "b"]));
    s.connect(PEER);
    while s.poll_event().is_some() {}
    s
}

/// A call of `b` on Game by path with `args`.
fn call_bytes(args: Vec<Variant>) -> Option<Vec<u8>> {
    Packet::Call(RemoteCall {
        node: NodeRef::Path("Game".into()),
        method: 1,
        args,
    })
    .encode()
    .ok()
}

/// The call `receive` makes of `bytes`, or its error's place.
fn received(bytes: &[u8]) -> Result<Option<Call>, Place> {
    let mut s = server();
    s.receive(PEER, Delivery::default(), bytes).map_err(place)?;
    Ok(std::iter::from_fn(|| s.poll_event()).find_map(|e| match e {
        Event::Call(c) => Some(c),
        _ => None,
    }))
}

/// Where an error is, what kind, and its argument's index.
type Place = (usize, std::mem::Discriminant<ErrorKind>, usize);

fn place(e: godot_bin_multiplayer::Error) -> Place {
    let index = match e.kind() {
        ErrorKind::Argument { index, .. } => *index,
        _ => usize::MAX,
    };
    (e.offset(), std::mem::discriminant(e.kind()), index)
}

/// `n` random arguments from `seed`: every Godot 4 type, or (`plain`) mostly the
/// types checked without making them (bools, ints, floats, Strings, Vector2,
/// Vector3), the form most calls take.
fn random_args(seed: u64, n: usize, plain: bool) -> Vec<Variant> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match (plain, r.below(8)) {
            (true, 0) => Variant::Bool(r.below(2) == 1),
            (true, 1) => Variant::Int(r.pick(&[0, -1, 127, -129, 1 << 20, i64::MIN])),
            (true, 2) => Variant::Float(r.pick(&[0.5, -1e300, f64::NAN, 3.0])),
            (true, 3) => Variant::String(r.pick(&["", "gg", "\u{feff}x", "é"]).into()),
            (true, 4) => Variant::Vector2(godot_bin::Vector2::new(1.5, -2.0)),
            (true, 5) => Variant::Vector3(Vector3::new(1.0, f32::INFINITY, -0.0)),
            _ => random::variant(&mut r, Dialect::Godot4, 2),
        })
        .collect()
}

#[test]
fn received_arguments_are_what_decoding_gives() {
    fn prop(seed: u64, n: u8, mutation: Option<u64>, plain: bool) -> TestResult {
        let args = random_args(seed, usize::from(n % 6), plain);
        let Some(mut bytes) = call_bytes(args) else {
            return TestResult::discard();
        };
        if let Some(m) = mutation {
            mutate::mutate(&mut bytes, m, &[0, 1, 2, 3, 4, 9, 0x41, 0x82, 0xc2, 0xff]);
        }
        // The node, the method and its mode as `receive_call` takes them (which reads
        // no argument), then what the arguments decode to, or where that fails.
        let mut s = server();
        let decoded = match s.receive_call(PEER, Delivery::default(), &bytes) {
            Ok(Some(c)) => c.args.to_variants().map_err(place),
            Ok(None) => return TestResult::discard(),
            Err(e) => Err(place(e)),
        };
        let call = match (received(&bytes), &decoded) {
            (Ok(Some(call)), Ok(_)) => call,
            (Err(a), Err(b)) if a == *b => return TestResult::passed(),
            (a, b) => return TestResult::error(format!("{}: {a:?} {b:?}", hex::encode(&bytes))),
        };
        let decoded = decoded.expect("matched");
        // Exactly (`Debug`): `==` takes a String for a StringName.
        let held = format!("{:?}", call.args.to_variants().unwrap());
        if held != format!("{decoded:?}") || format!("{:?}", call.args) != held {
            return TestResult::error(format!("{}: {held} {decoded:?}", hex::encode(&bytes)));
        }
        // Typed reads, as in place.
        let in_place = CallRef::decode(&bytes).unwrap().unwrap();
        let a = call.args.get::<Vec<Variant>>().map(|v| format!("{v:?}"));
        let b = in_place
            .args
            .get::<Vec<Variant>>()
            .map(|v| format!("{v:?}"));
        if a.as_ref().map_err(|e| e.to_string()) != b.as_ref().map_err(|e| e.to_string()) {
            return TestResult::error(format!("{}: {a:?} {b:?}", hex::encode(&bytes)));
        }
        TestResult::from_bool(
            call.args.len() == decoded.len()
                && call.args == decoded
                && call.args.clone().into_variants().unwrap().len() == decoded.len(),
        )
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(u64, u8, Option<u64>, bool) -> TestResult);
}

#[test]
fn a_received_call_reads_its_arguments_as_the_handler_asks() {
    let v = Vector3::new(12.5, 0.0, -3.25);
    let args = vec![v.into(), Variant::Int(-7), Variant::from("gg"), true.into()];
    let call = received(&call_bytes(args.clone()).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!((call.from, &*call.node, &*call.method), (PEER, "Game", "b"));
    let typed: (Vector3, i8, String, bool) = call.args().unwrap();
    assert_eq!(typed, (v, -7, "gg".into(), true));
    assert_eq!(
        call.args.get::<(Vector3, i64, String, bool)>().unwrap().1,
        -7
    );
    assert_eq!(call.args, args);
    assert_eq!(call.args, Arguments::from(args.clone()));
    assert_eq!(format!("{:?}", call.args), format!("{args:?}"));
    assert_eq!((call.args.len(), call.args.is_empty()), (4, false));
    // godot_bin's error, with no offset, as for arguments made from `Variant`s.
    let e = call.args::<(Vector3, String)>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: found integer `-7`, expected a string"
    );
    assert_eq!(e.offset(), None);
    let made = Call {
        args: args.into(),
        ..call.clone()
    };
    let e2 = made.args::<(Vector3, String)>().unwrap_err();
    assert_eq!(e2.to_string(), e.to_string());
    // The packet's own error, at its byte, from `Arguments::get`.
    let e = call.args.get::<(Vector3, Vector3)>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 1, .. }),
        "{e}"
    );
    assert_eq!(
        call.args.get::<(Vector3, u8)>().unwrap_err().offset(),
        e.offset()
    );
}

#[test]
fn no_arguments_read_as_none() {
    let call = received(&call_bytes(vec![]).unwrap()).unwrap().unwrap();
    assert!(call.args.is_empty());
    call.args::<()>().unwrap();
    assert_eq!(call.args::<Option<(i64,)>>().unwrap(), None);
    assert_eq!(call.args, Arguments::default());
    assert!(call.args::<(i64,)>().is_err());
}
