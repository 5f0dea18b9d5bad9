//! A node's rpc methods as both sides must agree on them: ids are positions in the
//! sorted list of names, and SIMPLIFY_PATH carries the md5 of the names joined.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use md5::{Digest, Md5};

/// A node path or method name as a [`Session`](crate::Session) hands it out: shared
/// with the session's [`Scene`](crate::Scene), so a received call names its node and
/// method without copying them (two `String`s were two allocations and two frees
/// per call). It reads as a `&str` and compares with one.
///
/// ```
/// use godot_bin_multiplayer::Name;
/// let method = Name::from("move");
/// assert_eq!(method, "move");
/// assert!(matches!(method.as_str(), "move" | "chat"));
/// assert_eq!(method.len(), 4);
/// assert_eq!(String::from(method), "move");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(Arc<str>);

impl Name {
    /// The name as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(s.into())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(s.into())
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.0.as_ref().to_owned()
    }
}

/// `Name == str`, `Name == &str`, `Name == String` and the other way round.
macro_rules! eq_str {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for Name {
            fn eq(&self, other: &$t) -> bool {
                *self.0 == **other
            }
        }

        impl PartialEq<Name> for $t {
            fn eq(&self, other: &Name) -> bool {
                **self == *other.0
            }
        }
    )*};
}

eq_str!(&str, String);

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        *self == *other.0
    }
}

/// The `@rpc` method names of one node's script, sorted (as SceneMultiplayer numbers
/// them).
///
/// ```
/// use godot_bin_multiplayer::RpcNames;
/// let names = RpcNames::new(["welcome", "ping", "hello", "nums", "blob"]);
/// assert_eq!(names.id("ping"), Some(3));
/// assert_eq!(names.name(0), Some("blob"));
/// assert_eq!(names.checksum(), format!("{:x}", md5::Md5::digest("blobhellonumspingwelcome")));
/// # use md5::Digest;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcNames {
    names: Vec<Name>,
    /// Computed once: every first call to a peer carries it.
    checksum: String,
}

impl Default for RpcNames {
    /// No names (its checksum is the md5 of nothing).
    fn default() -> Self {
        RpcNames::new(Vec::<String>::new())
    }
}

/// `a == b`, for the short names of a scan: up to 16 bytes compare as two
/// overlapping words from each end, with no call to `memcmp` (which cost about 20
/// instructions a compare, a third of sending a call by its names).
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap());
    match n {
        0..=3 => a == b,
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

impl RpcNames {
    /// The names in any order; duplicates count once.
    pub fn new<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut names: Vec<String> = names.into_iter().map(Into::into).collect();
        names.sort_unstable();
        names.dedup();
        let names: Vec<Name> = names.into_iter().map(Name::from).collect();
        let mut h = Md5::new();
        for n in &names {
            h.update(n.as_bytes());
        }
        let checksum = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        RpcNames { names, checksum }
    }

    /// The method id of `name`.
    pub fn id(&self, name: &str) -> Option<u16> {
        u16::try_from(self.index(name)?).ok()
    }

    fn index(&self, name: &str) -> Option<usize> {
        // A script has a handful of rpc methods: a scan whose compares stop at a
        // length that differs is quicker there than a search's ordered compares.
        if self.names.len() <= 16 {
            return self.names.iter().position(|n| same(n, name));
        }
        self.names.binary_search_by(|n| n.as_str().cmp(name)).ok()
    }

    /// The name of method id `id`.
    pub fn name(&self, id: u16) -> Option<&str> {
        self.shared(id).map(Name::as_str)
    }

    /// The name of method id `id`, shared.
    pub(crate) fn shared(&self, id: u16) -> Option<&Name> {
        self.names.get(usize::from(id))
    }

    /// The sorted names.
    pub fn names(&self) -> &[Name] {
        &self.names
    }

    /// The md5 of the sorted names concatenated, as 32 lowercase hex digits: what a
    /// SIMPLIFY_PATH for this node carries.
    pub fn checksum(&self) -> &str {
        &self.checksum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are positions in the sorted list whichever way a name is looked up: by the
    /// scan of a short list or the search of a long one.
    #[test]
    fn ids_are_sorted_positions_in_short_and_long_lists() {
        for n in [0, 1, 3, 16, 17, 40] {
            // Given in reverse, with lengths that differ and that match.
            let given: Vec<String> = (0..n).rev().map(|i| format!("m{}", i * 7)).collect();
            let names = RpcNames::new(given.clone());
            let mut sorted = given;
            sorted.sort();
            for (i, name) in sorted.iter().enumerate() {
                assert_eq!(names.id(name), Some(i as u16), "{name} of {n}");
                assert_eq!(names.name(i as u16), Some(name.as_str()));
            }
            for absent in ["", "m", "m1", "m7x", "n0"] {
                assert_eq!(names.id(absent), None);
            }
        }
    }

    /// `same` is `==`: for every length up to past its words, a byte changed at
    /// each place, a length that differs, and random pairs.
    #[test]
    fn same_is_equality() {
        for n in 0..=24 {
            let a: String = (0..n).map(|i| char::from(b'a' + i as u8)).collect();
            assert!(same(&a, &a.clone()), "{a}");
            for at in 0..n {
                let mut b = a.clone().into_bytes();
                b[at] = b'Z';
                let b = String::from_utf8(b).unwrap();
                assert!(!same(&a, &b) && !same(&b, &a), "{a} {b}");
            }
            assert!(!same(&a, &format!("{a}a")));
        }
        fn prop(a: String, b: String) -> bool {
            same(&a, &b) == (a == b) && same(&a, &a.clone())
        }
        quickcheck::quickcheck(prop as fn(String, String) -> bool);
    }
}
