//! An ENet peer's link as ENet measures it (Godot's `ENetPacketPeer.get_statistic`):
//! `enet::Server::peer_stats` and `enet::Client::stats` follow the round trip time
//! down from ENet's starting 500 ms as reliable packets are acknowledged; and a peer
//! that goes silent is given up after `enet::Config::peer_timeout` (Godot's
//! `set_timeout`), and so is a server that never answers a client's connect; a host
//! dropped tells its peers at once; what ENet would not send is an error.
#![cfg(feature = "enet")]

use std::time::Duration;

use godot_bin_multiplayer::enet::rusty_enet as renet;
use godot_bin_multiplayer::{enet, Delivery, Event, Mode, Scene, Target};

/// `f`'s output within 10 s.
async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("within 10 s")
}

fn scene() -> Scene {
    Scene::new().node("Game", ["ping", "pong"])
}

/// Client 4321 with `config`, once `server` has let it in.
async fn joined(server: &mut enet::Server, config: enet::Config) -> enet::Client {
    let at = server.local_addr();
    let client = enet::Client::connect(at, 4321, scene(), config)
        .await
        .unwrap();
    assert_eq!(
        within(server.next_event()).await,
        Some(Event::PeerConnected(4321))
    );
    client
}

#[tokio::test]
async fn the_round_trip_time_is_measured_both_ways() {
    let mut server = enet::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let mut client = joined(&mut server, enet::Config::default()).await;
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

/// An ENet peer that connects to `server` as `id`, then goes silent: its host is
/// kept (so nothing says goodbye) but never serviced again.
fn vanishing(server: std::net::SocketAddr, id: u32) -> renet::Host<std::net::UdpSocket> {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.set_nonblocking(true).unwrap();
    let settings = renet::HostSettings {
        peer_limit: 1,
        channel_limit: 255,
        ..Default::default()
    };
    let mut host = renet::Host::new(socket, settings).unwrap();
    host.connect(server, 255, id).unwrap();
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(renet::Event::Connect { .. })) = host.service() {
            // The acknowledgement that makes the server take it, then silence.
            host.flush();
            return host;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("no connection to the server");
}

#[tokio::test]
async fn a_vanished_client_is_given_up_after_the_peer_timeout() {
    let timeout = enet::PeerTimeout {
        limit: 4,
        minimum: Duration::from_millis(300),
        maximum: Duration::from_millis(800),
    };
    let quick = enet::Config {
        peer_timeout: timeout,
        ..enet::Config::default()
    };
    let mut server = enet::Server::bind_with("127.0.0.1:0", scene(), quick)
        .await
        .unwrap();
    let mut patient = enet::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let at = (server.local_addr(), patient.local_addr());
    let (gone, also_gone) =
        tokio::task::spawn_blocking(move || (vanishing(at.0, 5555), vanishing(at.1, 6666)))
            .await
            .unwrap();
    assert_eq!(
        within(server.next_event()).await,
        Some(Event::PeerConnected(5555))
    );
    assert_eq!(
        within(patient.next_event()).await,
        Some(Event::PeerConnected(6666))
    );
    let start = tokio::time::Instant::now();
    assert_eq!(
        within(server.next_event()).await,
        Some(Event::PeerDisconnected(5555))
    );
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_millis(2500),
        "given up after {took:?}"
    );
    // ENet's default waits 5 s at least.
    let waited = tokio::time::timeout(Duration::from_millis(2500), patient.next_event()).await;
    assert!(waited.is_err(), "{waited:?}");
    drop((gone, also_gone));
}

