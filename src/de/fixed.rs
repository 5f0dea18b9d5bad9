//! Fixed-size payload items (numbers and math values) decoded from bytes already read:
//! the elements of numeric and vector pool arrays and the reals of math types, with
//! one read for all of them instead of a bounds check and a reader call per item.

use serde::de::{self, DeserializeSeed, Visitor};

use crate::dialect::VariantType;
use crate::error::{Error, Result};
use crate::marker;
use crate::table::PoolElem;
use crate::words::le;

/// Items of one fixed-size kind, back to back.
pub(crate) struct FixedSeq<'b> {
    bytes: &'b [u8],
    elem: PoolElem,
    wide: bool,
    size: usize,
    /// Input offset of `bytes`, for error messages.
    at: usize,
}

impl<'b> FixedSeq<'b> {
    /// `bytes` holds whole items of `elem` (never `PoolElem::String`); `wide` for a
    /// double-precision engine's math values.
    #[inline]
    pub(crate) fn new(bytes: &'b [u8], elem: PoolElem, wide: bool, at: usize) -> Self {
        FixedSeq {
            bytes,
            elem,
            wide,
            size: elem.min_size(wide),
            at,
        }
    }
}

impl<'de> de::SeqAccess<'de> for FixedSeq<'_> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.bytes.len() < self.size {
            return Ok(None);
        }
        let (item, rest) = self.bytes.split_at(self.size);
        self.bytes = rest;
        let at = self.at;
        self.at += self.size;
        seed.deserialize(Item {
            bytes: item,
            elem: self.elem,
            wide: self.wide,
            at,
        })
        .map(Some)
        .map_err(|e| e.or_at(at))
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() / self.size)
    }
}

/// The 32-bit words of one integer vector, as the `SeqAccess` its visitor takes:
/// lighter than [`FixedSeq`], whose element kind is only known at run time.
pub(crate) struct Words<'b> {
    bytes: &'b [u8],
}

impl<'b> Words<'b> {
    /// `bytes` is whole words.
    #[inline]
    pub(crate) fn new(bytes: &'b [u8]) -> Self {
        Words { bytes }
    }

    /// Words the visitor did not take.
    #[inline]
    pub(crate) fn left(&self) -> usize {
        self.bytes.len() / 4
    }
}

impl<'de> de::SeqAccess<'de> for Words<'_> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.bytes.len() < 4 {
            return Ok(None);
        }
        let (word, rest) = self.bytes.split_at(4);
        self.bytes = rest;
        let word = i32::from_le_bytes(le::<4>(word));
        seed.deserialize(de::value::I32Deserializer::new(word))
            .map(Some)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.left())
    }
}

/// One fixed-size item.
struct Item<'b> {
    bytes: &'b [u8],
    elem: PoolElem,
    wide: bool,
    at: usize,
}

impl<'de> de::Deserializer<'de> for Item<'_> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = self.bytes;
        match self.elem {
            PoolElem::Byte => visitor.visit_u8(b[0]),
            PoolElem::Int32 => visitor.visit_i32(i32::from_le_bytes(le(b))),
            PoolElem::Int64 => visitor.visit_i64(i64::from_le_bytes(le(b))),
            PoolElem::Float32 => visitor.visit_f32(f32::from_le_bytes(le(b))),
            PoolElem::Float64 => visitor.visit_f64(f64::from_le_bytes(le(b))),
            PoolElem::Math(_) => {
                let real = if self.wide {
                    PoolElem::Float64
                } else {
                    PoolElem::Float32
                };
                visitor.visit_seq(FixedSeq::new(b, real, false, self.at))
            }
            PoolElem::String => Err(de::Error::custom("a string is not a fixed-size item")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == marker::VARIANT {
            let ty = self.elem.variant_type();
            return visitor.visit_enum(ItemEnum { item: self, ty });
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Hands the `Variant` visitor the type of an item, then the item.
struct ItemEnum<'b> {
    item: Item<'b>,
    ty: VariantType,
}

impl<'b, 'de> de::EnumAccess<'de> for ItemEnum<'b> {
    type Error = Error;
    type Variant = Item<'b>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Item<'b>)> {
        let tag = seed.deserialize(de::value::U32Deserializer::<Error>::new(self.ty as u32))?;
        Ok((tag, self.item))
    }
}

impl<'de> de::VariantAccess<'de> for Item<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Err(de::Error::custom("a pool element is not a unit"))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _f: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }
}
