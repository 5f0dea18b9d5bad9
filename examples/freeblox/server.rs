//! A Freeblox game server: WebSocket, one packet per binary message, every packet the
//! `Packet` enum in the game's own layout (`protocol.rs`).
//!
//! A session: the client authenticates (AUTH; a wrong version or an empty token gets
//! ERROR and the door), receives the world (STREAM_START, an asset, objects, a
//! transform, an event, STREAM_FINISH), the player list and its character; the others
//! get PLAYER_JOIN. Then KEEPALIVE is answered, PLAYER_CHAT goes to everyone as
//! STREAM_CHAT, PLAYER_MOVEMENT to the others, and leaving is PLAYER_QUIT for them.
//!
//! A conformance check for client authors: PLAYER_EVENT with event "conformance" makes
//! the server send [`samples`] (one packet of every type), then compare the next
//! `samples().len()` packets from the client with them, and answer PLAYER_EVENT
//! "conformance" with "ok" or what differed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use godot_bin::{Quat, Vector3};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::protocol::{config, Packet};

/// The client version this server speaks.
pub const VERSION: u8 = 1;
/// The world every client gets.
pub const WORLD: &str = "rust-plaza";
/// A session that sends nothing for this long is closed (clients send KEEPALIVE).
const IDLE: Duration = Duration::from_secs(30);

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The players online: uuid → (name, their outgoing queue).
#[derive(Default)]
pub struct World {
    players: Mutex<HashMap<String, (String, mpsc::UnboundedSender<Packet>)>>,
}

impl World {
    fn broadcast(&self, packet: &Packet, except: Option<&str>) {
        let players = self.players.lock().unwrap();
        for (uuid, (_, tx)) in players.iter() {
            if Some(uuid.as_str()) != except {
                let _ = tx.send(packet.clone());
            }
        }
    }
}

/// Accepts connections on `listener` until `sessions` have ended (`None`: forever).
pub async fn serve(listener: TcpListener, sessions: Option<usize>) -> Result<(), Error> {
    let world = Arc::new(World::default());
    let mut tasks = Vec::new();
    loop {
        if sessions.is_some_and(|n| tasks.len() >= n) {
            break;
        }
        let (stream, _) = listener.accept().await?;
        let world = world.clone();
        tasks.push(tokio::spawn(async move {
            if let Err(e) = session(stream, world).await {
                eprintln!("freeblox: session ended: {e}");
            }
        }));
    }
    for t in tasks {
        t.await?;
    }
    Ok(())
}

/// One packet of every type with fixed values (the conformance check, and the Godot
/// client's `SAMPLES`).
pub fn samples() -> Vec<Packet> {
    let s = |v: &str| v.to_string();
    vec![
        Packet::Auth {
            player: s("p-1"),
            token: s("tøken"),
            version: 1,
        },
        Packet::Keepalive,
        Packet::StreamStart { world: s("wörld") },
        Packet::StreamAsset {
            path: s("res://rock.mesh"),
            name: s("rock"),
            kind: s("Mesh"),
            data: vec![0, 1, 2, 255],
        },
        Packet::StreamObject {
            object: s("o-1"),
            parent: s(""),
            kind: s("Part"),
            data: s("{\"size\":[1,2,3]}"),
        },
        Packet::StreamDestroy { object: s("o-1") },
        Packet::StreamEvent {
            object: s("o-2"),
            event: s("touched"),
            data: s("{\"by\":\"p-1\"}"),
        },
        Packet::StreamFinish { world: s("wörld") },
        Packet::StreamTransform {
            object: s("o-2"),
            position: Vector3::new(1.5, -2.0, 0.25),
            rotation: Quat::new(0.0, 0.5, 0.0, 0.75),
            linear_velocity: Vector3::new(0.0, -9.75, 0.0),
            angular_velocity: Vector3::new(0.125, 0.0, 0.0),
        },
        Packet::StreamChat {
            player: s("p-1"),
            kind: s("global"),
            message: s("hi ✓"),
        },
        Packet::PlayerList {
            players: vec![(s("p-1"), s("Ann")), (s("p-2"), s("Bø"))],
        },
        Packet::PlayerJoin {
            player: s("p-2"),
            name: s("Bø"),
        },
        Packet::PlayerQuit {
            player: s("p-2"),
            name: s("Bø"),
            reason: s("left"),
        },
        Packet::PlayerCharacter {
            player: s("p-1"),
            name: s("Ann"),
            position: Vector3::new(4.0, 0.0, -4.0),
            rotation: Quat::new(0.0, 0.0, 0.0, 1.0),
            character: s("c-1"),
            customization: s("{\"hat\":true}"),
        },
        Packet::PlayerMovement {
            player: s("p-1"),
            linear_velocity: Vector3::new(1.0, 0.0, -1.0),
            look_at: Vector3::new(0.0, 0.0, 1.0),
            jump: true,
        },
        Packet::PlayerChat {
            player: s("p-1"),
            kind: s("team"),
            message: s("go"),
        },
        Packet::PlayerEvent {
            player: s("p-1"),
            object: s("o-2"),
            event: s("use"),
            data: s("{}"),
        },
        Packet::Error { kind: s("none") },
    ]
}

