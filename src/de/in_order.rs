//! A derived struct whose keys come in its fields' order, read as a sequence, on
//! trust.
//!
//! A Dictionary read through `visit_map` costs, per key, serde's field visitor (a
//! match on the name's text), an `Option` per field and a duplicate check; through
//! `visit_seq`, as postcard and bincode hand a struct its fields, none of that. The
//! two agree for a struct written by serde's derive when the Dictionary holds exactly
//! its field names in order, which is how Godot's own Dictionaries built by a script
//! and this crate's encoder write a struct. Whether they are in order is known only as
//! the keys are read, after the visitor took the first fields, and a visitor cannot be
//! called twice: so only a decode that can start over takes this way (`Config::
//! from_slice` and the entry points on it, which own the whole `T::deserialize`, and
//! callers of `Deserializer::on_trust`). A key out of order stops it with
//! `Deserializer::retry` set, and the caller reads the whole value again the general
//! way; the struct type is remembered on the thread (`keys.rs`), so its next values go
//! the general way at once. Every key is checked before its value is read, a struct
//! that leaves entries (serde's field list holds aliases too) gives up, and so does any
//! error met on trust (a field read in an alias's place meets another field's value):
//! a value read on trust is the value the general way gives, and an error is the
//! general way's, read again.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

use super::keys::{self, Key};
use super::{Deserializer, Read, SliceRead};
use crate::config::Config;
use crate::error::{Error, ErrorKind, Result};

/// Whether `visitor`, of type name `name`, is the visitor serde's derive writes for a
/// struct or a struct variant: named `__Visitor`, generic over `'de` at least, and
/// declared in an impl's `deserialize` (a struct's) or `visit_enum` (a struct
/// variant's), and expecting "struct ..." (the derive's visitor of an
/// adjacently tagged enum is also a `__Visitor` handed to `deserialize_struct`, but
/// its `visit_seq` reads the tag otherwise than its `visit_map`). Its `visit_seq` takes
/// the fields in order, as its `visit_map` takes them by name. A hand-written
/// visitor's `visit_seq` may mean something else, so anything else is read as a map.
/// Should a type's name ever read otherwise (the compiler does not promise its form),
/// every struct is read as a map, as before: slower, never different.
pub(super) fn derived<'de, V: Visitor<'de>>(name: &str, visitor: &V) -> bool {
    derived_name(name) && expects_a_struct(visitor)
}

/// A visitor type's name (its address) and whether [`derived`] holds for it.
type Known = Cell<(usize, bool)>;

// Only to fill the array below (inline `const` blocks in array repeats need Rust 1.79).
#[allow(clippy::declare_interior_mutable_const)]
const UNKNOWN: Known = Cell::new((0, false));

thread_local! {
    /// [`derived`] of a few visitor types at a time: a small message is read by a new
    /// deserializer, and working it out again (the name read backwards, the visitor's
    /// `expecting` written out) took about 200 instructions of the 10 thousand that a
    /// 10-entity state RPC's arguments take.
    static KNOWN: [Known; 16] = const { [UNKNOWN; 16] };
}

/// [`derived`] of a visitor of type name `name`, remembered on this thread by the
/// name's address (one type has one name; a slot another type takes is worked out
/// again).
pub(super) fn derived_known<'de, V: Visitor<'de>>(name: &'static str, visitor: &V) -> bool {
    let key = name.as_ptr() as usize;
    KNOWN
        .try_with(|known| {
            let slot = &known[(key >> 4) % known.len()];
            match slot.get() {
                (k, d) if k == key => d,
                _ => {
                    let d = derived(name, visitor);
                    slot.set((key, d));
                    d
                }
            }
        })
        .unwrap_or_else(|_| derived(name, visitor))
}

/// Whether a visitor's type name is that of serde's derive.
fn derived_name(name: &str) -> bool {
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
                    let path = &open[..i];
                    return path.ends_with(">::deserialize::__Visitor")
                        || path.ends_with(">::visit_enum::__Visitor");
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether `visitor` says it expects "struct ..." (the derive's words for a struct
/// and for a struct variant), read into a few bytes without allocating.
fn expects_a_struct<'de, V: Visitor<'de>>(visitor: &V) -> bool {
    const WORD: &[u8] = b"struct ";
    struct Start {
        bytes: [u8; 7],
        len: usize,
    }
    impl fmt::Write for Start {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let n = s.len().min(WORD.len() - self.len);
            self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
            Ok(())
        }
    }
    let mut start = Start {
        bytes: [0; 7],
        len: 0,
    };
    let _ = fmt::write(&mut start, format_args!("{}", visitor as &dyn de::Expected));
    start.bytes[..start.len] == *WORD
}

/// The entries of a Dictionary of exactly as many entries as `keys`, handed to a
/// derived struct's `visit_seq` as its fields: each key is checked to be the next
/// field's before its value is read.
struct InOrder<'a, R> {
    de: &'a mut Deserializer<R>,
    fields: &'static [&'static str],
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
        let Some(size) = self.de.struct_key(key) else {
            return Err(self.de.start_over(self.fields));
        };
        self.next += 1;
        self.de.read.take_if(size, |_| true);
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.keys.len() - self.next)
    }
}

