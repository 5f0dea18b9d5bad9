//! Replication packets (MultiplayerSpawner, MultiplayerSynchronizer) against what
//! Godot 4.6 sent and what the receiving engine made of them
//! (tests/fixtures/replication4.6.jsonl, from tests/oracle/replicate4.gd through
//! scripts/gen-fixtures.sh): every packet reads to the values the engine applied and
//! writes back to the same bytes; hostile ones are refused where they go wrong.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use godot_bin::{Config, Dialect, Variant, Vector2};
use godot_bin_multiplayer::{
    Delta, DeltaEntry, ErrorKind, Packet, Spawn, SpawnSource, Sync, SyncEntry,
};
use quickcheck::{QuickCheck, TestResult};
use serde_json::Value;

/// Counts the heap this test binary holds, to bound what hostile packets cost.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn lines() -> Vec<Value> {
    include_str!("fixtures/replication4.6.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn hex(v: &Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap()).unwrap()
}

fn variant(v: &Value, key: &str) -> Variant {
    Config::new()
        .dialect(Dialect::Godot4)
        .from_slice(&hex(v, key))
        .unwrap()
}

fn array(v: &Value, key: &str) -> Vec<Variant> {
    match variant(v, key) {
        Variant::Array(a) => a,
        other => panic!("not an array: {other:?}"),
    }
}

/// The replication packets the server sent.
fn packets() -> Vec<Vec<u8>> {
    lines()
        .iter()
        .filter(|l| l["packet"] == "s2c")
        .map(|l| hex(l, "hex"))
        .filter(|p| matches!(p[0] & 7, 4..=6))
        .collect()
}

#[test]
fn every_engine_packet_reads_and_writes_back() {
    let packets = packets();
    assert!(packets.len() > 60, "{}", packets.len());
    for p in &packets {
        let packet = Packet::decode(p).unwrap_or_else(|e| panic!("{}: {e}", hex::encode(p)));
        assert!(
            matches!(
                packet,
                Packet::Spawn(_) | Packet::Despawn { .. } | Packet::Sync(_) | Packet::Delta(_)
            ),
            "{packet:?}"
        );
        assert_eq!(&packet.encode().unwrap(), p, "{packet:?}");
    }
}

/// Follows the session: each packet read here, then what the client engine printed
/// on applying it, compared with what was read.
#[test]
fn packets_read_to_what_the_engine_applied() {
    let mut node_of_net_id: HashMap<u32, String> = HashMap::new();
    let mut node_of_sync_id: HashMap<u32, String> = HashMap::new();
    let mut spawns: HashMap<String, Spawn> = HashMap::new();
    let mut last_sync: HashMap<String, Vec<Variant>> = HashMap::new();
    let mut last_delta: HashMap<String, (u64, Vec<Variant>)> = HashMap::new();
    let mut despawns: VecDeque<String> = VecDeque::new();
    let (mut entries, mut synced, mut deltas, mut delta_lines, mut custom) = (0, 0, 0, 0, 0);
    let mut by_path = 0;
    for line in lines() {
        if line["packet"] == "s2c" {
            match Packet::decode(&hex(&line, "hex")).unwrap() {
                Packet::Spawn(s) => {
                    assert_eq!(s.sync_ids.len(), 1, "{s:?}");
                    node_of_net_id.insert(s.net_id, s.name.clone());
                    node_of_sync_id.insert(s.sync_ids[0], s.name.clone());
                    spawns.insert(s.name.clone(), s);
                }
                Packet::Despawn { net_id } => despawns.push_back(node_of_net_id[&net_id].clone()),
                // The synchronizer that is not spawned goes by its path cache id.
                Packet::SimplifyPath { id, path, .. } if path == "Game/State/Sync" => {
                    node_of_sync_id.insert(id | 0x8000_0000, "State".into());
                }
                Packet::Sync(s) => {
                    for e in s.entries {
                        entries += 1;
                        last_sync.insert(node_of_sync_id[&e.net_id].clone(), e.state);
                    }
                }
                Packet::Delta(d) => {
                    for e in d.entries {
                        deltas += 1;
                        let node = node_of_sync_id[&e.net_id].clone();
                        last_delta.insert(node, (e.indexes, e.state));
                    }
                }
                _ => {}
            }
        } else if let Some(name) = line["spawned"].as_str() {
            let spawn = &spawns[name];
            match &spawn.source {
                SpawnSource::Custom(arg) => {
                    custom += 1;
                    assert!(name.starts_with("Crate"));
                    assert_eq!(*arg, variant(&line, "arg"));
                }
                SpawnSource::Scene(i) => {
                    assert!(name.starts_with("Mover"));
                    assert_eq!(*i, 0);
                    assert_eq!(variant(&line, "arg"), Variant::Nil);
                }
            }
            // label, extra, position, rotation, hp, tags: the spawn properties.
            assert_eq!(spawn.state, array(&line, "values"), "{name}");
        } else if let Some(name) = line["synced"].as_str() {
            synced += 1;
            by_path += usize::from(name == "State");
            assert_eq!(last_sync[name], array(&line, "values"), "{name}");
        } else if let Some(name) = line["delta"].as_str() {
            delta_lines += 1;
            // Every watched property after the delta: hp, visible, tags (State: motd).
            let after = array(&line, "values");
            let (indexes, state) = &last_delta[name];
            let changed: Vec<Variant> = (0..after.len())
                .filter(|i| indexes & 1 << i != 0)
                .map(|i| after[i].clone())
                .collect();
            assert_eq!(*state, changed, "{name} {indexes:#b}");
            by_path += usize::from(name == "State");
        } else if let Some(name) = line["despawned"].as_str() {
            assert_eq!(despawns.pop_front().as_deref(), Some(name));
        }
    }
    assert_eq!((spawns.len(), custom), (10, 6));
    assert!(by_path > 20, "{by_path}");
    assert!(despawns.is_empty());
    assert_eq!(entries, synced);
    assert!(synced > 40, "{synced}");
    assert_eq!(deltas, delta_lines);
    assert!(deltas > 25, "{deltas}");
}

