//! The real engines read what we write: our bytes go through `bytes2var` /
//! `bytes_to_var` (tests/oracle/read.gd, read4.gd), and what the engine decoded is
//! compared with what it made of the original value (text and re-encoded bytes).

mod common;

use common::*;
use godot_bin::{Config, Variant, GODOT_MAX_DEPTH};

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
    let reads = oracle_reads(&engine, dialect, &ours);
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
