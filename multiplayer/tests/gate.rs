//! A server's clients' addresses (Godot's `get_peer_address` / `get_peer_port`),
//! turning newcomers away while the clients already in carry on (Godot's
//! `refuse_new_connections`), over WebSocket (Godot 4 and 3) and ENet, and WebSocket
//! sub-protocols (Godot's `supported_protocols`) between the crate's client and
//! server; the WebSocket heartbeat both ways, a client's time to be let in.
//! `gate_engines.rs` holds each against the engines.
#![cfg(all(feature = "websocket", feature = "enet"))]

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use godot_bin_multiplayer::{enet, ws, Event, Protocol, Scene, Target};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::error::ProtocolError;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

fn scene() -> Scene {
    Scene::new().node("Game", ["hello"])
}

/// How long a server is watched for an event that must not come.
const QUIET: Duration = Duration::from_millis(400);

/// The next event of `next` within 10 s (a test that waits longer has failed).
async fn next<F: std::future::Future<Output = Option<Event>>>(next: F) -> Event {
    tokio::time::timeout(Duration::from_secs(10), next)
        .await
        .expect("no event within 10 s")
        .expect("the server stopped")
}

/// Events of `next` in `QUIET` (none is expected).
async fn quiet<F: std::future::Future<Output = Option<Event>>>(next: F) -> Option<Event> {
    tokio::time::timeout(QUIET, next).await.ok().flatten()
}

/// `e` is client `from`'s call of `hello("still here")`.
fn still_here(e: Event, from: i32) {
    match e {
        Event::Call(call) => {
            assert_eq!((call.from, call.method.as_str()), (from, "hello"));
            assert_eq!(call.args::<(String,)>().unwrap().0, "still here");
        }
        e => panic!("unexpected {e:?}"),
    }
}

/// A bare WebSocket client of `server`, with the address it connects from.
async fn bare(server: SocketAddr) -> (SocketAddr, WebSocketStream<TcpStream>) {
    let tcp = TcpStream::connect(server).await.unwrap();
    let local = tcp.local_addr().unwrap();
    let (ws, _) = tokio_tungstenite::client_async(format!("ws://{server}"), tcp)
        .await
        .unwrap();
    (local, ws)
}

/// The peer id a Godot 4 server sends first.
async fn id_of(ws: &mut WebSocketStream<TcpStream>) -> i32 {
    match ws.next().await {
        Some(Ok(Message::Binary(b))) => i32::from_le_bytes(b[..].try_into().unwrap()),
        other => panic!("expected the peer id, got {other:?}"),
    }
}

#[tokio::test]
async fn a_websocket_server_knows_where_each_client_connected_from() {
    let mut server = ws::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let at = server.local_addr();
    let (la, mut a) = bare(at).await;
    let (lb, mut b) = bare(at).await;
    let (ia, ib) = (id_of(&mut a).await, id_of(&mut b).await);
    let mut joined = vec![];
    for _ in 0..2 {
        match next(server.next_event()).await {
            Event::PeerConnected(id) => joined.push(id),
            e => panic!("unexpected {e:?}"),
        }
    }
    joined.sort_unstable();
    let mut ids = vec![ia, ib];
    ids.sort_unstable();
    assert_eq!(joined, ids);
    assert_eq!(server.peer_addr(ia), Some(la));
    assert_eq!(server.peer_addr(ib), Some(lb));
    assert_ne!(la, lb);
    assert_eq!(server.peer_addr(1), None);
    assert_eq!(server.peer_addr(ia ^ ib | 2), None);
    drop(a);
    assert_eq!(next(server.next_event()).await, Event::PeerDisconnected(ia));
    assert_eq!(server.peer_addr(ia), None);
    assert_eq!(server.peer_addr(ib), Some(lb));
    server.kick(ib);
    assert_eq!(server.peer_addr(ib), None);
}

