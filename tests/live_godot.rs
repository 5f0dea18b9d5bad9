//! The real engines as clients and as save-file writers: a Godot 3 / Godot 4 client
//! plays a session against the example server on 127.0.0.1, and the engine writes a
//! `store_var` file that Rust reads, edits and hands back.

mod common;
#[allow(dead_code)]
#[path = "../examples/multiplayer_server.rs"]
mod server;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::*;
use godot_bin::framing::{self, Framing, VarReader, VarWriter};
use godot_bin::{Config, Dialect, Dictionary, PoolStringArray, Quat, Variant, Vector3};
use server::{ClientMsg, PlayerInfo, ServerMsg};

/// Runs `engine` on `project` with `script`, killing it after 60 s; returns stdout.
fn run(
    engine: &Path,
    godot4: bool,
    project: &Path,
    script: &str,
    env: &[(&str, String)],
) -> String {
    let mut cmd = Command::new(engine);
    if godot4 {
        cmd.args(["--headless", "--no-header"]);
    }
    cmd.arg("--path")
        .arg(project)
        .args(["-s", script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("start engine");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "engine failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn session(engine_name: &str, dialect: Dialect, client_dir: &str, name: &str) {
    let Some(engine) = engine(engine_name) else {
        return;
    };
    let cfg = Config::new().dialect(dialect);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    let server = std::thread::spawn(move || server::serve(listener, cfg, Some(1), Some(tx)));
    let project = root().join(client_dir);
    let out = run(
        &engine,
        dialect == Dialect::Godot4,
        &project,
        "client.gd",
        &[("PORT", port.to_string())],
    );
    server.join().unwrap().unwrap();
    assert!(out.lines().any(|l| l == "DONE"), "client output:\n{out}");

    // Everything the engine sent, as the server decoded it.
    let got: Vec<(i64, ClientMsg)> = rx.try_iter().collect();
    let position = Vector3::new(1.0, 2.5, -3.0);
    let rotation = Quat::new(0.0, 0.6, 0.0, 0.8);
    assert_eq!(
        got,
        [
            (0, ClientMsg::Join { name: name.into() }),
            (
                1,
                ClientMsg::Chat {
                    text: "hello from godot".into()
                }
            ),
            (1, ClientMsg::Move { position, rotation }),
            (1, ClientMsg::Leave),
        ]
    );

    // Everything the server sent, as the engine decoded it (and encoded it again).
    let expected = [
        ServerMsg::Welcome { id: 1 },
        ServerMsg::PlayerList {
            players: vec![PlayerInfo {
                id: 1,
                name: name.into(),
                position: Vector3::default(),
                rotation: Quat::IDENTITY,
            }],
        },
        ServerMsg::Chat {
            from: 1,
            text: "hello from godot".into(),
        },
        ServerMsg::Moved {
            id: 1,
            position,
            rotation,
        },
        ServerMsg::Left { id: 1 },
    ];
    let received: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("RECV "))
        .collect();
    assert_eq!(received.len(), expected.len(), "client output:\n{out}");
    for (hex_line, want) in received.iter().zip(&expected) {
        let bytes = unhex(hex_line);
        assert_eq!(cfg.from_slice::<ServerMsg>(&bytes).unwrap(), *want);
        assert_eq!(
            bytes,
            cfg.to_vec(want).unwrap(),
            "the engine re-encodes {want:?} to our bytes"
        );
    }
}

#[test]
fn godot_3_2_client_session() {
    session(
        "godot3.2",
        Dialect::Godot3,
        "examples/godot3_client",
        "Godot3",
    );
}

#[test]
fn godot_3_6_client_session() {
    session(
        "godot3.6",
        Dialect::Godot3,
        "examples/godot3_client",
        "Godot3",
    );
}

#[test]
fn godot_4_6_client_session() {
    session(
        "godot4",
        Dialect::Godot4,
        "examples/godot4_client",
        "Godot4",
    );
}

/// The engine writes a store_var file (little- or big-endian lengths), Rust reads it,
/// edits it and writes it back, and the engine reads the edited values.
fn save_file(engine_name: &str, dialect: Dialect, big_endian: bool) {
    let Some(engine) = engine(engine_name) else {
        return;
    };
    let godot4 = dialect == Dialect::Godot4;
    let dir = tempdir();
    let script = if godot4 {
        "tests/oracle/store_var4.gd"
    } else {
        "tests/oracle/store_var3.gd"
    };
    std::fs::copy(root().join(script), dir.join("s.gd")).unwrap();
    std::fs::write(
        dir.join("project.godot"),
        if godot4 {
            "config_version=5\n"
        } else {
            "config_version=4\n[logging]\nfile_logging/enable_file_logging.pc=false\n"
        },
    )
    .unwrap();
    let file = dir.join("save.bin");
    let env = |mode: &str| {
        vec![
            ("MODE", mode.to_string()),
            ("FILE", file.display().to_string()),
            ("BIG_ENDIAN", if big_endian { "1" } else { "0" }.to_string()),
        ]
    };
    run(&engine, godot4, &dir, "s.gd", &env("write"));

    let cfg = Config::new().dialect(dialect);
    let framing = Framing::StreamPeer { big_endian };
    let bytes = std::fs::read(&file).unwrap();
    let mut values: Vec<Variant> = VarReader::new(&bytes[..], framing)
        .with_config(cfg)
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut player = Dictionary::new();
    player.insert("name", "Ann");
    player.insert("hp", 100);
    player.insert("pos", Vector3::new(1.0, 2.0, 3.0));
    assert_eq!(
        values,
        [Variant::Int(42), "hi".into(), Variant::Dictionary(player)]
    );

    // Edit one value in place, then append one.
    if let Variant::Dictionary(d) = &mut values[2] {
        d.insert("hp", 50);
    }
    let mut out = Vec::new();
    let mut w = VarWriter::new(&mut out, framing).with_config(cfg);
    for v in &values {
        w.put_var(v).unwrap();
    }
    std::fs::write(&file, &out).unwrap();
    framing::append(&file, &PoolStringArray(vec!["sword".into()]), cfg, framing).unwrap();
    values.push(PoolStringArray(vec!["sword".into()]).into());

    let text = run(&engine, godot4, &dir, "s.gd", &env("read"));
    let read: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("VALUE "))
        .collect();
    let ours: Vec<String> = values
        .iter()
        .map(|v| v.display(dialect).to_string().replace('\n', " "))
        .collect();
    assert_eq!(read, ours);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn godot_3_2_save_file() {
    save_file("godot3.2", Dialect::Godot3, false);
    save_file("godot3.2", Dialect::Godot3, true);
}

#[test]
fn godot_4_6_save_file() {
    save_file("godot4", Dialect::Godot4, false);
    save_file("godot4", Dialect::Godot4, true);
}

/// `Marshalls.variant_to_base64` in the engine gives our Base64 text.
#[test]
fn base64_matches_the_engine() {
    let Some(engine) = engine("godot3.2") else {
        return;
    };
    let script = "extends SceneTree\nfunc _init():\n\tfor v in [1, \"hi\", Vector3(1, 2, 3), {\"a\": [0.1, null]}]:\n\t\tprint(\"B64 \", Marshalls.variant_to_base64(v))\n\tquit()\n";
    let out = run_script(&engine, false, script, &[]);
    let engine_lines: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("B64 ")).collect();
    let mut d = Dictionary::new();
    d.insert("a", Variant::Array(vec![0.1.into(), Variant::Nil]));
    let ours: Vec<String> = [
        Variant::Int(1),
        "hi".into(),
        Vector3::new(1.0, 2.0, 3.0).into(),
        Variant::Dictionary(d),
    ]
    .iter()
    .map(|v| framing::variant_to_base64(v).unwrap())
    .collect();
    assert_eq!(engine_lines, ours);
}

