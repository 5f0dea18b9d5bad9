//! Godot 4's SceneMultiplayer packets: one per WebSocket message or ENet packet.
//!
//! The first byte is the meta byte: bits 0-2 the command, flags from bit 4. A remote
//! call is `[meta][node][method][argc][args]`, followed by `path\0` when the node
//! goes by path (its id then is `0x80000000 | offset of the path`).

use godot_bin::Variant;
use serde::de::Deserialize;

use crate::args;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::{put_cstr, Reader};
use crate::replication::{Delta, Spawn, Sync};

const CMD_MASK: u8 = 0x07;
const REMOTE_CALL: u8 = 0;
const SIMPLIFY_PATH: u8 = 1;
const CONFIRM_PATH: u8 = 2;
const RAW: u8 = 3;
pub(crate) const SPAWN: u8 = 4;
const DESPAWN: u8 = 5;
pub(crate) const SYNC: u8 = 6;
/// SYNC's flag for the delta form.
pub(crate) const DELTA: u8 = 1 << 4;
const SYS: u8 = 7;

const NODE_ID_SHIFT: u8 = 4;
const METHOD_ID_16: u8 = 1 << 6;
/// No arguments, or one PackedByteArray sent as its bare bytes.
const BYTES_OR_NONE: u8 = 1 << 7;
const PATH_FLAG: u32 = 0x8000_0000;
/// The type byte of a plain PackedByteArray argument.
const PACKED_BYTE_ARRAY: u8 = 29;

/// One SceneMultiplayer packet.
///
/// Node paths are the text the engine reads from the bytes: it drops one leading
/// BOM, so decoding does too, and encoding writes a leading BOM twice, so that the
/// engine reads the path given.
#[derive(Debug, Clone, PartialEq)]
pub enum Packet {
    /// An RPC: `rpc()` / `rpc_id()` of an `@rpc` method.
    Call(RemoteCall),
    /// The sender will call a node by `id` from now on; `checksum` is the md5 (hex)
    /// of the node's sorted rpc names ([`RpcNames::checksum`](crate::RpcNames::checksum)).
    SimplifyPath {
        /// 32 lowercase hex digits.
        checksum: String,
        /// The sender's cache id for the node, counted from 1.
        id: u32,
        /// The node's path relative to the multiplayer root.
        path: String,
    },
    /// The answer to `SimplifyPath`: `valid` is false when the checksums differ.
    ConfirmPath {
        /// Whether the receiver's rpc names had the same checksum.
        valid: bool,
        /// The cache id being confirmed.
        id: u32,
    },
    /// `send_bytes`: the bytes as given.
    Raw(Vec<u8>),
    /// A MultiplayerSpawner made a node.
    Spawn(Spawn),
    /// A spawned node is gone: `[05][net id u32]`.
    Despawn {
        /// The [`Spawn::net_id`] of the node.
        net_id: u32,
    },
    /// A MultiplayerSynchronizer's "always" properties.
    Sync(Sync),
    /// A MultiplayerSynchronizer's watched properties that changed.
    Delta(Delta),
    /// The server's bookkeeping: peers joining and leaving, relayed packets, auth.
    Sys(Sys),
}

/// SYS packets (`[07][kind]...`).
#[derive(Debug, Clone, PartialEq)]
pub enum Sys {
    /// `[07 00][payload]`: an authentication message; empty means "done".
    Auth(Vec<u8>),
    /// `[07 01][id i32]`: a peer joined (server to clients).
    AddPeer(i32),
    /// `[07 02][id i32]`: a peer left (server to clients).
    DelPeer(i32),
    /// `[07 03][peer i32][packet]`: to the server, `peer` is the target (0 all,
    /// -id all but id); from the server, `peer` is the source.
    Relay {
        /// Target or source, as above.
        peer: i32,
        /// The relayed packet, whole.
        packet: Vec<u8>,
    },
}

/// How a remote call names its node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeRef {
    /// The id the sender gave it in a `SimplifyPath` the receiver confirmed, in
    /// the narrowest field that holds it.
    Cached(u32),
    /// A cached id of at most 16 bits in the 4-byte field: what the engine sends to
    /// the peers that confirmed the path when the same call also goes by path to
    /// peers that have not.
    CachedWide(u32),
    /// Its path relative to the multiplayer root (before the cache is confirmed).
    Path(String),
}

