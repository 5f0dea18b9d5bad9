//! One RPC operation, repeated, for counting instructions under callgrind
//! (`multiplayer/scripts/count-instructions.sh`), which, unlike this machine's
//! timings, do not move from run to run. The cases are `benches/rpc.rs`'s.
//!
//! `<bench binary> MODE N` runs MODE N times. Modes, each for `move`, `chat` and
//! `state` (`send/move`, ...):
//! - `send`: `Session::rpc` with the arguments as a Rust tuple, out as a `Transmit`;
//! - `receive`: a peer's call packet into `Session::receive`, out as an `Event::Call`,
//!   its arguments read by `Call::args` into the handler's types;
//! - `receive_variants`: the same, the arguments read as `Variant`s
//!   (`Arguments::into_variants`);
//! - `in_place`: the packet read by `Session::receive_call` into the handler's types;
//! - `borrowed` (`chat` only): the same with the text borrowed, `(&str, i64)`;
//! - `encode` and `decode`: the packet alone, `Packet::encode_into` and
//!   `Packet::decode` (to `Variant`s);
//! - `decode_in_place` (`move` only): `CallRef::decode` and `Args::get`;
//! - `receive3` and `in_place3`: `receive`, and `in_place` by `receive_call3`, of the
//!   same call as a Godot 3 peer sends it, to a Godot 3 server.
//!
//! Run with no mode (as `cargo bench` does), it does each once and says how it is
//! meant to be used.

use std::collections::BTreeMap;
use std::hint::black_box;

use godot_bin::{Dictionary, Variant, Vector3};
use godot_bin_multiplayer::{godot3, CallRef, Delivery, Event, NodeRef, Packet, Protocol};
use godot_bin_multiplayer::{Scene, Session, Target};

include!("common/rpc_cases.rs");

const MODES: [&str; 26] = [
    "send/move",
    "send/chat",
    "send/state",
    "receive/move",
    "receive/chat",
    "receive/state",
    "receive_variants/move",
    "receive_variants/chat",
    "receive_variants/state",
    "in_place/move",
    "in_place/chat",
    "in_place/state",
    "borrowed/chat",
    "encode/move",
    "encode/chat",
    "encode/state",
    "decode/move",
    "decode/chat",
    "decode/state",
    "decode_in_place/move",
    "receive3/move",
    "receive3/chat",
    "receive3/state",
    "in_place3/move",
    "in_place3/chat",
    "in_place3/state",
];

/// What one mode works on, made before the operation is repeated.
struct Setup {
    server: Session,
    packet: Vec<u8>,
    call: Packet,
    out: Vec<u8>,
    units: BTreeMap<i64, Unit>,
}

const MOVE: (Vector3, Vector3, i64, bool) = (
    Vector3 {
        x: 12.5,
        y: 0.0,
        z: -3.25,
    },
    Vector3 {
        x: 1.0,
        y: 0.0,
        z: 0.5,
    },
    1_234_567,
    true,
);

fn setup(case: &str, godot3: bool) -> Setup {
    let (_, args) = cases().into_iter().find(|(name, _)| *name == case).unwrap();
    if godot3 {
        return setup3(case, args);
    }
    let packet = call_packet(case, args);
    Setup {
        server: server(),
        call: Packet::decode(&packet).unwrap(),
        packet,
        out: Vec::new(),
        units: units(),
    }
}

/// [`setup`] of the call as a Godot 3 peer sends it, to a Godot 3 server.
fn setup3(case: &str, args: Vec<Variant>) -> Setup {
    let call = Packet::decode(&call_packet(case, args.clone())).unwrap();
    let packet = godot3::Packet::Call(godot3::RemoteCall {
        node: NodeRef::Cached(1),
        method: case.into(),
        args,
    })
    .encode()
    .unwrap();
    Setup {
        server: server3(),
        call,
        packet,
        out: Vec::new(),
        units: units(),
    }
}

/// A Godot 3 server session with peer 2 connected and the peer's cache id 1 for the
/// node, and nothing left to poll.
fn server3() -> Session {
    let mut server = Session::server(Scene::new().node("Game", METHODS)).protocol(Protocol::Godot3);
    server.connect(2);
    let simplify = godot3::Packet::SimplifyPath {
        id: 1,
        path: "Game".into(),
    };
    server
        .receive(2, Delivery::default(), &simplify.encode().unwrap())
        .unwrap();
    while server.poll_event().is_some() {}
    while server.poll_transmit().is_some() {}
    server
}

