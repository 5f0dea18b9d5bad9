//! `Display` for `Variant`: Godot 3's `var2str` text.

use std::fmt;

use super::Variant;

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
