//! Real Godot 4.6 and 3.6 engines and the crate's transports, on loopback, over
//! WebSocket and ENet. Engine clients (`tests/oracle/client4.gd`, `client3.gd`)
//! join the crate's servers: their calls arrive with the exact arguments they sent,
//! the server's calls back run in the engine with the same arguments, and the two
//! clients greet each other through the server's relay. Crate clients join engine
//! servers (`server4.gd`, `server3.gd`) with crate-generated random arguments.
#![cfg(all(feature = "websocket", feature = "enet"))]

mod common;
#[path = "../../tests/common/random.rs"]
mod random;

use std::collections::HashMap;
use std::time::Duration;

use common::{engine, godot4, godot4_hex, Engine};
use godot_bin::{Dialect, Variant};
use godot_bin_multiplayer::{enet, ws};
use godot_bin_multiplayer::{Delivery, Event, Protocol, Scene, Target};
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

macro_rules! engine_test {
    ($name:ident, $engine:literal, $run:ident, $script:literal, $protocol:ident, $transport:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some(bin) = engine($engine) else { return };
            $run(&bin, $script, Protocol::$protocol, Transport::$transport).await;
        }
    };
}

engine_test!(
    godot4_clients_join_on_websocket,
    "godot4",
    engine_clients,
    "client4.gd",
    Godot4,
    WebSocket
);
engine_test!(
    godot3_clients_join_on_websocket,
    "godot3.6",
    engine_clients,
    "client3.gd",
    Godot3,
    WebSocket
);
#[cfg(feature = "tls")]
engine_test!(
    godot4_clients_join_on_wss,
    "godot4",
    engine_clients,
    "client4.gd",
    Godot4,
    Wss
);
engine_test!(
    godot4_clients_join_on_enet,
    "godot4",
    engine_clients,
    "client4.gd",
    Godot4,
    Enet
);
engine_test!(
    godot3_clients_join_on_enet,
    "godot3.6",
    engine_clients,
    "client3.gd",
    Godot3,
    Enet
);
engine_test!(
    crate_clients_join_godot4_on_websocket,
    "godot4",
    rust_clients,
    "server4.gd",
    Godot4,
    WebSocket
);
engine_test!(
    crate_clients_join_godot3_on_websocket,
    "godot3.6",
    rust_clients,
    "server3.gd",
    Godot3,
    WebSocket
);
engine_test!(
    crate_clients_join_godot4_on_enet,
    "godot4",
    rust_clients,
    "server4.gd",
    Godot4,
    Enet
);
engine_test!(
    crate_clients_join_godot3_on_enet,
    "godot3.6",
    rust_clients,
    "server3.gd",
    Godot3,
    Enet
);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    WebSocket,
    /// `wss://`, with a self-signed certificate.
    #[cfg(feature = "tls")]
    Wss,
    Enet,
}

impl Transport {
    fn env(self) -> String {
        match self {
            Transport::WebSocket => "websocket".into(),
            #[cfg(feature = "tls")]
            Transport::Wss => "wss".into(),
            Transport::Enet => "enet".into(),
        }
    }
}

/// A self-signed certificate for 127.0.0.1, as server settings.
#[cfg(feature = "tls")]
fn tls() -> std::sync::Arc<tokio_rustls::rustls::ServerConfig> {
    use tokio_rustls::rustls;
    let cert =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.key_pair.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    std::sync::Arc::new(config)
}

enum AnyServer {
    Ws(ws::Server),
    Enet(enet::Server),
}

impl AnyServer {
    async fn bind(transport: Transport, protocol: Protocol) -> AnyServer {
        AnyServer::bind_scene(transport, protocol, scene()).await
    }

    async fn bind_scene(transport: Transport, protocol: Protocol, scene: Scene) -> AnyServer {
        match transport {
            Transport::WebSocket => {
                let config = ws::Config {
                    protocol,
                    ..ws::Config::default()
                };
                AnyServer::Ws(
                    ws::Server::bind_with("127.0.0.1:0", scene, config)
                        .await
                        .unwrap(),
                )
            }
            #[cfg(feature = "tls")]
            Transport::Wss => {
                let config = ws::Config {
                    protocol,
                    ..ws::Config::default()
                };
                AnyServer::Ws(
                    ws::Server::bind_tls("127.0.0.1:0", scene, config, tls())
                        .await
                        .unwrap(),
                )
            }
            Transport::Enet => {
                // The channels the engines' clients use: what `max_channels`' docs
                // advise for a game without `@rpc` channels of its own.
                let max_channels = match protocol {
                    Protocol::Godot4 => 2,
                    Protocol::Godot3 => 3,
                };
                let config = enet::Config {
                    protocol,
                    max_channels,
                    ..enet::Config::default()
                };
                AnyServer::Enet(
                    enet::Server::bind_with("127.0.0.1:0", scene, config)
                        .await
                        .unwrap(),
                )
            }
        }
    }

