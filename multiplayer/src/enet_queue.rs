//! How much waits for one ENet peer, counted from when the application queues a
//! packet for it until ENet lets the packet go: an unreliable one once sent, a
//! reliable one once the peer acknowledges it, any of them when the peer is reset.
//!
//! ENet keeps what a peer has not acknowledged for as long as the peer stays (5 to
//! 30 s), and rusty_enet does not say how much that is. A packet's bytes go to ENet
//! in a [`Counted`], which rusty_enet's `Packet::new` takes boxed (its safe
//! `ToRawPacket for Box<T>`) and drops when ENet destroys the packet: the count goes
//! down then, on the host thread, and up when the application queues the packet, so
//! the bound holds across the mailbox as well as inside ENet.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::enet::PeerStats;
use crate::send_queue::Limits;

/// What waits for one peer: packets and their bytes; and its link as the host
/// thread last measured it. One per connection, so that a command meant for a peer
/// that has left is told from one for a newcomer in its ENet slot (by address:
/// `Arc::ptr_eq`).
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    packets: AtomicUsize,
    bytes: AtomicUsize,
    link: Mutex<PeerStats>,
}

impl Waiting {
    /// The peer's link as last measured.
    pub(crate) fn link(&self) -> PeerStats {
        *self.link.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the peer's link as measured now.
    pub(crate) fn measured(&self, stats: PeerStats) {
        *self.link.lock().unwrap_or_else(|e| e.into_inner()) = stats;
    }

    /// Packets and bytes waiting now.
    #[cfg(test)]
    fn now(&self) -> (usize, usize) {
        (
            self.packets.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

/// One packet's bytes, counted in its peer's [`Waiting`] while they live.
pub(crate) struct Counted {
    bytes: Vec<u8>,
    peer: Arc<Waiting>,
}

impl Counted {
    /// `bytes` counted for `peer`, or `None` (nothing counted) when they would take
    /// what waits past `limits`: the peer does not keep up. Only the application
    /// adds (the host thread only takes away), so the check cannot be overtaken.
    pub(crate) fn new(bytes: Vec<u8>, peer: &Arc<Waiting>, limits: Limits) -> Option<Counted> {
        let packets = peer.packets.load(Ordering::Relaxed);
        let waiting = peer.bytes.load(Ordering::Relaxed);
        if !limits.admit(packets, waiting, bytes.len()) {
            return None;
        }
        peer.packets.fetch_add(1, Ordering::Relaxed);
        peer.bytes.fetch_add(bytes.len(), Ordering::Relaxed);
        Some(Counted {
            bytes,
            peer: peer.clone(),
        })
    }

    /// Whether it is for the peer of this queue.
    pub(crate) fn is_for(&self, peer: &Arc<Waiting>) -> bool {
        Arc::ptr_eq(&self.peer, peer)
    }
}

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.peer.packets.fetch_sub(1, Ordering::Relaxed);
        self.peer
            .bytes
            .fetch_sub(self.bytes.len(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusty_enet as enet;

    const LIMITS: Limits = Limits {
        messages: 3,
        bytes: 100,
    };

    #[test]
    fn a_peer_takes_packets_up_to_either_limit_and_one_always_fits() {
        let peer = Arc::new(Waiting::default());
        let big = Counted::new(vec![0; 500], &peer, LIMITS).expect("one always fits");
        assert_eq!(peer.now(), (1, 500));
        assert!(Counted::new(vec![0; 1], &peer, LIMITS).is_none());
        assert_eq!(peer.now(), (1, 500), "a refused packet is not counted");
        drop(big);
        assert_eq!(peer.now(), (0, 0));
        let a = Counted::new(vec![0; 60], &peer, LIMITS).unwrap();
        let b = Counted::new(vec![0; 40], &peer, LIMITS).unwrap();
        assert!(
            Counted::new(vec![0; 1], &peer, LIMITS).is_none(),
            "101 bytes"
        );
        let c = Counted::new(Vec::new(), &peer, LIMITS).unwrap();
        assert!(
            Counted::new(Vec::new(), &peer, LIMITS).is_none(),
            "4 packets"
        );
        assert_eq!(peer.now(), (3, 100));
        assert!(a.is_for(&peer) && !a.is_for(&Arc::new(Waiting::default())));
        drop((a, b, c));
        assert_eq!(peer.now(), (0, 0));
    }

    /// The count falls when ENet lets a packet go, and not before: a reliable packet
    /// stays counted until its peer acknowledges it, and a peer's reset lets go of
    /// all it held.
    #[test]
    fn enet_holds_a_counted_packet_until_it_is_acknowledged() {
        use std::net::UdpSocket;
        use std::time::{Duration, Instant};
        let host = |peers| {
            let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
            socket.set_nonblocking(true).unwrap();
            enet::Host::new(
                socket,
                enet::HostSettings {
                    peer_limit: peers,
                    channel_limit: 2,
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let (mut server, mut client) = (host(1), host(1));
        let to = server.socket().local_addr().unwrap();
        client.connect(to, 2, 0).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut joined = None;
        while joined.is_none() {
            assert!(Instant::now() < deadline, "no connection");
            while let Ok(Some(e)) = client.service() {
                drop(e);
            }
            if let Ok(Some(enet::Event::Connect { peer, .. })) = server.service() {
                joined = Some(peer.id());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let slot = joined.unwrap();
        let queue = Arc::new(Waiting::default());
        let limits = Limits {
            messages: 10,
            bytes: 1 << 20,
        };
        for _ in 0..3 {
            let counted = Counted::new(vec![7; 1000], &queue, limits).unwrap();
            let packet = enet::Packet::reliable(Box::new(counted));
            server.peer_mut(slot).send(0, &packet).unwrap();
        }
        assert_eq!(queue.now(), (3, 3000), "queued in ENet");
        server.flush();
        assert_eq!(queue.now(), (3, 3000), "sent, not yet acknowledged");
        let mut received = 0;
        while queue.now() != (0, 0) {
            assert!(
                Instant::now() < deadline,
                "never acknowledged: {:?}",
                queue.now()
            );
            while let Ok(Some(e)) = client.service() {
                if let enet::Event::Receive { packet, .. } = e {
                    assert_eq!(packet.data(), &[7; 1000][..]);
                    received += 1;
                }
            }
            while let Ok(Some(_)) = server.service() {}
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(received, 3);
        // Queued for a peer that then goes: let go at its reset.
        for _ in 0..2 {
            let counted = Counted::new(vec![1; 10], &queue, limits).unwrap();
            server
                .peer_mut(slot)
                .send(0, &enet::Packet::reliable(Box::new(counted)))
                .unwrap();
        }
        assert_eq!(queue.now(), (2, 20));
        server.peer_mut(slot).reset();
        assert_eq!(queue.now(), (0, 0));
    }
}
