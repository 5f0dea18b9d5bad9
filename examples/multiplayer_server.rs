//! A lobby server for Godot games: players join, chat, move and leave, and everyone
//! sees everyone. The GDScript clients are in `examples/godot3_client/` and
//! `examples/godot4_client/`; they use `PacketPeerStream` over `StreamPeerTCP`, so every
//! message is a little-endian length and one Variant.
//!
//! Run it from the repository root. Once, install the engines into `./.godot-oracles/bin`:
//!
//! ```sh
//! bash scripts/setup-godot.sh ./.godot-oracles
//! ```
//!
//! Then start the server and two players, each in a terminal of its own (the players
//! leave by themselves; Ctrl-C stops the server):
//!
//! ```sh
//! cargo run --example multiplayer_server -- 4242 godot4
//! PLAYER_NAME=Ann ./.godot-oracles/bin/godot4 --headless --path examples/godot4_client
//! PLAYER_NAME=Bob ./.godot-oracles/bin/godot4 --headless --path examples/godot4_client
//! ```
//!
//! The server's dialect, its second argument (`godot3`, the default, or `godot4`), must
//! match the clients' engine: `godot4` for `examples/godot4_client`, `godot3` for
//! `examples/godot3_client` (`cargo run --example multiplayer_server -- 4242 godot3`, then
//! `./.godot-oracles/bin/godot3.6 --path examples/godot3_client`, or `godot3.2`). The
//! engines encode the same message differently, so a server for the other engine ignores
//! every message (and says so on stderr), and the client gives up after 5 s: `no answer
//! from the server at 127.0.0.1:4242 (is it started with the dialect godot4?)`, exit code
//! 1. Without a server it is `cannot reach the server at 127.0.0.1:4242`, exit code 1.
//!
//! The first player in greets each newcomer and moves; the newcomer answers the greeting,
//! moves and leaves; the last player left leaves too, so a client alone waits for
//! company. Each client prints every message it sends and receives, in order, as
//! `SEND <text>` / `RECV <text>`, and `DONE` once it has left. The server prints a line
//! for each connection and closing, and one for each message it receives (`->`) and
//! sends (`<-`). `<text>` is the dialect's `var2str` / `var_to_str` text on one line:
//! `\`, newline and carriage return written `\\`, `\n` and `\r` (see [`one_line`]).
//!
//! ```text
//! listening on 127.0.0.1:4242 for Godot4 clients
//! [client 127.0.0.1:53932] connected
//! [client 127.0.0.1:53932] -> {\n"Join": {\n"name": "Ann"\n}\n}
//! [client 127.0.0.1:53932] <- {\n"Welcome": {\n"id": 1\n}\n}
//! ```
//!
//! Messages are plain serde enums. Serde's default (external) tagging makes each one a
//! dictionary that GDScript writes and reads as is: `{"Join": {"name": "Ann"}}`,
//! `{"Moved": {"id": 2, "position": Vector3(...), "rotation": Quat(...)}}`, and a unit
//! variant is just its name: `"Leave"`.
//!
//! Each connection has a reader thread (this lobby's logic runs there, under one lock)
//! and a writer thread fed by a channel, so a slow client never holds up the others.
//! A message for everyone is encoded once and its bytes are shared by all the outboxes.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use godot_bin::framing::{Framing, VarReader, VarWriter};
use godot_bin::{text, Config, Dialect, ErrorKind, Quat, Variant, Vector3};
use serde::{Deserialize, Serialize};

/// What a client sends.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum ClientMsg {
    /// The first message: `{"Join": {"name": "Ann"}}`.
    Join { name: String },
    /// `{"Chat": {"text": "hi"}}`.
    Chat { text: String },
    /// `{"Move": {"position": Vector3(1, 2, 3), "rotation": Quat(0, 0, 0, 1)}}`.
    Move { position: Vector3, rotation: Quat },
    /// `"Leave"`; closing the connection does the same.
    Leave,
}

/// One player, as the server describes it to clients.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PlayerInfo {
    pub id: i64,
    pub name: String,
    pub position: Vector3,
    pub rotation: Quat,
}