/// An RPC.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteCall {
    /// The node called.
    pub node: NodeRef,
    /// The index of the method among the node's sorted rpc names (bit 15: an rpc
    /// configured on the node rather than its script).
    pub method: u16,
    /// The arguments. No arguments, or one PackedByteArray, go without a count; an
    /// empty PackedByteArray then arrives as no arguments at all, as in the engine.
    pub args: Vec<Variant>,
}

impl Packet {
    /// Reads one whole packet.
    pub fn decode(bytes: &[u8]) -> Result<Packet> {
        let mut r = Reader::new(bytes, 0);
        let meta = r
            .take(1, "the command byte")
            .map_err(|_| Error::at(ErrorKind::Empty, 0))?[0];
        let flags = meta & !CMD_MASK;
        let plain = |r: &Reader| match flags {
            0 => Ok(()),
            _ => Err(Error::at(ErrorKind::Flags(meta), r.pos - 1)),
        };
        let packet = match meta & CMD_MASK {
            REMOTE_CALL => Packet::Call(decode_call(meta, &mut r)?),
            SIMPLIFY_PATH => {
                plain(&r)?;
                let at = r.pos;
                let sum = r.take(33, "the path checksum")?;
                let checksum = match sum.split_last() {
                    Some((0, hex))
                        if hex.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) =>
                    {
                        String::from_utf8_lossy(hex).into_owned()
                    }
                    _ => return Err(Error::at(ErrorKind::Checksum, at)),
                };
                let id = r.u32("the cache id")?;
                let path = r.last_cstr("node path")?;
                Packet::SimplifyPath { checksum, id, path }
            }
            CONFIRM_PATH => {
                plain(&r)?;
                let valid = r.flag("the confirmation")?;
                let id = r.u32("the cache id")?;
                Packet::ConfirmPath { valid, id }
            }
            RAW => {
                plain(&r)?;
                Packet::Raw(raw_bytes(r.rest())?.to_vec())
            }
            SPAWN => {
                plain(&r)?;
                Packet::Spawn(Spawn::decode(&mut r)?)
            }
            DESPAWN => {
                plain(&r)?;
                Packet::Despawn {
                    net_id: r.u32("the net id")?,
                }
            }
            SYNC if flags == DELTA => Packet::Delta(Delta::decode(&mut r)?),
            SYNC => {
                plain(&r)?;
                Packet::Sync(Sync::decode(&mut r)?)
            }
            _ => {
                plain(&r)?;
                let at = r.pos;
                let sys = match r.u8("the SYS command")? {
                    0 => Sys::Auth(r.rest().to_vec()),
                    1 => Sys::AddPeer(r.u32("the peer id")? as i32),
                    2 => Sys::DelPeer(r.u32("the peer id")? as i32),
                    3 => {
                        let peer = r.u32("the peer id")? as i32;
                        if r.pos == bytes.len() {
                            return Err(Error::at(
                                ErrorKind::Truncated("the relayed packet"),
                                r.pos,
                            ));
                        }
                        Sys::Relay {
                            peer,
                            packet: r.rest().to_vec(),
                        }
                    }
                    k => return Err(Error::at(ErrorKind::UnknownSys(k), at)),
                };
                Packet::Sys(sys)
            }
        };
        r.end()?;
        Ok(packet)
    }

    /// Appends the packet's bytes to `out` (which keeps them only on success).
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        // Calls, most packets, without `write`'s frame (a tenth of a small call).
        let r = match self {
            Packet::Call(call) => encode_call(call, out),
            _ => self.write(out),
        };
        if r.is_err() {
            out.truncate(start);
        }
        r
    }

    /// The packet's bytes.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write(&mut out)?;
        Ok(out)
    }

    fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Packet::Call(call) => encode_call(call, out)?,
            Packet::SimplifyPath { checksum, id, path } => {
                if checksum.len() != 32
                    || !checksum
                        .bytes()
                        .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
                {
                    return Err(Error::at(ErrorKind::Checksum, 0));
                }
                out.push(SIMPLIFY_PATH);
                out.extend_from_slice(checksum.as_bytes());
                out.push(0);
                out.extend_from_slice(&id.to_le_bytes());
                put_cstr(path, out)?;
            }
            Packet::ConfirmPath { valid, id } => {
                out.extend_from_slice(&[CONFIRM_PATH, u8::from(*valid)]);
                out.extend_from_slice(&id.to_le_bytes());
            }
            Packet::Raw(b) => tagged(RAW, raw_bytes(b)?, out),
            Packet::Spawn(spawn) => spawn.encode(out)?,
            Packet::Despawn { net_id } => {
                out.push(DESPAWN);
                out.extend_from_slice(&net_id.to_le_bytes());
            }
            Packet::Sync(sync) => sync.encode(out)?,
            Packet::Delta(delta) => delta.encode(out)?,
            Packet::Sys(Sys::Auth(b)) => {
                out.extend_from_slice(&[SYS, 0]);
                out.extend_from_slice(b);
            }
            Packet::Sys(Sys::AddPeer(id)) => peer(1, *id, out),
            Packet::Sys(Sys::DelPeer(id)) => peer(2, *id, out),
            Packet::Sys(Sys::Relay { peer: p, packet }) => {
                if packet.is_empty() {
                    return Err(Error::at(ErrorKind::Truncated("the relayed packet"), 0));
                }
                peer(3, *p, out);
                out.extend_from_slice(packet);
            }
        }
        Ok(())
    }
}

