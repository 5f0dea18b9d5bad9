//! The one table of Godot types: every fact the crate knows about a type, in one row.
//!
//! A row gives the type's names in Godot 2, 3 and 4, its wire id in each (`-` where the
//! dialect lacks it), and its payload layout. From it come [`VariantType`], the
//! per-dialect id tables, the names, the marker names and the name lookups. Code that
//! treats types differently matches on [`Layout`], exhaustively, so a new type with an
//! existing layout needs nothing but its row and its Rust struct; a new layout makes
//! the compiler list every place that must learn it.

use crate::dialect::Dialect;

/// What a type's payload looks like on the wire, after its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// No payload.
    Nil,
    /// `u32` 0 or 1.
    Bool,
    /// `i32`, or `i64` with the 64-bit flag.
    Int,
    /// `f32`, or `f64` with the 64-bit flag.
    Float,
    /// Length, UTF-8, padding.
    String,
    /// `n` reals: `f32`, or `f64` (with the 64-bit flag) from double-precision engines.
    Reals(usize),
    /// `n` `f32`, whatever the engine's precision (Color).
    F32s(usize),
    /// `n` `i32` (Vector2i, Rect2i, ...).
    Ints(usize),
    /// Name and subname counts, flags, names.
    NodePath,
    /// Nothing before Godot 4, a `u64` id since.
    Rid,
    /// An instance id (flag set), or class, properties.
    Object,
    /// Count, then key and value Variants (Godot 4: typed-container info first).
    Dictionary,
    /// Count, then Variants (Godot 4: typed-container info first).
    Array,
    /// Count, then headerless elements.
    Pool(PoolElem),
    /// A string, as `StringName`.
    StringName,
    /// Nothing: Godot 4 does not send callables.
    Callable,
    /// Name, object id.
    Signal,
    /// Godot 2: format, mipmaps, width, height, data.
    Image,
    /// Godot 2: type, device, length, extra words.
    InputEvent,
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
    /// One value of a math type (Vector2, Color...), whose layout says how many reals.
    Math(VariantType),
}

