//! Pool arrays (Godot 4: packed arrays): newtypes over `Vec`, and `with`-modules that
//! write plain `Vec` fields as pool arrays.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Track {
//!     #[serde(with = "godot_bin::pool::real")]
//!     samples: Vec<f32>,
//!     #[serde(with = "godot_bin::pool::string")]
//!     labels: Vec<String>,
//! }
//!
//! let t = Track { samples: vec![0.5, 1.0], labels: vec!["a".into()] };
//! let bytes = godot_bin::to_vec(&t)?;
//! assert_eq!(godot_bin::from_slice::<Track>(&bytes)?, t);
//! # Ok::<(), godot_bin::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{SeqAccessDeserializer, SeqDeserializer};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IntoDeserializer, SeqAccess, Visitor,
};
use serde::ser::{Serialize, Serializer};

use super::math::Floats;
use super::{Color, Vector2, Vector3, Vector4};
use crate::table::PoolElem;
use crate::words::le;

/// A pool array element of fixed size. Our deserializer hands the visitors of pool
/// markers a whole array of these as its little-endian bytes (`visit_bytes`), which
/// the pool newtypes convert in one pass.
pub(crate) trait Fixed: Sized + Serialize + bytemuck::NoUninit + 'static {
    /// The wire form of one element.
    const ELEM: PoolElem;
    /// The elements of `bytes`, whose length is a multiple of the element size.
    fn read_all(bytes: &[u8]) -> Vec<Self>;
    /// Hands the element in `c` (its bytes) to `seed`, as its serde shape.
    fn seed_one<'de, S: DeserializeSeed<'de>, Err: de::Error>(
        c: &[u8],
        seed: S,
    ) -> Result<S::Value, Err>;
}

/// The elements of a pool array's bytes, for a `Deserialize` of any sequence type.
struct Elems<'b, E, Err> {
    chunks: std::slice::ChunksExact<'b, u8>,
    _e: PhantomData<(E, Err)>,
}

impl<'de, E: Fixed, Err: de::Error> SeqAccess<'de> for Elems<'_, E, Err> {
    type Error = Err;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Err> {
        match self.chunks.next() {
            Some(c) => E::seed_one(c, seed).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.chunks.len())
    }
}

macro_rules! fixed_number {
    ($($t:ty: $elem:ident),*) => {$(
        impl Fixed for $t {
            const ELEM: PoolElem = PoolElem::$elem;
            fn read_all(bytes: &[u8]) -> Vec<Self> {
                const N: usize = std::mem::size_of::<$t>();
                bytes.chunks_exact(N).map(|c| <$t>::from_le_bytes(le(c))).collect()
            }
            #[inline]
            fn seed_one<'de, S: DeserializeSeed<'de>, Err: de::Error>(
                c: &[u8],
                seed: S,
            ) -> Result<S::Value, Err> {
                seed.deserialize(IntoDeserializer::<Err>::into_deserializer(<$t>::from_le_bytes(le(c))))
            }
        }
    )*};
}
fixed_number!(i32: Int32, i64: Int64, f32: Float32, f64: Float64);

/// The `N` floats of one math value's bytes.
#[inline]
fn floats<const N: usize>(c: &[u8]) -> [f32; N] {
    std::array::from_fn(|i| f32::from_le_bytes(le(&c[4 * i..4 * i + 4])))
}

macro_rules! fixed_math {
    ($($t:ident),*) => {$(
        impl Fixed for $t {
            const ELEM: PoolElem = PoolElem::Math(crate::VariantType::$t);
            fn read_all(bytes: &[u8]) -> Vec<Self> {
                const N: usize = <$t as Floats>::N;
                bytes
                    .chunks_exact(4 * N)
                    .map(|c| <$t as Floats>::read(&floats::<N>(c)))
                    .collect()
            }
            #[inline]
            fn seed_one<'de, S: DeserializeSeed<'de>, Err: de::Error>(
                c: &[u8],
                seed: S,
            ) -> Result<S::Value, Err> {
                const N: usize = <$t as Floats>::N;
                seed.deserialize(SeqDeserializer::new(floats::<N>(c).into_iter()))
            }
        }
    )*};
}
fixed_math!(Vector2, Vector3, Color, Vector4);

/// The bytes of a pool array as the elements `bytes` holds; an error unless they fit.
fn checked<E: Fixed, Err: de::Error>(bytes: &[u8]) -> Result<&[u8], Err> {
    if bytes.len() % E::ELEM.min_size(false) != 0 {
        return Err(Err::invalid_length(
            bytes.len(),
            &"whole pool array elements",
        ));
    }
    Ok(bytes)
}

/// A pool array's elements: our serializer takes them in one piece, as their bytes
/// (the wire form, on a little-endian machine); any other serializer as a sequence.
struct Packed<'a, E>(&'a [E]);

