//! The load generator of `multiplayer/scripts/load-test.sh`: N clients join a
//! server (`load_server` or the engine's `load_server4.gd`), each sends `ping(seq,
//! sent_us)` R times a second for S seconds, and every `pong(from, seq, sent_us)`
//! the server forwards (to 10 neighbours) is timed on arrival. WebSocket clients are
//! `ws::Client`s on tokio; the ENet clients share two ENet hosts on two threads, each
//! client with its own sans-IO `Session`, and join at 200 a second. Prints one JSON line: clients, pings, pongs
//! expected and received, latency percentiles (µs), and the server's CPU time and
//! memory over the measured span (from `/proc/PID`), and the load generator's own CPU
//! time over it: a generator near a full core of its own delays what it measures.
//!
//! ```text
//! loadgen --transport ws|enet --port N --clients N [--rate 10] [--seconds 10]
//!         [--pid SERVER_PID] [--clk-tck 100]
//! ```

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use godot_bin_multiplayer::enet::rusty_enet as renet;
use godot_bin_multiplayer::{ws, Event, Scene, Session, Target};

const NEIGHBOURS: u64 = 10;

/// ENet clients joining a second (the two hosts together); measuring starts 2 s
/// after the last has joined.
const JOINS: u64 = 200;

fn scene() -> Scene {
    Scene::new().node("Load", ["ping", "pong"])
}

#[derive(Clone, Copy)]
struct Plan {
    port: u16,
    clients: usize,
    rate: u64,
    seconds: u64,
}

/// What every client saw: pings sent, pong latencies (µs).
#[derive(Default)]
struct Tally {
    pings: u64,
    latencies: Vec<u32>,
}

/// CPU seconds and resident KiB of process `pid`.
fn usage(pid: u32, clk_tck: f64) -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command's closing parenthesis; utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let cpu = (f[11].parse::<f64>().ok()? + f[12].parse::<f64>().ok()?) / clk_tck;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((cpu, rss))
}

fn micros(start: Instant) -> i64 {
    start.elapsed().as_micros() as i64
}

