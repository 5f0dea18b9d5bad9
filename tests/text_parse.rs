//! The parser against the engines' own `str2var` / `str_to_var`: every input of the
//! corpus (`tests/fixtures/text/parse_inputs.txt`, regenerated from the engines by
//! `scripts/gen-text-fixtures.py`) is read by the crate as each engine read it.

mod common;

use common::*;
use godot_bin::{text, Config, Dialect, Variant};

#[derive(serde::Deserialize)]
struct Parsed {
    i: usize,
    #[serde(rename = "in")]
    input: String,
    ok: bool,
    hex: String,
}

fn has_object(v: &Variant) -> bool {
    matches!(v, Variant::Object(_) | Variant::ResourceRef(_))
        || v.as_array().is_some_and(|a| a.iter().any(has_object))
        || v.as_dictionary()
            .is_some_and(|d| d.iter().any(|(k, v)| has_object(k) || has_object(v)))
}

/// Where the crate reads an input differently from the engine on purpose (each is in
/// the README's list of differences), the reason.
fn known_divergence(
    engine: &str,
    dialect: Dialect,
    input: &str,
    ours: &Result<(Variant, usize), godot_bin::Error>,
    engine_hex: &str,
) -> Option<&'static str> {
    let err = ours
        .as_ref()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let godot32 = engine == "godot3.2";
    // The engine's value is what the crate reads of the input cut somewhere (the
    // engine's tokens and the crate's can fail at different places) and closed there.
    let kept = || {
        (0..=input.len()).filter_map(|i| input.get(..i)).any(|cut| {
            let Ok((v, _)) = text::parse_prefix(&format!("{cut})"), dialect) else {
                return false;
            };
            let cfg = Config::new().dialect(dialect);
            let bytes = cfg.to_vec(&v).unwrap_or_default();
            engine_holds(cfg, &v, &bytes, &unhex(engine_hex))
        })
    };
    // The engine skips every character up to a space between tokens, so `RID\n(`
    // opens an RID as `RID(` does.
    let blank = |c: char| c as u32 <= 32;
    let opens = |name: &str| {
        input
            .trim_start_matches(blank)
            .strip_prefix(name)
            .is_some_and(|rest| rest.trim_start_matches(blank).starts_with('('))
    };
    if ours.is_err()
        && ["NodePath", "RID", "Signal", "Callable"]
            .iter()
            .any(|c| opens(c))
        && kept()
    {
        return Some("the engine keeps a value it built before an error after it");
    }
    if err.contains("surrogate") {
        return Some("Godot 3 keeps UTF-16 surrogates, which a Rust String cannot hold");
    }
    if let Ok((Variant::String(s), _)) = ours {
        if s.contains('\0') {
            return Some("a string holding NUL is not encoded (the engine reads it back cut)");
        }
    }
    if input.starts_with("InputEvent(") {
        return Some("Godot 3's legacy InputEvent(...) text is not read");
    }
    if err.contains("nested deeper than") {
        return Some("the parser's depth limit");
    }
    let class_typed = dialect == Dialect::Godot4
        && matches!(ours, Ok((v, _)) if has_class_type(v) || names_class_type(input));
    if class_typed || input.contains("Resource(\"res://r.tres\")]") {
        return Some("class and resource names of typed containers are not checked against the engine's classes");
    }
    if matches!(ours, Ok((v, _)) if has_leading_bom(v)) {
        return Some("a leading BOM is written twice (the engine's decoder drops one)");
    }
    // An exponent of ten digits or more wraps around the engine's 32-bit `int`.
    let long_exponent = input.split(['e', 'E']).skip(1).any(|rest| {
        let digits = rest.trim_start_matches(['-', '+']);
        digits.bytes().take_while(u8::is_ascii_digit).count() >= 10
    });
    if godot32 && long_exponent {
        return Some(
            "Godot 3.2.3 reads a 32-bit exponent that wraps otherwise (3.6 and 4.6 as the crate)",
        );
    }
    if godot32
        && ours.is_ok()
        && (input.contains("inf_neg")
            || input.contains("Packed")
            || input.contains("nan")
            || input.contains("inf"))
    {
        return Some(
            "Godot 3.2.3 lacks inf_neg, Packed* names and inf/nan in constructors (3.4+ has them)",
        );
    }
    None
}

