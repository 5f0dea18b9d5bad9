//! A leading BOM in a node path or (Godot 3) a method name, as Godot 3.6 and 4.6
//! take it: the engines read these texts with `String::parse_utf8`, which drops one
//! leading BOM. A Godot client whose node is named "\u{feff}Game" (and, in Godot 3,
//! which calls "\u{feff}greet") reaches the server's node "Game" and its `greet`:
//! the engine's own server (`server3.gd`, `server4.gd`) runs those calls, and the
//! crate's server hands them out as calls of "Game" and "greet". A call the crate
//! sends to the node "\u{feff}Game" reaches that client's node: the crate writes the
//! BOM twice, so that the engine reads back the name the caller gave.
#![cfg(feature = "websocket")]

mod common;

use std::time::Duration;

use common::{engine, Engine};
use godot_bin::Variant;
use godot_bin_multiplayer::{ws, Event, Protocol, Scene, Target};
use serde_json::{json, Value};

const METHODS: [&str; 8] = [
    "ping", "blob", "one", "two", "three", "greet", "shout", "done",
];

/// The calls the client script makes, as the engine's server runs them.
fn expected(protocol: Protocol) -> Vec<(String, Vec<String>)> {
    let mut calls = Vec::new();
    if protocol == Protocol::Godot3 {
        calls.push(("greet".to_string(), vec!["bom-method".to_string()]));
    }
    calls.push(("greet".into(), vec!["bom-path".into()]));
    calls.push(("done".into(), vec![]));
    calls
}

fn strings(args: &[Variant]) -> Vec<String> {
    args.iter()
        .map(|a| match a {
            Variant::String(s) => s.clone(),
            a => panic!("{a:?}"),
        })
        .collect()
}

async fn engine_server_runs_them(bin: &std::path::Path, server: &str, client: &str, p: Protocol) {
    let port = common::free_port();
    let env = [("PORT", port.to_string())];
    let mut godot = Engine::start(bin, server, &env);
    godot.wait_for("listening", Duration::from_secs(30)).await;
    let c = Engine::start(bin, client, &env);
    let (code, client_log) = c.finish(Duration::from_secs(40)).await;
    assert_eq!(code, Some(0), "{client_log:?}");
    let (code, log) = godot.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    // The client's node path as the engine sends it, BOM first.
    assert!(
        client_log.iter().any(|l| l["path"] == "/root/\u{feff}Game"),
        "{client_log:?}"
    );
    let ran: Vec<(String, Vec<String>)> = log
        .iter()
        .filter(|l| l.get("ran").is_some())
        .map(|l| {
            let args = crate_args(p, l["args"].as_str().unwrap());
            (l["ran"].as_str().unwrap().to_owned(), strings(&args))
        })
        .collect();
    assert_eq!(ran, expected(p), "{log:?}");
}

/// An argument array that the engine server printed as `var2bytes` hex.
fn crate_args(p: Protocol, hex: &str) -> Vec<Variant> {
    let v = match p {
        Protocol::Godot4 => common::godot4(hex),
        _ => godot_bin::from_slice(&hex::decode(hex).unwrap()).unwrap(),
    };
    match v {
        Variant::Array(a) => a,
        v => panic!("{v:?}"),
    }
}

async fn crate_server_reads_them(bin: &std::path::Path, client: &str, protocol: Protocol) {
    let scene = Scene::new()
        .node("Game", METHODS)
        .node("\u{feff}Game", METHODS);
    let config = ws::Config {
        protocol,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene, config)
        .await
        .unwrap();
    let port = server.local_addr().port().to_string();
    let c = Engine::start(bin, client, &[("PORT", port)]);
    let mut calls = Vec::new();
    let run = async {
        loop {
            match server.next_event().await.expect("the listener runs") {
                Event::Call(call) => {
                    if call.method == "done" {
                        let back = vec![Variant::String("back".into())];
                        server
                            .call(Target::Peer(call.from), "\u{feff}Game", "greet", back)
                            .unwrap();
                    }
                    calls.push((call.node.to_string(), call.method.to_string(), call.args));
                }
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
    let got: Vec<(String, Vec<String>)> = calls
        .iter()
        .map(|(node, method, args)| {
            assert_eq!(node, "Game");
            (method.clone(), strings(args))
        })
        .collect();
    assert_eq!(got, expected(protocol));
    // The call to "\u{feff}Game" reached the client's node of that name.
    assert!(
        log.contains(&json!({"ran": "greet", "args": ["back"]})),
        "{log:?}"
    );
    assert!(
        !log.iter().any(|l: &Value| l.get("timeout").is_some()),
        "{log:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_drops_a_leading_bom_from_paths_and_method_names_and_so_does_the_crate() {
    let Some(bin) = engine("godot3.6") else {
        return;
    };
    engine_server_runs_them(&bin, "server3.gd", "bom3.gd", Protocol::Godot3).await;
    crate_server_reads_them(&bin, "bom3.gd", Protocol::Godot3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_drops_a_leading_bom_from_paths_and_so_does_the_crate() {
    let Some(bin) = engine("godot4") else { return };
    engine_server_runs_them(&bin, "server4.gd", "bom4.gd", Protocol::Godot4).await;
    crate_server_reads_them(&bin, "bom4.gd", Protocol::Godot4).await;
}