    fn port(&self) -> u16 {
        match self {
            AnyServer::Ws(s) => s.local_addr().port(),
            AnyServer::Enet(s) => s.local_addr().port(),
        }
    }

    async fn next_event(&mut self) -> Option<Event> {
        match self {
            AnyServer::Ws(s) => s.next_event().await,
            AnyServer::Enet(s) => s.next_event().await,
        }
    }

    fn call(&mut self, to: i32, method: &str, args: Vec<Variant>) {
        match self {
            AnyServer::Ws(s) => s.call(Target::Peer(to), "Game", method, args).unwrap(),
            AnyServer::Enet(s) => s
                .call(Target::Peer(to), "Game", method, args, Delivery::default())
                .unwrap(),
        }
    }

    /// `call` through `rpc`, which writes scalars and vectors straight from the
    /// value and the rest through `Variant`s.
    fn rpc(&mut self, to: i32, method: &str, args: &[Variant]) {
        match self {
            AnyServer::Ws(s) => s.rpc(Target::Peer(to), "Game", method, args).unwrap(),
            AnyServer::Enet(s) => s.rpc(Target::Peer(to), "Game", method, args).unwrap(),
        }
    }
}

enum AnyClient {
    Ws(Box<ws::Client>),
    Enet(Box<enet::Client>),
}

impl AnyClient {
    async fn connect(transport: Transport, protocol: Protocol, port: u16, id: i32) -> AnyClient {
        match transport {
            #[cfg(feature = "tls")]
            Transport::Wss => unreachable!("only engine clients use wss here"),
            Transport::WebSocket => {
                let url = format!("ws://127.0.0.1:{port}");
                let c = ws::Client::connect_with(&url, scene(), protocol).await;
                AnyClient::Ws(Box::new(c.unwrap()))
            }
            Transport::Enet => {
                let config = enet::Config {
                    protocol,
                    ..enet::Config::default()
                };
                let addr = ([127, 0, 0, 1], port).into();
                AnyClient::Enet(Box::new(
                    enet::Client::connect(addr, id, scene(), config)
                        .await
                        .unwrap(),
                ))
            }
        }
    }

    fn id(&self) -> i32 {
        match self {
            AnyClient::Ws(c) => c.id(),
            AnyClient::Enet(c) => c.id(),
        }
    }

    async fn next_event(&mut self) -> Option<Event> {
        match self {
            AnyClient::Ws(c) => c.next_event().await.map(Result::unwrap),
            AnyClient::Enet(c) => c.next_event().await.map(Result::unwrap),
        }
    }

    async fn call(&mut self, target: Target, method: &str, args: Vec<Variant>) {
        match self {
            AnyClient::Ws(c) => c.call(target, "Game", method, args).await.unwrap(),
            AnyClient::Enet(c) => c
                .call(target, "Game", method, args, Delivery::default())
                .await
                .unwrap(),
        }
    }

    async fn close(self) {
        match self {
            AnyClient::Ws(c) => (*c).close().await.unwrap(),
            AnyClient::Enet(c) => (*c).close().await.unwrap(),
        }
    }
}

/// `var2bytes` / `var_to_bytes` of `protocol`'s engine, as hex.
fn engine_hex(protocol: Protocol, v: &Variant) -> String {
    match protocol {
        Protocol::Godot4 => godot4_hex(v),
        _ => hex::encode(godot_bin::to_vec(v).unwrap()),
    }
}

fn from_engine_hex(protocol: Protocol, h: &str) -> Variant {
    match protocol {
        Protocol::Godot4 => godot4(h),
        _ => godot_bin::from_slice(&hex::decode(h).unwrap()).unwrap(),
    }
}

