//! `Replicator` without IO: what it queues on a server `Session` for each peer as
//! nodes spawn, change, become visible or not and despawn, and as peers join and
//! leave. The engine's side of the same packets is `tests/replication_engines.rs`.

use godot_bin::{Variant, Vector2};
use godot_bin_multiplayer::{
    Delta, DeltaEntry, ErrorKind, Mode, NodeId, Packet, Property, ReplicationMode, Replicator,
    Scene, Session, Spawn, SpawnSource, Sync, SyncEntry, Synchronizer,
};
use quickcheck::{QuickCheck, TestResult};
use ReplicationMode::{Always, Never, OnChange};

const SPAWNER: &str = "Game/Spawner";

fn server() -> Session {
    Session::server(Scene::new().node(SPAWNER, Vec::<String>::new()))
}

/// label (spawn only), position (spawn, always), hp (spawn, on change), visible (on
/// change): part of the config of `tests/oracle/replica_client4.gd`.
fn mover(label: &str, x: f32, hp: i64) -> Synchronizer {
    Synchronizer {
        config: vec![
            Property::new(true, Never),
            Property::new(true, Always),
            Property::new(true, OnChange),
            Property::new(false, OnChange),
        ],
        values: vec![
            Variant::from(label),
            Variant::Vector2(Vector2::new(x, 0.0)),
            Variant::Int(hp),
            Variant::Bool(true),
        ],
    }
}

/// What the session queued since the last call: (peer, reliable, packet).
fn sent(session: &mut Session) -> Vec<(i32, bool, Packet)> {
    std::iter::from_fn(|| session.poll_transmit())
        .map(|t| {
            (
                t.to,
                t.delivery.mode == Mode::Reliable,
                Packet::decode(&t.bytes).unwrap(),
            )
        })
        .collect()
}

/// The replication packets queued for `peer` (not the spawner's path for its cache,
/// nor the notices of other peers).
fn to(peer: i32, all: &[(i32, bool, Packet)]) -> Vec<Packet> {
    all.iter()
        .filter(|(p, _, packet)| {
            *p == peer && !matches!(packet, Packet::SimplifyPath { .. } | Packet::Sys(_))
        })
        .map(|(_, _, packet)| packet.clone())
        .collect()
}

/// A node name the engine would refuse, and a spawner the scene does not have.
fn refuses_a_bad_name_and_spawner(r: &mut Replicator, session: &mut Session) {
    let e = r
        .spawn(session, SPAWNER, "a/b", SpawnSource::Scene(0), vec![])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NodeName(_)), "{e}");
    let e = r
        .spawn(session, "Game/Nowhere", "A", SpawnSource::Scene(0), vec![])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownNode(_)), "{e}");
}

fn spawn_of(net_id: u32, name: &str, source: SpawnSource, state: Vec<Variant>) -> Packet {
    Packet::Spawn(Spawn {
        source,
        spawner: 1,
        net_id,
        sync_ids: vec![net_id + 1],
        name: name.into(),
        state,
    })
}

#[test]
fn a_peer_that_joins_gets_every_node_as_it_is_now() {
    let mut session = server();
    let mut r = Replicator::new();
    let arg = Variant::Array(vec![Variant::from("Crate0"), Variant::Int(3)]);
    let a = r
        .spawn(
            &mut session,
            SPAWNER,
            "Crate0",
            SpawnSource::Custom(arg.clone()),
            vec![mover("crate", 1.0, 10)],
        )
        .unwrap();
    let b = r
        .spawn(
            &mut session,
            SPAWNER,
            "Mover0",
            SpawnSource::Scene(0),
            vec![mover("mover", 2.0, 20)],
        )
        .unwrap();
    // Network ids as the engine gives them: the node, then its synchronizers.
    assert_eq!((a, b), (NodeId(1), NodeId(3)));
    assert!(sent(&mut session).is_empty(), "no peer yet");
    r.set(a, 0, 0, Variant::from("opened")).unwrap();
    r.set(b, 0, 2, Variant::Int(15)).unwrap();
    assert_eq!(r.get(b, 0, 2), Some(&Variant::Int(15)));

    session.connect(9);
    r.peer_connected(&mut session, 9).unwrap();
    let all = sent(&mut session);
    assert!(matches!(&all[0], (9, true, Packet::SimplifyPath { path, .. }) if path == SPAWNER));
    assert!(all.iter().all(|(_, reliable, _)| *reliable));
    let pos = |x| Variant::Vector2(Vector2::new(x, 0.0));
    assert_eq!(
        to(9, &all),
        [
            spawn_of(
                1,
                "Crate0",
                SpawnSource::Custom(arg),
                vec![Variant::from("opened"), pos(1.0), Variant::Int(10)]
            ),
            spawn_of(
                3,
                "Mover0",
                SpawnSource::Scene(0),
                vec![Variant::from("mover"), pos(2.0), Variant::Int(15)]
            ),
        ]
    );
    assert!(r.is_spawned_at(a, 9) && r.is_spawned_at(b, 9));
}