impl<E: Fixed> Serialize for Packed<'_, E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if cfg!(target_endian = "little") && crate::ser::is_pool_serializer::<S>() {
            s.serialize_bytes(bytemuck::cast_slice(self.0))
        } else {
            s.collect_seq(self.0)
        }
    }
}

/// Writes any sequence `v` as the pool array behind `marker`: a `Vec` of the elements
/// in one piece, anything else element by element.
fn serialize_fixed<E: Fixed, T: ?Sized + Serialize, S: Serializer>(
    marker: &'static str,
    v: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    match crate::cast::as_plain::<T, Vec<E>>(v) {
        Some(v) => s.serialize_newtype_struct(marker, &Packed(v)),
        None => s.serialize_newtype_struct(marker, v),
    }
}

/// Writes any sequence of strings `v` as the pool array behind `marker`.
fn serialize_strings<T: ?Sized + Serialize, S: Serializer>(
    marker: &'static str,
    v: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_newtype_struct(marker, v)
}

/// Passes a pool array's elements (of type `E`) to `T`'s own `Deserialize`.
struct Pass<T, E>(PhantomData<(T, E)>);

impl<'de, T: Deserialize<'de>, E: Fixed> Visitor<'de> for Pass<T, E> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pool array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::deserialize(SeqAccessDeserializer::new(seq))
    }

    fn visit_bytes<Err: de::Error>(self, bytes: &[u8]) -> Result<T, Err> {
        let bytes = checked::<E, Err>(bytes)?;
        if let Some(v) = crate::cast::make_plain::<T, Vec<E>>(|| E::read_all(bytes)) {
            return Ok(v);
        }
        let chunks = bytes.chunks_exact(E::ELEM.min_size(false));
        T::deserialize(SeqAccessDeserializer::new(Elems::<E, Err> {
            chunks,
            _e: PhantomData,
        }))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

impl<T, E> Pass<T, E> {
    fn new() -> Self {
        Pass(PhantomData)
    }
}

impl<T> PassStrings<T> {
    fn new() -> Self {
        PassStrings(PhantomData)
    }
}

/// Reads a pool newtype's `Vec`: in one pass from our deserializer's bytes.
struct Whole<E>(PhantomData<E>);

impl<'de, E: Fixed + Deserialize<'de>> Visitor<'de> for Whole<E> {
    type Value = Vec<E>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pool array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<E>, A::Error> {
        Vec::deserialize(SeqAccessDeserializer::new(seq))
    }

    fn visit_bytes<Err: de::Error>(self, bytes: &[u8]) -> Result<Vec<E>, Err> {
        Ok(E::read_all(checked::<E, Err>(bytes)?))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Vec<E>, D::Error> {
        Vec::deserialize(d)
    }
}

/// Passes the elements of a pool array of strings to `T`'s own `Deserialize`.
pub(crate) struct PassStrings<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for PassStrings<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pool array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::deserialize(SeqAccessDeserializer::new(seq))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

macro_rules! pool_module {
    ($module:ident, $godot:ident, $elem:ty, $doc:literal) => {
        pool_module!(
            $module,
            $godot,
            $elem,
            $doc,
            Pass::<T, $elem>,
            serialize_fixed::<$elem, T, S>
        );
    };
    ($module:ident, $godot:ident, $elem:ty, $doc:literal, $visitor:ty) => {
        pool_module!(
            $module,
            $godot,
            $elem,
            $doc,
            $visitor,
            serialize_strings::<T, S>
        );
    };
    ($module:ident, $godot:ident, $elem:ty, $doc:literal, $visitor:ty, $write:expr) => {
        // $elem documents the element type at the call site.
        #[doc = $doc]
        pub mod $module {
            use super::*;

            pub(crate) const MARKER: &str = crate::VariantType::$godot.marker();

            /// Writes any sequence as this pool array.
            pub fn serialize<T: ?Sized + Serialize, S: Serializer>(
                v: &T,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                $write(MARKER, v, s)
            }

            /// Reads this pool array (or an Array of the same elements) into any sequence type.
            pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
                d: D,
            ) -> Result<T, D::Error> {
                d.deserialize_newtype_struct(MARKER, <$visitor>::new())
            }
        }
    };
}

pool_module!(
    int,
    PoolIntArray, i32, "`PoolIntArray` (`PackedInt32Array`): `#[serde(with = \"godot_bin::pool::int\")]` on a `Vec<i32>`.");
pool_module!(
    real,
    PoolRealArray, f32, "`PoolRealArray` (`PackedFloat32Array`): `#[serde(with = \"godot_bin::pool::real\")]` on a `Vec<f32>`.");
pool_module!(
    string,
    PoolStringArray, String, "`PoolStringArray` (`PackedStringArray`): `#[serde(with = \"godot_bin::pool::string\")]` on a `Vec<String>`, or with `#[serde(borrow)]` on a `Vec<&str>` (zero-copy).",
    PassStrings::<T>);
