//! A Rust bot for the arena (`examples/arena.rs`): it joins like the Godot clients
//! do, wanders, chats, and prints what the server tells it, for N seconds.
//!
//! ```text
//! cargo run -p godot-bin-multiplayer --features websocket --example arena_bot -- [--port 9080] [--name bot] [--seconds 30]
//! ```

use std::time::Duration;

use godot_bin::Vector2;
use godot_bin_multiplayer::ws::Client;
use godot_bin_multiplayer::{Event, RpcMode, Scene, Target};

/// The same rpc methods as the clients' `Arena` node, with the same modes: the
/// server's calls come from the node's authority, the server.
fn scene() -> Scene {
    let players = ["join", "move", "say", "tag"].map(|m| (m, RpcMode::AnyPeer));
    let server =
        ["welcome", "joined", "moved", "chat", "scored", "left"].map(|m| (m, RpcMode::Authority));
    Scene::new().node("Arena", players.into_iter().chain(server))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut port, mut name, mut seconds) = (9080u16, "rustbot".to_string(), 30u64);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().ok_or("--port N")?.parse()?,
            "--name" => name = args.next().ok_or("--name NAME")?,
            "--seconds" => seconds = args.next().ok_or("--seconds N")?.parse()?,
            _ => return Err(format!("unknown option {a}").into()),
        }
    }
    let mut c = Client::connect(&format!("ws://127.0.0.1:{port}"), scene()).await?;
    c.rpc(Target::Peer(1), "Arena", "join", &(name.as_str(),))
        .await?;
    let mut names = std::collections::HashMap::new();
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    let stop = tokio::time::sleep(Duration::from_secs(seconds));
    tokio::pin!(stop);
    let mut n = 0u32;
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = tick.tick() => {
                n += 1;
                // A slow circle around the middle.
                let a = n as f32 / 10.0;
                let pos = Vector2::new(50.0 + 30.0 * a.cos(), 50.0 + 30.0 * a.sin());
                c.rpc(Target::Peer(1), "Arena", "move", &(pos,)).await?;
                if n % 10 == 0 {
                    c.rpc(Target::Peer(1), "Arena", "say", &(format!("{name} here, lap {}", n / 10),)).await?;
                }
            }
            e = c.next_event() => match e {
                None => break,
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(Event::Call(call))) => match call.method.as_str() {
                    "welcome" => {
                        let (me, everyone): (i64, Vec<(i64, String, Vector2, i64)>) = call.args()?;
                        for (id, n, _, _) in everyone {
                            names.insert(id, n);
                        }
                        println!("bot: I am {me}; {} others here", names.len());
                    }
                    "joined" => {
                        let (id, n): (i64, String) = call.args()?;
                        println!("bot: {n} joined");
                        names.insert(id, n);
                    }
                    "chat" => {
                        let (id, text): (i64, String) = call.args()?;
                        let who = names.get(&id).map_or(name.as_str(), String::as_str);
                        println!("bot: <{who}> {text}");
                    }
                    "scored" => {
                        let (id, points): (i64, i64) = call.args()?;
                        let who = names.get(&id).map_or(name.as_str(), String::as_str);
                        println!("bot: {who} has {points} points");
                    }
                    "left" => {
                        if let Some(n) = call.args().ok().and_then(|(id,): (i64,)| names.remove(&id)) {
                            println!("bot: {n} left");
                        }
                    }
                    _ => {}
                },
                Some(Ok(_)) => {}
            },
        }
    }
    c.close().await?;
    Ok(())
}
