//! Conversions into `Variant`.

use super::{Dictionary, Object, TypedArray, TypedDictionary, Variant};
use crate::types::*;

macro_rules! from_impls {
    ($($t:ty => $v:ident),* $(,)?) => {
        $(impl From<$t> for Variant {
            fn from(v: $t) -> Self {
                Variant::$v(v)
            }
        })*
    };
}

from_impls!(
    bool => Bool, i64 => Int, f64 => Float, String => String, Vector2 => Vector2,
    Rect2 => Rect2, Vector3 => Vector3, Transform2D => Transform2D, Plane => Plane,
    Quat => Quat, Aabb => Aabb, Color => Color,
    NodePath => NodePath, Rid => Rid, Dictionary => Dictionary,
    Vec<Variant> => Array, PoolByteArray => PoolByteArray, PoolIntArray => PoolIntArray,
    PoolRealArray => PoolRealArray, PoolStringArray => PoolStringArray,
    PoolVector2Array => PoolVector2Array, PoolVector3Array => PoolVector3Array,
    PoolColorArray => PoolColorArray, Vector2i => Vector2i, Rect2i => Rect2i, Vector3i => Vector3i,
    Vector4 => Vector4, Vector4i => Vector4i, StringName => StringName,
    Callable => Callable, PackedInt64Array => PackedInt64Array,
    PackedFloat64Array => PackedFloat64Array, PackedVector4Array => PackedVector4Array,
    InputEvent => InputEvent,
);

macro_rules! from_boxed {
    ($($t:ident),*) => {
        $(impl From<$t> for Variant {
            fn from(v: $t) -> Self {
                Variant::$t(Box::new(v))
            }
        })*
    };
}

// Large payloads are boxed so that a Variant stays 32 bytes.
from_boxed!(
    Basis,
    Transform,
    Projection,
    Object,
    Signal,
    TypedArray,
    TypedDictionary,
    Image
);

macro_rules! from_small_ints {
    ($($t:ty),*) => {
        $(impl From<$t> for Variant {
            fn from(v: $t) -> Self {
                Variant::Int(v.into())
            }
        })*
    };
}

from_small_ints!(i8, i16, i32, u8, u16, u32);

impl From<f32> for Variant {
    fn from(v: f32) -> Self {
        Variant::Float(v.into())
    }
}

impl From<&str> for Variant {
    fn from(v: &str) -> Self {
        Variant::String(v.to_owned())
    }
}

impl From<()> for Variant {
    fn from(_: ()) -> Self {
        Variant::Nil
    }
}

impl<T: Into<Variant>> From<Option<T>> for Variant {
    fn from(v: Option<T>) -> Self {
        v.map_or(Variant::Nil, Into::into)
    }
}
