//! What a review of the package found, each fixed and kept fixed: sending and reading
//! Godot 4 argument types, another client's relayed packet at a client, a client that
//! loses the server, arguments at the depth limit, empty RAW packets, no arguments as
//! `()`, Godot 3's WebSocket header against the client's message limit, and a
//! client's messages up to that limit.

use godot_bin::{StringName, Variant, Vector2i};
use godot_bin_multiplayer::{
    Call, Delivery, ErrorKind, Event, NodeRef, Packet, Protocol, RemoteCall, Scene, Session, Sys,
    Target, SERVER,
};

fn scene() -> Scene {
    Scene::new().node("Game", ["m"])
}

fn events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

fn call_bytes(node: &str, args: Vec<Variant>) -> Vec<u8> {
    Packet::Call(RemoteCall {
        node: NodeRef::Path(node.into()),
        method: 0,
        args,
    })
    .encode()
    .unwrap()
}

#[test]
fn rpc_sends_godot_4_types_in_godot_4_only() {
    let mut s = Session::server(scene());
    s.connect(7);
    events(&mut s);
    let sent = (Vector2i::new(1, -2), StringName("x".into()));
    s.rpc(Target::Peer(7), "Game", "m", &sent).unwrap();
    // SIMPLIFY_PATH first, then the call by path.
    let out: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit())
        .map(|t| Packet::decode(&t.bytes).unwrap())
        .collect();
    let [Packet::SimplifyPath { .. }, Packet::Call(call)] = &out[..] else {
        panic!("{out:?}")
    };
    assert_eq!(
        call.args,
        [
            Variant::Vector2i(Vector2i::new(1, -2)),
            Variant::StringName(StringName("x".into()))
        ]
    );

    let mut s3 = Session::server(scene()).protocol(Protocol::Godot3);
    s3.connect(7);
    let e = s3.rpc(Target::Peer(7), "Game", "m", &sent).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 0, .. }),
        "{e}"
    );
}

#[test]
fn another_clients_refused_packet_costs_only_that_packet() {
    let mut c = Session::client(5, scene());
    c.connect(SERVER);
    c.receive(
        SERVER,
        Delivery::default(),
        &Packet::Sys(Sys::AddPeer(9)).encode().unwrap(),
    )
    .unwrap();
    events(&mut c);
    // A node this scene lacks, from a known peer; any call from an unknown one.
    for (peer, node) in [(9, "Lobby"), (12, "Game")] {
        let relay = Packet::Sys(Sys::Relay {
            peer,
            packet: call_bytes(node, vec![]),
        });
        c.receive(SERVER, Delivery::default(), &relay.encode().unwrap())
            .unwrap();
        match &events(&mut c)[..] {
            [Event::Dropped { peer: p, reason }] => {
                assert_eq!(*p, peer);
                assert!(!reason.is_empty());
            }
            e => panic!("{e:?}"),
        }
    }
    // The server's own calls still arrive.
    c.receive(
        SERVER,
        Delivery::default(),
        &call_bytes("Game", vec![Variant::Int(3)]),
    )
    .unwrap();
    assert!(matches!(&events(&mut c)[..], [Event::Call(c)] if c.from == SERVER));

    // Godot 3 relays in the transport: the packet comes from the other client.
    let mut c3 = Session::client(5, scene()).protocol(Protocol::Godot3);
    c3.connect(SERVER);
    c3.connect(9);
    events(&mut c3);
    c3.receive(9, Delivery::default(), &[0xFF]).unwrap();
    assert!(matches!(
        &events(&mut c3)[..],
        [Event::Dropped { peer: 9, .. }]
    ));
    // From the server, the same packet is an error (the transport drops the server).
    assert!(c3.receive(SERVER, Delivery::default(), &[0xFF]).is_err());
}

