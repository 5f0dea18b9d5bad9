//! The authority's side of Godot 4's scene replication, as `SceneReplicationInterface`
//! does it for `MultiplayerSpawner` and `MultiplayerSynchronizer`: which nodes each
//! peer has, their network ids, their properties, and the SPAWN, DESPAWN, SYNC and
//! delta packets that keep Godot clients' copies up to date.
//!
//! [`Replicator`] holds no connection: each method that sends takes the [`Session`]
//! the packets go through (`ws::Server::session`, `enet::Server::session`, then their
//! `flush`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use godot_bin::Variant;

use crate::error::{Error, ErrorKind, Result};
use crate::replication::{Delta, DeltaEntry, Spawn, SpawnSource, Sync, SyncEntry};
use crate::scene4::Packet;
use crate::session::{Session, Target};

/// When a watched property travels (`SceneReplicationConfig.ReplicationMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplicationMode {
    /// Only in the spawn, if [`Property::spawn`] says so.
    Never,
    /// In every [`Replicator::sync`] (SYNC, unreliable).
    Always,
    /// After it changed, in the next [`Replicator::sync`] (delta, reliable).
    OnChange,
}

/// One property of a synchronizer's replication config, in the config's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Property {
    /// Sent in the spawn (`property_set_spawn`).
    pub spawn: bool,
    /// `property_set_replication_mode`.
    pub mode: ReplicationMode,
}

impl Property {
    /// A property with these settings.
    pub const fn new(spawn: bool, mode: ReplicationMode) -> Property {
        Property { spawn, mode }
    }
}

/// A synchronizer of a spawned node: its config and its properties' values, in the
/// same order as the Godot side's `SceneReplicationConfig`.
#[derive(Debug, Clone, PartialEq)]
pub struct Synchronizer {
    /// The properties' settings.
    pub config: Vec<Property>,
    /// Their values, as many as `config`.
    pub values: Vec<Variant>,
}

/// A replicated node: the network id that its spawn and despawn name it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// The most [`ReplicationMode::OnChange`] properties a synchronizer may have: a delta
/// names them by the bits of a `u64`.
pub const MAX_WATCHED: usize = 64;

/// The engine's defaults (`SceneMultiplayer` `max_sync_packet_size`,
/// `max_delta_packet_size`).
const SYNC_MTU: usize = 1350;
const DELTA_MTU: usize = 65535;
const MIN_MTU: usize = 128;

/// Spawns, despawns and property state of nodes replicated to Godot 4 peers, as the
/// engine's authority sends them: a peer that joins gets every node visible to it,
/// with its current spawn properties; a node that becomes visible to a peer is
/// spawned there, one that stops being visible is despawned; each
/// [`sync`](Replicator::sync) sends the "always" properties of every node a peer has
/// (SYNC, with that peer's own sync counter) and the watched properties that changed
/// since that peer last heard of them (delta; after a spawn, every watched property,
/// as the engine's first delta to a peer holds them all).
///
/// ```
/// use godot_bin::{Variant, Vector2};
/// use godot_bin_multiplayer::{
///     Packet, Property, ReplicationMode, Replicator, Scene, Session, SpawnSource, Synchronizer,
/// };
///
/// let scene = Scene::new().node("Game/Spawner", Vec::<String>::new());
/// let mut session = Session::server(scene);
/// let mut replicator = Replicator::new();
/// // position: spawned and always synced; hp: spawned and sent when it changes.
/// let sync = Synchronizer {
///     config: vec![
///         Property::new(true, ReplicationMode::Always),
///         Property::new(true, ReplicationMode::OnChange),
///     ],
///     values: vec![Variant::Vector2(Vector2::new(1.0, 2.0)), Variant::Int(100)],
/// };
/// let mover = replicator.spawn(&mut session, "Game/Spawner", "Mover", SpawnSource::Scene(0), vec![sync])?;
/// // A peer that joins later gets the node as it is now.
/// replicator.set(mover, 0, 1, Variant::Int(90))?;
/// session.connect(7);
/// replicator.peer_connected(&mut session, 7)?;
/// fn sent(session: &mut Session) -> Vec<Packet> {
///     std::iter::from_fn(|| session.poll_transmit())
///         .map(|t| Packet::decode(&t.bytes).unwrap())
///         .collect()
/// }
/// // The spawner's path for the peer's cache, then the spawn.
/// let Packet::Spawn(spawn) = &sent(&mut session)[1] else { panic!() };
/// assert_eq!(spawn.state, [Variant::Vector2(Vector2::new(1.0, 2.0)), Variant::Int(90)]);
/// // Each sync: the position; the first one also every watched property (hp).
/// replicator.sync(&mut session)?;
/// assert!(matches!(&sent(&mut session)[..], [Packet::Sync(_), Packet::Delta(_)]));
/// replicator.sync(&mut session)?;
/// assert!(matches!(&sent(&mut session)[..], [Packet::Sync(_)]));
/// # Ok::<(), godot_bin_multiplayer::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Replicator {
    nodes: BTreeMap<u32, Replica>,
    /// The last network id given to a node or synchronizer.
    last_id: u32,
    /// Each peer's SYNC counter (the engine's `last_sent_sync`).
    sync_time: HashMap<i32, u16>,
    /// The peers that have a node spawned or a SYNC counter.
    known: BTreeSet<i32>,
    /// How many syncs have been done: a watched property changed in round `r` goes
    /// to the peers that last heard of it before `r`.
    round: u64,
    sync_mtu: usize,
    delta_mtu: usize,
}

