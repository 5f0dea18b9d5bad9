//! Encrypted files (`framing::encrypted`, feature `encryption`):
//!
//! - exact bytes that the engines wrote, round trips, and every refusal (wrong password,
//!   flipped bytes, cut-off files, bad magic, unknown mode, lying lengths that must not
//!   allocate);
//! - the files Godot 3.2, 3.6 and 4.6 wrote (`tests/fixtures/encrypted`, made by
//!   `scripts/gen-encrypted-fixtures.sh`) hold exactly the values the engine printed,
//!   and sealing their plaintext again gives the engine's bytes;
//! - with the engines: files they write now read here, files sealed here read there,
//!   and both refuse a wrong password.
//!
//! Engines come from `$GODOT_BIN` or `./.godot-oracles/bin`; without them the engine
//! tests say they were skipped, unless `GODOT_ORACLES_REQUIRED=1`.
#![cfg(feature = "encryption")]

mod common;
#[path = "common/peak.rs"]
mod peak;

use std::path::Path;

use common::{hex, root, run_script, tempdir, unhex};
use godot_bin::framing::encrypted::{self, password_key, Format};
use godot_bin::framing::{Framing, VarReader, VarWriter};
use godot_bin::{
    Category, Color, Config, Dialect, ErrorKind, PoolStringArray, Variant, Vector2, Vector3,
};

/// The password and key of the fixtures (`scripts/gen-encrypted-fixtures.sh`): the
/// password is not ASCII, so the key derivation's UTF-8 is checked too.
const PASSWORD: &str = "pässwörd ✓";
const KEY: &[u8; 32] = b"0123456789abcdef0123456789ABCDEF";

const ENGINES: [(&str, Dialect); 3] = [
    ("godot3.2", Dialect::Godot3),
    ("godot3.6", Dialect::Godot3),
    ("godot4", Dialect::Godot4),
];

/// `store_var(42)`, `store_var("hello")` under the password "secret", as Godot 3.2 and
/// 3.6 wrote it (the same bytes: Godot 3 has no IV) and as Godot 4.6 wrote it.
const ENGINE_GODOT3: &str = "4744454301000000bf68799658152edffdd7c62e1f2283362000000000000000
    969b00210cbb190d37f2377ececc4a11ad7ed3b86d6b7cccf29d6725f998ec1c";
const ENGINE_GODOT4: &str = "47444543bf68799658152edffdd7c62e1f228336200000000000000044bc0517
    be9bbe51ecf910e7000683714088e2a64b87448de2125df0b237b9b7f26e2705
    f2f347c21b8dd4529f7a4fb1";

const FORMATS: [Format; 2] = [Format::Godot3, Format::Godot4];

/// Where a layout's length field is, and its header's size.
struct Layout {
    len_at: usize,
    header: usize,
}

fn layout(format: Format) -> Layout {
    match format {
        Format::Godot3 => Layout {
            len_at: 24,
            header: 32,
        },
        _ => Layout {
            len_at: 20,
            header: 44,
        },
    }
}

fn header_len(format: Format) -> usize {
    layout(format).header
}

/// A file whose bytes depend only on the arguments (a fixed IV for Godot 4).
fn sealed(plain: &[u8], password: &str, format: Format) -> Vec<u8> {
    match format {
        Format::Godot3 => encrypted::seal(plain, password, format).unwrap(),
        _ => encrypted::seal_with_iv(plain, &password_key(password), [0x5a; 16]),
    }
}

fn sample(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 37 + 11) as u8).collect()
}

fn kind(r: godot_bin::Result<Vec<u8>>) -> ErrorKind {
    r.expect_err("an error").into_kind()
}

#[test]
fn the_engines_bytes_exactly() {
    let mut plain = Vec::new();
    let mut w = VarWriter::new(&mut plain, Framing::STORE_VAR);
    w.put_var(&42).unwrap();
    w.put_var("hello").unwrap();

    let godot3 = unhex(ENGINE_GODOT3);
    assert_eq!(
        hex(&encrypted::seal(&plain, "secret", Format::Godot3).unwrap()),
        hex(&godot3)
    );
    let godot4 = unhex(ENGINE_GODOT4);
    let iv = godot4[28..44].try_into().unwrap();
    assert_eq!(
        hex(&encrypted::seal_with_iv(
            &plain,
            &password_key("secret"),
            iv
        )),
        hex(&godot4)
    );
    for file in [&godot3, &godot4] {
        assert_eq!(encrypted::open(file, "secret").unwrap(), plain);
    }
    assert_eq!(Format::detect(&godot3).unwrap(), Format::Godot3);
    assert_eq!(Format::detect(&godot4).unwrap(), Format::Godot4);
}

