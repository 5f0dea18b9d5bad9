//! Random records made by the engines (tests/oracle/records.gd on random3.gd and
//! random4.gd), decoded into a derived struct. `Config::from_slice` reads a struct
//! whose keys come in field order on trust, as a sequence, and reads it again the
//! general way when that gives up (src/de/in_order.rs): here the engines' own
//! Dictionaries go that way, in field order and otherwise (keys swapped, missing or
//! more, values of other types, ints out of range, a nested struct's keys otherwise,
//! no record at all), and as bytes mutated from them.
//!
//! Each must give what the general way gives (a slice read without trust): the same
//! value, or the same error, kind, offset and message; and a reader the same value. A record in
//! field order must decode, and the crate must write it again as the engine's bytes.
//!
//! The seed is printed; `GODOT_RANDOM_SEED` replays a run and `GODOT_RANDOM_COUNT`
//! changes the number of records (default 1500).

mod common;
#[path = "common/random.rs"]
#[allow(dead_code)]
mod random;
#[path = "common/record.rs"]
mod record;

use common::*;
use godot_bin::de::SliceRead;
use godot_bin::{Config, Deserializer, Dialect};
use random::Rng;
use record::{extra_is_plain, Record};
use serde::Deserialize;

#[derive(Deserialize)]
struct Line {
    i: usize,
    kind: u32,
    hex: String,
}

/// The engine's records: (index, kind, bytes).
fn engine_records(
    engine: &std::path::Path,
    dialect: Dialect,
    seed: u32,
    count: usize,
) -> Vec<Line> {
    let (base, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/random4.gd", true),
        _ => ("tests/oracle/random3.gd", false),
    };
    let base = std::fs::read_to_string(root().join(base)).unwrap();
    let makers = &base[..base.find("\nfunc _init").expect("random*.gd has an _init")];
    let prelude = if godot4 {
        "const T_QUAT := TYPE_QUATERNION\nconst T_STRINGS := TYPE_PACKED_STRING_ARRAY\n\
         const T_BYTES := TYPE_PACKED_BYTE_ARRAY\nfunc encode(v): return var_to_bytes(v)\n\
         func setup(): buf.resize(8)\n"
    } else {
        "const T_QUAT := TYPE_QUAT\nconst T_STRINGS := TYPE_STRING_ARRAY\n\
         const T_BYTES := TYPE_RAW_ARRAY\nfunc encode(v): return var2bytes(v)\n\
         func setup(): pass\n"
    };
    let records = std::fs::read_to_string(root().join("tests/oracle/records.gd")).unwrap();
    let source = format!("{makers}\n{prelude}{records}");
    let (seed, count) = (seed.to_string(), count.to_string());
    let out = run_script(
        engine,
        godot4,
        &source,
        &[
            ("ORACLE_SEED", std::path::Path::new(&seed)),
            ("ORACLE_COUNT", std::path::Path::new(&count)),
        ],
    );
    out.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A decode's value, or its error in full (at `end` when it says no offset).
fn outcome(r: godot_bin::Result<Record>, end: usize) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset().or(Some(end))),
    }
}

/// The general way: a slice read without trust; and a reader's value where that
/// decodes (a reader does not know how many bytes are left, so at a cut it fails
/// otherwise).
fn general(cfg: Config, bytes: &[u8]) -> (String, Option<String>) {
    let mut de = Deserializer::with_config(SliceRead::new(bytes), cfg);
    let slice = Record::deserialize(&mut de);
    let end = de.byte_offset();
    let slice = slice.and_then(|v| de.end().map(|()| v));
    let reader = slice
        .is_ok()
        .then(|| outcome(cfg.from_reader(bytes), usize::MAX));
    (outcome(slice, end), reader)
}

