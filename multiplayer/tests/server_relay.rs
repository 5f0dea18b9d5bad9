//! `Session::set_server_relay(false)`, as `SceneMultiplayer.server_relay = false`: the
//! server tells no client of another and relays nothing; a client hears of no other
//! client; a relay or peer notice that comes anyway is dropped and its sender kept.

mod sessions;

use godot_bin_multiplayer::{Delivery, ErrorKind, Event, Packet, Scene, Session, Sys, Target};
use sessions::drain;

fn scene() -> Scene {
    Scene::new().node("Game", ["hello"])
}

fn dropped(peer: i32) -> Event {
    Event::Dropped {
        peer,
        reason: "the server relay is off: no relay or peer notice is taken at byte 1".into(),
    }
}

#[test]
fn a_server_without_relay_announces_and_relays_nothing() {
    let mut server = Session::server(scene());
    assert!(server.server_relay());
    server.set_server_relay(false);
    for id in [5, 6] {
        server.connect(id);
    }
    let (sent, events) = drain(&mut server);
    assert_eq!(sent, [], "no SYS add-peer notices");
    assert_eq!(events, [Event::PeerConnected(5), Event::PeerConnected(6)]);

    // A client with the relay on (a mismatch) reaches for client 6 through the server.
    let mut client = Session::client(5, scene());
    client.connect(1);
    client
        .receive(1, Delivery::default(), &[7, 1, 6, 0, 0, 0])
        .unwrap();
    drain(&mut client);
    client.rpc(Target::Peer(6), "Game", "hello", &(1,)).unwrap();
    let relayed = drain(&mut client).0;
    assert!(relayed.iter().all(|t| t.to == 1 && t.bytes[..2] == [7, 3]));
    for t in &relayed {
        server.receive(5, t.delivery, &t.bytes).unwrap();
    }
    let (sent, events) = drain(&mut server);
    assert_eq!(sent, [], "nothing relayed");
    assert_eq!(events, vec![dropped(5); relayed.len()]);
    assert!(server.peers().any(|p| p == 5));

    server.disconnect(5);
    let (sent, events) = drain(&mut server);
    assert_eq!(sent, [], "no SYS del-peer notice");
    assert_eq!(events, [Event::PeerDisconnected(5)]);
}

#[test]
fn a_client_without_relay_knows_the_server_alone() {
    let mut client = Session::client(5, scene());
    client.set_server_relay(false);
    client.connect(1);
    drain(&mut client);
    let notices = [
        Packet::Sys(Sys::AddPeer(6)),
        Packet::Sys(Sys::DelPeer(6)),
        Packet::Sys(Sys::Relay {
            peer: 6,
            packet: vec![3, 1, 2],
        }),
    ];
    for notice in &notices {
        let bytes = notice.encode().unwrap();
        client.receive(1, Delivery::default(), &bytes).unwrap();
    }
    assert_eq!(drain(&mut client).1, vec![dropped(1); 3]);
    assert_eq!(client.peers().collect::<Vec<_>>(), [1]);
    // A call to everyone goes to the server, straight (no relay wrapper).
    client.rpc(Target::All, "Game", "hello", &(1,)).unwrap();
    let sent = drain(&mut client).0;
    assert!(!sent.is_empty());
    assert!(
        sent.iter().all(|t| t.to == 1 && t.bytes[0] != 7),
        "{sent:?}"
    );
    let e = client
        .rpc(Target::Peer(6), "Game", "hello", &(1,))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownPeer(6)), "{e}");
}
