//! `godot-bin proxy`: a logging TCP relay between a Godot game and its server.
//!
//! Every connection to `--listen` is a session: the proxy connects to `--connect` for
//! it and relays both ways, each frame as soon as it is complete, its bytes unchanged.
//! A frame whose prefix announces more than [`DECODE_CAP`] is passed on as its bytes
//! arrive, neither held nor decoded. With `--framing none` every read is one message.
//! A session ends when either side closes: the other side is half-closed, given
//! [`LINGER`] to finish, then closed. Other sessions go on.
//!
//! # Standard output
//!
//! One line per message and event, times in UTC:
//!
//! ```text
//! 16:19:20.477 listening on 127.0.0.1:4343, relaying to 127.0.0.1:4242 (framing packet-peer-stream, dialect auto)
//! 16:19:21.262 #1 open: client 127.0.0.1:49412, server 127.0.0.1:4242
//! 16:19:21.262 #1 dialect: Godot 4 (detected)
//! 16:19:21.263 #1 -> 52 B {"Join": {"name": "Ann"}}
//! 16:19:21.266 #1 <- 52 B {"Welcome": {"id": 1}}
//! 16:19:21.270 #1 <- 180 B {"PlayerList": {"players": [{"id": 1, "name": "Ann", "position": Vector3(0, 0, 0), "rotation": Quaternion(0, 0, 0, 1)}]}}
//! 16:19:22.978 #1 -> 52 B (injected) {"Chat": {"text": "hi"}}
//! 16:19:22.978 #1 <- 72 B {"Chat": {"from": 1, "text": "hi"}}
//! 16:19:23.480 #1 -> 16 B (injected) "Leave"
//! 16:19:23.481 #1 <- 48 B {"Left": {"id": 1}}
//! 16:19:23.496 #1 closed: the server disconnected (relayed 1 message ->, 4 <-)
//! ```
//!
//! and, from another session, a frame that does not decode:
//!
//! ```text
//! 16:18:33.646 #1 -> 8 B <undecodable: byte 0: unknown Variant type id 255 in Godot 4> ff00000001020304
//! ```
//!
//! `->` goes to the server, `<-` to the game. The size is the value's (the length prefix
//! not counted); the text is the value's text form in the session's dialect, on one
//! line. A value that does not decode shows why and its bytes in hex (the first 64).
//! The close line counts the messages relayed each way, injected ones not included.
//! `--filter TEXT` keeps the messages whose text, or hex when there is no text,
//! contains TEXT (in the JSON lines log too); events are always shown.
//!
//! The dialect is `--dialect`'s, or, with `auto`, detected per session from the first
//! message that only one engine version writes (until then a message is shown, and an
//! injection encoded, in the newest version that reads the last message).
//!
//! # `--log FILE.jsonl`
//!
//! The file is replaced; every line is one JSON object, written as it happens, with
//! `time` (seconds since the Unix epoch, to the millisecond) and `event`:
//!
//! - `listen`: `listen`, `connect` (addresses), `framing` (as `--framing` spells it).
//! - `open`: `session` (1, 2, ... in the order games connect), `client`, `server`.
//! - `dialect`: `session`, `dialect` (2, 3 or 4), `detected` (false: `--dialect`).
//! - `message`: `session`; `dir` (`"->"` or `"<-"`); `prefix` (the length prefix as it
//!   came, hex; `null` with `--framing none`; shorter than 4 bytes if the connection
//!   ended inside it); `size` (the value's length as the prefix announces it; `null` for
//!   a cut-off prefix); `hex` (the value's bytes); `text` (`null` if the value does not
//!   decode); `error` (`null`, or why it does not decode, or what is odd: bytes after
//!   the value, a cut-off frame); `injected` (typed on standard input); `truncated`
//!   (`hex` holds only the first bytes of a frame larger than the proxy decodes).
//!   The bytes relayed are exactly `prefix` and then `hex`.
//! - `close`: `session`, `reason`, `to_server` and `to_client` (messages relayed).
//!
//! # Injection
//!
//! Lines on standard input:
//!
//! - `-> TEXT`: TEXT (values in Godot's text form, each one message) goes to the server
//!   of every open session, as if its game had sent it;
//! - `<- TEXT`: to the game of every open session, as if its server had sent it;
//! - `#N -> TEXT`, `#N <- TEXT`: to session N only.
//!
//! Each value is encoded in the session's dialect and framing and sent between two
//! relayed frames, never inside one; it is logged with `(injected)`. A session whose
//! dialect is not known yet (`--dialect auto`, no message seen) refuses injection.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::ValueEnum;
use godot_bin::framing::{self, Framing, VarWriter};
use godot_bin::{Config, Dialect};

