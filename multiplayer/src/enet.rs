//! Godot's ENet multiplayer peers: a server that Godot clients join and a client that
//! joins a Godot server (feature `enet`), on `rusty_enet` (ENet 1.3, the wire
//! protocol of the system ENet 1.3.18 the Debian engines link and of the copy
//! official builds bundle).
//!
//! A client picks its own peer id and sends it as the ENet connect data; the server
//! refuses ids below 2 or in use. Godot 4 (`ENetMultiplayerPeer`): channel 0
//! reliable, 1 unreliable, `@rpc` channel N on ENet channel N+1, payloads are bare
//! SceneMultiplayer packets. Godot 3 (`NetworkedMultiplayerENet`,
//! [`Config::protocol`] [`Protocol::Godot3`]): channel 0 carries the server's peer
//! notices (`[0 add | 1 remove u32][id u32]`), 1 reliable, 2 unreliable; every
//! payload starts with `[source u32][target u32]`, and the server relays by target.
//! Godot 3.6 range-codes its datagrams: this side decodes range-coded datagrams and
//! never compresses its own, which both engines accept. Datagrams that would cost
//! the host more than their size are dropped before ENet reads them ([`Guarded`],
//! [`DecodeOnly`]), and [`Config`] sets ENet's limits on a peer's packets.
//!
//! The ENet host runs on a thread of its own (ENet wants to be serviced every
//! millisecond or so); the API is async, for tokio.
//!
//! ```no_run
//! # async fn run() -> Result<(), godot_bin_multiplayer::enet::Error> {
//! use godot_bin_multiplayer::{enet::Server, Event, Scene, Target};
//!
//! let scene = Scene::new().node("Game", ["chat", "welcome"]);
//! let mut server = Server::bind("127.0.0.1:7777", scene).await?;
//! while let Some(event) = server.next_event().await {
//!     if let Event::PeerConnected(id) = event {
//!         server.rpc(Target::Peer(id), "Game", "welcome", &(id,))?;
//!     }
//! }
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::auth_clock::AuthClock;
use crate::enet_queue::{Counted, Waiting};
use crate::godot3;
use crate::mailbox;
use crate::replication::Spawn;
use crate::scene4::Packet;
use crate::send_queue::Limits;
use crate::session::{Delivery, Event, Mode, Protocol, Scene, Session, Target, SERVER};
use crate::wire::{enet3_payload, split_enet3_payload, Enet3Notice};
use godot_bin::Variant;
use rusty_enet as enet;
use serde::Serialize;

/// What can go wrong on an ENet transport.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The socket.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A packet that could not be built, or one the peer sent that no Godot peer
    /// sends.
    #[error(transparent)]
    Packet(#[from] crate::Error),
    /// Call arguments that did not deserialize into the type asked for.
    #[error("the arguments: {0}")]
    Args(#[from] godot_bin::Error),
    /// The ENet host could not be created, or has stopped.
    #[error("the ENet host: {0}")]
    Host(String),
    /// The server did not accept the connection in time.
    #[error("no connection to the server")]
    ConnectFailed,
    /// The server did not keep up with what this client sent ([`Config::send_queue`]);
    /// the client disconnected.
    #[error("the server does not keep up: the send queue is full")]
    SendQueueFull,
    /// A packet larger than this side's `max_packet` ([`Config::max_packet`]), which
    /// ENet refuses to send: not sent.
    #[error("a {0}-byte packet exceeds the {1}-byte packet limit")]
    TooLarge(usize, usize),
    /// A packet for an ENet channel the peer did not open (it opened the second
    /// number of them; an `@rpc` channel is one more in Godot 4): not sent to it.
    #[error("ENet channel {0} is not open: the peer has {1} channels")]
    NoChannel(u8, usize),
}

/// Limits of a [`Server`] or [`Client`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
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
    /// Clients at once (ENet's own limit is 4095).
    pub max_clients: usize,
    /// Events the ENet host queues for the application and it has not yet taken
    /// (it takes all queued at once) before the host waits for it. Waiting, it
    /// services no peer (no acknowledgements, no pings): peers time out should the
    /// application stay away past their `peer_timeout`.
    pub queue: usize,
    /// Bytes of received packets the ENet host queues for the application and it
    /// has not yet taken before it waits for it, as `queue` (64 MiB by default): an
    /// application that lags holds at most about twice this, and two packets more,
    /// whatever its peers send.
    pub queue_bytes: usize,
    /// Time a client waits for the server to accept it (zero: none at all). It
    /// gives up sooner when ENet does (`peer_timeout`): nothing answers, or the
    /// server turns it away.
    pub connect_timeout: Duration,
    /// Channels a client may open on the server (ENet's channel limit; 255, the most
    /// ENet allows, as Godot 4's server allows by default; Godot 3's allows its
    /// `channel_count`, 3 by default). ENet holds up to 28,672
    /// reliable commands a channel that arrive ahead of their turn, and inserts each
    /// by a scan of those held: set it to what the game uses (Godot 4: 2, and one
    /// more for each `@rpc` channel above 0; Godot 3: 3) to bound what a peer can
    /// make the server hold and scan. A client that asks for more gets this many.
    pub max_channels: usize,
    /// The largest packet a peer may send, and this side may (ENet's maximum packet
    /// size, by default ENet's own 32 MiB). A peer that sends a larger one is not
    /// heard: ENet drops its fragments unacknowledged, and the peer times out; a
    /// larger one queued here is not sent ([`Error::TooLarge`]).
    pub max_packet: usize,
    /// How much of one peer's packets ENet holds while it puts them back together or
    /// waits for one before them (ENet's maximum waiting data, by default ENet's own
    /// 32 MiB): a peer's next packet is taken only below this, so it holds less than
    /// this plus `max_packet`. ENet allocates a packet's whole length when its first
    /// fragment arrives, so a peer that starts packets and never finishes them can
    /// make the server hold about this much (1 MiB: 4.2 MB for four such peers in
    /// `enet_fragments.rs`, against 17.2 MB at 32 MiB). Lower it with care: ENet
    /// never gives back the share of an unreliable packet it drops unfinished (one of
    /// its fragments lost), so on a lossy link a long session fills this up, and the
    /// peer's packets are then refused until it times out. ENet refuses 0 for
    /// either limit (`Error::Host`).
    pub max_waiting: usize,
    /// Packets that may wait for a peer, queued or sent and not yet acknowledged,
    /// before it counts as too slow and is dropped (a server's client: `Event::Refused`
    /// "its send queue is full"; a client's server: [`Error::SendQueueFull`]). ENet
    /// keeps what a peer does not acknowledge until it gives the peer up (5 to 30 s).
    /// A newcomer is told of every other client at once (a packet each), so keep it
    /// well above `max_clients`: by default 8192.
    pub send_queue: usize,
    /// Bytes of packets that may wait for a peer, as `send_queue` counts them, before
    /// it is dropped; one packet always fits. By default 1 MiB: every peer gets its
    /// own copy of what is sent to all.
    pub send_queue_bytes: usize,
    /// When ENet gives a peer up that stopped answering (Godot's
    /// `ENetPacketPeer.set_timeout`): by default ENet's own, 5 to 30 s.
    pub peer_timeout: PeerTimeout,
}

