//! A struct's field names as the bytes their keys take on the wire, worked out once
//! per struct type and thread: a key is then matched in three word compares, not a
//! name's length switch and NUL and BOM tests per key (a snapshot of many entities
//! reads the same names thousands of times).

use std::cell::RefCell;
use std::sync::Arc;

use crate::dialect::STRING_ID;
use crate::words::{is_key, le};

/// One field's key: a plain String header and length, then the name (at most 16 bytes)
/// as three words, with the bits each must match. Padding is not compared: the engine
/// ignores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Key {
    /// The field's name, beside its words: a key is found with one lookup.
    pub(crate) name: &'static str,
    words: [u64; 3],
    masks: [u64; 3],
    /// The bytes the key takes; 0 when the name has no such form (longer than 16
    /// bytes, or one the engine never reads back: a NUL in it, a leading BOM).
    size: usize,
}

impl Key {
    fn of(name: &'static str) -> Key {
        let b = name.as_bytes();
        let len = b.len();
        if len > 16 || !is_key(b, b) {
            return Key {
                name,
                words: [0; 3],
                masks: [0; 3],
                size: 0,
            };
        }
        let mut bytes = [0u8; 24];
        let mut mask = [0u8; 24];
        bytes[..4].copy_from_slice(&STRING_ID.to_le_bytes());
        bytes[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        bytes[8..8 + len].copy_from_slice(b);
        mask[..8 + len].fill(0xFF);
        let word = |b: &[u8; 24], i: usize| u64::from_le_bytes(le(&b[8 * i..8 * i + 8]));
        Key {
            name,
            words: [0, 1, 2].map(|i| word(&bytes, i)),
            masks: [0, 1, 2].map(|i| word(&mask, i)),
            size: 8 + ((len + 3) & !3),
        }
    }

    /// Whether the key has a word form: when it has not, a caller matches the name.
    #[inline]
    pub(crate) fn has_words(&self) -> bool {
        self.size != 0
    }

    /// The bytes the key takes when `ahead` (24 bytes from where a key starts) holds it.
    #[inline]
    pub(crate) fn find(&self, ahead: &[u8; 24]) -> Option<usize> {
        let differ = (0..3).fold(0, |d, i| {
            let w = u64::from_le_bytes(le(&ahead[8 * i..8 * i + 8]));
            d | (w ^ self.words[i]) & self.masks[i]
        });
        (differ == 0).then_some(self.size)
    }
}

/// Slots of the per-thread table, by the address of a struct's field list.
const SLOTS: usize = 64;

/// A field list, its keys, and whether its values are read the general way at once,
/// not on trust (`in_order.rs`): a Dictionary of them came out of field order on this
/// thread, or the list names a field twice.
pub(crate) type Known = (&'static [&'static str], Arc<[Key]>, bool);

type Slot = Option<Known>;

const EMPTY: Slot = None;

thread_local! {
    static KEYS: RefCell<[Slot; SLOTS]> = const { RefCell::new([EMPTY; SLOTS]) };
}

/// The keys of `fields`, in order, and whether they are not to be read on trust (they
/// came out of order on this thread, or a name stands twice): from this thread's
/// table, or worked out and put there. A list has two slots to be in (two lists whose
/// addresses share one, say a struct and the struct in it, both stay); a third evicts
/// the first slot's, so the table stays at most `SLOTS` lists. Once the thread's table
/// is gone (a decode in another thread-local's destructor), the keys are worked out
/// each time, and not trusted to come in order.
pub(crate) fn keys(fields: &'static [&'static str]) -> (Arc<[Key]>, bool) {
    let make = || -> Arc<[Key]> { fields.iter().map(|name| Key::of(name)).collect() };
    KEYS.try_with(|table| {
        let mut table = table.borrow_mut();
        let slots = slots(fields);
        for i in slots {
            if let Some((f, keys, untrusted)) = &table[i] {
                if std::ptr::eq(*f, fields) {
                    return (keys.clone(), *untrusted);
                }
            }
        }
        let keys = make();
        // Two fields under one name: the general way's field visitor takes both keys
        // for the first, and says "duplicate field"; never read in order.
        let twice = named_twice(fields);
        let free = slots.into_iter().find(|&i| table[i].is_none());
        table[free.unwrap_or(slots[0])] = Some((fields, keys.clone(), twice));
        (keys, twice)
    })
    .unwrap_or_else(|_| (make(), true))
}

/// Whether a name stands twice in `fields` (serde's derive allows two fields renamed
/// alike).
fn named_twice(fields: &[&str]) -> bool {
    let mut names = fields.to_vec();
    names.sort_unstable();
    names.windows(2).any(|w| w[0] == w[1])
}

/// The two slots `fields` may be in.
fn slots(fields: &'static [&'static str]) -> [usize; 2] {
    let home = (fields.as_ptr() as usize >> 3) % SLOTS;
    [home, (home + 1) % SLOTS]
}

/// Remembers on this thread that a Dictionary of `fields`' keys came out of order.
pub(crate) fn mark_out_of_order(fields: &'static [&'static str]) {
    let _ = KEYS.try_with(|table| {
        let mut table = table.borrow_mut();
        for i in slots(fields) {
            if let Some((f, _, untrusted)) = &mut table[i] {
                if std::ptr::eq(*f, fields) {
                    *untrusted = true;
                }
            }
        }
    });
}

