//! Hostile peers against `enet::Server`, with a well-behaved crate client beside
//! them: stray UDP datagrams (the one that made rusty_enet read out of bounds among
//! them) change nothing; an ENet peer with a taken or reserved id is reset; one that
//! sends a malformed packet is dropped, and the good client hears it leave and
//! still gets its call. A bare peer also reads the headers of a Godot 3 server's
//! calls to all.
#![cfg(feature = "enet")]

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use godot_bin_multiplayer::enet::rusty_enet::{self as renet, Host, HostSettings, Packet};
use godot_bin_multiplayer::enet::{Client, Config, Server};
use godot_bin_multiplayer::{Event, Scene, Target};

fn scene() -> Scene {
    Scene::new().node("Game", ["hello"])
}

async fn events_until(server: &mut Server, stop: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut seen = Vec::new();
    let run = async {
        loop {
            let e = server.next_event().await.unwrap();
            let last = stop(&e);
            seen.push(e);
            if last {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .unwrap_or_else(|_| panic!("timed out; saw {seen:?}"));
    seen
}

/// Runs `work` while the server keeps handling its events (it decides on joins
/// there); returns what `work` gave and the events seen meanwhile.
async fn while_serving<T: Send + 'static>(
    server: &mut Server,
    work: impl FnOnce() -> T + Send + 'static,
) -> (T, Vec<Event>) {
    let task = tokio::task::spawn_blocking(work);
    tokio::pin!(task);
    let mut seen = Vec::new();
    loop {
        tokio::select! {
            r = &mut task => return (r.unwrap(), seen),
            e = server.next_event() => seen.push(e.unwrap()),
        }
    }
}

/// A bare ENet peer connecting with `data` as its Godot id; returns its host once
/// connected and not disconnected within a moment.
fn raw_peer(server: SocketAddr, data: u32) -> Option<Host<UdpSocket>> {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut host = Host::new(socket, HostSettings::default()).unwrap();
    host.connect(server, 255, data).unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        match host.service() {
            Ok(Some(renet::Event::Connect { .. })) => {
                // The server may still reset it: give it a moment to say so.
                let settle = Instant::now();
                while settle.elapsed() < Duration::from_millis(300) {
                    if let Ok(Some(renet::Event::Disconnect { .. })) = host.service() {
                        return None;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                return Some(host);
            }
            Ok(Some(renet::Event::Disconnect { .. })) => return None,
            _ => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    None
}

/// A Godot 3 server (its relay on or off), a crate client (4242) joined to it, and a
/// bare ENet peer (777) joined after it.
async fn godot3_server_and_peers(relay: bool) -> (Server, Client, Host<UdpSocket>) {
    let config = Config {
        protocol: godot_bin_multiplayer::Protocol::Godot3,
        ..Config::default()
    };
    let mut server = Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    server.session().set_server_relay(relay);
    let addr = server.local_addr();
    let good = Client::connect(addr, 4242, scene(), config).await.unwrap();
    events_until(&mut server, |_| true).await;
    let (raw, seen) = while_serving(&mut server, move || raw_peer(addr, 777)).await;
    assert_eq!(seen, [Event::PeerConnected(777)]);
    (server, good, raw.expect("777 joins"))
}

/// Sends `bytes` reliably on `channel` from a bare peer, then services it until the
/// server disconnects it: whether it did within 5 s.
fn sends_and_is_disconnected(mut peer: Host<UdpSocket>, channel: u8, bytes: Vec<u8>) -> bool {
    peer.peer_mut(renet::PeerID(0))
        .send(channel, &Packet::reliable(&bytes[..]))
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(renet::Event::Disconnect { .. })) = peer.service() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_enet_peers_are_dropped_and_the_others_carry_on() {
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let addr = server.local_addr();
    let good = tokio::spawn(async move {
        let mut c = Client::connect(addr, 4242, scene(), Config::default())
            .await
            .unwrap();
        let mut seen = Vec::new();
        while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(10), c.next_event()).await
        {
            let e = e.unwrap();
            let last = matches!(&e, Event::Call(call) if call.method == "hello");
            seen.push(e);
            if last {
                break;
            }
        }
        seen
    });
    assert_eq!(
        events_until(&mut server, |_| true).await,
        [Event::PeerConnected(4242)]
    );

    // Stray datagrams: empty, short, a range-coded flag on 3 bytes, garbage.
    let stray = UdpSocket::bind("127.0.0.1:0").unwrap();
    for d in [
        &b""[..],
        b"\x00",
        b"\xc0\x00\x01",
        // Range-coded and shorter than its header, to no peer (0xFFF): what made
        // rusty_enet read out of bounds.
        b"\xcf\xff\x01",
        b"\x40\x00",
        b"\xff\xff\xff\xff\xff\xff\xff\xff",
        &[0x80; 1400],
    ] {
        stray.send_to(d, addr).unwrap();
    }

    // Reserved and taken ids are reset, as the engine does (the peer is not told:
    // it times out), and never reach the application.
    for id in [0, 1, 4242] {
        let ((), seen) = while_serving(&mut server, move || {
            let _ = raw_peer(addr, id);
        })
        .await;
        assert_eq!(seen, [], "id {id}");
    }

    // A peer that sends an unknown command is dropped.
    let (hostile, seen) = while_serving(&mut server, move || raw_peer(addr, 777)).await;
    let hostile = hostile.expect("777 joins");
    assert_eq!(seen, [Event::PeerConnected(777)]);
    let hostile =
        tokio::task::spawn_blocking(move || sends_and_is_disconnected(hostile, 0, vec![8]));
    let seen = events_until(&mut server, |e| *e == Event::PeerDisconnected(777)).await;
    assert!(
        matches!(&seen[0], Event::Refused { peer: 777, .. }),
        "{seen:?}"
    );
    assert!(
        hostile.await.unwrap(),
        "the hostile peer was not disconnected"
    );

    server
        .rpc(Target::Peer(4242), "Game", "hello", &("still here",))
        .unwrap();
    let seen = good.await.unwrap();
    assert!(seen.contains(&Event::PeerConnected(777)), "{seen:?}");
    assert!(seen.contains(&Event::PeerDisconnected(777)), "{seen:?}");
    match seen.last().unwrap() {
        Event::Call(c) => assert_eq!(c.args::<(String,)>().unwrap().0, "still here"),
        e => panic!("{e:?}"),
    }
}

/// Godot 3: a peer's broadcast that is not a valid packet is refused before the server
/// relays it: the other client never sees it, only that its sender left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_broadcast_is_checked_before_it_is_relayed() {
    let (mut server, mut good, bad) = godot3_server_and_peers(true).await;
    // From 777 to everyone (0), on Godot 3's channel for calls: not a packet.
    let garbage = [&777u32.to_le_bytes()[..], &0u32.to_le_bytes(), &[0xFF; 3]].concat();
    let sent = tokio::task::spawn_blocking(move || sends_and_is_disconnected(bad, 1, garbage));
    let seen = events_until(&mut server, |e| *e == Event::PeerDisconnected(777)).await;
    assert!(
        matches!(&seen[0], Event::Refused { peer: 777, .. }),
        "{seen:?}"
    );
    assert!(sent.await.unwrap(), "777 was not disconnected");
    server
        .rpc(Target::Peer(4242), "Game", "hello", &("after",))
        .unwrap();
    let heard = heard_until_call!(good);
    assert!(heard.contains(&Event::PeerDisconnected(777)), "{heard:?}");
}

/// Godot 3 with the relay off (as `NetworkedMultiplayerENet.server_relay = false`, 3.4
/// and later): no client hears of another; a packet for other clients alone (one
/// client, or all but the server) is dropped and its sender kept; a broadcast, and
/// one for all but a client, is taken as for the server alone and relayed to no one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_server_without_the_relay_takes_broadcasts_for_itself() {
    use godot_bin::Variant;
    use godot_bin_multiplayer::{godot3, NodeRef};
    let (mut server, mut good, mut raw) = godot3_server_and_peers(false).await;
    // 777 calls hello(i) by path, for 4242, all but the server, everyone, and all
    // but 4242, on Godot 3's channel for calls.
    let targets = [4242i32, -1, 0, -4242];
    let packets: Vec<Vec<u8>> = targets
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let call = godot3::Packet::Call(godot3::RemoteCall {
                node: NodeRef::Path("Game".into()),
                method: "hello".into(),
                args: vec![Variant::Int(i as i64)],
            });
            [
                &777u32.to_le_bytes()[..],
                &t.to_le_bytes(),
                &call.encode().unwrap(),
            ]
            .concat()
        })
        .collect();
    let sent = tokio::task::spawn_blocking(move || {
        for p in packets {
            raw.peer_mut(renet::PeerID(0))
                .send(1, &Packet::reliable(&p[..]))
                .unwrap();
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(1) {
            let _ = raw.service();
            std::thread::sleep(Duration::from_millis(2));
        }
        raw
    });
    let last = |e: &Event| matches!(e, Event::Call(c) if c.args == [Variant::Int(3)]);
    let seen = events_until(&mut server, last).await;
    let dropped = Event::Dropped {
        peer: 777,
        reason: "the server relay is off: no relay or peer notice is taken at byte 4".into(),
    };
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen[..2], [dropped.clone(), dropped], "{seen:?}");
    for (e, n) in seen[2..].iter().zip([2, 3]) {
        assert!(
            matches!(e, Event::Call(c) if c.from == 777 && c.args == [Variant::Int(n)]),
            "{seen:?}"
        );
    }
    assert!(server.session().peers().any(|p| p == 777), "777 stays");
    drop(sent.await.unwrap());
    server
        .rpc(Target::Peer(4242), "Game", "hello", &("after",))
        .unwrap();
    // 4242 heard of the server alone (not of 777's coming or going) and no hello of
    // 777's: only the server's.
    let heard = heard_until_call!(good);
    let others: Vec<&Event> = heard
        .iter()
        .filter(|e| !matches!(e, Event::PeerConnected(1)))
        .collect();
    assert!(
        matches!(&others[..], [Event::Call(c)] if c.from == 1 && c.args == [Variant::String("after".into())]),
        "{heard:?}"
    );
}

