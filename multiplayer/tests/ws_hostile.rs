//! Hostile WebSocket peers against `ws::Server`, with well-behaved crate clients
//! beside them: a peer that sends a malformed packet, a text message or an oversized
//! one is dropped; the others are told it left and carry on. A bare client also
//! reads the headers of a Godot 3 server's calls to all.
#![cfg(feature = "websocket")]

mod common;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use godot_bin_multiplayer::ws::{Client, Server};
use godot_bin_multiplayer::{Event, Packet, Scene, Target};
use tokio_tungstenite::tungstenite::Message;

fn scene() -> Scene {
    Scene::new().node("Game", ["hello"])
}

/// The server's events until `stop` matches one (bounded in time).
async fn events_until(server: &mut Server, stop: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut seen = Vec::new();
    let run = async {
        loop {
            let e = server.next_event().await.unwrap();
            let last = stop(&e);
            seen.push(e);
            if last {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap_or_else(|_| panic!("timed out; saw {seen:?}"));
    seen
}

#[tokio::test]
async fn hostile_peers_are_dropped_and_the_others_carry_on() {
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let good = tokio::spawn({
        let url = url.clone();
        async move {
            let mut c = Client::connect(&url, scene()).await.unwrap();
            let mut seen = Vec::new();
            while let Ok(Some(e)) =
                tokio::time::timeout(Duration::from_secs(10), c.next_event()).await
            {
                let e = e.unwrap();
                let last = matches!(&e, Event::Call(call) if call.method == "hello");
                seen.push(e);
                if last {
                    break;
                }
            }
            seen
        }
    });
    let Event::PeerConnected(good_id) = events_until(&mut server, |_| true).await[0] else {
        panic!()
    };
    // 1026 cache ids for the one node in a row: its first, then 1025 more, one more
    // than a peer may give a node it gave one already with nothing else between.
    let flood: Vec<Message> = (1..=1026)
        .map(|id| {
            let p = Packet::SimplifyPath {
                checksum: scene().names("Game").unwrap().checksum().to_owned(),
                id,
                path: "Game".into(),
            };
            Message::binary(p.encode().unwrap())
        })
        .collect();
    // A call by path whose compressed int says 8 bytes and has 2.
    let overflow = b"\x20\x0a\x00\x00\x80\x00\x01\xc2\x01\x02Game\0".to_vec();
    let hostile: [(&str, Vec<Message>); 6] = [
        ("unknown command", vec![Message::binary(vec![0x08])]),
        ("cache id", vec![Message::binary(vec![0x80, 9, 0])]),
        ("path cache flood", flood),
        ("compressed int overflow", vec![Message::binary(overflow)]),
        ("text", vec![Message::text("hello")]),
        ("oversized", vec![Message::binary(vec![3; 70_000])]),
    ];
    for (what, msgs) in hostile {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let id = match ws.next().await.unwrap().unwrap() {
            Message::Binary(b) => i32::from_le_bytes(b[..].try_into().unwrap()),
            m => panic!("{m:?}"),
        };
        assert!(id >= 2);
        let seen = events_until(&mut server, |e| *e == Event::PeerConnected(id)).await;
        assert_eq!(seen, [Event::PeerConnected(id)]);
        // The newcomer hears of the good client.
        let add = ws.next().await.unwrap().unwrap();
        assert_eq!(
            add.into_data()[..],
            [&[7, 1][..], &good_id.to_le_bytes()].concat()[..]
        );
        for msg in msgs {
            let _ = ws.send(msg).await;
        }
        let seen = events_until(&mut server, |e| *e == Event::PeerDisconnected(id)).await;
        match what {
            "unknown command" | "cache id" | "path cache flood" | "compressed int overflow" => {
                let Event::Refused { peer, reason } = &seen[0] else {
                    panic!("{what}: {seen:?}")
                };
                assert_eq!(*peer, id);
                let why = match what {
                    "unknown command" => "meta byte 0x08",
                    "cache id" => "cache id 9 is not known",
                    "path cache flood" => "more than 1024 SIMPLIFY_PATHs in a row",
                    _ => "the packet ends before a compressed int",
                };
                assert!(reason.contains(why), "{what}: {reason}");
                assert_eq!(seen.len(), 2, "{seen:?}");
            }
            _ => assert_eq!(seen, [Event::PeerDisconnected(id)], "{what}"),
        }
        // Its connection ends.
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(Ok(m)) = ws.next().await {
                if m.is_close() {
                    break;
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "{what}: still open");
    }
    server
        .rpc(Target::Peer(good_id), "Game", "hello", &("still here",))
        .unwrap();
    let seen = good.await.unwrap();
    // The good client saw each hostile peer come and go, then the call.
    let joined = seen
        .iter()
        .filter(|e| matches!(e, Event::PeerConnected(p) if *p != 1))
        .count();
    let left = seen
        .iter()
        .filter(|e| matches!(e, Event::PeerDisconnected(_)))
        .count();
    assert_eq!((joined, left), (6, 6), "{seen:?}");
    match seen.last().unwrap() {
        Event::Call(c) => assert_eq!(c.args::<(String,)>().unwrap().0, "still here"),
        e => panic!("{e:?}"),
    }
}

#[tokio::test]
async fn a_client_refuses_a_bad_id_message() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        for id in [vec![1u8, 0, 0, 0], vec![5, 0, 0], vec![0, 0, 0, 0x80]] {
            let (s, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(s).await.unwrap();
            let _ = ws.send(Message::binary(id)).await;
            let _ = ws.next().await;
        }
    });
    for _ in 0..3 {
        let r = Client::connect(&url, scene()).await;
        assert!(
            matches!(r, Err(godot_bin_multiplayer::ws::Error::InvalidId)),
            "{:?}",
            r.err()
        );
    }
    server.abort();
}

/// A client that stops reading is dropped once `send_queue` messages wait for it,
/// and its connection ends even though its socket takes no more bytes (its place
/// is free for a newcomer at once); a client that reads carries on.
#[tokio::test]
async fn a_client_that_stops_reading_is_dropped_and_closed() {
    use godot_bin_multiplayer::ws::Config;
    let config = Config {
        send_queue: 4,
        max_clients: 2,
        ..Config::default()
    };
    let mut server = Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let (mut stuck, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let Event::PeerConnected(stuck_id) = events_until(&mut server, |_| true).await[0] else {
        panic!()
    };
    let mut good = Client::connect(&url, scene()).await.unwrap();
    let Event::PeerConnected(good_id) = events_until(&mut server, |_| true).await[0] else {
        panic!()
    };
    // 60 KB messages: a few fill the sockets' buffers, then the queue fills.
    let big = vec![7u8; 60_000];
    let mut refused = None;
    for _ in 0..10_000 {
        server
            .send_bytes(Target::Peer(stuck_id), big.clone())
            .unwrap();
        let pending = tokio::time::timeout(Duration::from_millis(1), server.next_event()).await;
        if let Ok(Some(Event::Refused { peer, reason })) = pending {
            refused = Some((peer, reason));
            break;
        }
    }
    let (peer, reason) = refused.expect("never refused");
    assert_eq!(peer, stuck_id);
    assert!(reason.contains("its send queue is full"), "{reason}");
    // Its place is free while it still reads nothing: the write to it was abandoned.
    let newcomer = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(c) = Client::connect(&url, scene()).await {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("no room for a newcomer");
    // The stuck client's connection ends: what was written, then the end.
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        let mut bytes = 0usize;
        while let Some(Ok(m)) = stuck.next().await {
            bytes += m.len();
        }
        bytes
    })
    .await
    .expect("still open");
    assert!(ended >= 60_000, "{ended} bytes");
    drop(newcomer);
    server
        .rpc(Target::Peer(good_id), "Game", "hello", &("still here",))
        .unwrap();
    let call = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Event::Call(c) = good.next_event().await.unwrap().unwrap() {
                return c;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(call.args::<(String,)>().unwrap().0, "still here");
}

/// The events of `client` until it ends (`None`), each within 10 s.
async fn client_events(client: &mut Client) -> Vec<Result<Event, String>> {
    let mut seen = Vec::new();
    while let Some(e) = tokio::time::timeout(Duration::from_secs(10), client.next_event())
        .await
        .unwrap_or_else(|_| panic!("no end; saw {seen:?}"))
    {
        seen.push(e.map_err(|e| e.to_string()));
        assert!(seen.len() < 20, "{seen:?}");
    }
    seen
}

/// A call queued for a client and then a kick: the client gets the call, then the
/// close, then its events end (no error, though it answered the node's path as the
/// server closed); and so on every try, on a runtime whose tasks run in parallel.
/// Dropping the server closes its clients the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kicked_client_gets_what_was_queued_then_the_close() {
    for _ in 0..20 {
        let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
        let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
        let mut client = Client::connect(&url, scene()).await.unwrap();
        let Event::PeerConnected(id) = events_until(&mut server, |_| true).await[0] else {
            panic!()
        };
        server
            .rpc(Target::Peer(id), "Game", "hello", &("you are kicked",))
            .unwrap();
        server.kick(id);
        let seen = client_events(&mut client).await;
        assert!(
            matches!(&seen[..], [Ok(Event::PeerConnected(1)), Ok(Event::Call(c)), Ok(Event::PeerDisconnected(1))]
                if c.args::<(String,)>().unwrap().0 == "you are kicked"),
            "{seen:?}"
        );
        let mut client = Client::connect(&url, scene()).await.unwrap();
        events_until(&mut server, |e| matches!(e, Event::PeerConnected(_))).await;
        drop(server);
        let seen = client_events(&mut client).await;
        assert_eq!(
            seen,
            [Ok(Event::PeerConnected(1)), Ok(Event::PeerDisconnected(1))]
        );
    }
}

/// This process's resident memory, in bytes.
#[cfg(target_os = "linux")]
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// Held by the tests that measure `rss()`, so they do not measure each other.
#[cfg(target_os = "linux")]
static MEASURING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A client that sends pings and reads nothing: the pongs wait behind its full
/// socket, and the server keeps a few of them, not all (64 MB of pings here).
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_flooding_pings_that_reads_nothing_costs_the_server_little() {
    let _measuring = MEASURING.lock().await;
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let (ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    events_until(&mut server, |_| true).await;
    let serving = tokio::spawn(async move { while server.next_event().await.is_some() {} });
    // The writing half only: what the server sends is never read.
    let (mut sink, _unread) = ws.split();
    let before = rss();
    let flood = async {
        let mut sent = 0usize;
        while sent < 64 << 20 {
            let pings = (0..64).map(|_| Ok(Message::Ping(vec![0xAB; 125].into())));
            if sink
                .send_all(&mut futures_util::stream::iter(pings))
                .await
                .is_err()
            {
                break;
            }
            sent += 64 * 131;
        }
        sent
    };
    let sent = tokio::time::timeout(Duration::from_secs(60), flood)
        .await
        .expect("the flood took over 60 s");
    let grown = rss().saturating_sub(before);
    // The sockets' buffers hold a few MB; the rest must not be kept.
    assert!(
        grown < 24 << 20,
        "{grown} bytes more memory after {sent} bytes of pings"
    );
    serving.abort();
}

/// Clients that read nothing while 60 KB messages go to everyone (each client gets
/// its own copy): each is dropped once `send_queue_bytes` (1 MiB) wait for it, not
/// when `send_queue`'s 8192 messages (491 MB) do.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_read_nothing_cost_the_server_a_bounded_queue() {
    let _measuring = MEASURING.lock().await;
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let mut stuck = Vec::new();
    for _ in 0..4 {
        stuck.push(tokio_tungstenite::connect_async(&url).await.unwrap().0);
        events_until(&mut server, |e| matches!(e, Event::PeerConnected(_))).await;
    }
    let before = rss();
    let mut peak = before;
    let mut refused = Vec::new();
    let big = vec![7u8; 60_000];
    for _ in 0..2000 {
        server.send_bytes(Target::All, big.clone()).unwrap();
        peak = peak.max(rss());
        while let Ok(Some(e)) =
            tokio::time::timeout(Duration::from_millis(1), server.next_event()).await
        {
            if let Event::Refused { peer, reason } = e {
                assert!(reason.contains("its send queue is full"), "{reason}");
                refused.push(peer);
            }
        }
        if refused.len() == stuck.len() {
            break;
        }
    }
    assert_eq!(refused.len(), stuck.len(), "not all dropped: {refused:?}");
    let grown = peak.saturating_sub(before);
    assert!(grown < 16 << 20, "{grown} bytes more memory at the peak");
}

/// A Godot 3 server, its url, and a crate client joined to it with its id.
async fn godot3_server_and_client() -> (Server, String, Client, i32) {
    use godot_bin_multiplayer::{ws::Config, Protocol};
    let config = Config {
        protocol: Protocol::Godot3,
        ..Config::default()
    };
    let mut server = Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let good = Client::connect_with(&url, scene(), Protocol::Godot3)
        .await
        .unwrap();
    let Event::PeerConnected(id) = events_until(&mut server, |_| true).await[0] else {
        panic!()
    };
    (server, url, good, id)
}

/// Godot 3: a client's broadcast that is not a valid packet is refused before the
/// server relays it: the other client never sees it, only that its sender left.
#[tokio::test]
async fn a_godot3_broadcast_is_checked_before_it_is_relayed() {
    use godot_bin_multiplayer::godot3::{WsHeader, WsKind};
    let (mut server, url, mut good, _) = godot3_server_and_client().await;
    let (mut bad, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let Event::PeerConnected(bad_id) = events_until(&mut server, |_| true).await[0] else {
        panic!()
    };
    let garbage = WsHeader {
        kind: WsKind::Payload,
        from: bad_id,
        to: 0,
    }
    .wrap(&[0xFF, 0xFF, 0xFF]);
    bad.send(Message::binary(garbage)).await.unwrap();
    let seen = events_until(&mut server, |e| *e == Event::PeerDisconnected(bad_id)).await;
    assert!(
        matches!(&seen[0], Event::Refused { peer, .. } if *peer == bad_id),
        "{seen:?}"
    );
    server
        .rpc(Target::Peer(good.id()), "Game", "hello", &("after",))
        .unwrap();
    let heard = heard_until_call!(good);
    assert!(
        heard.contains(&Event::PeerDisconnected(bad_id)),
        "{heard:?}"
    );
}

/// A newcomer to a server that holds more clients than the default queue once took
/// (1024 messages) is told of every one of them at once (a SYS add each, as Godot
/// 4's server does), and is not dropped for it: the default queue holds the default
/// `max_clients` twice over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_to_a_crowded_server_hears_of_everyone_and_stays() {
    use godot_bin_multiplayer::ws::Config;
    const CROWD: usize = 1100;
    // A crowd's memory would count against the tests that measure theirs.
    #[cfg(target_os = "linux")]
    let _measuring = MEASURING.lock().await;
    let defaults = Config::default();
    assert!(defaults.send_queue >= 2 * defaults.max_clients);
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let (done_tx, mut done) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        let mut joined = Vec::new();
        let mut refused = Vec::new();
        loop {
            tokio::select! {
                e = server.next_event() => match e.unwrap() {
                    Event::PeerConnected(id) => joined.push(id),
                    Event::Refused { peer, reason } => refused.push((peer, reason)),
                    _ => {}
                },
                _ = &mut done => return (joined, refused),
            }
        }
    });
    let crowd = tokio::time::timeout(Duration::from_secs(60), async {
        let mut crowd = Vec::new();
        for _ in 0..CROWD {
            crowd.push(tokio_tungstenite::connect_async(&url).await.unwrap().0);
        }
        crowd
    })
    .await
    .expect("the crowd took over 60 s to join");
    let (mut newcomer, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(30), async {
        let mut heard = std::collections::BTreeSet::new();
        match newcomer.next().await.unwrap().unwrap() {
            Message::Binary(b) => assert_eq!(b.len(), 4, "the id message"),
            m => panic!("{m:?}"),
        }
        while heard.len() < CROWD {
            match newcomer.next().await.unwrap().unwrap() {
                Message::Binary(b) if b.len() == 6 && b[..2] == [7, 1] => {
                    heard.insert(i32::from_le_bytes(b[2..].try_into().unwrap()));
                }
                m => panic!("{m:?}"),
            }
        }
        heard
    })
    .await
    .expect("the newcomer was not told of everyone");
    done_tx.send(()).unwrap();
    let (joined, refused) = serving.await.unwrap();
    assert!(refused.is_empty(), "{refused:?}");
    assert_eq!(joined.len(), CROWD + 1);
    let crowd_ids: std::collections::BTreeSet<i32> = joined[..CROWD].iter().copied().collect();
    assert_eq!(heard, crowd_ids);
    drop(crowd);
}

