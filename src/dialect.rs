//! Type ids per Godot version: the one place that knows which number means which type.

use std::fmt;

/// Which engine's wire format to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// Godot 2.0 – 2.1: bare type ids, 32-bit ints and floats, Image and InputEvent.
    Godot2,
    /// Godot 3.1 – 3.6 (`var2bytes`, `store_var`, `put_var`). The default.
    #[default]
    Godot3,
    /// Godot 4.0 – 4.6 (`var_to_bytes`): new ids and types, typed containers (4.3+, 4.4+).
    Godot4,
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
    /// `Vector2i` (Godot 4).
    Vector2i,
    /// `Rect2i` (Godot 4).
    Rect2i,
    /// `Vector3i` (Godot 4).
    Vector3i,
    /// `Vector4` (Godot 4).
    Vector4,
    /// `Vector4i` (Godot 4).
    Vector4i,
    /// `Projection` (Godot 4).
    Projection,
    /// `StringName` (Godot 4).
    StringName,
    /// `Callable` (Godot 4; the engine writes no payload).
    Callable,
    /// `Signal` (Godot 4).
    Signal,
    /// `PackedInt64Array` (Godot 4).
    PackedInt64Array,
    /// `PackedFloat64Array` (Godot 4).
    PackedFloat64Array,
    /// `PackedVector4Array` (Godot 4.3+).
    PackedVector4Array,
    /// `Image` (Godot 2).
    Image,
    /// `InputEvent` (Godot 2).
    InputEvent,
}

/// Every type, in declaration order: a type's position is its tag (`ty as u32`).
const ALL: [VariantType; 41] = [
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
    VariantType::Vector2i,
    VariantType::Rect2i,
    VariantType::Vector3i,
    VariantType::Vector4,
    VariantType::Vector4i,
    VariantType::Projection,
    VariantType::StringName,
    VariantType::Callable,
    VariantType::Signal,
    VariantType::PackedInt64Array,
    VariantType::PackedFloat64Array,
    VariantType::PackedVector4Array,
    VariantType::Image,
    VariantType::InputEvent,
];

