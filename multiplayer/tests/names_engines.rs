//! What a real Godot client names, as Godot 3.6's and 4.6's own servers take it, and
//! the crate's server alike: the client script (`tests/oracle/names3.gd`, `names4.gd`)
//! runs against the engine's server (`server3.gd`, `server4.gd`) and against the
//! crate's, and both run the same calls.
//!
//! - A leading BOM (`CASE=bom`): the engines read node paths and Godot 3
//!   method names with `String::parse_utf8`, which drops one leading BOM, so a client
//!   whose node is named "\u{feff}Game" (and, in Godot 3, which calls "\u{feff}greet")
//!   reaches the server's "Game" and its `greet`. A call the crate sends to the node
//!   "\u{feff}Game" reaches that client's node: the crate writes the BOM twice, so
//!   that the engine reads back the name the caller gave.
//! - Nodes and methods the server does not have (`CASE=unknown`): a
//!   method the server's node lacks (Godot 3 by name, Godot 4 by an id past the
//!   server's table, whose checksum then differs) and a node the server lacks, by path
//!   (its SIMPLIFY_PATH too: Godot 3 takes and confirms it, Godot 4 drops it) and, half
//!   a second later, again (Godot 3: by its cache id). The engines drop each such
//!   packet with an error line and keep the client, and the crate's server drops them
//!   (`Event::Dropped`) and keeps it: the call after them runs on both.
#![cfg(feature = "websocket")]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{engine, Engine};
use godot_bin::Variant;
use godot_bin_multiplayer::{ws, Event, Protocol, Scene, Target};
use serde_json::{json, Value};

const METHODS: [&str; 8] = [
    "ping", "blob", "one", "two", "three", "greet", "shout", "done",
];

type Calls = Vec<(String, Vec<String>)>;

fn client(p: Protocol) -> &'static str {
    match p {
        Protocol::Godot4 => "names4.gd",
        _ => "names3.gd",
    }
}

fn calls(list: &[(&str, &[&str])]) -> Calls {
    list.iter()
        .map(|(m, a)| (m.to_string(), a.iter().map(|s| s.to_string()).collect()))
        .collect()
}

fn strings(args: &[Variant]) -> Vec<String> {
    args.iter()
        .map(|a| match a {
            Variant::String(s) => s.clone(),
            a => panic!("{a:?}"),
        })
        .collect()
}

/// The client script of `case` against the engine's server: what the server ran, and
/// what the client printed.
async fn engine_server(bin: &Path, server: &str, case: &str, p: Protocol) -> (Calls, Vec<Value>) {
    let env = [
        ("PORT", common::free_port().to_string()),
        ("CASE", case.to_string()),
    ];
    let mut godot = Engine::start(bin, server, &env);
    godot.wait_for("listening", Duration::from_secs(30)).await;
    let c = Engine::start(bin, client(p), &env);
    let (code, client_log) = c.finish(Duration::from_secs(40)).await;
    assert_eq!(code, Some(0), "{client_log:?}");
    let (code, log) = godot.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    let ran = log
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
            (l["ran"].as_str().unwrap().to_owned(), strings(&args))
        })
        .collect();
    (ran, client_log)
}

/// What the crate's server heard from a client script, and what the client printed.
struct Heard {
    calls: Calls,
    dropped: Vec<String>,
    mismatched: Vec<String>,
    client_log: Vec<Value>,
}

/// The client script of `case` against the crate's server of `scene`, until it quits
/// by itself: its calls (each of node "Game") and the packets dropped. A call of
/// `done` is answered with a call of `back` (node, method, arguments).
async fn crate_server(
    bin: &Path,
    case: &str,
    protocol: Protocol,
    scene: Scene,
    back: (&str, &str, Vec<Variant>),
) -> Heard {
    let config = ws::Config {
        protocol,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene, config)
        .await
        .unwrap();
    let port = server.local_addr().port().to_string();
    let c = Engine::start(
        bin,
        client(protocol),
        &[("PORT", port), ("CASE", case.to_string())],
    );
    let (mut calls, mut dropped, mut mismatched) = (Vec::new(), Vec::new(), Vec::new());
    let run = async {
        loop {
            match server.next_event().await.expect("the listener runs") {
                Event::Call(call) => {
                    assert_eq!(call.node, "Game");
                    if call.method == "done" {
                        let (node, method, args) = back.clone();
                        server
                            .call(Target::Peer(call.from), node, method, args)
                            .unwrap();
                    }
                    calls.push((
                        call.method.to_string(),
                        strings(&call.args.to_variants().unwrap()),
                    ));
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
    let (code, client_log) = c.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{client_log:?}");
    Heard {
        calls,
        dropped,
        mismatched,
        client_log,
    }
}

async fn bom(bin: &Path, server: &str, p: Protocol) {
    let mut expected = calls(&[("greet", &["bom-path"]), ("done", &[])]);
    if p == Protocol::Godot3 {
        expected.insert(0, ("greet".into(), vec!["bom-method".into()]));
    }
    let (ran, client_log) = engine_server(bin, server, "bom", p).await;
    assert_eq!(ran, expected);
    // The client's node path as the engine sends it, BOM first.
    assert!(
        client_log.iter().any(|l| l["path"] == "/root/\u{feff}Game"),
        "{client_log:?}"
    );
    let scene = Scene::new()
        .node("Game", METHODS)
        .node("\u{feff}Game", METHODS);
    let back = vec![Variant::String("back".into())];
    let heard = crate_server(bin, "bom", p, scene, ("\u{feff}Game", "greet", back)).await;
    assert_eq!(heard.calls, expected);
    assert_eq!(heard.dropped, Vec::<String>::new());
    // The call to "\u{feff}Game" reached the client's node of that name.
    let log = heard.client_log;
    assert!(
        log.contains(&json!({"ran": "greet", "args": ["back"]})),
        "{log:?}"
    );
    assert!(!log.iter().any(|l| l.get("timeout").is_some()), "{log:?}");
}

async fn unknown(bin: &Path, server: &str, p: Protocol) -> Vec<String> {
    let expected = calls(&[("greet", &["after"]), ("done", &[])]);
    let (ran, _) = engine_server(bin, server, "unknown", p).await;
    assert_eq!(ran, expected);
    let scene = Scene::new().node("Game", METHODS);
    let heard = crate_server(bin, "unknown", p, scene, ("Game", "done", vec![])).await;
    assert_eq!(heard.calls, expected);
    let log = heard.client_log;
    assert!(log.contains(&json!({"ran": "done", "args": []})), "{log:?}");
    // Godot 4: the client's SIMPLIFY_PATH, and its answer to the server's, say the
    // checksums differ (the engine's server prints both).
    let mismatched: &[&str] = match p {
        Protocol::Godot4 => &["Game", "Game"],
        _ => &[],
    };
    assert_eq!(heard.mismatched, mismatched);
    heard.dropped
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_drops_a_leading_bom_from_paths_and_method_names_and_so_does_the_crate() {
    let Some(bin) = engine("godot3.6") else {
        return;
    };
    bom(&bin, "server3.gd", Protocol::Godot3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_drops_a_leading_bom_from_paths_and_so_does_the_crate() {
    let Some(bin) = engine("godot4") else { return };
    bom(&bin, "server4.gd", Protocol::Godot4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_calls_of_unknown_nodes_and_methods_are_dropped_and_the_client_kept() {
    let Some(bin) = engine("godot3.6") else {
        return;
    };
    let dropped = unknown(&bin, "server3.gd", Protocol::Godot3).await;
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
    let dropped = unknown(&bin, "server4.gd", Protocol::Godot4).await;
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
