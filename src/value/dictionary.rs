//! `Dictionary`: insertion-ordered, any `Variant` as key, like Godot's.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::FusedIterator;

use indexmap::IndexMap;

/// Hostile keys cannot collide: aHash is keyed per map (see the Cargo.toml note).
type Map = IndexMap<Variant, Variant, ahash::RandomState>;

/// The most entries kept as a list. Most dictionaries a game sends are this small, and
/// a search of so few keys costs less than hashing them, and the list spares the hash
/// table's allocations. Only keys that hold no `Variant`s go in a list (`flat`).
const SMALL: usize = 8;

/// Whether `key` holds no `Variant`s. Comparing two small dictionaries looks each key up
/// in the other, so a list of container keys would compare containers of containers
/// at every level: keys nested a few levels deep, each differing only at its end,
/// would cost 36 times more per level where the bytes grow 8 times (found in review).
/// A hash lookup compares only keys whose hashes match.
fn flat(key: &Variant) -> bool {
    use Variant::*;
    matches!(
        key,
        Nil | Bool(_)
            | Int(_)
            | Float(_)
            | String(_)
            | StringName(_)
            | NodePath(_)
            | Vector2(_)
            | Vector2i(_)
            | Rect2(_)
            | Rect2i(_)
            | Vector3(_)
            | Vector3i(_)
            | Vector4(_)
            | Vector4i(_)
            | Transform2D(_)
            | Plane(_)
            | Quat(_)
            | Aabb(_)
            | Basis(_)
            | Transform(_)
            | Projection(_)
            | Color(_)
            | Rid(_)
            | ObjectId(_)
            | Callable(_)
            | Signal(_)
    )
}

use super::Variant;

/// A Godot `Dictionary`: keeps insertion order; keys are any [`Variant`].
///
/// Setting an existing key replaces its value in place, as in Godot, so decoding
/// bytes with a repeated key keeps the last value at the first key's position.
/// Equality ignores the order of entries, as Godot's does.
///
/// ```
/// use godot_bin::{Dictionary, Variant};
/// let mut d = Dictionary::new();
/// d.insert("b", 1);
/// d.insert("a", 2);
/// d.insert(Variant::Float(1.5), "float key");
/// assert_eq!(d.keys().next(), Some(&Variant::from("b")));
/// assert_eq!(d.get(&Variant::Float(1.5)), Some(&Variant::from("float key")));
/// ```
#[derive(Clone, Default)]
pub struct Dictionary(Repr);

#[derive(Clone)]
enum Repr {
    /// Up to `SMALL` entries, searched in order.
    Small(Vec<(Variant, Variant)>),
    /// Boxed so that a Variant holding a Dictionary stays small.
    Large(Box<Map>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Small(Vec::new())
    }
}

impl Dictionary {
    /// An empty dictionary.
    pub fn new() -> Self {
        Dictionary::default()
    }

