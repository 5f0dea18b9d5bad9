//! `Variant`: any Godot value, decoded without a schema.

mod de;
mod dictionary;
mod display;
mod grisu;
mod object;
mod ser;
mod typed;

use std::hash::{Hash, Hasher};

pub use dictionary::Dictionary;
pub use display::VariantDisplay;
pub use object::Object;
pub use typed::{ContainerType, TypedArray, TypedDictionary};

use crate::dialect::VariantType;
use crate::types::*;

/// Any Godot value, like `serde_json::Value` for Godot bytes.
///
/// Decoding Godot's bytes into a `Variant` and encoding it again gives the bytes Godot
/// itself writes for that value. Dictionaries keep their order and take any key.
/// `Display` prints Godot's `var2str` text.
///
/// Equality is Godot's dictionary-key identity: floats compare with `==`, except that
/// NaN equals NaN (so a NaN key can be found again); `1` and `1.0` differ.
///
/// ```
/// use godot_bin::{Variant, Vector2};
/// let bytes = godot_bin::to_vec(&(1, "a", Vector2::new(1.0, 2.0)))?;
/// let v: Variant = godot_bin::from_slice(&bytes)?;
/// assert_eq!(v.to_string(), r#"[ 1, "a", Vector2( 1, 2 ) ]"#);
/// assert_eq!(godot_bin::to_vec(&v)?, bytes);
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Variant {
    /// `null`.
    #[default]
    Nil,
    /// `bool`.
    Bool(bool),
    /// `int`.
    Int(i64),
    /// `float` (a double).
    Float(f64),
    /// `String`.
    String(String),
    /// `Vector2`.
    Vector2(Vector2),
    /// `Rect2`.
    Rect2(Rect2),
    /// `Vector3`.
    Vector3(Vector3),
    /// `Transform2D`.
    Transform2D(Transform2D),
    /// `Plane`.
    Plane(Plane),
    /// `Quat`.
    Quat(Quat),
    /// `AABB`.
    Aabb(Aabb),
    /// `Basis`.
    Basis(Box<Basis>),
    /// `Transform`.
    Transform(Box<Transform>),
    /// `Color`.
    Color(Color),
    /// `NodePath`.
    NodePath(NodePath),
    /// `RID`.
    Rid(Rid),
    /// A full Object: class and stored properties (decoded only with `allow_objects`).
    Object(Box<Object>),
    /// An Object sent as its instance id (Godot's `EncodedObjectAsID`).
    ObjectId(u64),
    /// `Dictionary`.
    Dictionary(Dictionary),
    /// `Array`.
    Array(Vec<Variant>),
    /// `PoolByteArray`.
    PoolByteArray(PoolByteArray),
    /// `PoolIntArray`.
    PoolIntArray(PoolIntArray),
    /// `PoolRealArray`.
    PoolRealArray(PoolRealArray),
    /// `PoolStringArray`.
    PoolStringArray(PoolStringArray),
    /// `PoolVector2Array`.
    PoolVector2Array(PoolVector2Array),
    /// `PoolVector3Array`.
    PoolVector3Array(PoolVector3Array),
    /// `PoolColorArray`.
    PoolColorArray(PoolColorArray),
    /// `Vector2i` (Godot 4).
    Vector2i(Vector2i),
    /// `Rect2i` (Godot 4).
    Rect2i(Rect2i),
    /// `Vector3i` (Godot 4).
    Vector3i(Vector3i),
    /// `Vector4` (Godot 4).
    Vector4(Vector4),
    /// `Vector4i` (Godot 4).
    Vector4i(Vector4i),
    /// `Projection` (Godot 4).
    Projection(Box<Projection>),
    /// `StringName` (Godot 4).
    StringName(StringName),
    /// `Callable` (Godot 4; sent empty).
    Callable(Callable),
    /// `Signal` (Godot 4).
    Signal(Box<Signal>),
    /// `PackedInt64Array` (Godot 4).
    PackedInt64Array(PackedInt64Array),
    /// `PackedFloat64Array` (Godot 4).
    PackedFloat64Array(PackedFloat64Array),
    /// `PackedVector4Array` (Godot 4.3+).
    PackedVector4Array(PackedVector4Array),
    /// A typed `Array[T]` (Godot 4.3+).
    TypedArray(Box<TypedArray>),
    /// A typed `Dictionary[K, V]` (Godot 4.4+).
    TypedDictionary(Box<TypedDictionary>),
    /// `Image` (Godot 2).
    Image(Box<Image>),
    /// `InputEvent` (Godot 2).
    InputEvent(InputEvent),
}

