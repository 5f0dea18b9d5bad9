//! Number text against the engines: for hundreds of doubles spread over every
//! magnitude, our `var2str` / `var_to_str` of a float and of a Vector2 component is
//! the engine's, character for character (Godot 3's `%lg`, Godot 4's Grisu2).

mod common;

use common::*;
use godot_bin::{Dialect, Variant, Vector2};

fn values() -> Vec<f64> {
    // A fixed LCG: mantissas and exponents all over the double range.
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s
    };
    let mut v: Vec<f64> = (0..300)
        .map(|_| {
            let m = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let e = (next() % 80) as i32 - 40;
            let sign = if next() & 1 == 0 { 1.0 } else { -1.0 };
            sign * m * 10f64.powi(e)
        })
        .collect();
    v.extend((0..100).map(|_| ((next() >> 20) as i64 - (1 << 43)) as f64 / 1000.0));
    v.extend([
        1e23,
        1e39,
        5e-324,
        f64::MAX,
        0.3,
        2.0 / 3.0,
        1e21,
        1e22,
        1e15,
        1e16,
        123456789012.345,
    ]);
    v
}

const SCRIPT3: &str = r#"extends SceneTree
func _init():
	var f = File.new()
	f.open(OS.get_environment("ORACLE_IN"), File.READ)
	while not f.eof_reached():
		var l = f.get_line().strip_edges()
		if l == "":
			continue
		var b = PoolByteArray()
		for i in range(0, 16, 2):
			b.append(("0x" + l.substr(i, 2)).hex_to_int())
		var sp = StreamPeerBuffer.new()
		sp.data_array = b
		var v = sp.get_double()
		print("TEXT ", var2str(v), " ", var2str(Vector2(v, 0)))
	quit()
"#;

const SCRIPT4: &str = r#"extends SceneTree
func _init():
	var f = FileAccess.open(OS.get_environment("ORACLE_IN"), FileAccess.READ)
	while not f.eof_reached():
		var l = f.get_line().strip_edges()
		if l == "":
			continue
		var v = l.hex_decode().decode_double(0)
		print("TEXT ", var_to_str(v), " ", var_to_str(Vector2(v, 0)))
	quit()
"#;

fn check(engine_name: &str, dialect: Dialect, godot32: bool) {
    let Some(engine) = engine(engine_name) else {
        return;
    };
    let values = values();
    let dir = tempdir();
    let input = dir.join("in.txt");
    std::fs::write(
        &input,
        values
            .iter()
            .map(|v| hex(&v.to_le_bytes()))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let godot4 = dialect == Dialect::Godot4;
    let out = run_script(
        &engine,
        godot4,
        if godot4 { SCRIPT4 } else { SCRIPT3 },
        &[("ORACLE_IN", &input)],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let lines: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("TEXT "))
        .collect();
    assert_eq!(lines.len(), values.len());
    let mut bad = Vec::new();
    for (v, line) in values.iter().zip(&lines) {
        let text = |x: Variant| {
            let d = x.display(dialect);
            if godot32 {
                d.godot_3_2().to_string()
            } else {
                d.to_string()
            }
        };
        let ours = format!(
            "{} {}",
            text(Variant::Float(*v)),
            text(Vector2::new(*v as f32, 0.0).into())
        );
        if ours != *line {
            bad.push(format!("{v:e}: ours {ours:?}, engine {line:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{engine_name}: {} of {} differ:\n{}",
        bad.len(),
        values.len(),
        bad.join("\n")
    );
}

#[test]
fn godot_3_2_number_text() {
    check("godot3.2", Dialect::Godot3, true);
}

#[test]
fn godot_3_6_number_text() {
    check("godot3.6", Dialect::Godot3, false);
}

#[test]
fn godot_4_6_number_text() {
    check("godot4", Dialect::Godot4, false);
}
