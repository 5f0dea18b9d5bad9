//! An ENet peer's link as ENet measures it (Godot's `ENetPacketPeer.get_statistic`):
//! `enet::Server::peer_stats` and `enet::Client::stats` follow the round trip time
//! down from ENet's starting 500 ms as reliable packets are acknowledged.
#![cfg(feature = "enet")]

use std::time::Duration;

use godot_bin_multiplayer::{enet, Event, Scene, Target};

/// `f`'s output within 10 s.
async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("within 10 s")
}

fn scene() -> Scene {
    Scene::new().node("Game", ["ping", "pong"])
}

#[tokio::test]
async fn the_round_trip_time_is_measured_both_ways() {
    let mut server = enet::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let at = server.local_addr();
    let mut client = enet::Client::connect(at, 4321, scene(), enet::Config::default())
        .await
        .unwrap();
    assert_eq!(
        within(server.next_event()).await,
        Some(Event::PeerConnected(4321))
    );
    assert!(server.peer_stats(4321).is_some());
    assert_eq!(server.peer_stats(1234), None);
    // Twenty reliable round trips: each call is acknowledged, and answered.
    for n in 0..20i64 {
        client
            .rpc(Target::Peer(1), "Game", "ping", &(n,))
            .await
            .unwrap();
        loop {
            match within(server.next_event()).await.unwrap() {
                Event::Call(call) if call.method == "ping" => {
                    server
                        .rpc(
                            Target::Peer(4321),
                            "Game",
                            "pong",
                            &call.args::<(i64,)>().unwrap(),
                        )
                        .unwrap();
                    break;
                }
                _ => {}
            }
        }
        loop {
            match within(client.next_event()).await.unwrap().unwrap() {
                Event::Call(call) if call.method == "pong" => {
                    assert_eq!(call.args::<(i64,)>().unwrap(), (n,));
                    break;
                }
                _ => {}
            }
        }
    }
    // The host threads read their links every quarter of a second.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let theirs = server.peer_stats(4321).unwrap();
    let ours = client.stats();
    for stats in [theirs, ours] {
        assert!(
            stats.round_trip_time < Duration::from_millis(250),
            "{stats:?}"
        );
        assert_eq!(stats.packet_loss, 0, "{stats:?}");
    }
    drop(client);
    assert_eq!(
        within(server.next_event()).await,
        Some(Event::PeerDisconnected(4321))
    );
    assert_eq!(server.peer_stats(4321), None);
}
