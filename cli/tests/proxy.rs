//! `godot-bin proxy` and `godot-bin replay` between `examples/multiplayer_server.rs`
//! and its clients, on 127.0.0.1:
//!
//! - Rust clients (`VarWriter` / `VarReader` over `PacketPeerStream`): every message of
//!   two sessions is logged, in order, with its exact text, on standard output and in
//!   the JSON lines log; an injected message reaches the server and its broadcast
//!   reaches the games; one game leaving does not end the other's session;
//! - undecodable, odd and oversized frames pass byte for byte and are logged with an
//!   error; `--framing none` logs each read;
//! - `replay` reports a recorded session as matching against a fresh server, and the
//!   differences against a server in another state;
//! - the headless Godot 3.6 and 4.6 example clients play through the proxy, with a
//!   message injected into their session.
//!
//! Engines come from `$GODOT_BIN` or `./.godot-oracles/bin` (`scripts/setup-godot.sh`);
//! without them the engine tests say so and pass, unless `GODOT_ORACLES_REQUIRED=1`.
//! Every wait is bounded, and every child process is killed on every way out of a test.

#[allow(dead_code)]
#[path = "../../examples/multiplayer_server.rs"]
mod server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use godot_bin::framing::{Framing, VarReader, VarWriter};
use godot_bin::{Config, Dialect, Quat, Vector3};
use serde::de::DeserializeOwned;
use serde_json::Value;
use server::{ClientMsg, PlayerInfo, ServerMsg};

/// The longest any one wait may take.
const DEADLINE: Duration = Duration::from_secs(60);
/// An engine is killed after this, even if this test process dies first.
const HARD_LIMIT_SECS: &str = "120";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tempdir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "godot-bin-proxy-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts the example lobby server on a free port; it runs until the tests end.
fn start_server(cfg: Config) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // The server's own log is not what these tests check: the proxy's is.
    let quiet: server::Log = std::sync::Arc::new(|_: &str| {});
    thread::spawn(move || server::serve(listener, cfg, quiet));
    port
}

/// A server that sends back every byte it gets, until the client half-closes.
fn start_echo() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            thread::spawn(move || {
                let mut from = stream.try_clone().unwrap();
                let mut to = stream;
                let _ = std::io::copy(&mut from, &mut to);
                let _ = to.shutdown(Shutdown::Write);
            });
        }
    });
    port
}

/// Reads a child's output lines into a channel.
fn lines_of(out: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn collect(out: impl Read + Send + 'static) -> JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        let mut out = out;
        let _ = out.read_to_string(&mut text);
        text
    })
}

/// Waits for `child` to exit, at most [`DEADLINE`].
fn wait_bounded(child: &mut Child, what: &str) -> ExitStatus {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "{what} still runs after {DEADLINE:?}"
        );
        thread::sleep(Duration::from_millis(10));
    }
}

/// A running `godot-bin proxy`, killed when dropped.
struct Proxy {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    seen: Vec<String>,
    port: u16,
}

