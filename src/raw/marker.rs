//! The reserved newtype names through which fields change the raw layout of what they
//! hold (`#[serde(with = ...)]` modules), and the raw-only types.

use super::config::{Count, Strings, Width};

macro_rules! raw_name {
    ($name:literal) => {
        concat!("$godot_bin::raw::", $name)
    };
}
pub(crate) use raw_name;

pub(crate) const HALF: &str = raw_name!("Half");
pub(crate) const VAR: &str = raw_name!("Var");

/// What a reserved name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Strings(Strings),
    Count(Count),
    Tag(Width),
    Half,
    Var,
}

impl Marker {
    #[inline]
    pub(crate) fn lookup(name: &str) -> Option<Marker> {
        let rest = name.strip_prefix(raw_name!(""))?;
        Some(match rest {
            "str0" => Marker::Strings(Strings::Nul),
            "utf8" => Marker::Strings(Strings::Utf8),
            "string3" => Marker::Strings(Strings::Godot3),
            "string4" => Marker::Strings(Strings::Godot4),
            "count8" => Marker::Count(Count::U8),
            "count16" => Marker::Count(Count::U16),
            "count32" => Marker::Count(Count::U32),
            "rest" => Marker::Count(Count::Rest),
            "tag8" => Marker::Tag(Width::U8),
            "tag16" => Marker::Tag(Width::U16),
            "tag32" => Marker::Tag(Width::U32),
            "Half" => Marker::Half,
            "Var" => Marker::Var,
            _ => return None,
        })
    }
}

/// The variant id of `variant` at `index`: the number it is named by, else its index.
#[inline(always)]
pub(crate) fn variant_id(index: u32, variant: &str) -> u32 {
    numeric(variant).unwrap_or(index)
}

/// A variant name that is a decimal number (no sign, no leading zeros but "0").
#[inline(always)]
pub(crate) fn numeric(name: &str) -> Option<u32> {
    let b = name.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    name.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve() {
        assert_eq!(Marker::lookup(HALF), Some(Marker::Half));
        assert_eq!(Marker::lookup(VAR), Some(Marker::Var));
        assert_eq!(
            Marker::lookup(raw_name!("rest")),
            Some(Marker::Count(Count::Rest))
        );
        assert_eq!(Marker::lookup("str0"), None);
        assert_eq!(Marker::lookup(raw_name!("str1")), None);
    }

    #[test]
    fn numeric_names_are_ids() {
        assert_eq!(variant_id(3, "Auth"), 3);
        assert_eq!(variant_id(3, "17"), 17);
        assert_eq!(variant_id(3, "0"), 0);
        for not in ["", "017", "-1", "+1", "1a", "4294967296", " 1"] {
            assert_eq!(numeric(not), None, "{not:?}");
        }
        assert_eq!(numeric("4294967295"), Some(u32::MAX));
    }
}