/// Runs the WebSocket clients; returns when all are done.
async fn websocket(plan: Plan, start: Instant, go: Instant, tally: Arc<Mutex<Tally>>) -> usize {
    let url = format!("ws://127.0.0.1:{}", plan.port);
    let mut tasks = Vec::new();
    let connected = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // A few handshakes at a time, each tried again on failure: servers take new
    // connections at their own pace (Godot's handles a handful per frame).
    let gate = Arc::new(tokio::sync::Semaphore::new(16));
    for i in 0..plan.clients {
        let (url, tally, connected, gate) =
            (url.clone(), tally.clone(), connected.clone(), gate.clone());
        tasks.push(tokio::spawn(async move {
            let mut client = None;
            for _ in 0..5 {
                let _permit = gate.acquire().await.expect("never closed");
                let attempt =
                    tokio::time::timeout(Duration::from_secs(5), ws::Client::connect(&url, scene()));
                if let Ok(Ok(c)) = attempt.await {
                    client = Some(c);
                    break;
                }
            }
            let Some(mut c) = client else {
                return;
            };
            connected.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut mine = Tally::default();
            // Each client's pings are spread over the period.
            let period = Duration::from_micros(1_000_000 / plan.rate);
            let offset = period * (i as u32 % 97) / 97;
            let mut tick = tokio::time::interval_at((go + offset).into(), period);
            let stop = go + Duration::from_secs(plan.seconds);
            // One timer for the whole run, not one made and dropped per event.
            let drain = tokio::time::sleep_until((stop + Duration::from_secs(3)).into());
            tokio::pin!(drain);
            let mut seq = 0i64;
            loop {
                tokio::select! {
                    _ = tick.tick(), if Instant::now() < stop => {
                        if c.rpc(Target::Peer(1), "Load", "ping", &(seq, micros(start))).await.is_err() {
                            break;
                        }
                        seq += 1;
                        mine.pings += 1;
                    }
                    e = c.next_event() => match e {
                        Some(Ok(Event::Call(call))) if call.method == "pong" => {
                            if let Ok((_, _, sent)) = call.args::<(i64, i64, i64)>() {
                                mine.latencies.push((micros(start) - sent).max(0) as u32);
                            }
                        }
                        Some(Ok(_)) => {}
                        _ => break,
                    },
                    () = &mut drain => break,
                }
            }
            let _ = c.close().await;
            let mut t = tally.lock().expect("never poisoned");
            t.pings += mine.pings;
            t.latencies.extend(mine.latencies);
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    connected.load(std::sync::atomic::Ordering::Relaxed)
}

/// Runs ENet clients `share` of the plan: one host, one peer and one `Session` per
/// client. Returns how many connected and what they saw.
fn enet(plan: Plan, share: std::ops::Range<usize>, start: Instant, go: Instant) -> (usize, Tally) {
    let mut tally = Tally::default();
    let server: SocketAddr = ([127, 0, 0, 1], plan.port).into();
    let socket = godot_bin_multiplayer::enet::bind("127.0.0.1:0").expect("a local UDP port");
    let settings = renet::HostSettings {
        peer_limit: share.len(),
        channel_limit: 255,
        ..Default::default()
    };
    let mut host = renet::Host::new(socket, settings).expect("an ENet host");
    // Peer slot -> (client index, session once connected).
    let mut sessions: HashMap<usize, Option<Session>> = HashMap::new();
    let mut slots = Vec::new();
    // Joins at a steady pace (this thread's share of JOINS a second), as players
    // arrive, not all in one instant: each join makes the server tell every peer
    // about it (Godot 4's relay notices), so joins cost the server O(peers).
    let join_gap = Duration::from_secs(2) / JOINS as u32;
    let mut joining = share.clone();
    let mut joins = |host: &mut renet::Host<UdpSocket>,
                     sessions: &mut HashMap<usize, Option<Session>>,
                     slots: &mut Vec<(usize, i32)>| {
        let due = (start.elapsed().as_nanos() / join_gap.as_nanos()) as usize;
        while joining.len() > share.len().saturating_sub(due) {
            let Some(i) = joining.next() else { break };
            let id = 1000 + i as u32;
            let peer = host.connect(server, 255, id).expect("a free peer slot");
            sessions.insert(peer.id().0, None);
            slots.push((peer.id().0, id as i32));
        }
    };
    let period = Duration::from_micros(1_000_000 / plan.rate);
    let mut next: Vec<Instant> = share
        .clone()
        .map(|i| go + period * (i as u32 % 97) / 97)
        .collect();
    let mut seq = vec![0i64; share.len()];
    let stop = go + Duration::from_secs(plan.seconds);
    let drain = stop + Duration::from_secs(3);
    let flush = |host: &mut renet::Host<UdpSocket>, slot: usize, s: &mut Session| {
        while let Some(t) = s.poll_transmit() {
            let _ = host
                .peer_mut(renet::PeerID(slot))
                .send(0, &renet::Packet::reliable(t.bytes.as_slice()));
        }
    };
    while Instant::now() < drain {
        joins(&mut host, &mut sessions, &mut slots);
        let mut busy = false;
        for _ in 0..256 {
            let Ok(Some(event)) = host.service() else {
                break;
            };
            busy = true;
            match event {
                renet::Event::Connect { peer, .. } => {
                    let slot = peer.id().0;
                    let id = slots.iter().find(|s| s.0 == slot).map(|s| s.1).unwrap_or(0);
                    let mut s = Session::client(id, scene());
                    s.connect(1);
                    sessions.insert(slot, Some(s));
                }
                renet::Event::Disconnect { peer, .. } => {
                    sessions.insert(peer.id().0, None);
                }
                renet::Event::Receive { peer, packet, .. } => {
                    let slot = peer.id().0;
                    if let Some(Some(s)) = sessions.get_mut(&slot) {
                        let _ = s.receive(1, Default::default(), packet.data());
                        while let Some(e) = s.poll_event() {
                            if let Event::Call(call) = e {
                                if let Ok((_, _, sent)) = call.args::<(i64, i64, i64)>() {
                                    tally.latencies.push((micros(start) - sent).max(0) as u32);
                                }
                            }
                        }
                    }
                }
            }
        }
        let now = Instant::now();
        for (i, &(slot, _)) in slots.iter().enumerate() {
            if now < next[i] || now >= stop {
                continue;
            }
            next[i] += period;
            if let Some(Some(s)) = sessions.get_mut(&slot) {
                if s.rpc(Target::Peer(1), "Load", "ping", &(seq[i], micros(start)))
                    .is_ok()
                {
                    seq[i] += 1;
                    tally.pings += 1;
                    busy = true;
                }
            }
        }
        for (slot, s) in sessions.iter_mut() {
            if let Some(s) = s {
                flush(&mut host, *slot, s);
            }
        }
        host.flush();
        if !busy {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    let connected = sessions.values().filter(|s| s.is_some()).count();
    for (slot, _) in slots {
        host.peer_mut(renet::PeerID(slot)).disconnect_now(0);
    }
    host.flush();
    (connected, tally)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut transport = "ws".to_string();
    let mut plan = Plan {
        port: 9090,
        clients: 100,
        rate: 10,
        seconds: 10,
    };
    let (mut pid, mut clk_tck) = (None, 100.0);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--transport" => transport = val()?,
            "--port" => plan.port = val()?.parse()?,
            "--clients" => plan.clients = val()?.parse()?,
            "--rate" => plan.rate = val()?.parse()?,
            "--seconds" => plan.seconds = val()?.parse()?,
            "--pid" => pid = Some(val()?.parse::<u32>()?),
            "--clk-tck" => clk_tck = val()?.parse()?,
            _ => return Err(format!("unknown option {a}").into()),
        }
    }
    let start = Instant::now();
    // Joining takes a while with many clients: measuring starts after it.
    let go = start + Duration::from_secs(2 + plan.clients as u64 / JOINS);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let me = std::process::id();
    let before = Arc::new(Mutex::new((None, None)));
    {
        let before = before.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(go.into()).await;
            let server = pid.and_then(|p| usage(p, clk_tck));
            *before.lock().expect("never poisoned") = (server, usage(me, clk_tck));
        });
    }
    let after = {
        let measured = go + Duration::from_secs(plan.seconds);
        tokio::spawn(async move {
            tokio::time::sleep_until(measured.into()).await;
            (pid.and_then(|p| usage(p, clk_tck)), usage(me, clk_tck))
        })
    };
    let connected = match transport.as_str() {
        "ws" => websocket(plan, start, go, tally.clone()).await,
        "enet" => {
            // Two hosts on two threads: one host's socket cannot take a thousand
            // busy peers' traffic on this machine.
            let half = plan.clients / 2;
            let a = tokio::task::spawn_blocking(move || enet(plan, 0..half, start, go));
            let b = tokio::task::spawn_blocking(move || enet(plan, half..plan.clients, start, go));
            let (a, b) = (a.await?, b.await?);
            let mut t = tally.lock().expect("never poisoned");
            for (_, part) in [&a, &b] {
                t.pings += part.pings;
                t.latencies.extend_from_slice(&part.latencies);
            }
            a.0 + b.0
        }
        t => return Err(format!("unknown transport {t}").into()),
    };
    let (after, mine_after) = after.await?;
    let (before, mine_before) = *before.lock().expect("never poisoned");
    let mut t = tally.lock().expect("never poisoned");
    t.latencies.sort_unstable();
    let pct = |p: f64| -> u32 {
        if t.latencies.is_empty() {
            return 0;
        }
        t.latencies[((t.latencies.len() - 1) as f64 * p) as usize]
    };
    let neighbours = NEIGHBOURS.min(connected.saturating_sub(1) as u64);
    let expected = t.pings * neighbours;
    let (cpu, rss) = match (before, after) {
        (Some((c0, _)), Some((c1, rss))) => (c1 - c0, rss),
        _ => (0.0, 0),
    };
    let own_cpu = match (mine_before, mine_after) {
        (Some((c0, _)), Some((c1, _))) => c1 - c0,
        _ => 0.0,
    };
    println!(
        "{{\"transport\":\"{transport}\",\"clients\":{},\"connected\":{connected},\"seconds\":{},\"rate\":{},\"pings\":{},\"expected\":{expected},\"received\":{},\"p50_us\":{},\"p99_us\":{},\"max_us\":{},\"server_cpu_s\":{cpu:.3},\"server_rss_kib\":{rss},\"loadgen_cpu_s\":{own_cpu:.3}}}",
        plan.clients,
        plan.seconds,
        plan.rate,
        t.pings,
        t.latencies.len(),
        pct(0.5),
        pct(0.99),
        t.latencies.last().copied().unwrap_or(0),
    );
    Ok(())
}
