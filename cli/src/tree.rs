//! The `tree` output of `decode`: one line per value, like a protocol dissector.
//!
//! ```text
//!   offset    len  value
//!        0     28  Array (2 elements)
//!        8      8    [0] int = 7  02000000 07000000
//!       16     12    [1] String = "hi"  04000000 02000000 68690000
//! ```
//! Offsets count from the start of the input; flags (`64-bit`, `typed: int`) follow
//! the type in parentheses with the raw header word; a leaf's hex is cut after 32
//! bytes.

use std::fmt::Write;

use godot_bin::dissect::{Item, Role};
use godot_bin::Dialect;

use crate::decode::one_line;

const HEX_MAX: usize = 32;
const VALUE_MAX: usize = 80;

/// Writes the lines of `items`, read from `bytes`, which start at `base` in the input.
pub fn write(out: &mut String, items: &[Item], bytes: &[u8], base: usize, dialect: Dialect) {
    let _ = writeln!(out, "{:>8} {:>6}  value", "offset", "len");
    for item in items {
        let indent = "  ".repeat(item.depth);
        let role = match &item.role {
            Role::Root => String::new(),
            Role::Element(i) => format!("[{i}] "),
            Role::Key(i) => format!("key {i}: "),
            Role::Value(i) => format!("value {i}: "),
            Role::Property(name) => format!(".{name} "),
        };
        let mut line = format!(
            "{:>8} {:>6}  {indent}{role}{}",
            base + item.offset,
            item.len,
            item.ty.name_in(dialect)
        );
        if !item.flags.is_empty() {
            let _ = write!(
                line,
                " ({}, header {:#010x})",
                item.flags.join(", "),
                item.header
            );
        }
        if let Some(n) = item.count {
            let what = match (item.ty.name(), n) {
                ("Dictionary", 1) => "entry",
                ("Dictionary", _) => "entries",
                ("Array", 1) => "element",
                ("Array", _) => "elements",
                (_, 1) => "property",
                _ => "properties",
            };
            let _ = write!(line, " ({n} {what})");
        }
        if let Some(v) = &item.value {
            let mut text = one_line(v, dialect);
            if text.chars().count() > VALUE_MAX {
                text = text.chars().take(VALUE_MAX).collect::<String>() + "…";
            }
            let _ = write!(
                line,
                " = {text}  {}",
                hex_words(&bytes[item.offset..item.offset + item.len])
            );
        }
        if !item.complete {
            line.push_str("  <- cut short");
        }
        out.push_str(&line);
        out.push('\n');
    }
}

/// Bytes as hex in 4-byte words, cut after [`HEX_MAX`] bytes.
fn hex_words(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(HEX_MAX)];
    let mut s = shown
        .chunks(4)
        .map(hex::encode)
        .collect::<Vec<_>>()
        .join(" ");
    if bytes.len() > HEX_MAX {
        let _ = write!(s, " … (+{} bytes)", bytes.len() - HEX_MAX);
    }
    s
}
