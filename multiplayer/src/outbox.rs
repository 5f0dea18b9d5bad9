//! What a WebSocket server has queued for one client, framed as it is queued: the
//! server's loop appends messages, the client's connection task writes all that is
//! queued in one write.
//!
//! Why not a channel of messages into tungstenite's sink: per message, that was a
//! channel send and receive, a task wake, a frame built by the sink and a lock shared
//! with the reading half. Under a thousand busy clients those were about a fifth of
//! the server's time (`perf`); here a message is a copy under a lock, and a wake only
//! when the queue was empty.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;

use crate::send_queue::Limits;

#[derive(Default)]
struct State {
    /// Whole frames, ready for the socket.
    bytes: Vec<u8>,
    /// Messages in `bytes`.
    queued: usize,
    /// Messages taken by the writer and not yet written, and their bytes: they
    /// count against the limits too, or a writer blocked on a client that reads
    /// nothing would let as many again pile up behind it.
    writing: usize,
    writing_bytes: usize,
    /// The server let go of the client: close once `bytes` is written.
    closed: bool,
}

#[derive(Default)]
pub(crate) struct Outbox {
    state: Mutex<State>,
    ready: Notify,
}

impl Outbox {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics with the lock held (appends and swaps only).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until something is queued or the server let go; then swaps the queued
    /// frames into `buf` (which is cleared first) and says whether the connection
    /// stays open. What the last call gave is written by then. Cancel-safe: nothing
    /// is taken unless it returns.
    pub(crate) async fn take(&self, buf: &mut Vec<u8>) -> bool {
        {
            let mut s = self.lock();
            s.writing = 0;
            s.writing_bytes = 0;
        }
        loop {
            {
                let mut s = self.lock();
                if !s.bytes.is_empty() || s.closed {
                    buf.clear();
                    std::mem::swap(&mut s.bytes, buf);
                    s.writing = std::mem::take(&mut s.queued);
                    s.writing_bytes = buf.len();
                    return !s.closed;
                }
            }
            // A notification sent since the check is kept as a permit.
            self.ready.notified().await;
        }
    }

    /// Waits until the server lets go of the client: a write to a client that
    /// stopped reading is abandoned then, not awaited for ever. It may take a wake
    /// meant for [`take`](Outbox::take), which looks at the queue before it waits.
    pub(crate) async fn closed(&self) {
        while !self.lock().closed {
            self.ready.notified().await;
        }
    }
}

/// The server's end of a client's [`Outbox`]. Dropping it closes the connection
/// once what is queued is written.
pub(crate) struct Sender {
    outbox: Arc<Outbox>,
    limits: Limits,
}

impl Sender {
    /// A new outbox and its sender, which keeps what waits within `limits`.
    pub(crate) fn new(limits: Limits) -> (Sender, Arc<Outbox>) {
        let outbox = Arc::new(Outbox::default());
        let sender = Sender {
            outbox: outbox.clone(),
            limits,
        };
        (sender, outbox)
    }

    /// Queues `msg` as one binary message; `false` (and nothing queued) when it
    /// would take what waits, queued or being written, past the limits: the client
    /// is not reading.
    pub(crate) fn push(&self, msg: &[u8]) -> bool {
        let mut s = self.outbox.lock();
        // Counted as frames, queued or being written.
        let waiting = s.bytes.len() + s.writing_bytes;
        if !self
            .limits
            .admit(s.queued + s.writing, waiting, FRAME_HEADER_MAX + msg.len())
        {
            return false;
        }
        let wake = s.bytes.is_empty();
        binary_frame(&mut s.bytes, msg);
        s.queued += 1;
        drop(s);
        if wake {
            self.outbox.ready.notify_one();
        }
        true
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        self.outbox.lock().closed = true;
        self.outbox.ready.notify_one();
    }
}

/// The longest header of a server's frame (RFC 6455 5.2: 2 bytes, and 8 of length).
const FRAME_HEADER_MAX: usize = 10;

/// Appends `msg` as one binary frame, unmasked as a server's frames are (RFC 6455
/// 5.1); the header is tungstenite's, written straight into the queue.
fn binary_frame(out: &mut Vec<u8>, msg: &[u8]) {
    let header = FrameHeader {
        opcode: OpCode::Data(Data::Binary),
        ..FrameHeader::default()
    };
    // Writing to a `Vec` cannot fail.
    let _ = header.format(msg.len() as u64, out);
    out.extend_from_slice(msg);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;

    /// Our frames are the frames tungstenite writes for the same message.
    #[test]
    fn frames_match_tungstenite_at_every_length_form() {
        for len in [0, 1, 125, 126, 127, 0xFFFF, 0x1_0000, 70_000] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let mut ours = Vec::new();
            binary_frame(&mut ours, &msg);
            let mut theirs = Vec::new();
            Frame::message(msg, OpCode::Data(Data::Binary), true)
                .format(&mut theirs)
                .unwrap();
            assert_eq!(ours, theirs, "length {len}");
        }
    }

    const FEW: Limits = Limits {
        messages: 2,
        bytes: usize::MAX,
    };

    #[tokio::test]
    async fn a_full_queue_refuses_and_a_dropped_sender_closes_after_the_queue() {
        let (tx, outbox) = Sender::new(FEW);
        assert!(tx.push(b"a"));
        assert!(tx.push(b"bc"));
        assert!(!tx.push(b"d"));
        let mut buf = vec![9];
        assert!(outbox.take(&mut buf).await);
        assert_eq!(buf, [0x82, 1, b'a', 0x82, 2, b'b', b'c']);
        // The two taken are being written: they still count.
        assert!(!tx.push(b"e"));
        // The writer is back for more: they are written.
        let wait =
            tokio::time::timeout(std::time::Duration::from_millis(10), outbox.take(&mut buf));
        assert!(wait.await.is_err());
        assert!(tx.push(b"e"));
        drop(tx);
        assert!(!outbox.take(&mut buf).await);
        assert_eq!(buf, [0x82, 1, b'e']);
    }

    #[tokio::test]
    async fn bytes_waiting_are_bounded_queued_or_being_written() {
        // Room for two 100-byte messages and their longest headers, not three.
        let limits = Limits {
            messages: 100,
            bytes: 220,
        };
        let (tx, outbox) = Sender::new(limits);
        let msg = [5u8; 100];
        assert!(tx.push(&msg));
        assert!(tx.push(&msg));
        assert!(!tx.push(&msg));
        // Small ones still fit beside them.
        assert!(tx.push(b"x"));
        let mut buf = Vec::new();
        assert!(outbox.take(&mut buf).await);
        assert_eq!(buf.len(), 2 * 102 + 3);
        // Taken, not yet written: they still count.
        assert!(!tx.push(&msg));
        let wait =
            tokio::time::timeout(std::time::Duration::from_millis(10), outbox.take(&mut buf));
        assert!(wait.await.is_err());
        assert!(tx.push(&msg));
        assert!(tx.push(&msg));
        assert!(!tx.push(&msg));
        // One message always fits when none waits, whatever its size.
        let (tx, _outbox) = Sender::new(limits);
        assert!(tx.push(&[1; 1000]));
        assert!(!tx.push(b"y"));
    }
}