fn spawn() -> Spawn {
    Spawn {
        source: SpawnSource::Custom(Variant::Int(300)),
        spawner: 1,
        net_id: 7,
        sync_ids: vec![8, 9],
        name: "Crate".into(),
        state: vec![
            Variant::Bool(true),
            Variant::Int(-2),
            Variant::Vector2(Vector2::new(1.0, 2.0)),
        ],
    }
}

#[test]
fn spawn_layout() {
    let bytes = Packet::Spawn(spawn()).encode().unwrap();
    let mut want = vec![4, 255];
    for w in [1u32, 7, 2, 6, 8, 9] {
        want.extend_from_slice(&w.to_le_bytes());
    }
    want.extend_from_slice(b"Crate\0");
    // The argument, sized: an int compressed to two bytes, as RPC arguments are.
    want.extend_from_slice(&[3, 0, 0, 0, 0x42, 0x2C, 0x01]);
    // The state: a compressed bool and int, then a plain Vector2.
    want.extend_from_slice(&[0x81, 0x02, 0xFE, 5, 0, 0, 0]);
    want.extend_from_slice(&1f32.to_le_bytes());
    want.extend_from_slice(&2f32.to_le_bytes());
    assert_eq!(bytes, want);
    let scene = Spawn {
        source: SpawnSource::Scene(3),
        ..spawn()
    };
    let bytes = Packet::Spawn(scene.clone()).encode().unwrap();
    assert_eq!(&bytes[..2], [4, 3]);
    assert_eq!(Packet::decode(&bytes).unwrap(), Packet::Spawn(scene));
}

/// `bytes` are refused with an error of this kind at this offset.
macro_rules! refused {
    ($bytes:expr, $kind:pat, $at:expr) => {{
        let e = Packet::decode(&$bytes).unwrap_err();
        assert!(matches!(e.kind(), $kind), "{e}");
        assert_eq!(e.offset(), $at, "{e}");
    }};
}

