//! Real Godot 4.6 clients (`tests/oracle/client4.gd`) join `ws::Server` over
//! WebSocket on loopback: their calls arrive with the exact arguments they sent, the
//! server's calls back run in the engine with the same arguments, and the two
//! clients greet each other through the server's relay.
#![cfg(feature = "websocket")]

mod common;
#[path = "../../tests/common/random.rs"]
mod random;

use std::collections::HashMap;
use std::time::Duration;

use common::{engine, godot4, godot4_hex, Engine};
use godot_bin::{Dialect, Variant};
use godot_bin_multiplayer::ws::{Client, Server};
use godot_bin_multiplayer::{Event, Scene, Target};
use serde_json::Value;

fn scene() -> Scene {
    Scene::new().node(
        "Game",
        [
            "ping", "blob", "one", "two", "three", "greet", "shout", "done",
        ],
    )
}

const ECHOED: [&str; 5] = ["ping", "blob", "one", "two", "three"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_clients_call_the_rust_server_and_each_other() {
    let Some(bin) = engine("godot4") else { return };
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let port = server.local_addr().port().to_string();
    let clients: Vec<Engine> = [11, 12]
        .into_iter()
        .map(|seed| {
            Engine::start(
                &bin,
                "client4.gd",
                &[("PORT", port.clone()), ("SEED", seed.to_string())],
            )
        })
        .collect();

    // The server's side: every call received, per client, in order.
    let mut calls: HashMap<i32, Vec<(String, Vec<Variant>)>> = HashMap::new();
    let mut connected = Vec::new();
    let mut done = 0;
    let run = async {
        while done < 2 {
            match server.next_event().await.expect("the listener runs") {
                Event::PeerConnected(id) => connected.push(id),
                Event::Call(call) => {
                    if ECHOED.contains(&call.method.as_str()) || call.method == "done" {
                        if call.method == "done" {
                            done += 1;
                        }
                        server
                            .call(
                                Target::Peer(call.from),
                                "Game",
                                &call.method,
                                call.args.clone(),
                            )
                            .unwrap();
                    }
                    calls
                        .entry(call.from)
                        .or_default()
                        .push((call.method, call.args));
                }
                e => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(80), run)
        .await
        .expect("both clients finish");
    assert_eq!(connected.len(), 2);

    let mut logs = Vec::new();
    for c in clients {
        let (code, log) = c.finish(Duration::from_secs(20)).await;
        assert_eq!(code, Some(0), "client log: {log:?}");
        logs.push(log);
    }
    let ids: Vec<i32> = logs
        .iter()
        .map(|log| {
            let l = log.iter().find(|l| l.get("connected").is_some()).unwrap();
            l["connected"].as_i64().unwrap() as i32
        })
        .collect();
    assert_eq!(
        {
            let mut c = connected.clone();
            c.sort();
            c
        },
        {
            let mut i = ids.clone();
            i.sort();
            i
        }
    );
    for (k, log) in logs.iter().enumerate() {
        let (me, other) = (ids[k], ids[1 - k]);
        // Each client heard of the other from the server.
        assert!(log.iter().any(|l| l["peer"] == other), "{log:?}");
        // What it sent the server is what the server got, value for value.
        let sent: Vec<(String, String)> = log
            .iter()
            .filter(|l| l.get("call").is_some() && (l["to"] == 1 || l["call"] == "shout"))
            .map(|l| (str_of(l, "call"), str_of(l, "args")))
            .collect();
        let got = &calls[&me];
        assert_eq!(sent.len(), got.len());
        assert!(sent.len() > 20, "{}", sent.len());
        for ((method, hex), (m, args)) in sent.iter().zip(got) {
            assert_eq!(method, m);
            assert_eq!(godot4(hex), Variant::Array(args.clone()), "{method}");
        }
        // What the server sent back ran with the same bytes.
        let echoed: Vec<(String, String)> = log
            .iter()
            .filter(|l| l.get("ran").is_some() && l["from"] == 1)
            .map(|l| (str_of(l, "ran"), str_of(l, "args")))
            .collect();
        let expected: Vec<(String, String)> =
            sent.iter().filter(|(m, _)| m != "shout").cloned().collect();
        assert_eq!(echoed, expected);
        // The greetings of the other client came through the relay.
        let from_other: Vec<(String, String)> = log
            .iter()
            .filter(|l| l.get("ran").is_some() && l["from"] == other)
            .map(|l| (str_of(l, "ran"), str_of(l, "args")))
            .collect();
        assert_eq!(
            from_other,
            [
                (
                    "greet".to_string(),
                    godot4_hex(&Variant::Array(vec![Variant::String(format!(
                        "hello from {other}"
                    ))]))
                ),
                (
                    "shout".to_string(),
                    godot4_hex(&Variant::Array(vec![Variant::String("all".into())]))
                ),
            ]
        );
    }
}

fn str_of(l: &Value, k: &str) -> String {
    l[k].as_str().unwrap().to_owned()
}

/// One Rust client's run against the Godot server: greet the other client, shout,
/// make `calls`, then `done`; collect what the server sent back.
async fn rust_client(
    url: String,
    calls: Vec<(&'static str, Vec<Variant>)>,
) -> (
    i32,
    i32,
    Vec<(String, Vec<Variant>)>,
    Vec<(i32, String, Vec<Variant>)>,
) {
    let mut c = Client::connect(&url, scene()).await.unwrap();
    let me = c.id();
    let mut other = 0;
    let mut from_server = Vec::new();
    let mut from_peers = Vec::new();
    let mut sent = false;
    while let Some(event) = c.next_event().await {
        match event.unwrap() {
            Event::PeerConnected(1) | Event::PeerDisconnected(_) => {}
            Event::PeerConnected(id) if other == 0 => other = id,
            Event::Call(call) if call.from == 1 => {
                let done = call.method == "done";
                from_server.push((call.method, call.args));
                if done {
                    break;
                }
            }
            Event::Call(call) => from_peers.push((call.from, call.method, call.args)),
            e => panic!("unexpected {e:?}"),
        }
        if other != 0 && !sent {
            sent = true;
            c.rpc(
                Target::Peer(other),
                "Game",
                "greet",
                &(format!("hello from {me}"),),
            )
            .await
            .unwrap();
            c.rpc(Target::All, "Game", "shout", &("all",))
                .await
                .unwrap();
            for (method, args) in &calls {
                c.call(Target::Peer(1), "Game", method, args.clone())
                    .await
                    .unwrap();
            }
            c.rpc(Target::Peer(1), "Game", "done", &()).await.unwrap();
        }
    }
    // Both greetings may still be on their way after `done` came back.
    while from_peers.len() < 2 {
        match tokio::time::timeout(Duration::from_secs(10), c.next_event()).await {
            Ok(Some(Ok(Event::Call(call)))) => from_peers.push((call.from, call.method, call.args)),
            Ok(Some(Ok(Event::PeerDisconnected(_) | Event::PeerConnected(_)))) => {}
            other => panic!("waiting for the greetings: {other:?}"),
        }
    }
    c.close().await.unwrap();
    (me, other, from_server, from_peers)
}

/// Seeded random argument lists written by the crate: every Godot 4 type but
/// Objects (which the engine refuses to decode in RPCs by default), plus the fixed
/// forms (no arguments, one PackedByteArray, compressed ints and bools).
fn crate_calls(seed: u64) -> Vec<(&'static str, Vec<Variant>)> {
    fn has_object(v: &Variant) -> bool {
        matches!(v, Variant::ObjectId(_) | Variant::Object(_))
            || random::children(v).iter().any(has_object)
    }
    let mut r = random::Rng::new(seed);
    let mut calls = vec![
        ("ping", vec![]),
        (
            "blob",
            vec![Variant::PoolByteArray(godot_bin::PoolByteArray(vec![
                1, 2, 3,
            ]))],
        ),
        ("one", vec![Variant::Int(42)]),
        ("two", vec![Variant::Bool(true), Variant::Int(-300)]),
        (
            "three",
            vec![
                Variant::Int(70000),
                Variant::Int(i64::MIN),
                Variant::Bool(false),
            ],
        ),
    ];
    while calls.len() < 150 {
        let n = 1 + r.below(3);
        let args: Vec<Variant> = (0..n)
            .map(|_| random::variant(&mut r, Dialect::Godot4, 0))
            .collect();
        if args.iter().any(has_object) {
            continue;
        }
        calls.push((["one", "two", "three"][n - 1], args));
    }
    calls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_clients_call_a_godot4_server_and_each_other() {
    let Some(bin) = engine("godot4") else { return };
    let port = common::free_port();
    let mut godot = Engine::start(&bin, "server4.gd", &[("PORT", port.to_string())]);
    godot.wait_for("listening", Duration::from_secs(30)).await;
    let url = format!("ws://127.0.0.1:{port}");
    let seed = random::seed();
    eprintln!("seed {seed} (GODOT_RANDOM_SEED repeats it)");
    let (a, b) = (crate_calls(seed), crate_calls(seed ^ 0x5555));
    let runs = async {
        tokio::join!(
            tokio::spawn(rust_client(url.clone(), a.clone())),
            tokio::spawn(rust_client(url.clone(), b.clone()))
        )
    };
    let (ra, rb) = tokio::time::timeout(Duration::from_secs(60), runs)
        .await
        .expect("both clients finish");
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    let (code, log) = godot.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");

    for ((me, other, from_server, from_peers), sent) in [(ra.clone(), a), (rb.clone(), b)] {
        assert_eq!(other, if me == ra.0 { rb.0 } else { ra.0 });
        // The engine ran each call with the arguments the crate wrote, byte for byte.
        let ran: Vec<(String, String)> = log
            .iter()
            .filter(|l| l.get("ran").is_some() && l["from"] == me)
            .map(|l| (str_of(l, "ran"), str_of(l, "args")))
            .collect();
        let mut expected: Vec<(String, String)> = vec![(
            "shout".into(),
            godot4_hex(&Variant::Array(vec![Variant::String("all".into())])),
        )];
        // One empty PackedByteArray goes as no arguments at all (meta bit 7, no
        // bytes), in the engine as here: `one(a)` then cannot run.
        let lost = |a: &[Variant]| matches!(a, [Variant::PoolByteArray(b)] if b.0.is_empty());
        expected.extend(
            sent.iter()
                .filter(|(_, a)| !lost(a))
                .map(|(m, a)| (m.to_string(), godot4_hex(&Variant::Array(a.clone())))),
        );
        expected.push(("done".into(), godot4_hex(&Variant::Array(vec![]))));
        for (i, (r, e)) in ran.iter().zip(&expected).enumerate() {
            assert_eq!(r, e, "call {i}");
        }
        assert_eq!(ran.len(), expected.len());
        // And sent them back: the crate reads the engine's encoding to the same bytes.
        assert_eq!(from_server.len(), expected.len() - 1);
        for ((m, args), (em, ehex)) in from_server.iter().zip(expected.iter().skip(1)) {
            assert_eq!((m, &godot4_hex(&Variant::Array(args.clone()))), (em, ehex));
        }
        // The other client's greeting and shout, through the Godot server's relay.
        let mut peers = from_peers.clone();
        peers.sort_by(|x, y| x.1.cmp(&y.1));
        assert_eq!(
            peers,
            [
                (
                    other,
                    "greet".to_string(),
                    vec![Variant::String(format!("hello from {other}"))]
                ),
                (
                    other,
                    "shout".to_string(),
                    vec![Variant::String("all".into())]
                ),
            ]
        );
    }
}

/// A Godot 3.6 `WebSocketClient` against a server made of the `godot3` pieces: the
/// 9-byte header (ID, ADD, payload), the path cache, and calls both ways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_client_talks_to_the_godot3_pieces() {
    use futures_util::{SinkExt, StreamExt};
    use godot_bin_multiplayer::godot3::{Packet, RemoteCall, WsHeader, WsKind};
    use godot_bin_multiplayer::NodeRef;
    use tokio_tungstenite::tungstenite::Message;

    let Some(bin) = engine("godot3.6") else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let godot = Engine::start(&bin, "client3.gd", &[("PORT", port)]);
    let id = 777;
    let run = async {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        ws.send(Message::binary(WsHeader::system(WsKind::Id, id)))
            .await
            .unwrap();
        ws.send(Message::binary(WsHeader::system(WsKind::AddPeer, 1)))
            .await
            .unwrap();
        let mut received = Vec::new();
        while received.len() < 2 {
            let msg = ws.next().await.unwrap().unwrap().into_data();
            let (h, body) = WsHeader::split(&msg).unwrap();
            assert_eq!(
                h,
                WsHeader {
                    kind: WsKind::Payload,
                    from: id,
                    to: 1
                }
            );
            let packet = Packet::decode(body).unwrap();
            if let Packet::SimplifyPath { id: cache, path } = &packet {
                assert_eq!((*cache, path.as_str()), (1, "Game"));
                let confirm = Packet::ConfirmPath(path.clone()).encode().unwrap();
                let h = WsHeader {
                    kind: WsKind::Payload,
                    from: 1,
                    to: id,
                };
                ws.send(Message::binary(h.wrap(&confirm))).await.unwrap();
            }
            received.push(packet);
        }
        let welcome = Packet::Call(RemoteCall {
            node: NodeRef::Path("Game".into()),
            method: "welcome".into(),
            args: vec![Variant::String("hi".into())],
        })
        .encode()
        .unwrap();
        let h = WsHeader {
            kind: WsKind::Payload,
            from: 1,
            to: id,
        };
        ws.send(Message::binary(h.wrap(&welcome))).await.unwrap();
        // Until the engine goes.
        while let Some(Ok(_)) = ws.next().await {}
        received
    };
    let received = tokio::time::timeout(Duration::from_secs(40), run)
        .await
        .expect("the Godot 3 client finishes");
    assert_eq!(
        received[1],
        Packet::Call(RemoteCall {
            node: NodeRef::Path("Game".into()),
            method: "hello".into(),
            args: vec![Variant::Int(42), Variant::String("hé".into())],
        })
    );
    let (code, log) = godot.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    assert!(log.iter().any(|l| l["connected"] == id), "{log:?}");
    assert!(log.iter().any(|l| l["peer"] == 1), "{log:?}");
    let hi = godot_bin::to_vec(&Variant::Array(vec![Variant::String("hi".into())])).unwrap();
    let ran: Vec<_> = log.iter().filter(|l| l.get("ran").is_some()).collect();
    assert_eq!(ran.len(), 1, "{log:?}");
    assert_eq!(
        (&ran[0]["ran"], &ran[0]["from"]),
        (&Value::from("welcome"), &Value::from(1))
    );
    assert_eq!(str_of(ran[0], "args"), hex::encode(hi));
}
