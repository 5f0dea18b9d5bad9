//! Encoder and decoder settings.

use std::io;

use serde::de::{Deserialize, DeserializeOwned};
use serde::ser::Serialize;

use crate::de::{self, Deserializer};
use crate::dialect::Dialect;
use crate::error::Result;
use crate::ser::{capacity, Serializer};
use crate::value::{Variant, VariantDeserializer, VariantSerializer};

/// Godot's own `Variant::MAX_RECURSION_DEPTH`: values may sit 1024 containers deep.
///
/// Decoding that deep takes about 1 KiB of stack per level in release builds and
/// about 8 KiB in debug builds: give the thread room before raising the limit to it.
pub const GODOT_MAX_DEPTH: usize = 1024;

/// The default depth limit: deep enough for any real game data, shallow enough that
/// a hostile input cannot exhaust even a 2 MiB thread stack in a debug build
/// (serde_json chose the same number).
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Settings for encoding and decoding: dialect, limits, object policy.
///
/// The crate-root functions use `Config::default()`: Godot 3, depth limit
/// [`DEFAULT_MAX_DEPTH`], objects refused.
///
/// ```
/// use godot_bin::Config;
/// let cfg = Config::new().allow_objects(true).max_depth(64);
/// let bytes = cfg.to_vec(&[1, 2, 3])?;
/// let back: Vec<i32> = cfg.from_slice(&bytes)?;
/// assert_eq!(back, [1, 2, 3]);
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub(crate) dialect: Dialect,
    pub(crate) precision: Precision,
    pub(crate) max_depth: usize,
    pub(crate) max_bytes: usize,
    pub(crate) allow_objects: bool,
    pub(crate) encode_objects: bool,
    pub(crate) strict_typed_containers: bool,
}

/// The engine build's `real_t`: what width math types (Vector2, Transform, ...) have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// Official builds: 32-bit reals.
    #[default]
    Single,
    /// Engines built with `precision=double` (Godot 4): math types are written as
    /// 64-bit reals with the 64-bit header flag. Decoding always follows the flag:
    /// such a value read as numbers (a tuple or `Vec` of `f64`) keeps its 64-bit
    /// reals; read as godot_bin's math types or a [`Variant`](crate::Variant), whose
    /// components are `f32`, it is rounded to them, as a single-precision engine
    /// rounds it.
    Double,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dialect: Dialect::Godot3,
            precision: Precision::Single,
            max_depth: DEFAULT_MAX_DEPTH,
            max_bytes: usize::MAX,
            allow_objects: false,
            encode_objects: true,
            strict_typed_containers: false,
        }
    }
}