/// A server's limits set through its session: a run of SIMPLIFY_PATHs past
/// `cached_paths` (here 3) is a flood, and its sender is dropped.
#[tokio::test]
async fn a_servers_limits_are_set_through_its_session() {
    use godot_bin_multiplayer::Limits;
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    server.session().set_limits(Limits { cached_paths: 3 });
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let Message::Binary(b) = ws.next().await.unwrap().unwrap() else {
        panic!()
    };
    let id = i32::from_le_bytes(b[..].try_into().unwrap());
    events_until(&mut server, |e| *e == Event::PeerConnected(id)).await;
    // The node's first id, then four more in a row: one past the limit.
    for cache_id in 1..=5 {
        let p = Packet::SimplifyPath {
            checksum: scene().names("Game").unwrap().checksum().to_owned(),
            id: cache_id,
            path: "Game".into(),
        };
        ws.send(Message::binary(p.encode().unwrap())).await.unwrap();
    }
    let seen = events_until(&mut server, |e| *e == Event::PeerDisconnected(id)).await;
    assert!(
        matches!(&seen[..], [Event::Refused { peer, reason }, Event::PeerDisconnected(_)]
            if *peer == id && reason.contains("more than 3 SIMPLIFY_PATHs in a row")),
        "{seen:?}"
    );
}