/// When ENet gives a silent peer up: once something it sent stays unacknowledged for
/// `limit` round trip times, but not before `minimum`; and after `maximum` in any
/// case (ENet's `enet_peer_timeout`, Godot's `set_timeout(limit, min, max)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerTimeout {
    /// Round trip times.
    pub limit: u32,
    /// At least this long.
    pub minimum: Duration,
    /// At most this long.
    pub maximum: Duration,
}

impl Default for PeerTimeout {
    /// ENet's: 32 round trips, 5 to 30 s.
    fn default() -> Self {
        PeerTimeout {
            limit: 32,
            minimum: Duration::from_secs(5),
            maximum: Duration::from_secs(30),
        }
    }
}

impl PeerTimeout {
    fn apply<S: enet::Socket>(self, peer: &mut enet::Peer<S>) {
        // ENet takes milliseconds, and 0 for its default.
        let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX).max(1);
        peer.set_timeout(self.limit.max(1), ms(self.minimum), ms(self.maximum));
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            protocol: Protocol::Godot4,
            auth: false,
            auth_timeout: Duration::from_secs(3),
            max_clients: 4095,
            queue: 4096,
            queue_bytes: 64 << 20,
            connect_timeout: Duration::from_secs(10),
            max_channels: 255,
            max_packet: 32 << 20,
            max_waiting: 32 << 20,
            send_queue: 8192,
            send_queue_bytes: 1 << 20,
            peer_timeout: PeerTimeout::default(),
        }
    }
}

impl Config {
    fn limits(&self) -> Limits {
        Limits {
            messages: self.send_queue,
            bytes: self.send_queue_bytes,
        }
    }
}

/// The ENet crate underneath, for [`Guarded`]'s `Socket` trait.
pub use rusty_enet;

/// A `rusty_enet` socket that drops datagrams no ENet peer sends, which would cost
/// the host more than their size: the servers and clients here use it (with
/// [`DecodeOnly`], which screens range-coded datagrams the same way); wrap your own
/// sockets in it too. It reads datagrams as a host without a checksum does (ENet's
/// default and Godot's): with one, the commands start 4 bytes further on.
///
/// - Shorter than the ENet header they announce (2 bytes, 4 with the sent-time flag,
///   bit 15). rusty_enet 0.4.1 takes such a datagram, when it is also flagged
///   range-coded (bit 14), to hold `len - header` bytes, wrapped around, and reads far
///   past it: undefined behaviour a stranger's datagram could trigger (found by the
///   `enet` fuzz target; C ENet computes the same length).
/// - With a fragment that announces more fragments than an ENet sender cuts its
///   packet into (one per 544 bytes announced: its MTU, 576 bytes at least, less 32
///   of headers and checksum). ENet zeroes a bitmap of a bit per fragment when a
///   packet's first one arrives: a 60-byte datagram announcing a million fragments
///   of a byte would make the host hold 128 KiB, and a peer could send 32 of them
///   before ENet's limit on waiting data stops it.
#[derive(Debug)]
pub struct Guarded<S>(pub S);

impl<S: enet::Socket> enet::Socket for Guarded<S> {
    type Address = S::Address;
    type Error = S::Error;

    fn init(&mut self, options: enet::SocketOptions) -> Result<(), S::Error> {
        self.0.init(options)
    }

    fn send(&mut self, address: S::Address, buffer: &[u8]) -> Result<usize, S::Error> {
        self.0.send(address, buffer)
    }

    fn receive(
        &mut self,
        buffer: &mut [u8; enet::MTU_MAX],
    ) -> Result<Option<(S::Address, enet::PacketReceived)>, S::Error> {
        for _ in 0..REFUSED_AT_ONCE {
            match self.0.receive(buffer)? {
                Some((_, enet::PacketReceived::Complete(n))) if !admitted(&buffer[..n]) => {}
                other => return Ok(other),
            }
        }
        // A flood of refused datagrams does not keep the host from its peers: none
        // now, and the next service reads on.
        Ok(None)
    }
}

/// Datagrams refused in one read of [`Guarded`] before it says none came.
const REFUSED_AT_ONCE: usize = 1024;

/// Whether an ENet datagram is at least as long as the header it announces, and its
/// fragments, unless range-coded (which [`DecodeOnly`] screens), are plausible.
fn admitted(datagram: &[u8]) -> bool {
    match datagram {
        [hi, _, ..] => {
            let header = if hi & 0x80 != 0 { 4 } else { 2 };
            match datagram.get(header..) {
                None => false,
                Some(_) if hi & 0x40 != 0 => true,
                Some(commands) => plausible_fragments(commands),
            }
        }
        _ => true,
    }
}

/// The fewest bytes an ENet sender puts in a fragment that is not a packet's last:
/// the smallest MTU (576) less the datagram header (4), the fragment command (24)
/// and a checksum (4).
const MIN_FRAGMENT: u32 = 576 - 4 - 24 - 4;

