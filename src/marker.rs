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
#[inline]
pub(crate) fn marker_type(name: &str) -> Option<VariantType> {
    // Cheap reject for every ordinary Rust type name.
    if !name.starts_with('$') {
        return None;
    }
    // A `match` on the name compiles to a length switch and a compare: this runs for
    // every Vector3 a game server writes. `Object` has markers of its own.
    Some(match name.strip_prefix(PREFIX)? {
        "Vector2" => VariantType::Vector2,
        "Rect2" => VariantType::Rect2,
        "Vector3" => VariantType::Vector3,
        "Transform2D" => VariantType::Transform2D,
        "Plane" => VariantType::Plane,
        "Quat" => VariantType::Quat,
        "AABB" => VariantType::Aabb,
        "Basis" => VariantType::Basis,
        "Transform" => VariantType::Transform,
        "Color" => VariantType::Color,
        "NodePath" => VariantType::NodePath,
        "RID" => VariantType::Rid,
        "PoolByteArray" => VariantType::PoolByteArray,
        "PoolIntArray" => VariantType::PoolIntArray,
        "PoolRealArray" => VariantType::PoolRealArray,
        "PoolStringArray" => VariantType::PoolStringArray,
        "PoolVector2Array" => VariantType::PoolVector2Array,
        "PoolVector3Array" => VariantType::PoolVector3Array,
        "PoolColorArray" => VariantType::PoolColorArray,
        "Vector2i" => VariantType::Vector2i,
        "Rect2i" => VariantType::Rect2i,
        "Vector3i" => VariantType::Vector3i,
        "Vector4" => VariantType::Vector4,
        "Vector4i" => VariantType::Vector4i,
        "Projection" => VariantType::Projection,
        "StringName" => VariantType::StringName,
        "Callable" => VariantType::Callable,
        "Signal" => VariantType::Signal,
        "PackedInt64Array" => VariantType::PackedInt64Array,
        "PackedFloat64Array" => VariantType::PackedFloat64Array,
        "PackedVector4Array" => VariantType::PackedVector4Array,
        "Image" => VariantType::Image,
        "InputEvent" => VariantType::InputEvent,
        _ => return None,
    })
}

/// The marker name of a Godot type, for the `Serialize` impls.
macro_rules! godot_marker {
    ($name:literal) => {
        concat!("$godot_bin::", $name)
    };
}
pub(crate) use godot_marker as marker;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every marker name spelled in the `Serialize` impls resolves to its type.
    #[test]
    fn marker_names_match_type_names() {
        for ty in VariantType::all() {
            let found = marker_type(&format!("{PREFIX}{}", ty.name()));
            let has_marker = !matches!(
                ty,
                VariantType::Nil
                    | VariantType::Bool
                    | VariantType::Int
                    | VariantType::Float
                    | VariantType::String
                    | VariantType::Object
                    | VariantType::Dictionary
                    | VariantType::Array
            );
            assert_eq!(found, has_marker.then_some(*ty), "{ty}");
        }
    }
}
