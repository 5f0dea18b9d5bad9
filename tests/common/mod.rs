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

/// The repository root (the CLI package's tests include this file too, from `cli/`).
pub fn root() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if dir.join("tests/fixtures").is_dir() {
        dir
    } else {
        dir.parent().expect("cli/ has a parent").to_path_buf()
    }
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

/// Whether the engine's bytes `engine` hold the value `v` that we wrote as `ours`: the
/// same bytes; but where `v` holds a NodePath (whose padding Godot 3 leaves
/// unwritten), bytes we wrote as 0 may differ, and then both must read back as exactly
/// the same value (its `Debug` form: `-0.0`, StringName and typing apart), which the
/// padding is not part of.
pub fn engine_holds(
    cfg: godot_bin::Config,
    v: &godot_bin::Variant,
    ours: &[u8],
    engine: &[u8],
) -> bool {
    if !has_nodepath(v) {
        return ours == engine;
    }
    let read = |b: &[u8]| {
        cfg.from_slice::<godot_bin::Variant>(b)
            .map(|w| format!("{w:?}"))
    };
    same_bytes(ours, engine, true) && read(engine).is_ok_and(|w| read(ours).is_ok_and(|o| o == w))
}

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
    match try_oracle_reads(engine, dialect, hexes) {
        Ok(reads) => reads,
        Err(failure) => panic!("{}", failure.message),
    }
}

/// The engine died before it had decoded every input: it answered the first
/// `reads.len()` of them (so the next one is the likely culprit).
#[derive(Debug)]
pub struct OracleFailure {
    pub reads: Vec<Read>,
    pub message: String,
}

/// [`oracle_reads`], but an engine that crashes or stops early is an `Err` with the
/// results it printed before it died.
pub fn try_oracle_reads(
    engine: &Path,
    dialect: Dialect,
    hexes: &[String],
) -> Result<Vec<Read>, OracleFailure> {
    let dir = tempdir();
    let input = dir.join("in.txt");
    std::fs::write(&input, hexes.join("\n")).unwrap();
    let (script, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/read4.gd", true),
        _ => ("tests/oracle/read.gd", false),
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let run = try_run_script(engine, godot4, &source, &[("ORACLE_IN", &input)]);
    let _ = std::fs::remove_dir_all(&dir);
    let (out, error) = match run {
        Ok(out) => (out, None),
        Err((out, err)) => (out, Some(err)),
    };
    let reads: Vec<Read> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map_while(|l| serde_json::from_str::<Read>(l).ok())
        .map(|mut r| {
            // The oracle sends text as UTF-8 hex (see read.gd). Godot 3 reads and
            // writes code points past U+10FFFF, which are no UTF-8: they show as U+FFFD.
            r.text = String::from_utf8_lossy(&unhex(&r.text)).into_owned();
            r
        })
        .collect();
    match error {
        None if reads.len() == hexes.len() => Ok(reads),
        error => Err(OracleFailure {
            message: format!(
                "engine answered {} of {} inputs: {}\nengine output:\n{out}",
                reads.len(),
                hexes.len(),
                error.unwrap_or_default()
            ),
            reads,
        }),
    }
}

/// One value a random generator (`tests/oracle/random3.gd`, `random4.gd`) made: the
/// engine's bytes and text (decoded from the generator's hex) for it.
#[derive(serde::Deserialize, Debug, Clone)]
pub struct Generated {
    pub i: usize,
    /// The value holds a NodePath (whose padding the engine leaves unwritten).
    pub np: bool,
    pub hex: String,
    pub text: String,
}

/// `count` random values from `engine`'s own generator with `seed` (below 2^31).
pub fn engine_random(engine: &Path, dialect: Dialect, seed: u32, count: usize) -> Vec<Generated> {
    let (script, godot4) = match dialect {
        Dialect::Godot4 => ("tests/oracle/random4.gd", true),
        _ => ("tests/oracle/random3.gd", false),
    };
    let source = std::fs::read_to_string(root().join(script)).unwrap();
    let seed_text = seed.to_string();
    let count_text = count.to_string();
    let out = run_script(
        engine,
        godot4,
        &source,
        &[
            ("ORACLE_SEED", Path::new(&seed_text)),
            ("ORACLE_COUNT", Path::new(&count_text)),
        ],
    );
    let values: Vec<Generated> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<Generated>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .map(|mut g| {
            g.text = String::from_utf8(unhex(&g.text)).unwrap();
            g
        })
        .collect();
    assert_eq!(values.len(), count, "generator output:\n{out}");
    values
}

/// The seed for a random engine test: `$GODOT_RANDOM_SEED`, else one from the clock
/// (below 2^31: Godot 3.2 reads it as a 32-bit int).
pub fn random_seed() -> u32 {
    match std::env::var("GODOT_RANDOM_SEED") {
        Ok(s) => {
            let seed: u32 = s.trim().parse().expect("GODOT_RANDOM_SEED is a number");
            assert!(seed < 1 << 31, "GODOT_RANDOM_SEED is below 2^31");
            seed
        }
        Err(_) => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap();
            (t.as_nanos() as u32 ^ t.as_secs() as u32) & 0x7fff_ffff
        }
    }
}

