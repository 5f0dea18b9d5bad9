//! The real engines against this crate, over sockets and files:
//!
//! - a headless Godot 3.2, 3.6 and 4.6 game (`examples/godot*_client`) plays a lobby
//!   session against `examples/multiplayer_server.rs` on 127.0.0.1 together with a Rust
//!   bot, and two games of one engine play one together (the server header's session):
//!   every message each game prints that it sent and received (`SEND` / `RECV` lines,
//!   the engine's own text form) is checked in order against this crate's text of the
//!   expected message, and so is the server's log of each connection (what it
//!   received and what it sent, each in order);
//! - a game client with no server to reach, or a server for the other engine, exits
//!   with code 1 and one line on stderr, in bounded time;
//! - the tokio codec serves the same game clients;
//! - the engine writes a `store_var` save file that Rust reads, edits and appends to,
//!   and the engine reads back;
//! - `StreamPeer.put_var`, `PacketPeerStream` and `Marshalls` Base64 bytes equal ours,
//!   both ways, and `PacketPeerStream`'s limits are those `framing` assumes.
//!
//! Engines come from `$GODOT_BIN` or `./.godot-oracles/bin` (`scripts/setup-godot.sh`).
//! Without them each test prints that it was skipped and passes, unless
//! `GODOT_ORACLES_REQUIRED=1`. Every engine runs under a hard time limit and is killed
//! on every path out of a test.

mod common;
#[allow(dead_code)]
#[path = "../examples/multiplayer_server.rs"]
mod server;

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use common::{hex, root, tempdir, unhex};
use godot_bin::framing::{self, Framing, VarReader, VarWriter};
use godot_bin::{text, Config, Dialect, Quat, Transform, Variant, Vector3};
use serde::{Deserialize, Serialize};
use server::{ClientMsg, PlayerInfo, ServerMsg};

/// How long any one wait on an engine or socket may take.
const DEADLINE: Duration = Duration::from_secs(60);
/// The engine is killed after this, even if this test process dies first.
const HARD_LIMIT_SECS: &str = "120";
/// How long a game client may take to give up on a server that is not there or does
/// not answer: its `CONNECT_TIMEOUT` or `ANSWER_TIMEOUT` (5 s), and time to start and
/// stop the engine.
const GIVE_UP_LIMIT: Duration = Duration::from_secs(15);

struct Engine {
    path: PathBuf,
    dialect: Dialect,
    /// Godot 3.2.3, whose text form differs a little from 3.6's.
    godot32: bool,
}

impl Engine {
    fn find(name: &str) -> Option<Engine> {
        let path = common::engine(name)?;
        let dialect = if name.starts_with("godot4") {
            Dialect::Godot4
        } else {
            Dialect::Godot3
        };
        Some(Engine {
            path,
            dialect,
            godot32: name == "godot3.2",
        })
    }

    fn godot4(&self) -> bool {
        self.dialect == Dialect::Godot4
    }

    fn cfg(&self) -> Config {
        Config::new().dialect(self.dialect)
    }

    /// `value` in this engine's text form (`var2str` / `var_to_str`), as the crate
    /// writes it.
    fn text<T: Serialize + ?Sized>(&self, value: &T) -> String {
        if self.godot32 {
            let v = self.cfg().to_variant(value).unwrap();
            v.display(self.dialect).godot_3_2().to_string()
        } else {
            text::to_string(value, self.dialect).unwrap()
        }
    }

    /// A throw-away copy of `examples/<dir>` for the engine to run.
    fn example_project(&self, dir: &str) -> PathBuf {
        let to = tempdir();
        for entry in std::fs::read_dir(root().join("examples").join(dir)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
        to
    }

    /// A throw-away project holding `tests/live_godot/<script>`.
    fn script_project(&self, script: &str) -> PathBuf {
        let dir = tempdir();
        let config = if self.godot4() {
            "config_version=5\n"
        } else {
            "config_version=4\n[logging]\nfile_logging/enable_file_logging=false\nfile_logging/enable_file_logging.pc=false\n"
        };
        std::fs::write(dir.join("project.godot"), config).unwrap();
        std::fs::copy(
            root().join("tests/live_godot").join(script),
            dir.join(script),
        )
        .unwrap();
        dir
    }

    /// Starts the engine on `project` (its main scene, or `script`).
    fn start(&self, project: &Path, script: Option<&str>, env: &[(&str, &str)]) -> Running {
        // `timeout` puts itself and the engine in a new process group and kills it at
        // the hard limit, whatever happens to this process.
        let has_timeout = Command::new("timeout")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let mut cmd = if has_timeout {
            let mut c = Command::new("timeout");
            c.args(["-s", "KILL", HARD_LIMIT_SECS]).arg(&self.path);
            c
        } else {
            Command::new(&self.path)
        };
        if self.godot4() {
            cmd.args(["--headless", "--no-header"]);
        }
        cmd.arg("--path").arg(project);
        if let Some(script) = script {
            cmd.args(["-s", script]);
        }
        let mut child = cmd
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.path.display()));
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Running {
            child,
            group: has_timeout,
            lines,
            seen: Vec::new(),
            stderr: Some(stderr),
        }
    }

    /// Runs `tests/live_godot/<script>` to its end; returns its stdout lines.
    fn run_script(&self, script: &str, env: &[(&str, &str)]) -> Vec<String> {
        let project = self.script_project(script);
        let out = self.start(&project, Some(script), env).finish();
        let _ = std::fs::remove_dir_all(project);
        out
    }
}

