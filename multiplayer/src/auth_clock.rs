//! The engine's `auth_timeout` for the transports' servers: a peer still
//! authenticating when its time is up is dropped, so that peers that connect and
//! never authenticate cannot hold every place.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use crate::Session;

/// The peers that joined while peers authenticate, in the order they joined.
#[derive(Debug)]
pub(crate) struct AuthClock {
    timeout: Duration,
    joined: VecDeque<(Instant, i32)>,
}

impl AuthClock {
    /// `timeout` zero: none (as the engine's 0).
    pub(crate) fn new(timeout: Duration) -> Self {
        AuthClock {
            timeout,
            joined: VecDeque::new(),
        }
    }

    /// `peer` connected; kept if it is authenticating.
    pub(crate) fn joined(&mut self, session: &Session, peer: i32) {
        if self.timeout.is_zero() || !session.is_authenticating(peer) {
            return;
        }
        // A peer that left and came back: its old time no longer counts.
        self.joined.retain(|&(_, p)| p != peer);
        // A time past the clock's range (`Duration::MAX`) is no limit.
        if let Some(at) = Instant::now().checked_add(self.timeout) {
            self.joined.push_back((at, peer));
        }
    }

    /// When the oldest peer still authenticating runs out of time: a server awaits
    /// that and its network together, and its network alone when this is `None`
    /// (taken before the wait, so that no borrow of the session, which is not
    /// `Sync`, is held across it).
    pub(crate) fn next(&mut self, session: &Session) -> Option<Instant> {
        while let Some(&(at, peer)) = self.joined.front() {
            if session.is_authenticating(peer) {
                return Some(at);
            }
            self.joined.pop_front();
        }
        None
    }

    /// The peers still authenticating whose time is up.
    pub(crate) fn expired(&mut self, session: &Session) -> Vec<i32> {
        let now = Instant::now();
        let mut out = Vec::new();
        while let Some(&(at, peer)) = self.joined.front() {
            if at > now {
                break;
            }
            self.joined.pop_front();
            if session.is_authenticating(peer) {
                out.push(peer);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scene;

    #[test]
    fn a_timeout_past_the_clock_is_no_limit() {
        let mut session = Session::server(Scene::new());
        session.set_auth(true);
        session.connect(7);
        assert!(session.is_authenticating(7));
        let mut clock = AuthClock::new(Duration::MAX);
        clock.joined(&session, 7);
        assert_eq!(clock.next(&session), None);
        // A timeout in range counts.
        let mut clock = AuthClock::new(Duration::from_secs(3));
        clock.joined(&session, 7);
        assert!(clock.next(&session).is_some());
        assert!(clock.expired(&session).is_empty());
    }
}
