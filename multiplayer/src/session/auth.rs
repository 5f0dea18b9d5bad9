//! SceneMultiplayer's authentication (`auth_callback`, `send_auth`, `complete_auth`):
//! with it on, a peer that connects is not admitted until both sides have said they
//! are done, and until then only SYS auth packets pass.

use super::{system, Delivery, Event, Protocol, Session, Transmit};
use crate::error::{Error, ErrorKind, Result};
use crate::scene4::{Packet, Sys};

/// A peer still authenticating: whether each side has completed.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Pending {
    local: bool,
    remote: bool,
}

impl Session {
    /// Authenticates every peer that connects from now on, as setting the engine's
    /// `auth_callback` does (Godot 4): instead of [`Event::PeerConnected`], a peer
    /// first gives [`Event::Authenticating`], its auth messages come as
    /// [`Event::AuthData`], and it is admitted (then [`Event::PeerConnected`]) once
    /// this side called [`complete_auth`](Session::complete_auth) and the peer said
    /// it completed too. Until then anything else it sends is dropped
    /// ([`Event::Dropped`]), as the engine drops it. Both sides must agree, as with
    /// the engine. The engine drops a peer still authenticating after
    /// `auth_timeout` (3 s by default); the transports' servers do too (their
    /// `auth_timeout`), and a caller of a bare session does it with
    /// [`authenticating`](Session::authenticating) and `disconnect`.
    /// Godot 3, which has no authentication, ignores it.
    pub fn set_auth(&mut self, on: bool) {
        self.auth = on;
    }

    /// Whether peers are authenticated.
    pub fn auth(&self) -> bool {
        self.auth
    }

    /// The peers still authenticating.
    pub fn authenticating(&self) -> impl Iterator<Item = i32> + '_ {
        self.pending.keys().copied()
    }

    /// Whether `peer` is authenticating.
    pub fn is_authenticating(&self, peer: i32) -> bool {
        self.pending.contains_key(&peer)
    }

    /// Sends `data` to `peer`, which is authenticating (`send_auth`): its side gets it
    /// as [`Event::AuthData`].
    pub fn send_auth(&mut self, peer: i32, data: &[u8]) -> Result<()> {
        let pending = self.pending_mut(peer)?;
        if data.is_empty() {
            return Err(misuse(
                "empty auth data (an empty message says the side completed)",
            ));
        }
        if pending.local || pending.remote {
            return Err(misuse("auth data after a side completed"));
        }
        let bytes = Packet::Sys(Sys::Auth(data.to_vec())).encode()?;
        self.transmits.push_back(Transmit {
            to: peer,
            delivery: Delivery::default(),
            bytes,
        });
        Ok(())
    }

    /// Says that this side is done authenticating `peer` (`complete_auth`): the peer
    /// is admitted once it says so too, or at once if it did already.
    pub fn complete_auth(&mut self, peer: i32) -> Result<()> {
        let pending = self.pending_mut(peer)?;
        if pending.local {
            return Err(misuse("completing an authentication twice"));
        }
        pending.local = true;
        let remote = pending.remote;
        self.transmits
            .push_back(system(peer, &Packet::Sys(Sys::Auth(Vec::new()))));
        if remote {
            self.pending.remove(&peer);
            self.admit_new(peer);
        }
        Ok(())
    }

    fn pending_mut(&mut self, peer: i32) -> Result<&mut Pending> {
        self.pending
            .get_mut(&peer)
            .ok_or_else(|| Error::at(ErrorKind::UnknownPeer(peer), 0))
    }

    /// A connecting peer, pending if peers are authenticated.
    pub(super) fn connect_pending(&mut self, peer: i32) -> bool {
        // Godot 3's MultiplayerAPI has no authentication.
        if !self.auth || self.protocol == Protocol::Godot3 {
            return false;
        }
        if self.pending.insert(peer, Pending::default()).is_none() {
            self.events.push_back(Event::Authenticating(peer));
        }
        true
    }

    /// A pending peer gone: `peer_authentication_failed`.
    pub(super) fn disconnect_pending(&mut self, peer: i32) -> bool {
        if self.pending.remove(&peer).is_none() {
            return false;
        }
        self.transmits.retain(|t| t.to != peer);
        self.events.push_back(Event::AuthFailed(peer));
        true
    }

    /// A packet from a pending peer: a SYS auth message (the engine takes the
    /// command from the low three bits), or dropped.
    pub(super) fn receive_pending(&mut self, from: i32, bytes: &[u8]) -> Result<()> {
        let Some(pending) = self.pending.get_mut(&from) else {
            return Err(Error::at(ErrorKind::UnknownPeer(from), 0));
        };
        match bytes {
            [meta, 0, data @ ..] if meta & 7 == 7 && !data.is_empty() => {
                self.events.push_back(Event::AuthData {
                    peer: from,
                    data: data.to_vec(),
                });
            }
            [meta, 0] if meta & 7 == 7 => {
                pending.remote = true;
                if pending.local {
                    self.pending.remove(&from);
                    self.admit_new(from);
                }
            }
            _ => {
                let e = Error::at(ErrorKind::NotAuthenticated, 0);
                self.events.push_back(Event::Dropped {
                    peer: from,
                    reason: e.to_string(),
                });
            }
        }
        Ok(())
    }
}

#[cold]
fn misuse(what: &'static str) -> Error {
    Error::at(ErrorKind::Unexpected(what), 0)
}