/// What the server sends.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum ServerMsg {
    /// To a player that joined: its id.
    Welcome { id: i64 },
    /// To everyone, whenever someone joins.
    PlayerList { players: Vec<PlayerInfo> },
    /// To the others, when someone joins.
    Joined { id: i64, name: String },
    /// To everyone.
    Chat { from: i64, text: String },
    /// To everyone, when a player moves.
    Moved {
        id: i64,
        position: Vector3,
        rotation: Quat,
    },
    /// To everyone, when a player leaves or disconnects.
    Left { id: i64 },
}

/// One encoded message on its way to one or more clients, with its text for the log.
struct Frame {
    bytes: Vec<u8>,
    text: String,
}

/// Messages on their way to one client.
type Outbox = Sender<Arc<Frame>>;

/// Where the server's log lines go: standard output in `main`.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// Godot's text form on one line, as the server logs it and the example clients print
/// it: every `\` becomes `\\`, every newline `\n` and every carriage return `\r`.
/// Nothing else changes, so undoing the three escapes gives the text back exactly.
pub fn one_line(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

struct Player {
    info: PlayerInfo,
    outbox: Outbox,
}

/// The game state shared by all connections.
pub struct Lobby {
    cfg: Config,
    next_id: i64,
    players: BTreeMap<i64, Player>,
}

impl Lobby {
    pub fn new(cfg: Config) -> Self {
        Lobby {
            cfg,
            next_id: 1,
            players: BTreeMap::new(),
        }
    }

    /// The message's bytes and its text in the server's dialect.
    fn frame(&self, msg: &ServerMsg) -> Option<Arc<Frame>> {
        let encoded = self.cfg.to_vec(msg).and_then(|bytes| {
            let text = text::to_string(msg, self.cfg.get_dialect())?;
            Ok(Frame {
                bytes,
                text: one_line(&text),
            })
        });
        match encoded {
            Ok(frame) => Some(Arc::new(frame)),
            Err(e) => {
                eprintln!("cannot encode {msg:?}: {e}");
                None
            }
        }
    }

    /// Encodes `msg` once and queues it for every player.
    fn broadcast(&self, msg: &ServerMsg) {
        let Some(frame) = self.frame(msg) else { return };
        for player in self.players.values() {
            // A closed outbox belongs to a player whose reader is about to remove it.
            let _ = player.outbox.send(Arc::clone(&frame));
        }
    }

    fn send(&self, outbox: &Outbox, msg: &ServerMsg) {
        if let Some(frame) = self.frame(msg) {
            let _ = outbox.send(frame);
        }
    }

    /// Acts on one message from the connection whose player is `me` (`None` before it
    /// joined). Returns the player id after the message, `None` once it left.
    fn handle(&mut self, me: Option<i64>, msg: ClientMsg, outbox: &Outbox) -> Option<i64> {
        match (me, msg) {
            (None, ClientMsg::Join { name }) => {
                let id = self.next_id;
                self.next_id += 1;
                self.send(outbox, &ServerMsg::Welcome { id });
                self.broadcast(&ServerMsg::Joined {
                    id,
                    name: name.clone(),
                });
                let info = PlayerInfo {
                    id,
                    name,
                    position: Vector3::default(),
                    rotation: Quat::IDENTITY,
                };
                let outbox = outbox.clone();
                self.players.insert(id, Player { info, outbox });
                let players = self.players.values().map(|p| p.info.clone()).collect();
                self.broadcast(&ServerMsg::PlayerList { players });
                Some(id)
            }
            (Some(id), ClientMsg::Chat { text }) => {
                self.broadcast(&ServerMsg::Chat { from: id, text });
                Some(id)
            }
            (Some(id), ClientMsg::Move { position, rotation }) => {
                if let Some(player) = self.players.get_mut(&id) {
                    player.info.position = position;
                    player.info.rotation = rotation;
                }
                self.broadcast(&ServerMsg::Moved {
                    id,
                    position,
                    rotation,
                });
                Some(id)
            }
            (Some(id), ClientMsg::Leave) => {
                self.leave(id);
                None
            }
            (None, ClientMsg::Leave) => None,
            (me, msg) => {
                eprintln!("player {me:?}: ignored out-of-turn {msg:?}");
                me
            }
        }
    }

    fn leave(&mut self, id: i64) {
        self.broadcast(&ServerMsg::Left { id });
        // Dropping the player's outbox lets its writer finish and close the connection.
        self.players.remove(&id);
    }
}

/// Serves clients on `listener`, each on its own threads, for as long as it accepts.
/// Each connection logs `[client <address>] connected`, one line per message it
/// receives (`-> <text>`) and sends (`<- <text>`), and `closed`.
pub fn serve(listener: TcpListener, cfg: Config, log: Log) {
    let lobby = Arc::new(Mutex::new(Lobby::new(cfg)));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                eprintln!("accept: {e}");
                continue;
            }
        };
        let lobby = Arc::clone(&lobby);
        let log = Arc::clone(&log);
        thread::spawn(move || {
            let peer = stream.peer_addr().map_or("?".into(), |a| a.to_string());
            let who = format!("[client {peer}]");
            log(&format!("{who} connected"));
            if let Err(e) = client(stream, cfg, &lobby, &who, &log) {
                eprintln!("{who} {e}");
            }
            log(&format!("{who} closed"));
        });
    }
}