#[tokio::test]
async fn a_refusing_godot4_websocket_server_closes_newcomers_after_the_handshake() {
    let mut server = ws::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let at = server.local_addr();
    let url = format!("ws://{at}");
    let mut first = ws::Client::connect(&url, scene()).await.unwrap();
    let first_id = first.id();
    assert_eq!(
        next(server.next_event()).await,
        Event::PeerConnected(first_id)
    );
    assert!(!server.is_refusing_new_connections());
    server.set_refuse_new_connections(true);
    assert!(server.is_refusing_new_connections());

    // The handshake completes; then the connection closes with no id and no close
    // frame, as the engine's does.
    let (_, mut late) = bare(at).await;
    match late.next().await {
        Some(Err(WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake))) | None => {}
        other => panic!("expected the connection closed without an id, got {other:?}"),
    }
    let refused = ws::Client::connect(&url, scene()).await;
    assert!(
        matches!(
            refused,
            Err(ws::Error::WebSocket(WsError::Protocol(
                ProtocolError::ResetWithoutClosingHandshake
            ))) | Err(ws::Error::Closed)
        ),
        "{refused:?}"
    );
    assert_eq!(quiet(server.next_event()).await, None);
    assert_eq!(server.session().peers().collect::<Vec<_>>(), [first_id]);

    // The client already in carries on.
    first
        .rpc(Target::Peer(1), "Game", "hello", &("still here",))
        .await
        .unwrap();
    still_here(next(server.next_event()).await, first_id);

    server.set_refuse_new_connections(false);
    let again = ws::Client::connect(&url, scene()).await.unwrap();
    assert_eq!(
        next(server.next_event()).await,
        Event::PeerConnected(again.id())
    );
    assert_eq!(server.peer_addr(again.id()).map(|a| a.ip()), Some(at.ip()));
}

#[tokio::test]
async fn a_refusing_godot3_websocket_server_closes_newcomers_at_once() {
    let config = ws::Config {
        protocol: Protocol::Godot3,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let at = server.local_addr();
    server.set_refuse_new_connections(true);
    // Closed before the WebSocket handshake.
    let tcp = TcpStream::connect(at).await.unwrap();
    let shake = tokio_tungstenite::client_async(format!("ws://{at}"), tcp).await;
    assert!(shake.is_err(), "{shake:?}");
    assert_eq!(quiet(server.next_event()).await, None);

    server.set_refuse_new_connections(false);
    let (local, mut c) = bare(at).await;
    // Godot 3's server greets with its ID system message (type 3).
    match c.next().await {
        Some(Ok(Message::Binary(b))) => assert_eq!(b[0], 3, "{b:?}"),
        other => panic!("expected the id message, got {other:?}"),
    }
    let Event::PeerConnected(id) = next(server.next_event()).await else {
        panic!("no newcomer");
    };
    assert_eq!(server.peer_addr(id), Some(local));
}

#[tokio::test]
async fn an_enet_server_knows_its_clients_addresses_and_resets_newcomers_while_refusing() {
    let mut server = enet::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let at = server.local_addr();
    let config = enet::Config::default();
    let mut first = enet::Client::connect(at, 1234, scene(), config)
        .await
        .unwrap();
    assert_eq!(next(server.next_event()).await, Event::PeerConnected(1234));
    let addr = server
        .peer_addr(1234)
        .expect("a connected client's address");
    assert_eq!(addr.ip(), at.ip());
    assert_ne!(addr.port(), at.port());
    assert_eq!(server.peer_addr(5678), None);

    server.set_refuse_new_connections(true);
    assert!(server.is_refusing_new_connections());
    // As with the engines, the newcomer's ENet connection is made, and then reset
    // by the server without a word: the client believes it connected.
    let mut late = enet::Client::connect(at, 5678, scene(), config)
        .await
        .unwrap();
    late.rpc(Target::Peer(1), "Game", "hello", &("let me in",))
        .await
        .unwrap();
    assert_eq!(quiet(server.next_event()).await, None);
    assert_eq!(server.session().peers().collect::<Vec<_>>(), [1234]);
    assert_eq!(server.peer_addr(5678), None);

    // The client already in carries on.
    first
        .rpc(Target::Peer(1), "Game", "hello", &("still here",))
        .await
        .unwrap();
    still_here(next(server.next_event()).await, 1234);

    server.set_refuse_new_connections(false);
    let _again = enet::Client::connect(at, 9012, scene(), config)
        .await
        .unwrap();
    assert_eq!(next(server.next_event()).await, Event::PeerConnected(9012));
    let addr2 = server.peer_addr(9012).expect("the newcomer's address");
    assert_ne!(addr2, addr);
    drop(first);
    assert_eq!(
        next(server.next_event()).await,
        Event::PeerDisconnected(1234)
    );
    assert_eq!(server.peer_addr(1234), None);
}

/// A crate client offering `offered` to a crate server speaking `spoken`: the
/// sub-protocol chosen, or the error.
async fn offer(
    spoken: &'static [&'static str],
    offered: &'static [&'static str],
) -> Result<Option<String>, ws::Error> {
    let config = ws::Config {
        subprotocols: spoken,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let at = server.local_addr();
    // What the server answers, seen by a bare client offering the same.
    let mut request = format!("ws://{at}").into_client_request().unwrap();
    if !offered.is_empty() {
        request.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            offered.join(", ").parse().unwrap(),
        );
    }
    let bare =
        tokio_tungstenite::client_async(request, TcpStream::connect(at).await.unwrap()).await;
    let chosen = bare.as_ref().ok().map(|(_, response)| {
        response
            .headers()
            .get("Sec-WebSocket-Protocol")
            .map(|v| v.to_str().unwrap().to_string())
    });
    let client = ws::Client::connect_config(
        &format!("ws://{at}"),
        scene(),
        ws::Config {
            subprotocols: offered,
            ..ws::Config::default()
        },
    )
    .await;
    match (&client, chosen) {
        (Ok(c), Some(chosen)) => {
            let mut ids = vec![];
            while ids.len() < 2 {
                if let Event::PeerConnected(id) = next(server.next_event()).await {
                    ids.push(id);
                }
            }
            assert!(ids.contains(&c.id()), "{ids:?}");
            Ok(chosen)
        }
        (Err(_), None) => {
            assert_eq!(quiet(server.next_event()).await, None);
            client.map(|_| None)
        }
        (client, chosen) => panic!("the bare client got {chosen:?}, the crate's {client:?}"),
    }
}

