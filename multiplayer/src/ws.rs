//! Godot's WebSocket multiplayer peers on tokio: a server that Godot clients join
//! and a client that joins a Godot server (feature `websocket`).
//!
//! The wire is plain RFC 6455 with no subprotocol. Godot 4
//! (`WebSocketMultiplayerPeer`): the server's first message to a client is its peer
//! id (4 bytes, i32 little endian); after that each binary message is one
//! SceneMultiplayer packet, always from or to the server. Godot 3
//! (`WebSocketServer`/`WebSocketClient` as `network_peer`, [`Config::protocol`]
//! [`Protocol::Godot3`]): every message starts with the 9-byte
//! [`WsHeader`] (type, from, to); the server announces ids
//! and peers in system messages and relays payloads between clients.
//!
//! ```no_run
//! # async fn run() -> Result<(), godot_bin_multiplayer::ws::Error> {
//! use godot_bin::Vector3;
//! use godot_bin_multiplayer::{ws::Server, Event, Scene, Target};
//!
//! let scene = Scene::new().node("Game", ["chat", "moved", "welcome"]);
//! let mut server = Server::bind("127.0.0.1:9080", scene).await?;
//! while let Some(event) = server.next_event().await {
//!     match event {
//!         Event::PeerConnected(id) => server.rpc(Target::Peer(id), "Game", "welcome", &(id,))?,
//!         Event::Call(call) if call.method == "moved" => {
//!             let (pos,): (Vector3,) = call.args()?;
//!             server.rpc(Target::AllBut(call.from), "Game", "moved", &(call.from, pos))?;
//!         }
//!         _ => {}
//!     }
//! }
//! # Ok(()) }
//! ```

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use godot_bin::Variant;
use serde::Serialize;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::header::SEC_WEBSOCKET_PROTOCOL;
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::auth_clock::AuthClock;
use crate::godot3::{WsHeader, WsKind};
use crate::outbox::Sender;
use crate::replication::Spawn;
use crate::scene4::Packet;
use crate::send_queue::Limits;
use crate::session::{Delivery, Event, Protocol, Scene, Session, Target, SERVER};
use crate::wire::{id_message, read_id_message};

/// What can go wrong on a WebSocket transport.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The socket.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The WebSocket layer.
    #[error(transparent)]
    WebSocket(#[from] tokio_tungstenite::tungstenite::Error),
    /// A packet that could not be built, or one the peer sent that no Godot peer
    /// sends.
    #[error(transparent)]
    Packet(#[from] crate::Error),
    /// Call arguments that did not deserialize into the type asked for
    /// ([`Call::args`](crate::Call::args)).
    #[error("the arguments: {0}")]
    Args(#[from] godot_bin::Error),
    /// The server's first message was not a peer id (4 bytes, 2..2^31-1).
    #[error("the server's first message is not a peer id")]
    InvalidId,
    /// A packet larger than the receiver's inbound buffer.
    #[error("a {0}-byte packet exceeds the {1}-byte message limit")]
    TooLarge(usize, usize),
    /// The connection closed.
    #[error("the connection is closed")]
    Closed,
    /// The server sent nothing for a heartbeat interval, not even the pong, or took
    /// nothing written to it for one ([`Config::heartbeat`]): it is gone.
    #[error("the server went silent")]
    Silent,
    /// The server did not connect the client, answer its handshake and send its id
    /// within `handshake_timeout` ([`Config::handshake_timeout`]).
    #[error("the server did not let the client in in time")]
    Timeout,
}

/// Limits and queue sizes of a [`Server`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The largest message sent or accepted. Godot 4's client buffers 65535 bytes
    /// inbound and outbound by default and closes on a larger message.
    pub max_message: usize,
    /// Messages queued per client before it counts as too slow and is dropped. A
    /// newcomer is told of every other client at once (a message each), so keep it
    /// well above `max_clients`: by default twice it (8192; Godot 4.6's own server
    /// queues up to 4096 packets a client, its `max_queued_packets`).
    pub send_queue: usize,
    /// Bytes queued per client (frames, counted until the socket takes them) before
    /// it counts as too slow and is dropped; one message always fits. What a client
    /// that reads nothing costs the server: every client gets its own copy of what
    /// is sent to all, so 8192 messages of 64 KiB would be 512 MiB a client.
    pub send_queue_bytes: usize,
    /// Clients connected at once; more are turned away at the handshake.
    pub max_clients: usize,
    /// Time a client has to finish the WebSocket handshake; and the time a crate
    /// client gives a server to connect it, answer its handshake and send its id
    /// ([`Error::Timeout`] past it).
    pub handshake_timeout: Duration,
    /// The engine version spoken (Godot 4 by default).
    pub protocol: Protocol,
    /// Peers authenticate before they are admitted, as with the engine's
    /// `SceneMultiplayer.auth_callback` set (Godot 4; off by default): see
    /// [`Session::set_auth`](crate::Session::set_auth). Both sides must agree.
    pub auth: bool,
    /// Time a client has to authenticate when `auth` is on before it is dropped
    /// (`Event::AuthFailed`), as the engine's `auth_timeout` (3 s by default; zero:
    /// no limit).
    pub auth_timeout: Duration,
    /// The WebSocket sub-protocols spoken, as Godot's `supported_protocols` (none by
    /// default). A server answers a client with the first protocol the client offers
    /// that is here, and turns it away when none is (it offers some, or this asks for
    /// one); a client offers these, in this order, and refuses a server that does not
    /// choose one of them. Godot 4 and 3 do both so, each side.
    pub subprotocols: &'static [&'static str],
    /// A heartbeat (off by default, as in the engine's `WebSocketMultiplayerPeer`):
    /// every interval a server pings each client, and drops one that sent nothing
    /// since the previous ping, not even the pong (Godot's clients and browsers
    /// answer pings by themselves), or whose connection took nothing the server wrote
    /// for a whole interval (it does not read, or is gone); a client pings its server
    /// alike, and gives it up ([`Error::Silent`]) when it is silent so, or takes
    /// nothing written for an interval. A client whose machine vanished without
    /// closing its connection is otherwise held until the operating system gives up
    /// on the connection, or until what waits for it fills its send queue, which
    /// takes many minutes. Zero is off too, and so is one longer than the clock
    /// counts (`Duration::MAX`).
    pub heartbeat: Option<Duration>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_message: 65535,
            send_queue: 8192,
            send_queue_bytes: 1 << 20,
            max_clients: 4096,
            handshake_timeout: Duration::from_secs(10),
            protocol: Protocol::Godot4,
            auth: false,
            auth_timeout: Duration::from_secs(3),
            subprotocols: &[],
            heartbeat: None,
        }
    }
}

