//! A generic type seen as the concrete `Vec` of numbers or vectors it is, so that the
//! `pool::*` modules can move a `Vec<f32>` field in one piece instead of through serde
//! one element at a time (4 to 12 times slower, measured in `benches/pools.rs`); and a
//! visitor's value seen as the `Variant` it is, which the decoder then reads directly.
//!
//! `typeid` compares types that need not be `'static` (a serde `T` seldom is), with
//! their lifetimes erased. The casts are only to and from [`Plain`] types, which have
//! no lifetimes, so equal ids mean the very same type and the cast is the identity.

use serde::de::Visitor;

use crate::types::pool::{Fixed, PassStrings};

/// Types without lifetime parameters: a type with the same erased id is this type
/// exactly. Only `Vec`s of the pool elements (numbers, math values and strings), and
/// `Variant` (read without serde's visitors, `de::variant`).
pub(crate) trait Plain: 'static {}

impl<E: Fixed> Plain for Vec<E> {}
impl Plain for Vec<String> {}
impl Plain for crate::Variant {}

/// `v` as a `&P`, when `T` is `P`.
#[inline]
pub(crate) fn as_plain<T: ?Sized, P: Plain>(v: &T) -> Option<&P> {
    if typeid::of::<T>() != typeid::of::<P>() {
        return None;
    }
    // SAFETY: `T` and `P` have the same id with lifetimes erased, and `P` has no
    // lifetimes (`Plain`), so `T` is `P` and `v` points to a valid `P`; the reference
    // keeps `v`'s lifetime.
    #[allow(unsafe_code)]
    Some(unsafe { &*(v as *const T).cast::<P>() })
}

/// The `P` that `make` builds, as a `T`, when `T` is `P` (`make` is not called
/// otherwise).
#[inline]
pub(crate) fn make_plain<T, P: Plain>(make: impl FnOnce() -> P) -> Option<T> {
    try_make_plain(|| Ok::<P, std::convert::Infallible>(make())).map(|r| match r {
        Ok(t) => t,
        Err(never) => match never {},
    })
}

/// What `make` gives, as a `Result<T, E>`, when `T` is `P` (`make` is not called
/// otherwise).
#[inline]
pub(crate) fn try_make_plain<T, P: Plain, E>(
    make: impl FnOnce() -> Result<P, E>,
) -> Option<Result<T, E>> {
    if typeid::of::<T>() != typeid::of::<P>() {
        return None;
    }
    Some(make().map(|p| {
        let v = std::mem::ManuallyDrop::new(p);
        // SAFETY: `T` is `P` (as in `as_plain`), so the bits of `v` are a valid `T`;
        // `v` is not dropped, so ownership moves to the copy exactly once.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::read((&*v as *const P).cast::<T>())
        }
    }))
}

/// The strings `make` reads, as the value of visitor `V`, when `V` is the
/// `pool::string` visitor of a `Vec<&str>` (`make` is not called otherwise): a
/// `#[serde(borrow, with = "godot_bin::pool::string")]` field's strings in one piece,
/// not through serde an element at a time (a sixth of a borrowed decode of the world
/// snapshot, `benches/instructions.rs`).
#[inline]
pub(crate) fn try_make_borrowed_strs<'de, V: Visitor<'de>, E>(
    make: impl FnOnce() -> Result<Vec<&'de str>, E>,
) -> Option<Result<V::Value, E>> {
    if typeid::of::<V>() != typeid::of::<PassStrings<Vec<&'static str>>>() {
        return None;
    }
    Some(make().map(|strs| {
        let strs = std::mem::ManuallyDrop::new(strs);
        // SAFETY: `V` is `PassStrings<Vec<&'x str>>` for some `'x` (the same id with
        // lifetimes erased; `PassStrings` is ours and holds nothing else), whose
        // `Value` is `Vec<&'x str>`. It is a `Visitor<'de>` only where that `Vec` is
        // `Deserialize<'de>`, which serde's `&'x str` is only for `'de: 'x`: so the
        // `Vec<&'de str>` is a valid `Vec<&'x str>` (the same layout, a lifetime that
        // outlives it). Not dropped here, it changes owner exactly once.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::read((&*strs as *const Vec<&'de str>).cast::<V::Value>())
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Vector3;

    #[test]
    fn only_the_same_type_is_cast() {
        let v = vec![1.5f32, -2.0];
        assert_eq!(as_plain::<_, Vec<f32>>(&v), Some(&v));
        assert_eq!(as_plain::<_, Vec<i32>>(&v), None);
        assert_eq!(as_plain::<[f32], Vec<f32>>(&v[..]), None);
        assert_eq!(as_plain::<_, Vec<f32>>(&[1.5f32, -2.0]), None);
        let made: Option<Vec<Vector3>> = make_plain(|| vec![Vector3::new(1.0, 2.0, 3.0)]);
        assert_eq!(made, Some(vec![Vector3::new(1.0, 2.0, 3.0)]));
        let mut called = false;
        let other: Option<Vec<(f32, f32, f32)>> = make_plain(|| {
            called = true;
            Vec::<Vector3>::new()
        });
        assert_eq!((other, called), (None, false));
        // A type with a lifetime is never taken for a plain one.
        let s = String::from("x");
        let refs = vec![s.as_str()];
        assert_eq!(as_plain::<_, Vec<f32>>(&refs), None);
    }

    #[test]
    fn only_the_pool_string_visitor_of_borrowed_strings_takes_them() {
        let text = String::from("a b");
        let strs = || Ok::<_, ()>(text.split(' ').collect::<Vec<&str>>());
        let made = try_make_borrowed_strs::<PassStrings<Vec<&str>>, ()>(strs);
        assert_eq!(made, Some(Ok(vec!["a", "b"])));
        // Another visitor of the same value, whose lifetime could outlive the input's
        // (here `'static`): never.
        struct Other;
        impl<'de> Visitor<'de> for Other {
            type Value = Vec<&'static str>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("strings")
            }
        }
        let mut called = false;
        let other = try_make_borrowed_strs::<Other, ()>(|| {
            called = true;
            strs()
        });
        assert_eq!((other, called), (None, false));
        // Nor the visitor of owned strings.
        let owned = try_make_borrowed_strs::<PassStrings<Vec<String>>, ()>(strs);
        assert_eq!(owned, None);
    }
}
