//! What an ENet server holds for an application that stops taking its events: at
//! most about twice `queue_bytes` of received packets, whatever its peers send (it
//! once held up to `queue` events of any size: 4096 packets of up to 32 MiB). The
//! heap is counted for the whole process here, so this binary holds one test.
#![cfg(feature = "enet")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use godot_bin::{PoolByteArray, Variant};
use godot_bin_multiplayer::{enet, Delivery, Event, Mode, Scene, Target};

/// Live heap bytes, every thread's.
static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn scene() -> Scene {
    Scene::new().node("Game", ["blob"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_application_lags_holds_what_queue_bytes_allows() {
    const QUEUE_BYTES: usize = 1 << 20;
    const CALLS: usize = 40;
    const SIZE: usize = 200_000;
    let config = enet::Config {
        queue_bytes: QUEUE_BYTES,
        ..enet::Config::default()
    };
    let mut server = enet::Server::bind_with("127.0.0.1:0", scene(), config)
        .await
        .unwrap();
    let at = server.local_addr();
    let mut client = enet::Client::connect(at, 4321, scene(), enet::Config::default())
        .await
        .unwrap();
    let joined = tokio::time::timeout(Duration::from_secs(10), server.next_event()).await;
    assert_eq!(joined.unwrap(), Some(Event::PeerConnected(4321)));
    let before = LIVE.load(Ordering::Relaxed);
    // Unreliable: the client keeps nothing once sent, and what the waiting server
    // does not read is dropped by its socket, not held. 8 MB in all, paced so that
    // a server that reads it all gets it all.
    let blob = Variant::PoolByteArray(PoolByteArray(vec![7; SIZE]));
    let unreliable = Delivery {
        mode: Mode::Unreliable,
        channel: 0,
    };
    for _ in 0..CALLS {
        client
            .call(
                Target::Peer(1),
                "Game",
                "blob",
                vec![blob.clone()],
                unreliable,
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let held = LIVE.load(Ordering::Relaxed) - before;
    // Twice the bound and two packets, and room for ENet's own buffers.
    let most = 2 * QUEUE_BYTES + 2 * SIZE + (1 << 20);
    assert!(held < most as isize, "the server holds {held} bytes");
    // What it holds is still handed out, in order.
    let mut calls = 0;
    while let Ok(Some(Event::Call(call))) =
        tokio::time::timeout(Duration::from_millis(500), server.next_event()).await
    {
        assert_eq!(call.method, "blob");
        calls += 1;
    }
    assert!(calls > 0 && calls < CALLS, "{calls} calls taken");
    drop(client);
}