impl Config {
    /// The heartbeat's pings, the first one interval from now; none without a
    /// heartbeat (or with a zero one, or one longer than the clock counts, as
    /// `Duration::MAX`).
    fn pings(&self) -> Option<tokio::time::Interval> {
        let every = self.heartbeat.filter(|d| !d.is_zero())?;
        let first = tokio::time::Instant::now().checked_add(every)?;
        // The tick after it too: the interval works it out.
        first.checked_add(every)?;
        let mut pings = tokio::time::interval_at(first, every);
        pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Some(pings)
    }

    fn websocket(&self) -> WebSocketConfig {
        // Small buffers: a server holds thousands of these (tungstenite's default is
        // 128 KiB each way per connection); larger messages still pass (a server
        // writes its messages to the socket itself). tungstenite zeroes the read
        // buffer's free part before every read: 2 KiB holds a game's usual messages,
        // where 8 KiB cost every read an 8 KiB memset.
        // What tungstenite queues itself (pongs, a close) is bounded too: a peer that
        // sends pings and reads nothing is refused once a few wait, not kept while
        // the replies pile up.
        WebSocketConfig::default()
            .read_buffer_size(2 << 10)
            .write_buffer_size(WRITE_BUFFER)
            .max_write_buffer_size(16 << 10)
            .max_message_size(Some(self.max_message))
            .max_frame_size(Some(self.max_message))
    }

    /// A client's: it sends its messages through tungstenite, whose buffer must take
    /// the largest one whole, frame head and mask included, on top of what waits.
    fn client_websocket(&self) -> WebSocketConfig {
        self.websocket()
            .max_write_buffer_size(WRITE_BUFFER + self.max_message.saturating_add(14))
    }
}

/// What tungstenite gathers before it writes to the socket.
const WRITE_BUFFER: usize = 8 << 10;

enum Net {
    Joined(i32, Link),
    Message(i32, Vec<u8>),
    Left(i32),
}

/// A connected client: its writer's queue, and where it connected from.
struct Link {
    tx: Sender,
    addr: SocketAddr,
}

