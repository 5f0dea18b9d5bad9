//! SceneMultiplayer's authentication (`Session::set_auth`): a peer is admitted once
//! both sides completed; until then only auth messages pass.

mod sessions;

use godot_bin_multiplayer::{Delivery, ErrorKind, Event, Scene, Session, Target};
use sessions::drain;

fn scene() -> Scene {
    Scene::new().node("Game", ["hello"])
}

/// The events alone, leaving what is queued to send.
fn events(s: &mut Session) -> Vec<Event> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

/// Everything `from` queued, received by `to` (which knows `from` as `from_id`).
fn pass(from: &mut Session, to: &mut Session, from_id: i32) -> Vec<Event> {
    for t in drain(from).0 {
        assert_eq!(t.to, to.id());
        to.receive(from_id, t.delivery, &t.bytes).unwrap();
    }
    drain(to).1
}

fn authenticating(id: i32) -> Session {
    let mut s = if id == 1 {
        Session::server(scene())
    } else {
        Session::client(id, scene())
    };
    s.set_auth(true);
    s
}

#[test]
fn a_peer_is_admitted_once_both_sides_completed() {
    let mut server = authenticating(1);
    // Client 6 is in already.
    server.connect(6);
    assert_eq!(events(&mut server), [Event::Authenticating(6)]);
    server.complete_auth(6).unwrap();
    let mut c6 = authenticating(6);
    c6.connect(1);
    assert_eq!(events(&mut c6), [Event::Authenticating(1)]);
    assert_eq!(pass(&mut server, &mut c6, 1), []);
    c6.complete_auth(1).unwrap();
    assert_eq!(events(&mut c6), [Event::PeerConnected(1)]);
    assert_eq!(pass(&mut c6, &mut server, 6), [Event::PeerConnected(6)]);

    // Client 5: no notice of it to 6 while it authenticates.
    let mut client = authenticating(5);
    server.connect(5);
    client.connect(1);
    assert_eq!(drain(&mut server), (vec![], vec![Event::Authenticating(5)]));
    assert_eq!(events(&mut client), [Event::Authenticating(1)]);
    assert_eq!(server.authenticating().collect::<Vec<_>>(), [5]);
    assert!(server.peers().all(|p| p != 5));

    client.send_auth(1, b"secret").unwrap();
    assert_eq!(
        pass(&mut client, &mut server, 5),
        [Event::AuthData {
            peer: 5,
            data: b"secret".to_vec()
        }]
    );
    server.send_auth(5, b"welcome").unwrap();
    assert_eq!(
        pass(&mut server, &mut client, 1),
        [Event::AuthData {
            peer: 1,
            data: b"welcome".to_vec()
        }]
    );

    // A call before admission is dropped, the peer kept pending; a call to it
    // cannot be made.
    let call = {
        let mut other = Session::client(5, scene());
        other.connect(1);
        other.rpc(Target::Peer(1), "Game", "hello", &(1,)).unwrap();
        drain(&mut other).0
    };
    for t in &call {
        server.receive(5, t.delivery, &t.bytes).unwrap();
    }
    let dropped = Event::Dropped {
        peer: 5,
        reason: "a packet before the peer was authenticated at byte 0".into(),
    };
    assert_eq!(drain(&mut server).1, vec![dropped; call.len()]);
    let e = server
        .rpc(Target::Peer(5), "Game", "hello", &(1,))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownPeer(5)), "{e}");
    server.rpc(Target::All, "Game", "hello", &(1,)).unwrap();
    assert!(drain(&mut server).0.iter().all(|t| t.to == 6));

    // The client completes first: nothing yet; then the server, and both admit.
    client.complete_auth(1).unwrap();
    assert_eq!(pass(&mut client, &mut server, 5), []);
    server.complete_auth(5).unwrap();
    let (sent, events) = drain(&mut server);
    assert_eq!(events, [Event::PeerConnected(5)]);
    // Its completion to 5, then the peer notices, as at a connect without auth.
    let to: Vec<(i32, Vec<u8>)> = sent.iter().map(|t| (t.to, t.bytes.clone())).collect();
    assert_eq!(
        to,
        [
            (5, vec![7, 0]),
            (6, vec![7, 1, 5, 0, 0, 0]),
            (5, vec![7, 1, 6, 0, 0, 0]),
        ]
    );
    for t in sent.iter().filter(|t| t.to == 5) {
        client.receive(1, t.delivery, &t.bytes).unwrap();
    }
    assert_eq!(
        drain(&mut client).1,
        [Event::PeerConnected(1), Event::PeerConnected(6)]
    );
    assert!(server.authenticating().next().is_none());
    // A completion again after admission is ignored, as the engine ignores it.
    server.receive(5, Delivery::default(), &[7, 0]).unwrap();
    assert_eq!(drain(&mut server), (vec![], vec![]));
}