#[derive(Debug, Clone)]
struct Replica {
    spawner: String,
    name: String,
    source: SpawnSource,
    syncs: Vec<Synced>,
    public: bool,
    /// Peers it is visible to besides `public`.
    visible_for: BTreeSet<i32>,
    /// The peers it is spawned at, with the last round of watched properties each
    /// heard of, per synchronizer.
    spawned_at: BTreeMap<i32, Vec<u64>>,
}

#[derive(Debug, Clone)]
struct Synced {
    id: u32,
    sync: Synchronizer,
    /// Per property, the round it last changed in (1 at first: every peer hears of
    /// every watched property once).
    changed: Vec<u64>,
    /// Per property, its value when a sync last looked: a watched property changed
    /// in a round if it differs then (set and set back between two syncs is no
    /// change, as the engine's watchers see it).
    watched: Vec<Variant>,
}

impl Default for Replicator {
    fn default() -> Self {
        Replicator::new()
    }
}

impl Replicator {
    /// No nodes yet; SYNC packets up to 1350 bytes and deltas up to 65535, as the
    /// engine sends them.
    pub fn new() -> Replicator {
        Replicator {
            nodes: BTreeMap::new(),
            last_id: 0,
            sync_time: HashMap::new(),
            known: BTreeSet::new(),
            round: 0,
            sync_mtu: SYNC_MTU,
            delta_mtu: DELTA_MTU,
        }
    }

    /// The size up to which SYNC entries share a packet (`max_sync_packet_size`, at
    /// least 128 as in the engine: a smaller size is taken as 128). As in the engine,
    /// a synchronizer whose values alone take more is not sent: [`Replicator::sync`]
    /// sends the rest and then says which.
    pub fn sync_packet_size(mut self, bytes: usize) -> Replicator {
        self.sync_mtu = bytes.max(MIN_MTU);
        self
    }

    /// The same for delta packets (`max_delta_packet_size`); a delta not sent for its
    /// size is tried again in the next sync.
    pub fn delta_packet_size(mut self, bytes: usize) -> Replicator {
        self.delta_mtu = bytes.max(MIN_MTU);
        self
    }

    /// Spawns `name` through the spawner at `spawner` (a node of the session's scene)
    /// on every peer, with the given synchronizers (as many as, and in the order
    /// that, the Godot side's spawned node has them). Its network id is returned; its
    /// synchronizers get the ids after it.
    pub fn spawn(
        &mut self,
        session: &mut Session,
        spawner: &str,
        name: &str,
        source: SpawnSource,
        synchronizers: Vec<Synchronizer>,
    ) -> Result<NodeId> {
        for s in &synchronizers {
            check(s)?;
        }
        // Checked whether or not a peer is connected yet: a node that no peer could be
        // sent would otherwise fail every later join.
        if session.scene().names(spawner).is_none() {
            return Err(Error::at(ErrorKind::UnknownNode(spawner.to_owned()), 0));
        }
        if self
            .nodes
            .values()
            .any(|r| r.spawner == spawner && r.name == name)
        {
            // The receiving engine refuses a second node of the same name.
            return Err(config_error(format!(
                "a node named {name:?} is already spawned by {spawner:?}"
            )));
        }
        Packet::Spawn(Spawn {
            source: source.clone(),
            spawner: 1,
            net_id: 1,
            sync_ids: vec![2; synchronizers.len()],
            name: name.to_owned(),
            state: Vec::new(),
        })
        .encode()?;
        for s in &synchronizers {
            for v in &s.values {
                encodable(v)?;
            }
        }
        let net_id = self.next_id()?;
        let mut syncs = Vec::with_capacity(synchronizers.len());
        for sync in synchronizers {
            // As the engine's watchers, which count their first look as a change: a
            // peer's first delta after the spawn holds every watched property.
            let changed = vec![1; sync.values.len()];
            let watched = sync.values.clone();
            syncs.push(Synced {
                id: self.next_id()?,
                sync,
                changed,
                watched,
            });
        }
        self.nodes.insert(
            net_id,
            Replica {
                spawner: spawner.to_owned(),
                name: name.to_owned(),
                source,
                syncs,
                public: true,
                visible_for: BTreeSet::new(),
                spawned_at: BTreeMap::new(),
            },
        );
        let node = NodeId(net_id);
        if let Err(e) = self.update(session, node) {
            self.nodes.remove(&net_id);
            return Err(e);
        }
        Ok(node)
    }