#[test]
fn a_client_that_loses_the_server_loses_every_peer() {
    let mut c = Session::client(5, scene());
    c.connect(SERVER);
    let add9 = Packet::Sys(Sys::AddPeer(9)).encode().unwrap();
    c.receive(SERVER, Delivery::default(), &add9).unwrap();
    c.rpc(Target::Peer(9), "Game", "m", &()).unwrap();
    events(&mut c);
    c.disconnect(SERVER);
    assert_eq!(
        events(&mut c),
        [Event::PeerDisconnected(9), Event::PeerDisconnected(SERVER)]
    );
    assert_eq!(c.peers().count(), 0);
    // What waited for the server went with it.
    assert!(c.poll_transmit().is_none());
    // Back again: peer 9 is new, and the first call to it goes by path.
    c.connect(SERVER);
    c.receive(SERVER, Delivery::default(), &add9).unwrap();
    assert_eq!(
        events(&mut c),
        [Event::PeerConnected(SERVER), Event::PeerConnected(9)]
    );
    c.rpc(Target::Peer(9), "Game", "m", &()).unwrap();
    let relayed: Vec<Packet> = std::iter::from_fn(|| c.poll_transmit())
        .map(|t| match Packet::decode(&t.bytes).unwrap() {
            Packet::Sys(Sys::Relay { peer: 9, packet }) => Packet::decode(&packet).unwrap(),
            p => panic!("{p:?}"),
        })
        .collect();
    assert!(
        matches!(
            &relayed[..],
            [
                Packet::SimplifyPath { .. },
                Packet::Call(RemoteCall {
                    node: NodeRef::Path(_),
                    ..
                })
            ]
        ),
        "{relayed:?}"
    );
}

#[test]
fn arguments_the_decoder_takes_are_read_as_rust_values() {
    // One argument nested as deep as the decoder allows.
    let mut arg = Variant::Nil;
    for _ in 0..godot_bin::DEFAULT_MAX_DEPTH {
        arg = Variant::Array(vec![arg]);
    }
    let bytes = call_bytes("Game", vec![arg.clone()]);
    let Packet::Call(decoded) = Packet::decode(&bytes).unwrap() else {
        unreachable!()
    };
    let call = Call {
        from: 2,
        node: "Game".into(),
        method: "m".into(),
        args: decoded.args.into(),
    };
    let (back,): (Variant,) = call.args().unwrap();
    assert_eq!(back, arg);

    // No arguments, as `rpc(.., &())` sends them: `()` and an empty list alike.
    let none = Call {
        args: Vec::new().into(),
        ..call
    };
    none.args::<()>().unwrap();
    assert_eq!(none.args::<Vec<i64>>().unwrap(), Vec::<i64>::new());
    let e = none.args::<(i64,)>().unwrap_err();
    assert_eq!(e.offset(), None);
}

#[test]
fn raw_packets_hold_a_byte_at_least() {
    // The engines' `_process_raw` refuses a packet under two bytes.
    let e = Packet::decode(&[0x03]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Truncated("the raw bytes")),
        "{e}"
    );
    assert_eq!(e.offset(), 1);
    assert!(Packet::Raw(vec![]).encode().is_err());
    assert_eq!(Packet::decode(&[0x03, 7]).unwrap(), Packet::Raw(vec![7]));
    let e = godot_bin_multiplayer::godot3::Packet::decode(&[0x04]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Truncated("the raw bytes")),
        "{e}"
    );

    let mut s = Session::server(scene());
    s.connect(7);
    assert!(s.receive(7, Delivery::default(), &[0x03]).is_err());
    assert!(s
        .send_bytes(Target::Peer(7), vec![], Delivery::default())
        .is_err());
}