#[test]
fn the_key_is_the_hex_md5_of_the_password() {
    assert_eq!(&password_key(""), b"d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(&password_key("secret"), b"5ebe2294ecd0e0f08eab7690d2a6ee69");
}

#[test]
fn round_trips() {
    for len in 0..=50 {
        let plain = sample(len);
        for format in FORMATS {
            let file = encrypted::seal(&plain, "pw", format).unwrap();
            assert_eq!(file.len(), header_len(format) + len.div_ceil(16) * 16);
            assert_eq!(Format::detect(&file).unwrap(), format);
            assert_eq!(encrypted::open(&file, "pw").unwrap(), plain);

            let file = encrypted::seal_with_key(&plain, KEY, format).unwrap();
            assert_eq!(encrypted::open_with_key(&file, KEY).unwrap(), plain);
        }
    }
}

#[test]
fn godot4_takes_a_new_iv_each_time() {
    let a = encrypted::seal(b"same", "pw", Format::Godot4).unwrap();
    let b = encrypted::seal(b"same", "pw", Format::Godot4).unwrap();
    assert_ne!(a[28..44], b[28..44]);
    assert_eq!(a[..28], b[..28]);
    for file in [a, b] {
        assert_eq!(encrypted::open(&file, "pw").unwrap(), b"same");
    }
}

#[test]
fn a_wrong_password_is_refused() {
    for format in FORMATS {
        let file = sealed(b"save data", "right", format);
        let err = encrypted::open(&file, "wrong").unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::WrongPassword), "{err}");
        assert_eq!(
            err.offset(),
            Some(if format == Format::Godot3 { 8 } else { 4 })
        );
        assert_eq!(err.classify(), Category::Data);
        assert!(
            err.to_string().contains("wrong password or corrupt file"),
            "{err}"
        );
        let err = encrypted::open_with_key(&file, KEY).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::WrongPassword), "{err}");
    }
}

/// Every byte of a file, flipped: each part of the file is checked, except the
/// padding's ciphertext in Godot 4, which the engine ignores as well (CFB decrypts the
/// plaintext without it).
#[test]
fn every_flipped_byte() {
    let plain = sample(37);
    for format in FORMATS {
        let file = sealed(&plain, "pw", format);
        let md5_at = if format == Format::Godot3 { 8 } else { 4 };
        let len_at = layout(format).len_at;
        for i in 0..file.len() {
            let mut bad = file.clone();
            bad[i] ^= 0xff;
            let r = encrypted::open(&bad, "pw");
            let ok = match (i, format) {
                (0..=3, _) => matches!(kind(r), ErrorKind::NotEncrypted),
                (4..=7, Format::Godot3) => {
                    matches!(kind(r), ErrorKind::UnknownEncryptionMode(m) if m == 1 ^ (0xff << (8 * (i - 4))))
                }
                _ if (len_at..len_at + 8).contains(&i) => matches!(
                    kind(r),
                    ErrorKind::EncryptedTruncated { .. } | ErrorKind::WrongPassword
                ),
                _ if i >= md5_at
                    && (format == Format::Godot3 || i < header_len(format) + plain.len()) =>
                {
                    matches!(kind(r), ErrorKind::WrongPassword)
                }
                (_, Format::Godot4) => r.unwrap() == plain,
                _ => false,
            };
            assert!(ok, "{format:?}: byte {i} flipped");
        }
    }
}

#[test]
fn cut_off_at_every_length() {
    for len in [0, 5, 16, 37] {
        for format in FORMATS {
            let file = sealed(&sample(len), "pw", format);
            for cut in 0..file.len() {
                let err = encrypted::open(&file[..cut], "pw").unwrap_err();
                assert!(err.is_eof(), "{format:?}, {len} bytes cut at {cut}: {err}");
                let offset = err.offset().unwrap();
                assert!(offset <= cut.max(header_len(format)), "{err}");
            }
            // Bytes after the ciphertext: ignored, as by the engine.
            let mut longer = file.clone();
            longer.extend_from_slice(b"more");
            assert_eq!(encrypted::open(&longer, "pw").unwrap(), sample(len));
        }
    }
}

#[test]
fn not_an_encrypted_file() {
    let mut save = Vec::new();
    VarWriter::new(&mut save, Framing::STORE_VAR)
        .put_var("plain")
        .unwrap();
    for file in [&b"GDEX\x01\0\0\0"[..], b"PK\x03\x04", b"X", &save] {
        let err = encrypted::open(file, "pw").unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::NotEncrypted), "{err}");
        assert_eq!(err.offset(), Some(0));
        assert!(
            err.to_string().contains("not an encrypted Godot file"),
            "{err}"
        );
    }
    for file in [&b""[..], b"GDE"] {
        assert!(encrypted::open(file, "pw").unwrap_err().is_eof());
    }
}

