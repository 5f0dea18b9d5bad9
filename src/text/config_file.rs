//! Godot's `ConfigFile` format: `project.godot`, `export_presets.cfg`, `override.cfg`
//! and games' settings files. Sections of `key=value` lines, values in the text form.
//!
//! [`ConfigFile`] reads like `ConfigFile.parse` / `load` and writes what
//! `ConfigFile.save` writes, byte for byte. [`from_str`] and [`to_string`] do the same
//! for any serde type: a struct with one field per section (each a struct or map of
//! keys), and plain fields for keys outside any section.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use godot_bin::{text::config_file, Dialect};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Settings { audio: Audio, video: Video }
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Audio { volume: f64, muted: bool }
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Video { size: godot_bin::Vector2i }
//!
//! let s = Settings {
//!     audio: Audio { volume: 0.5, muted: false },
//!     video: Video { size: godot_bin::Vector2i::new(1280, 720) },
//! };
//! let text = config_file::to_string(&s, Dialect::Godot4)?;
//! assert_eq!(text, "[audio]\n\nvolume=0.5\nmuted=false\n\n[video]\n\nsize=Vector2i(1280, 720)\n");
//! assert_eq!(config_file::from_str::<Settings>(&text, Dialect::Godot4)?, s);
//! # Ok::<(), godot_bin::Error>(())
//! ```

use hashlink::LinkedHashMap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::lexer::Tok;
use super::parser::Parser;
use super::syntax;
use crate::error::{Error, ErrorKind, Result};
use crate::{Config, Dialect, Dictionary, Variant, DEFAULT_MAX_DEPTH};

/// Names to entries in insertion order, with hashing that keys from a hostile text
/// cannot make collide.
type Ordered<V> = LinkedHashMap<String, V, ahash::RandomState>;

/// Sections of keys and values, in insertion order (the section `""` holds the keys
/// written before any section header), kept as one engine's ConfigFile keeps them:
/// the dialect's. Godot 4 puts the section `""` first and drops a section whose last
/// key is erased; Godot 3 keeps both where they are. Two files are equal when they
/// have the same dialect and hold the same sections and keys in the same order (the
/// order is part of what `save` writes). The default is an empty Godot 3 file, as
/// [`Dialect`]'s default is Godot 3.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigFile {
    dialect: Dialect,
    sections: Ordered<Ordered<Variant>>,
}

impl ConfigFile {
    /// An empty file that `dialect`'s engine's calls fill.
    pub fn new(dialect: Dialect) -> Self {
        ConfigFile {
            dialect,
            sections: Ordered::default(),
        }
    }

    /// The engine whose ConfigFile this one acts as.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Reads `text` as `ConfigFile.parse` in `dialect` does (`load` is the same on
    /// the file's text). A key set to `null` is erased, as the engine does.
    pub fn parse(text: &str, dialect: Dialect) -> Result<Self> {
        let mut file = ConfigFile::new(dialect);
        file.merge(text)?;
        Ok(file)
    }

    /// Reads more `text` into this file, as the engine's `parse` does into a
    /// ConfigFile that already holds values.
    pub fn merge(&mut self, text: &str) -> Result<()> {
        read(text, self)
    }

    /// The value of `key` in `section`.
    pub fn get_value(&self, section: &str, key: &str) -> Option<&Variant> {
        self.sections.get(section)?.get(key)
    }

    /// Sets `key` in `section`; as in Godot, `null` erases the key (and the section
    /// when it is left empty, in both dialects). A key set again keeps its place; a
    /// new section goes last, but in Godot 4 a new `""` section goes first (Godot 4
    /// writes its keys before any section header).
    pub fn set_value(&mut self, section: &str, key: &str, value: impl Into<Variant>) {
        let value = value.into();
        if value.is_nil() {
            self.erase(section, key);
            return;
        }
        if !self.sections.contains_key(section) {
            self.sections.insert(section.to_owned(), Ordered::default());
            if section.is_empty() && self.dialect == Dialect::Godot4 {
                self.sections.to_front(section);
            }
        }
        if let Some(keys) = self.sections.get_mut(section) {
            keys.replace(key.to_owned(), value);
        }
    }

