//! The server side of the load test (`multiplayer/scripts/load-test.sh`): every
//! `ping(seq, sent_us)` a client sends is forwarded as `pong(from, seq, sent_us)` to
//! the 10 clients after it in id order (a ring), as
//! `multiplayer/tests/oracle/load_server4.gd` does in GDScript for the engine.
//!
//! ```text
//! cargo run --release -p godot-bin-multiplayer --features websocket,enet --example load_server -- \
//!     --transport ws|enet --port N --seconds N
//! ```

use std::collections::BTreeSet;
use std::time::Duration;

use godot_bin_multiplayer::{enet, ws, Event, Scene, Target};

const NEIGHBOURS: usize = 10;

/// The rpc methods of the load test's `Load` node.
pub fn scene() -> Scene {
    Scene::new().node("Load", ["ping", "pong"])
}

enum Server {
    Ws(ws::Server),
    Enet(enet::Server),
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut transport, mut port, mut seconds) = ("ws".to_string(), 9090u16, 60u64);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--transport" => transport = args.next().ok_or("--transport ws|enet")?,
            "--port" => port = args.next().ok_or("--port N")?.parse()?,
            "--seconds" => seconds = args.next().ok_or("--seconds N")?.parse()?,
            _ => return Err(format!("unknown option {a}").into()),
        }
    }
    let addr = ("127.0.0.1", port);
    let mut server = match transport.as_str() {
        "ws" => Server::Ws(ws::Server::bind(addr, scene()).await?),
        "enet" => Server::Enet(enet::Server::bind(addr, scene()).await?),
        t => return Err(format!("unknown transport {t}").into()),
    };
    println!("listening");
    let mut peers: BTreeSet<i32> = BTreeSet::new();
    let stop = tokio::time::sleep(Duration::from_secs(seconds));
    tokio::pin!(stop);
    loop {
        let event = tokio::select! {
            () = &mut stop => break,
            e = async {
                match &mut server {
                    Server::Ws(s) => s.next_event().await,
                    Server::Enet(s) => s.next_event().await,
                }
            } => match e { Some(e) => e, None => break },
        };
        match event {
            Event::PeerConnected(id) => {
                peers.insert(id);
            }
            Event::PeerDisconnected(id) => {
                peers.remove(&id);
            }
            Event::Call(call) if call.method == "ping" => {
                let Ok((seq, sent)) = call.args::<(i64, i64)>() else {
                    continue;
                };
                let args = (call.from, seq, sent);
                let ring = peers
                    .range(call.from + 1..)
                    .chain(peers.range(..call.from))
                    .take(NEIGHBOURS)
                    .copied()
                    .collect::<Vec<_>>();
                for to in ring {
                    let r = match &mut server {
                        Server::Ws(s) => s
                            .rpc(Target::Peer(to), "Load", "pong", &args)
                            .map_err(|e| e.to_string()),
                        Server::Enet(s) => s
                            .rpc(Target::Peer(to), "Load", "pong", &args)
                            .map_err(|e| e.to_string()),
                    };
                    if let Err(e) = r {
                        eprintln!("pong to {to}: {e}");
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
