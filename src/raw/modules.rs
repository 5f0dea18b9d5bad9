//! `#[serde(with = ...)]` modules that change the raw layout of everything a field
//! holds. Other formats see the field unchanged.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Serializes `value` behind the reserved name `name`.
fn wrap<T: ?Sized + Serialize, S: Serializer>(
    name: &'static str,
    value: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_newtype_struct(name, value)
}

/// Deserializes a `T` behind the reserved name `name`.
fn unwrap<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    name: &'static str,
    d: D,
) -> Result<T, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a raw field")
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
            T::deserialize(d)
        }
    }
    d.deserialize_newtype_struct(name, V(PhantomData))
}

macro_rules! layout_module {
    ($($module:ident, $name:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        ///
        /// Works on any field type and applies to everything inside it (the strings of
        /// a `Vec<String>`, the counts of nested vectors).
        pub mod $module {
            use serde::{Deserialize, Deserializer, Serialize, Serializer};

            /// Serializes the field with this layout.
            pub fn serialize<T: ?Sized + Serialize, S: Serializer>(
                value: &T,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                super::wrap(super::super::marker::raw_name!($name), value, s)
            }

            /// Deserializes the field with this layout.
            pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
                d: D,
            ) -> Result<T, D::Error> {
                super::unwrap(super::super::marker::raw_name!($name), d)
            }
        }
    )*};
}

layout_module! {
    str0, "str0", "Strings as NUL-terminated UTF-8 ([`Strings::Nul`](super::Strings::Nul)).";
    utf8, "utf8", "Strings as `put_utf8_string` ([`Strings::Utf8`](super::Strings::Utf8)).";
    string3, "string3", "Strings as Godot 3's `put_string` ([`Strings::Godot3`](super::Strings::Godot3)).";
    string4, "string4", "Strings as Godot 4's `put_string` ([`Strings::Godot4`](super::Strings::Godot4)).";
    count8, "count8", "Sequences counted by a `u8` ([`Count::U8`](super::Count::U8)).";
    count16, "count16", "Sequences counted by a `u16` ([`Count::U16`](super::Count::U16)).";
    count32, "count32", "Sequences counted by a `u32` ([`Count::U32`](super::Count::U32)).";
    rest, "rest", "A last field whose items (or bytes) run to the end of the message ([`Count::Rest`](super::Count::Rest)); sequences inside it are counted (`u32`).";
    tag8, "tag8", "Enum variant ids as `u8` ([`Width::U8`](super::Width::U8)).";
    tag16, "tag16", "Enum variant ids as `u16` ([`Width::U16`](super::Width::U16)).";
    tag32, "tag32", "Enum variant ids as `u32` ([`Width::U32`](super::Width::U32)).";
}