impl Variant {
    /// The Godot type of the value.
    pub fn get_type(&self) -> VariantType {
        match self {
            Variant::Nil => VariantType::Nil,
            Variant::Bool(_) => VariantType::Bool,
            Variant::Int(_) => VariantType::Int,
            Variant::Float(_) => VariantType::Float,
            Variant::String(_) => VariantType::String,
            Variant::Vector2(_) => VariantType::Vector2,
            Variant::Rect2(_) => VariantType::Rect2,
            Variant::Vector3(_) => VariantType::Vector3,
            Variant::Transform2D(_) => VariantType::Transform2D,
            Variant::Plane(_) => VariantType::Plane,
            Variant::Quat(_) => VariantType::Quat,
            Variant::Aabb(_) => VariantType::Aabb,
            Variant::Basis(_) => VariantType::Basis,
            Variant::Transform(_) => VariantType::Transform,
            Variant::Color(_) => VariantType::Color,
            Variant::NodePath(_) => VariantType::NodePath,
            Variant::Rid(_) => VariantType::Rid,
            Variant::Object(_) | Variant::ObjectId(_) => VariantType::Object,
            Variant::Dictionary(_) => VariantType::Dictionary,
            Variant::Array(_) => VariantType::Array,
            Variant::PoolByteArray(_) => VariantType::PoolByteArray,
            Variant::PoolIntArray(_) => VariantType::PoolIntArray,
            Variant::PoolRealArray(_) => VariantType::PoolRealArray,
            Variant::PoolStringArray(_) => VariantType::PoolStringArray,
            Variant::PoolVector2Array(_) => VariantType::PoolVector2Array,
            Variant::PoolVector3Array(_) => VariantType::PoolVector3Array,
            Variant::PoolColorArray(_) => VariantType::PoolColorArray,
            Variant::Vector2i(_) => VariantType::Vector2i,
            Variant::Rect2i(_) => VariantType::Rect2i,
            Variant::Vector3i(_) => VariantType::Vector3i,
            Variant::Vector4(_) => VariantType::Vector4,
            Variant::Vector4i(_) => VariantType::Vector4i,
            Variant::Projection(_) => VariantType::Projection,
            Variant::StringName(_) => VariantType::StringName,
            Variant::Callable(_) => VariantType::Callable,
            Variant::Signal(_) => VariantType::Signal,
            Variant::PackedInt64Array(_) => VariantType::PackedInt64Array,
            Variant::PackedFloat64Array(_) => VariantType::PackedFloat64Array,
            Variant::PackedVector4Array(_) => VariantType::PackedVector4Array,
            Variant::TypedArray(_) => VariantType::Array,
            Variant::TypedDictionary(_) => VariantType::Dictionary,
            Variant::Image(_) => VariantType::Image,
            Variant::InputEvent(_) => VariantType::InputEvent,
        }
    }

