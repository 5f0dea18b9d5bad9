//! ConfigFile against the engines with seeded random calls: lists of `set_value`
//! (random values of every type, `null` among them), `erase_section_key` and
//! `erase_section` on names that collide, are empty or need quoting, applied by the
//! crate and by each engine (`tests/oracle/cfgops.gd`, `cfgops4.gd`). The engine's saved
//! text must be the crate's `to_text`, byte for byte; and the crate's `parse` of that
//! text, written again, must be what the engine's own `parse` and save make of it (or
//! fail where the engine fails). And those texts, mutated where the reader looks
//! (brackets, quotes, backslashes, `=`, `;`, line ends, NULs, BOMs cut in or out), are
//! read by the engine's `parse` (`tests/oracle/cfgload.gd`, `cfgload4.gd`) and the
//! crate's alike: the same sections, keys and values, or refused by both. The seed is
//! printed; `GODOT_RANDOM_SEED=n` repeats a run, `GODOT_RANDOM_COUNT=n` sets how many
//! cases.

mod common;
#[path = "common/config_reads.rs"]
mod config_reads;
#[path = "common/random.rs"]
mod random;

use common::*;
use godot_bin::text::config_file::ConfigFile;
use godot_bin::{Config, Dialect, Variant};
use random::Rng;

/// One call on a ConfigFile.
#[derive(Debug, Clone)]
enum Call {
    Set(String, String, Variant),
    EraseKey(String, String),
    EraseSection(String),
}

/// Names that collide often, including the empty one and ones the writers quote or
/// escape.
const NAMES: &[&str] = &[
    "", "a", "b", "key", "sec", "a b", "x=y", "q\"t", "dot.ted", "a/b", "é", "[br]", "0", "s;c",
];

fn name(rng: &mut Rng) -> String {
    if rng.chance(8) {
        random::string(rng).replace('\0', "")
    } else {
        rng.pick(NAMES).to_owned()
    }
}

fn has_object(v: &Variant) -> bool {
    matches!(v, Variant::ObjectId(_) | Variant::Object(_))
        || random::children(v).iter().any(has_object)
}

/// A random value as the engine holds it once it has read the value's bytes (an
/// `Array[Nil]` of the generator is a plain Array there).
fn value(rng: &mut Rng, dialect: Dialect) -> Variant {
    if rng.chance(10) {
        return Variant::Nil;
    }
    let cfg = Config::new().dialect(dialect);
    loop {
        let v = random::variant(rng, dialect, 2);
        let unreproducible = dialect == Dialect::Godot4 && ordered_by_address(&v);
        if !has_object(&v) && !unreproducible {
            return cfg.from_slice(&cfg.to_vec(&v).unwrap()).unwrap();
        }
    }
}

fn case(rng: &mut Rng, dialect: Dialect) -> Vec<Call> {
    let mut set: Vec<(String, String)> = Vec::new();
    (0..1 + rng.below(16))
        .map(|_| match rng.below(20) {
            // Mostly keys that are there.
            0..=2 if !set.is_empty() && !rng.chance(4) => {
                let (s, k) = set[rng.below(set.len())].clone();
                Call::EraseKey(s, k)
            }
            0..=2 => Call::EraseKey(name(rng), name(rng)),
            3 => Call::EraseSection(match set.is_empty() {
                false if !rng.chance(4) => set[rng.below(set.len())].0.clone(),
                _ => name(rng),
            }),
            _ => {
                let (s, k) = (name(rng), name(rng));
                set.push((s.clone(), k.clone()));
                Call::Set(s, k, value(rng, dialect))
            }
        })
        .collect()
}

fn apply(calls: &[Call], dialect: Dialect) -> ConfigFile {
    let mut f = ConfigFile::new(dialect);
    for call in calls {
        match call {
            Call::Set(s, k, v) => f.set_value(s, k, v.clone()),
            Call::EraseKey(s, k) => f.erase_section_key(s, k),
            Call::EraseSection(s) => f.erase_section(s),
        }
    }
    f
}

/// The engine's input: one call a line (see `cfgops.gd`).
fn script_input(cfg: Config, cases: &[Vec<Call>]) -> String {
    let h = |s: &str| hex(s.as_bytes());
    let mut out = String::new();
    for calls in cases {
        for call in calls {
            out += &match call {
                Call::Set(s, k, v) => {
                    format!("S {} {} {}\n", h(s), h(k), hex(&cfg.to_vec(v).unwrap()))
                }
                Call::EraseKey(s, k) => format!("K {} {}\n", h(s), h(k)),
                Call::EraseSection(s) => format!("X {}\n", h(s)),
            };
        }
        out += "E\n";
    }
    out
}

#[derive(serde::Deserialize)]
struct Saved {
    i: usize,
    text: String,
    again_err: i64,
    again: String,
}

