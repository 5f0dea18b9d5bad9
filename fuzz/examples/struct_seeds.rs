//! Writes the `decode_struct` seeds: each sample `GameState` encoded in every dialect,
//! so the fuzzer starts from inputs that get past the field names. Run by
//! `seeds/make-seeds.sh` as `cargo run --example struct_seeds -- OUT_DIR`.

use godot_bin::{Config, Dialect, Precision};
use godot_bin_fuzz::sample_states;

fn main() {
    let out = std::env::args().nth(1).expect("usage: struct_seeds OUT_DIR");
    let g4 = Config::new().dialect(Dialect::Godot4);
    let configs = [
        ("godot2", Config::new().dialect(Dialect::Godot2)),
        ("godot3", Config::new().dialect(Dialect::Godot3)),
        ("godot4", g4),
        ("godot4-double", g4.precision(Precision::Double)),
    ];
    for (i, state) in sample_states().iter().enumerate() {
        for (name, cfg) in configs {
            match cfg.to_vec(state) {
                Ok(bytes) => std::fs::write(format!("{out}/state{i}-{name}"), bytes).unwrap(),
                // Godot 2 ints are 32-bit: the states with a 64-bit score do not fit.
                Err(e) => eprintln!("state{i}-{name}: skipped ({e})"),
            }
        }
    }
}