use crate::args::ProxyArgs;
use crate::encode::parse_all;
use crate::traffic::{
    count, describe, dialect_number, now_ms, time_of_day, Described, Dir, Line, Record, DECODE_CAP,
};

/// How long the other side of a session may take to close after one side has.
pub const LINGER: Duration = Duration::from_secs(5);
/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes one read takes from a socket.
const READ_CHUNK: usize = 64 << 10;
/// Frames queued for one socket before its reader waits (so a slow peer slows its
/// sender down, as without the proxy, instead of filling memory).
const QUEUE: usize = 4;
/// Injected messages held back while a large frame is being passed on.
const HELD_MAX: usize = 64;
/// How much of a value's bytes and text standard output shows.
const SHOWN_BYTES: usize = 64;
const SHOWN_CHARS: usize = 2000;

pub fn run(a: ProxyArgs) -> Result<ExitCode> {
    let listener =
        TcpListener::bind(a.listen).with_context(|| format!("cannot listen on {}", a.listen))?;
    let local = listener.local_addr()?;
    let log = Log::open(a.log.as_deref(), a.filter)?;
    let framing_name = a
        .framing
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_owned());
    let dialect_name = match a.dialect.fixed() {
        Some(d) => d.engine_name().to_owned(),
        None => "auto".to_owned(),
    };
    log.emit(
        format!(
            "listening on {local}, relaying to {} (framing {framing_name}, dialect {dialect_name})",
            a.connect
        ),
        Record::Listen {
            listen: local.to_string(),
            connect: a.connect.to_string(),
            framing: framing_name,
        },
    );
    let proxy = Arc::new(Proxy {
        connect: a.connect,
        framing: a.framing.framing(),
        dialect: a.dialect.fixed(),
        log,
        sessions: Mutex::new(BTreeMap::new()),
        ended: Mutex::new(0),
        ended_signal: Condvar::new(),
    });
    {
        let proxy = Arc::clone(&proxy);
        thread::spawn(move || proxy.read_injections());
    }
    {
        let proxy = Arc::clone(&proxy);
        thread::spawn(move || proxy.accept(listener));
    }
    // Without --max-sessions this waits for ever: the proxy runs until it is stopped.
    let max = a.max_sessions.unwrap_or(usize::MAX);
    let mut ended = lock(&proxy.ended);
    while *ended < max {
        ended = proxy
            .ended_signal
            .wait(ended)
            .unwrap_or_else(PoisonError::into_inner);
    }
    Ok(ExitCode::SUCCESS)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Proxy {
    connect: SocketAddr,
    framing: Option<Framing>,
    /// `--dialect`, unless `auto`.
    dialect: Option<Dialect>,
    log: Log,
    /// The open sessions, for injection.
    sessions: Mutex<BTreeMap<u64, Handle>>,
    /// How many sessions have ended, for `--max-sessions`.
    ended: Mutex<usize>,
    ended_signal: Condvar,
}

/// What injection needs of a session.
#[derive(Clone)]
struct Handle {
    session: Arc<Session>,
    to_server: SyncSender<Out>,
    to_client: SyncSender<Out>,
}