    /// An empty dictionary with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        Dictionary(if n <= SMALL {
            Repr::Small(Vec::with_capacity(n))
        } else {
            Repr::Large(Box::new(Map::with_capacity_and_hasher(
                n,
                ahash::RandomState::new(),
            )))
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Small(list) => list.len(),
            Repr::Large(map) => map.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sets `key` to `value`; an existing key keeps its position. Returns the old value.
    pub fn insert(
        &mut self,
        key: impl Into<Variant>,
        value: impl Into<Variant>,
    ) -> Option<Variant> {
        self.set(key.into(), value.into())
    }

    /// Sets `key` to `value`, returning a replaced value: the decoder's insert, not
    /// generic. `insert_full` probes the table once where the entry API probes twice
    /// (2% of a `Variant` decode under callgrind).
    #[inline]
    pub(crate) fn set(&mut self, key: Variant, value: Variant) -> Option<Variant> {
        match &mut self.0 {
            Repr::Small(list) => {
                if let Some((_, old)) = list.iter_mut().find(|(k, _)| same_key(k, &key)) {
                    return Some(std::mem::replace(old, value));
                }
                if list.len() < SMALL && flat(&key) {
                    list.push((key, value));
                    return None;
                }
                let mut map = Map::with_capacity_and_hasher(2 * SMALL, ahash::RandomState::new());
                map.extend(list.drain(..));
                map.insert_full(key, value);
                self.0 = Repr::Large(Box::new(map));
                None
            }
            Repr::Large(map) => map.insert_full(key, value).1,
        }
    }

    /// The value for `key`.
    pub fn get(&self, key: &Variant) -> Option<&Variant> {
        match &self.0 {
            Repr::Small(list) => list.iter().find(|(k, _)| same_key(k, key)).map(|(_, v)| v),
            Repr::Large(map) => map.get(key),
        }
    }

    /// The value for `key`, mutable.
    pub fn get_mut(&mut self, key: &Variant) -> Option<&mut Variant> {
        match &mut self.0 {
            Repr::Small(list) => list
                .iter_mut()
                .find(|(k, _)| same_key(k, key))
                .map(|(_, v)| v),
            Repr::Large(map) => map.get_mut(key),
        }
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &Variant) -> bool {
        self.get(key).is_some()
    }

    /// Removes `key`, keeping the order of the others (like Godot's `erase`).
    pub fn remove(&mut self, key: &Variant) -> Option<Variant> {
        match &mut self.0 {
            Repr::Small(list) => {
                let at = list.iter().position(|(k, _)| same_key(k, key))?;
                Some(list.remove(at).1)
            }
            Repr::Large(map) => map.shift_remove(key),
        }
    }

    /// Entries in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.0 {
            Repr::Small(list) => Either::Small(list.iter()),
            Repr::Large(map) => Either::Large(map.iter()),
        })
    }

    /// Entries in order, values mutable.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Variant, &mut Variant)> {
        match &mut self.0 {
            Repr::Small(list) => Either::Small(list.iter_mut().map(|(k, v)| (&*k, v))),
            Repr::Large(map) => Either::Large(map.iter_mut()),
        }
    }

    /// Keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Variant> {
        self.iter().map(|(k, _)| k)
    }

    /// Values in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Variant> {
        self.iter().map(|(_, v)| v)
    }
}

/// `a == b`, with the usual case (two Strings) compared in place: a call to the general
/// equality per key compared was a twentieth of a `Variant` decode (callgrind).
#[inline]
fn same_key(a: &Variant, b: &Variant) -> bool {
    match (a, b) {
        (Variant::String(a), Variant::String(b)) => a == b,
        _ => a == b,
    }
}

/// Shows the entries as a map, in order.
impl fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        struct Entries<'a>(&'a Dictionary);
        impl fmt::Debug for Entries<'_> {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.debug_map().entries(self.0.iter()).finish()
            }
        }
        f.debug_tuple("Dictionary").field(&Entries(self)).finish()
    }
}

/// The same entries, in any order.
impl PartialEq for Dictionary {
    fn eq(&self, other: &Dictionary) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Eq for Dictionary {}

impl Hash for Dictionary {
    fn hash<H: Hasher>(&self, h: &mut H) {
        // Equality ignores entry order, so the hash must too: a sum of entry hashes.
        self.len().hash(h);
        let mut sum = 0u64;
        for entry in self.iter() {
            let mut one = std::collections::hash_map::DefaultHasher::new();
            entry.hash(&mut one);
            sum = sum.wrapping_add(one.finish());
        }
        sum.hash(h);
    }
}

impl<K: Into<Variant>, V: Into<Variant>> FromIterator<(K, V)> for Dictionary {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut d = Dictionary::new();
        for (k, v) in iter {
            d.set(k.into(), v.into());
        }
        d
    }
}

/// One of two iterators of the same items: a small dictionary's or a large one's.
#[derive(Clone, Debug)]
enum Either<S, L> {
    Small(S),
    Large(L),
}

impl<T, S: Iterator<Item = T>, L: Iterator<Item = T>> Iterator for Either<S, L> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            Either::Small(i) => i.next(),
            Either::Large(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Either::Small(i) => i.size_hint(),
            Either::Large(i) => i.size_hint(),
        }
    }
}

