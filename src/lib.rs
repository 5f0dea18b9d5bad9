#![doc = include_str!("../README.md")]
// `unsafe` in three places, each with its reason, invariant and test beside it:
// `words::short_ascii`, `words::ascii_to_nul` and the casts of `cast`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod cast;
#[cfg(feature = "tokio")]
pub mod codec;
mod config;
pub mod de;
mod detect;
mod dialect;
pub mod dissect;
mod error;
pub mod framing;
#[cfg(any(feature = "glam", feature = "mint"))]
mod interop;
#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "glam")]
pub use interop::glam;
#[cfg(feature = "mint")]
pub use interop::mint;
mod marker;
pub mod raw;
pub mod ser;
mod table;
pub mod text;
mod types;
mod value;
mod words;

use std::io;

use serde::de::{Deserialize, DeserializeOwned};
use serde::ser::Serialize;

pub use config::{Config, Precision, DEFAULT_MAX_DEPTH, GODOT_MAX_DEPTH};
pub use de::Deserializer;
pub use detect::Detection;
pub use dialect::{Dialect, VariantType};
pub use error::{Category, Error, ErrorKind, Result};
pub use ser::Serializer;
pub use types::{pool, typed};
pub use types::{
    Aabb, Basis, Callable, Color, Image, InputEvent, InputEventKind, NodePath, PackedByteArray,
    PackedColorArray, PackedFloat32Array, PackedFloat64Array, PackedInt32Array, PackedInt64Array,
    PackedStringArray, PackedVector2Array, PackedVector3Array, PackedVector4Array, Plane,
    PoolByteArray, PoolColorArray, PoolIntArray, PoolRealArray, PoolStringArray, PoolVector2Array,
    PoolVector3Array, Projection, Quat, Quaternion, Rect2, Rect2i, Rid, Signal, StringName,
    Transform, Transform2D, Transform3D, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i,
};
pub use value::{
    ContainerType, Dictionary, DictionaryIntoIter, DictionaryIter, Object, ResourceRef, TypedArray,
    TypedDictionary, Variant, VariantDisplay,
};

/// Encodes `value` as Godot 3's `var2bytes` would.
///
/// ```
/// assert_eq!(godot_bin::to_vec(&1.5f64)?, [3, 0, 0, 0, 0, 0, 0xc0, 0x3f]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    Config::default().to_vec(value)
}

/// Appends the encoding of `value` to `out` and returns its length; see
/// [`Config::to_vec_into`].
///
/// ```
/// let mut buf = Vec::new();
/// godot_bin::to_vec_into(&7i32, &mut buf)?;
/// godot_bin::to_vec_into(&true, &mut buf)?;
/// assert_eq!(buf, [2, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn to_vec_into<T: ?Sized + Serialize>(value: &T, out: &mut Vec<u8>) -> Result<usize> {
    Config::default().to_vec_into(value, out)
}

/// Encodes `value` and writes the bytes to `writer` as it goes, with a bounded buffer;
/// see [`Config::to_writer`].
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    Config::default().to_writer(writer, value)
}

/// Decodes one value that fills all of `bytes` (trailing bytes are an error), borrowing
/// strings and byte arrays from the input where the target type allows.
///
/// ```
/// let s: &str = godot_bin::from_slice(&[4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0])?;
/// assert_eq!(s, "hi");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    Config::default().from_slice(bytes)
}

/// Decodes one value from the front of `bytes` and returns it with the number of bytes
/// it took: for buffers holding several values or more data after one.
///
/// ```
/// let bytes = [2, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0];
/// let (n, used): (i32, usize) = godot_bin::take_from_slice(&bytes)?;
/// let (b, _): (bool, usize) = godot_bin::take_from_slice(&bytes[used..])?;
/// assert_eq!((n, used, b), (7, 8, true));
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn take_from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, usize)> {
    Config::default().take_from_slice(bytes)
}

/// Decodes exactly one value from `reader`; bytes after it are an error.
///
/// Every byte read counts against [`Config::max_bytes`]; wrap unbuffered sources
/// (files, sockets) in a `BufReader`.
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Config::default().from_reader(reader)
}

/// Turns `value` into a [`Variant`], exactly as [`to_vec`] would encode it:
/// `to_vec(&to_variant(&x)?)? == to_vec(&x)?`. Use [`Config::to_variant`] for
/// another dialect or limit.
///
/// ```
/// use godot_bin::{Variant, Vector3};
/// #[derive(serde::Serialize)]
/// struct Move { id: u32, to: Vector3 }
///
/// let v = godot_bin::to_variant(&Move { id: 7, to: Vector3::new(1.0, 2.0, 3.0) })?;
/// assert_eq!(v.get("to"), Some(&Variant::Vector3(Vector3::new(1.0, 2.0, 3.0))));
/// assert_eq!(v.to_string(), "{\n\"id\": 7,\n\"to\": Vector3( 1, 2, 3 )\n}");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn to_variant<T: ?Sized + Serialize>(value: &T) -> Result<Variant> {
    Config::default().to_variant(value)
}

/// Reads a `T` out of a [`Variant`], exactly as [`from_slice`] reads it from the
/// Variant's bytes: decode a message once, look at it, then turn it into a struct.
///
/// ```
/// use godot_bin::Variant;
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Chat { text: String }
///
/// let bytes = godot_bin::to_vec(&("chat", [("text", "hi")].into_iter().collect::<std::collections::BTreeMap<_, _>>()))?;
/// let msg: Variant = godot_bin::from_slice(&bytes)?;
/// let items = msg.as_array().unwrap();
/// if items[0].as_str() == Some("chat") {
///     let chat: Chat = godot_bin::from_variant(items[1].clone())?;
///     assert_eq!(chat, Chat { text: "hi".into() });
/// }
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn from_variant<T: DeserializeOwned>(value: Variant) -> Result<T> {
    Config::default().from_variant(value)
}