impl Proxy {
    fn accept(self: Arc<Self>, listener: TcpListener) {
        let mut next = 1;
        for stream in listener.incoming() {
            match stream {
                Ok(client) => {
                    let id = next;
                    next += 1;
                    let proxy = Arc::clone(&self);
                    thread::spawn(move || {
                        proxy.session(id, client);
                        *lock(&proxy.ended) += 1;
                        proxy.ended_signal.notify_all();
                    });
                }
                Err(e) => {
                    eprintln!("godot-bin: accept: {e}");
                    // Out of file descriptors and the like: do not spin on it.
                    thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }

    /// Runs one session to its end.
    fn session(&self, id: u64, client: TcpStream) {
        let peer = client
            .peer_addr()
            .map_or_else(|e| format!("? ({e})"), |a| a.to_string());
        let server = match TcpStream::connect_timeout(&self.connect, CONNECT_TIMEOUT) {
            Ok(server) => server,
            Err(e) => {
                let _ = client.shutdown(Shutdown::Both);
                return self.closed(
                    id,
                    format!("cannot connect to the server {}: {e}", self.connect),
                    [0, 0],
                );
            }
        };
        self.log.emit(
            format!("#{id} open: client {peer}, server {}", self.connect),
            Record::Open {
                session: id,
                client: peer,
                server: self.connect.to_string(),
            },
        );
        let session = Arc::new(Session {
            id,
            guess: Mutex::new(Guess {
                dialect: self.dialect,
                sure: self.dialect.is_some(),
            }),
        });
        if let Some(d) = self.dialect {
            self.log.dialect(id, d, false);
        }
        match self.relay(&session, &client, &server) {
            Ok((reason, counts)) => self.closed(id, reason, counts),
            Err(e) => {
                for s in [&client, &server] {
                    let _ = s.shutdown(Shutdown::Both);
                }
                self.closed(id, format!("cannot relay: {e}"), [0, 0]);
            }
        }
    }

    fn closed(&self, id: u64, reason: String, [to_server, to_client]: [usize; 2]) {
        self.log.emit(
            format!(
                "#{id} closed: {reason} (relayed {} ->, {to_client} <-)",
                count(to_server, "message", "messages")
            ),
            Record::Close {
                session: id,
                reason,
                to_server,
                to_client,
            },
        );
    }

    /// Relays both ways until both sides have closed (or [`LINGER`] after the first);
    /// returns why the session ended and the messages relayed each way.
    fn relay(
        &self,
        session: &Arc<Session>,
        client: &TcpStream,
        server: &TcpStream,
    ) -> io::Result<(String, [usize; 2])> {
        for s in [client, server] {
            s.set_nodelay(true)?;
        }
        let (done_tx, done) = mpsc::channel();
        let mut threads = Vec::new();
        let to_server = spawn_writer(server.try_clone()?, Dir::ToServer, &done_tx, &mut threads);
        let to_client = spawn_writer(client.try_clone()?, Dir::ToClient, &done_tx, &mut threads);
        for (from, dir, out) in [
            (client.try_clone()?, Dir::ToServer, to_server.clone()),
            (server.try_clone()?, Dir::ToClient, to_client.clone()),
        ] {
            let reader = Reader {
                session: Arc::clone(session),
                dir,
                log: self.log.clone(),
                framing: self.framing,
                out,
            };
            let done = done_tx.clone();
            threads.push(thread::spawn(move || reader.run(from, &done)));
        }
        drop(done_tx);
        lock(&self.sessions).insert(
            session.id,
            Handle {
                session: Arc::clone(session),
                to_server,
                to_client,
            },
        );

        let close_all = || {
            for s in [client, server] {
                let _ = s.shutdown(Shutdown::Both);
            }
        };
        let mut first: Option<(Dir, End)> = None;
        let mut counts = [0; 2];
        let mut deadline: Option<Instant> = None;
        // The proxy has shut both sockets down.
        let mut forced = false;
        // ... because the session did not end within LINGER of its first side.
        let mut lingered = false;
        let mut left = threads.len();
        while left > 0 {
            let event = match deadline {
                None => done.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(at) => done.recv_timeout(at.saturating_duration_since(Instant::now())),
            };
            let event = match event {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) if !forced => {
                    forced = true;
                    lingered = true;
                    close_all();
                    deadline = Some(Instant::now() + LINGER);
                    continue;
                }
                // Threads that do not stop even with their sockets shut down are left
                // behind rather than holding up the session's end.
                Err(_) => break,
            };
            left -= 1;
            let failed = match event {
                Done::Read { dir, end, messages } => {
                    counts[usize::from(dir == Dir::ToClient)] = messages;
                    if first.is_some() {
                        continue;
                    }
                    // One side is done: no more injection into this session.
                    lock(&self.sessions).remove(&session.id);
                    deadline = Some(Instant::now() + LINGER);
                    let failed = !matches!(end, End::Closed(_));
                    first = Some((dir, end));
                    failed
                }
                // A side that cannot be written to is gone.
                Done::Wrote { error } => error.is_some(),
            };
            if failed && !forced {
                forced = true;
                close_all();
                deadline = Some(Instant::now() + LINGER);
            }
        }
        lock(&self.sessions).remove(&session.id);
        if left == 0 {
            for t in threads {
                let _ = t.join();
            }
        }
        let mut reason = match &first {
            Some((dir, end)) => end.describe(*dir),
            None => "the relay stopped".to_owned(),
        };
        if lingered {
            reason.push_str(&format!(
                "; the session did not end within {}s of that: closed by the proxy",
                LINGER.as_secs()
            ));
        }
        Ok((reason, counts))
    }

    fn read_injections(self: Arc<Self>) {
        for line in io::stdin().lock().lines() {
            let line = match line {
                Ok(line) => line,
                Err(e) => return eprintln!("godot-bin: standard input: {e}"),
            };
            if let Err(e) = self.inject(&line) {
                eprintln!("godot-bin: injection: {e:#}");
            }
        }
    }

    /// Acts on one line of standard input.
    fn inject(&self, line: &str) -> Result<()> {
        let Some(cmd) = Injection::parse(line)? else {
            return Ok(());
        };
        let targets: Vec<Handle> = lock(&self.sessions)
            .iter()
            .filter(|(id, _)| cmd.session.map_or(true, |want| **id == want))
            .map(|(_, h)| h.clone())
            .collect();
        if targets.is_empty() {
            match cmd.session {
                Some(n) => bail!("no open session #{n}"),
                None => bail!("no open session"),
            }
        }
        let mut failed = Vec::new();
        for h in targets {
            if let Err(e) = self.inject_into(&h, cmd.dir, cmd.text) {
                failed.push(format!("#{}: {e:#}", h.session.id));
            }
        }
        if !failed.is_empty() {
            bail!("{}", failed.join("; "));
        }
        Ok(())
    }

    fn inject_into(&self, h: &Handle, dir: Dir, text: &str) -> Result<()> {
        let Some(dialect) = lock(&h.session.guess).dialect else {
            bail!("its dialect is not known until a message has passed (or give --dialect)");
        };
        let cfg = Config::new().dialect(dialect).allow_objects(true);
        let mut wires = Vec::new();
        for v in parse_all(text, dialect)? {
            let wire = match self.framing {
                None => framing::encode_packet(cfg, &v)?,
                Some(framing) => {
                    let mut w = VarWriter::new(Vec::new(), framing).with_config(cfg);
                    w.put_var(&v)?;
                    w.into_inner()
                }
            };
            wires.push(wire);
        }
        let out = match dir {
            Dir::ToServer => &h.to_server,
            Dir::ToClient => &h.to_client,
        };
        for wire in wires {
            let (prefix, value) = wire.split_at(if self.framing.is_some() { 4 } else { 0 });
            let described = describe(value, dialect);
            self.log.message(Message {
                session: h.session.id,
                dir,
                prefix: self.framing.map(|_| prefix),
                size: Some(value.len()),
                value,
                truncated: false,
                injected: true,
                described,
            });
            match out.try_send(Out::Injected(wire)) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => bail!("not sent: its queue is full"),
                Err(TrySendError::Disconnected(_)) => bail!("not sent: the session is closing"),
            }
        }
        Ok(())
    }
}

/// A line typed on standard input: `[#N] -> TEXT` or `[#N] <- TEXT`.
struct Injection<'a> {
    session: Option<u64>,
    dir: Dir,
    text: &'a str,
}

