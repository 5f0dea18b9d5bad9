//! The registry of reserved serde names that carry Godot types through serde's data model.
//!
//! A Godot type's `Serialize` impl calls `serialize_tuple_struct` /
//! `serialize_newtype_struct` with one of these names. Our serializer recognises the
//! name and writes the native tag; every other format sees an ordinary tuple or
//! newtype. All names live under `$godot_bin::private::` (like serde_json's
//! `$serde_json::private::RawValue`): `$` cannot start a Rust type's name, so no user
//! type collides. The serializers and deserializers look a name up once per value.

use crate::table::private_name;
use crate::VariantType;

const PREFIX: &str = private_name!("");

/// The dynamic [`Variant`](crate::Variant): asks our deserializer for the wire type.
pub(crate) const VARIANT: &str = private_name!("Variant");
/// An Object sent as its instance id.
pub(crate) const OBJECT_ID: &str = private_name!("ObjectId");
/// A typed Array: `(kind, element name, items)`.
pub(crate) const TYPED_ARRAY: &str = private_name!("TypedArray");
/// A typed Dictionary: `(key kind, key name, value kind, value name, entries)`.
pub(crate) const TYPED_DICTIONARY: &str = private_name!("TypedDictionary");

/// The `with`-module form of a typed array: `$godot_bin::private::Array[int]`.
macro_rules! array_of {
    ($element:literal) => {
        concat!("$godot_bin::private::Array[", $element, "]")
    };
}
pub(crate) use array_of;

/// What a reserved name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// A Godot type ([`VariantType::marker`]); `Object` is a full Object.
    Type(VariantType),
    /// The dynamic `Variant`.
    Variant,
    /// An Object sent as its instance id.
    ObjectId,
    /// `TypedArray`: element type info, then the items.
    TypedArray,
    /// `TypedDictionary`: key and value type info, then the entries.
    TypedDictionary,
    /// A plain sequence to write as `Array[T]` (the `typed::*` modules).
    ArrayOf(VariantType),
}

impl Marker {
    /// The marker a serde name stands for; `None` for every ordinary name.
    #[inline(always)]
    pub(crate) fn lookup(name: &str) -> Option<Marker> {
        // One byte rejects every Rust type name.
        if !name.starts_with('$') {
            return None;
        }
        // The most frequent marker (every value of a dynamic Variant) by its address
        // first: uses of the constant usually share it. Otherwise the match below.
        if std::ptr::eq(name, VARIANT) {
            return Some(Marker::Variant);
        }
        let rest = name.strip_prefix(PREFIX)?;
        Some(match rest {
            "Variant" => Marker::Variant,
            "ObjectId" => Marker::ObjectId,
            "TypedArray" => Marker::TypedArray,
            "TypedDictionary" => Marker::TypedDictionary,
            _ => match rest.strip_prefix("Array[") {
                Some(element) => {
                    Marker::ArrayOf(VariantType::from_godot4_name(element.strip_suffix(']')?)?)
                }
                None => Marker::Type(VariantType::from_marker(rest)?),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_once() {
        for &ty in VariantType::all() {
            assert_eq!(Marker::lookup(ty.marker()), Some(Marker::Type(ty)));
        }
        assert_eq!(Marker::lookup(VARIANT), Some(Marker::Variant));
        assert_eq!(Marker::lookup(OBJECT_ID), Some(Marker::ObjectId));
        assert_eq!(Marker::lookup(TYPED_ARRAY), Some(Marker::TypedArray));
        assert_eq!(
            Marker::lookup(TYPED_DICTIONARY),
            Some(Marker::TypedDictionary)
        );
        assert_eq!(
            Marker::lookup(array_of!("Quaternion")),
            Some(Marker::ArrayOf(VariantType::Quat))
        );
        for ordinary in [
            "Vector2",
            "$godot_bin::Vector2",
            "$godot_bin::private::Array[Foo]",
        ] {
            assert_eq!(Marker::lookup(ordinary), None);
        }
    }
}