#[tokio::test]
async fn websocket_sub_protocols_are_chosen_by_the_clients_order() {
    assert_eq!(offer(&[], &[]).await.unwrap(), None);
    assert_eq!(
        offer(&["game-v1", "game-v2"], &["game-v2"]).await.unwrap(),
        Some("game-v2".into())
    );
    assert_eq!(
        offer(&["game-v2", "game-v1"], &["game-v1", "game-v2"])
            .await
            .unwrap(),
        Some("game-v1".into())
    );
    // Turned away with "400 Bad Request": none in common, none offered to a server
    // that asks for one, or some offered to one that speaks none.
    for (spoken, offered) in [
        (&["game-v1"][..], &["game-v2"][..]),
        (&["game-v1"], &[]),
        (&[], &["game-v1"]),
    ] {
        match offer(spoken, offered).await {
            Err(ws::Error::WebSocket(WsError::Http(response))) => {
                assert_eq!(response.status(), 400, "{spoken:?} {offered:?}")
            }
            other => panic!("{spoken:?} {offered:?}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn the_heartbeat_drops_a_silent_websocket_client_and_keeps_the_others() {
    let beat = Duration::from_millis(200);
    let config = ws::Config {
        heartbeat: Some(beat),
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let at = server.local_addr();
    // A client whose machine vanished: connected, and never reading again (so never
    // answering a ping).
    let (_, mut gone) = bare(at).await;
    let gone_id = id_of(&mut gone).await;
    // A client that is idle but alive: its connection is read (and the pings so
    // answered) by `next_event`, which waits for calls that never come.
    let alive = ws::Client::connect(&format!("ws://{at}"), scene())
        .await
        .unwrap();
    let alive_id = alive.id();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let idle = tokio::spawn(async move {
        let (mut alive, mut stopped) = (alive, stopped);
        loop {
            tokio::select! {
                e = alive.next_event() => match e {
                    // Peer notices (the server, the other client joining and leaving).
                    Some(Ok(Event::PeerConnected(_) | Event::PeerDisconnected(_))) => {}
                    e => panic!("the idle client heard {e:?}"),
                },
                _ = &mut stopped => return alive,
            }
        }
    });
    let start = tokio::time::Instant::now();
    let mut left = None;
    while start.elapsed() < beat * 8 {
        match quiet(server.next_event()).await {
            Some(Event::PeerDisconnected(id)) => {
                assert_eq!(id, gone_id, "the wrong client was dropped");
                left.get_or_insert(start.elapsed());
            }
            Some(Event::PeerConnected(_)) | None => {}
            Some(e) => panic!("unexpected {e:?}"),
        }
    }
    // Pinged at one interval, found silent at the next.
    let left = left.expect("the silent client was dropped");
    assert!(left >= beat && left < beat * 4, "dropped after {left:?}");
    assert_eq!(server.session().peers().collect::<Vec<_>>(), [alive_id]);
    assert_eq!(server.peer_addr(gone_id), None);
    // The idle client, pinged eight times meanwhile, is still in.
    stop.send(()).unwrap();
    let mut alive = idle.await.unwrap();
    alive
        .rpc(Target::Peer(1), "Game", "hello", &("still here",))
        .await
        .unwrap();
    still_here(next(server.next_event()).await, alive_id);
    drop(gone);
}

/// A crate client with a heartbeat of `beat` connected to a server at `url`: how
/// long its `next_event` went on before it gave up, or `None` if it still had
/// not after `watch` (peer notices taken on the way).
async fn client_gives_up(url: &str, beat: Duration, watch: Duration) -> Option<Duration> {
    let config = ws::Config {
        heartbeat: Some(beat),
        ..ws::Config::default()
    };
    let mut c = ws::Client::connect_config(url, scene(), config)
        .await
        .unwrap();
    let start = tokio::time::Instant::now();
    let run = async {
        loop {
            match c.next_event().await {
                Some(Ok(Event::PeerConnected(_))) => {}
                Some(Err(ws::Error::Silent)) => return start.elapsed(),
                e => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(watch, run).await.ok()
}

/// A server that sends its one client its id, then neither reads nor writes again:
/// its address, and the task that holds the connection for 30 s.
async fn mute_server() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap();
    let mute = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        futures_util::SinkExt::send(&mut ws, Message::binary(7777i32.to_le_bytes().to_vec()))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(ws);
    });
    (at, mute)
}

#[tokio::test]
async fn a_client_with_a_heartbeat_gives_up_a_silent_server_and_keeps_a_live_one() {
    let beat = Duration::from_millis(200);
    let (at, silent) = mute_server().await;
    let gave_up = client_gives_up(&format!("ws://{at}"), beat, Duration::from_secs(5))
        .await
        .expect("the silent server given up");
    assert!(gave_up >= beat && gave_up < beat * 4, "after {gave_up:?}");
    silent.abort();

    // The crate's server reads, and so answers the pings: kept through eight.
    let mut server = ws::Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://{}", server.local_addr());
    let serve = async {
        loop {
            server.next_event().await;
        }
    };
    let kept = tokio::select! {
        kept = client_gives_up(&url, beat, beat * 8) => kept,
        () = serve => unreachable!(),
    };
    assert_eq!(kept, None);
}

/// A client that stops reading while the server has much to write to it: the write
/// stalls once the socket's buffers are full, and the heartbeat still drops it (it
/// once waited for the write, which never ended); a client that reads all of it
/// stays, though a write to it takes many intervals' worth of data.
#[tokio::test]
async fn the_heartbeat_drops_a_client_that_stops_reading_while_the_server_writes() {
    let beat = Duration::from_millis(300);
    let config = ws::Config {
        heartbeat: Some(beat),
        // Room for all of it: only the heartbeat may drop the client.
        send_queue_bytes: 64 << 20,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let at = server.local_addr();
    // A small receive buffer: the server's writes to it stall soon.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let tcp = socket.connect(at).await.unwrap();
    let (mut gone, _) = tokio_tungstenite::client_async(format!("ws://{at}"), tcp)
        .await
        .unwrap();
    let gone_id = id_of(&mut gone).await;
    let mut reader = ws::Client::connect(&format!("ws://{at}"), scene())
        .await
        .unwrap();
    let reader_id = reader.id();
    let mut joined = 0;
    while joined < 2 {
        joined += usize::from(matches!(
            next(server.next_event()).await,
            Event::PeerConnected(_)
        ));
    }
    // 2.4 MB to each, sent at once, and 12 MB more to the client that stopped
    // reading: more than a socket's send buffer grows to (4 MiB at most here).
    const CALLS: usize = 40;
    let text = "x".repeat(60_000);
    for _ in 0..CALLS {
        server
            .rpc(Target::All, "Game", "hello", &(text.as_str(),))
            .unwrap();
    }
    for _ in 0..5 * CALLS {
        server
            .rpc(Target::Peer(gone_id), "Game", "hello", &(text.as_str(),))
            .unwrap();
    }
    // The reading client reads on (answering pings) while the server is watched.
    let mut calls = 0;
    let read = async {
        loop {
            match reader.next_event().await {
                Some(Ok(Event::Call(call))) => {
                    assert_eq!(call.args::<(String,)>().unwrap().0.len(), 60_000);
                    calls += 1;
                }
                Some(Ok(_)) => {}
                e => panic!("the reading client: {e:?}"),
            }
        }
    };
    let start = tokio::time::Instant::now();
    let mut left = None;
    let watch = async {
        while start.elapsed() < beat * 10 {
            match quiet(server.next_event()).await {
                Some(Event::PeerDisconnected(id)) => {
                    assert_eq!(id, gone_id, "the reading client was dropped");
                    left.get_or_insert(start.elapsed());
                }
                None => {}
                Some(e) => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::select! {
        () = watch => {}
        () = read => unreachable!(),
    }
    assert_eq!(calls, CALLS);
    let left = left.expect("the client that stopped reading was dropped");
    assert!(left < beat * 5, "dropped after {left:?}");
    assert_eq!(server.session().peers().collect::<Vec<_>>(), [reader_id]);
    drop(gone);
}

/// A client with a heartbeat whose server stops reading: its write stalls, and it
/// gives the server up ([`ws::Error::Silent`]) instead of waiting for ever.
#[tokio::test]
async fn a_client_with_a_heartbeat_gives_up_a_server_that_takes_nothing() {
    let beat = Duration::from_millis(200);
    let (at, deaf) = mute_server().await;
    let config = ws::Config {
        heartbeat: Some(beat),
        ..ws::Config::default()
    };
    let mut c = ws::Client::connect_config(&format!("ws://{at}"), scene(), config)
        .await
        .unwrap();
    let text = "x".repeat(60_000);
    let mut sent = 0;
    let send = async {
        loop {
            match c
                .rpc(Target::Peer(1), "Game", "hello", &(text.as_str(),))
                .await
            {
                Ok(()) => sent += 1,
                Err(e) => return e,
            }
        }
    };
    let e = tokio::time::timeout(Duration::from_secs(10), send)
        .await
        .expect("the client still waits for the server to read");
    assert!(matches!(e, ws::Error::Silent), "{e}");
    // Loopback's buffers took some first.
    assert!(sent > 0);
    deaf.abort();
}

/// A heartbeat longer than the clock counts (`Duration::MAX`, "never") is off: the
/// server's connection task once panicked over it, and the client it served never
/// left.
#[tokio::test]
async fn a_heartbeat_longer_than_the_clock_counts_is_off() {
    let config = ws::Config {
        heartbeat: Some(Duration::MAX),
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let url = format!("ws://{}", server.local_addr());
    let c = ws::Client::connect_config(&url, scene(), config)
        .await
        .unwrap();
    let id = c.id();
    assert_eq!(next(server.next_event()).await, Event::PeerConnected(id));
    c.close().await.unwrap();
    assert_eq!(next(server.next_event()).await, Event::PeerDisconnected(id));
}

/// A server that answers the handshake and never sends the client its id, and one
/// that never answers the handshake: a client gives each up after its
/// `handshake_timeout` ([`ws::Error::Timeout`]), where it once waited for ever.
#[tokio::test]
async fn a_client_gives_up_a_server_that_does_not_let_it_in_in_time() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = listener.local_addr().unwrap();
    let mute = tokio::spawn(async move {
        let (first, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(first).await.unwrap();
        let (second, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop((ws, second));
    });
    let config = ws::Config {
        handshake_timeout: Duration::from_millis(300),
        ..ws::Config::default()
    };
    for _ in 0..2 {
        let start = tokio::time::Instant::now();
        let url = format!("ws://{at}");
        let joined = ws::Client::connect_config(&url, scene(), config);
        let joined = tokio::time::timeout(Duration::from_secs(5), joined)
            .await
            .expect("the client still waits");
        let took = start.elapsed();
        assert!(matches!(joined, Err(ws::Error::Timeout)), "{joined:?}");
        assert!(
            took >= config.handshake_timeout && took < Duration::from_secs(3),
            "{took:?}"
        );
    }
    mute.abort();
}