impl<'a> Injection<'a> {
    /// `None` for a blank line.
    fn parse(line: &'a str) -> Result<Option<Injection<'a>>> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(None);
        }
        let usage = "an injection is `-> TEXT` (to the server), `<- TEXT` (to the game), \
                     or `#N -> TEXT` / `#N <- TEXT` for session N only";
        let (session, rest) = match line.strip_prefix('#') {
            Some(rest) => {
                let digits =
                    rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let n = rest[..digits].parse().map_err(|_| anyhow!("{usage}"))?;
                (Some(n), rest[digits..].trim_start())
            }
            None => (None, line),
        };
        let dir = if rest.starts_with("->") {
            Dir::ToServer
        } else if rest.starts_with("<-") {
            Dir::ToClient
        } else {
            bail!("{usage}");
        };
        Ok(Some(Injection {
            session,
            dir,
            text: rest[2..].trim(),
        }))
    }
}

/// A session's dialect as far as it is known.
struct Session {
    id: u64,
    guess: Mutex<Guess>,
}

#[derive(Clone, Copy)]
struct Guess {
    dialect: Option<Dialect>,
    /// Given, or detected from a message only one version writes.
    sure: bool,
}

impl Session {
    /// The dialect to read `value` in. Until the dialect is sure, each value is
    /// detected, and the first that only one engine version writes (or, if none writes
    /// it, only one reads) settles it.
    fn dialect_for(&self, value: &[u8], log: &Log) -> Dialect {
        let mut guess = lock(&self.guess);
        if !guess.sure {
            let detection = Dialect::detect(value);
            if let Some(d) = detection.dialect() {
                guess.dialect = Some(d);
                let writers = detection.writers().len();
                if writers == 1 || (writers == 0 && detection.readers().len() == 1) {
                    guess.sure = true;
                    log.dialect(self.id, d, true);
                }
            }
        }
        guess.dialect.unwrap_or(Dialect::Godot4)
    }
}