#[test]
fn visibility_spawns_and_despawns_each_peer() {
    let mut session = server();
    let mut r = Replicator::new();
    session.connect(5);
    session.connect(6);
    let n = r
        .spawn(
            &mut session,
            SPAWNER,
            "Mover0",
            SpawnSource::Scene(0),
            vec![mover("m", 0.0, 1)],
        )
        .unwrap();
    let all = sent(&mut session);
    assert_eq!(to(5, &all).len(), 1);
    assert_eq!(to(6, &all).len(), 1);

    r.set_public(&mut session, n, false).unwrap();
    let all = sent(&mut session);
    assert_eq!(to(5, &all), [Packet::Despawn { net_id: 1 }]);
    assert_eq!(to(6, &all), [Packet::Despawn { net_id: 1 }]);
    assert!(!r.is_spawned_at(n, 5));

    // Visible to 6 alone: spawned there again, with the state it has now.
    r.set(n, 0, 2, Variant::Int(7)).unwrap();
    r.set_visible_for(&mut session, n, 6, true).unwrap();
    let all = sent(&mut session);
    assert!(to(5, &all).is_empty());
    assert_eq!(
        to(6, &all),
        [spawn_of(
            1,
            "Mover0",
            SpawnSource::Scene(0),
            vec![
                Variant::from("m"),
                Variant::Vector2(Vector2::new(0.0, 0.0)),
                Variant::Int(7)
            ]
        )]
    );
    // Public again: 5 gets it, 6 already has it.
    r.set_public(&mut session, n, true).unwrap();
    let all = sent(&mut session);
    assert_eq!(to(5, &all).len(), 1);
    assert!(to(6, &all).is_empty());

    // A peer that leaves and comes back with the same id starts afresh.
    r.peer_disconnected(5);
    session.disconnect(5);
    sent(&mut session);
    session.connect(5);
    r.peer_connected(&mut session, 5).unwrap();
    assert_eq!(to(5, &sent(&mut session)).len(), 1);

    r.despawn(&mut session, n).unwrap();
    let all = sent(&mut session);
    assert_eq!(to(5, &all), [Packet::Despawn { net_id: 1 }]);
    assert_eq!(to(6, &all), [Packet::Despawn { net_id: 1 }]);
    assert_eq!(r.get(n, 0, 0), None);
    assert!(matches!(
        r.set(n, 0, 0, Variant::Nil).unwrap_err().kind(),
        ErrorKind::UnknownReplica(1)
    ));
}

