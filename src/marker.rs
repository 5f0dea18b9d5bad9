//! Reserved serde names that carry Godot types through serde's data model.
//!
//! A Godot type's `Serialize` impl calls `serialize_tuple_struct` /
//! `serialize_newtype_struct` with one of these names. Our serializer recognises the
//! name and writes the native tag; every other format sees an ordinary tuple or
//! newtype. The `$` keeps them from clashing with any Rust type name.

use crate::dialect::VariantType;

pub(crate) const PREFIX: &str = "$godot_bin::";

/// The dynamic [`Variant`](crate::Variant): asks our deserializer for the wire type.
pub(crate) const VARIANT: &str = "$godot_bin::Variant";
/// A full Object: `(class, properties)`.
pub(crate) const OBJECT: &str = "$godot_bin::Object";
/// An Object sent as its instance id.
pub(crate) const OBJECT_ID: &str = "$godot_bin::ObjectId";
/// A typed Array: `(kind, type tag, class name, items)`.
pub(crate) const TYPED_ARRAY: &str = "$godot_bin::TypedArray";
/// A typed Dictionary: `(key kind, key tag, key class, value kind, value tag, value class, entries)`.
pub(crate) const TYPED_DICTIONARY: &str = "$godot_bin::TypedDictionary";

/// A marker that stands for one Godot type.
pub(crate) fn marker_type(name: &str) -> Option<VariantType> {
    // Cheap reject for every ordinary Rust type name.
    if !name.starts_with('$') {
        return None;
    }
    let rest = name.strip_prefix(PREFIX)?;
    // `Object` has markers of its own (full form, id form).
    VariantType::all()
        .iter()
        .copied()
        .find(|t| t.name() == rest)
        .filter(|t| *t != VariantType::Object)
}

/// The marker name of a Godot type, for the `Serialize` impls.
macro_rules! godot_marker {
    ($name:literal) => {
        concat!("$godot_bin::", $name)
    };
}
pub(crate) use godot_marker as marker;