/// What a writer thread is given to send.
enum Out {
    /// A whole relayed message.
    Whole(Vec<u8>),
    /// Part of a relayed frame too large to hold; `last` ends the frame.
    Part { bytes: Vec<u8>, last: bool },
    /// An injected message (prefix and value).
    Injected(Vec<u8>),
    /// The other side closed: half-close this one.
    End,
}

/// A thread's end, for the session.
enum Done {
    Read { dir: Dir, end: End, messages: usize },
    Wrote { error: Option<io::Error> },
}

/// Why a reader stopped.
enum End {
    /// The side closed the connection; with what was cut off, if anything.
    Closed(Option<String>),
    Failed(io::Error),
    /// The other side can no longer be written to.
    PeerGone,
}

impl End {
    /// The session's end, when this reader stopped first.
    fn describe(&self, dir: Dir) -> String {
        let (from, to) = match dir {
            Dir::ToServer => ("client", "server"),
            Dir::ToClient => ("server", "client"),
        };
        match self {
            End::Closed(None) => format!("the {from} disconnected"),
            End::Closed(Some(cut)) => format!("the {from} disconnected ({cut})"),
            End::Failed(e) => format!("the {from}'s connection failed: {e}"),
            End::PeerGone => format!("the {to} cannot be written to"),
        }
    }
}

/// Starts the one thread that writes to `to`: relayed frames and injected messages
/// never interleave.
fn spawn_writer(
    to: TcpStream,
    dir: Dir,
    done: &Sender<Done>,
    threads: &mut Vec<JoinHandle<()>>,
) -> SyncSender<Out> {
    let (tx, rx) = mpsc::sync_channel(QUEUE);
    let done = done.clone();
    threads.push(thread::spawn(move || {
        let error = write_loop(to, rx, dir).err();
        let _ = done.send(Done::Wrote { error });
    }));
    tx
}

