//! The raw `StreamPeer` layout against the real engines, both ways, both byte orders:
//! Godot 3.6 and 4.6 write random packets with `put_*` (tests/oracle/raw3.gd, raw4.gd)
//! that we read to the same values and write back to the same bytes; we write random
//! packets that the engines read back with the matching `get_*` calls to our values.
//!
//! `GODOT_RANDOM_SEED` / `GODOT_RANDOM_COUNT` choose the seed and the number of packets.

mod common;

use std::path::Path;

use common::{engine, hex, random_count, random_seed, root, run_script, tempdir, unhex};
use godot_bin::raw::{Config, Field, Half, Layout, Value};
use godot_bin::{Color, Dialect, Quat, Variant, Vector2, Vector3};

#[derive(serde::Deserialize, Debug)]
struct Packet {
    i: usize,
    #[serde(default)]
    big: bool,
    #[serde(default)]
    layout: String,
    #[serde(default)]
    hex: String,
    vals: Vec<String>,
    #[serde(default)]
    left: usize,
}

fn config(big: bool, dialect: Dialect) -> Config {
    Config::new()
        .big_endian(big)
        .variant(godot_bin::Config::new().dialect(dialect))
}

/// A field's value as the oracle scripts print it (see raw4.gd).
fn canon(field: Field, value: &Value, dialect: Dialect) -> String {
    let le = |v: &Value| {
        let layout = Layout(vec![field]);
        hex(&layout
            .encode(std::slice::from_ref(v), &config(false, dialect))
            .unwrap())
    };
    match value {
        Value::Uint(v) if field == Field::U64 => (*v as i64).to_string(),
        Value::Uint(v) => v.to_string(),
        Value::Int(v) => v.to_string(),
        Value::Bool(b) => u8::from(*b).to_string(),
        // What the engine's put_half writes for the float its get_half returns.
        Value::Half(h) => le(&Value::Half(Half::from_f32(h.to_f32()))),
        Value::Str(s) => hex(s.as_bytes()),
        Value::Var(v) => hex(&godot_bin::Config::new().dialect(dialect).to_vec(v).unwrap()),
        Value::Bytes(b) => hex(b),
        _ => le(value),
    }
}

fn engine_and_script(dialect: Dialect) -> Option<(std::path::PathBuf, &'static str, bool)> {
    match dialect {
        Dialect::Godot4 => engine("godot4").map(|e| (e, "tests/oracle/raw4.gd", true)),
        _ => engine("godot3.6").map(|e| (e, "tests/oracle/raw3.gd", false)),
    }
}

fn engine_packets_read_back(dialect: Dialect) {
    let Some((engine, script, godot4)) = engine_and_script(dialect) else {
        return;
    };
    let seed = random_seed();
    let count = random_count(400);
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let (seed_text, count_text) = (seed.to_string(), count.to_string());
    let out = run_script(
        &engine,
        godot4,
        &source,
        &[
            ("ORACLE_MODE", Path::new("gen")),
            ("ORACLE_SEED", Path::new(&seed_text)),
            ("ORACLE_COUNT", Path::new(&count_text)),
        ],
    );
    let packets: Vec<Packet> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(packets.len(), count, "engine output:\n{out}");
    let mut big = 0;
    for p in &packets {
        let layout: Layout = p.layout.parse().unwrap();
        let cfg = config(p.big, dialect);
        let bytes = unhex(&p.hex);
        let ctx = format!(
            "seed {seed}, packet {} ({}, big {}): {}",
            p.i, p.layout, p.big, p.hex
        );
        let fields = layout
            .decode(&bytes, &cfg)
            .unwrap_or_else(|e| panic!("{ctx}: {e} at {:?}", e.offset()));
        let ours: Vec<String> = layout
            .0
            .iter()
            .zip(&fields)
            .map(|(f, (_, v))| canon(*f, v, dialect))
            .collect();
        assert_eq!(ours, p.vals, "{ctx}");
        let values: Vec<Value> = fields.into_iter().map(|(_, v)| v).collect();
        let again = layout.encode(&values, &cfg).unwrap();
        if hex(&again) != p.hex {
            // Only a leading BOM, which the engine writes once and its readers drop,
            // comes back otherwise: the values must then survive our own round trip.
            assert!(p.hex.contains("efbbbf"), "{ctx}: wrote {}", hex(&again));
            let back = layout.decode(&again, &cfg).unwrap();
            let back: Vec<String> = layout
                .0
                .iter()
                .zip(&back)
                .map(|(f, (_, v))| canon(*f, v, dialect))
                .collect();
            assert_eq!(back, ours, "{ctx}");
        }
        big += usize::from(p.big);
    }
    assert!(
        big > 0 && big < count,
        "both byte orders: {big} of {count} big-endian"
    );
}

