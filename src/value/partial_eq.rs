//! `PartialEq` for `Variant`: Godot's dictionary-key identity (`hash_compare`, and
//! Godot 4's `StringLikeVariantComparator`): a typed and an untyped container with
//! the same contents are one key, as are a String and a StringName with the same text.

use super::Variant;
use crate::types::Floats;

/// Godot's `hash_compare` for floats: `==`, and NaN equals NaN.
fn float_eq(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn floats_eq<T: Floats>(a: &T, b: &T) -> bool {
    a.floats()
        .zip(b.floats())
        .all(|(x, y)| float_eq(x.into(), y.into()))
}

/// Element-wise equality of two float-carrying slices.
fn all_eq<T>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y))
}

impl PartialEq for Variant {
    fn eq(&self, other: &Variant) -> bool {
        use Variant::*;
        // Exhaustive over `self`: a new variant does not compile until it says how it compares.
        match self {
            Nil => matches!(other, Nil),
            Bool(a) => matches!(other, Bool(b) if a == b),
            Int(a) => matches!(other, Int(b) if a == b),
            Float(a) => matches!(other, Float(b) if float_eq(*a, *b)),
            String(a) => other.as_str_like() == Some(a),
            Vector2(a) => matches!(other, Vector2(b) if floats_eq(a, b)),
            Rect2(a) => matches!(other, Rect2(b) if floats_eq(a, b)),
            Vector3(a) => matches!(other, Vector3(b) if floats_eq(a, b)),
            Transform2D(a) => matches!(other, Transform2D(b) if floats_eq(a, b)),
            Plane(a) => matches!(other, Plane(b) if floats_eq(a, b)),
            Quat(a) => matches!(other, Quat(b) if floats_eq(a, b)),
            Aabb(a) => matches!(other, Aabb(b) if floats_eq(a, b)),
            Basis(a) => matches!(other, Basis(b) if floats_eq(&**a, &**b)),
            Transform(a) => matches!(other, Transform(b) if floats_eq(&**a, &**b)),
            Color(a) => matches!(other, Color(b) if floats_eq(a, b)),
            NodePath(a) => matches!(other, NodePath(b) if a == b),
            Rid(a) => matches!(other, Rid(b) if a == b),
            Object(a) => matches!(other, Object(b) if a == b),
            ObjectId(a) => matches!(other, ObjectId(b) if a == b),
            Dictionary(a) => other.as_dictionary() == Some(a),
            Array(a) => other.as_array() == Some(a),
            PoolByteArray(a) => matches!(other, PoolByteArray(b) if a == b),
            PoolIntArray(a) => matches!(other, PoolIntArray(b) if a == b),
            PoolRealArray(a) => matches!(other, PoolRealArray(b)
                if all_eq(a, b, |x, y| float_eq((*x).into(), (*y).into()))),
            PoolStringArray(a) => matches!(other, PoolStringArray(b) if a == b),
            PoolVector2Array(a) => matches!(other, PoolVector2Array(b) if all_eq(a, b, floats_eq)),
            PoolVector3Array(a) => matches!(other, PoolVector3Array(b) if all_eq(a, b, floats_eq)),
            PoolColorArray(a) => matches!(other, PoolColorArray(b) if all_eq(a, b, floats_eq)),
            Vector2i(a) => matches!(other, Vector2i(b) if a == b),
            Rect2i(a) => matches!(other, Rect2i(b) if a == b),
            Vector3i(a) => matches!(other, Vector3i(b) if a == b),
            Vector4(a) => matches!(other, Vector4(b) if floats_eq(a, b)),
            Vector4i(a) => matches!(other, Vector4i(b) if a == b),
            Projection(a) => matches!(other, Projection(b) if floats_eq(&**a, &**b)),
            StringName(a) => other.as_str_like() == Some(&a.0),
            Callable(a) => matches!(other, Callable(b) if a == b),
            Signal(a) => matches!(other, Signal(b) if a == b),
            PackedInt64Array(a) => matches!(other, PackedInt64Array(b) if a == b),
            PackedFloat64Array(a) => matches!(other, PackedFloat64Array(b)
                if all_eq(a, b, |x, y| float_eq(*x, *y))),
            PackedVector4Array(a) => {
                matches!(other, PackedVector4Array(b) if all_eq(a, b, floats_eq))
            }
            TypedArray(a) => other.as_array() == Some(&a.items),
            TypedDictionary(a) => other.as_dictionary() == Some(&a.entries),
            Image(a) => matches!(other, Image(b) if a == b),
            ResourceRef(a) => matches!(other, ResourceRef(b) if a == b),
            InputEvent(a) => matches!(other, InputEvent(b)
                if a.device == b.device && a.kind.words() == b.kind.words()),
        }
    }
}

impl Eq for Variant {}
