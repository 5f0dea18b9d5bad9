//! Arena: a Rust server for Godot clients (`multiplayer/examples/arena-godot4/`,
//! `arena-godot3/`). Players join with a name, move around a 100×100 field, chat,
//! and tag whoever is within 10 units for a point (once per 2 s); the server keeps the state,
//! checks every call and tells everyone. It prints the game as it goes.
//!
//! ```text
//! cargo run -p godot-bin-multiplayer --features websocket,enet --example arena -- [OPTIONS]
//!   --transport ws|enet   (default ws)      --godot3   (Godot 3 clients)
//!   --port N              (default 9080)    --seconds N (stop after N s; default 60)
//! godot4 --path multiplayer/examples/arena-godot4        # a client (add --headless)
//! godot3 --path multiplayer/examples/arena-godot3
//! ```
//! The clients read `ARENA_PORT`, `ARENA_TRANSPORT`, `ARENA_NAME` and
//! `ARENA_SECONDS` from the environment (same defaults).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use godot_bin::{Variant, Vector2};
use godot_bin_multiplayer::{enet, ws, Delivery, Event, Protocol, RpcMode, Scene, Target};

/// The rpc methods of the clients' `Arena` node, as its script declares them: the
/// players' calls `@rpc("any_peer")` (Godot 3: `remote`), the server's `@rpc`, which
/// only the authority, the server, may call (Godot 3: `puppet`): a client's call of
/// one of those is dropped here.
fn scene() -> Scene {
    let players = ["join", "move", "say", "tag"].map(|m| (m, RpcMode::AnyPeer));
    let server =
        ["welcome", "joined", "moved", "chat", "scored", "left"].map(|m| (m, RpcMode::Authority));
    Scene::new().node("Arena", players.into_iter().chain(server))
}

struct Player {
    name: String,
    pos: Vector2,
    score: i64,
    /// A player scores at most once per cooldown.
    last_tag: Option<Instant>,
}

const COOLDOWN: Duration = Duration::from_secs(2);

enum Server {
    Ws(ws::Server),
    Enet(enet::Server),
}

impl Server {
    async fn next_event(&mut self) -> Option<Event> {
        match self {
            Server::Ws(s) => s.next_event().await,
            Server::Enet(s) => s.next_event().await,
        }
    }

    fn call(&mut self, to: Target, method: &str, args: Vec<Variant>) {
        let r = match self {
            Server::Ws(s) => s.call(to, "Arena", method, args).map_err(|e| e.to_string()),
            Server::Enet(s) => s
                .call(to, "Arena", method, args, Delivery::default())
                .map_err(|e| e.to_string()),
        };
        if let Err(e) = r {
            eprintln!("could not send {method}: {e}");
        }
    }

