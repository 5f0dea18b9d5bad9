//! A Godot 3 server `godot_bin_multiplayer::Session` with three clients and rpc modes
//! (`master`, `puppet`), fed hostile packets: never panics; a refused peer is gone, a
//! peer whose call is dropped (its mode does not allow it) stays, whether or not its
//! arguments would read; a call's arguments decode; every packet it sends decodes
//! and goes to a connected peer.
//!
//! Input: records of `[op][len][bytes...]`; op's low 2 bits pick the client (2, 3 or
//! 4), op 0xF0.. disconnects or reconnects one instead, 0xE0.. makes the server call,
//! 0xC0.. makes that client the network master of `Game`, 0xD0.. receives the packet
//! with `receive_call3`: its call's arguments, read in place as Variants, must be
//! `Args::to_variants`'s, or fail at the same byte; read as tuples too, one of the
//! types the typed readers read agreeing with `Call::args` on those `Variant`s.
#![no_main]

use godot_bin::{Variant, Vector2, Vector3};
use godot_bin_multiplayer::godot3::Packet;
use godot_bin_multiplayer::{Call, Delivery, Event, Protocol, RpcMode, Scene, Session, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let scene = Scene::new().node(
        "Game",
        [
            ("ping", RpcMode::AnyPeer),
            ("one", RpcMode::Master),
            ("two", RpcMode::Puppet),
            ("three", RpcMode::AnyPeer),
        ],
    );
    let mut s = Session::server(scene).protocol(Protocol::Godot3);
    for p in 2..5 {
        s.connect(p);
    }
    let mut rest = data;
    while let [op, len, tail @ ..] = rest {
        let peer = 2 + i32::from(op & 3) % 3;
        let n = usize::from(*len).min(tail.len());
        let (packet, next) = tail.split_at(n);
        rest = next;
        match op >> 4 {
            0xF if op & 4 == 0 => s.disconnect(peer),
            0xF => s.connect(peer),
            0xC => s.set_authority("Game", peer).unwrap(),
            0xD => match s.receive_call3(peer, Delivery::default(), packet) {
                Ok(Some(call)) => {
                    assert_eq!(call.from, peer);
                    let typed = call.args.get::<Vec<Variant>>();
                    let variants = call.args.to_variants();
                    match (&typed, &variants) {
                        // Exactly (`Debug`): `==` takes a String for a StringName.
                        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
                        (Err(a), Err(b)) => assert_eq!(a.offset(), b.offset()),
                        _ => panic!("in place {typed:?}, as Variants {variants:?}"),
                    }
                    let _ = call.args.get::<(i64, String, Vector3)>();
                    if let Ok(args) = variants {
                        type Typed = (bool, u8, f32, Vector2, i64);
                        let event = Call {
                            from: peer,
                            node: "Game".into(),
                            method: "m".into(),
                            args: args.into(),
                        };
                        let (a, b) = (call.args.get::<Typed>(), event.args::<Typed>());
                        assert_eq!(a.is_ok(), b.is_ok(), "in place {a:?}, as Variants {b:?}");
                        if let (Ok(a), Ok(b)) = (a, b) {
                            assert_eq!(format!("{a:?}"), format!("{b:?}"));
                        }
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    s.refuse(peer, &e.to_string());
                    assert!(s.peers().all(|p| p != peer));
                }
            },
            0xE => {
                let _ = s.rpc(Target::Peer(peer), "Game", "one", &(n,));
                let _ = s.call(
                    Target::All,
                    "Game",
                    "two",
                    vec![Variant::Bool(true), Variant::Int(-300)],
                    Delivery::default(),
                );
            }
            _ => {
                if let Err(e) = s.receive(peer, Delivery::default(), packet) {
                    s.refuse(peer, &e.to_string());
                    assert!(s.peers().all(|p| p != peer));
                }
            }
        }
        while let Some(t) = s.poll_transmit() {
            // A call to all goes once, for the peers its target names (0: all, -N:
            // all but N); one of them at least is connected.
            let named = |p: i32| p == t.to || t.to == 0 || (t.to < 0 && p != -t.to);
            assert!(s.peers().any(named), "to a peer that is gone");
            Packet::decode(&t.bytes).expect("what the session sends decodes");
        }
        while let Some(e) = s.poll_event() {
            match e {
                Event::Call(c) => {
                    assert!(c.from >= 2);
                    // Checked on arrival: they decode, and typed reads do not panic.
                    let args = c.args.to_variants().expect("a call's arguments decode");
                    assert_eq!(args.len(), c.args.len());
                    let _ = c.args.get::<Vec<Variant>>();
                    let _ = c.args::<(i64, String)>();
                }
                Event::Dropped { peer, .. } => assert!(s.peers().any(|p| p == peer)),
                _ => {}
            }
        }
    }
});