/// A Godot 3 server's own call to every peer, or every peer but one: before the path
/// is confirmed a message per peer by path, after it one whose header names them all
/// (0, or -N), as Godot 3.6's `WebSocketMultiplayerPeer` writes it (`broadcasts.rs`
/// holds the session to the engine), which reaches each client it names. A bare
/// WebSocket client reads the headers; a crate client beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_server_calls_all_with_one_header_target() {
    use godot_bin::Variant;
    use godot_bin_multiplayer::godot3::{self, WsHeader, WsKind};
    use godot_bin_multiplayer::NodeRef;
    let (mut server, url, good, good_id) = godot3_server_and_client().await;
    let (mut bare, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let Event::PeerConnected(bare_id) = events_until(&mut server, |_| true).await[0] else {
        panic!()
    };
    let to_server = move |p: godot3::Packet| {
        let head = WsHeader {
            kind: WsKind::Payload,
            from: bare_id,
            to: 1,
        };
        Message::binary(head.wrap(&p.encode().unwrap()))
    };
    // Each client confirms the path it is given, then calls the server back (so the
    // server knows the confirmation is in), and keeps the calls it gets (the bare
    // client with their header's target) up to the last one meant for it.
    let bare = tokio::spawn(async move {
        let mut calls = Vec::new();
        while calls.last().map(|&(_, n)| n) != Some(5) {
            let msg = tokio::time::timeout(Duration::from_secs(10), bare.next())
                .await
                .expect("the bare client's calls")
                .unwrap()
                .unwrap();
            let (h, body) = WsHeader::split(msg.into_data().as_ref())
                .map(|(h, b)| (h, b.to_vec()))
                .unwrap();
            if h.kind != WsKind::Payload {
                continue;
            }
            assert_eq!(h.from, 1);
            match godot3::Packet::decode(&body).unwrap() {
                godot3::Packet::SimplifyPath { path, .. } => {
                    let call_back = godot3::Packet::Call(godot3::RemoteCall {
                        node: NodeRef::Path("Game".into()),
                        method: "hello".into(),
                        args: vec![Variant::Int(0)],
                    });
                    bare.send(to_server(godot3::Packet::ConfirmPath(path)))
                        .await
                        .unwrap();
                    bare.send(to_server(call_back)).await.unwrap();
                }
                godot3::Packet::Call(c) => {
                    let Variant::Int(n) = c.args[0] else {
                        panic!("{c:?}")
                    };
                    calls.push((h.to, n));
                }
                p => panic!("{p:?}"),
            }
        }
        calls
    });
    let crate_client = answering_client!(good);
    let calls = call_several!(server, good_id, bare_id, bare);
    assert_eq!(calls, [(bare_id, 1), (0, 2), (-good_id, 3), (bare_id, 5)]);
    assert_eq!(crate_client.await.unwrap(), [1, 2, 4]);
}