#[test]
fn hostile_spawns_are_refused_where_they_go_wrong() {
    let good = Packet::Spawn(spawn()).encode().unwrap();
    // Every cut is refused but those between state values (a spawn may carry fewer).
    for n in 1..good.len() {
        match Packet::decode(&good[..n]) {
            Ok(Packet::Spawn(s)) => assert_eq!(
                s.state[..],
                spawn().state[..[39, 40, 42].iter().position(|&c| c == n).unwrap()]
            ),
            Ok(other) => panic!("{other:?}"),
            Err(_) => assert!(![39, 40, 42].contains(&n), "{n}"),
        }
    }
    // A synchronizer count beyond the bytes: refused before anything is allocated.
    let mut bomb = good.clone();
    bomb[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
    refused!(bomb, ErrorKind::Truncated(_), 10);
    // A name length beyond the bytes.
    let mut long = good.clone();
    long[14..18].copy_from_slice(&1000u32.to_le_bytes());
    refused!(long, ErrorKind::Truncated(_), 26);
    // A name without its NUL, with one inside, and an empty one.
    let mut open = good.clone();
    open[31] = b'!';
    refused!(open, ErrorKind::Unterminated, 26);
    let mut inner = good.clone();
    inner[27] = 0;
    refused!(inner, ErrorKind::Unterminated, 26);
    let mut empty = good[..26].to_vec();
    empty[14..18].copy_from_slice(&1u32.to_le_bytes());
    empty.push(0);
    empty.extend_from_slice(&good[32..]);
    refused!(empty, ErrorKind::NodeName(_), 26);
    let e = Packet::decode(&empty).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::NodeName(n) if n.is_empty()),
        "{e}"
    );
    // Names the engine refuses (its validate_node_name changes them).
    for c in ['.', ':', '@', '/', '"', '%'] {
        let mut bad = good.clone();
        bad[28] = c as u8;
        refused!(bad, ErrorKind::NodeName(_), 26);
    }
    // A synchronizer id with bit 31 (which names a synchronizer by path).
    let mut by_path = good.clone();
    by_path[25] = 0x80;
    refused!(by_path, ErrorKind::SyncId(0x8000_0009), 22);
    // More state values than any config holds: refused before they pile up.
    let mut many = good[..39].to_vec();
    many.extend(std::iter::repeat(0x81).take(godot_bin_multiplayer::MAX_STATE_VALUES + 1));
    refused!(many, ErrorKind::TooManyValues(1024), 39 + 1024);
    many.pop();
    match Packet::decode(&many).unwrap() {
        Packet::Spawn(s) => assert_eq!(s.state.len(), 1024),
        other => panic!("{other:?}"),
    }
    // A custom argument that does not fill its size, or runs past it.
    let mut short = good.clone();
    short[32] = 4;
    refused!(short, ErrorKind::Trailing(1), 39);
    let mut over = good.clone();
    over[32] = 2;
    refused!(over, ErrorKind::Truncated(_), 37);
    let mut zero = good.clone();
    zero[32] = 0;
    refused!(zero, ErrorKind::Truncated(_), 32);
    // State values that are not ones: a type Godot 4 lacks, a bad compressed form.
    let mut bad = good.clone();
    bad[40] = 0x3F;
    refused!(bad, ErrorKind::Argument { index: 1, .. }, 40);
    bad[40] = 0x7F;
    refused!(bad, ErrorKind::Compressed(0x7F), 40);
    // What cannot be sent is not written.
    for s in [
        Spawn {
            name: String::new(),
            ..spawn()
        },
        Spawn {
            name: "a\0b".into(),
            ..spawn()
        },
        Spawn {
            source: SpawnSource::Scene(255),
            ..spawn()
        },
        Spawn {
            name: "a.b".into(),
            ..spawn()
        },
        Spawn {
            sync_ids: vec![0x8000_0001],
            ..spawn()
        },
        Spawn {
            state: vec![Variant::Nil; godot_bin_multiplayer::MAX_STATE_VALUES + 1],
            ..spawn()
        },
        // Full Objects, which the engine does not decode in a spawn.
        Spawn {
            source: SpawnSource::Custom(Variant::Object(Default::default())),
            ..spawn()
        },
        Spawn {
            state: vec![Variant::Array(vec![Variant::Object(Default::default())])],
            ..spawn()
        },
    ] {
        let mut out = vec![1, 2];
        assert!(Packet::Spawn(s).encode_into(&mut out).is_err());
        assert_eq!(out, [1, 2]);
    }
}