impl Proxy {
    /// Starts the proxy on a free port in front of `server`.
    fn start(server: u16, log: &Path, extra: &[&str]) -> Proxy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_godot-bin"))
            .args(["proxy", "--listen", "127.0.0.1:0", "--connect"])
            .arg(format!("127.0.0.1:{server}"))
            .arg("--log")
            .arg(log)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stdout.take().unwrap());
        let stderr = Some(collect(child.stderr.take().unwrap()));
        let stdin = child.stdin.take();
        let mut proxy = Proxy {
            child,
            stdin,
            lines,
            stderr,
            seen: Vec::new(),
            port: 0,
        };
        let first = proxy.wait_for("the listening address", |l| l.contains("listening on "));
        let addr = first.split("listening on ").nth(1).unwrap();
        let addr = addr.split(',').next().unwrap();
        proxy.port = addr.rsplit(':').next().unwrap().parse().unwrap();
        proxy
    }

    /// The first line (from now on) that `want` accepts.
    fn wait_for(&mut self, what: &str, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if want(&line) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "no line with {what} from the proxy ({e}); its output:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    fn inject(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for the proxy to exit (after `--max-sessions`); returns its standard
    /// output lines and its standard error.
    fn finish(mut self) -> (Vec<String>, String) {
        drop(self.stdin.take());
        let status = wait_bounded(&mut self.child, "the proxy");
        while let Ok(line) = self.lines.recv_timeout(DEADLINE) {
            self.seen.push(line);
        }
        let stderr = self.stderr.take().unwrap().join().unwrap_or_default();
        assert!(
            status.success(),
            "the proxy failed ({status}); stdout:\n{}\nstderr:\n{stderr}",
            self.seen.join("\n")
        );
        (std::mem::take(&mut self.seen), stderr)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Rust game: `PacketPeerStream` frames over TCP.
struct Game {
    stream: TcpStream,
    input: VarReader<BufReader<TcpStream>>,
    output: VarWriter<TcpStream>,
}

impl Game {
    fn connect(port: u16, cfg: Config) -> Game {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        stream.set_write_timeout(Some(DEADLINE)).unwrap();
        let output =
            VarWriter::new(stream.try_clone().unwrap(), Framing::PacketPeerStream).with_config(cfg);
        let input = VarReader::new(
            BufReader::new(stream.try_clone().unwrap()),
            Framing::PacketPeerStream,
        )
        .with_config(cfg);
        Game {
            stream,
            input,
            output,
        }
    }

    fn join(port: u16, cfg: Config, name: &str) -> Game {
        let mut game = Game::connect(port, cfg);
        game.send(ClientMsg::Join { name: name.into() });
        game
    }

    fn send(&mut self, msg: ClientMsg) {
        self.output.put_var(&msg).unwrap();
    }

    fn expect(&mut self, want: ServerMsg) {
        assert_eq!(self.input.get_var::<ServerMsg>().unwrap(), Some(want));
    }

    fn expect_end(&mut self) {
        assert_eq!(self.input.get_var::<ServerMsg>().unwrap(), None, "closed");
    }
}

fn player(id: i64, name: &str) -> PlayerInfo {
    PlayerInfo {
        id,
        name: name.into(),
        position: Vector3::default(),
        rotation: Quat::IDENTITY,
    }
}

fn chat(from: i64, text: &str) -> ServerMsg {
    ServerMsg::Chat {
        from,
        text: text.into(),
    }
}

/// The JSON lines log.
fn read_log(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The log's messages of one session and direction.
fn messages<'a>(log: &'a [Value], session: u64, dir: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|r| r["event"] == "message" && r["session"] == session && r["dir"] == dir)
        .collect()
}

/// The logged messages' values, decoded from their hex; checks that each prefix is
/// the value's `PacketPeerStream` length.
fn logged_values<T: DeserializeOwned>(msgs: &[&Value], cfg: Config) -> Vec<T> {
    msgs.iter()
        .map(|m| {
            let value = hex::decode(m["hex"].as_str().unwrap()).unwrap();
            let prefix = hex::decode(m["prefix"].as_str().unwrap()).unwrap();
            assert_eq!(prefix, (value.len() as u32).to_le_bytes(), "{m}");
            assert_eq!(m["size"], value.len(), "{m}");
            cfg.from_slice(&value)
                .unwrap_or_else(|e| panic!("{e}: {m}"))
        })
        .collect()
}

fn texts(msgs: &[&Value]) -> Vec<String> {
    msgs.iter()
        .map(|m| m["text"].as_str().unwrap_or("<none>").to_owned())
        .collect()
}

/// The standard output lines of one session and direction, without time and size:
/// `(injected) TEXT` or `TEXT`.
fn shown(out: &[String], session: u64, dir: &str) -> Vec<String> {
    let start = format!("#{session} {dir} ");
    out.iter()
        .filter_map(|l| l.split_once(' ').map(|(_, rest)| rest))
        .filter_map(|rest| rest.strip_prefix(&start))
        .map(|rest| rest.split_once(" B ").unwrap().1.to_owned())
        .collect()
}

fn position(out: &[String], what: &str) -> usize {
    out.iter()
        .position(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what}:\n{}", out.join("\n")))
}

const ANN: &str =
    r#"{"id": 1, "name": "Ann", "position": Vector3(0, 0, 0), "rotation": Quaternion(0, 0, 0, 1)}"#;
const BOB: &str =
    r#"{"id": 2, "name": "Bob", "position": Vector3(0, 0, 0), "rotation": Quaternion(0, 0, 0, 1)}"#;

/// Two Rust games in one lobby through the proxy; a message injected into Ann's session
/// for the server, and one into every session for the games; Bob leaves by closing his
/// side, and Ann's session goes on.
#[test]
fn lobby_sessions_are_logged_and_injected_into() {
    let cfg = Config::new().dialect(Dialect::Godot4);
    let server = start_server(cfg);
    let dir = tempdir();
    let log = dir.join("log.jsonl");
    let mut proxy = Proxy::start(server, &log, &["--max-sessions", "2"]);

    let mut ann = Game::join(proxy.port, cfg, "Ann");
    ann.expect(ServerMsg::Welcome { id: 1 });
    ann.expect(ServerMsg::PlayerList {
        players: vec![player(1, "Ann")],
    });
    let mut bob = Game::join(proxy.port, cfg, "Bob");
    let both = vec![player(1, "Ann"), player(2, "Bob")];
    bob.expect(ServerMsg::Welcome { id: 2 });
    bob.expect(ServerMsg::PlayerList {
        players: both.clone(),
    });
    ann.expect(ServerMsg::Joined {
        id: 2,
        name: "Bob".into(),
    });
    ann.expect(ServerMsg::PlayerList { players: both });

    // Sent as if Ann had: the server broadcasts it to both.
    proxy.inject(r#"#1 -> {"Chat": {"text": "injected"}}"#);
    ann.expect(chat(1, "injected"));
    bob.expect(chat(1, "injected"));
    // Sent to every game as if the server had.
    proxy.inject(r#"<- {"Chat": {"from": 0, "text": "to all"}}"#);
    ann.expect(chat(0, "to all"));
    bob.expect(chat(0, "to all"));

    bob.stream.shutdown(Shutdown::Write).unwrap();
    bob.expect(ServerMsg::Left { id: 2 });
    bob.expect_end();
    drop(bob);
    ann.expect(ServerMsg::Left { id: 2 });
    proxy.wait_for("session 2's end", |l| l.contains("#2 closed"));

    ann.send(ClientMsg::Chat {
        text: "still here".into(),
    });
    ann.expect(chat(1, "still here"));
    ann.send(ClientMsg::Leave);
    ann.expect(ServerMsg::Left { id: 1 });
    ann.expect_end();
    drop(ann);
    let (out, _) = proxy.finish();

    // Standard output: every message, in order, each way.
    let ann_sent = [
        r#"{"Join": {"name": "Ann"}}"#.to_owned(),
        r#"(injected) {"Chat": {"text": "injected"}}"#.to_owned(),
        r#"{"Chat": {"text": "still here"}}"#.to_owned(),
        r#""Leave""#.to_owned(),
    ];
    let ann_got = [
        r#"{"Welcome": {"id": 1}}"#.to_owned(),
        format!(r#"{{"PlayerList": {{"players": [{ANN}]}}}}"#),
        r#"{"Joined": {"id": 2, "name": "Bob"}}"#.to_owned(),
        format!(r#"{{"PlayerList": {{"players": [{ANN}, {BOB}]}}}}"#),
        r#"{"Chat": {"from": 1, "text": "injected"}}"#.to_owned(),
        r#"(injected) {"Chat": {"from": 0, "text": "to all"}}"#.to_owned(),
        r#"{"Left": {"id": 2}}"#.to_owned(),
        r#"{"Chat": {"from": 1, "text": "still here"}}"#.to_owned(),
        r#"{"Left": {"id": 1}}"#.to_owned(),
    ];
    let bob_sent = [r#"{"Join": {"name": "Bob"}}"#.to_owned()];
    let bob_got = [
        r#"{"Welcome": {"id": 2}}"#.to_owned(),
        format!(r#"{{"PlayerList": {{"players": [{ANN}, {BOB}]}}}}"#),
        r#"{"Chat": {"from": 1, "text": "injected"}}"#.to_owned(),
        r#"(injected) {"Chat": {"from": 0, "text": "to all"}}"#.to_owned(),
        r#"{"Left": {"id": 2}}"#.to_owned(),
    ];
    let all = out.join("\n");
    assert_eq!(shown(&out, 1, "->"), ann_sent, "{all}");
    assert_eq!(shown(&out, 1, "<-"), ann_got, "{all}");
    assert_eq!(shown(&out, 2, "->"), bob_sent, "{all}");
    assert_eq!(shown(&out, 2, "<-"), bob_got, "{all}");
    // The injection went before its broadcast; Bob's end before Ann's last chat.
    let injected = position(&out, "#1 -> 56 B (injected)");
    assert!(
        injected
            < position(
                &out,
                r#"#1 <- 76 B {"Chat": {"from": 1, "text": "injected"}}"#
            )
    );
    assert!(
        injected
            < position(
                &out,
                r#"#2 <- 76 B {"Chat": {"from": 1, "text": "injected"}}"#
            )
    );
    assert!(position(&out, "#2 closed") < position(&out, "still here"));
    assert!(
        out.iter()
            .any(|l| l.ends_with("#1 dialect: Godot 4 (detected)")),
        "{all}"
    );
    assert!(out.last().unwrap().contains("#1 closed: "), "{all}");

    // The JSON lines log: the same, and the bytes decode to what was sent.
    let records = read_log(&log);
    let strip = |s: &[String]| -> Vec<String> {
        s.iter()
            .map(|t| t.trim_start_matches("(injected) ").to_owned())
            .collect()
    };
    let sent = messages(&records, 1, "->");
    assert_eq!(texts(&sent), strip(&ann_sent));
    assert_eq!(
        logged_values::<ClientMsg>(&sent, cfg),
        [
            ClientMsg::Join { name: "Ann".into() },
            ClientMsg::Chat {
                text: "injected".into()
            },
            ClientMsg::Chat {
                text: "still here".into()
            },
            ClientMsg::Leave,
        ]
    );
    let injected: Vec<bool> = sent.iter().map(|m| m["injected"] == true).collect();
    assert_eq!(injected, [false, true, false, false]);
    assert_eq!(texts(&messages(&records, 1, "<-")), strip(&ann_got));
    assert_eq!(texts(&messages(&records, 2, "->")), bob_sent);
    let bob_values: Vec<ServerMsg> = logged_values(&messages(&records, 2, "<-"), cfg);
    assert_eq!(bob_values[3], chat(0, "to all"));
    assert_eq!(bob_values[4], ServerMsg::Left { id: 2 });
    for m in records.iter().filter(|r| r["event"] == "message") {
        assert_eq!(m["error"], Value::Null, "{m}");
        assert_eq!(m["truncated"], false, "{m}");
        assert!(m["time"].as_f64().unwrap() > 1.6e9, "{m}");
    }
    let events: Vec<(&str, u64)> = records
        .iter()
        .filter(|r| r["event"] != "message")
        .map(|r| {
            (
                r["event"].as_str().unwrap(),
                r["session"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("listen", 0),
            ("open", 1),
            ("dialect", 1),
            ("open", 2),
            ("dialect", 2),
            ("close", 2),
            ("close", 1),
        ]
    );
    let close = records.iter().find(|r| r["event"] == "close").unwrap();
    assert_eq!(
        (&close["to_server"], &close["to_client"]),
        (&1.into(), &4.into())
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Frames that do not decode, that carry bytes after the value, and one whose prefix
/// announces 20 MiB go through unchanged both ways, logged with what is wrong.
#[test]
fn undecodable_bytes_pass_unchanged() {
    let echo = start_echo();
    let dir = tempdir();
    let log = dir.join("log.jsonl");
    let proxy = Proxy::start(echo, &log, &["--max-sessions", "1", "--dialect", "4"]);
    let mut wire = Vec::new();
    for value in [
        &[2, 0, 0, 0, 7, 0, 0, 0][..],
        &[0xff, 0, 0, 0, 1, 2, 3, 4],
        &[2, 0, 0, 0, 7, 0, 0, 0, 9, 9, 9, 9],
    ] {
        wire.extend((value.len() as u32).to_le_bytes());
        wire.extend(value);
    }
    // 20 MiB announced, 100 bytes sent: the proxy must neither wait for nor hold them.
    wire.extend((20u32 << 20).to_le_bytes());
    wire.extend([0xab; 100]);

    let mut game = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
    game.set_read_timeout(Some(DEADLINE)).unwrap();
    game.write_all(&wire).unwrap();
    // The oversized frame's start comes back before this side ends.
    let mut back = vec![0; wire.len()];
    game.read_exact(&mut back).unwrap();
    assert_eq!(hex::encode(&back), hex::encode(&wire));
    game.shutdown(Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    game.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "{rest:?}");
    let (out, _) = proxy.finish();
    let all = out.join("\n");

    for dir in ["->", "<-"] {
        let lines = shown(&out, 1, dir);
        assert_eq!(lines.len(), 4, "{all}");
        assert_eq!(lines[0], "7");
        assert!(
            lines[1].starts_with("<undecodable: byte 0: ")
                && lines[1].ends_with("> ff00000001020304"),
            "{}",
            lines[1]
        );
        assert_eq!(
            lines[2],
            "7 <byte 8: 4 bytes after the value (the engine ignores them)>"
        );
        assert!(
            lines[3].starts_with("<undecodable: a frame of 20971520 bytes is above the 16 MiB")
                && lines[3].contains("> abab"),
            "{}",
            lines[3]
        );
    }
    assert!(
        out.iter()
            .any(|l| l.contains("#1 closed: the client disconnected (cut off: 20971420 bytes")),
        "{all}"
    );

    let records = read_log(&log);
    let sent = messages(&records, 1, "->");
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[1]["text"], Value::Null);
    assert!(sent[1]["error"].as_str().unwrap().starts_with("byte 0: "));
    assert_eq!(sent[1]["hex"], "ff00000001020304");
    assert_eq!(sent[2]["text"], "7");
    assert_eq!(sent[3]["size"], 20 << 20);
    assert_eq!(sent[3]["prefix"], "00004001");
    assert_eq!(sent[3]["truncated"], true);
    // The first bytes of the value (all came in one read), as many as shown.
    assert_eq!(sent[3]["hex"], "ab".repeat(64));
    let _ = std::fs::remove_dir_all(dir);
}

/// Without framing, each read is one message.
#[test]
fn framing_none_logs_each_read() {
    let echo = start_echo();
    let dir = tempdir();
    let log = dir.join("log.jsonl");
    let proxy = Proxy::start(echo, &log, &["--max-sessions", "1", "--framing", "none"]);
    let value = Config::new()
        .dialect(Dialect::Godot4)
        .to_vec(&Vector3::new(1.0, 2.0, 3.0))
        .unwrap();
    let mut game = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
    game.set_read_timeout(Some(DEADLINE)).unwrap();
    game.write_all(&value).unwrap();
    let mut back = vec![0; value.len()];
    game.read_exact(&mut back).unwrap();
    assert_eq!(back, value);
    game.shutdown(Shutdown::Write).unwrap();
    assert_eq!(game.read(&mut [0; 8]).unwrap(), 0);
    let (out, _) = proxy.finish();
    assert_eq!(
        shown(&out, 1, "->"),
        ["Vector3(1, 2, 3)"],
        "{}",
        out.join("\n")
    );
    assert_eq!(shown(&out, 1, "<-"), ["Vector3(1, 2, 3)"]);
    let records = read_log(&log);
    assert_eq!(messages(&records, 1, "->")[0]["prefix"], Value::Null);
    let _ = std::fs::remove_dir_all(dir);
}

/// `--filter` keeps the matching messages (and every event); a bad injection line is
/// refused with a reason and changes nothing.
#[test]
fn filter_and_refused_injections() {
    let echo = start_echo();
    let dir = tempdir();
    let log = dir.join("log.jsonl");
    let mut proxy = Proxy::start(echo, &log, &["--max-sessions", "1", "--filter", "keep"]);
    let cfg = Config::new().dialect(Dialect::Godot3);
    let mut game = Game::connect(proxy.port, cfg);
    game.output.put_var("drop me").unwrap();
    game.output.put_var("keep me").unwrap();
    for want in ["drop me", "keep me"] {
        assert_eq!(
            game.input.get_var::<String>().unwrap().as_deref(),
            Some(want)
        );
    }
    proxy.wait_for("the kept message's echo", |l| l.contains("#1 <- "));
    for bad in ["#9 -> 1", "=> 1", "-> Vector2(", "#1 ~ 2"] {
        proxy.inject(bad);
    }
    // Lines are taken in order: once this one arrives, the others were dealt with.
    proxy.inject(r#"#1 <- "keep going""#);
    assert_eq!(
        game.input.get_var::<String>().unwrap().as_deref(),
        Some("keep going")
    );
    game.stream.shutdown(Shutdown::Write).unwrap();
    assert_eq!(game.input.get_var::<String>().unwrap(), None);
    drop(game);
    let (out, stderr) = proxy.finish();
    assert_eq!(shown(&out, 1, "->"), [r#""keep me""#], "{}", out.join("\n"));
    assert_eq!(
        shown(&out, 1, "<-"),
        [r#""keep me""#, r#"(injected) "keep going""#]
    );
    assert!(out.iter().any(|l| l.contains("#1 open: ")));
    assert!(out.iter().any(|l| l.contains("#1 closed: ")));
    let records = read_log(&log);
    assert_eq!(
        records.iter().filter(|r| r["event"] == "message").count(),
        3
    );
    for want in ["no open session #9", "an injection is `-> TEXT`", "#1: "] {
        assert!(stderr.contains(want), "{want} in {stderr}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `godot-bin` with `args` to its end (bounded); returns its exit code and output.
fn godot_bin(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_godot-bin"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = collect(child.stdout.take().unwrap());
    let stderr = collect(child.stderr.take().unwrap());
    let status = {
        // Killed if it overruns, whatever the assertion below does.
        struct Kill(Child);
        impl Drop for Kill {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        let mut child = Kill(child);
        wait_bounded(&mut child.0, "godot-bin")
    };
    let out = stdout.join().unwrap() + &stderr.join().unwrap();
    (status.code(), out)
}

/// A session recorded through the proxy replays against a fresh server as logged;
/// against a server where another player came first, the differences are reported.
#[test]
fn replay_reports_matches_and_differences() {
    let cfg = Config::new().dialect(Dialect::Godot4);
    let dir = tempdir();
    let log = dir.join("log.jsonl");
    let proxy = Proxy::start(start_server(cfg), &log, &["--max-sessions", "1"]);
    let mut ann = Game::join(proxy.port, cfg, "Ann");
    ann.expect(ServerMsg::Welcome { id: 1 });
    ann.expect(ServerMsg::PlayerList {
        players: vec![player(1, "Ann")],
    });
    ann.send(ClientMsg::Chat { text: "hi".into() });
    ann.expect(chat(1, "hi"));
    let moved = (Vector3::new(1.0, 2.0, 3.0), Quat::new(0.0, 0.6, 0.0, 0.8));
    ann.send(ClientMsg::Move {
        position: moved.0,
        rotation: moved.1,
    });
    ann.expect(ServerMsg::Moved {
        id: 1,
        position: moved.0,
        rotation: moved.1,
    });
    ann.send(ClientMsg::Leave);
    ann.expect(ServerMsg::Left { id: 1 });
    ann.expect_end();
    drop(ann);
    let _ = proxy.finish();
    let log_arg = log.to_str().unwrap();

    let fresh = format!("127.0.0.1:{}", start_server(cfg));
    let (code, out) = godot_bin(&["replay", log_arg, "--connect", &fresh, "--timeout", "20"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("4 messages to send, 5 replies expected"),
        "{out}"
    );
    assert!(
        out.contains(r#"message 1 -> {"Join": {"name": "Ann"}}: 2 replies, as logged"#),
        "{out}"
    );
    assert!(
        out.contains("5 of 5 replies as logged; no differences"),
        "{out}"
    );

    // Bob is there first: Ann is player 2.
    let busy = start_server(cfg);
    let mut bob = Game::join(busy, cfg, "Bob");
    bob.expect(ServerMsg::Welcome { id: 1 });
    let busy = format!("127.0.0.1:{busy}");
    let (code, out) = godot_bin(&["replay", log_arg, "--connect", &busy, "--timeout", "20"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(r#"message 1: reply 1 differs: expected {"Welcome": {"id": 1}} got {"Welcome": {"id": 2}}"#),
        "{out}"
    );
    assert!(
        out.contains(r#"message 2: reply 1 differs: expected {"Chat": {"from": 1, "text": "hi"}} got {"Chat": {"from": 2, "text": "hi"}}"#),
        "{out}"
    );
    assert!(
        out.contains("0 of 5 replies as logged; 5 differences"),
        "{out}"
    );
    drop(bob);
    let _ = std::fs::remove_dir_all(dir);
}

// The real engines.

/// The engine wrapper `name`, from `$GODOT_BIN` or `./.godot-oracles/bin`; `None`
/// (said on the terminal) skips, unless `GODOT_ORACLES_REQUIRED=1`.
fn engine(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("GODOT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".godot-oracles/bin"));
    let path = dir.join(name);
    if path.is_file() {
        return Some(path);
    }
    assert_ne!(
        std::env::var("GODOT_ORACLES_REQUIRED").as_deref(),
        Ok("1"),
        "engine {name} not found in {} and GODOT_ORACLES_REQUIRED=1",
        dir.display()
    );
    // Past the test harness's capture: a run without engines must not look checked.
    let _ = std::io::stderr().write_all(
        format!(
            "\nENGINE CHECK SKIPPED (cli/tests/proxy.rs): {name} not found in {}. Run \
             `bash scripts/setup-godot.sh` or set GODOT_BIN; GODOT_ORACLES_REQUIRED=1 makes \
             this a failure.\n",
            dir.display()
        )
        .as_bytes(),
    );
    None
}

/// A running engine, killed with its process group when dropped.
struct Running {
    child: Child,
    group: bool,
    stdout: Option<JoinHandle<String>>,
    stderr: Option<JoinHandle<String>>,
}

impl Running {
    /// Runs the example client in `project` under a hard time limit.
    fn start(engine: &Path, godot4: bool, project: &Path, env: &[(&str, &str)]) -> Running {
        // `timeout` puts itself and the engine in a new process group and kills it at
        // the hard limit, whatever happens to this process.
        let group = Command::new("timeout")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let mut cmd = if group {
            let mut c = Command::new("timeout");
            c.args(["-s", "KILL", HARD_LIMIT_SECS]).arg(engine);
            c
        } else {
            Command::new(engine)
        };
        if godot4 {
            cmd.args(["--headless", "--no-header"]);
        }
        let mut child = cmd
            .arg("--path")
            .arg(project)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", engine.display()));
        let stdout = Some(collect(child.stdout.take().unwrap()));
        let stderr = Some(collect(child.stderr.take().unwrap()));
        Running {
            child,
            group,
            stdout,
            stderr,
        }
    }

    /// Waits for the engine to exit and checks that it succeeded.
    fn finish(mut self) {
        let status = wait_bounded(&mut self.child, "the engine");
        let stdout = self.stdout.take().unwrap().join().unwrap_or_default();
        let stderr = self.stderr.take().unwrap().join().unwrap_or_default();
        assert!(
            status.success(),
            "the engine failed ({status}); stdout:\n{stdout}\nstderr:\n{stderr}"
        );
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            if self.group {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", self.child.id())])
                    .status();
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Where the game client moves when someone joins (see client.gd).
const GAME_MOVE: (Vector3, Quat) = (Vector3::new(1.0, 2.5, -3.0), Quat::new(0.0, 0.6, 0.0, 0.8));
const BOT_MOVE: (Vector3, Quat) = (Vector3::new(-4.0, 0.5, 8.0), Quat::new(0.0, 0.0, 0.6, 0.8));

/// A headless Godot game plays a lobby session through the proxy, with a Rust bot
/// connected to the server directly. A chat injected into the game's session reaches
/// the server, and its broadcast reaches the game; the log holds every message both
/// ways, in order.
fn engine_session(name: &str, client: &str, game: &str, dialect: Dialect) {
    let Some(engine) = engine(name) else {
        return;
    };
    let started = Instant::now();
    let cfg = Config::new().dialect(dialect);
    let server = start_server(cfg);
    let dir = tempdir();
    let log = dir.join("log.jsonl");
    let mut proxy = Proxy::start(server, &log, &["--max-sessions", "1"]);

    let project = dir.join("project");
    std::fs::create_dir(&project).unwrap();
    for entry in std::fs::read_dir(repo().join("examples").join(client)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), project.join(entry.file_name())).unwrap();
    }
    let port = proxy.port.to_string();
    let running = Running::start(
        &engine,
        dialect == Dialect::Godot4,
        &project,
        &[("PORT", &port), ("PLAYER_NAME", game)],
    );
    // The game has joined once its first player list passes.
    proxy.wait_for("the game's player list", |l| {
        l.contains("#1 <- ") && l.contains("PlayerList")
    });
    proxy.inject(r#"#1 -> {"Chat": {"text": "via proxy"}}"#);
    let reply = r#"{"Chat": {"from": 1, "text": "via proxy"}}"#;
    proxy.wait_for("the injected chat's broadcast", |l| {
        l.contains("#1 <- ") && l.contains(reply)
    });

    let mut bot = Game::join(server, cfg, "RustBot");
    bot.expect(ServerMsg::Welcome { id: 2 });
    bot.expect(ServerMsg::PlayerList {
        players: vec![player(1, game), player(2, "RustBot")],
    });
    bot.expect(chat(1, "hello RustBot"));
    bot.expect(ServerMsg::Moved {
        id: 1,
        position: GAME_MOVE.0,
        rotation: GAME_MOVE.1,
    });
    bot.send(ClientMsg::Chat {
        text: format!("hello {game}"),
    });
    bot.send(ClientMsg::Move {
        position: BOT_MOVE.0,
        rotation: BOT_MOVE.1,
    });
    bot.send(ClientMsg::Leave);
    bot.expect(chat(2, &format!("hello {game}")));
    bot.expect(ServerMsg::Moved {
        id: 2,
        position: BOT_MOVE.0,
        rotation: BOT_MOVE.1,
    });
    bot.expect(ServerMsg::Left { id: 2 });
    bot.expect_end();
    // The game leaves when the bot has, and quits when the server says it left.
    running.finish();
    let (out, _) = proxy.finish();
    let all = out.join("\n");

    let records = read_log(&log);
    let sent = messages(&records, 1, "->");
    assert_eq!(
        logged_values::<ClientMsg>(&sent, cfg),
        [
            ClientMsg::Join { name: game.into() },
            ClientMsg::Chat {
                text: "via proxy".into()
            },
            ClientMsg::Chat {
                text: "hello RustBot".into()
            },
            ClientMsg::Move {
                position: GAME_MOVE.0,
                rotation: GAME_MOVE.1
            },
            ClientMsg::Leave,
        ],
        "{all}"
    );
    let injected: Vec<bool> = sent.iter().map(|m| m["injected"] == true).collect();
    assert_eq!(injected, [false, true, false, false, false]);
    assert_eq!(sent[1]["text"], r#"{"Chat": {"text": "via proxy"}}"#);
    let got = messages(&records, 1, "<-");
    assert_eq!(
        logged_values::<ServerMsg>(&got, cfg),
        [
            ServerMsg::Welcome { id: 1 },
            ServerMsg::PlayerList {
                players: vec![player(1, game)]
            },
            chat(1, "via proxy"),
            ServerMsg::Joined {
                id: 2,
                name: "RustBot".into()
            },
            ServerMsg::PlayerList {
                players: vec![player(1, game), player(2, "RustBot")]
            },
            chat(1, "hello RustBot"),
            ServerMsg::Moved {
                id: 1,
                position: GAME_MOVE.0,
                rotation: GAME_MOVE.1
            },
            chat(2, &format!("hello {game}")),
            ServerMsg::Moved {
                id: 2,
                position: BOT_MOVE.0,
                rotation: BOT_MOVE.1
            },
            ServerMsg::Left { id: 2 },
            ServerMsg::Left { id: 1 },
        ],
        "{all}"
    );
    assert_eq!(got[2]["text"], reply);
    for m in sent.iter().chain(&got) {
        assert_eq!(m["error"], Value::Null, "{m}");
    }
    // Standard output shows the same messages.
    assert_eq!(shown(&out, 1, "->").len(), 5, "{all}");
    assert_eq!(shown(&out, 1, "<-").len(), 11, "{all}");
    let engine_name = dialect.engine_name();
    assert!(
        out.iter()
            .any(|l| l.ends_with(&format!("#1 dialect: {engine_name} (detected)"))),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("{name} through the proxy: {:?}", started.elapsed());
}

#[test]
fn godot_3_6_through_the_proxy() {
    engine_session("godot3.6", "godot3_client", "Godot3", Dialect::Godot3);
}

#[test]
fn godot_4_through_the_proxy() {
    engine_session("godot4", "godot4_client", "Godot4", Dialect::Godot4);
}

/// `--transport websocket`: a multiplayer server and client of the
/// godot-bin-multiplayer package talk through the proxy (Godot 4, then Godot 3),
/// which relays every message and prints each decoded: the id message, the path
/// cache both ways, calls with the node resolved and methods named by `--rpc`, and
/// (Godot 4) a spawn with its spawner resolved, a sync, a delta and a despawn.
#[test]
fn the_websocket_proxy_decodes_multiplayer_packets() {
    use godot_bin::{Variant, Vector2};
    use godot_bin_multiplayer::ws;
    use godot_bin_multiplayer::{
        Delta, DeltaEntry, Event, Packet, Protocol, Scene, Spawn, SpawnSource, Sync, SyncEntry,
        Target,
    };
    for protocol in [Protocol::Godot4, Protocol::Godot3] {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let scene = || {
            Scene::new()
                .node("Game", ["hello", "welcome"])
                .node("Game/Spawner", Vec::<String>::new())
        };
        let config = ws::Config {
            protocol,
            ..ws::Config::default()
        };
        let mut server = rt
            .block_on(ws::Server::bind_with("127.0.0.1:0", scene(), config))
            .unwrap();
        let dir = tempdir();
        let log = dir.join("ws.jsonl");
        let mut extra = vec![
            "--transport",
            "websocket",
            "--rpc",
            "Game=hello,welcome",
            "--max-sessions",
            "1",
        ];
        if protocol == Protocol::Godot3 {
            extra.push("--godot3");
        }
        let proxy = Proxy::start(server.local_addr().port(), &log, &extra);
        let url = format!("ws://127.0.0.1:{}", proxy.port);
        rt.block_on(async {
            let client = tokio::spawn(async move {
                let mut c = ws::Client::connect_with(&url, scene(), protocol)
                    .await
                    .unwrap();
                c.rpc(Target::Peer(1), "Game", "hello", &(42, "hé"))
                    .await
                    .unwrap();
                // Godot 4: the server replicates a node after its welcome.
                loop {
                    match c.next_event().await.unwrap().unwrap() {
                        Event::Call(call)
                            if call.method == "welcome" && protocol == Protocol::Godot3 =>
                        {
                            break
                        }
                        Event::Replication {
                            packet: Packet::Despawn { .. },
                            ..
                        } => break,
                        _ => {}
                    }
                }
                c.close().await.unwrap();
            });
            let run = async {
                loop {
                    match server.next_event().await.unwrap() {
                        Event::Call(call) if call.method == "hello" => {
                            let to = Target::Peer(call.from);
                            server.rpc(to, "Game", "welcome", &("hi",)).unwrap();
                            if protocol == Protocol::Godot4 {
                                let v = |x, y| Variant::Vector2(Vector2::new(x, y));
                                let spawn = Spawn {
                                    source: SpawnSource::Custom(Variant::Int(7)),
                                    spawner: 0,
                                    net_id: 1,
                                    sync_ids: vec![2],
                                    name: "Crate".into(),
                                    state: vec![v(1.0, 2.0)],
                                };
                                server.spawn(to, "Game/Spawner", spawn).unwrap();
                                let entries = vec![SyncEntry {
                                    net_id: 2,
                                    state: vec![v(3.0, 4.0)],
                                }];
                                let sync = Packet::Sync(Sync { time: 1, entries });
                                server.replicate(to, &sync).unwrap();
                                let entries = vec![DeltaEntry {
                                    net_id: 2,
                                    indexes: 1,
                                    state: vec![Variant::Int(5)],
                                }];
                                server
                                    .replicate(to, &Packet::Delta(Delta { entries }))
                                    .unwrap();
                                server
                                    .replicate(to, &Packet::Despawn { net_id: 1 })
                                    .unwrap();
                            }
                        }
                        Event::PeerDisconnected(_) => break,
                        _ => {}
                    }
                }
            };
            tokio::time::timeout(Duration::from_secs(10), run)
                .await
                .unwrap();
            client.await.unwrap();
        });
        let (seen, _) = proxy.finish();
        let out = seen.join("\n");
        let want: &[&str] = match protocol {
            Protocol::Godot4 => &[
                "<- id ",
                "-> simplify path Game as 1 (checksum ",
                ", rpc names match)",
                "-> call Game.hello(42, \"hé\")",
                "<- confirm path 1 (checksum valid)",
                "<- call Game.welcome(\"hi\")",
                "-> confirm path 1 (checksum valid)",
                "<- simplify path Game/Spawner as 2 (checksum d41d8cd98f00b204e9800998ecf8427e)",
                "<- spawn Crate by Game/Spawner from spawn function(7), net id 1, synchronizers [2]: Vector2(1, 2)",
                "-> confirm path 2 (checksum valid)",
                "<- sync at 1: net id 2 = [Vector2(3, 4)]",
                "<- delta: net id 2 (properties 0b1) = [5]",
                "<- despawn net id 1",
            ],
            _ => &[
                "<- id ",
                "<- peer 1 joined",
                "-> [",
                " to 1] simplify path Game as 1",
                " to 1] call Game.hello(42, \"hé\")",
                "<- [1 to ",
                "] confirm path Game",
                "] call Game.welcome(\"hi\")",
            ],
        };
        for w in want {
            assert!(out.contains(w), "{protocol:?}: no {w:?} in\n{out}");
        }
        let lines: Vec<Value> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines.len() >= 6, "{lines:?}");
        assert!(
            lines
                .iter()
                .all(|l| l["event"] == "rpc" && l["error"].is_null()),
            "{lines:?}"
        );
    }
}

/// `--transport websocket` with WebSocket sub-protocols (Godot's
/// `supported_protocols`): the proxy offers the server what the game offers, and
/// answers the game with the server's choice, so a game that asks for one gets
/// through as it would directly; one the server turns away is turned away.
#[test]
fn the_websocket_proxy_passes_sub_protocols_through() {
    use godot_bin_multiplayer::ws;
    use godot_bin_multiplayer::{Event, Scene, Target};
    let rt = tokio::runtime::Runtime::new().unwrap();
    let scene = || Scene::new().node("Game", ["hello"]);
    let config = ws::Config {
        subprotocols: &["game-v1"],
        ..ws::Config::default()
    };
    let mut server = rt
        .block_on(ws::Server::bind_with("127.0.0.1:0", scene(), config))
        .unwrap();
    let dir = tempdir();
    let log = dir.join("ws.jsonl");
    let extra = ["--transport", "websocket", "--max-sessions", "2"];
    let proxy = Proxy::start(server.local_addr().port(), &log, &extra);
    let url = format!("ws://127.0.0.1:{}", proxy.port);
    let offering = |subprotocols| ws::Config {
        subprotocols,
        ..ws::Config::default()
    };
    rt.block_on(async {
        // Offered nothing the server speaks: the server turns the proxy away, and the
        // proxy the game.
        let refused = ws::Client::connect_config(&url, scene(), offering(&["game-v2"])).await;
        assert!(refused.is_err(), "{refused:?}");
        let mut c = ws::Client::connect_config(&url, scene(), offering(&["game-v2", "game-v1"]))
            .await
            .unwrap();
        c.rpc(Target::Peer(1), "Game", "hello", &(7,))
            .await
            .unwrap();
        let run = async {
            loop {
                if let Event::Call(call) = server.next_event().await.unwrap() {
                    assert_eq!(call.args::<(i64,)>().unwrap(), (7,));
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), run)
            .await
            .unwrap();
        c.close().await.unwrap();
    });
    let (seen, _) = proxy.finish();
    let out = seen.join("\n");
    assert!(
        out.contains("#1 ended: cannot reach 127.0.0.1:")
            && out.contains(": HTTP error: 400 Bad Request"),
        "{out}"
    );
    assert!(out.contains("#2 -> call Game.#0(7)"), "{out}");
}

/// `--transport enet`: the same, over ENet (the proxy ends the game's ENet
/// connection and opens one to the server with the game's id).
#[test]
fn the_enet_proxy_decodes_multiplayer_packets() {
    use godot_bin_multiplayer::enet;
    use godot_bin_multiplayer::{Event, Protocol, Scene, Target};
    for protocol in [Protocol::Godot4, Protocol::Godot3] {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let scene = || Scene::new().node("Game", ["hello", "welcome"]);
        let config = enet::Config {
            protocol,
            ..enet::Config::default()
        };
        let mut server = rt
            .block_on(enet::Server::bind_with("127.0.0.1:0", scene(), config))
            .unwrap();
        let dir = tempdir();
        let log = dir.join("enet.jsonl");
        let free = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = free.local_addr().unwrap().port();
        drop(free);
        let listen = format!("127.0.0.1:{port}");
        let mut extra = vec![
            "--transport",
            "enet",
            "--rpc",
            "Game=hello,welcome",
            "--max-sessions",
            "1",
        ];
        if protocol == Protocol::Godot3 {
            extra.push("--godot3");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_godot-bin"))
            .args(["proxy", "--listen", &listen, "--connect"])
            .arg(server.local_addr().to_string())
            .arg("--log")
            .arg(&log)
            .args(&extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stdout.take().unwrap());
        let first = lines.recv_timeout(DEADLINE).unwrap();
        assert!(first.contains("listening on"), "{first}");
        rt.block_on(async {
            let client = tokio::spawn(async move {
                let addr = ([127, 0, 0, 1], port).into();
                let mut c = enet::Client::connect(addr, 777, scene(), config)
                    .await
                    .unwrap();
                c.rpc(Target::Peer(1), "Game", "hello", &(42, "hé"))
                    .await
                    .unwrap();
                loop {
                    match c.next_event().await.unwrap().unwrap() {
                        Event::Call(call) if call.method == "welcome" => break,
                        _ => {}
                    }
                }
                c.close().await.unwrap();
            });
            let run = async {
                loop {
                    match server.next_event().await.unwrap() {
                        Event::Call(call) if call.method == "hello" => {
                            assert_eq!(call.from, 777);
                            server
                                .rpc(Target::Peer(call.from), "Game", "welcome", &("hi",))
                                .unwrap();
                        }
                        Event::PeerDisconnected(_) => break,
                        _ => {}
                    }
                }
            };
            tokio::time::timeout(Duration::from_secs(15), run)
                .await
                .unwrap();
            client.await.unwrap();
        });
        let status = wait_bounded(&mut child, "the proxy");
        let mut seen = vec![first];
        while let Ok(line) = lines.recv_timeout(Duration::from_millis(500)) {
            seen.push(line);
        }
        assert!(status.success(), "{seen:?}");
        let out = seen.join("\n");
        let want: &[&str] = match protocol {
            Protocol::Godot4 => &[
                "#1 open (peer id 777)",
                "-> ch0 simplify path Game as 1 (checksum ",
                "-> ch0 call Game.hello(42, \"hé\")",
                "<- ch0 confirm path 1 (checksum valid)",
                "<- ch0 call Game.welcome(\"hi\")",
            ],
            _ => &[
                "#1 open (peer id 777)",
                "-> ch1 [777 to 1] simplify path Game as 1",
                "-> ch1 [777 to 1] call Game.hello(42, \"hé\")",
                "<- ch1 [1 to 777] confirm path Game",
                "<- ch1 [1 to 777] call Game.welcome(\"hi\")",
            ],
        };
        for w in want {
            assert!(out.contains(w), "{protocol:?}: no {w:?} in\n{out}");
        }
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(logged.lines().count() >= 5, "{logged}");
    }
}

/// A real Godot 4.6 ENet server (`multiplayer/tests/oracle/server4.gd`, which runs
/// each call and sends it back) behind `--transport enet`, with a crate client in
/// front: the proxy decodes the engine's own packets, its SIMPLIFY_PATH checksum
/// included.
#[test]
fn the_enet_proxy_decodes_a_godot4_servers_packets() {
    use godot_bin_multiplayer::enet;
    use godot_bin_multiplayer::{Event, Scene, Target};
    let Some(godot4) = engine("godot4") else {
        return;
    };
    let udp_port = || {
        let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    };
    let (server_port, proxy_port) = (udp_port(), udp_port());
    let dir = tempdir();
    std::fs::write(dir.join("project.godot"), "config_version=5\n").unwrap();
    std::fs::copy(
        repo().join("multiplayer/tests/oracle/server4.gd"),
        dir.join("s.gd"),
    )
    .unwrap();
    let mut cmd = Command::new("timeout");
    cmd.args(["-s", "KILL", HARD_LIMIT_SECS])
        .arg(&godot4)
        .args(["--headless", "--no-header", "--path"])
        .arg(&dir)
        .args(["-s", "s.gd"])
        .env("PORT", server_port.to_string())
        .env("TRANSPORT", "enet")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let godot = Running {
        stdout: Some(collect(child.stdout.take().unwrap())),
        stderr: Some(collect(child.stderr.take().unwrap())),
        child,
        group: true,
    };
    let names = "Game=ping,blob,one,two,three,greet,shout,done";
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_godot-bin"))
        .args([
            "proxy",
            "--transport",
            "enet",
            "--rpc",
            names,
            "--max-sessions",
            "1",
        ])
        .arg("--listen")
        .arg(format!("127.0.0.1:{proxy_port}"))
        .arg("--connect")
        .arg(format!("127.0.0.1:{server_port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = lines_of(proxy.stdout.take().unwrap());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let scene = Scene::new().node("Game", names[5..].split(','));
        let addr = ([127, 0, 0, 1], proxy_port).into();
        let mut c = enet::Client::connect(addr, 555, scene, enet::Config::default())
            .await
            .unwrap();
        c.rpc(Target::Peer(1), "Game", "one", &(42,)).await.unwrap();
        c.rpc(
            Target::Peer(1),
            "Game",
            "three",
            &(70000, "hé", godot_bin::Vector3::new(1.0, 2.0, 3.0)),
        )
        .await
        .unwrap();
        let mut back = 0;
        let run = async {
            while back < 2 {
                if let Event::Call(_) = c.next_event().await.unwrap().unwrap() {
                    back += 1;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), run)
            .await
            .unwrap();
        c.close().await.unwrap();
    });
    assert!(wait_bounded(&mut proxy, "the proxy").success());
    godot.finish();
    let mut seen = Vec::new();
    while let Ok(line) = lines.recv_timeout(Duration::from_millis(500)) {
        seen.push(line);
    }
    let out = seen.join("\n");
    for w in [
        "#1 open (peer id 555)",
        "-> ch0 call Game.one(42)",
        "<- ch0 simplify path Game as 1 (checksum ",
        "rpc names match)",
        "<- ch0 call Game.one(42)",
        "<- ch0 call Game.three(70000, \"hé\", Vector3(1, 2, 3))",
    ] {
        assert!(out.contains(w), "no {w:?} in\n{out}");
    }
}
