//! `Resource("res://x.tres")`, `ExtResource("1")`, `SubResource("2")` in Godot text:
//! references the engine resolves by loading files. This crate never loads anything:
//! the parser keeps the reference as data, which prints back as it was written and
//! which the binary encoder refuses (Godot's bytes have no such value).

use std::fmt;

use super::Variant;

/// A resource reference read from Godot text, never resolved.
///
/// ```
/// use godot_bin::{ResourceRef, Variant};
/// let v: Variant = r#"Resource("res://icon.png")"#.parse()?;
/// let Variant::ResourceRef(r) = &v else { panic!() };
/// assert_eq!(r.kind, "Resource");
/// assert_eq!(r.path(), Some("res://icon.png"));
/// assert!(godot_bin::to_vec(&v).is_err());
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceRef {
    /// `Resource`, `ExtResource` or `SubResource`.
    pub kind: String,
    /// The arguments as written: strings (a path, a `uid://`, an id), or ids as ints.
    pub args: Vec<Variant>,
}

impl ResourceRef {
    /// The first argument that is a string and not a `uid://`: the path or the id.
    pub fn path(&self) -> Option<&str> {
        self.args
            .iter()
            .filter_map(Variant::as_str)
            .find(|s| !s.starts_with("uid://"))
    }
}

impl fmt::Display for ResourceRef {
    /// As Godot 4 writes it: `Resource("uid://…", "res://…")`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.kind)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match a {
                Variant::String(s) => {
                    write!(f, "\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))?
                }
                other => write!(f, "{}", other.display(crate::Dialect::Godot4))?,
            }
        }
        f.write_str(")")
    }
}