fn engine_agrees(name: &str, dialect: Dialect) {
    let Some(engine) = engine(name) else { return };
    let seed = random::seed();
    let count = random_count(300);
    eprintln!("{name}: {count} random ConfigFile cases, GODOT_RANDOM_SEED={seed}");
    let mut rng = Rng::new(seed);
    let cfg = Config::new().dialect(dialect);
    let cases: Vec<Vec<Call>> = (0..count).map(|_| case(&mut rng, dialect)).collect();
    let dir = tempdir();
    let input = dir.join("ops.txt");
    std::fs::write(&input, script_input(cfg, &cases)).unwrap();
    let (script, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/cfgops4.gd", true),
        _ => ("tests/oracle/cfgops.gd", false),
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let out = run_script(
        &engine,
        godot4,
        &source,
        &[("ORACLE_IN", &input), ("ORACLE_TMP", &dir)],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let saved: Vec<Saved> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(saved.len(), count, "engine output:\n{out}");
    let text = |h: &str| String::from_utf8(unhex(h)).unwrap();
    let mut differ = Vec::new();
    for (calls, s) in cases.iter().zip(&saved) {
        let engine_text = text(&s.text);
        let ours = apply(calls, dialect).to_text();
        let why = if ours != engine_text {
            Some(format!("saved: engine {engine_text:?}, crate {ours:?}"))
        } else {
            match (ConfigFile::parse(&engine_text, dialect), s.again_err) {
                (Ok(f), 0) if f.to_text() != text(&s.again) => Some(format!(
                    "read back: engine {:?}, crate {:?}",
                    text(&s.again),
                    f.to_text()
                )),
                (Ok(_), 0) | (Err(_), 1..) => None,
                (Ok(_), err) => Some(format!(
                    "read back: the engine refused it ({err}), the crate did not"
                )),
                (Err(e), _) => Some(format!(
                    "read back: the crate refused it ({e}), the engine did not"
                )),
            }
        };
        if let Some(why) = why {
            differ.push(format!("  case {}: {calls:?}\n    {why}", s.i));
        }
    }
    assert!(
        differ.is_empty(),
        "{name}: {} of {count} cases differ (GODOT_RANDOM_SEED={seed}):\n{}",
        differ.len(),
        differ[..differ.len().min(5)].join("\n")
    );
}

/// What the reader looks for, to cut into a file.
const STIRS: &[&str] = &[
    "[", "]", "\"", "\\", "=", ";", "\n", " ", "{", "}", "(", ")", ",", ":", "é", "\u{feff}", "\t",
    "\r", "0", "a", "null", "\\]", "&", "@", "^", "\0", "[s]\n", "k=", "\"k\"=",
];

fn mutants_read_alike(name: &str, dialect: Dialect) {
    let Some(engine) = engine(name) else { return };
    let seed = random::seed();
    let count = random_count(300);
    eprintln!("{name}: {count} mutated ConfigFile texts, GODOT_RANDOM_SEED={seed}");
    let mut rng = Rng::new(seed);
    let dir = tempdir();
    let inputs = dir.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let mut texts = std::collections::BTreeMap::new();
    while texts.len() < count {
        let base = apply(&case(&mut rng, dialect), dialect).to_text();
        if base.is_empty() {
            continue;
        }
        let text = random::mutate_text(&base, STIRS, &mut rng);
        let file = format!("m{:05}.cfg", texts.len());
        std::fs::write(inputs.join(&file), &text).unwrap();
        texts.insert(file, text);
    }
    let (script, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/cfgload4.gd", true),
        _ => ("tests/oracle/cfgload.gd", false),
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let out = run_script(&engine, godot4, &source, &[("CFG_IN", &inputs)]);
    let _ = std::fs::remove_dir_all(&dir);
    let expected = config_reads::parsed(&out);
    assert_eq!(expected.len(), count, "engine output:\n{out}");
    let differ: Vec<String> = texts
        .iter()
        .filter_map(|(file, text)| {
            let why = config_reads::differs(name, dialect, file, text, &expected[file])?;
            Some(format!("  {text:?}\n    {why}"))
        })
        .collect();
    assert!(
        differ.is_empty(),
        "{name}: {} of {count} mutated texts read otherwise (GODOT_RANDOM_SEED={seed}):\n{}",
        differ.len(),
        differ[..differ.len().min(5)].join("\n")
    );
}

#[test]
fn mutated_texts_read_as_godot_3_6_reads_them() {
    mutants_read_alike("godot3.6", Dialect::Godot3);
}

#[test]
fn mutated_texts_read_as_godot_4_6_reads_them() {
    mutants_read_alike("godot4", Dialect::Godot4);
}

#[test]
fn random_calls_save_and_load_as_godot_3_6() {
    engine_agrees("godot3.6", Dialect::Godot3);
}

#[test]
fn random_calls_save_and_load_as_godot_4_6() {
    engine_agrees("godot4", Dialect::Godot4);
}