/// Reads a struct of `fields` (whose keys are `keys`) on trust with its visitor's
/// `visit_seq`. A key out of order, a struct that leaves entries (serde's field list
/// holds a field's aliases too) and any error give up: the caller reads the value
/// again the general way.
#[inline]
pub(super) fn read<'de, R: Read<'de>, V: Visitor<'de>>(
    de: &mut Deserializer<R>,
    fields: &'static [&'static str],
    keys: &[Key],
    visitor: V,
) -> Result<V::Value> {
    #[cfg(test)]
    TAKEN.with(|t| t.set(t.get() + 1));
    let mut access = InOrder {
        de,
        fields,
        keys,
        next: 0,
    };
    match visitor.visit_seq(&mut access) {
        Ok(v) if access.next == keys.len() => Ok(v),
        Ok(_) => Err(access.de.start_over(fields)),
        // An error met on trust may be one the general way does not meet, or meets
        // elsewhere (a field read under an alias's place): the value is read again,
        // but the type stays trusted (the next value's error is likely its own).
        Err(e) => {
            access.de.retry = true;
            Err(e)
        }
    }
}

thread_local! {
    /// A decode holds the [`Trust`] of this thread.
    static READING: Cell<bool> = const { Cell::new(false) };
}

/// Leave to read derived structs on trust ([`Deserializer::on_trust`]), held by the
/// outermost decode on a thread while it reads its value, on trust and again if need
/// be: what `from_slice` does, for callers that own a decode of their own
/// (godot-bin-multiplayer's call arguments).
///
/// Only the outermost decode on a thread gets it. A `Deserialize` impl that decodes
/// bytes embedded in its input (a Godot packet in a PackedByteArray) decodes again
/// inside: were each level to read again when it gives up, the work would double per
/// level, and a recursive type could be made to take time exponential in the input's
/// size. Inside, [`Trust::outermost`] gives nothing and values are read once, the
/// general way, so the outermost decode's second reading is the only one: at most
/// twice the work in all. (A `Deserialize` impl that decodes on a thread of its own
/// starts that thread's count afresh.) Keep it until the value is read, the second
/// time included; dropping it lets the next decode on the thread have it.
#[derive(Debug)]
pub struct Trust {
    /// The flag is this thread's: not `Send`.
    _thread: std::marker::PhantomData<*const ()>,
}

impl Trust {
    /// The leave, when no other decode on this thread holds it.
    #[inline]
    pub fn outermost() -> Option<Trust> {
        // Without the thread's flag (a decode in a thread-local's destructor), none.
        let free = READING.try_with(|r| !r.replace(true)).unwrap_or(false);
        // Made only when free: a `Trust` dropped clears the flag.
        free.then(|| Trust {
            _thread: std::marker::PhantomData,
        })
    }
}

impl Drop for Trust {
    #[inline]
    fn drop(&mut self) {
        let _ = READING.try_with(|r| r.set(false));
    }
}

/// Reads a value from `bytes` with `read` (`T::deserialize` and what else the
/// caller checks), on trust, and once more without when that gave up ([`Trust`]).
pub(crate) fn read_slice<'de, T>(
    cfg: Config,
    bytes: &'de [u8],
    read: impl Fn(&mut Deserializer<SliceRead<'de>>) -> Result<T>,
) -> Result<T> {
    let mut de = Deserializer::with_config(SliceRead::new(bytes), cfg);
    let Some(trust) = Trust::outermost() else {
        return read(&mut de);
    };
    de = de.on_trust(&trust);
    let v = read(&mut de);
    if !de.gave_up() {
        return v;
    }
    read(&mut Deserializer::with_config(SliceRead::new(bytes), cfg))
}

