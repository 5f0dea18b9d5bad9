//! `godot_bin_multiplayer::godot3::Packet::decode` and `WsHeader::split` on hostile
//! Godot 3 packets: never panic, never allocate beyond a small multiple of the input;
//! whatever decodes encodes, and that decodes to the same packet.
#![no_main]

use godot_bin_multiplayer::godot3::{Packet, WsHeader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Packet::decode(data) {
        let again = p.encode().expect("a decoded packet encodes");
        assert_eq!(Packet::decode(&again).expect("its encoding decodes"), p);
    }
    if let Ok((h, body)) = WsHeader::split(data) {
        assert_eq!(h.wrap(body), data);
    }
});
