//! A full Godot Object: class name and stored properties.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeTupleStruct, Serializer};

use super::Variant;
use crate::VariantType;

/// An Object as `var2bytes(obj, true)` writes it: its class and its stored
/// properties in `get_property_list()` order (`script` last).
///
/// Decoded only when objects are allowed ([`Config::allow_objects`](crate::Config::allow_objects)),
/// as in Godot: a stranger's bytes could otherwise make the engine instantiate anything.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Object {
    /// The class name, e.g. `"Reference"`.
    pub class: String,
    /// Property names and values, in order.
    pub properties: Vec<(String, Variant)>,
}

struct Props<'a>(&'a [(String, Variant)]);

impl Serialize for Props<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Serialize for Object {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(VariantType::Object.marker(), 2)?;
        t.serialize_field(&self.class)?;
        t.serialize_field(&Props(&self.properties))?;
        t.end()
    }
}

struct PropsVec(Vec<(String, Variant)>);

impl<'de> Deserialize<'de> for PropsVec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PropsVec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("Object properties")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PropsVec, A::Error> {
                let mut v = Vec::with_capacity(map.size_hint().unwrap_or(0).min(256));
                while let Some(entry) = map.next_entry()? {
                    v.push(entry);
                }
                Ok(PropsVec(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// What an Object header can hold: null, an instance id or a full object.
pub(crate) struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Variant;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an Object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Variant, E> {
        Ok(Variant::Nil)
    }

    fn visit_u64<E: de::Error>(self, id: u64) -> Result<Variant, E> {
        Ok(Variant::ObjectId(id))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Variant, A::Error> {
        let class = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let PropsVec(properties) = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(Variant::Object(Box::new(Object { class, properties })))
    }
}

/// Deserializes the Object-typed value of a `Variant`.
pub(crate) struct ObjectValue(pub(crate) Variant);

impl<'de> Deserialize<'de> for ObjectValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_tuple_struct(VariantType::Object.marker(), 2, ObjectVisitor)
            .map(ObjectValue)
    }
}

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_tuple_struct(VariantType::Object.marker(), 2, ObjectVisitor)? {
            Variant::Object(o) => Ok(*o),
            _ => Err(de::Error::custom(
                "expected a full Object, found null or an object id",
            )),
        }
    }
}
