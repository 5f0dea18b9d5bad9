//! The sans-IO `Session` against the engine and against hostile peers.
//!
//! Replays: the packets Godot 4.6's SceneMultiplayer exchanged between a server and a
//! client (tests/fixtures/godot4.6.jsonl, from tests/oracle/mp4.gd) are fed to a
//! Session playing one side, which must send exactly what that side of the engine
//! sent (bytes, channel, transfer mode) and report every call it received.

mod sessions;

use godot_bin::{Config, Dialect, Variant, Vector3};
use godot_bin_multiplayer::{
    Delivery, ErrorKind, Event, Limits, Mode, NodeRef, Packet, Protocol, RemoteCall, RpcMode,
    Scene, Session, Sys, Target, Transmit,
};
use serde_json::Value;
use sessions::drain;

const CLIENT: i32 = 1234567;

fn lines() -> Vec<Value> {
    include_str!("fixtures/godot4.6.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn hex(v: &Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap()).unwrap()
}

fn scene() -> Scene {
    Scene::new().node("Game", ["ping", "blob", "one", "two", "three"])
}

fn args(line: &Value) -> Vec<Variant> {
    match Config::new()
        .dialect(Dialect::Godot4)
        .from_slice::<Variant>(&hex(line, "args"))
        .unwrap()
    {
        Variant::Array(a) => a,
        v => panic!("{v:?}"),
    }
}

/// How mp4.gd declares each method: `three` is unreliable on channel 2.
fn delivery(method: &str) -> Delivery {
    match method {
        "three" => Delivery {
            mode: Mode::Unreliable,
            channel: 2,
        },
        _ => Delivery::default(),
    }
}

fn logged_delivery(line: &Value) -> Delivery {
    Delivery {
        mode: match line["mode"].as_i64().unwrap() {
            0 => Mode::Unreliable,
            1 => Mode::UnreliableOrdered,
            _ => Mode::Reliable,
        },
        channel: line["channel"].as_u64().unwrap() as u8,
    }
}

/// Plays one side (`me`, talking to `peer`) through the whole engine log: with
/// `Session::call` (Variants) and `Session::receive`, or (`fast`) with
/// `Session::rpc` (any `Serialize`: godot_bin's Variants here, written directly
/// where they are scalars and vectors) and `Session::receive_call` (calls read in
/// place, their arguments then read as Variants and as a typed Vec).
fn replay(me: i32, peer: i32, mine: &str, fast: bool) {
    let mut s = if me == 1 {
        Session::server(scene())
    } else {
        Session::client(me, scene())
    };
    s.connect(peer);
    assert_eq!(drain(&mut s), (vec![], vec![Event::PeerConnected(peer)]));
    let (mut sent, mut expected, mut calls, mut expected_calls) = (vec![], vec![], vec![], vec![]);
    for line in lines() {
        if let Some(method) = line.get("call").and_then(Value::as_str) {
            if line["to"] == peer {
                let (target, args) = (Target::Peer(peer), args(&line));
                if fast {
                    s.rpc_with(target, "Game", method, &args, delivery(method))
                } else {
                    s.call(target, "Game", method, args, delivery(method))
                }
                .unwrap();
            } else {
                expected_calls.push((method.to_owned(), args(&line)));
            }
        } else if let Some(dir) = line.get("packet").and_then(Value::as_str) {
            let packet = (peer, logged_delivery(&line), hex(&line, "hex"));
            if dir == mine {
                expected.push(Transmit {
                    to: packet.0,
                    delivery: packet.1,
                    bytes: packet.2,
                });
            } else if fast {
                if let Some(c) = s.receive_call(peer, packet.1, &packet.2).unwrap() {
                    let typed: Vec<Variant> = c.args.get().unwrap();
                    assert_eq!((c.from, c.node), (peer, "Game"));
                    // Exactly (`Debug`): `==` takes a String for a StringName.
                    let variants = c.args.to_variants().unwrap();
                    assert_eq!(
                        format!("{typed:?}"),
                        format!("{variants:?}"),
                        "{}",
                        c.method
                    );
                    calls.push((c.method.to_owned(), typed));
                }
            } else {
                s.receive(peer, packet.1, &packet.2).unwrap();
            }
        }
        let (t, e) = drain(&mut s);
        sent.extend(t);
        for e in e {
            match e {
                Event::Call(c) => {
                    assert!(!fast, "receive_call gives every call in place");
                    assert_eq!((c.from, c.node.as_str()), (peer, "Game"));
                    // Typed arguments of every Godot 4 type: as a Vec<Variant>, the same.
                    let typed: Vec<Variant> = c.args().unwrap();
                    assert_eq!(
                        format!("{typed:?}"),
                        format!("{:?}", c.args),
                        "{}",
                        c.method
                    );
                    calls.push((c.method.into(), c.args.into_variants().unwrap()));
                }
                e => panic!("unexpected {e:?}"),
            }
        }
    }
    assert!(expected.len() > 150, "{}", expected.len());
    assert_eq!(sent.len(), expected.len());
    for (i, (ours, engine)) in sent.iter().zip(&expected).enumerate() {
        assert_eq!(ours, engine, "packet {i}");
    }
    assert!(expected_calls.len() > 150);
    assert_eq!(format!("{calls:?}"), format!("{expected_calls:?}"));
}

#[test]
fn a_server_session_sends_what_the_engines_server_sent() {
    replay(1, CLIENT, "s2c", false);
    replay(1, CLIENT, "s2c", true);
}

#[test]
fn a_client_session_sends_what_the_engines_client_sent() {
    replay(CLIENT, 1, "c2s", false);
    replay(CLIENT, 1, "c2s", true);
}

fn server_with(peers: &[i32]) -> Session {
    let mut s = Session::server(scene());
    for &p in peers {
        s.connect(p);
    }
    drain(&mut s);
    s
}

#[test]
fn the_server_announces_peers_to_each_other() {
    let mut s = Session::server(scene());
    s.connect(5);
    s.connect(6);
    s.connect(7);
    s.disconnect(6);
    let (t, e) = drain(&mut s);
    let sys = |to: i32, p: Sys| Transmit {
        to,
        delivery: Delivery::default(),
        bytes: Packet::Sys(p).encode().unwrap(),
    };
    assert_eq!(
        t,
        [
            sys(5, Sys::AddPeer(6)),
            sys(6, Sys::AddPeer(5)),
            sys(5, Sys::AddPeer(7)),
            sys(7, Sys::AddPeer(5)),
            sys(6, Sys::AddPeer(7)),
            sys(7, Sys::AddPeer(6)),
            // 6 left before its queued packets went out: they are gone.
            sys(5, Sys::DelPeer(6)),
            sys(7, Sys::DelPeer(6)),
        ]
        .into_iter()
        .filter(|t| t.to != 6)
        .collect::<Vec<_>>()
    );
    assert_eq!(
        e,
        [
            Event::PeerConnected(5),
            Event::PeerConnected(6),
            Event::PeerConnected(7),
            Event::PeerDisconnected(6),
        ]
    );
    assert_eq!(s.peers().collect::<Vec<_>>(), [5, 7]);
}

#[test]
fn a_broadcast_to_peers_in_different_cache_states_goes_as_the_engine_sends_it() {
    let mut s = server_with(&[5, 6]);
    s.rpc(Target::Peer(5), "Game", "ping", &()).unwrap();
    drain(&mut s);
    s.receive(
        5,
        Delivery::default(),
        &Packet::ConfirmPath { valid: true, id: 1 }.encode().unwrap(),
    )
    .unwrap();
    s.rpc(Target::All, "Game", "one", &(7,)).unwrap();
    let (t, _) = drain(&mut s);
    let to: Vec<(i32, Packet)> = t
        .iter()
        .map(|t| (t.to, Packet::decode(&t.bytes).unwrap()))
        .collect();
    let call = |node| {
        Packet::Call(RemoteCall {
            node,
            method: 1,
            args: vec![Variant::Int(7)],
        })
    };
    assert_eq!(
        to,
        [
            (
                6,
                Packet::SimplifyPath {
                    checksum: scene().names("Game").unwrap().checksum().to_owned(),
                    id: 1,
                    path: "Game".into()
                }
            ),
            // Not every target knows the id: the one that does gets it in 4 bytes.
            (5, call(NodeRef::CachedWide(1))),
            (6, call(NodeRef::Path("Game".into()))),
        ]
    );
    assert_eq!(t[1].bytes, [0x20, 1, 0, 0, 0, 1, 1, 2, 7]);
    // Once all have confirmed, the narrow form for everyone.
    s.receive(
        6,
        Delivery::default(),
        &Packet::ConfirmPath { valid: true, id: 1 }.encode().unwrap(),
    )
    .unwrap();
    s.rpc(Target::AllBut(6), "Game", "one", &(7,)).unwrap();
    s.rpc(Target::All, "Game", "one", &(7,)).unwrap();
    let (t, _) = drain(&mut s);
    let narrow = vec![0x00, 1, 1, 1, 2, 7];
    assert_eq!(
        t.iter()
            .map(|t| (t.to, t.bytes.clone()))
            .collect::<Vec<_>>(),
        [(5, narrow.clone()), (5, narrow.clone()), (6, narrow)]
    );
}

/// `ping()` on `Game` by path, as a peer that has not had the path confirmed sends it.
const PING_BY_PATH: &[u8] = b"\xa0\x06\x00\x00\x80\x02Game\0";

fn relay(peer: i32, inner: &[u8]) -> Vec<u8> {
    Packet::Sys(Sys::Relay {
        peer,
        packet: inner.to_vec(),
    })
    .encode()
    .unwrap()
}

#[test]
fn the_server_relays_as_the_engine_does() {
    let mut s = server_with(&[5, 6, 7]);
    let ping = PING_BY_PATH;
    // To one client: forwarded with the source, not run here.
    s.receive(5, Delivery::default(), &relay(6, ping)).unwrap();
    // To all: everyone but the sender, and run here with the sender as caller.
    s.receive(
        5,
        Delivery {
            mode: Mode::Unreliable,
            channel: 3,
        },
        &relay(0, ping),
    )
    .unwrap();
    // To all but 7.
    s.receive(5, Delivery::default(), &relay(-7, ping)).unwrap();
    // All but the server: not run here.
    s.receive(5, Delivery::default(), &relay(-1, ping)).unwrap();
    // To all but i32::MIN: no one is excluded (found by the session fuzz target,
    // where negating it overflowed).
    s.receive(5, Delivery::default(), &relay(i32::MIN, ping))
        .unwrap();
    // To a peer that is gone: dropped.
    s.receive(5, Delivery::default(), &relay(99, ping)).unwrap();
    let (t, e) = drain(&mut s);
    let from5 = relay(5, ping);
    let at = |to, delivery| Transmit {
        to,
        delivery,
        bytes: from5.clone(),
    };
    let d = Delivery::default();
    let u3 = Delivery {
        mode: Mode::Unreliable,
        channel: 3,
    };
    assert_eq!(
        t,
        [
            at(6, d),
            at(6, u3),
            at(7, u3),
            at(6, d),
            at(6, d),
            at(7, d),
            at(6, d),
            at(7, d)
        ]
    );
    let pings: Vec<_> = e
        .iter()
        .map(|e| match e {
            Event::Call(c) => (c.from, c.method.as_str()),
            e => panic!("{e:?}"),
        })
        .collect();
    assert_eq!(pings, [(5, "ping"), (5, "ping"), (5, "ping")]);
}

#[test]
fn a_client_reaches_other_clients_through_the_relay() {
    let mut c = Session::client(5, scene());
    c.connect(1);
    c.receive(
        1,
        Delivery::default(),
        &Packet::Sys(Sys::AddPeer(6)).encode().unwrap(),
    )
    .unwrap();
    drain(&mut c);
    c.rpc(Target::All, "Game", "ping", &()).unwrap();
    let (t, _) = drain(&mut c);
    let to: Vec<_> = t.iter().map(|t| (t.to, t.bytes[..2].to_vec())).collect();
    // To 1 directly, to 6 through 1; each first with its SIMPLIFY_PATH.
    assert_eq!(
        to,
        [
            (1, vec![1, 0x38]),
            (1, vec![7, 3]),
            (1, vec![0xa0, 6]),
            (1, vec![7, 3])
        ]
    );
    assert_eq!(&t[1].bytes[2..6], 6i32.to_le_bytes());
    // A call relayed from 6 runs with 6 as caller.
    c.receive(1, Delivery::default(), &relay(6, PING_BY_PATH))
        .unwrap();
    let (_, e) = drain(&mut c);
    assert!(
        matches!(&e[..], [Event::Call(call)] if call.from == 6 && call.method == "ping"),
        "{e:?}"
    );
    // The server says 6 left.
    c.receive(
        1,
        Delivery::default(),
        &Packet::Sys(Sys::DelPeer(6)).encode().unwrap(),
    )
    .unwrap();
    assert_eq!(drain(&mut c).1, [Event::PeerDisconnected(6)]);
}

/// The error `receive_call` gives for `bytes` from peer 5, or reading the arguments
/// of the call it gives: its kind and offset.
fn in_place_error(bytes: &[u8]) -> (String, usize) {
    let mut s = server_with(&[5, 6]);
    let e = match s.receive_call(5, Delivery::default(), bytes) {
        Err(e) => e,
        Ok(Some(call)) => call.args.to_variants().unwrap_err(),
        Ok(None) => panic!("received {}", hex::encode(bytes)),
    };
    (format!("{:?}", e.kind()), e.offset())
}

/// A SIMPLIFY_PATH giving `path` the cache `id`, with the scene's checksum for `Game`.
fn simplify_game(id: u32) -> Vec<u8> {
    Packet::SimplifyPath {
        checksum: scene().names("Game").unwrap().checksum().to_owned(),
        id,
        path: "Game".into(),
    }
    .encode()
    .unwrap()
}

/// A call of `ping` (method 0, no arguments) on the node of cache `id`.
fn call_by_id(id: u32) -> Vec<u8> {
    match (u8::try_from(id), u16::try_from(id)) {
        (Ok(id), _) => vec![0x80, id, 0],
        (_, Ok(id)) => [&[0x90][..], &id.to_le_bytes(), &[0]].concat(),
        _ => [&[0xA0][..], &id.to_le_bytes(), &[0]].concat(),
    }
}

/// Godot 4 gives a node a new cache id each time the node is made again (a player's
/// node after a respawn; Godot 4.6 sends SIMPLIFY_PATH 1, 2, 3... for the same path,
/// `multiplayer/tests/oracle/respawn4.gd`), and calls by it: a peer doing so thousands
/// of times stays, holding the node's newest two ids. Calls by those run; a call by
/// an id before them is dropped, as Godot drops a call by an id it does not hold, and
/// the peer kept; a call by an id above every one it gave is refused.
#[test]
fn a_node_made_again_and_again_keeps_its_peer() {
    let mut s = server_with(&[5]);
    for id in 1..=3000u32 {
        s.receive(5, Delivery::default(), &simplify_game(id))
            .unwrap();
        s.receive(5, Delivery::default(), &call_by_id(id)).unwrap();
    }
    let (t, e) = drain(&mut s);
    assert_eq!(t.len(), 3000, "a CONFIRM_PATH each");
    assert_eq!(e.len(), 3000, "a call each");
    for id in [2999, 3000] {
        s.receive(5, Delivery::default(), &call_by_id(id)).unwrap();
    }
    assert_eq!(drain(&mut s).1.len(), 2);
    for id in [1, 2998] {
        s.receive(5, Delivery::default(), &call_by_id(id)).unwrap();
        assert_eq!(
            s.receive_call(5, Delivery::default(), &call_by_id(id))
                .unwrap(),
            None
        );
        let dropped = Event::Dropped {
            peer: 5,
            reason: format!(
                "cache id {id} was replaced twice since: its node was made again at byte 1"
            ),
        };
        assert_eq!(drain(&mut s).1, [dropped.clone(), dropped]);
    }
    assert!(s
        .receive_call(5, Delivery::default(), &call_by_id(3000))
        .unwrap()
        .is_some());
    for id in [3001, 70_000] {
        let e = s
            .receive(5, Delivery::default(), &call_by_id(id))
            .unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::UnknownCacheId(i) if *i == id),
            "{e}"
        );
    }
}

