//! Godot 3's MultiplayerAPI packets against what Godot 3.6 sent
//! (tests/fixtures/godot3.6.jsonl, from tests/oracle/mp3.gd through
//! scripts/gen-fixtures.sh): every packet reads and writes back to the same bytes,
//! and every call, fixed and seeded random, is built from its arguments to exactly
//! the engine's bytes. Hostile packets are refused with their kind and offset.

use godot_bin::{Config, Dialect, Variant};
use godot_bin_multiplayer::godot3::{Packet, RemoteCall, WsHeader, WsKind};
use godot_bin_multiplayer::{ErrorKind, NodeRef};
use serde_json::Value;

fn lines() -> Vec<Value> {
    include_str!("fixtures/godot3.6.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn hex(v: &Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap()).unwrap()
}

/// Our bytes equal the engine's, except that Godot 3 leaves a NodePath's padding
/// uninitialised: there, only a byte we wrote as 0 may differ.
fn same_bytes(ours: &[u8], engine: &[u8], packet: &Packet) -> bool {
    let has_nodepath = format!("{packet:?}").contains("NodePath(");
    ours.len() == engine.len()
        && ours
            .iter()
            .zip(engine)
            .all(|(a, b)| a == b || (has_nodepath && *a == 0))
}

fn args(line: &Value) -> Vec<Variant> {
    match Config::new()
        .dialect(Dialect::Godot3)
        .from_slice::<Variant>(&hex(line, "args"))
        .unwrap()
    {
        Variant::Array(a) => a,
        v => panic!("{v:?}"),
    }
}

#[test]
fn every_engine_packet_reads_and_writes_back() {
    let packets: Vec<Vec<u8>> = lines()
        .iter()
        .filter(|l| l.get("packet").is_some())
        .map(|l| hex(l, "hex"))
        .collect();
    assert!(packets.len() > 400, "{}", packets.len());
    for p in &packets {
        let packet = Packet::decode(p).unwrap_or_else(|e| panic!("{}: {e}", hex::encode(p)));
        assert!(
            same_bytes(&packet.encode().unwrap(), p, &packet),
            "{packet:?}"
        );
    }
}

#[test]
fn every_call_is_built_to_the_engines_bytes() {
    let lines = lines();
    let (mut by_path, mut cached, mut sets) = (0, 0, 0);
    for (i, line) in lines.iter().enumerate() {
        let (name, is_set) = match (line.get("call"), line.get("rset")) {
            (Some(m), _) => (m.as_str().unwrap(), false),
            (_, Some(p)) => (p.as_str().unwrap(), true),
            _ => continue,
        };
        let sent = lines[i + 1..]
            .iter()
            .filter(|l| l.get("packet").is_some())
            .map(|l| hex(l, "hex"))
            .find(|p| p[0] <= 1)
            .unwrap();
        let got = Packet::decode(&sent).unwrap();
        let node = match &got {
            Packet::Call(c) => c.node.clone(),
            Packet::Set { node, .. } => node.clone(),
            p => panic!("{p:?}"),
        };
        match &node {
            NodeRef::Path(p) => {
                assert_eq!(p, "Game");
                by_path += 1
            }
            NodeRef::Cached(1) => cached += 1,
            n => panic!("{n:?}"),
        }
        let mut a = args(line);
        let built = if is_set {
            sets += 1;
            Packet::Set {
                node,
                property: name.into(),
                value: a.remove(0),
            }
        } else {
            Packet::Call(RemoteCall {
                node,
                method: name.into(),
                args: a,
            })
        };
        assert_eq!(got, built, "line {i}");
        let ours = built.encode().unwrap();
        assert!(
            same_bytes(&ours, &sent, &built),
            "line {i}: ours {}, engine {}",
            hex::encode(&ours),
            hex::encode(&sent)
        );
    }
    assert_eq!((by_path, cached, sets), (3, 403, 1));
    // Each call the receiver ran got the arguments sent (compared as values, exactly:
    // Godot 3 leaves NodePath padding unwritten in its bytes).
    let cfg = Config::new().dialect(Dialect::Godot3);
    let listed = |key: &str| -> Vec<(String, String)> {
        lines
            .iter()
            .filter_map(|l| {
                let method = l.get(key)?.as_str()?.to_owned();
                let args: Variant = cfg.from_slice(&hex(l, "args")).unwrap();
                Some((method, format!("{args:?}")))
            })
            .collect()
    };
    let (mut ran, mut called) = (listed("ran"), listed("call"));
    assert_eq!(ran.len(), 405);
    // The engine runs them as its frames take them, not always in the order sent.
    ran.sort();
    called.sort();
    assert_eq!(ran, called);
}

#[test]
fn the_path_cache_packets_are_the_engines() {
    let lines = lines();
    let packets: Vec<Packet> = lines
        .iter()
        .filter(|l| l.get("packet").is_some())
        .map(|l| Packet::decode(&hex(l, "hex")).unwrap())
        .collect();
    let simplify = Packet::SimplifyPath {
        id: 1,
        path: "Game".into(),
    };
    assert_eq!(packets.iter().filter(|p| **p == simplify).count(), 2);
    let confirm = Packet::ConfirmPath("Game".into());
    assert_eq!(packets.iter().filter(|p| **p == confirm).count(), 2);
    assert_eq!(simplify.encode().unwrap(), b"\x02\x01\x00\x00\x00Game\0");
    assert_eq!(confirm.encode().unwrap(), b"\x03Game\0");
}

#[test]
fn hostile_packets_are_refused() {
    let cases: &[(&[u8], &str, usize)] = &[
        (b"", "Empty", 0),
        (b"\x05", "UnknownCommand(5)", 0),
        (b"\x00\x01\x00", "Truncated(\"the node id\")", 1),
        // No NUL after the method name.
        (b"\x00\x01\x00\x00\x00ping", "Unterminated", 5),
        (
            b"\x00\x01\x00\x00\x00ping\0",
            "Truncated(\"the argument count\")",
            10,
        ),
        // 200 arguments in 4 bytes.
        (
            b"\x00\x01\x00\x00\x00p\0\xc8\0\0\0\0",
            "Truncated(\"the arguments\")",
            12,
        ),
        // Path offset before the arguments, and past the end.
        (b"\x00\x02\x00\x00\x80p\0\x00Game\0", "PathOffset(2)", 1),
        (b"\x00\x40\x00\x00\x80p\0\x00Game\0", "PathOffset(64)", 1),
        // One argument too many bytes.
        (
            b"\x00\x01\x00\x00\x00p\0\x01\x00\x00\x00\x00\x00",
            "Trailing(1)",
            12,
        ),
        (b"\x02\x01\x00\x00\x00Game", "Unterminated", 5),
        (b"\x03Ga\xffme\0", "Utf8(\"node path\")", 3),
        (b"\x01\x01\x00\x00\x00hp\0", "Argument", 8),
    ];
    for (bytes, kind, offset) in cases {
        let e = Packet::decode(bytes).unwrap_err();
        let got = format!("{:?}", e.kind());
        assert!(
            got.starts_with(kind),
            "{}: {got} at {}",
            hex::encode(bytes),
            e.offset()
        );
        assert_eq!(e.offset(), *offset, "{}: {got}", hex::encode(bytes));
    }
}

#[test]
fn websocket_headers() {
    let msg = WsHeader {
        kind: WsKind::Payload,
        from: 7,
        to: -9,
    }
    .wrap(b"\x04hi");
    assert_eq!(msg, b"\x00\x07\x00\x00\x00\xf7\xff\xff\xff\x04hi");
    let (h, body) = WsHeader::split(&msg).unwrap();
    assert_eq!(
        (h, body),
        (
            WsHeader {
                kind: WsKind::Payload,
                from: 7,
                to: -9
            },
            &b"\x04hi"[..]
        )
    );
    assert_eq!(
        WsHeader::system(WsKind::Id, 5),
        b"\x03\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00"
    );
    assert!(matches!(
        WsHeader::split(b"\x04\0\0\0\0\0\0\0\0").unwrap_err().kind(),
        ErrorKind::UnknownCommand(4)
    ));
    assert!(matches!(
        WsHeader::split(b"\x00\0\0\0\0\0\0\0").unwrap_err().kind(),
        ErrorKind::Truncated(_)
    ));
}

/// Plays one side (`me`, talking to `peer`) of the engine log through a Godot 3
/// `Session`: it must send exactly what that side of the engine sent and report
/// every call and rset it received.
/// Plays one side (`me`, talking to `peer`) through the engine log, receiving with
/// `Session::receive` or (`fast`) `Session::receive_call3`, whose calls read in place
/// must be the engine's calls too (their arguments as a typed `Vec<Variant>`, and as
/// `Args::to_variants`).
fn replay(me: i32, peer: i32, mine: &str, fast: bool) {
    use godot_bin_multiplayer::{Delivery, Event, Protocol, Scene, Session, Target};
    let scene = Scene::new().node("Game", ["ping", "one", "two", "three"]);
    let mut s = if me == 1 {
        Session::server(scene)
    } else {
        Session::client(me, scene)
    }
    .protocol(Protocol::Godot3);
    s.connect(peer);
    assert_eq!(s.poll_event(), Some(Event::PeerConnected(peer)));
    let (mut sent, mut expected, mut got, mut expected_got) = (vec![], vec![], vec![], vec![]);
    for line in lines() {
        if let Some(method) = line.get("call").and_then(Value::as_str) {
            if line["to"] == peer {
                s.call(
                    Target::Peer(peer),
                    "Game",
                    method,
                    args(&line),
                    Delivery::default(),
                )
                .unwrap();
            } else {
                expected_got.push(Event::Call(godot_bin_multiplayer::Call {
                    from: peer,
                    node: "Game".into(),
                    method: method.into(),
                    args: args(&line).into(),
                }));
            }
        } else if let Some(property) = line.get("rset").and_then(Value::as_str) {
            let value = args(&line).remove(0);
            if line["to"] == peer {
                s.set(
                    Target::Peer(peer),
                    "Game",
                    property,
                    value,
                    Delivery::default(),
                )
                .unwrap();
            } else {
                expected_got.push(Event::Set {
                    from: peer,
                    node: "Game".into(),
                    property: property.into(),
                    value,
                });
            }
        } else if let Some(dir) = line.get("packet").and_then(Value::as_str) {
            assert_eq!(line["mode"], 2, "every call here is reliable");
            let bytes = hex(&line, "hex");
            if dir == mine {
                expected.push(bytes);
            } else if fast {
                if let Some(c) = s.receive_call3(peer, Delivery::default(), &bytes).unwrap() {
                    let typed: Vec<Variant> = c.args.get().unwrap();
                    // Exactly (`Debug`): `==` takes a String for a StringName.
                    let variants = c.args.to_variants().unwrap();
                    assert_eq!(
                        format!("{typed:?}"),
                        format!("{variants:?}"),
                        "{}",
                        c.method
                    );
                    got.push(Event::Call(godot_bin_multiplayer::Call {
                        from: c.from,
                        node: c.node.into(),
                        method: c.method.into(),
                        args: typed.into(),
                    }));
                }
            } else {
                s.receive(peer, Delivery::default(), &bytes).unwrap();
            }
        }
        while let Some(t) = s.poll_transmit() {
            assert_eq!(t.to, peer);
            sent.push(t.bytes);
        }
        for e in std::iter::from_fn(|| s.poll_event()) {
            let call = matches!(e, Event::Call(_));
            assert!(
                !(fast && call),
                "receive_call3 gives every call in place: {e:?}"
            );
            got.push(e);
        }
    }
    // Typed arguments of every Godot 3 type: as a Vec<Variant>, the same.
    for e in &got {
        if let Event::Call(c) = e {
            let typed: Vec<Variant> = c.args().unwrap();
            assert_eq!(
                format!("{typed:?}"),
                format!("{:?}", c.args),
                "{}",
                c.method
            );
        }
    }
    assert!(expected.len() > 150, "{}", expected.len());
    // The engine answers a SIMPLIFY_PATH when it next polls, after what that frame
    // sent; a Session answers at once. Confirmations are compared on their own.
    let (confirms, sent): (Vec<_>, Vec<_>) = sent.into_iter().partition(|b| b[0] == 3);
    let (engine_confirms, expected): (Vec<_>, Vec<_>) =
        expected.into_iter().partition(|b| b[0] == 3);
    assert_eq!(confirms, engine_confirms);
    assert_eq!(sent.len(), expected.len());
    for (i, (ours, engine)) in sent.iter().zip(&expected).enumerate() {
        let packet = Packet::decode(ours).unwrap();
        assert!(
            same_bytes(ours, engine, &packet),
            "packet {i}: ours {}, engine {}",
            hex::encode(ours),
            hex::encode(engine)
        );
    }
    assert!(expected_got.len() > 150);
    // Exactly (`Debug`): `==` takes a String for a StringName.
    assert_eq!(format!("{got:?}"), format!("{expected_got:?}"));
}

#[test]
fn a_godot3_server_session_sends_what_the_engines_server_sent() {
    replay(1, 1234567, "s2c", false);
}

#[test]
fn a_godot3_client_session_sends_what_the_engines_client_sent() {
    replay(1234567, 1, "c2s", false);
}

#[test]
fn a_godot3_server_session_reads_the_engines_client_calls_in_place() {
    replay(1, 1234567, "s2c", true);
}

#[test]
fn a_godot3_client_session_reads_the_engines_server_calls_in_place() {
    replay(1234567, 1, "c2s", true);
}

#[test]
fn enet_notices_and_payload_headers() {
    use godot_bin_multiplayer::wire::{self, Enet3Notice};
    // As Godot 3's NetworkedMultiplayerENet writes them: kind, then the peer id.
    assert_eq!(Enet3Notice::Add(9).encode(), [0, 0, 0, 0, 9, 0, 0, 0]);
    assert_eq!(Enet3Notice::Remove(9).encode(), [1, 0, 0, 0, 9, 0, 0, 0]);
    for n in [Enet3Notice::Add(2), Enet3Notice::Remove(i32::MAX)] {
        assert_eq!(Enet3Notice::decode(&n.encode()).unwrap(), n);
    }
    let kind = |b: &[u8]| format!("{:?}", Enet3Notice::decode(b).unwrap_err().kind());
    assert_eq!(kind(&[2, 0, 0, 0, 9, 0, 0, 0]), "UnknownCommand(2)");
    assert_eq!(
        kind(&[0, 0, 0, 0, 9, 0, 0]),
        "Truncated(\"the source and target ids\")"
    );
    assert_eq!(kind(&[0, 0, 0, 0, 9, 0, 0, 0, 0]), "Trailing(1)");
    assert_eq!(wire::read_id_message(&[1, 0, 0, 0]), None);
    assert_eq!(wire::read_id_message(&[0, 0, 0, 0x80]), None);
    assert_eq!(wire::read_id_message(&[5, 0, 0]), None);
    assert_eq!(
        wire::enet3_payload(-3, 0, b""),
        [0xfd, 0xff, 0xff, 0xff, 0, 0, 0, 0]
    );
}