    /// Despawns `node` wherever it is spawned, and forgets it.
    pub fn despawn(&mut self, session: &mut Session, node: NodeId) -> Result<()> {
        self.forget_gone(session);
        let replica = self.replica(node)?;
        let peers: Vec<i32> = replica.spawned_at.keys().copied().collect();
        for p in peers {
            session.replicate(Target::Peer(p), &Packet::Despawn { net_id: node.0 })?;
        }
        self.nodes.remove(&node.0);
        Ok(())
    }

    /// The value of `node`'s synchronizer `sync`'s property `property`.
    pub fn get(&self, node: NodeId, sync: usize, property: usize) -> Option<&Variant> {
        self.nodes
            .get(&node.0)?
            .syncs
            .get(sync)?
            .sync
            .values
            .get(property)
    }

    /// Sets a property: peers hear of it in the next sync (an "always" one), in the
    /// next sync if it differs then from what the sync before saw (a watched one), or
    /// in spawns from now on.
    pub fn set(
        &mut self,
        node: NodeId,
        sync: usize,
        property: usize,
        value: Variant,
    ) -> Result<()> {
        // Refused here, not in a later sync that would stop partway.
        encodable(&value)?;
        let s =
            self.replica_mut(node)?.syncs.get_mut(sync).ok_or_else(|| {
                config_error(format!("node {} has no synchronizer {sync}", node.0))
            })?;
        let slot = s.sync.values.get_mut(property).ok_or_else(|| {
            config_error(format!("synchronizer {sync} has no property {property}"))
        })?;
        *slot = value;
        Ok(())
    }

    /// Whether `node` is visible to every peer (`public_visibility`, true at first);
    /// peers gain or lose it at once.
    pub fn set_public(&mut self, session: &mut Session, node: NodeId, public: bool) -> Result<()> {
        self.replica_mut(node)?.public = public;
        self.update(session, node)
    }

    /// Whether `node` is visible to `peer` when it is not public
    /// (`set_visibility_for`); `peer` gains or loses it at once.
    pub fn set_visible_for(
        &mut self,
        session: &mut Session,
        node: NodeId,
        peer: i32,
        visible: bool,
    ) -> Result<()> {
        let replica = self.replica_mut(node)?;
        if visible {
            replica.visible_for.insert(peer);
        } else {
            replica.visible_for.remove(&peer);
        }
        self.update(session, node)
    }

    /// Whether `peer` has `node` spawned.
    pub fn is_spawned_at(&self, node: NodeId, peer: i32) -> bool {
        self.nodes
            .get(&node.0)
            .is_some_and(|r| r.spawned_at.contains_key(&peer))
    }

    /// A peer joined (on its `Event::PeerConnected`): it gets every node visible to it,
    /// oldest first.
    pub fn peer_connected(&mut self, session: &mut Session, peer: i32) -> Result<()> {
        // A join is a fresh start, even for an id whose leaving was not told.
        self.peer_disconnected(peer);
        self.forget_gone(session);
        let ids: Vec<u32> = self.nodes.keys().copied().collect();
        for id in ids {
            self.update_peer(session, NodeId(id), peer)?;
        }
        Ok(())
    }

    /// A peer left: nothing more goes to it, and a peer that joins with its id later
    /// gets its nodes and SYNC counter afresh (the visibility set for that id stays).
    /// Peers that the session no longer has (a transport dropped them) are forgotten
    /// this way by every method that sends.
    pub fn peer_disconnected(&mut self, peer: i32) {
        self.sync_time.remove(&peer);
        if !self.known.remove(&peer) {
            return;
        }
        for r in self.nodes.values_mut() {
            r.spawned_at.remove(&peer);
        }
    }