// One function per operation, out of line: each compiles as it would in a program
// that calls it, not folded into the loop.
#[inline(never)]
fn send(s: &mut Setup, case: &str) {
    let server = &mut s.server;
    match case {
        "move" => server.rpc(Target::Peer(2), "Game", case, black_box(&MOVE)),
        "chat" => server.rpc(
            Target::Peer(2),
            "Game",
            case,
            black_box(&("hello everyone, gg!", 42)),
        ),
        _ => server.rpc(Target::Peer(2), "Game", case, black_box(&(&s.units, 7))),
    }
    .unwrap();
    black_box(server.poll_transmit().unwrap());
}

/// A call received as an `Event::Call`, its arguments read by `Call::args` into the
/// handler's types (`variants`: by `Arguments::to_variants`).
#[inline(never)]
fn receive(s: &mut Setup, variants: bool) {
    s.server
        .receive(2, Delivery::default(), black_box(&s.packet))
        .unwrap();
    let Some(Event::Call(call)) = s.server.poll_event() else {
        panic!("no call")
    };
    if variants {
        drop(black_box(call.args.into_variants().unwrap()));
        return;
    }
    match call.method.as_str() {
        "move" => drop(black_box(
            call.args::<(Vector3, Vector3, i64, bool)>().unwrap(),
        )),
        "chat" => drop(black_box(call.args::<(String, i64)>().unwrap())),
        _ => drop(black_box(
            call.args::<(BTreeMap<i64, Unit>, i64)>().unwrap(),
        )),
    }
}

#[inline(never)]
fn in_place(s: &mut Setup, borrowed: bool) {
    let call = s
        .server
        .receive_call(2, Delivery::default(), black_box(&s.packet))
        .unwrap()
        .unwrap();
    handle!(call, "chat" if borrowed => drop(black_box(call.args.get::<(&str, i64)>().unwrap())))
}

/// [`in_place`] of a Godot 3 call (`receive_call3`).
#[inline(never)]
fn in_place3(s: &mut Setup) {
    let call = s
        .server
        .receive_call3(2, Delivery::default(), black_box(&s.packet))
        .unwrap()
        .unwrap();
    handle!(call)
}

#[inline(never)]
fn encode(s: &mut Setup) {
    s.out.clear();
    black_box(&s.call).encode_into(&mut s.out).unwrap();
    black_box(s.out.len());
}

#[inline(never)]
fn decode(s: &Setup) {
    drop(black_box(Packet::decode(black_box(&s.packet)).unwrap()));
}

#[inline(never)]
fn decode_in_place(s: &Setup) {
    let call = CallRef::decode(black_box(&s.packet)).unwrap().unwrap();
    black_box((
        call.method,
        call.args.get::<(Vector3, Vector3, i64, bool)>().unwrap(),
    ));
}

/// An operation, told from its mode's name once, before the loop.
#[derive(Clone, Copy)]
enum Op {
    Send,
    Receive,
    ReceiveVariants,
    InPlace,
    InPlace3,
    Borrowed,
    Encode,
    Decode,
    DecodeInPlace,
}

fn run(mode: &str, n: usize) {
    let (name, case) = mode.split_once('/').unwrap();
    let mut s = setup(case, name.ends_with('3'));
    let op = match name {
        "send" => Op::Send,
        "receive" | "receive3" => Op::Receive,
        "receive_variants" => Op::ReceiveVariants,
        "in_place" => Op::InPlace,
        "in_place3" => Op::InPlace3,
        "borrowed" => Op::Borrowed,
        "encode" => Op::Encode,
        "decode" => Op::Decode,
        "decode_in_place" => Op::DecodeInPlace,
        _ => unreachable!(),
    };
    for _ in 0..n {
        match op {
            Op::Send => send(&mut s, case),
            Op::Receive => receive(&mut s, false),
            Op::ReceiveVariants => receive(&mut s, true),
            Op::InPlace => in_place(&mut s, false),
            Op::InPlace3 => in_place3(&mut s),
            Op::Borrowed => in_place(&mut s, true),
            Op::Encode => encode(&mut s),
            Op::Decode => decode(&s),
            Op::DecodeInPlace => decode_in_place(&s),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some(mode) if MODES.contains(&mode) => {
            let n = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
            run(mode, n);
        }
        _ => {
            for mode in MODES {
                run(mode, 1);
            }
            println!(
                "instructions: run as `<binary> MODE N` under callgrind \
                 (multiplayer/scripts/count-instructions.sh); modes: {MODES:?}"
            );
        }
    }
}
