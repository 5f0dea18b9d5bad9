//! The real engines read what we write: our bytes go through `bytes2var` /
//! `bytes_to_var` (tests/oracle/read.gd, read4.gd), and what the engine decoded is
//! compared with what it made of the original value (text and re-encoded bytes).

mod common;

use common::*;
use godot_bin::{Config, Dialect, Variant, GODOT_MAX_DEPTH};

#[derive(serde::Deserialize, Debug)]
struct Read {
    i: usize,
    ok: bool,
    text: String,
    hex: String,
}

/// Runs the reader script of `dialect` over hex lines; one result per line.
fn engine_read(engine: &std::path::Path, dialect: Dialect, lines: &[String]) -> Vec<Read> {
    let dir = tempdir();
    let input = dir.join("in.txt");
    std::fs::write(&input, lines.join("\n")).unwrap();
    let (script, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/read4.gd", true),
        _ => ("tests/oracle/read.gd", false),
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let out = run_script(engine, godot4, &source, &[("ORACLE_IN", &input)]);
    let _ = std::fs::remove_dir_all(&dir);
    let reads: Vec<Read> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(reads.len(), lines.len(), "engine output:\n{out}");
    reads
}

fn check(set: usize) {
    let (file, dialect, name) = SETS[set];
    let Some(engine) = engine(name) else { return };
    let cfg = Config::new()
        .dialect(dialect)
        .allow_objects(true)
        .max_depth(GODOT_MAX_DEPTH);
    let cases: Vec<Case> = load(file)
        .into_iter()
        .filter(|c| !c.run_dependent() && !c.objects)
        .collect();
    // Deep fixtures (1025 nested arrays) need a big stack in debug builds.
    let ours: Vec<String> = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, || {
                cases
                    .iter()
                    .map(|c| {
                        hex(&cfg
                            .to_vec(&cfg.from_slice::<Variant>(&c.bytes()).unwrap())
                            .unwrap())
                    })
                    .collect()
            })
            .unwrap()
            .join()
            .unwrap()
    });
    let reads = engine_read(&engine, dialect, &ours);
    let mut failures = Vec::new();
    for (k, ((case, read), sent)) in cases.iter().zip(&reads).zip(&ours).enumerate() {
        assert_eq!(read.i, k);
        // The engine's text of our bytes is its text of its own bytes, and written back
        // it gives our bytes again (our NodePath padding is zero, the engine's is not).
        if !read.ok
            || read.text != case.text
            || !same_bytes(&unhex(sent), &unhex(&read.hex), case.has_nodepath)
        {
            failures.push(format!(
                "{}: engine read {:?} / {}, expected {:?} / {}",
                case.name, read.text, read.hex, case.text, case.hex
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn godot_3_2_reads_our_bytes() {
    check(0);
}

#[test]
fn godot_3_6_reads_our_bytes() {
    check(1);
}

#[test]
fn godot_4_6_reads_our_bytes() {
    check(2);
}