/// What the engine drops with an error line and goes on (`tests/names_engines.rs`):
/// a SIMPLIFY_PATH of a node the scene does not have (no CONFIRM_PATH goes back), a
/// call of a method past the node's, and a call by path of a node the scene does not
/// have, are dropped, by `receive` and by `receive_call` alike, and the peer kept.
#[test]
fn calls_of_unknown_nodes_and_methods_are_dropped_as_the_engine_drops_them() {
    let nowhere = Packet::SimplifyPath {
        checksum: scene().names("Game").unwrap().checksum().to_owned(),
        id: 1,
        path: "Nowhere".into(),
    }
    .encode()
    .unwrap();
    let cases: [(&[u8], &str); 3] = [
        (&nowhere, "no node \"Nowhere\" in the scene at byte 38"),
        // Method 5 of a node with 5 methods.
        (
            b"\xa0\x06\x00\x00\x80\x05Game\0",
            "method id 5 is not one of the node's rpc methods at byte 1",
        ),
        (
            b"\xa0\x06\x00\x00\x80\x02Gam\0",
            "no node \"Gam\" in the scene at byte 1",
        ),
    ];
    for (bytes, reason) in cases {
        let dropped = Event::Dropped {
            peer: 5,
            reason: reason.into(),
        };
        let mut s = server_with(&[5, 6]);
        s.receive(5, Delivery::default(), bytes).unwrap();
        assert_eq!(s.receive_call(5, Delivery::default(), bytes).unwrap(), None);
        let (transmits, events) = drain(&mut s);
        assert_eq!(events, [dropped.clone(), dropped]);
        assert!(transmits.is_empty(), "{transmits:?}");
        assert!(s.peers().any(|p| p == 5));
    }
}