fn write_loop(mut to: TcpStream, rx: Receiver<Out>, dir: Dir) -> io::Result<()> {
    let mut inside_frame = false;
    let mut held: VecDeque<Vec<u8>> = VecDeque::new();
    for out in rx {
        match out {
            Out::Whole(bytes) => to.write_all(&bytes)?,
            Out::Part { bytes, last } => {
                to.write_all(&bytes)?;
                inside_frame = !last;
                if last {
                    for bytes in held.drain(..) {
                        to.write_all(&bytes)?;
                    }
                }
            }
            Out::Injected(bytes) if inside_frame => {
                if held.len() < HELD_MAX {
                    held.push_back(bytes);
                } else {
                    eprintln!(
                        "godot-bin: an injected message {} was dropped: {HELD_MAX} are waiting \
                         for a large frame to pass",
                        dir.arrow()
                    );
                }
            }
            Out::Injected(bytes) => to.write_all(&bytes)?,
            Out::End => break,
        }
    }
    // The side this relays from closed (or the session is over): pass the end on.
    let _ = to.shutdown(Shutdown::Write);
    Ok(())
}

/// Reads one side, cuts what comes into messages, logs and forwards each.
struct Reader {
    session: Arc<Session>,
    dir: Dir,
    log: Log,
    framing: Option<Framing>,
    out: SyncSender<Out>,
}

/// Where a framed stream is between two reads.
enum State {
    /// `got` bytes of a length prefix.
    Prefix { head: [u8; 4], got: usize },
    /// A frame being collected: prefix and value so far, and the value's length.
    Frame { buf: Vec<u8>, len: usize },
    /// A frame above [`DECODE_CAP`] being passed on: `left` bytes still to come;
    /// `logged` once its first bytes are.
    Pass {
        head: [u8; 4],
        left: usize,
        logged: bool,
    },
}

/// The other side is gone: stop reading.
struct PeerGone;