impl Config {
    /// The defaults: Godot 3, depth limit [`DEFAULT_MAX_DEPTH`], objects refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Selects the wire dialect.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// How many containers (Array, Dictionary, Object) may nest. Deeper input is an
    /// error, both when decoding and when encoding (Godot refuses it too).
    ///
    /// Capped at [`GODOT_MAX_DEPTH`]: the engine refuses anything deeper, and the cap
    /// bounds the stack a hostile input can make the decoder use. At the cap, decoding
    /// needs about 1 MiB of stack in release builds and 8 MiB in debug builds (a
    /// spawned thread gets 2 MiB by default: give it more with
    /// `std::thread::Builder::stack_size`).
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth.min(GODOT_MAX_DEPTH);
        self
    }

    /// The engine build's real width. Only Godot 4 has working double-precision
    /// encoding; Godot 2 and 3 builds write broken bytes there, so encoding with
    /// `Precision::Double` in those dialects is an error.
    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// The most input bytes one decode may consume (for `from_reader` on a stream that
    /// could run forever). Reaching it is an error. Unlimited by default.
    pub fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max;
        self
    }

    /// Whether full Objects (class name and properties) may be decoded, like Godot's
    /// `bytes2var(bytes, allow_objects)`. Objects sent as an instance id are always allowed.
    pub fn allow_objects(mut self, allow: bool) -> Self {
        self.allow_objects = allow;
        self
    }

    /// Whether full Objects may be encoded: yes by default, as the engine's
    /// `var2bytes(v, true)` (`var_to_bytes_with_objects`). With `false`, a full Object
    /// anywhere in the value is an [`ErrorKind::ObjectsNotAllowed`](crate::ErrorKind)
    /// error, for bytes a peer decodes without objects (`bytes2var`'s default, the
    /// arguments of Godot 4's RPCs). Objects sent as an instance id are always
    /// written. Applies to the binary encoders (`to_vec`, `to_writer`, ...).
    ///
    /// ```
    /// use godot_bin::{Config, ErrorKind, Object, Variant};
    /// let node = Object { class: "Node".into(), properties: vec![] };
    /// let value = vec![Variant::Int(1), Variant::from(node)];
    /// assert!(Config::new().to_vec(&value).is_ok());
    /// let err = Config::new().encode_objects(false).to_vec(&value).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::ObjectsNotAllowed));
    /// ```
    pub fn encode_objects(mut self, encode: bool) -> Self {
        self.encode_objects = encode;
        self
    }

    /// What to do with an element of a Godot 4 typed container (`Array[int]`,
    /// `Dictionary[String, int]`) whose type is not the declared one.
    ///
    /// By default (`false`) decoding follows the engine: a [`Variant`](crate::Variant)
    /// holds what `bytes_to_var` makes of the bytes, which converts the elements Godot's
    /// strict conversion allows (a float in an `Array[int]` is truncated) and drops the
    /// others (of a typed Dictionary, only keys are checked, as in the engine). With
    /// `true`, such an element is an [`ErrorKind::InvalidType`](crate::ErrorKind) at its
    /// byte offset, whatever the target type.
    ///
    /// ```
    /// use godot_bin::{Config, Dialect, ErrorKind, Variant};
    /// // Array[int]([7, 2.5]) as a sender that does not check its types could write it.
    /// let bytes = [
    ///     0x1c, 0, 1, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0x20, 0x40,
    /// ];
    /// let cfg = Config::new().dialect(Dialect::Godot4);
    /// let v: Variant = cfg.from_slice(&bytes)?;
    /// assert_eq!(v.display(Dialect::Godot4).to_string(), "Array[int]([7, 2])");
    /// let err = cfg.strict_typed_containers(true).from_slice::<Variant>(&bytes).unwrap_err();
    /// assert!(matches!(err.kind(), ErrorKind::InvalidType { .. }));
    /// assert_eq!(err.offset(), Some(20));
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn strict_typed_containers(mut self, strict: bool) -> Self {
        self.strict_typed_containers = strict;
        self
    }

    /// The selected dialect.
    pub fn get_dialect(&self) -> Dialect {
        self.dialect
    }
}

