//! Who may call an rpc method (`RpcMode`), checked where the call arrives as the
//! engine checks it: a call its mode does not allow is dropped with `Event::Dropped`
//! and its sender kept, before its arguments are read.

mod sessions;

use godot_bin::Variant;
use godot_bin_multiplayer::{
    godot3, Delivery, ErrorKind, Event, NodeRef, Packet, Protocol, RemoteCall, RpcMode, Scene,
    Session, Target, Transmit,
};
use sessions::drain;

fn scene() -> Scene {
    Scene::new()
        .node(
            "Game",
            [
                ("welcome", RpcMode::Authority),
                ("move", RpcMode::AnyPeer),
                ("hit", RpcMode::Authority),
            ],
        )
        .node("Lobby", ["chat"])
}

/// A server with clients 5 and 6, and each client's own session.
fn joined() -> (Session, Vec<Session>) {
    let mut server = Session::server(scene());
    let mut clients: Vec<Session> = [5, 6]
        .into_iter()
        .map(|id| {
            let mut c = Session::client(id, scene());
            c.connect(1);
            server.connect(id);
            c
        })
        .collect();
    // The server's notices of each other.
    for t in drain(&mut server).0 {
        let c = clients.iter_mut().find(|c| c.id() == t.to).unwrap();
        c.receive(1, t.delivery, &t.bytes).unwrap();
    }
    for c in &mut clients {
        drain(c);
    }
    (server, clients)
}

/// What `client` sends for `rpc_id(1, method, 7)` on `node`.
fn call(client: &mut Session, node: &str, method: &str) -> Vec<Transmit> {
    client.rpc(Target::Peer(1), node, method, &(7,)).unwrap();
    drain(client).0
}

fn not_allowed(method: &str, from: i32, authority: i32) -> Event {
    Event::Dropped {
        peer: from,
        reason: format!(
            "rpc \"{method}\" of node \"Game\" is not allowed from peer {from}: its mode is authority, the node's authority {authority} at byte 0"
        ),
    }
}

/// `client` (peer `from`) calls `method` on `node` twice: the first call by path, its
/// confirmation passed back, the second by cache id. The first is received by
/// `receive`, the second by `receive` and by `receive_call`, whose call read in place
/// counts as an `Event::Call` here.
fn calls(
    server: &mut Session,
    client: &mut Session,
    from: i32,
    node: &str,
    method: &str,
) -> Vec<Event> {
    let mut events = Vec::new();
    for t in call(client, node, method) {
        server.receive(from, t.delivery, &t.bytes).unwrap();
    }
    let (confirm, e) = drain(server);
    events.extend(e);
    for t in confirm {
        client.receive(1, t.delivery, &t.bytes).unwrap();
    }
    drain(client);
    let cached = call(client, node, method);
    assert_eq!(cached.len(), 1, "by cache id");
    server
        .receive(from, cached[0].delivery, &cached[0].bytes)
        .unwrap();
    events.extend(drain(server).1);
    match server
        .receive_call(from, cached[0].delivery, &cached[0].bytes)
        .unwrap()
    {
        Some(c) => {
            assert_eq!(c.args.get::<(i64,)>().unwrap(), (7,));
            let (node, method) = (c.node.to_owned(), c.method.to_owned());
            events.push(Event::Call(godot_bin_multiplayer::Call {
                from: c.from,
                node: node.into(),
                method: method.into(),
                args: vec![Variant::Int(7)].into(),
            }));
        }
        None => events.extend(drain(server).1),
    }
    events
}

#[test]
fn a_client_calling_an_authority_method_is_dropped_and_stays() {
    let (mut server, mut clients) = joined();
    let events = calls(&mut server, &mut clients[0], 5, "Game", "welcome");
    assert_eq!(events, vec![not_allowed("welcome", 5, 1); 3]);
    assert!(server.peers().any(|p| p == 5));
    // A method of any peer on the same node runs; so does one of a node without modes.
    for (node, method) in [("Game", "move"), ("Lobby", "chat")] {
        let events = calls(&mut server, &mut clients[1], 6, node, method);
        assert_eq!(events.len(), 3);
        for e in events {
            assert!(
                matches!(&e, Event::Call(c) if c.method.as_str() == method && c.from == 6 && c.node.as_str() == node),
                "{e:?}"
            );
        }
    }
    assert!(server.peers().any(|p| p == 5) && server.peers().any(|p| p == 6));
}