/// `$GODOT_RANDOM_COUNT`, else `default`.
pub fn random_count(default: usize) -> usize {
    std::env::var("GODOT_RANDOM_COUNT")
        .map(|s| s.trim().parse().expect("GODOT_RANDOM_COUNT is a number"))
        .unwrap_or(default)
}

/// Runs a GDScript with the engine in a throw-away project; returns stdout.
pub fn run_script(engine: &Path, godot4: bool, script: &str, env: &[(&str, &Path)]) -> String {
    try_run_script(engine, godot4, script, env)
        .unwrap_or_else(|(_, err)| panic!("engine failed: {err}"))
}

/// [`run_script`]; a failed run is `Err((stdout, stderr and exit status))`.
pub fn try_run_script(
    engine: &Path,
    godot4: bool,
    script: &str,
    env: &[(&str, &Path)],
) -> Result<String, (String, String)> {
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
    let out = output_within(cmd, ENGINE_TIME_LIMIT);
    let _ = std::fs::remove_dir_all(&dir);
    let Some(out) = out else {
        return Err((
            String::new(),
            format!(
                "no answer within {} s: stopped",
                ENGINE_TIME_LIMIT.as_secs()
            ),
        ));
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(stdout)
    } else {
        Err((
            stdout,
            format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr)),
        ))
    }
}

