//! What a client sends for a call to every peer and to every peer but one, against
//! the engines: Godot 4.6 and Godot 3.6 clients, with a server and one other client,
//! called before and after every peer confirmed the path
//! (tests/oracle/broadcast4.gd, broadcast3.gd; fixtures from
//! multiplayer/scripts/gen-fixtures.sh). A `Session` playing the client is given
//! what the engine's client was given and makes the same calls; it must send exactly
//! what the engine's client sent, packet by packet, with the same target. Godot 4
//! sends a packet per peer (through the server's relay for the other client);
//! Godot 3, once the path is confirmed, one packet whose transport header names
//! every peer (0) or every peer but one (-N).

mod sessions;

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

/// Plays the client through the log, with `Session::call` (Variants) or `fast`,
/// `Session::rpc_with`; returns what it sent and what the engine's client sent.
fn play(
    log: &[Value],
    protocol: Protocol,
    fast: bool,
    mine: impl Fn(&Value) -> Option<Transmit>,
    to_me: impl Fn(&Value) -> Option<i32>,
) -> (Vec<Transmit>, Vec<Transmit>) {
    let dialect = match protocol {
        Protocol::Godot4 => Dialect::Godot4,
        Protocol::Godot3 => Dialect::Godot3,
    };
    let mut s = Session::client(ME, Scene::new().node("Game", ["one", "two"])).protocol(protocol);
    s.connect(1);
    if protocol == Protocol::Godot3 {
        // Godot 3's transport tells a client of the other clients itself.
        s.connect(OTHER);
    }
    drain(&mut s);
    let (mut sent, mut expected) = (vec![], vec![]);
    for line in log {
        if let Some(method) = line.get("call").and_then(Value::as_str) {
            let (target, args) = (target(line), args(line, dialect));
            let delivery = Delivery::default();
            if fast {
                s.rpc_with(target, "Game", method, &args, delivery)
            } else {
                s.call(target, "Game", method, args, delivery)
            }
            .unwrap();
        } else if let Some(t) = mine(line) {
            expected.push(t);
        } else if let Some(from) = to_me(line) {
            s.receive(from, reliable(line), &hex(line, "hex")).unwrap();
        }
        sent.extend(drain(&mut s).0);
    }
    (sent, expected)
}

fn assert_same(sent: &[Transmit], expected: &[Transmit], min: usize) {
    assert!(expected.len() >= min, "{}", expected.len());
    for (i, (ours, engine)) in sent.iter().zip(expected).enumerate() {
        assert_eq!(ours, engine, "packet {i}");
    }
    assert_eq!(sent.len(), expected.len());
}

#[test]
fn a_godot4_client_sends_to_all_as_the_engine_does() {
    let log = lines(include_str!("fixtures/broadcast4.6.jsonl"));
    for fast in [false, true] {
        let (sent, expected) = play(
            &log,
            Protocol::Godot4,
            fast,
            |line| {
                (line["packet"] == "c2s").then(|| Transmit {
                    to: line["to"].as_i64().unwrap() as i32,
                    delivery: reliable(line),
                    bytes: hex(line, "hex"),
                })
            },
            // Everything reaches a Godot 4 client from the server.
            |line| (line["packet"] == "s2c").then_some(1),
        );
        assert_same(&sent, &expected, 13);
    }
}

#[test]
fn a_godot3_client_sends_to_all_as_the_engine_does() {
    let log = lines(include_str!("fixtures/broadcast3.6.jsonl"));
    let peer = |name: &Value| match name.as_str().unwrap() {
        "s" => 1,
        "c" => ME,
        "d" => OTHER,
        n => panic!("{n}"),
    };
    for fast in [false, true] {
        let (sent, expected) = play(
            &log,
            Protocol::Godot3,
            fast,
            |line| {
                (line.get("packet") == Some(&"c".into())).then(|| Transmit {
                    to: line["to"].as_i64().unwrap() as i32,
                    delivery: reliable(line),
                    bytes: hex(line, "hex"),
                })
            },
            // A packet reaches this client when its target is this client, every
            // peer, or every peer but another.
            |line| {
                let from = peer(line.get("packet")?);
                let to = line["to"].as_i64().unwrap() as i32;
                (from != ME && (to == ME || to == 0 || (to < 0 && to != -ME))).then_some(from)
            },
        );
        assert_same(&sent, &expected, 11);
        // After the path is confirmed: one packet to all and to all but one.
        for to in [0, -OTHER, -1] {
            assert!(sent.iter().any(|t| t.to == to), "{to}");
        }
    }
}