    /// One round of property state to every peer that has a replicated node: a SYNC
    /// (or several, each within the sync packet size) of the "always" properties of
    /// every node it has, then the deltas of the watched properties that changed since
    /// it last heard of them. A synchronizer too large for its packet size is left out,
    /// as the engine leaves it out, and then named in the error, which comes after
    /// everything else was queued (send the session's packets all the same).
    pub fn sync(&mut self, session: &mut Session) -> Result<()> {
        self.forget_gone(session);
        self.round += 1;
        let round = self.round;
        // The watched properties that differ from the last look changed this round.
        for s in self.nodes.values_mut().flat_map(|r| &mut r.syncs) {
            let config = s.sync.config.iter().zip(&s.sync.values);
            for (i, (p, v)) in config.enumerate() {
                if p.mode == ReplicationMode::OnChange && s.watched[i] != *v {
                    s.watched[i] = v.clone();
                    s.changed[i] = round;
                }
            }
        }
        let mut too_large = None;
        // Each synchronizer's SYNC entry and its size, the same for every peer.
        let mut always: HashMap<u32, (SyncEntry, usize)> = HashMap::new();
        for r in self.nodes.values() {
            for s in &r.syncs {
                let state = picked(s, |p| p.mode == ReplicationMode::Always);
                if state.is_empty() {
                    continue;
                }
                let entry = SyncEntry {
                    net_id: s.id,
                    state,
                };
                let size = sync_entry_size(&entry)?;
                // The engine's limit is on the values alone, without the entry's head.
                if size - 8 > self.sync_mtu {
                    too_large.get_or_insert(s.id);
                } else {
                    always.insert(s.id, (entry, size));
                }
            }
        }
        let peers: BTreeSet<i32> = self
            .nodes
            .values()
            .flat_map(|r| r.spawned_at.keys().copied())
            .collect();
        for peer in peers {
            let mut entries = Vec::new();
            let mut deltas = Vec::new();
            let mut has_syncs = false;
            for r in self.nodes.values_mut() {
                let Some(seen) = r.spawned_at.get_mut(&peer) else {
                    continue;
                };
                for (s, seen) in r.syncs.iter().zip(seen.iter_mut()) {
                    has_syncs = true;
                    if let Some(e) = always.get(&s.id) {
                        entries.push(e);
                    }
                    let Some(d) = delta(s, *seen) else {
                        continue;
                    };
                    let size = delta_entry_size(&d)?;
                    if size - 16 > self.delta_mtu {
                        // Not heard of: tried again next time.
                        too_large.get_or_insert(s.id);
                        continue;
                    }
                    deltas.push((d, size));
                    *seen = round;
                }
            }
            if !has_syncs {
                continue;
            }
            // The engine counts a round for each peer that has synchronizers, sent or not.
            let time = self.sync_time.entry(peer).or_default();
            *time = time.wrapping_add(1);
            let time = *time;
            for batch in batches(entries, self.sync_mtu - 3, |e| e.1) {
                let entries = batch.into_iter().map(|e| e.0.clone()).collect();
                session.replicate(Target::Peer(peer), &Packet::Sync(Sync { time, entries }))?;
            }
            for batch in batches(deltas, self.delta_mtu - 1, |d| d.1) {
                let entries = batch.into_iter().map(|d| d.0).collect();
                session.replicate(Target::Peer(peer), &Packet::Delta(Delta { entries }))?;
            }
        }
        match too_large {
            Some(id) => Err(Error::at(ErrorKind::StateTooLarge(id), 0)),
            None => Ok(()),
        }
    }

    /// Forgets the peers the session no longer has.
    fn forget_gone(&mut self, session: &Session) {
        let connected: BTreeSet<i32> = session.peers().collect();
        let gone: Vec<i32> = self.known.difference(&connected).copied().collect();
        for p in gone {
            self.peer_disconnected(p);
        }
    }

    fn next_id(&mut self) -> Result<u32> {
        // Bit 31 names a synchronizer by its path instead.
        if self.last_id == 0x7FFF_FFFF {
            return Err(config_error("every network id is taken".to_owned()));
        }
        self.last_id += 1;
        Ok(self.last_id)
    }

    fn replica(&self, node: NodeId) -> Result<&Replica> {
        self.nodes
            .get(&node.0)
            .ok_or_else(|| Error::at(ErrorKind::UnknownReplica(node.0), 0))
    }

    fn replica_mut(&mut self, node: NodeId) -> Result<&mut Replica> {
        self.nodes
            .get_mut(&node.0)
            .ok_or_else(|| Error::at(ErrorKind::UnknownReplica(node.0), 0))
    }

    /// Spawns or despawns `node` at every connected peer as its visibility says.
    fn update(&mut self, session: &mut Session, node: NodeId) -> Result<()> {
        self.forget_gone(session);
        let peers: Vec<i32> = session.peers().collect();
        for p in peers {
            self.update_peer(session, node, p)?;
        }
        Ok(())
    }

