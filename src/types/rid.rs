//! `RID`: a server resource id. Godot 3 writes only the type, never the id.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::VariantType;

const MARKER: &str = VariantType::Rid.marker();

/// A Godot `RID`. Godot 3 sends RIDs without their id, so only `Rid::default()`
/// (id 0) can be written in that dialect; anything else is an error rather than a
/// silent loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Rid(pub u64);

impl Serialize for Rid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(MARKER, &self.0)
    }
}

struct RidVisitor;

impl<'de> Visitor<'de> for RidVisitor {
    type Value = Rid;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an RID")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Rid, E> {
        Ok(Rid(v))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Rid, D::Error> {
        u64::deserialize(d).map(Rid)
    }
}

impl<'de> Deserialize<'de> for Rid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(MARKER, RidVisitor)
    }
}
