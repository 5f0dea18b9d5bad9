//! Hostile WebSocket peers against `ws::Server`, with well-behaved crate clients
//! beside them: a peer that sends a malformed packet, a text message or an oversized
//! one is dropped; the others are told it left and carry on.
#![cfg(feature = "websocket")]

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
    // 1025 cache ids for the one node: one more than a peer may assign.
    let flood: Vec<Message> = (1..=1025)
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
                    "path cache flood" => "the peer's path cache does not fit",
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
