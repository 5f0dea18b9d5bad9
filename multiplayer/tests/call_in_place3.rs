//! Godot 3 calls read in place (`Session::receive_call3`, `godot3::Args`) against the same
//! calls received as an `Event::Call` (`Session::receive`, whose arguments are checked
//! as decoding them to `Variant`s goes, and read here as `Variant`s): seeded random
//! argument lists of every Godot 3 type, and
//! mutations of their packets, give the same arguments or the same error, at the same
//! byte; typed reads agree with `Call::args` on the `Variant`s; strings are lent by
//! the packet. The engine's own Godot 3 calls are replayed through `receive_call3` in
//! `tests/godot3.rs`.

#[path = "common/mutate.rs"]
mod mutate;
#[path = "../../tests/common/random.rs"]
#[allow(dead_code)]
mod random;

use godot_bin::{Dialect, Variant, Vector2, Vector3};
use godot_bin_multiplayer::godot3::{Packet, RemoteCall};
use godot_bin_multiplayer::{Call, Delivery, ErrorKind, Event, NodeRef, Protocol, Scene, Session};
use quickcheck::{QuickCheck, TestResult};
use random::Rng;
use std::mem::Discriminant;

const PEER: i32 = 5;

/// A Godot 3 server with one client, `PEER`; `modes` declares `two` `puppet`, which
/// the client may not call.
fn server(modes: bool) -> Session {
    use godot_bin_multiplayer::{Rpc, RpcMode};
    let mode = if modes {
        RpcMode::Puppet
    } else {
        RpcMode::AnyPeer
    };
    let scene = Scene::new().node("Game", [Rpc::new("two", mode), Rpc::from("one")]);
    let mut s = Session::server(scene).protocol(Protocol::Godot3);
    s.connect(PEER);
    while s.poll_event().is_some() {}
    s
}

/// Where an error is, and what kind (the argument's index, for one in an argument).
type Place = (usize, Discriminant<ErrorKind>, usize);

fn place(e: godot_bin_multiplayer::Error) -> Place {
    let index = match e.kind() {
        ErrorKind::Argument { index, .. } => *index,
        _ => usize::MAX,
    };
    (e.offset(), std::mem::discriminant(e.kind()), index)
}

/// What `receive` makes of `bytes`: the call's `Variant`s, nothing (a call dropped
/// for its mode, or no call), or the error.
fn received(modes: bool, bytes: &[u8]) -> Result<Option<String>, Place> {
    let mut s = server(modes);
    s.receive(PEER, Delivery::default(), bytes).map_err(place)?;
    let call = std::iter::from_fn(|| s.poll_event()).find_map(|e| match e {
        Event::Call(c) => Some(c),
        _ => None,
    });
    // Exactly (`Debug`): `==` takes a String for a StringName.
    Ok(call.map(|c| format!("{:?} {} {} {:?}", c.from, c.node, c.method, c.args)))
}

/// What `receive_call3` makes of `bytes`, its call's arguments read as a `Vec<Variant>`.
fn in_place(modes: bool, bytes: &[u8]) -> Result<Option<String>, Place> {
    let mut s = server(modes);
    let Some(c) = s
        .receive_call3(PEER, Delivery::default(), bytes)
        .map_err(place)?
    else {
        let left = std::iter::from_fn(|| s.poll_event()).find(|e| matches!(e, Event::Call(_)));
        assert_eq!(left, None, "receive_call3 gives a Godot 3 call in place");
        return Ok(None);
    };
    let args: Vec<Variant> = c.args.get().map_err(place)?;
    assert_eq!(
        format!("{args:?}"),
        format!("{:?}", c.args.to_variants().unwrap()),
        "Args::to_variants"
    );
    Ok(Some(format!(
        "{:?} {} {} {args:?}",
        c.from, c.node, c.method
    )))
}

/// A call of `method` on /root/Game by path, with `n` random arguments from `seed`.
fn call_packet(seed: u64, n: usize, method: &str) -> Option<(Vec<Variant>, Vec<u8>)> {
    let mut r = Rng::new(seed);
    let args: Vec<Variant> = (0..n)
        .map(|_| random::variant(&mut r, Dialect::Godot3, 2))
        .collect();
    let packet = Packet::Call(RemoteCall {
        node: NodeRef::Path("Game".into()),
        method: method.into(),
        args: args.clone(),
    });
    // Some random values cannot be sent (a full Object).
    Some((args, packet.encode().ok()?))
}

