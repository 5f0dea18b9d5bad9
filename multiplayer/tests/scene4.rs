//! SceneMultiplayer packets against what Godot 4.6 sent (tests/fixtures/godot4.6.jsonl,
//! from tests/oracle/mp4.gd through scripts/gen-fixtures.sh): every packet reads and
//! writes back to the same bytes, and every call, fixed and seeded random, is built
//! from its arguments to exactly the engine's bytes.

use godot_bin::{Config, Dialect, Variant};
use godot_bin_multiplayer::{ErrorKind, NodeRef, Packet, RemoteCall, RpcNames, Sys};
use quickcheck::{QuickCheck, TestResult};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

fn lines() -> Vec<Value> {
    include_str!("fixtures/godot4.6.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn hex(v: &Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap()).unwrap()
}

fn packets() -> Vec<Vec<u8>> {
    lines()
        .iter()
        .filter(|l| l.get("packet").is_some())
        .map(|l| hex(l, "hex"))
        .collect()
}

/// The rpc names of the oracle's `Game` node.
fn names() -> RpcNames {
    RpcNames::new(["ping", "blob", "one", "two", "three"])
}

#[test]
fn every_engine_packet_reads_and_writes_back() {
    let packets = packets();
    assert!(packets.len() > 400, "{}", packets.len());
    for p in &packets {
        let packet = Packet::decode(p).unwrap_or_else(|e| panic!("{}: {e}", hex::encode(p)));
        assert_eq!(&packet.encode().unwrap(), p, "{packet:?}");
    }
}

#[test]
fn every_call_is_built_to_the_engines_bytes() {
    let lines = lines();
    let names = names();
    let (mut by_path, mut cached) = (0, 0);
    for (i, line) in lines.iter().enumerate() {
        let Some(method) = line.get("call") else {
            continue;
        };
        let Variant::Array(args) = Config::new()
            .dialect(Dialect::Godot4)
            .from_slice::<Variant>(&hex(line, "args"))
            .unwrap()
        else {
            panic!("args are an array")
        };
        // The call's own packet is the first remote call after it.
        let sent = lines[i + 1..]
            .iter()
            .filter(|l| l.get("packet").is_some())
            .map(|l| hex(l, "hex"))
            .find(|p| p[0] & 7 == 0)
            .unwrap();
        let Packet::Call(got) = Packet::decode(&sent).unwrap() else {
            unreachable!()
        };
        match got.node {
            NodeRef::Path(ref p) => {
                assert_eq!(p, "Game");
                by_path += 1
            }
            NodeRef::Cached(id) => {
                assert_eq!(id, 1);
                cached += 1
            }
            NodeRef::CachedWide(id) => panic!("one peer, yet a wide id {id}"),
        }
        let call = RemoteCall {
            node: got.node.clone(),
            method: names.id(method.as_str().unwrap()).unwrap(),
            args,
        };
        assert_eq!(got, call);
        assert_eq!(
            hex::encode(Packet::Call(call).encode().unwrap()),
            hex::encode(&sent),
            "call {i}: {method}"
        );
    }
    assert_eq!((by_path, cached), (3, 403));
}

#[test]
fn path_cache_packets_match_the_engine() {
    let packets: Vec<Packet> = packets()
        .iter()
        .map(|p| Packet::decode(p).unwrap())
        .collect();
    let simplify = packets
        .iter()
        .find_map(|p| match p {
            Packet::SimplifyPath { checksum, id, path } => {
                Some((checksum.clone(), *id, path.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(
        simplify,
        (names().checksum().to_owned(), 1, "Game".to_string())
    );
    assert!(packets.contains(&Packet::ConfirmPath { valid: true, id: 1 }));
}

#[test]
fn compressed_forms_are_the_documented_bytes() {
    let call = |args: Vec<Variant>| {
        Packet::Call(RemoteCall {
            node: NodeRef::Cached(1),
            method: 2,
            args,
        })
        .encode()
        .unwrap()
    };
    assert_eq!(call(vec![]), [0x80, 1, 2]);
    assert_eq!(
        call(vec![Variant::Bool(true), Variant::Bool(false)]),
        [0, 1, 2, 2, 0x81, 0x01]
    );
    assert_eq!(
        call(vec![Variant::Int(-300)]),
        [0, 1, 2, 1, 0x42, 0xd4, 0xfe]
    );
    assert_eq!(
        call(vec![Variant::Int(i64::MIN)]),
        [0, 1, 2, 1, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0x80]
    );
    // Wide ids take wider fields and set their flags.
    let wide = Packet::Call(RemoteCall {
        node: NodeRef::Cached(70_000),
        method: 300,
        args: vec![],
    });
    let b = wide.encode().unwrap();
    assert_eq!(b, [0x80 | 0x40 | 0x20, 0x70, 0x11, 0x01, 0x00, 0x2c, 0x01]);
    assert_eq!(Packet::decode(&b).unwrap(), wide);
}

#[test]
fn sys_packets_round_trip() {
    for p in [
        Packet::Sys(Sys::AddPeer(1234567)),
        Packet::Sys(Sys::DelPeer(-5)),
        Packet::Sys(Sys::Auth(vec![])),
        Packet::Sys(Sys::Auth(vec![1, 2])),
        Packet::Sys(Sys::Relay {
            peer: -9,
            packet: vec![0x80, 1, 2],
        }),
        // An empty one is refused (`review.rs`): the engines refuse it.
        Packet::Raw(vec![0]),
        Packet::Raw(vec![9, 8]),
        Packet::Despawn { net_id: 3 },
    ] {
        let b = p.encode().unwrap();
        assert_eq!(Packet::decode(&b).unwrap(), p);
    }
    assert_eq!(
        Packet::Sys(Sys::AddPeer(2)).encode().unwrap(),
        [7, 1, 2, 0, 0, 0]
    );
}

/// The error for `bytes`, and its offset.
fn err(bytes: &[u8]) -> (godot_bin_multiplayer::Error, usize) {
    let e = Packet::decode(bytes).unwrap_err();
    let at = e.offset();
    (e, at)
}

macro_rules! refused {
    ($bytes:expr, $kind:pat, $at:expr) => {{
        let (e, at) = err(&$bytes);
        assert!(matches!(e.kind(), $kind), "{e}");
        assert_eq!(at, $at, "{e}");
    }};
}

#[test]
fn hostile_packets_are_refused_with_their_offset() {
    refused!([], ErrorKind::Empty, 0);
    refused!([7, 9, 0, 0, 0, 0], ErrorKind::UnknownSys(9), 1);
    refused!([7, 3, 1, 0, 0, 0], ErrorKind::Truncated(_), 6);
    refused!([7, 1, 2, 0, 0, 0, 0], ErrorKind::Trailing(1), 6);
    refused!([0x17, 0, 0], ErrorKind::Flags(0x17), 0);
    refused!([0x08, 1, 2, 0], ErrorKind::Flags(0x08), 0);
    refused!([0x30, 1, 2, 0], ErrorKind::NodeIdSize, 0);
    refused!([2, 2, 1, 0, 0, 0], ErrorKind::Flag(_, 2), 1);
    // A count of 200 arguments in 3 bytes: refused before anything is allocated.
    refused!([0, 1, 2, 200, 1, 1, 1], ErrorKind::Truncated(_), 7);
    // The path offset must point after the arguments, inside the packet.
    refused!(
        [0x20, 2, 0, 0, 0x80, 1, 0, b'G', 0],
        ErrorKind::PathOffset(2),
        1
    );
    refused!(
        [0x20, 99, 0, 0, 0x80, 1, 0, b'G', 0],
        ErrorKind::PathOffset(99),
        1
    );
    refused!(
        [0x20, 7, 0, 0, 0x80, 1, 0, b'G'],
        ErrorKind::Unterminated,
        7
    );
    // A bool with bit 6 set, and an int cut short.
    refused!([0, 1, 2, 1, 0x41], ErrorKind::Compressed(0x41), 4);
    refused!([0, 1, 2, 1, 0x82, 1, 2], ErrorKind::Truncated(_), 5);
    refused!([0, 1, 2, 1, 2, 5, 9], ErrorKind::Trailing(1), 6);
    // No arguments or one PackedByteArray with a count (found by fuzzing: it read,
    // but wrote back in the count-less form).
    refused!(
        [0, 2, 4, 1, 0x1d, 0, 0, 0, 0, 0, 0, 0],
        ErrorKind::CountedBytes,
        3
    );
    refused!([0, 2, 4, 0], ErrorKind::CountedBytes, 3);
    // An argument that is no Variant says where.
    let e = Packet::decode(&[0, 1, 2, 1, 0x3f, 0, 0, 0]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Argument { index: 0, .. }),
        "{e}"
    );
    let mut sum = vec![1];
    sum.extend_from_slice(&[b'G'; 32]);
    sum.extend_from_slice(&[0, 1, 0, 0, 0, b'G', 0]);
    refused!(sum, ErrorKind::Checksum, 1);
}

#[test]
fn every_cut_of_an_engine_packet_is_refused_or_another_packet() {
    for p in packets() {
        for n in 0..p.len() {
            // Raw, spawn and auth bodies run to the end: a cut one is still a packet.
            if let Ok(q) = Packet::decode(&p[..n]) {
                assert_eq!(q.encode().unwrap(), &p[..n]);
            }
        }
    }
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
                READ.fetch_add(1, Ordering::Relaxed);
                // What reads is what the engine would send, so it writes back the same
                // (calls with args decoded leniently as their own forms aside).
                let again = q.encode().unwrap();
                TestResult::from_bool(Packet::decode(&again).unwrap() == q)
            }
            Err(e) => TestResult::from_bool(e.offset() <= p.len()),
        }
    }
    static READ: AtomicUsize = AtomicUsize::new(0);
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(usize, Vec<(usize, u8)>) -> TestResult);
    let read = READ.load(Ordering::Relaxed);
    // About 800-900 of the 3000 mutants read (27-30%).
    assert!(read > 300, "only {read} of 3000 mutants read");
}

/// A compressed int in more bytes than it needs is refused at its type byte, by the
/// packet decoder and by typed reads alike: the engine always sends the fewest bytes,
/// so what reads writes back to the same bytes.
#[test]
fn wide_compressed_ints_are_refused() {
    use godot_bin_multiplayer::CallRef;
    // `one(42)` by path, the 42 in two bytes (`0x42`) instead of one.
    let mut p = vec![0x20, 10, 0, 0, 0x80, 1, 1, 0x42, 0x2a, 0x00];
    p.extend_from_slice(b"Game\0");
    let e = Packet::decode(&p).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WideInt(42, 2)), "{e}");
    assert_eq!(e.offset(), 7);
    let call = CallRef::decode(&p).unwrap().unwrap();
    let e = call.args.get::<(i64,)>().unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WideInt(42, 2)), "{e}");
    assert_eq!(e.offset(), 7);
    // Each width at its smallest value reads; one below it in the next width does not.
    for (head, bytes, v) in [
        (0x42u8, &[0x80, 0x00][..], 128i64),
        (0x82, &[0x00, 0x80, 0x00, 0x00][..], 32768),
        (
            0xC2,
            &[0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00][..],
            1 << 31,
        ),
    ] {
        let mut q = vec![0x20, 0, 0, 0, 0x80, 1, 1, head];
        q.extend_from_slice(bytes);
        q[1] = q.len() as u8;
        q.extend_from_slice(b"Game\0");
        match Packet::decode(&q).unwrap() {
            Packet::Call(c) => assert_eq!(c.args, [Variant::Int(v)]),
            other => panic!("{other:?}"),
        }
        if head == 0xC2 {
            continue;
        }
        // The same value one width up.
        let mut wider = q[..8].to_vec();
        wider[7] = head + 0x40;
        let mut body = bytes.to_vec();
        body.resize(bytes.len() * 2, 0);
        wider.extend_from_slice(&body);
        wider[1] = wider.len() as u8;
        wider.extend_from_slice(b"Game\0");
        let e = Packet::decode(&wider).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::WideInt(..)), "{e}");
    }
}

