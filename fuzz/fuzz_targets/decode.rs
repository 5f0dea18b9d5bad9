//! Any bytes, every dialect: decoding never panics, and whatever decodes re-encodes
//! and decodes to an equal value.
#![no_main]

use godot_bin::{Config, Dialect, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let dialect = [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4][sel as usize % 3];
    let cfg = Config::new().dialect(dialect).allow_objects(sel & 4 != 0);
    if let Ok((v, used)) = cfg.take_from_slice::<Variant>(bytes) {
        assert!(used <= bytes.len());
        if let Ok(again) = cfg.to_vec(&v) {
            let back: Variant = cfg.from_slice(&again).expect("our own bytes decode");
            assert_eq!(back, v);
        }
    }
    let _ = cfg.from_reader::<_, Variant>(bytes);
});
