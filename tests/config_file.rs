//! ConfigFile against the engines (fixtures made by each engine with
//! `scripts/gen-text-fixtures.sh`): what `ConfigFile.parse` reads from every input of
//! `tests/fixtures/configfile/inputs`, what `save` writes after loading it, and the
//! files `save` wrote for contents built in GDScript.

mod common;
#[path = "common/config_reads.rs"]
mod config_reads;

use common::*;
use config_reads::has_object;
use godot_bin::text::config_file::ConfigFile;
use godot_bin::{Dialect, Variant};

fn dir(engine: &str) -> std::path::PathBuf {
    root().join("tests/fixtures/configfile").join(engine)
}

fn input(name: &str) -> String {
    let bytes = std::fs::read(root().join("tests/fixtures/configfile/inputs").join(name)).unwrap();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Every input, read as the engine's `parse` read it: the same sections and keys, the
/// same values (bytes), and refused where the engine refused it.
fn reads_like(engine: &str, dialect: Dialect) {
    let log = std::fs::read_to_string(dir(engine).join("load.jsonl")).unwrap();
    let expected = config_reads::parsed(&log);
    assert!(expected.len() > 30, "{engine}: {} inputs", expected.len());
    let failures: Vec<String> = expected
        .iter()
        .filter_map(|(file, e)| config_reads::differs(engine, dialect, file, &input(file), e))
        .collect();
    assert!(failures.is_empty(), "{engine}:\n{}", failures.join("\n"));
}

/// Loading an input and saving it gives the engine's bytes; and every file `save`
/// wrote reads and writes back byte for byte.
fn writes_like(engine: &str, dialect: Dialect) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(dir(engine).join("resaved")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let src = input(&name);
        // `load` reads a file byte by byte: its non-ASCII keys and NUL bytes are not
        // `parse`'s.
        if !src.is_ascii() || src.contains('\0') || name.starts_with("err_") {
            continue;
        }
        let Ok(file) = ConfigFile::parse(&src, dialect) else {
            continue;
        };
        // The engine writes the objects it instantiated, with all their properties.
        if file
            .sections()
            .any(|s| file.section(s).any(|(_, v)| has_object(v)))
        {
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap();
        checked += 1;
        if file.to_text() != want {
            failures.push(format!(
                "resaved {name}: crate {:?}\nengine {want:?}",
                file.to_text()
            ));
        }
    }
    for entry in std::fs::read_dir(dir(engine).join("saved")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("cfg") {
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap();
        // `save` writes an empty key as a bare `=`, and Godot 3 a RID as nothing, which
        // the engine's own `parse` cannot read back.
        // Godot 3 also keeps a section whose keys were all erased (`[s]` and nothing),
        // which reading does not create again, and writes section "" as `[]`, which
        // reading takes as no header at all.
        let header = |l: &str| l.starts_with('[') && l.ends_with(']');
        let last = want.lines().rev().find(|l| !l.is_empty()).unwrap_or("");
        if want
            .lines()
            .any(|l| l.starts_with('=') || l.ends_with('=') || l == "[]")
            || header(last)
        {
            continue;
        }
        let file = ConfigFile::parse(&want, dialect).unwrap();
        checked += 1;
        if file.to_text() != want {
            failures.push(format!(
                "saved {path:?}: crate {:?}\nengine {want:?}",
                file.to_text()
            ));
        }
    }
    assert!(checked > 20, "{engine}: {checked} files");
    assert!(failures.is_empty(), "{engine}:\n{}", failures.join("\n"));
}

#[test]
fn godot_3_2_parse() {
    reads_like("godot3.2", Dialect::Godot3);
}

#[test]
fn godot_3_6_parse_and_save() {
    reads_like("godot3.6", Dialect::Godot3);
    writes_like("godot3.6", Dialect::Godot3);
}

#[test]
fn godot_4_6_parse_and_save() {
    reads_like("godot4", Dialect::Godot4);
    writes_like("godot4", Dialect::Godot4);
}

/// The repo's own example projects.
#[test]
fn example_projects_read() {
    for (path, dialect) in [
        ("examples/godot3_client/project.godot", Dialect::Godot3),
        ("examples/godot4_client/project.godot", Dialect::Godot4),
    ] {
        let src = std::fs::read_to_string(root().join(path)).unwrap();
        let file = ConfigFile::parse(&src, dialect).unwrap();
        assert!(
            matches!(
                file.get_value("application", "config/name"),
                Some(Variant::String(_))
            ),
            "{path}: {file:?}"
        );
        let again = ConfigFile::parse(&file.to_text(), dialect).unwrap();
        assert_eq!(again, file, "{path}");
    }
}

/// A text that starts with a byte order mark fails where the same text without it
/// fails, three bytes on (offsets count in the caller's text), at the same line and
/// column.
#[test]
fn errors_after_a_byte_order_mark_count_it() {
    for t in ["k=@", "k=[1,", "[s]\nk=(", "a=1\nb=Vector2(1,"] {
        for dialect in [Dialect::Godot3, Dialect::Godot4] {
            let plain = ConfigFile::parse(t, dialect).unwrap_err();
            let marked = ConfigFile::parse(&format!("\u{feff}{t}"), dialect).unwrap_err();
            assert_eq!(marked.offset(), plain.offset().map(|o| o + 3), "{t:?}");
            assert_eq!(marked.kind().to_string(), plain.kind().to_string(), "{t:?}");
        }
    }
}

/// The order rules of Godot 4's ConfigFile, kept the plain way: a list of sections,
/// each a list of keys (Godot 3's differ: `tests/random_config_file.rs` holds both
/// to the engines).
#[derive(Default)]
struct Model(Vec<(String, Vec<(String, Variant)>)>);

impl Model {
    fn set(&mut self, section: &str, key: &str, value: Variant) {
        let at = self.0.iter().position(|(s, _)| s == section);
        if value.is_nil() {
            if let Some(at) = at {
                self.0[at].1.retain(|(k, _)| k != key);
                if self.0[at].1.is_empty() {
                    self.0.remove(at);
                }
            }
            return;
        }
        let at = at.unwrap_or_else(|| {
            // A new `""` section goes first.
            let at = if section.is_empty() { 0 } else { self.0.len() };
            self.0.insert(at, (section.to_owned(), Vec::new()));
            at
        });
        let keys = &mut self.0[at].1;
        match keys.iter_mut().find(|(k, _)| k == key) {
            Some(entry) => entry.1 = value,
            None => keys.push((key.to_owned(), value)),
        }
    }
}

fn listed(f: &ConfigFile) -> Vec<(String, Vec<(String, Variant)>)> {
    f.sections()
        .map(|s| {
            let keys = f
                .section(s)
                .map(|(k, v)| (k.to_owned(), v.clone()))
                .collect();
            (s.to_owned(), keys)
        })
        .collect()
}

/// Text that sets and erases (`null`) keys in any order, and the same calls of
/// `set_value`, leave the file as Godot 4's rules do: the same sections and keys in the
/// same order (a key set again keeps its place, one erased and set again goes last, a
/// section left empty goes, a new `""` section goes first), many erasures included.
#[test]
fn reading_sets_and_erasures_keeps_the_order_set_value_keeps() {
    use quickcheck::{QuickCheck, TestResult};
    fn prop(ops: Vec<(u8, u8, Option<i8>)>) -> TestResult {
        let mut text = String::from("top=1\n");
        let mut by_calls = ConfigFile::new(Dialect::Godot4);
        by_calls.set_value("", "top", 1);
        let mut model = Model::default();
        model.set("", "top", Variant::Int(1));
        for (section, key, value) in ops {
            let section = ["", "a", "b", "c"][usize::from(section % 4)];
            let key = format!("k{}", key % 6);
            let value = value.map_or(Variant::Nil, |v| Variant::Int(v.into()));
            // Keys before any header go to section "": only the first lines can.
            if !section.is_empty() || !text.contains('[') {
                if !section.is_empty() {
                    text += &format!("[{section}]\n");
                }
                text += &format!("{key}={}\n", value.display(Dialect::Godot4));
                by_calls.set_value(section, &key, value.clone());
                model.set(section, &key, value);
            }
        }
        let read = ConfigFile::parse(&text, Dialect::Godot4).unwrap();
        if listed(&read) == model.0 && listed(&by_calls) == model.0 && read == by_calls {
            TestResult::passed()
        } else {
            TestResult::error(format!(
                "{text}\nread {:?}\ncalls {:?}\nrules {:?}",
                listed(&read),
                listed(&by_calls),
                model.0
            ))
        }
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<(u8, u8, Option<i8>)>) -> TestResult);
    // Many keys, then all erased, then some set again: the last ones set, in order.
    let mut text = String::from("[s]\n");
    for i in 0..20_000 {
        text += &format!("k{i}={i}\n");
    }
    for i in 0..20_000 {
        text += &format!("k{i}=null\n");
    }
    text += "k7=7\nk3=3\n";
    let read = ConfigFile::parse(&text, Dialect::Godot4).unwrap();
    let keys: Vec<&str> = read.section("s").map(|(k, _)| k).collect();
    assert_eq!(keys, ["k7", "k3"]);
}

/// Erasing a big file's keys one by one, from the first, by `erase_section_key` and
/// `erase_section`: each in constant time (they were moved up one by one before), and
/// what is left keeps its order.
#[test]
fn erasing_many_keys_one_by_one_keeps_the_rest_in_order() {
    let mut f = ConfigFile::new(Dialect::Godot4);
    for i in 0..60_000 {
        f.set_value("s", &format!("k{i}"), i);
        f.set_value(&format!("t{}", i % 1000), "x", i);
    }
    for i in 0..59_990 {
        f.erase_section_key("s", &format!("k{i}"));
    }
    for i in 0..995 {
        f.erase_section(&format!("t{i}"));
    }
    let keys: Vec<&str> = f.section("s").map(|(k, _)| k).collect();
    let want: Vec<String> = (59_990..60_000).map(|i| format!("k{i}")).collect();
    assert_eq!(keys, want);
    let sections: Vec<&str> = f.sections().collect();
    assert_eq!(sections, ["s", "t995", "t996", "t997", "t998", "t999"]);
    assert_eq!(f.get_value("t999", "x"), Some(&Variant::Int(59_999)));
    // Set again after its erasure, a key goes last.
    f.set_value("s", "k0", 0);
    assert_eq!(f.section("s").last().map(|(k, _)| k), Some("k0"));
}