/// Unit tests: every struct type of this thread's table is trusted to come in field
/// order again (but for lists that name a field twice).
#[cfg(test)]
pub(crate) fn trust_again() {
    KEYS.with(|table| {
        for (fields, _, untrusted) in table.borrow_mut().iter_mut().flatten() {
            *untrusted = named_twice(fields);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::BOM;

    /// A plain String key of `name` followed by `tail` (padding and whatever comes next).
    fn wire(name: &[u8], tail: &[u8]) -> Vec<u8> {
        let mut b = STRING_ID.to_le_bytes().to_vec();
        b.extend_from_slice(&(name.len() as u32).to_le_bytes());
        b.extend_from_slice(name);
        b.extend_from_slice(tail);
        b.resize(b.len().max(24), 0xAB);
        b
    }

    #[test]
    fn a_key_matches_exactly_its_own_name_whatever_the_padding() {
        let names = [
            "",
            "a",
            "hp",
            "pos",
            "name",
            "alive",
            "velocity",
            "position_x",
            "sixteen_bytes_ab",
        ];
        for name in names {
            let key = Key::of(name);
            assert!(key.has_words(), "{name:?}");
            let size = 8 + ((name.len() + 3) & !3);
            for pad in [0x00, 0x41, 0xFF] {
                let b = wire(name.as_bytes(), &[pad; 24]);
                assert_eq!(key.find(&le(&b[..24])), Some(size), "{name:?} pad {pad:#x}");
            }
            for other in names.iter().filter(|o| **o != name) {
                let b = wire(other.as_bytes(), &[0; 24]);
                assert_eq!(key.find(&le(&b[..24])), None, "{name:?} read as {other:?}");
            }
            // One bit off anywhere in the header, length or name: not the key.
            let b = wire(name.as_bytes(), &[0; 24]);
            for bit in 0..8 * (8 + name.len()) {
                let mut b = b.clone();
                b[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(key.find(&le(&b[..24])), None, "{name:?} bit {bit}");
            }
        }
    }

    #[test]
    fn names_the_engine_never_reads_back_have_no_word_form() {
        assert_eq!("\u{feff}".as_bytes(), BOM);
        for name in ["a\0b", "\0", "\u{feff}x", "seventeen_bytes_x"] {
            assert!(!Key::of(name).has_words(), "{name:?}");
        }
        // A BOM further in is part of the name.
        assert!(Key::of("x\u{feff}").has_words());
    }

    #[test]
    fn a_field_list_keeps_its_keys_and_a_slot_taken_over_is_worked_out_again() {
        static A: &[&str] = &["id", "name"];
        static B: &[&str] = &["x"];
        let a = keys(A).0;
        assert_eq!(a.len(), 2);
        assert_eq!(a[1], Key::of("name"));
        assert!(Arc::ptr_eq(&a, &keys(A).0));
        assert_eq!(keys(B).0[..], [Key::of("x")]);
        assert_eq!(keys(A).0[..], a[..]);
        // A sub-list at the same address is another list.
        assert_eq!(keys(&A[..1]).0[..], [Key::of("id")]);
        assert_eq!(keys(A).0[..], a[..]);
    }

    #[test]
    fn lists_sharing_a_slot_both_stay_and_a_third_evicts_one() {
        // Field lists 512 bytes apart share a home slot.
        static LISTS: [&str; 3 * SLOTS] = [""; 3 * SLOTS];
        let list = |i: usize| -> &'static [&'static str] { &LISTS[i * SLOTS..i * SLOTS + 1] };
        let (a, b) = (keys(list(0)).0, keys(list(1)).0);
        assert!(Arc::ptr_eq(&a, &keys(list(0)).0));
        assert!(Arc::ptr_eq(&b, &keys(list(1)).0));
        let c = keys(list(2)).0;
        assert!(Arc::ptr_eq(&c, &keys(list(2)).0));
        assert_eq!(keys(list(0)).0[..], a[..]);
    }

    #[test]
    fn a_struct_decodes_in_a_thread_local_destructor() {
        use std::sync::mpsc;
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct P {
            hp: i32,
        }
        // Decodes when its thread ends, after the thread's key table may be gone.
        struct Late(Vec<u8>, mpsc::Sender<crate::Result<P>>);
        impl Drop for Late {
            fn drop(&mut self) {
                let _ = self.1.send(crate::from_slice(&self.0));
            }
        }
        thread_local! {
            static LATE: RefCell<Option<Late>> = const { RefCell::new(None) };
        }
        let bytes = crate::to_vec(&std::collections::BTreeMap::from([("hp", 7)])).unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // `LATE` first, so the key table, set up after it, goes first at exit.
            LATE.with(|l| *l.borrow_mut() = Some(Late(bytes.clone(), tx)));
            assert_eq!(crate::from_slice::<P>(&bytes).unwrap(), P { hp: 7 });
        })
        .join()
        .unwrap();
        assert_eq!(rx.recv().unwrap().unwrap(), P { hp: 7 });
    }
}
