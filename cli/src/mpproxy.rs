//! `godot-bin proxy --transport websocket|enet`: a relay between Godot games and
//! their high-level multiplayer server (`WebSocketMultiplayerPeer` or
//! `ENetMultiplayerPeer`; with `--godot3`, Godot 3's `WebSocketServer` or
//! `NetworkedMultiplayerENet`), printing each packet decoded: the
//! command, the node (resolved through the path cache the relay watched), the
//! method (by name: Godot 3 sends names; for Godot 4 give a node's rpc names with
//! `--rpc Game=chat,move,...`), and the arguments in text form. Messages pass
//! unchanged (over ENet the proxy ends each game's ENet connection and opens one to
//! the server with the same peer id, passing each packet on the same channel with
//! the same delivery). With `--log FILE`, each is also a JSON line:
//! `{"time", "event": "rpc", "session", "dir": "->"|"<-", "hex", "text", "error"}`.
//!
//! ```text
//! $ godot-bin proxy --transport websocket --listen 127.0.0.1:9081 --connect 127.0.0.1:9080 --rpc Game=hello,welcome
//! 02:05:05.337 listening on 127.0.0.1:9081, relaying to 127.0.0.1:9080 (websocket, Godot 4)
//! 02:05:05.339 #1 open
//! 02:05:05.339 #1 <- id 1718700338
//! 02:05:05.339 #1 -> simplify path Game as 1 (checksum d117d38f8ad87dcf9f774752ac384419, rpc names match)
//! 02:05:05.340 #1 -> call Game.hello(42, "hé")
//! 02:05:05.340 #1 <- confirm path 1 (checksum valid)
//! 02:05:05.342 #1 <- call Game.welcome("hi")
//! ```

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use futures_util::{SinkExt, StreamExt};
use godot_bin::{Dialect, Variant};
use godot_bin_multiplayer::godot3::{self, WsHeader, WsKind};
use godot_bin_multiplayer::wire::{split_enet3_payload, Enet3Notice};
use godot_bin_multiplayer::{NodeRef, Packet, RpcNames, SpawnSource, Sys};
use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::http::header::SEC_WEBSOCKET_PROTOCOL;
use tokio_tungstenite::tungstenite::Message;

use crate::args::{ProxyArgs, ProxyTransport};
use crate::traffic::{now_ms, time_of_day, Dir};

/// What one direction of a session has told the other about its nodes: cache id →
/// path. Bounded, as a stranger may send SIMPLIFY_PATHs without end (Godot 4 itself
/// sends a new id each time a node is made again): past [`Paths::MAX_IDS`] ids or
/// [`Paths::MAX_BYTES`] of paths the oldest are forgotten, and a call by one of
/// them shows its id.
#[derive(Default)]
struct Paths {
    ids: HashMap<u32, String>,
    /// The ids in the order they came, each once.
    order: VecDeque<u32>,
    bytes: usize,
}

impl Paths {
    const MAX_IDS: usize = 4096;
    const MAX_BYTES: usize = 1 << 20;

    fn insert(&mut self, id: u32, path: String) {
        self.bytes += path.len();
        match self.ids.insert(id, path) {
            Some(old) => self.bytes -= old.len(),
            None => self.order.push_back(id),
        }
        while self.ids.len() > Self::MAX_IDS || self.bytes > Self::MAX_BYTES {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(path) = self.ids.remove(&oldest) {
                self.bytes -= path.len();
            }
        }
    }

    fn get(&self, id: u32) -> Option<&String> {
        self.ids.get(&id)
    }
}

struct Shared {
    godot3: bool,
    rpc: HashMap<String, RpcNames>,
    log: Option<Mutex<File>>,
    filter: Option<String>,
}