    fn update_peer(&mut self, session: &mut Session, node: NodeId, peer: i32) -> Result<()> {
        let r = self.replica_mut(node)?;
        let visible = r.public || r.visible_for.contains(&peer);
        match (visible, r.spawned_at.contains_key(&peer)) {
            (true, false) => {
                let spawn = Spawn {
                    source: r.source.clone(),
                    spawner: 0,
                    net_id: node.0,
                    sync_ids: r.syncs.iter().map(|s| s.id).collect(),
                    name: r.name.clone(),
                    state: r
                        .syncs
                        .iter()
                        .flat_map(|s| picked(s, |p| p.spawn))
                        .collect(),
                };
                let spawner = r.spawner.clone();
                let syncs = r.syncs.len();
                session.spawn(Target::Peer(peer), &spawner, spawn)?;
                self.replica_mut(node)?
                    .spawned_at
                    .insert(peer, vec![0; syncs]);
                self.known.insert(peer);
            }
            (false, true) => {
                r.spawned_at.remove(&peer);
                session.replicate(Target::Peer(peer), &Packet::Despawn { net_id: node.0 })?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Whether `v` can be sent as a property value (no full Objects, among others).
fn encodable(v: &Variant) -> Result<()> {
    // The usual per-tick values always go; only the others are tried.
    if matches!(
        v,
        Variant::Nil
            | Variant::Bool(_)
            | Variant::Int(_)
            | Variant::Float(_)
            | Variant::Vector2(_)
            | Variant::Vector3(_)
    ) {
        return Ok(());
    }
    Packet::Delta(Delta {
        entries: vec![DeltaEntry {
            net_id: 1,
            indexes: 1,
            state: vec![v.clone()],
        }],
    })
    .encode()
    .map(drop)
}

fn config_error(what: String) -> Error {
    Error::at(ErrorKind::ReplicationConfig(what), 0)
}

fn check(s: &Synchronizer) -> Result<()> {
    if s.config.len() != s.values.len() {
        return Err(config_error(format!(
            "a synchronizer of {} properties with {} values",
            s.config.len(),
            s.values.len()
        )));
    }
    let watched = s
        .config
        .iter()
        .filter(|p| p.mode == ReplicationMode::OnChange)
        .count();
    if watched > MAX_WATCHED {
        return Err(config_error(format!(
            "{watched} watched properties in a synchronizer (a delta names at most {MAX_WATCHED})"
        )));
    }
    Ok(())
}

/// The values of the properties `which` takes, in config order.
fn picked(s: &Synced, which: impl Fn(&Property) -> bool) -> Vec<Variant> {
    s.sync
        .config
        .iter()
        .zip(&s.sync.values)
        .filter(|(p, _)| which(p))
        .map(|(_, v)| v.clone())
        .collect()
}

/// The delta entry of the watched properties that changed after round `seen`.
fn delta(s: &Synced, seen: u64) -> Option<DeltaEntry> {
    let mut indexes = 0u64;
    let mut state = Vec::new();
    let watched = s
        .sync
        .config
        .iter()
        .enumerate()
        .filter(|(_, p)| p.mode == ReplicationMode::OnChange);
    for (bit, (i, _)) in watched.enumerate() {
        if s.changed[i] > seen {
            indexes |= 1 << bit;
            state.push(s.sync.values[i].clone());
        }
    }
    (indexes != 0).then_some(DeltaEntry {
        net_id: s.id,
        indexes,
        state,
    })
}

/// An entry's share of a SYNC packet: the packet of it alone, less the command byte
/// and the time.
fn sync_entry_size(e: &SyncEntry) -> Result<usize> {
    let one = Packet::Sync(Sync {
        time: 0,
        entries: vec![e.clone()],
    });
    Ok(one.encode()?.len() - 3)
}

/// An entry's share of a delta packet: the packet of it alone, less the command byte.
fn delta_entry_size(e: &DeltaEntry) -> Result<usize> {
    let one = Packet::Delta(Delta {
        entries: vec![e.clone()],
    });
    Ok(one.encode()?.len() - 1)
}

/// `items` in order, cut into runs whose sizes add up to at most `room` (an item
/// larger than that alone, as the engine sends one whose head makes it larger).
fn batches<T>(items: Vec<T>, room: usize, size: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = Vec::new();
    let mut used = 0;
    for item in items {
        let n = size(&item);
        match out.last_mut() {
            Some(last) if used + n <= room => last.push(item),
            _ => {
                out.push(vec![item]);
                used = 0;
            }
        }
        used += n;
    }
    out
}
