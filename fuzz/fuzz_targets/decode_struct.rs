//! A derived game-state struct from any bytes, in every dialect: the typed path
//! (serde derive driving the deserializer: field names, enums, options, borrowed
//! strings, `with`-modules) rather than `Variant`'s self-describing one. Decoding must
//! never panic, and a decoded state must encode and decode back to the same state.
//!
//! Input: the value bytes alone (every dialect is tried on each input).
#![no_main]

use godot_bin::{Config, Dialect, Precision};
use godot_bin_fuzz::{hex, reencode_allowed, GameState};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let g4 = Config::new().dialect(Dialect::Godot4);
    for cfg in [
        Config::new().dialect(Dialect::Godot2),
        Config::new().dialect(Dialect::Godot3),
        g4,
        g4.precision(Precision::Double),
    ] {
        let Ok(state) = cfg.from_slice::<GameState>(bytes) else { continue };
        // Same rule as `decode`: writing back what was read must work, unless the error
        // is an accepted unrepresentable case (godot_bin_fuzz::UNREPRESENTABLE).
        let first = match cfg.to_vec(&state) {
            Ok(first) => first,
            Err(e) if reencode_allowed(&e) => continue,
            Err(e) => panic!("decoded state does not encode: {e}\n  {state:?}\n  input: {}", hex(bytes)),
        };
        let back: GameState = cfg
            .from_slice(&first)
            .unwrap_or_else(|e| panic!("encoded state does not decode: {e}\n  bytes: {}", hex(&first)));
        // Floats may be NaN, so `==` on the states is no test; the map's order is
        // HashMap's own (random per instance), so the bytes are no test for it either.
        // Compare the map with `==` and everything else by its encoding.
        assert_eq!(back.stats, state.stats, "map changed");
        let (mut a, mut b) = (state.clone(), back.clone());
        a.stats.clear();
        b.stats.clear();
        assert_eq!(
            hex(&cfg.to_vec(&a).unwrap()),
            hex(&cfg.to_vec(&b).unwrap()),
            "state changed in a round trip; input {}",
            hex(bytes)
        );
    }
});