fn check(engine: &str, dialect: Dialect) {
    let path = root().join(format!("tests/fixtures/text/parse_{engine}.jsonl"));
    let corpus = std::fs::read_to_string(&path).unwrap();
    let (checked, failures, known) = judge(engine, dialect, &corpus);
    assert!(checked > 500, "{engine}: only {checked} inputs");
    eprintln!("{engine}: {checked} inputs; known differences: {known:?}");
    assert!(
        failures.is_empty(),
        "{engine}: {} of {checked} inputs read differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The crate's reading of every input in an oracle's output (`parse.gd`, `parse4.gd`)
/// against the engine's: how many inputs, the ones read differently, and the count of
/// each known difference.
fn judge(
    engine: &str,
    dialect: Dialect,
    out: &str,
) -> (
    usize,
    Vec<String>,
    std::collections::BTreeMap<&'static str, usize>,
) {
    let cfg = Config::new().dialect(dialect).allow_objects(true);
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut known = std::collections::BTreeMap::new();
    for line in out.lines().filter(|l| l.starts_with('{')) {
        let case: Parsed = serde_json::from_str(line).unwrap();
        let Ok(input) = String::from_utf8(unhex(&case.input)) else {
            continue;
        };
        let ours = text::parse_prefix(&input, dialect);
        checked += 1;
        let verdict = match (&ours, case.ok) {
            (Ok((v, _)), true) => {
                // The engine instantiates objects (every property) and loads resources.
                if has_object(v) {
                    None
                } else {
                    match cfg.to_vec(v) {
                        Ok(bytes) => (!engine_holds(cfg, v, &bytes, &unhex(&case.hex)))
                            .then(|| format!("bytes: engine {}, crate {}", case.hex, hex(&bytes))),
                        Err(e) => Some(format!("the crate does not encode it: {e}")),
                    }
                }
            }
            (Err(e), true) => Some(format!(
                "the crate refused it ({e}); the engine read {}",
                case.hex
            )),
            // A resource reference is data here, where the engine tries to load it.
            (Ok((v, _)), false) if has_object(v) => None,
            (Ok((v, _)), false) => Some(format!(
                "the engine refused it; the crate read {}",
                v.display(dialect)
            )),
            (Err(_), false) => None,
        };
        if let Some(why) = verdict {
            match known_divergence(engine, dialect, &input, &ours, &case.hex) {
                Some(reason) => *known.entry(reason).or_insert(0) += 1,
                None => failures.push(format!("#{} {input:?}: {why}", case.i)),
            }
        }
    }
    (checked, failures, known)
}

#[test]
fn godot_3_2_str2var_corpus() {
    check("godot3.2", Dialect::Godot3);
}

#[test]
fn godot_3_6_str2var_corpus() {
    check("godot3.6", Dialect::Godot3);
}

#[test]
fn godot_4_6_str_to_var_corpus() {
    check("godot4", Dialect::Godot4);
}

/// An Object's property named twice keeps its first place and takes the last value,
/// among many (the names are looked up, not scanned for).
#[test]
fn an_object_property_named_again_keeps_its_place() {
    let mut t = String::from("Object(Node,");
    for i in 0..20_000 {
        t += &format!("\"p{i}\":{i},");
    }
    t += "\"p1\":\"again\",\"p0\":true,\"last\":null)";
    let Variant::Object(o) = t.parse::<Variant>().unwrap() else {
        panic!()
    };
    assert_eq!(o.class, "Node");
    assert_eq!(o.properties.len(), 20_001);
    assert_eq!(o.properties[0], ("p0".to_string(), Variant::Bool(true)));
    assert_eq!(o.properties[1], ("p1".to_string(), Variant::from("again")));
    assert_eq!(o.properties[2], ("p2".to_string(), Variant::Int(2)));
    assert_eq!(o.properties[20_000], ("last".to_string(), Variant::Nil));
}

/// Text nested just inside the depth limit, in every kind of container, is read (to
/// its end, where it is cut short) on a thread with the default 2 MiB stack, in an
/// unoptimised build too; nested past the limit, it is refused.
#[test]
fn deep_text_stays_within_a_small_stack() {
    let openers = [
        "[",
        "{1:",
        "Array[Array]([",
        "Dictionary[int,int]({1:",
        "Object(A,\"a\":",
        "[Vector2(1,2),",
    ];
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for opener in openers {
                for (levels, limit) in [(godot_bin::DEFAULT_MAX_DEPTH - 1, false), (200, true)] {
                    let t = opener.repeat(levels);
                    let err = t.parse::<Variant>().unwrap_err().to_string();
                    assert_eq!(
                        err.contains("nested deeper"),
                        limit,
                        "{opener} x {levels}: {err}"
                    );
                    let cfg = format!("k={t}");
                    let err = text::config_file::ConfigFile::parse(&cfg, Dialect::Godot4)
                        .unwrap_err()
                        .to_string();
                    assert_eq!(
                        err.contains("nested deeper"),
                        limit,
                        "{opener} x {levels}: {err}"
                    );
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[path = "common/random.rs"]
#[allow(dead_code)]
mod random;

/// What the parser looks for, to cut into a value's text.
const STIRS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "\\",
    " ",
    "\n",
    "-",
    ".",
    "e",
    "1",
    "0",
    "inf",
    "nan",
    "&",
    "^",
    "@",
    "\\u",
    "\\U",
    "'",
    "x",
    "Vector2",
    "Array[",
    "Dictionary[",
    "null",
    "true",
    "false",
    "=",
    "#",
    ";",
    "\0",
    "\u{feff}",
    "é",
    "\t",
];

/// Random values' text, mutated where the parser looks, read by the engine's
/// `str2var` / `str_to_var` (live) and by the crate alike.
fn mutated(engine_name: &str, dialect: Dialect) {
    let Some(engine) = engine(engine_name) else {
        return;
    };
    let seed = random::seed();
    let count = random_count(1000);
    eprintln!("{engine_name}: {count} mutated texts, GODOT_RANDOM_SEED={seed}");
    let mut rng = random::Rng::new(seed);
    let inputs: Vec<String> = (0..count)
        .map(|_| {
            let v = random::variant(&mut rng, dialect, 3);
            random::mutate_text(&v.display(dialect).to_string(), STIRS, &mut rng)
        })
        .collect();
    let dir = tempdir();
    let input = dir.join("in.hex");
    let lines: Vec<String> = inputs.iter().map(|t| hex(t.as_bytes())).collect();
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let (script, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/parse4.gd", true),
        _ => ("tests/oracle/parse.gd", false),
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let out = run_script(&engine, godot4, &source, &[("ORACLE_IN", &input)]);
    let _ = std::fs::remove_dir_all(&dir);
    let (checked, failures, known) = judge(engine_name, dialect, &out);
    assert_eq!(checked, count, "engine output:\n{out}");
    eprintln!("{engine_name}: known differences: {known:?}");
    assert!(
        failures.is_empty(),
        "{engine_name}: {} of {checked} mutated texts read differently (GODOT_RANDOM_SEED={seed}):\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}

#[test]
fn mutated_texts_read_as_godot_3_6_reads_them() {
    mutated("godot3.6", Dialect::Godot3);
}

#[test]
fn mutated_texts_read_as_godot_4_6_reads_them() {
    mutated("godot4", Dialect::Godot4);
}
