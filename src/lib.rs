#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "tokio")]
pub mod codec;
mod config;
pub mod de;
mod dialect;
mod error;
pub mod framing;
#[cfg(any(feature = "glam", feature = "mint"))]
mod interop;
#[cfg(feature = "glam")]
pub use interop::glam;
#[cfg(feature = "mint")]
pub use interop::mint;
mod marker;
mod table;
pub mod ser;
mod types;
mod value;

use std::io;

use serde::de::{Deserialize, DeserializeOwned};
use serde::ser::Serialize;

pub use config::{Config, Precision, DEFAULT_MAX_DEPTH, GODOT_MAX_DEPTH};
pub use de::Deserializer;
pub use dialect::{Dialect, VariantType};
pub use error::{Error, ErrorKind, Result};
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
    ContainerType, Dictionary, Object, TypedArray, TypedDictionary, Variant, VariantDisplay,
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

/// Encodes `value` and writes the bytes to `writer`.
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
pub fn from_reader<R: io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    Config::default().from_reader(reader)
}

impl Config {
    /// Encodes `value` with these settings.
    pub fn to_vec<T: ?Sized + Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(128);
        value.serialize(&mut Serializer::with_config(&mut out, *self))?;
        Ok(out)
    }

    /// Encodes `value` with these settings and writes it to `writer`.
    pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(
        &self,
        mut writer: W,
        value: &T,
    ) -> Result<()> {
        writer.write_all(&self.to_vec(value)?)?;
        Ok(())
    }

    /// Decodes one value filling all of `bytes`.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        let mut de = Deserializer::with_config(de::SliceRead::new(bytes), *self);
        let v = T::deserialize(&mut de).map_err(|e| e.or_at(de.byte_offset()))?;
        de.end()?;
        Ok(v)
    }

    /// Decodes one value from the front of `bytes`; returns it and its length.
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, usize)> {
        let mut de = Deserializer::with_config(de::SliceRead::new(bytes), *self);
        let v = T::deserialize(&mut de).map_err(|e| e.or_at(de.byte_offset()))?;
        Ok((v, de.byte_offset()))
    }

    /// Decodes exactly one value from `reader`.
    pub fn from_reader<R: io::Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        let mut de = Deserializer::with_config(de::IoRead::new(reader), *self);
        let v = T::deserialize(&mut de).map_err(|e| e.or_at(de.byte_offset()))?;
        de.end()?;
        Ok(v)
    }
}
