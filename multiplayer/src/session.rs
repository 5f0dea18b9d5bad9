//! One side of Godot 4's SceneMultiplayer, without IO: the server (peer 1) or a
//! client. It keeps the connected peers, the path caches both ways and the relay,
//! turns received packets into [`Event`]s and calls into packets to send.
//!
//! The transport feeds it each peer's arrivals and departures and each received
//! payload, and sends what [`Session::poll_transmit`] hands out.

mod auth;

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use godot_bin::{Config, Dialect, Variant};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::arguments::Arguments;
use crate::error::{Error, ErrorKind, Result};
use crate::godot3;
use crate::names::{Name, RpcNames};
use crate::replication::Spawn;
use crate::rpc_mode::{Rpc, RpcMode};
use crate::scene4::{self, Args, CallRef, NodeRef, Packet, Sys};
use crate::{args, args_ser};

/// Keyed per map from the OS's random source: ids and cache ids a peer chose cannot
/// be picked to collide, and it hashes a 4-byte key in a fraction of SipHash's time.
type Map<K, V> = HashMap<K, V, ahash::RandomState>;

/// The server's peer id.
pub const SERVER: i32 = 1;

/// The nodes whose rpcs this side takes part in, as the Godot scene declares them:
/// each node's path relative to the multiplayer root and its script's `@rpc` names,
/// with the mode of each where the session should check who calls it ([`RpcMode`]).
///
/// ```
/// use godot_bin_multiplayer::{RpcMode, Scene};
/// let scene = Scene::new()
///     .node("Game", ["hello", "move", "chat"])
///     // `@rpc func add(n)`: authority-only, which a server's own node is.
///     .node("Game/Score", [("add", RpcMode::Authority), ("ask", RpcMode::AnyPeer)]);
/// // Ids are positions in the sorted names: chat, hello, move.
/// assert_eq!(scene.names("Game").unwrap().id("move"), Some(2));
/// assert_eq!(scene.mode("Game/Score", "add"), Some(RpcMode::Authority));
/// assert_eq!(scene.mode("Game", "move"), Some(RpcMode::AnyPeer));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Scene {
    nodes: Vec<(Name, RpcNames)>,
    /// Per node, each method's mode by method id; `None` when every one is
    /// [`RpcMode::AnyPeer`], so that a call to such a node checks nothing.
    modes: Vec<Option<Box<[RpcMode]>>>,
    /// Whether any node has modes.
    has_modes: bool,
    /// Each node's index by its path, for a scene of more nodes than a scan finds
    /// quickly (a server with a node per player sends to them by path).
    by_path: Map<Name, usize>,
}

/// Up to this many nodes a scan, whose compares stop at a length that differs, finds
/// a path sooner than hashing it.
const SCAN: usize = 8;

impl Scene {
    /// No nodes yet.
    pub fn new() -> Self {
        Scene::default()
    }

    /// Adds the node at `path` with its rpc methods (any order): bare names, or
    /// `(name, mode)` pairs ([`Rpc`]). A path given twice keeps the later methods; a
    /// name given twice, its later mode.
    pub fn node<I, S>(mut self, path: impl Into<String>, methods: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Rpc>,
    {
        let path = Name::from(path.into());
        let methods: Vec<Rpc> = methods.into_iter().map(Into::into).collect();
        let names = RpcNames::new(methods.iter().map(|m| m.name.as_str()));
        let modes = methods.iter().any(|m| m.mode != RpcMode::AnyPeer).then(|| {
            let mut modes = vec![RpcMode::AnyPeer; names.names().len()];
            for m in &methods {
                if let Some(id) = names.id(&m.name) {
                    modes[usize::from(id)] = m.mode;
                }
            }
            modes.into_boxed_slice()
        });
        match self.index(&path) {
            Some(i) => {
                self.nodes[i].1 = names;
                self.modes[i] = modes;
            }
            None => {
                self.by_path.insert(path.clone(), self.nodes.len());
                self.nodes.push((path, names));
                self.modes.push(modes);
            }
        }
        self.has_modes = self.modes.iter().any(Option::is_some);
        self
    }

    /// The rpc names of the node at `path`.
    pub fn names(&self, path: &str) -> Option<&RpcNames> {
        self.index(path).map(|i| &self.nodes[i].1)
    }

    /// Who may call `method` of the node at `path`, if the scene has it.
    pub fn mode(&self, path: &str, method: &str) -> Option<RpcMode> {
        let i = self.index(path)?;
        let id = self.nodes[i].1.id(method)?;
        Some(self.method_mode(i, id).unwrap_or_default())
    }

    /// The mode of method `id` of node `node`, when the node declares modes and has
    /// that method.
    #[inline]
    fn method_mode(&self, node: usize, id: u16) -> Option<RpcMode> {
        self.modes[node].as_ref()?.get(usize::from(id)).copied()
    }

    #[inline]
    fn index(&self, path: &str) -> Option<usize> {
        if self.nodes.len() <= SCAN {
            return self
                .nodes
                .iter()
                .position(|(p, _)| crate::names::same(p, path));
        }
        self.by_path.get(path).copied()
    }
}

/// Which engine's MultiplayerAPI the peers speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// Godot 4's SceneMultiplayer: method ids, compressed arguments, checksums, and
    /// peer notices and relay as SYS packets.
    #[default]
    Godot4,
    /// Godot 3's MultiplayerAPI: method names, Godot 3 Variants, no checksum. Peer
    /// notices and relay belong to the transport (its header says who a packet is
    /// from and for), so the session sends neither.
    Godot3,
}

/// Whom a call goes to, as `rpc()` (all) and `rpc_id()` name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Every connected peer.
    All,
    /// One peer.
    Peer(i32),
    /// Every connected peer but this one.
    AllBut(i32),
}

impl Target {
    /// The engine's number for it: 0 all, `id`, or `-id` all but `id`.
    pub fn to_id(self) -> i32 {
        match self {
            Target::All => 0,
            Target::Peer(id) => id,
            Target::AllBut(id) => id.wrapping_neg(),
        }
    }
}

/// How a packet travels: the engine's transfer mode and channel. WebSocket ignores
/// both (everything is reliable and ordered); ENet maps them onto its channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delivery {
    /// The transfer mode.
    pub mode: Mode,
    /// The `@rpc` channel (0 by default).
    pub channel: u8,
}

/// Godot's `TransferMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Arrives, in order.
    #[default]
    Reliable,
    /// May be lost or reordered.
    Unreliable,
    /// May be lost; older packets are dropped rather than delivered late.
    UnreliableOrdered,
}

/// A packet for the transport to send to one peer (in Godot 3, to the peers its
/// header's target names: see `to`).
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit {
    /// The peer it is for. Everything a client sends goes to the server (1): a
    /// Godot 4 client's packet for another client is wrapped for the server's relay.
    /// In Godot 3 this is the transport header's target: a peer, or 0 for every
    /// peer and -N for every peer but N (a call to all, as the engine sends it),
    /// which a server's transport sends to each peer it names and a client's to
    /// the server.
    pub to: i32,
    /// How to send it.
    pub delivery: Delivery,
    /// The SceneMultiplayer packet.
    pub bytes: Vec<u8>,
}

