//! Helpers for tests that drive `Session`s by hand, without a transport.

use godot_bin_multiplayer::{Event, Session, Transmit};

/// Everything `s` has queued: its transmits, then its events.
pub fn drain(s: &mut Session) -> (Vec<Transmit>, Vec<Event>) {
    (
        std::iter::from_fn(|| s.poll_transmit()).collect(),
        std::iter::from_fn(|| s.poll_event()).collect(),
    )
}
