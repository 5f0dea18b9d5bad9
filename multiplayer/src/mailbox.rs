//! The two queues between the ENet host thread and the async application: events up,
//! commands down, each a buffer swapped whole under one lock.
//!
//! Why not channels: a tokio or std channel allocates a block of slots every 32 or so
//! messages, and a block of ENet events is over 1 KiB, a request for which glibc's
//! malloc first consolidates every small free chunk. Under a thousand busy peers that
//! consolidation took a fifth of the host thread's time. Here the buffers keep their
//! capacity, so a steady load allocates nothing.

use std::collections::VecDeque;
use std::mem;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::Notify;

/// What an event holds in memory beyond itself (a received packet's bytes), for the
/// mailbox's bound in bytes.
pub(crate) trait Weigh {
    fn bytes(&self) -> usize;
}

/// When the thread waits for the application: at this many events, or this many
/// bytes of them ([`Weigh`]), queued and not taken.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bound {
    pub(crate) events: usize,
    pub(crate) bytes: usize,
}

struct State<E, C> {
    events: VecDeque<E>,
    /// What `events` weigh.
    bytes: usize,
    commands: Vec<C>,
    /// The application side is gone: the thread should stop.
    closed: bool,
    /// The thread side is gone: no event will come.
    ended: bool,
    /// The thread waits for room in `events`.
    waiting: bool,
}

struct Shared<E, C> {
    state: Mutex<State<E, C>>,
    /// Wakes the application when events come or the thread ends.
    ready: Notify,
    /// Wakes the thread when the application took the events or left.
    room: Condvar,
}

impl<E, C> Shared<E, C> {
    fn lock(&self) -> MutexGuard<'_, State<E, C>> {
        // Nothing panics with the lock held (pushes and swaps only).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A new pair: the application's end and the thread's. The thread waits once
/// `bound`'s events or bytes are queued and not taken.
pub(crate) fn pair<E: Weigh, C>(bound: Bound) -> (App<E, C>, Thread<E, C>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            events: VecDeque::new(),
            bytes: 0,
            commands: Vec::new(),
            closed: false,
            ended: false,
            waiting: false,
        }),
        ready: Notify::new(),
        room: Condvar::new(),
    });
    (
        App {
            shared: shared.clone(),
            taken: VecDeque::new(),
        },
        Thread { shared, bound },
    )
}

/// The application's end. Dropping it tells the thread to stop.
pub(crate) struct App<E, C> {
    shared: Arc<Shared<E, C>>,
    /// Events taken from the thread, not yet handed out.
    taken: VecDeque<E>,
}

impl<E, C> App<E, C> {
    /// Queues a command for the thread; dropped once the thread has ended, as a
    /// closed channel drops it (nobody would take it, and it would pile up).
    pub(crate) fn send(&self, command: C) {
        let mut s = self.shared.lock();
        if !s.ended {
            s.commands.push(command);
        }
    }

    /// The next event; `None` once the thread has ended and every event was taken.
    /// Cancel-safe: an event is handed out in the same poll that takes it.
    pub(crate) async fn recv(&mut self) -> Option<E> {
        loop {
            if let Some(e) = self.taken.pop_front() {
                return Some(e);
            }
            {
                let mut s = self.shared.lock();
                if !s.events.is_empty() {
                    mem::swap(&mut s.events, &mut self.taken);
                    s.bytes = 0;
                    if s.waiting {
                        self.shared.room.notify_one();
                    }
                    continue;
                }
                if s.ended {
                    return None;
                }
            }
            // A notification sent since the check is kept as a permit.
            self.shared.ready.notified().await;
        }
    }

    /// Stops the thread: it sees the end at its next look.
    pub(crate) fn close(&self) {
        self.shared.lock().closed = true;
        self.shared.room.notify_one();
    }
}

impl<E, C> Drop for App<E, C> {
    fn drop(&mut self) {
        self.close();
    }
}

/// The host thread's end. Dropping it ends the application's events.
pub(crate) struct Thread<E, C> {
    shared: Arc<Shared<E, C>>,
    bound: Bound,
}

impl<E: Weigh, C> Thread<E, C> {
    /// Moves the queued commands into `into` (which should be empty); `false` once
    /// the application has gone.
    pub(crate) fn commands(&self, into: &mut Vec<C>) -> bool {
        let mut s = self.shared.lock();
        mem::swap(&mut s.commands, into);
        !s.closed
    }