/// What happened, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A peer joined: a client at the server, or (at a client) the server or
    /// another client the server announced.
    PeerConnected(i32),
    /// A peer left.
    PeerDisconnected(i32),
    /// A peer connected and is authenticating ([`Session::set_auth`]): it is
    /// admitted, with [`Event::PeerConnected`], once both sides completed.
    Authenticating(i32),
    /// An auth message from a peer authenticating: answer with
    /// [`Session::send_auth`], end with [`Session::complete_auth`].
    AuthData {
        /// The peer.
        peer: i32,
        /// What it sent.
        data: Vec<u8>,
    },
    /// A peer left before it was admitted (`peer_authentication_failed`).
    AuthFailed(i32),
    /// This side dropped a peer for what it sent (a `PeerDisconnected` follows, or
    /// `AuthFailed` for a peer still authenticating).
    Refused {
        /// The peer.
        peer: i32,
        /// Why, as the error said it.
        reason: String,
    },
    /// A packet was dropped and its sender kept, as the engine drops it (with an
    /// error line) and goes on:
    /// - at a client, a packet another client sent through the server, refused: a
    ///   client cannot drop that peer, and its connection to the server is not at
    ///   fault;
    /// - a call by a cache id its sender gave a node and has replaced twice since
    ///   ([`ErrorKind::ForgottenCacheId`](crate::ErrorKind)): the node was made again
    ///   twice while the call was on its way;
    /// - a call its method's mode does not allow from its sender ([`RpcMode`]);
    /// - a call (or Godot 3 `rset()`) of a node or method the scene does not have (a
    ///   method name, in Godot 3; an id past the node's, in Godot 4), a Godot 4
    ///   SIMPLIFY_PATH of a node it does not have (no CONFIRM_PATH goes back), and a
    ///   Godot 3 CONFIRM_PATH of one (Godot 3 takes a SIMPLIFY_PATH without looking
    ///   its node up, and confirms it, so a session of Godot 3 does too, and drops the
    ///   calls by its id);
    /// - a relay or peer notice while the server relay is off;
    /// - anything but an auth message from a peer still authenticating.
    Dropped {
        /// The peer that sent it (at a client, the server for what the server sent).
        peer: i32,
        /// Why, as the error said it.
        reason: String,
    },
    /// A peer called one of the scene's rpc methods.
    Call(Call),
    /// A Godot 3 peer set a property with `rset()`.
    Set {
        /// The peer.
        from: i32,
        /// The node's path.
        node: Name,
        /// The property's name (not checked against the scene: decide here).
        property: String,
        /// The value.
        value: Variant,
    },
    /// `send_bytes` from a peer.
    Bytes {
        /// The sender.
        from: i32,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A spawn, despawn or sync packet (MultiplayerSpawner/Synchronizer), passed on
    /// as it came.
    Replication {
        /// The sender.
        from: i32,
        /// The packet.
        packet: Packet,
    },
    /// A peer's rpc names for a node differ from the scene's (its SIMPLIFY_PATH
    /// checksum, or its answer to ours, said so). Godot only warns; calls still run,
    /// by method id, so they may reach the wrong method.
    ChecksumMismatch {
        /// The peer.
        peer: i32,
        /// The node's path.
        path: Name,
    },
}

/// An rpc call received.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The peer that called (the original sender of a relayed call).
    pub from: i32,
    /// The node's path relative to the multiplayer root.
    pub node: Name,
    /// The method's name.
    pub method: Name,
    /// The arguments, read when asked for: [`Call::args`].
    pub args: Arguments,
}

impl Call {
    /// The arguments as a Rust value, usually a tuple:
    /// `let (pos, name): (Vector3, String) = call.args()?`: [`Arguments::get`], with
    /// godot_bin's error (an offset in the packet would mean nothing to the caller).
    /// A received call's arguments read from its bytes, as [`Args::get`] reads them in
    /// place.
    ///
    /// Any Godot 4 type may be asked for (`Vector2i`, `StringName`, ...), whichever
    /// version the caller speaks: a Godot 3 argument is the same value in Godot 4.
    /// No arguments read as `()`, a unit struct, `None` or an empty sequence, as
    /// [`Args::get`] reads them.
    pub fn args<T: DeserializeOwned>(&self) -> std::result::Result<T, godot_bin::Error> {
        self.args.get().map_err(|e| match e.into_kind() {
            ErrorKind::Arguments(e) | ErrorKind::Argument { source: e, .. } => e.into_kind().into(),
            other => serde::de::Error::custom(other),
        })
    }

    /// [`Call::args`], consuming the call.
    pub fn into_args<T: DeserializeOwned>(self) -> std::result::Result<T, godot_bin::Error> {
        self.args()
    }
}

/// A remote call received by [`Session::receive_call`], read in place: the node and
/// method as the scene names them, and the arguments as the packet holds them, to read
/// with [`Args::get`] into the handler's own types (numbers, bools, vectors, and
/// strings and byte arrays borrowed as `&str` and `&[u8]`, with no allocation) or with
/// [`Args::to_variants`]. A Godot 3 call's, from [`Session::receive_call3`], holds
/// [`godot3::Args`], read alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallIn<'a, A = Args<'a>> {
    /// The peer that called.
    pub from: i32,
    /// The node's path relative to the multiplayer root.
    pub node: &'a str,
    /// The method's name.
    pub method: &'a str,
    /// The arguments, not yet read.
    pub args: A,
}

/// Where one of our nodes stands with one peer's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    Never,
    Unconfirmed,
    Confirmed,
}

#[derive(Debug)]
struct Peer {
    /// The peer's cache ids → our node index.
    received: PathCache,
    /// Per node of the scene.
    sent: Vec<Sent>,
    /// SIMPLIFY_PATHs for nodes the peer had given an id already, since its last
    /// other packet (a `Cell`, so the hot path of a call clears it through `&Peer`).
    simplified_again: Cell<usize>,
}

impl Peer {
    /// Another packet than a SIMPLIFY_PATH came: a run of them is over.
    #[inline]
    fn heard_other(peer: Option<&Peer>) {
        if let Some(p) = peer {
            p.simplified_again.set(0);
        }
    }
}

/// A peer's cache ids → our node indexes. Godot numbers its cache ids from 1 up, so
/// the usual ones index a short table, which takes a twentieth off a call received
/// in place against a hash lookup; any other id (a peer may send any) is in a map.
///
/// Godot 4 gives a node a new id each time the node is made again (a player's node
/// after a respawn), and never takes one back: a node's newest id and the one before
/// are kept (a call by the one before may still be on its way on another channel),
/// older ones are forgotten, so a peer holds two ids a node at most. A call by a
/// forgotten id is dropped, as Godot drops a call by any id it does not hold; a call
/// by an id above every one the peer gave is refused, as no engine sends it. Godot 3
/// takes a path the scene does not have too (it does not look the node up): its two
/// newest ids are kept apart, and a call by them dropped.
#[derive(Debug, Default)]
struct PathCache {
    /// Ids below [`PathCache::LOW`]: the node of id `i` at `i`.
    low: Vec<Option<usize>>,
    high: Map<u32, usize>,
    /// Per node: its newest id, and the one before.
    ids: Vec<[Option<u32>; 2]>,
    /// One above the highest id the peer gave: an id below it that is not held was
    /// forgotten (or skipped: Godot numbers the paths of all its peers in one count).
    ceiling: u64,
    /// Godot 3: the newest id of a path the scene does not have, and the one before.
    unknown: [Option<u32>; 2],
}

impl PathCache {
    const LOW: u32 = 64;

    #[inline]
    fn get(&self, id: u32) -> Option<usize> {
        if id < Self::LOW {
            self.low.get(id as usize).copied().flatten()
        } else {
            self.high.get(&id).copied()
        }
    }

    /// Whether `id`, not held, is one the peer gave and that was forgotten since.
    fn forgotten(&self, id: u32) -> bool {
        u64::from(id) < self.ceiling
    }

    /// Whether `node` has an id already.
    fn has_node(&self, node: usize) -> bool {
        matches!(self.ids.get(node), Some([Some(_), _]))
    }

    /// Whether `id` is one of the two newest ids of paths the scene does not have.
    fn is_unknown(&self, id: u32) -> bool {
        self.unknown.contains(&Some(id))
    }

    /// Records `id`, which is not there yet, for a path the scene does not have, and
    /// forgets the id of such a path before the newest.
    fn insert_unknown(&mut self, id: u32) {
        self.unknown = [Some(id), self.unknown[0]];
        self.ceiling = self.ceiling.max(u64::from(id) + 1);
    }

    /// Records `id`, which is not there yet, for `node`, and forgets the node's id
    /// before its newest.
    fn insert(&mut self, id: u32, node: usize) {
        if node >= self.ids.len() {
            self.ids.resize(node + 1, [None; 2]);
        }
        let [newest, before] = self.ids[node];
        self.ids[node] = [Some(id), newest];
        if let Some(old) = before {
            self.set(old, None);
        }
        self.set(id, Some(node));
        self.ceiling = self.ceiling.max(u64::from(id) + 1);
    }

    fn set(&mut self, id: u32, node: Option<usize>) {
        if id < Self::LOW {
            let i = id as usize;
            if i >= self.low.len() {
                self.low.resize(i + 1, None);
            }
            self.low[i] = node;
        } else {
            match node {
                Some(node) => self.high.insert(id, node),
                None => self.high.remove(&id),
            };
        }
    }

    /// The ids held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.low.iter().flatten().count() + self.high.len()
    }
}

/// `from`'s call of `method` on `node` with `args`, as an [`Event`].
#[inline]
fn call_event(from: i32, node: &Name, method: &Name, args: Arguments) -> Event {
    Event::Call(Call {
        from,
        node: node.clone(),
        method: method.clone(),
        args,
    })
}

/// Limits on what one peer may make a session hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// SIMPLIFY_PATHs a peer may send in a row, with no other packet between, for
    /// nodes it has given a cache id already, before it is refused as a flood. A peer
    /// holds two cache ids a node of the scene at most: Godot 4 gives a node a new
    /// one each time the node is made again (checked against Godot 4.6), and the
    /// newest and the one before are kept. An engine follows each with a call or a
    /// sync of that node, so a run of them is a flood.
    pub cached_paths: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { cached_paths: 1024 }
    }
}

