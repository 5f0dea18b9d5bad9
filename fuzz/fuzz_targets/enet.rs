//! Hostile UDP datagrams into the ENet layer the multiplayer package runs on
//! (`rusty_enet` with the range coder, behind `godot_bin_multiplayer::enet::Guarded`
//! and `DecodeOnly` as its servers and clients set them up): never a panic or a
//! memory error (ASan). A client and a server host first shake
//! hands over an in-memory socket, deterministically; then every record of the input
//! is a datagram to the server: from the connected client's address (first byte
//! even) or a stranger's (odd), raw or range-coded (bit 1), each followed by a
//! service round of both hosts.
#![no_main]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use godot_bin_multiplayer::enet::rusty_enet::{
    Compressor, Host, HostSettings, PacketReceived, RangeCoder, Socket, MTU_MAX,
};
use godot_bin_multiplayer::enet::{DecodeOnly, Guarded};
use libfuzzer_sys::fuzz_target;

type Queue = Rc<RefCell<VecDeque<(SocketAddr, Vec<u8>)>>>;

/// One end of an in-memory UDP link: sends go to `peer`'s inbox as from `me`.
struct Pipe {
    me: SocketAddr,
    inbox: Queue,
    peer: Queue,
}

impl Socket for Pipe {
    type Address = SocketAddr;
    type Error = std::io::Error;

    fn send(&mut self, _to: SocketAddr, buffer: &[u8]) -> Result<usize, std::io::Error> {
        self.peer.borrow_mut().push_back((self.me, buffer.to_vec()));
        Ok(buffer.len())
    }

    fn receive(
        &mut self,
        buffer: &mut [u8; MTU_MAX],
    ) -> Result<Option<(SocketAddr, PacketReceived)>, std::io::Error> {
        let Some((from, data)) = self.inbox.borrow_mut().pop_front() else {
            return Ok(None);
        };
        let n = data.len().min(MTU_MAX);
        buffer[..n].copy_from_slice(&data[..n]);
        Ok(Some((from, PacketReceived::Complete(n))))
    }
}

fn settings(clock: &Rc<RefCell<u64>>, compressor: Box<dyn Compressor>) -> HostSettings {
    let clock = clock.clone();
    HostSettings {
        peer_limit: 4,
        channel_limit: 255,
        compressor: Some(compressor),
        time: Box::new(move || Duration::from_millis(*clock.borrow())),
        seed: Some(7),
        ..Default::default()
    }
}

fn service(host: &mut Host<Guarded<Pipe>>) {
    for _ in 0..64 {
        match host.service() {
            Ok(Some(_)) => {}
            _ => break,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let clock = Rc::new(RefCell::new(1000u64));
    let (to_server, to_client): (Queue, Queue) = Default::default();
    let server_addr: SocketAddr = "127.0.0.1:7000".parse().unwrap();
    let client_addr: SocketAddr = "127.0.0.1:7001".parse().unwrap();
    let server_pipe = Pipe {
        me: server_addr,
        inbox: to_server.clone(),
        peer: to_client.clone(),
    };
    let client_pipe = Pipe {
        me: client_addr,
        inbox: to_client.clone(),
        peer: to_server.clone(),
    };
    // The server decodes range-coded datagrams as the hosts of the multiplayer
    // package do (screening their fragments); the client compresses.
    let decode_only = Box::new(DecodeOnly::default());
    let mut server = Host::new(Guarded(server_pipe), settings(&clock, decode_only)).unwrap();
    let coder = Box::new(RangeCoder::new());
    let mut client = Host::new(Guarded(client_pipe), settings(&clock, coder)).unwrap();
    client.connect(server_addr, 255, 1234).unwrap();
    for _ in 0..8 {
        *clock.borrow_mut() += 10;
        service(&mut client);
        service(&mut server);
    }
    let mut coder = RangeCoder::new();
    let mut rest = data;
    while let [head, len, tail @ ..] = rest {
        let n = (usize::from(*len) * 4).min(tail.len());
        let (datagram, next) = tail.split_at(n);
        rest = next;
        let from = if head & 1 == 0 {
            client_addr
        } else {
            "127.0.0.1:7999".parse().unwrap()
        };
        let bytes = if head & 2 != 0 && datagram.len() > 4 {
            // A valid range-coded body behind the 4-byte header (compression flag set).
            let mut out = vec![0u8; MTU_MAX];
            let used = coder.compress(&[&datagram[4..]], datagram.len() - 4, &mut out);
            if used == 0 {
                datagram.to_vec()
            } else {
                let mut b = datagram[..4].to_vec();
                b[0] |= 0x40;
                b.extend_from_slice(&out[..used]);
                b
            }
        } else {
            datagram.to_vec()
        };
        to_server.borrow_mut().push_back((from, bytes));
        *clock.borrow_mut() += u64::from(head >> 2);
        service(&mut server);
        service(&mut client);
    }
});
