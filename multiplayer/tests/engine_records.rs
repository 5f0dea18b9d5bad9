//! Random records as RPC arguments, sent by Godot 4.6's SceneMultiplayer and Godot
//! 3.6's MultiplayerAPI (tests/oracle/record_calls4.gd and record_calls3.gd, on the
//! value makers of random4.gd or random3.gd and records.gd): `take(record, n)`, the
//! record a Dictionary shaped like a derived `Record` struct, in field order or
//! otherwise (keys swapped, missing or more, values of other types, ints out of range,
//! a nested struct's keys otherwise, no record at all), `n` an int of any size.
//!
//! Arguments read in place (`Session::receive_call` and `CallRef`, and Godot 3's by
//! `Session::receive_call3`) read a
//! struct whose keys come in field order on trust (godot_bin's
//! `Deserializer::on_trust`) and read it again the general way when that gives up.
//! Each call, and four mutations of it, must give what the general way gives (the
//! same read with the thread's `Trust` held, so that nothing inside reads on trust):
//! the same value, or the same error, kind, offset and message; `CallRef` what the
//! session gives. Received as an `Event::Call` (`Session::receive`), each must read as
//! in place, or be refused with the error its arguments' `to_variants` gives in place.
//! A record in field order must decode, and a crate client must send the call as the
//! engine's bytes.
//!
//! The seed is printed; `GODOT_RANDOM_SEED` replays a run and `GODOT_RANDOM_COUNT`
//! changes the number of calls (default 1000).

mod common;
#[path = "../../tests/common/random.rs"]
#[allow(dead_code)]
mod random;
#[path = "../../tests/common/record.rs"]
mod record;

use std::path::Path;
use std::process::Command;

use godot_bin::de::Trust;
use godot_bin_multiplayer::{CallRef, Delivery, Event, NodeRef, Protocol, Scene, Session, Target};
use random::Rng;
use record::{extra_is_plain, Record};
use serde_json::Value;

/// What the test's node declares, as record_calls*.gd's.
fn scene() -> Scene {
    Scene::new().node("Game", ["take"])
}

/// The engine's client, as record_calls*.gd makes it.
const PEER: i32 = 1234567;

/// One call the engine made: its index, the kind of record, `n`, and the packets
/// the client sent from it until the next call (the call's own among them).
struct Sent {
    i: usize,
    kind: u64,
    n: i64,
    packets: Vec<Vec<u8>>,
}

impl Sent {
    /// The call's packet: the first remote call.
    fn call(&self) -> &[u8] {
        self.packets
            .iter()
            .find(|p| p[0] & 0x0F == 0)
            .unwrap_or_else(|| panic!("call #{} sent no remote call", self.i))
    }
}
/// The engine's calls, from record_calls4.gd or record_calls3.gd on the value makers.
fn engine_calls(bin: &Path, protocol: Protocol, seed: u64, count: usize) -> Vec<Sent> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: &str| std::fs::read_to_string(repo.join(p)).unwrap();
    let before_init =
        |s: &str| -> String { s[..s.find("\nfunc _init").expect("an _init")].to_string() };
    let godot4 = protocol == Protocol::Godot4;
    // The names records.gd's prelude gives (as tests/engine_structs.rs).
    let (makers, prelude, driver, project) = if godot4 {
        (
            "tests/oracle/random4.gd",
            "const T_QUAT := TYPE_QUATERNION\nconst T_STRINGS := TYPE_PACKED_STRING_ARRAY\n\
             const T_BYTES := TYPE_PACKED_BYTE_ARRAY\nfunc encode(v): return var_to_bytes(v)\n\
             func setup(): buf.resize(8)\n",
            "multiplayer/tests/oracle/record_calls4.gd",
            "config_version=5\n",
        )
    } else {
        (
            "tests/oracle/random3.gd",
            "const T_QUAT := TYPE_QUAT\nconst T_STRINGS := TYPE_STRING_ARRAY\n\
             const T_BYTES := TYPE_RAW_ARRAY\nfunc encode(v): return var2bytes(v)\n\
             func setup(): pass\n",
            "multiplayer/tests/oracle/record_calls3.gd",
            "config_version=4\n[logging]\nfile_logging/enable_file_logging=false\n\
             file_logging/enable_file_logging.pc=false\n",
        )
    };
    let makers = before_init(&read(makers));
    let records = before_init(&read("tests/oracle/records.gd"));
    let driver = read(driver);
    let dir = common::TempDir(std::env::temp_dir().join(format!(
        "godot-bin-records-{}-{seed}-{}",
        std::process::id(),
        u8::from(godot4)
    )));
    std::fs::create_dir_all(&dir.0).unwrap();
    std::fs::write(dir.0.join("project.godot"), project).unwrap();
    std::fs::write(
        dir.0.join("s.gd"),
        format!("{makers}\n{prelude}{records}\n{driver}"),
    )
    .unwrap();
    std::fs::copy(
        repo.join("multiplayer/tests/oracle/link4.gd"),
        dir.0.join("link4.gd"),
    )
    .unwrap();
    let mut engine = Command::new("timeout");
    engine
        .args(["-s", "KILL"])
        .arg(common::ENGINE_LIMIT.as_secs().to_string())
        .arg(bin);
    if godot4 {
        engine.arg("--headless");
    }
    let out = engine
        .args(["--no-header", "--path"])
        .arg(&dir.0)
        .args(["-s", "s.gd"])
        .env("ORACLE_SEED", seed.to_string())
        .env("ORACLE_COUNT", count.to_string())
        .output()
        .expect("the engine runs");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "the engine failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut calls: Vec<Sent> = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if let Some(i) = v.get("i") {
            calls.push(Sent {
                i: i.as_u64().unwrap() as usize,
                kind: v["kind"].as_u64().unwrap(),
                n: v["n"].as_str().unwrap().parse().unwrap(),
                packets: Vec::new(),
            });
        } else if v["packet"] == "c2s" {
            let p = hex::decode(v["hex"].as_str().unwrap()).unwrap();
            calls.last_mut().expect("a call before").packets.push(p);
        }
    }
    calls
}