#[cfg(feature = "websocket")]
#[tokio::test]
async fn a_godot_3_message_fits_the_client_buffer_with_its_header() {
    use godot_bin_multiplayer::ws::{self, Client, Server};
    use std::time::Duration;

    let cfg = ws::Config {
        protocol: Protocol::Godot3,
        ..ws::Config::default()
    };
    let limit = cfg.max_message;
    let mut server = Server::bind_with("127.0.0.1:0", Scene::new(), cfg)
        .await
        .unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let client = tokio::spawn(async move {
        let mut c = Client::connect_with(&url, Scene::new(), Protocol::Godot3)
            .await
            .unwrap();
        loop {
            match c.next_event().await {
                Some(Ok(Event::Bytes { bytes, .. })) => return bytes.len(),
                Some(Ok(_)) => {}
                e => panic!("{e:?}"),
            }
        }
    });
    let run = async {
        loop {
            if let Some(Event::PeerConnected(id)) = server.next_event().await {
                // 9 header bytes and the RAW command byte come on top.
                let over = server.send_bytes(Target::Peer(id), vec![7; limit - 9]);
                assert!(
                    matches!(over, Err(ws::Error::TooLarge(n, l)) if n == limit + 1 && l == limit),
                    "{over:?}"
                );
                server
                    .send_bytes(Target::Peer(id), vec![7; limit - 10])
                    .unwrap();
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), client)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, limit - 10);
    drop(server);
}

#[cfg(feature = "websocket")]
#[tokio::test]
async fn a_client_does_not_send_what_the_server_cannot_take() {
    use godot_bin_multiplayer::ws::{self, Client, Server};
    use std::time::Duration;

    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let mut c = Client::connect(&url, scene()).await.unwrap();
    let big = "x".repeat(70_000);
    let e = c
        .rpc(Target::Peer(SERVER), "Game", "m", &(big,))
        .await
        .unwrap_err();
    assert!(
        matches!(e, ws::Error::TooLarge(n, 65535) if n > 70_000),
        "{e}"
    );
    c.rpc(Target::Peer(SERVER), "Game", "m", &("small",))
        .await
        .unwrap();
    let run = async {
        loop {
            match server.next_event().await.unwrap() {
                Event::Call(call) => return call.args::<(String,)>().unwrap().0,
                Event::PeerConnected(_) => {}
                e => panic!("{e:?}"),
            }
        }
    };
    let got = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap();
    assert_eq!(got, "small");
}

/// A client's messages up to the limit go out whole: tungstenite's write buffer once
/// refused every message over 16 KiB (`WriteBufferFull`), and lost it.
#[cfg(feature = "websocket")]
#[tokio::test]
async fn a_client_sends_messages_as_large_as_the_server_takes() {
    use godot_bin_multiplayer::ws::{self, Client, Server};
    use std::time::Duration;

    let limit = ws::Config::default().max_message;
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let url = format!("ws://127.0.0.1:{}", server.local_addr().port());
    let client = tokio::spawn(async move {
        let mut c = Client::connect(&url, scene()).await.unwrap();
        let big = "x".repeat(60_000);
        c.rpc(Target::Peer(SERVER), "Game", "m", &(big,))
            .await
            .unwrap();
        // The RAW command byte comes on top: `limit` bytes in all.
        c.session()
            .send_bytes(
                Target::Peer(SERVER),
                vec![7; limit - 1],
                Delivery::default(),
            )
            .unwrap();
        // Sent by the next event's wait, which lasts until the server lets go.
        while let Some(Ok(_)) = c.next_event().await {}
    });
    let run = async {
        let mut got = Vec::new();
        while got.len() < 2 {
            match server.next_event().await.unwrap() {
                Event::Call(call) => got.push(call.args::<(String,)>().unwrap().0.len()),
                Event::Bytes { bytes, .. } => got.push(bytes.len()),
                Event::PeerConnected(_) => {}
                e => panic!("{e:?}"),
            }
        }
        got
    };
    let got = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap();
    assert_eq!(got, [60_000, limit - 1]);
    drop(server);
    tokio::time::timeout(Duration::from_secs(10), client)
        .await
        .unwrap()
        .unwrap();
}
