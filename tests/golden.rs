//! Golden fixtures written by the real engines (tests/fixtures/*/regen.sh): every
//! value decodes, prints as the engine's own var2str / var_to_str, and re-encodes to
//! the engine's bytes.

mod common;

use common::*;
use godot_bin::{Config, Variant, GODOT_MAX_DEPTH};

/// Decoding 1025 nested arrays (Godot's own limit) needs a deep stack in debug builds.
fn with_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn check_set(file: &'static str, dialect: godot_bin::Dialect, godot32: bool) {
    let cases = load(file);
    assert!(cases.len() > 50, "{file}: only {} cases", cases.len());
    let cfg = Config::new()
        .dialect(dialect)
        .allow_objects(true)
        .max_depth(GODOT_MAX_DEPTH);
    let mut failures = Vec::new();
    for case in &cases {
        let bytes = case.bytes();
        let v: Variant = match cfg.from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: decode failed: {e}", case.name));
                continue;
            }
        };
        let ours = cfg.to_vec(&v).unwrap();
        if !same_bytes(&ours, &bytes, case.has_nodepath) {
            failures.push(format!(
                "{}: re-encoded\n  ours   {}\n  engine {}",
                case.name,
                hex(&ours),
                case.hex
            ));
        }
        let text = if godot32 {
            v.display(dialect).godot_3_2().to_string()
        } else {
            v.display(dialect).to_string()
        };
        if !case.run_dependent() && text != case.text {
            failures.push(format!(
                "{}: text\n  ours   {text:?}\n  engine {:?}",
                case.name, case.text
            ));
        }
        // Without allow_objects, we refuse exactly what the engine refuses.
        let strict = Config::new().dialect(dialect).max_depth(GODOT_MAX_DEPTH);
        if strict.from_slice::<Variant>(&bytes).is_ok() != case.strict_ok {
            failures.push(format!(
                "{}: without objects, engine accepts: {}",
                case.name, case.strict_ok
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn godot_3_2_fixtures() {
    with_stack(|| check_set(SETS[0].0, SETS[0].1, true));
}

#[test]
fn godot_3_6_fixtures() {
    with_stack(|| check_set(SETS[1].0, SETS[1].1, false));
}

#[test]
fn godot_4_6_fixtures() {
    with_stack(|| check_set(SETS[2].0, SETS[2].1, false));
}

/// Every strict prefix of every engine value fails with an end-of-input error at an
/// offset inside the input, and never panics.
#[test]
fn every_prefix_of_every_fixture_fails() {
    with_stack(|| {
        for (file, dialect, _) in SETS {
            let cfg = Config::new()
                .dialect(dialect)
                .allow_objects(true)
                .max_depth(GODOT_MAX_DEPTH);
            for case in load(file) {
                let bytes = case.bytes();
                if bytes.len() > 4096 {
                    continue;
                }
                for n in 0..bytes.len() {
                    let err = cfg.from_slice::<Variant>(&bytes[..n]).unwrap_err();
                    assert!(err.is_eof(), "{} [..{n}]: {err}", case.name);
                    assert!(
                        err.offset().is_some_and(|o| o <= n),
                        "{} [..{n}]: {err}",
                        case.name
                    );
                }
            }
        }
    });
}
