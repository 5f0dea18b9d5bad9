//! `Serialize` for `Variant` and `Dictionary`.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{Dictionary, Variant};
use crate::marker;

impl Serialize for Variant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Variant::Nil => s.serialize_unit(),
            Variant::Bool(b) => s.serialize_bool(*b),
            Variant::Int(i) => s.serialize_i64(*i),
            Variant::Float(f) => s.serialize_f64(*f),
            Variant::String(v) => s.serialize_str(v),
            Variant::Vector2(v) => v.serialize(s),
            Variant::Rect2(v) => v.serialize(s),
            Variant::Vector3(v) => v.serialize(s),
            Variant::Transform2D(v) => v.serialize(s),
            Variant::Plane(v) => v.serialize(s),
            Variant::Quat(v) => v.serialize(s),
            Variant::Aabb(v) => v.serialize(s),
            Variant::Basis(v) => v.serialize(s),
            Variant::Transform(v) => v.serialize(s),
            Variant::Color(v) => v.serialize(s),
            Variant::NodePath(v) => v.serialize(s),
            Variant::Rid(v) => v.serialize(s),
            Variant::Object(v) => v.serialize(s),
            Variant::ObjectId(id) => s.serialize_newtype_struct(marker::OBJECT_ID, id),
            Variant::Dictionary(d) => d.serialize(s),
            Variant::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Variant::PoolByteArray(v) => v.serialize(s),
            Variant::PoolIntArray(v) => v.serialize(s),
            Variant::PoolRealArray(v) => v.serialize(s),
            Variant::PoolStringArray(v) => v.serialize(s),
            Variant::PoolVector2Array(v) => v.serialize(s),
            Variant::PoolVector3Array(v) => v.serialize(s),
            Variant::PoolColorArray(v) => v.serialize(s),
            Variant::Vector2i(v) => v.serialize(s),
            Variant::Rect2i(v) => v.serialize(s),
            Variant::Vector3i(v) => v.serialize(s),
            Variant::Vector4(v) => v.serialize(s),
            Variant::Vector4i(v) => v.serialize(s),
            Variant::Projection(v) => v.serialize(s),
            Variant::StringName(v) => v.serialize(s),
            Variant::Callable(v) => v.serialize(s),
            Variant::Signal(v) => v.serialize(s),
            Variant::PackedInt64Array(v) => v.serialize(s),
            Variant::PackedFloat64Array(v) => v.serialize(s),
            Variant::PackedVector4Array(v) => v.serialize(s),
            Variant::TypedArray(v) => v.serialize(s),
            Variant::TypedDictionary(v) => v.serialize(s),
            Variant::Image(v) => v.serialize(s),
            Variant::InputEvent(v) => v.serialize(s),
            Variant::ResourceRef(r) => Err(serde::ser::Error::custom(format_args!(
                "{r} is a reference to a resource file, which has no binary form"
            ))),
        }
    }
}

impl Serialize for Dictionary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}
