//! `godot-bin replay`: plays the game's side of a session from a `proxy --log` file
//! against a server and compares the server's replies with the logged ones.
//!
//! The session's `->` messages (injected ones too: the server got them) are sent in
//! order, byte for byte. Before each, the replay waits (up to `--timeout` per reply)
//! for as many replies as the log shows before it, so the server sees the same pacing;
//! at the end it waits for the rest and, briefly, for replies the log does not have.
//! Replies are compared by their bytes, in order, with the `->` message that preceded
//! them in the log; `<-` messages injected into the game are no replies and are left
//! out. The report names each difference (with both values' text), replies that are
//! missing, come in another order, or are extra. Exit status 0: every reply as logged.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::ValueEnum;
use godot_bin::framing::{Framing, VarReader};
use godot_bin::Dialect;

use crate::args::{ProxyFraming, ReplayArgs};
use crate::traffic::{count, describe, dialect_from_number, Dir, Line, Record, DECODE_CAP};

/// The longest wait for replies the log does not have, after the last expected one.
const EXTRA_WAIT: Duration = Duration::from_millis(500);
/// Extra replies reported at most.
const EXTRA_MAX: usize = 100;

pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let timeout = Duration::try_from_secs_f64(a.timeout)
        .map_err(|_| anyhow!("--timeout takes a number of seconds, not {}", a.timeout))?;
    let log = Recorded::read(&a.log)?;
    let framing = a
        .framing
        .or(log.framing)
        .context("the log does not say how messages are framed: give --framing")?;
    let id = a
        .session
        .or(log.first)
        .context("the log holds no session")?;
    let session = log
        .sessions
        .get(&id)
        .with_context(|| format!("the log has no session #{id}"))?;
    let plan = Plan::of(session)?;
    let dialect = session.dialect.unwrap_or_else(|| {
        let first = session.messages.first().map_or(&[][..], |m| m.value());
        Dialect::detect(first).dialect().unwrap_or(Dialect::Godot4)
    });
    let framing = framing.framing();
    let show = |wire: &[u8]| shown(wire, framing, dialect);
    println!(
        "replaying session #{id} of {} against {}: {} to send, {} expected",
        a.log.display(),
        a.connect,
        count(plan.sends.len(), "message", "messages"),
        count(plan.replies.len(), "reply", "replies")
    );

    let stream = TcpStream::connect_timeout(&a.connect, timeout.max(Duration::from_secs(1)))
        .with_context(|| format!("cannot connect to {}", a.connect))?;
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(timeout.max(Duration::from_secs(1))))?;
    let (tx, rx) = mpsc::sync_channel(64);
    let reader = {
        let stream = stream.try_clone()?;
        thread::spawn(move || read_replies(stream, framing, tx))
    };
    let mut replies = Replies {
        rx,
        framed: framing.is_some(),
        buf: Vec::new(),
        end: None,
    };

    // Send, each message after the replies logged before it.
    let mut got = Vec::new();
    // Replies waited for in vain: later waits do not count on them.
    let mut short = 0;
    let mut unsent = None;
    for (i, send) in plan.sends.iter().enumerate() {
        let want = send.replies_before.saturating_sub(short);
        short += replies.collect(&mut got, want, &plan.replies, timeout);
        let mut s = &stream;
        if let Err(e) = s.write_all(&send.wire) {
            unsent = Some((i, e));
            break;
        }
    }
    let want = plan.replies.len().saturating_sub(short);
    replies.collect(&mut got, want, &plan.replies, timeout);
    let expected_got = got.len();
    for _ in 0..EXTRA_MAX {
        match replies.next(usize::MAX, timeout.min(EXTRA_WAIT)) {
            Some(extra) => got.push(extra),
            None => break,
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
    drop(replies.rx);
    let _ = reader.join();

    // The report, message by message.
    let mut same = 0;
    let mut problems = 0;
    for step in 0..=plan.sends.len() {
        let label = match step {
            0 => "on connecting".to_owned(),
            n => format!("message {n}"),
        };
        if let Some(send) = step.checked_sub(1).and_then(|i| plan.sends.get(i)) {
            if unsent.as_ref().is_some_and(|(i, _)| *i < step - 1) {
                println!("{label} -> {}: not sent", show(&send.wire));
                continue;
            }
            if let Some((_, e)) = unsent.as_ref().filter(|(i, _)| *i == step - 1) {
                problems += 1;
                println!("{label} -> {}: cannot be sent: {e}", show(&send.wire));
                continue;
            }
        }
        let indices: Vec<usize> = (0..plan.replies.len())
            .filter(|&i| plan.replies[i].after == step)
            .collect();
        let want: Vec<&[u8]> = indices.iter().map(|&i| &plan.replies[i].wire[..]).collect();
        let have: Vec<Option<&[u8]>> = indices
            .iter()
            .map(|&i| got.get(i).filter(|_| i < expected_got).map(|b| &b[..]))
            .collect();
        let head = match step.checked_sub(1).map(|i| &plan.sends[i]) {
            Some(send) => format!("{label} -> {}", show(&send.wire)),
            None if want.is_empty() => continue,
            None => label.clone(),
        };
        let n = want.len();
        if have.iter().zip(&want).all(|(h, w)| *h == Some(*w)) {
            same += n;
            match n {
                0 => println!("{head}: no reply expected"),
                n => println!("{head}: {}, as logged", count(n, "reply", "replies")),
            }
            continue;
        }
        let mut sorted_want = want.clone();
        sorted_want.sort();
        let mut sorted_have: Vec<&[u8]> = have.iter().flatten().copied().collect();
        sorted_have.sort();
        if sorted_have == sorted_want {
            problems += 1;
            same += n;
            let list = |items: &mut dyn Iterator<Item = &[u8]>| {
                items.map(&show).collect::<Vec<_>>().join(", ")
            };
            println!("{head}: the {n} replies arrive in a different order");
            println!(
                "{label}: expected [{}] got [{}]",
                list(&mut want.iter().copied()),
                list(&mut have.iter().flatten().copied())
            );
            continue;
        }
        let differ = have
            .iter()
            .zip(&want)
            .filter(|(h, w)| **h != Some(**w))
            .count();
        println!(
            "{head}: {differ} of {} not as logged",
            count(n, "reply", "replies")
        );
        for (j, (h, w)) in have.iter().zip(&want).enumerate() {
            let j = j + 1;
            match h {
                Some(h) if h == w => same += 1,
                Some(h) => {
                    problems += 1;
                    let (expected, got) = (show(w), show(h));
                    if expected == got {
                        println!(
                            "{label}: reply {j} differs in its bytes: expected {expected} \
                             ({}) got {got} ({})",
                            hex::encode(w),
                            hex::encode(h)
                        );
                    } else {
                        println!("{label}: reply {j} differs: expected {expected} got {got}");
                    }
                }
                None => {
                    problems += 1;
                    println!("{label}: reply {j} missing: expected {}", show(w));
                }
            }
        }
    }
    for extra in &got[expected_got..] {
        problems += 1;
        println!("extra reply: {}", show(extra));
    }
    if got.len() < plan.replies.len() {
        if let Some(end) = &replies.end {
            println!("the replies stopped: {end}");
        }
    }
    let problems_text = match problems {
        0 => "no differences".to_owned(),
        n => count(n, "difference", "differences"),
    };
    println!(
        "{same} of {} as logged; {problems_text}",
        count(plan.replies.len(), "reply", "replies")
    );
    Ok(if problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A message's text form (or why it has none, and its hex) for the report.
fn shown(wire: &[u8], framing: Option<Framing>, dialect: Dialect) -> String {
    let value = match framing {
        Some(_) => wire.get(4..).unwrap_or_default(),
        None => wire,
    };
    let d = describe(value, dialect);
    match (d.text, d.error) {
        (Some(text), None) => text,
        (Some(text), Some(error)) => format!("{text} <{error}>"),
        (None, error) => format!(
            "<undecodable: {}> {}",
            error.unwrap_or_default(),
            hex::encode(value)
        ),
    }
}

/// What a `proxy --log` file holds, by session.
struct Recorded {
    framing: Option<ProxyFraming>,
    /// The first session in the file.
    first: Option<u64>,
    sessions: BTreeMap<u64, SessionLog>,
}

#[derive(Default)]
struct SessionLog {
    dialect: Option<Dialect>,
    messages: Vec<Logged>,
}

struct Logged {
    /// The file's line, for messages about it.
    line: usize,
    dir: Dir,
    /// The bytes relayed: prefix and value.
    wire: Vec<u8>,
    prefix_len: usize,
    injected: bool,
    truncated: bool,
}

impl Logged {
    fn value(&self) -> &[u8] {
        &self.wire[self.prefix_len..]
    }
}

impl Recorded {
    fn read(path: &Path) -> Result<Recorded> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut log = Recorded {
            framing: None,
            first: None,
            sessions: BTreeMap::new(),
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = || format!("{} line {}", path.display(), i + 1);
            let line_record: Line = serde_json::from_str(line).with_context(at)?;
            let session = match line_record.record {
                Record::Listen { framing, .. } => {
                    log.framing = Some(
                        ProxyFraming::from_str(&framing, false)
                            .map_err(|e| anyhow!("{}: framing {framing}: {e}", at()))?,
                    );
                    continue;
                }
                Record::Open { session, .. } | Record::Close { session, .. } => session,
                Record::Dialect {
                    session, dialect, ..
                } => {
                    let d = dialect_from_number(dialect)
                        .with_context(|| format!("{}: no dialect {dialect}", at()))?;
                    log.sessions.entry(session).or_default().dialect = Some(d);
                    session
                }
                Record::Message {
                    session,
                    dir,
                    prefix,
                    hex,
                    injected,
                    truncated,
                    ..
                } => {
                    let prefix = hex::decode(prefix.unwrap_or_default()).with_context(at)?;
                    let prefix_len = prefix.len();
                    let mut wire = prefix;
                    wire.extend(hex::decode(hex).with_context(at)?);
                    log.sessions
                        .entry(session)
                        .or_default()
                        .messages
                        .push(Logged {
                            line: i + 1,
                            dir,
                            wire,
                            prefix_len,
                            injected,
                            truncated,
                        });
                    session
                }
                Record::Other => continue,
            };
            log.first.get_or_insert(session);
        }
        Ok(log)
    }
}

/// What to send and what to expect back.
struct Plan {
    sends: Vec<Send>,
    replies: Vec<Expected>,
}

struct Send {
    wire: Vec<u8>,
    /// How many replies the log shows before this message.
    replies_before: usize,
}

struct Expected {
    /// The message (1, 2, ...) this reply came after in the log; 0: before the first.
    after: usize,
    wire: Vec<u8>,
}

impl Plan {
    fn of(session: &SessionLog) -> Result<Plan> {
        let mut plan = Plan {
            sends: Vec::new(),
            replies: Vec::new(),
        };
        for m in &session.messages {
            match m.dir {
                Dir::ToServer => {
                    if m.truncated {
                        bail!(
                            "line {}: the message was logged only in part (a frame above {} \
                             MiB), so it cannot be replayed",
                            m.line,
                            DECODE_CAP >> 20
                        );
                    }
                    plan.sends.push(Send {
                        wire: m.wire.clone(),
                        replies_before: plan.replies.len(),
                    });
                }
                Dir::ToClient if m.injected => {}
                Dir::ToClient => plan.replies.push(Expected {
                    after: plan.sends.len(),
                    wire: m.wire.clone(),
                }),
            }
        }
        Ok(plan)
    }
}

enum Incoming {
    Bytes(Vec<u8>),
    Failed(String),
}

/// Reads the server's messages (or, without framing, whatever arrives) until it closes.
fn read_replies(stream: TcpStream, framing: Option<Framing>, tx: SyncSender<Incoming>) {
    let Some(framing) = framing else {
        let mut stream = stream;
        let mut buf = vec![0; 64 << 10];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if tx.send(Incoming::Bytes(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return drop(tx.send(Incoming::Failed(e.to_string()))),
            }
        }
    };
    let mut reader = VarReader::new(stream, framing).max_frame_len(DECODE_CAP);
    loop {
        let item = match reader.next_frame() {
            Ok(None) => return,
            Ok(Some(value)) => match framing.prefix(value.len()) {
                Ok(prefix) => {
                    let mut wire = prefix.to_vec();
                    wire.extend_from_slice(value);
                    Incoming::Bytes(wire)
                }
                Err(e) => Incoming::Failed(e.to_string()),
            },
            Err(e) => Incoming::Failed(e.to_string()),
        };
        let failed = matches!(item, Incoming::Failed(_));
        if tx.send(item).is_err() || failed {
            return;
        }
    }
}

/// The server's replies as they come.
struct Replies {
    rx: Receiver<Incoming>,
    framed: bool,
    /// Without framing: bytes that came and are not taken yet.
    buf: Vec<u8>,
    /// Why no more replies will come.
    end: Option<String>,
}

impl Replies {
    /// Collects replies until `got` holds `want`, waiting up to `timeout` for each;
    /// returns how many it gave up on.
    fn collect(
        &mut self,
        got: &mut Vec<Vec<u8>>,
        want: usize,
        expected: &[Expected],
        timeout: Duration,
    ) -> usize {
        while got.len() < want {
            let len = expected.get(got.len()).map_or(usize::MAX, |e| e.wire.len());
            match self.next(len, timeout) {
                Some(reply) => got.push(reply),
                None => return want - got.len(),
            }
        }
        0
    }

    /// The next reply: a frame or, without framing, the next `len` bytes (fewer if no
    /// more come within `wait`). `None` if nothing comes.
    fn next(&mut self, len: usize, wait: Duration) -> Option<Vec<u8>> {
        let deadline = Instant::now() + wait;
        while self.end.is_none() && (self.framed || self.buf.len() < len) {
            match self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Incoming::Bytes(bytes)) if self.framed => return Some(bytes),
                Ok(Incoming::Bytes(bytes)) => self.buf.extend(bytes),
                Ok(Incoming::Failed(e)) => self.end = Some(e),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    self.end = Some("the server closed the connection".to_owned());
                }
            }
        }
        if self.buf.is_empty() {
            return None;
        }
        let n = len.min(self.buf.len());
        Some(self.buf.drain(..n).collect())
    }
}