    /// Whether this is `null`.
    pub fn is_nil(&self) -> bool {
        matches!(self, Variant::Nil)
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Variant::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The int, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Variant::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The number as a float, if this is an int or a float.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Variant::Float(f) => Some(*f),
            Variant::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Variant::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an Array (typed or not).
    pub fn as_array(&self) -> Option<&Vec<Variant>> {
        match self {
            Variant::Array(a) => Some(a),
            Variant::TypedArray(a) => Some(&a.items),
            _ => None,
        }
    }

    /// The dictionary, if this is one (typed or not).
    pub fn as_dictionary(&self) -> Option<&Dictionary> {
        match self {
            Variant::Dictionary(d) => Some(d),
            Variant::TypedDictionary(d) => Some(&d.entries),
            _ => None,
        }
    }

    /// `self[key]` for a Dictionary with String keys; `None` for anything else.
    pub fn get(&self, key: &str) -> Option<&Variant> {
        self.as_dictionary()?.get(&Variant::from(key))
    }
}

/// Godot's `hash_compare` for floats: `==`, and NaN equals NaN.
fn float_eq(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn floats_eq<T: Floats>(a: &T, b: &T) -> bool {
    a.floats()
        .zip(b.floats())
        .all(|(x, y)| float_eq(x.into(), y.into()))
}

/// Hash consistent with `float_eq`: one NaN, one zero.
fn hash_float<H: Hasher>(f: f64, h: &mut H) {
    let bits = if f.is_nan() {
        f64::NAN.to_bits()
    } else if f == 0.0 {
        0
    } else {
        f.to_bits()
    };
    bits.hash(h);
}

fn hash_floats<T: Floats, H: Hasher>(v: &T, h: &mut H) {
    for f in v.floats() {
        hash_float(f.into(), h);
    }
}

impl PartialEq for Variant {
    fn eq(&self, other: &Variant) -> bool {
        use Variant::*;
        match (self, other) {
            (Nil, Nil) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => float_eq(*a, *b),
            (String(a), String(b)) => a == b,
            (Vector2(a), Vector2(b)) => floats_eq(a, b),
            (Rect2(a), Rect2(b)) => floats_eq(a, b),
            (Vector3(a), Vector3(b)) => floats_eq(a, b),
            (Transform2D(a), Transform2D(b)) => floats_eq(a, b),
            (Plane(a), Plane(b)) => floats_eq(a, b),
            (Quat(a), Quat(b)) => floats_eq(a, b),
            (Aabb(a), Aabb(b)) => floats_eq(a, b),
            (Basis(a), Basis(b)) => floats_eq(&**a, &**b),
            (Transform(a), Transform(b)) => floats_eq(&**a, &**b),
            (Color(a), Color(b)) => floats_eq(a, b),
            (NodePath(a), NodePath(b)) => a == b,
            (Rid(a), Rid(b)) => a == b,
            (Object(a), Object(b)) => a == b,
            (ObjectId(a), ObjectId(b)) => a == b,
            (Dictionary(a), Dictionary(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (PoolByteArray(a), PoolByteArray(b)) => a == b,
            (PoolIntArray(a), PoolIntArray(b)) => a == b,
            (PoolRealArray(a), PoolRealArray(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| float_eq((*x).into(), (*y).into()))
            }
            (PoolStringArray(a), PoolStringArray(b)) => a == b,
            (PoolVector2Array(a), PoolVector2Array(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| floats_eq(x, y))
            }
            (PoolVector3Array(a), PoolVector3Array(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| floats_eq(x, y))
            }
            (PoolColorArray(a), PoolColorArray(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| floats_eq(x, y))
            }
            (Vector2i(a), Vector2i(b)) => a == b,
            (Rect2i(a), Rect2i(b)) => a == b,
            (Vector3i(a), Vector3i(b)) => a == b,
            (Vector4(a), Vector4(b)) => floats_eq(a, b),
            (Vector4i(a), Vector4i(b)) => a == b,
            (Projection(a), Projection(b)) => floats_eq(&**a, &**b),
            (StringName(a), StringName(b)) => a == b,
            (Callable(a), Callable(b)) => a == b,
            (Signal(a), Signal(b)) => a == b,
            (PackedInt64Array(a), PackedInt64Array(b)) => a == b,
            (PackedFloat64Array(a), PackedFloat64Array(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| float_eq(*x, *y))
            }
            (PackedVector4Array(a), PackedVector4Array(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| floats_eq(x, y))
            }
            (TypedArray(a), TypedArray(b)) => a == b,
            (TypedDictionary(a), TypedDictionary(b)) => a == b,
            (Image(a), Image(b)) => a == b,
            (InputEvent(a), InputEvent(b)) => {
                a.device == b.device && a.kind.words() == b.kind.words()
            }
            _ => false,
        }
    }
}

impl Eq for Variant {}

impl Hash for Variant {
    fn hash<H: Hasher>(&self, h: &mut H) {
        use Variant::*;
        std::mem::discriminant(self).hash(h);
        match self {
            Nil => {}
            Bool(b) => b.hash(h),
            Int(i) => i.hash(h),
            Float(f) => hash_float(*f, h),
            String(s) => s.hash(h),
            Vector2(v) => hash_floats(v, h),
            Rect2(v) => hash_floats(v, h),
            Vector3(v) => hash_floats(v, h),
            Transform2D(v) => hash_floats(v, h),
            Plane(v) => hash_floats(v, h),
            Quat(v) => hash_floats(v, h),
            Aabb(v) => hash_floats(v, h),
            Basis(v) => hash_floats(&**v, h),
            Transform(v) => hash_floats(&**v, h),
            Color(v) => hash_floats(v, h),
            NodePath(p) => p.hash(h),
            Rid(r) => r.hash(h),
            Object(o) => o.hash(h),
            ObjectId(id) => id.hash(h),
            Dictionary(d) => d.hash(h),
            Array(a) => a.hash(h),
            PoolByteArray(a) => a.0.hash(h),
            PoolIntArray(a) => a.0.hash(h),
            PoolRealArray(a) => a.iter().for_each(|f| hash_float((*f).into(), h)),
            PoolStringArray(a) => a.0.hash(h),
            PoolVector2Array(a) => a.iter().for_each(|v| hash_floats(v, h)),
            PoolVector3Array(a) => a.iter().for_each(|v| hash_floats(v, h)),
            PoolColorArray(a) => a.iter().for_each(|v| hash_floats(v, h)),
            Vector2i(v) => v.hash(h),
            Rect2i(v) => v.hash(h),
            Vector3i(v) => v.hash(h),
            Vector4(v) => hash_floats(v, h),
            Vector4i(v) => v.hash(h),
            Projection(v) => hash_floats(&**v, h),
            StringName(v) => v.hash(h),
            Callable(v) => v.hash(h),
            Signal(v) => v.hash(h),
            PackedInt64Array(a) => a.0.hash(h),
            PackedFloat64Array(a) => a.iter().for_each(|f| hash_float(*f, h)),
            PackedVector4Array(a) => a.iter().for_each(|v| hash_floats(v, h)),
            TypedArray(a) => a.hash(h),
            TypedDictionary(d) => d.hash(h),
            Image(i) => i.hash(h),
            InputEvent(e) => e.hash(h),
        }
    }
}

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

impl From<i32> for Variant {
    fn from(v: i32) -> Self {
        Variant::Int(v.into())
    }
}

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
