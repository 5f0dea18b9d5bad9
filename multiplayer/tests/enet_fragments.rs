//! Hostile fragments against `enet::Server`. ENet zeroes a bitmap of a bit per
//! fragment that a packet's first fragment announces (up to 128 KiB), so a 60-byte
//! datagram announcing a million one-byte fragments would make the server hold 2,000
//! times its size, 32 times per peer under ENet's own limit on a peer's waiting data;
//! an ENet sender's fragments are 544 bytes at least, and anything finer is dropped.
//! Packets started and never finished are bounded by `Config::max_waiting` a peer.
//! Alone in its binary: it measures the process's resident memory.
#![cfg(all(feature = "enet", target_os = "linux"))]

use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use godot_bin_multiplayer::enet::rusty_enet::{
    self as renet, Compressor, Host, HostSettings, PacketReceived, RangeCoder, Socket,
    SocketOptions, MTU_MAX,
};
use godot_bin_multiplayer::enet::{Client, Config, Server};
use godot_bin_multiplayer::{Event, Scene, Target};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

fn scene() -> Scene {
    Scene::new().node("Game", ["hello"])
}

fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// A UDP socket that remembers the peer header of the last datagram it sent: after
/// the handshake, the id and session the server gave this peer.
struct Recording {
    socket: UdpSocket,
    header: Arc<Mutex<[u8; 2]>>,
}

impl Socket for Recording {
    type Address = SocketAddr;
    type Error = std::io::Error;

    fn init(&mut self, options: SocketOptions) -> std::io::Result<()> {
        Socket::init(&mut self.socket, options)
    }

    fn send(&mut self, to: SocketAddr, buffer: &[u8]) -> std::io::Result<usize> {
        *self.header.lock().unwrap() = [buffer[0], buffer[1]];
        Socket::send(&mut self.socket, to, buffer)
    }

    fn receive(
        &mut self,
        buffer: &mut [u8; MTU_MAX],
    ) -> std::io::Result<Option<(SocketAddr, PacketReceived)>> {
        Socket::receive(&mut self.socket, buffer)
    }
}

/// A connected bare ENet peer with Godot id `id`: its host (kept, so the server does
/// not see it leave), a second handle on its socket, and its peer header.
fn join(server: SocketAddr, id: u32) -> (Host<Recording>, UdpSocket, [u8; 2]) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let forger = socket.try_clone().unwrap();
    let header = Arc::new(Mutex::new([0; 2]));
    let recording = Recording {
        socket,
        header: header.clone(),
    };
    let mut host = Host::new(recording, HostSettings::default()).unwrap();
    host.connect(server, 255, id).unwrap();
    let start = Instant::now();
    let mut connected = None;
    while start.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(renet::Event::Connect { .. })) = host.service() {
            connected.get_or_insert_with(Instant::now);
        }
        // Long enough for an acknowledgement under the id the server gave.
        if connected.is_some_and(|t| t.elapsed() > Duration::from_millis(300)) {
            let h = *header.lock().unwrap();
            assert_ne!(u16::from_be_bytes(h) & 0x0FFF, 0x0FFF, "no id yet");
            return (host, forger, h);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("peer {id} did not connect");
}

/// A fragment of reliable packet `seq` on channel 0, `count` fragments in `total`
/// bytes: one byte of it, at `offset`.
fn fragment(header: [u8; 2], seq: u16, count: u32, total: u32, offset: u32) -> Vec<u8> {
    // Peer header with the sent-time flag (so the command is acknowledged), the time.
    let mut d = vec![header[0] & 0x3F | 0x80, header[1], 0, 1];
    d.extend([0x88, 0]); // SEND_FRAGMENT, acknowledge; channel 0
    d.extend(seq.to_be_bytes()); // reliable sequence number
    d.extend(seq.to_be_bytes()); // start sequence number
    d.extend(1u16.to_be_bytes()); // data length
    d.extend(count.to_be_bytes());
    d.extend(0u32.to_be_bytes()); // fragment number
    d.extend(total.to_be_bytes());
    d.extend(offset.to_be_bytes());
    d.push(0);
    d
}