/// A read's value, or its error in full.
fn outcome<T: std::fmt::Debug>(r: &godot_bin_multiplayer::Result<T>) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("{:?} at {:?}: {e}", e.kind(), e.offset()),
    }
}

type Read = godot_bin_multiplayer::Result<(Record, i64)>;

/// The arguments read in place by `get` (on trust), and the general way: the same read
/// with the thread's `Trust` held.
fn trusted_and_general(get: impl Fn() -> Read) -> (String, String) {
    let trusted = outcome(&get());
    let held = Trust::outermost().expect("no decode holds this thread's trust");
    let general = outcome(&get());
    drop(held);
    (trusted, general)
}

/// A packet as `server` receives it in place (`receive_call`, or `receive_call3` for
/// Godot 3): for a call, its arguments read on trust and the general way, and read;
/// and what [`as_event`] must give for it.
type InPlace = ((String, String), Read, String);

fn in_place(
    server: &mut Session,
    protocol: Protocol,
    packet: &[u8],
) -> godot_bin_multiplayer::Result<Option<InPlace>> {
    let d = Delivery::default();
    Ok(match protocol {
        Protocol::Godot4 => server.receive_call(PEER, d, packet)?.map(|c| {
            let read = c.args.get();
            let event = as_in_place(&read, &c.args.to_variants().map(drop));
            (trusted_and_general(|| c.args.get()), read, event)
        }),
        _ => server.receive_call3(PEER, d, packet)?.map(|c| {
            let read = c.args.get();
            let event = as_in_place(&read, &c.args.to_variants().map(drop));
            (trusted_and_general(|| c.args.get()), read, event)
        }),
    })
}

/// A packet as `server` receives it to events (`receive`): a call's arguments read
/// by `Call::args`'s `Arguments::get`, or the error that refused the packet.
fn as_event(server: &mut Session, packet: &[u8]) -> Option<String> {
    let r = server.receive(PEER, Delivery::default(), packet);
    let read = match r {
        Err(e) => Some(format!("refused: {:?} at {}", e.kind(), e.offset())),
        Ok(()) => std::iter::from_fn(|| server.poll_event()).find_map(|e| match e {
            Event::Call(c) => Some(outcome(&c.args.get::<(Record, i64)>())),
            _ => None,
        }),
    };
    while server.poll_event().is_some() {}
    while server.poll_transmit().is_some() {}
    read
}

/// What `as_event` must give for a packet read in place as `read`, whose arguments'
/// `to_variants` gave `variants`: the same read, or the refusal of arguments that do
/// not decode.
fn as_in_place(read: &Read, variants: &godot_bin_multiplayer::Result<()>) -> String {
    match variants {
        Ok(()) => outcome(read),
        Err(e) => format!("refused: {:?} at {}", e.kind(), e.offset()),
    }
}