#[test]
fn auth_is_refused_where_the_engine_refuses_it() {
    let mut server = authenticating(1);
    server.connect(5);
    drain(&mut server);
    let misuse = |r: godot_bin_multiplayer::Result<()>| {
        matches!(r.unwrap_err().kind(), ErrorKind::Unexpected(_))
    };
    assert!(misuse(server.send_auth(5, b"")));
    server.complete_auth(5).unwrap();
    assert!(misuse(server.complete_auth(5)));
    assert!(misuse(server.send_auth(5, b"late")));
    let e = server.send_auth(9, b"x").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownPeer(9)), "{e}");
    let e = server.complete_auth(9).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownPeer(9)), "{e}");
    // A peer that told us it completed gets no more auth data.
    server.connect(6);
    server.receive(6, Delivery::default(), &[7, 0]).unwrap();
    assert!(misuse(server.send_auth(6, b"x")));
    drain(&mut server);
    // A peer gone while authenticating: `peer_authentication_failed`, no
    // disconnection, and what was queued for it is gone.
    server.connect(8);
    server.send_auth(8, b"x").unwrap();
    server.disconnect(8);
    assert_eq!(
        drain(&mut server),
        (vec![], vec![Event::Authenticating(8), Event::AuthFailed(8)])
    );
    // The engine takes the command from the low three bits of the first byte.
    server.connect(7);
    server
        .receive(7, Delivery::default(), &[0x0F, 0, 1])
        .unwrap();
    assert_eq!(
        drain(&mut server).1,
        [
            Event::Authenticating(7),
            Event::AuthData {
                peer: 7,
                data: vec![1]
            }
        ]
    );
}

/// The transports' servers drop a client still authenticating when its
/// `auth_timeout` is up, as the engine does; one that authenticates in time stays.
#[cfg(all(feature = "websocket", feature = "enet"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_drop_a_client_that_does_not_authenticate_in_time() {
    use godot_bin_multiplayer::{enet, ws};
    use std::time::{Duration, Instant};

    let timeout = Duration::from_millis(300);
    let limit = Duration::from_secs(10);

    // WebSocket: a silent client, then one that completes at once.
    let config = ws::Config {
        auth: true,
        auth_timeout: timeout,
        ..ws::Config::default()
    };
    let mut server = ws::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let url = format!("ws://{}", server.local_addr());
    // The server completes every client's authentication but the first.
    let serving = tokio::spawn(async move {
        let mut events = Vec::new();
        while !matches!(events.last(), Some(Event::Call(_))) {
            let e = server.next_event().await.unwrap();
            if let Event::Authenticating(p) = e {
                if events.len() > 1 {
                    server.complete_auth(p).unwrap();
                }
            }
            events.push(e);
        }
        events
    });
    let mut silent = ws::Client::connect_config(&url, scene(), config)
        .await
        .unwrap();
    let dropped = async {
        loop {
            match silent.next_event().await {
                Some(Ok(Event::Authenticating(1))) => {}
                Some(Ok(Event::AuthFailed(1))) | None | Some(Err(_)) => return,
                Some(Ok(e)) => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(limit, dropped)
        .await
        .expect("the silent client is dropped");
    let mut good = ws::Client::connect_config(&url, scene(), config)
        .await
        .unwrap();
    good.complete_auth().await.unwrap();
    let admitted = async {
        loop {
            match good.next_event().await.unwrap().unwrap() {
                Event::PeerConnected(1) => return,
                Event::Authenticating(1) => {}
                e => panic!("unexpected {e:?}"),
            }
        }
    };
    tokio::time::timeout(limit, admitted).await.unwrap();
    // Well past its timeout, the admitted client is still there.
    tokio::time::sleep(timeout * 2).await;
    good.call(
        Target::Peer(1),
        "Game",
        "hello",
        vec![godot_bin::Variant::Int(1)],
    )
    .await
    .unwrap();
    let events = tokio::time::timeout(limit, serving).await.unwrap().unwrap();
    let (a, b) = (silent.id(), good.id());
    assert!(
        matches!(&events[..], [
            Event::Authenticating(a1),
            Event::AuthFailed(a2),
            Event::Authenticating(b1),
            Event::PeerConnected(b2),
            Event::Call(call),
        ] if (*a1, *a2, *b1, *b2, call.from) == (a, a, b, b, b)),
        "{events:?}"
    );

    // ENet: a silent client is dropped the same way.
    let config = enet::Config {
        auth: true,
        auth_timeout: timeout,
        ..enet::Config::default()
    };
    let mut server = enet::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let addr = server.local_addr();
    let client = tokio::spawn(async move {
        let mut c = enet::Client::connect(addr, 77, scene(), config)
            .await
            .unwrap();
        let start = Instant::now();
        loop {
            match c.next_event().await {
                Some(Ok(Event::Authenticating(1))) => {}
                Some(Ok(Event::AuthFailed(1))) | None | Some(Err(_)) => return start.elapsed(),
                Some(Ok(e)) => panic!("unexpected {e:?}"),
            }
        }
    });
    let events = async {
        let mut events = Vec::new();
        while events.len() < 2 {
            events.push(server.next_event().await.unwrap());
        }
        events
    };
    let events = tokio::time::timeout(limit, events).await.unwrap();
    assert_eq!(events, [Event::Authenticating(77), Event::AuthFailed(77)]);
    tokio::time::timeout(limit, client).await.unwrap().unwrap();
}