    /// Hands `events` over (leaving it empty), first waiting while the application
    /// has untaken events that, with these, pass the bound in number or bytes;
    /// `false` once the application has gone. (The application holds what it took
    /// besides: at most as much again.)
    pub(crate) fn deliver(&self, events: &mut Vec<E>) -> bool {
        if events.is_empty() {
            return !self.shared.lock().closed;
        }
        let bytes: usize = events.iter().map(Weigh::bytes).sum();
        let mut s = self.shared.lock();
        while !s.closed
            && !s.events.is_empty()
            && (s.events.len() + events.len() > self.bound.events
                || s.bytes.saturating_add(bytes) > self.bound.bytes)
        {
            s.waiting = true;
            s = self.shared.room.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.waiting = false;
        if s.closed {
            return false;
        }
        s.bytes = s.bytes.saturating_add(bytes);
        s.events.extend(events.drain(..));
        drop(s);
        self.shared.ready.notify_one();
        true
    }
}

impl<E, C> Drop for Thread<E, C> {
    fn drop(&mut self) {
        self.shared.lock().ended = true;
        self.shared.ready.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Test events weigh their value in bytes.
    impl Weigh for u32 {
        fn bytes(&self) -> usize {
            *self as usize
        }
    }

    fn events(n: usize) -> Bound {
        Bound {
            events: n,
            bytes: usize::MAX,
        }
    }

    #[tokio::test]
    async fn events_arrive_in_order_and_end_with_the_thread() {
        let (mut app, thread) = pair::<u32, ()>(events(8));
        let t = std::thread::spawn(move || {
            for chunk in [vec![1, 2, 3], vec![4], vec![5, 6]] {
                let mut v = chunk;
                assert!(thread.deliver(&mut v));
                assert!(v.is_empty());
            }
        });
        let mut got = Vec::new();
        while let Some(e) = app.recv().await {
            got.push(e);
        }
        t.join().unwrap();
        assert_eq!(got, [1, 2, 3, 4, 5, 6]);
    }

    #[tokio::test]
    async fn the_thread_waits_at_the_bound_until_events_are_taken() {
        let (mut app, thread) = pair::<u32, ()>(events(2));
        let t = std::thread::spawn(move || {
            assert!(thread.deliver(&mut vec![1, 2]));
            // Over the bound now: this waits for the application.
            assert!(thread.deliver(&mut vec![3]));
            thread
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!t.is_finished(), "the thread did not wait at the bound");
        assert_eq!(app.recv().await, Some(1));
        let thread = t.join().unwrap();
        assert_eq!(app.recv().await, Some(2));
        assert_eq!(app.recv().await, Some(3));
        drop(thread);
        assert_eq!(app.recv().await, None);
    }

    #[test]
    fn commands_go_down_and_closing_stops_a_waiting_thread() {
        let (app, thread) = pair::<u32, &str>(events(1));
        app.send("a");
        app.send("b");
        let mut cmds = Vec::new();
        assert!(thread.commands(&mut cmds));
        assert_eq!(cmds, ["a", "b"]);
        assert!(thread.deliver(&mut vec![1]));
        let t = std::thread::spawn(move || thread.deliver(&mut vec![2]));
        std::thread::sleep(Duration::from_millis(50));
        drop(app);
        assert!(!t.join().unwrap(), "a closed mailbox still took events");
    }

    #[test]
    fn commands_after_the_thread_ended_are_dropped() {
        let (app, thread) = pair::<u32, u8>(events(1));
        drop(thread);
        for c in 0..100 {
            app.send(c);
        }
        assert!(app.shared.lock().commands.is_empty());
    }

    #[tokio::test]
    async fn the_thread_waits_at_the_bound_in_bytes_until_events_are_taken() {
        let bound = Bound {
            events: 100,
            bytes: 1000,
        };
        let (mut app, thread) = pair::<u32, ()>(bound);
        let t = std::thread::spawn(move || {
            assert!(thread.deliver(&mut vec![600, 300]));
            // 900 untaken bytes and 200 more pass the bound: this waits.
            assert!(thread.deliver(&mut vec![200]));
            // One event alone goes however much it weighs, once nothing waits.
            assert!(thread.deliver(&mut vec![5000]));
            thread
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!t.is_finished(), "the thread did not wait at the bound");
        assert_eq!(app.recv().await, Some(600));
        assert_eq!(app.recv().await, Some(300));
        assert_eq!(app.recv().await, Some(200));
        let thread = t.join().unwrap();
        assert_eq!(app.recv().await, Some(5000));
        drop(thread);
        assert_eq!(app.recv().await, None);
    }
}
