//! `put_var` inside a raw packet.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::marker::VAR;

/// A field written as `StreamPeer.put_var` writes it: a `u32` byte length (in the
/// stream's byte order), then the value in Godot's Variant encoding (always
/// little-endian), with the Variant settings of [`Config::variant`](super::Config::variant).
/// `T` is any serde type, [`Variant`](crate::Variant) included.
///
/// Other formats see `T` itself.
///
/// ```
/// use godot_bin::raw::{self, Var};
/// let bytes = raw::to_vec(&(1u8, Var(5i32)))?;
/// assert_eq!(bytes, [1, 8, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0]);
/// let (id, Var(v)): (u8, Var<godot_bin::Variant>) = raw::from_slice(&bytes)?;
/// assert_eq!((id, v), (1, godot_bin::Variant::Int(5)));
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Var<T>(pub T);

impl<T: Serialize> Serialize for Var<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(VAR, &self.0)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Var<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Var<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a put_var value")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Var<T>, D::Error> {
                T::deserialize(d).map(Var)
            }
        }
        d.deserialize_newtype_struct(VAR, V(PhantomData))
    }
}