/// Two engine clients join `ws::Server`: every call arrives with the arguments the
/// engine printed, the server's call back runs with the same bytes, and the
/// clients greet each other through the server's relay.
async fn engine_clients(
    bin: &std::path::Path,
    script: &str,
    protocol: Protocol,
    transport: Transport,
) {
    let mut server = AnyServer::bind(transport, protocol).await;
    let port = server.port().to_string();
    let clients: Vec<Engine> = [11, 12]
        .into_iter()
        .map(|seed| {
            Engine::start(
                bin,
                script,
                &[
                    ("PORT", port.clone()),
                    ("SEED", seed.to_string()),
                    ("TRANSPORT", transport.env()),
                ],
            )
        })
        .collect();

    // The server's side: every call received, per client, in order.
    let mut calls: HashMap<i32, Vec<(String, Vec<Variant>)>> = HashMap::new();
    let mut connected = Vec::new();
    let mut done = 0;
    let mut echoes = 0u32;
    let run = async {
        while done < 2 {
            match server.next_event().await.expect("the listener runs") {
                Event::PeerConnected(id) => connected.push(id),
                Event::Call(call) => {
                    let args = call.args.to_variants().unwrap();
                    if ECHOED.contains(&call.method.as_str()) || call.method == "done" {
                        if call.method == "done" {
                            done += 1;
                        }
                        // Every other echo goes through each way of writing a call.
                        echoes += 1;
                        if echoes % 2 == 0 {
                            server.rpc(call.from, &call.method, &args);
                        } else {
                            server.call(call.from, &call.method, args.clone());
                        }
                    }
                    calls
                        .entry(call.from)
                        .or_default()
                        .push((call.method.into(), args));
                }
                // A client quits once its own done() came back, which may be before
                // the other's arrived: never before.
                Event::PeerDisconnected(id) => assert!(
                    calls
                        .get(&id)
                        .is_some_and(|c| c.iter().any(|(m, _)| m == "done")),
                    "client {id} left before its done()"
                ),
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
    let mut sorted = (connected.clone(), ids.clone());
    sorted.0.sort();
    sorted.1.sort();
    assert_eq!(sorted.0, sorted.1);
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
        assert!(sent.len() > 200, "{}", sent.len());
        for ((method, hex), (m, args)) in sent.iter().zip(got) {
            assert_eq!(method, m);
            // Exactly (`Debug`): `==` takes a String for a StringName.
            assert_eq!(
                format!("{:?}", from_engine_hex(protocol, hex)),
                format!("{:?}", Variant::Array(args.clone())),
                "{method}"
            );
        }
        // What the server sent back ran with the same bytes.
        let echoed: Vec<(String, String)> = log
            .iter()
            .filter(|l| l.get("ran").is_some() && l["from"] == 1)
            .map(|l| (str_of(l, "ran"), str_of(l, "args")))
            .collect();
        let expected: Vec<(String, String)> =
            sent.iter().filter(|(m, _)| m != "shout").cloned().collect();
        // Godot 3 leaves a NodePath's padding bytes uninitialised in what it
        // prints: there the values are compared, elsewhere the bytes.
        let decoded = |v: &[(String, String)]| -> Vec<(String, Variant)> {
            v.iter()
                .map(|(m, h)| (m.clone(), from_engine_hex(protocol, h)))
                .collect()
        };
        match protocol {
            Protocol::Godot4 => assert_eq!(echoed, expected),
            _ => assert_eq!(
                format!("{:?}", decoded(&echoed)),
                format!("{:?}", decoded(&expected))
            ),
        }
        // The greetings of the other client came through the relay.
        let from_other: Vec<(String, String)> = log
            .iter()
            .filter(|l| l.get("ran").is_some() && l["from"] == other)
            .map(|l| (str_of(l, "ran"), str_of(l, "args")))
            .collect();
        let text = |t: String| engine_hex(protocol, &Variant::Array(vec![Variant::String(t)]));
        assert_eq!(
            from_other,
            [
                ("greet".to_string(), text(format!("hello from {other}"))),
                ("shout".to_string(), text("all".into())),
            ]
        );
    }
}

fn str_of(l: &Value, k: &str) -> String {
    l[k].as_str().unwrap().to_owned()
}

/// One Rust client's run against the Godot server: greet the other client, shout,
/// make `calls`, then `done`; then ask the other client (which answers "back"), and
/// once answered shout again and `ping`; until that echo and the other's second shout
/// came. Gives what the server sent back and what the other client sent.
async fn rust_client(
    transport: Transport,
    protocol: Protocol,
    port: u16,
    id: i32,
    calls: Vec<(&'static str, Vec<Variant>)>,
) -> (
    i32,
    i32,
    Vec<(String, Vec<Variant>)>,
    Vec<(i32, String, Vec<Variant>)>,
) {
    let mut c = AnyClient::connect(transport, protocol, port, id).await;
    let me = c.id();
    let mut other = 0;
    let mut from_server = Vec::new();
    let mut from_peers = Vec::new();
    let text = |t: &str| vec![Variant::String(t.into())];
    let (mut sent, mut shouted, mut echoed, mut heard_again) = (false, false, false, false);
    while !(echoed && heard_again) {
        let Some(event) = c.next_event().await else {
            panic!("the connection closed");
        };
        match event {
            Event::PeerConnected(1) | Event::PeerDisconnected(_) => {}
            Event::PeerConnected(id) if other == 0 => other = id,
            Event::Call(call) if call.from == 1 => {
                let method = call.method.clone();
                from_server.push((call.method.into(), call.args.into_variants().unwrap()));
                if method == "done" {
                    // The other client answers once it has read this, which comes
                    // after the path this client gave it: its answer follows its
                    // confirmation of the path through the relay.
                    c.call(Target::Peer(other), "greet", text("ask")).await;
                }
                // The echo of the last call says the server took the shout before it.
                echoed |= shouted && method == "ping";
            }
            Event::Call(call) => {
                let args = call.args.to_variants().unwrap();
                match (call.method.as_str(), args.as_slice()) {
                    ("greet", [Variant::String(t)]) if t == "ask" => {
                        c.call(Target::Peer(call.from), "greet", text("back")).await;
                    }
                    ("greet", [Variant::String(t)]) if t == "back" => {
                        // Every peer has confirmed the path: Godot 3 sends this as one
                        // packet for all (0), which the engine's server relays.
                        c.call(Target::All, "shout", text("again")).await;
                        c.call(Target::Peer(1), "ping", vec![]).await;
                        shouted = true;
                    }
                    ("shout", [Variant::String(t)]) if t == "again" => heard_again = true,
                    _ => {}
                }
                from_peers.push((call.from, call.method.into(), args));
            }
            e => panic!("unexpected {e:?}"),
        }
        if other != 0 && !sent {
            sent = true;
            let greeting = text(&format!("hello from {me}"));
            c.call(Target::Peer(other), "greet", greeting).await;
            c.call(Target::All, "shout", text("all")).await;
            for (method, args) in &calls {
                c.call(Target::Peer(1), method, args.clone()).await;
            }
            c.call(Target::Peer(1), "done", vec![]).await;
        }
    }
    c.close().await;
    (me, other, from_server, from_peers)
}

/// Seeded random argument lists written by the crate: every Godot 4 type but
/// Objects (which the engine refuses to decode in RPCs by default), plus the fixed
/// forms (no arguments, one PackedByteArray, compressed ints and bools).
fn crate_calls(seed: u64, dialect: Dialect) -> Vec<(&'static str, Vec<Variant>)> {
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
        // Near the 64 KiB message limit of both sides' WebSocket buffers (the crate's
        // client once sent nothing over 16 KiB).
        (
            "one",
            vec![Variant::PoolByteArray(godot_bin::PoolByteArray(
                (0..60_000u32).map(|i| (i % 251) as u8).collect(),
            ))],
        ),
    ];
    while calls.len() < 150 {
        let n = 1 + r.below(3);
        let args: Vec<Variant> = (0..n)
            .map(|_| random::variant(&mut r, dialect, 0))
            .collect();
        if args.iter().any(has_object) {
            continue;
        }
        calls.push((["one", "two", "three"][n - 1], args));
    }
    calls
}

/// Whether the engine's bytes are ours, but for the NodePath padding that Godot 3
/// leaves uninitialised (where only a byte we wrote as 0 may differ).
fn same_engine_bytes(protocol: Protocol, ours: &str, engine: &str) -> bool {
    if protocol == Protocol::Godot4 || ours == engine {
        return ours == engine;
    }
    let (o, e) = (hex::decode(ours).unwrap(), hex::decode(engine).unwrap());
    let has_nodepath = format!("{:?}", from_engine_hex(protocol, ours)).contains("NodePath(");
    o.len() == e.len()
        && o.iter()
            .zip(&e)
            .all(|(a, b)| a == b || (has_nodepath && *a == 0))
}

/// Two crate clients join an engine server: calls with crate-generated random
/// arguments run in the engine with exactly the crate's bytes, come back to the
/// same values, and the clients greet each other through the engine's relay.
async fn rust_clients(
    bin: &std::path::Path,
    script: &str,
    protocol: Protocol,
    transport: Transport,
) {
    let port = match transport {
        #[cfg(feature = "tls")]
        Transport::Wss => common::free_port(),
        Transport::WebSocket => common::free_port(),
        Transport::Enet => common::free_udp_port(),
    };
    let env = [("PORT", port.to_string()), ("TRANSPORT", transport.env())];
    let mut godot = Engine::start(bin, script, &env);
    godot.wait_for("listening", Duration::from_secs(30)).await;
    let seed = random::seed();
    eprintln!("seed {seed} (GODOT_RANDOM_SEED repeats it)");
    let dialect = match protocol {
        Protocol::Godot4 => Dialect::Godot4,
        _ => Dialect::Godot3,
    };
    let (a, b) = (
        crate_calls(seed, dialect),
        crate_calls(seed ^ 0x5555, dialect),
    );
    let runs = async {
        tokio::join!(
            tokio::spawn(rust_client(
                transport,
                protocol,
                port,
                1000 + (seed % 1000) as i32,
                a.clone()
            )),
            tokio::spawn(rust_client(
                transport,
                protocol,
                port,
                2000 + (seed % 1000) as i32,
                b.clone()
            ))
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
        // Through the crate's decoder first, which normalises as the engine's does
        // (Godot 3 reads an absolute empty NodePath as a relative one).
        let hex_of = |a: &[Variant]| {
            let h = engine_hex(protocol, &Variant::Array(a.to_vec()));
            engine_hex(protocol, &from_engine_hex(protocol, &h))
        };
        let mut expected: Vec<(String, String)> =
            vec![("shout".into(), hex_of(&[Variant::String("all".into())]))];
        // Godot 4 sends one empty PackedByteArray as no arguments at all (meta bit 7,
        // no bytes), in the engine as here: `one(a)` then cannot run.
        let lost = |a: &[Variant]| {
            protocol == Protocol::Godot4
                && matches!(a, [Variant::PoolByteArray(b)] if b.0.is_empty())
        };
        expected.extend(
            sent.iter()
                .filter(|(_, a)| !lost(a))
                .map(|(m, a)| (m.to_string(), hex_of(a))),
        );
        expected.push(("done".into(), hex_of(&[])));
        expected.push(("shout".into(), hex_of(&[Variant::String("again".into())])));
        expected.push(("ping".into(), hex_of(&[])));
        for (i, (r, e)) in ran.iter().zip(&expected).enumerate() {
            assert_eq!(r.0, e.0, "call {i}");
            assert!(
                same_engine_bytes(protocol, &e.1, &r.1),
                "call {i}: ours {}, engine {}",
                e.1,
                r.1
            );
        }
        assert_eq!(ran.len(), expected.len());
        // And sent them back: the crate reads the engine's encoding to the same bytes.
        let echoed: Vec<_> = expected.iter().filter(|(m, _)| m != "shout").collect();
        assert_eq!(from_server.len(), echoed.len());
        for ((m, args), (em, ehex)) in from_server.iter().zip(echoed) {
            assert_eq!((m, &hex_of(args)), (em, ehex));
        }
        // The other client's greetings and shouts, through the Godot server's relay
        // (its ask and answer in either order).
        let mut peers: Vec<(i32, String, String)> = from_peers
            .iter()
            .map(|(from, m, args)| match args.as_slice() {
                [Variant::String(t)] => (*from, m.clone(), t.clone()),
                a => panic!("{m} {a:?}"),
            })
            .collect();
        peers.sort();
        let said = |m: &str, t: &str| (other, m.to_string(), t.to_string());
        assert_eq!(
            peers,
            [
                said("greet", "ask"),
                said("greet", "back"),
                said("greet", &format!("hello from {other}")),
                said("shout", "again"),
                said("shout", "all"),
            ]
        );
    }
}

/// How many channels an engine's ENet server (`server4.gd` / `server3.gd`, which call
/// `create_server(port)` with the engine's defaults, as games do) gives a bare ENet
/// client that asks for ENet's most, 255; range-coded for Godot 3, whose handshake
/// needs it.
async fn engine_enet_channels(bin: &std::path::Path, script: &str, range_coded: bool) -> usize {
    use enet::rusty_enet::{self as renet, HostSettings, RangeCoder};
    let port = common::free_udp_port();
    let env = [
        ("PORT", port.to_string()),
        ("TRANSPORT", "enet".to_string()),
    ];
    let mut godot = Engine::start(bin, script, &env);
    godot.wait_for("listening", Duration::from_secs(30)).await;
    let granted = tokio::task::spawn_blocking(move || {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let settings = HostSettings {
            compressor: range_coded
                .then(|| Box::new(RangeCoder::new()) as Box<dyn renet::Compressor>),
            ..HostSettings::default()
        };
        let mut host = renet::Host::new(socket, settings).unwrap();
        let server = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        host.connect(server, 255, 777).unwrap();
        let start = std::time::Instant::now();
        let mut granted = None;
        while start.elapsed() < Duration::from_secs(10) {
            match host.service() {
                Ok(Some(renet::Event::Connect { peer, .. })) => {
                    granted = Some(peer.channel_count());
                    break;
                }
                _ => std::thread::sleep(Duration::from_millis(2)),
            }
        }
        // Serviced a while first, so that the server hears the connection acknowledged
        // (leaving at once would drop that acknowledgement), then leaves.
        let settle = std::time::Instant::now();
        while settle.elapsed() < Duration::from_millis(500) {
            let _ = host.service();
            std::thread::sleep(Duration::from_millis(2));
        }
        host.peer_mut(renet::PeerID(0)).disconnect(0);
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(renet::Event::Disconnect { .. })) = host.service() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        granted
    })
    .await
    .unwrap();
    // The server saw the client come and go, and quit as it does then.
    let (code, log) = godot.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    assert!(log.iter().any(|l| l["peer"] == 777), "{log:?}");
    granted.expect("the engine's server accepts the client")
}

/// `enet::Config::max_channels` defaults to what Godot's ENet servers allow a client
/// by default: Godot 4.6's ENet's most (255). Godot 3.6's server allows its own channel
/// count (3), which the crate's Godot 3 servers in the tests above set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot_enet_servers_give_a_client_the_channels_the_crate_defaults_to() {
    if let Some(bin) = engine("godot4") {
        let granted = engine_enet_channels(&bin, "server4.gd", false).await;
        assert_eq!(granted, enet::Config::default().max_channels);
    }
    if let Some(bin) = engine("godot3.6") {
        assert_eq!(engine_enet_channels(&bin, "server3.gd", true).await, 3);
    }
}

/// A Godot 4.6 client that makes its node again 1100 times, as a game respawns a
/// player's node (`tests/oracle/respawn4.gd`): each new node comes with a
/// SIMPLIFY_PATH and a new cache id, 1100 ids for one path where the server once let
/// a peer hold 1024. Every call arrives, in order, and the client is never dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot4_client_making_its_node_again_and_again_stays() {
    const LIVES: i64 = 1100;
    let Some(bin) = engine("godot4") else { return };
    for transport in [Transport::WebSocket, Transport::Enet] {
        let scene = Scene::new().node("Game", ["ping"]);
        let mut server = AnyServer::bind_scene(transport, Protocol::Godot4, scene).await;
        let client = Engine::start(
            &bin,
            "respawn4.gd",
            &[
                ("PORT", server.port().to_string()),
                ("LIVES", LIVES.to_string()),
                ("TRANSPORT", transport.env()),
            ],
        );
        let mut pings = Vec::new();
        let run = async {
            while pings.len() < LIVES as usize {
                match server.next_event().await.expect("the listener runs") {
                    Event::PeerConnected(_) => {}
                    Event::Call(call) if call.method == "ping" => {
                        let (n,): (i64,) = call.args().unwrap();
                        pings.push(n);
                    }
                    e => panic!("{}: unexpected {e:?}", transport.env()),
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .unwrap_or_else(|_| panic!("{}: {} calls arrived", transport.env(), pings.len()));
        assert_eq!(
            pings,
            (1..=LIVES).collect::<Vec<_>>(),
            "{}",
            transport.env()
        );
        let (code, log) = client.finish(Duration::from_secs(20)).await;
        assert_eq!(code, Some(0), "{}: {log:?}", transport.env());
        assert!(log.iter().any(|l| l["lives"] == LIVES), "{log:?}");
    }
}