#[test]
fn the_nodes_authority_may_call_its_authority_methods() {
    let (mut server, mut clients) = joined();
    assert_eq!(server.authority("Game"), Some(1));
    server.set_authority("Game", 5).unwrap();
    assert_eq!(server.authority("Game"), Some(5));
    let events = calls(&mut server, &mut clients[0], 5, "Game", "welcome");
    assert_eq!(events.len(), 3);
    for e in events {
        assert!(
            matches!(&e, Event::Call(c) if c.method.as_str() == "welcome"),
            "{e:?}"
        );
    }
    let events = calls(&mut server, &mut clients[1], 6, "Game", "welcome");
    assert_eq!(events, vec![not_allowed("welcome", 6, 5); 3]);
    let e = server.set_authority("Nowhere", 5).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnknownNode(p) if p == "Nowhere"),
        "{e}"
    );
    assert_eq!(server.authority("Nowhere"), None);
}

/// At a client, the server (the authority of every node unless set) may call them;
/// another client, through the relay, may not.
#[test]
fn a_client_takes_authority_calls_from_the_server_alone() {
    let (mut server, mut clients) = joined();
    server
        .rpc(Target::Peer(5), "Game", "welcome", &("hi",))
        .unwrap();
    for t in drain(&mut server).0 {
        clients[0].receive(1, t.delivery, &t.bytes).unwrap();
    }
    let events = drain(&mut clients[0]).1;
    assert!(
        matches!(&events[..], [Event::Call(c)] if c.from == 1 && c.method.as_str() == "welcome"),
        "{events:?}"
    );
    // Client 6 calls client 5's `hit` through the server's relay.
    clients[1]
        .rpc(Target::Peer(5), "Game", "hit", &(3,))
        .unwrap();
    for t in drain(&mut clients[1]).0 {
        server.receive(6, t.delivery, &t.bytes).unwrap();
    }
    for t in drain(&mut server).0 {
        assert_eq!(t.to, 5);
        clients[0].receive(1, t.delivery, &t.bytes).unwrap();
    }
    assert_eq!(drain(&mut clients[0]).1, [not_allowed("hit", 6, 1)]);
    assert!(clients[0].peers().any(|p| p == 6));
}

/// The engine checks the mode before it reads the arguments: a call not allowed is
/// dropped even when its arguments would not read, where an allowed one is refused.
#[test]
fn the_mode_is_checked_before_the_arguments() {
    let names = scene();
    let bad = |method: &str| {
        let id = names.names("Game").unwrap().id(method).unwrap();
        let mut bytes = Packet::Call(RemoteCall {
            node: NodeRef::Path("Game".into()),
            method: id,
            args: vec![Variant::Int(1)],
        })
        .encode()
        .unwrap();
        // [meta][node u32][method u8][argc][arg...]: the argument's type byte made
        // one no Godot version has.
        assert_eq!(bytes[7], 0x02);
        bytes[7] = 0x3F;
        bytes
    };
    let (mut server, _) = joined();
    server.receive(5, Delivery::default(), &bad("hit")).unwrap();
    assert_eq!(drain(&mut server).1, [not_allowed("hit", 5, 1)]);
    let e = server
        .receive(5, Delivery::default(), &bad("move"))
        .unwrap_err();
    assert_eq!(e.offset(), 7, "{e}");
}

