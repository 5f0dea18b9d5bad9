//! Godot text from anywhere (a settings file, a console line) read by the parser and
//! by the ConfigFile reader, in both dialects. Neither may panic; a parsed value must
//! print, and Godot 4's text of it must read back to an equal value (its float text is
//! exact only for doubles, so floats are compared by the text they print).
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

    if let Ok(file) = ConfigFile::parse(&s, dialect) {
        let again = file.to_text(dialect);
        ConfigFile::parse(&again, dialect).expect("the text ConfigFile writes reads back");
    }

    let Ok((v, used)) = text::parse_prefix(&s, dialect) else { return };
    assert!(used <= s.len());
    let printed = v.display(dialect).to_string();
    if dialect == Dialect::Godot4 {
        let back: Variant = printed
            .parse()
            .unwrap_or_else(|e| panic!("{printed:?} does not read back: {e}"));
        let reprinted = back.display(dialect).to_string();
        assert_eq!(printed, reprinted, "text of {s:?} changed on a round trip");
    }
});