/// Limits ENet cannot take are refused, not changed.
#[tokio::test]
async fn zero_packet_limits_are_refused() {
    for config in [
        Config {
            max_packet: 0,
            ..Config::default()
        },
        Config {
            max_waiting: 0,
            ..Config::default()
        },
        Config {
            max_channels: 0,
            ..Config::default()
        },
    ] {
        match Server::bind_with("127.0.0.1:0", scene(), config).await {
            Err(godot_bin_multiplayer::enet::Error::Host(e)) => {
                assert!(e.contains("maximum_") || e.contains("channel_limit"), "{e}")
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("{config:?} was taken"),
        }
    }
}

/// Sends what ENet sends, but for the datagrams that carry fragment 1 of an
/// unreliable packet: a link that loses one fragment of every large unreliable packet.
struct Lossy(UdpSocket);

impl renet::Socket for Lossy {
    type Address = SocketAddr;
    type Error = std::io::Error;

    fn init(&mut self, options: renet::SocketOptions) -> std::io::Result<()> {
        renet::Socket::init(&mut self.0, options)
    }

    fn send(&mut self, to: SocketAddr, datagram: &[u8]) -> std::io::Result<usize> {
        let header = if datagram[0] & 0x80 != 0 { 4 } else { 2 };
        let lost = datagram.len() > header + 24
            && datagram[header] & 0x0F == 12
            && datagram[header + 12..header + 16] == [0, 0, 0, 1];
        if lost {
            return Ok(datagram.len());
        }
        renet::Socket::send(&mut self.0, to, datagram)
    }

    fn receive(
        &mut self,
        buffer: &mut [u8; renet::MTU_MAX],
    ) -> std::io::Result<Option<(SocketAddr, renet::PacketReceived)>> {
        renet::Socket::receive(&mut self.0, buffer)
    }
}

/// Why `Config::max_waiting` stays at ENet's 32 MiB by default: ENet never gives
/// back the waiting data of an unreliable packet it drops unfinished. If this starts
/// failing, the ENet underneath has fixed that, and the default can come down.
#[test]
fn enet_keeps_the_waiting_data_of_unreliable_packets_it_drops_unfinished() {
    let settings = || HostSettings::default();
    let mut server = Host::new(UdpSocket::bind("127.0.0.1:0").unwrap(), settings()).unwrap();
    let addr = server.socket().local_addr().unwrap();
    let mut client = Host::new(Lossy(UdpSocket::bind("127.0.0.1:0").unwrap()), settings()).unwrap();
    client.connect(addr, 2, 0).unwrap();
    let mut received = 0;
    let mut pump = |server: &mut Host<UdpSocket>, client: &mut Host<Lossy>, ms: u64| {
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(ms) {
            while let Ok(Some(e)) = server.service() {
                received += usize::from(matches!(e, renet::Event::Receive { .. }));
            }
            while let Ok(Some(_)) = client.service() {}
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    pump(&mut server, &mut client, 300);
    let waiting = |server: &mut Host<UdpSocket>| {
        let peer = server
            .peers()
            .find(|p| p.state() == renet::PeerState::Connected)
            .map(|p| format!("{p:?}"))
            .expect("the client is connected");
        let at = peer
            .find("totalWaitingData: ")
            .expect("rusty_enet shows it")
            + 18;
        let digits = peer[at..].split(|c: char| !c.is_ascii_digit()).next();
        digits.unwrap().parse::<usize>().unwrap()
    };
    assert_eq!(waiting(&mut server), 0);
    // 100 unreliable packets of 3000 bytes (three fragments, the second lost), each
    // followed by a small one that arrives, so ENet drops the unfinished one.
    for i in 0..100u8 {
        let big = Packet::always_unreliable(&[i; 3000][..]);
        client.peer_mut(renet::PeerID(0)).send(0, &big).unwrap();
        pump(&mut server, &mut client, 5);
        let small = Packet::always_unreliable(&[i; 10][..]);
        client.peer_mut(renet::PeerID(0)).send(0, &small).unwrap();
        pump(&mut server, &mut client, 5);
    }
    pump(&mut server, &mut client, 300);
    assert_eq!(received, 100, "the small packets all arrive");
    assert_eq!(waiting(&mut server), 100 * 3000);
}

/// A server that allows two channels gives a client that asks for 255 two, and a
/// Godot 4 client's calls (channel 0 reliable, 1 unreliable) still go both ways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_channels_caps_what_a_client_opens() {
    use godot_bin_multiplayer::{Delivery, Mode};
    let config = Config {
        max_channels: 2,
        ..Config::default()
    };
    let mut server = Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let addr = server.local_addr();
    let (raw, seen) = while_serving(&mut server, move || raw_peer(addr, 777)).await;
    assert_eq!(seen, [Event::PeerConnected(777)]);
    assert_eq!(
        raw.expect("777 joins")
            .peer(renet::PeerID(0))
            .channel_count(),
        2
    );
    let mut client = Client::connect(addr, 4242, scene(), Config::default())
        .await
        .unwrap();
    events_until(&mut server, |e| *e == Event::PeerConnected(4242)).await;
    let unreliable = Delivery {
        mode: Mode::Unreliable,
        ..Delivery::default()
    };
    for delivery in [Delivery::default(), unreliable] {
        let args = vec![godot_bin::Variant::Int(7)];
        client
            .call(Target::Peer(1), "Game", "hello", args.clone(), delivery)
            .await
            .unwrap();
        let seen = events_until(&mut server, |e| matches!(e, Event::Call(_))).await;
        match seen.last().unwrap() {
            Event::Call(c) => assert_eq!(
                (c.from, c.args.to_variants().unwrap()),
                (4242, args.clone())
            ),
            e => panic!("{e:?}"),
        }
    }
    server
        .rpc(Target::Peer(4242), "Game", "hello", &("back",))
        .unwrap();
    heard_until_call!(client);
}

/// A peer that stops acknowledging (a bare ENet peer no longer serviced) is dropped
/// once what waits for it passes `send_queue_bytes` (1 MiB: the 18th call of 60 KB,
/// where ENet would have kept them all until it gave the peer up); a client that
/// acknowledges carries on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_stops_acknowledging_is_dropped_once_its_queue_is_full() {
    let mut server = Server::bind("127.0.0.1:0", scene()).await.unwrap();
    let addr = server.local_addr();
    let (said, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let good = tokio::spawn(async move {
        let mut c = Client::connect(addr, 4242, scene(), Config::default())
            .await
            .unwrap();
        while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(20), c.next_event()).await
        {
            if let Event::Call(call) = e.unwrap() {
                let (text,): (String,) = call.args().unwrap();
                if said.send(text.len()).is_err() {
                    return;
                }
            }
        }
    });
    assert_eq!(
        events_until(&mut server, |_| true).await,
        [Event::PeerConnected(4242)]
    );
    let (stuck, seen) = while_serving(&mut server, move || raw_peer(addr, 888)).await;
    let stuck = stuck.expect("888 joins");
    assert_eq!(seen, [Event::PeerConnected(888)]);
    let big = "x".repeat(60_000);
    // The good client gets as much, each call once it has the one before.
    for _ in 0..40 {
        server
            .rpc(Target::Peer(4242), "Game", "hello", &(&big,))
            .unwrap();
        let len = tokio::time::timeout(Duration::from_secs(10), heard.recv()).await;
        assert_eq!(len.unwrap(), Some(60_000));
    }
    let mut refused = None;
    for n in 1..=40 {
        server
            .rpc(Target::Peer(888), "Game", "hello", &(&big,))
            .unwrap();
        let next = tokio::time::timeout(Duration::from_millis(5), server.next_event()).await;
        if let Ok(Some(e)) = next {
            refused = Some((n, e));
            break;
        }
    }
    let (n, e) = refused.expect("never dropped");
    assert!(
        matches!(&e, Event::Refused { peer: 888, reason } if reason.contains("its send queue is full")),
        "{e:?}"
    );
    assert_eq!(n, 18, "dropped at the wrong call");
    assert_eq!(
        events_until(&mut server, |_| true).await,
        [Event::PeerDisconnected(888)]
    );
    // Its id is free: a newcomer may take it (a taken one would be reset). The
    // stuck peer was sent a disconnect, which its full socket may have dropped.
    drop(stuck);
    let (again, seen) = while_serving(&mut server, move || raw_peer(addr, 888)).await;
    assert!(again.is_some(), "888 could not join again");
    assert_eq!(seen, [Event::PeerConnected(888)]);
    server
        .rpc(Target::Peer(4242), "Game", "hello", &("still here",))
        .unwrap();
    let len = tokio::time::timeout(Duration::from_secs(10), heard.recv()).await;
    assert_eq!(len.unwrap(), Some("still here".len()));
    drop(heard);
    good.abort();
}

/// A client whose server stops acknowledging (a bare ENet host no longer serviced)
/// gives up once 1 MiB waits for it: the 18th call of 60 KB fails with
/// `SendQueueFull`, and the client's events end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_whose_server_stops_acknowledging_gives_up() {
    use godot_bin_multiplayer::enet::Error;
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = socket.local_addr().unwrap();
    let stuck = std::thread::spawn(move || {
        let mut host = Host::new(socket, HostSettings::default()).unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(renet::Event::Connect { .. })) = host.service() {
                return Some(host);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    });
    let mut client = Client::connect(addr, 4242, scene(), Config::default())
        .await
        .unwrap();
    let _stuck = tokio::task::spawn_blocking(move || stuck.join().unwrap())
        .await
        .unwrap()
        .expect("never connected");
    let big = "x".repeat(60_000);
    let mut failed = None;
    for n in 1..=40 {
        if let Err(e) = client.rpc(Target::Peer(1), "Game", "hello", &(&big,)).await {
            failed = Some((n, e));
            break;
        }
    }
    let (n, e) = failed.expect("never gave up");
    assert!(matches!(e, Error::SendQueueFull), "{e:?}");
    assert_eq!(n, 18, "gave up at the wrong call");
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        let mut rest = Vec::new();
        while let Some(e) = client.next_event().await {
            rest.push(e.map_err(|e| e.to_string()));
        }
        rest
    })
    .await
    .expect("the client's events did not end");
    // The server's arrival, never taken before, and its departure.
    assert_eq!(
        rest,
        [Ok(Event::PeerConnected(1)), Ok(Event::PeerDisconnected(1))]
    );
}