/// One row of the table.
pub(crate) struct TypeInfo {
    /// Names in Godot 2, 3, 4.
    pub(crate) names: [&'static str; 3],
    /// Wire ids in Godot 2, 3, 4 ([`NO_ID`] where the dialect lacks the type).
    pub(crate) ids: [u8; 3],
    pub(crate) layout: Layout,
    /// The reserved serde name that carries the type through serde's data model.
    pub(crate) marker: &'static str,
}

/// The id a dialect gives a type it does not have.
pub(crate) const NO_ID: u8 = u8::MAX;

/// The namespace of every reserved serde name (`$` cannot start a Rust type's name).
macro_rules! private_name {
    ($name:expr) => {
        concat!("$godot_bin::private::", $name)
    };
}
pub(crate) use private_name;

macro_rules! id {
    (-) => {
        NO_ID
    };
    ($n:literal) => {
        $n
    };
}

macro_rules! godot_types {
    ($(
        $(#[$doc:meta])*
        $ty:ident: [$n2:literal, $n3:literal, $n4:literal], [$i2:tt, $i3:tt, $i4:tt], $layout:expr;
    )*) => {
        /// A Godot Variant type, independent of the number a dialect gives it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum VariantType {
            $($(#[$doc])* $ty,)*
        }

        /// Every row, in `VariantType` order.
        pub(crate) const TABLE: &[TypeInfo] = &[$(
            TypeInfo {
                names: [$n2, $n3, $n4],
                ids: [id!($i2), id!($i3), id!($i4)],
                layout: $layout,
                marker: private_name!($n3),
            },
        )*];

        /// Every type, in declaration order.
        const ALL: &[VariantType] = &[$(VariantType::$ty,)*];

        impl VariantType {
            /// The type whose marker name, without the private prefix, is `name`.
            #[inline(always)]
            pub(crate) fn from_marker(name: &str) -> Option<VariantType> {
                match name {
                    $($n3 => Some(VariantType::$ty),)*
                    _ => None,
                }
            }

            /// The type a Godot 4 engine calls `name` (`Quaternion`, `PackedFloat32Array`).
            pub(crate) fn from_godot4_name(name: &str) -> Option<VariantType> {
                match name {
                    $($n4 => Some(VariantType::$ty),)*
                    _ => None,
                }
            }
        }
    };
}

use Layout::*;
use PoolElem as P;

godot_types! {
    /// `null`.
    Nil: ["Nil", "Nil", "Nil"], [0, 0, 0], Nil;
    /// `bool`.
    Bool: ["bool", "bool", "bool"], [1, 1, 1], Bool;
    /// `int` (32-bit in Godot 2, 64-bit since).
    Int: ["int", "int", "int"], [2, 2, 2], Int;
    /// `float` (a double since Godot 3).
    Float: ["float", "float", "float"], [3, 3, 3], Float;
    /// `String`.
    String: ["String", "String", "String"], [4, 4, 4], String;
    /// `Vector2`.
    Vector2: ["Vector2", "Vector2", "Vector2"], [5, 5, 5], Reals(2);
    /// `Rect2`.
    Rect2: ["Rect2", "Rect2", "Rect2"], [6, 6, 7], Reals(4);
    /// `Vector3`.
    Vector3: ["Vector3", "Vector3", "Vector3"], [7, 7, 9], Reals(3);
    /// `Transform2D` (Godot 2: `Matrix32`).
    Transform2D: ["Matrix32", "Transform2D", "Transform2D"], [8, 8, 11], Reals(6);
    /// `Plane`.
    Plane: ["Plane", "Plane", "Plane"], [9, 9, 14], Reals(4);
    /// `Quat` (Godot 4: `Quaternion`).
    Quat: ["Quat", "Quat", "Quaternion"], [10, 10, 15], Reals(4);
    /// `AABB`.
    Aabb: ["AABB", "AABB", "AABB"], [11, 11, 16], Reals(6);
    /// `Basis` (Godot 2: `Matrix3`).
    Basis: ["Matrix3", "Basis", "Basis"], [12, 12, 17], Reals(9);
    /// `Transform` (Godot 4: `Transform3D`).
    Transform: ["Transform", "Transform", "Transform3D"], [13, 13, 18], Reals(12);
    /// `Color`.
    Color: ["Color", "Color", "Color"], [14, 14, 20], F32s(4);
    /// `NodePath`.
    NodePath: ["NodePath", "NodePath", "NodePath"], [16, 15, 22], NodePath;
    /// `RID`.
    Rid: ["RID", "RID", "RID"], [17, 16, 23], Rid;
    /// `Object`.
    Object: ["Object", "Object", "Object"], [18, 17, 24], Object;
    /// `Dictionary`.
    Dictionary: ["Dictionary", "Dictionary", "Dictionary"], [20, 18, 27], Dictionary;
    /// `Array`.
    Array: ["Array", "Array", "Array"], [21, 19, 28], Array;
    /// `PoolByteArray` (Godot 2: `RawArray`; Godot 4: `PackedByteArray`).
    PoolByteArray: ["RawArray", "PoolByteArray", "PackedByteArray"], [22, 20, 29], Pool(P::Byte);
    /// `PoolIntArray` (Godot 2: `IntArray`; Godot 4: `PackedInt32Array`).
    PoolIntArray: ["IntArray", "PoolIntArray", "PackedInt32Array"], [23, 21, 30], Pool(P::Int32);
    /// `PoolRealArray` (Godot 2: `RealArray`; Godot 4: `PackedFloat32Array`).
    PoolRealArray: ["RealArray", "PoolRealArray", "PackedFloat32Array"], [24, 22, 32], Pool(P::Float32);
    /// `PoolStringArray` (Godot 2: `StringArray`; Godot 4: `PackedStringArray`).
    PoolStringArray: ["StringArray", "PoolStringArray", "PackedStringArray"], [25, 23, 34], Pool(P::String);
    /// `PoolVector2Array` (Godot 2: `Vector2Array`; Godot 4: `PackedVector2Array`).
    PoolVector2Array: ["Vector2Array", "PoolVector2Array", "PackedVector2Array"], [26, 24, 35], Pool(P::Math(VariantType::Vector2));
    /// `PoolVector3Array` (Godot 2: `Vector3Array`; Godot 4: `PackedVector3Array`).
    PoolVector3Array: ["Vector3Array", "PoolVector3Array", "PackedVector3Array"], [27, 25, 36], Pool(P::Math(VariantType::Vector3));
    /// `PoolColorArray` (Godot 2: `ColorArray`; Godot 4: `PackedColorArray`).
    PoolColorArray: ["ColorArray", "PoolColorArray", "PackedColorArray"], [28, 26, 37], Pool(P::Math(VariantType::Color));
    /// `Vector2i` (Godot 4).
    Vector2i: ["Vector2i", "Vector2i", "Vector2i"], [-, -, 6], Ints(2);
    /// `Rect2i` (Godot 4).
    Rect2i: ["Rect2i", "Rect2i", "Rect2i"], [-, -, 8], Ints(4);
    /// `Vector3i` (Godot 4).
    Vector3i: ["Vector3i", "Vector3i", "Vector3i"], [-, -, 10], Ints(3);
    /// `Vector4` (Godot 4).
    Vector4: ["Vector4", "Vector4", "Vector4"], [-, -, 12], Reals(4);
    /// `Vector4i` (Godot 4).
    Vector4i: ["Vector4i", "Vector4i", "Vector4i"], [-, -, 13], Ints(4);
    /// `Projection` (Godot 4).
    Projection: ["Projection", "Projection", "Projection"], [-, -, 19], Reals(16);
    /// `StringName` (Godot 4).
    StringName: ["StringName", "StringName", "StringName"], [-, -, 21], StringName;
    /// `Callable` (Godot 4; the engine writes no payload).
    Callable: ["Callable", "Callable", "Callable"], [-, -, 25], Callable;
    /// `Signal` (Godot 4).
    Signal: ["Signal", "Signal", "Signal"], [-, -, 26], Signal;
    /// `PackedInt64Array` (Godot 4).
    PackedInt64Array: ["PackedInt64Array", "PackedInt64Array", "PackedInt64Array"], [-, -, 31], Pool(P::Int64);
    /// `PackedFloat64Array` (Godot 4).
    PackedFloat64Array: ["PackedFloat64Array", "PackedFloat64Array", "PackedFloat64Array"], [-, -, 33], Pool(P::Float64);
    /// `PackedVector4Array` (Godot 4.3+).
    PackedVector4Array: ["PackedVector4Array", "PackedVector4Array", "PackedVector4Array"], [-, -, 38], Pool(P::Math(VariantType::Vector4));
    /// `Image` (Godot 2).
    Image: ["Image", "Image", "Image"], [15, -, -], Image;
    /// `InputEvent` (Godot 2).
    InputEvent: ["InputEvent", "InputEvent", "InputEvent"], [19, -, -], InputEvent;
}

/// Largest wire id plus one, over all dialects.
pub(crate) const MAX_IDS: usize = 40;

/// Wire id to type index, per dialect; `NO_ID` where the id means nothing.
pub(crate) const BY_ID: [[u8; MAX_IDS]; 3] = [by_id(0), by_id(1), by_id(2)];

const fn by_id(dialect: usize) -> [u8; MAX_IDS] {
    let mut out = [NO_ID; MAX_IDS];
    let mut i = 0;
    while i < TABLE.len() {
        let id = TABLE[i].ids[dialect];
        if id != NO_ID {
            // Two types on one id would be a typo in the table: refuse to compile.
            assert!(out[id as usize] == NO_ID, "two types share a wire id");
            out[id as usize] = i as u8;
        }
        i += 1;
    }
    out
}

/// How many types each dialect has; its ids run from 0 without gaps.
pub(crate) const COUNTS: [usize; 3] = [count(0), count(1), count(2)];

const fn count(dialect: usize) -> usize {
    let mut n = 0;
    while n < MAX_IDS && BY_ID[dialect][n] != NO_ID {
        n += 1;
    }
    let mut rest = n;
    while rest < MAX_IDS {
        assert!(BY_ID[dialect][rest] == NO_ID, "a dialect's ids have a gap");
        rest += 1;
    }
    n
}

/// Every type of every dialect, per dialect in wire id order.
pub(crate) const BY_DIALECT: [&[VariantType]; 3] = [&DIALECT2, &DIALECT3, &DIALECT4];
const DIALECT2: [VariantType; COUNTS[0]] = in_id_order(0);
const DIALECT3: [VariantType; COUNTS[1]] = in_id_order(1);
const DIALECT4: [VariantType; COUNTS[2]] = in_id_order(2);

const fn in_id_order<const N: usize>(dialect: usize) -> [VariantType; N] {
    let mut out = [VariantType::Nil; N];
    let mut id = 0;
    while id < N {
        out[id] = ALL[BY_ID[dialect][id] as usize];
        id += 1;
    }
    out
}

impl VariantType {
    #[inline]
    pub(crate) fn info(self) -> &'static TypeInfo {
        &TABLE[self as usize]
    }

    #[inline]
    pub(crate) fn layout(self) -> Layout {
        self.info().layout
    }

    /// The reserved serde name of this type.
    pub(crate) const fn marker(self) -> &'static str {
        TABLE[self as usize].marker
    }

    /// The reserved name this type's values give serde (`deserialize_tuple_struct`
    /// for the math types, `deserialize_newtype_struct` for the others), so that a
    /// deserializer of another crate can recognise a Godot type it is asked for.
    ///
    /// ```
    /// use godot_bin::VariantType;
    /// assert_ne!(VariantType::Vector3.serde_name(), VariantType::Vector2.serde_name());
    /// ```
    pub const fn serde_name(self) -> &'static str {
        self.marker()
    }

