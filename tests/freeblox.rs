//! The Freeblox example end to end on loopback: the Rust server (examples/freeblox),
//! a Rust bot and the real Godot 4 client (examples/freeblox/godot), which plays a
//! session and checks every packet type both ways with the server.

mod common;

#[path = "../examples/freeblox/protocol.rs"]
mod protocol;
#[path = "../examples/freeblox/server.rs"]
mod server;

use std::process::Command;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use protocol::{config, Packet};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const LIMIT: Duration = Duration::from_secs(60);

async fn send(ws: &mut Socket, p: &Packet) {
    ws.send(Message::binary(config().to_vec(p).unwrap()))
        .await
        .unwrap();
}

/// The next packet, or `None` when the server closed the socket.
async fn receive(ws: &mut Socket) -> Option<Packet> {
    loop {
        let message = tokio::time::timeout(LIMIT, ws.next())
            .await
            .expect("a packet within the time limit")?
            .ok()?;
        match message {
            Message::Binary(b) => return Some(config().from_slice(&b).unwrap()),
            Message::Close(_) => return None,
            _ => continue,
        }
    }
}

async fn connect(port: u16) -> Socket {
    tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}"))
        .await
        .unwrap()
        .0
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_wrong_version_gets_an_error_and_the_door() {
    runtime().block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let serving = tokio::spawn(server::serve(listener, Some(1)));
        let mut ws = connect(port).await;
        send(&mut ws, &Packet::Auth { player: "x".into(), token: "t".into(), version: 9 }).await;
        assert!(matches!(receive(&mut ws).await, Some(Packet::Error { kind }) if kind.contains("version")));
        assert_eq!(receive(&mut ws).await, None);
        tokio::time::timeout(LIMIT, serving).await.unwrap().unwrap().unwrap();
    });
}

#[test]
fn the_godot_client_plays_and_checks_every_packet_type() {
    let Some(godot) = common::engine("godot4") else {
        return;
    };
    // A copy of the client project: the engine writes its cache next to it.
    let project = common::tempdir();
    for file in ["project.godot", "client.gd", "client.tscn"] {
        std::fs::copy(
            common::root().join("examples/freeblox/godot").join(file),
            project.join(file),
        )
        .unwrap();
    }
    runtime().block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let serving = tokio::spawn(server::serve(listener, Some(2)));

        // A Rust bot joins first and gets the world.
        let mut bot = connect(port).await;
        send(
            &mut bot,
            &Packet::Auth {
                player: "rust-bot".into(),
                token: "t".into(),
                version: 1,
            },
        )
        .await;
        let mut first = Vec::new();
        for _ in 0..10 {
            first.push(receive(&mut bot).await.expect("the welcome"));
        }
        assert_eq!(
            first[0],
            Packet::StreamStart {
                world: server::WORLD.into()
            }
        );
        assert!(
            matches!(&first[9], Packet::PlayerCharacter { player, .. } if player == "rust-bot")
        );

        // The Godot client plays its session.
        let dir = project.clone();
        let client = tokio::task::spawn_blocking(move || {
            let mut cmd = Command::new(godot);
            cmd.args(["--headless", "--no-header", "--path"])
                .arg(&dir)
                .env("FREEBLOX_PORT", port.to_string());
            common::output_within(cmd, LIMIT)
        });

        // What the bot sees of it: the join, the chat, the movement, the quit.
        let mut seen = Vec::new();
        while let Some(p) = receive(&mut bot).await {
            let quit = matches!(p, Packet::PlayerQuit { .. });
            seen.push(p);
            if quit {
                break;
            }
        }
        let out = client
            .await
            .unwrap()
            .expect("the Godot client finishes within the limit");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("FREEBLOX OK"),
            "{}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let me = "9b2f-godot-client".to_string();
        let name = "player-9b2f-god".to_string();
        assert_eq!(
            seen,
            [
                Packet::PlayerJoin {
                    player: me.clone(),
                    name: name.clone()
                },
                Packet::StreamChat {
                    player: me.clone(),
                    kind: "global".into(),
                    message: "hello from Godot ✓".into()
                },
                Packet::PlayerMovement {
                    player: me.clone(),
                    linear_velocity: godot_bin::Vector3::new(1.0, 0.0, 0.5),
                    look_at: godot_bin::Vector3::new(0.0, 0.0, 1.0),
                    jump: true,
                },
                Packet::PlayerQuit {
                    player: me,
                    name,
                    reason: "left".into()
                },
            ]
        );
        bot.close(None).await.unwrap();
        tokio::time::timeout(LIMIT, serving)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    });
    let _ = std::fs::remove_dir_all(&project);
}