/// The bytes of a RAW packet: the engines refuse one without any (`_process_raw`
/// wants two bytes at least, the command's and one more).
pub(crate) fn raw_bytes(b: &[u8]) -> Result<&[u8]> {
    if b.is_empty() {
        return Err(Error::at(ErrorKind::Truncated("the raw bytes"), 1));
    }
    Ok(b)
}

fn tagged(cmd: u8, b: &[u8], out: &mut Vec<u8>) {
    out.push(cmd);
    out.extend_from_slice(b);
}

fn peer(kind: u8, id: i32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[SYS, kind]);
    out.extend_from_slice(&id.to_le_bytes());
}

/// Whether the arguments go in the count-less form: none, or one PackedByteArray
/// (which then is its bare bytes).
pub(crate) fn bytes_only(args: &[Variant]) -> Option<&[u8]> {
    match args {
        [] => Some(&[]),
        [Variant::PoolByteArray(b)] => Some(&b.0),
        _ => None,
    }
}

impl RemoteCall {
    /// The call's packet (what `Packet::Call(call).encode()` gives, without the move).
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        encode_call(self, &mut out)?;
        Ok(out)
    }
}

fn encode_call(call: &RemoteCall, out: &mut Vec<u8>) -> Result<()> {
    match bytes_only(&call.args) {
        Some(b) => write_call(&call.node, call.method, None, out, |out| {
            out.extend_from_slice(b);
            Ok(())
        }),
        None => {
            let argc = u8::try_from(call.args.len())
                .map_err(|_| Error::at(ErrorKind::TooLarge("more than 255 arguments"), 0))?;
            write_call(&call.node, call.method, Some(argc), out, |out| {
                args::encode(&call.args, out)
            })
        }
    }
}

/// The usual call's head, for a cache id and method id of a byte each: its count
/// byte is set by [`finish_short_call`] once the arguments after it are written.
pub(crate) fn short_call_head(id: u8, method: u8) -> [u8; 4] {
    [REMOTE_CALL, id, method, 0]
}

/// Sets the count of the call begun with [`short_call_head`] that `out` holds, whose
/// `argc` arguments follow: none go without a count, as [`write_call`] writes them.
pub(crate) fn finish_short_call(out: &mut Vec<u8>, argc: u8) {
    if argc == 0 {
        out.truncate(3);
        out[0] |= BYTES_OR_NONE;
    } else {
        out[3] = argc;
    }
}