/// A client (a bot) whose scene has fewer nodes and methods than the server's: the
/// server's calls of those, and its SIMPLIFY_PATHs of the nodes, are dropped at the
/// client (`Event::Dropped`), which stays connected and answers no CONFIRM_PATH, as
/// an engine client does; the calls it has run.
#[test]
fn a_client_drops_the_servers_calls_of_nodes_and_methods_it_does_not_have() {
    let both = Scene::new()
        .node("Game", ["ping", "blob", "one", "two", "three", "zzz"])
        .node("Hud", ["score"]);
    let mut server = Session::server(both);
    server.connect(7);
    let mut client = Session::client(7, scene());
    client.connect(1);
    drain(&mut server);
    drain(&mut client);
    server
        .call(
            Target::Peer(7),
            "Hud",
            "score",
            vec![Variant::Int(3)],
            Delivery::default(),
        )
        .unwrap();
    server
        .call(Target::Peer(7), "Game", "zzz", vec![], Delivery::default())
        .unwrap();
    server
        .call(Target::Peer(7), "Game", "ping", vec![], Delivery::default())
        .unwrap();
    let (sent, _) = drain(&mut server);
    for t in &sent {
        client.receive(1, t.delivery, &t.bytes).unwrap();
    }
    let (answers, events) = drain(&mut client);
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Dropped { peer: 1, reason } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [
            "no node \"Hud\" in the scene at byte 38",
            "no node \"Hud\" in the scene at byte 1",
            "method id 5 is not one of the node's rpc methods at byte 1",
        ]
    );
    let calls: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Call(c) => Some(&*c.method),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["ping"]);
    // The CONFIRM_PATH of "Game" (its checksum differs: valid false), none of "Hud".
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(client.peers().any(|p| p == 1));
}