/// A call packet's arguments as `server` receives them in place (its node's path
/// cached), read on trust and the general way; `None` when it is not received as a
/// call.
fn received(
    server: &mut Session,
    protocol: Protocol,
    packet: &[u8],
) -> Option<((String, String), String)> {
    let read = in_place(server, protocol, packet)
        .ok()
        .flatten()
        .map(|(both, _, event)| (both, event));
    while server.poll_event().is_some() {}
    while server.poll_transmit().is_some() {}
    read
}

/// Whether a call packet names its node by a cache id (not by path).
fn by_cache_id(protocol: Protocol, packet: &[u8]) -> bool {
    match protocol {
        Protocol::Godot4 => CallRef::decode(packet).unwrap().unwrap().node == NodeRef::Cached(1),
        _ => packet[4] & 0x80 == 0,
    }
}

/// Mutates the arguments' bytes of a call packet (after its first `head` bytes): a
/// bit, a word (a header's, a key's length), a byte, a cut, two words swapped or one
/// left out.
fn mutate(b: &mut Vec<u8>, head: usize, rng: &mut Rng) {
    let words = (b.len() - head) / 4;
    if words == 0 {
        return;
    }
    let word = |rng: &mut Rng| head + 4 * rng.below(words);
    let at = word(rng);
    match rng.below(6) {
        0 => {
            let byte = head + rng.below(b.len() - head);
            b[byte] ^= 1 << rng.below(8);
        }
        1 => {
            let w: u32 = rng.pick(&[0, 1, 2, 3, 4, 0x1_0002, 0x1_0003, 0x7fff_ffff, 0xffff_ffff]);
            b[at..at + 4].copy_from_slice(&w.to_le_bytes());
        }
        2 => {
            let from = word(rng);
            let w: [u8; 4] = b[from..from + 4].try_into().unwrap();
            b[at..at + 4].copy_from_slice(&w);
        }
        3 => b.truncate(at),
        4 => {
            let byte = head + rng.below(b.len() - head);
            b[byte] = rng.pick(&[0, b'a', b'z', 0xff, 0x80]);
        }
        _ => {
            let other = word(rng);
            if rng.chance(2) {
                for k in 0..4 {
                    b.swap(at + k, other + k);
                }
            } else {
                b.drain(at..at + 4);
            }
        }
    }
}

/// A server and a client session with the node's path cached both ways, as the
/// engine's client has it once the server confirmed it.
fn joined(protocol: Protocol) -> (Session, Session) {
    let mut server = Session::server(scene()).protocol(protocol);
    let mut client = Session::client(PEER, scene()).protocol(protocol);
    server.connect(PEER);
    client.connect(1);
    client
        .rpc(Target::Peer(1), "Game", "take", &(0, 0))
        .unwrap();
    while let Some(t) = client.poll_transmit() {
        server.receive(PEER, t.delivery, &t.bytes).unwrap();
    }
    while let Some(t) = server.poll_transmit() {
        client.receive(1, t.delivery, &t.bytes).unwrap();
    }
    while server.poll_event().is_some() {}
    while client.poll_event().is_some() {}
    (server, client)
}