#[test]
fn an_unknown_godot3_mode() {
    for mode in [0u32, 2, 0x100] {
        let mut file = sealed(b"x", "pw", Format::Godot3);
        file[4..8].copy_from_slice(&mode.to_le_bytes());
        let err = encrypted::open(&file, "pw").unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnknownEncryptionMode(m) if *m == mode),
            "{err}"
        );
        assert_eq!(err.offset(), Some(4));
    }
}

/// A Godot 4 checksum that starts with Godot 3's mode (1 in 2^32 files) is still read as
/// Godot 4: the file's size says so.
#[test]
fn the_size_decides_over_the_mode() {
    let mut file = sealed(&sample(20), "pw", Format::Godot4);
    file[4..8].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(Format::detect(&file).unwrap(), Format::Godot4);
    let err = encrypted::open(&file, "pw").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::WrongPassword), "{err}");
    assert_eq!(err.offset(), Some(4));
}

/// Length fields far beyond the data are refused before anything is allocated for
/// them; the heap never holds much more than the input.
#[test]
fn lying_lengths_cost_no_memory() {
    for format in FORMATS {
        let file = sealed(&sample(64), "pw", format);
        let len_at = layout(format).len_at;
        for len in [65, 80, 1 << 40, 1 << 63, u64::MAX - 14, u64::MAX] {
            let mut bad = file.clone();
            bad[len_at..len_at + 8].copy_from_slice(&len.to_le_bytes());
            let (r, heap) = peak::peak(|| encrypted::open(&bad, "pw"));
            let err = r.unwrap_err();
            let left = 64;
            let rounded = len.checked_add(15).map_or(u64::MAX, |n| n & !15);
            assert!(
                matches!(err.kind(), ErrorKind::EncryptedTruncated { len: l, left: f } if *l == rounded && *f == left),
                "{format:?} {len}: {err}"
            );
            assert_eq!(err.offset(), Some(header_len(format)));
            assert!(err.is_eof());
            assert!(heap < 1024, "{format:?} {len}: peak heap {heap} bytes");
        }
        // A file that opens costs the plaintext and a copy at most.
        let big = sealed(&sample(1 << 16), "pw", format);
        let (plain, heap) = peak::peak(|| encrypted::open(&big, "pw").unwrap());
        assert_eq!(plain.len(), 1 << 16);
        assert!(
            heap <= big.len() + 1024,
            "{format:?}: peak heap {heap} bytes"
        );
    }
}

// ----------------------------------------------------------------------------------
// Against the engines

/// One value as an engine script printed it: `var2bytes` hex and the UTF-8 hex of
/// `var2str` (`var_to_bytes`, `var_to_str` in Godot 4).
#[derive(serde::Deserialize, Debug)]
struct Printed {
    hex: String,
    text: String,
}

/// The summary line of `tests/oracle/encrypted*.gd`.
#[derive(serde::Deserialize, Debug, PartialEq)]
struct Summary {
    err: i64,
    count: usize,
}

fn printed(out: &str) -> (Vec<Printed>, Summary) {
    let mut lines: Vec<&str> = out.lines().filter(|l| l.starts_with('{')).collect();
    let summary = lines.pop().expect("a summary line");
    let summary = serde_json::from_str(summary).unwrap_or_else(|e| panic!("{e}: {out}"));
    let values = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (values, summary)
}

fn dialect_of(engine: &str) -> Dialect {
    ENGINES.iter().find(|(e, _)| *e == engine).unwrap().1
}

/// The engine's text for `v`.
fn text_of(engine: &str, v: &Variant) -> String {
    let display = v.display(dialect_of(engine));
    if engine == "godot3.2" {
        display.godot_3_2().to_string()
    } else {
        display.to_string()
    }
}

/// `value`'s bytes and text are what the engine printed for it.
fn same_value(engine: &str, value: &Variant, printed: &Printed) {
    let cfg = Config::new().dialect(dialect_of(engine));
    assert_eq!(hex(&cfg.to_vec(value).unwrap()), printed.hex, "{engine}");
    assert_eq!(
        text_of(engine, value),
        String::from_utf8(unhex(&printed.text)).unwrap(),
        "{engine}"
    );
}

