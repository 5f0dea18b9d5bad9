//! The arena example (`examples/arena.rs`) with two real clients each: Godot 4.6 over
//! WebSocket (with the Rust bot, `examples/arena_bot.rs`, playing beside them) and
//! Godot 3.6 over ENet, headless, on loopback. All join, chat and leave, and the
//! server's log shows it.
#![cfg(all(feature = "websocket", feature = "enet"))]

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::engine;

/// An example binary cargo built beside this test.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    dir.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

fn play(bin: &std::path::Path, project: &str, transport: &str, godot3: bool, port: u16) {
    let mut server = Command::new(example("arena"));
    server.args([
        "--transport",
        transport,
        "--port",
        &port.to_string(),
        "--seconds",
        "7",
    ]);
    if godot3 {
        server.arg("--godot3");
    }
    let server = server
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example was built (cargo test builds examples)");
    std::thread::sleep(Duration::from_millis(500));
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(project);
    let clients: Vec<_> = ["ada", "bob"]
        .into_iter()
        .map(|name| {
            let mut c = Command::new("timeout");
            c.args(["-s", "KILL", "30"]).arg(bin);
            c.arg(if godot3 { "--no-window" } else { "--headless" });
            c.arg("--path")
                .arg(&dir)
                .env("ARENA_PORT", port.to_string())
                .env("ARENA_TRANSPORT", transport)
                .env("ARENA_NAME", name)
                .env("ARENA_SECONDS", "5")
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    // The Rust bot plays too, beside the Godot 4 clients.
    let bot = (!godot3).then(|| {
        Command::new(example("arena_bot"))
            .args([
                "--port",
                &port.to_string(),
                "--name",
                "rusty",
                "--seconds",
                "5",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    });
    let logs: Vec<String> = clients
        .into_iter()
        .map(|c| String::from_utf8(c.wait_with_output().unwrap().stdout).unwrap())
        .collect();
    if let Some(bot) = bot {
        let out = bot.wait_with_output().unwrap();
        assert!(out.status.success());
        let log = String::from_utf8(out.stdout).unwrap();
        assert!(log.contains("bot: I am "), "{log}");
        assert!(
            log.contains("bot: <ada> ") && log.contains("bot: <bob> "),
            "{log}"
        );
    }
    let out = server.wait_with_output().unwrap();
    assert!(out.status.success());
    let log = String::from_utf8(out.stdout).unwrap();
    for name in ["ada", "bob"] {
        assert!(log.contains(&format!("{name} joined as ")), "{log}");
        assert!(log.contains(&format!("<{name}> ")), "{log}");
        assert!(log.contains(&format!("{name} left with ")), "{log}");
    }
    assert!(log.contains("final scores:"), "{log}");
    for (me, other) in [(0, 1), (1, 0)] {
        let theirs = ["ada", "bob"][other];
        assert!(logs[me].contains("arena: I am "), "{}", logs[me]);
        assert!(
            logs[me].contains(&format!("arena: <{theirs}> ")),
            "{}",
            logs[me]
        );
    }
}

#[test]
fn godot4_clients_play_over_websocket() {
    let Some(bin) = engine("godot4") else { return };
    play(&bin, "arena-godot4", "ws", false, common::free_port());
}

#[test]
fn godot3_clients_play_over_enet() {
    let Some(bin) = engine("godot3.6") else {
        return;
    };
    play(&bin, "arena-godot3", "enet", true, common::free_udp_port());
}
