//! Who gets in, against the real engines: a Godot client of an engine server
//! (`tests/oracle/gate_server4.gd`, `gate_server3.gd`) and the same client of the
//! crate's server with the same settings (`tests/oracle/gate_client4.gd`,
//! `gate_client3.gd`: every SceneMultiplayer signal, the WebSocket sub-protocol the
//! server chose, then the peer's connection status) see the same thing, for a server
//! that refuses new connections (`refuse_new_connections`, over WebSocket and
//! ENet) and for every pairing of WebSocket sub-protocols offered and supported
//! (`supported_protocols`, fixed and seeded random ones), Godot 4.6 and 3.6; and a
//! crate client offering sub-protocols to the engine's server gets in as an engine
//! client would; and idle
//! engine clients answer the crate's server's heartbeat.
#![cfg(all(feature = "websocket", feature = "enet"))]

mod common;
#[path = "../../tests/common/random.rs"]
#[allow(dead_code)]
mod random;

use std::time::Duration;

use common::{engine, free_port, free_udp_port, Engine};
use godot_bin_multiplayer::{enet, ws, Event, Protocol, Scene};
use serde_json::Value;

/// How long the client watches (seconds): a Godot 4 WebSocket client of the engine's
/// refusing server is told it failed when its own 3-second handshake time runs out
/// (3.1-3.2 s here); every other verdict comes at once. A reset ENet client gives up
/// its server by ENet's timeout, 5 s at the least after its last acknowledgement
/// (5.5-6 s here), so it is watched for less than that.
fn watch(gate: Gate, transport: Transport) -> &'static str {
    if gate.refuse && transport == Transport::Ws {
        "6"
    } else if gate.refuse || gate.heartbeat.is_some() {
        "3"
    } else {
        "2"
    }
}

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

/// What a server lets in: whether it refuses newcomers, and the sub-protocols each
/// side speaks.
#[derive(Clone, Copy)]
struct Gate {
    refuse: bool,
    server: &'static [&'static str],
    client: &'static [&'static str],
    /// The crate's WebSocket server's heartbeat (the engine's has none).
    heartbeat: Option<Duration>,
}

/// The engine and scripts of Godot `version`.
struct Godot {
    bin: std::path::PathBuf,
    version: u8,
}

impl Godot {
    fn find(version: u8) -> Option<Godot> {
        let bin = engine(if version == 4 { "godot4" } else { "godot3.6" })?;
        Some(Godot { bin, version })
    }

    fn protocol(&self) -> Protocol {
        if self.version == 4 {
            Protocol::Godot4
        } else {
            Protocol::Godot3
        }
    }

    fn script(&self, side: &str) -> String {
        format!("gate_{side}{}.gd", self.version)
    }
}

