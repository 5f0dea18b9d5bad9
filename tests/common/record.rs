//! The struct the engines' random records (tests/oracle/records.gd) are shaped like,
//! shared by tests/engine_structs.rs and multiplayer/tests/engine_records.rs.

use godot_bin::{PoolStringArray, Quat, Variant, Vector3};
use serde::{Deserialize, Serialize};

/// `FIELDS` in records.gd.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Record {
    pub name: String,
    pub id: i64,
    pub small: i32,
    pub ratio: f64,
    pub alive: bool,
    pub pos: Vector3,
    pub rot: Quat,
    pub tags: PoolStringArray,
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
    pub extra: Variant,
    pub inner: Inner,
    pub maybe: Option<i64>,
    pub list: Vec<i64>,
    // Longer than the 16 bytes a key is matched in as words.
    pub a_rather_long_field_name: String,
    pub score: u16,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Inner {
    pub x: f32,
    pub label: String,
}

/// A `Variant` field's kinds, as records.gd's `rextra` makes them (whose bytes the
/// crate writes as the engine does).
pub fn extra_is_plain(v: &Variant) -> bool {
    matches!(
        v,
        Variant::Nil
            | Variant::Int(_)
            | Variant::Float(_)
            | Variant::String(_)
            | Variant::Vector2(_)
            | Variant::Array(_)
            | Variant::Dictionary(_)
    )
}
