//! The crate's servers replicate nodes to a real Godot 4.6 client
//! (`tests/oracle/replica_client4.gd`) over WebSocket and ENet: spawns through its
//! MultiplayerSpawner (a packed scene and a spawn function with its argument), syncs
//! and deltas to the spawned nodes' MultiplayerSynchronizers, despawns, and syncs and
//! deltas to a synchronizer of the scene named by its path; the engine prints what it
//! made of each, which must be exactly the values sent.
#![cfg(all(feature = "websocket", feature = "enet"))]

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::{engine, godot4, Engine};
use godot_bin::{Dictionary, PoolStringArray, Variant, Vector2, Vector3};
use godot_bin_multiplayer::{
    enet, ws, Delta, DeltaEntry, Event, NodeId, Packet, Property, ReplicationMode, Replicator,
    Scene, Session, Spawn, SpawnSource, Sync, SyncEntry, Synchronizer, Target,
};
use serde_json::Value;

const SPAWNER: &str = "Game/Spawner";
/// A synchronizer that is not spawned: named by its path cache id.
const STATE_SYNC: &str = "Game/State/Sync";

/// A small seeded generator: the values differ from node to node and step to step.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    /// A float the engine's `real_t` properties hold exactly.
    fn real(&mut self) -> f32 {
        (self.next() % 6000) as f32 / 1000.0 - 3.0
    }

    fn int(&mut self) -> i64 {
        match self.next() % 4 {
            0 => (self.next() % 256) as i64 - 128,
            1 => (self.next() % 65536) as i64 - 32768,
            2 => self.next() as i32 as i64,
            _ => self.next() as i64 * if self.next() % 2 == 0 { 1 } else { -1 },
        }
    }

    fn text(&mut self) -> String {
        let n = self.next() % 8;
        (0..n)
            .map(|_| ['a', 'Z', '0', ' ', 'é', '€', '😀'][(self.next() % 7) as usize])
            .collect()
    }

    fn any(&mut self) -> Variant {
        match self.next() % 7 {
            0 => Variant::Nil,
            1 => Variant::Bool(self.next() % 2 == 0),
            2 => Variant::Int(self.int()),
            3 => Variant::Float(self.next() as f64 / 7.0),
            4 => Variant::String(self.text()),
            5 => Variant::Vector3(Vector3::new(self.real(), self.real(), self.real())),
            _ => {
                let mut d = Dictionary::new();
                d.insert(
                    Variant::String(self.text()),
                    Variant::Array(vec![Variant::Int(self.int())]),
                );
                Variant::Dictionary(d)
            }
        }
    }

    fn tags(&mut self) -> Variant {
        let n = self.next() % 3;
        Variant::PoolStringArray(PoolStringArray::from(
            (0..n).map(|_| self.text()).collect::<Vec<_>>(),
        ))
    }

    fn position(&mut self) -> Variant {
        Variant::Vector2(Vector2::new(self.real(), self.real()))
    }

    /// The "always" properties: position, rotation.
    fn always(&mut self) -> Vec<Variant> {
        vec![self.position(), Variant::Float(self.real().into())]
    }

    /// The spawn properties: label, extra, position, rotation, hp, tags.
    fn spawn_state(&mut self) -> Vec<Variant> {
        let [position, rotation]: [Variant; 2] = self.always().try_into().unwrap();
        vec![
            Variant::String(self.text()),
            self.any(),
            position,
            rotation,
            Variant::Int(self.int()),
            self.tags(),
        ]
    }
}

enum Server {
    Ws(ws::Server),
    Enet(enet::Server),
}

impl Server {
    async fn next_event(&mut self) -> Option<Event> {
        match self {
            Server::Ws(s) => s.next_event().await,
            Server::Enet(s) => s.next_event().await,
        }
    }

    fn spawn(&mut self, spawn: Spawn) {
        match self {
            Server::Ws(s) => s.spawn(Target::All, SPAWNER, spawn).unwrap(),
            Server::Enet(s) => s.spawn(Target::All, SPAWNER, spawn).unwrap(),
        }
    }

