//! Mutations of packets for the tests that hold two ways of reading a call to each
//! other (`call_in_place3.rs`, `arguments.rs`); needs the including test's `random`
//! module (`tests/common/random.rs`).

use crate::random::Rng;

/// Flips, overwrites (with one of `bytes`, or a word), cuts or drops bytes of `b`
/// from `seed`.
pub fn mutate(b: &mut Vec<u8>, seed: u64, bytes: &[u8]) {
    let mut r = Rng::new(seed);
    for _ in 0..1 + r.below(2) {
        if b.is_empty() {
            return;
        }
        let at = r.below(b.len());
        match r.below(5) {
            0 => b[at] ^= 1 << r.below(8),
            1 => b[at] = r.pick(bytes),
            2 => b.truncate(at),
            3 => drop(b.drain(at..(at + 4).min(b.len()))),
            _ => {
                let w = r.pick(&[0u32, 1, 4, 0x1_0002, 0x7fff_ffff, 0xffff_ffff]);
                let end = (at + 4).min(b.len());
                b[at..end].copy_from_slice(&w.to_le_bytes()[..end - at]);
            }
        }
    }
}