/// One side of SceneMultiplayer (see the module docs).
///
/// ```
/// use godot_bin_multiplayer::{Event, Scene, Session, Target};
/// let scene = Scene::new().node("Game", ["hello", "welcome"]);
/// let mut server = Session::server(scene);
/// server.connect(7);
/// assert_eq!(server.poll_event(), Some(Event::PeerConnected(7)));
/// // `rpc_id(7, "welcome", "hi")`: the path goes first, then the call by path.
/// server.rpc(Target::Peer(7), "Game", "welcome", &("hi",))?;
/// let simplify = server.poll_transmit().unwrap();
/// let call = server.poll_transmit().unwrap();
/// assert_eq!((simplify.to, simplify.bytes[0]), (7, 1));
/// assert_eq!(call.bytes[0], 0x20);
/// # Ok::<(), godot_bin_multiplayer::Error>(())
/// ```
#[derive(Debug)]
pub struct Session {
    id: i32,
    protocol: Protocol,
    scene: Scene,
    limits: Limits,
    /// The connected peers in order, so fan-out order is stable (lookups go to
    /// `state`).
    peers: BTreeSet<i32>,
    state: Map<i32, Peer>,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    /// Where a call's arguments are written before its packets are: kept, so a
    /// call allocates only the packets it queues.
    scratch: Vec<u8>,
    /// The peers a call goes to, kept for the same reason.
    fan_out: Vec<i32>,
    /// Per node of the scene: its multiplayer authority (Godot 3: network master).
    authority: Vec<i32>,
    /// `SceneMultiplayer.server_relay`.
    server_relay: bool,
    /// Whether peers authenticate (`auth_callback` set).
    auth: bool,
    /// The peers still authenticating.
    pending: BTreeMap<i32, auth::Pending>,
}

impl Session {
    /// The server's side (peer 1), relaying between clients as a Godot server with
    /// `server_relay` on (the default).
    pub fn server(scene: Scene) -> Self {
        Session::new(SERVER, scene)
    }

    /// A client's side with the id its transport gave it. Call
    /// [`connect`](Session::connect)`(1)` once the transport is connected.
    pub fn client(id: i32, scene: Scene) -> Self {
        Session::new(id, scene)
    }

    fn new(id: i32, scene: Scene) -> Self {
        Session {
            authority: vec![SERVER; scene.nodes.len()],
            server_relay: true,
            auth: false,
            pending: BTreeMap::new(),
            id,
            protocol: Protocol::Godot4,
            scene,
            limits: Limits::default(),
            peers: BTreeSet::new(),
            state: Map::default(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            scratch: Vec::new(),
            fan_out: Vec::new(),
        }
    }

    /// Speaks `protocol` (Godot 4's by default); set it before any peer connects.
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Speaks `protocol`, and authenticates peers if `auth`: a transport's settings.
    #[cfg(any(feature = "websocket", feature = "enet"))]
    pub(crate) fn configured(mut self, protocol: Protocol, auth: bool) -> Self {
        self.protocol = protocol;
        self.auth = auth;
        self
    }

    /// The protocol spoken.
    pub fn get_protocol(&self) -> Protocol {
        self.protocol
    }

    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Replaces the limits of a session that runs already: a transport's, through
    /// its `session()` (`server.session().set_limits(...)`).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// This side's peer id.
    pub fn id(&self) -> i32 {
        self.id
    }

    /// The scene.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The connected peers, in increasing order.
    pub fn peers(&self) -> impl Iterator<Item = i32> + '_ {
        self.peers.iter().copied()
    }

    fn is_server(&self) -> bool {
        self.id == SERVER
    }

    /// The transport connected `peer` (at a client: the server, 1). The server tells
    /// the other clients and the newcomer about each other, as Godot's does (once the
    /// peer is admitted, if peers authenticate; never with the server relay off).
    pub fn connect(&mut self, peer: i32) {
        if peer == self.id || self.is_peer(peer) || self.pending.contains_key(&peer) {
            return;
        }
        if !self.connect_pending(peer) {
            self.admit_new(peer);
        }
    }

    /// Admits a peer that connected (and authenticated, if peers do).
    fn admit_new(&mut self, peer: i32) {
        if self.is_server() && self.protocol == Protocol::Godot4 && self.server_relay {
            for &p in &self.peers {
                let to_old = Packet::Sys(Sys::AddPeer(peer));
                let to_new = Packet::Sys(Sys::AddPeer(p));
                self.transmits.push_back(system(p, &to_old));
                self.transmits.push_back(system(peer, &to_new));
            }
        }
        self.admit(peer);
    }

    fn admit(&mut self, peer: i32) {
        self.split_calls_to_several();
        self.peers.insert(peer);
        self.events.push_back(Event::PeerConnected(peer));
    }

    /// The transport lost `peer` (or dropped it after an error). The server tells
    /// the other clients; a client that loses the server loses every peer it knew
    /// through it (as the engine's `clear()`), each with its event, the server last.
    pub fn disconnect(&mut self, peer: i32) {
        if self.disconnect_pending(peer) || !self.is_peer(peer) {
            return;
        }
        if !self.is_server() && peer == SERVER {
            let others: Vec<i32> = self
                .peers
                .iter()
                .copied()
                .filter(|&p| p != SERVER)
                .collect();
            for p in others {
                self.forget(p);
            }
        }
        self.forget(peer);
    }

    /// A Godot 3 server's queued call to several peers (`to` 0 or -N) names the peers
    /// connected when it was made: before another joins, it goes to each of them on
    /// its own, so that the newcomer, never given the path it names by id, does not
    /// get it (its header then names each peer, not 0).
    fn split_calls_to_several(&mut self) {
        if !self.is_server() || !self.transmits.iter().any(|t| t.to <= 0) {
            return;
        }
        for t in std::mem::take(&mut self.transmits) {
            if t.to > 0 {
                self.transmits.push_back(t);
                continue;
            }
            for &p in self.peers.iter().filter(|&&p| godot3::names(t.to, p)) {
                self.transmits.push_back(Transmit {
                    to: p,
                    delivery: t.delivery,
                    bytes: t.bytes.clone(),
                });
            }
        }
    }

    fn forget(&mut self, peer: i32) {
        self.peers.remove(&peer);
        self.state.remove(&peer);
        // A Godot 3 call to several goes from a client to the server, from a server
        // to the peers it names that are still there.
        let (server, peers) = (self.is_server(), &self.peers);
        self.transmits.retain(|t| match t.to {
            to if to > 0 => to != peer,
            to if server => peers.iter().any(|&p| godot3::names(to, p)),
            _ => peer != SERVER,
        });
        if self.is_server() && self.protocol == Protocol::Godot4 && self.server_relay {
            for &p in &self.peers {
                self.transmits
                    .push_back(system(p, &Packet::Sys(Sys::DelPeer(peer))));
            }
        }
        self.events.push_back(Event::PeerDisconnected(peer));
    }

    /// Drops `peer` for `reason` (usually the error [`receive`](Session::receive)
    /// returned): [`Event::Refused`], then as [`disconnect`](Session::disconnect).
    pub fn refuse(&mut self, peer: i32, reason: &str) {
        if self.is_peer(peer) || self.pending.contains_key(&peer) {
            self.events.push_back(Event::Refused {
                peer,
                reason: reason.to_owned(),
            });
            self.disconnect(peer);
        }
    }

    /// Turns the server relay on or off (on by default), as Godot 4's
    /// `SceneMultiplayer.server_relay`. Off, a server tells no client of the others and relays
    /// nothing, and a client hears of no other client: each talks to the server
    /// alone, and a relay or peer notice that comes anyway is dropped with
    /// [`Event::Dropped`], the peer kept, as the engine drops it. Both sides must
    /// agree, as with the engine; set it before any peer connects. Godot 3 relays in
    /// the transport, and only its server has the setting: off, `enet::Server` works as
    /// `NetworkedMultiplayerENet.server_relay = false` in Godot 3.4 and later (no
    /// peer notices; a packet for other clients alone dropped, a broadcast taken as
    /// for the server alone), and
    /// `ws::Server` always relays, as Godot 3's
    /// `WebSocketServer`, which has no such setting.
    pub fn set_server_relay(&mut self, on: bool) {
        self.server_relay = on;
    }

    /// Whether the server relay is on.
    pub fn server_relay(&self) -> bool {
        self.server_relay
    }