#[test]
fn godot3_calls_read_in_place_as_received() {
    fn prop(seed: u64, n: u8, mutation: Option<u64>, modes: bool) -> TestResult {
        let method = if seed % 3 == 0 { "one" } else { "two" };
        let Some((_, mut bytes)) = call_packet(seed, usize::from(n % 5), method) else {
            return TestResult::discard();
        };
        if let Some(m) = mutation {
            mutate::mutate(&mut bytes, m, &[0, 1, 2, 3, 4, 7, 0x40, 0x80, 0xff]);
        }
        let (a, b) = (in_place(modes, &bytes), received(modes, &bytes));
        if a != b {
            return TestResult::error(format!(
                "{}: in place {a:?}, received {b:?}",
                hex::encode(&bytes)
            ));
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(u64, u8, Option<u64>, bool) -> TestResult);
}

/// A value's exact bits, as godot_bin writes it: NaN equals NaN here (with its
/// payload), and 0.0 differs from -0.0, where `PartialEq` says otherwise.
fn bits<T: serde::Serialize>(v: &T) -> Vec<u8> {
    godot_bin::to_vec(v).expect("every target type writes")
}

#[test]
fn godot3_typed_reads_agree_with_reading_the_variants() {
    fn prop(seed: u64, n: u8) -> TestResult {
        let Some((args, bytes)) = call_packet(seed, 1 + usize::from(n % 4), "two") else {
            return TestResult::discard();
        };
        // A Godot 3 RID carries no id: in place it reads as a unit, where its
        // `Variant` (RID 0) written in Godot 4's form holds an id.
        if format!("{args:?}").contains("Rid(") {
            return TestResult::discard();
        }
        let mut s = server(false);
        let c = s
            .receive_call3(PEER, Delivery::default(), &bytes)
            .unwrap()
            .expect("a call");
        let event = Call {
            from: PEER,
            node: "Game".into(),
            method: "two".into(),
            args: c.args.to_variants().unwrap().into(),
        };
        macro_rules! agree {
            ($($t:ty),*) => {$(
                let (a, b) = (c.args.get::<$t>(), event.args::<$t>());
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
            (Variant,),
            Vec<i64>,
            Vec<f32>,
            (Variant, Variant)
        );
        // A string argument is lent by the packet.
        if let Ok((text,)) = c.args.get::<(&str,)>() {
            let whole = bytes.as_ptr_range();
            if !text.is_empty() && !whole.contains(&text.as_ptr()) {
                return TestResult::error(format!("{text:?} is not lent by the packet"));
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(u64, u8) -> TestResult);
}

/// A movement as a Godot 3 game sends it reads in place to its values, the strings
/// borrowed; a call its mode refuses is dropped as `receive` drops it, and its
/// sender kept.
#[test]
fn a_godot3_movement_reads_in_place() {
    let args = vec![
        Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
        Variant::from("dash"),
        Variant::Int(-7),
        Variant::Bool(true),
    ];
    let bytes = Packet::Call(RemoteCall {
        node: NodeRef::Path("Game".into()),
        method: "two".into(),
        args,
    })
    .encode()
    .unwrap();
    let mut s = server(false);
    let c = s
        .receive_call3(PEER, Delivery::default(), &bytes)
        .unwrap()
        .unwrap();
    assert_eq!(
        (c.from, c.node, c.method, c.args.len()),
        (PEER, "Game", "two", 4)
    );
    let (to, how, n, on): (Vector3, &str, i8, bool) = c.args.get().unwrap();
    assert_eq!(
        (to, how, n, on),
        (Vector3::new(1.0, 2.0, 3.0), "dash", -7, true)
    );
    // Not allowed from a client: dropped, nothing to read, the peer kept.
    let mut s = server(true);
    assert_eq!(
        s.receive_call3(PEER, Delivery::default(), &bytes).unwrap(),
        None
    );
    assert!(matches!(
        s.poll_event(),
        Some(Event::Dropped { peer: PEER, .. })
    ));
    // An argument that does not decode is an error when it is read, where `receive`
    // refuses the call, at the same byte.
    let mut cut = bytes.clone();
    // The bool's type, before its value and the path "Game\0".
    let at = cut.len() - 5 - 8;
    assert_eq!(cut[at], 1);
    cut[at] = 0xEE;
    let mut s = server(false);
    let c = s
        .receive_call3(PEER, Delivery::default(), &cut)
        .unwrap()
        .unwrap();
    let e = c.args.get::<Vec<Variant>>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 3, .. }),
        "{e}"
    );
    assert_eq!(Err(place(e)), received(false, &cut));
}
