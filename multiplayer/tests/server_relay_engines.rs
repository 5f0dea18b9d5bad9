//! The server relay off, against the real engines. Godot 4
//! (`SceneMultiplayer.server_relay = false`): crate clients join a Godot 4.6 server
//! with the relay off (`tests/oracle/norelay4.gd`) and the crate's server with
//! `set_server_relay(false)`, and on both the clients hear of no other client, and a
//! relayed call sent anyway (by a client that has the relay on) reaches no one, its
//! sender kept. Godot 3 (`NetworkedMultiplayerENet.server_relay = false`): see
//! `godot3_enet` below.
#![cfg(feature = "websocket")]

mod common;

use std::time::Duration;

use common::{engine, free_port, Engine};
use godot_bin::Variant;
use godot_bin_multiplayer::{ws, Delivery, Event, Protocol, Scene, Target};

/// What client `$c` (WebSocket or ENet) hears until the server's `done()` comes back,
/// within 20 s.
macro_rules! until_done {
    ($c:expr) => {{
        let mut heard = Vec::new();
        let wait = async {
            loop {
                let e = $c.next_event().await.unwrap().unwrap();
                let last = matches!(&e, Event::Call(call) if call.method == "done");
                heard.push(e);
                if last {
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .expect("done() comes back");
        heard
    }};
}

fn scene() -> Scene {
    Scene::new().node("Game", ["hello", "done"])
}

async fn join(url: &str, relay: bool) -> ws::Client {
    let mut c = ws::Client::connect_with(url, scene(), Protocol::Godot4)
        .await
        .unwrap();
    c.session().set_server_relay(relay);
    c
}

/// `done()` to the server, and what the client heard until it came back.
async fn done(c: &mut ws::Client) -> Vec<Event> {
    c.call(Target::Peer(1), "Game", "done", vec![])
        .await
        .unwrap();
    until_done!(c)
}

/// Two clients with the relay off, and one with it on that sends a call to the first
/// through the server: returns the three ids.
async fn clients(url: &str) -> [i32; 3] {
    let mut a = join(url, false).await;
    let mut b = join(url, false).await;
    let mut c = join(url, true).await;
    let ids = [a.id(), b.id(), c.id()];
    // Client c is told of a (as a server with the relay on would tell it), and calls
    // it through the server.
    let mut notice = vec![7, 1];
    notice.extend_from_slice(&ids[0].to_le_bytes());
    c.session()
        .receive(1, Delivery::default(), &notice)
        .unwrap();
    c.call(Target::Peer(ids[0]), "Game", "hello", vec![Variant::Int(1)])
        .await
        .unwrap();
    let heard_c = done(&mut c).await;
    assert!(
        heard_c.iter().all(|e| match e {
            Event::PeerConnected(p) => *p == 1 || *p == ids[0],
            Event::Call(call) => call.from == 1 && call.method == "done",
            _ => false,
        }),
        "{heard_c:?}"
    );
    // Sent after c's relayed call was handled: had it gone to a, a would hear it
    // before its own done() came back.
    for client in [&mut a, &mut b] {
        let heard = done(client).await;
        let others: Vec<&Event> = heard
            .iter()
            .filter(|e| !matches!(e, Event::PeerConnected(1)))
            .collect();
        assert!(
            matches!(&others[..], [Event::Call(call)] if call.from == 1 && call.method == "done"),
            "{heard:?}"
        );
    }
    for client in [a, b, c] {
        client.close().await.unwrap();
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_relay_clients_talk_to_the_server_alone() {
    let Some(bin) = engine("godot4") else {
        return;
    };
    // The engine's server.
    let port = free_port();
    let mut engine = Engine::start(&bin, "norelay4.gd", &[("PORT", port.to_string())]);
    engine.wait_for("listening", Duration::from_secs(30)).await;
    let ids = clients(&format!("ws://127.0.0.1:{port}")).await;
    let (code, log) = engine.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    let ran: Vec<(String, i64)> = log
        .iter()
        .filter(|l| l.get("ran").is_some())
        .map(|l| {
            (
                l["ran"].as_str().unwrap().to_owned(),
                l["from"].as_i64().unwrap(),
            )
        })
        .collect();
    let done_by = |order: [usize; 3]| -> Vec<(String, i64)> {
        order
            .iter()
            .map(|&i| ("done".to_owned(), i64::from(ids[i])))
            .collect()
    };
    assert_eq!(ran, done_by([2, 0, 1]), "the relayed hello ran nowhere");

    // The crate's server, the same way.
    let mut server = ws::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    server.session().set_server_relay(false);
    let url = format!("ws://{}", server.local_addr());
    let run = tokio::spawn(async move { clients(&url).await });
    let (mut ran, mut dropped, mut left) = (Vec::new(), Vec::new(), 0);
    let serve = async {
        while left < 3 {
            match server.next_event().await.unwrap() {
                Event::PeerConnected(_) => {}
                Event::PeerDisconnected(_) => left += 1,
                Event::Call(call) if call.method == "done" => {
                    ran.push(call.from);
                    server
                        .call(Target::Peer(call.from), "Game", "done", vec![])
                        .unwrap();
                }
                Event::Dropped { peer, reason } => dropped.push((peer, reason)),
                e => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), serve)
        .await
        .expect("the clients finish");
    let ids = run.await.unwrap();
    assert_eq!(ran, [ids[2], ids[0], ids[1]]);
    // The SIMPLIFY_PATH and the call by path, each in its relay.
    let reason = "the server relay is off: no relay or peer notice is taken at byte 1";
    assert_eq!(dropped, vec![(ids[2], reason.to_owned()); 2]);
}

/// Godot 3 relays in the transport: with `server_relay` off, `NetworkedMultiplayerENet`
/// tells no client of the others, drops a packet for other clients alone, and takes
/// a broadcast as for the server alone (3.4 and later: godot#48331). A Godot 3.6
/// client (`tests/oracle/norelayclient3.gd`, which calls everyone twice: first one
/// by one, by path, then with the path confirmed in one broadcast),
/// then three crate clients, one of which calls another, join a Godot 3.6 server so
/// set (`tests/oracle/norelay3.gd`) and the crate's `enet::Server` with
/// `set_server_relay(false)`: the same calls run on both, and the clients hear of no
/// one but the server.
#[cfg(feature = "enet")]
mod godot3_enet {
    use super::*;
    use godot_bin_multiplayer::enet;

    const IDS: [i32; 3] = [1_000_002, 1_000_003, 1_000_004];

    fn config() -> enet::Config {
        enet::Config {
            protocol: Protocol::Godot3,
            ..enet::Config::default()
        }
    }

    /// `done()` to the server, and what the client heard until it came back.
    async fn done(c: &mut enet::Client) -> Vec<Event> {
        c.call(Target::Peer(1), "Game", "done", vec![], Delivery::default())
            .await
            .unwrap();
        until_done!(c)
    }

    /// The engine's client, to its end; then crate clients a, b and c, of which c,
    /// told of a as a relaying server would tell it, calls a (by path, then by cache
    /// id). Each client must hear of the server alone (c of a too, which it was told
    /// of), and only its done() back. Returns the engine client's id.
    async fn clients(bin: &std::path::Path, port: u16) -> i32 {
        let godot = Engine::start(bin, "norelayclient3.gd", &[("PORT", port.to_string())]);
        let (code, log) = godot.finish(Duration::from_secs(30)).await;
        assert_eq!(code, Some(0), "{log:?}");
        let heard: Vec<&serde_json::Value> = log
            .iter()
            .filter(|l| l.get("peer").is_some() || l.get("ran").is_some())
            .collect();
        assert_eq!(
            heard,
            [
                &serde_json::json!({"peer": 1}),
                &serde_json::json!({"ran": "done", "from": 1}),
                &serde_json::json!({"ran": "done", "from": 1})
            ],
            "{log:?}"
        );
        let godot_id = log
            .iter()
            .find_map(|l| l.get("connected")?.as_i64())
            .unwrap() as i32;

        let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
        let mut crate_clients = Vec::new();
        for id in IDS {
            crate_clients.push(
                enet::Client::connect(addr, id, scene(), config())
                    .await
                    .unwrap(),
            );
        }
        let [a, b, c] = &mut crate_clients[..] else {
            unreachable!()
        };
        c.session().connect(IDS[0]);
        for n in 0..2 {
            c.call(
                Target::Peer(IDS[0]),
                "Game",
                "hello",
                vec![Variant::Int(n)],
                Delivery::default(),
            )
            .await
            .unwrap();
        }
        // After c's calls were handled: had one gone to a, a would hear it before
        // its own done() came back.
        for (client, told) in [(c, IDS[0]), (a, 1), (b, 1)] {
            let heard = done(client).await;
            let others: Vec<&Event> = heard
                .iter()
                .filter(|e| !matches!(e, Event::PeerConnected(p) if *p == 1 || *p == told))
                .collect();
            assert!(
                matches!(&others[..], [Event::Call(call)] if call.from == 1 && call.method == "done"),
                "{heard:?}"
            );
        }
        for client in crate_clients {
            client.close().await.unwrap();
        }
        godot_id
    }

    /// Who made each call that ran: the engine's client, or crate client a, b or c.
    fn by_whom(ran: &[(String, i32)], godot: i32) -> Vec<(String, char)> {
        ran.iter()
            .map(|(m, from)| {
                let who = match IDS.iter().position(|id| id == from) {
                    Some(i) => (b'a' + i as u8) as char,
                    None if *from == godot => 'g',
                    None => '?',
                };
                (m.clone(), who)
            })
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_the_relay_godot3_clients_talk_to_the_server_alone() {
        let Some(bin) = engine("godot3.6") else {
            return;
        };
        let port = free_port();
        let env = [("PORT", port.to_string()), ("CLIENTS", "4".to_owned())];
        let mut server = Engine::start(&bin, "norelay3.gd", &env);
        server.wait_for("listening", Duration::from_secs(30)).await;
        let godot = clients(&bin, port).await;
        let (code, log) = server.finish(Duration::from_secs(20)).await;
        assert_eq!(code, Some(0), "{log:?}");
        let ran: Vec<(String, i32)> = log
            .iter()
            .filter(|l| l.get("ran").is_some())
            .map(|l| {
                let from = l["from"].as_i64().unwrap();
                (l["ran"].as_str().unwrap().to_owned(), from as i32)
            })
            .collect();
        let engine_ran = by_whom(&ran, godot);
        let done_by = |who: &str| -> Vec<(String, char)> {
            who.chars().map(|w| ("done".to_owned(), w)).collect()
        };
        let mut expected = Vec::new();
        for _ in 0..2 {
            expected.extend([("hello".to_owned(), 'g'), ("done".to_owned(), 'g')]);
        }
        expected.extend(done_by("cab"));
        assert_eq!(
            engine_ran, expected,
            "both broadcasts ran, at the server alone"
        );

        let mut server = enet::Server::bind_with("127.0.0.1:0", scene(), config())
            .await
            .unwrap();
        server.session().set_server_relay(false);
        let port = server.local_addr().port();
        let bin2 = bin.clone();
        let run = tokio::spawn(async move { clients(&bin2, port).await });
        let (mut ran, mut dropped, mut left) = (Vec::new(), Vec::new(), 0);
        let serve = async {
            while left < 4 {
                match server.next_event().await.unwrap() {
                    Event::PeerConnected(_) => {}
                    Event::PeerDisconnected(_) => left += 1,
                    Event::Call(call) => {
                        ran.push((call.method.to_string(), call.from));
                        if call.method == "done" {
                            server
                                .call(
                                    Target::Peer(call.from),
                                    "Game",
                                    "done",
                                    vec![],
                                    Delivery::default(),
                                )
                                .unwrap();
                        }
                    }
                    Event::Dropped { peer, reason } => dropped.push((peer, reason)),
                    e => panic!("unexpected {e:?}"),
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), serve)
            .await
            .expect("the clients finish");
        let godot = run.await.unwrap();
        assert_eq!(by_whom(&ran, godot), engine_ran);
        // c's path to a and its two calls.
        let reason = "the server relay is off: no relay or peer notice is taken at byte 4";
        assert_eq!(dropped, vec![(IDS[2], reason.to_owned()); 3]);
    }
}