    /// Sets the multiplayer authority of the node at `path` (`set_multiplayer_authority`,
    /// Godot 3's `set_network_master`), which [`RpcMode::Authority`] and the Godot 3
    /// modes check calls against. Every node's is 1, the server, until set; as in the
    /// engine, each side keeps its own.
    pub fn set_authority(&mut self, path: &str, peer: i32) -> Result<()> {
        let node = self
            .scene
            .index(path)
            .ok_or_else(|| Error::at(ErrorKind::UnknownNode(path.to_owned()), 0))?;
        self.authority[node] = peer;
        Ok(())
    }

    /// The multiplayer authority of the node at `path`, if the scene has it.
    pub fn authority(&self, path: &str) -> Option<i32> {
        self.scene.index(path).map(|node| self.authority[node])
    }

    /// The next event, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The next packet to send, if any.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// Handles one payload from `from`, which came with `delivery`. An error means
    /// the peer sent what a Godot peer never sends: drop it ([`disconnect`]). At a
    /// client, what another client sent (relayed) is never an error: a refused
    /// packet of theirs is [`Event::Dropped`]. What the engine drops with an error
    /// line and goes on is not an error either, but [`Event::Dropped`] (a call by a
    /// cache id that its sender has replaced twice since, a call of a node or method
    /// the scene does not have: the list is there).
    ///
    /// [`disconnect`]: Session::disconnect
    pub fn receive(&mut self, from: i32, delivery: Delivery, bytes: &[u8]) -> Result<()> {
        if !self.pending.is_empty() && self.pending.contains_key(&from) {
            return self.receive_pending(from, bytes);
        }
        // At a client, another client's packet (Godot 3 relays in the transport).
        if !self.is_server() && from != SERVER {
            let r = self.receive_from(from, delivery, bytes);
            self.drop_refused(from, r);
            return Ok(());
        }
        let r = self.receive_from(from, delivery, bytes);
        self.drop_ignored(from, r)
    }