    /// The type with this tag (`ty as u32`), the handshake between our deserializer
    /// and `Variant`'s `Deserialize`.
    pub(crate) fn from_tag(tag: u32) -> Option<VariantType> {
        ALL.get(tag as usize).copied()
    }

    /// Every type of every dialect.
    pub fn all() -> &'static [VariantType] {
        ALL
    }

    /// Godot 3's name for the type (`Quat`, `PoolRealArray`); see [`name_in`](Self::name_in).
    pub fn name(self) -> &'static str {
        self.info().names[1]
    }

    /// The name a dialect's engine uses (`Quaternion`, `PackedFloat32Array` in Godot 4).
    pub fn name_in(self, dialect: Dialect) -> &'static str {
        self.info().names[dialect.index()]
    }

    /// Number of numbers (reals, floats or ints) in a fixed-size math type.
    pub(crate) fn component_count(self) -> Option<usize> {
        match self.layout() {
            Reals(n) | F32s(n) | Ints(n) => Some(n),
            Nil | Bool | Int | Float | String | NodePath | Rid | Object | Dictionary | Array
            | Pool(_) | StringName | Callable | Signal | Image | InputEvent => None,
        }
    }

    /// Whether a double-precision engine writes this type with 64-bit reals: math types
    /// and arrays of them, except Color.
    #[inline]
    pub(crate) fn has_reals(self) -> bool {
        match self.layout() {
            Reals(_) => true,
            Pool(P::Math(t)) => t.has_reals(),
            Pool(P::Byte | P::Int32 | P::Int64 | P::Float32 | P::Float64 | P::String) => false,
            Nil | Bool | Int | Float | String | F32s(_) | Ints(_) | NodePath | Rid | Object
            | Dictionary | Array | StringName | Callable | Signal | Image | InputEvent => false,
        }
    }
}

