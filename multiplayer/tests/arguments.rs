//! `Arguments`: a Godot 4 call received as an `Event::Call` keeps its arguments'
//! bytes, checked on arrival, and reads them when asked. Seeded random argument lists
//! of every Godot 4 type, and mutations of their packets, are received exactly as
//! decoding the packet's arguments to `Variant`s goes (the same arguments, or the
//! same error at the same byte), and read by `Call::args` and `Arguments::get` as they
//! read in place (`receive_call`) and, for the types compared, as the `Variant`s
//! read. Godot 3's are held alike in `tests/call_in_place3.rs`.

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
        // And as the `Variant`s read them (`Call::args` of a call made from them): a
        // `Variant` list alike, and the usual types alike.
        let made = Call {
            args: decoded.clone().into(),
            ..call.clone()
        };
        let (a, b) = (call.args::<Vec<Variant>>(), made.args::<Vec<Variant>>());
        if format!("{a:?}") != format!("{b:?}") {
            return TestResult::error(format!("{}: {a:?} {b:?}", hex::encode(&bytes)));
        }
        macro_rules! agree {
            ($($t:ty),*) => {$(
                let (a, b) = (call.args::<$t>().ok(), made.args::<$t>().ok());
                if format!("{a:?}") != format!("{b:?}") {
                    return TestResult::error(format!(
                        "{} {}: {a:?} {b:?}", stringify!($t), hex::encode(&bytes)
                    ));
                }
            )*};
        }
        agree!(
            (i64, String),
            (bool, f32, Vector3),
            (Option<i64>,),
            Vec<f64>
        );
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

/// Short calls' bytes are kept in place and longer ones boxed: reads are the same
/// either way, as read in place from the packet, errors at the same bytes; by path
/// and by cache id, whose heads differ in length.
#[test]
fn short_and_long_calls_read_alike() {
    for n in 0..=64 {
        let text = "é".repeat(n / 2) + &"x".repeat(n % 2);
        let args = vec![Variant::from(text.as_str()), Variant::Int(-70_000)];
        let by_path = call_bytes(args.clone()).unwrap();
        let mut s = server();
        s.receive(PEER, Delivery::default(), &by_path).unwrap();
        let scene = Scene::new().node("Game", ["a", "b"]);
        let simplify = Packet::SimplifyPath {
            checksum: scene.names("Game").unwrap().checksum().into(),
            id: 1,
            path: "Game".into(),
        };
        s.receive(PEER, Delivery::default(), &simplify.encode().unwrap())
            .unwrap();
        let by_id = Packet::Call(RemoteCall {
            node: NodeRef::Cached(1),
            method: 1,
            args: args.clone(),
        })
        .encode()
        .unwrap();
        s.receive(PEER, Delivery::default(), &by_id).unwrap();
        let calls: Vec<Call> = std::iter::from_fn(|| s.poll_event())
            .filter_map(|e| match e {
                Event::Call(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 2, "{n}");
        for (call, bytes) in calls.iter().zip([&by_path, &by_id]) {
            let in_place = CallRef::decode(bytes).unwrap().unwrap().args;
            assert_eq!(
                call.args::<(String, i64)>().unwrap(),
                (text.clone(), -70_000)
            );
            assert_eq!(call.args, args);
            assert_eq!(call.args.len(), 2);
            let e = call.args.get::<(String, String)>().unwrap_err();
            let e_in_place = in_place.get::<(String, String)>().unwrap_err();
            assert_eq!(
                (e.offset(), e.to_string()),
                (e_in_place.offset(), e_in_place.to_string())
            );
            assert!(
                matches!(e.kind(), ErrorKind::Argument { index: 1, .. }),
                "{e}"
            );
        }
    }
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

/// `bytes` with the first run of `from` replaced by `to`.
fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .expect("the run is there");
    [&bytes[..at], to, &bytes[at + from.len()..]].concat()
}

#[test]
fn a_relayed_call_reads_from_its_bytes_as_one_received_directly() {
    use godot_bin::{Config, Precision};
    use godot_bin_multiplayer::{RpcNames, Sys};
    // A Vector3 of a double-precision engine, whose x (0.1) no f32 holds: read as
    // `f64`s from the bytes it keeps its 64 bits, where a `Variant` rounds it.
    let v = Vector3::new(0.5, 1.0, 2.0);
    let wide = Config::new()
        .dialect(Dialect::Godot4)
        .precision(Precision::Double)
        .to_vec(&v)
        .unwrap();
    let wide = replaced(&wide, &0.5f64.to_le_bytes(), &0.1f64.to_le_bytes());
    let single = Config::new().dialect(Dialect::Godot4).to_vec(&v).unwrap();
    // By cache id 1, given first (a path after the arguments would move).
    let simplify = Packet::SimplifyPath {
        checksum: RpcNames::new(["a", "b"]).checksum().to_owned(),
        id: 1,
        path: "Game".into(),
    }
    .encode()
    .unwrap();
    let call = Packet::Call(RemoteCall {
        node: NodeRef::Cached(1),
        method: 1,
        args: vec![v.into()],
    })
    .encode()
    .unwrap();
    let call = replaced(&call, &single, &wide);
    let first = |s: &mut Session| {
        std::iter::from_fn(|| s.poll_event())
            .find_map(|e| match e {
                Event::Call(c) => Some(c),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no call"))
    };
    let mut server = server();
    for p in [&simplify, &call] {
        server.receive(PEER, Delivery::default(), p).unwrap();
    }
    let direct = first(&mut server);
    assert_eq!(
        direct.args::<((f64, f64, f64),)>().unwrap().0,
        (0.1, 1.0, 2.0)
    );

    // The same packets from client 5 to client 6 through the server's relay.
    let mut client = Session::client(6, Scene::new().node("Game", ["a", "b"]));
    client.connect(1);
    server.connect(6);
    for p in [simplify, call] {
        let relay = Packet::Sys(Sys::Relay { peer: 6, packet: p });
        server
            .receive(PEER, Delivery::default(), &relay.encode().unwrap())
            .unwrap();
        // The server's notice of peer 5, then the relayed packet.
        while let Some(out) = server.poll_transmit() {
            if out.to == 6 {
                client.receive(1, out.delivery, &out.bytes).unwrap();
            }
        }
    }
    let relayed = first(&mut client);
    assert_eq!((relayed.from, &*relayed.method), (PEER, "b"));
    assert_eq!(
        relayed.args::<((f64, f64, f64),)>().unwrap().0,
        (0.1, 1.0, 2.0)
    );
    assert_eq!(relayed.args, direct.args);
    // Made from its `Variant`s, the x is the f32 they hold.
    let made = Call {
        args: relayed.args.to_variants().unwrap().into(),
        ..relayed
    };
    let ((x, _, _),): ((f64, f64, f64),) = made.args().unwrap();
    assert_eq!(x, f64::from(0.1f32));
}