    fn synchronizer_id(&mut self, peer: i32) -> Option<u32> {
        match self {
            Server::Ws(s) => s.synchronizer_id(peer, STATE_SYNC).unwrap(),
            Server::Enet(s) => s.synchronizer_id(peer, STATE_SYNC).unwrap(),
        }
    }

    fn replicate(&mut self, packet: Packet) {
        match self {
            Server::Ws(s) => s.replicate(Target::All, &packet).unwrap(),
            Server::Enet(s) => s.replicate(Target::All, &packet).unwrap(),
        }
    }

    async fn bind(enet_transport: bool, scene: Scene) -> Server {
        if enet_transport {
            Server::Enet(enet::Server::bind("127.0.0.1:0", scene).await.unwrap())
        } else {
            Server::Ws(ws::Server::bind("127.0.0.1:0", scene).await.unwrap())
        }
    }

    /// Starts `replica_client4.gd`, which quits after `despawns` despawns, and waits
    /// for it to join: the engine and its peer id.
    async fn join(&mut self, bin: &std::path::Path, despawns: usize) -> (Engine, i32) {
        let (port, transport) = match self {
            Server::Ws(s) => (s.local_addr().port(), "ws"),
            Server::Enet(s) => (s.local_addr().port(), "enet"),
        };
        let client = Engine::start(
            bin,
            "replica_client4.gd",
            &[
                ("PORT", port.to_string()),
                ("TRANSPORT", transport.into()),
                ("DESPAWNS", despawns.to_string()),
            ],
        );
        let id = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                if let Some(Event::PeerConnected(id)) = self.next_event().await {
                    return id;
                }
            }
        })
        .await
        .expect("the engine joins");
        (client, id)
    }

    /// Serves until the engine quits; its log, after checking that it quit with 0.
    async fn finish(&mut self, client: Engine) -> Vec<Value> {
        let finish = client.finish(Duration::from_secs(30));
        tokio::pin!(finish);
        let (code, log) = loop {
            tokio::select! {
                r = &mut finish => break r,
                _ = self.next_event() => {}
            }
        };
        assert_eq!(code, Some(0), "{log:?}");
        log
    }

    /// Works on the server's session, then sends what that queued.
    fn with<T>(&mut self, f: impl FnOnce(&mut Session) -> T) -> T {
        match self {
            Server::Ws(s) => {
                let t = f(s.session());
                s.flush().unwrap();
                t
            }
            Server::Enet(s) => {
                let t = f(s.session());
                s.flush().unwrap();
                t
            }
        }
    }

    /// Serves events for `d` (the client's path confirmations).
    async fn serve(&mut self, d: Duration) {
        let _ = tokio::time::timeout(d, async {
            loop {
                self.next_event().await;
            }
        })
        .await;
    }
}

/// The engine applied every SYNC of `name` that was `sent`, in order (ENet sends them
/// unreliably: on loopback none is lost, but only their order is asked of it).
fn check_synced(log: &[Value], name: &str, sent: &[Vec<Variant>], enet_transport: bool) {
    let got: Vec<Vec<Variant>> = log
        .iter()
        .filter(|l| l["synced"] == *name)
        .map(values)
        .collect();
    if enet_transport {
        assert!(!got.is_empty(), "{name}");
        let mut rest = sent.iter();
        assert!(got.iter().all(|g| rest.any(|s| s == g)), "{name}: {got:?}");
    } else {
        assert_eq!(got, sent, "{name}");
    }
}

fn values(l: &Value) -> Vec<Variant> {
    match godot4(l["values"].as_str().unwrap()) {
        Variant::Array(a) => a,
        other => panic!("{other:?}"),
    }
}