fn shared(a: &ProxyArgs) -> Result<Arc<Shared>> {
    let mut rpc = HashMap::new();
    for spec in &a.rpc {
        let (node, names) = spec
            .split_once('=')
            .with_context(|| format!("--rpc {spec}: expected NODE=name,name,..."))?;
        rpc.insert(
            node.to_owned(),
            RpcNames::new(names.split(',').filter(|n| !n.is_empty())),
        );
    }
    let log = match &a.log {
        Some(p) => Some(Mutex::new(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    Ok(Arc::new(Shared {
        godot3: a.godot3,
        rpc,
        log,
        filter: a.filter.clone(),
    }))
}

pub fn run(a: ProxyArgs) -> Result<ExitCode> {
    let shared = shared(&a)?;
    if a.transport == ProxyTransport::Enet {
        return enet(&a, &shared);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.listen)
            .await
            .with_context(|| format!("cannot listen on {}", a.listen))?;
        let version = if a.godot3 { "Godot 3" } else { "Godot 4" };
        println!(
            "{} listening on {}, relaying to {} (websocket, {version})",
            clock(),
            listener.local_addr()?,
            a.connect
        );
        let mut ended = 0;
        let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel();
        let mut next = 0u64;
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let (tcp, _) = accepted?;
                    next += 1;
                    let (shared, done, id, to) = (shared.clone(), done_tx.clone(), next, a.connect);
                    tokio::spawn(async move {
                        if let Err(e) = session(id, tcp, to, &shared).await {
                            println!("{} #{id} ended: {e:#}", clock());
                        }
                        let _ = done.send(());
                    });
                }
                Some(()) = done_rx.recv() => {
                    ended += 1;
                    if a.max_sessions.is_some_and(|m| ended >= m) {
                        return Ok(ExitCode::SUCCESS);
                    }
                }
            }
        }
    })
}

/// Relays one game's connection, decoding both ways.
async fn session(
    id: u64,
    tcp: tokio::net::TcpStream,
    to: std::net::SocketAddr,
    shared: &Shared,
) -> Result<()> {
    // The game's handshake is read first, so that the server is offered the
    // sub-protocols the game offers (Godot's `supported_protocols`), and the game
    // answered with the one the server chose; tungstenite then reads it again.
    let (head, offered, tcp) = handshake_head(tcp).await?;
    let mut request = format!("ws://{to}").into_client_request()?;
    if let Some(offered) = offered {
        request
            .headers_mut()
            .insert(SEC_WEBSOCKET_PROTOCOL, offered.parse()?);
    }
    let (server, response) = tokio_tungstenite::connect_async(request)
        .await
        .with_context(|| format!("cannot reach {to}"))?;
    let chosen = response.headers().get(SEC_WEBSOCKET_PROTOCOL).cloned();
    // The error is tungstenite's callback type, never made here.
    #[allow(clippy::result_large_err)]
    let answer = move |_: &Request, mut response: Response| {
        if let Some(chosen) = chosen {
            response
                .headers_mut()
                .insert(SEC_WEBSOCKET_PROTOCOL, chosen);
        }
        Ok(response)
    };
    let (read, write) = tcp.into_split();
    let replayed = tokio::io::join(std::io::Cursor::new(head).chain(read), write);
    let client = tokio_tungstenite::accept_hdr_async(replayed, answer).await?;
    println!("{} #{id} open", clock());
    let (mut c_tx, mut c_rx) = client.split();
    let (mut s_tx, mut s_rx) = server.split();
    let mut paths = [Paths::default(), Paths::default()];
    let mut first_from_server = true;
    loop {
        let (dir, msg) = tokio::select! {
            m = c_rx.next() => (Dir::ToServer, m),
            m = s_rx.next() => (Dir::ToClient, m),
        };
        let Some(Ok(msg)) = msg else {
            break;
        };
        if let Message::Binary(b) = &msg {
            let first = dir == Dir::ToClient && std::mem::take(&mut first_from_server);
            let (text, error) = if first && !shared.godot3 {
                match <[u8; 4]>::try_from(&b[..]) {
                    Ok(id) => (Some(format!("id {}", i32::from_le_bytes(id))), None),
                    Err(_) => (None, Some("not a peer id".to_owned())),
                }
            } else {
                match describe(shared, &mut paths[usize::from(dir == Dir::ToClient)], b) {
                    Ok(t) => (Some(t), None),
                    Err(e) => (None, Some(e.to_string())),
                }
            };
            report(shared, id, dir, b, text, error);
        }
        let sent = match dir {
            Dir::ToServer => s_tx.send(msg).await,
            Dir::ToClient => c_tx.send(msg).await,
        };
        if sent.is_err() {
            break;
        }
    }
    let _ = c_tx.close().await;
    let _ = s_tx.close().await;
    println!("{} #{id} closed", clock());
    Ok(())
}

