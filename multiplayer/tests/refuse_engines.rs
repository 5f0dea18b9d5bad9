//! Turning newcomers away (`refuse_new_connections`), against the real engines: a
//! Godot client of an engine server that refuses (`tests/oracle/refuse_server4.gd`,
//! `refuse_server3.gd`) and the same client of the crate's refusing server
//! (`set_refuse_new_connections(true)`) see the same thing
//! (`tests/oracle/refused_client4.gd`, `refused_client3.gd`: every SceneMultiplayer
//! signal, then the peer's connection status), over WebSocket and ENet, Godot 4.6
//! and 3.6; and neither server lets the client in.
#![cfg(all(feature = "websocket", feature = "enet"))]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{engine, free_port, free_udp_port, Engine};
use godot_bin_multiplayer::{enet, ws, Protocol, Scene};
use serde_json::Value;

/// How long the client watches (seconds): a Godot 4 WebSocket client of the engine's
/// refusing server is told it failed when its own 3-second handshake time runs out
/// (3.1-3.2 s here); an ENet client's verdict (connected, as far as its ENet layer
/// knows) comes at once.
const WATCH: &str = "6";

#[derive(Clone, Copy, PartialEq)]
enum Transport {
    Ws,
    Enet,
}

impl Transport {
    fn env(self) -> String {
        match self {
            Transport::Ws => "ws".into(),
            Transport::Enet => "enet".into(),
        }
    }

    fn port(self) -> u16 {
        match self {
            Transport::Ws => free_port(),
            Transport::Enet => free_udp_port(),
        }
    }
}

/// What the engine's client (`client`) printed, run against a server on `port`.
async fn client_sees(bin: &Path, client: &str, transport: Transport, port: u16) -> Vec<Value> {
    let c = Engine::start(
        bin,
        client,
        &[
            ("PORT", port.to_string()),
            ("TRANSPORT", transport.env()),
            ("SECONDS", WATCH.into()),
        ],
    );
    let (code, log) = c.finish(Duration::from_secs(30)).await;
    assert_eq!(code, Some(0), "the client: {log:?}");
    assert!(
        log.last().and_then(|l| l.get("status")).is_some(),
        "the client ends with its status: {log:?}"
    );
    log
}

/// What the client sees of the engine's refusing server.
async fn of_the_engine(bin: &Path, server: &str, client: &str, transport: Transport) -> Vec<Value> {
    let port = transport.port();
    let mut s = Engine::start(
        bin,
        server,
        &[
            ("PORT", port.to_string()),
            ("TRANSPORT", transport.env()),
            ("SECONDS", "15".into()),
        ],
    );
    s.wait_for("listening", Duration::from_secs(20)).await;
    let seen = client_sees(bin, client, transport, port).await;
    let (_, log) = s.finish(Duration::from_secs(20)).await;
    assert!(
        !log.iter().any(|l| l.get("peer").is_some()),
        "the engine let the client in: {log:?}"
    );
    seen
}

/// What the client sees of the crate's refusing server.
async fn of_the_crate(
    bin: &Path,
    client: &str,
    transport: Transport,
    protocol: Protocol,
) -> Vec<Value> {
    let scene = Scene::new();
    let port = transport.port();
    let addr = ("127.0.0.1", port);
    let watch = client_sees(bin, client, transport, port);
    // Each server runs (its events taken, so that it does its work) while the client
    // watches; a client let in shows as an event.
    let events = match transport {
        Transport::Ws => {
            let config = ws::Config {
                protocol,
                ..ws::Config::default()
            };
            let mut server = ws::Server::bind_with(addr, scene, config).await.unwrap();
            server.set_refuse_new_connections(true);
            let serve = async {
                let mut events = Vec::new();
                while let Some(e) = server.next_event().await {
                    events.push(e);
                }
                events
            };
            tokio::select! {
                seen = watch => return checked(seen, &server.session().peers().collect::<Vec<_>>()),
                events = serve => events,
            }
        }
        Transport::Enet => {
            let config = enet::Config {
                protocol,
                ..enet::Config::default()
            };
            let mut server = enet::Server::bind_with(addr, scene, config).await.unwrap();
            server.set_refuse_new_connections(true);
            let serve = async {
                let mut events = Vec::new();
                while let Some(e) = server.next_event().await {
                    events.push(e);
                }
                events
            };
            tokio::select! {
                seen = watch => return checked(seen, &server.session().peers().collect::<Vec<_>>()),
                events = serve => events,
            }
        }
    };
    panic!("the server stopped: {events:?}")
}

/// `seen`, once sure that the crate's server let no one in.
fn checked(seen: Vec<Value>, peers: &[i32]) -> Vec<Value> {
    assert!(peers.is_empty(), "the crate let {peers:?} in");
    seen
}

async fn same(engine_name: &str, version: u8, transport: Transport) {
    let Some(bin) = engine(engine_name) else {
        return;
    };
    let (server, client, protocol) = match version {
        4 => ("refuse_server4.gd", "refused_client4.gd", Protocol::Godot4),
        _ => ("refuse_server3.gd", "refused_client3.gd", Protocol::Godot3),
    };
    let engine_side = of_the_engine(&bin, server, client, transport).await;
    let crate_side = of_the_crate(&bin, client, transport, protocol).await;
    assert_eq!(crate_side, engine_side);
    // Not an empty agreement: a WebSocket client is told it failed, an ENet one
    // believes it connected (the server reset it without a word).
    let failed = engine_side.iter().any(|l| l.get("failed").is_some());
    let connected = engine_side.iter().any(|l| l.get("connected").is_some());
    assert_eq!(
        (failed, connected),
        (transport == Transport::Ws, transport == Transport::Enet),
        "{engine_side:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot4_websocket_client_is_refused_as_by_the_engine() {
    same("godot4", 4, Transport::Ws).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot4_enet_client_is_refused_as_by_the_engine() {
    same("godot4", 4, Transport::Enet).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_websocket_client_is_refused_as_by_the_engine() {
    same("godot3.6", 3, Transport::Ws).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_enet_client_is_refused_as_by_the_engine() {
    same("godot3.6", 3, Transport::Enet).await;
}