/// A SceneMultiplayer server on WebSocket: peer 1, as a Godot server with
/// `WebSocketMultiplayerPeer.create_server` would be. See the module docs.
pub struct Server {
    session: Session,
    config: Config,
    addr: SocketAddr,
    rx: mpsc::Receiver<Net>,
    clients: HashMap<i32, Link>,
    /// Shared with the task that accepts connections.
    refusing: Arc<AtomicBool>,
    accept: JoinHandle<()>,
    auth_clock: AuthClock,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl Server {
    /// Listens on `addr` with the default [`Config`].
    pub async fn bind(addr: impl ToSocketAddrs, scene: Scene) -> Result<Server, Error> {
        Server::bind_with(addr, scene, Config::default()).await
    }

    /// Listens on `addr`.
    pub async fn bind_with(
        addr: impl ToSocketAddrs,
        scene: Scene,
        config: Config,
    ) -> Result<Server, Error> {
        Server::start(addr, scene, config, None).await
    }

    /// Listens on `addr` for `wss://` (feature `tls`), with `tls` as the server's
    /// certificate and settings: what a web export served over https must use.
    #[cfg(feature = "tls")]
    pub async fn bind_tls(
        addr: impl ToSocketAddrs,
        scene: Scene,
        config: Config,
        tls: std::sync::Arc<tokio_rustls::rustls::ServerConfig>,
    ) -> Result<Server, Error> {
        Server::start(
            addr,
            scene,
            config,
            Some(tokio_rustls::TlsAcceptor::from(tls)),
        )
        .await
    }

    async fn start(
        addr: impl ToSocketAddrs,
        scene: Scene,
        config: Config,
        tls: Tls,
    ) -> Result<Server, Error> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let (tx, rx) = mpsc::channel(config.send_queue.max(64));
        let refusing = Arc::new(AtomicBool::new(false));
        let accept = tokio::spawn(accept(listener, tx, config, tls, refusing.clone()));
        Ok(Server {
            session: Session::server(scene).configured(config.protocol, config.auth),
            config,
            addr,
            rx,
            clients: HashMap::new(),
            refusing,
            accept,
            auth_clock: AuthClock::new(config.auth_timeout),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The protocol state (peers, scene), for what the methods here do not cover.
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Where connected client `peer` connected from (Godot's `get_peer_address` and
    /// `get_peer_port`); `None` for a peer not connected.
    pub fn peer_addr(&self, peer: i32) -> Option<SocketAddr> {
        self.clients.get(&peer).map(|link| link.addr)
    }

    /// Turns new clients away, or lets them in again, as Godot's
    /// `MultiplayerPeer.refuse_new_connections`; connected clients stay. As the
    /// engine, a Godot 4 server closes a newcomer's connection once its WebSocket
    /// handshake is done, without a peer id (a handshake under way when this is set
    /// is turned away too), and a Godot 3 server closes it as soon as it is accepted.
    pub fn set_refuse_new_connections(&mut self, refuse: bool) {
        self.refusing.store(refuse, Ordering::Relaxed);
    }

    /// Whether new clients are turned away ([`Server::set_refuse_new_connections`]).
    pub fn is_refusing_new_connections(&self) -> bool {
        self.refusing.load(Ordering::Relaxed)
    }

    /// The next event; `None` only if the listener failed. Cancel-safe: use it in
    /// `tokio::select!`.
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.session.poll_event() {
                return Some(e);
            }
            let net = match self.auth_clock.next(&self.session) {
                None => self.rx.recv().await?,
                Some(at) => tokio::select! {
                    net = self.rx.recv() => net?,
                    () = tokio::time::sleep_until(at) => {
                        for peer in self.auth_clock.expired(&self.session) {
                            self.kick(peer);
                        }
                        continue;
                    }
                },
            };
            match net {
                Net::Joined(id, link) => {
                    if self.config.protocol == Protocol::Godot3 {
                        // The transport's peer notices, as Godot 3's server sends them.
                        for (&p, other) in &self.clients {
                            other.tx.push(&WsHeader::system(WsKind::AddPeer, id));
                            link.tx.push(&WsHeader::system(WsKind::AddPeer, p));
                        }
                    }
                    self.clients.insert(id, link);
                    self.session.connect(id);
                    self.auth_clock.joined(&self.session, id);
                }
                Net::Message(id, bytes) if self.clients.contains_key(&id) => {
                    let r = match self.config.protocol {
                        Protocol::Godot4 => self.session.receive(id, Delivery::default(), &bytes),
                        Protocol::Godot3 => self.receive3(id, &bytes),
                    };
                    if let Err(e) = r {
                        self.drop_peer(id, &e.to_string());
                    }
                }
                Net::Message(..) => {}
                Net::Left(id) => {
                    if self.clients.remove(&id).is_some() {
                        self.left(id);
                    }
                }
            }
            // Confirmations, relays and peer notices go out at once.
            let _ = self.flush();
        }
    }

    /// Calls `method` of `node` on `target` with `args` (a tuple).
    pub fn rpc<A: Serialize + ?Sized>(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: &A,
    ) -> Result<(), Error> {
        self.session.rpc(target, node, method, args)?;
        self.flush()
    }

    /// [`Server::rpc`] with the arguments as Variants.
    pub fn call(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: Vec<Variant>,
    ) -> Result<(), Error> {
        self.session
            .call(target, node, method, args, Delivery::default())?;
        self.flush()
    }

    /// A spawn through the spawner at `spawner`: see [`Session::spawn`].
    pub fn spawn(&mut self, target: Target, spawner: &str, spawn: Spawn) -> Result<(), Error> {
        self.session.spawn(target, spawner, spawn)?;
        self.flush()
    }

    /// A synchronizer's net id for `peer`: see [`Session::synchronizer_id`].
    pub fn synchronizer_id(&mut self, peer: i32, path: &str) -> Result<Option<u32>, Error> {
        let id = self.session.synchronizer_id(peer, path)?;
        self.flush()?;
        Ok(id)
    }

    /// A despawn, sync or delta packet: see [`Session::replicate`].
    pub fn replicate(&mut self, target: Target, packet: &Packet) -> Result<(), Error> {
        self.session.replicate(target, packet)?;
        self.flush()
    }

    /// `send_bytes` to `target`.
    pub fn send_bytes(&mut self, target: Target, bytes: Vec<u8>) -> Result<(), Error> {
        self.session
            .send_bytes(target, bytes, Delivery::default())?;
        self.flush()
    }

    /// Closes the connection to `peer` (the others hear it left), once what was
    /// queued for it is written (given the handshake time to take it).
    pub fn kick(&mut self, peer: i32) {
        if self.clients.remove(&peer).is_some() {
            self.left(peer);
            let _ = self.flush();
        }
    }

    fn drop_peer(&mut self, peer: i32, reason: &str) {
        if self.clients.remove(&peer).is_some() {
            self.session.refuse(peer, reason);
            self.announce_left(peer);
        }
    }

    fn left(&mut self, peer: i32) {
        self.session.disconnect(peer);
        self.announce_left(peer);
    }

    /// Godot 3's transport tells the other clients (Godot 4's session does).
    fn announce_left(&mut self, peer: i32) {
        if self.config.protocol == Protocol::Godot3 {
            for link in self.clients.values() {
                link.tx.push(&WsHeader::system(WsKind::DelPeer, peer));
            }
        }
    }

    /// A Godot 3 message from client `id`: for the server, relayed, or both, as
    /// its header's target says. What is relayed must be a valid packet too.
    fn receive3(&mut self, id: i32, msg: &[u8]) -> crate::Result<()> {
        let (h, body) = WsHeader::split(msg)?;
        if h.kind != WsKind::Payload || h.from != id {
            return Err(crate::Error::at(
                crate::ErrorKind::Unexpected("a system message or a forged source"),
                0,
            ));
        }
        let here = crate::godot3::names(h.to, SERVER);
        // Checked before it goes to anyone else, a broadcast too.
        if h.to != SERVER {
            crate::godot3::Packet::decode(body).map_err(|e| e.shifted(WsHeader::SIZE))?;
        }
        for p in self.named(h.to, id) {
            self.send(p, msg);
        }
        if here {
            self.session
                .receive(id, Delivery::default(), body)
                .map_err(|e| e.shifted(WsHeader::SIZE))?;
        }
        Ok(())
    }

    /// Sends auth data to `peer`, which is authenticating ([`Session::send_auth`]).
    pub fn send_auth(&mut self, peer: i32, data: &[u8]) -> Result<(), Error> {
        self.session.send_auth(peer, data)?;
        self.flush()
    }

    /// Completes this side's authentication of `peer` ([`Session::complete_auth`]).
    pub fn complete_auth(&mut self, peer: i32) -> Result<(), Error> {
        self.session.complete_auth(peer)?;
        self.flush()
    }

    /// Hands every queued packet to its client's writer: what this server's own
    /// methods do after queuing; call it after queuing through [`Server::session`]
    /// (a [`Replicator`](crate::Replicator), for one). A packet over the size limit
    /// is not sent (the error says so); a client whose queue is full is dropped.
    pub fn flush(&mut self) -> Result<(), Error> {
        let mut result = Ok(());
        while let Some(t) = self.session.poll_transmit() {
            let bytes = match self.config.protocol {
                Protocol::Godot4 => t.bytes,
                Protocol::Godot3 => WsHeader {
                    kind: WsKind::Payload,
                    from: SERVER,
                    to: t.to,
                }
                .wrap(&t.bytes),
            };
            // The whole message counts against the client's buffer, header included.
            if bytes.len() > self.config.max_message {
                result = Err(Error::TooLarge(bytes.len(), self.config.max_message));
                continue;
            }
            if t.to > 0 {
                self.send(t.to, &bytes);
            } else {
                for p in self.named(t.to, SERVER) {
                    self.send(p, &bytes);
                }
            }
        }
        result
    }

    /// The clients a Godot 3 header's target names (a client, 0 for all, -N for all
    /// but N), but the sender `from`.
    fn named(&self, to: i32, from: i32) -> Vec<i32> {
        match to {
            SERVER => Vec::new(),
            t if t > SERVER => vec![t],
            t => self
                .clients
                .keys()
                .copied()
                .filter(|&p| p != from && crate::godot3::names(t, p))
                .collect(),
        }
    }

    /// Queues `msg` for client `p`; one whose queue is full is dropped.
    fn send(&mut self, p: i32, msg: &[u8]) {
        if let Some(link) = self.clients.get(&p) {
            if !link.tx.push(msg) {
                self.drop_peer(p, "its send queue is full");
            }
        }
    }
}

/// The TLS side of `wss://` (feature `tls`), or none.
#[cfg(feature = "tls")]
type Tls = Option<tokio_rustls::TlsAcceptor>;
#[cfg(not(feature = "tls"))]
type Tls = Option<std::convert::Infallible>;

async fn accept(
    listener: TcpListener,
    tx: mpsc::Sender<Net>,
    config: Config,
    tls: Tls,
    refusing: Arc<AtomicBool>,
) {
    let ids = Arc::new(Mutex::new(HashSet::new()));
    let random = std::collections::hash_map::RandomState::new();
    let mut n = 0u64;
    loop {
        let Ok((stream, addr)) = listener.accept().await else {
            // Out of file descriptors, say: wait for some to close rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        // Godot 3's server closes a connection it takes while refusing; Godot 4's
        // lets the handshake finish first (in `serve`).
        if config.protocol == Protocol::Godot3 && refusing.load(Ordering::Relaxed) {
            continue;
        }
        let id = {
            let mut used = ids.lock().expect("never poisoned");
            if used.len() >= config.max_clients {
                continue;
            }
            // Random ids as Godot's (2..2^31-1), unique among those connected.
            let id = loop {
                n += 1;
                let mut h = random.build_hasher();
                h.write_u64(n);
                let id = (h.finish() & 0x7FFF_FFFF) as i32;
                if id > SERVER && !used.contains(&id) {
                    break id;
                }
            };
            used.insert(id);
            id
        };
        // Without TLS, `tls` is an `Option` of nothing, and `Copy`.
        #[cfg_attr(not(feature = "tls"), allow(clippy::clone_on_copy))]
        let (tx, ids, tls, refusing) = (tx.clone(), ids.clone(), tls.clone(), refusing.clone());
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            match tls {
                #[cfg(feature = "tls")]
                Some(tls) => {
                    // The TLS handshake counts against the same time limit.
                    let start = tokio::time::Instant::now();
                    let shake = tokio::time::timeout(config.handshake_timeout, tls.accept(stream));
                    if let Ok(Ok(stream)) = shake.await {
                        let left = config.handshake_timeout.saturating_sub(start.elapsed());
                        let config = Config {
                            handshake_timeout: left,
                            ..config
                        };
                        serve(stream, id, addr, &tx, config, &refusing).await;
                    }
                }
                #[cfg(not(feature = "tls"))]
                Some(never) => match never {},
                None => serve(stream, id, addr, &tx, config, &refusing).await,
            }
            ids.lock().expect("never poisoned").remove(&id);
            let _ = tx.send(Net::Left(id)).await;
        });
    }
}

/// Client `id`'s connection from `addr`: the handshake, then its messages in and
/// out until either side lets go.
async fn serve<S>(
    stream: S,
    id: i32,
    addr: SocketAddr,
    tx: &mpsc::Sender<Net>,
    config: Config,
    refusing: &AtomicBool,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let supported = config.subprotocols;
    // The error is tungstenite's callback type: an HTTP response for the refusal.
    #[allow(clippy::result_large_err)]
    let answer = move |request: &Request, mut response: Response| {
        let offered = request
            .headers()
            .get_all(SEC_WEBSOCKET_PROTOCOL)
            .iter()
            .map(|v| v.to_str().ok())
            .collect::<Option<Vec<_>>>();
        // The chosen one is a token the client offered, so a valid header value; were
        // it not, the client is refused rather than the task panicking.
        let chosen = offered
            .map(|o| choose_subprotocol(&o, supported).map(|c| c.map(HeaderValue::from_str)));
        match chosen {
            Some(Ok(None)) => Ok(response),
            Some(Ok(Some(Ok(chosen)))) => {
                response
                    .headers_mut()
                    .insert(SEC_WEBSOCKET_PROTOCOL, chosen);
                Ok(response)
            }
            Some(Ok(Some(Err(_)))) | Some(Err(())) | None => {
                let mut refused =
                    ErrorResponse::new(Some("no WebSocket sub-protocol in common".into()));
                *refused.status_mut() = StatusCode::BAD_REQUEST;
                Err(refused)
            }
        }
    };
    let handshake =
        tokio_tungstenite::accept_hdr_async_with_config(stream, answer, Some(config.websocket()));
    let Ok(Ok(mut ws)) = tokio::time::timeout(config.handshake_timeout, handshake).await else {
        return;
    };
    // Godot 4's server drops a newcomer whose handshake ends while it refuses: the
    // connection closes with no id and no close frame. (Godot 3's lets a handshake
    // under way finish.)
    if config.protocol == Protocol::Godot4 && refusing.load(Ordering::Relaxed) {
        return;
    }
    let hello = match config.protocol {
        Protocol::Godot4 => vec![id_message(id).to_vec()],
        Protocol::Godot3 => vec![
            WsHeader::system(WsKind::Id, id),
            WsHeader::system(WsKind::AddPeer, SERVER),
        ],
    };
    for msg in hello {
        if ws.send(Message::binary(msg)).await.is_err() {
            return;
        }
    }
    let (out_tx, outbox) = Sender::new(Limits {
        messages: config.send_queue,
        bytes: config.send_queue_bytes,
    });
    if tx
        .send(Net::Joined(id, Link { tx: out_tx, addr }))
        .await
        .is_err()
    {
        return;
    }
    let mut out = Vec::new();
    let mut heartbeat = config.pings();
    let stall = heartbeat.as_ref().map(tokio::time::Interval::period);
    let mut heard = true;
    loop {
        tokio::select! {
            msg = ws.next() => match msg {
                Some(Ok(Message::Binary(b))) => {
                    heard = true;
                    if tx.send(Net::Message(id, b.to_vec())).await.is_err() {
                        return;
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => heard = true,
                // Godot sends binary messages only.
                _ => return,
            },
            () = next_ping(&mut heartbeat) => {
                // Silent since the last ping: gone. A ping the socket does not take
                // within the interval is a client that does not read: gone too.
                if !std::mem::take(&mut heard) {
                    return;
                }
                let ping = ws.send(Message::Ping(Default::default()));
                if !matches!(within(stall, ping).await, Some(Ok(()))) {
                    return;
                }
            },
            open = outbox.take(&mut out) => {
                if !open {
                    // The server let go of this client (kicked, or the server is
                    // gone): what it queued last, then the close, in the time a
                    // handshake gets.
                    let last = async {
                        if write_out(&mut ws, &out, stall).await {
                            let _ = ws.close(None).await;
                        }
                    };
                    let _ = tokio::time::timeout(config.handshake_timeout, last).await;
                    return;
                }
                // The write first: a write the socket takes at once is never lost to a
                // kick that came meanwhile; one the socket holds up is abandoned when
                // the server lets go (a client too slow to read), or, with a
                // heartbeat, once the socket took nothing for an interval (the client
                // does not read, or is gone: its pongs would wait unread meanwhile).
                let written = tokio::select! {
                    biased;
                    ok = write_out(&mut ws, &out, stall) => ok,
                    () = outbox.closed() => false,
                };
                if !written {
                    return;
                }
            }
        }
    }
}

/// The sub-protocol a server that speaks `supported` answers a client's handshake
/// with, as Godot's: the first of those the client `offered` (its
/// `Sec-WebSocket-Protocol` headers, each a comma-separated list) that the server
/// speaks. `Err` when the handshake is turned away: the client offers protocols and
/// none is spoken here, or offers none and the server asks for one.
fn choose_subprotocol(
    offered: &[&str],
    supported: &[&'static str],
) -> std::result::Result<Option<&'static str>, ()> {
    if offered.is_empty() {
        return if supported.is_empty() {
            Ok(None)
        } else {
            Err(())
        };
    }
    offered
        .iter()
        .flat_map(|line| line.split(','))
        .find_map(|p| supported.iter().find(|s| **s == p.trim()).copied())
        .map(Some)
        .ok_or(())
}

/// The next of `pings`; never without a heartbeat.
async fn next_ping(pings: &mut Option<tokio::time::Interval>) {
    match pings {
        Some(pings) => drop(pings.tick().await),
        None => std::future::pending().await,
    }
}

/// What `f` gives, when it comes within `stall` (any time without).
async fn within<T>(stall: Option<Duration>, f: impl std::future::Future<Output = T>) -> Option<T> {
    match stall {
        None => Some(f.await),
        Some(stall) => tokio::time::timeout(stall, f).await.ok(),
    }
}

/// What `io` gives, when it comes within one interval of `pings` (any time without a
/// heartbeat): a server that takes nothing written to it for an interval is gone, as
/// one silent for one ([`Error::Silent`]).
async fn in_time<T>(
    pings: &Option<tokio::time::Interval>,
    io: impl std::future::Future<Output = Result<T, tokio_tungstenite::tungstenite::Error>>,
) -> Result<T, Error> {
    match within(pings.as_ref().map(tokio::time::Interval::period), io).await {
        Some(done) => Ok(done?),
        None => Err(Error::Silent),
    }
}

/// Whatever tungstenite queued itself (a pong) first, whole; then `out`, every
/// message queued since the last write, in as few writes as the socket takes. With
/// `stall` (a heartbeat's interval), a socket that takes nothing for that long fails
/// it, however much it took before.
async fn write_out<S>(ws: &mut WebSocketStream<S>, out: &[u8], stall: Option<Duration>) -> bool
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    if !matches!(within(stall, ws.flush()).await, Some(Ok(()))) {
        return false;
    }
    let socket = ws.get_mut();
    let mut rest = out;
    while !rest.is_empty() {
        match within(stall, AsyncWriteExt::write(socket, rest)).await {
            Some(Ok(n)) if n > 0 => rest = &rest[n..],
            _ => return false,
        }
    }
    matches!(
        within(stall, AsyncWriteExt::flush(socket)).await,
        Some(Ok(()))
    )
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A SceneMultiplayer client on WebSocket, as `WebSocketMultiplayerPeer.create_client`.
pub struct Client {
    session: Session,
    ws: Socket,
    closed: bool,
    /// A message taken from the session and not yet accepted by the socket: kept
    /// here so that a cancelled `next_event` loses nothing.
    pending: Option<Vec<u8>>,
    /// The largest message the server takes (a Godot server's inbound buffer).
    max_message: usize,
    /// The heartbeat's pings, and whether the server was heard since the last.
    heartbeat: Option<tokio::time::Interval>,
    heard: bool,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session", &self.session)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to a Godot 4 server at `url` (`ws://` or `wss://`) and waits for it
    /// to give this client its id.
    pub async fn connect(url: &str, scene: Scene) -> Result<Client, Error> {
        Client::connect_with(url, scene, Protocol::Godot4).await
    }

    /// [`Client::connect`] to a server of `protocol`'s engine version.
    pub async fn connect_with(
        url: &str,
        scene: Scene,
        protocol: Protocol,
    ) -> Result<Client, Error> {
        let config = Config {
            protocol,
            ..Config::default()
        };
        Client::connect_config(url, scene, config).await
    }

    /// [`Client::connect`] with `config`'s protocol, message size limit,
    /// authentication, sub-protocols, heartbeat, and time to connect
    /// (`handshake_timeout`, [`Error::Timeout`] past it).
    pub async fn connect_config(url: &str, scene: Scene, config: Config) -> Result<Client, Error> {
        tokio::time::timeout(config.handshake_timeout, Client::join(url, scene, config))
            .await
            .unwrap_or(Err(Error::Timeout))
    }

    /// The handshake, then the server's id message.
    async fn join(url: &str, scene: Scene, config: Config) -> Result<Client, Error> {
        let protocol = config.protocol;
        let mut request = url.into_client_request()?;
        if !config.subprotocols.is_empty() {
            let offered = HeaderValue::from_str(&config.subprotocols.join(","))
                .map_err(|e| tokio_tungstenite::tungstenite::Error::HttpFormat(e.into()))?;
            request
                .headers_mut()
                .insert(SEC_WEBSOCKET_PROTOCOL, offered);
        }
        // tungstenite refuses a server that chooses no offered sub-protocol, or one
        // when none was offered, as Godot's client does.
        let (mut ws, _) = tokio_tungstenite::connect_async_with_config(
            request,
            Some(config.client_websocket()),
            true,
        )
        .await?;
        let id = loop {
            let b = match ws.next().await.ok_or(Error::Closed)?? {
                Message::Binary(b) => b.to_vec(),
                Message::Text(t) => t.as_bytes().to_vec(),
                Message::Ping(_) | Message::Pong(_) => continue,
                _ => return Err(Error::InvalidId),
            };
            match protocol {
                Protocol::Godot4 => break read_id_message(&b).ok_or(Error::InvalidId)?,
                Protocol::Godot3 => match WsHeader::split(&b) {
                    Ok((h, body)) if h.kind == WsKind::Id && h.from == SERVER => {
                        break read_id_message(body).ok_or(Error::InvalidId)?
                    }
                    _ => return Err(Error::InvalidId),
                },
            }
        };
        let mut session = Session::client(id, scene).configured(config.protocol, config.auth);
        session.connect(SERVER);
        let heartbeat = config.pings();
        Ok(Client {
            session,
            ws,
            closed: false,
            pending: None,
            max_message: config.max_message,
            heartbeat,
            heard: true,
        })
    }

    /// This client's peer id.
    pub fn id(&self) -> i32 {
        self.session.id()
    }

    /// The protocol state.
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The next event; `None` once the connection is closed (after
    /// `PeerDisconnected(1)`, or `AuthFailed(1)` while authenticating). An error is a
    /// packet the server should never have sent, or a broken connection; the client
    /// is closed then. Cancel-safe: use it in `tokio::select!`.
    pub async fn next_event(&mut self) -> Option<Result<Event, Error>> {
        loop {
            // Once closed, nothing more is sent (a write to a reset connection fails
            // every time): what is left is the events, then `None`.
            if !self.closed {
                if let Err(e) = self.flush().await {
                    self.close_session();
                    return Some(Err(e));
                }
            }
            if let Some(e) = self.session.poll_event() {
                return Some(Ok(e));
            }
            if self.closed {
                return None;
            }
            let next = match &mut self.heartbeat {
                None => self.ws.next().await,
                // What the socket holds is read before the server is judged silent.
                Some(heartbeat) => tokio::select! {
                    biased;
                    next = self.ws.next() => next,
                    _ = heartbeat.tick() => {
                        if !self.heard {
                            self.close_session();
                            return Some(Err(Error::Silent));
                        }
                        // Queued here, written by the flush at the top of the loop.
                        // The server is judged by the next tick once the ping is queued,
                        // not before: a wait cancelled meanwhile sent no ping.
                        let ping = Message::Ping(Default::default());
                        let fed = in_time(&self.heartbeat, self.ws.feed(ping)).await;
                        if let Err(e) = fed {
                            self.close_session();
                            return Some(Err(e));
                        }
                        self.heard = false;
                        continue;
                    }
                },
            };
            self.heard = true;
            let msg = match next {
                Some(Ok(Message::Binary(b))) => b,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                Some(Ok(Message::Close(_))) | None => {
                    self.close_session();
                    continue;
                }
                Some(Ok(_)) => {
                    self.close_session();
                    return Some(Err(Error::Closed));
                }
                Some(Err(e)) => {
                    self.close_session();
                    return Some(Err(e.into()));
                }
            };
            if let Err(e) = self.receive(&msg) {
                self.close_session();
                let _ = self.ws.close(None).await;
                return Some(Err(e.into()));
            }
        }
    }

    fn receive(&mut self, msg: &[u8]) -> crate::Result<()> {
        if self.session.get_protocol() == Protocol::Godot4 {
            return self.session.receive(SERVER, Delivery::default(), msg);
        }
        let (h, body) = WsHeader::split(msg)?;
        let peer = || {
            <[u8; 4]>::try_from(body)
                .map(i32::from_le_bytes)
                .map_err(|_| crate::Error::at(crate::ErrorKind::Truncated("the peer id"), 9))
        };
        match h.kind {
            WsKind::Payload => self
                .session
                .receive(h.from, Delivery::default(), body)
                .map_err(|e| e.shifted(WsHeader::SIZE)),
            WsKind::AddPeer => {
                self.session.connect(peer()?);
                Ok(())
            }
            WsKind::DelPeer => {
                self.session.disconnect(peer()?);
                Ok(())
            }
            WsKind::Id => Err(crate::Error::at(
                crate::ErrorKind::Unexpected("a second id message"),
                0,
            )),
        }
    }

    fn close_session(&mut self) {
        self.closed = true;
        self.session.disconnect(SERVER);
    }

    /// Calls `method` of `node` on `target` (1 for the server; other clients go
    /// through the server's relay).
    pub async fn rpc<A: Serialize + ?Sized>(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: &A,
    ) -> Result<(), Error> {
        self.session.rpc(target, node, method, args)?;
        self.flush().await
    }

    /// [`Client::rpc`] with the arguments as Variants.
    pub async fn call(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: Vec<Variant>,
    ) -> Result<(), Error> {
        self.session
            .call(target, node, method, args, Delivery::default())?;
        self.flush().await
    }

    /// Sends auth data to the server while authenticating ([`Session::send_auth`]).
    pub async fn send_auth(&mut self, data: &[u8]) -> Result<(), Error> {
        self.session.send_auth(SERVER, data)?;
        self.flush().await
    }

    /// Completes this side's authentication ([`Session::complete_auth`]).
    pub async fn complete_auth(&mut self) -> Result<(), Error> {
        self.session.complete_auth(SERVER)?;
        self.flush().await
    }

    /// Closes the connection.
    pub async fn close(mut self) -> Result<(), Error> {
        self.flush().await?;
        self.ws.close(None).await?;
        Ok(())
    }

    /// Sends what the session queued. Cancel-safe: a message leaves `pending` only
    /// once the socket has taken it.
    async fn flush(&mut self) -> Result<(), Error> {
        loop {
            if self.pending.is_none() {
                let Some(t) = self.session.poll_transmit() else {
                    break;
                };
                let bytes = match self.session.get_protocol() {
                    Protocol::Godot4 => t.bytes,
                    Protocol::Godot3 => WsHeader {
                        kind: WsKind::Payload,
                        from: self.session.id(),
                        to: t.to,
                    }
                    .wrap(&t.bytes),
                };
                // The server would close the connection over it: not sent.
                if bytes.len() > self.max_message {
                    return Err(Error::TooLarge(bytes.len(), self.max_message));
                }
                self.pending = Some(bytes);
            }
            let ready = std::future::poll_fn(|cx| self.ws.poll_ready_unpin(cx));
            in_time(&self.heartbeat, ready).await?;
            let bytes = self.pending.take().expect("set above");
            self.ws.start_send_unpin(Message::binary(bytes))?;
        }
        in_time(&self.heartbeat, self.ws.flush()).await
    }
}
