//! `Deserialize` for `Variant` and `Dictionary`.
//!
//! From Godot bytes, our deserializer answers the `Variant` marker with an enum-like
//! access whose tag is the wire type, so every Godot type comes back as itself. From
//! other formats (serde_json...), the value is read by its serde shape.

use std::fmt;

use serde::de::{
    self, Deserialize, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::object::ObjectValue;
use super::typed::{ArrayValue, DictionaryValue};
use super::{Dictionary, Variant};
use crate::dialect::VariantType;
use crate::marker;
use crate::types::*;

/// Builds a `Variant` from any serde shape; from Godot bytes, from the wire-type tag.
pub(crate) struct VariantVisitor;

impl<'de> Visitor<'de> for VariantVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any Godot value")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Variant, A::Error> {
        let (tag, v): (u32, _) = data.variant()?;
        let ty = VariantType::from_tag(tag)
            .ok_or_else(|| de::Error::custom(format_args!("unknown Variant type tag {tag}")))?;
        // The containers here, the rest apart: a nested container's frame is then this
        // small one, not one with room for every type (which, unoptimised, would take
        // the stack at a fraction of the depth limit).
        match ty {
            VariantType::Object => Ok(v.newtype_variant::<ObjectValue>()?.0),
            VariantType::Dictionary => Ok(v.newtype_variant::<DictionaryValue>()?.0),
            VariantType::Array => Ok(v.newtype_variant::<ArrayValue>()?.0),
            ty => leaf(ty, v),
        }
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Variant, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_unit<E>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }

    fn visit_none<E>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Variant, D::Error> {
        Variant::deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Variant, E> {
        Ok(Variant::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Variant, E> {
        Ok(Variant::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Variant, E> {
        i64::try_from(v)
            .map(Variant::Int)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &"an int that fits in i64"))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Variant, E> {
        Ok(Variant::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Variant, E> {
        Ok(Variant::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Variant, E> {
        Ok(Variant::String(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Variant, E> {
        Ok(Variant::PoolByteArray(PoolByteArray(v.to_vec())))
    }

    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Variant, E> {
        Ok(Variant::PoolByteArray(PoolByteArray(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Variant, A::Error> {
        Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Variant::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Variant, A::Error> {
        DictVisitor.visit_map(map).map(Variant::Dictionary)
    }
}

impl<'de> Deserialize<'de> for Variant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(marker::VARIANT, VariantVisitor)
    }
}

struct DictVisitor;

impl<'de> Visitor<'de> for DictVisitor {
    type Value = Dictionary;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Dictionary")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Dictionary, A::Error> {
        // The hint is bounded by the input for slices; still cap what we reserve.
        let mut d = Dictionary::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = map.next_entry::<Variant, Variant>()? {
            d.set(k, v);
        }
        Ok(d)
    }
}

impl<'de> Deserialize<'de> for Dictionary {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(DictVisitor)
    }
}

/// A `Variant` of type `ty` that holds no other value, from its enum access.
#[inline(never)]
fn leaf<'de, A: VariantAccess<'de>>(ty: VariantType, v: A) -> Result<Variant, A::Error> {
    Ok(match ty {
        VariantType::Nil => {
            v.newtype_variant::<()>()?;
            Variant::Nil
        }
        VariantType::Bool => Variant::Bool(v.newtype_variant()?),
        VariantType::Int => Variant::Int(v.newtype_variant()?),
        VariantType::Float => Variant::Float(v.newtype_variant()?),
        VariantType::String => Variant::String(v.newtype_variant()?),
        VariantType::Vector2 => Variant::Vector2(v.newtype_variant()?),
        VariantType::Rect2 => Variant::Rect2(v.newtype_variant()?),
        VariantType::Vector3 => Variant::Vector3(v.newtype_variant()?),
        VariantType::Transform2D => Variant::Transform2D(v.newtype_variant()?),
        VariantType::Plane => Variant::Plane(v.newtype_variant()?),
        VariantType::Quat => Variant::Quat(v.newtype_variant()?),
        VariantType::Aabb => Variant::Aabb(v.newtype_variant()?),
        VariantType::Basis => Variant::Basis(v.newtype_variant::<Box<Basis>>()?),
        VariantType::Transform => Variant::Transform(v.newtype_variant::<Box<Transform>>()?),
        VariantType::Color => Variant::Color(v.newtype_variant()?),
        VariantType::NodePath => Variant::NodePath(v.newtype_variant()?),
        VariantType::Rid => Variant::Rid(v.newtype_variant()?),
        VariantType::PoolByteArray => Variant::PoolByteArray(v.newtype_variant()?),
        VariantType::PoolIntArray => Variant::PoolIntArray(v.newtype_variant()?),
        VariantType::PoolRealArray => Variant::PoolRealArray(v.newtype_variant()?),
        VariantType::PoolStringArray => Variant::PoolStringArray(v.newtype_variant()?),
        VariantType::PoolVector2Array => Variant::PoolVector2Array(v.newtype_variant()?),
        VariantType::PoolVector3Array => Variant::PoolVector3Array(v.newtype_variant()?),
        VariantType::PoolColorArray => Variant::PoolColorArray(v.newtype_variant()?),
        VariantType::Vector2i => Variant::Vector2i(v.newtype_variant()?),
        VariantType::Rect2i => Variant::Rect2i(v.newtype_variant()?),
        VariantType::Vector3i => Variant::Vector3i(v.newtype_variant()?),
        VariantType::Vector4 => Variant::Vector4(v.newtype_variant()?),
        VariantType::Vector4i => Variant::Vector4i(v.newtype_variant()?),
        VariantType::Projection => Variant::Projection(v.newtype_variant::<Box<Projection>>()?),
        VariantType::StringName => Variant::StringName(v.newtype_variant()?),
        VariantType::Callable => Variant::Callable(v.newtype_variant()?),
        VariantType::Signal => Variant::Signal(v.newtype_variant::<Box<Signal>>()?),
        VariantType::PackedInt64Array => Variant::PackedInt64Array(v.newtype_variant()?),
        VariantType::PackedFloat64Array => Variant::PackedFloat64Array(v.newtype_variant()?),
        VariantType::PackedVector4Array => Variant::PackedVector4Array(v.newtype_variant()?),
        VariantType::Image => Variant::Image(v.newtype_variant::<Box<Image>>()?),
        VariantType::InputEvent => Variant::InputEvent(v.newtype_variant()?),
        // `visit_enum` reads these itself.
        VariantType::Object | VariantType::Dictionary | VariantType::Array => {
            return Err(de::Error::custom(
                "a container read as a value without items",
            ))
        }
    })
}