/// How long one engine run may take before it is stopped.
pub const ENGINE_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// `cmd.output()`, but a process still running after `limit` is killed (`None`).
pub fn output_within(mut cmd: Command, limit: std::time::Duration) -> Option<std::process::Output> {
    use std::io::Read as _;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run engine");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for engine") {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            // Only the engine process this function started.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let stdout = out.join().unwrap();
    let stderr = err.join().unwrap();
    status.map(|status| std::process::Output {
        status,
        stdout,
        stderr,
    })
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

/// Godot 4 compares StringNames inside Array keys (`Array::operator<`, then
/// `StringName::operator<`) by their address in memory: the text's key order then
/// depends on the engine's allocations, which nothing outside it can know
/// (`godot_4_orders_string_names_in_arrays_by_address` in `engine_divergences.rs`).
pub fn ordered_by_address(v: &godot_bin::Variant) -> bool {
    fn string_name_in_array(v: &godot_bin::Variant) -> bool {
        v.as_array().is_some_and(|a| {
            a.iter()
                .any(|x| matches!(x, godot_bin::Variant::StringName(_)) || string_name_in_array(x))
        })
    }
    let Some(d) = v.as_dictionary() else {
        return v
            .as_array()
            .is_some_and(|a| a.iter().any(ordered_by_address));
    };
    d.iter()
        .any(|(k, x)| string_name_in_array(k) || ordered_by_address(k) || ordered_by_address(x))
}

/// Whether `v` holds a container typed with a class. Godot 4 reads a class it does
/// not know (`Array[Nod]`) as no type at all, and keeps elements such a type would
/// refuse; the crate does not know the engine's classes and keeps the type (the
/// README's list of differences).
pub fn has_class_type(v: &godot_bin::Variant) -> bool {
    use godot_bin::{ContainerType, Variant};
    let class = |t: &Option<ContainerType>| matches!(t, Some(ContainerType::Class(_)));
    match v {
        Variant::Array(a) => a.iter().any(has_class_type),
        Variant::TypedArray(a) => {
            matches!(a.element, ContainerType::Class(_)) || a.items.iter().any(has_class_type)
        }
        Variant::Dictionary(d) => d
            .iter()
            .any(|(k, v)| has_class_type(k) || has_class_type(v)),
        Variant::TypedDictionary(d) => {
            class(&d.key)
                || class(&d.value)
                || d.entries
                    .iter()
                    .any(|(k, v)| has_class_type(k) || has_class_type(v))
        }
        _ => false,
    }
}

/// Whether `v` holds a NodePath (whose padding Godot 3 leaves unwritten).
pub fn has_nodepath(v: &godot_bin::Variant) -> bool {
    use godot_bin::Variant;
    match v {
        Variant::NodePath(_) => true,
        Variant::Array(a) => a.iter().any(has_nodepath),
        Variant::TypedArray(a) => a.items.iter().any(has_nodepath),
        Variant::Dictionary(d) => d.iter().any(|(k, v)| has_nodepath(k) || has_nodepath(v)),
        Variant::TypedDictionary(d) => d
            .entries
            .iter()
            .any(|(k, v)| has_nodepath(k) || has_nodepath(v)),
        _ => false,
    }
}

/// Whether `v` holds text that starts with a BOM (a string, a StringName, a key, a
/// NodePath's name): the crate writes that BOM twice, so that the engine's decoder,
/// which drops one, reads the text back (the README's list of differences); the engine
/// writes it once.
pub fn has_leading_bom(v: &godot_bin::Variant) -> bool {
    use godot_bin::Variant;
    let bom = |s: &str| s.starts_with('\u{feff}');
    match v {
        Variant::String(s) | Variant::StringName(godot_bin::StringName(s)) => bom(s),
        Variant::NodePath(p) => p.names().iter().chain(p.subnames()).any(|s| bom(s)),
        Variant::PoolStringArray(a) => a.0.iter().any(|s| bom(s)),
        Variant::Array(a) => a.iter().any(has_leading_bom),
        Variant::TypedArray(a) => a.items.iter().any(has_leading_bom),
        Variant::Dictionary(d) => d
            .iter()
            .any(|(k, v)| has_leading_bom(k) || has_leading_bom(v)),
        Variant::TypedDictionary(d) => d
            .entries
            .iter()
            .any(|(k, v)| has_leading_bom(k) || has_leading_bom(v)),
        _ => false,
    }
}

/// Whether Godot 4 `text` names a typed container's element, key or value type that is
/// no built-in type: a class, known or not (`Array[Nod]`, `Dictionary[Strin, int]`).
/// Godot 4 reads a class it does not know as no type at all; the crate keeps any name as
/// a class (the README's list of differences), and so may drop or merge what the
/// engine keeps.
pub fn names_class_type(text: &str) -> bool {
    let builtin: Vec<&str> = Dialect::Godot4
        .types()
        .iter()
        .map(|t| t.name_in(Dialect::Godot4))
        .collect();
    // Outside string literals only: `"Array[x"` names no type.
    let (mut quoted, mut escaped) = (false, false);
    let code: String = text
        .chars()
        .map(|c| {
            let inside = quoted;
            match c {
                '\\' if quoted => escaped = !escaped,
                '"' if !escaped => quoted = !quoted,
                _ => escaped = false,
            }
            if inside || c == '"' {
                ' '
            } else {
                c
            }
        })
        .collect();
    ["Array[", "Dictionary["].iter().any(|open| {
        code.split(open).skip(1).any(|rest| {
            let names = rest.split(']').next().unwrap_or("");
            names
                .split(',')
                .map(str::trim)
                .any(|n| n != "Variant" && !builtin.contains(&n))
        })
    })
}
