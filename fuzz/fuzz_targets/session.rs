//! A server `godot_bin_multiplayer::Session` with three clients, fed hostile packets
//! (the path cache, the relay, peers coming and going): never panics; a refused
//! peer is gone, a peer whose call is dropped stays; a call's arguments decode;
//! every packet it sends decodes and goes to a connected peer.
//!
//! Input: records of `[op][len][bytes...]`; op's low 2 bits pick the client
//! (2, 3 or 4), op 0xF0.. disconnects or reconnects one instead, 0xE0.. makes the
//! server call, 0xD0.. receives the packet with `receive_call` (its call's
//! arguments read as Variants and as a tuple, and sent back in an Array by `rpc`),
//! 0xC0.. makes that client the authority of `Game`, whose `two` only its authority
//! may call, 0xB0.. turns the server relay off (bit 2 clear) or on, 0xA0.. turns
//! authentication on (bit 2) or off, sends the packet to that client as auth data
//! and completes its authentication.
#![no_main]

use godot_bin::{Variant, Vector3};
use godot_bin_multiplayer::{Delivery, Event, Packet, RpcMode, Scene, Session, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let scene = Scene::new()
        .node(
            "Game",
            [
                ("ping", RpcMode::AnyPeer),
                ("one", RpcMode::AnyPeer),
                ("two", RpcMode::Authority),
            ],
        )
        .node("Game/Chat", ["say"]);
    let mut s = Session::server(scene);
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
            0xB => s.set_server_relay(op & 4 != 0),
            0xA => {
                s.set_auth(op & 4 != 0);
                let _ = s.send_auth(peer, packet);
                let _ = s.complete_auth(peer);
            }
            0xE => {
                let _ = s.rpc(Target::Peer(peer), "Game", "one", &(n,));
                let _ = s.rpc(Target::All, "Game/Chat", "say", &("hi",));
                let v = Vector3::new(n as f32, -0.0, f32::NAN);
                let _ = s.rpc(Target::Peer(peer), "Game", "two", &(v, true, Some(2.5f32), ()));
            }
            0xD => match s.receive_call(peer, Delivery::default(), packet) {
                Ok(Some(call)) => {
                    assert_eq!(call.from, peer);
                    let back = call.args.to_variants();
                    let _ = call.args.get::<(i64, String, Vector3)>();
                    let _ = call.args.get::<Vec<Variant>>();
                    // Sent back in an Array: `rpc` writes the container itself.
                    if let Ok(args) = back {
                        let _ = s.rpc(Target::Peer(peer), "Game", "one", &(args, 1));
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    s.refuse(peer, &e.to_string());
                    assert!(s.peers().chain(s.authenticating()).all(|p| p != peer));
                }
            },
            _ => {
                if let Err(e) = s.receive(peer, Delivery::default(), packet) {
                    s.refuse(peer, &e.to_string());
                    assert!(s.peers().chain(s.authenticating()).all(|p| p != peer));
                }
            }
        }
        while let Some(t) = s.poll_transmit() {
            assert!(
                s.peers().chain(s.authenticating()).any(|p| p == t.to),
                "to a peer that is gone"
            );
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
                // A call by a forgotten cache id: dropped, its sender kept.
                Event::Dropped { peer, .. } => {
                    assert!(s.peers().chain(s.authenticating()).any(|p| p == peer))
                }
                _ => {}
            }
        }
    }
});
