//! `from_variant`: a serde `Deserializer` over a [`Variant`], answering every request
//! as the byte deserializer answers it for that value's bytes
//! (`from_variant(from_slice(b)) == from_slice(b)`).
//!
//! Numbers, strings, Arrays, Dictionaries and enums are handed out directly, so a
//! server can decode a message once, route on a key and turn the rest into a struct.
//! A Godot type asked for by its marker (a `Vector3` field, a `PoolRealArray`) is
//! written out and read by the byte deserializer: one definition of each marker.

use std::io::Cursor;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::{Dictionary, Variant};
use crate::config::Config;
use crate::de::{Deserializer, IoRead};
use crate::error::{Error, ErrorKind, Result};
use crate::marker::Marker;

/// Reads serde values out of an owned [`Variant`].
pub(crate) struct VariantDeserializer {
    value: Variant,
    cfg: Config,
    depth: usize,
}

impl VariantDeserializer {
    pub(crate) fn new(value: Variant, cfg: Config) -> Self {
        VariantDeserializer {
            value,
            cfg,
            depth: 0,
        }
    }

    /// An item of this container, one level down.
    fn child(&self, value: Variant) -> Result<VariantDeserializer> {
        self.below(value, 1)
    }

    /// A value `levels` below this one: 1 for a container's item, 0 for a part of
    /// this value's own form (a typed container's element type and item list).
    fn below(&self, value: Variant, levels: usize) -> Result<VariantDeserializer> {
        if self.depth + levels > self.cfg.max_depth {
            return Err(Error::new(ErrorKind::DepthLimit(self.cfg.max_depth)));
        }
        Ok(VariantDeserializer {
            value,
            cfg: self.cfg,
            depth: self.depth + levels,
        })
    }

    /// The byte deserializer over this value's bytes, for Godot types. It owns its
    /// input, so it serves any `'de`.
    fn bytes(&self) -> Result<Deserializer<IoRead<Cursor<Vec<u8>>>>> {
        let limit = self.cfg.max_depth.saturating_sub(self.depth);
        // The value is already in memory: an Object in it was allowed when it was made.
        let cfg = self.cfg.max_depth(limit).allow_objects(true);
        let bytes = cfg.encode_passing(&self.value)?;
        Ok(Deserializer::with_config(
            IoRead::new(Cursor::new(bytes)),
            cfg,
        ))
    }

    fn invalid(&self, expected: &str) -> Error {
        Error::new(ErrorKind::InvalidType {
            found: self.value.get_type().name().to_string(),
            expected: expected.to_string(),
        })
    }

    fn seq<'de, V: Visitor<'de>>(self, items: Vec<Variant>, visitor: V) -> Result<V::Value> {
        self.items(items, 1, visitor)
    }

    /// `items` to `visitor` as a sequence, each `levels` below this value.
    fn items<'de, V: Visitor<'de>>(
        self,
        items: Vec<Variant>,
        levels: usize,
        visitor: V,
    ) -> Result<V::Value> {
        let mut access = SeqAccess {
            parent: &self,
            items: items.into_iter(),
            levels,
        };
        let v = visitor.visit_seq(&mut access)?;
        match access.items.len() {
            0 => Ok(v),
            n => Err(unconsumed(n)),
        }
    }

    fn map<'de, V: Visitor<'de>>(self, entries: Dictionary, visitor: V) -> Result<V::Value> {
        let mut access = MapAccess {
            parent: &self,
            entries: entries.into_iter(),
            value: None,
        };
        let v = visitor.visit_map(&mut access)?;
        match access.entries.len() {
            0 => Ok(v),
            n => Err(unconsumed(n)),
        }
    }
}

fn unconsumed(left: usize) -> Error {
    Error::new(ErrorKind::InvalidLength {
        len: left as u64,
        what: "a container with more items than the target type takes",
    })
}