/// Godot 3 takes a SIMPLIFY_PATH without looking its node up, and confirms it: so
/// does a Godot 3 session, and drops a call by that id (`Event::Dropped`), as the
/// engine drops it. Paths the scene does not have keep their two newest ids, count
/// as one node against the path cache flood, and an id of theirs may not be given
/// twice; an older one is forgotten (its call dropped too), and one above every id
/// given is refused.
#[test]
fn a_godot3_session_confirms_a_path_it_does_not_have_and_drops_its_calls() {
    use godot_bin_multiplayer::godot3;
    let simplify = |id: u32, path: &str| {
        godot3::Packet::SimplifyPath {
            id,
            path: path.into(),
        }
        .encode()
        .unwrap()
    };
    let call = |id: u32| {
        godot3::Packet::Call(godot3::RemoteCall {
            node: NodeRef::Cached(id),
            method: "ping".into(),
            args: vec![],
        })
        .encode()
        .unwrap()
    };
    let server = || {
        let mut s = Session::server(scene())
            .protocol(Protocol::Godot3)
            .with_limits(Limits { cached_paths: 10 });
        s.connect(5);
        drain(&mut s);
        s
    };
    let mut s = server();
    for (id, path) in [(1, "Elsewhere"), (2, "Game"), (3, "Hud"), (4, "Menu")] {
        s.receive(5, Delivery::default(), &simplify(id, path))
            .unwrap();
        let (sent, events) = drain(&mut s);
        assert_eq!(events, []);
        let confirm = godot3::Packet::ConfirmPath(path.into()).encode().unwrap();
        assert_eq!(
            sent.iter().map(|t| &t.bytes).collect::<Vec<_>>(),
            [&confirm]
        );
    }
    let dropped = |reason: &str| Event::Dropped {
        peer: 5,
        reason: reason.into(),
    };
    for (id, reason) in [
        (
            3,
            "cache id 3 is of a path that names no node of the scene at byte 1",
        ),
        (
            4,
            "cache id 4 is of a path that names no node of the scene at byte 1",
        ),
        (
            1,
            "cache id 1 was replaced twice since: its node was made again at byte 1",
        ),
    ] {
        s.receive(5, Delivery::default(), &call(id)).unwrap();
        assert_eq!(
            s.receive_call3(5, Delivery::default(), &call(id)).unwrap(),
            None
        );
        assert_eq!(drain(&mut s).1, [dropped(reason), dropped(reason)]);
    }
    s.receive(5, Delivery::default(), &call(2)).unwrap();
    assert!(matches!(&drain(&mut s).1[..], [Event::Call(c)] if c.node == "Game"));
    let e = s
        .receive(5, Delivery::default(), &simplify(4, "Other"))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DuplicateCacheId(4)), "{e}");
    let e = s.receive(5, Delivery::default(), &call(9)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownCacheId(9)), "{e}");
    // Ten more unknown paths in a row are taken, the eleventh is a flood.
    let mut s = server();
    s.receive(5, Delivery::default(), &simplify(1, "Elsewhere"))
        .unwrap();
    for id in 2..12 {
        s.receive(5, Delivery::default(), &simplify(id, &format!("N{id}")))
            .unwrap();
    }
    let e = s
        .receive(5, Delivery::default(), &simplify(12, "N12"))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CacheFlood(10)), "{e}");
}

