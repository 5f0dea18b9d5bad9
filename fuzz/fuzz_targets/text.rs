//! Godot text from anywhere (a settings file, a console line) read by the parser and
//! by the ConfigFile reader, in both dialects. Neither may panic; a parsed value must
//! print, and Godot 4's text of it must read back to a value of the same shape (not
//! always the same bits: the engine's `strtod`, ported as it is, is not correctly
//! rounded, so `1e+34` reads as 1.0000000000000001e+34, in the engine too).
//!
//! Input: one selector byte (bit 0: Godot 3 or 4), then the text (lossy UTF-8).
#![no_main]

use godot_bin::text::{self, config_file::ConfigFile};
use godot_bin::{Dialect, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else { return };
    let dialect = if sel & 1 == 0 { Dialect::Godot3 } else { Dialect::Godot4 };
    let s = String::from_utf8_lossy(bytes);

    // What `save` writes is not always readable (the engine writes a section name
    // with `]` in Godot 3, or ending in `\` in Godot 4, as it is): reading it back
    // must only not panic.
    if let Ok(file) = ConfigFile::parse(&s, dialect) {
        let _ = ConfigFile::parse(&file.to_text(), dialect);
    }

    let Ok((v, used)) = text::parse_prefix(&s, dialect) else { return };
    assert!(used <= s.len());
    let printed = v.display(dialect).to_string();
    // Godot 4.6 prints an Object's property names unescaped (`"a\\b"c":5` for the name
    // `a\b"c`, checked), so that text reads back only as far as the engine's does.
    if dialect == Dialect::Godot4 && !holds_object(&v) {
        let back: Variant = printed
            .parse()
            .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
        assert_eq!(back.get_type(), v.get_type(), "{printed:?} read back as another type");
    }
});

fn holds_object(v: &Variant) -> bool {
    let pair = |(k, v): (&Variant, &Variant)| holds_object(k) || holds_object(v);
    match v {
        Variant::Object(_) => true,
        Variant::Array(items) => items.iter().any(holds_object),
        Variant::TypedArray(a) => a.items.iter().any(holds_object),
        Variant::Dictionary(d) => d.iter().any(pair),
        Variant::TypedDictionary(d) => d.entries.iter().any(pair),
        _ => false,
    }
}