impl Reader {
    /// Relays until `from` ends, then reports why on `done`. The report goes out
    /// before the other side is half-closed: that side's own end, which the
    /// half-close may cause, must not be taken for the first.
    fn run(self, mut from: TcpStream, done: &Sender<Done>) {
        let mut buf = vec![0; READ_CHUNK];
        let mut state = State::Prefix {
            head: [0; 4],
            got: 0,
        };
        let mut messages = 0;
        let end = loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break End::Closed(None),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break End::Failed(e),
            };
            let fed = match self.framing {
                Some(framing) => self.feed(framing, &mut state, &buf[..n], &mut messages),
                None => {
                    messages += 1;
                    self.log_message(None, Some(n), &buf[..n], false, None);
                    self.send(Out::Whole(buf[..n].to_vec()))
                }
            };
            if fed.is_err() {
                break End::PeerGone;
            }
        };
        let end = match end {
            End::Closed(None) => End::Closed(self.cut_off(state, &mut messages)),
            End::Failed(e) => {
                let _ = self.cut_off(state, &mut messages);
                End::Failed(e)
            }
            end => end,
        };
        let _ = done.send(Done::Read {
            dir: self.dir,
            end,
            messages,
        });
        let _ = self.out.send(Out::End);
    }

    /// Takes in one read's bytes: every frame they complete is logged and forwarded.
    fn feed(
        &self,
        framing: Framing,
        state: &mut State,
        mut data: &[u8],
        messages: &mut usize,
    ) -> Result<(), PeerGone> {
        while !data.is_empty() {
            match state {
                State::Prefix { head, got } => {
                    let n = (4 - *got).min(data.len());
                    head[*got..*got + n].copy_from_slice(&data[..n]);
                    *got += n;
                    data = &data[n..];
                    if *got < 4 {
                        continue;
                    }
                    let head = *head;
                    let len = framing.frame_len(head);
                    if len > DECODE_CAP {
                        *messages += 1;
                        self.send(Out::Part {
                            bytes: head.to_vec(),
                            last: false,
                        })?;
                        // Logged with the value's first bytes, when they come.
                        *state = State::Pass {
                            head,
                            left: len,
                            logged: false,
                        };
                    } else {
                        // The buffer grows with the bytes that arrive, not with what the
                        // prefix claims.
                        let mut buf = Vec::with_capacity(4 + len.min(READ_CHUNK));
                        buf.extend_from_slice(&head);
                        *state = State::Frame { buf, len };
                    }
                }
                State::Frame { buf, len } => {
                    let n = (4 + *len - buf.len()).min(data.len());
                    buf.extend_from_slice(&data[..n]);
                    data = &data[n..];
                }
                State::Pass { head, left, logged } => {
                    let n = (*left).min(data.len());
                    if !*logged {
                        *logged = true;
                        self.log_large(head, &data[..n.min(SHOWN_BYTES)]);
                    }
                    *left -= n;
                    let last = *left == 0;
                    self.send(Out::Part {
                        bytes: data[..n].to_vec(),
                        last,
                    })?;
                    data = &data[n..];
                    if last {
                        *state = State::Prefix {
                            head: [0; 4],
                            got: 0,
                        };
                    }
                }
            }
            // A frame is complete (an empty one as soon as its prefix is).
            if let State::Frame { buf, len } = state {
                if buf.len() == 4 + *len {
                    *messages += 1;
                    self.log_message(Some(&buf[..4]), Some(*len), &buf[4..], false, None);
                    let buf = std::mem::take(buf);
                    *state = State::Prefix {
                        head: [0; 4],
                        got: 0,
                    };
                    self.send(Out::Whole(buf))?;
                }
            }
        }
        Ok(())
    }

    /// Forwards what a closed connection left of a frame; says what was cut off.
    fn cut_off(&self, state: State, messages: &mut usize) -> Option<String> {
        match state {
            State::Prefix { got: 0, .. } => None,
            State::Prefix { head, got } => {
                *messages += 1;
                let error = format!(
                    "cut off: the connection ended after {got} of the 4 bytes of a length prefix"
                );
                self.log_message(Some(&head[..got]), None, &[], false, Some(error.clone()));
                let _ = self.send(Out::Whole(head[..got].to_vec()));
                Some(error)
            }
            State::Frame { buf, len } => {
                *messages += 1;
                let error = format!(
                    "cut off: the connection ended after {} of the {len} bytes the prefix \
                     announces",
                    buf.len() - 4
                );
                self.log_message(
                    Some(&buf[..4]),
                    Some(len),
                    &buf[4..],
                    false,
                    Some(error.clone()),
                );
                let _ = self.send(Out::Whole(buf));
                Some(error)
            }
            State::Pass { head, left, logged } => {
                if !logged {
                    self.log_large(&head, &[]);
                }
                Some(format!("cut off: {left} bytes of a large frame never came"))
            }
        }
    }

    /// Logs a frame above [`DECODE_CAP`], with its first bytes.
    fn log_large(&self, head: &[u8; 4], first: &[u8]) {
        let len = self.framing.map_or(0, |f| f.frame_len(*head));
        let error = format!(
            "a frame of {len} bytes is above the {} MiB this proxy decodes: passed on as it \
             arrives",
            DECODE_CAP >> 20
        );
        self.log_message(Some(head), Some(len), first, true, Some(error));
    }

    fn send(&self, out: Out) -> Result<(), PeerGone> {
        self.out.send(out).map_err(|_| PeerGone)
    }

    /// Logs a relayed message; `error` replaces the decoding (for bytes that are not a
    /// whole value).
    fn log_message(
        &self,
        prefix: Option<&[u8]>,
        size: Option<usize>,
        value: &[u8],
        truncated: bool,
        error: Option<String>,
    ) {
        let described = match error {
            Some(error) => Described {
                text: None,
                error: Some(error),
            },
            None => describe(value, self.session.dialect_for(value, &self.log)),
        };
        self.log.message(Message {
            session: self.session.id,
            dir: self.dir,
            prefix,
            size,
            value,
            truncated,
            injected: false,
            described,
        });
    }
}