#[test]
fn godot4_packets_read_back() {
    engine_packets_read_back(Dialect::Godot4);
}

#[test]
fn godot3_packets_read_back() {
    engine_packets_read_back(Dialect::Godot3);
}

/// splitmix64: seeded values for the packets we write.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, a: &[T]) -> T {
        a[self.below(a.len() as u64) as usize]
    }
    fn int(&mut self, bits: u32) -> u64 {
        let v = match self.below(4) {
            0 => self.pick(&[
                0,
                1,
                u64::MAX,
                127,
                128,
                255,
                1 << 31,
                (1 << 31) - 1,
                1 << 63,
            ]),
            1 => self.below(600).wrapping_sub(300),
            _ => self.next(),
        };
        if bits == 64 {
            v
        } else {
            v & ((1 << bits) - 1)
        }
    }
    fn signed(&mut self, bits: u32) -> i64 {
        let v = self.int(bits);
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
    /// Any f32 but a signaling NaN (which the engine's float conversions quiet).
    fn f32(&mut self) -> f32 {
        let v = match self.below(3) {
            0 => self.pick(&[
                0.0,
                -0.0,
                1.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                0.1,
                3.4e38,
            ]),
            1 => (self.below(2000) as f32 - 1000.0) / 8.0,
            _ => f32::from_bits(self.next() as u32),
        };
        if v.is_nan() {
            f32::from_bits(v.to_bits() | 0x0040_0000)
        } else {
            v
        }
    }
    fn string(&mut self, chars: &[u32]) -> String {
        (0..self.below(12))
            .map(|_| match self.below(3) {
                0 => char::from(b' ' + self.below(95) as u8),
                _ => char::from_u32(self.pick(chars)).unwrap(),
            })
            .collect()
    }
    fn bytes(&mut self) -> Vec<u8> {
        (0..self.below(10)).map(|_| self.next() as u8).collect()
    }
    fn value(&mut self, field: Field) -> Value {
        const ANY: &[u32] = &[
            0x41, 0x0A, 0x7F, 0xE9, 0xFF, 0x3B1, 0x20AC, 0xFEFF, 0x1F600, 0x10FFFF,
        ];
        match field {
            Field::U8 => Value::Uint(self.int(8)),
            Field::U16 => Value::Uint(self.int(16)),
            Field::U32 => Value::Uint(self.int(32)),
            Field::U64 => Value::Uint(self.int(64)),
            Field::I8 => Value::Int(self.signed(8)),
            Field::I16 => Value::Int(self.signed(16)),
            Field::I32 => Value::Int(self.signed(32)),
            Field::I64 => Value::Int(self.signed(64)),
            Field::Half => Value::Half(Half(godot_bin::raw::f16::from_bits(self.next() as u16))),
            Field::F32 => Value::F32(self.f32()),
            Field::F64 => Value::F64(f64::from_bits(self.next())),
            Field::Bool => Value::Bool(self.below(2) == 1),
            Field::Str0 | Field::Utf8 => Value::Str(self.string(ANY)),
            // Godot 3's get_string reads bytes above 0x7F as negative characters: only
            // ASCII comes back (the Latin-1 side is checked in the other direction).
            Field::String3 | Field::String4 => Value::Str(self.string(&[0x41, 0x7E, 0x09])),
            Field::Var => Value::Var(match self.below(6) {
                0 => Variant::Int(self.signed(64)),
                1 => Variant::Float(f64::from(self.below(1000) as u32) / 8.0),
                // No leading BOM: the engine's writer does not double it, so it would
                // not survive the engine's round trip.
                2 => Variant::String(self.string(ANY).trim_start_matches('\u{FEFF}').to_string()),
                3 => Variant::Vector3(Vector3::new(self.f32(), 0.5, -1.0)),
                4 => Variant::Array(vec![
                    Variant::Int(self.signed(32)),
                    Variant::Nil,
                    Variant::Bool(true),
                ]),
                _ => Variant::Nil,
            }),
            Field::Vector2 => Value::Vector2(Vector2::new(self.f32(), self.f32())),
            Field::Vector3 => Value::Vector3(Vector3::new(self.f32(), self.f32(), self.f32())),
            Field::Quat => Value::Quat(Quat::new(self.f32(), self.f32(), self.f32(), self.f32())),
            Field::Color => {
                Value::Color(Color::new(self.f32(), self.f32(), self.f32(), self.f32()))
            }
            Field::Bytes | Field::Rest => Value::Bytes(self.bytes()),
        }
    }
}

