//! Calls to every peer and to every peer but one, from a client and from the
//! server, against the engines: Godot 4.6 and Godot 3.6, a server and two clients,
//! calling before and after every peer confirmed the path
//! (tests/oracle/broadcast4.gd, broadcast3.gd; fixtures from
//! multiplayer/scripts/gen-fixtures.sh). A `Session` playing the client, or the
//! server, is given what that engine side was given and makes the same calls; it
//! must send exactly what the engine sent, packet by packet, with the same target.
//! Godot 4 sends a packet per peer (a client through the server's relay for the
//! other client); Godot 3, once the path is confirmed, one packet whose transport
//! header names every peer (0) or every peer but one (-N).

mod sessions;

use std::collections::BTreeMap;

use godot_bin::{Config, Dialect, Variant};
use godot_bin_multiplayer::{Delivery, Mode, Protocol, Scene, Session, Target, Transmit};
use serde_json::Value;
use sessions::drain;

const ME: i32 = 1234567;
const OTHER: i32 = 777;

fn lines(jsonl: &str) -> Vec<Value> {
    jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn hex(v: &Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap()).unwrap()
}

fn target(line: &Value) -> Target {
    match line["to"].as_i64().unwrap() as i32 {
        0 => Target::All,
        to if to < 0 => Target::AllBut(-to),
        to => Target::Peer(to),
    }
}

fn args(line: &Value, dialect: Dialect) -> Vec<Variant> {
    match Config::new()
        .dialect(dialect)
        .from_slice(&hex(line, "args"))
        .unwrap()
    {
        Variant::Array(a) => a,
        v => panic!("{v:?}"),
    }
}

fn reliable(line: &Value) -> Delivery {
    assert_eq!(line["mode"], 2, "{line}");
    Delivery {
        mode: Mode::Reliable,
        channel: line["channel"].as_u64().unwrap_or(0) as u8,
    }
}

/// A logged packet as the `Transmit` that sends it.
fn transmit(line: &Value) -> Transmit {
    Transmit {
        to: line["to"].as_i64().unwrap() as i32,
        delivery: reliable(line),
        bytes: hex(line, "hex"),
    }
}

/// The side `me` ("c" or "s") of the log played by a session: `me`'s calls made with
/// `Session::call` (Variants) or, `fast`, `Session::rpc_with`, the packets `to_me`
/// says reached it (giving their sender) received. Returns what the session sent,
/// from its connections on, and what the engine sent, the packets `mine` picks.
fn play(
    mut s: Session,
    peers: &[i32],
    me: &str,
    log: &[Value],
    fast: bool,
    mine: impl Fn(&Value) -> bool,
    to_me: impl Fn(&Value) -> Option<i32>,
) -> (Vec<Transmit>, Vec<Transmit>) {
    let dialect = match s.get_protocol() {
        Protocol::Godot4 => Dialect::Godot4,
        Protocol::Godot3 => Dialect::Godot3,
    };
    for &p in peers {
        s.connect(p);
    }
    let (mut sent, mut expected) = (drain(&mut s).0, vec![]);
    for line in log {
        if let Some(method) = line.get("call").and_then(Value::as_str) {
            if line["from"] != me {
                continue;
            }
            let (target, args) = (target(line), args(line, dialect));
            let delivery = Delivery::default();
            if fast {
                s.rpc_with(target, "Game", method, &args, delivery)
            } else {
                s.call(target, "Game", method, args, delivery)
            }
            .unwrap();
        } else if line.get("packet").is_none() {
            continue;
        } else if mine(line) {
            expected.push(transmit(line));
        } else if let Some(from) = to_me(line) {
            s.receive(from, reliable(line), &hex(line, "hex")).unwrap();
        }
        sent.extend(drain(&mut s).0);
    }
    (sent, expected)
}

/// The same packets, in the same order for each destination (the order between
/// destinations is not seen by anyone: Godot 4 goes through its peers as they
/// connected, Godot 3 and the crate by id).
fn assert_same(sent: &[Transmit], expected: &[Transmit], min: usize) {
    assert!(expected.len() >= min, "{}", expected.len());
    let by_peer = |ts: &[Transmit]| {
        let mut m: BTreeMap<i32, Vec<Transmit>> = BTreeMap::new();
        for t in ts {
            m.entry(t.to).or_default().push(t.clone());
        }
        m
    };
    let (ours, engine) = (by_peer(sent), by_peer(expected));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        engine.keys().collect::<Vec<_>>()
    );
    for (to, engine) in engine {
        for (i, (ours, engine)) in ours[&to].iter().zip(&engine).enumerate() {
            assert_eq!(ours, engine, "packet {i} to {to}");
        }
        assert_eq!(ours[&to].len(), engine.len(), "to {to}");
    }
}

fn scene() -> Scene {
    Scene::new().node("Game", ["one", "two"])
}

fn godot4() -> Vec<Value> {
    lines(include_str!("fixtures/broadcast4.6.jsonl"))
}

fn godot3() -> Vec<Value> {
    lines(include_str!("fixtures/broadcast3.6.jsonl"))
}

/// The Godot 3 peer that sent a logged packet.
fn sender(line: &Value) -> i32 {
    match line["packet"].as_str().unwrap() {
        "s" => 1,
        "c" => ME,
        "d" => OTHER,
        n => panic!("{n}"),
    }
}

