//! `with`-modules that write a plain `Vec` field as a Godot 4 typed array (4.3+).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use godot_bin::{Config, Dialect};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Inventory {
//!     #[serde(with = "godot_bin::typed::int")]
//!     item_ids: Vec<i64>,
//! }
//!
//! let g4 = Config::new().dialect(Dialect::Godot4);
//! let bytes = g4.to_vec(&Inventory { item_ids: vec![128] })?;
//! // The value is an `Array[int]`: header flag 1 and the int type id (2) before the count.
//! assert_eq!(&bytes[bytes.len() - 20..], [0x1c, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 128, 0, 0, 0]);
//! assert_eq!(g4.from_slice::<Inventory>(&bytes)?.item_ids, [128]);
//! # Ok::<(), godot_bin::Error>(())
//! ```
//!
//! Other formats (serde_json, bincode) see the plain sequence.

macro_rules! typed_module {
    ($($module:ident: $name:literal),* $(,)?) => {
        $(
            #[doc = concat!("`Array[", $name, "]`: `#[serde(with = \"godot_bin::typed::", stringify!($module), "\")]`.")]
            pub mod $module {
                use serde::{Deserialize, Deserializer, Serialize, Serializer};

                /// Writes the sequence as a typed array.
                pub fn serialize<T: ?Sized + Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
                    s.serialize_newtype_struct($crate::marker::array_of!($name), v)
                }

                /// Reads a typed or untyped array.
                pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
                    T::deserialize(d)
                }
            }
        )*
    };
}

typed_module!(
    bool: "bool",
    int: "int",
    float: "float",
    string: "String",
    vector2: "Vector2",
    vector2i: "Vector2i",
    rect2: "Rect2",
    vector3: "Vector3",
    vector3i: "Vector3i",
    vector4: "Vector4",
    quaternion: "Quaternion",
    transform3d: "Transform3D",
    color: "Color",
    string_name: "StringName",
    node_path: "NodePath",
    dictionary: "Dictionary",
    array: "Array",
    packed_byte_array: "PackedByteArray",
    packed_string_array: "PackedStringArray",
);