/// Appends a call of `method` of `node` whose arguments `args` writes: `argc` of them
/// after their count, or (`None`) no arguments or one PackedByteArray's bare bytes.
pub(crate) fn write_call(
    node: &NodeRef,
    method: u16,
    argc: Option<u8>,
    out: &mut Vec<u8>,
    args: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    let start = out.len();
    // The meta byte is known once the sizes are.
    let (size, id) = match node {
        NodeRef::Cached(id) | NodeRef::CachedWide(id) if *id & PATH_FLAG != 0 => {
            return Err(Error::at(
                ErrorKind::TooLarge("a cache id with bit 31 set"),
                0,
            ))
        }
        NodeRef::Cached(id) if *id <= 0xFF => (0, *id),
        NodeRef::Cached(id) if *id <= 0xFFFF => (1, *id),
        NodeRef::Cached(id) | NodeRef::CachedWide(id) => (2, *id),
        NodeRef::Path(_) => (2, 0),
    };
    let mut meta = REMOTE_CALL | size << NODE_ID_SHIFT;
    // The usual call (a one-byte cache id and method id, arguments to compress): its
    // four head bytes in one write.
    if let (0, Ok(method), Some(argc)) = (size, u8::try_from(method), argc) {
        out.extend_from_slice(&[meta, id as u8, method, argc]);
        return args(out);
    }
    out.push(0);
    match size {
        0 => out.push(id as u8),
        1 => out.extend_from_slice(&(id as u16).to_le_bytes()),
        _ => out.extend_from_slice(&id.to_le_bytes()),
    }
    if method <= 0xFF {
        out.push(method as u8);
    } else {
        meta |= METHOD_ID_16;
        out.extend_from_slice(&method.to_le_bytes());
    }
    match argc {
        None => meta |= BYTES_OR_NONE,
        Some(argc) => out.push(argc),
    }
    args(out)?;
    out[start] = meta;
    if let NodeRef::Path(path) = node {
        let offset = u32::try_from(out.len() - start)
            .ok()
            .filter(|o| o & PATH_FLAG == 0)
            .ok_or_else(|| Error::at(ErrorKind::TooLarge("a call of 2 GiB"), 0))?;
        out[start + 1..start + 5].copy_from_slice(&(PATH_FLAG | offset).to_le_bytes());
        put_cstr(path, out)?;
    }
    Ok(())
}

fn decode_call(meta: u8, r: &mut Reader<'_>) -> Result<RemoteCall> {
    let call = read_call(meta, r)?;
    Ok(RemoteCall {
        args: call.args.to_variants()?,
        node: call.node,
        method: call.method,
    })
}

/// The usual call, read at once where it starts (after its meta byte): one-byte
/// node and method ids (a node id of one byte is never by path), counted arguments.
#[inline(always)]
fn usual_call(meta: u8, bytes: &[u8], at: usize) -> Option<CallRef<'_>> {
    match (meta, bytes.get(at..)?) {
        (REMOTE_CALL, &[node, method, argc, ..]) => Some(CallRef {
            node: NodeRef::Cached(node.into()),
            method: method.into(),
            args: Args {
                bytes,
                start: at + 3,
                argc: Some(argc),
            },
        }),
        _ => None,
    }
}

/// The node and method of a call, and where its arguments are.
fn read_call<'a>(meta: u8, r: &mut Reader<'a>) -> Result<CallRef<'a>> {
    if let Some(call) = usual_call(meta, r.bytes, r.pos) {
        r.pos = r.bytes.len();
        return Ok(call);
    }
    if meta & 0x08 != 0 {
        return Err(Error::at(ErrorKind::Flags(meta), 0));
    }
    let size = (meta >> NODE_ID_SHIFT) & 3;
    let node = match size {
        0 => u32::from(r.u8("the node id")?),
        1 => u32::from(r.u16("the node id")?),
        2 => r.u32("the node id")?,
        _ => return Err(Error::at(ErrorKind::NodeIdSize, 0)),
    };
    let method = if meta & METHOD_ID_16 != 0 {
        r.u16("the method id")?
    } else {
        u16::from(r.u8("the method id")?)
    };
    // By path: the arguments end where the path begins.
    let (args_end, node) = if node & PATH_FLAG != 0 {
        let offset = node & !PATH_FLAG;
        let at = offset as usize;
        if at < r.pos || at >= r.bytes.len() {
            return Err(Error::at(ErrorKind::PathOffset(offset), 1));
        }
        let path = Reader::new(r.bytes, at).last_cstr("node path")?;
        (at, NodeRef::Path(path))
    } else {
        let wide = size == 2 && node <= 0xFFFF;
        (
            r.bytes.len(),
            if wide {
                NodeRef::CachedWide(node)
            } else {
                NodeRef::Cached(node)
            },
        )
    };
    let mut a = Reader::new(&r.bytes[..args_end], r.pos);
    let argc = if meta & BYTES_OR_NONE != 0 {
        None
    } else {
        Some(a.u8("the argument count")?)
    };
    r.pos = r.bytes.len();
    Ok(CallRef {
        node,
        method,
        args: Args {
            bytes: a.bytes,
            start: a.pos,
            argc,
        },
    })
}