#[test]
fn sync_and_delta_layouts_and_hostile_forms() {
    let sync = Packet::Sync(Sync {
        time: 0x0102,
        entries: vec![
            SyncEntry {
                net_id: 3,
                state: vec![Variant::Int(1)],
            },
            SyncEntry {
                net_id: 0x8000_0002,
                state: vec![Variant::Bool(false), Variant::Int(70000)],
            },
        ],
    });
    let bytes = sync.encode().unwrap();
    assert_eq!(
        bytes,
        [
            6, 2, 1, 3, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 0, 0, 0x80, 6, 0, 0, 0, 1, 0x82, 0x70, 0x11,
            1, 0
        ]
    );
    assert_eq!(Packet::decode(&bytes).unwrap(), sync);
    for n in 1..bytes.len() {
        if n != 13 {
            assert!(Packet::decode(&bytes[..n]).is_err(), "{n}");
        }
    }
    // A size past the end; an empty entry (the engine never sends one).
    let mut past = bytes.clone();
    past[7] = 30;
    refused!(past, ErrorKind::Truncated(_), 11);
    let empty = [6, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    refused!(empty, ErrorKind::EmptyState, 7);
    refused!([6, 0, 0], ErrorKind::Truncated(_), 3);

    let delta = Packet::Delta(Delta {
        entries: vec![DeltaEntry {
            net_id: 4,
            indexes: 0b101,
            state: vec![Variant::Int(5), Variant::String("a".into())],
        }],
    });
    let bytes = delta.encode().unwrap();
    assert_eq!(
        &bytes[..17],
        [0x16, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 14, 0, 0, 0]
    );
    assert_eq!(Packet::decode(&bytes).unwrap(), delta);
    // One value for two index bits.
    let mut one = bytes.clone();
    one[5] = 0b111;
    refused!(
        one,
        ErrorKind::DeltaCount {
            indexes: 0b111,
            values: 2
        },
        5
    );
    // Other flags on SYNC are not the delta form.
    let mut flagged = bytes.clone();
    flagged[0] = 0x26;
    refused!(flagged, ErrorKind::Flags(0x26), 0);
    // Nothing to send is refused, as the engine never sends it.
    for p in [
        Packet::Sync(Sync {
            time: 0,
            entries: vec![],
        }),
        Packet::Delta(Delta { entries: vec![] }),
        Packet::Delta(Delta {
            entries: vec![DeltaEntry {
                net_id: 1,
                indexes: 0b11,
                state: vec![Variant::Nil],
            }],
        }),
    ] {
        assert!(p.encode().is_err(), "{p:?}");
    }
    assert_eq!(
        Packet::Despawn { net_id: 9 }.encode().unwrap(),
        [5, 9, 0, 0, 0]
    );
    refused!([5, 9, 0, 0, 0, 0], ErrorKind::Trailing(1), 5);
}

#[test]
fn mutated_engine_packets_never_panic_and_what_reads_writes_back() {
    fn prop(which: usize, flips: Vec<(usize, u8)>) -> TestResult {
        static PACKETS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
        let packets = PACKETS.get_or_init(packets);
        let mut p = packets[which % packets.len()].clone();
        // A few flips: a packet near the engine's, which often still reads.
        for (at, b) in flips.into_iter().take(3) {
            let i = at % p.len();
            p[i] ^= b;
        }
        match Packet::decode(&p) {
            Ok(q) => {
                READ.fetch_add(1, Relaxed);
                TestResult::from_bool(Packet::decode(&q.encode().unwrap()).unwrap() == q)
            }
            Err(e) => TestResult::from_bool(e.offset() <= p.len()),
        }
    }
    static READ: AtomicUsize = AtomicUsize::new(0);
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(usize, Vec<(usize, u8)>) -> TestResult);
    let read = READ.load(Relaxed);
    // About 800-900 of the 3000 mutants read (27-30%).
    assert!(read > 300, "only {read} of 3000 mutants read");
}

/// The most heap a hostile replication packet makes the decoder hold, for packets
/// built to cost the most per byte: a state of one-byte values (capped), and many
/// smallest entries (each a 32-byte entry and a 32-byte value for 9 bytes). Other
/// tests of this binary run beside it, so the bound is loose (their use adds to the
/// peak) but far below what uncapped values cost (32 bytes a byte, doubled by a
/// growing `Vec`).
#[test]
fn hostile_replication_packets_cost_a_small_multiple_of_their_size() {
    let mut spawn = Packet::Spawn(spawn()).encode().unwrap()[..39].to_vec();
    spawn.extend(std::iter::repeat(0x81).take(1 << 20));
    let mut sync = vec![6, 1, 0];
    for i in 0..400_000u32 {
        sync.extend_from_slice(&i.to_le_bytes());
        sync.extend_from_slice(&[1, 0, 0, 0, 0x81]);
    }
    let mut delta = vec![0x16];
    for i in 0..240_000u32 {
        delta.extend_from_slice(&i.to_le_bytes());
        delta.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x81]);
    }
    for (bytes, ok) in [(spawn, false), (sync, true), (delta, true)] {
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let r = Packet::decode(&bytes);
        assert_eq!(r.is_ok(), ok);
        let extra = PEAK.load(Relaxed) - before;
        drop(r);
        assert!(
            extra < 12 * bytes.len(),
            "{extra} bytes for a packet of {}",
            bytes.len()
        );
    }
}
