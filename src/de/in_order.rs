//! A derived struct whose keys come in its fields' order, read as a sequence.
//!
//! A Dictionary read through `visit_map` costs, per key, serde's field visitor (a
//! match on the name's text), an `Option` per field and a duplicate check; through
//! `visit_seq`, as postcard and bincode hand a struct its fields, none of that. The
//! two agree for a struct written by serde's derive when the Dictionary holds exactly
//! its field names in order, which is how Godot's own Dictionaries built by a script
//! and this crate's encoder write a struct. Whether they are in order must be known
//! before the visitor is called (it cannot be called twice), so the entries are
//! looked over first: each key by its word form, each value but the last skipped by
//! its size, and only values whose size their header and length give (not containers,
//! objects or paths: a struct holding one of those in the middle is read as a map).
//! Each byte is looked over at most once more, so the work stays linear.

use serde::de::{self, DeserializeSeed, Visitor};

use super::access::all_read;
use super::keys::Key;
use super::{Deserializer, Read};
use crate::dialect::{Dialect, FLAG_64, TYPE_MASK};
use crate::error::{Error, Result};
use crate::table::{Layout, PoolElem, BY_ID, MAX_IDS, NO_ID, TABLE};
use crate::words::le;

/// Whether `name`, a visitor's `type_name`, is the visitor serde's derive writes for a
/// struct (`__Visitor`, in the `Deserialize` impl, generic over `'de` at least): its
/// `visit_seq` takes the fields in order, as its `visit_map` takes them by name. A
/// hand-written visitor's `visit_seq` may mean something else or be missing, so
/// anything else is read as a map. Should a type's name ever read otherwise (the
/// compiler does not promise its form), every struct is read as a map, as before:
/// slower, never different.
pub(super) fn derived(name: &str) -> bool {
    let Some(open) = name.strip_suffix('>') else {
        return false;
    };
    // The generic arguments' `<`: the one that closes the last `>`.
    let mut depth = 1usize;
    for (i, c) in open.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return open[..i].ends_with("::__Visitor");
                }
            }
            _ => {}
        }
    }
    false
}

/// How a value's size follows from its header, per wire id of a dialect.
#[derive(Clone, Copy)]
enum Flat {
    /// Not from its header alone (containers, objects, paths...): the struct is read
    /// as a map.
    No,
    /// A payload of this many bytes, without the 64-bit flag.
    Fixed(u8),
    /// 4 bytes, 8 with the 64-bit flag (int, float).
    Number,
    /// A length and that many bytes, padded to 4 (String, StringName, PoolByteArray).
    Text,
    /// A count, then length-prefixed padded strings (PoolStringArray).
    Strings,
    /// A count, then elements of this many bytes.
    Items(u8),
}

const fn flat(ty: usize) -> Flat {
    match TABLE[ty].layout {
        Layout::Nil => Flat::Fixed(0),
        Layout::Bool => Flat::Fixed(4),
        Layout::Int | Layout::Float => Flat::Number,
        Layout::String | Layout::StringName | Layout::Pool(PoolElem::Byte) => Flat::Text,
        Layout::Reals(n) | Layout::F32s(n) | Layout::Ints(n) => Flat::Fixed(4 * n as u8),
        Layout::Pool(PoolElem::String) => Flat::Strings,
        Layout::Pool(PoolElem::Int32 | PoolElem::Float32) => Flat::Items(4),
        Layout::Pool(PoolElem::Int64 | PoolElem::Float64) => Flat::Items(8),
        Layout::Pool(PoolElem::Math(t)) => match TABLE[t as usize].layout {
            Layout::Reals(n) | Layout::F32s(n) | Layout::Ints(n) => Flat::Items(4 * n as u8),
            _ => Flat::No,
        },
        _ => Flat::No,
    }
}

const fn flats(dialect: usize) -> [Flat; 256] {
    let mut out = [Flat::No; 256];
    let mut id = 0;
    while id < MAX_IDS {
        if BY_ID[dialect][id] != NO_ID {
            out[id] = flat(BY_ID[dialect][id] as usize);
        }
        id += 1;
    }
    out
}

/// [`Flat`] by wire id (the header's low byte), per dialect.
static FLATS: [[Flat; 256]; 3] = [flats(0), flats(1), flats(2)];