/// A remote call read in place: its node and method, and its arguments still as the
/// packet's bytes, read straight into the Rust types a handler asks for
/// ([`Args::get`]) without a [`Variant`] in between. The fast way for a server to
/// take calls; [`Packet::decode`] gives the same call with its arguments as
/// `Variant`s.
///
/// ```
/// use godot_bin::Vector3;
/// use godot_bin_multiplayer::{CallRef, NodeRef, Packet, RemoteCall};
/// let packet = Packet::Call(RemoteCall {
///     node: NodeRef::Cached(1),
///     method: 0,
///     args: vec![Vector3::new(1.0, 2.0, 3.0).into(), 7.into()],
/// })
/// .encode()?;
/// let call = CallRef::decode(&packet)?.expect("a remote call");
/// assert_eq!((call.node, call.method, call.args.len()), (NodeRef::Cached(1), 0, 2));
/// let (at, speed): (Vector3, i32) = call.args.get()?;
/// assert_eq!((at, speed), (Vector3::new(1.0, 2.0, 3.0), 7));
/// # Ok::<(), godot_bin_multiplayer::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CallRef<'a> {
    /// The node called.
    pub node: NodeRef,
    /// As in [`RemoteCall::method`].
    pub method: u16,
    /// The arguments, not yet read.
    pub args: Args<'a>,
}

impl<'a> CallRef<'a> {
    /// Reads the node and method of a remote call packet, leaving the arguments to
    /// [`Args::get`] or [`Args::to_variants`]; `None` for any other packet. The
    /// errors are [`Packet::decode`]'s, those of the arguments when they are read.
    #[inline]
    pub fn decode(bytes: &'a [u8]) -> Result<Option<CallRef<'a>>> {
        let Some(&meta) = bytes.first() else {
            return Err(Error::at(ErrorKind::Empty, 0));
        };
        if meta & CMD_MASK != REMOTE_CALL {
            return Ok(None);
        }
        if let Some(call) = usual_call(meta, bytes, 1) {
            return Ok(Some(call));
        }
        read_call(meta, &mut Reader::new(bytes, 1)).map(Some)
    }

    /// The call with its arguments read as `Variant`s (what [`Packet::decode`] gives).
    pub fn to_remote_call(&self) -> Result<RemoteCall> {
        Ok(RemoteCall {
            node: self.node.clone(),
            method: self.method,
            args: self.args.to_variants()?,
        })
    }
}

/// The arguments of a [`CallRef`], as the packet's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Args<'a> {
    /// The packet up to the end of the arguments.
    bytes: &'a [u8],
    /// Where the first argument starts.
    start: usize,
    /// `None`: no count, so no arguments or one PackedByteArray of the bytes left.
    argc: Option<u8>,
}