/// A Godot 3 server's own call to every peer, or every peer but one: before the path
/// is confirmed a packet per peer by path, after it one packet whose ENet header
/// names them all (0, or -N), as Godot 3.6's `NetworkedMultiplayerENet` writes it
/// (`broadcasts.rs` holds the session to the engine), which reaches each client it
/// names. A bare ENet peer (777) reads the headers; a crate client (4242) beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_godot3_server_calls_all_with_one_header_target() {
    use godot_bin::Variant;
    use godot_bin_multiplayer::godot3;
    let (mut server, good, mut raw) = godot3_server_and_peers(true).await;
    let to_server = |p: godot3::Packet| {
        let head = [&777u32.to_le_bytes()[..], &1u32.to_le_bytes()].concat();
        Packet::reliable(&[&head[..], &p.encode().unwrap()].concat()[..])
    };
    // Each client confirms the path it is given, then calls the server back (so the
    // server knows the confirmation is in: one channel keeps their order), and keeps
    // the calls it gets (the bare peer with their header's target) up to the last
    // one meant for it.
    let bare = tokio::task::spawn_blocking(move || {
        let mut calls = Vec::new();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            let Ok(Some(renet::Event::Receive {
                channel_id, packet, ..
            })) = raw.service()
            else {
                std::thread::sleep(Duration::from_millis(2));
                continue;
            };
            // Channel 0 has the peer notices (4242 joining, if it comes this late).
            if channel_id == 0 {
                continue;
            }
            let data = packet.data();
            let target = i32::from_le_bytes(data[4..8].try_into().unwrap());
            match godot3::Packet::decode(&data[8..]).unwrap() {
                godot3::Packet::SimplifyPath { path, .. } => {
                    let peer = raw.peer_mut(renet::PeerID(0));
                    let call_back = godot3::Packet::Call(godot3::RemoteCall {
                        node: godot_bin_multiplayer::NodeRef::Path("Game".into()),
                        method: "hello".into(),
                        args: vec![Variant::Int(0)],
                    });
                    peer.send(1, &to_server(godot3::Packet::ConfirmPath(path)))
                        .unwrap();
                    peer.send(1, &to_server(call_back)).unwrap();
                }
                godot3::Packet::Call(c) => {
                    let Variant::Int(n) = c.args[0] else {
                        panic!("{c:?}")
                    };
                    calls.push((target, n));
                    if n == 5 {
                        break;
                    }
                }
                p => panic!("{p:?}"),
            }
        }
        // Serviced a moment more, so that what it sent goes out.
        let settle = Instant::now();
        while settle.elapsed() < Duration::from_millis(100) {
            let _ = raw.service();
            std::thread::sleep(Duration::from_millis(2));
        }
        calls
    });
    let crate_client = answering_client!(good);
    let calls = call_several!(server, 4242, 777, bare);
    assert_eq!(calls, [(777, 1), (0, 2), (-4242, 3), (777, 5)]);
    assert_eq!(crate_client.await.unwrap(), [1, 2, 4]);
}
