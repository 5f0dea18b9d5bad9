//! Random values made by the engines themselves (tests/oracle/random3.gd, random4.gd):
//! every Variant type, nested up to depth 6, with edge numbers and awkward strings.
//! For each one the crate decodes the engine's bytes, must print the engine's own
//! `var2str` / `var_to_str` text, and must write the engine's bytes again.
//!
//! Where the crate's text differs, the engine reads its own bytes back: when that gives
//! the crate's text and bytes, the engine's value did not survive its own encoding (it
//! is reported, and is no failure of the crate). Every real failure is shrunk to the
//! smallest part of the value (array element, dictionary key or value) that the engine,
//! reading the crate's bytes for it, prints or writes otherwise than the crate.
//!
//! The seed is printed; `GODOT_RANDOM_SEED` replays a run and `GODOT_RANDOM_COUNT`
//! changes the number of values (default 2000).

mod common;

use common::*;
use godot_bin::{Config, Dialect, Variant};

/// How many failures are printed in full.
const SHOWN: usize = 12;

/// The crate's text for a value.
fn text_of(v: &Variant, dialect: Dialect, godot32: bool) -> String {
    let d = v.display(dialect);
    if godot32 {
        d.godot_3_2().to_string()
    } else {
        d.to_string()
    }
}

fn walk<'a>(v: &'a Variant, out: &mut Vec<&'a Variant>) {
    out.push(v);
    if let Some(a) = v.as_array() {
        a.iter().for_each(|x| walk(x, out));
    }
    if let Some(d) = v.as_dictionary() {
        for (k, x) in d.iter() {
            walk(k, out);
            walk(x, out);
        }
    }
}

fn has_nodepath(v: &Variant) -> bool {
    let mut all = Vec::new();
    walk(v, &mut all);
    all.iter().any(|x| matches!(x, Variant::NodePath(_)))
}

/// Where two texts first differ, with some context.
fn first_difference(a: &str, b: &str) -> String {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let cut = |s: &[char]| -> String {
        s[at.saturating_sub(40)..(at + 60).min(s.len())]
            .iter()
            .collect()
    };
    format!(
        "first difference at char {at}: engine …{:?}…, crate …{:?}…",
        cut(&a),
        cut(&b)
    )
}