/// Godot 2's `Variant::Type` order (core/variant.h, 2.0 – 2.1).
const GODOT2: [VariantType; 29] = [
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
    VariantType::Image,
    VariantType::NodePath,
    VariantType::Rid,
    VariantType::Object,
    VariantType::InputEvent,
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

/// Godot 4's `Variant::Type` order (core/variant/variant.h, 4.3 – 4.6; 4.0 – 4.2 lack
/// the last one). The engine, not the 4.x docs page, is right about these.
const GODOT4: [VariantType; 39] = [
    VariantType::Nil,
    VariantType::Bool,
    VariantType::Int,
    VariantType::Float,
    VariantType::String,
    VariantType::Vector2,
    VariantType::Vector2i,
    VariantType::Rect2,
    VariantType::Rect2i,
    VariantType::Vector3,
    VariantType::Vector3i,
    VariantType::Transform2D,
    VariantType::Vector4,
    VariantType::Vector4i,
    VariantType::Plane,
    VariantType::Quat,
    VariantType::Aabb,
    VariantType::Basis,
    VariantType::Transform,
    VariantType::Projection,
    VariantType::Color,
    VariantType::StringName,
    VariantType::NodePath,
    VariantType::Rid,
    VariantType::Object,
    VariantType::Callable,
    VariantType::Signal,
    VariantType::Dictionary,
    VariantType::Array,
    VariantType::PoolByteArray,
    VariantType::PoolIntArray,
    VariantType::PackedInt64Array,
    VariantType::PoolRealArray,
    VariantType::PackedFloat64Array,
    VariantType::PoolStringArray,
    VariantType::PoolVector2Array,
    VariantType::PoolVector3Array,
    VariantType::PoolColorArray,
    VariantType::PackedVector4Array,
];

/// Wire id of each type (by tag) in a dialect's table; `NONE` where it has no such type.
const fn reverse<const N: usize>(table: &[VariantType; N]) -> [u8; ALL.len()] {
    let mut out = [NONE; ALL.len()];
    let mut i = 0;
    while i < N {
        out[table[i] as usize] = i as u8;
        i += 1;
    }
    out
}

const NONE: u8 = u8::MAX;
const GODOT2_IDS: [u8; ALL.len()] = reverse(&GODOT2);
const GODOT3_IDS: [u8; ALL.len()] = reverse(&GODOT3);
const GODOT4_IDS: [u8; ALL.len()] = reverse(&GODOT4);

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
    fn table(self) -> (&'static [VariantType], &'static [u8; ALL.len()]) {
        match self {
            Dialect::Godot2 => (&GODOT2, &GODOT2_IDS),
            Dialect::Godot3 => (&GODOT3, &GODOT3_IDS),
            Dialect::Godot4 => (&GODOT4, &GODOT4_IDS),
        }
    }

    /// The type a wire id stands for, if any.
    #[inline]
    pub fn type_of(self, id: u32) -> Option<VariantType> {
        self.table().0.get(id as usize).copied()
    }

    /// The wire id of a type, if the dialect has it.
    #[inline]
    pub fn id_of(self, ty: VariantType) -> Option<u32> {
        match self.table().1[ty as usize] {
            NONE => None,
            id => Some(id.into()),
        }
    }

    /// The types this dialect knows, in wire id order.
    pub fn types(self) -> &'static [VariantType] {
        self.table().0
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
            VariantType::Vector2i => "Vector2i",
            VariantType::Rect2i => "Rect2i",
            VariantType::Vector3i => "Vector3i",
            VariantType::Vector4 => "Vector4",
            VariantType::Vector4i => "Vector4i",
            VariantType::Projection => "Projection",
            VariantType::StringName => "StringName",
            VariantType::Callable => "Callable",
            VariantType::Signal => "Signal",
            VariantType::PackedInt64Array => "PackedInt64Array",
            VariantType::PackedFloat64Array => "PackedFloat64Array",
            VariantType::PackedVector4Array => "PackedVector4Array",
            VariantType::Image => "Image",
            VariantType::InputEvent => "InputEvent",
        }
    }

    /// The name a dialect's engine uses (`Quaternion`, `PackedFloat32Array` in Godot 4).
    pub fn name_in(self, dialect: Dialect) -> &'static str {
        if dialect != Dialect::Godot4 {
            return self.name();
        }
        match self {
            VariantType::Quat => "Quaternion",
            VariantType::Transform => "Transform3D",
            VariantType::PoolByteArray => "PackedByteArray",
            VariantType::PoolIntArray => "PackedInt32Array",
            VariantType::PoolRealArray => "PackedFloat32Array",
            VariantType::PoolStringArray => "PackedStringArray",
            VariantType::PoolVector2Array => "PackedVector2Array",
            VariantType::PoolVector3Array => "PackedVector3Array",
            VariantType::PoolColorArray => "PackedColorArray",
            t => t.name(),
        }
    }

    /// The type with this tag (`ty as u32`).
    pub(crate) fn from_tag(tag: u32) -> Option<VariantType> {
        ALL.get(tag as usize).copied()
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
            VariantType::Vector4 => 4,
            VariantType::Projection => 16,
            _ => return None,
        })
    }

    /// Number of `i32` in the payload of a fixed-size integer vector type.
    pub(crate) fn int_count(self) -> Option<usize> {
        Some(match self {
            VariantType::Vector2i => 2,
            VariantType::Rect2i => 4,
            VariantType::Vector3i => 3,
            VariantType::Vector4i => 4,
            _ => return None,
        })
    }

    /// Whether a double-precision engine writes this type with 64-bit reals (every
    /// float math type but Color).
    pub(crate) fn has_reals(self) -> bool {
        matches!(
            self,
            VariantType::Vector2
                | VariantType::Rect2
                | VariantType::Vector3
                | VariantType::Transform2D
                | VariantType::Vector4
                | VariantType::Plane
                | VariantType::Quat
                | VariantType::Aabb
                | VariantType::Basis
                | VariantType::Transform
                | VariantType::Projection
                | VariantType::PoolVector2Array
                | VariantType::PoolVector3Array
                | VariantType::PackedVector4Array
        )
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
            VariantType::PackedInt64Array => PoolElem::Int64,
            VariantType::PackedFloat64Array => PoolElem::Float64,
            VariantType::PackedVector4Array => PoolElem::Floats(4, VariantType::Vector4),
            _ => return None,
        })
    }

    /// Every type of every dialect.
    pub fn all() -> &'static [VariantType] {
        &ALL
    }
}

/// What one element of a pool array is on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolElem {
    Byte,
    Int32,
    Int64,
    Float32,
    Float64,
    String,
    /// n reals making one value of the given math type (f32; f64 in double builds).
    Floats(usize, VariantType),
    /// n reals of 64 bits (a double-precision engine's math type).
    Doubles(usize, VariantType),
}

impl PoolElem {
    /// The smallest number of bytes one element takes, to bound counts by the input size.
    pub(crate) fn min_size(self) -> usize {
        match self {
            PoolElem::Byte => 1,
            PoolElem::Int32 | PoolElem::Float32 | PoolElem::String => 4,
            PoolElem::Int64 | PoolElem::Float64 => 8,
            PoolElem::Floats(n, _) => 4 * n,
            PoolElem::Doubles(n, _) => 8 * n,
        }
    }

    /// The Variant type one element reads as in a dynamic context.
    pub(crate) fn variant_type(self) -> VariantType {
        match self {
            PoolElem::Byte | PoolElem::Int32 | PoolElem::Int64 => VariantType::Int,
            PoolElem::Float32 | PoolElem::Float64 => VariantType::Float,
            PoolElem::String => VariantType::String,
            PoolElem::Floats(_, t) | PoolElem::Doubles(_, t) => t,
        }
    }
}

impl fmt::Display for VariantType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