/// Whether each fragment command among an ENet datagram's `commands` (what follows
/// its header, uncompressed) announces at most as many fragments as an ENet sender
/// cuts a packet of the announced length into: one per [`MIN_FRAGMENT`] bytes. The
/// commands are walked as ENet walks them, up to the first that does not fit.
fn plausible_fragments(commands: &[u8]) -> bool {
    let mut rest = commands;
    while let [command, ..] = *rest {
        // ENet's command sizes, and where a payload's length is in the command.
        let (size, payload_at) = match command & 0x0F {
            1 | 4 => (8, None),      // acknowledge, disconnect
            2 => (48, None),         // connect
            3 => (44, None),         // verify connect
            5 => (4, None),          // ping
            6 => (6, Some(4)),       // reliable
            7 | 9 => (8, Some(6)),   // unreliable, unsequenced
            8 | 12 => (24, Some(6)), // fragment, unreliable fragment
            10 => (12, None),        // bandwidth limit
            11 => (16, None),        // throttle configure
            _ => return true,        // ENet stops here
        };
        let Some(fixed) = rest.get(..size) else {
            return true;
        };
        if size == 24 {
            let word = |at: usize| {
                u32::from_be_bytes([fixed[at], fixed[at + 1], fixed[at + 2], fixed[at + 3]])
            };
            let (count, total) = (word(8), word(16));
            if count > total.div_ceil(MIN_FRAGMENT) {
                return false;
            }
        }
        let payload = payload_at.map_or(0, |at| {
            usize::from(u16::from_be_bytes([fixed[at], fixed[at + 1]]))
        });
        match rest.get(size + payload..) {
            Some(next) => rest = next,
            None => return true,
        }
    }
    true
}

/// A peer's ENet link, as Godot's `ENetPacketPeer.get_statistic` gives it: what ENet
/// measures from acknowledgements and its pings (every 500 ms by default), read
/// every quarter of a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PeerStats {
    /// Mean round trip time (`PEER_ROUND_TRIP_TIME`); ENet starts from 500 ms.
    pub round_trip_time: Duration,
    /// Its variance (`PEER_ROUND_TRIP_TIME_VARIANCE`).
    pub round_trip_time_variance: Duration,
    /// Mean loss of reliable packets, in 65536ths (`PEER_PACKET_LOSS`, on ENet's
    /// `ENET_PEER_PACKET_LOSS_SCALE`).
    pub packet_loss: u32,
    /// Its variance, in 65536ths (`PEER_PACKET_LOSS_VARIANCE`).
    pub packet_loss_variance: u32,
}

impl PeerStats {
    fn of<S: enet::Socket>(peer: &enet::Peer<S>) -> PeerStats {
        PeerStats {
            round_trip_time: peer.round_trip_time(),
            round_trip_time_variance: peer.round_trip_time_variance(),
            packet_loss: peer.packet_loss(),
            packet_loss_variance: peer.packet_loss_variance(),
        }
    }
}

/// How often the host thread reads its peers' links.
const MEASURE_EVERY: Duration = Duration::from_millis(250);

/// What the host thread reports.
enum Net {
    /// A peer in this ENet slot, with what waits for it.
    Connected(usize, Arc<Waiting>, Link),
    Disconnected(usize),
    Received(usize, u8, enet::PacketKind, Vec<u8>),
}

impl mailbox::Weigh for Net {
    fn bytes(&self) -> usize {
        match self {
            Net::Received(.., bytes) => bytes.len(),
            Net::Connected(..) | Net::Disconnected(_) => 0,
        }
    }
}

/// A peer as it connected: its connect data, address and channels opened.
struct Link {
    data: u32,
    addr: Option<SocketAddr>,
    channels: usize,
}

/// What the host thread is told to do, each for the peer whose queue it names: a
/// command for a peer that has left is dropped, not carried out on a newcomer that
/// took its slot meanwhile.
enum Cmd {
    Send(usize, u8, enet::PacketKind, Counted),
    /// Disconnects once what is queued has gone out.
    Disconnect(usize, Arc<Waiting>),
    /// Disconnects at once and lets go of what waits for it.
    DropNow(usize, Arc<Waiting>),
    Reset(usize, Arc<Waiting>),
}

/// An ENet compressor that decodes range-coded datagrams (Godot 3.6 sends them)
/// and never compresses: a compressing host's answers are dropped by Godot 4
/// clients, and Godot 3 accepts uncompressed ones. What the hosts here use.
pub struct DecodeOnly(enet::RangeCoder);

impl Default for DecodeOnly {
    fn default() -> Self {
        DecodeOnly(enet::RangeCoder::new())
    }
}

impl enet::Compressor for DecodeOnly {
    fn compress(&mut self, _: &[&[u8]], _: usize, _: &mut [u8]) -> usize {
        0
    }

    /// The commands, or 0 (ENet drops the datagram) when one of their fragments is
    /// not plausible (see [`Guarded`]).
    fn decompress(&mut self, in_data: &[u8], out: &mut [u8]) -> usize {
        let n = self.0.decompress(in_data, out);
        match out.get(..n) {
            Some(commands) if plausible_fragments(commands) => n,
            _ => 0,
        }
    }
}

struct Host {
    mail: mailbox::App<Net, Cmd>,
    thread: Option<JoinHandle<()>>,
    addr: SocketAddr,
}