/// Texts with the same characters in another order (dictionary entries sorted
/// otherwise).
fn same_characters(a: &str, b: &str) -> bool {
    let mut a: Vec<char> = a.chars().collect();
    let mut b: Vec<char> = b.chars().collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

struct Failure {
    i: usize,
    hex: String,
    engine: String,
    crate_text: Option<String>,
    ours: Option<String>,
    problem: String,
    value: Option<Variant>,
}

fn check(name: &str, dialect: Dialect, godot32: bool) {
    let Some(engine) = engine(name) else { return };
    let seed = random_seed();
    let count = random_count(2000);
    eprintln!("{name}: GODOT_RANDOM_SEED={seed} GODOT_RANDOM_COUNT={count}");
    let start = std::time::Instant::now();
    let values = engine_random(&engine, dialect, seed, count);
    let cfg = Config::new().dialect(dialect);
    let mut failures: Vec<Failure> = Vec::new();
    let mut address_ordered = 0;
    for g in &values {
        let bytes = unhex(&g.hex);
        let v: Variant = match cfg.from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                failures.push(Failure {
                    i: g.i,
                    hex: g.hex.clone(),
                    engine: g.text.clone(),
                    crate_text: None,
                    ours: None,
                    problem: format!("the crate refuses the engine's bytes: {e}"),
                    value: None,
                });
                continue;
            }
        };
        let text = text_of(&v, dialect, godot32);
        let ours = cfg.to_vec(&v);
        let text_ok = text == g.text;
        let bytes_ok = ours.as_ref().is_ok_and(|o| same_bytes(o, &bytes, g.np));
        if text_ok && bytes_ok {
            continue;
        }
        // Keys holding StringNames inside Arrays come in an order no one can reproduce.
        if bytes_ok && same_characters(&g.text, &text) && ordered_by_address(&v) {
            address_ordered += 1;
            continue;
        }
        let mut problem = String::new();
        if !text_ok {
            problem += &first_difference(&g.text, &text);
            if same_characters(&g.text, &text) {
                problem += " (the same text in another order)";
            }
        }
        if !bytes_ok {
            problem += match &ours {
                Ok(_) => " bytes differ",
                Err(_) => " the crate cannot write it again",
            };
        }
        failures.push(Failure {
            i: g.i,
            hex: g.hex.clone(),
            engine: g.text.clone(),
            crate_text: Some(text),
            ours: Some(match ours {
                Ok(o) => hex(&o),
                Err(e) => e.to_string(),
            }),
            problem,
            value: Some(v),
        });
    }

    // The engine reads its own bytes of the differing values back.
    let mut not_round_trips = Vec::new();
    if !failures.is_empty() {
        let hexes: Vec<String> = failures.iter().map(|f| f.hex.clone()).collect();
        let reads = oracle_reads(&engine, dialect, &hexes);
        let mut kept = Vec::new();
        for (f, read) in failures.into_iter().zip(reads) {
            let matches = read.ok
                && f.crate_text.as_deref() == Some(read.text.as_str())
                && f.ours.as_ref().is_some_and(|o| {
                    read.hex.len() == o.len()
                        && same_bytes(
                            &unhex(o),
                            &unhex(&read.hex),
                            f.value.as_ref().map_or(true, has_nodepath),
                        )
                });
            if matches {
                not_round_trips.push(format!(
                    "#{}: {}\n  hex    {}\n  engine {:?}\n  reread {:?}",
                    f.i,
                    first_difference(&f.engine, &read.text),
                    f.hex,
                    f.engine,
                    read.text
                ));
            } else {
                kept.push(f);
            }
        }
        failures = kept;
    }
    if !not_round_trips.is_empty() {
        // Godot 3 writes NodePath("/") as an absolute path without names and reads
        // that back as NodePath(""): the usual one.
        eprintln!(
            "{name}: {} values did not survive the engine's own encoding (the crate reads \
             their bytes as the engine does); the first {}:\n{}",
            not_round_trips.len(),
            SHOWN.min(not_round_trips.len()),
            not_round_trips[..SHOWN.min(not_round_trips.len())].join("\n")
        );
    }

    // Shrink: the smallest part of each differing value that the engine, reading the
    // crate's bytes for it, prints or writes otherwise than the crate.
    let mut parts: Vec<(usize, Variant, String)> = Vec::new();
    for (k, f) in failures.iter().enumerate() {
        if let Some(v) = &f.value {
            let mut all = Vec::new();
            walk(v, &mut all);
            for x in all {
                if let Ok(b) = cfg.to_vec(x) {
                    parts.push((k, x.clone(), hex(&b)));
                }
            }
        }
    }
    let mut smallest: Vec<Option<String>> = vec![None; failures.len()];
    let mut smallest_parts: Vec<Option<(String, String, String)>> = vec![None; failures.len()];
    if !parts.is_empty() {
        let hexes: Vec<String> = parts.iter().map(|p| p.2.clone()).collect();
        let reads = oracle_reads(&engine, dialect, &hexes);
        let mut best: Vec<usize> = vec![usize::MAX; failures.len()];
        for ((k, x, h), read) in parts.iter().zip(&reads) {
            let text = text_of(x, dialect, godot32);
            let bytes_ok = read.ok && same_bytes(&unhex(h), &unhex(&read.hex), has_nodepath(x));
            if read.ok && text == read.text && bytes_ok {
                continue;
            }
            if h.len() < best[*k] {
                best[*k] = h.len();
                smallest_parts[*k] = Some((
                    h.clone(),
                    if read.ok {
                        read.text.clone()
                    } else {
                        "<refused>".into()
                    },
                    text.clone(),
                ));
                smallest[*k] = Some(format!(
                    "\n  smallest differing part (crate's bytes, read by the engine):\
                     \n    hex    {h}\n    engine {:?} / {}\n    crate  {text:?}",
                    if read.ok { &read.text } else { "<refused>" },
                    read.hex
                ));
            }
        }
    }

    if let Some(path) = std::env::var_os("GODOT_RANDOM_DUMP") {
        dump(&path, name, &failures, &smallest_parts, &not_round_trips);
    }
    eprintln!(
        "{name}: {count} values checked in {:.1} s ({address_ordered} with StringNames in \
         Array keys, in another key order)",
        start.elapsed().as_secs_f64()
    );
    if !failures.is_empty() {
        let mut order: Vec<usize> = (0..failures.len()).collect();
        // Shortest first: they are the easiest to read.
        order.sort_by_key(|&k| failures[k].hex.len());
        let shown: Vec<String> = order
            .iter()
            .take(SHOWN)
            .map(|&k| {
                let f = &failures[k];
                let mut s = format!("#{}: {}", f.i, f.problem);
                if f.hex.len() <= 400 {
                    s += &format!("\n  hex    {}\n  engine {:?}", f.hex, f.engine);
                    if let Some(t) = &f.crate_text {
                        s += &format!("\n  crate  {t:?}");
                    }
                    if let Some(o) = &f.ours {
                        s += &format!("\n  ours   {o}");
                    }
                }
                s += smallest[k].as_deref().unwrap_or("");
                s
            })
            .collect();
        let reordered = failures
            .iter()
            .filter(|f| f.problem.contains("another order"))
            .count();
        panic!(
            "{name} (GODOT_RANDOM_SEED={seed}): {} of {count} values differ ({reordered} only \
             in the order of dictionary entries); the shortest {}:\n{}",
            failures.len(),
            shown.len(),
            shown.join("\n")
        );
    }
}

/// `GODOT_RANDOM_DUMP=file`: every difference as a JSON line, for sorting them out.
fn dump(
    path: &std::ffi::OsStr,
    name: &str,
    failures: &[Failure],
    smallest: &[Option<(String, String, String)>],
    not_round_trips: &[String],
) {
    use std::io::Write as _;
    // The three tests run at once: one writer at a time.
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    for (fail, small) in failures.iter().zip(smallest) {
        let line = serde_json::json!({
            "engine_name": name,
            "i": fail.i,
            "hex": fail.hex,
            "engine": fail.engine,
            "crate": fail.crate_text,
            "ours": fail.ours,
            "problem": fail.problem,
            "small_hex": small.as_ref().map(|s| &s.0),
            "small_engine": small.as_ref().map(|s| &s.1),
            "small_crate": small.as_ref().map(|s| &s.2),
        });
        writeln!(f, "{line}").unwrap();
    }
    for n in not_round_trips {
        let line = serde_json::json!({"engine_name": name, "not_round_trip": n});
        writeln!(f, "{line}").unwrap();
    }
}

#[test]
fn godot_3_2_random_values() {
    check("godot3.2", Dialect::Godot3, true);
}

#[test]
fn godot_3_6_random_values() {
    check("godot3.6", Dialect::Godot3, false);
}

#[test]
fn godot_4_6_random_values() {
    check("godot4", Dialect::Godot4, false);
}