#[test]
fn syncs_count_per_peer_and_deltas_carry_what_changed() {
    let mut session = server();
    let mut r = Replicator::new();
    session.connect(5);
    let n = r
        .spawn(
            &mut session,
            SPAWNER,
            "Mover0",
            SpawnSource::Scene(0),
            vec![mover("m", 1.0, 30)],
        )
        .unwrap();
    sent(&mut session);
    let pos = |x| Variant::Vector2(Vector2::new(x, 0.0));
    let sync = |time, x| {
        Packet::Sync(Sync {
            time,
            entries: vec![SyncEntry {
                net_id: 2,
                state: vec![pos(x)],
            }],
        })
    };
    let delta = |indexes, state| {
        Packet::Delta(Delta {
            entries: vec![DeltaEntry {
                net_id: 2,
                indexes,
                state,
            }],
        })
    };

    // The first delta after a spawn holds every watched property.
    r.sync(&mut session).unwrap();
    let all = sent(&mut session);
    assert_eq!(
        to(5, &all),
        [
            sync(1, 1.0),
            delta(0b11, vec![Variant::Int(30), Variant::Bool(true)])
        ]
    );
    assert_eq!(
        all.iter()
            .map(|(_, reliable, _)| *reliable)
            .collect::<Vec<_>>(),
        [false, true]
    );

    // Then only what changed; setting a value to itself is no change.
    r.set(n, 0, 1, pos(2.0)).unwrap();
    r.set(n, 0, 3, Variant::Bool(false)).unwrap();
    r.set(n, 0, 2, Variant::Int(30)).unwrap();
    r.sync(&mut session).unwrap();
    assert_eq!(
        to(5, &sent(&mut session)),
        [sync(2, 2.0), delta(0b10, vec![Variant::Bool(false)])]
    );
    r.sync(&mut session).unwrap();
    assert_eq!(to(5, &sent(&mut session)), [sync(3, 2.0)]);
    // As the engine's watchers, which look at sync time: set and set back between
    // two syncs is no change; the last of several values is what goes.
    r.set(n, 0, 2, Variant::Int(7)).unwrap();
    r.set(n, 0, 2, Variant::Int(30)).unwrap();
    r.sync(&mut session).unwrap();
    assert_eq!(to(5, &sent(&mut session)), [sync(4, 2.0)]);
    r.set(n, 0, 3, Variant::Bool(true)).unwrap();
    r.set(n, 0, 3, Variant::Bool(false)).unwrap();
    r.set(n, 0, 2, Variant::Int(8)).unwrap();
    r.set(n, 0, 2, Variant::Int(30)).unwrap();
    r.set(n, 0, 2, Variant::Int(9)).unwrap();
    r.sync(&mut session).unwrap();
    assert_eq!(
        to(5, &sent(&mut session)),
        [sync(5, 2.0), delta(0b01, vec![Variant::Int(9)])]
    );
    r.set(n, 0, 2, Variant::Int(30)).unwrap();
    r.sync(&mut session).unwrap();
    assert_eq!(
        to(5, &sent(&mut session)),
        [sync(6, 2.0), delta(0b01, vec![Variant::Int(30)])]
    );

    // A peer that joins later counts from 1 and hears of every watched property.
    session.connect(6);
    r.peer_connected(&mut session, 6).unwrap();
    sent(&mut session);
    r.set(n, 0, 2, Variant::Int(29)).unwrap();
    r.sync(&mut session).unwrap();
    let all = sent(&mut session);
    assert_eq!(
        to(5, &all),
        [sync(7, 2.0), delta(0b01, vec![Variant::Int(29)])]
    );
    assert_eq!(
        to(6, &all),
        [
            sync(1, 2.0),
            delta(0b11, vec![Variant::Int(29), Variant::Bool(false)])
        ]
    );
}