    /// [`receive`](Session::receive) for a hot loop: a Godot 4 remote call that `from`
    /// made to this side comes back read in place, for the handler to take its
    /// arguments from the packet (strings borrowed, if it likes), instead of as an
    /// [`Event::Call`], which holds a copy of them. Anything else (other packets,
    /// calls relayed between clients, Godot 3 calls, which
    /// [`receive_call3`](Session::receive_call3) reads in place) is received as
    /// `receive` receives it, and gives `None`.
    ///
    /// A call to an unknown node or method, or one its method's mode does not allow, is
    /// dropped here, as `receive` drops it ([`Event::Dropped`], `None`).
    /// Its arguments are read only when the handler reads them ([`Args::get`],
    /// [`Args::to_variants`]): `receive` refuses a call whose arguments do not
    /// decode (after its node, method and mode, as the engine), and reading them
    /// gives that error.
    ///
    /// ```
    /// use godot_bin::Vector3;
    /// use godot_bin_multiplayer::{Delivery, Scene, Session, Target};
    /// let scene = || Scene::new().node("Game", ["move"]);
    /// let (mut server, mut client) = (Session::server(scene()), Session::client(7, scene()));
    /// server.connect(7);
    /// client.connect(1);
    /// client.rpc(Target::Peer(1), "Game", "move", &(Vector3::new(1.0, 2.0, 3.0), 5))?;
    /// let (path, call) = (client.poll_transmit().unwrap(), client.poll_transmit().unwrap());
    /// assert_eq!(server.receive_call(7, path.delivery, &path.bytes)?, None);
    /// let call = server.receive_call(7, call.delivery, &call.bytes)?.unwrap();
    /// assert_eq!((call.from, call.node, call.method), (7, "Game", "move"));
    /// let (to, speed): (Vector3, u8) = call.args.get()?;
    /// assert_eq!((to.z, speed), (3.0, 5));
    /// # Ok::<(), godot_bin_multiplayer::Error>(())
    /// ```
    pub fn receive_call<'a>(
        &'a mut self,
        from: i32,
        delivery: Delivery,
        bytes: &'a [u8],
    ) -> Result<Option<CallIn<'a>>> {
        if !self.pending.is_empty() && self.pending.contains_key(&from) {
            return self.receive_pending(from, bytes).map(|()| None);
        }
        if self.protocol == Protocol::Godot4 && (self.is_server() || from == SERVER) {
            let peer = self.known_peer(from)?;
            if let Some(call) = CallRef::decode(bytes)? {
                Peer::heard_other(peer);
                // The node as an index, so that no borrow of `self` is held where a
                // call by a forgotten id is dropped.
                let node = match self.node_of(peer, &call.node) {
                    Ok(node) => node,
                    Err(e) => return self.drop_ignored(from, Err(e)).map(|()| None),
                };
                if let Err(e) = self.check_mode(from, node, call.method) {
                    return self.drop_ignored(from, Err(e)).map(|()| None);
                }
                // Checked apart from taking the names, which borrow `self` for the
                // call's lifetime.
                if let Some(e) = self.callee(node, call.method).err() {
                    return self.drop_ignored(from, Err(e)).map(|()| None);
                }
                let (node, method) = self.callee(node, call.method)?;
                return Ok(Some(CallIn {
                    from,
                    node,
                    method,
                    args: call.args,
                }));
            }
        }
        self.receive(from, delivery, bytes).map(|()| None)
    }

    /// [`receive_call`](Session::receive_call) for a Godot 3 session: a Godot 3 remote
    /// call that `from` made to this side comes back read in place
    /// ([`godot3::Args`]), instead of as an [`Event::Call`]. The node, the method and
    /// its mode are checked as [`receive`](Session::receive) checks them; the arguments
    /// are read when the handler reads them, and give the error `receive` would have
    /// refused the call with. Anything else (other packets, other clients' calls at a
    /// client, any packet of a Godot 4 session) is received as `receive` receives it,
    /// and gives `None`. Apart from `receive_call`, so that Godot 4's calls read in
    /// place as they did without it: one method for both cost them 20 to 45
    /// instructions a call.
    pub fn receive_call3<'a>(
        &'a mut self,
        from: i32,
        delivery: Delivery,
        bytes: &'a [u8],
    ) -> Result<Option<CallIn<'a, godot3::Args<'a>>>> {
        let godot3_call = self.protocol == Protocol::Godot3
            && (self.is_server() || from == SERVER)
            && bytes.first() == Some(&godot3::REMOTE_CALL)
            && (self.pending.is_empty() || !self.pending.contains_key(&from));
        if !godot3_call {
            return self.receive(from, delivery, bytes).map(|()| None);
        }
        self.call_in_place3(from, bytes)
    }

    /// A Godot 3 call read as `receive_from` reads it (the node, the method and its
    /// mode), its arguments left in the packet.
    fn call_in_place3<'a>(
        &'a mut self,
        from: i32,
        bytes: &'a [u8],
    ) -> Result<Option<CallIn<'a, godot3::Args<'a>>>> {
        let peer = self.known_peer(from)?;
        let (node, method, args) = godot3::call_in_place(bytes)?;
        Peer::heard_other(peer);
        let (node, id) = match self.callee3(from, peer, &node, method) {
            Ok(callee) => callee,
            // A call by a forgotten id or one its mode refuses is dropped, as
            // `receive` drops it; any other error is returned.
            Err(e) => return self.drop_ignored(from, Err(e)).map(|()| None),
        };
        let (node, method) = self.callee(node, id)?;
        Ok(Some(CallIn {
            from,
            node,
            method,
            args,
        }))
    }

    /// A call by a cache id that `peer` has since replaced twice, one that its
    /// method's mode does not allow from `peer`, one of a node or method the scene does
    /// not have, and a relay or peer notice while the server relay is off, are
    /// [`Event::Dropped`], as Godot drops them, and the peer kept.
    #[inline]
    fn drop_ignored(&mut self, peer: i32, r: Result<()>) -> Result<()> {
        r.or_else(|e| self.drop_if_ignored(peer, e))
    }

    /// `e`, if it is of a kind the engine ignores, as [`Event::Dropped`] (a transport
    /// drops a Godot 3 relay this way too); any other error is returned.
    #[cold]
    pub(crate) fn drop_if_ignored(&mut self, peer: i32, e: Error) -> Result<()> {
        if !matches!(
            e.kind(),
            ErrorKind::ForgottenCacheId(_)
                | ErrorKind::NotAllowed { .. }
                | ErrorKind::RelayDisabled
                | ErrorKind::UnknownNode(_)
                | ErrorKind::UnknownCachedNode(_)
                | ErrorKind::UnknownMethod(_)
                | ErrorKind::UnknownMethodName(_)
        ) {
            return Err(e);
        }
        self.events.push_back(Event::Dropped {
            peer,
            reason: e.to_string(),
        });
        Ok(())
    }

    /// At a client: a refused packet of another client is [`Event::Dropped`].
    fn drop_refused(&mut self, peer: i32, r: Result<()>) {
        if let Err(e) = r {
            self.events.push_back(Event::Dropped {
                peer,
                reason: e.to_string(),
            });
        }
    }

    fn receive_from(&mut self, from: i32, delivery: Delivery, bytes: &[u8]) -> Result<()> {
        let peer = self.known_peer(from)?;
        if self.protocol == Protocol::Godot3 {
            if bytes.first() == Some(&godot3::REMOTE_CALL) {
                // As the engine: the node, the method and its mode, then the arguments.
                let (node, method, args) = godot3::call_in_place(bytes)?;
                Peer::heard_other(peer);
                let (node, id) = self.callee3(from, peer, &node, method)?;
                let args = Arguments::godot3(args)?;
                let (node, method) = self.callee(node, id)?;
                let event = call_event(from, node, method, args);
                self.events.push_back(event);
                return Ok(());
            }
            let packet = godot3::Packet::decode(bytes)?;
            if !matches!(packet, godot3::Packet::SimplifyPath { .. }) {
                Peer::heard_other(peer);
            }
            return self.process3(from, packet);
        }
        // The usual packet, a remote call, read as `Packet::decode` reads it, without
        // making a `Packet` of it first.
        if let Some(call) = CallRef::decode(bytes)? {
            Peer::heard_other(peer);
            // As the engine: the node, the method and its mode, then the arguments.
            let node = self.node_of(peer, &call.node)?;
            self.check_mode(from, node, call.method)?;
            let (node, method) = self.callee(node, call.method)?;
            let event = call_event(from, node, method, Arguments::godot4(call.args)?);
            self.events.push_back(event);
            return Ok(());
        }
        let packet = Packet::decode(bytes)?;
        if !matches!(packet, Packet::SimplifyPath { .. }) {
            Peer::heard_other(peer);
        }
        match packet {
            Packet::Sys(sys) => self.system(from, delivery, sys),
            packet => self.process(from, packet),
        }
    }

    fn process3(&mut self, from: i32, packet: godot3::Packet) -> Result<()> {
        match packet {
            // `receive_from` reads a call by its head (`call3`) before anything would
            // decode it whole, so no decoded call comes here.
            godot3::Packet::Call(_) => unreachable!("a Godot 3 call is read by call3"),
            godot3::Packet::Set {
                node,
                property,
                value,
            } => {
                let node = self.node_of(self.state.get(&from), &node)?;
                self.events.push_back(Event::Set {
                    from,
                    node: self.scene.nodes[node].0.clone(),
                    property,
                    value,
                });
            }
            // Godot 3 takes a path without looking its node up, and confirms it; a
            // call by its id then finds no node and is dropped.
            godot3::Packet::SimplifyPath { id, path } => {
                let node = self.scene.index(&path);
                self.cache_received(from, id, node, 1)?;
                let confirm = godot3::Packet::ConfirmPath(path).encode()?;
                self.push(from, Delivery::default(), confirm);
            }
            godot3::Packet::ConfirmPath(path) => {
                let node = self
                    .scene
                    .index(&path)
                    .ok_or_else(|| Error::at(ErrorKind::UnknownNode(path.clone()), 1))?;
                let peer = self.peer_mut(from)?;
                if peer.sent[node] == Sent::Never {
                    return Err(Error::at(
                        ErrorKind::Unexpected("confirming a path never sent"),
                        1,
                    ));
                }
                peer.sent[node] = Sent::Confirmed;
            }
            godot3::Packet::Raw(bytes) => self.events.push_back(Event::Bytes { from, bytes }),
        }
        Ok(())
    }

    /// The node and method id of a Godot 3 call from `from` (whose state is `peer`),
    /// checked as the engine checks them before it reads the arguments: the node, the
    /// method and its mode.
    fn callee3(
        &self,
        from: i32,
        peer: Option<&Peer>,
        node: &NodeRef,
        method: &str,
    ) -> Result<(usize, u16)> {
        let node = self.node_of(peer, node)?;
        let id = self.method3(node, method)?;
        self.check_mode(from, node, id)?;
        Ok((node, id))
    }

    /// Node `node`'s method of name `method`: its id.
    fn method3(&self, node: usize, method: &str) -> Result<u16> {
        self.scene.nodes[node]
            .1
            .id(method)
            .ok_or_else(|| Error::at(ErrorKind::UnknownMethodName(method.to_owned()), 5))
    }

    /// The scene's index of the node that a call from a peer (whose state is
    /// `peer`) names. A cache id the peer gave and has since replaced twice is
    /// [`ErrorKind::ForgottenCacheId`], one it never gave
    /// [`ErrorKind::UnknownCacheId`].
    #[inline(always)]
    fn node_of(&self, peer: Option<&Peer>, node: &NodeRef) -> Result<usize> {
        // The usual call, by a cache id held.
        if let (NodeRef::Cached(id), Some(p)) = (node, peer) {
            if let Some(node) = p.received.get(*id) {
                return Ok(node);
            }
        }
        self.node_of_slow(peer, node)
    }

    #[inline(never)]
    fn node_of_slow(&self, peer: Option<&Peer>, node: &NodeRef) -> Result<usize> {
        match node {
            NodeRef::Path(path) => self
                .scene
                .index(path)
                .ok_or_else(|| Error::at(ErrorKind::UnknownNode(path.clone()), 1)),
            NodeRef::Cached(id) | NodeRef::CachedWide(id) => {
                let cache = peer.map(|p| &p.received);
                if let Some(node) = cache.and_then(|c| c.get(*id)) {
                    return Ok(node);
                }
                let kind = if cache.is_some_and(|c| c.is_unknown(*id)) {
                    ErrorKind::UnknownCachedNode(*id)
                } else if cache.is_some_and(|c| c.forgotten(*id)) {
                    ErrorKind::ForgottenCacheId(*id)
                } else {
                    ErrorKind::UnknownCacheId(*id)
                };
                Err(Error::at(kind, 1))
            }
        }
    }

    /// Records `from`'s cache id for `node` (its SIMPLIFY_PATH, whose id is at `at`).
    /// `node` `None`: a path the scene does not have (Godot 3), all of which count as
    /// one node against the flood.
    fn cache_received(&mut self, from: i32, id: u32, node: Option<usize>, at: usize) -> Result<()> {
        let limit = self.limits.cached_paths;
        let peer = self.peer_mut(from)?;
        let cache = &mut peer.received;
        if cache.get(id).is_some() || cache.is_unknown(id) {
            return Err(Error::at(ErrorKind::DuplicateCacheId(id), at));
        }
        let again = match node {
            Some(node) => cache.has_node(node),
            None => cache.unknown[0].is_some(),
        };
        if again {
            let again = peer.simplified_again.get() + 1;
            if again > limit {
                return Err(Error::at(ErrorKind::CacheFlood(limit), at));
            }
            peer.simplified_again.set(again);
        }
        match node {
            Some(node) => peer.received.insert(id, node),
            None => peer.received.insert_unknown(id),
        }
        Ok(())
    }

    fn system(&mut self, from: i32, delivery: Delivery, sys: Sys) -> Result<()> {
        match sys {
            // Admission is the transport's here, so an auth exchange never starts;
            // the engine ignores the empty "done" message once a peer is in.
            Sys::Auth(payload) if payload.is_empty() => Ok(()),
            // With the relay off, the engine takes neither (a server never takes a
            // peer notice: that stays refused below).
            Sys::Relay { .. } if !self.server_relay => Err(Error::at(ErrorKind::RelayDisabled, 1)),
            Sys::AddPeer(_) | Sys::DelPeer(_) if !self.server_relay && !self.is_server() => {
                Err(Error::at(ErrorKind::RelayDisabled, 1))
            }
            Sys::AddPeer(peer) if !self.is_server() && from == SERVER && peer > SERVER => {
                if peer != self.id && !self.is_peer(peer) {
                    self.admit(peer);
                }
                Ok(())
            }
            Sys::DelPeer(peer) if !self.is_server() && from == SERVER && peer > SERVER => {
                self.disconnect(peer);
                Ok(())
            }
            Sys::Relay { peer, packet } if self.is_server() => {
                let inner = relayable(&packet)?;
                if peer > 0 && !self.is_peer(peer) {
                    // Gone while the packet was on its way (or never here: the
                    // engine drops both silently).
                    return Ok(());
                }
                // A broadcast includes the server unless it excludes it.
                let here = peer <= 0 && peer != -SERVER;
                let out = Packet::Sys(Sys::Relay { peer: from, packet }).encode()?;
                let targets: Vec<i32> = if peer > 0 {
                    vec![peer]
                } else {
                    self.peers
                        .iter()
                        .copied()
                        // -i32::MIN excludes no one (it would overflow).
                        .filter(|&p| p != from && Some(p) != peer.checked_neg())
                        .collect()
                };
                for to in targets {
                    self.transmits.push_back(Transmit {
                        to,
                        delivery,
                        bytes: out.clone(),
                    });
                }
                if here {
                    self.relayed(from, inner)?;
                }
                Ok(())
            }
            Sys::Relay { peer, packet } if from == SERVER => {
                let r = relayable(&packet).and_then(|inner| {
                    if !self.is_peer(peer) {
                        return Err(Error::at(ErrorKind::UnknownPeer(peer), 2));
                    }
                    self.relayed(peer, inner)
                });
                self.drop_refused(peer, r);
                Ok(())
            }
            _ => Err(Error::at(ErrorKind::Unexpected("this SYS packet"), 0)),
        }
    }

    /// Whether `from` may call method `method` of node `node` here, by the method's
    /// mode: if not, [`ErrorKind::NotAllowed`], which the engine ignores (the call
    /// dropped, the peer kept). An unknown method passes, for [`Session::callee`] to
    /// tell (the engine drops that call too).
    #[inline(always)]
    fn check_mode(&self, from: i32, node: usize, method: u16) -> Result<()> {
        // A scene without modes, the usual one, checks nothing.
        if !self.scene.has_modes {
            return Ok(());
        }
        self.check_declared_mode(from, node, method)
    }

    #[inline(never)]
    fn check_declared_mode(&self, from: i32, node: usize, method: u16) -> Result<()> {
        match self.scene.method_mode(node, method) {
            Some(mode) if !mode.allows(from, self.id, self.authority[node]) => {
                Err(self.not_allowed(from, node, method, mode))
            }
            _ => Ok(()),
        }
    }

    #[cold]
    fn not_allowed(&self, from: i32, node: usize, method: u16, mode: RpcMode) -> Error {
        let (path, names) = &self.scene.nodes[node];
        let kind = ErrorKind::NotAllowed {
            method: names.name(method).unwrap_or_default().to_owned(),
            node: path.as_str().to_owned(),
            from,
            mode,
            authority: self.authority[node],
        };
        Error::at(kind, 0)
    }

    /// The node of index `node` and its method `method`, as the scene names them.
    /// Always inlined: out of line, it cost a
    /// call received in place a twentieth more.
    #[inline(always)]
    fn callee(&self, node: usize, method: u16) -> Result<(&Name, &Name)> {
        let (path, names) = &self.scene.nodes[node];
        let method = names
            .shared(method)
            .ok_or_else(|| Error::at(ErrorKind::UnknownMethod(method), 1))?;
        Ok((path, method))
    }

    /// `from`'s call of `method` on `node`, as an [`Event::Call`].
    /// `inner`, which `from` sent through the relay.
    fn relayed(&mut self, from: i32, inner: Relayed) -> Result<()> {
        match inner {
            Relayed::Call(node, method, args) => self.push_call(from, &node, method, args),
            Relayed::Other(packet) => self.process(from, packet),
        }
    }

    fn push_call(&mut self, from: i32, node: &NodeRef, method: u16, args: Arguments) -> Result<()> {
        let node = self.node_of(self.state.get(&from), node)?;
        self.check_mode(from, node, method)?;
        let (node, method) = self.callee(node, method)?;
        let event = call_event(from, node, method, args);
        self.events.push_back(event);
        Ok(())
    }

    fn process(&mut self, from: i32, packet: Packet) -> Result<()> {
        match packet {
            Packet::Call(call) => {
                self.push_call(from, &call.node, call.method, call.args.into())?
            }
            Packet::SimplifyPath { checksum, id, path } => {
                let node = self
                    .scene
                    .index(&path)
                    .ok_or_else(|| Error::at(ErrorKind::UnknownNode(path.clone()), 38))?;
                let valid = self.scene.nodes[node].1.checksum() == checksum;
                self.cache_received(from, id, Some(node), 34)?;
                if !valid {
                    let path = self.scene.nodes[node].0.clone();
                    self.events
                        .push_back(Event::ChecksumMismatch { peer: from, path });
                }
                self.send(
                    from,
                    Delivery::default(),
                    &Packet::ConfirmPath { valid, id },
                )?;
            }
            Packet::ConfirmPath { valid, id } => {
                let node = usize::try_from(id)
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .filter(|&i| i < self.scene.nodes.len())
                    .ok_or_else(|| Error::at(ErrorKind::UnknownCacheId(id), 2))?;
                let peer = self.peer_mut(from)?;
                if peer.sent[node] == Sent::Never {
                    return Err(Error::at(ErrorKind::UnknownCacheId(id), 2));
                }
                peer.sent[node] = Sent::Confirmed;
                if !valid {
                    let path = self.scene.nodes[node].0.clone();
                    self.events
                        .push_back(Event::ChecksumMismatch { peer: from, path });
                }
            }
            Packet::Raw(bytes) => self.events.push_back(Event::Bytes { from, bytes }),
            packet @ (Packet::Spawn(_)
            | Packet::Despawn { .. }
            | Packet::Sync(_)
            | Packet::Delta(_)) => self.events.push_back(Event::Replication { from, packet }),
            Packet::Sys(_) => {
                return Err(Error::at(ErrorKind::Unexpected("a relayed SYS packet"), 0))
            }
        }
        Ok(())
    }

    /// Whether `id` is connected. The map first: at a client it is small (the peers
    /// it exchanged packets with), where the set holds every peer the server named.
    /// `from`'s state, if it has any yet, or an error if `from` is not a peer: looked
    /// up once by a receiver, for this check and the usual call's cache id.
    #[inline]
    fn known_peer(&self, from: i32) -> Result<Option<&Peer>> {
        let peer = self.state.get(&from);
        if peer.is_none() && !self.peers.contains(&from) {
            return Err(Error::at(ErrorKind::UnknownPeer(from), 0));
        }
        Ok(peer)
    }

    fn is_peer(&self, id: i32) -> bool {
        self.state.contains_key(&id) || self.peers.contains(&id)
    }

    /// Where the path of node `index` stands with `peer`.
    fn sent(&self, peer: i32, index: usize) -> Sent {
        self.state.get(&peer).map_or(Sent::Never, |s| s.sent[index])
    }

    /// `peer`'s state, made on first use: a client hears of every peer of the
    /// server and exchanges packets with few, so a thousand-client load generator
    /// would otherwise hold a million of these.
    fn peer_mut(&mut self, id: i32) -> Result<&mut Peer> {
        if !self.is_peer(id) {
            return Err(Error::at(ErrorKind::UnknownPeer(id), 0));
        }
        let nodes = self.scene.nodes.len();
        Ok(self.state.entry(id).or_insert_with(|| Peer {
            received: PathCache::default(),
            sent: vec![Sent::Never; nodes],
            simplified_again: Cell::new(0),
        }))
    }

    /// Calls `method` of the node at `node` on `target` with `args` (a tuple, `&()`
    /// for none, or anything that serializes to an array), reliably on channel 0.
    ///
    /// In Godot 4, the arguments are written from the Rust value to their bytes as
    /// the engine writes them: scalars, strings and vectors in the compressed forms,
    /// containers (sequences, maps, structs) through godot_bin's serializer, with no
    /// `Variant` built. Other Godot types, and anything that cannot be sent (a full
    /// Object, a string with a NUL), go to `Variant`s and then the way of
    /// [`Session::call`]: the same bytes, and the same faults (an argument's error
    /// says index 0 when the whole list failed to become `Variant`s).
    pub fn rpc<A: Serialize + ?Sized>(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: &A,
    ) -> Result<()> {
        self.rpc_with(target, node, method, args, Delivery::default())
    }

    /// [`Session::rpc`] with a transfer mode and channel (as `@rpc` declares them).
    pub fn rpc_with<A: Serialize + ?Sized>(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: &A,
        delivery: Delivery,
    ) -> Result<()> {
        if self.protocol == Protocol::Godot4 {
            if let Target::Peer(peer) = target {
                if self.rpc_short(peer, node, method, args, delivery) {
                    return Ok(());
                }
            }
            // Scalars, strings, vectors and containers go from the Rust value to
            // their bytes; others, and every error, the Variant way below.
            let mut body = std::mem::take(&mut self.scratch);
            body.clear();
            let sent = args_ser::encode(args, &mut body).map(|argc| {
                self.call4(
                    target,
                    node,
                    method,
                    (argc > 0).then_some(argc),
                    &body,
                    delivery,
                )
            });
            self.scratch = body;
            if let Some(r) = sent {
                return r;
            }
        }
        let dialect = match self.protocol {
            Protocol::Godot4 => Dialect::Godot4,
            Protocol::Godot3 => Dialect::Godot3,
        };
        let args = match Config::new().dialect(dialect).to_variant(args) {
            Ok(Variant::Array(a)) => a,
            // `&()`: no arguments.
            Ok(Variant::Nil) => Vec::new(),
            Ok(_) => return Err(Error::at(ErrorKind::NotArguments, 0)),
            Err(source) => return Err(Error::at(ErrorKind::Argument { index: 0, source }, 0)),
        };
        self.call(target, node, method, args, delivery)
    }

    /// [`Session::rpc_with`]'s usual call, to one peer that confirmed the node's path,
    /// whose cache id and method id take a byte each, and whose arguments are
    /// written without `Variant`s: its head and arguments in one buffer, with none
    /// of the general way's fan-out (whose bytes these are). `false`, with nothing
    /// sent, for any other call or any fault: the general way then sends it or
    /// tells what is wrong.
    fn rpc_short<A: Serialize + ?Sized>(
        &mut self,
        peer: i32,
        node: &str,
        method: &str,
        args: &A,
        delivery: Delivery,
    ) -> bool {
        let Some(index) = self.scene.index(node) else {
            return false;
        };
        let ids = (
            u8::try_from(index + 1),
            self.scene.nodes[index].1.id(method).map(u8::try_from),
        );
        let (Ok(id), Some(Ok(method))) = ids else {
            return false;
        };
        if self.sent(peer, index) != Sent::Confirmed {
            return false;
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        out.extend_from_slice(&scene4::short_call_head(id, method));
        let written = args_ser::encode(args, &mut out).map(|argc| {
            scene4::finish_short_call(&mut out, argc);
            self.push(peer, delivery, out.as_slice().to_vec());
        });
        self.scratch = out;
        written.is_some()
    }

    /// [`Session::rpc_with`] with the arguments as Variants.
    pub fn call(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: Vec<Variant>,
        delivery: Delivery,
    ) -> Result<()> {
        let index = self.node_index(node)?;
        let method_id = self.method_id(index, method)?;
        if self.protocol == Protocol::Godot3 {
            return self.send_to_node(target, index, delivery, 64, |node, out| {
                godot3::Packet::Call(godot3::RemoteCall {
                    node,
                    method: method.to_owned(),
                    args: args.clone(),
                })
                .encode_into(out)
            });
        }
        // An unknown peer is told before what is wrong with the arguments.
        if let Target::Peer(p) = target {
            if !self.is_peer(p) {
                return Err(Error::at(ErrorKind::UnknownPeer(p), 0));
            }
        }
        let mut body = std::mem::take(&mut self.scratch);
        body.clear();
        let argc = match scene4::bytes_only(&args) {
            Some(b) => {
                body.extend_from_slice(b);
                Ok(None)
            }
            None => u8::try_from(args.len())
                .map_err(|_| Error::at(ErrorKind::TooLarge("more than 255 arguments"), 0))
                .and_then(|argc| {
                    args::encode(&args, &mut body)
                        // No packet was written: errors of encoding are at 0.
                        .map_err(|e| e.placed(0))
                        .map(|()| Some(argc))
                }),
        };
        let r =
            argc.and_then(|argc| self.send_call(target, index, method_id, argc, &body, delivery));
        self.scratch = body;
        r
    }

    /// The method id of `method` of the node at `index`.
    fn method_id(&self, index: usize, method: &str) -> Result<u16> {
        self.scene.nodes[index]
            .1
            .id(method)
            .ok_or_else(|| Error::at(ErrorKind::UnknownMethodName(method.to_owned()), 0))
    }

    /// A Godot 4 call of `method` of `node` whose arguments are written in `body`:
    /// `argc` of them, or (`None`) none or one PackedByteArray's bare bytes.
    fn call4(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        argc: Option<u8>,
        body: &[u8],
        delivery: Delivery,
    ) -> Result<()> {
        let index = self.node_index(node)?;
        let method = self.method_id(index, method)?;
        self.send_call(target, index, method, argc, body, delivery)
    }

    /// [`Session::call4`] for a node and method found.
    fn send_call(
        &mut self,
        target: Target,
        index: usize,
        method: u16,
        argc: Option<u8>,
        body: &[u8],
        delivery: Delivery,
    ) -> Result<()> {
        // The head takes at most 8 bytes.
        self.send_to_node(target, index, delivery, body.len() + 8, |node, out| {
            scene4::write_call(&node, method, argc, out, |out| {
                out.extend_from_slice(body);
                Ok(())
            })
        })
    }

    /// Godot 3's `rset()`: sets `property` of the node at `node` on `target`.
    pub fn set(
        &mut self,
        target: Target,
        node: &str,
        property: &str,
        value: Variant,
        delivery: Delivery,
    ) -> Result<()> {
        if self.protocol != Protocol::Godot3 {
            return Err(Error::at(ErrorKind::Unexpected("rset outside Godot 3"), 0));
        }
        let index = self.node_index(node)?;
        self.send_to_node(target, index, delivery, 64, |node, out| {
            godot3::Packet::Set {
                node,
                property: property.to_owned(),
                value: value.clone(),
            }
            .encode_into(out)
        })
    }

    /// A `MultiplayerSpawner` spawn on `target` (Godot 4), as the engine's
    /// replication sends it: through the spawner at `spawner` (a node of the scene,
    /// declared with the spawner's rpc names: none), whose path goes to each target
    /// first; `spawn.spawner` is set to its cache id here. Reliable, channel 0.
    pub fn spawn(&mut self, target: Target, spawner: &str, mut spawn: Spawn) -> Result<()> {
        self.godot4_only("replication")?;
        let index = self.node_index(spawner)?;
        spawn.spawner = index as u32 + 1;
        let bytes = Packet::Spawn(spawn).encode()?;
        // The spawn names the spawner by its id whether or not it is confirmed yet:
        // the path goes first on the same reliable channel.
        self.send_to_node(target, index, Delivery::default(), bytes.len(), |_, out| {
            out.extend_from_slice(&bytes);
            Ok(())
        })
    }

    /// A despawn, sync or delta packet (Godot 4) to `target`: SYNC unreliable, the
    /// others reliable, on channel 0, as the engine sends them. Name synchronizers
    /// by the net ids their [`Spawn`] gave.
    pub fn replicate(&mut self, target: Target, packet: &Packet) -> Result<()> {
        self.godot4_only("replication")?;
        let mode = match packet {
            Packet::Sync(_) => Mode::Unreliable,
            Packet::Despawn { .. } | Packet::Delta(_) => Mode::Reliable,
            _ => {
                return Err(Error::at(
                    ErrorKind::Unexpected("a packet other than despawn, sync or delta"),
                    0,
                ))
            }
        };
        let bytes = packet.encode()?;
        for p in self.targets(target)? {
            self.push(p, Delivery { mode, channel: 0 }, bytes.clone());
        }
        Ok(())
    }

    /// The net id that names the synchronizer at `path` (a node of the scene, declared
    /// with no rpc names) in [`Sync`](crate::Sync) and [`Delta`](crate::Delta) entries
    /// to `peer`, for a synchronizer that was not spawned: its path cache id with bit
    /// 31 set, once `peer` confirmed the path. Until then `None`, and the path goes to
    /// `peer` on the first call; the engine's replication skips such a synchronizer
    /// the same way until the path is confirmed.
    pub fn synchronizer_id(&mut self, peer: i32, path: &str) -> Result<Option<u32>> {
        self.godot4_only("replication")?;
        let index = self.node_index(path)?;
        let cache_id = index as u32 + 1;
        if !self.is_peer(peer) {
            return Err(Error::at(ErrorKind::UnknownPeer(peer), 0));
        }
        let sent = self.sent(peer, index);
        match sent {
            Sent::Confirmed => return Ok(Some(cache_id | 0x8000_0000)),
            Sent::Unconfirmed => return Ok(None),
            Sent::Never => {}
        }
        let simplify = Packet::SimplifyPath {
            checksum: self.scene.nodes[index].1.checksum().to_owned(),
            id: cache_id,
            path: path.to_owned(),
        }
        .encode()?;
        self.peer_mut(peer)?.sent[index] = Sent::Unconfirmed;
        self.push(peer, Delivery::default(), simplify);
        Ok(None)
    }

    fn godot4_only(&self, what: &'static str) -> Result<()> {
        match self.protocol {
            Protocol::Godot4 => Ok(()),
            Protocol::Godot3 => Err(Error::at(ErrorKind::Unexpected(what), 0)),
        }
    }

    /// The connected peers `target` names.
    fn targets(&self, target: Target) -> Result<Vec<i32>> {
        let mut out = Vec::new();
        self.targets_into(target, &mut out)?;
        Ok(out)
    }

    /// The peers `target` names, in `out` (cleared first).
    fn targets_into(&self, target: Target, out: &mut Vec<i32>) -> Result<()> {
        out.clear();
        match target {
            Target::Peer(p) if self.is_peer(p) => out.push(p),
            Target::Peer(p) => return Err(Error::at(ErrorKind::UnknownPeer(p), 0)),
            Target::All | Target::AllBut(_) => out.extend(
                self.peers
                    .iter()
                    .copied()
                    .filter(|&p| Target::AllBut(p) != target),
            ),
        }
        Ok(())
    }

    fn node_index(&self, node: &str) -> Result<usize> {
        self.scene
            .index(node)
            .ok_or_else(|| Error::at(ErrorKind::UnknownNode(node.to_owned()), 0))
    }

    /// Sends what `encode` writes for the node at `index` (about `size` bytes) to
    /// `target`, as the engine does: the first packet to a peer sends the path to
    /// cache; the node goes by id (Godot 4: in the narrowest field) only if every
    /// target has confirmed it, else by path to those that have not and by a 4-byte
    /// id to those that have. The packets are written before anything is queued, so
    /// one that cannot be written changes nothing.
    fn send_to_node(
        &mut self,
        target: Target,
        index: usize,
        delivery: Delivery,
        size: usize,
        encode: impl Fn(NodeRef, &mut Vec<u8>) -> Result<()>,
    ) -> Result<()> {
        // The kept list (an error drops it, which costs only its capacity).
        let mut targets = std::mem::take(&mut self.fan_out);
        self.targets_into(target, &mut targets)?;
        let cache_id = index as u32 + 1;
        let (mut first_time, mut all_confirmed) = (false, true);
        for &p in &targets {
            match self.sent(p, index) {
                Sent::Never => (first_time, all_confirmed) = (true, false),
                Sent::Unconfirmed => all_confirmed = false,
                Sent::Confirmed => {}
            }
        }
        let godot3 = self.protocol == Protocol::Godot3;
        let (path, names) = &self.scene.nodes[index];
        let mut cached = Vec::with_capacity(size);
        encode(
            if all_confirmed || godot3 {
                NodeRef::Cached(cache_id)
            } else {
                NodeRef::CachedWide(cache_id)
            },
            &mut cached,
        )?;
        let mut by_path = Vec::new();
        if !all_confirmed {
            by_path.reserve(size + path.len() + 1);
            encode(NodeRef::Path(path.to_string()), &mut by_path)?;
        }
        if first_time {
            let simplify = if godot3 {
                godot3::Packet::SimplifyPath {
                    id: cache_id,
                    path: path.to_string(),
                }
                .encode()?
            } else {
                Packet::SimplifyPath {
                    checksum: names.checksum().to_owned(),
                    id: cache_id,
                    path: path.to_string(),
                }
                .encode()?
            };
            for &p in &targets {
                let peer = self.peer_mut(p)?;
                if peer.sent[index] == Sent::Never {
                    peer.sent[index] = Sent::Unconfirmed;
                    self.push(p, Delivery::default(), simplify.clone());
                }
            }
        }
        // In Godot 3 a call for every peer, or every peer but one, goes once they all
        // confirmed the path as one packet whose transport header names them (0, or
        // -N for all but N): the engine's `set_target_peer(0)`. A server's transport
        // sends it to each, a client's to the server, which relays it. (Godot 4
        // sends a packet per peer.)
        let header = match godot3 && all_confirmed {
            true => self.header3(target, &targets),
            false => None,
        };
        if let Some(to) = header {
            self.push(to, delivery, cached);
            self.fan_out = targets;
            return Ok(());
        }
        let last = targets.len().saturating_sub(1);
        for (i, &p) in targets.iter().enumerate() {
            let packet = if all_confirmed || self.sent(p, index) == Sent::Confirmed {
                &mut cached
            } else {
                &mut by_path
            };
            // The last target takes the packet itself.
            let bytes = if i == last {
                std::mem::take(packet)
            } else {
                packet.clone()
            };
            self.push(p, delivery, bytes);
        }
        self.fan_out = targets;
        Ok(())
    }

    /// `send_bytes`: `bytes` (not empty) to `target`.
    pub fn send_bytes(&mut self, target: Target, bytes: Vec<u8>, delivery: Delivery) -> Result<()> {
        let bytes = match self.protocol {
            Protocol::Godot4 => Packet::Raw(bytes).encode()?,
            Protocol::Godot3 => godot3::Packet::Raw(bytes).encode()?,
        };
        for p in self.targets(target)? {
            self.push(p, delivery, bytes.clone());
        }
        Ok(())
    }

    fn send(&mut self, to: i32, delivery: Delivery, packet: &Packet) -> Result<()> {
        let bytes = packet.encode()?;
        self.push(to, delivery, bytes);
        Ok(())
    }

    /// The Godot 3 transport header's target that names `target`'s peers at once (0,
    /// or -N for all but N), for a call to several; for a client only once it has the
    /// server, for a server only when some peer is named.
    fn header3(&self, target: Target, targets: &[i32]) -> Option<i32> {
        let header = match target {
            Target::All => Some(0),
            Target::AllBut(p) => p.checked_neg().filter(|&n| n < 0),
            Target::Peer(_) => None,
        }?;
        let reaches = match self.is_server() {
            true => !targets.is_empty(),
            false => self.is_peer(SERVER),
        };
        reaches.then_some(header)
    }

    /// A Godot 4 client reaches other clients through the server's SYS relay (a
    /// Godot 3 one through its transport's header).
    fn push(&mut self, to: i32, delivery: Delivery, bytes: Vec<u8>) {
        let transmit = if self.is_server() || to == SERVER || self.protocol == Protocol::Godot3 {
            Transmit {
                to,
                delivery,
                bytes,
            }
        } else {
            let mut relayed = Vec::with_capacity(6 + bytes.len());
            relayed.extend_from_slice(&[7, 3]);
            relayed.extend_from_slice(&to.to_le_bytes());
            relayed.extend_from_slice(&bytes);
            Transmit {
                to: SERVER,
                delivery,
                bytes: relayed,
            }
        };
        self.transmits.push_back(transmit);
    }
}

