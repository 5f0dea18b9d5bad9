//! Shared by the engine-backed tests: fixture loading and engine discovery.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use godot_bin::Dialect;

/// One fixture line: a GDScript expression and what the real engine made of it.
#[derive(serde::Deserialize, Debug, Clone)]
pub struct Case {
    pub name: String,
    #[serde(default)]
    pub expr: String,
    pub hex: String,
    pub text: String,
    #[serde(default)]
    pub has_nodepath: bool,
    #[serde(default)]
    pub objects: bool,
    /// Whether the engine decodes the bytes with objects disallowed.
    #[serde(default = "yes")]
    pub strict_ok: bool,
}

fn yes() -> bool {
    true
}

impl Case {
    pub fn bytes(&self) -> Vec<u8> {
        unhex(&self.hex)
    }

    /// Values whose bytes or text change from run to run (object ids).
    pub fn run_dependent(&self) -> bool {
        self.name.contains("run_dependent") || self.name.contains("object_as_id")
    }
}

pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn load(rel: &str) -> Vec<Case> {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// The fixture sets: file, dialect, engine binary name.
pub const SETS: [(&str, Dialect, &str); 3] = [
    (
        "tests/fixtures/godot3/godot3.2.jsonl",
        Dialect::Godot3,
        "godot3.2",
    ),
    (
        "tests/fixtures/godot3/godot3.6.jsonl",
        Dialect::Godot3,
        "godot3.6",
    ),
    (
        "tests/fixtures/godot4/godot4.6.jsonl",
        Dialect::Godot4,
        "godot4",
    ),
];

/// Our bytes equal the engine's, except that Godot 3 leaves NodePath padding
/// uninitialised: there, only a byte we wrote as 0 may differ.
pub fn same_bytes(ours: &[u8], engine: &[u8], has_nodepath: bool) -> bool {
    ours.len() == engine.len()
        && ours
            .iter()
            .zip(engine)
            .all(|(a, b)| a == b || (has_nodepath && *a == 0))
}

/// The engine wrapper for `name`, from `$GODOT_BIN` or `./.godot-oracles/bin`.
/// `None` means skip, unless `GODOT_ORACLES_REQUIRED=1`, where it is a failure.
pub fn engine(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("GODOT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".godot-oracles/bin"));
    let path = dir.join(name);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("GODOT_ORACLES_REQUIRED").as_deref() == Ok("1") {
        panic!(
            "engine {name} not found in {} and GODOT_ORACLES_REQUIRED=1",
            dir.display()
        );
    }
    report_skip(name, &dir);
    None
}

/// Says on the terminal, past the test harness's output capture, that an engine check
/// was skipped: a passing run without engines must not look like a checked one.
fn report_skip(name: &str, dir: &Path) {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SKIPPED: AtomicUsize = AtomicUsize::new(0);
    let n = SKIPPED.fetch_add(1, Ordering::Relaxed) + 1;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let binary = std::env::args().next().unwrap_or_default();
    let binary = Path::new(&binary)
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(|f| f.rsplit_once('-').map(|(stem, _)| stem.to_owned()))
        .unwrap_or_default();
    // Written to the process's stderr directly, in one piece: `eprintln!` would be
    // captured and hidden.
    let line = format!(
        "\nENGINE CHECK SKIPPED ({n} in tests/{binary}.rs): {test} needs {name}, not found in {}. \
         Run `bash scripts/setup-godot.sh` or set GODOT_BIN to a folder with godot3.2, godot3.6 \
         and godot4; GODOT_ORACLES_REQUIRED=1 makes this a failure.\n",
        dir.display()
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// What the reverse oracle (`tests/oracle/read.gd`, `read4.gd`) made of one input.
#[derive(serde::Deserialize, Debug)]
pub struct Read {
    pub i: usize,
    pub ok: bool,
    pub text: String,
    pub hex: String,
    /// The engine's bytes for `str2var` of its own text.
    #[serde(default)]
    pub parsed: String,
}

/// Has `engine` decode each hex line with `bytes2var` / `bytes_to_var`; one result a line,
/// with the engine's text and re-encoded bytes.
pub fn oracle_reads(engine: &Path, dialect: Dialect, hexes: &[String]) -> Vec<Read> {
    let dir = tempdir();
    let input = dir.join("in.txt");
    std::fs::write(&input, hexes.join("\n")).unwrap();
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
        .map(|l| serde_json::from_str::<Read>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .map(|mut r| {
            // The oracle sends text as UTF-8 hex (see read.gd).
            r.text = String::from_utf8(unhex(&r.text)).unwrap();
            r
        })
        .collect();
    assert_eq!(reads.len(), hexes.len(), "engine output:\n{out}");
    reads
}

/// Runs a GDScript with the engine in a throw-away project; returns stdout.
pub fn run_script(engine: &Path, godot4: bool, script: &str, env: &[(&str, &Path)]) -> String {
    let dir = tempdir();
    let config = if godot4 {
        "config_version=5\n"
    } else {
        "config_version=4\n[logging]\nfile_logging/enable_file_logging=false\nfile_logging/enable_file_logging.pc=false\n"
    };
    std::fs::write(dir.join("project.godot"), config).unwrap();
    std::fs::write(dir.join("s.gd"), script).unwrap();
    let mut cmd = Command::new(engine);
    if godot4 {
        cmd.args(["--headless", "--no-header"]);
    }
    cmd.arg("--path").arg(&dir).args(["-s", "s.gd"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run engine");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "engine failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "godot_bin-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