impl Drop for Host {
    fn drop(&mut self) {
        // Stops the thread, even one waiting to report.
        self.mail.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Host {
    /// Starts an ENet host on `socket` for `peers` peers of up to `channels` channels
    /// each; with `connect`, it connects to that server with (channels, data) first.
    fn start(
        socket: UdpSocket,
        peers: usize,
        channels: usize,
        config: &Config,
        connect: Option<(SocketAddr, usize, u32)>,
    ) -> Result<Host, Error> {
        let addr = socket.local_addr()?;
        let settings = enet::HostSettings {
            peer_limit: peers,
            channel_limit: channels,
            compressor: Some(Box::new(DecodeOnly::default())),
            ..Default::default()
        };
        fn host_error(e: impl std::fmt::Debug) -> Error {
            Error::Host(format!("{e:?}"))
        }
        let mut host = enet::Host::new(Guarded(socket), settings).map_err(host_error)?;
        host.set_maximum_packet_size(config.max_packet)
            .map_err(host_error)?;
        host.set_maximum_waiting_data(config.max_waiting)
            .map_err(host_error)?;
        let timeout = config.peer_timeout;
        if let Some((to, channels, data)) = connect {
            let server = host.connect(to, channels, data).map_err(host_error)?;
            timeout.apply(server);
        }
        let bound = mailbox::Bound {
            events: config.queue.max(16),
            bytes: config.queue_bytes,
        };
        let (mail, thread_end) = mailbox::pair(bound);
        let batch_bytes = config.queue_bytes;
        let thread = std::thread::Builder::new()
            .name("godot-bin-enet".into())
            .spawn(move || run(host, thread_end, timeout, batch_bytes))?;
        Ok(Host {
            mail,
            thread: Some(thread),
            addr,
        })
    }
}

/// Whether `queue` is that of the peer now in `slot`.
fn current(queues: &[Option<Arc<Waiting>>], slot: usize, queue: &Arc<Waiting>) -> bool {
    matches!(queues.get(slot), Some(Some(q)) if Arc::ptr_eq(q, queue))
}

/// The host thread: services ENet, hands the events over, carries out commands; ends
/// when the application's end of the mailbox is dropped.
fn run(
    mut host: enet::Host<Guarded<UdpSocket>>,
    mail: mailbox::Thread<Net, Cmd>,
    timeout: PeerTimeout,
    batch_bytes: usize,
) {
    let mut commands = Vec::new();
    let mut events = Vec::new();
    // What waits for the peer in each slot, while it is connected.
    let mut queues: Vec<Option<Arc<Waiting>>> = vec![None; host.peer_limit()];
    let mut measured = Instant::now();
    loop {
        if measured.elapsed() >= MEASURE_EVERY {
            measured = Instant::now();
            for (slot, queue) in queues.iter().enumerate() {
                if let Some(queue) = queue {
                    queue.measured(PeerStats::of(host.peer(enet::PeerID(slot))));
                }
            }
        }
        let open = mail.commands(&mut commands);
        for command in commands.drain(..) {
            match command {
                Cmd::Send(slot, channel, kind, bytes) => {
                    let Some(Some(queue)) = queues.get(slot) else {
                        continue;
                    };
                    if bytes.is_for(queue) {
                        let packet = enet::Packet::new(Box::new(bytes), kind);
                        let _ = host.peer_mut(enet::PeerID(slot)).send(channel, &packet);
                    }
                }
                Cmd::Disconnect(slot, queue) => {
                    if current(&queues, slot, &queue) {
                        host.peer_mut(enet::PeerID(slot)).disconnect_later(0);
                    }
                }
                // Neither makes ENet report the peer gone: the application has
                // already let go of it.
                Cmd::DropNow(slot, queue) => {
                    if current(&queues, slot, &queue) {
                        queues[slot] = None;
                        host.peer_mut(enet::PeerID(slot)).disconnect_now(0);
                    }
                }
                Cmd::Reset(slot, queue) => {
                    if current(&queues, slot, &queue) {
                        queues[slot] = None;
                        host.peer_mut(enet::PeerID(slot)).reset();
                    }
                }
            }
        }
        if !open {
            return shut_down(&mut host);
        }
        // What the application queued goes out now, not at the next service.
        host.flush();
        // A bounded batch, in events and bytes, so that a busy host still gets to what
        // the application queued, and hands over no more than it may hold; a socket
        // error (an ICMP echo of a vanished peer) is not its end.
        let mut batched = 0usize;
        for _ in 0..256 {
            if batched >= batch_bytes {
                break;
            }
            let Ok(Some(event)) = host.service() else {
                break;
            };
            events.push(match event {
                enet::Event::Connect { peer, data } => {
                    timeout.apply(peer);
                    let queue = Arc::new(Waiting::default());
                    queue.measured(PeerStats::of(peer));
                    queues[peer.id().0] = Some(queue.clone());
                    let link = Link {
                        data,
                        addr: peer.address(),
                        channels: peer.channel_count(),
                    };
                    Net::Connected(peer.id().0, queue, link)
                }
                enet::Event::Disconnect { peer, .. } => {
                    queues[peer.id().0] = None;
                    Net::Disconnected(peer.id().0)
                }
                enet::Event::Receive {
                    peer,
                    channel_id,
                    packet,
                } => {
                    batched = batched.saturating_add(packet.data().len());
                    Net::Received(
                        peer.id().0,
                        channel_id,
                        packet.kind(),
                        packet.data().to_vec(),
                    )
                }
            });
        }
        let idle = events.is_empty();
        // Waiting here when the application lags stops servicing ENet for every
        // peer (no acknowledgements, no pings): peers' links time out should the
        // application stay away longer than their timeouts.
        if !mail.deliver(&mut events) {
            return shut_down(&mut host);
        }
        if idle {
            std::thread::sleep(Duration::from_micros(250));
        }
    }
}

/// Whether ENet sends a packet of `len` bytes on `channel` to a peer that opened
/// `channels`, from a host whose largest packet is `max_packet`: it refuses it
/// silently otherwise.
fn sendable(len: usize, max_packet: usize, channel: u8, channels: usize) -> Result<(), Error> {
    if len > max_packet {
        return Err(Error::TooLarge(len, max_packet));
    }
    if usize::from(channel) >= channels {
        return Err(Error::NoChannel(channel, channels));
    }
    Ok(())
}

/// The application let go of the host: every peer is told at once (connected or on
/// its way in or out), not left to time out.
fn shut_down(host: &mut enet::Host<Guarded<UdpSocket>>) {
    for p in host.peers_mut() {
        p.disconnect_now(0);
    }
    host.flush();
}

/// A UDP socket with room for bursts: the kernel's default receive buffer (about
/// 200 KiB) overflows under a thousand busy peers, and every datagram dropped there
/// is a reliable packet ENet resends only after a timeout. C ENet asks for 256 KiB;
/// this asks for 4 MiB each way (the kernel caps it at `net.core.rmem_max`).
pub fn bind(addr: impl ToSocketAddrs) -> std::io::Result<UdpSocket> {
    let addr = addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::DGRAM,
        Some(socket2::Protocol::UDP),
    )?;
    socket.set_recv_buffer_size(4 << 20)?;
    socket.set_send_buffer_size(4 << 20)?;
    socket.bind(&addr.into())?;
    Ok(socket.into())
}

/// The ENet channel and packet kind of a packet sent with `delivery`.
fn outgoing(protocol: Protocol, delivery: Delivery) -> (u8, enet::PacketKind) {
    let kind = match delivery.mode {
        Mode::Reliable => enet::PacketKind::Reliable,
        Mode::Unreliable => enet::PacketKind::AlwaysUnreliable { sequenced: false },
        Mode::UnreliableOrdered => enet::PacketKind::AlwaysUnreliable { sequenced: true },
    };
    let system = match (protocol, delivery.mode) {
        (Protocol::Godot4, Mode::Reliable) => 0,
        (Protocol::Godot4, _) => 1,
        (Protocol::Godot3, Mode::Reliable) => 1,
        (Protocol::Godot3, _) => 2,
    };
    let channel = match (protocol, delivery.channel) {
        (_, 0) => system,
        (Protocol::Godot4, c) => c.saturating_add(1),
        (Protocol::Godot3, c) => c,
    };
    (channel, kind)
}

/// The delivery of a packet that came on ENet `channel` as `kind`.
fn incoming(protocol: Protocol, channel: u8, kind: enet::PacketKind) -> Delivery {
    let mode = match kind {
        enet::PacketKind::Reliable => Mode::Reliable,
        enet::PacketKind::Unreliable { sequenced: false }
        | enet::PacketKind::AlwaysUnreliable { sequenced: false } => Mode::Unreliable,
        _ => Mode::UnreliableOrdered,
    };
    let channel = match protocol {
        Protocol::Godot4 if channel >= 2 => channel - 1,
        Protocol::Godot3 if channel >= 3 => channel,
        _ => 0,
    };
    Delivery { mode, channel }
}

/// A SceneMultiplayer server on ENet: peer 1, as a Godot server with
/// `ENetMultiplayerPeer.create_server` (or Godot 3's `NetworkedMultiplayerENet`)
/// would be. See the module docs.
pub struct Server {
    session: Session,
    config: Config,
    host: Host,
    /// ENet peer slot → Godot id, and back.
    ids: HashMap<usize, i32>,
    slots: HashMap<i32, Slot>,
    auth_clock: AuthClock,
    refusing: bool,
}

/// A client's ENet slot, what waits for it there, and its address.
struct Slot {
    slot: usize,
    queue: Arc<Waiting>,
    addr: Option<SocketAddr>,
    /// The ENet channels the peer opened.
    channels: usize,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("session", &self.session)
            .field("addr", &self.host.addr)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Listens on `addr` (UDP) with the default [`Config`].
    pub async fn bind(addr: impl ToSocketAddrs, scene: Scene) -> Result<Server, Error> {
        Server::bind_with(addr, scene, Config::default()).await
    }