fn check(engine: &str, protocol: Protocol) {
    let Some(bin) = common::engine(engine) else {
        return;
    };
    let seed = random::seed();
    let count = std::env::var("GODOT_RANDOM_COUNT")
        .map(|s| s.parse().expect("GODOT_RANDOM_COUNT is a number"))
        .unwrap_or(1000);
    eprintln!("{engine}: GODOT_RANDOM_SEED={seed} GODOT_RANDOM_COUNT={count}");
    let calls = engine_calls(&bin, protocol, seed & 0x7fff_ffff, count);
    assert_eq!(calls.len(), count, "the engine's calls");

    // The engine's packets, in order, to a server session reading calls in place.
    let mut server = Session::server(scene()).protocol(protocol);
    server.connect(PEER);
    // The same packets to a session that receives them to events.
    let mut events = Session::server(scene()).protocol(protocol);
    events.connect(PEER);
    let (_, mut client) = joined(protocol);
    let mut rng = Rng::new(seed);
    let mut failures = Vec::new();
    let (mut in_order, mut resent, mut decoded, mut mutated) = (0, 0, 0, 0);
    for sent in &calls {
        let packet = sent.call();
        let mut reads = Vec::new();
        let mut as_events = Vec::new();
        for p in &sent.packets {
            match in_place(&mut server, protocol, p) {
                Ok(Some(read)) => reads.push(read),
                Ok(None) => {}
                Err(e) => failures.push(format!("#{}: the session refused it: {e}", sent.i)),
            }
            as_events.extend(as_event(&mut events, p));
        }
        while server.poll_event().is_some() {}
        while server.poll_transmit().is_some() {}
        let [(first, value, event)] = &reads[..] else {
            failures.push(format!("#{}: {} calls read", sent.i, reads.len()));
            continue;
        };
        if as_events != [event.clone()] {
            failures.push(format!(
                "#{}: as events {as_events:?}\n  in place {event}",
                sent.i
            ));
        }
        if protocol == Protocol::Godot4 {
            let call = CallRef::decode(packet).unwrap().unwrap();
            let by_call_ref = trusted_and_general(|| call.args.get());
            if by_call_ref != *first {
                failures.push(format!(
                    "#{}: CallRef read {by_call_ref:?}\n  the session {first:?}",
                    sent.i
                ));
            }
        }
        let value: &godot_bin_multiplayer::Result<(Record, i64)> = value;
        decoded += value.is_ok() as usize;
        if sent.kind == 0 {
            in_order += 1;
            match value {
                Ok((_, n)) if *n != sent.n => {
                    failures.push(format!("#{}: n {n}, the engine's {}", sent.i, sent.n))
                }
                Ok((r, _)) if !extra_is_plain(&r.extra) => {
                    failures.push(format!("#{} extra {:?}: not records.gd's", sent.i, r.extra))
                }
                Ok(args) => {
                    // Sent again by a crate client: the engine's bytes, where the
                    // engine's call went by the cached id too.
                    client.rpc(Target::Peer(1), "Game", "take", args).unwrap();
                    let ours = client.poll_transmit().expect("a call").bytes;
                    assert!(client.poll_transmit().is_none());
                    let cached = by_cache_id(protocol, packet);
                    if cached && ours != packet {
                        failures.push(format!(
                            "#{}: the crate sends the call otherwise\n  engine {}\n  crate  {}",
                            sent.i,
                            hex::encode(packet),
                            hex::encode(&ours)
                        ));
                    }
                    resent += cached as usize;
                }
                Err(e) => failures.push(format!(
                    "#{}: a record in field order does not decode: {e}\n  hex {}",
                    sent.i,
                    hex::encode(packet)
                )),
            }
        }
        let mut cases = vec![(packet.to_vec(), first.clone())];
        // Mutations after the command byte, to a session whose cache holds the node.
        for _ in 0..4 {
            let mut b = packet.to_vec();
            for _ in 0..1 + rng.below(2) {
                mutate(&mut b, 1, &mut rng);
            }
            if let Some((read, event)) = received(&mut server, protocol, &b) {
                let got = as_event(&mut events, &b);
                if got.as_ref() != Some(&event) {
                    failures.push(format!(
                        "#{} mutated: as an event {got:?}\n  in place {event}\n  hex {}",
                        sent.i,
                        hex::encode(&b)
                    ));
                }
                cases.push((b, read));
                mutated += 1;
            }
        }
        for (b, (trusted, general)) in cases {
            if trusted != general {
                failures.push(format!(
                    "#{} (kind {}): on trust {trusted}\n  general {general}\n  hex {}",
                    sent.i,
                    sent.kind,
                    hex::encode(&b)
                ));
            }
        }
    }
    eprintln!(
        "{engine}: {count} calls ({in_order} records in field order, {resent} of them sent \
         again by the crate, {decoded} decoded), {mutated} mutated"
    );
    assert!(in_order > count / 4, "{in_order} records in field order");
    assert!(resent > in_order / 2, "{resent} sent again");
    assert!(
        failures.is_empty(),
        "{engine} (GODOT_RANDOM_SEED={seed}): {} failures; the first 10:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn godot_4_6_records_as_call_arguments_read_in_place_as_the_general_way() {
    check("godot4", Protocol::Godot4);
}

#[test]
fn godot_3_6_records_as_call_arguments_read_in_place_as_the_general_way() {
    check("godot3.6", Protocol::Godot3);
}
