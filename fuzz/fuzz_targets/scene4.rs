//! `godot_bin_multiplayer::Packet::decode` on hostile SceneMultiplayer packets (what a
//! client may send a server): never panics, never allocates beyond a small multiple
//! of the input; whatever decodes encodes, and that decodes to the same packet. A call
//! read in place (`CallRef`, its arguments typed) fails or reads exactly as decoding
//! does, at the same byte, and a string borrowed as an owned one.
#![no_main]

use godot_bin::{Variant, Vector3};
use godot_bin_multiplayer::{CallRef, Packet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let decoded = Packet::decode(data);
    if let Ok(p) = &decoded {
        let again = p.encode().expect("a decoded packet encodes");
        assert_eq!(&Packet::decode(&again).expect("its encoding decodes"), p);
    }
    let Ok(Some(call)) = CallRef::decode(data) else {
        return;
    };
    // Typed reads of the usual kinds must not panic either.
    let _ = call.args.get::<(Vector3, Vector3, i64, bool)>();
    // A string borrowed from the packet reads as an owned one does. (Not every text
    // can be borrowed: a NodePath's is made from its names.)
    let owned = call.args.get::<(String, f32, Option<i32>)>();
    if let Ok((b, y, n)) = call.args.get::<(&str, f32, Option<i32>)>() {
        let (a, x, m) = owned.expect("what reads borrowed reads owned");
        assert!(a == b && x.to_bits() == y.to_bits() && m == n);
    }
    let _ = call.args.get::<(&[u8],)>();
    match (decoded, call.args.get::<Vec<Variant>>()) {
        (Ok(Packet::Call(c)), Ok(args)) => assert_eq!(c.args, args),
        (Err(a), Err(b)) => assert_eq!(a.offset(), b.offset(), "{a} / {b}"),
        (a, b) => panic!("decoded {a:?}, in place {b:?}"),
    }
});