/// What the engine's client printed, run against a server on `port`.
async fn client_sees(godot: &Godot, transport: Transport, gate: Gate, port: u16) -> Vec<Value> {
    let c = Engine::start(
        &godot.bin,
        &godot.script("client"),
        &[
            ("PORT", port.to_string()),
            ("TRANSPORT", transport.env()),
            ("PROTOCOLS", gate.client.join(",")),
            ("SECONDS", watch(gate, transport).into()),
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

/// The engine's server on `port` with `gate`'s settings, listening.
async fn engine_server(godot: &Godot, transport: Transport, gate: Gate, port: u16) -> Engine {
    let mut s = Engine::start(
        &godot.bin,
        &godot.script("server"),
        &[
            ("PORT", port.to_string()),
            ("TRANSPORT", transport.env()),
            ("PROTOCOLS", gate.server.join(",")),
            ("REFUSE", if gate.refuse { "1" } else { "0" }.into()),
            ("SECONDS", "20".into()),
        ],
    );
    s.wait_for("listening", Duration::from_secs(20)).await;
    s
}

/// What the client sees of the engine's server, and how many clients it let in.
async fn of_the_engine(godot: &Godot, transport: Transport, gate: Gate) -> (Vec<Value>, usize) {
    let port = transport.port();
    let s = engine_server(godot, transport, gate, port).await;
    let seen = client_sees(godot, transport, gate, port).await;
    (seen, let_in(s).await)
}

/// How many clients the engine's server `s` let in so far; it is stopped.
async fn let_in(s: Engine) -> usize {
    // It says so as it lets one in, long before the client's verdict is read.
    let (_, log) = s.finish(Duration::from_millis(100)).await;
    log.iter().filter(|l| l.get("peer").is_some()).count()
}

/// What the client sees of the crate's server, and how many clients it let in.
async fn of_the_crate(godot: &Godot, transport: Transport, gate: Gate) -> (Vec<Value>, usize) {
    let (scene, protocol) = (Scene::new(), godot.protocol());
    let port = transport.port();
    let addr = ("127.0.0.1", port);
    let watch = client_sees(godot, transport, gate, port);
    // The server runs (its events taken, so that it does its work) while the client
    // watches.
    macro_rules! serve {
        ($server:expr) => {{
            let mut server = $server;
            server.set_refuse_new_connections(gate.refuse);
            let mut joined = 0;
            let serve = async {
                while let Some(e) = server.next_event().await {
                    joined += usize::from(matches!(e, Event::PeerConnected(_)));
                }
            };
            let seen = tokio::select! {
                seen = watch => seen,
                () = serve => panic!("the server stopped"),
            };
            (seen, joined)
        }};
    }
    match transport {
        Transport::Ws => {
            let config = ws::Config {
                protocol,
                subprotocols: gate.server,
                heartbeat: gate.heartbeat,
                ..ws::Config::default()
            };
            serve!(ws::Server::bind_with(addr, scene, config).await.unwrap())
        }
        Transport::Enet => {
            let config = enet::Config {
                protocol,
                ..enet::Config::default()
            };
            serve!(enet::Server::bind_with(addr, scene, config).await.unwrap())
        }
    }
}

/// The client sees the engine's server and the crate's alike, and both let it in
/// or neither; returns what it saw.
async fn alike(godot: &Godot, transport: Transport, gate: Gate) -> Vec<Value> {
    let ((engine_side, engine_in), (crate_side, crate_in)) = tokio::join!(
        of_the_engine(godot, transport, gate),
        of_the_crate(godot, transport, gate)
    );
    assert_eq!(crate_side, engine_side);
    assert_eq!(crate_in, engine_in, "clients let in: {engine_side:?}");
    engine_side
}

fn has(seen: &[Value], key: &str) -> bool {
    seen.iter().any(|l| l.get(key).is_some())
}

const REFUSING: Gate = Gate {
    refuse: true,
    server: &[],
    client: &[],
    heartbeat: None,
};

async fn refused(version: u8, transport: Transport) {
    let Some(godot) = Godot::find(version) else {
        return;
    };
    let seen = alike(&godot, transport, REFUSING).await;
    // Not an empty agreement: a WebSocket client is told it failed, an ENet one
    // believes it connected (the server reset it without a word).
    assert_eq!(
        (has(&seen, "failed"), has(&seen, "connected")),
        (transport == Transport::Ws, transport == Transport::Enet),
        "{seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot4_websocket_client_is_refused_as_by_the_engine() {
    refused(4, Transport::Ws).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot4_enet_client_is_refused_as_by_the_engine() {
    refused(4, Transport::Enet).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_websocket_client_is_refused_as_by_the_engine() {
    refused(3, Transport::Ws).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_enet_client_is_refused_as_by_the_engine() {
    refused(3, Transport::Enet).await;
}

/// Sub-protocols supported by the server and offered by the client, and the one the
/// engines' server chooses (`None`: the client is turned away).
const PAIRINGS: [(&[&str], &[&str], Option<&str>); 7] = [
    (&["game-v1", "game-v2"], &["game-v2"], Some("game-v2")),
    (&["game-v2"], &["game-v1", "game-v2"], Some("game-v2")),
    // The client's order, not the server's.
    (
        &["game-v2", "game-v1"],
        &["game-v1", "game-v2"],
        Some("game-v1"),
    ),
    (&[], &["game-v1"], None),
    (&["game-v1"], &[], None),
    (&["game-v1"], &["game-v2"], None),
    (&[], &[], Some("")),
];

/// `PAIRINGS` as gates of a server that does not refuse, with the choice.
fn pairings() -> impl Iterator<Item = (Gate, Option<&'static str>)> {
    PAIRINGS.into_iter().map(|(server, client, chosen)| {
        let gate = Gate {
            refuse: false,
            server,
            client,
            heartbeat: None,
        };
        (gate, chosen)
    })
}

async fn subprotocols(version: u8) {
    let Some(godot) = Godot::find(version) else {
        return;
    };
    for (gate, chosen) in pairings() {
        let (server, client) = (gate.server, gate.client);
        let seen = alike(&godot, Transport::Ws, gate).await;
        let connected = seen.iter().find_map(|l| l.get("connected"));
        match (chosen, version) {
            (None, _) => assert!(has(&seen, "failed"), "{server:?} {client:?}: {seen:?}"),
            // Godot 4's client says which it got; Godot 3's that it got in.
            (Some(p), 4) => assert_eq!(connected, Some(&Value::from(p)), "{seen:?}"),
            (Some(_), _) => assert_eq!(connected, Some(&Value::Bool(true)), "{seen:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_websocket_sub_protocols_are_chosen_as_by_the_engine() {
    subprotocols(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_websocket_sub_protocols_are_chosen_as_by_the_engine() {
    subprotocols(3).await;
}

/// A crate client offering sub-protocols to the engine's server: let in as an engine
/// client offering them would be, or turned away.
async fn crate_client_offers(version: u8) {
    let Some(godot) = Godot::find(version) else {
        return;
    };
    for (gate, chosen) in pairings() {
        crate_client_let_in(&godot, gate, chosen.is_some()).await;
    }
}

/// A crate client offering `gate.client` to the engine's server supporting
/// `gate.server` is let in when `let_in_too` (the engine's client was), else turned away.
async fn crate_client_let_in(godot: &Godot, gate: Gate, let_in_too: bool) {
    let (server, client) = (gate.server, gate.client);
    let port = free_port();
    let s = engine_server(godot, Transport::Ws, gate, port).await;
    let config = ws::Config {
        protocol: godot.protocol(),
        subprotocols: client,
        ..ws::Config::default()
    };
    let url = format!("ws://127.0.0.1:{port}");
    let joined = ws::Client::connect_config(&url, Scene::new(), config).await;
    assert_eq!(
        joined.is_ok(),
        let_in_too,
        "{server:?} {client:?}: {joined:?}"
    );
    // Time for the engine to see the newcomer.
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(joined);
    assert_eq!(
        let_in(s).await,
        usize::from(let_in_too),
        "{server:?} {client:?}"
    );
}

/// Up to three of a few sub-protocol names, in a random order (none a fifth of the
/// time), kept for the test's length.
fn random_protocols(r: &mut random::Rng) -> &'static [&'static str] {
    let mut names = vec!["alpha", "beta", "gamma", "delta"];
    let n = if r.chance(5) { 0 } else { 1 + r.below(3) };
    let picked: Vec<&str> = (0..n).map(|_| names.remove(r.below(names.len()))).collect();
    Box::leak(picked.into_boxed_slice())
}

/// Seeded random pairings of sub-protocols supported and offered: the engine's
/// client sees the crate's server as it sees the engine's, and a crate client is let
/// in by the engine's server as the engine's client was.
async fn random_subprotocols(version: u8) {
    let Some(godot) = Godot::find(version) else {
        return;
    };
    let seed = random::seed();
    println!("GODOT_RANDOM_SEED={seed}");
    let mut r = random::Rng::new(seed);
    for _ in 0..8 {
        let server = random_protocols(&mut r);
        // Half the time the client offers the server's names in another order, where
        // whose order wins shows.
        let client = if r.chance(2) {
            let mut names = server.to_vec();
            for i in (1..names.len()).rev() {
                names.swap(i, r.below(i + 1));
            }
            Box::leak(names.into_boxed_slice())
        } else {
            random_protocols(&mut r)
        };
        let gate = Gate {
            server,
            client,
            ..OPEN
        };
        let seen = alike(&godot, Transport::Ws, gate).await;
        crate_client_let_in(&godot, gate, has(&seen, "connected")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_random_sub_protocol_pairings_go_as_with_the_engine() {
    random_subprotocols(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot3_random_sub_protocol_pairings_go_as_with_the_engine() {
    random_subprotocols(3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crate_client_offers_sub_protocols_to_a_godot4_server() {
    crate_client_offers(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crate_client_offers_sub_protocols_to_a_godot3_server() {
    crate_client_offers(3).await;
}

/// An idle engine client of the crate's server with a heartbeat of half a second
/// stays in for three seconds (six pings): Godot answers pings by itself. (Half a
/// second leaves an engine slowed by the other tests time to answer.)
async fn answers_the_heartbeat(version: u8) {
    let Some(godot) = Godot::find(version) else {
        return;
    };
    let gate = Gate {
        refuse: false,
        server: &[],
        client: &[],
        heartbeat: Some(Duration::from_millis(500)),
    };
    let (seen, joined) = of_the_crate(&godot, Transport::Ws, gate).await;
    assert_eq!(joined, 1);
    assert!(has(&seen, "connected"), "{seen:?}");
    assert!(!has(&seen, "server_disconnected"), "{seen:?}");
    // CONNECTION_CONNECTED at the end of its watch.
    assert_eq!(
        seen.last().and_then(|l| l.get("status")),
        Some(&Value::from(2)),
        "{seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_godot4_client_answers_the_heartbeat() {
    answers_the_heartbeat(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_godot3_client_answers_the_heartbeat() {
    answers_the_heartbeat(3).await;
}

/// A crate client with a heartbeat of half a second, idle, keeps the engine's server
/// for three seconds (six pings): the engines answer pings.
async fn the_engine_answers_the_heartbeat(version: u8) {
    let Some(godot) = Godot::find(version) else {
        return;
    };
    let port = free_port();
    let s = engine_server(&godot, Transport::Ws, OPEN, port).await;
    let config = ws::Config {
        protocol: godot.protocol(),
        heartbeat: Some(Duration::from_millis(500)),
        ..ws::Config::default()
    };
    let url = format!("ws://127.0.0.1:{port}");
    let mut c = ws::Client::connect_config(&url, Scene::new(), config)
        .await
        .unwrap();
    let idle = async {
        loop {
            match c.next_event().await {
                Some(Ok(_)) => {}
                e => return e,
            }
        }
    };
    let ended = tokio::time::timeout(Duration::from_secs(3), idle).await;
    assert!(ended.is_err(), "the client gave the server up: {ended:?}");
    assert_eq!(let_in(s).await, 1);
}

const OPEN: Gate = Gate {
    refuse: false,
    server: &[],
    client: &[],
    heartbeat: None,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot4_server_answers_a_crate_clients_heartbeat() {
    the_engine_answers_the_heartbeat(4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_server_answers_a_crate_clients_heartbeat() {
    the_engine_answers_the_heartbeat(3).await;
}