#[test]
fn syncs_share_packets_up_to_the_packet_size_and_leave_out_larger_states() {
    let mut session = server();
    let mut r = Replicator::new()
        .sync_packet_size(128)
        .delta_packet_size(128);
    session.connect(5);
    // Ten nodes of one Vector2 each: an entry is 4 + 4 + 12 = 20 bytes, so six share
    // a packet of 3 + 120 bytes.
    let nodes: Vec<NodeId> = (0..10)
        .map(|i| {
            r.spawn(
                &mut session,
                SPAWNER,
                &format!("N{i}"),
                SpawnSource::Scene(0),
                vec![mover("n", i as f32, i)],
            )
            .unwrap()
        })
        .collect();
    sent(&mut session);
    r.sync(&mut session).unwrap();
    let syncs: Vec<Sync> = to(5, &sent(&mut session))
        .into_iter()
        .filter_map(|p| match p {
            Packet::Sync(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(
        syncs.iter().map(|s| s.entries.len()).collect::<Vec<_>>(),
        [6, 4]
    );
    assert!(syncs.iter().all(|s| s.time == 1));

    // A state larger than the packet size is left out, the others go, and the error
    // names it; its delta is tried again in the next sync.
    let big = Variant::from("x".repeat(200));
    r.set(nodes[3], 0, 1, big.clone()).unwrap();
    r.set(nodes[4], 0, 3, big.clone()).unwrap();
    let err = r.sync(&mut session).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::StateTooLarge(8)), "{err}");
    let packets = to(5, &sent(&mut session));
    let synced: Vec<u32> = packets
        .iter()
        .flat_map(|p| match p {
            Packet::Sync(s) => s.entries.iter().map(|e| e.net_id).collect(),
            _ => vec![],
        })
        .collect();
    assert_eq!(synced, [2, 4, 6, 10, 12, 14, 16, 18, 20]);
    assert!(packets
        .iter()
        .all(|p| !matches!(p, Packet::Delta(d) if d.entries.iter().any(|e| e.net_id == 10))));
    r.set(nodes[4], 0, 3, Variant::Bool(true)).unwrap();
    r.set(nodes[3], 0, 1, Variant::Nil).unwrap();
    r.sync(&mut session).unwrap();
    let packets = to(5, &sent(&mut session));
    assert!(packets.iter().any(|p| matches!(p, Packet::Delta(d) if d.entries.iter().any(|e| e.net_id == 10 && e.indexes == 0b10))));
}

#[test]
fn configs_that_do_not_fit_are_refused() {
    let mut session = server();
    let mut r = Replicator::new();
    let mut short = mover("m", 0.0, 0);
    short.values.pop();
    let e = r
        .spawn(
            &mut session,
            SPAWNER,
            "A",
            SpawnSource::Scene(0),
            vec![short],
        )
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ReplicationConfig(_)), "{e}");
    let many = Synchronizer {
        config: vec![Property::new(false, OnChange); 65],
        values: vec![Variant::Nil; 65],
    };
    let e = r
        .spawn(
            &mut session,
            SPAWNER,
            "A",
            SpawnSource::Scene(0),
            vec![many],
        )
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ReplicationConfig(_)), "{e}");
    // A node the engine would refuse is not kept.
    session.connect(5);
    refuses_a_bad_name_and_spawner(&mut r, &mut session);
    r.sync(&mut session).unwrap();
    assert!(sent(&mut session)
        .iter()
        .all(|(_, _, p)| matches!(p, Packet::SimplifyPath { .. })));
    let n = r
        .spawn(
            &mut session,
            SPAWNER,
            "A",
            SpawnSource::Scene(0),
            vec![mover("m", 0.0, 0)],
        )
        .unwrap();
    assert!(matches!(
        r.set(n, 1, 0, Variant::Nil).unwrap_err().kind(),
        ErrorKind::ReplicationConfig(_)
    ));
    assert!(matches!(
        r.set(n, 0, 4, Variant::Nil).unwrap_err().kind(),
        ErrorKind::ReplicationConfig(_)
    ));
}