/// `file`, which `engine` wrote with `key`, holds exactly the values it printed, and
/// sealing its plaintext again gives the engine's bytes (Godot 4: with the file's IV).
fn same_as_engine(engine: &str, file: &[u8], key: &[u8; 32], printed: &[Printed]) {
    let dialect = dialect_of(engine);
    let format = Format::of(dialect);
    assert_eq!(Format::detect(file).unwrap(), format, "{engine}");
    let plain = encrypted::open_with_key(file, key).unwrap_or_else(|e| panic!("{engine}: {e}"));
    let values: Vec<Variant> = VarReader::new(&plain[..], Framing::STORE_VAR)
        .with_config(Config::new().dialect(dialect))
        .read_all()
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
    assert_eq!(values.len(), printed.len(), "{engine}");
    for (v, p) in values.iter().zip(printed) {
        same_value(engine, v, p);
    }
    let again = match format {
        Format::Godot3 => encrypted::seal_with_key(&plain, key, format).unwrap(),
        _ => encrypted::seal_with_iv(&plain, key, file[28..44].try_into().unwrap()),
    };
    assert!(again == file, "{engine}: sealed again, the bytes differ");
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/fixtures/encrypted").join(name)).unwrap()
}

#[test]
fn the_engines_fixture_files() {
    for (engine, _) in ENGINES {
        let lines = String::from_utf8(fixture(&format!("{engine}.jsonl"))).unwrap();
        let values: Vec<Printed> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(values.len(), 7, "{engine}");

        let file = fixture(&format!("{engine}.save"));
        same_as_engine(engine, &file, &password_key(PASSWORD), &values);
        let plain = encrypted::open(&file, PASSWORD).unwrap();
        assert!(matches!(
            kind(encrypted::open(&file, "pässwörd")),
            ErrorKind::WrongPassword
        ));

        let keyed = fixture(&format!("{engine}-key.save"));
        same_as_engine(engine, &keyed, KEY, &values);
        assert_eq!(encrypted::open_with_key(&keyed, KEY).unwrap(), plain);

        let empty = fixture(&format!("{engine}-empty.save"));
        same_as_engine(engine, &empty, &password_key(PASSWORD), &[]);
        assert_eq!(encrypted::open(&empty, PASSWORD).unwrap(), b"");
    }
}