/// A running engine. Dropping it kills it (and its process group), so a failing
/// assertion never leaves an engine behind.
struct Running {
    child: Child,
    group: bool,
    lines: Receiver<String>,
    seen: Vec<String>,
    stderr: Option<JoinHandle<String>>,
}

impl Running {
    /// Waits for a stdout line starting with `prefix`.
    fn wait_for(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.starts_with(prefix) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "no line {prefix:?} from the engine ({e}); its output:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Waits up to `limit` for the engine to exit (it is killed after that).
    fn wait_exit(mut self, limit: Duration) -> Exit {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the engine still runs after {limit:?}; its output:\n{}",
                self.seen.join("\n")
            );
            thread::sleep(Duration::from_millis(10));
        };
        // The stdout thread ends at the pipe's end.
        while let Ok(line) = self.lines.recv_timeout(DEADLINE) {
            self.seen.push(line);
        }
        let stderr = self.stderr.take().unwrap().join().unwrap_or_default();
        Exit {
            status,
            stdout: std::mem::take(&mut self.seen),
            stderr,
        }
    }

    /// Waits for the engine to exit, checks that it succeeded and returns its stdout.
    fn finish(self) -> Vec<String> {
        let exit = self.wait_exit(DEADLINE);
        assert!(exit.status.success(), "the engine failed: {exit}");
        exit.stdout
    }

    /// `finish`, and the engine wrote nothing to stderr.
    fn finish_quietly(self) -> Vec<String> {
        let exit = self.wait_exit(DEADLINE);
        assert!(
            exit.status.success() && exit.stderr.is_empty(),
            "the engine failed or complained: {exit}"
        );
        exit.stdout
    }
}