/// A server dropped tells its client at once, not leaving it to ENet's timeout (5 s
/// at the least): also when the application stopped taking its events and the host
/// thread waits for room for them (it once returned without a word then).
#[tokio::test]
async fn a_dropped_server_tells_its_client_at_once() {
    for busy in [false, true] {
        for _ in 0..5 {
            let config = enet::Config {
                queue: 16,
                ..enet::Config::default()
            };
            let mut server = enet::Server::bind_with("127.0.0.1:0", scene(), config)
                .await
                .unwrap();
            let mut client = joined(&mut server, enet::Config::default()).await;
            if busy {
                // More calls than the server's queue holds, none taken.
                for n in 0..200i64 {
                    client
                        .rpc(Target::Peer(1), "Game", "ping", &(n,))
                        .await
                        .unwrap();
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            drop(server);
            let told = tokio::time::timeout(Duration::from_secs(1), async {
                loop {
                    match client.next_event().await {
                        Some(Ok(Event::PeerDisconnected(1))) | None => return,
                        Some(Ok(_)) => {}
                        Some(Err(e)) => panic!("{e}"),
                    }
                }
            })
            .await;
            assert!(
                told.is_ok(),
                "the client not told within 1 s (busy: {busy})"
            );
        }
    }
}

/// A client of an address where nothing answers fails when ENet gives up
/// (`peer_timeout`), not at the end of a longer `connect_timeout`.
#[tokio::test]
async fn a_client_fails_to_connect_when_enet_gives_up() {
    // A UDP port that takes datagrams and never answers.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let config = enet::Config {
        peer_timeout: enet::PeerTimeout {
            limit: 1,
            minimum: Duration::from_millis(200),
            maximum: Duration::from_millis(500),
        },
        connect_timeout: Duration::from_secs(20),
        ..enet::Config::default()
    };
    let start = std::time::Instant::now();
    let joined = enet::Client::connect(silent.local_addr().unwrap(), 4321, scene(), config).await;
    let took = start.elapsed();
    assert!(
        matches!(joined, Err(enet::Error::ConnectFailed)),
        "{joined:?}"
    );
    assert!(took < Duration::from_secs(5), "gave up after {took:?}");
}

/// What ENet refuses to send, and once lost without a word, is an error: a packet
/// over this side's `max_packet`, one for a channel the peer did not open; what fits
/// still goes.
#[tokio::test]
async fn what_enet_would_not_send_is_an_error() {
    let server_config = enet::Config {
        max_channels: 2,
        max_packet: 64 << 10,
        ..enet::Config::default()
    };
    let mut server = enet::Server::bind_with("127.0.0.1:0", scene(), server_config)
        .await
        .unwrap();
    let client_config = enet::Config {
        max_packet: 64 << 10,
        ..enet::Config::default()
    };
    let mut client = joined(&mut server, client_config).await;
    let big = "x".repeat(100_000);
    let e = client
        .rpc(Target::Peer(1), "Game", "ping", &(big.as_str(),))
        .await
        .unwrap_err();
    assert!(
        matches!(e, enet::Error::TooLarge(n, 65536) if n > 100_000),
        "{e}"
    );
    let e = server
        .rpc(Target::Peer(4321), "Game", "pong", &(big.as_str(),))
        .unwrap_err();
    assert!(
        matches!(e, enet::Error::TooLarge(n, 65536) if n > 100_000),
        "{e}"
    );
    // Godot 4's `@rpc` channel 1 is ENet channel 2: the server opened channels 0 and 1.
    let on_1 = Delivery {
        mode: Mode::Reliable,
        channel: 1,
    };
    let args = vec![godot_bin::Variant::Int(1)];
    let e = client
        .call(Target::Peer(1), "Game", "ping", args.clone(), on_1)
        .await
        .unwrap_err();
    assert!(matches!(e, enet::Error::NoChannel(2, 2)), "{e}");
    let e = server
        .call(Target::Peer(4321), "Game", "pong", args, on_1)
        .unwrap_err();
    assert!(matches!(e, enet::Error::NoChannel(2, 2)), "{e}");
    // What fits goes, both ways.
    client
        .rpc(Target::Peer(1), "Game", "ping", &(7i64,))
        .await
        .unwrap();
    match within(server.next_event()).await {
        Some(Event::Call(call)) => assert_eq!(call.args::<(i64,)>().unwrap(), (7,)),
        e => panic!("{e:?}"),
    }
    server
        .rpc(Target::Peer(4321), "Game", "pong", &(8i64,))
        .unwrap();
    let heard = within(async {
        loop {
            match client.next_event().await {
                Some(Ok(Event::Call(call))) => return call.args::<(i64,)>().unwrap(),
                Some(Ok(_)) => {}
                e => panic!("{e:?}"),
            }
        }
    })
    .await;
    assert_eq!(heard, (8,));
}