/// The tokio codec (feature `tokio`) serves the Godot 4 client over a real socket:
/// typed messages both ways through `FramedRead` / `FramedWrite`.
#[cfg(feature = "tokio")]
#[test]
fn tokio_codec_serves_godot_4_client() {
    use futures::{SinkExt, StreamExt};
    use godot_bin::codec::VarCodec;
    use tokio_util::codec::{FramedRead, FramedWrite};

    let Some(engine) = engine("godot4") else {
        return;
    };
    let cfg = Config::new().dialect(Dialect::Godot4);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let project = root().join("examples/godot4_client");
    let client = std::thread::spawn(move || {
        run(
            &engine,
            true,
            &project,
            "client.gd",
            &[("PORT", port.to_string())],
        )
    });
    let got = rt.block_on(async move {
        let (socket, _) = tokio::time::timeout(Duration::from_secs(30), listener.accept())
            .await
            .unwrap()
            .unwrap();
        let (r, w) = socket.into_split();
        let mut input = FramedRead::new(
            r,
            VarCodec::<ClientMsg>::new(Framing::PacketPeerStream).with_config(cfg),
        );
        let mut output = FramedWrite::new(
            w,
            VarCodec::<ServerMsg>::new(Framing::PacketPeerStream).with_config(cfg),
        );
        let mut got = Vec::new();
        while let Some(msg) = tokio::time::timeout(Duration::from_secs(30), input.next())
            .await
            .unwrap()
        {
            let msg = msg.unwrap();
            got.push(msg.clone());
            let replies = match msg {
                ClientMsg::Join { name } => vec![
                    ServerMsg::Welcome { id: 1 },
                    ServerMsg::PlayerList {
                        players: vec![PlayerInfo {
                            id: 1,
                            name,
                            position: Vector3::default(),
                            rotation: Quat::IDENTITY,
                        }],
                    },
                ],
                ClientMsg::Chat { text } => vec![ServerMsg::Chat { from: 1, text }],
                ClientMsg::Move { position, rotation } => vec![ServerMsg::Moved {
                    id: 1,
                    position,
                    rotation,
                }],
                ClientMsg::Leave => vec![ServerMsg::Left { id: 1 }],
            };
            for reply in replies {
                output.send(reply).await.unwrap();
            }
        }
        got
    });
    let out = client.join().unwrap();
    assert!(out.lines().any(|l| l == "DONE"), "client output:\n{out}");
    assert_eq!(got.len(), 4);
    assert_eq!(
        got[0],
        ClientMsg::Join {
            name: "Godot4".into()
        }
    );
    assert_eq!(got[3], ClientMsg::Leave);
}