/// What a hostile client can send a server: each is refused with its kind and offset.
#[test]
fn hostile_packets_are_refused() {
    let simplify = |id: u32, path: &str, sum: &str| {
        Packet::SimplifyPath {
            checksum: sum.into(),
            id,
            path: path.into(),
        }
        .encode()
        .unwrap()
    };
    let good = scene().names("Game").unwrap().checksum().to_owned();
    let cases: Vec<(Vec<u8>, ErrorKind, usize)> = vec![
        (vec![], ErrorKind::Empty, 0),
        // Cached id 3 never assigned.
        (vec![0x80, 3, 2], ErrorKind::UnknownCacheId(3), 1),
        // Confirming a path we never sent.
        (vec![2, 1, 1, 0, 0, 0], ErrorKind::UnknownCacheId(1), 2),
        (vec![2, 1, 9, 0, 0, 0], ErrorKind::UnknownCacheId(9), 2),
        // SYS packets only a server sends.
        (
            Packet::Sys(Sys::AddPeer(9)).encode().unwrap(),
            ErrorKind::Unexpected("this SYS packet"),
            0,
        ),
        (
            Packet::Sys(Sys::Auth(vec![1])).encode().unwrap(),
            ErrorKind::Unexpected("this SYS packet"),
            0,
        ),
        // A SYS packet inside a relay, and a broken packet inside one.
        (
            relay(0, &Packet::Sys(Sys::AddPeer(9)).encode().unwrap()),
            ErrorKind::Unexpected("a relayed SYS packet"),
            6,
        ),
        (
            relay(6, &[0x00, 1]),
            ErrorKind::Truncated("the method id"),
            8,
        ),
    ];
    for (bytes, kind, offset) in cases {
        let mut s = server_with(&[5, 6]);
        let e = s.receive(5, Delivery::default(), &bytes).unwrap_err();
        assert_eq!(
            (format!("{:?}", e.kind()), e.offset()),
            (format!("{kind:?}"), offset),
            "{}",
            hex::encode(&bytes)
        );
        let e = (format!("{:?}", e.kind()), e.offset());
        assert_eq!(in_place_error(&bytes), e, "{}", hex::encode(&bytes));
    }
    // A call by path whose one argument, an int, lacks its byte: refused by
    // `receive`, and by reading the arguments of `receive_call`'s call.
    let broken = b"\x20\x08\x00\x00\x80\x00\x01\x02Game\0";
    let e = server_with(&[5, 6])
        .receive(5, Delivery::default(), broken)
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Truncated(_)), "{e}");
    assert_eq!(
        in_place_error(broken),
        (format!("{:?}", e.kind()), e.offset())
    );
    // A duplicate cache id, and a flood of them beyond the limit.
    let mut s = server_with(&[5]);
    s.receive(5, Delivery::default(), &simplify(1, "Game", &good))
        .unwrap();
    let e = s
        .receive(5, Delivery::default(), &simplify(1, "Game", &good))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::DuplicateCacheId(1)));
    // A run of SIMPLIFY_PATHs for a node with an id already, nothing between: the
    // first gives the node an id, 100 more may give it again, one more is a flood.
    let limited = || {
        let mut s = Session::server(scene()).with_limits(Limits { cached_paths: 100 });
        s.connect(5);
        s
    };
    let mut s = limited();
    for id in 0..=100 {
        s.receive(5, Delivery::default(), &simplify(id, "Game", &good))
            .unwrap();
    }
    let e = s
        .receive(5, Delivery::default(), &simplify(101, "Game", &good))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CacheFlood(100)), "{e}");
    assert_eq!(e.offset(), 34, "at the id");
    // Any other packet ends a run: a call (in place too), or a CONFIRM_PATH.
    let mut s = limited();
    let confirm = Packet::ConfirmPath { valid: true, id: 1 }.encode().unwrap();
    let mut next = 0;
    for run in 0..4 {
        // The first run also gives the node its first id.
        for _ in 0..if run == 0 { 101 } else { 100 } {
            s.receive(5, Delivery::default(), &simplify(next, "Game", &good))
                .unwrap();
            next += 1;
        }
        let last = next - 1;
        match run {
            0 => s
                .receive(5, Delivery::default(), &call_by_id(last))
                .unwrap(),
            1 => assert!(s
                .receive_call(5, Delivery::default(), &call_by_id(last))
                .unwrap()
                .is_some()),
            2 => {
                // Ours was never sent: refused, but not as a flood.
                let e = s.receive(5, Delivery::default(), &confirm).unwrap_err();
                assert!(matches!(e.kind(), ErrorKind::UnknownCacheId(1)), "{e}");
            }
            _ => {}
        }
    }
    // From a peer that is not connected.
    let e = s
        .receive(8, Delivery::default(), &[0x80, 1, 2])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownPeer(8)));
    // Dropping the offender tells the others; it is gone.
    let mut s = server_with(&[5, 6]);
    s.refuse(5, "bad packet");
    let (t, e) = drain(&mut s);
    assert_eq!(t.len(), 1);
    assert_eq!(
        e,
        [
            Event::Refused {
                peer: 5,
                reason: "bad packet".into()
            },
            Event::PeerDisconnected(5)
        ]
    );
}

#[test]
fn a_wrong_checksum_is_confirmed_invalid_and_reported() {
    let mut s = server_with(&[5]);
    let bytes = Packet::SimplifyPath {
        checksum: "0".repeat(32),
        id: 4,
        path: "Game".into(),
    }
    .encode()
    .unwrap();
    s.receive(5, Delivery::default(), &bytes).unwrap();
    let (t, e) = drain(&mut s);
    assert_eq!(t[0].bytes, [2, 0, 4, 0, 0, 0]);
    assert_eq!(
        e,
        [Event::ChecksumMismatch {
            peer: 5,
            path: "Game".into()
        }]
    );
    // Calls on the id still run, as in the engine.
    s.receive(5, Delivery::default(), &[0x00, 4, 1, 1, 2, 9])
        .unwrap();
    let (_, e) = drain(&mut s);
    match &e[..] {
        [Event::Call(c)] => {
            assert_eq!(c.method, "one");
            let (n,): (i64,) = c.args().unwrap();
            assert_eq!(n, 9);
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn rpc_refuses_what_it_cannot_send() {
    let mut s = server_with(&[5]);
    let kind = |r: godot_bin_multiplayer::Result<()>| format!("{:?}", r.unwrap_err().kind());
    assert_eq!(
        kind(s.rpc(Target::Peer(9), "Game", "one", &(1,))),
        "UnknownPeer(9)"
    );
    assert_eq!(
        kind(s.rpc(Target::Peer(5), "Nope", "one", &(1,))),
        "UnknownNode(\"Nope\")"
    );
    assert_eq!(
        kind(s.rpc(Target::Peer(5), "Game", "nope", &(1,))),
        "UnknownMethodName(\"nope\")"
    );
    assert_eq!(
        kind(s.rpc(Target::Peer(5), "Game", "one", &5)),
        "NotArguments"
    );
    // What is wrong with the call is told before what is wrong with its arguments,
    // which come with offset 0 (no packet was written).
    let bad = || vec![Variant::Int(1), Variant::from("a\0")];
    let d = Delivery::default();
    assert_eq!(
        kind(s.call(Target::All, "Nope", "one", bad(), d)),
        "UnknownNode(\"Nope\")"
    );
    assert_eq!(
        kind(s.call(Target::All, "Game", "nope", bad(), d)),
        "UnknownMethodName(\"nope\")"
    );
    assert_eq!(
        kind(s.call(Target::Peer(9), "Game", "one", bad(), d)),
        "UnknownPeer(9)"
    );
    let e = s
        .call(Target::Peer(5), "Game", "one", bad(), d)
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 1, .. }),
        "{e}"
    );
    assert_eq!(e.offset(), 0);
    // Nothing goes out for a call that cannot be written, not even the path.
    assert!(kind(s.rpc(Target::Peer(5), "Game", "one", &(1, "a\0b"))).starts_with("Argument"));
    assert_eq!(s.poll_transmit(), None);
    s.rpc(Target::Peer(5), "Game", "one", &(1,)).unwrap();
    assert_eq!(s.poll_transmit().unwrap().bytes[0], 1, "the path first");
}

#[path = "../../tests/common/arbitrary.rs"]
mod arbitrary;