/// The largest WebSocket handshake request taken from a game (Godot's own limit on
/// headers is 4 KiB).
const MAX_HANDSHAKE: usize = 16 << 10;

/// Reads a game's WebSocket handshake request whole (within 10 s and `MAX_HANDSHAKE`
/// bytes); returns what was read, to be replayed, the sub-protocols it offers and
/// the stream.
async fn handshake_head(
    mut tcp: tokio::net::TcpStream,
) -> Result<(Vec<u8>, Option<String>, tokio::net::TcpStream)> {
    let mut head = Vec::with_capacity(1024);
    let read = async {
        loop {
            if let Some(offered) = offered_subprotocols(&head)? {
                return Ok(offered);
            }
            anyhow::ensure!(
                head.len() < MAX_HANDSHAKE,
                "a handshake request over {MAX_HANDSHAKE} bytes"
            );
            if tcp.read_buf(&mut head).await? == 0 {
                anyhow::bail!("the game closed the connection during the handshake");
            }
        }
    };
    let offered = tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .context("no handshake request within 10 s")??;
    Ok((head, offered, tcp))
}

/// The sub-protocols a whole handshake request offers, as it offers them: its
/// `Sec-WebSocket-Protocol` headers' values joined by commas, as one header says
/// them, `Some(None)` without such a header; `None` while the request is not whole.
/// A request that is not HTTP is an error.
fn offered_subprotocols(head: &[u8]) -> Result<Option<Option<String>>> {
    // As many headers as tungstenite reads (a request with more fails there too).
    let mut headers = [httparse::EMPTY_HEADER; 124];
    let mut request = httparse::Request::new(&mut headers);
    if request
        .parse(head)
        .context("not a WebSocket handshake request")?
        .is_partial()
    {
        return Ok(None);
    }
    let values: Vec<String> = request
        .headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("sec-websocket-protocol"))
        .map(|h| String::from_utf8_lossy(h.value).trim().to_owned())
        .collect();
    Ok(Some((!values.is_empty()).then(|| values.join(","))))
}

fn report(
    shared: &Shared,
    id: u64,
    dir: Dir,
    bytes: &[u8],
    text: Option<String>,
    error: Option<String>,
) {
    let shown = text.as_deref().or(error.as_deref()).unwrap_or("");
    if shared
        .filter
        .as_ref()
        .is_some_and(|f| !shown.contains(f.as_str()))
    {
        return;
    }
    match (&text, &error) {
        (Some(t), _) => println!("{} #{id} {} {t}", clock(), dir.arrow()),
        (None, Some(e)) => println!(
            "{} #{id} {} ({} bytes) {e}",
            clock(),
            dir.arrow(),
            bytes.len()
        ),
        _ => {}
    }
    if let Some(log) = &shared.log {
        let line = json!({
            "time": now(),
            "event": "rpc",
            "session": id,
            "dir": dir,
            "hex": hex::encode(bytes),
            "text": text,
            "error": error,
        });
        let mut f = log.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(f, "{line}");
    }
}

