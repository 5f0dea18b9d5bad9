//! Godot's text form both ways: `var2str` / `var_to_str` ([`to_string`]) and
//! `str2var` / `str_to_var` ([`from_str`]), plus [`ConfigFile`](config_file::ConfigFile).
//!
//! The parser takes every constructor both engines know, under its Godot 3 and Godot 4
//! names (`Quat` / `Quaternion`, `PoolRealArray` / `PackedFloat32Array`, `Matrix32`,
//! `Rect3`, ...), and reads numbers with the engine's own conversions, so that a text
//! reads to the bits the engine reads. Where the engines differ (`#aarrggbb` in Godot
//! 3 is `#rrggbbaa` in Godot 4, `-inf`, `1E5`, `\U` escapes, `&"..."`), [`from_str_in`]
//! follows the given dialect; [`from_str`] and `str::parse` follow Godot 4.
//!
//! Unlike the engine, which ignores whatever follows the value, text after the value
//! (other than whitespace and `;` comments) is an error, and nothing is instantiated
//! or loaded: `Object(...)` becomes an [`Object`](crate::Object) and `Resource(...)` a
//! [`ResourceRef`](crate::ResourceRef).
//!
//! ```
//! use godot_bin::{text, Dialect, Variant, Vector2};
//! let v: Variant = "{\"hp\": 10, \"at\": Vector2(1, 0.5)}".parse()?;
//! assert_eq!(v.get("at"), Some(&Variant::Vector2(Vector2::new(1.0, 0.5))));
//! assert_eq!(text::to_string(&v, Dialect::Godot3)?, "{\n\"at\": Vector2( 1, 0.5 ),\n\"hp\": 10\n}");
//!
//! #[derive(serde::Deserialize, Debug, PartialEq)]
//! struct Spawn { hp: i32, at: Vector2 }
//! let s: Spawn = text::from_str("{\"hp\": 10, \"at\": Vector2(1, 0.5)}")?;
//! assert_eq!(s, Spawn { hp: 10, at: Vector2::new(1.0, 0.5) });
//! # Ok::<(), godot_bin::Error>(())
//! ```

pub mod config_file;
mod lexer;
mod parser;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, ErrorKind, Result};
use crate::{Config, Dialect, Variant, DEFAULT_MAX_DEPTH};
use lexer::{Fail, Tok};

/// The value in `dialect`'s text form, as `var2str` / `var_to_str` write it.
pub fn to_string<T: ?Sized + Serialize>(value: &T, dialect: Dialect) -> Result<String> {
    let v = Config::new().dialect(dialect).to_variant(value)?;
    Ok(v.display(dialect).to_string())
}

/// Reads Godot 4 text (which takes Godot 3's names too) into any `T`.
pub fn from_str<T: DeserializeOwned>(s: &str) -> Result<T> {
    from_str_in(s, Dialect::Godot4)
}

/// Reads text as `dialect`'s `str2var` / `str_to_var` reads it, into any `T`.
pub fn from_str_in<T: DeserializeOwned>(s: &str, dialect: Dialect) -> Result<T> {
    let v = parse(s, dialect)?;
    Config::new().dialect(dialect).from_variant(v)
}

/// Reads the value at the start of `s` as `dialect`'s `str2var` / `str_to_var` does,
/// which ignores whatever follows it; returns the value and the bytes it took.
///
/// ```
/// use godot_bin::{text, Dialect, Variant};
/// let (v, used) = text::parse_prefix("12abc", Dialect::Godot4)?;
/// assert_eq!((v, used), (Variant::Int(12), 2));
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn parse_prefix(s: &str, dialect: Dialect) -> Result<(Variant, usize)> {
    read(s, dialect, false)
}

/// One value, then only whitespace and comments.
fn parse(s: &str, dialect: Dialect) -> Result<Variant> {
    read(s, dialect, true).map(|(v, _)| v)
}

/// The value at the start of `s` and the bytes it took; with `whole`, nothing but
/// whitespace and comments may follow.
fn read(s: &str, dialect: Dialect, whole: bool) -> Result<(Variant, usize)> {
    let mut p = parser::Parser::new(s, dialect, DEFAULT_MAX_DEPTH);
    let result = (|| {
        let tok = p.lex.next()?;
        let v = p.value(tok)?;
        let used = p.lex.pos;
        if whole && (p.lex.next()? != Tok::Eof || !p.lex.rest().is_empty()) {
            return p.lex.fail("Expected the end of the text after the value");
        }
        Ok((v, used))
    })();
    result.map_err(|f| syntax(s, f))
}

/// A syntax error with its line and column.
fn syntax(src: &str, f: Fail) -> Error {
    let at = f.at.min(src.len());
    let before = &src[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Error::at(
        ErrorKind::Syntax {
            message: f.msg,
            line,
            column,
        },
        at,
    )
}

impl std::str::FromStr for Variant {
    type Err = Error;

    /// Godot 4's `str_to_var` (see [`text`](crate::text)).
    fn from_str(s: &str) -> Result<Variant> {
        parse(s, Dialect::Godot4)
    }
}