impl<T, S: DoubleEndedIterator<Item = T>, L: DoubleEndedIterator<Item = T>> DoubleEndedIterator
    for Either<S, L>
{
    fn next_back(&mut self) -> Option<T> {
        match self {
            Either::Small(i) => i.next_back(),
            Either::Large(i) => i.next_back(),
        }
    }
}

impl<T, S: ExactSizeIterator<Item = T>, L: ExactSizeIterator<Item = T>> ExactSizeIterator
    for Either<S, L>
{
}

/// A [`Dictionary`]'s entries in order, borrowed: [`Dictionary::iter`].
#[derive(Clone, Debug)]
pub struct Iter<'a>(
    Either<std::slice::Iter<'a, (Variant, Variant)>, indexmap::map::Iter<'a, Variant, Variant>>,
);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Variant, &'a Variant);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Either::Small(i) => i.next().map(|(k, v)| (k, v)),
            Either::Large(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Either::Small(i) => i.size_hint(),
            Either::Large(i) => i.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Either::Small(i) => i.next_back().map(|(k, v)| (k, v)),
            Either::Large(i) => i.next_back(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}
impl FusedIterator for Iter<'_> {}

/// A [`Dictionary`]'s entries in order, owned: its `into_iter`.
#[derive(Debug)]
pub struct IntoIter(
    Either<std::vec::IntoIter<(Variant, Variant)>, indexmap::map::IntoIter<Variant, Variant>>,
);

impl Iterator for IntoIter {
    type Item = (Variant, Variant);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IntoIter {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back()
    }
}

impl ExactSizeIterator for IntoIter {}
impl FusedIterator for IntoIter {}

impl IntoIterator for Dictionary {
    type Item = (Variant, Variant);
    type IntoIter = IntoIter;
    fn into_iter(self) -> IntoIter {
        IntoIter(match self.0 {
            Repr::Small(list) => Either::Small(list.into_iter()),
            Repr::Large(map) => Either::Large(map.into_iter()),
        })
    }
}

impl<'a> IntoIterator for &'a Dictionary {
    type Item = (&'a Variant, &'a Variant);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::hash_map::DefaultHasher;

    use quickcheck::{Arbitrary, Gen, QuickCheck};

    use super::*;

    /// Keys that collide under Godot's key identity (a String and a StringName, 0.0
    /// and -0.0, NaNs), and more of them than a small dictionary holds.
    fn key(g: &mut Gen) -> Variant {
        let n = u8::arbitrary(g) % 24;
        match u8::arbitrary(g) % 7 {
            0 => Variant::StringName(crate::StringName(format!("k{n}"))),
            // Containers, which a small dictionary does not keep as list keys.
            5 => Variant::Array(vec![Variant::Int((n % 3).into())]),
            6 => Variant::Dictionary([(n % 2, 1)].into_iter().collect()),
            1 => Variant::Float(*g.choose(&[0.0, -0.0, f64::NAN, 1.5]).unwrap()),
            2 => Variant::Int(n.into()),
            _ => Variant::String(format!("k{n}")),
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(Variant, i64),
        Remove(Variant),
        Get(Variant),
        Bump(Variant),
    }

    impl Arbitrary for Op {
        fn arbitrary(g: &mut Gen) -> Op {
            match u8::arbitrary(g) % 6 {
                0 => Op::Remove(key(g)),
                1 => Op::Get(key(g)),
                2 => Op::Bump(key(g)),
                _ => Op::Insert(key(g), i64::arbitrary(g)),
            }
        }
    }

    /// The reference: a list searched in order, growing without bound.
    fn model_find(list: &[(Variant, Variant)], k: &Variant) -> Option<usize> {
        list.iter().position(|(x, _)| x == k)
    }

    fn hash(d: &Dictionary) -> u64 {
        let mut h = DefaultHasher::new();
        d.hash(&mut h);
        h.finish()
    }

    #[test]
    fn a_dictionary_behaves_as_an_ordered_list_of_distinct_keys_at_any_size() {
        fn prop(ops: Vec<Op>, capacity: u8) -> bool {
            let mut d = Dictionary::with_capacity(capacity.into());
            let mut model: Vec<(Variant, Variant)> = Vec::new();
            for op in ops {
                let same = match op {
                    Op::Insert(k, v) => {
                        let old = match model_find(&model, &k) {
                            Some(i) => Some(std::mem::replace(&mut model[i].1, v.into())),
                            None => {
                                model.push((k.clone(), v.into()));
                                None
                            }
                        };
                        d.insert(k, v) == old
                    }
                    Op::Remove(k) => {
                        let old = model_find(&model, &k).map(|i| model.remove(i).1);
                        d.remove(&k) == old
                    }
                    Op::Get(k) => {
                        let want = model_find(&model, &k).map(|i| &model[i].1);
                        d.get(&k) == want && d.contains_key(&k) == want.is_some()
                    }
                    Op::Bump(k) => {
                        if let Some(i) = model_find(&model, &k) {
                            model[i].1 = Variant::Bool(true);
                        }
                        if let Some(v) = d.get_mut(&k) {
                            *v = Variant::Bool(true);
                        }
                        true
                    }
                };
                let entries: Vec<_> = d.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                // Keys compare by identity, so compare their Debug forms too: the first
                // key of a kind stays, as in Godot.
                if !same
                    || format!("{entries:?}") != format!("{model:?}")
                    || d.len() != model.len()
                    || d.iter().len() != model.len()
                {
                    return false;
                }
            }
            // The same entries in another order, built another way: equal, same hash.
            let mut reversed: Dictionary = model.iter().rev().cloned().collect();
            let mut large = Dictionary::with_capacity(100);
            for (k, v) in &model {
                large.insert(k.clone(), v.clone());
            }
            let owned: Vec<_> = d.clone().into_iter().collect();
            let same_order = format!("{owned:?}") == format!("{model:?}")
                && d.keys().cloned().collect::<Vec<_>>()
                    == model.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()
                && d.values().eq(model.iter().map(|(_, v)| v))
                && d.iter().rev().count() == model.len();
            let equal = d == reversed
                && d == large
                && hash(&d) == hash(&reversed)
                && hash(&d) == hash(&large);
            // One entry more or different: not equal.
            reversed.insert("another", 0);
            same_order && equal && d != reversed
        }
        QuickCheck::new()
            .tests(3000)
            .quickcheck(prop as fn(Vec<Op>, u8) -> bool);
    }

    #[test]
    fn only_flat_keys_are_kept_in_a_list() {
        let mut d = Dictionary::new();
        for i in 0..SMALL as i64 {
            d.insert(i, i);
        }
        assert!(matches!(d.0, Repr::Small(_)));
        d.insert(SMALL as i64, 0);
        assert!(matches!(d.0, Repr::Large(_)));
        // A container key: hashed from the first, so that comparing nested keys never
        // compares every key of one with every key of the other at each level.
        let mut d = Dictionary::new();
        d.insert("a", 1);
        d.insert(Variant::Array(vec![Variant::Int(1)]), 2);
        assert!(matches!(d.0, Repr::Large(_)));
        assert_eq!(d.keys().next(), Some(&Variant::from("a")));
        assert_eq!(
            d.get(&Variant::Array(vec![Variant::Int(1)])),
            Some(&Variant::Int(2))
        );
        let mut inner = Dictionary::new();
        inner.insert(Dictionary::new(), 0);
        assert!(matches!(inner.0, Repr::Large(_)));
    }

    #[test]
    fn debug_shows_the_entries_as_a_map() {
        let mut d = Dictionary::new();
        d.insert("a", 1);
        assert_eq!(format!("{d:?}"), r#"Dictionary({String("a"): Int(1)})"#);
        for i in 0..20 {
            d.insert(i, i);
        }
        assert!(
            format!("{d:?}").starts_with(r#"Dictionary({String("a"): Int(1), Int(0): Int(0), "#)
        );
    }
}