/// One message on one line. `paths` is what the sender cached so far.
fn describe(shared: &Shared, paths: &mut Paths, bytes: &[u8]) -> Result<String> {
    if shared.godot3 {
        let (h, body) = WsHeader::split(bytes)?;
        let peer = |b: &[u8]| <[u8; 4]>::try_from(b).map(i32::from_le_bytes).ok();
        return Ok(match h.kind {
            WsKind::Id => format!("id {}", peer(body).unwrap_or(0)),
            WsKind::AddPeer => format!("peer {} joined", peer(body).unwrap_or(0)),
            WsKind::DelPeer => format!("peer {} left", peer(body).unwrap_or(0)),
            WsKind::Payload => format!("[{} to {}] {}", h.from, h.to, describe3(paths, body)?),
        });
    }
    Ok(match Packet::decode(bytes)? {
        Packet::Call(call) => {
            let node = node_name(paths, &call.node);
            let method = shared
                .rpc
                .get(&node)
                .and_then(|n| n.name(call.method))
                .map_or_else(|| format!("#{}", call.method), str::to_owned);
            format!(
                "call {node}.{method}({})",
                args(&call.args, Dialect::Godot4)
            )
        }
        Packet::SimplifyPath { checksum, id, path } => {
            let sum = shared
                .rpc
                .get(&path)
                .map(|n| {
                    if n.checksum() == checksum {
                        ", rpc names match"
                    } else {
                        ", rpc names differ"
                    }
                })
                .unwrap_or("");
            paths.insert(id, path.clone());
            format!("simplify path {path} as {id} (checksum {checksum}{sum})")
        }
        Packet::ConfirmPath { valid, id } => format!(
            "confirm path {id} (checksum {})",
            if valid { "valid" } else { "invalid" }
        ),
        Packet::Raw(b) => format!("raw {}", hex::encode(b)),
        Packet::Spawn(spawn) => {
            let spawner = node_name(paths, &NodeRef::Cached(spawn.spawner));
            let from = match &spawn.source {
                SpawnSource::Scene(i) => format!("scene {i}"),
                SpawnSource::Custom(arg) => format!(
                    "spawn function({})",
                    args(std::slice::from_ref(arg), Dialect::Godot4)
                ),
            };
            format!(
                "spawn {} by {spawner} from {from}, net id {}, synchronizers {:?}: {}",
                spawn.name,
                spawn.net_id,
                spawn.sync_ids,
                args(&spawn.state, Dialect::Godot4)
            )
        }
        Packet::Despawn { net_id } => format!("despawn net id {net_id}"),
        Packet::Sync(sync) => {
            let entries: Vec<String> = sync
                .entries
                .iter()
                .map(|e| {
                    format!(
                        "{} = [{}]",
                        synchronizer(paths, e.net_id),
                        args(&e.state, Dialect::Godot4)
                    )
                })
                .collect();
            format!("sync at {}: {}", sync.time, entries.join("; "))
        }
        Packet::Delta(delta) => {
            let entries: Vec<String> = delta
                .entries
                .iter()
                .map(|e| {
                    format!(
                        "{} (properties {:#b}) = [{}]",
                        synchronizer(paths, e.net_id),
                        e.indexes,
                        args(&e.state, Dialect::Godot4)
                    )
                })
                .collect();
            format!("delta: {}", entries.join("; "))
        }
        Packet::Sys(Sys::AddPeer(p)) => format!("peer {p} joined"),
        Packet::Sys(Sys::DelPeer(p)) => format!("peer {p} left"),
        Packet::Sys(Sys::Auth(b)) => format!("auth {}", hex::encode(b)),
        // The relayed packet's paths are the other client's: not resolved here.
        Packet::Sys(Sys::Relay { peer, packet }) => {
            format!("relay {peer}: {}", hex::encode(packet))
        }
    })
}

/// A Godot 3 ENet payload on `channel` (0: the server's peer notices).
fn describe_enet3(paths: &mut Paths, channel: u8, bytes: &[u8]) -> Result<String> {
    if channel == 0 {
        return Ok(match Enet3Notice::decode(bytes)? {
            Enet3Notice::Add(p) => format!("peer {p} joined"),
            Enet3Notice::Remove(p) => format!("peer {p} left"),
        });
    }
    let (from, to, packet) = split_enet3_payload(bytes)?;
    Ok(format!("[{from} to {to}] {}", describe3(paths, packet)?))
}

