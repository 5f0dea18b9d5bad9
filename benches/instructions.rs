//! One operation on the world snapshot, repeated, for counting instructions under
//! callgrind (`scripts/count-instructions.sh`), which, unlike this machine's timings,
//! do not move from run to run.
//!
//! `<bench binary> MODE N` runs MODE N times: `encode` (`to_vec`, `to_allocvec`),
//! `encode_into` (into a reused buffer), `decode`, `borrowed` (decode with `&str`),
//! `variant` (decode to `Variant`), each for `godot_bin` and `postcard`
//! (`godot_bin/encode`, `postcard/decode`, ...). Run with no mode (as `cargo bench`
//! does), it does each once and says how it is meant to be used.

use std::hint::black_box;

use godot_bin::{PoolStringArray, Quat, Vector3};
use serde::{Deserialize, Serialize};

include!("common/world_data.rs");

const MODES: [&str; 10] = [
    "godot_bin/encode",
    "postcard/encode",
    "godot_bin/encode_into",
    "postcard/encode_into",
    "godot_bin/decode",
    "postcard/decode",
    "godot_bin/borrowed",
    "postcard/borrowed",
    "godot_bin/variant",
    "godot_bin/to_variant",
];

fn run(mode: &str, w: &World, g: &[u8], p: &[u8], buf: &mut Vec<u8>) {
    match mode {
        "godot_bin/encode_into" => godot_bin_encode_into(black_box(w), buf),
        "postcard/encode_into" => postcard_encode_into(black_box(w), buf),
        "godot_bin/encode" => drop(black_box(godot_bin_encode(black_box(w)))),
        "postcard/encode" => drop(black_box(postcard_encode(black_box(w)))),
        "godot_bin/decode" => drop(black_box(godot_bin_decode(black_box(g)))),
        "postcard/decode" => drop(black_box(postcard_decode(black_box(p)))),
        "godot_bin/borrowed" => godot_bin_borrowed(black_box(g)),
        "postcard/borrowed" => postcard_borrowed(black_box(p)),
        "godot_bin/variant" => drop(black_box(godot_bin_variant(black_box(g)))),
        "godot_bin/to_variant" => {
            // A movement update's RPC arguments.
            let (v1, v2) = (Vector3::new(12.5, 0.0, -3.25), Vector3::new(1.0, 0.0, 0.5));
            drop(black_box(godot_bin_to_variant(black_box(&(
                v1, v2, 1_234_567, true,
            )))))
        }
        _ => unreachable!(),
    }
}

// One function per operation, out of line: each compiles as it would in a program
// that calls it, not folded into this loop.
#[inline(never)]
fn godot_bin_encode(w: &World) -> Vec<u8> {
    godot_bin::to_vec(w).unwrap()
}
#[inline(never)]
fn postcard_encode(w: &World) -> Vec<u8> {
    postcard::to_allocvec(w).unwrap()
}
// Into a buffer kept from the run before: the encoder alone, without the allocator's
// growing of the output (whose copies depend on where the heap stands).
#[inline(never)]
fn godot_bin_encode_into(w: &World, buf: &mut Vec<u8>) {
    buf.clear();
    godot_bin::to_vec_into(w, buf).unwrap();
}
#[inline(never)]
fn postcard_encode_into(w: &World, buf: &mut Vec<u8>) {
    buf.clear();
    *buf = postcard::to_extend(w, std::mem::take(buf)).unwrap();
}
#[inline(never)]
fn godot_bin_decode(g: &[u8]) -> World {
    godot_bin::from_slice(g).unwrap()
}
#[inline(never)]
fn postcard_decode(p: &[u8]) -> World {
    postcard::from_bytes(p).unwrap()
}
#[inline(never)]
fn godot_bin_borrowed(g: &[u8]) {
    black_box(&godot_bin::from_slice::<WorldRef>(g).unwrap());
}
#[inline(never)]
fn postcard_borrowed(p: &[u8]) {
    black_box(&postcard::from_bytes::<WorldRef>(p).unwrap());
}
#[inline(never)]
fn godot_bin_variant(g: &[u8]) -> godot_bin::Variant {
    godot_bin::from_slice(g).unwrap()
}

#[inline(never)]
fn godot_bin_to_variant(args: &(Vector3, Vector3, i64, bool)) -> godot_bin::Variant {
    godot_bin::Config::new().to_variant(args).unwrap()
}

fn main() {
    let w = world();
    let g = godot_bin::to_vec(&w).unwrap();
    let p = postcard::to_allocvec(&w).unwrap();
    assert!(same(&godot_bin::from_slice(&g).unwrap(), &w));
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    match (args.first(), args.get(1).map(|n| n.parse::<usize>())) {
        (Some(mode), Some(Ok(n))) if MODES.contains(&mode.as_str()) => {
            let mut buf = Vec::new();
            for _ in 0..n {
                run(mode, &w, &g, &p, &mut buf);
            }
        }
        (None, None) => {
            for mode in MODES {
                run(mode, &w, &g, &p, &mut Vec::new());
            }
            println!("instructions: run under callgrind by scripts/count-instructions.sh");
        }
        _ => {
            eprintln!("usage: instructions MODE N (MODE: {})", MODES.join(", "));
            std::process::exit(2);
        }
    }
}