/// Whether a Godot 3 packet for `to`, sent by `from`, reaches `peer`, as a relaying
/// transport delivers it.
fn reaches(from: i32, to: i32, peer: i32) -> bool {
    from != peer && (to == peer || to == 0 || (to < 0 && to != -peer))
}

#[test]
fn a_godot4_client_sends_to_all_as_the_engine_does() {
    for fast in [false, true] {
        let (sent, expected) = play(
            Session::client(ME, scene()),
            &[1],
            "c",
            &godot4(),
            fast,
            |line| line["packet"] == "c2s",
            // Everything reaches a Godot 4 client from the server.
            |line| (line["packet"] == "s2c").then_some(1),
        );
        assert_same(&sent, &expected, 13);
    }
}

#[test]
fn a_godot4_server_sends_to_all_as_the_engine_does() {
    for fast in [false, true] {
        let (sent, expected) = play(
            Session::server(scene()),
            &[ME, OTHER],
            "s",
            &godot4(),
            fast,
            |line| matches!(line["packet"].as_str(), Some("s2c" | "s2d")),
            |line| match line["packet"].as_str() {
                Some("c2s") => Some(ME),
                Some("d2s") => Some(OTHER),
                _ => None,
            },
        );
        assert_same(&sent, &expected, 20);
    }
}

#[test]
fn a_godot3_client_sends_to_all_as_the_engine_does() {
    for fast in [false, true] {
        let (sent, expected) = play(
            // Godot 3's transport tells a client of the other clients itself.
            Session::client(ME, scene()).protocol(Protocol::Godot3),
            &[1, OTHER],
            "c",
            &godot3(),
            fast,
            |line| sender(line) == ME,
            |line| {
                let (from, to) = (sender(line), line["to"].as_i64().unwrap() as i32);
                reaches(from, to, ME).then_some(from)
            },
        );
        assert_same(&sent, &expected, 11);
        // After the path is confirmed: one packet to all and to all but one.
        for to in [0, -OTHER, -1] {
            assert!(sent.iter().any(|t| t.to == to), "{to}");
        }
    }
}

#[test]
fn a_godot3_server_sends_to_all_as_the_engine_does() {
    for fast in [false, true] {
        let (sent, expected) = play(
            Session::server(scene()).protocol(Protocol::Godot3),
            &[ME, OTHER],
            "s",
            &godot3(),
            fast,
            |line| sender(line) == 1,
            |line| {
                let (from, to) = (sender(line), line["to"].as_i64().unwrap() as i32);
                reaches(from, to, 1).then_some(from)
            },
        );
        assert_same(&sent, &expected, 10);
        for to in [0, -OTHER, -ME] {
            assert!(sent.iter().any(|t| t.to == to), "{to}");
        }
    }
}

/// A Godot 3 server with peers 2 and 3 that confirmed the path of `Game`.
fn confirmed_godot3_server() -> Session {
    let mut s = Session::server(scene()).protocol(Protocol::Godot3);
    s.connect(2);
    s.connect(3);
    s.rpc(Target::All, "Game", "one", &(0,)).unwrap();
    let confirm = godot_bin_multiplayer::godot3::Packet::ConfirmPath("Game".into())
        .encode()
        .unwrap();
    for p in [2, 3] {
        s.receive(p, Delivery::default(), &confirm).unwrap();
    }
    drain(&mut s);
    s
}

/// A Godot 3 call to several names the peers connected when it was made, whenever
/// the transport takes it: a peer that joins before then does not get it (it was
/// never given the path the call names by id), and one that leaves takes its part
/// with it; a call that names no one left is gone. A client's goes to the server,
/// and is gone with it.
#[test]
fn a_godot3_call_to_several_goes_to_those_there_when_it_was_made() {
    let tos = |s: &mut Session| -> Vec<i32> { drain(s).0.iter().map(|t| t.to).collect() };
    let mut s = confirmed_godot3_server();
    s.rpc(Target::All, "Game", "one", &(1,)).unwrap();
    s.rpc(Target::AllBut(2), "Game", "one", &(2,)).unwrap();
    s.connect(4);
    assert_eq!(tos(&mut s), [2, 3, 3]);

    let mut s = confirmed_godot3_server();
    s.rpc(Target::All, "Game", "one", &(1,)).unwrap();
    s.rpc(Target::AllBut(3), "Game", "one", &(2,)).unwrap();
    s.disconnect(2);
    assert_eq!(tos(&mut s), [0]);

    let mut s = confirmed_godot3_server();
    s.rpc(Target::All, "Game", "one", &(1,)).unwrap();
    s.disconnect(2);
    s.disconnect(3);
    assert_eq!(tos(&mut s), [0i32; 0]);

    let mut c = Session::client(ME, scene()).protocol(Protocol::Godot3);
    c.connect(1);
    c.connect(OTHER);
    c.rpc(Target::All, "Game", "one", &(0,)).unwrap();
    let confirm = godot_bin_multiplayer::godot3::Packet::ConfirmPath("Game".into())
        .encode()
        .unwrap();
    for p in [1, OTHER] {
        c.receive(p, Delivery::default(), &confirm).unwrap();
    }
    drain(&mut c);
    c.rpc(Target::All, "Game", "one", &(1,)).unwrap();
    c.disconnect(OTHER);
    assert_eq!(tos(&mut c), [0]);
    c.rpc(Target::All, "Game", "one", &(1,)).unwrap();
    c.disconnect(1);
    assert_eq!(tos(&mut c), [0i32; 0]);
}
