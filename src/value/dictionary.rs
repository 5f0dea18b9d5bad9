//! `Dictionary`: insertion-ordered, any `Variant` as key, like Godot's.

use std::hash::{Hash, Hasher};

use indexmap::IndexMap;

/// Hostile keys cannot collide: aHash is keyed per map (see the Cargo.toml note).
type Map = IndexMap<Variant, Variant, ahash::RandomState>;

use super::Variant;

/// A Godot `Dictionary`: keeps insertion order; keys are any [`Variant`].
///
/// Setting an existing key replaces its value in place, as in Godot, so decoding
/// bytes with a repeated key keeps the last value at the first key's position.
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
// Boxed so that a Variant holding a Dictionary stays small.
pub struct Dictionary(Box<Map>);

impl Dictionary {
    /// An empty dictionary.
    pub fn new() -> Self {
        Dictionary(Box::default())
    }

    /// An empty dictionary with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        Dictionary(Box::new(Map::with_capacity_and_hasher(
            n,
            ahash::RandomState::new(),
        )))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets `key` to `value`; an existing key keeps its position. Returns the old value.
    pub fn insert(
        &mut self,
        key: impl Into<Variant>,
        value: impl Into<Variant>,
    ) -> Option<Variant> {
        self.0.insert(key.into(), value.into())
    }

    /// Sets `key` to `value`, dropping a replaced value: the decoder's insert.
    /// `insert_full` probes the table once where the entry API probes twice (2% of a
    /// `Variant` decode under callgrind).
    #[inline]
    pub(crate) fn set(&mut self, key: Variant, value: Variant) {
        self.0.insert_full(key, value);
    }

    /// The value for `key`.
    pub fn get(&self, key: &Variant) -> Option<&Variant> {
        self.0.get(key)
    }

    /// The value for `key`, mutable.
    pub fn get_mut(&mut self, key: &Variant) -> Option<&mut Variant> {
        self.0.get_mut(key)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &Variant) -> bool {
        self.0.contains_key(key)
    }

    /// Removes `key`, keeping the order of the others (like Godot's `erase`).
    pub fn remove(&mut self, key: &Variant) -> Option<Variant> {
        self.0.shift_remove(key)
    }

    /// Entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Variant, &Variant)> {
        self.0.iter()
    }

    /// Entries in order, values mutable.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Variant, &mut Variant)> {
        self.0.iter_mut()
    }

    /// Keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Variant> {
        self.0.keys()
    }

    /// Values in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Variant> {
        self.0.values()
    }
}

impl Hash for Dictionary {
    fn hash<H: Hasher>(&self, h: &mut H) {
        // Equality ignores entry order, so the hash must too: a sum of entry hashes.
        self.0.len().hash(h);
        let mut sum = 0u64;
        for entry in self.0.iter() {
            let mut one = std::collections::hash_map::DefaultHasher::new();
            entry.hash(&mut one);
            sum = sum.wrapping_add(one.finish());
        }
        sum.hash(h);
    }
}

impl<K: Into<Variant>, V: Into<Variant>> FromIterator<(K, V)> for Dictionary {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let map: Map = iter
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Dictionary(Box::new(map))
    }
}

impl IntoIterator for Dictionary {
    type Item = (Variant, Variant);
    type IntoIter = indexmap::map::IntoIter<Variant, Variant>;
    fn into_iter(self) -> Self::IntoIter {
        (*self.0).into_iter()
    }
}

impl<'a> IntoIterator for &'a Dictionary {
    type Item = (&'a Variant, &'a Variant);
    type IntoIter = indexmap::map::Iter<'a, Variant, Variant>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
