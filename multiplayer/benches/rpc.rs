//! RPC packets: building and reading Godot 4 remote calls, against the engine's own
//! `var_to_bytes` / `bytes_to_var` of the same argument lists (timed inside GDScript
//! by `multiplayer/tests/oracle/bench_rpc.gd`, the closest part of the engine's RPC
//! path that a script can time; `multiplayer/scripts/bench-rpc.sh` runs both and
//! prints the table).
//!
//! Groups are `rpc/<case>/{encode,decode}`. Each case's argument array, in Godot 4
//! bytes, goes to `$CARGO_TARGET_DIR/bench-data/rpc-<case>.bin` for the engine.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use godot_bin::{Config, Dialect, Dictionary, Variant, Vector3};
use godot_bin_multiplayer::{
    CallRef, Delivery, Event, NodeRef, Packet, RemoteCall, RpcNames, Session, Target,
};

include!("common/rpc_cases.rs");

fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("bench-data")
}

fn rpc(c: &mut Criterion) {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let godot4 = Config::new().dialect(Dialect::Godot4);
    let names = RpcNames::new(METHODS);
    let simplify = Packet::SimplifyPath {
        checksum: names.checksum().to_owned(),
        id: 1,
        path: "Game".into(),
    };
    std::fs::write(dir.join("rpc-simplify.packet"), simplify.encode().unwrap()).unwrap();
    for (name, args) in cases() {
        let array = Variant::Array(args.clone());
        std::fs::write(
            dir.join(format!("rpc-{name}.bin")),
            godot4.to_vec(&array).unwrap(),
        )
        .unwrap();
        let call = Packet::Call(RemoteCall {
            node: NodeRef::Cached(1),
            method: names.id(name).unwrap(),
            args,
        });
        let bytes = call.encode().unwrap();
        std::fs::write(dir.join(format!("rpc-{name}.packet")), &bytes).unwrap();
        assert_eq!(Packet::decode(&bytes).unwrap(), call);
        let mut g = c.benchmark_group(format!("rpc/{name}"));
        let mut out = Vec::with_capacity(bytes.len());
        g.bench_function("encode", |b| {
            b.iter(|| {
                out.clear();
                black_box(&call).encode_into(&mut out).unwrap();
                black_box(out.len())
            })
        });
        g.bench_function("decode", |b| {
            b.iter(|| Packet::decode(black_box(&bytes)).unwrap())
        });
        g.finish();
    }
    typed_args(c);
    session(c);
}

/// The whole path, as a server runs it: a call packet from a peer into a `Session`
/// and out as an `Event::Call` (`session_receive`), or read in place by
/// `Session::receive_call` into the handler's types (`session_receive_in_place`; for
/// `chat`, also with the text borrowed, `session_receive_borrowed`), and
/// `Session::rpc` with the arguments as a Rust tuple out as a `Transmit`
/// (`session_send`), with the node's path cached both ways. The engine's counterpart
/// is `bench_rpc_path.gd`.
fn session(c: &mut Criterion) {
    let (v1, v2) = (Vector3::new(12.5, 0.0, -3.25), Vector3::new(1.0, 0.0, 0.5));
    let mut server = server();
    for (name, args) in cases() {
        let packet = call_packet(name, args);
        let mut g = c.benchmark_group(format!("rpc/{name}"));
        // An `Event::Call`, its arguments read by `Call::args` into the handler's
        // types (what the engine's receive ends with: the method run with them), and
        // read as `Variant`s.
        let event = |server: &mut Session| {
            server
                .receive(2, Delivery::default(), black_box(&packet))
                .unwrap();
            match server.poll_event() {
                Some(Event::Call(call)) => call,
                e => panic!("{e:?}"),
            }
        };
        g.bench_function("session_receive", |b| {
            b.iter(|| {
                let call = event(&mut server);
                match name {
                    "move" => drop(black_box(
                        call.args::<(Vector3, Vector3, i64, bool)>().unwrap(),
                    )),
                    "chat" => drop(black_box(call.args::<(String, i64)>().unwrap())),
                    _ => drop(black_box(
                        call.args::<(BTreeMap<i64, Unit>, i64)>().unwrap(),
                    )),
                }
            })
        });
        g.bench_function("session_receive_variants", |b| {
            b.iter(|| event(&mut server).args.into_variants().unwrap())
        });
        // The state read in place as a Rust handler holds it, as it is sent below.
        if name == "state" {
            let call = server
                .receive_call(2, Delivery::default(), &packet)
                .unwrap()
                .unwrap();
            let state: (BTreeMap<i64, Unit>, i64) = call.args.get().unwrap();
            assert_eq!(state, (units(), 7));
        }
        g.bench_function("session_receive_in_place", |b| {
            b.iter(|| {
                let call = server
                    .receive_call(2, Delivery::default(), black_box(&packet))
                    .unwrap()
                    .unwrap();
                handle!(call)
            })
        });
        // A handler that takes the text as it lies in the packet, with no allocation.
        if name == "chat" {
            g.bench_function("session_receive_borrowed", |b| {
                b.iter(|| {
                    let call = server
                        .receive_call(2, Delivery::default(), black_box(&packet))
                        .unwrap()
                        .unwrap();
                    black_box(call.args.get::<(&str, i64)>().unwrap());
                })
            });
        }
        let units = units();
        let send = |server: &mut Session| {
            match name {
                "move" => server.rpc(
                    Target::Peer(2),
                    "Game",
                    name,
                    black_box(&(v1, v2, 1_234_567, true)),
                ),
                "chat" => server.rpc(
                    Target::Peer(2),
                    "Game",
                    name,
                    black_box(&("hello everyone, gg!", 42)),
                ),
                _ => server.rpc(Target::Peer(2), "Game", name, black_box(&(&units, 7))),
            }
            .unwrap();
            server.poll_transmit().unwrap()
        };
        assert_eq!(send(&mut server).bytes, packet);
        g.bench_function("session_send", |b| b.iter(|| send(&mut server)));
        g.finish();
    }
}

/// `Call::args`: a received call's arguments as the Rust types a handler asks for;
/// and the whole packet read in place to those types (`CallRef`), no `Variant`.
fn typed_args(c: &mut Criterion) {
    let (name, args) = cases().swap_remove(0);
    let packet = call_packet(name, args);
    let mut server = server();
    server.receive(2, Delivery::default(), &packet).unwrap();
    let Some(Event::Call(call)) = server.poll_event() else {
        panic!("no call")
    };
    let mut g = c.benchmark_group("rpc/move");
    g.bench_function("args", |b| {
        b.iter(|| {
            black_box(&call)
                .args::<(Vector3, Vector3, i64, bool)>()
                .unwrap()
        })
    });
    g.bench_function("decode_typed", |b| {
        b.iter(|| {
            let call = CallRef::decode(black_box(&packet)).unwrap().unwrap();
            (
                call.method,
                call.args.get::<(Vector3, Vector3, i64, bool)>().unwrap(),
            )
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = rpc
}
criterion_main!(benches);