    /// Listens on `addr` (UDP).
    pub async fn bind_with(
        addr: impl ToSocketAddrs,
        scene: Scene,
        config: Config,
    ) -> Result<Server, Error> {
        let socket = bind(addr)?;
        let host = Host::start(
            socket,
            config.max_clients,
            config.max_channels,
            &config,
            None,
        )?;
        Ok(Server {
            session: Session::server(scene).configured(config.protocol, config.auth),
            config,
            host,
            ids: HashMap::new(),
            slots: HashMap::new(),
            auth_clock: AuthClock::new(config.auth_timeout),
            refusing: false,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.host.addr
    }

    /// The protocol state.
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Where connected client `peer` connects from (Godot's
    /// `get_peer(id).get_remote_address()` and `get_remote_port()`); `None` for a
    /// peer not connected.
    pub fn peer_addr(&self, peer: i32) -> Option<SocketAddr> {
        self.slots.get(&peer).and_then(|s| s.addr)
    }

    /// Connected client `peer`'s link as last measured (Godot's
    /// `get_peer(id).get_statistic(...)`): its round trip time, for one; `None` for a
    /// peer not connected.
    pub fn peer_stats(&self, peer: i32) -> Option<PeerStats> {
        self.slots.get(&peer).map(|s| s.queue.link())
    }

    /// Turns new clients away, or lets them in again, as Godot's
    /// `MultiplayerPeer.refuse_new_connections` (Godot 3: `refuse_new_connections`
    /// of `NetworkedMultiplayerENet`); connected clients stay. As the engines, a
    /// newcomer is reset once its ENet connection is made: nothing is sent to it, so
    /// its ENet layer thinks it connected until it times out.
    pub fn set_refuse_new_connections(&mut self, refuse: bool) {
        self.refusing = refuse;
    }

    /// Whether new clients are turned away ([`Server::set_refuse_new_connections`]).
    pub fn is_refusing_new_connections(&self) -> bool {
        self.refusing
    }

    /// The next event; `None` only if the ENet host stopped. Cancel-safe.
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.session.poll_event() {
                return Some(e);
            }
            let net = match self.auth_clock.next(&self.session) {
                None => self.host.mail.recv().await?,
                Some(at) => tokio::select! {
                    net = self.host.mail.recv() => net?,
                    () = tokio::time::sleep_until(at) => {
                        for peer in self.auth_clock.expired(&self.session) {
                            self.kick(peer);
                        }
                        continue;
                    }
                },
            };
            match net {
                Net::Connected(slot, queue, link) => self.joined(slot, queue, link),
                Net::Disconnected(slot) => {
                    if let Some(id) = self.ids.remove(&slot) {
                        self.slots.remove(&id);
                        self.left(id);
                    }
                }
                Net::Received(slot, channel, kind, bytes) => {
                    if let Some(&id) = self.ids.get(&slot) {
                        let delivery = incoming(self.config.protocol, channel, kind);
                        let r = match self.config.protocol {
                            Protocol::Godot4 => self.session.receive(id, delivery, &bytes),
                            Protocol::Godot3 => self.receive3(id, channel, delivery, &bytes),
                        };
                        if let Err(e) = r {
                            self.refuse(id, &e.to_string(), false);
                        }
                    }
                }
            }
            // What the session queued in answer (relays, paths confirmed): a packet
            // a peer cannot take is not sent to it, as the engine's is not.
            let _ = self.flush();
        }
    }

    fn joined(&mut self, slot: usize, queue: Arc<Waiting>, link: Link) {
        // The engine resets a client while it refuses newcomers, and one whose id is
        // below 2 or taken.
        let id = link.data as i32;
        if self.refusing || id <= SERVER || self.slots.contains_key(&id) {
            self.host.mail.send(Cmd::Reset(slot, queue));
            return;
        }
        self.ids.insert(slot, id);
        self.slots.insert(
            id,
            Slot {
                slot,
                queue,
                addr: link.addr,
                channels: link.channels,
            },
        );
        self.session.connect(id);
        self.auth_clock.joined(&self.session, id);
        if self.notices3() {
            let others: Vec<i32> = self.slots.keys().copied().filter(|&p| p != id).collect();
            for p in others {
                self.notice(id, Enet3Notice::Add(p));
                self.notice(p, Enet3Notice::Add(id));
            }
        }
    }

    fn left(&mut self, id: i32) {
        self.session.disconnect(id);
        if self.notices3() {
            let others: Vec<i32> = self.slots.keys().copied().collect();
            for p in others {
                self.notice(p, Enet3Notice::Remove(id));
            }
        }
    }

    /// Drops `id` for `reason`: at once, letting go of what waits for it (`now`), or
    /// once that has gone out. The others hear it left.
    fn refuse(&mut self, id: i32, reason: &str, now: bool) {
        if let Some(Slot { slot, queue, .. }) = self.slots.remove(&id) {
            self.ids.remove(&slot);
            self.host.mail.send(if now {
                Cmd::DropNow(slot, queue)
            } else {
                Cmd::Disconnect(slot, queue)
            });
            self.session.refuse(id, reason);
            if self.notices3() {
                let others: Vec<i32> = self.slots.keys().copied().collect();
                for p in others {
                    self.notice(p, Enet3Notice::Remove(id));
                }
            }
        }
    }

    /// Whether clients are told of each other: Godot 3's are by the transport, unless
    /// the relay is off (as `NetworkedMultiplayerENet.server_relay`).
    fn notices3(&self) -> bool {
        self.config.protocol == Protocol::Godot3 && self.session.server_relay()
    }

    /// A Godot 3 peer notice to `to`, on channel 0.
    fn notice(&mut self, to: i32, notice: Enet3Notice) {
        let bytes = notice.encode().to_vec();
        // Channel 0 is always open, and a notice is 8 bytes.
        let _ = self.enet_send(to, 0, enet::PacketKind::Reliable, bytes);
    }

    /// A Godot 3 payload: for the server, relayed, or both, as its target says.
    fn receive3(
        &mut self,
        id: i32,
        channel: u8,
        delivery: Delivery,
        bytes: &[u8],
    ) -> crate::Result<()> {
        if channel == 0 {
            return Err(crate::Error::at(
                crate::ErrorKind::Unexpected("a peer notice from a client"),
                0,
            ));
        }
        let (source, target, packet) = split_enet3_payload(bytes)?;
        if source != id {
            return Err(crate::Error::at(
                crate::ErrorKind::Unexpected("a forged source"),
                0,
            ));
        }
        let here = godot3::names(target, SERVER);
        let relay_on = self.session.server_relay();
        // With the relay off, Godot 3.4 and later take a packet for everyone (or all
        // but a client) as for the server alone, and one for other clients alone
        // reaches no one, its sender kept.
        if !relay_on && !here {
            let e = crate::Error::at(crate::ErrorKind::RelayDisabled, 4);
            return self.session.drop_if_ignored(id, e);
        }
        // Checked before it goes to anyone else, a broadcast too.
        if relay_on && target != SERVER {
            godot3::Packet::decode(packet).map_err(|e| e.shifted(8))?;
        }
        let relay = match relay_on {
            true => self.named(target, id),
            false => Vec::new(),
        };
        let (_, kind) = outgoing(Protocol::Godot3, delivery);
        // A packet a peer cannot take is not relayed to it, as the engine's is not.
        for p in relay {
            let _ = self.enet_send(p, channel, kind, bytes.to_vec());
        }
        if here {
            self.session
                .receive(id, delivery, packet)
                .map_err(|e| e.shifted(8))?;
        }
        Ok(())
    }

    /// Queues `bytes` for `id`; one whose send queue is full is dropped instead.
    fn enet_send(
        &mut self,
        id: i32,
        channel: u8,
        kind: enet::PacketKind,
        bytes: Vec<u8>,
    ) -> Result<(), Error> {
        let Some(&Slot {
            slot,
            ref queue,
            channels,
            ..
        }) = self.slots.get(&id)
        else {
            return Ok(());
        };
        sendable(bytes.len(), self.config.max_packet, channel, channels)?;
        match Counted::new(bytes, queue, self.config.limits()) {
            Some(bytes) => self.host.mail.send(Cmd::Send(slot, channel, kind, bytes)),
            None => self.refuse(id, "its send queue is full", true),
        }
        Ok(())
    }

    /// Hands every queued packet to the ENet host: what this server's own methods do
    /// after queuing; call it after queuing through [`Server::session`] (a
    /// [`Replicator`](crate::Replicator), for one). A packet over `max_packet`, or for
    /// a channel a peer did not open, is not sent (to that peer); the first such
    /// error is returned once the rest went out.
    pub fn flush(&mut self) -> Result<(), Error> {
        let mut result = Ok(());
        while let Some(t) = self.session.poll_transmit() {
            let (channel, kind) = outgoing(self.config.protocol, t.delivery);
            let sent = match self.config.protocol {
                Protocol::Godot4 => self.enet_send(t.to, channel, kind, t.bytes),
                Protocol::Godot3 => {
                    let bytes = enet3_payload(SERVER, t.to, &t.bytes);
                    if t.to > 0 {
                        self.enet_send(t.to, channel, kind, bytes)
                    } else {
                        let mut sent = Ok(());
                        for p in self.named(t.to, SERVER) {
                            let to_p = self.enet_send(p, channel, kind, bytes.clone());
                            sent = sent.and(to_p);
                        }
                        sent
                    }
                }
            };
            result = result.and(sent);
        }
        result
    }

    /// The clients a Godot 3 header's target names (a client, 0 for all, -N for all
    /// but N), but the sender `from`.
    fn named(&self, to: i32, from: i32) -> Vec<i32> {
        match to {
            SERVER => Vec::new(),
            t if t > SERVER => self
                .slots
                .get_key_value(&t)
                .map(|(&p, _)| p)
                .into_iter()
                .collect(),
            t => self
                .slots
                .keys()
                .copied()
                .filter(|&p| p != from && godot3::names(t, p))
                .collect(),
        }
    }

    /// Calls `method` of `node` on `target` with `args` (a tuple), reliably.
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

    /// [`Server::rpc`] with the arguments as Variants and a delivery of choice.
    pub fn call(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: Vec<Variant>,
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.session.call(target, node, method, args, delivery)?;
        self.flush()
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

    /// Disconnects `peer` (the others hear it left).
    pub fn kick(&mut self, peer: i32) {
        if let Some(Slot { slot, queue, .. }) = self.slots.remove(&peer) {
            self.ids.remove(&slot);
            self.host.mail.send(Cmd::Disconnect(slot, queue));
            self.left(peer);
            // The others' notices of it (channel 0, 8 bytes): always sent.
            let _ = self.flush();
        }
    }
}

/// A SceneMultiplayer client on ENet, as `ENetMultiplayerPeer.create_client` (or
/// Godot 3's `NetworkedMultiplayerENet.create_client`).
pub struct Client {
    session: Session,
    protocol: Protocol,
    host: Host,
    slot: usize,
    /// What waits for the server.
    queue: Arc<Waiting>,
    limits: Limits,
    max_packet: usize,
    /// The ENet channels the server opened.
    channels: usize,
    closed: bool,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to the Godot server at `addr` as peer `id` (2..2^31-1, chosen by
    /// the client as Godot's are: at random).
    pub async fn connect(
        addr: SocketAddr,
        id: i32,
        scene: Scene,
        config: Config,
    ) -> Result<Client, Error> {
        if id <= SERVER {
            return Err(Error::Packet(crate::Error::at(
                crate::ErrorKind::UnknownPeer(id),
                0,
            )));
        }
        // A loopback server is reached from loopback, any other from anywhere.
        let local: SocketAddr = match (addr.is_ipv4(), addr.ip().is_loopback()) {
            (true, true) => ([127, 0, 0, 1], 0).into(),
            (true, false) => ([0, 0, 0, 0], 0).into(),
            (false, true) => (std::net::Ipv6Addr::LOCALHOST, 0).into(),
            (false, false) => (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
        };
        let channels = match config.protocol {
            Protocol::Godot4 => 255,
            Protocol::Godot3 => 3,
        };
        let socket = bind(local)?;
        let to_server = Some((addr, channels, id as u32));
        let mut host = Host::start(socket, 1, 255, &config, to_server)?;
        let connected = tokio::time::timeout(config.connect_timeout, async {
            loop {
                match host.mail.recv().await {
                    Some(Net::Connected(slot, queue, link)) => {
                        return Some((slot, queue, link.channels))
                    }
                    // ENet gave up (`peer_timeout`): no answer, or a server that
                    // turned the client away.
                    Some(Net::Disconnected(_)) | None => return None,
                    Some(Net::Received(..)) => continue,
                }
            }
        })
        .await;
        let (slot, queue, channels) = match connected {
            Ok(Some(connected)) => connected,
            _ => return Err(Error::ConnectFailed),
        };
        let mut session = Session::client(id, scene).configured(config.protocol, config.auth);
        session.connect(SERVER);
        Ok(Client {
            session,
            protocol: config.protocol,
            host,
            slot,
            queue,
            limits: config.limits(),
            max_packet: config.max_packet,
            channels,
            closed: false,
        })
    }

    /// The link to the server as last measured (Godot's
    /// `get_peer(1).get_statistic(...)`).
    pub fn stats(&self) -> PeerStats {
        self.queue.link()
    }

    /// This client's peer id.
    pub fn id(&self) -> i32 {
        self.session.id()
    }

    /// The protocol state.
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The next event; `None` once the connection is closed. An error is a packet
    /// the server should never have sent, or [`Error::SendQueueFull`]; the client
    /// disconnects then.
    pub async fn next_event(&mut self) -> Option<Result<Event, Error>> {
        loop {
            if let Err(e) = self.flush() {
                return Some(Err(e));
            }
            if let Some(e) = self.session.poll_event() {
                return Some(Ok(e));
            }
            if self.closed {
                return None;
            }
            match self.host.mail.recv().await {
                Some(Net::Received(_, channel, kind, bytes)) => {
                    if let Err(e) = self.receive(channel, kind, &bytes) {
                        let queue = self.queue.clone();
                        self.host.mail.send(Cmd::Disconnect(self.slot, queue));
                        self.closed = true;
                        self.session.disconnect(SERVER);
                        return Some(Err(e.into()));
                    }
                }
                Some(Net::Connected(..)) => {}
                Some(Net::Disconnected(_)) | None => {
                    self.closed = true;
                    self.session.disconnect(SERVER);
                }
            }
        }
    }

    fn receive(&mut self, channel: u8, kind: enet::PacketKind, bytes: &[u8]) -> crate::Result<()> {
        let delivery = incoming(self.protocol, channel, kind);
        if self.protocol == Protocol::Godot4 {
            return self.session.receive(SERVER, delivery, bytes);
        }
        if channel == 0 {
            match Enet3Notice::decode(bytes)? {
                Enet3Notice::Add(peer) => self.session.connect(peer),
                Enet3Notice::Remove(peer) => self.session.disconnect(peer),
            }
            return Ok(());
        }
        let (source, _, packet) = split_enet3_payload(bytes)?;
        self.session
            .receive(source, delivery, packet)
            .map_err(|e| e.shifted(8))
    }

    /// Hands what the session queued to the ENet host; a full send queue
    /// disconnects at once.
    fn flush(&mut self) -> Result<(), Error> {
        while let Some(t) = self.session.poll_transmit() {
            if self.closed {
                continue;
            }
            let (channel, kind) = outgoing(self.protocol, t.delivery);
            let bytes = match self.protocol {
                Protocol::Godot4 => t.bytes,
                Protocol::Godot3 => enet3_payload(self.session.id(), t.to, &t.bytes),
            };
            sendable(bytes.len(), self.max_packet, channel, self.channels)?;
            let Some(bytes) = Counted::new(bytes, &self.queue, self.limits) else {
                let queue = self.queue.clone();
                self.host.mail.send(Cmd::DropNow(self.slot, queue));
                self.closed = true;
                self.session.disconnect(SERVER);
                return Err(Error::SendQueueFull);
            };
            self.host
                .mail
                .send(Cmd::Send(self.slot, channel, kind, bytes));
        }
        Ok(())
    }

    /// Calls `method` of `node` on `target` (1 for the server; other clients through
    /// the server's relay).
    pub async fn rpc<A: Serialize + ?Sized>(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: &A,
    ) -> Result<(), Error> {
        self.session.rpc(target, node, method, args)?;
        self.flush()
    }

    /// [`Client::rpc`] with the arguments as Variants and a delivery of choice.
    pub async fn call(
        &mut self,
        target: Target,
        node: &str,
        method: &str,
        args: Vec<Variant>,
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.session.call(target, node, method, args, delivery)?;
        self.flush()
    }

    /// Sends auth data to the server while authenticating ([`Session::send_auth`]).
    pub fn send_auth(&mut self, data: &[u8]) -> Result<(), Error> {
        self.session.send_auth(SERVER, data)?;
        self.flush()
    }

    /// Completes this side's authentication ([`Session::complete_auth`]).
    pub fn complete_auth(&mut self) -> Result<(), Error> {
        self.session.complete_auth(SERVER)?;
        self.flush()
    }

    /// Disconnects, after what is queued has gone out.
    pub async fn close(mut self) -> Result<(), Error> {
        self.flush()?;
        if self.closed {
            return Ok(());
        }
        let queue = self.queue.clone();
        self.host.mail.send(Cmd::Disconnect(self.slot, queue));
        // Until the server acknowledges, or a moment passes.
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Some(n) = self.host.mail.recv().await {
                if matches!(n, Net::Disconnected(_)) {
                    break;
                }
            }
        })
        .await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A socket under a flood of datagrams that are all refused.
    struct Flood(usize);

    impl enet::Socket for Flood {
        type Address = SocketAddr;
        type Error = std::io::Error;

        fn send(&mut self, _: SocketAddr, buffer: &[u8]) -> std::io::Result<usize> {
            Ok(buffer.len())
        }

        fn receive(
            &mut self,
            buffer: &mut [u8; enet::MTU_MAX],
        ) -> std::io::Result<Option<(SocketAddr, enet::PacketReceived)>> {
            self.0 += 1;
            // A 4-byte header announced, 2 bytes sent.
            buffer[..2].copy_from_slice(&[0x80, 0]);
            let from = SocketAddr::from(([127, 0, 0, 1], 9));
            Ok(Some((from, enet::PacketReceived::Complete(2))))
        }
    }

    #[test]
    fn a_flood_of_refused_datagrams_ends_a_read() {
        let mut socket = Guarded(Flood(0));
        let mut buffer = [0; enet::MTU_MAX];
        let read = enet::Socket::receive(&mut socket, &mut buffer).unwrap();
        assert!(read.is_none());
        assert_eq!(socket.0 .0, REFUSED_AT_ONCE);
    }

    /// A fragment command: `count` fragments of a `total`-byte packet, with `data`.
    fn fragment(command: u8, count: u32, total: u32, data: &[u8]) -> Vec<u8> {
        let mut c = vec![command, 0, 0, 1, 0, 1];
        c.extend((data.len() as u16).to_be_bytes());
        c.extend(count.to_be_bytes());
        c.extend(0u32.to_be_bytes());
        c.extend(total.to_be_bytes());
        c.extend(0u32.to_be_bytes());
        c.extend(data);
        c
    }

    #[test]
    fn fragments_as_finely_cut_as_an_enet_sender_cuts_them_pass() {
        for command in [0x88, 0x0C] {
            for total in [1u32, 543, 544, 545, 1088, 1089, 50_000, 1 << 20, 32 << 20] {
                let most = total.div_ceil(MIN_FRAGMENT);
                assert!(plausible_fragments(&fragment(command, most, total, b"x")));
                assert!(!plausible_fragments(&fragment(
                    command,
                    most + 1,
                    total,
                    b"x"
                )));
            }
            // What a host with the smallest MTU sends: 544-byte fragments.
            assert!(plausible_fragments(&fragment(command, 2, 1088, &[7; 544])));
        }
    }

    #[test]
    fn every_command_is_walked_as_enet_walks_them() {
        let forged = fragment(0x88, 1 << 20, 1 << 20, b"x");
        let mut ahead = Vec::new();
        ahead.extend([0x81, 0, 0, 0, 0, 0, 0, 0]); // acknowledge
        ahead.extend([0x85, 0xFF, 0, 2]); // ping
        ahead.extend([0x86, 0, 0, 3, 0, 3, 1, 2, 3]); // reliable, 3 bytes
        ahead.extend([0x07, 1, 0, 0, 0, 9, 0, 1, 4]); // unreliable, 1 byte
        ahead.extend([0x09, 1, 0, 0, 0, 9, 0, 0]); // unsequenced, empty
        ahead.extend([0x8A, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0]); // bandwidth limit
        ahead.extend([0x8B, 0, 0, 5].iter().chain(&[0; 12])); // throttle configure
        assert!(plausible_fragments(&ahead));
        assert!(!plausible_fragments(
            &[ahead.clone(), forged.clone()].concat()
        ));
        // ENet stops at an unknown command and at one cut short, and reads nothing
        // after them.
        for stop in [
            &[0x0D, 0, 0, 0][..],
            &[0x0F, 0, 0, 0],
            &[0x86, 0, 0, 3, 0, 200, 1],
        ] {
            let datagram = [ahead.clone(), stop.to_vec(), forged.clone()].concat();
            assert!(plausible_fragments(&datagram), "{stop:?}");
        }
        assert!(plausible_fragments(&forged[..23]));
        assert!(plausible_fragments(&[]));
    }

    #[test]
    fn datagrams_are_screened_by_their_header() {
        let forged = fragment(0x88, 1 << 20, 1 << 20, b"x");
        let honest = fragment(0x88, 2, 1088, b"x");
        for header in [&[0x00, 0x01][..], &[0x80, 0x01, 0x12, 0x34]] {
            assert!(admitted(&[header, &honest].concat()));
            assert!(!admitted(&[header, &forged].concat()));
            // Range-coded: `DecodeOnly` reads the commands.
            let mut coded = header.to_vec();
            coded[0] |= 0x40;
            assert!(admitted(&[&coded, &forged[..]].concat()));
        }
        assert!(!admitted(&[0x80, 0x01, 0x12]));
        assert!(admitted(&[0x00]));
    }

    #[test]
    fn decode_only_drops_range_coded_forged_fragments() {
        let mut coder = enet::RangeCoder::new();
        let mut out = vec![0u8; enet::MTU_MAX];
        for (commands, plausible) in [
            (fragment(0x88, 2, 1088, b"xyz"), true),
            (fragment(0x88, 1 << 20, 1 << 20, b"x"), false),
        ] {
            let mut coded = vec![0u8; enet::MTU_MAX];
            let n =
                enet::Compressor::compress(&mut coder, &[&commands], commands.len(), &mut coded);
            assert!(n > 0);
            let got =
                enet::Compressor::decompress(&mut DecodeOnly::default(), &coded[..n], &mut out);
            assert_eq!(got, if plausible { commands.len() } else { 0 });
        }
    }
}