/// Whether `ahead` starts with the entries of a Dictionary whose keys are `keys`, in
/// order and each a plain String (its word form), every value but the last of a size
/// its header gives.
pub(super) fn keys_in_order(ahead: &[u8], keys: &[Key], dialect: Dialect) -> bool {
    let flats = &FLATS[dialect.index()];
    let mut rest = ahead;
    for (i, key) in keys.iter().enumerate() {
        let Some(b) = rest.get(..24) else {
            return false;
        };
        if !key.has_words() || key.find(&le(b)).is_none() {
            return false;
        }
        rest = &rest[key.size()..];
        if i + 1 == keys.len() {
            break;
        }
        match flat_size(rest, flats) {
            Some(size) => rest = &rest[size..],
            None => return false,
        }
    }
    true
}

/// The bytes the value at the start of `b` takes, header included, as the decoder
/// reads it, when its header and length give them and `b` holds them all (and 8 bytes
/// at least: a key follows).
#[inline]
fn flat_size(b: &[u8], flats: &[Flat; 256]) -> Option<usize> {
    let w = u64::from_le_bytes(le(b.get(..8)?));
    let (raw, len) = (w as u32, (w >> 32) as usize);
    // Flags other than the 64-bit one (typed containers, objects) are not flat.
    if raw & !(TYPE_MASK | FLAG_64) != 0 {
        return None;
    }
    let wide = raw & FLAG_64 != 0;
    let padded = |n: usize| (n + 3) & !3;
    let size = 4 + match flats[(raw & TYPE_MASK) as usize] {
        Flat::Number => 4 << u8::from(wide),
        // 64-bit reals and the like are read the general way.
        _ if wide => return None,
        Flat::Fixed(n) => n as usize,
        Flat::Text => 4 + padded(len),
        Flat::Items(n) => 4 + len.checked_mul(n as usize)?,
        Flat::Strings => {
            let mut at = 8;
            for _ in 0..len {
                let n = u32::from_le_bytes(le(b.get(at..at + 4)?)) as usize;
                at = at.checked_add(4 + padded(n))?;
            }
            at - 4
        }
        Flat::No => return None,
    };
    (size <= b.len()).then_some(size)
}

/// The entries of a Dictionary found in field order, handed to a derived struct's
/// `visit_seq` as its fields: each key is stepped over (its bytes were matched), each
/// value read.
struct InOrder<'a, R> {
    de: &'a mut Deserializer<R>,
    keys: &'a [Key],
    next: usize,
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for InOrder<'_, R> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(key) = self.keys.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        self.de.read.take_if(key.size(), |_| true);
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.keys.len() - self.next)
    }
}

/// Reads a struct whose entries [`keys_in_order`] found in order with its visitor's
/// `visit_seq`. Entries it leaves are an error, as in a map.
#[inline]
pub(super) fn read<'de, R: Read<'de>, V: Visitor<'de>>(
    de: &mut Deserializer<R>,
    keys: &[Key],
    visitor: V,
) -> Result<V::Value> {
    #[cfg(test)]
    TAKEN.with(|t| t.set(t.get() + 1));
    let mut access = InOrder { de, keys, next: 0 };
    let v = visitor.visit_seq(&mut access)?;
    all_read(keys.len() - access.next)?;
    Ok(v)
}