/// The same datagram range-coded, as Godot 3 sends them.
fn range_coded(datagram: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; MTU_MAX];
    let n = RangeCoder::new().compress(&[&datagram[4..]], datagram.len() - 4, &mut out);
    assert!(n > 0);
    let mut d = datagram[..4].to_vec();
    d[0] |= 0x40;
    d.extend_from_slice(&out[..n]);
    d
}

/// A server with `config`, serving on its own: its address, and its events.
fn serve(config: Config) -> (SocketAddr, UnboundedReceiver<Event>, JoinHandle<()>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let serving = tokio::spawn(async move {
        let mut server = Server::bind_with("127.0.0.1:0", scene(), config)
            .await
            .unwrap();
        addr_tx.send(server.local_addr()).unwrap();
        while let Some(e) = server.next_event().await {
            let _ = tx.send(e);
        }
    });
    (addr_rx.recv().unwrap(), rx, serving)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_fragments_cost_the_server_little() {
    // Forged counts, against ENet's own limit on waiting data (32 MiB a peer): 32
    // packets of a million one-byte fragments from each of 8 peers (every other
    // one range-coded), 32 MiB of bitmaps if they were taken, in 15 KiB of datagrams.
    let config = Config {
        max_waiting: 32 << 20,
        ..Config::default()
    };
    let (addr, _events, serving) = serve(config);
    let forged = tokio::task::spawn_blocking(move || {
        let peers: Vec<_> = (0..8).map(|i| join(addr, 100 + i)).collect();
        std::thread::sleep(Duration::from_millis(300));
        let before = rss();
        for (i, (_, socket, header)) in peers.iter().enumerate() {
            for seq in 1..=32 {
                let d = fragment(*header, seq, 1 << 20, 1 << 20, 0);
                let d = if i % 2 == 0 { d } else { range_coded(&d) };
                socket.send_to(&d, addr).unwrap();
            }
        }
        std::thread::sleep(Duration::from_millis(500));
        rss().saturating_sub(before)
    })
    .await
    .unwrap();
    serving.abort();
    let _ = serving.await;

    // Plausible fragments of packets never finished: 512 packets of 8 KiB, each
    // started with a byte in its second page, from each of 4 peers (16 MiB at ENet's
    // limit); with `max_waiting` at 1 MiB, each peer's stop at that.
    let config = Config {
        max_waiting: 1 << 20,
        ..Config::default()
    };
    let (addr, mut events, serving) = serve(config);
    let (peers, unfinished) = tokio::task::spawn_blocking(move || {
        let peers: Vec<_> = (0..4).map(|i| join(addr, 100 + i)).collect();
        std::thread::sleep(Duration::from_millis(300));
        let before = rss();
        for (_, socket, header) in &peers {
            for seq in 1..=512 {
                let d = fragment(*header, seq, 2, 8192, 4096);
                socket.send_to(&d, addr).unwrap();
                // The kernel's receive buffer holds only so many.
                if seq % 64 == 0 {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(500));
        (peers, rss().saturating_sub(before))
    })
    .await
    .unwrap();
    eprintln!("grown: {forged} bytes (forged counts), {unfinished} (unfinished packets)");
    assert!(
        forged < 2 << 20,
        "the server's memory grew by {forged} bytes for 15 KiB of datagrams"
    );
    assert!(
        unfinished < 8 << 20,
        "the server's memory grew by {unfinished} bytes for 4 peers' unfinished packets"
    );

    // An honest packet in 97 fragments from a crate client still arrives whole.
    let mut client = Client::connect(addr, 4242, scene(), Config::default())
        .await
        .unwrap();
    let big = serde_bytes::ByteBuf::from(vec![7u8; 128 << 10]);
    client
        .rpc(Target::Peer(1), "Game", "hello", &(big.clone(),))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let call = loop {
        let e = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .unwrap_or_else(|_| panic!("no call; saw {seen:?}"))
            .unwrap();
        if let Event::Call(call) = e {
            break call;
        }
        seen.push(e);
    };
    assert_eq!(call.from, 4242);
    assert_eq!(call.args::<(serde_bytes::ByteBuf,)>().unwrap().0, big);
    let joined = [100, 101, 102, 103, 4242].map(Event::PeerConnected);
    assert!(joined.iter().all(|e| seen.contains(e)), "{seen:?}");
    drop(peers);
    serving.abort();
}
