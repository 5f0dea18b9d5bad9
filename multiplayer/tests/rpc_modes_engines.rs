//! Rpc modes against the real engines: a crate client makes the same calls to a Godot
//! server (`tests/oracle/modes4.gd`, `modes3.gd`), whose methods have each mode, and
//! to the crate's server with the same modes declared; the same calls run on both,
//! and the crate's server drops the others with `Event::Dropped`, keeping the client.
//! On both, node `Game`'s authority (Godot 3: network master) is the server and
//! node `Mine`'s the client.
#![cfg(feature = "websocket")]

mod common;

use std::time::Duration;

use common::{engine, free_port, Engine};
use godot_bin::Variant;
use godot_bin_multiplayer::{ws, Event, Protocol, RpcMode, Scene, Target};

/// A call that ran: node, method, argument.
type Ran = (String, String, i64);

fn scene(protocol: Protocol) -> Scene {
    let methods: Vec<(&str, RpcMode)> = match protocol {
        Protocol::Godot4 => vec![
            ("welcome", RpcMode::Authority),
            ("hit", RpcMode::Authority),
            ("move", RpcMode::AnyPeer),
            ("done", RpcMode::AnyPeer),
        ],
        Protocol::Godot3 => vec![
            ("to_master", RpcMode::Master),
            ("to_puppet", RpcMode::Puppet),
            ("to_master_sync", RpcMode::Master),
            ("to_puppet_sync", RpcMode::Puppet),
            ("any", RpcMode::AnyPeer),
            ("done", RpcMode::AnyPeer),
        ],
    };
    Scene::new()
        .node("Game", methods.clone())
        .node("Mine", methods)
}

/// Every method on both nodes, in order, each with its own argument.
fn calls(protocol: Protocol) -> Vec<(&'static str, &'static str, i64)> {
    let methods: &[&str] = match protocol {
        Protocol::Godot4 => &["welcome", "hit", "move"],
        Protocol::Godot3 => &[
            "to_master",
            "to_puppet",
            "to_master_sync",
            "to_puppet_sync",
            "any",
        ],
    };
    let mut calls = Vec::new();
    // Twice each: the first by path, the second by cache id.
    for _ in 0..2 {
        for node in ["Game", "Mine"] {
            for &m in methods {
                calls.push((node, m, calls.len() as i64));
            }
        }
    }
    calls
}

