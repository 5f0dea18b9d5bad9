//! A multiplayer lobby server for Godot clients: players join, chat, move and leave,
//! and everyone sees everyone. The GDScript clients are in `examples/godot3_client/`
//! and `examples/godot4_client/`; they talk with `PacketPeerStream` over
//! `StreamPeerTCP`, so every message is a little-endian length and a Variant.
//!
//! Run: `cargo run --example multiplayer_server -- [port] [godot3|godot4]`, then start
//! the client: `godot --path examples/godot4_client` (set `PORT` in the environment).

use std::collections::BTreeMap;
use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use godot_bin::framing::{Framing, VarReader, VarWriter};
use godot_bin::{Config, Dialect, Quat, Vector3};
use serde::{Deserialize, Serialize};

/// What a client sends. In GDScript: `{"Join": {"name": "Ann"}}`, `"Leave"`, ...
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum ClientMsg {
    Join { name: String },
    Chat { text: String },
    Move { position: Vector3, rotation: Quat },
    Leave,
}

/// One player as the server tells clients about it.
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
    Welcome {
        id: i64,
    },
    PlayerList {
        players: Vec<PlayerInfo>,
    },
    Joined {
        id: i64,
        name: String,
    },
    Chat {
        from: i64,
        text: String,
    },
    Moved {
        id: i64,
        position: Vector3,
        rotation: Quat,
    },
    Left {
        id: i64,
    },
}

struct Player {
    info: PlayerInfo,
    out: VarWriter<TcpStream>,
}

#[derive(Default)]
struct Lobby {
    next_id: i64,
    players: BTreeMap<i64, Player>,
}

impl Lobby {
    /// Sends to every player; a player whose socket fails is dropped.
    fn broadcast(&mut self, msg: &ServerMsg) {
        self.players.retain(|_, p| p.out.put_var(msg).is_ok());
    }
}

/// Serves `clients` connections (forever if `None`), each on its own thread. Every
/// message a client sends is also passed to `log`, for tests.
pub fn serve(
    listener: TcpListener,
    cfg: Config,
    clients: Option<usize>,
    log: Option<Sender<(i64, ClientMsg)>>,
) -> std::io::Result<()> {
    let lobby = Arc::new(Mutex::new(Lobby::default()));
    let mut handles = Vec::new();
    for stream in listener.incoming().take(clients.unwrap_or(usize::MAX)) {
        let stream = stream?;
        let (lobby, log) = (Arc::clone(&lobby), log.clone());
        handles.push(thread::spawn(move || {
            if let Err(e) = client(stream, cfg, &lobby, log) {
                eprintln!("client: {e}");
            }
        }));
    }
    for h in handles {
        let _ = h.join();
    }
    Ok(())
}

fn client(
    stream: TcpStream,
    cfg: Config,
    lobby: &Mutex<Lobby>,
    log: Option<Sender<(i64, ClientMsg)>>,
) -> godot_bin::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.set_nodelay(true)?;
    let out = VarWriter::new(stream.try_clone()?, Framing::PacketPeerStream).with_config(cfg);
    let mut input =
        VarReader::new(BufReader::new(stream), Framing::PacketPeerStream).with_config(cfg);
    let mut out = Some(out);
    let mut id = None;
    while let Some(msg) = input.get_var::<ClientMsg>()? {
        let mut lobby = lobby.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(log) = &log {
            let _ = log.send((id.unwrap_or(0), msg.clone()));
        }
        match (msg, id) {
            (ClientMsg::Join { name }, None) => {
                lobby.next_id += 1;
                let me = lobby.next_id;
                id = Some(me);
                let mut w = out.take().expect("one join per connection");
                w.put_var(&ServerMsg::Welcome { id: me })?;
                lobby.broadcast(&ServerMsg::Joined {
                    id: me,
                    name: name.clone(),
                });
                let info = PlayerInfo {
                    id: me,
                    name,
                    position: Vector3::default(),
                    rotation: Quat::IDENTITY,
                };
                lobby.players.insert(me, Player { info, out: w });
                let players = lobby.players.values().map(|p| p.info.clone()).collect();
                lobby.broadcast(&ServerMsg::PlayerList { players });
            }
            (ClientMsg::Chat { text }, Some(me)) => {
                lobby.broadcast(&ServerMsg::Chat { from: me, text })
            }
            (ClientMsg::Move { position, rotation }, Some(me)) => {
                if let Some(p) = lobby.players.get_mut(&me) {
                    p.info.position = position;
                    p.info.rotation = rotation;
                }
                lobby.broadcast(&ServerMsg::Moved {
                    id: me,
                    position,
                    rotation,
                });
            }
            (ClientMsg::Leave, Some(me)) => {
                lobby.broadcast(&ServerMsg::Left { id: me });
                lobby.players.remove(&me);
                return Ok(());
            }
            (msg, _) => eprintln!("ignored out-of-order message {msg:?}"),
        }
    }
    if let Some(me) = id {
        let mut lobby = lobby.lock().unwrap_or_else(|e| e.into_inner());
        lobby.players.remove(&me);
        lobby.broadcast(&ServerMsg::Left { id: me });
    }
    Ok(())
}

#[allow(dead_code)]
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
    serve(listener, Config::new().dialect(dialect), None, None)
}