/// `rpc` writes a container argument from the value itself (godot_bin's serializer,
/// full Objects refused on the way); `call` writes its Variants. Same packets, or
/// the same fault and nothing sent, for random trees with and without Objects, to a
/// peer that has the node's path and (`rpc`'s short way) to one that confirmed it.
#[test]
fn rpc_writes_containers_as_call_writes_their_variants() {
    #[derive(Clone, Debug)]
    struct Args(Variant, Variant, bool);
    impl quickcheck::Arbitrary for Args {
        fn arbitrary(g: &mut quickcheck::Gen) -> Self {
            let objects = u8::arbitrary(g) % 4 == 0;
            Args(
                arbitrary::tree(g, 3, objects),
                arbitrary::tree(g, 2, objects),
                bool::arbitrary(g),
            )
        }
    }
    fn prop(a: Args) -> bool {
        let (mut by_rpc, mut by_call) = (server_with(&[5]), server_with(&[5]));
        if a.2 {
            confirm_game(&mut by_rpc);
            confirm_game(&mut by_call);
        }
        let d = Delivery::default();
        let r1 = by_rpc.rpc(
            Target::Peer(5),
            "Game",
            "one",
            &(a.0.clone(), 7, a.1.clone()),
        );
        let r2 = by_call.call(
            Target::Peer(5),
            "Game",
            "one",
            vec![a.0, Variant::Int(7), a.1],
            d,
        );
        match (r1, r2) {
            (Ok(()), Ok(())) => drain(&mut by_rpc).0 == drain(&mut by_call).0,
            // The same fault (`rpc` tells it of the argument list, index 0, when
            // the list is taken to Variants whole).
            (Err(e1), Err(e2)) => {
                let fault = |e: &godot_bin_multiplayer::Error| match e.kind() {
                    ErrorKind::Argument { source, .. } => format!("{:?}", source.kind()),
                    k => format!("{k:?}"),
                };
                fault(&e1) == fault(&e2) && drain(&mut by_rpc).0.is_empty()
            }
            _ => false,
        }
    }
    quickcheck::QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Args) -> bool);
}

/// Peer 5 has the path of "Game" (cache id 1) and confirmed it.
fn confirm_game(s: &mut Session) {
    s.rpc(Target::Peer(5), "Game", "ping", &()).unwrap();
    drain(s);
    let confirm = Packet::ConfirmPath { valid: true, id: 1 }.encode().unwrap();
    s.receive(5, Delivery::default(), &confirm).unwrap();
    drain(s);
}

/// `rpc`'s short way (one peer, a path it confirmed) sends what `call` sends, with
/// arguments and without, on the channel asked for; and a call it cannot take (a
/// peer that has not confirmed, another target, an unknown method) still goes the
/// general way, with its faults.
#[test]
fn rpc_to_a_peer_that_confirmed_sends_what_call_sends() {
    let mut by_rpc = server_with(&[5, 6]);
    let mut by_call = server_with(&[5, 6]);
    confirm_game(&mut by_rpc);
    confirm_game(&mut by_call);
    let d = Delivery {
        mode: Mode::UnreliableOrdered,
        channel: 3,
    };
    let v3 = Vector3::new(1.5, -2.0, 0.25);
    by_rpc
        .rpc_with(
            Target::Peer(5),
            "Game",
            "two",
            &(v3, -70_000, true, "hé"),
            d,
        )
        .unwrap();
    by_rpc
        .rpc_with(Target::Peer(5), "Game", "ping", &(), d)
        .unwrap();
    by_rpc.rpc(Target::Peer(6), "Game", "one", &(1,)).unwrap();
    let args = vec![
        Variant::Vector3(v3),
        Variant::Int(-70_000),
        Variant::Bool(true),
        Variant::from("hé"),
    ];
    by_call
        .call(Target::Peer(5), "Game", "two", args, d)
        .unwrap();
    by_call
        .call(Target::Peer(5), "Game", "ping", vec![], d)
        .unwrap();
    let one = vec![Variant::Int(1)];
    by_call
        .call(Target::Peer(6), "Game", "one", one, Delivery::default())
        .unwrap();
    let (sent, _) = drain(&mut by_rpc);
    assert_eq!(sent, drain(&mut by_call).0);
    assert_eq!(sent.len(), 4, "{sent:?}");
    assert_eq!(
        sent[0].bytes[..4],
        [0, 1, 4, 4],
        "by cache id, two (method 4), 4 arguments"
    );
    assert_eq!(
        sent[1].bytes,
        [0x80, 1, 2],
        "no arguments, no count (ping: method 2)"
    );
    assert_eq!(sent[2].bytes[0], 1, "the path first to 6");
    let kind = |r: godot_bin_multiplayer::Result<()>| format!("{:?}", r.unwrap_err().kind());
    assert_eq!(
        kind(by_rpc.rpc(Target::Peer(5), "Game", "nope", &(1,))),
        "UnknownMethodName(\"nope\")"
    );
    assert!(kind(by_rpc.rpc(Target::Peer(5), "Game", "one", &("a\0",))).starts_with("Argument"));
    assert_eq!(by_rpc.poll_transmit(), None);
}

/// A received call names its node and method with the scene's own strings, not a
/// copy per call: by path, by cache id, and (Godot 3) by the method's text.
#[test]
fn received_calls_share_the_scenes_names() {
    use godot_bin_multiplayer::{godot3, Call, Protocol};
    fn call(s: &mut Session, bytes: &[u8]) -> Call {
        s.receive(CLIENT, Delivery::default(), bytes).unwrap();
        match s.poll_event() {
            Some(Event::Call(c)) => c,
            e => panic!("{e:?}"),
        }
    }
    fn same(a: &Call, b: &Call) -> bool {
        std::ptr::eq(a.node.as_str(), b.node.as_str())
            && std::ptr::eq(a.method.as_str(), b.method.as_str())
    }
    let names = scene().names("Game").unwrap().clone();
    let mut s = server_with(&[CLIENT]);
    let by_path = Packet::Call(RemoteCall {
        node: NodeRef::Path("Game".into()),
        method: names.id("one").unwrap(),
        args: vec![Variant::Int(1)],
    });
    let simplify = Packet::SimplifyPath {
        checksum: names.checksum().into(),
        id: 9,
        path: "Game".into(),
    };
    let cached = Packet::Call(RemoteCall {
        node: NodeRef::Cached(9),
        method: names.id("one").unwrap(),
        args: vec![Variant::Int(2)],
    });
    let first = call(&mut s, &by_path.encode().unwrap());
    s.receive(CLIENT, Delivery::default(), &simplify.encode().unwrap())
        .unwrap();
    let second = call(&mut s, &cached.encode().unwrap());
    assert_eq!((&*first.node, &*first.method), ("Game", "one"));
    assert_eq!(
        (
            second.node.as_str(),
            second.args.to_variants().unwrap()[0].clone()
        ),
        ("Game", Variant::Int(2))
    );
    assert!(same(&first, &second));

    let mut s3 = Session::server(scene()).protocol(Protocol::Godot3);
    s3.connect(CLIENT);
    drain(&mut s3);
    let packet = |arg| {
        godot3::Packet::Call(godot3::RemoteCall {
            node: NodeRef::Path("Game".into()),
            method: "one".into(),
            args: vec![Variant::Int(arg)],
        })
        .encode()
        .unwrap()
    };
    let (a, b) = (call(&mut s3, &packet(1)), call(&mut s3, &packet(2)));
    assert_eq!(
        (a.method.as_str(), b.args.to_variants().unwrap()),
        ("one", vec![Variant::Int(2)])
    );
    assert!(same(&a, &b));
}

