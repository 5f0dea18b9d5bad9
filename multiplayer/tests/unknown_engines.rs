//! Calls a server has no node or method for, from a real Godot client: Godot 3.6's
//! and 4.6's servers drop each such packet with an error line and go on with the
//! client, and so does the crate's (`Event::Dropped`, the client kept). The clients
//! (`tests/oracle/unknown3.gd`, `unknown4.gd`) call a method the server's node does
//! not have (Godot 3 by name, Godot 4 by an id past the server's table, whose
//! checksum then differs) and a node the server does not have, by path (its
//! SIMPLIFY_PATH too; Godot 3 takes and confirms it, Godot 4 drops it) and, half a
//! second later, again (Godot 3: by its cache id), with a call the server has, which
//! must run, and `done()`, which the server sends back.
#![cfg(feature = "websocket")]

mod common;

use std::time::Duration;

use common::{engine, Engine};
use godot_bin::Variant;
use godot_bin_multiplayer::{ws, Event, Protocol, Scene, Target};
use serde_json::json;

const METHODS: [&str; 8] = [
    "ping", "blob", "one", "two", "three", "greet", "shout", "done",
];

fn ran(args: &str) -> Vec<Variant> {
    match args {
        "" => vec![],
        a => vec![Variant::String(a.into())],
    }
}

async fn engine_server(bin: &std::path::Path, server: &str, client: &str, p: Protocol) {
    let port = common::free_port();
    let env = [("PORT", port.to_string())];
    let mut godot = Engine::start(bin, server, &env);
    godot.wait_for("listening", Duration::from_secs(30)).await;
    let c = Engine::start(bin, client, &env);
    let (code, client_log) = c.finish(Duration::from_secs(40)).await;
    assert_eq!(code, Some(0), "{client_log:?}");
    let (code, log) = godot.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    let calls: Vec<(String, Vec<Variant>)> = log
        .iter()
        .filter(|l| l.get("ran").is_some())
        .map(|l| {
            let hex = l["args"].as_str().unwrap();
            let args = match p {
                Protocol::Godot4 => common::godot4(hex),
                _ => godot_bin::from_slice(&hex::decode(hex).unwrap()).unwrap(),
            };
            let Variant::Array(args) = args else {
                panic!("{args:?}")
            };
            (l["ran"].as_str().unwrap().to_owned(), args)
        })
        .collect();
    assert_eq!(
        calls,
        [("greet".into(), ran("after")), ("done".into(), ran(""))]
    );
}

async fn crate_server(bin: &std::path::Path, client: &str, protocol: Protocol) -> Vec<String> {
    let config = ws::Config {
        protocol,
        ..ws::Config::default()
    };
    let scene = Scene::new().node("Game", METHODS);
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene, config)
        .await
        .unwrap();
    let port = server.local_addr().port().to_string();
    let c = Engine::start(bin, client, &[("PORT", port)]);
    let mut calls = Vec::new();
    let mut dropped = Vec::new();
    let mut mismatched = Vec::new();
    let run = async {
        loop {
            match server.next_event().await.expect("the listener runs") {
                Event::Call(call) => {
                    assert_eq!(call.node, "Game");
                    if call.method == "done" {
                        server
                            .call(Target::Peer(call.from), "Game", "done", vec![])
                            .unwrap();
                    }
                    calls.push((call.method.to_string(), call.args));
                }
                Event::Dropped { reason, .. } => dropped.push(reason),
                Event::ChecksumMismatch { path, .. } => mismatched.push(path.to_string()),
                Event::PeerDisconnected(_) => break,
                Event::PeerConnected(_) => {}
                e => panic!("{e:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(40), run)
        .await
        .expect("the client leaves");
    let (code, log) = c.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    assert!(log.contains(&json!({"ran": "done", "args": []})), "{log:?}");
    assert_eq!(
        calls,
        [("greet".into(), ran("after")), ("done".into(), ran(""))]
    );
    // Godot 4: the client's SIMPLIFY_PATH, and its answer to the server's, say the
    // checksums differ (the engine's server prints both).
    let expected: &[&str] = match protocol {
        Protocol::Godot4 => &["Game", "Game"],
        _ => &[],
    };
    assert_eq!(mismatched, expected);
    dropped
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_calls_of_unknown_nodes_and_methods_are_dropped_and_the_client_kept() {
    let Some(bin) = engine("godot3.6") else {
        return;
    };
    engine_server(&bin, "server3.gd", "unknown3.gd", Protocol::Godot3).await;
    let dropped = crate_server(&bin, "unknown3.gd", Protocol::Godot3).await;
    assert_eq!(
        dropped,
        [
            "\"nosuch\" is not one of the node's rpc methods at byte 5",
            // By path; Godot 3's SIMPLIFY_PATH is taken and confirmed, as the engine
            // takes it, so the call half a second later goes by its cache id.
            "no node \"Elsewhere\" in the scene at byte 1",
            "cache id 2 is of a path that names no node of the scene at byte 1",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_calls_of_unknown_nodes_and_methods_are_dropped_and_the_client_kept() {
    let Some(bin) = engine("godot4") else { return };
    engine_server(&bin, "server4.gd", "unknown4.gd", Protocol::Godot4).await;
    let dropped = crate_server(&bin, "unknown4.gd", Protocol::Godot4).await;
    assert_eq!(
        dropped,
        [
            "method id 8 is not one of the node's rpc methods at byte 1",
            "no node \"Elsewhere\" in the scene at byte 38",
            "no node \"Elsewhere\" in the scene at byte 1",
            "no node \"Elsewhere\" in the scene at byte 1",
        ]
    );
}