impl PoolElem {
    /// The smallest number of bytes one element takes, to bound counts by the input size.
    pub(crate) fn min_size(self, wide: bool) -> usize {
        match self {
            P::Byte => 1,
            P::Int32 | P::Float32 | P::String => 4,
            P::Int64 | P::Float64 => 8,
            P::Math(t) => t.component_count().unwrap_or(1) * if wide { 8 } else { 4 },
        }
    }

    /// Numbers and math values: elements of one fixed size (bytes are not: serde
    /// reads them as `bytes`).
    pub(crate) fn is_fixed(self) -> bool {
        !matches!(self, P::Byte | P::String)
    }

    /// The Variant type one element reads as in a dynamic context.
    pub(crate) fn variant_type(self) -> VariantType {
        match self {
            P::Byte | P::Int32 | P::Int64 => VariantType::Int,
            P::Float32 | P::Float64 => VariantType::Float,
            P::String => VariantType::String,
            P::Math(t) => t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_markers_resolve_to_their_type() {
        for &ty in VariantType::all() {
            assert_eq!(VariantType::from_marker(&ty.marker()[21..]), Some(ty));
            assert_eq!(
                VariantType::from_godot4_name(ty.name_in(Dialect::Godot4)),
                Some(ty)
            );
        }
    }

    #[test]
    fn dialect_tables_match_the_engines() {
        // Spot checks against the engines' core/variant.h.
        assert_eq!(COUNTS, [29, 27, 39]);
        assert_eq!(DIALECT4[38], VariantType::PackedVector4Array);
        assert_eq!(DIALECT2[15], VariantType::Image);
        assert_eq!(DIALECT3[26], VariantType::PoolColorArray);
    }
}
