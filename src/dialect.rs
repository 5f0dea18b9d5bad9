//! Type ids per Godot version: the one place that knows which number means which type.

use std::fmt;

/// Which engine's wire format to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// Godot 3.1 – 3.6 (`var2bytes`, `store_var`, `put_var`). The default.
    #[default]
    Godot3,
}

/// A Godot Variant type, independent of the numbering a dialect gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VariantType {
    /// `null`.
    Nil,
    /// `bool`.
    Bool,
    /// `int` (64-bit in Godot 3).
    Int,
    /// `float` (Godot 3's `REAL`, a double).
    Float,
    /// `String`.
    String,
    /// `Vector2`.
    Vector2,
    /// `Rect2`.
    Rect2,
    /// `Vector3`.
    Vector3,
    /// `Transform2D`.
    Transform2D,
    /// `Plane`.
    Plane,
    /// `Quat`.
    Quat,
    /// `AABB`.
    Aabb,
    /// `Basis`.
    Basis,
    /// `Transform`.
    Transform,
    /// `Color`.
    Color,
    /// `NodePath`.
    NodePath,
    /// `RID`.
    Rid,
    /// `Object`.
    Object,
    /// `Dictionary`.
    Dictionary,
    /// `Array`.
    Array,
    /// `PoolByteArray`.
    PoolByteArray,
    /// `PoolIntArray`.
    PoolIntArray,
    /// `PoolRealArray`.
    PoolRealArray,
    /// `PoolStringArray`.
    PoolStringArray,
    /// `PoolVector2Array`.
    PoolVector2Array,
    /// `PoolVector3Array`.
    PoolVector3Array,
    /// `PoolColorArray`.
    PoolColorArray,
}

/// Godot 3's `Variant::Type` order (core/variant.h, 3.0 – 3.6).
const GODOT3: [VariantType; 27] = [
    VariantType::Nil,
    VariantType::Bool,
    VariantType::Int,
    VariantType::Float,
    VariantType::String,
    VariantType::Vector2,
    VariantType::Rect2,
    VariantType::Vector3,
    VariantType::Transform2D,
    VariantType::Plane,
    VariantType::Quat,
    VariantType::Aabb,
    VariantType::Basis,
    VariantType::Transform,
    VariantType::Color,
    VariantType::NodePath,
    VariantType::Rid,
    VariantType::Object,
    VariantType::Dictionary,
    VariantType::Array,
    VariantType::PoolByteArray,
    VariantType::PoolIntArray,
    VariantType::PoolRealArray,
    VariantType::PoolStringArray,
    VariantType::PoolVector2Array,
    VariantType::PoolVector3Array,
    VariantType::PoolColorArray,
];

/// Bits 0–7 of a header hold the type id.
pub(crate) const TYPE_MASK: u32 = 0xFF;
/// Bit 16: 64-bit payload for INT and FLOAT; "as id" for OBJECT.
pub(crate) const FLAG_64: u32 = 1 << 16;

impl Dialect {
    /// The type a wire id stands for, if any.
    pub fn type_of(self, id: u32) -> Option<VariantType> {
        match self {
            Dialect::Godot3 => GODOT3.get(id as usize).copied(),
        }
    }

    /// The wire id of a type, if the dialect has it.
    pub fn id_of(self, ty: VariantType) -> Option<u32> {
        match self {
            // The table is small and sorted by id; the type's position is its id.
            Dialect::Godot3 => GODOT3.iter().position(|t| *t == ty).map(|i| i as u32),
        }
    }
}

impl VariantType {
    /// Godot's own name for the type, as `typeof` / the docs spell it.
    pub fn name(self) -> &'static str {
        match self {
            VariantType::Nil => "null",
            VariantType::Bool => "bool",
            VariantType::Int => "int",
            VariantType::Float => "float",
            VariantType::String => "String",
            VariantType::Vector2 => "Vector2",
            VariantType::Rect2 => "Rect2",
            VariantType::Vector3 => "Vector3",
            VariantType::Transform2D => "Transform2D",
            VariantType::Plane => "Plane",
            VariantType::Quat => "Quat",
            VariantType::Aabb => "AABB",
            VariantType::Basis => "Basis",
            VariantType::Transform => "Transform",
            VariantType::Color => "Color",
            VariantType::NodePath => "NodePath",
            VariantType::Rid => "RID",
            VariantType::Object => "Object",
            VariantType::Dictionary => "Dictionary",
            VariantType::Array => "Array",
            VariantType::PoolByteArray => "PoolByteArray",
            VariantType::PoolIntArray => "PoolIntArray",
            VariantType::PoolRealArray => "PoolRealArray",
            VariantType::PoolStringArray => "PoolStringArray",
            VariantType::PoolVector2Array => "PoolVector2Array",
            VariantType::PoolVector3Array => "PoolVector3Array",
            VariantType::PoolColorArray => "PoolColorArray",
        }
    }

    /// Number of `f32` in the payload of a fixed-size math type.
    pub(crate) fn float_count(self) -> Option<usize> {
        Some(match self {
            VariantType::Vector2 => 2,
            VariantType::Rect2 => 4,
            VariantType::Vector3 => 3,
            VariantType::Transform2D => 6,
            VariantType::Plane => 4,
            VariantType::Quat => 4,
            VariantType::Aabb => 6,
            VariantType::Basis => 9,
            VariantType::Transform => 12,
            VariantType::Color => 4,
            _ => return None,
        })
    }

    /// Element layout of a pool array type.
    pub(crate) fn pool_elem(self) -> Option<PoolElem> {
        Some(match self {
            VariantType::PoolByteArray => PoolElem::Byte,
            VariantType::PoolIntArray => PoolElem::Int32,
            VariantType::PoolRealArray => PoolElem::Float32,
            VariantType::PoolStringArray => PoolElem::String,
            VariantType::PoolVector2Array => PoolElem::Floats(2, VariantType::Vector2),
            VariantType::PoolVector3Array => PoolElem::Floats(3, VariantType::Vector3),
            VariantType::PoolColorArray => PoolElem::Floats(4, VariantType::Color),
            _ => return None,
        })
    }

    /// All types, in Godot 3 id order.
    pub fn all() -> &'static [VariantType] {
        &GODOT3
    }
}

/// What one element of a pool array is on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolElem {
    Byte,
    Int32,
    Float32,
    String,
    /// n `f32` making one value of the given math type.
    Floats(usize, VariantType),
}

impl PoolElem {
    /// The smallest number of bytes one element takes, to bound counts by the input size.
    pub(crate) fn min_size(self) -> usize {
        match self {
            PoolElem::Byte => 1,
            PoolElem::Int32 | PoolElem::Float32 | PoolElem::String => 4,
            PoolElem::Floats(n, _) => 4 * n,
        }
    }

    /// The Variant type one element reads as in a dynamic context.
    pub(crate) fn variant_type(self) -> VariantType {
        match self {
            PoolElem::Byte | PoolElem::Int32 => VariantType::Int,
            PoolElem::Float32 => VariantType::Float,
            PoolElem::String => VariantType::String,
            PoolElem::Floats(_, t) => t,
        }
    }
}

impl fmt::Display for VariantType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