#[path = "../../tests/common/arbitrary.rs"]
mod arbitrary;

fn has_object(v: &Variant) -> bool {
    match v {
        Variant::Object(_) => true,
        Variant::Array(items) => items.iter().any(has_object),
        Variant::Dictionary(d) => d.iter().any(|(k, v)| has_object(k) || has_object(v)),
        Variant::TypedArray(a) => a.items.iter().any(has_object),
        _ => false,
    }
}

/// An argument is refused (ObjectsNotAllowed, nothing written) exactly when it is or
/// holds a full Object, at any depth; otherwise it is godot_bin's bytes for it.
#[test]
fn arguments_holding_full_objects_are_refused_and_others_written_whole() {
    #[derive(Clone, Debug)]
    struct Case(Variant);
    impl quickcheck::Arbitrary for Case {
        fn arbitrary(g: &mut quickcheck::Gen) -> Self {
            let plant = bool::arbitrary(g);
            Case(Variant::Array(vec![arbitrary::tree(g, 4, plant)]))
        }
    }
    fn prop(case: Case, first: bool) -> bool {
        let arg = case.0;
        let args = if first {
            vec![arg.clone(), Variant::Int(1)]
        } else {
            vec![Variant::Int(1), arg.clone()]
        };
        let call = Packet::Call(RemoteCall {
            node: NodeRef::Cached(3),
            method: 1,
            args,
        });
        let mut out = vec![0xEE];
        match call.encode_into(&mut out) {
            Ok(()) => {
                let plain = Config::new().dialect(Dialect::Godot4).to_vec(&arg).unwrap();
                let at = if first { 5 } else { 7 };
                !has_object(&arg) && out[at..at + plain.len()] == plain[..]
            }
            Err(e) => {
                let refused = matches!(
                    e.kind(),
                    ErrorKind::Argument { index, source }
                        if *index == usize::from(!first)
                            && matches!(source.kind(), godot_bin::ErrorKind::ObjectsNotAllowed)
                );
                refused && has_object(&arg) && out == [0xEE]
            }
        }
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Case, bool) -> bool);
}