impl<'a> Args<'a> {
    /// How many arguments there are.
    pub fn len(&self) -> usize {
        match self.argc {
            Some(n) => usize::from(n),
            None => usize::from(self.start < self.bytes.len()),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The arguments as a Rust value, usually a tuple: `let (pos, name): (Vector3,
    /// String) = call.args.get()?`; also a `Vec`, a struct (by position), or `()`,
    /// a unit struct or `None` for none (any arguments are `Some` of the list). Each argument reads as godot_bin reads that value from Godot 4
    /// bytes (compressed bools and ints as the plain ones they stand for). Errors
    /// give their offset in the packet; arguments that are not all read, or bytes
    /// after them, are errors. Where godot_bin's typed reads differ from its
    /// `Variant`s, this differs from reading the `Variant`s alike (as
    /// [`crate::Call::args`] reads arguments made from them): a struct refuses a
    /// Dictionary with a key twice, whose `Variant` keeps the last value; a
    /// double-precision math value read as a sequence of `f64` keeps its 64-bit
    /// reals, which a `Variant` rounds to 32 bits.
    ///
    /// A value may borrow from the packet, as with `godot_bin::from_slice`: strings as
    /// `&str` and byte arrays as `&[u8]` (a PackedByteArray sent alone too), with no
    /// allocation. A text the packet does not hold as it is (a NodePath's, made from
    /// its names) reads as a `String`, and as a `&str` is an error:
    ///
    /// ```
    /// use godot_bin::Variant;
    /// use godot_bin_multiplayer::{CallRef, NodeRef, Packet, RemoteCall};
    /// let args = vec![Variant::from("gg"), Variant::Int(42)];
    /// let packet = Packet::Call(RemoteCall { node: NodeRef::Cached(1), method: 0, args });
    /// let bytes = packet.encode()?;
    /// let call = CallRef::decode(&bytes)?.unwrap();
    /// let (text, n): (&str, i64) = call.args.get()?;
    /// assert_eq!((text, n), ("gg", 42));
    /// # Ok::<(), godot_bin_multiplayer::Error>(())
    /// ```
    #[inline(always)]
    pub fn get<T: Deserialize<'a>>(&self) -> Result<T> {
        match self.argc {
            Some(argc) => {
                let value = args::get(self.bytes, self.start, usize::from(argc))?;
                self.counted_form(argc)?;
                Ok(value)
            }
            // One PackedByteArray, sent as its bytes alone.
            None if self.start < self.bytes.len() => {
                args::get_byte_array(&self.bytes[self.start..]).map_err(|e| e.placed(self.start))
            }
            None => args::get(&[0], 1, 0).map_err(|e| e.placed(self.start)),
        }
    }

    /// The arguments as `Variant`s.
    #[inline]
    pub fn to_variants(&self) -> Result<Vec<Variant>> {
        match self.argc {
            None => Ok(match &self.bytes[self.start..] {
                [] => Vec::new(),
                b => vec![Variant::PoolByteArray(godot_bin::PoolByteArray(b.to_vec()))],
            }),
            Some(argc) => {
                let mut a = Reader::new(self.bytes, self.start);
                let args = args::decode(&mut a, usize::from(argc))?;
                a.end()?;
                self.counted_form(argc)?;
                Ok(args)
            }
        }
    }

    /// Checks the arguments as [`Args::to_variants`] reads them, with its errors,
    /// without making them (see `args::check`).
    #[inline]
    pub(crate) fn check(&self) -> Result<()> {
        if let Some(argc) = self.argc {
            let mut a = Reader::new(self.bytes, self.start);
            args::check(&mut a, usize::from(argc))?;
            a.end()?;
            self.counted_form(argc)?;
        }
        Ok(())
    }

    /// The packet up to the end of the arguments, where the first starts, and their
    /// count (`None`: none counted, see the field).
    pub(crate) fn parts(&self) -> (&'a [u8], usize, Option<u8>) {
        (self.bytes, self.start, self.argc)
    }

    /// Arguments of `bytes` (from [`Args::parts`]).
    pub(crate) fn from_parts(bytes: &'a [u8], start: usize, argc: Option<u8>) -> Self {
        Args { bytes, start, argc }
    }

    /// One form per call, so that what reads writes back the same: no arguments, or
    /// one PackedByteArray, never come with a count.
    #[inline]
    fn counted_form(&self, argc: u8) -> Result<()> {
        // The one argument read, so its first byte is its type.
        let one_bytes_array = argc == 1 && self.bytes.get(self.start) == Some(&PACKED_BYTE_ARRAY);
        if argc == 0 || one_bytes_array {
            return Err(Error::at(ErrorKind::CountedBytes, self.start - 1));
        }
        Ok(())
    }
}
