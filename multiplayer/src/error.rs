//! What can be wrong with a packet, and where.

use std::fmt;

/// A packet that could not be read or written, with the byte offset where reading
/// stopped (0 for errors of encoding).
// Boxed: a `Result` of a decoded call stays the size of its value (the error was 40
// bytes, copied with every `Result` a packet's reading passes up).
#[derive(thiserror::Error)]
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    offset: usize,
}

impl Error {
    /// Cold: the paths that fail stay out of the hot ones they branch from.
    #[cold]
    pub(crate) fn at(kind: ErrorKind, offset: usize) -> Self {
        Error(Box::new(Inner { kind, offset }))
    }

    /// The error of a packet found `by` bytes into another.
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        self.0.offset += by;
        self
    }

    /// The same error, said to be at `offset`.
    pub(crate) fn placed(mut self, offset: usize) -> Self {
        self.0.offset = offset;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The byte of the packet where it went wrong.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// Consumes the error, returning its kind.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} at byte {}", self.0.kind, self.0.offset)
    }
}

/// The kinds of [`Error`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The packet ends before the named part.
    #[error("the packet ends before {0}")]
    Truncated(&'static str),
    /// An empty packet: there is no command byte.
    #[error("an empty packet")]
    Empty,
    /// A command number that SceneMultiplayer does not define.
    #[error("unknown command {0}")]
    UnknownCommand(u8),
    /// A SYS packet of an unknown kind.
    #[error("unknown SYS command {0}")]
    UnknownSys(u8),
    /// Meta bits that the command does not use are set.
    #[error("meta byte {0:#04x}: bits set that this command does not use")]
    Flags(u8),
    /// Node id size 3 in a remote call's meta byte.
    #[error("node id size mode 3 is not defined")]
    NodeIdSize,
    /// A path form whose offset is not where the arguments end.
    #[error("path offset {0} does not point after the arguments")]
    PathOffset(u32),
    /// A node path without its closing NUL, or with one inside.
    #[error("a node path without its closing NUL")]
    Unterminated,
    /// A node path or checksum that is not UTF-8.
    #[error("invalid UTF-8 in a {0}")]
    Utf8(&'static str),
    /// A SIMPLIFY_PATH checksum that is not 32 lowercase hex digits.
    #[error("a path checksum that is not 32 lowercase hex digits")]
    Checksum,
    /// A byte that should be 0 or 1.
    #[error("{0} is {1}, not 0 or 1")]
    Flag(&'static str, u8),
    /// A compressed bool with bit 6 set.
    #[error("compressed argument byte {0:#04x} is no bool or int form")]
    Compressed(u8),
    /// A compressed int in more bytes than it needs: the engine sends each in the
    /// fewest of 1, 2, 4 or 8.
    #[error("int {0} compressed into {1} bytes (the engine uses the fewest that hold it)")]
    WideInt(i64, usize),
    /// No arguments, or one PackedByteArray, with a count byte: the engine sends
    /// those without one (meta bit 7).
    #[error("no arguments or one PackedByteArray sent with a count (the engine sets meta bit 7 instead)")]
    CountedBytes,
    /// A spawned node's name that the engine refuses: empty, or holding one of
    /// `. : @ / " %`.
    #[error("spawned node name {0:?}: the engine refuses names that are empty or hold one of . : @ / \" %")]
    NodeName(String),
    /// A spawned synchronizer's net id with bit 31 set, which would name a
    /// synchronizer by its path instead.
    #[error("synchronizer net id {0:#x} has bit 31 set (that names one by path)")]
    SyncId(u32),
    /// More values in one spawn state or sync entry than
    /// [`MAX_STATE_VALUES`](crate::MAX_STATE_VALUES).
    #[error("more than {0} values in one replication state")]
    TooManyValues(usize),
    /// A SYNC or delta entry without values (the engine never sends one, and fails
    /// to apply it).
    #[error("a sync entry without values")]
    EmptyState,
    /// A delta entry whose values are not as many as its index bits.
    #[error("delta indexes {indexes:#x} name {} values, the entry holds {values}", indexes.count_ones())]
    DeltaCount {
        /// The entry's index bits.
        indexes: u64,
        /// How many values it holds.
        values: usize,
    },
    /// Bytes left over after the packet's last part.
    #[error("{0} bytes after the end of the packet")]
    Trailing(usize),
    /// More than 255 arguments, or a method id above 65535.
    #[error("{0} does not fit the packet")]
    TooLarge(&'static str),
    /// A packet from a peer that is not connected, or naming one.
    #[error("peer {0} is not connected")]
    UnknownPeer(i32),
    /// A packet this side never accepts from that peer (a SYS packet only the
    /// server sends, a relay to a client, a SYS packet inside a relay).
    #[error("{0} is not accepted here")]
    Unexpected(&'static str),
    /// A node path that the scene does not declare. Received from a peer, the packet
    /// is dropped, as Godot drops it, and the peer kept ([`Event::Dropped`](crate::Event)).
    #[error("no node {0:?} in the scene")]
    UnknownNode(String),
    /// A replicated node that the [`Replicator`](crate::Replicator) does not have
    /// (never spawned, or despawned).
    #[error("no replicated node with network id {0}")]
    UnknownReplica(u32),
    /// Synchronizers, properties or values that do not fit together in a
    /// [`Replicator`](crate::Replicator).
    #[error("replication: {0}")]
    ReplicationConfig(String),
    /// A synchronizer whose state takes more than the packet size of its kind, so
    /// that [`Replicator::sync`](crate::Replicator::sync) left it out (as the engine
    /// does); its network id.
    #[error("synchronizer {0}: its state is larger than the packet size, and was not sent")]
    StateTooLarge(u32),
    /// A cache id the peer never assigned (or, in CONFIRM_PATH, one we never sent).
    #[error("cache id {0} is not known")]
    UnknownCacheId(u32),
    /// A cache id a Godot 3 peer gave a path the scene does not have (Godot 3 takes
    /// any path, and confirms it): the call is dropped, as Godot drops it, and the
    /// peer kept ([`Event::Dropped`](crate::Event)).
    #[error("cache id {0} is of a path that names no node of the scene")]
    UnknownCachedNode(u32),
    /// A call by a cache id the peer gave a node and has since replaced twice (the
    /// node made again twice while the call was on its way): the call is dropped,
    /// as Godot drops it, and the peer kept ([`Event::Dropped`](crate::Event)).
    #[error("cache id {0} was replaced twice since: its node was made again")]
    ForgottenCacheId(u32),
    /// A call of an rpc method whose mode does not allow it from that peer here
    /// ([`RpcMode`](crate::RpcMode)): the call is dropped, as Godot drops it, and the
    /// peer kept ([`Event::Dropped`](crate::Event)).
    #[error("rpc {method:?} of node {node:?} is not allowed from peer {from}: its mode is {mode}, the node's authority {authority}")]
    NotAllowed {
        /// The method.
        method: String,
        /// The node's path.
        node: String,
        /// The caller.
        from: i32,
        /// The method's mode.
        mode: crate::RpcMode,
        /// The node's authority (Godot 3: network master) on this side.
        authority: i32,
    },
    /// A relay, or a notice of another peer, while the server relay is off
    /// ([`Session::set_server_relay`](crate::Session::set_server_relay)): dropped, as
    /// Godot drops it, and the peer kept.
    #[error("the server relay is off: no relay or peer notice is taken")]
    RelayDisabled,
    /// A packet other than an auth message from a peer still authenticating: dropped,
    /// as Godot drops it, and the peer kept ([`Event::Dropped`](crate::Event)).
    #[error("a packet before the peer was authenticated")]
    NotAuthenticated,
    /// A SIMPLIFY_PATH for a cache id the peer already assigned.
    #[error("cache id {0} assigned twice")]
    DuplicateCacheId(u32),
    /// More SIMPLIFY_PATHs in a row than [`Limits::cached_paths`](crate::Limits),
    /// each for a node the peer had given an id already, with no other packet
    /// between (an engine follows each with a call or a sync of the node).
    #[error(
        "more than {0} SIMPLIFY_PATHs in a row for nodes with an id already (a path cache flood)"
    )]
    CacheFlood(usize),
    /// A method id beyond the node's rpc names. Received from a peer, the call is
    /// dropped, as Godot drops it, and the peer kept ([`Event::Dropped`](crate::Event)).
    #[error("method id {0} is not one of the node's rpc methods")]
    UnknownMethod(u16),
    /// A method name that is not among the node's rpc names. Received from a Godot 3
    /// peer, the call is dropped, as Godot 3 drops it (its mode is "disabled"), and the
    /// peer kept ([`Event::Dropped`](crate::Event)).
    #[error("{0:?} is not one of the node's rpc methods")]
    UnknownMethodName(String),
    /// Rpc arguments that do not serialize to a sequence (use a tuple).
    #[error("the arguments are not a tuple or sequence")]
    NotArguments,
    /// Arguments that do not make the value asked for (their count, or a type that
    /// takes no sequence).
    #[error("the arguments: {0}")]
    Arguments(godot_bin::Error),
    /// An argument that is not a valid Variant.
    #[error("argument {index}: {source}")]
    Argument {
        /// Which argument.
        index: usize,
        /// Why.
        source: godot_bin::Error,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
