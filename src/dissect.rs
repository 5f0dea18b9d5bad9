//! A value's bytes, value by value: where each one sits, its header, and what it holds,
//! like a protocol dissector. Bytes that do not decode still give everything read up
//! to the error, with the error's offset.
//!
//! ```
//! use godot_bin::{Config, VariantType};
//!
//! // var2bytes([7, "hi"])
//! let bytes = [
//!     19, 0, 0, 0, 2, 0, 0, 0, // Array, 2 elements
//!     2, 0, 0, 0, 7, 0, 0, 0, // int 7
//!     4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0, // String "hi"
//! ];
//! let d = Config::new().dissect(&bytes);
//! assert!(d.error.is_none());
//! let lines: Vec<_> = d.items.iter().map(|i| (i.offset, i.len, i.depth, i.ty)).collect();
//! assert_eq!(lines, [
//!     (0, 28, 0, VariantType::Array),
//!     (8, 8, 1, VariantType::Int),
//!     (16, 12, 1, VariantType::String),
//! ]);
//!
//! // Cut short inside the String: its header was read, its length was not.
//! let d = Config::new().dissect(&bytes[..20]);
//! let complete: Vec<_> = d.items.iter().map(|i| (i.ty, i.complete)).collect();
//! assert_eq!(complete, [
//!     (VariantType::Array, false),
//!     (VariantType::Int, true),
//!     (VariantType::String, false),
//! ]);
//! assert_eq!(d.value.unwrap().to_string(), "[ 7 ]");
//! assert_eq!(d.error.unwrap().offset(), Some(20));
//! ```

use serde::Deserialize;

use crate::de::{Header, SliceRead};
use crate::dialect::{Dialect, VariantType, FLAG_64};
use crate::error::{Error, ErrorKind, Result};
use crate::table::Layout;
use crate::{Config, Deserializer, Dictionary, Object, Variant};

/// Where a value sits in the one that holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// The value the bytes hold.
    Root,
    /// An Array element, by index.
    Element(usize),
    /// A Dictionary entry's key, by entry index.
    Key(usize),
    /// A Dictionary entry's value, by entry index.
    Value(usize),
    /// An Object property, by name.
    Property(String),
}

/// One value in the bytes: a container (Array, Dictionary, full Object) or a leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The byte offset of its header.
    pub offset: usize,
    /// How many bytes it takes, header and contents; up to the error for a value the
    /// error cut short.
    pub len: usize,
    /// How many containers hold it.
    pub depth: usize,
    /// The raw header word: the type id in bits 0–7, flags above.
    pub header: u32,
    /// Its type.
    pub ty: VariantType,
    /// Where it sits in its container.
    pub role: Role,
    /// For containers: how many elements, entries or properties the header announces.
    pub count: Option<usize>,
    /// For leaves: the value.
    pub value: Option<Variant>,
    /// Whether it decoded to its end (false for the values an error cut short).
    pub complete: bool,
    /// What the header's flag bits mean here, in words (`"64-bit"`, `"typed: int"`).
    pub flags: Vec<String>,
}

/// What [`Config::dissect`] found.
#[derive(Debug)]
pub struct Dissection {
    /// Every value read, in byte order (a container before its contents).
    pub items: Vec<Item>,
    /// The value: complete as `from_slice` would give it (typed containers converted
    /// as the engine converts them), or, after an error, what decoded before it.
    pub value: Option<Variant>,
    /// How many bytes the value took (up to the error, if any).
    pub len: usize,
    /// Why decoding stopped early, with its byte offset.
    pub error: Option<Error>,
}

impl Config {
    /// Dissects one value at the start of `bytes` (bytes after it are left alone; see
    /// [`Dissection::len`]).
    pub fn dissect(&self, bytes: &[u8]) -> Dissection {
        let mut d = Dissector {
            de: Deserializer::with_config(SliceRead::new(bytes), *self),
            items: Vec::new(),
        };
        let (partial, walked) = d.value(0, Role::Root);
        let len = d.de.byte_offset();
        if let Err(e) = &walked {
            for item in &mut d.items {
                if !item.complete {
                    item.len = len.max(e.offset().unwrap_or(len)) - item.offset;
                }
            }
        }
        // The decoder has the last word: it also converts typed containers' elements
        // as the engine does, which can fail where the walk through the bytes did not.
        let (value, error) = match (walked, self.take_from_slice::<Variant>(bytes)) {
            (Ok(()), Ok((v, _))) => (Some(v), None),
            (_, Err(e)) | (Err(e), Ok(_)) => (partial, Some(e)),
        };
        Dissection {
            items: d.items,
            value,
            len,
            error,
        }
    }
}

struct Dissector<'de> {
    de: Deserializer<SliceRead<'de>>,
    items: Vec<Item>,
}

/// What decoded (if anything) and whether the value ended cleanly.
type Partial = (Option<Variant>, Result<()>);