    fn kick(&mut self, peer: i32) {
        match self {
            Server::Ws(s) => s.kick(peer),
            Server::Enet(s) => s.kick(peer),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut transport = "ws".to_string();
    let (mut port, mut seconds, mut protocol) = (9080u16, 60u64, Protocol::Godot4);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--transport" => transport = args.next().ok_or("--transport ws|enet")?,
            "--port" => port = args.next().ok_or("--port N")?.parse()?,
            "--seconds" => seconds = args.next().ok_or("--seconds N")?.parse()?,
            "--godot3" => protocol = Protocol::Godot3,
            _ => return Err(format!("unknown option {a}").into()),
        }
    }
    let addr = ("127.0.0.1", port);
    let mut server = match transport.as_str() {
        "ws" => Server::Ws(
            ws::Server::bind_with(
                addr,
                scene(),
                ws::Config {
                    protocol,
                    ..Default::default()
                },
            )
            .await?,
        ),
        "enet" => Server::Enet(
            enet::Server::bind_with(
                addr,
                scene(),
                enet::Config {
                    protocol,
                    ..Default::default()
                },
            )
            .await?,
        ),
        t => return Err(format!("unknown transport {t}").into()),
    };
    println!("arena: {transport} on 127.0.0.1:{port} for {seconds} s ({protocol:?} clients)");
    let mut players: BTreeMap<i32, Player> = BTreeMap::new();
    let stop = tokio::time::sleep(Duration::from_secs(seconds));
    tokio::pin!(stop);
    loop {
        let event = tokio::select! {
            () = &mut stop => break,
            e = server.next_event() => match e { Some(e) => e, None => break },
        };
        match event {
            Event::PeerConnected(id) => println!("peer {id} connected"),
            Event::PeerDisconnected(id) => {
                if let Some(p) = players.remove(&id) {
                    println!("{} left with {} points", p.name, p.score);
                    server.call(Target::All, "left", vec![Variant::Int(id.into())]);
                }
            }
            Event::Refused { peer, reason } => println!("peer {peer} dropped: {reason}"),
            Event::Dropped { peer, reason } => println!("a call of peer {peer} ignored: {reason}"),
            Event::Call(call) => {
                let from = call.from;
                match (call.method.as_str(), players.contains_key(&from)) {
                    ("join", false) => {
                        let Ok((name,)) = call.args::<(String,)>() else {
                            server.kick(from);
                            continue;
                        };
                        let name: String = name.chars().take(16).collect();
                        println!("{name} joined as {from}");
                        // The newcomer gets everyone; everyone gets the newcomer.
                        let everyone: Vec<Variant> = players
                            .iter()
                            .map(|(id, p)| {
                                Variant::Array(vec![
                                    Variant::Int((*id).into()),
                                    Variant::String(p.name.clone()),
                                    Variant::Vector2(p.pos),
                                    Variant::Int(p.score),
                                ])
                            })
                            .collect();
                        server.call(
                            Target::Peer(from),
                            "welcome",
                            vec![Variant::Int(from.into()), Variant::Array(everyone)],
                        );
                        server.call(
                            Target::AllBut(from),
                            "joined",
                            vec![Variant::Int(from.into()), Variant::String(name.clone())],
                        );
                        players.insert(
                            from,
                            Player {
                                name,
                                pos: Vector2::new(50.0, 50.0),
                                score: 0,
                                last_tag: None,
                            },
                        );
                    }
                    ("move", true) => {
                        let Ok((pos,)) = call.args::<(Vector2,)>() else {
                            server.kick(from);
                            continue;
                        };
                        let pos = Vector2::new(pos.x.clamp(0.0, 100.0), pos.y.clamp(0.0, 100.0));
                        players.get_mut(&from).expect("joined").pos = pos;
                        server.call(
                            Target::AllBut(from),
                            "moved",
                            vec![Variant::Int(from.into()), Variant::Vector2(pos)],
                        );
                    }
                    ("say", true) => {
                        let Ok((text,)) = call.args::<(String,)>() else {
                            server.kick(from);
                            continue;
                        };
                        let text: String = text.chars().take(200).collect();
                        println!("<{}> {text}", players[&from].name);
                        server.call(
                            Target::All,
                            "chat",
                            vec![Variant::Int(from.into()), Variant::String(text)],
                        );
                    }
                    ("tag", true) => {
                        let Ok((other,)) = call.args::<(i32,)>() else {
                            server.kick(from);
                            continue;
                        };
                        let a = players[&from].pos;
                        let rested = players[&from]
                            .last_tag
                            .map_or(true, |t| t.elapsed() >= COOLDOWN);
                        // The server decides: only another player within reach counts.
                        let reach = players
                            .get(&other)
                            .filter(|_| other != from)
                            .map(|p| (a.x - p.pos.x).hypot(a.y - p.pos.y) <= 10.0);
                        if rested && reach == Some(true) {
                            let p = players.get_mut(&from).expect("joined");
                            p.score += 1;
                            p.last_tag = Some(Instant::now());
                            let (p, o) = (&players[&from], &players[&other]);
                            println!("{} tagged {} ({} points)", p.name, o.name, p.score);
                            let score = p.score;
                            server.call(
                                Target::All,
                                "scored",
                                vec![Variant::Int(from.into()), Variant::Int(score)],
                            );
                        }
                    }
                    (method, _) => println!("peer {from}: {method} out of turn, ignored"),
                }
            }
            _ => {}
        }
    }
    println!("final scores:");
    for p in players.values() {
        println!("  {}: {}", p.name, p.score);
    }
    Ok(())
}
