//! The settings a raw [`Serializer`](super::Serializer) or
//! [`Deserializer`](super::Deserializer) knows when it is compiled.

use std::io;

use serde::Serialize;

use super::config::{Config, Endian, Strings, Width};
use super::ser::{runtime_on, Serializer, Tally};
use crate::error::Result;

/// The settings a raw [`Serializer`] or [`Deserializer`](super::Deserializer) knows
/// when it is compiled. `Config::to_vec`, `Config::from_slice` and their siblings pick
/// one for the common settings (little endian, `u8` ids, NUL-terminated or
/// `put_utf8_string` strings), so that no number, string or id asks the settings
/// again; a field's own settings (`str0`, `count8`, …) go on at run time.
pub trait Known: sealed::Sealed + Sized {
    #[doc(hidden)]
    const ENDIAN: Option<Endian>;
    #[doc(hidden)]
    const STRINGS: Option<Strings>;
    #[doc(hidden)]
    const TAG: Option<Width>;
    /// The byte order: the one known at compile time, else `cfg`'s.
    #[doc(hidden)]
    #[inline(always)]
    fn endian(cfg: &Config) -> Endian {
        Self::ENDIAN.unwrap_or(cfg.endian)
    }
    /// The string style: the one known at compile time, else `cfg`'s.
    #[doc(hidden)]
    #[inline(always)]
    fn strings(cfg: &Config) -> Strings {
        Self::STRINGS.unwrap_or(cfg.strings)
    }
    /// The variant id width: the one known at compile time, else `cfg`'s.
    #[doc(hidden)]
    #[inline(always)]
    fn tag(cfg: &Config) -> Width {
        Self::TAG.unwrap_or(cfg.tag)
    }
    /// Serializes `value` with the settings `cfg`, which differ from `ser`'s.
    #[doc(hidden)]
    fn changed<W: io::Write, C: Tally<W>, T: ?Sized + Serialize>(
        ser: &mut Serializer<W, Self, C>,
        cfg: Config,
        value: &T,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Runtime {}
    impl Sealed for super::LittleNul {}
    impl Sealed for super::LittleUtf8 {}
}

/// Every setting read from the [`Config`] as it runs.
#[derive(Debug, Clone, Copy)]
pub struct Runtime;

impl Known for Runtime {
    const ENDIAN: Option<Endian> = None;
    const STRINGS: Option<Strings> = None;
    const TAG: Option<Width> = None;
    fn changed<W: io::Write, C: Tally<W>, T: ?Sized + Serialize>(
        ser: &mut Serializer<W, Self, C>,
        cfg: Config,
        value: &T,
    ) -> Result<()> {
        let saved = ser.replace_config(cfg);
        let r = value.serialize(&mut *ser);
        ser.replace_config(saved);
        r
    }
}

/// Settings known at compile time: a changed one hands the value to a [`Runtime`]
/// serializer on the same output.
macro_rules! known {
    ($($(#[$doc:meta])* $name:ident: $endian:ident, $strings:ident, $tag:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub(crate) struct $name;

        impl Known for $name {
            const ENDIAN: Option<Endian> = Some(Endian::$endian);
            const STRINGS: Option<Strings> = Some(Strings::$strings);
            const TAG: Option<Width> = Some(Width::$tag);
            fn changed<W: io::Write, C: Tally<W>, T: ?Sized + Serialize>(
                ser: &mut Serializer<W, Self, C>,
                cfg: Config,
                value: &T,
            ) -> Result<()> {
                runtime_on(ser, cfg, value)
            }
        }
    )*};
}
known! {
    /// Little endian, NUL-terminated strings, `u8` ids.
    LittleNul: Little, Nul, U8;
    /// Little endian, `put_utf8_string` strings, `u8` ids.
    LittleUtf8: Little, Utf8, U8;
}

/// Which settings `cfg` has, as far as they are known at compile time.
pub(crate) enum Choice {
    LittleNul,
    LittleUtf8,
    Runtime,
}

impl Choice {
    /// The compiled-in settings that agree with `cfg`.
    #[inline]
    pub(crate) fn of(cfg: &Config) -> Self {
        match (cfg.endian, cfg.strings, cfg.tag) {
            (Endian::Little, Strings::Nul, Width::U8) => Choice::LittleNul,
            (Endian::Little, Strings::Utf8, Width::U8) => Choice::LittleUtf8,
            _ => Choice::Runtime,
        }
    }
}

/// Whether the settings known for `K` agree with `cfg`.
pub(crate) fn agrees<K: Known>(cfg: &Config) -> bool {
    K::endian(cfg) == cfg.endian && K::strings(cfg) == cfg.strings && K::tag(cfg) == cfg.tag
}