/// Relays ENet: one host faces the games, one connects to the server, a peer
/// there for each game here (with its id as the connect data).
fn enet(a: &ProxyArgs, shared: &Shared) -> Result<ExitCode> {
    use godot_bin_multiplayer::enet::rusty_enet as renet;
    use godot_bin_multiplayer::enet::{bind, DecodeOnly, Guarded};
    let host = |addr: std::net::SocketAddr| -> Result<renet::Host<Guarded<std::net::UdpSocket>>> {
        let settings = renet::HostSettings {
            peer_limit: 256,
            channel_limit: 255,
            compressor: Some(Box::new(DecodeOnly::default())),
            ..Default::default()
        };
        renet::Host::new(Guarded(bind(addr)?), settings).map_err(|e| anyhow::anyhow!("{e:?}"))
    };
    let mut front = host(a.listen).with_context(|| format!("cannot listen on {}", a.listen))?;
    let local = if a.connect.is_ipv4() {
        "127.0.0.1:0"
    } else {
        "[::1]:0"
    };
    let mut back = host(local.parse()?)?;
    let version = if a.godot3 { "Godot 3" } else { "Godot 4" };
    println!(
        "{} listening on {}, relaying to {} (enet, {version})",
        clock(),
        front.socket().0.local_addr()?,
        a.connect
    );
    struct Link {
        id: u64,
        back: usize,
        up: bool,
        paths: [Paths; 2],
        /// What the game sent before the server accepted the proxy's connection.
        early: Vec<(u8, renet::PacketKind, Vec<u8>)>,
    }
    // Front peer slot -> its link; back slot -> front slot.
    let mut links: HashMap<usize, Link> = HashMap::new();
    let mut backs: HashMap<usize, usize> = HashMap::new();
    let (mut next, mut ended) = (0u64, 0usize);
    let decode = |link: &mut Link, dir: Dir, channel: u8, data: &[u8]| {
        let paths = &mut link.paths[usize::from(dir == Dir::ToClient)];
        let r = if shared.godot3 {
            describe_enet3(paths, channel, data)
        } else {
            describe(shared, paths, data)
        };
        let (text, error) = match r {
            Ok(t) => (Some(format!("ch{channel} {t}")), None),
            Err(e) => (None, Some(e.to_string())),
        };
        report(shared, link.id, dir, data, text, error);
    };
    loop {
        let mut busy = false;
        for _ in 0..256 {
            let Ok(Some(event)) = front.service() else {
                break;
            };
            busy = true;
            match event {
                renet::Event::Connect { peer, data } => {
                    next += 1;
                    let slot = peer.id().0;
                    let channels = peer.channel_count();
                    match back.connect(a.connect, channels, data) {
                        Ok(b) => {
                            println!("{} #{next} open (peer id {data})", clock());
                            backs.insert(b.id().0, slot);
                            links.insert(
                                slot,
                                Link {
                                    id: next,
                                    back: b.id().0,
                                    up: false,
                                    paths: Default::default(),
                                    early: Vec::new(),
                                },
                            );
                        }
                        Err(_) => peer.reset(),
                    }
                }
                renet::Event::Disconnect { peer, .. } => {
                    if let Some(link) = links.remove(&peer.id().0) {
                        backs.remove(&link.back);
                        back.peer_mut(renet::PeerID(link.back)).disconnect(0);
                        println!("{} #{} closed by the game", clock(), link.id);
                        ended += 1;
                    }
                }
                renet::Event::Receive {
                    peer,
                    channel_id,
                    packet,
                } => {
                    if let Some(link) = links.get_mut(&peer.id().0) {
                        decode(link, Dir::ToServer, channel_id, packet.data());
                        if link.up {
                            let p = renet::Packet::new(packet.data(), packet.kind());
                            let _ = back.peer_mut(renet::PeerID(link.back)).send(channel_id, &p);
                        } else {
                            link.early
                                .push((channel_id, packet.kind(), packet.data().to_vec()));
                        }
                    }
                }
            }
        }
        for _ in 0..256 {
            let Ok(Some(event)) = back.service() else {
                break;
            };
            busy = true;
            match event {
                renet::Event::Connect { peer, .. } => {
                    let Some(link) = backs.get(&peer.id().0).and_then(|f| links.get_mut(f)) else {
                        continue;
                    };
                    link.up = true;
                    for (channel, kind, data) in link.early.drain(..) {
                        let _ = peer.send(channel, &renet::Packet::new(data, kind));
                    }
                }
                renet::Event::Disconnect { peer, .. } => {
                    if let Some(slot) = backs.remove(&peer.id().0) {
                        if let Some(link) = links.remove(&slot) {
                            front.peer_mut(renet::PeerID(slot)).disconnect(0);
                            println!("{} #{} closed by the server", clock(), link.id);
                            ended += 1;
                        }
                    }
                }
                renet::Event::Receive {
                    peer,
                    channel_id,
                    packet,
                } => {
                    let Some(&slot) = backs.get(&peer.id().0) else {
                        continue;
                    };
                    if let Some(link) = links.get_mut(&slot) {
                        decode(link, Dir::ToClient, channel_id, packet.data());
                        let p = renet::Packet::new(packet.data(), packet.kind());
                        let _ = front.peer_mut(renet::PeerID(slot)).send(channel_id, &p);
                    }
                }
            }
        }
        front.flush();
        back.flush();
        if a.max_sessions.is_some_and(|m| ended >= m) {
            return Ok(ExitCode::SUCCESS);
        }
        if !busy {
            std::thread::sleep(std::time::Duration::from_micros(250));
        }
    }
}