/// A packet a peer sent through the relay, read as it would be received from that
/// peer: a call holds its arguments' bytes ([`Arguments`]).
enum Relayed {
    Call(NodeRef, u16, Arguments),
    Other(Packet),
}

/// What a SYS relay carries (at byte 6), checked as `Packet::decode` checks it (a call
/// read as `receive_from` reads one, with the same errors); no SYS packet.
fn relayable(bytes: &[u8]) -> Result<Relayed> {
    let shifted = |e: Error| e.shifted(6);
    if let Some(call) = CallRef::decode(bytes).map_err(shifted)? {
        let args = Arguments::godot4(call.args).map_err(shifted)?;
        return Ok(Relayed::Call(call.node, call.method, args));
    }
    match Packet::decode(bytes).map_err(shifted)? {
        Packet::Sys(_) => Err(Error::at(ErrorKind::Unexpected("a relayed SYS packet"), 6)),
        p => Ok(Relayed::Other(p)),
    }
}

fn system(to: i32, packet: &Packet) -> Transmit {
    Transmit {
        to,
        delivery: Delivery::default(),
        bytes: packet.encode().expect("SYS peer packets always encode"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node given id after id keeps its newest two, small ids and large alike;
    /// other nodes keep theirs.
    #[test]
    fn a_node_keeps_its_newest_two_cache_ids() {
        let mut c = PathCache::default();
        c.insert(7, 1);
        assert!(!c.has_node(0) && c.has_node(1));
        for id in (60..70).chain([1000, 0x7FFF_FFFF]) {
            c.insert(id, 0);
        }
        assert_eq!((c.get(1000), c.get(0x7FFF_FFFF)), (Some(0), Some(0)));
        for gone in 60..70 {
            assert_eq!(c.get(gone), None, "{gone}");
        }
        assert_eq!(c.get(7), Some(1));
        assert_eq!(c.len(), 3);
        c.insert(3, 0);
        assert_eq!(
            (c.get(1000), c.get(0x7FFF_FFFF), c.get(3)),
            (None, Some(0), Some(0))
        );
        assert_eq!(c.len(), 3);
    }
}
