//! Type ids per Godot version: the one place that knows which number means which type.

use std::fmt;

pub use crate::table::VariantType;
use crate::table::{BY_DIALECT, NO_ID};

/// Which engine's wire format to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// Godot 2.0 – 2.1: bare type ids, 32-bit ints and floats, Image and InputEvent.
    Godot2,
    /// Godot 3.1 – 3.6 (`var2bytes`, `store_var`, `put_var`). The default.
    #[default]
    Godot3,
    /// Godot 4.0 – 4.6 (`var_to_bytes`): new ids and types, typed containers (4.3+, 4.4+).
    Godot4,
}

/// Bits 0–7 of a header hold the type id.
pub(crate) const TYPE_MASK: u32 = 0xFF;
/// Bit 16: 64-bit payload for INT and FLOAT; "as id" for OBJECT.
pub(crate) const FLAG_64: u32 = 1 << 16;

/// Wire ids that are the same in every dialect (checked against the table in a test).
pub(crate) const NIL_ID: u32 = 0;
pub(crate) const BOOL_ID: u32 = 1;
pub(crate) const INT_ID: u32 = 2;
pub(crate) const FLOAT_ID: u32 = 3;
pub(crate) const STRING_ID: u32 = 4;

impl Dialect {
    /// The dialect's column in the type table.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        match self {
            Dialect::Godot2 => 0,
            Dialect::Godot3 => 1,
            Dialect::Godot4 => 2,
        }
    }

    /// The type a wire id stands for, if any.
    #[inline]
    pub fn type_of(self, id: u32) -> Option<VariantType> {
        // Each dialect's ids run from 0 without gaps (checked when the table compiles).
        BY_DIALECT[self.index()].get(id as usize).copied()
    }

    /// The wire id of a type, if the dialect has it.
    #[inline]
    pub fn id_of(self, ty: VariantType) -> Option<u32> {
        match ty.info().ids[self.index()] {
            NO_ID => None,
            id => Some(id.into()),
        }
    }

    /// The types this dialect knows, in wire id order.
    pub fn types(self) -> &'static [VariantType] {
        BY_DIALECT[self.index()]
    }

    /// Every dialect, oldest first.
    pub const ALL: [Dialect; 3] = [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4];

    /// The engine version's name, for messages.
    pub fn engine_name(self) -> &'static str {
        match self {
            Dialect::Godot2 => "Godot 2",
            Dialect::Godot3 => "Godot 3",
            Dialect::Godot4 => "Godot 4",
        }
    }
}

impl fmt::Display for VariantType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_ids_are_the_tables_in_every_dialect() {
        for dialect in Dialect::ALL {
            for (ty, id) in [
                (VariantType::Nil, NIL_ID),
                (VariantType::Bool, BOOL_ID),
                (VariantType::Int, INT_ID),
                (VariantType::Float, FLOAT_ID),
                (VariantType::String, STRING_ID),
            ] {
                assert_eq!(dialect.id_of(ty), Some(id), "{ty} in {dialect:?}");
                assert_eq!(dialect.type_of(id), Some(ty), "{id} in {dialect:?}");
            }
        }
    }
}
