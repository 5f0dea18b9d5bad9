//! How much room `to_vec` gives its output at the start: as much as this thread's
//! recent outputs took. A server that encodes a snapshot a tick then allocates each
//! output once, at about its size, instead of growing it from empty, which copies
//! about as many bytes again as the output has (a third more instructions than the
//! encoding itself, for a 239 KB snapshot under callgrind).

use std::cell::Cell;

/// What an output starts with when nothing better is known (as serde_json's).
const MIN: usize = 128;

thread_local! {
    /// The sizes of this thread's last two `to_vec` outputs.
    static LAST: Cell<[usize; 2]> = const { Cell::new([0, 0]) };
}

/// The room to start an output with: the smaller of the last two outputs, and an
/// eighth more for a value that grew a little since. The smaller of two, so that a
/// thread that alternates large and small values does not allocate a large output
/// for each small one.
#[inline]
pub(crate) fn start() -> usize {
    let last = LAST.try_with(Cell::get).unwrap_or_default();
    let hint = last[0].min(last[1]);
    hint.saturating_add(hint / 8).max(MIN)
}

/// Notes the finished output's size, and gives back the room beyond twice its size
/// (at most what a growing `Vec` would hold spare), which only a smaller value after
/// larger ones leaves.
#[inline]
pub(crate) fn finish(out: &mut Vec<u8>) {
    let len = out.len();
    // Ignored when the thread's locals are gone (in another one's destructor).
    let _ = LAST.try_with(|l| l.set([l.get()[1], len]));
    if out.capacity() > MIN && out.capacity() / 2 > len {
        out.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's start (tests may share one thread: `--test-threads=1`).
    fn fresh() {
        LAST.with(|l| l.set([0, 0]));
    }

    fn encode(len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(start());
        out.resize(len, 0);
        finish(&mut out);
        out
    }

    #[test]
    fn steady_sizes_start_at_their_size() {
        fresh();
        encode(100_000);
        encode(100_000);
        assert_eq!(start(), 112_500);
        let out = encode(104_000);
        assert_eq!(out.capacity(), 112_500, "grew, or was shrunk");
    }

    #[test]
    fn alternating_sizes_start_at_the_smaller() {
        fresh();
        for _ in 0..3 {
            encode(200_000);
            encode(40);
        }
        assert_eq!(start(), MIN);
    }

    #[test]
    fn a_small_value_after_large_ones_keeps_little_room() {
        fresh();
        encode(300_000);
        encode(300_000);
        let out = encode(1000);
        assert_eq!(out.len(), 1000);
        assert!(out.capacity() <= 2000, "{}", out.capacity());
        encode(3);
        assert_eq!(encode(3).capacity(), MIN, "the usual start, not shrunk");
    }
}