/// A leading BOM in a path is written twice, so that what decodes (as the engine
/// reads it, one BOM dropped: tests/names_engines.rs) is the path given; one that is
/// there once is read without it.
#[test]
fn paths_with_a_leading_bom_come_back_as_given() {
    let bom = "\u{feff}";
    let simplify = Packet::SimplifyPath {
        checksum: "0".repeat(32),
        id: 1,
        path: format!("{bom}Game"),
    };
    let call = Packet::Call(RemoteCall {
        node: NodeRef::Path(format!("{bom}Game")),
        method: 0,
        args: vec![Variant::Bool(true)],
    });
    for p in [simplify, call] {
        let bytes = p.encode().unwrap();
        let doubled = format!("{bom}{bom}Game\0").into_bytes();
        assert!(bytes.ends_with(&doubled), "{p:?}");
        assert_eq!(Packet::decode(&bytes).unwrap(), p);
        // As a Godot client sends its node "\u{feff}Game": the server's "Game".
        let once = [
            &bytes[..bytes.len() - doubled.len()],
            "\u{feff}Game\0".as_bytes(),
        ]
        .concat();
        let read = Packet::decode(&once).unwrap();
        let path = match &read {
            Packet::SimplifyPath { path, .. } => path,
            Packet::Call(RemoteCall {
                node: NodeRef::Path(path),
                ..
            }) => path,
            p => panic!("{p:?}"),
        };
        assert_eq!(path, "Game");
    }
}