/// Godot 3's `master` runs where this side is the node's network master, from anyone;
/// `puppet` runs where it is not, from the master.
#[test]
fn godot3_master_and_puppet_are_checked_by_who_is_master() {
    let scene3 = || {
        Scene::new().node(
            "Game",
            [
                ("to_master", RpcMode::Master),
                ("to_puppet", RpcMode::Puppet),
                ("any", RpcMode::AnyPeer),
            ],
        )
    };
    let mut server = Session::server(scene3()).protocol(Protocol::Godot3);
    let mut client = Session::client(5, scene3()).protocol(Protocol::Godot3);
    server.connect(5);
    client.connect(1);
    drain(&mut server);
    drain(&mut client);
    let send = |from: &mut Session, to: &mut Session, from_id: i32, method: &str| {
        from.rpc(Target::Peer(to.id()), "Game", method, &(1,))
            .unwrap();
        for t in drain(from).0 {
            to.receive(from_id, t.delivery, &t.bytes).unwrap();
        }
        // The CONFIRM_PATH back, so that later calls go by cache id.
        let (confirm, events) = drain(to);
        for t in confirm {
            from.receive(to.id(), t.delivery, &t.bytes).unwrap();
        }
        drain(from);
        events
    };
    let ran = |events: &[Event], method: &str| matches!(events, [Event::Call(c)] if c.method.as_str() == method);
    // The server is master of Game (1, unless set).
    for _ in 0..2 {
        let e = send(&mut client, &mut server, 5, "to_master");
        assert!(ran(&e, "to_master"), "{e:?}");
        let e = send(&mut client, &mut server, 5, "to_puppet");
        assert!(
            matches!(&e[..], [Event::Dropped { peer: 5, reason }] if reason.contains("its mode is puppet, the node's authority 1")),
            "{e:?}"
        );
        let e = send(&mut server, &mut client, 1, "to_puppet");
        assert!(ran(&e, "to_puppet"), "{e:?}");
        let e = send(&mut server, &mut client, 1, "to_master");
        assert!(
            matches!(&e[..], [Event::Dropped { peer: 1, reason }] if reason.contains("its mode is master, the node's authority 1")),
            "{e:?}"
        );
        let e = send(&mut client, &mut server, 5, "any");
        assert!(ran(&e, "any"), "{e:?}");
    }
    assert!(server.peers().any(|p| p == 5));
    // Client 5 made master of Game on both sides: the roles turn.
    server.set_authority("Game", 5).unwrap();
    client.set_authority("Game", 5).unwrap();
    let e = send(&mut server, &mut client, 1, "to_master");
    assert!(ran(&e, "to_master"), "{e:?}");
    let e = send(&mut client, &mut server, 5, "to_puppet");
    assert!(ran(&e, "to_puppet"), "{e:?}");
}

/// Godot 3 as well checks the mode before the arguments (`_process_rpc`): a `puppet`
/// call from a puppet whose argument does not read is dropped, an allowed one refused
/// at its argument.
#[test]
fn godot3_checks_the_mode_before_the_arguments() {
    let scene3 = || {
        Scene::new().node(
            "Game",
            [("to_puppet", RpcMode::Puppet), ("any", RpcMode::AnyPeer)],
        )
    };
    let bad = |method: &str| {
        let mut bytes = godot3::Packet::Call(godot3::RemoteCall {
            node: NodeRef::Path("Game".into()),
            method: method.into(),
            args: vec![Variant::Int(1)],
        })
        .encode()
        .unwrap();
        // [00][node u32][method\0][argc][type u32][value]...: a type no Godot has.
        let at = 5 + method.len() + 2;
        assert_eq!(bytes[at..at + 4], [2, 0, 0, 0]);
        bytes[at..at + 4].copy_from_slice(&[0xFF; 4]);
        (bytes, at)
    };
    let mut server = Session::server(scene3()).protocol(Protocol::Godot3);
    server.connect(5);
    drain(&mut server);
    let (bytes, _) = bad("to_puppet");
    server.receive(5, Delivery::default(), &bytes).unwrap();
    assert!(
        matches!(&drain(&mut server).1[..], [Event::Dropped { peer: 5, reason }] if reason.contains("\"to_puppet\" of node \"Game\" is not allowed from peer 5")),
    );
    let (bytes, at) = bad("any");
    let e = server.receive(5, Delivery::default(), &bytes).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 0, .. }),
        "{e}"
    );
    assert_eq!(e.offset(), at, "{e}");
}

#[test]
fn a_scene_keeps_each_methods_mode() {
    let scene = Scene::new()
        .node("A", ["x", "y"])
        .node("B", [("x", RpcMode::Authority), ("x", RpcMode::Puppet)])
        .node("C", vec![String::from("z")]);
    assert_eq!(scene.mode("A", "x"), Some(RpcMode::AnyPeer));
    assert_eq!(
        scene.mode("B", "x"),
        Some(RpcMode::Puppet),
        "the later mode"
    );
    assert_eq!(scene.mode("C", "z"), Some(RpcMode::AnyPeer));
    assert_eq!((scene.mode("A", "z"), scene.mode("D", "x")), (None, None));
    // Modes do not change ids or checksums: those are the names'.
    assert_eq!(
        scene.names("B").unwrap(),
        Scene::new().node("B", ["x"]).names("B").unwrap()
    );
    // A path given again keeps its later methods and modes.
    let again = scene.node("B", ["x"]);
    assert_eq!(again.mode("B", "x"), Some(RpcMode::AnyPeer));
}
