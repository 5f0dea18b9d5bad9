//! Running real Godot engines beside the tests: found in `$GODOT_BIN` or the
//! workspace's `.godot-oracles/bin` (`scripts/setup-godot.sh`); a missing engine
//! skips its test with a note on stderr, unless `GODOT_ORACLES_REQUIRED=1`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use godot_bin::{Config, Dialect, Variant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// Every engine is killed after this, even if the test process dies first.
pub const ENGINE_LIMIT: Duration = Duration::from_secs(90);

pub fn engine(name: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::var_os("GODOT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(".godot-oracles/bin"));
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
    eprintln!("SKIPPED: engine {name} not found in {}", dir.display());
    None
}

/// A headless engine running one script of `tests/oracle`, its JSON lines read as
/// they come. Dropping it kills it.
pub struct Engine {
    child: Child,
    lines: mpsc::UnboundedReceiver<serde_json::Value>,
    _dir: TempDir,
    pub log: Vec<serde_json::Value>,
}

pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Engine {
    pub fn start(bin: &Path, script: &str, env: &[(&str, String)]) -> Engine {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "godot-bin-mp-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let config = if bin.ends_with("godot4") { 5 } else { 4 };
        std::fs::write(
            dir.join("project.godot"),
            format!("config_version={config}\n"),
        )
        .unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/oracle")
            .join(script);
        std::fs::copy(src, dir.join("s.gd")).unwrap();
        let mut cmd = Command::new("timeout");
        cmd.arg("-s")
            .arg("KILL")
            .arg(ENGINE_LIMIT.as_secs().to_string())
            .arg(bin);
        if config == 5 {
            cmd.arg("--headless");
        }
        cmd.args(["--no-header", "--path"])
            .arg(&dir)
            .args(["-s", "s.gd"])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("the engine starts");
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut out = BufReader::new(out).lines();
            while let Ok(Some(line)) = out.next_line().await {
                if let Ok(v) = serde_json::from_str(&line) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        Engine {
            child,
            lines,
            _dir: TempDir(dir),
            log: Vec::new(),
        }
    }

    /// Waits for a line with `key`, keeping the lines before it in `log`.
    pub async fn wait_for(&mut self, key: &str, limit: Duration) -> serde_json::Value {
        let find = async {
            while let Some(v) = self.lines.recv().await {
                self.log.push(v.clone());
                if v.get(key).is_some() {
                    return v;
                }
            }
            panic!("the engine ended before printing {key:?}: {:?}", self.log)
        };
        tokio::time::timeout(limit, find)
            .await
            .unwrap_or_else(|_| panic!("no {key:?} from the engine"))
    }

    /// Waits for the engine to exit, then returns its exit code and everything it
    /// printed.
    pub async fn finish(mut self, limit: Duration) -> (Option<i32>, Vec<serde_json::Value>) {
        let status = tokio::time::timeout(limit, self.child.wait()).await;
        while let Ok(Some(v)) =
            tokio::time::timeout(Duration::from_millis(500), self.lines.recv()).await
        {
            self.log.push(v);
        }
        let code = match status {
            Ok(Ok(s)) => s.code(),
            _ => None,
        };
        (code, std::mem::take(&mut self.log))
    }
}

/// A loopback UDP port that was free a moment ago, for an engine's ENet host.
pub fn free_udp_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A loopback port that was free a moment ago, for an engine to listen on.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A hex string of the engine's `var_to_bytes`, decoded.
pub fn godot4(hex_str: &str) -> Variant {
    let bytes = hex::decode(hex_str).unwrap();
    Config::new()
        .dialect(Dialect::Godot4)
        .from_slice(&bytes)
        .unwrap()
}

/// `var_to_bytes` as Godot 4 would print it.
pub fn godot4_hex(v: &Variant) -> String {
    hex::encode(Config::new().dialect(Dialect::Godot4).to_vec(v).unwrap())
}

/// The events a crate client (a `ws::Client` or an `enet::Client`, which share no
/// trait) hears until a call arrives, each within 10 s; none of them may say that a
/// packet was dropped. What a client beside a hostile peer should hear.
#[macro_export]
macro_rules! heard_until_call {
    ($client:expr) => {{
        let mut heard = Vec::new();
        loop {
            let e = tokio::time::timeout(std::time::Duration::from_secs(10), $client.next_event())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let last = matches!(&e, godot_bin_multiplayer::Event::Call(_));
            heard.push(e);
            if last {
                break;
            }
        }
        assert!(
            !heard
                .iter()
                .any(|e| matches!(e, godot_bin_multiplayer::Event::Dropped { .. })),
            "{heard:?}"
        );
        heard
    }};
}

/// For the tests of a Godot 3 server's calls to several: a crate client (`$client`,
/// moved into a task) that keeps the `hello(n)` calls it gets until `n` is 4,
/// calling `hello(0)` back on the server when it gets 1 (so the server knows this
/// client's confirmation of the path is in); the task gives the `n`s.
#[macro_export]
macro_rules! answering_client {
    ($client:expr) => {{
        let mut client = $client;
        tokio::spawn(async move {
            let mut calls: Vec<i64> = Vec::new();
            while !calls.contains(&4) {
                let e =
                    tokio::time::timeout(std::time::Duration::from_secs(10), client.next_event())
                        .await
                        .expect("the crate client's calls")
                        .unwrap()
                        .unwrap();
                if let godot_bin_multiplayer::Event::Call(c) = e {
                    let (n,): (i64,) = c.args().unwrap();
                    calls.push(n);
                    if n == 1 {
                        client
                            .rpc(
                                godot_bin_multiplayer::Target::Peer(1),
                                "Game",
                                "hello",
                                &(0,),
                            )
                            .await
                            .unwrap();
                    }
                }
            }
            calls
        })
    }};
}

/// The server's side of those tests: `hello(1)` to all; once clients `$a` and `$b`
/// both called back, `hello(2)` to all, 3 to all but `$a`, 4 to all but `$b`, 5 to
/// `$b`; then it keeps handling its events until `$task` (the bare peer's, which
/// stops at 5) ends, and gives what that gave.
#[macro_export]
macro_rules! call_several {
    ($server:expr, $a:expr, $b:expr, $task:expr) => {{
        use godot_bin_multiplayer::{Event, Target};
        let server = &mut $server;
        server.rpc(Target::All, "Game", "hello", &(1,)).unwrap();
        let mut called = Vec::new();
        while called.len() < 2 {
            match events_until(server, |_| true).await.remove(0) {
                Event::Call(c) => called.push(c.from),
                e => panic!("{e:?}"),
            }
        }
        called.sort();
        let mut both = [$a, $b];
        both.sort();
        assert_eq!(called, both);
        server.rpc(Target::All, "Game", "hello", &(2,)).unwrap();
        server
            .rpc(Target::AllBut($a), "Game", "hello", &(3,))
            .unwrap();
        server
            .rpc(Target::AllBut($b), "Game", "hello", &(4,))
            .unwrap();
        server
            .rpc(Target::Peer($b), "Game", "hello", &(5,))
            .unwrap();
        let serve = async {
            while server.next_event().await.is_some() {}
            std::future::pending::<()>().await
        };
        let run = async {
            tokio::select! {
                r = $task => r.unwrap(),
                _ = serve => unreachable!(),
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(15), run)
            .await
            .unwrap()
    }};
}