impl<'de> de::Deserializer<'de> for VariantDeserializer {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        match std::mem::take(&mut self.value) {
            Variant::Nil => visitor.visit_unit(),
            Variant::Bool(b) => visitor.visit_bool(b),
            Variant::Int(i) => visitor.visit_i64(i),
            Variant::Float(f) => visitor.visit_f64(f),
            Variant::String(s) => visitor.visit_string(s),
            Variant::Array(items) => self.seq(items, visitor),
            Variant::Dictionary(entries) => self.map(entries, visitor),
            Variant::TypedArray(t) => self.seq(t.items, visitor),
            Variant::TypedDictionary(t) => self.map(t.entries, visitor),
            other => {
                self.value = other;
                de::Deserializer::deserialize_any(&mut self.bytes()?, visitor)
            }
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // As the byte deserializer: a bool, or an int 0 / 1.
        if let Variant::Bool(b) = self.value {
            return visitor.visit_bool(b);
        }
        match self.value.as_int() {
            Some(0) => visitor.visit_bool(false),
            Some(1) => visitor.visit_bool(true),
            Some(i) => Err(Error::new(ErrorKind::IntOutOfRange(
                i.into(),
                "a bool (0 or 1)",
            ))),
            None => Err(self.invalid("a bool")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_nil() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_nil() {
            visitor.visit_unit()
        } else {
            Err(self.invalid("null"))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        match std::mem::take(&mut self.value) {
            Variant::Array(items) => self.seq(items, visitor),
            Variant::TypedArray(t) => self.seq(t.items, visitor),
            other => {
                self.value = other;
                de::Deserializer::deserialize_seq(&mut self.bytes()?, visitor)
            }
        }
    }

    // As the byte deserializer: a PoolByteArray is a sequence to a string, never UTF-8.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match Marker::lookup(name) {
            None => visitor.visit_newtype_struct(self),
            Some(Marker::Variant) => visitor.visit_enum(self),
            Some(_) => {
                de::Deserializer::deserialize_newtype_struct(&mut self.bytes()?, name, visitor)
            }
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        let Some(marker) = Marker::lookup(name) else {
            return self.deserialize_any(visitor);
        };
        match typed_fields(marker, std::mem::take(&mut self.value)) {
            Ok(fields) => {
                // The fields are the container's own form: its items are the level below.
                self.items(fields, 0, visitor)
            }
            Err(other) => {
                self.value = other;
                de::Deserializer::deserialize_tuple_struct(&mut self.bytes()?, name, len, visitor)
            }
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match std::mem::take(&mut self.value) {
            Variant::String(s) => visitor.visit_enum(s.into_deserializer()),
            Variant::Int(i) => {
                let i = u32::try_from(i).map_err(|_| {
                    Error::new(ErrorKind::IntOutOfRange(i.into(), "a variant index"))
                })?;
                visitor.visit_enum(i.into_deserializer())
            }
            Variant::Dictionary(d) if d.len() == 1 => {
                let (key, value) = d.into_iter().next().unwrap_or_default();
                visitor.visit_enum(EnumAccess {
                    key: self.child(key)?,
                    value: self.child(value)?,
                })
            }
            Variant::Dictionary(d) => Err(Error::new(ErrorKind::InvalidLength {
                len: d.len() as u64,
                what: "an enum (a Dictionary of one entry)",
            })),
            other => {
                self.value = other;
                Err(self.invalid("an enum (String, int or one-entry Dictionary)"))
            }
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        match std::mem::take(&mut self.value) {
            Variant::PoolByteArray(b) => visitor.visit_byte_buf(b.0),
            other => {
                self.value = other;
                self.deserialize_any(visitor)
            }
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    // A field or variant name: a String as itself; any other key as the byte
    // deserializer offers it (a PoolByteArray as a sequence, never as a name).
    fn deserialize_identifier<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        match std::mem::take(&mut self.value) {
            Variant::String(s) => visitor.visit_string(s),
            other => {
                self.value = other;
                de::Deserializer::deserialize_identifier(&mut self.bytes()?, visitor)
            }
        }
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 map ignored_any
    }
}

/// An Array or Dictionary asked for by its typed-container marker, as the fields
/// the marker's visitor reads (element types, then the items); any other value back.
/// Apart, so that each level of nested containers takes only a small frame.
#[inline(never)]
fn typed_fields(marker: Marker, value: Variant) -> std::result::Result<Vec<Variant>, Variant> {
    Ok(match (marker, value) {
        (Marker::TypedArray, Variant::Array(items)) => {
            vec![0u32.into(), "".into(), Variant::Array(items)]
        }
        (Marker::TypedArray, Variant::TypedArray(t)) => {
            let (kind, name) = t.element.parts();
            vec![kind.into(), name.into(), Variant::Array(t.items)]
        }
        (Marker::TypedDictionary, Variant::Dictionary(entries)) => vec![
            0u32.into(),
            "".into(),
            0u32.into(),
            "".into(),
            Variant::Dictionary(entries),
        ],
        (Marker::TypedDictionary, Variant::TypedDictionary(t)) => {
            let (k_kind, k_name) = super::typed::ContainerType::parts_of(t.key.as_ref());
            let (v_kind, v_name) = super::typed::ContainerType::parts_of(t.value.as_ref());
            vec![
                k_kind.into(),
                k_name.into(),
                v_kind.into(),
                v_name.into(),
                Variant::Dictionary(t.entries),
            ]
        }
        (_, other) => return Err(other),
    })
}

/// The `Variant` handshake: the type tag, then the value (as the byte deserializer's
/// `VariantEnum` does it).
impl<'de> de::EnumAccess<'de> for VariantDeserializer {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self)> {
        let tag = self.value.get_type() as u32;
        let tag = seed.deserialize(de::value::U32Deserializer::<Error>::new(tag))?;
        Ok((tag, self))
    }
}

/// The value of the handshake, and of an enum written as `{variant: value}`.
impl<'de> de::VariantAccess<'de> for VariantDeserializer {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self)
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple(self, len, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

struct SeqAccess<'a> {
    parent: &'a VariantDeserializer,
    items: std::vec::IntoIter<Variant>,
    /// How far below the parent the items are.
    levels: usize,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.items.next() {
            Some(v) => seed
                .deserialize(self.parent.below(v, self.levels)?)
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapAccess<'a> {
    parent: &'a VariantDeserializer,
    entries: crate::value::dictionary::IntoIter,
    value: Option<Variant>,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.entries.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(self.parent.child(k)?).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let value = self
            .value
            .take()
            .ok_or_else(|| <Error as de::Error>::custom("a map value without a key"))?;
        seed.deserialize(self.parent.child(value)?)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An enum written as `{variant: value}`.
struct EnumAccess {
    key: VariantDeserializer,
    value: VariantDeserializer,
}

impl<'de> de::EnumAccess<'de> for EnumAccess {
    type Error = Error;
    type Variant = VariantDeserializer;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant)> {
        Ok((seed.deserialize(self.key)?, self.value))
    }
}