async fn replicate_to_engine(enet_transport: bool) {
    let Some(bin) = engine("godot4") else {
        return;
    };
    let scene = Scene::new()
        .node(SPAWNER, Vec::<String>::new())
        .node(STATE_SYNC, Vec::<String>::new());
    let mut server = Server::bind(enet_transport, scene).await;
    let (mut client, id) = server.join(&bin, 2).await;
    assert_eq!(
        client.wait_for("connected", Duration::from_secs(30)).await["connected"],
        id
    );

    let mut rng = Rng(if enet_transport { 7 } else { 3 });
    // The scene's synchronizer: no id until the engine confirmed its path.
    assert_eq!(server.synchronizer_id(id), None);
    let state_id = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            server.serve(Duration::from_millis(20)).await;
            if let Some(n) = server.synchronizer_id(id) {
                return n;
            }
        }
    })
    .await
    .expect("the engine confirms the synchronizer's path");
    assert_eq!(state_id, 0x8000_0002);
    let score = Variant::Int(rng.int());
    let motd = Variant::String(rng.text());
    server.replicate(Packet::Sync(Sync {
        time: 1,
        entries: vec![SyncEntry {
            net_id: state_id,
            state: vec![score.clone()],
        }],
    }));
    server.replicate(Packet::Delta(Delta {
        entries: vec![DeltaEntry {
            net_id: state_id,
            indexes: 1,
            state: vec![motd.clone()],
        }],
    }));
    // Crate0 from the spawn function (net id 1, synchronizer 2), Mover0 from scene 0
    // (net id 3, synchronizer 4).
    let arg = Variant::Array(vec![
        Variant::String("Crate0".into()),
        rng.position(),
        rng.any(),
        Variant::Int(rng.int()),
    ]);
    let spawns = [
        ("Crate0", SpawnSource::Custom(arg.clone()), 1, 2),
        ("Mover0", SpawnSource::Scene(0), 3, 4),
    ];
    let mut spawn_states = HashMap::new();
    for (name, source, net_id, sync_id) in spawns.clone() {
        let state = rng.spawn_state();
        spawn_states.insert(name, state.clone());
        server.spawn(Spawn {
            source,
            spawner: 0,
            net_id,
            sync_ids: vec![sync_id],
            name: name.into(),
            state,
        });
    }
    server.serve(Duration::from_millis(100)).await;
    let mut synced: HashMap<&str, Vec<Vec<Variant>>> = HashMap::new();
    for time in 1..=10u16 {
        let mut entries = Vec::new();
        for (name, _, _, sync_id) in &spawns {
            let state = rng.always();
            synced.entry(name).or_default().push(state.clone());
            entries.push(SyncEntry {
                net_id: *sync_id,
                state,
            });
        }
        server.replicate(Packet::Sync(Sync { time, entries }));
        server.serve(Duration::from_millis(20)).await;
    }
    // Watched properties, hp (bit 0), visible (1), tags (2).
    let deltas = [
        (
            "Crate0",
            2,
            0b101,
            vec![Variant::Int(rng.int()), rng.tags()],
        ),
        ("Mover0", 4, 0b010, vec![Variant::Bool(false)]),
        (
            "Mover0",
            4,
            0b111,
            vec![Variant::Int(rng.int()), Variant::Bool(true), rng.tags()],
        ),
    ];
    for (_, sync_id, indexes, state) in &deltas {
        server.replicate(Packet::Delta(Delta {
            entries: vec![DeltaEntry {
                net_id: *sync_id,
                indexes: *indexes,
                state: state.clone(),
            }],
        }));
    }
    server.serve(Duration::from_millis(100)).await;
    for net_id in [1, 3] {
        server.replicate(Packet::Despawn { net_id });
    }

    let log = server.finish(client).await;

    // Spawned with the argument and the state sent.
    let spawned: Vec<&Value> = log.iter().filter(|l| l.get("spawned").is_some()).collect();
    assert_eq!(spawned.len(), 2, "{log:?}");
    for l in spawned {
        let name = l["spawned"].as_str().unwrap();
        let want_arg = if name == "Crate0" {
            arg.clone()
        } else {
            Variant::Nil
        };
        assert_eq!(godot4(l["arg"].as_str().unwrap()), want_arg, "{name}");
        assert_eq!(values(l), spawn_states[name], "{name}");
    }
    for (name, _, _, _) in &spawns {
        check_synced(&log, name, &synced[name], enet_transport);
    }
    // Each delta changed exactly the properties its bits name.
    let applied: Vec<&Value> = log
        .iter()
        .filter(|l| l.get("delta").is_some() && l["delta"] != "State")
        .collect();
    assert_eq!(applied.len(), deltas.len(), "{log:?}");
    for (l, (name, _, indexes, state)) in applied.iter().zip(&deltas) {
        assert_eq!(l["delta"], *name);
        let after = values(l);
        let changed: Vec<Variant> = (0..3)
            .filter(|i| indexes & 1 << i != 0)
            .map(|i| after[i].clone())
            .collect();
        assert_eq!(&changed, state, "{name}");
    }
    let state: Vec<(&str, Vec<Variant>)> = log
        .iter()
        .filter(|l| l["synced"] == "State" || l["delta"] == "State")
        .map(|l| {
            (
                if l["synced"] == "State" {
                    "synced"
                } else {
                    "delta"
                },
                values(l),
            )
        })
        .collect();
    assert_eq!(state, [("synced", vec![score]), ("delta", vec![motd])]);
    let despawned: Vec<&str> = log.iter().filter_map(|l| l["despawned"].as_str()).collect();
    assert_eq!(despawned, ["Crate0", "Mover0"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_client_applies_websocket_replication() {
    replicate_to_engine(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn godot4_client_applies_enet_replication() {
    replicate_to_engine(true).await;
}

/// `tests/oracle/replica_client4.gd`'s config of a spawned node's synchronizer: label
/// and extra (spawn only), position and rotation (spawn, always), hp (spawn, on
/// change), visible (on change), tags (spawn, on change).
fn thing_config() -> Vec<Property> {
    use ReplicationMode::{Always, Never, OnChange};
    vec![
        Property::new(true, Never),
        Property::new(true, Never),
        Property::new(true, Always),
        Property::new(true, Always),
        Property::new(true, OnChange),
        Property::new(false, OnChange),
        Property::new(true, OnChange),
    ]
}

const SPAWN_PROPS: [usize; 6] = [0, 1, 2, 3, 4, 6];
const ALWAYS_PROPS: [usize; 2] = [2, 3];
const WATCHED_PROPS: [usize; 3] = [4, 5, 6];

/// A `Replicator` drives a Godot 4.6 client that joins after the nodes were spawned:
/// it gets them as they are then; syncs and deltas (every watched property first,
/// then what changed) apply; a node hidden from it is despawned there and spawned
/// again with its state when shown; despawns end it.
async fn replicator_to_engine(enet_transport: bool) {
    let Some(bin) = engine("godot4") else {
        return;
    };
    let scene = Scene::new().node(SPAWNER, Vec::<String>::new());
    let mut server = Server::bind(enet_transport, scene).await;
    let mut rng = Rng(if enet_transport { 11 } else { 5 });
    let mut r = Replicator::new();
    let arg = Variant::Array(vec![Variant::String("Crate0".into()), rng.any()]);
    let mut nodes: Vec<(&str, NodeId)> = Vec::new();
    for (name, source) in [
        ("Crate0", SpawnSource::Custom(arg.clone())),
        ("Mover0", SpawnSource::Scene(0)),
    ] {
        let mut values = rng.spawn_state();
        // Config order: visible (not spawned) between hp and tags.
        values.insert(5, Variant::Bool(true));
        let sync = Synchronizer {
            config: thing_config(),
            values,
        };
        let id = server.with(|s| r.spawn(s, SPAWNER, name, source, vec![sync]).unwrap());
        nodes.push((name, id));
    }
    let (crate0, mover0) = (nodes[0].1, nodes[1].1);
    let props = |r: &Replicator, n: NodeId, which: &[usize]| -> Vec<Variant> {
        which
            .iter()
            .map(|&i| r.get(n, 0, i).unwrap().clone())
            .collect()
    };
    // What the engine must report: spawns, and per node its syncs and deltas.
    let mut spawns = vec![
        ("Crate0", props(&r, crate0, &SPAWN_PROPS), arg.clone()),
        ("Mover0", props(&r, mover0, &SPAWN_PROPS), Variant::Nil),
    ];

    let (mut client, id) = server.join(&bin, 3).await;
    server.with(|s| r.peer_connected(s, id).unwrap());
    client.wait_for("connected", Duration::from_secs(30)).await;
    server.serve(Duration::from_millis(100)).await;

    let mut synced: HashMap<&str, Vec<Vec<Variant>>> = HashMap::new();
    let mut deltas: HashMap<&str, Vec<Vec<Variant>>> = HashMap::new();
    // One sync round: what each node spawned at the engine is sent.
    let mut round = |server: &mut Server, r: &mut Replicator, delta_of: &[NodeId]| {
        for &(name, n) in &nodes {
            if r.is_spawned_at(n, id) {
                synced
                    .entry(name)
                    .or_default()
                    .push(props(r, n, &ALWAYS_PROPS));
                if delta_of.contains(&n) {
                    deltas
                        .entry(name)
                        .or_default()
                        .push(props(r, n, &WATCHED_PROPS));
                }
            }
        }
        server.with(|s| r.sync(s).unwrap());
    };
    // The first round carries every watched property of both.
    round(&mut server, &mut r, &[crate0, mover0]);
    server.serve(Duration::from_millis(20)).await;
    for _ in 0..4 {
        for n in [crate0, mover0] {
            let [position, rotation]: [Variant; 2] = rng.always().try_into().unwrap();
            r.set(n, 0, 2, position).unwrap();
            r.set(n, 0, 3, rotation).unwrap();
        }
        round(&mut server, &mut r, &[]);
        server.serve(Duration::from_millis(20)).await;
    }
    r.set(crate0, 0, 4, Variant::Int(rng.int())).unwrap();
    r.set(mover0, 0, 5, Variant::Bool(false)).unwrap();
    r.set(mover0, 0, 6, rng.tags()).unwrap();
    round(&mut server, &mut r, &[crate0, mover0]);
    server.serve(Duration::from_millis(50)).await;

    // Hidden: despawned at the engine; shown again: spawned with its state now, and
    // every watched property in the next delta.
    server.with(|s| r.set_public(s, crate0, false).unwrap());
    server.serve(Duration::from_millis(200)).await;
    r.set(crate0, 0, 0, Variant::String(rng.text())).unwrap();
    r.set(crate0, 0, 4, Variant::Int(rng.int())).unwrap();
    r.set(crate0, 0, 5, Variant::Bool(false)).unwrap();
    server.with(|s| r.set_visible_for(s, crate0, id, true).unwrap());
    spawns.push(("Crate0", props(&r, crate0, &SPAWN_PROPS), arg.clone()));
    round(&mut server, &mut r, &[crate0]);
    server.serve(Duration::from_millis(100)).await;
    server.with(|s| r.despawn(s, mover0).unwrap());
    server.with(|s| r.despawn(s, crate0).unwrap());

    let log = server.finish(client).await;

    let spawned: Vec<(&str, Vec<Variant>, Variant)> = log
        .iter()
        .filter(|l| l.get("spawned").is_some())
        .map(|l| {
            (
                l["spawned"].as_str().unwrap(),
                values(l),
                godot4(l["arg"].as_str().unwrap()),
            )
        })
        .collect();
    assert_eq!(spawned, spawns, "{log:?}");
    for (name, _) in &nodes {
        check_synced(&log, name, &synced[name], enet_transport);
        let got: Vec<Vec<Variant>> = log
            .iter()
            .filter(|l| l["delta"] == *name)
            .map(values)
            .collect();
        assert_eq!(got, deltas[name], "{name}");
    }
    let despawned: Vec<&str> = log.iter().filter_map(|l| l["despawned"].as_str()).collect();
    assert_eq!(despawned, ["Crate0", "Mover0", "Crate0"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicator_drives_a_godot4_client_over_websocket() {
    replicator_to_engine(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicator_drives_a_godot4_client_over_enet() {
    replicator_to_engine(true).await;
}