    /// Removes a key. A section left empty goes too in Godot 4; Godot 3 keeps it (and
    /// `save` writes its header).
    pub fn erase_section_key(&mut self, section: &str, key: &str) {
        match self.dialect {
            Dialect::Godot4 => self.erase(section, key),
            Dialect::Godot2 | Dialect::Godot3 => {
                if let Some(keys) = self.sections.get_mut(section) {
                    keys.remove(key);
                }
            }
        }
    }

    /// Removes a key, and its section when that is left empty.
    fn erase(&mut self, section: &str, key: &str) {
        if let Some(keys) = self.sections.get_mut(section) {
            keys.remove(key);
            if keys.is_empty() {
                self.sections.remove(section);
            }
        }
    }

    /// Removes a section and its keys.
    pub fn erase_section(&mut self, section: &str) {
        self.sections.remove(section);
    }

    /// Whether the section exists.
    pub fn has_section(&self, section: &str) -> bool {
        self.sections.contains_key(section)
    }

    /// The section names, in order.
    pub fn sections(&self) -> impl Iterator<Item = &str> {
        self.sections.keys().map(String::as_str)
    }

    /// The keys and values of a section, in order.
    pub fn section(&self, section: &str) -> impl Iterator<Item = (&str, &Variant)> {
        self.sections
            .get(section)
            .into_iter()
            .flat_map(|keys| keys.iter().map(|(k, v)| (k.as_str(), v)))
    }

    /// The text `ConfigFile.save` writes for this content (Godot 3 as 3.5+ writes it:
    /// keys that need it quoted).
    pub fn to_text(&self) -> String {
        let dialect = self.dialect;
        let mut out = String::new();
        for (i, (section, keys)) in self.sections.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if dialect != Dialect::Godot4 {
                out.push_str(&format!("[{section}]\n\n"));
            } else if !section.is_empty() {
                out.push_str(&format!("[{}]\n\n", section.replace(']', "\\]")));
            }
            for (key, value) in keys {
                out.push_str(&property_name_encode(key));
                out.push('=');
                out.push_str(&value.display(dialect).to_string());
                out.push('\n');
            }
        }
        out
    }

    /// The content as a Dictionary: each section a Dictionary of its keys, the keys
    /// of section `""` at the top.
    pub fn to_dictionary(&self) -> Dictionary {
        let mut d = Dictionary::new();
        for (section, keys) in &self.sections {
            if section.is_empty() {
                for (k, v) in keys {
                    d.insert(k.as_str(), v.clone());
                }
            } else {
                let inner: Dictionary = keys.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                d.insert(section.as_str(), inner);
            }
        }
        d
    }

    /// The reverse of [`to_dictionary`](Self::to_dictionary): String keys whose values
    /// are Dictionaries become sections, other keys go to section `""`.
    pub fn from_dictionary(d: &Dictionary, dialect: Dialect) -> Result<Self> {
        let mut file = ConfigFile::new(dialect);
        for (k, v) in d.iter() {
            let Some(name) = k.as_str() else {
                return Err(not_a_name(k));
            };
            match v.as_dictionary() {
                Some(keys) => {
                    for (key, value) in keys.iter() {
                        let Some(key) = key.as_str() else {
                            return Err(not_a_name(key));
                        };
                        file.set_value(name, key, value.clone());
                    }
                }
                None => file.set_value("", name, v.clone()),
            }
        }
        Ok(file)
    }
}