/// Encoding and decoding with these settings (the crate-root functions use the defaults).
impl Config {
    /// Encodes `value` with these settings.
    ///
    /// Once an output on this thread was larger than 4 KiB, an output starts with the
    /// room this thread's last two outputs of the same Rust type took (the smaller, an
    /// eighth more; at least 128 bytes, at most 16 MiB), so encoding a value of about
    /// the same size each tick allocates once, without growing; an output more than
    /// half empty (a small value after larger ones) is shrunk to fit.
    /// [`Config::to_vec_into`] reuses one buffer instead.
    pub fn to_vec<T: ?Sized + Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        let start = capacity::start::<T>();
        let mut out = Vec::with_capacity(start.capacity);
        value.serialize(&mut Serializer::with_config(&mut out, *self))?;
        capacity::finish::<T>(start, &mut out);
        Ok(out)
    }

    /// [`Config::to_vec`] for the crate's own passing encodings (a value on its way
    /// to a `Variant`, a dialect tried out): they do not count towards the size an
    /// output of their type starts with.
    pub(crate) fn encode_passing<T: ?Sized + Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(capacity::MIN);
        value.serialize(&mut Serializer::with_config(&mut out, *self))?;
        Ok(out)
    }

    /// Appends the encoding of `value` to `out` and returns its length: encode many
    /// messages into one reused buffer without allocating (clear it between them).
    /// On error `out` is left as it was.
    ///
    /// ```
    /// use godot_bin::Config;
    /// let cfg = Config::new();
    /// let mut buf = Vec::with_capacity(64);
    /// for tick in 0..3u32 {
    ///     buf.clear();
    ///     let n = cfg.to_vec_into(&("tick", tick), &mut buf)?;
    ///     assert_eq!(n, buf.len());
    ///     assert_eq!(cfg.from_slice::<(String, u32)>(&buf)?, ("tick".to_string(), tick));
    /// }
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn to_vec_into<T: ?Sized + Serialize>(
        &self,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        let start = out.len();
        match value.serialize(&mut Serializer::with_config(out, *self)) {
            Ok(()) => Ok(out.len() - start),
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    /// Encodes `value` with these settings and writes it to `writer` as it goes, in
    /// chunks of 32 KiB: the memory used does not grow with the value, only with its
    /// largest string or pool array, and with a container whose length serde does not
    /// announce (`#[serde(flatten)]`, `collect_seq` of an iterator without an exact
    /// size), which is held until its count is known. A `Serialize` impl that announces
    /// a wrong length is an error once part of the container was written out.
    ///
    /// The writes are large: a `BufWriter` around `writer` is not needed. On error,
    /// part of the value may have been written.
    pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(
        &self,
        mut writer: W,
        value: &T,
    ) -> Result<()> {
        let mut buf = Vec::new();
        value.serialize(&mut Serializer::streaming(&mut buf, &mut writer, *self))?;
        writer.write_all(&buf)?;
        Ok(())
    }

    /// Decodes one value filling all of `bytes`.
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        de::in_order::read_slice(*self, bytes, |de| {
            let v = T::deserialize(&mut *de).map_err(|e| e.or_at(de.byte_offset()))?;
            de.end()?;
            Ok(v)
        })
    }

    /// Decodes one value from the front of `bytes`; returns it and its length.
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, usize)> {
        de::in_order::read_slice(*self, bytes, |de| {
            let v = T::deserialize(&mut *de).map_err(|e| e.or_at(de.byte_offset()))?;
            Ok((v, de.byte_offset()))
        })
    }

    /// The length of the [`Variant`] that `bytes` start with, checked as
    /// [`take_from_slice::<Variant>`](Self::take_from_slice) reads it, with the same
    /// errors, without making it: no `String`, `Vec` or `Dictionary` is allocated
    /// for the common types. For a relay or a validator that passes bytes on.
    ///
    /// ```
    /// use godot_bin::{Config, Variant};
    /// let cfg = Config::new();
    /// let mut bytes = cfg.to_vec(&Variant::from(vec![Variant::from("hi"), Variant::Int(7)]))?;
    /// let len = bytes.len();
    /// bytes.extend_from_slice(b"rest");
    /// assert_eq!(cfg.skip_variant(&bytes)?, len);
    /// let e = cfg.skip_variant(&bytes[..len - 1]).unwrap_err();
    /// assert_eq!(
    ///     (e.offset(), e.to_string()),
    ///     {
    ///         let e = cfg.take_from_slice::<Variant>(&bytes[..len - 1]).unwrap_err();
    ///         (e.offset(), e.to_string())
    ///     }
    /// );
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn skip_variant(&self, bytes: &[u8]) -> Result<usize> {
        de::in_order::read_slice(*self, bytes, |de| {
            de.skip_top_variant()
                .map_err(|e| e.or_at(de.byte_offset()))?;
            Ok(de.byte_offset())
        })
    }

    /// Decodes exactly one value from `reader`.
    pub fn from_reader<R: io::Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        let mut de = Deserializer::with_config(de::IoRead::new(reader), *self);
        let v = T::deserialize(&mut de).map_err(|e| e.or_at(de.byte_offset()))?;
        de.end()?;
        Ok(v)
    }

    /// Turns `value` into a [`Variant`] as [`to_vec`](Self::to_vec) would encode it.
    pub fn to_variant<T: ?Sized + Serialize>(&self, value: &T) -> Result<Variant> {
        value.serialize(VariantSerializer::new(*self))
    }

    /// Reads a `T` out of `value` as [`from_slice`](Self::from_slice) reads it from
    /// the Variant's bytes.
    pub fn from_variant<T: DeserializeOwned>(&self, value: Variant) -> Result<T> {
        T::deserialize(VariantDeserializer::new(value, *self))
    }
}