fn our_packets_read_by(dialect: Dialect) {
    let Some((engine, script, godot4)) = engine_and_script(dialect) else {
        return;
    };
    let seed = random_seed();
    let count = random_count(400);
    let mut rng = Rng(u64::from(seed));
    let mut fields = vec![
        Field::U8,
        Field::I8,
        Field::U16,
        Field::I16,
        Field::U32,
        Field::I32,
        Field::U64,
        Field::I64,
        Field::F32,
        Field::F64,
        Field::Bool,
        Field::Str0,
        Field::Utf8,
        Field::Var,
        Field::Vector2,
        Field::Vector3,
        Field::Quat,
        Field::Color,
        Field::Bytes,
    ];
    fields.push(if godot4 {
        Field::String4
    } else {
        Field::String3
    });
    if godot4 {
        fields.push(Field::Half);
    }
    let mut lines = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..count {
        let big = rng.below(2) == 1;
        let mut layout = Layout((0..1 + rng.below(6)).map(|_| rng.pick(&fields)).collect());
        if rng.below(5) == 0 {
            layout.0.push(Field::Rest);
        }
        let values: Vec<Value> = layout.0.iter().map(|f| rng.value(*f)).collect();
        let bytes = layout.encode(&values, &config(big, dialect)).unwrap();
        let names: Vec<&str> = layout.0.iter().map(|f| f.name()).collect();
        lines.push(format!(
            "{} {} {}",
            u8::from(big),
            names.join(","),
            hex(&bytes)
        ));
        let vals: Vec<String> = layout
            .0
            .iter()
            .zip(&values)
            .map(|(f, v)| canon(*f, v, dialect))
            .collect();
        expected.push(vals);
    }
    let dir = tempdir();
    let input = dir.join("in.txt");
    std::fs::write(&input, lines.join("\n")).unwrap();
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let out = run_script(
        &engine,
        godot4,
        &source,
        &[("ORACLE_MODE", Path::new("read")), ("ORACLE_IN", &input)],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let reads: Vec<Packet> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(reads.len(), count, "engine output:\n{out}");
    for (read, (line, vals)) in reads.iter().zip(lines.iter().zip(&expected)) {
        let ctx = format!("seed {seed}, packet {}: {line}", read.i);
        assert_eq!(&read.vals, vals, "{ctx}");
        assert_eq!(read.left, 0, "{ctx}: the engine left bytes unread");
    }
}

#[test]
fn godot4_reads_our_packets() {
    our_packets_read_by(Dialect::Godot4);
}

#[test]
fn godot3_reads_our_packets() {
    our_packets_read_by(Dialect::Godot3);
}
