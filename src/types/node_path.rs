//! `NodePath`: names, subnames and the absolute flag, in Godot's path syntax.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTupleStruct, Serializer};

use crate::VariantType;

const MARKER: &str = VariantType::NodePath.marker();

/// A Godot `NodePath` such as `"/root/Main/Player:position:x"`.
///
/// Built from Godot's text syntax with `From<&str>` and printed back with `Display`.
/// Human-readable formats (serde_json) see that text; Godot bytes carry the parts.
///
/// ```
/// use godot_bin::NodePath;
/// let p = NodePath::from("../Player/Sprite:modulate:a");
/// assert_eq!(p.names(), ["..", "Player", "Sprite"]);
/// assert_eq!(p.subnames(), ["modulate", "a"]);
/// assert_eq!(p.to_string(), "../Player/Sprite:modulate:a");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NodePath(Box<Parts>);

// Boxed so that a Variant holding a NodePath stays small.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Parts {
    absolute: bool,
    names: Vec<String>,
    subnames: Vec<String>,
}

impl NodePath {
    /// A path from its parts, as Godot stores them.
    pub fn from_parts(absolute: bool, names: Vec<String>, subnames: Vec<String>) -> Self {
        NodePath(Box::new(Parts {
            absolute,
            names,
            subnames,
        }))
    }

    /// Whether the path starts at the root (`/root/...`).
    pub fn is_absolute(&self) -> bool {
        self.0.absolute
    }

    /// The node names (`a`, `b` in `a/b:c`).
    pub fn names(&self) -> &[String] {
        &self.0.names
    }

    /// The property subnames (`c` in `a/b:c`).
    pub fn subnames(&self) -> &[String] {
        &self.0.subnames
    }

    pub(crate) fn names_mut(&mut self) -> &mut Vec<String> {
        &mut self.0.names
    }

    pub(crate) fn subnames_mut(&mut self) -> &mut Vec<String> {
        &mut self.0.subnames
    }

    /// Whether this is the empty path `NodePath("")`.
    pub fn is_empty(&self) -> bool {
        !self.0.absolute && self.0.names.is_empty() && self.0.subnames.is_empty()
    }
}

impl From<&str> for NodePath {
    /// Parses like Godot's `NodePath(String)`: empty names between slashes are skipped,
    /// a trailing `:` is allowed, and a path with an empty subname (`a::b`) is invalid,
    /// which Godot turns into the empty path.
    fn from(path: &str) -> Self {
        let absolute = path.starts_with('/');
        let (nodes, subs) = match path.find(':') {
            Some(i) => (&path[..i], Some(&path[i + 1..])),
            None => (path, None),
        };
        let mut subnames = Vec::new();
        if let Some(subs) = subs {
            let parts: Vec<&str> = subs.split(':').collect();
            for (i, part) in parts.iter().enumerate() {
                if part.is_empty() {
                    if i + 1 == parts.len() {
                        continue;
                    }
                    return NodePath::default();
                }
                subnames.push((*part).to_owned());
            }
        }
        let names: Vec<String> = nodes
            .split('/')
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        NodePath::from_parts(absolute, names, subnames)
    }
}

impl From<String> for NodePath {
    fn from(path: String) -> Self {
        NodePath::from(path.as_str())
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.absolute {
            f.write_str("/")?;
        }
        for (i, n) in self.0.names.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(n)?;
        }
        for s in &self.0.subnames {
            write!(f, ":{s}")?;
        }
        Ok(())
    }
}

impl Serialize for NodePath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        let mut t = s.serialize_tuple_struct(MARKER, 3)?;
        t.serialize_field(&self.0.absolute)?;
        t.serialize_field(&self.0.names)?;
        t.serialize_field(&self.0.subnames)?;
        t.end()
    }
}

struct NodePathVisitor;

impl<'de> Visitor<'de> for NodePathVisitor {
    type Value = NodePath;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a NodePath")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<NodePath, E> {
        Ok(NodePath::from(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodePath, A::Error> {
        let absolute = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let names = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let subnames = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(2, &self))?;
        Ok(NodePath::from_parts(absolute, names, subnames))
    }
}

impl<'de> Deserialize<'de> for NodePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            d.deserialize_str(NodePathVisitor)
        } else {
            d.deserialize_tuple_struct(MARKER, 3, NodePathVisitor)
        }
    }
}