#[cfg(test)]
thread_local! {
    /// Unit tests: how many structs this thread read as a sequence.
    static TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Unit tests: how many structs this thread has read as a sequence.
#[cfg(test)]
pub(super) fn taken() -> usize {
    TAKEN.with(|t| t.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Color, Config, PoolByteArray, PoolColorArray, PoolIntArray, PoolRealArray, PoolStringArray,
        PoolVector3Array, Variant, Vector2, Vector3,
    };

    #[test]
    fn derived_takes_the_visitors_serde_derive_writes() {
        // The names `type_name` gives them (rustc 1.75 to today).
        assert!(derived(
            "game::_::<impl serde_core::de::Deserialize<'_> for game::P>::deserialize::__Visitor<'_>"
        ));
        assert!(derived(
            "game::_::<impl serde::de::Deserialize<'_> for game::E<'_>>::deserialize::__Visitor<'_, '_>"
        ));
        assert!(derived(
            "g::_::<impl serde::de::Deserialize<'_> for g::G<T>>::deserialize::__Visitor<'_, alloc::vec::Vec<g::H<u8>>>"
        ));
        // Hand-written visitors, and names that only look alike.
        for name in [
            "serde_core::de::impls::<impl serde_core::de::Deserialize<'_> for core::time::Duration>::deserialize::DurationVisitor",
            "game::Visitor<'_>",
            "game::__Visitor",
            "game::My__Visitor<'_>",
            "game::__Visitor<'_>>",
            "",
        ] {
            assert!(!derived(name), "{name}");
        }
    }

    #[test]
    fn derived_sees_the_visitors_of_derived_structs_through_type_name() {
        // What `deserialize_struct` is handed, by serde's derive and by hand.
        struct Seen(Option<bool>);
        impl<'de> de::Deserializer<'de> for &mut Seen {
            type Error = Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
                Err(de::Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                _: &'static [&'static str],
                _: V,
            ) -> Result<V::Value> {
                self.0 = Some(derived(std::any::type_name::<V>()));
                Err(de::Error::custom("seen"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }
        fn seen<T: for<'de> de::Deserialize<'de>>() -> Option<bool> {
            let mut seen = Seen(None);
            let _ = T::deserialize(&mut seen);
            seen.0
        }
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Plain {
            a: i32,
        }
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Generic<T> {
            a: T,
        }
        assert_eq!(seen::<Plain>(), Some(true));
        assert_eq!(seen::<Generic<Vec<Plain>>>(), Some(true));
        assert_eq!(seen::<std::time::Duration>(), Some(false));
    }

    #[test]
    fn a_flat_value_takes_the_bytes_the_encoder_writes() {
        let values = [
            Variant::Nil,
            Variant::Bool(true),
            Variant::Int(-5),
            Variant::Int(1 << 40),
            Variant::Float(0.5),
            Variant::Float(0.1),
            Variant::from(""),
            Variant::from("abcde"),
            Variant::StringName("name".into()),
            Variant::Vector2(Vector2::new(1.0, 2.0)),
            Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
            Variant::Color(Color::new(1.0, 0.5, 0.25, 1.0)),
            Variant::PoolByteArray(PoolByteArray(vec![1, 2, 3, 4, 5])),
            Variant::PoolIntArray(PoolIntArray(vec![1, -2, 3])),
            Variant::PoolRealArray(PoolRealArray(vec![1.5; 3])),
            Variant::PoolStringArray(PoolStringArray(vec!["a".into(), "".into(), "xyzzy".into()])),
            Variant::PoolVector3Array(PoolVector3Array(vec![Vector3::new(1.0, 2.0, 3.0); 2])),
            Variant::PoolColorArray(PoolColorArray(vec![Color::new(1.0, 0.5, 0.25, 1.0)])),
        ];
        let mut sized = 0;
        for dialect in Dialect::ALL {
            let flats = &FLATS[dialect.index()];
            for v in &values {
                let Ok(mut bytes) = Config::new().dialect(dialect).to_vec(v) else {
                    continue;
                };
                let len = bytes.len();
                // What follows: the next key.
                bytes.extend_from_slice(&[4, 0, 0, 0, 1, 0, 0, 0]);
                if let Some(size) = flat_size(&bytes, flats) {
                    assert_eq!(size, len, "{dialect:?} {v:?}");
                    sized += 1;
                }
                // Cut short, it is not flat.
                assert_eq!(
                    flat_size(&bytes[..len - 1], flats),
                    None,
                    "{dialect:?} {v:?}"
                );
            }
            // Containers and paths are not.
            for v in [
                Variant::Array(vec![]),
                Variant::Dictionary(Default::default()),
                Variant::NodePath("a/b".into()),
            ] {
                let mut bytes = Config::new().dialect(dialect).to_vec(&v).unwrap();
                bytes.extend_from_slice(&[0; 8]);
                assert_eq!(flat_size(&bytes, flats), None, "{dialect:?} {v:?}");
            }
        }
        // Every value above in Godot 3 and 4 (StringName and 64-bit values not in 2).
        assert!(sized >= 2 * values.len() + 10, "{sized}");
    }
}