pool_module!(
    vector2,
    PoolVector2Array,
    Vector2,
    "`PoolVector2Array`: `#[serde(with = \"godot_bin::pool::vector2\")]` on a `Vec<Vector2>`."
);
pool_module!(
    vector3,
    PoolVector3Array,
    Vector3,
    "`PoolVector3Array`: `#[serde(with = \"godot_bin::pool::vector3\")]` on a `Vec<Vector3>`."
);
pool_module!(
    color,
    PoolColorArray,
    Color,
    "`PoolColorArray`: `#[serde(with = \"godot_bin::pool::color\")]` on a `Vec<Color>`."
);

pool_module!(
    int64,
    PackedInt64Array,
    i64,
    "`PackedInt64Array` (Godot 4): `#[serde(with = \"godot_bin::pool::int64\")]` on a `Vec<i64>`."
);
pool_module!(
    float64,
    PackedFloat64Array, f64, "`PackedFloat64Array` (Godot 4): `#[serde(with = \"godot_bin::pool::float64\")]` on a `Vec<f64>`.");
pool_module!(
    vector4,
    PackedVector4Array, Vector4, "`PackedVector4Array` (Godot 4.3+): `#[serde(with = \"godot_bin::pool::vector4\")]` on a `Vec<Vector4>`.");

/// Godot 4 names for the same modules.
pub use self::{
    byte as packed_byte, color as packed_color, int as int32, real as float32,
    string as packed_string,
};

/// `PoolByteArray` (`PackedByteArray`): `#[serde(with = "godot_bin::pool::byte")]` on a
/// `Vec<u8>`, `&[u8]` (zero-copy) or `serde_bytes::ByteBuf`. The same as `serde_bytes`.
pub mod byte {
    pub use serde_bytes::{deserialize, serialize};
}

macro_rules! pool_newtype {
    ($name:ident, $module:ident, $elem:ty, $doc:literal, fixed) => {
        pool_newtype!(@ $name, $module, $elem, $doc);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_newtype_struct($module::MARKER, Whole::<$elem>(PhantomData))
                    .map($name)
            }
        }
    };
    ($name:ident, $module:ident, $elem:ty, $doc:literal) => {
        pool_newtype!(@ $name, $module, $elem, $doc);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $module::deserialize(d).map($name)
            }
        }
    };
    (@ $name:ident, $module:ident, $elem:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct $name(pub Vec<$elem>);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $module::serialize(&self.0, s)
            }
        }

        impl From<Vec<$elem>> for $name {
            fn from(v: Vec<$elem>) -> Self {
                $name(v)
            }
        }

        impl FromIterator<$elem> for $name {
            fn from_iter<I: IntoIterator<Item = $elem>>(iter: I) -> Self {
                $name(iter.into_iter().collect())
            }
        }

        impl std::ops::Deref for $name {
            type Target = Vec<$elem>;
            fn deref(&self) -> &Vec<$elem> {
                &self.0
            }
        }

        impl std::ops::DerefMut for $name {
            fn deref_mut(&mut self) -> &mut Vec<$elem> {
                &mut self.0
            }
        }
    };
}

pool_newtype!(
    PoolByteArray,
    byte,
    u8,
    "`PoolByteArray` (Godot 4: `PackedByteArray`)."
);
pool_newtype!(
    PoolIntArray,
    int,
    i32,
    "`PoolIntArray` (Godot 4: `PackedInt32Array`).",
    fixed
);
pool_newtype!(
    PoolRealArray,
    real,
    f32,
    "`PoolRealArray` (Godot 4: `PackedFloat32Array`).",
    fixed
);
pool_newtype!(
    PoolStringArray,
    string,
    String,
    "`PoolStringArray` (Godot 4: `PackedStringArray`)."
);
pool_newtype!(
    PoolVector2Array,
    vector2,
    Vector2,
    "`PoolVector2Array` (Godot 4: `PackedVector2Array`).",
    fixed
);
pool_newtype!(
    PoolVector3Array,
    vector3,
    Vector3,
    "`PoolVector3Array` (Godot 4: `PackedVector3Array`).",
    fixed
);
pool_newtype!(
    PoolColorArray,
    color,
    Color,
    "`PoolColorArray` (Godot 4: `PackedColorArray`).",
    fixed
);
pool_newtype!(
    PackedInt64Array,
    int64,
    i64,
    "`PackedInt64Array` (Godot 4).",
    fixed
);
pool_newtype!(
    PackedFloat64Array,
    float64,
    f64,
    "`PackedFloat64Array` (Godot 4).",
    fixed
);
pool_newtype!(
    PackedVector4Array,
    vector4,
    Vector4,
    "`PackedVector4Array` (Godot 4.3+).",
    fixed
);