fn describe3(paths: &mut Paths, bytes: &[u8]) -> Result<String> {
    Ok(match godot3::Packet::decode(bytes)? {
        godot3::Packet::Call(call) => format!(
            "call {}.{}({})",
            node_name(paths, &call.node),
            call.method,
            args(&call.args, Dialect::Godot3)
        ),
        godot3::Packet::Set {
            node,
            property,
            value,
        } => format!(
            "set {}.{property} = {}",
            node_name(paths, &node),
            args(std::slice::from_ref(&value), Dialect::Godot3)
        ),
        godot3::Packet::SimplifyPath { id, path } => {
            paths.insert(id, path.clone());
            format!("simplify path {path} as {id}")
        }
        godot3::Packet::ConfirmPath(path) => format!("confirm path {path}"),
        godot3::Packet::Raw(b) => format!("raw {}", hex::encode(b)),
    })
}

fn node_name(paths: &Paths, node: &NodeRef) -> String {
    match node {
        NodeRef::Path(p) => p.clone(),
        NodeRef::Cached(id) | NodeRef::CachedWide(id) => paths
            .get(*id)
            .cloned()
            .unwrap_or_else(|| format!("<cache {id}>")),
    }
}

/// A synchronizer by its net id: bit 31 set, the sender's path cache id.
fn synchronizer(paths: &Paths, net_id: u32) -> String {
    match net_id {
        0x8000_0000.. => node_name(paths, &NodeRef::Cached(net_id & 0x7FFF_FFFF)),
        _ => format!("net id {net_id}"),
    }
}

fn args(args: &[Variant], dialect: Dialect) -> String {
    args.iter()
        .map(|a| godot_bin::text::to_string(a, dialect).unwrap_or_else(|e| format!("<{e}>")))
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(", ")
}

fn now() -> f64 {
    now_ms() as f64 / 1000.0
}

fn clock() -> String {
    time_of_day(now_ms())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flood of cache ids keeps the newest within the bounds, and the paths of
    /// the ids kept; a long path takes its share of the bytes.
    #[test]
    fn a_flood_of_cache_ids_keeps_the_newest_within_bounds() {
        let mut p = Paths::default();
        for id in 0..10_000u32 {
            p.insert(id, format!("Game/Node{id}"));
        }
        assert_eq!(p.ids.len(), Paths::MAX_IDS);
        assert_eq!(p.get(9_999).map(String::as_str), Some("Game/Node9999"));
        assert_eq!(
            p.get(10_000 - 4096).map(String::as_str),
            Some("Game/Node5904")
        );
        assert_eq!(p.get(10_000 - 4097), None);
        // An id given again replaces its path.
        p.insert(9_999, "Game/Again".into());
        assert_eq!(p.get(9_999).map(String::as_str), Some("Game/Again"));
        assert_eq!(p.ids.len(), Paths::MAX_IDS);
        let held: usize = p.ids.values().map(String::len).sum();
        assert_eq!(p.bytes, held);
        // Paths of 300 KB: three fit in 1 MiB.
        for id in 0..5u32 {
            p.insert(100_000 + id, "x".repeat(300_000));
        }
        assert!(p.bytes <= Paths::MAX_BYTES, "{}", p.bytes);
        assert!(p.get(100_004).is_some() && p.get(100_001).is_none());
    }

    #[test]
    fn the_sub_protocols_offered_are_read_from_a_whole_request_only() {
        let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:9\r\nSec-WebSocket-Protocol: a, b\r\n\
                       sec-websocket-protocol:c\r\nUpgrade: websocket\r\n\r\n";
        let whole = offered_subprotocols(request.as_bytes()).unwrap();
        assert_eq!(whole, Some(Some("a, b,c".to_owned())));
        // Cut anywhere before its blank line, it is not whole yet.
        for cut in 0..request.len() {
            let part = offered_subprotocols(&request.as_bytes()[..cut]).unwrap();
            assert_eq!(part, None, "cut at {cut}");
        }
        let none = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(offered_subprotocols(none.as_bytes()).unwrap(), Some(None));
        assert!(offered_subprotocols(b"\x16\x03\x01 TLS\r\n\r\n").is_err());
    }
}