impl<R> Deserializer<R> {
    /// Gives up reading on trust: the caller reads the whole value again.
    #[cold]
    fn start_over(&mut self, fields: &'static [&'static str]) -> Error {
        self.retry = true;
        keys::mark_out_of_order(fields);
        Error::new(ErrorKind::Message(
            "a struct read on trust gave up, to be read again the general way".into(),
        ))
    }
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

    #[test]
    fn derived_names_are_the_ones_serde_derive_gives() {
        // The names `type_name` gives them (rustc 1.75 to today).
        assert!(derived_name(
            "game::_::<impl serde_core::de::Deserialize<'_> for game::P>::deserialize::__Visitor<'_>"
        ));
        assert!(derived_name(
            "game::_::<impl serde::de::Deserialize<'_> for game::E<'_>>::deserialize::__Visitor<'_, '_>"
        ));
        assert!(derived_name(
            "g::_::<impl serde::de::Deserialize<'_> for g::G<T>>::deserialize::__Visitor<'_, alloc::vec::Vec<g::H<u8>>>"
        ));
        // A struct variant's, declared in the enum visitor's `visit_enum`.
        assert!(derived_name(
            "<game::_::<impl serde_core::de::Deserialize<'_> for game::En>::deserialize::__Visitor<'_> as serde_core::de::Visitor<'_>>::visit_enum::__Visitor<'_>"
        ));
        // Hand-written visitors, and names that only look alike (a review found a
        // hand-written `__Visitor` in a module of its own taken for the derive's).
        for name in [
            "game::hand::__Visitor<'_>",
            "game::_::<impl serde_core::de::Deserialize<'_> for game::P>::read::__Visitor<'_>",
            "serde_core::de::impls::<impl serde_core::de::Deserialize<'_> for core::time::Duration>::deserialize::DurationVisitor",
            "game::Visitor<'_>",
            "game::__Visitor",
            "game::My__Visitor<'_>",
            "game::__Visitor<'_>>",
            "",
        ] {
            assert!(!derived_name(name), "{name}");
        }
    }

    #[test]
    fn the_leave_to_trust_goes_to_one_holder_at_a_time() {
        let first = Trust::outermost();
        assert!(first.is_some());
        assert!(Trust::outermost().is_none());
        // Asking again while it is held does not take it from the holder.
        assert!(Trust::outermost().is_none());
        drop(first);
        assert!(Trust::outermost().is_some());
    }

    #[test]
    fn a_decode_inside_a_decode_reads_once_the_general_way() {
        thread_local! {
            static INNERMOST: Cell<usize> = const { Cell::new(0) };
        }
        /// A level of a packet that carries the next level's bytes, which its own
        /// `Deserialize` decodes; the innermost level's is an error.
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Level {
            depth: i32,
            #[serde(deserialize_with = "next_level")]
            next: Option<Box<Level>>,
        }
        fn next_level<'de, D: de::Deserializer<'de>>(
            d: D,
        ) -> std::result::Result<Option<Box<Level>>, D::Error> {
            let bytes = <&[u8] as de::Deserialize>::deserialize(d)?;
            if bytes.is_empty() {
                INNERMOST.with(|n| n.set(n.get() + 1));
                return Err(de::Error::custom("the innermost level"));
            }
            crate::from_slice(bytes)
                .map(Some)
                .map_err(de::Error::custom)
        }
        #[derive(serde::Serialize)]
        struct Written {
            depth: i32,
            #[serde(with = "serde_bytes")]
            next: Vec<u8>,
        }
        let mut bytes = Vec::new();
        for depth in 0..12 {
            bytes = crate::to_vec(&Written { depth, next: bytes }).unwrap();
        }
        let err = crate::from_slice::<Level>(&bytes).unwrap_err();
        assert!(err.to_string().contains("the innermost level"), "{err}");
        // Read on trust, which gave up, and once again: not twice per level (2^12).
        assert_eq!(INNERMOST.with(|n| n.get()), 2);
        // The same levels read by hand inside (`Trust`, `on_trust`, `gave_up`).
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct ByHand {
            depth: i32,
            #[serde(deserialize_with = "by_hand")]
            next: Option<Box<ByHand>>,
        }
        fn by_hand<'de, D: de::Deserializer<'de>>(
            d: D,
        ) -> std::result::Result<Option<Box<ByHand>>, D::Error> {
            use serde::Deserialize;
            let bytes = <&[u8] as de::Deserialize>::deserialize(d)?;
            if bytes.is_empty() {
                INNERMOST.with(|n| n.set(n.get() + 1));
                return Err(de::Error::custom("the innermost level"));
            }
            let trust = Trust::outermost();
            let mut de = Deserializer::from_slice(bytes);
            if let Some(trust) = &trust {
                de = de.on_trust(trust);
            }
            let mut next = ByHand::deserialize(&mut de);
            if de.gave_up() {
                next = ByHand::deserialize(&mut Deserializer::from_slice(bytes));
            }
            next.map(|n| Some(Box::new(n))).map_err(de::Error::custom)
        }
        INNERMOST.with(|n| n.set(0));
        assert!(crate::from_slice::<ByHand>(&bytes).is_err());
        assert_eq!(INNERMOST.with(|n| n.get()), 2);
        // The flag is down again: the next decode reads on trust.
        let before = taken();
        let one = crate::to_vec(&Written {
            depth: 1,
            next: vec![],
        })
        .unwrap();
        let _ = crate::from_slice::<Level>(&one);
        assert_eq!(taken(), before + 1);
    }

    #[test]
    fn derived_sees_the_struct_visitors_of_serde_derive() {
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
                visitor: V,
            ) -> Result<V::Value> {
                self.0 = Some(derived(std::any::type_name::<V>(), &visitor));
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
        // An adjacently tagged enum's visitor: a `__Visitor` too, but not a struct's.
        #[derive(serde::Deserialize)]
        #[serde(tag = "t", content = "c")]
        #[allow(dead_code)]
        enum Adjacent {
            A(i32),
        }
        assert_eq!(seen::<Plain>(), Some(true));
        assert_eq!(seen::<Generic<Vec<Plain>>>(), Some(true));
        assert_eq!(seen::<Adjacent>(), Some(false));
        assert_eq!(seen::<std::time::Duration>(), Some(false));
    }
}
