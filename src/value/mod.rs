//! `Variant`: any Godot value, decoded without a schema.

mod conform;
mod de;
mod dictionary;
mod display;
mod from;
mod from_variant;
mod grisu;
mod hash;
mod object;
mod order;
mod partial_eq;
mod resource;
mod ser;
mod sort;
mod to_variant;
mod typed;

pub(crate) use conform::{c_int32, c_int64, c_uint64, conform_all};
pub(crate) use de::VariantVisitor;
pub use dictionary::{Dictionary, IntoIter as DictionaryIntoIter, Iter as DictionaryIter};
pub use display::VariantDisplay;
pub(crate) use from_variant::VariantDeserializer;
pub use object::Object;
pub use resource::ResourceRef;
pub(crate) use to_variant::{is_variant_serializer, VariantSerializer};
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
    /// `Resource(...)`, `ExtResource(...)` or `SubResource(...)` read from text: a
    /// reference, never loaded, with no binary form (encoding it is an error).
    ResourceRef(Box<ResourceRef>),
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
            Variant::ResourceRef(_) => VariantType::Object,
        }
    }

    /// Whether this is `null`.
    pub fn is_nil(&self) -> bool {
        matches!(self, Variant::Nil)
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        if let Variant::Bool(b) = self {
            Some(*b)
        } else {
            None
        }
    }

    /// The int, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        if let Variant::Int(i) = self {
            Some(*i)
        } else {
            None
        }
    }

    /// The number as a float, if this is an int or a float.
    pub fn as_float(&self) -> Option<f64> {
        if let Variant::Float(f) = self {
            Some(*f)
        } else {
            self.as_int().map(|i| i as f64)
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        if let Variant::String(s) = self {
            Some(s)
        } else {
            None
        }
    }

    /// The text of a String or a StringName.
    pub(crate) fn as_str_like(&self) -> Option<&std::string::String> {
        match self {
            Variant::String(s) | Variant::StringName(crate::StringName(s)) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an Array (typed or not).
    pub fn as_array(&self) -> Option<&Vec<Variant>> {
        if let Variant::Array(a) = self {
            Some(a)
        } else if let Variant::TypedArray(a) = self {
            Some(&a.items)
        } else {
            None
        }
    }

    /// The dictionary, if this is one (typed or not).
    pub fn as_dictionary(&self) -> Option<&Dictionary> {
        if let Variant::Dictionary(d) = self {
            Some(d)
        } else if let Variant::TypedDictionary(d) = self {
            Some(&d.entries)
        } else {
            None
        }
    }

    /// `self[key]` for a Dictionary with String keys; `None` for anything else.
    pub fn get(&self, key: &str) -> Option<&Variant> {
        self.as_dictionary()?.get(&Variant::from(key))
    }
}