/// Any sequence of operations: every peer has exactly the nodes visible to it, and
/// every packet queued is one the engine reads (it decodes, and SYNC times per peer
/// go up by one).
#[test]
fn any_sequence_keeps_peers_in_step_with_visibility() {
    fn prop(ops: Vec<(u8, u8, u8)>) -> TestResult {
        let mut session = server();
        let mut r = Replicator::new();
        let mut nodes: Vec<NodeId> = Vec::new();
        let mut spawned = 0;
        let mut has: std::collections::BTreeSet<(i32, u32)> = Default::default();
        let mut times: std::collections::HashMap<i32, u16> = Default::default();
        // The visibility asked for: public per node, and (node, peer) pairs.
        let mut public: std::collections::HashMap<u32, bool> = Default::default();
        let mut visible_for: std::collections::BTreeSet<(u32, i32)> = Default::default();
        for (op, a, b) in ops {
            let peer = i32::from(a % 4) + 2;
            let node = nodes.get(usize::from(b) % nodes.len().max(1)).copied();
            match (op % 8, node) {
                (0, _) => {
                    let n = r
                        .spawn(
                            &mut session,
                            SPAWNER,
                            &format!("N{}", spawned),
                            SpawnSource::Scene(0),
                            vec![mover("m", f32::from(a), i64::from(b))],
                        )
                        .unwrap();
                    spawned += 1;
                    nodes.push(n);
                }
                (1, _) if !session.peers().any(|p| p == peer) => {
                    session.connect(peer);
                    r.peer_connected(&mut session, peer).unwrap();
                }
                (2, _) if session.peers().any(|p| p == peer) => {
                    // As the application tells it, or only as the transport drops it.
                    if b % 2 == 0 {
                        r.peer_disconnected(peer);
                    }
                    session.disconnect(peer);
                    has.retain(|(p, _)| *p != peer);
                    times.remove(&peer);
                }
                (3, Some(n)) => {
                    r.set_public(&mut session, n, a % 2 == 0).unwrap();
                    public.insert(n.0, a % 2 == 0);
                }
                (4, Some(n)) => {
                    r.set_visible_for(&mut session, n, peer, b % 2 == 0)
                        .unwrap();
                    if b % 2 == 0 {
                        visible_for.insert((n.0, peer));
                    } else {
                        visible_for.remove(&(n.0, peer));
                    }
                }
                (5, Some(n)) => r
                    .set(n, 0, usize::from(a % 4), Variant::Int(i64::from(b)))
                    .unwrap(),
                (6, Some(n)) => {
                    r.despawn(&mut session, n).unwrap();
                    nodes.retain(|&m| m != n);
                }
                (7, _) => r.sync(&mut session).unwrap(),
                _ => {}
            }
            while let Some(t) = session.poll_transmit() {
                let Ok(p) = Packet::decode(&t.bytes) else {
                    return TestResult::error(format!("{:?}", t.bytes));
                };
                match p {
                    Packet::Spawn(s) if !has.insert((t.to, s.net_id)) => {
                        return TestResult::error(format!("{} spawned twice at {}", s.net_id, t.to))
                    }
                    Packet::Despawn { net_id } if !has.remove(&(t.to, net_id)) => {
                        return TestResult::error(format!(
                            "{net_id} despawned at {} without a spawn",
                            t.to
                        ))
                    }
                    Packet::Sync(s) => {
                        let last = times.entry(t.to).or_default();
                        if s.time != last.wrapping_add(1) && s.time != *last {
                            return TestResult::error(format!("time {} after {last}", s.time));
                        }
                        *last = s.time;
                    }
                    _ => {}
                }
            }
            for &n in &nodes {
                for p in session.peers() {
                    let visible = public.get(&n.0).copied().unwrap_or(true)
                        || visible_for.contains(&(n.0, p));
                    if r.is_spawned_at(n, p) != visible || visible != has.contains(&(p, n.0)) {
                        return TestResult::error(format!("{n:?} at {p}: visible {visible}"));
                    }
                }
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(500)
        .quickcheck(prop as fn(Vec<(u8, u8, u8)>) -> TestResult);
}

/// What would fail later is refused at once, and a peer that the transport dropped
/// (the session no longer has it) does not stop the others' despawns and syncs.
#[test]
fn spawns_are_checked_without_peers_and_dropped_peers_are_forgotten() {
    let mut session = server();
    let mut r = Replicator::new();
    refuses_a_bad_name_and_spawner(&mut r, &mut session);
    let n = r
        .spawn(
            &mut session,
            SPAWNER,
            "A",
            SpawnSource::Scene(0),
            vec![mover("m", 0.0, 1)],
        )
        .unwrap();
    let e = r
        .spawn(&mut session, SPAWNER, "A", SpawnSource::Scene(0), vec![])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::ReplicationConfig(_)), "{e}");
    // A full Object is no property value: refused when set, not in a later sync.
    let object = godot_bin::Variant::Object(Default::default());
    assert!(r.set(n, 0, 2, object).is_err());
    assert_eq!(r.get(n, 0, 2), Some(&Variant::Int(1)));

    session.connect(2);
    session.connect(3);
    r.peer_connected(&mut session, 2).unwrap();
    r.peer_connected(&mut session, 3).unwrap();
    sent(&mut session);
    session.disconnect(2);
    sent(&mut session);
    r.sync(&mut session).unwrap();
    assert_eq!(to(3, &sent(&mut session)).len(), 2, "sync and first delta");
    r.despawn(&mut session, n).unwrap();
    assert_eq!(to(3, &sent(&mut session)), [Packet::Despawn { net_id: 1 }]);
}
