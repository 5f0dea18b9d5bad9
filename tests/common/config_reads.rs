//! What an engine's ConfigFile reader oracle (`tests/oracle/cfgload.gd`, `cfgload4.gd`)
//! printed for the inputs it `parse()`d, and whether the crate's `ConfigFile::parse`
//! reads each input the same way. Shared by `tests/config_file.rs` (the engine's
//! fixtures) and `tests/random_config_file.rs` (live runs on mutated files).

use std::collections::BTreeMap;

use godot_bin::text::config_file::ConfigFile;
use godot_bin::{Config, Dialect, Variant};

use crate::common::{engine_holds, has_leading_bom, hex, names_class_type, unhex};

#[derive(serde::Deserialize)]
struct Line {
    file: String,
    via: String,
    #[serde(default)]
    err: Option<i64>,
    #[serde(default)]
    sections: Vec<String>,
    #[serde(default)]
    section: String,
    #[serde(default)]
    key: String,
    #[serde(default)]
    hex: String,
}

/// What the engine read from one input: its error code, sections, and keys (section,
/// key, value bytes).
pub type Expected = (i64, Vec<String>, Vec<(String, String, String)>);

/// Objects and resources: the engine instantiates them with all their properties (and
/// loads resources); the crate keeps them as written.
pub fn has_object(v: &Variant) -> bool {
    matches!(v, Variant::Object(_) | Variant::ResourceRef(_))
        || v.as_array().is_some_and(|a| a.iter().any(has_object))
        || v.as_dictionary()
            .is_some_and(|d| d.iter().any(|(k, v)| has_object(k) || has_object(v)))
}

/// Whether the crate's `ours` is what the engine read as the bytes `engine`, or differs
/// from it only as the README's list of differences says: a leading BOM written twice,
/// and, when the text names a class as a typed container's type (`classes`), what
/// Godot 4 makes of a class it does not know.
fn same_value(cfg: Config, ours: &Variant, engine: &str, classes: bool) -> bool {
    let bytes = cfg.to_vec(ours).unwrap_or_default();
    engine_holds(cfg, ours, &bytes, &unhex(engine)) || classes || has_leading_bom(ours)
}

/// UTF-8 hex as text.
pub fn text(hex: &str) -> String {
    String::from_utf8(unhex(hex)).unwrap()
}

/// The oracle's `parse()` results in `log`, by file name.
pub fn parsed(log: &str) -> BTreeMap<String, Expected> {
    let mut expected: BTreeMap<String, Expected> = BTreeMap::new();
    for line in log.lines().filter(|l| l.starts_with('{')) {
        let l: Line = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if l.via != "parse" {
            continue;
        }
        let e = expected.entry(l.file.clone()).or_default();
        match l.err {
            Some(err) => {
                e.0 = err;
                e.1 = l.sections.iter().map(|s| text(s)).collect();
            }
            None => e.2.push((text(&l.section), text(&l.key), l.hex)),
        }
    }
    expected
}

/// How the crate's reading of `src` (the input `file`) differs from what `engine` read
/// (`expected`), if it does: the same sections and keys, the same values (bytes), and
/// refused where the engine refused it.
pub fn differs(
    engine: &str,
    dialect: Dialect,
    file: &str,
    src: &str,
    expected: &Expected,
) -> Option<String> {
    let (err, sections, keys) = expected;
    let cfg = Config::new().dialect(dialect);
    // Section headers left out: their quotes are no string literals. A value line may
    // start with `[` too (an Array as a dictionary key): a header ends with its `]`.
    let header = |l: &str| {
        let t = l.trim();
        t.starts_with('[') && t.ends_with(']') && !l.contains('=')
    };
    let values: Vec<&str> = src.lines().filter(|l| !header(l)).collect();
    let classes = dialect == Dialect::Godot4 && names_class_type(&values.join("\n"));
    match (ConfigFile::parse(src, dialect), *err) {
        (Ok(f), 0) => {
            let ours_sections: Vec<&str> = f.sections().collect();
            if ours_sections != *sections {
                return Some(format!(
                    "{file}: sections {ours_sections:?}, engine {sections:?}"
                ));
            }
            let ours_keys: Vec<(&str, &str, &Variant)> = f
                .sections()
                .flat_map(|s| f.section(s).map(move |(k, v)| (s, k, v)))
                .collect();
            // Objects and resources: the engine instantiates them (and loads
            // resources); the crate keeps them as written, so their bytes differ.
            let differ = ours_keys
                .iter()
                .zip(keys)
                .find(|((s, k, v), (es, ek, eh))| {
                    s != es || k != ek || !(has_object(v) || same_value(cfg, v, eh, classes))
                });
            match differ {
                None if ours_keys.len() == keys.len() => None,
                None => Some(format!(
                    "{file}: {} keys, engine {}",
                    ours_keys.len(),
                    keys.len()
                )),
                Some(((s, k, v), e)) => Some(format!(
                    "{file}: crate {:?}, engine {e:?}",
                    (s, k, cfg.to_vec(*v).map(|b| hex(&b)).unwrap_or_default())
                )),
            }
        }
        // Godot 3's legacy `InputEvent(KEY, ...)` text is not read (see the README).
        (Err(e), 0) if e.to_string().contains("'InputEvent'") => None,
        (Err(e), 0) => Some(format!("{file}: refused ({e}), the engine read it")),
        // The crate's Godot 3 grammar is 3.4+'s: 3.2.3 lacks Godot 4's spellings.
        (Ok(_), _) if engine == "godot3.2" && file.ends_with("4.cfg") => None,
        (Ok(_), err) => Some(format!("{file}: read, the engine refused it ({err})")),
        (Err(_), _) => None,
    }
}
