//! Who may call an rpc method: the mode of its `@rpc` annotation (Godot 4) or keyword
//! (Godot 3), checked where the call arrives, as the receiving engine checks it.

use std::fmt;

/// Who may call an rpc method, checked by the side that receives the call against the
/// node's multiplayer authority ([`Session::set_authority`], 1 unless set). A call that
/// is not allowed is dropped and its sender kept ([`Event::Dropped`]), as the engine
/// drops it with an error line before it reads the arguments (after the node, the
/// method and, in Godot 3, the argument count).
///
/// [`Session::set_authority`]: crate::Session::set_authority
/// [`Event::Dropped`]: crate::Event::Dropped
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RpcMode {
    /// `@rpc("any_peer")`; Godot 3 `remote` and `remotesync`: from any peer. A name
    /// given without a mode has this one: the session checks no more than it is told.
    #[default]
    AnyPeer,
    /// `@rpc` and `@rpc("authority")` (Godot 4's default): only from the node's
    /// authority.
    Authority,
    /// Godot 3 `master` and `mastersync`: only where this side is the node's network
    /// master, from any peer.
    Master,
    /// Godot 3 `puppet` and `puppetsync`: only from the node's network master, where
    /// this side is not the master.
    Puppet,
}

impl RpcMode {
    /// Whether a call from `from` may run at `here`, for a node whose authority (or
    /// network master) is `authority`.
    #[inline]
    pub fn allows(self, from: i32, here: i32, authority: i32) -> bool {
        match self {
            RpcMode::AnyPeer => true,
            RpcMode::Authority => from == authority,
            RpcMode::Master => here == authority,
            RpcMode::Puppet => here != authority && from == authority,
        }
    }
}

impl fmt::Display for RpcMode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            RpcMode::AnyPeer => "any_peer",
            RpcMode::Authority => "authority",
            RpcMode::Master => "master",
            RpcMode::Puppet => "puppet",
        })
    }
}

/// One rpc method of a node for [`Scene::node`](crate::Scene::node): its name, and
/// who may call it. A bare name (`"move"`) is [`RpcMode::AnyPeer`]; a pair gives the
/// mode: `("welcome", RpcMode::Authority)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rpc {
    pub(crate) name: String,
    pub(crate) mode: RpcMode,
}

impl Rpc {
    /// `name`, callable as `mode` says.
    pub fn new(name: impl Into<String>, mode: RpcMode) -> Self {
        Rpc {
            name: name.into(),
            mode,
        }
    }
}

impl From<&str> for Rpc {
    fn from(name: &str) -> Self {
        Rpc::new(name, RpcMode::AnyPeer)
    }
}

impl From<String> for Rpc {
    fn from(name: String) -> Self {
        Rpc::new(name, RpcMode::AnyPeer)
    }
}

impl From<&String> for Rpc {
    fn from(name: &String) -> Self {
        Rpc::new(name.as_str(), RpcMode::AnyPeer)
    }
}

impl From<(&str, RpcMode)> for Rpc {
    fn from((name, mode): (&str, RpcMode)) -> Self {
        Rpc::new(name, mode)
    }
}

impl From<(String, RpcMode)> for Rpc {
    fn from((name, mode): (String, RpcMode)) -> Self {
        Rpc::new(name, mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_allows_what_the_engine_allows() {
        // (mode, from, here, authority) -> allowed
        let cases = [
            (RpcMode::AnyPeer, 7, 1, 1, true),
            (RpcMode::Authority, 1, 7, 1, true),
            (RpcMode::Authority, 7, 1, 1, false),
            (RpcMode::Authority, 7, 1, 7, true),
            (RpcMode::Authority, 8, 7, 1, false),
            (RpcMode::Master, 7, 1, 1, true),
            (RpcMode::Master, 1, 7, 1, false),
            (RpcMode::Puppet, 1, 7, 1, true),
            (RpcMode::Puppet, 8, 7, 1, false),
            (RpcMode::Puppet, 7, 7, 7, false),
        ];
        for (mode, from, here, authority, allowed) in cases {
            assert_eq!(
                mode.allows(from, here, authority),
                allowed,
                "{mode} from {from} at {here}, authority {authority}"
            );
        }
    }
}