/// One message, for the log.
struct Message<'a> {
    session: u64,
    dir: Dir,
    prefix: Option<&'a [u8]>,
    size: Option<usize>,
    value: &'a [u8],
    truncated: bool,
    injected: bool,
    described: Described,
}

/// Standard output and the JSON lines file, written line by line under one lock, so
/// that both hold the same lines in the same order.
#[derive(Clone)]
struct Log(Arc<LogInner>);

struct LogInner {
    file: Mutex<Option<File>>,
    filter: Option<String>,
}

impl Log {
    fn open(path: Option<&Path>, filter: Option<String>) -> Result<Log> {
        let file = path
            .map(|p| File::create(p).with_context(|| format!("cannot write {}", p.display())))
            .transpose()?;
        Ok(Log(Arc::new(LogInner {
            file: Mutex::new(file),
            filter,
        })))
    }

    /// Writes one line to standard output (after the time) and one record to the file.
    fn emit(&self, line: String, record: Record) {
        let mut file = lock(&self.0.file);
        let ms = now_ms();
        let mut out = io::stdout().lock();
        // A closed standard output does not stop the relay.
        let _ = writeln!(out, "{} {line}", time_of_day(ms));
        let _ = out.flush();
        if let Some(f) = file.as_mut() {
            let line = Line {
                time: ms as f64 / 1000.0,
                record,
            };
            if let Ok(mut json) = serde_json::to_vec(&line) {
                json.push(b'\n');
                if let Err(e) = f.write_all(&json).and_then(|()| f.flush()) {
                    eprintln!("godot-bin: the log stops here: {e}");
                    *file = None;
                }
            }
        }
    }

    fn dialect(&self, session: u64, d: Dialect, detected: bool) {
        let how = if detected { "detected" } else { "--dialect" };
        self.emit(
            format!("#{session} dialect: {} ({how})", d.engine_name()),
            Record::Dialect {
                session,
                dialect: dialect_number(d),
                detected,
            },
        );
    }

    fn message(&self, m: Message<'_>) {
        let hex = hex::encode(m.value);
        let Described { text, error } = m.described;
        if let Some(filter) = &self.0.filter {
            if !text.as_deref().unwrap_or(&hex).contains(filter.as_str()) {
                return;
            }
        }
        let size = m.size.unwrap_or(m.prefix.map_or(0, <[u8]>::len));
        let mut line = format!("#{} {} {size} B", m.session, m.dir.arrow());
        if m.injected {
            line.push_str(" (injected)");
        }
        match (&text, &error) {
            (Some(text), error) => {
                line.push(' ');
                line.push_str(&shorten(text));
                if let Some(error) = error {
                    line.push_str(&format!(" <{error}>"));
                }
            }
            (None, error) => {
                let error = error.as_deref().unwrap_or("not decoded");
                line.push_str(&format!(" <undecodable: {error}>"));
                let shown = if m.value.is_empty() {
                    m.prefix.unwrap_or_default()
                } else {
                    m.value
                };
                if !shown.is_empty() {
                    let n = shown.len().min(SHOWN_BYTES);
                    line.push_str(&format!(" {}", hex::encode(&shown[..n])));
                    if shown.len() > n || m.truncated {
                        line.push_str("...");
                    }
                }
            }
        }
        self.emit(
            line,
            Record::Message {
                session: m.session,
                dir: m.dir,
                prefix: m.prefix.map(hex::encode),
                size: m.size,
                hex,
                text,
                error,
                injected: m.injected,
                truncated: m.truncated,
            },
        );
    }
}

/// At most [`SHOWN_CHARS`] of `text`, saying how much was left out.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => text.to_owned(),
        Some((at, _)) => {
            let more = text[at..].chars().count();
            format!("{}... ({more} more characters)", &text[..at])
        }
    }
}
