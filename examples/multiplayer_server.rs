//! A lobby server for Godot games: players join, chat, move and leave, and everyone
//! sees everyone. The GDScript clients are in `examples/godot3_client/` and
//! `examples/godot4_client/`; they use `PacketPeerStream` over `StreamPeerTCP`, so every
//! message is a little-endian length and one Variant.
//!
//! ```sh
//! cargo run --example multiplayer_server -- 4242 godot4    # or godot3
//! godot4 --path examples/godot4_client                     # then start clients
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
use godot_bin::{Config, Dialect, ErrorKind, Quat, Vector3};
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

/// Encoded messages on their way to one client.
type Outbox = Sender<Arc<[u8]>>;

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

    /// Encodes `msg` once and queues it for every player.
    fn broadcast(&self, msg: &ServerMsg) {
        let bytes: Arc<[u8]> = match self.cfg.to_vec(msg) {
            Ok(bytes) => bytes.into(),
            Err(e) => return eprintln!("cannot encode {msg:?}: {e}"),
        };
        for player in self.players.values() {
            // A closed outbox belongs to a player whose reader is about to remove it.
            let _ = player.outbox.send(Arc::clone(&bytes));
        }
    }

    fn send(&self, outbox: &Outbox, msg: &ServerMsg) {
        match self.cfg.to_vec(msg) {
            Ok(bytes) => {
                let _ = outbox.send(bytes.into());
            }
            Err(e) => eprintln!("cannot encode {msg:?}: {e}"),
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
pub fn serve(listener: TcpListener, cfg: Config) {
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
        thread::spawn(move || {
            let peer = stream.peer_addr().map_or("?".into(), |a| a.to_string());
            if let Err(e) = client(stream, cfg, &lobby) {
                eprintln!("client {peer}: {e}");
            }
        });
    }
}

/// Reads one client's messages until it leaves or disconnects.
fn client(stream: TcpStream, cfg: Config, lobby: &Mutex<Lobby>) -> godot_bin::Result<()> {
    stream.set_nodelay(true)?;
    let (outbox, queue) = mpsc::channel();
    let out = VarWriter::new(stream.try_clone()?, Framing::PacketPeerStream);
    let writer = thread::spawn(move || write_loop(out, queue));
    let mut input =
        VarReader::new(BufReader::new(stream), Framing::PacketPeerStream).with_config(cfg);
    let lock = || lobby.lock().unwrap_or_else(PoisonError::into_inner);

    let mut me = None;
    let result = loop {
        let msg = match input.get_var::<ClientMsg>() {
            Ok(Some(msg)) => msg,
            // The client closed the connection.
            Ok(None) => break Ok(()),
            // The connection is gone, or its frames cannot be trusted any more.
            Err(e) if input.is_desynchronized() || matches!(e.kind(), ErrorKind::Io(_)) => {
                break Err(e)
            }
            // One bad message (not a ClientMsg): the next one may be fine.
            Err(e) => {
                eprintln!("player {me:?}: ignored a message: {e}");
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

fn write_loop(mut out: VarWriter<TcpStream>, queue: Receiver<Arc<[u8]>>) {
    for bytes in queue {
        if out.put_frame(&bytes).is_err() {
            // The client is gone; its reader notices and cleans up.
            break;
        }
    }
    let _ = out.get_ref().shutdown(std::net::Shutdown::Write);
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(4242);
    let dialect = match args.next().as_deref() {
        Some("godot4") => Dialect::Godot4,
        _ => Dialect::Godot3,
    };
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!(
        "listening on {} for {dialect:?} clients",
        listener.local_addr()?
    );
    serve(listener, Config::new().dialect(dialect));
    Ok(())
}