/// Mutates `b` in place where a struct read on trust looks: a key's or a header's
/// word, a byte, the end.
fn mutate(b: &mut Vec<u8>, rng: &mut Rng) {
    let words = b.len() / 4;
    if words == 0 {
        return;
    }
    let at = 4 * rng.below(words);
    match rng.below(6) {
        0 => {
            let byte = rng.below(b.len());
            b[byte] ^= 1 << rng.below(8);
        }
        1 => {
            let w: u32 = rng.pick(&[0, 1, 2, 3, 4, 0x1_0002, 0x1_0003, 0x7fff_ffff, 0xffff_ffff]);
            b[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        2 => {
            // Another word of the record in this one's place: a header, a key's length.
            let from = 4 * rng.below(words);
            let w: [u8; 4] = b[from..from + 4].try_into().unwrap();
            b[at..at + 4].copy_from_slice(&w);
        }
        3 => b.truncate(at),
        4 => {
            let byte = rng.below(b.len());
            b[byte] = rng.pick(&[0, b'a', b'z', 0xff, 0x80]);
        }
        _ => {
            // Two words swapped, or a word left out.
            let other = 4 * rng.below(words);
            if rng.chance(2) {
                for k in 0..4 {
                    b.swap(at + k, other + k);
                }
            } else {
                b.drain(at..at + 4);
            }
        }
    }
}

fn check(name: &str, dialect: Dialect) {
    let Some(engine) = engine(name) else { return };
    let seed = random_seed();
    let count = random_count(1500);
    eprintln!("{name}: GODOT_RANDOM_SEED={seed} GODOT_RANDOM_COUNT={count}");
    let records = engine_records(&engine, dialect, seed, count);
    assert_eq!(records.len(), count, "the engine's records");
    let cfg = Config::new().dialect(dialect);
    let mut rng = Rng::new(seed.into());
    let mut failures = Vec::new();
    let (mut in_order, mut decoded, mut mutated) = (0, 0, 0);
    for line in &records {
        let bytes = unhex(&line.hex);
        let trusted = cfg.from_slice::<Record>(&bytes);
        if line.kind == 0 {
            in_order += 1;
            match &trusted {
                Ok(r) if !extra_is_plain(&r.extra) => {
                    failures.push(format!("#{} extra {:?}: not records.gd's", line.i, r.extra))
                }
                Ok(r) => match cfg.to_vec(r) {
                    Ok(ours) if ours == bytes => {}
                    Ok(ours) => failures.push(format!(
                        "#{}: the crate writes the record otherwise\n  engine {}\n  crate  {}",
                        line.i,
                        line.hex,
                        hex(&ours)
                    )),
                    Err(e) => failures.push(format!("#{}: not written again: {e}", line.i)),
                },
                Err(e) => failures.push(format!(
                    "#{}: a record in field order does not decode: {e}\n  hex {}",
                    line.i, line.hex
                )),
            }
        }
        decoded += trusted.is_ok() as usize;
        let mut cases = vec![(bytes.clone(), outcome(trusted, usize::MAX))];
        for _ in 0..4 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(2) {
                mutate(&mut b, &mut rng);
            }
            let o = outcome(cfg.from_slice::<Record>(&b), usize::MAX);
            cases.push((b, o));
            mutated += 1;
        }
        for (b, trusted) in cases {
            let (slice, reader) = general(cfg, &b);
            if trusted != slice || reader.as_ref().is_some_and(|r| *r != trusted) {
                failures.push(format!(
                    "#{} (kind {}): on trust {trusted}\n  general {slice}\n  reader  {reader:?}\n  hex {}",
                    line.i,
                    line.kind,
                    hex(&b)
                ));
            }
        }
    }
    eprintln!(
        "{name}: {count} records ({in_order} in field order, {decoded} decoded), \
         {mutated} mutated"
    );
    assert!(
        failures.is_empty(),
        "{name} (GODOT_RANDOM_SEED={seed}): {} failures; the first 10:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn godot_3_2_records_into_a_derived_struct() {
    check("godot3.2", Dialect::Godot3);
}

#[test]
fn godot_3_6_records_into_a_derived_struct() {
    check("godot3.6", Dialect::Godot3);
}

#[test]
fn godot_4_6_records_into_a_derived_struct() {
    check("godot4", Dialect::Godot4);
}