/// A crate client at `url` makes `calls`, then `done()`, and waits for `done()` back.
async fn client(url: &str, protocol: Protocol) -> i32 {
    let mut c = ws::Client::connect_with(url, scene(protocol), protocol)
        .await
        .unwrap();
    for (node, method, arg) in calls(protocol) {
        c.call(Target::Peer(1), node, method, vec![Variant::Int(arg)])
            .await
            .unwrap();
    }
    c.call(Target::Peer(1), "Game", "done", vec![])
        .await
        .unwrap();
    let wait = async {
        loop {
            match c.next_event().await.unwrap().unwrap() {
                Event::Call(call) if call.method == "done" => return,
                Event::PeerConnected(_) => {}
                e => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .expect("done() comes back");
    let id = c.id();
    c.close().await.unwrap();
    id
}

/// What ran on the engine's server.
async fn on_engine(bin: &std::path::Path, script: &str, protocol: Protocol) -> Vec<Ran> {
    let port = free_port();
    let mut engine = Engine::start(bin, script, &[("PORT", port.to_string())]);
    engine.wait_for("listening", Duration::from_secs(30)).await;
    let id = client(&format!("ws://127.0.0.1:{port}"), protocol).await;
    let (code, log) = engine.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    assert!(
        log.iter().any(|l| l["peer"] == id && l["mine"] == id),
        "{log:?}"
    );
    log.iter()
        .filter(|l| l.get("ran").is_some() && l["ran"] != "done")
        .map(|l| {
            assert_eq!(l["from"], id);
            let args = hex::decode(l["args"].as_str().unwrap()).unwrap();
            let dialect = match protocol {
                Protocol::Godot4 => godot_bin::Dialect::Godot4,
                Protocol::Godot3 => godot_bin::Dialect::Godot3,
            };
            let arg = match godot_bin::Config::new()
                .dialect(dialect)
                .from_slice::<Variant>(&args)
                .unwrap()
            {
                Variant::Array(a) => match a[..] {
                    [Variant::Int(n)] => n,
                    _ => panic!("{a:?}"),
                },
                v => panic!("{v:?}"),
            };
            (
                l["node"].as_str().unwrap().to_owned(),
                l["ran"].as_str().unwrap().to_owned(),
                arg,
            )
        })
        .collect()
}

/// What ran on the crate's server, and the calls it dropped.
async fn on_crate(protocol: Protocol) -> (Vec<Ran>, Vec<Ran>) {
    let config = ws::Config {
        protocol,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(protocol), config)
        .await
        .unwrap();
    let url = format!("ws://{}", server.local_addr());
    let run = tokio::spawn(async move { client(&url, protocol).await });
    let (mut ran, mut dropped) = (Vec::new(), 0);
    let mut id = 0;
    let serve = async {
        loop {
            match server.next_event().await.unwrap() {
                Event::PeerConnected(peer) => {
                    id = peer;
                    server.session().set_authority("Mine", peer).unwrap();
                }
                Event::Call(call) if call.method == "done" => {
                    server
                        .call(Target::Peer(call.from), "Game", "done", vec![])
                        .unwrap();
                }
                Event::Call(call) => {
                    assert_eq!(call.from, id);
                    let [Variant::Int(arg)] = call.args.to_variants().unwrap()[..] else {
                        panic!("{call:?}")
                    };
                    ran.push((call.node.to_string(), call.method.to_string(), arg));
                }
                Event::Dropped { peer, reason } => {
                    assert_eq!(peer, id);
                    assert!(reason.contains("is not allowed from peer"), "{reason}");
                    dropped += 1;
                }
                Event::PeerDisconnected(peer) => {
                    assert_eq!(peer, id, "the client left when it was done, not before");
                    return;
                }
                e => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), serve)
        .await
        .expect("the client finishes");
    assert_eq!(run.await.unwrap(), id);
    let all: Vec<Ran> = calls(protocol)
        .into_iter()
        .map(|(n, m, a)| (n.to_owned(), m.to_owned(), a))
        .collect();
    let not_run: Vec<Ran> = all.into_iter().filter(|c| !ran.contains(c)).collect();
    assert_eq!(not_run.len(), dropped);
    (ran, not_run)
}

async fn same_calls_run(engine_name: &str, script: &str, protocol: Protocol, expected: &[Ran]) {
    let Some(bin) = engine(engine_name) else {
        return;
    };
    let by_engine = on_engine(&bin, script, protocol).await;
    let (by_crate, dropped) = on_crate(protocol).await;
    assert_eq!(by_crate, by_engine);
    assert_eq!(by_crate, expected);
    assert!(!dropped.is_empty());
}

fn ran(list: &[(&str, &str, i64)]) -> Vec<Ran> {
    list.iter()
        .map(|&(n, m, a)| (n.to_owned(), m.to_owned(), a))
        .collect()
}

/// Godot 4: `authority` methods run from the node's authority alone (the client, on
/// Mine), `any_peer` ones from anyone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_modes_run_the_calls_the_engine_runs() {
    let expected = ran(&[
        ("Game", "move", 2),
        ("Mine", "welcome", 3),
        ("Mine", "hit", 4),
        ("Mine", "move", 5),
        ("Game", "move", 8),
        ("Mine", "welcome", 9),
        ("Mine", "hit", 10),
        ("Mine", "move", 11),
    ]);
    same_calls_run("godot4", "modes4.gd", Protocol::Godot4, &expected).await;
}

/// Godot 3: at the server, `master` methods run on Game (the server is its master)
/// and `puppet` ones on Mine (the client, its master, calls); `remote` ones anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_modes_run_the_calls_the_engine_runs() {
    let expected = ran(&[
        ("Game", "to_master", 0),
        ("Game", "to_master_sync", 2),
        ("Game", "any", 4),
        ("Mine", "to_puppet", 6),
        ("Mine", "to_puppet_sync", 8),
        ("Mine", "any", 9),
        ("Game", "to_master", 10),
        ("Game", "to_master_sync", 12),
        ("Game", "any", 14),
        ("Mine", "to_puppet", 16),
        ("Mine", "to_puppet_sync", 18),
        ("Mine", "any", 19),
    ]);
    same_calls_run("godot3.6", "modes3.gd", Protocol::Godot3, &expected).await;
}