#[test]
fn call_args_read_godot_4_types() {
    use godot_bin::{StringName, Vector2i, Vector3};
    let call = godot_bin_multiplayer::Call {
        from: 5,
        node: "Game".into(),
        method: "place".into(),
        args: vec![
            Variant::Vector2i(Vector2i::new(3, -4)),
            Variant::StringName(StringName("wall".into())),
            Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
            Variant::Int(1 << 40),
        ]
        .into(),
    };
    let (cell, kind, at, n): (Vector2i, String, Vector3, i64) = call.args().unwrap();
    assert_eq!(cell, Vector2i::new(3, -4));
    assert_eq!(
        (kind.as_str(), at, n),
        ("wall", Vector3::new(1.0, 2.0, 3.0), 1 << 40)
    );
    let err = call.args::<(Vector2i, i64)>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: found string \"wall\", expected i64"
    );
    assert_eq!(err.offset(), None);
}

/// Replication from a server session: a spawn goes after its spawner's path (to each
/// target once, the cache id in the spawn), SYNC unreliably and the rest reliably; a
/// synchronizer of the scene gets its net id (bit 31 and its cache id) once the peer
/// confirmed its path, and none before.
#[test]
fn replication_goes_out_as_the_engine_sends_it() {
    use godot_bin_multiplayer::{Spawn, SpawnSource, Sync, SyncEntry};
    let scene = Scene::new()
        .node("Game", ["one"])
        .node("Game/Spawner", Vec::<String>::new())
        .node("Game/State/Sync", Vec::<String>::new());
    let mut s = Session::server(scene.clone());
    s.connect(5);
    s.connect(6);
    drain(&mut s);
    let spawn = Spawn {
        source: SpawnSource::Scene(0),
        spawner: 0,
        net_id: 1,
        sync_ids: vec![2],
        name: "Mover".into(),
        state: vec![Variant::Int(3)],
    };
    s.spawn(Target::All, "Game/Spawner", spawn.clone()).unwrap();
    let (sent, _) = drain(&mut s);
    let simplify = Packet::SimplifyPath {
        checksum: "d41d8cd98f00b204e9800998ecf8427e".into(),
        id: 2,
        path: "Game/Spawner".into(),
    }
    .encode()
    .unwrap();
    let with_id = Packet::Spawn(Spawn {
        spawner: 2,
        ..spawn.clone()
    })
    .encode()
    .unwrap();
    let got: Vec<(i32, Vec<u8>, Delivery)> = sent
        .into_iter()
        .map(|t| (t.to, t.bytes, t.delivery))
        .collect();
    assert_eq!(
        got,
        [
            (5, simplify.clone(), Delivery::default()),
            (6, simplify, Delivery::default()),
            (5, with_id.clone(), Delivery::default()),
            (6, with_id.clone(), Delivery::default()),
        ]
    );
    // The path goes once.
    s.spawn(Target::Peer(5), "Game/Spawner", spawn).unwrap();
    let (sent, _) = drain(&mut s);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].bytes, with_id);

    let sync = Packet::Sync(Sync {
        time: 1,
        entries: vec![SyncEntry {
            net_id: 2,
            state: vec![Variant::Bool(true)],
        }],
    });
    s.replicate(Target::AllBut(6), &sync).unwrap();
    let (sent, _) = drain(&mut s);
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].to, sent[0].delivery.mode), (5, Mode::Unreliable));
    s.replicate(Target::Peer(6), &Packet::Despawn { net_id: 1 })
        .unwrap();
    let (sent, _) = drain(&mut s);
    assert_eq!((sent[0].to, sent[0].delivery.mode), (6, Mode::Reliable));
    assert_eq!(sent[0].bytes, [5, 1, 0, 0, 0]);
    let delta = Packet::Delta(godot_bin_multiplayer::Delta {
        entries: vec![godot_bin_multiplayer::DeltaEntry {
            net_id: 2,
            indexes: 1,
            state: vec![Variant::Int(4)],
        }],
    });
    s.replicate(Target::Peer(6), &delta).unwrap();
    let (sent, _) = drain(&mut s);
    assert_eq!((sent[0].to, sent[0].delivery.mode), (6, Mode::Reliable));
    assert_eq!(Packet::decode(&sent[0].bytes).unwrap(), delta);

    // A synchronizer named by its path: none until confirmed, the path sent once.
    assert_eq!(s.synchronizer_id(5, "Game/State/Sync").unwrap(), None);
    assert_eq!(s.synchronizer_id(5, "Game/State/Sync").unwrap(), None);
    let (sent, _) = drain(&mut s);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        Packet::decode(&sent[0].bytes).unwrap(),
        Packet::SimplifyPath {
            checksum: "d41d8cd98f00b204e9800998ecf8427e".into(),
            id: 3,
            path: "Game/State/Sync".into(),
        }
    );
    let confirm = Packet::ConfirmPath { valid: true, id: 3 }.encode().unwrap();
    s.receive(5, Delivery::default(), &confirm).unwrap();
    assert_eq!(
        s.synchronizer_id(5, "Game/State/Sync").unwrap(),
        Some(0x8000_0003)
    );

    // What cannot go is refused, and nothing is sent.
    let kind = |r: godot_bin_multiplayer::Result<()>| format!("{:?}", r.unwrap_err().kind());
    assert_eq!(
        kind(s.replicate(Target::Peer(9), &Packet::Despawn { net_id: 1 })),
        "UnknownPeer(9)"
    );
    assert_eq!(
        kind(s.replicate(Target::All, &Packet::Raw(vec![1]))),
        "Unexpected(\"a packet other than despawn, sync or delta\")"
    );
    let nameless = Spawn {
        source: SpawnSource::Scene(0),
        spawner: 0,
        net_id: 1,
        sync_ids: vec![],
        name: String::new(),
        state: vec![],
    };
    assert_eq!(
        kind(s.spawn(Target::All, "Game/Spawner", nameless.clone())),
        "NodeName(\"\")"
    );
    assert_eq!(
        kind(s.spawn(Target::All, "Nope", nameless)),
        "UnknownNode(\"Nope\")"
    );
    assert_eq!(
        format!(
            "{:?}",
            s.synchronizer_id(9, "Game/State/Sync").unwrap_err().kind()
        ),
        "UnknownPeer(9)"
    );
    assert_eq!(s.poll_transmit(), None);
    let mut godot3 = Session::server(scene).protocol(godot_bin_multiplayer::Protocol::Godot3);
    godot3.connect(5);
    drain(&mut godot3);
    assert_eq!(
        kind(godot3.replicate(Target::All, &Packet::Despawn { net_id: 1 })),
        "Unexpected(\"replication\")"
    );
}