/// Runs `tests/oracle/encrypted{3,4}.gd` with `env` (ENC_OP, ENC_FILE, ENC_PASS or ENC_KEY).
fn run_oracle(bin: &Path, engine: &str, env: &[(&str, &Path)]) -> (Vec<Printed>, Summary) {
    let godot4 = dialect_of(engine) == Dialect::Godot4;
    let script = if godot4 {
        "tests/oracle/encrypted4.gd"
    } else {
        "tests/oracle/encrypted3.gd"
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    printed(&run_script(bin, godot4, &source, env))
}

#[test]
fn engines_write_the_library_reads() {
    for (engine, _) in ENGINES {
        let Some(bin) = common::engine(engine) else {
            continue;
        };
        let dir = tempdir();
        let path = dir.join("save.dat");
        let key = std::str::from_utf8(KEY).unwrap();
        for (var, secret, key) in [
            ("ENC_PASS", PASSWORD, password_key(PASSWORD)),
            ("ENC_KEY", key, *KEY),
        ] {
            let (values, summary) = run_oracle(
                &bin,
                engine,
                &[
                    ("ENC_OP", Path::new("write")),
                    ("ENC_FILE", &path),
                    (var, Path::new(secret)),
                ],
            );
            assert_eq!(summary, Summary { err: 0, count: 7 }, "{engine}");
            let file = std::fs::read(&path).unwrap();
            same_as_engine(engine, &file, &key, &values);
            let err = encrypted::open(&file, "wrong").unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::WrongPassword), "{err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[derive(serde::Serialize)]
struct Player {
    pos: Vector3,
    name: String,
    hp: i32,
    tags: PoolStringArray,
}

/// A save game made here: a struct (a Dictionary), a String, a 64-bit int, a
/// PoolStringArray, a float and an Array.
fn our_values(dialect: Dialect) -> Vec<Variant> {
    let cfg = Config::new().dialect(dialect);
    let player = Player {
        pos: Vector3::new(1.5, -2.0, 3.25),
        name: "Zoë".into(),
        hp: 42,
        tags: ["a", "bé"].into_iter().map(String::from).collect(),
    };
    let tags: PoolStringArray = ["x", "", "yz"].into_iter().map(String::from).collect();
    vec![
        cfg.to_variant(&player).unwrap(),
        "héllo wörld ✓".into(),
        Variant::Int(1_234_567_890_123),
        cfg.to_variant(&tags).unwrap(),
        Variant::Float(0.1),
        Variant::Array(vec![
            true.into(),
            Variant::Nil,
            Color::new(1.0, 0.0, 0.5, 1.0).into(),
            Vector2::new(-1.0, 2.0).into(),
        ]),
    ]
}

/// [`our_values`] as `store_var` frames.
fn frames_of(values: &[Variant], dialect: Dialect) -> Vec<u8> {
    let mut plain = Vec::new();
    let mut w =
        VarWriter::new(&mut plain, Framing::STORE_VAR).with_config(Config::new().dialect(dialect));
    for v in values {
        w.put_var(v).unwrap();
    }
    plain
}

#[test]
fn the_library_writes_engines_read() {
    for (engine, dialect) in ENGINES {
        let Some(bin) = common::engine(engine) else {
            continue;
        };
        let values = our_values(dialect);
        let plain = frames_of(&values, dialect);
        let format = Format::of(dialect);
        let dir = tempdir();
        let path = dir.join("save.dat");
        let key = std::str::from_utf8(KEY).unwrap();
        let cases = [
            (
                encrypted::seal(&plain, PASSWORD, format),
                "ENC_PASS",
                PASSWORD,
            ),
            (encrypted::seal(&plain, "", format), "ENC_PASS", ""),
            (
                encrypted::seal_with_key(&plain, KEY, format),
                "ENC_KEY",
                key,
            ),
            (
                encrypted::seal(&plain, PASSWORD, format),
                "ENC_PASS",
                "wrong",
            ),
        ];
        for (file, var, secret) in cases {
            std::fs::write(&path, file.unwrap()).unwrap();
            let (read, summary) = run_oracle(
                &bin,
                engine,
                &[
                    ("ENC_OP", Path::new("read")),
                    ("ENC_FILE", &path),
                    (var, Path::new(secret)),
                ],
            );
            if secret == "wrong" {
                // ERR_FILE_CORRUPT, after the engine's MD5 message.
                assert_eq!(summary, Summary { err: 16, count: 0 }, "{engine}");
                continue;
            }
            assert_eq!(
                summary,
                Summary {
                    err: 0,
                    count: values.len()
                },
                "{engine}, {var}={secret:?}"
            );
            for (v, p) in values.iter().zip(&read) {
                same_value(engine, v, p);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Damaged files: the engine opens exactly those that the library opens.
#[test]
fn the_engines_agree_on_damaged_files() {
    for (engine, dialect) in ENGINES {
        let Some(bin) = common::engine(engine) else {
            continue;
        };
        let values = our_values(dialect);
        let plain = frames_of(&values, dialect);
        assert_ne!(plain.len() % 16, 0, "the last block has padding");
        let format = Format::of(dialect);
        let file = sealed(&plain, PASSWORD, format);
        let Layout { len_at, header } = layout(format);
        let set_len = |file: &mut Vec<u8>, len: usize| {
            file[len_at..len_at + 8].copy_from_slice(&(len as u64).to_le_bytes());
        };
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut f = file.clone();
        f.extend_from_slice(b"more");
        cases.push(("bytes appended", f));
        cases.push(("last byte cut", file[..file.len() - 1].to_vec()));
        let mut f = file.clone();
        f[header] ^= 1;
        cases.push(("first ciphertext byte flipped", f));
        let mut f = file.clone();
        *f.last_mut().unwrap() ^= 1;
        cases.push(("last (padding) byte flipped", f));
        let mut f = file.clone();
        f[4..8].copy_from_slice(&2u32.to_le_bytes());
        cases.push(("bytes 4..8 = 2", f));
        let mut f = file.clone();
        set_len(&mut f, plain.len() + 1);
        cases.push(("length + 1", f));
        let mut f = file.clone();
        set_len(&mut f, plain.len() - 1);
        cases.push(("length - 1", f));

        let dir = tempdir();
        let path = dir.join("save.dat");
        for (what, damaged) in cases {
            let ours = encrypted::open(&damaged, PASSWORD);
            std::fs::write(&path, &damaged).unwrap();
            let (_, summary) = run_oracle(
                &bin,
                engine,
                &[
                    ("ENC_OP", Path::new("read")),
                    ("ENC_FILE", &path),
                    ("ENC_PASS", Path::new(PASSWORD)),
                ],
            );
            assert_eq!(
                summary.err == 0,
                ours.is_ok(),
                "{engine}, {what}: engine {summary:?}, library {ours:?}"
            );
            if let Ok(ours) = ours {
                assert_eq!(ours, plain, "{engine}, {what}");
                assert_eq!(summary.count, values.len(), "{engine}, {what}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