/// Reads one client's messages until it leaves or disconnects.
fn client(
    stream: TcpStream,
    cfg: Config,
    lobby: &Mutex<Lobby>,
    who: &str,
    log: &Log,
) -> godot_bin::Result<()> {
    stream.set_nodelay(true)?;
    let (outbox, queue) = mpsc::channel();
    let out = VarWriter::new(stream.try_clone()?, Framing::PacketPeerStream);
    let writer = {
        let (who, log) = (who.to_owned(), Arc::clone(log));
        thread::spawn(move || write_loop(out, queue, &who, &log))
    };
    let mut input =
        VarReader::new(BufReader::new(stream), Framing::PacketPeerStream).with_config(cfg);
    let lock = || lobby.lock().unwrap_or_else(PoisonError::into_inner);

    let mut me = None;
    let result = loop {
        // Read a Variant first, to log what came as it came, then take it as a ClientMsg.
        let value = match input.get_var::<Variant>() {
            Ok(Some(value)) => value,
            // The client closed the connection.
            Ok(None) => break Ok(()),
            // The connection is gone, or its frames cannot be trusted any more.
            Err(e) if input.is_desynchronized() || matches!(e.kind(), ErrorKind::Io(_)) => {
                break Err(e)
            }
            // One bad message: the next one may be fine. A client of the other engine
            // sends nothing but bad messages.
            Err(e) => {
                let dialect = cfg.get_dialect();
                eprintln!("{who} ignored a message: {e} (this server is for {dialect:?} clients)");
                continue;
            }
        };
        let text = value.display(cfg.get_dialect()).to_string();
        log(&format!("{who} -> {}", one_line(&text)));
        let msg = match cfg.from_variant::<ClientMsg>(value) {
            Ok(msg) => msg,
            Err(e) => {
                eprintln!("{who} ignored a message that is not a ClientMsg: {e}");
                continue;
            }
        };
        let joined = me.is_some();
        me = lock().handle(me, msg, &outbox);
        if joined && me.is_none() {
            break Ok(());
        }
    };
    if let Some(id) = me {
        lock().leave(id);
    }
    // The writer ends once every sender of its queue is gone: it sends what is queued
    // (the Left message included), then closes the connection.
    drop(outbox);
    let _ = writer.join();
    result
}

fn write_loop(mut out: VarWriter<TcpStream>, queue: Receiver<Arc<Frame>>, who: &str, log: &Log) {
    for frame in queue {
        if out.put_frame(&frame.bytes).is_err() {
            // The client is gone; its reader notices and cleans up.
            break;
        }
        log(&format!("{who} <- {}", frame.text));
    }
    let _ = out.get_ref().shutdown(std::net::Shutdown::Write);
}

const USAGE: &str = "usage: multiplayer_server [PORT [godot3|godot4]] (defaults: 4242 godot3)";

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let port: u16 = match args.next().map(|p| p.parse()) {
        None => 4242,
        Some(Ok(port)) => port,
        Some(Err(_)) => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let dialect = match args.next().as_deref() {
        None | Some("godot3") => Dialect::Godot3,
        Some("godot4") => Dialect::Godot4,
        Some(_) => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!(
        "listening on {} for {dialect:?} clients",
        listener.local_addr()?
    );
    let log: Log = Arc::new(|line| println!("{line}"));
    serve(listener, Config::new().dialect(dialect), log);
    Ok(())
}
