//! Authentication (`auth_callback`) against Godot 4.6: crate clients authenticate
//! with the engine's server (`tests/oracle/auth4.gd`) and with the crate's, which
//! answer alike; engine clients (`authclient4.gd`) authenticate with the crate's
//! server. A client that sends the right secret is admitted and its call runs; one
//! that does not is turned away before it is admitted.
#![cfg(feature = "websocket")]

mod common;

use std::time::Duration;

use common::{engine, free_port, Engine};
use godot_bin_multiplayer::{ws, Event, Scene, Target};

fn scene() -> Scene {
    Scene::new().node("Game", ["done"])
}

fn config() -> ws::Config {
    ws::Config {
        auth: true,
        ..ws::Config::default()
    }
}

/// A crate client authenticating with `secret`: what it went through.
async fn client(url: &str, secret: &str) -> Vec<String> {
    let mut c = ws::Client::connect_config(url, scene(), config())
        .await
        .unwrap();
    let mut log = Vec::new();
    let run = async {
        loop {
            match c.next_event().await {
                Some(Ok(Event::Authenticating(1))) => {
                    log.push("authenticating".to_owned());
                    c.send_auth(secret.as_bytes()).await.unwrap();
                }
                Some(Ok(Event::AuthData { peer: 1, data })) => {
                    let text = String::from_utf8(data).unwrap();
                    log.push(format!("auth {text}"));
                    if text == "welcome" {
                        c.complete_auth().await.unwrap();
                    }
                }
                Some(Ok(Event::PeerConnected(1))) => {
                    log.push("connected".to_owned());
                    c.call(Target::Peer(1), "Game", "done", vec![])
                        .await
                        .unwrap();
                }
                Some(Ok(Event::Call(call))) if call.method == "done" => {
                    log.push("done".to_owned());
                    return true;
                }
                None | Some(Err(_)) | Some(Ok(Event::AuthFailed(1))) => {
                    log.push("closed".to_owned());
                    return false;
                }
                Some(Ok(e)) => panic!("unexpected {e:?}"),
            }
        }
    };
    let open = tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("the client finishes");
    if open {
        c.close().await.unwrap();
    }
    log
}

/// A wrong secret, then the right one.
async fn clients(url: &str) -> [Vec<String>; 2] {
    [client(url, "wrong").await, client(url, "secret").await]
}

fn expected() -> [Vec<String>; 2] {
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    [
        s(&["authenticating", "closed"]),
        s(&["authenticating", "auth welcome", "connected", "done"]),
    ]
}

/// The crate's server answering as auth4.gd does, until `admitted` clients left and
/// `failed` were turned away; what ran.
async fn serve(mut server: ws::Server, admitted: usize, failed: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let (mut left, mut turned_away) = (0, 0);
    while left < admitted || turned_away < failed {
        match server.next_event().await.unwrap() {
            Event::Authenticating(id) => seen.push(format!("authenticating {}", id > 1)),
            Event::AuthData { peer, data } => {
                if data == b"secret" {
                    server.send_auth(peer, b"welcome").unwrap();
                    server.complete_auth(peer).unwrap();
                } else {
                    server.kick(peer);
                }
            }
            Event::PeerConnected(_) => seen.push("connected".to_owned()),
            Event::Call(call) => {
                seen.push(format!("ran {}", call.method));
                server
                    .call(Target::Peer(call.from), "Game", "done", vec![])
                    .unwrap();
            }
            Event::AuthFailed(_) => turned_away += 1,
            Event::PeerDisconnected(_) => left += 1,
            e => panic!("unexpected {e:?}"),
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crate_clients_authenticate_with_the_engine_and_the_crate_alike() {
    let Some(bin) = engine("godot4") else {
        return;
    };
    let port = free_port();
    let mut engine = Engine::start(&bin, "auth4.gd", &[("PORT", port.to_string())]);
    engine.wait_for("listening", Duration::from_secs(30)).await;
    let by_engine = clients(&format!("ws://127.0.0.1:{port}")).await;
    let (code, log) = engine.finish(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{log:?}");
    assert_eq!(by_engine, expected(), "{log:?}");
    let auths: Vec<&str> = log.iter().filter_map(|l| l["data"].as_str()).collect();
    assert_eq!(auths, [hex::encode("wrong"), hex::encode("secret")]);
    assert_eq!(log.iter().filter(|l| l.get("peer").is_some()).count(), 1);

    let server = ws::Server::bind_with("127.0.0.1:0", scene(), config())
        .await
        .unwrap();
    let url = format!("ws://{}", server.local_addr());
    let serving = tokio::spawn(serve(server, 1, 1));
    assert_eq!(clients(&url).await, expected());
    let seen = tokio::time::timeout(Duration::from_secs(20), serving)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        seen,
        [
            "authenticating true",
            "authenticating true",
            "connected",
            "ran done"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_clients_authenticate_with_the_crate() {
    let Some(bin) = engine("godot4") else {
        return;
    };
    let server = ws::Server::bind_with("127.0.0.1:0", scene(), config())
        .await
        .unwrap();
    let port = server.local_addr().port().to_string();
    let serving = tokio::spawn(serve(server, 1, 1));
    let start = |secret: &str| {
        Engine::start(
            &bin,
            "authclient4.gd",
            &[("PORT", port.clone()), ("SECRET", secret.to_owned())],
        )
    };
    let (wrong, right) = (start("wrong"), start("secret"));
    let (code, log) = wrong.finish(Duration::from_secs(30)).await;
    assert_eq!(code, Some(2), "turned away: {log:?}");
    assert!(log.iter().all(|l| l.get("connected").is_none()), "{log:?}");
    let (code, log) = right.finish(Duration::from_secs(30)).await;
    assert_eq!(code, Some(0), "{log:?}");
    let keys: Vec<String> = log
        .iter()
        .map(|l| l.as_object().unwrap().keys().next().unwrap().clone())
        .collect();
    assert_eq!(
        keys,
        ["authenticating", "auth", "connected", "ran"],
        "{log:?}"
    );
    assert_eq!(log[1]["auth"], hex::encode("welcome"));
    let seen = tokio::time::timeout(Duration::from_secs(20), serving)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.contains(&"ran done".to_owned()), "{seen:?}");
}