impl Dissector<'_> {
    fn value(&mut self, depth: usize, role: Role) -> Partial {
        let h = match self.de.peek() {
            Ok(h) => h,
            Err(e) => return (None, Err(e)),
        };
        let cfg = self.de.config();
        let container = match h.ty.layout() {
            Layout::Array | Layout::Dictionary => true,
            Layout::Object => {
                cfg.allow_objects && cfg.dialect != Dialect::Godot2 && h.raw & FLAG_64 == 0
            }
            _ => false,
        };
        let index = self.items.len();
        self.items.push(Item {
            offset: h.at,
            len: 0,
            depth,
            header: h.raw,
            ty: h.ty,
            role,
            count: None,
            value: None,
            complete: false,
            flags: flags(h, cfg.dialect),
        });
        let (value, result) = if container {
            self.container(h, depth, index)
        } else {
            match Variant::deserialize(&mut self.de) {
                Ok(v) => {
                    self.items[index].value = Some(v.clone());
                    (Some(v), Ok(()))
                }
                Err(e) => (None, Err(e)),
            }
        };
        if result.is_ok() {
            let item = &mut self.items[index];
            item.complete = true;
            item.len = self.de.byte_offset() - h.at;
        }
        (value, result)
    }

    fn container(&mut self, h: Header, depth: usize, index: usize) -> Partial {
        let head = self.de.header().and_then(|h| match h.ty {
            VariantType::Object => self.de.object_head(h),
            _ => {
                let types = self.de.container_types(h)?;
                let what: &[&str] = if h.ty == VariantType::Array {
                    &["typed"]
                } else {
                    &["typed keys", "typed values"]
                };
                for (what, t) in what.iter().zip(&types) {
                    if t.kind != 0 {
                        self.items[index].flags.push(format!("{what}: {}", t.name));
                    }
                }
                let n = if h.ty == VariantType::Dictionary {
                    self.de.count("a Dictionary count", 8, 0x7FFF_FFFF)?
                } else {
                    self.de.count("an Array count", 4, 0x7FFF_FFFF)?
                };
                Ok(Some((String::new(), n)))
            }
        });
        let (class, n) = match head {
            Ok(Some(head)) => head,
            // A null Object: no class, nothing follows.
            Ok(None) => return (Some(Variant::Nil), Ok(())),
            Err(e) => return (None, Err(e)),
        };
        self.items[index].count = Some(n);
        let max = self.de.config().max_depth;
        if n > 0 && depth >= max {
            return (None, Err(Error::at(ErrorKind::DepthLimit(max), h.at)));
        }
        match h.ty {
            VariantType::Array => {
                let mut items = Vec::new();
                for i in 0..n {
                    let (v, r) = self.value(depth + 1, Role::Element(i));
                    items.extend(v);
                    if r.is_err() {
                        return (Some(Variant::Array(items)), r);
                    }
                }
                (Some(Variant::Array(items)), Ok(()))
            }
            VariantType::Dictionary => {
                let mut dict = Dictionary::new();
                for i in 0..n {
                    let (k, r) = self.value(depth + 1, Role::Key(i));
                    let Some(k) = k.filter(|_| r.is_ok()) else {
                        return (Some(Variant::Dictionary(dict)), r);
                    };
                    let (v, r) = self.value(depth + 1, Role::Value(i));
                    if let Some(v) = v {
                        dict.insert(k, v);
                    }
                    if r.is_err() {
                        return (Some(Variant::Dictionary(dict)), r);
                    }
                }
                (Some(Variant::Dictionary(dict)), Ok(()))
            }
            _ => {
                let mut object = Object {
                    class,
                    properties: Vec::new(),
                };
                for _ in 0..n {
                    let name = match self.de.str() {
                        Ok(name) => name.to_owned(),
                        Err(e) => return (Some(Variant::Object(Box::new(object))), Err(e)),
                    };
                    let (v, r) = self.value(depth + 1, Role::Property(name.clone()));
                    if let Some(v) = v {
                        object.properties.push((name, v));
                    }
                    if r.is_err() {
                        return (Some(Variant::Object(Box::new(object))), r);
                    }
                }
                (Some(Variant::Object(Box::new(object))), Ok(()))
            }
        }
    }
}

/// The header's flag bits, in words.
fn flags(h: Header, dialect: Dialect) -> Vec<String> {
    let mut out = Vec::new();
    let mut known = 0;
    if dialect != Dialect::Godot2 && h.raw & FLAG_64 != 0 {
        let word = match h.ty.layout() {
            Layout::Int | Layout::Float => Some("64-bit"),
            Layout::Object => Some("as id"),
            _ if dialect == Dialect::Godot4 && h.ty.has_reals() => Some("double"),
            _ => None,
        };
        if let Some(word) = word {
            out.push(word.to_string());
            known |= FLAG_64;
        }
    }
    if dialect == Dialect::Godot4 && matches!(h.ty, VariantType::Array | VariantType::Dictionary) {
        // Element types; `Dissector::container` names them once it has read them.
        known |= if h.ty == VariantType::Array {
            3 << 16
        } else {
            0xF << 16
        };
    }
    let unknown = h.raw & !0xFF & !known;
    if unknown != 0 {
        out.push(format!("unknown bits {unknown:#x}"));
    }
    out
}