/// How an engine ended.
struct Exit {
    status: ExitStatus,
    stdout: Vec<String>,
    stderr: String,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stdout = self.stdout.join("\n");
        let status = self.status;
        write!(f, "{status}; stdout:\n{stdout}\nstderr:\n{}", self.stderr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            if self.group {
                // `timeout` leads its own process group: the engine is in it.
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", self.child.id())])
                    .status();
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Starts the example server on a free loopback port; it runs until the tests end.
fn start_server(cfg: Config) -> (u16, ServerLog) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, lines) = mpsc::channel();
    let log: server::Log = Arc::new(move |line: &str| {
        let _ = tx.send(line.to_owned());
    });
    thread::spawn(move || server::serve(listener, cfg, log));
    let log = ServerLog {
        lines,
        seen: Vec::new(),
    };
    (port, log)
}

/// The example server's log, as it writes it.
struct ServerLog {
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl ServerLog {
    /// The message lines of the connection whose first message was `first` (a
    /// `Join`), once the server has closed it, from the client's side: `->` lines as
    /// `SEND`, `<-` lines as `RECV`, their text unescaped.
    fn connection(&mut self, first: &str) -> Vec<(&'static str, String)> {
        let deadline = Instant::now() + DEADLINE;
        loop {
            // Each connection's lines, by its "[client <address>]".
            let mut by_peer: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for line in &self.seen {
                let (peer, rest) = line.split_once("] ").expect("[client <address>] ...");
                by_peer.entry(peer).or_default().push(rest);
            }
            let first = format!("-> {}", server::one_line(first));
            let found = by_peer
                .values()
                .find(|lines| lines.iter().find(|l| l.starts_with("-> ")) == Some(&&first[..]));
            if let Some(lines) = found.filter(|lines| lines.last() == Some(&"closed")) {
                assert_eq!(lines[0], "connected", "{}", self.seen.join("\n"));
                return lines[1..lines.len() - 1]
                    .iter()
                    .map(|l| match l.split_at(3) {
                        ("-> ", text) => ("SEND", unescape(text)),
                        ("<- ", text) => ("RECV", unescape(text)),
                        _ => panic!("not a message line: {l:?}"),
                    })
                    .collect();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(e) => panic!(
                    "no closed connection that began with {first:?} ({e}); the server's log:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

/// Undoes `one_line` (`\\`, `\n`, `\r`), the escapes of the clients' `SEND` / `RECV`
/// lines and of the server's log; any other escape is an error.
fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            other => panic!("unknown escape \\{other:?} in {line:?}"),
        }
    }
    out
}

/// A Rust player in the same lobby as the engine.
struct Bot {
    input: VarReader<BufReader<TcpStream>>,
    output: VarWriter<TcpStream>,
}

impl Bot {
    fn join(port: u16, cfg: Config, name: &str) -> Bot {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        stream.set_write_timeout(Some(DEADLINE)).unwrap();
        let output =
            VarWriter::new(stream.try_clone().unwrap(), Framing::PacketPeerStream).with_config(cfg);
        let input =
            VarReader::new(BufReader::new(stream), Framing::PacketPeerStream).with_config(cfg);
        let mut bot = Bot { input, output };
        bot.send(ClientMsg::Join { name: name.into() });
        bot
    }

    fn send(&mut self, msg: ClientMsg) {
        self.output.put_var(&msg).unwrap();
    }

    fn expect(&mut self, want: ServerMsg) {
        let got = self.input.get_var::<ServerMsg>().unwrap();
        assert_eq!(got, Some(want));
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

/// Where a game client moves to when it greets or answers (see client.gd).
const GAME_MOVE: (Vector3, Quat) = (Vector3::new(1.0, 2.5, -3.0), Quat::new(0.0, 0.6, 0.0, 0.8));
/// Where the bot moves to.
const BOT_MOVE: (Vector3, Quat) = (Vector3::new(-4.0, 0.5, 8.0), Quat::new(0.0, 0.0, 0.6, 0.8));
/// The bot's name: a quote, a backslash, a carriage return and a newline go through
/// every text form (the engine's `var2str`, the lines' escapes, the server's log).
const BOT_NAME: &str = "Rust \"Bot\" \\ 1\r\n2";

/// One message of a client's session, in the order the client prints it.
#[derive(Debug, Clone)]
enum Line {
    Sent(ClientMsg),
    Received(ServerMsg),
}

/// Everything the first player (`game`, id 1) receives in a session where `other` (id
/// 2) joins second, is greeted, answers, moves to `other_move` and leaves.
fn game_view(game: &str, other: &str, other_move: (Vector3, Quat)) -> Vec<ServerMsg> {
    vec![
        ServerMsg::Welcome { id: 1 },
        ServerMsg::PlayerList {
            players: vec![player(1, game)],
        },
        ServerMsg::Joined {
            id: 2,
            name: other.into(),
        },
        ServerMsg::PlayerList {
            players: vec![player(1, game), player(2, other)],
        },
        ServerMsg::Chat {
            from: 1,
            text: format!("hello {other}"),
        },
        ServerMsg::Moved {
            id: 1,
            position: GAME_MOVE.0,
            rotation: GAME_MOVE.1,
        },
        ServerMsg::Chat {
            from: 2,
            text: format!("hello {game}"),
        },
        ServerMsg::Moved {
            id: 2,
            position: other_move.0,
            rotation: other_move.1,
        },
        ServerMsg::Left { id: 2 },
        ServerMsg::Left { id: 1 },
    ]
}

/// The first player's whole session (see `game_view`): it joins; on `Joined` it greets
/// and moves; when the other has left it leaves.
fn first_player(game: &str, other: &str, other_move: (Vector3, Quat)) -> Vec<Line> {
    let view = game_view(game, other, other_move);
    let got = |range: std::ops::Range<usize>| view[range].iter().cloned().map(Line::Received);
    let mut lines = vec![Line::Sent(ClientMsg::Join { name: game.into() })];
    lines.extend(got(0..3));
    lines.push(Line::Sent(ClientMsg::Chat {
        text: format!("hello {other}"),
    }));
    lines.push(Line::Sent(ClientMsg::Move {
        position: GAME_MOVE.0,
        rotation: GAME_MOVE.1,
    }));
    lines.extend(got(3..9));
    lines.push(Line::Sent(ClientMsg::Leave));
    lines.extend(got(9..10));
    lines
}

/// The second player's whole session (`me`, id 2, after `first`, id 1): once the first
/// has greeted it and moved, it answers, moves to `my_move` and leaves (as the bot does).
fn second_player(first: &str, me: &str, my_move: (Vector3, Quat)) -> Vec<Line> {
    use Line::{Received, Sent};
    vec![
        Sent(ClientMsg::Join { name: me.into() }),
        Received(ServerMsg::Welcome { id: 2 }),
        Received(ServerMsg::PlayerList {
            players: vec![player(1, first), player(2, me)],
        }),
        Received(ServerMsg::Chat {
            from: 1,
            text: format!("hello {me}"),
        }),
        Received(ServerMsg::Moved {
            id: 1,
            position: GAME_MOVE.0,
            rotation: GAME_MOVE.1,
        }),
        Sent(ClientMsg::Chat {
            text: format!("hello {first}"),
        }),
        Sent(ClientMsg::Move {
            position: my_move.0,
            rotation: my_move.1,
        }),
        Sent(ClientMsg::Leave),
        Received(ServerMsg::Chat {
            from: 2,
            text: format!("hello {first}"),
        }),
        Received(ServerMsg::Moved {
            id: 2,
            position: my_move.0,
            rotation: my_move.1,
        }),
        Received(ServerMsg::Left { id: 2 }),
    ]
}

/// A client's `SEND` / `RECV` lines for `lines`: the engine's text form, as this crate
/// writes it.
fn client_lines(engine: &Engine, lines: &[Line]) -> Vec<(&'static str, String)> {
    lines
        .iter()
        .map(|line| match line {
            Line::Sent(msg) => ("SEND", engine.text(msg)),
            Line::Received(msg) => ("RECV", engine.text(msg)),
        })
        .collect()
}

/// The server's log of a connection for `lines`: the server's dialect's text form.
fn server_lines(dialect: Dialect, lines: &[Line]) -> Vec<(&'static str, String)> {
    lines
        .iter()
        .map(|line| match line {
            Line::Sent(msg) => ("SEND", text::to_string(msg, dialect).unwrap()),
            Line::Received(msg) => ("RECV", text::to_string(msg, dialect).unwrap()),
        })
        .collect()
}

/// The `SEND <text>` / `RECV <text>` lines of a client's stdout, text unescaped.
fn printed(out: &[String]) -> Vec<(&'static str, String)> {
    out.iter()
        .filter_map(|line| match line.split_once(' ') {
            Some(("SEND", text)) => Some(("SEND", unescape(text))),
            Some(("RECV", text)) => Some(("RECV", unescape(text))),
            _ => None,
        })
        .collect()
}

/// Fails at the first line (direction and text) where `got` differs from `want`.
fn same_lines(got: &[(&str, String)], want: &[(&str, String)], context: &str) {
    let differs = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i));
    if let Some(i) = differs {
        panic!(
            "line {i} of {} is {:?}, expected {:?} ({} lines expected)\n{context}",
            got.len(),
            got.get(i),
            want.get(i),
            want.len()
        );
    }
}

/// Checks a game client's output: every message it sent and received, in order, in the
/// engine's text form, is exactly this crate's text of the message in `want`; and the
/// client saw itself leave (`DONE`).
fn check_client(engine: &Engine, out: &[String], want: &[Line]) {
    let context = format!("client output:\n{}", out.join("\n"));
    same_lines(&printed(out), &client_lines(engine, want), &context);
    assert!(out.iter().any(|l| l == "DONE"), "{}", out.join("\n"));
}

/// Checks the server's log of the connection that sent `want[0]`: every message it
/// received and every message it sent, each direction in order (a reader and a writer
/// thread log them), in the server's text form.
fn check_server_log(log: &mut ServerLog, dialect: Dialect, want: &[Line]) {
    let want = server_lines(dialect, want);
    let got = log.connection(&want[0].1);
    let context = format!("the server's log:\n{}", log.seen.join("\n"));
    for dir in ["SEND", "RECV"] {
        let of = |lines: &[(&'static str, String)]| -> Vec<(&'static str, String)> {
            lines.iter().filter(|(d, _)| *d == dir).cloned().collect()
        };
        same_lines(&of(&got), &of(&want), &context);
    }
}

/// A lobby session: the game joins, then the bot; the game greets the bot and moves,
/// the bot answers, moves and leaves, and the game leaves last. Every message of
/// `ClientMsg` goes from the engine to the server (and is seen by the bot as the
/// server relays it), and every message of `ServerMsg` reaches the engine; the game
/// prints each one and the server logs each one, and all are checked.
fn session(name: &str, client: &str, game: &str) {
    let Some(engine) = Engine::find(name) else {
        return;
    };
    let started = Instant::now();
    let cfg = engine.cfg();
    let (port, mut log) = start_server(cfg);
    let project = engine.example_project(client);
    let port_text = port.to_string();
    let mut running = engine.start(
        &project,
        None,
        &[("PORT", &port_text), ("PLAYER_NAME", game)],
    );
    // The game has joined once it prints the first player list.
    running.wait_for("players: ");

    let mut bot = Bot::join(port, cfg, BOT_NAME);
    bot.expect(ServerMsg::Welcome { id: 2 });
    bot.expect(ServerMsg::PlayerList {
        players: vec![player(1, game), player(2, BOT_NAME)],
    });
    // The game's Chat and Move, as the server decoded and relayed them.
    bot.expect(ServerMsg::Chat {
        from: 1,
        text: format!("hello {BOT_NAME}"),
    });
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
    bot.expect(ServerMsg::Chat {
        from: 2,
        text: format!("hello {game}"),
    });
    bot.expect(ServerMsg::Moved {
        id: 2,
        position: BOT_MOVE.0,
        rotation: BOT_MOVE.1,
    });
    bot.expect(ServerMsg::Left { id: 2 });
    assert_eq!(bot.input.get_var::<ServerMsg>().unwrap(), None, "closed");

    // The game leaves when the bot has left (its Leave is the last ClientMsg variant).
    let out = running.finish_quietly();
    let game_lines = first_player(game, BOT_NAME, BOT_MOVE);
    check_client(&engine, &out, &game_lines);
    check_server_log(&mut log, engine.dialect, &game_lines);
    // The bot plays the second player's part.
    check_server_log(
        &mut log,
        engine.dialect,
        &second_player(game, BOT_NAME, BOT_MOVE),
    );
    let _ = std::fs::remove_dir_all(project);
    eprintln!("{name} session: {:?}", started.elapsed());
}

#[test]
fn godot_3_2_client_session() {
    session("godot3.2", "godot3_client", "Godot3");
}

#[test]
fn godot_3_6_client_session() {
    session("godot3.6", "godot3_client", "Godot3");
}

#[test]
fn godot_4_client_session() {
    session("godot4", "godot4_client", "Godot4");
}

/// Two game clients of one engine in the example server's lobby, as in the server's
/// header: Ann is in first and greets Bob, who answers, moves and leaves; then Ann
/// leaves. Both clients' lines and the server's log of both are checked.
fn two_players(name: &str, client: &str) {
    let Some(engine) = Engine::find(name) else {
        return;
    };
    let started = Instant::now();
    let (port, mut log) = start_server(engine.cfg());
    let port = port.to_string();
    let projects = [
        engine.example_project(client),
        engine.example_project(client),
    ];
    let mut ann = engine.start(
        &projects[0],
        None,
        &[("PORT", &port), ("PLAYER_NAME", "Ann")],
    );
    ann.wait_for("players: ");
    let bob = engine.start(
        &projects[1],
        None,
        &[("PORT", &port), ("PLAYER_NAME", "Bob")],
    );
    let bob_out = bob.finish_quietly();
    let ann_out = ann.finish_quietly();
    let ann_lines = first_player("Ann", "Bob", GAME_MOVE);
    let bob_lines = second_player("Ann", "Bob", GAME_MOVE);
    check_client(&engine, &ann_out, &ann_lines);
    check_client(&engine, &bob_out, &bob_lines);
    check_server_log(&mut log, engine.dialect, &ann_lines);
    check_server_log(&mut log, engine.dialect, &bob_lines);
    for project in projects {
        let _ = std::fs::remove_dir_all(project);
    }
    eprintln!("{name} two players: {:?}", started.elapsed());
}

#[test]
fn godot_3_2_two_players() {
    two_players("godot3.2", "godot3_client");
}

#[test]
fn godot_3_6_two_players() {
    two_players("godot3.6", "godot3_client");
}

#[test]
fn godot_4_two_players() {
    two_players("godot4", "godot4_client");
}

/// With nothing listening on its port, a game client says so in one line on stderr
/// and exits with code 1, well within its connect timeout.
fn unreachable_server(name: &str, client: &str) {
    let Some(engine) = Engine::find(name) else {
        return;
    };
    // A port that was free a moment ago: nothing listens there once this is dropped.
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let project = engine.example_project(client);
    let started = Instant::now();
    let running = engine.start(&project, None, &[("PORT", &port.to_string())]);
    let exit = running.wait_exit(GIVE_UP_LIMIT);
    let took = started.elapsed();
    assert_eq!(exit.status.code(), Some(1), "{exit}");
    let message = format!("cannot reach the server at 127.0.0.1:{port}");
    assert_eq!(exit.stderr.lines().collect::<Vec<_>>(), [message], "{exit}");
    assert_eq!(printed(&exit.stdout), [], "{exit}");
    assert!(took < GIVE_UP_LIMIT, "{took:?}");
    let _ = std::fs::remove_dir_all(project);
    eprintln!("{name} unreachable server: {took:?}");
}

#[test]
fn godot_3_2_unreachable_server() {
    unreachable_server("godot3.2", "godot3_client");
}

#[test]
fn godot_3_6_unreachable_server() {
    unreachable_server("godot3.6", "godot3_client");
}

#[test]
fn godot_4_unreachable_server() {
    unreachable_server("godot4", "godot4_client");
}

/// Against a server for the other engine, which ignores every message it cannot read,
/// a game client gets no `Welcome`: it says so in one line on stderr and exits with
/// code 1 after its answer timeout.
fn wrong_dialect(name: &str, client: &str, game: &str) {
    let Some(engine) = Engine::find(name) else {
        return;
    };
    let (other, dialect) = if engine.godot4() {
        (Dialect::Godot3, "godot4")
    } else {
        (Dialect::Godot4, "godot3")
    };
    let (port, _log) = start_server(Config::new().dialect(other));
    let project = engine.example_project(client);
    let started = Instant::now();
    let env = [("PORT", &port.to_string()[..]), ("PLAYER_NAME", game)];
    let exit = engine.start(&project, None, &env).wait_exit(GIVE_UP_LIMIT);
    let took = started.elapsed();
    assert_eq!(exit.status.code(), Some(1), "{exit}");
    let message = format!(
        "no answer from the server at 127.0.0.1:{port} (is it started with the dialect {dialect}?)"
    );
    assert_eq!(exit.stderr.lines().collect::<Vec<_>>(), [message], "{exit}");
    let join = ClientMsg::Join { name: game.into() };
    assert_eq!(
        printed(&exit.stdout),
        [("SEND", engine.text(&join))],
        "{exit}"
    );
    assert!(took < GIVE_UP_LIMIT, "{took:?}");
    let _ = std::fs::remove_dir_all(project);
    eprintln!("{name} wrong dialect: {took:?}");
}

#[test]
fn godot_3_2_wrong_dialect() {
    wrong_dialect("godot3.2", "godot3_client", "Godot3");
}

#[test]
fn godot_3_6_wrong_dialect() {
    wrong_dialect("godot3.6", "godot3_client", "Godot3");
}

#[test]
fn godot_4_wrong_dialect() {
    wrong_dialect("godot4", "godot4_client", "Godot4");
}

/// The tokio codec plays the server for a game client: one `Framed` socket reads
/// `ClientMsg` and sends `ServerMsg`, with a bot's part scripted in.
#[cfg(feature = "tokio")]
fn tokio_session(name: &str, client: &str, game: &str) {
    use futures::{SinkExt, StreamExt};
    use godot_bin::codec::VarCodec;
    use tokio_util::codec::Framed;

    let Some(engine) = Engine::find(name) else {
        return;
    };
    let started = Instant::now();
    let cfg = engine.cfg();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let project = engine.example_project(client);
    let running = engine.start(&project, None, &[("PORT", &port), ("PLAYER_NAME", game)]);
    let view = game_view(game, "Tokio", BOT_MOVE);
    let got = rt.block_on(async {
        let (socket, _) = tokio::time::timeout(DEADLINE, listener.accept())
            .await
            .expect("the game connects")
            .unwrap();
        let codec = VarCodec::<ClientMsg>::new(Framing::PacketPeerStream).with_config(cfg);
        let mut framed = Framed::new(socket, codec);
        let mut got = Vec::new();
        async fn next(
            framed: &mut Framed<tokio::net::TcpStream, VarCodec<ClientMsg>>,
        ) -> ClientMsg {
            let msg = tokio::time::timeout(DEADLINE, framed.next()).await;
            msg.expect("a message in time").expect("open").unwrap()
        }
        // Join, then the bot's arrival (the server's part of view[..4]).
        got.push(next(&mut framed).await);
        for msg in &view[..4] {
            framed.send(msg).await.unwrap();
        }
        // The game greets and moves; echo both, then the bot's chat, move and leave.
        for _ in 0..2 {
            got.push(next(&mut framed).await);
        }
        for msg in &view[4..9] {
            framed.send(msg).await.unwrap();
        }
        // The game leaves last.
        got.push(next(&mut framed).await);
        framed.send(&view[9]).await.unwrap();
        // The encoder takes any Serialize type: name one for `close`.
        SinkExt::<&ServerMsg>::close(&mut framed).await.unwrap();
        got
    });
    assert_eq!(
        got,
        [
            ClientMsg::Join { name: game.into() },
            ClientMsg::Chat {
                text: "hello Tokio".into()
            },
            ClientMsg::Move {
                position: GAME_MOVE.0,
                rotation: GAME_MOVE.1
            },
            ClientMsg::Leave,
        ]
    );
    let out = running.finish_quietly();
    check_client(&engine, &out, &first_player(game, "Tokio", BOT_MOVE));
    let _ = std::fs::remove_dir_all(project);
    eprintln!("{name} tokio session: {:?}", started.elapsed());
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_codec_serves_godot_3_6() {
    tokio_session("godot3.6", "godot3_client", "Godot3");
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_codec_serves_godot_4() {
    tokio_session("godot4", "godot4_client", "Godot4");
}

/// The player dictionary of the save file, as a Rust type.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Player {
    name: String,
    hp: i32,
    pos: Vector3,
    facing: Quat,
}

/// The engine writes a save file; Rust reads it (as `Variant`s and as typed values),
/// rewrites it with one value edited, appends one, and the engine reads all back.
fn save_file(name: &str, big_endian: bool) {
    let Some(engine) = Engine::find(name) else {
        return;
    };
    let started = Instant::now();
    let cfg = engine.cfg();
    let framing = Framing::StreamPeer { big_endian };
    let script = if engine.godot4() {
        "store_var4.gd"
    } else {
        "store_var3.gd"
    };
    let dir = tempdir();
    let file = dir.join("save.dat");
    let file_text = file.display().to_string();
    let endian = if big_endian { "1" } else { "0" };
    let env = |mode| {
        [
            ("MODE", mode),
            ("FILE", &file_text[..]),
            ("BIG_ENDIAN", endian),
        ]
    };
    engine.run_script(script, &env("write"));

    // Decoded and encoded again, the values give the engine's file byte for byte.
    let engine_bytes = std::fs::read(&file).unwrap();
    let values: Vec<Variant> = VarReader::open(&file, framing)
        .unwrap()
        .with_config(cfg)
        .read_all()
        .unwrap();
    assert_eq!(values.len(), 6);
    let mut w = VarWriter::new(Vec::new(), framing).with_config(cfg);
    for v in &values {
        w.put_var(v).unwrap();
    }
    assert_eq!(hex(w.get_ref()), hex(&engine_bytes));

    // The same file, value by value, into Rust types.
    let mut r = VarReader::open(&file, framing).unwrap().with_config(cfg);
    let slot: i32 = r.get_var().unwrap().unwrap();
    let title: String = r.get_var().unwrap().unwrap();
    let mut ann: Player = r.get_var().unwrap().unwrap();
    let items: Vec<String> = r.get_var().unwrap().unwrap();
    let at: Transform = r.get_var().unwrap().unwrap();
    let misc: (i64, f64, Option<i32>, bool) = r.get_var().unwrap().unwrap();
    assert_eq!(r.get_var::<Variant>().unwrap(), None);
    assert_eq!((slot, &title[..]), (42, "slot 1"));
    assert_eq!(items, ["sword", "shield"]);
    assert_eq!(
        ann,
        Player {
            name: "Ann".into(),
            hp: 100,
            pos: Vector3::new(1.0, 2.0, 3.0),
            facing: Quat::new(0.0, 0.6, 0.0, 0.8),
        }
    );
    assert_eq!(at.origin, Vector3::new(1.0, 2.0, 3.0));
    assert_eq!(misc, (1 << 40, 0.1, None, true));

    // Edit: Ann lost hp. Rewrite the file, then append a new value.
    ann.hp = 50;
    let mut w = VarWriter::create(&file, framing).unwrap().with_config(cfg);
    w.put_var(&slot).unwrap();
    w.put_var(&title).unwrap();
    w.put_var(&ann).unwrap();
    w.put_var(&godot_bin::pool::PoolStringArray(items)).unwrap();
    w.put_var(&at).unwrap();
    w.put_var(&misc).unwrap();
    drop(w);
    let extra = Variant::Dictionary(godot_bin::Dictionary::from_iter([("appended", true)]));
    VarWriter::append(&file, framing)
        .unwrap()
        .with_config(cfg)
        .put_var(&extra)
        .unwrap();

    let mut want = values;
    want[2] = cfg.from_slice(&cfg.to_vec(&ann).unwrap()).unwrap();
    want.push(extra);
    let out = engine.run_script(script, &env("read"));
    let got: Vec<&str> = out
        .iter()
        .filter_map(|l| l.strip_prefix("VALUE "))
        .collect();
    let ours: Vec<String> = want.iter().map(|v| hex(&cfg.to_vec(v).unwrap())).collect();
    assert_eq!(got, ours, "the engine read back what we wrote");
    let text: Vec<&str> = out.iter().filter_map(|l| l.strip_prefix("TEXT ")).collect();
    let ours: Vec<String> = want
        .iter()
        .map(|v| v.display(engine.dialect).to_string().replace('\n', " "))
        .collect();
    assert_eq!(text, ours);
    assert!(text[2].contains("50"), "{}", text[2]);
    let _ = std::fs::remove_dir_all(dir);
    eprintln!(
        "{name} save file (big_endian {big_endian}): {:?}",
        started.elapsed()
    );
}

#[test]
fn godot_3_2_save_file() {
    save_file("godot3.2", false);
    save_file("godot3.2", true);
}

#[test]
fn godot_3_6_save_file() {
    save_file("godot3.6", false);
    save_file("godot3.6", true);
}

#[test]
fn godot_4_save_file() {
    save_file("godot4", false);
    save_file("godot4", true);
}

/// The engine's `StreamPeer.put_var` (both endiannesses), `PacketPeerStream.put_var`
/// and `Marshalls.variant_to_base64` bytes are ours for the same values; the engine
/// reads ours back to the same values; `PacketPeerStream`'s limits are the constants.
fn framings(name: &str) {
    let Some(engine) = Engine::find(name) else {
        return;
    };
    let started = Instant::now();
    let cfg = engine.cfg();
    let script = if engine.godot4() {
        "frames4.gd"
    } else {
        "frames3.gd"
    };
    let out = engine.run_script(script, &[("MODE", "write")]);
    // "KIND i text" lines, by kind.
    let mut by_kind: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for line in &out {
        let mut parts = line.splitn(3, ' ');
        if let (Some(kind), Some(_), Some(text)) = (parts.next(), parts.next(), parts.next()) {
            by_kind.entry(kind).or_default().push(text);
        }
    }
    let values: Vec<Variant> = by_kind["VAR"]
        .iter()
        .map(|h| cfg.from_slice(&unhex(h)).unwrap())
        .collect();
    assert!(values.len() >= 8, "{out:?}");
    let framed = |framing: Framing| -> Vec<String> {
        values
            .iter()
            .map(|v| {
                let mut w = VarWriter::new(Vec::new(), framing).with_config(cfg);
                w.put_var(v).unwrap();
                hex(w.get_ref())
            })
            .collect()
    };
    assert_eq!(by_kind["PUT_LE"], framed(Framing::STORE_VAR));
    assert_eq!(
        by_kind["PUT_BE"],
        framed(Framing::StreamPeer { big_endian: true })
    );
    assert_eq!(by_kind["PPS"], framed(Framing::PacketPeerStream));
    let base64: Vec<String> = values
        .iter()
        .map(|v| framing::variant_to_base64(cfg, v).unwrap())
        .collect();
    assert_eq!(by_kind["B64"], base64);
    // Default buffers: 65532 bytes out, and of 65531- and 65532-byte packets only the
    // first can be received.
    let limits = out.iter().find_map(|l| l.strip_prefix("PPS_LIMITS "));
    assert_eq!(
        limits,
        Some(format!(
            "65532 {} 1 0",
            framing::PACKET_PEER_STREAM_SEND_MAX
        ))
        .as_deref()
    );
    assert_eq!(framing::PACKET_PEER_STREAM_RECV_MAX, 65531);

    // Ours, read by the engine.
    let dir = tempdir();
    for (file, framing) in [
        ("LE.bin", Framing::STORE_VAR),
        ("BE.bin", Framing::StreamPeer { big_endian: true }),
        ("PPS.bin", Framing::PacketPeerStream),
    ] {
        let mut w = VarWriter::create(dir.join(file), framing)
            .unwrap()
            .with_config(cfg);
        for v in &values {
            w.put_var(v).unwrap();
        }
    }
    std::fs::write(dir.join("B64.txt"), base64.join("\n")).unwrap();
    let dir_text = dir.display().to_string();
    let out = engine.run_script(script, &[("MODE", "read"), ("DIR", &dir_text)]);
    for kind in ["GOT_LE", "GOT_BE", "GOT_PPS", "GOT_B64"] {
        let got: Vec<&str> = out
            .iter()
            .filter_map(|l| l.strip_prefix(kind)?.strip_prefix(' '))
            .collect();
        assert_eq!(got, by_kind["VAR"], "{kind}");
    }
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("{name} framings: {:?}", started.elapsed());
}

#[test]
fn godot_3_2_framings() {
    framings("godot3.2");
}

#[test]
fn godot_3_6_framings() {
    framings("godot3.6");
}

#[test]
fn godot_4_framings() {
    framings("godot4");
}
