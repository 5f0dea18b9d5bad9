//! A generic type seen as the concrete `Vec` of numbers or vectors it is, so that the
//! `pool::*` modules can move a `Vec<f32>` field in one piece instead of through serde
//! one element at a time (4 to 12 times slower, measured in `benches/pools.rs`); and a
//! visitor's value seen as the `Variant` it is, which the decoder then reads directly.
//!
//! `typeid` compares types that need not be `'static` (a serde `T` seldom is), with
//! their lifetimes erased. The casts are only to and from [`Plain`] types, which have
//! no lifetimes, so equal ids mean the very same type and the cast is the identity.

use crate::types::pool::Fixed;

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
}
