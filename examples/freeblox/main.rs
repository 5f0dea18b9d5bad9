//! The Freeblox protocol served from Rust: a Godot 4 game's own packet layout (not
//! Variants) over WebSocket, through `godot_bin::raw`.
//!
//! ```text
//! cargo run --example freeblox -- [--port 8910] [--sessions 1]
//! godot4 --headless --path examples/freeblox/godot        # in another terminal
//! ```
//!
//! Listens on 127.0.0.1 only, and stops by itself once `--sessions` clients have come
//! and gone (default 1), or after five minutes.

mod protocol;
mod server;

use std::time::Duration;

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let mut port = 8910u16;
    let mut sessions = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--port" => port = value.parse()?,
            "--sessions" => sessions = value.parse()?,
            _ => return Err(format!("unknown argument {arg}").into()),
        }
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!(
        "freeblox: ws://127.0.0.1:{port}, world {:?}, serving {sessions} session(s)",
        server::WORLD
    );
    match tokio::time::timeout(
        Duration::from_secs(300),
        server::serve(listener, Some(sessions)),
    )
    .await
    {
        Ok(result) => result?,
        Err(_) => println!("freeblox: five minutes are up"),
    }
    println!("freeblox: done");
    Ok(())
}
