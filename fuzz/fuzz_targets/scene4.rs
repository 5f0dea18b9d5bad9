//! `godot_bin_multiplayer::Packet::decode` on hostile SceneMultiplayer packets (what a
//! client may send a server): never panics, never allocates beyond a small multiple
//! of the input; whatever decodes encodes, and that decodes to the same packet.
#![no_main]

use godot_bin_multiplayer::Packet;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Packet::decode(data) {
        let again = p.encode().expect("a decoded packet encodes");
        assert_eq!(Packet::decode(&again).expect("its encoding decodes"), p);
    }
});
