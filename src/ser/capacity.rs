//! How much room `to_vec` gives its output at the start: as much as this thread's
//! recent outputs of the same Rust type took. A server that encodes a snapshot a tick
//! then allocates each output once, at about its size, instead of growing it from 128
//! bytes, which copies about as many bytes again as the output has (12% more
//! instructions for a 239 KB snapshot under callgrind).
//!
//! The sizes are kept per type (16 slots by the type's id, a later type taking a
//! slot over), so small messages of other types in between do not undo a snapshot's
//! hint; and per type the smaller of the last two, so a type whose values alternate
//! large and small does not allocate a large output for each small one. A thread
//! whose outputs all stayed under 4 KiB (growing those copies little) keeps no sizes,
//! and pays one flag read and one compare per output.

use std::any::TypeId;
use std::cell::{Cell, RefCell};
use std::hash::{Hash, Hasher};

/// What an output starts with when nothing better is known (as serde_json's).
pub(crate) const MIN: usize = 128;

/// The most an output starts with: beyond it, growing copies little next to the
/// encoding, and a small value of a type once large never reserves more.
const MAX: usize = 16 << 20;

/// Outputs up to this size are not noted until a larger one was: growing them copies
/// little.
const SMALL: usize = 4 << 10;

const SLOTS: usize = 16;

type Slot = Option<(TypeId, [usize; 2])>;

thread_local! {
    /// Per type: the sizes of its last two `to_vec` outputs on this thread.
    static LAST: RefCell<[Slot; SLOTS]> = const { RefCell::new([None; SLOTS]) };
    /// Whether an output on this thread was ever larger than `SMALL`.
    static NOTED: Cell<bool> = const { Cell::new(false) };
}

/// A type's slot: its id's hash (the id is the compiler's, not an input's).
fn slot(id: TypeId) -> usize {
    /// An FxHash-style fold.
    struct Fold(u64);
    const K: u64 = 0x517c_c1b7_2722_0a95;
    impl Fold {
        fn add(&mut self, n: u64) {
            self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(K);
        }
    }
    impl Hasher for Fold {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            bytes.iter().for_each(|&b| self.add(u64::from(b)));
        }
        fn write_u64(&mut self, n: u64) {
            self.add(n);
        }
        fn write_u128(&mut self, n: u128) {
            self.add(n as u64);
            self.add((n >> 64) as u64);
        }
    }
    let mut h = Fold(0);
    id.hash(&mut h);
    (h.finish() >> 40) as usize % SLOTS
}

/// Where an output of one type starts: its room, and (once sizes are noted on this
/// thread) its type's id and slot.
pub(crate) struct Start {
    pub(crate) capacity: usize,
    entry: Option<(TypeId, usize)>,
}

/// The room to start an output of `T` with: the smaller of its last two outputs, an
/// eighth more for a value that grew a little since, between `MIN` and `MAX`.
#[inline]
pub(crate) fn start<T: ?Sized>() -> Start {
    if !NOTED.try_with(Cell::get).unwrap_or(false) {
        return Start {
            capacity: MIN,
            entry: None,
        };
    }
    let (id, slot) = entry::<T>();
    let hint = LAST
        .try_with(|l| match l.borrow()[slot] {
            Some((t, [a, b])) if t == id => a.min(b),
            _ => 0,
        })
        .unwrap_or(0);
    Start {
        capacity: (hint + hint / 8).clamp(MIN, MAX),
        entry: Some((id, slot)),
    }
}

fn entry<T: ?Sized>() -> (TypeId, usize) {
    let id = typeid::of::<T>();
    (id, slot(id))
}

/// Notes the finished output's size for `T` (once one was larger than `SMALL`), and
/// gives back the room of an output more than half empty (which only a smaller value
/// after larger ones leaves: a growing `Vec` never is).
#[inline]
pub(crate) fn finish<T: ?Sized>(start: Start, out: &mut Vec<u8>) {
    let len = out.len();
    let entry = match start.entry {
        Some(e) => e,
        None if len <= SMALL => return,
        None => entry::<T>(),
    };
    let (id, slot) = entry;
    // Nothing to note once the thread's locals are gone (in another one's destructor).
    let _ = NOTED.try_with(|n| n.set(true));
    let _ = LAST.try_with(|l| {
        let s = &mut l.borrow_mut()[slot];
        *s = match *s {
            Some((t, [_, b])) if t == id => Some((id, [b, len])),
            _ => Some((id, [len, len])),
        };
    });
    if out.capacity() > MIN && out.capacity() / 2 > len {
        out.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Big;
    struct Small;

    /// A thread's start (tests may share one thread: `--test-threads=1`).
    fn fresh() {
        LAST.with(|l| *l.borrow_mut() = [None; SLOTS]);
        NOTED.with(|n| n.set(false));
    }

    fn encode<T>(len: usize) -> Vec<u8> {
        let s = start::<T>();
        let mut out = Vec::with_capacity(s.capacity);
        out.resize(len, 0);
        finish::<T>(s, &mut out);
        out
    }

    #[test]
    fn steady_sizes_start_at_their_size() {
        fresh();
        encode::<Big>(100_000);
        assert_eq!(
            start::<Big>().capacity,
            112_500,
            "the first output counts for both"
        );
        let out = encode::<Big>(104_000);
        assert_eq!(out.capacity(), 112_500, "grew, or was shrunk");
    }

    #[test]
    fn other_types_in_between_keep_the_hint() {
        fresh();
        encode::<Big>(100_000);
        encode::<Small>(10);
        encode::<u8>(3);
        assert_eq!(start::<Big>().capacity, 112_500);
        assert_eq!(start::<Small>().capacity, MIN);
    }

    #[test]
    fn alternating_sizes_start_at_the_smaller() {
        fresh();
        for _ in 0..3 {
            encode::<Big>(200_000);
            encode::<Big>(40);
        }
        assert_eq!(start::<Big>().capacity, MIN);
    }

    #[test]
    fn a_small_value_after_large_ones_keeps_little_room() {
        fresh();
        encode::<Big>(300_000);
        let out = encode::<Big>(1000);
        assert_eq!(out.len(), 1000);
        assert!(out.capacity() <= 2000, "{}", out.capacity());
        encode::<Big>(3);
        assert_eq!(
            encode::<Big>(3).capacity(),
            MIN,
            "the usual start, not shrunk"
        );
    }

    #[test]
    fn small_outputs_alone_note_nothing() {
        fresh();
        for len in [10, SMALL, 3] {
            assert_eq!(encode::<Small>(len).capacity(), len.max(MIN));
        }
        assert!(!NOTED.with(Cell::get));
        assert!(LAST.with(|l| l.borrow().iter().all(Option::is_none)));
        encode::<Big>(SMALL + 1);
        assert_eq!(start::<Big>().capacity, (SMALL + 1) * 9 / 8);
    }

    #[test]
    fn huge_outputs_start_at_most_at_the_cap() {
        fresh();
        encode::<Big>(3 * MAX);
        assert_eq!(start::<Big>().capacity, MAX);
    }

    #[test]
    fn to_vec_keeps_the_hint_per_type() {
        fresh();
        let big = vec![7u32; 50_000];
        crate::to_vec(&big).unwrap();
        crate::to_vec(&big).unwrap();
        let n = crate::to_vec(&big).unwrap().len();
        crate::to_vec(&"ping").unwrap();
        let out = crate::to_vec(&big).unwrap();
        assert_eq!(out.capacity(), n + n / 8, "started at the hint, not grown");
        let small = crate::to_vec(&[1u32; 3]).unwrap();
        assert_eq!(small.capacity(), MIN, "another type's size");
    }
}