#[test]
fn cache_ids_low_and_high_find_their_nodes() {
    // Godot numbers cache ids from 1 up; a peer may send any, and each must find the
    // node it was given for, whether it is a small id or not (a node each: a node
    // keeps its newest two).
    let ids = [0u32, 1, 2, 63, 64, 65, 1000, 0x7FFF_FFFF];
    let names: Vec<String> = (0..ids.len()).map(|i| format!("N{i}")).collect();
    let scene = names
        .iter()
        .fold(Scene::new(), |scene, n| scene.node(n, ["one"]));
    let mut s = Session::server(scene.clone());
    s.connect(5);
    drain(&mut s);
    let path = |i: usize| names[i].as_str();
    let simplify = |id: u32, path: &str| {
        Packet::SimplifyPath {
            checksum: scene.names(path).unwrap().checksum().into(),
            id,
            path: path.into(),
        }
        .encode()
        .unwrap()
    };
    let call = |id: u32| {
        Packet::Call(RemoteCall {
            node: NodeRef::Cached(id),
            method: 0,
            args: vec![Variant::Int(i64::from(id))],
        })
        .encode()
        .unwrap()
    };
    for (i, &id) in ids.iter().enumerate() {
        s.receive(5, Delivery::default(), &simplify(id, path(i)))
            .unwrap();
    }
    drain(&mut s);
    for (i, &id) in ids.iter().enumerate() {
        let bytes = call(id);
        let c = s
            .receive_call(5, Delivery::default(), &bytes)
            .unwrap()
            .unwrap();
        assert_eq!((c.node, c.args.get::<(u32,)>().unwrap()), (path(i), (id,)));
        s.receive(5, Delivery::default(), &bytes).unwrap();
        match s.poll_event() {
            Some(Event::Call(c)) => assert_eq!(c.node.as_str(), path(i)),
            e => panic!("{e:?}"),
        }
        let e = s
            .receive(5, Delivery::default(), &simplify(id, "N0"))
            .unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::DuplicateCacheId(d) if *d == id),
            "{e}"
        );
    }
    // Not held and below the highest id given: forgotten, the call dropped (the
    // ids above it are refused, `a_node_made_again_and_again_keeps_its_peer`).
    for id in [3, 62, 66, 999, 0x7FFF_FFFE] {
        assert_eq!(
            s.receive_call(5, Delivery::default(), &call(id)).unwrap(),
            None
        );
        match s.poll_event() {
            Some(Event::Dropped { peer: 5, reason }) => assert_eq!(
                reason,
                format!(
                    "cache id {id} was replaced twice since: its node was made again at byte 1"
                )
            ),
            e => panic!("{e:?}"),
        }
    }
}

/// A scene of many nodes (a node per player) finds each by its path, whether it
/// scans a few nodes or looks many up: the names and modes of each, a node given
/// again keeps its place and takes its new methods, and calls go out to and come in
/// by the right path.
#[test]
fn a_scene_of_many_nodes_finds_each_by_path() {
    for count in [1, 8, 9, 300] {
        let path = |i: usize| format!("Players/{i}");
        let mut scene = (0..count).fold(Scene::new(), |scene, i| {
            scene.node(path(i), [format!("m{i}"), "shared".into()])
        });
        scene = scene.node(
            path(count / 2),
            [
                (format!("again{count}"), RpcMode::Authority),
                ("shared".into(), RpcMode::AnyPeer),
            ],
        );
        for i in 0..count {
            let names = scene.names(&path(i)).unwrap();
            let method = if i == count / 2 {
                format!("again{count}")
            } else {
                format!("m{i}")
            };
            assert_eq!(names.id(&method).map(|_| ()), Some(()), "{count}: {i}");
            let mode = if i == count / 2 {
                RpcMode::Authority
            } else {
                RpcMode::AnyPeer
            };
            assert_eq!(scene.mode(&path(i), &method), Some(mode), "{count}: {i}");
        }
        assert!(scene.names(&path(count)).is_none());
        assert!(scene.names("Players").is_none());

        let last = path(count - 1);
        let mut server = Session::server(scene.clone());
        let mut client = Session::client(7, scene);
        server.connect(7);
        client.connect(1);
        drain(&mut server);
        drain(&mut client);
        client
            .rpc(Target::Peer(1), &last, "shared", &(count as i64,))
            .unwrap();
        let mut calls = 0;
        while let Some(t) = client.poll_transmit() {
            server.receive(7, t.delivery, &t.bytes).unwrap();
        }
        while let Some(e) = server.poll_event() {
            if let Event::Call(c) = e {
                assert_eq!(
                    (c.node.as_str(), c.method.as_str()),
                    (last.as_str(), "shared")
                );
                assert_eq!(c.args::<(i64,)>().unwrap(), (count as i64,));
                calls += 1;
            }
        }
        assert_eq!(calls, 1, "{count}");
        let e = server
            .rpc(Target::Peer(7), &path(count), "shared", &())
            .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::UnknownNode(_)), "{e:?}");
    }
}