/// What a new player receives after AUTH: the world, then who is here.
fn welcome(uuid: &str, name: &str, others: Vec<(String, String)>) -> Vec<Packet> {
    let s = |v: &str| v.to_string();
    let mut players = others;
    players.push((s(uuid), s(name)));
    vec![
        Packet::StreamStart { world: s(WORLD) },
        Packet::StreamAsset {
            path: s("res://sand.png"),
            name: s("sand"),
            kind: s("Texture"),
            data: vec![137, 80, 78, 71],
        },
        Packet::StreamObject {
            object: s("floor"),
            parent: s(""),
            kind: s("Part"),
            data: s("{\"size\":[64,1,64],\"texture\":\"sand\"}"),
        },
        Packet::StreamObject {
            object: s("tower"),
            parent: s("floor"),
            kind: s("Part"),
            data: s("{\"size\":[4,20,4]}"),
        },
        Packet::StreamObject {
            object: s("bell"),
            parent: s("tower"),
            kind: s("Sound"),
            data: s("{\"volume\":0.5}"),
        },
        Packet::StreamTransform {
            object: s("bell"),
            position: Vector3::new(0.0, 19.5, 0.0),
            rotation: Quat::new(0.0, 0.0, 0.0, 1.0),
            linear_velocity: Vector3::default(),
            angular_velocity: Vector3::new(0.0, 0.5, 0.0),
        },
        Packet::StreamEvent {
            object: s("bell"),
            event: s("ring"),
            data: s("{\"times\":3}"),
        },
        Packet::StreamFinish { world: s(WORLD) },
        Packet::PlayerList { players },
        Packet::PlayerCharacter {
            player: s(uuid),
            name: s(name),
            position: Vector3::new(0.0, 1.0, 8.0),
            rotation: Quat::new(0.0, 0.0, 0.0, 1.0),
            character: format!("char-{uuid}"),
            customization: s("{\"color\":\"teal\"}"),
        },
    ]
}

/// The next packet from the client: `None` when it left or went quiet.
async fn next(
    source: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin),
) -> Result<Option<Packet>, Error> {
    loop {
        let Ok(message) = tokio::time::timeout(IDLE, source.next()).await else {
            return Ok(None);
        };
        match message {
            None | Some(Ok(Message::Close(_))) => return Ok(None),
            Some(Ok(Message::Binary(bytes))) => return Ok(Some(config().from_slice(&bytes)?)),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.into()),
        }
    }
}

async fn session(stream: TcpStream, world: Arc<World>) -> Result<(), Error> {
    let ws = tokio_tungstenite::accept_async(stream).await?;
    let (mut sink, mut source) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Packet>();
    // The writer: this player's queue, one binary message a packet.
    let writer = tokio::spawn(async move {
        while let Some(packet) = rx.recv().await {
            let bytes = config().to_vec(&packet).expect("our packets encode");
            if sink.send(Message::binary(bytes)).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });

    let Some(Packet::Auth {
        player,
        token,
        version,
    }) = next(&mut source).await?
    else {
        let _ = tx.send(Packet::Error {
            kind: "expected AUTH".into(),
        });
        drop(tx);
        writer.await?;
        return Ok(());
    };
    if version != VERSION || token.is_empty() {
        let _ = tx.send(Packet::Error {
            kind: format!("auth: version {VERSION} and a token, please"),
        });
        drop(tx);
        writer.await?;
        return Ok(());
    }
    let name = format!("player-{}", player.chars().take(8).collect::<String>());
    let others: Vec<(String, String)> = {
        let players = world.players.lock().unwrap();
        players
            .iter()
            .map(|(u, (n, _))| (u.clone(), n.clone()))
            .collect()
    };
    for p in welcome(&player, &name, others) {
        let _ = tx.send(p);
    }
    world.broadcast(
        &Packet::PlayerJoin {
            player: player.clone(),
            name: name.clone(),
        },
        None,
    );
    world
        .players
        .lock()
        .unwrap()
        .insert(player.clone(), (name.clone(), tx.clone()));

    let result = play(&mut source, &world, &player, &tx).await;
    world.players.lock().unwrap().remove(&player);
    world.broadcast(
        &Packet::PlayerQuit {
            player: player.clone(),
            name,
            reason: "left".into(),
        },
        None,
    );
    drop(tx);
    writer.await?;
    result
}

/// The game, until the player leaves.
async fn play(
    source: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin),
    world: &World,
    player: &str,
    tx: &mpsc::UnboundedSender<Packet>,
) -> Result<(), Error> {
    while let Some(packet) = next(source).await? {
        match packet {
            Packet::Keepalive => {
                let _ = tx.send(Packet::Keepalive);
            }
            Packet::PlayerChat { kind, message, .. } => {
                world.broadcast(
                    &Packet::StreamChat {
                        player: player.into(),
                        kind,
                        message,
                    },
                    None,
                );
            }
            m @ Packet::PlayerMovement { .. } => world.broadcast(&m, Some(player)),
            Packet::PlayerEvent { event, .. } if event == "conformance" => {
                let samples = samples();
                for p in &samples {
                    let _ = tx.send(p.clone());
                }
                let mut verdict = "ok".to_string();
                for (i, want) in samples.iter().enumerate() {
                    let Some(got) = next(source).await? else {
                        return Ok(());
                    };
                    if &got != want && verdict == "ok" {
                        verdict = format!("packet {i}: got {got:?}");
                    }
                }
                let _ = tx.send(Packet::PlayerEvent {
                    player: player.into(),
                    object: String::new(),
                    event: "conformance".into(),
                    data: verdict,
                });
            }
            other => {
                let _ = tx.send(Packet::Error {
                    kind: format!("unexpected from a client: {other:?}"),
                });
            }
        }
    }
    Ok(())
}
