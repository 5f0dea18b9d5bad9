//! Conversions with the math crates Rust game code uses (features `glam`, `mint`).

#[cfg(feature = "glam")]
pub mod glam;
#[cfg(feature = "mint")]
pub mod mint;

/// `From` both ways between a foreign math type and ours.
macro_rules! both_ways {
    ($theirs:ty, $ours:ty, |$a:ident| $to_ours:expr, |$b:ident| $to_theirs:expr) => {
        impl From<$theirs> for $ours {
            fn from($a: $theirs) -> Self {
                $to_ours
            }
        }
        impl From<$ours> for $theirs {
            fn from($b: $ours) -> Self {
                $to_theirs
            }
        }
    };
}
use both_ways;

/// `From<foreign type> for Variant`, through our type.
macro_rules! into_variant {
    ($($theirs:ty => $ours:ty),* $(,)?) => {
        $(impl From<$theirs> for crate::Variant {
            fn from(v: $theirs) -> Self {
                <$ours>::from(v).into()
            }
        })*
    };
}
use into_variant;

/// `with`-modules that write a foreign type as one of ours: `$module` for a single
/// value, serialized through `$ours`.
macro_rules! with_modules {
    ($path:literal, $($module:ident: $theirs:ty => $ours:ident),* $(,)?) => {
        $(
            #[doc = concat!("`#[serde(with = \"", $path, "::", stringify!($module), "\")]` on a `", stringify!($theirs), "`: written and read as a Godot `", stringify!($ours), "`.")]
            pub mod $module {
                use serde::{Deserialize, Deserializer, Serialize, Serializer};

                /// Writes the value as the Godot type.
                pub fn serialize<S: Serializer>(v: &$theirs, s: S) -> Result<S::Ok, S::Error> {
                    crate::$ours::from(*v).serialize(s)
                }

                /// Reads the Godot type into the value.
                pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$theirs, D::Error> {
                    crate::$ours::deserialize(d).map(Into::into)
                }
            }
        )*
    };
}
use with_modules;

/// `with`-modules that write a `Vec` of a foreign type as one of our pool arrays.
macro_rules! array_modules {
    ($path:literal, $($module:ident: $theirs:ty => $ours:ident as $pool:ident, $godot:literal),* $(,)?) => {
        $(
            #[doc = concat!("`#[serde(with = \"", $path, "::", stringify!($module), "\")]` on a `Vec<", stringify!($theirs), ">`: written and read as a Godot `", $godot, "`.")]
            pub mod $module {
                use serde::{Deserializer, Serializer};

                /// Writes the elements as the pool array, without copying them first.
                pub fn serialize<S: Serializer>(v: &[$theirs], s: S) -> Result<S::Ok, S::Error> {
                    crate::pool::$pool::serialize(&crate::interop::Elements::<_, crate::$ours>::new(v), s)
                }

                /// Reads the pool array (or an Array of the same elements).
                pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<$theirs>, D::Error> {
                    let ours: Vec<crate::$ours> = crate::pool::$pool::deserialize(d)?;
                    Ok(ours.into_iter().map(Into::into).collect())
                }
            }
        )*
    };
}
use array_modules;

/// A slice of foreign values that serializes as a sequence of ours.
pub(crate) struct Elements<'a, T, O> {
    items: &'a [T],
    _ours: std::marker::PhantomData<fn() -> O>,
}

impl<'a, T, O> Elements<'a, T, O> {
    pub(crate) fn new(items: &'a [T]) -> Self {
        Elements {
            items,
            _ours: std::marker::PhantomData,
        }
    }
}

impl<T: Copy, O: From<T> + serde::Serialize> serde::Serialize for Elements<'_, T, O> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.items.iter().map(|&v| O::from(v)))
    }
}