/// Reads ConfigFile `text` into `into`, as `ConfigFile.parse` in its dialect does.
fn read(text: &str, into: &mut ConfigFile) -> Result<()> {
    let dialect = into.dialect;
    // A byte order mark is not text (the engine's strings drop it); offsets still
    // count in the caller's text.
    let whole = text.len();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = whole - text.len();
    // The engine's text ends at a NUL (its strings do), in a comment or a section
    // header as anywhere.
    let text = text.split('\0').next().unwrap_or(text);
    let mut p = Parser::new(text, dialect, DEFAULT_MAX_DEPTH);
    let g4 = dialect == Dialect::Godot4;
    let mut section = String::new();
    'entries: loop {
        let mut key = String::new();
        loop {
            p.lex.start = p.lex.pos;
            let Some(c) = p.lex.bump() else {
                return Ok(());
            };
            match c {
                ';' => {
                    while let Some(c) = p.lex.bump() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                '[' if key.is_empty() => {
                    let name =
                        section_name(&mut p, g4).map_err(|f| syntax(text, f).shifted(bom))?;
                    if !name.is_empty() {
                        section = name;
                    }
                    continue 'entries;
                }
                '"' => {
                    p.lex.pos = p.lex.start;
                    match p.lex.next().map_err(|f| syntax(text, f).shifted(bom))? {
                        Tok::Str(s) => key = s,
                        _ => unreachable!("a string token starts with '\"'"),
                    }
                }
                '=' => {
                    let tok = p.lex.next().map_err(|f| syntax(text, f).shifted(bom))?;
                    let value = p.value(tok).map_err(|f| syntax(text, f).shifted(bom))?;
                    if !key.is_empty() {
                        into.set_value(&section, &key, value);
                    }
                    continue 'entries;
                }
                c if (c as u32) > 32 => key.push(c),
                _ => {}
            }
        }
    }
}

fn not_a_name(k: &Variant) -> Error {
    Error::from(ErrorKind::InvalidType {
        found: k.get_type().name().to_owned(),
        expected: "a String section or key name".to_owned(),
    })
}

/// A `[section]` header after its `[`: raw characters up to `]` (Godot 4 keeps an
/// escaped `\]`), trimmed.
fn section_name(p: &mut Parser<'_>, g4: bool) -> super::lexer::Res<String> {
    let mut name = String::new();
    let mut escaping = false;
    loop {
        let Some(c) = p.lex.bump() else {
            return p.lex.fail("Unexpected EOF while parsing simple tag");
        };
        if c == ']' && !(g4 && escaping) {
            break;
        }
        escaping = g4 && c == '\\';
        name.push(c);
    }
    let name = name.trim_matches(|c: char| (c as u32) <= 32);
    Ok(if g4 {
        name.replace("\\]", "]")
    } else {
        name.to_owned()
    })
}

/// `String::property_name_encode`: a key with `=`, `"`, `;`, `[`, `]`, spaces,
/// controls or non-ASCII is quoted (only `\` and `"` escaped).
fn property_name_encode(key: &str) -> String {
    let plain = key
        .chars()
        .all(|c| !matches!(c, '=' | '"' | ';' | '[' | ']') && (33..=126).contains(&(c as u32)));
    if plain {
        key.to_owned()
    } else {
        format!("\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// Reads ConfigFile text into any `T` (see the [module](self) example).
pub fn from_str<T: DeserializeOwned>(text: &str, dialect: Dialect) -> Result<T> {
    let file = ConfigFile::parse(text, dialect)?;
    Config::new()
        .dialect(dialect)
        .from_variant(Variant::Dictionary(file.to_dictionary()))
}

/// Writes any `T` as `ConfigFile.save` would (see the [module](self) example).
pub fn to_string<T: ?Sized + Serialize>(value: &T, dialect: Dialect) -> Result<String> {
    let v = Config::new().dialect(dialect).to_variant(value)?;
    let Some(d) = v.as_dictionary() else {
        return Err(Error::from(ErrorKind::InvalidType {
            found: v.get_type().name().to_owned(),
            expected: "a struct or map of sections".to_owned(),
        }));
    };
    Ok(ConfigFile::from_dictionary(d, dialect)?.to_text())
}
