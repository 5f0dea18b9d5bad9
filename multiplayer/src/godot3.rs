//! Godot 3's MultiplayerAPI packets (what `rpc()` / `rset()` send in Godot 3.x), and
//! the transport headers around them.
//!
//! Unlike Godot 4, methods go by name, every argument is plain Godot 3
//! `encode_variant` (no compression), the count byte is always there, and the path
//! cache has no checksum: `[02][id u32][path\0]` is confirmed by `[03][path\0]`.
//!
//! ```
//! use godot_bin::Variant;
//! use godot_bin_multiplayer::godot3::{Packet, RemoteCall};
//! use godot_bin_multiplayer::NodeRef;
//!
//! let call = Packet::Call(RemoteCall {
//!     node: NodeRef::Cached(1),
//!     method: "hello".into(),
//!     args: vec![Variant::Int(7)],
//! });
//! let bytes = call.encode()?;
//! assert_eq!(bytes, b"\x00\x01\x00\x00\x00hello\0\x01\x02\x00\x00\x00\x07\x00\x00\x00");
//! assert_eq!(Packet::decode(&bytes)?, call);
//! # Ok::<(), godot_bin_multiplayer::Error>(())
//! ```

use godot_bin::{Config, Dialect, Variant};
use serde::Deserialize;

use crate::error::{Error, ErrorKind, Result};
use crate::reader::{engine_text, put_cstr, put_text, Reader};
use crate::NodeRef;

pub(crate) const REMOTE_CALL: u8 = 0;
const REMOTE_SET: u8 = 1;
const SIMPLIFY_PATH: u8 = 2;
const CONFIRM_PATH: u8 = 3;
const RAW: u8 = 4;
const PATH_FLAG: u32 = 0x8000_0000;

fn config() -> Config {
    Config::new().dialect(Dialect::Godot3)
}

/// One Godot 3 MultiplayerAPI packet.
///
/// Node paths, method and property names are the text the engine reads from the
/// bytes: it drops one leading BOM, so decoding does too, and encoding writes a
/// leading BOM twice, so that the engine reads the name given. `ConfirmPath` is the
/// exception: the engine writes there the path as it holds it, BOM and all.
#[derive(Debug, Clone, PartialEq)]
pub enum Packet {
    /// `rpc()` and friends.
    Call(RemoteCall),
    /// `rset()` and friends: `[01][node][property\0][value]`.
    Set {
        /// The node.
        node: NodeRef,
        /// The property's name.
        property: String,
        /// Its new value.
        value: Variant,
    },
    /// The sender will call the node at `path` by `id` from now on.
    SimplifyPath {
        /// The sender's cache id.
        id: u32,
        /// The node's path relative to the root.
        path: String,
    },
    /// The answer to `SimplifyPath`: the path, not the id.
    ConfirmPath(String),
    /// `send_bytes`.
    Raw(Vec<u8>),
}

/// A Godot 3 rpc: `[00][node u32][method\0][argc][args][path\0 when by path]`.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteCall {
    /// The node called (a cached id always takes 4 bytes in Godot 3).
    pub node: NodeRef,
    /// The method's name.
    pub method: String,
    /// The arguments.
    pub args: Vec<Variant>,
}

impl Packet {
    /// Reads one whole packet.
    pub fn decode(bytes: &[u8]) -> Result<Packet> {
        let mut r = Reader::new(bytes, 0);
        let cmd = r
            .take(1, "the command byte")
            .map_err(|_| Error::at(ErrorKind::Empty, 0))?[0];
        let packet = match cmd {
            REMOTE_CALL => {
                let (node, method, argc, body) = call_head(bytes)?;
                r.pos = bytes.len();
                Packet::Call(RemoteCall {
                    node,
                    method: method.to_owned(),
                    args: call_args(usize::from(argc), body)?,
                })
            }
            REMOTE_SET => {
                let (node, property, mut body) = named(bytes)?;
                let property = property.to_owned();
                let value = variant(&config(), &mut body, 0)?;
                body.end()?;
                r.pos = bytes.len();
                Packet::Set {
                    node,
                    property,
                    value,
                }
            }
            SIMPLIFY_PATH => {
                let id = r.u32("the cache id")?;
                Packet::SimplifyPath {
                    id,
                    path: r.last_cstr("node path")?,
                }
            }
            // The path as the peer holds it, read from the SIMPLIFY_PATH it confirms
            // (a leading BOM the sender wrote twice is one here), written out as it is:
            // read as it is, it is the path that was sent.
            CONFIRM_PATH => Packet::ConfirmPath(r.last_text("node path")?.to_owned()),
            RAW => Packet::Raw(crate::scene4::raw_bytes(r.rest())?.to_vec()),
            c => return Err(Error::at(ErrorKind::UnknownCommand(c), 0)),
        };
        r.end()?;
        Ok(packet)
    }

    /// The packet's bytes.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.encode_into(&mut out)?;
        Ok(out)
    }

    /// Appends the packet's bytes to `out` (which keeps them only on success).
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        let r = self.write(out, start);
        if r.is_err() {
            out.truncate(start);
        }
        r
    }

    fn write(&self, out: &mut Vec<u8>, start: usize) -> Result<()> {
        let cfg = config();
        match self {
            Packet::Call(call) => {
                head(REMOTE_CALL, &call.node, &call.method, out)?;
                let argc = u8::try_from(call.args.len())
                    .map_err(|_| Error::at(ErrorKind::TooLarge("more than 255 arguments"), 0))?;
                out.push(argc);
                for (index, arg) in call.args.iter().enumerate() {
                    put_variant(&cfg, arg, index, out)?;
                }
                tail(&call.node, out, start)?;
            }
            Packet::Set {
                node,
                property,
                value,
            } => {
                head(REMOTE_SET, node, property, out)?;
                put_variant(&cfg, value, 0, out)?;
                tail(node, out, start)?;
            }
            Packet::SimplifyPath { id, path } => {
                out.push(SIMPLIFY_PATH);
                out.extend_from_slice(&id.to_le_bytes());
                put_cstr(path, out)?;
            }
            Packet::ConfirmPath(path) => {
                out.push(CONFIRM_PATH);
                put_text(path, out)?;
            }
            Packet::Raw(b) => {
                out.push(RAW);
                out.extend_from_slice(crate::scene4::raw_bytes(b)?);
            }
        }
        Ok(())
    }
}

/// The node and the name of a call or set (`bytes`, from its command byte), and the
/// rest of its body.
fn named(bytes: &[u8]) -> Result<(NodeRef, &str, Reader<'_>)> {
    let mut r = Reader::new(bytes, 1);
    let (node, end) = node(&mut r)?;
    let mut body = Reader::new(&bytes[..end], r.pos);
    let name = cstr(&mut body, "method name")?;
    Ok((node, name, body))
}

/// Whether a Godot 3 transport header's target `to` names `peer`: that peer, every
/// peer (0), or every peer but another (-N), as the engine's transports deliver it.
pub(crate) fn names(to: i32, peer: i32) -> bool {
    to == peer || to == 0 || (to < 0 && to.checked_neg() != Some(peer))
}

/// A call's node, method name and argument count (`bytes`, from its command byte),
/// and its arguments' bytes. Apart from [`call_args`], so that the call's mode is
/// checked before its arguments are read, as the engine checks it (after the count
/// is there).
pub(crate) fn call_head(bytes: &[u8]) -> Result<(NodeRef, &str, u8, Reader<'_>)> {
    let (node, method, mut body) = named(bytes)?;
    let argc = body.u8("the argument count")?;
    Ok((node, method, argc, body))
}

/// [`call_head`], with the arguments left to [`Args::get`] or [`Args::to_variants`]
/// (`Session::receive_call3`, and `receive`, which checks the call's mode first).
pub(crate) fn call_in_place(bytes: &[u8]) -> Result<(NodeRef, &str, Args<'_>)> {
    let (node, method, argc, body) = call_head(bytes)?;
    let args = Args {
        bytes: body.bytes,
        start: body.pos,
        argc,
    };
    Ok((node, method, args))
}

/// The arguments of a Godot 3 call received in place
/// ([`crate::Session::receive_call3`]), as the packet's bytes: plain Godot 3 values.
///
/// ```
/// use godot_bin::{Variant, Vector3};
/// use godot_bin_multiplayer::godot3::{Packet, RemoteCall};
/// use godot_bin_multiplayer::{Delivery, NodeRef, Protocol, Scene, Session};
/// let mut server = Session::server(Scene::new().node("Game", ["move"])).protocol(Protocol::Godot3);
/// server.connect(7);
/// let args = vec![Vector3::new(1.0, 2.0, 3.0).into(), Variant::from("dash")];
/// let call = Packet::Call(RemoteCall { node: NodeRef::Path("Game".into()), method: "move".into(), args });
/// let bytes = call.encode()?;
/// let call = server.receive_call3(7, Delivery::default(), &bytes)?.unwrap();
/// let (to, how): (Vector3, &str) = call.args.get()?;
/// assert_eq!((call.method, to.z, how), ("move", 3.0, "dash"));
/// # Ok::<(), godot_bin_multiplayer::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Args<'a> {
    /// The packet up to the end of the arguments (its path, if by path).
    bytes: &'a [u8],
    /// Where the first argument starts.
    start: usize,
    argc: u8,
}

impl<'a> Args<'a> {
    /// How many arguments there are.
    pub fn len(&self) -> usize {
        usize::from(self.argc)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.argc == 0
    }

    /// The arguments as a Rust value, as [`crate::Args::get`] reads Godot 4's: each
    /// argument as godot_bin reads that value from Godot 3 bytes, strings and byte
    /// arrays borrowed from the packet where asked for as `&str` and `&[u8]`. Errors
    /// are those of receiving the call as an [`crate::Event::Call`], at the same byte.
    /// Where godot_bin's typed reads differ from its `Variant`s, this differs from
    /// reading the `Variant`s alike (as [`crate::Call::args`] reads arguments made
    /// from them): besides the differences `crate::Args::get` names,
    /// a Godot 3 RID, which carries no id on the wire, reads as a unit, where its
    /// `Variant` is RID 0.
    pub fn get<T: Deserialize<'a>>(&self) -> Result<T> {
        crate::args::get_in::<T, true>(self.bytes, self.start, usize::from(self.argc))
    }

    /// The arguments as `Variant`s.
    pub fn to_variants(&self) -> Result<Vec<Variant>> {
        call_args(usize::from(self.argc), Reader::new(self.bytes, self.start))
    }

    /// Checks the arguments as [`Args::to_variants`] reads them, with its errors,
    /// without making them (see `args::check`).
    pub(crate) fn check(&self) -> Result<()> {
        let cfg = config();
        let mut body = Reader::new(self.bytes, self.start);
        enough(usize::from(self.argc), &body)?;
        for index in 0..usize::from(self.argc) {
            let at = body.pos;
            match crate::args::fast_len::<true>(&body.bytes[at..]) {
                Some(used) => body.pos = at + used,
                None => skip_variant(&cfg, &mut body, index)?,
            }
        }
        body.end()
    }

    /// The packet up to the end of the arguments, where the first starts, and their
    /// count.
    pub(crate) fn parts(&self) -> (&'a [u8], usize, u8) {
        (self.bytes, self.start, self.argc)
    }

    /// Arguments of `bytes` (from [`Args::parts`]).
    pub(crate) fn from_parts(bytes: &'a [u8], start: usize, argc: u8) -> Self {
        Args { bytes, start, argc }
    }
}

/// Refuses a count of arguments the body cannot hold: every Godot 3 value takes 4
/// bytes at least.
fn enough(argc: usize, body: &Reader<'_>) -> Result<()> {
    let end = body.bytes.len();
    if argc * 4 > end - body.pos {
        return Err(Error::at(ErrorKind::Truncated("the arguments"), end));
    }
    Ok(())
}

/// The `argc` arguments of a call, which `body` (from [`call_head`]) must hold exactly.
pub(crate) fn call_args(argc: usize, mut body: Reader<'_>) -> Result<Vec<Variant>> {
    let cfg = config();
    enough(argc, &body)?;
    let mut args = Vec::with_capacity(argc);
    for index in 0..argc {
        // The usual arguments read straight from their bytes (the decoder's setup
        // costs more than they do), as the decoder reads them.
        let at = body.pos;
        let arg = match crate::args::fast_in::<true>(&body.bytes[at..]) {
            Some((v, used)) => {
                body.pos = at + used;
                v
            }
            None => variant(&cfg, &mut body, index)?,
        };
        args.push(arg);
    }
    body.end()?;
    Ok(args)
}

/// The node field and where the packet's body ends (at the path, if by path).
fn node(r: &mut Reader<'_>) -> Result<(NodeRef, usize)> {
    let id = r.u32("the node id")?;
    if id & PATH_FLAG == 0 {
        return Ok((NodeRef::Cached(id), r.bytes.len()));
    }
    let offset = id & !PATH_FLAG;
    let at = offset as usize;
    if at < r.pos || at >= r.bytes.len() {
        return Err(Error::at(ErrorKind::PathOffset(offset), 1));
    }
    let path = Reader::new(r.bytes, at).last_cstr("node path")?;
    Ok((NodeRef::Path(path), at))
}

fn cstr<'a>(r: &mut Reader<'a>, what: &'static str) -> Result<&'a str> {
    let at = r.pos;
    let rest = &r.bytes[at..];
    let len = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| Error::at(ErrorKind::Unterminated, at))?;
    let s = std::str::from_utf8(&rest[..len])
        .map_err(|e| Error::at(ErrorKind::Utf8(what), at + e.valid_up_to()))?;
    r.pos += len + 1;
    Ok(engine_text(s))
}

/// One plain Variant at `r` (argument `index`, for errors), by godot_bin's decoder.
pub(crate) fn variant(cfg: &Config, r: &mut Reader<'_>, index: usize) -> Result<Variant> {
    argument(r, index, |b| cfg.take_from_slice::<Variant>(b))
}

/// [`variant`]'s check: the value at `r` read as it reads it, with its errors, not
/// made (`Config::skip_variant`).
pub(crate) fn skip_variant(cfg: &Config, r: &mut Reader<'_>, index: usize) -> Result<()> {
    argument(r, index, |b| cfg.skip_variant(b).map(|used| ((), used)))
}

/// What `read` takes from the front of `r`'s bytes, `r` moved past it; its error as
/// argument `index`'s, at its place in the packet.
fn argument<T>(
    r: &mut Reader<'_>,
    index: usize,
    read: impl FnOnce(&[u8]) -> godot_bin::Result<(T, usize)>,
) -> Result<T> {
    let at = r.pos;
    let (v, used) = read(&r.bytes[at..]).map_err(|source| {
        let offset = at + source.offset().unwrap_or(0);
        Error::at(ErrorKind::Argument { index, source }, offset)
    })?;
    r.pos = at + used;
    Ok(v)
}

fn put_variant(cfg: &Config, v: &Variant, index: usize, out: &mut Vec<u8>) -> Result<()> {
    let at = out.len();
    cfg.to_vec_into(v, out)
        .map(drop)
        .map_err(|source| Error::at(ErrorKind::Argument { index, source }, at))
}

fn head(cmd: u8, node: &NodeRef, name: &str, out: &mut Vec<u8>) -> Result<()> {
    out.push(cmd);
    let id = match node {
        NodeRef::Cached(id) | NodeRef::CachedWide(id) if id & PATH_FLAG != 0 => {
            return Err(Error::at(
                ErrorKind::TooLarge("a cache id with bit 31 set"),
                0,
            ))
        }
        NodeRef::Cached(id) | NodeRef::CachedWide(id) => *id,
        // Patched once the path's offset is known.
        NodeRef::Path(_) => 0,
    };
    out.extend_from_slice(&id.to_le_bytes());
    put_cstr(name, out)
}

fn tail(node: &NodeRef, out: &mut Vec<u8>, start: usize) -> Result<()> {
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

/// Godot 3's WebSocket multiplayer header: `[type u8][from i32][to i32]` before
/// every message (`WebSocketClient` / `WebSocketServer` as `network_peer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WsHeader {
    /// What the message is.
    pub kind: WsKind,
    /// The sender (1 for the server's own and system messages).
    pub from: i32,
    /// The target: 1 the server, 0 all, -id all but id.
    pub to: i32,
}

/// The message types of [`WsHeader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsKind {
    /// A MultiplayerAPI packet follows.
    Payload,
    /// System: a peer (id in the 4 bytes after the header) joined.
    AddPeer,
    /// System: a peer left.
    DelPeer,
    /// System: the receiving client's id.
    Id,
}

impl WsHeader {
    /// The header's size.
    pub const SIZE: usize = 9;

    /// Splits a message into its header and what follows.
    pub fn split(msg: &[u8]) -> Result<(WsHeader, &[u8])> {
        let mut r = Reader::new(msg, 0);
        let kind = match r.u8("the message type")? {
            0 => WsKind::Payload,
            1 => WsKind::AddPeer,
            2 => WsKind::DelPeer,
            3 => WsKind::Id,
            k => return Err(Error::at(ErrorKind::UnknownCommand(k), 0)),
        };
        let from = r.u32("the source")? as i32;
        let to = r.u32("the target")? as i32;
        Ok((WsHeader { kind, from, to }, r.rest()))
    }

    /// `body` with this header in front.
    pub fn wrap(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::SIZE + body.len());
        out.push(match self.kind {
            WsKind::Payload => 0,
            WsKind::AddPeer => 1,
            WsKind::DelPeer => 2,
            WsKind::Id => 3,
        });
        out.extend_from_slice(&self.from.to_le_bytes());
        out.extend_from_slice(&self.to.to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    /// A system message from the server about `peer`.
    pub fn system(kind: WsKind, peer: i32) -> Vec<u8> {
        WsHeader {
            kind,
            from: 1,
            to: 0,
        }
        .wrap(&peer.to_le_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A method name is its bytes up to the NUL, but for one leading BOM (which the
    /// engine drops), and bytes that are not UTF-8 are refused where they stop being
    /// it.
    #[test]
    fn a_method_name_reads_as_its_bytes() {
        let long = "n".repeat(100);
        for name in ["move", "x", "", "héllo", "a\u{feff}", &long] {
            let mut b = name.as_bytes().to_vec();
            b.extend_from_slice(b"\0rest");
            let mut r = Reader::new(&b, 0);
            assert_eq!(cstr(&mut r, "method name").unwrap(), name);
            assert_eq!(r.pos, name.len() + 1);
        }
        for (wire, name) in [("\u{feff}move", "move"), ("\u{feff}\u{feff}x", "\u{feff}x")] {
            let mut b = wire.as_bytes().to_vec();
            b.push(0);
            let mut r = Reader::new(&b, 0);
            assert_eq!(cstr(&mut r, "method name").unwrap(), name);
            assert_eq!(r.pos, b.len());
        }
        let mut r = Reader::new(b"mo\xffve\0", 0);
        let e = cstr(&mut r, "method name").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Utf8("method name")), "{e}");
        assert_eq!(e.offset(), 2);
        let mut r = Reader::new(b"move", 0);
        let e = cstr(&mut r, "method name").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Unterminated), "{e}");
        assert_eq!(e.offset(), 0);
    }

    #[test]
    fn a_header_target_names_a_peer_all_or_all_but_one() {
        assert!(names(7, 7) && !names(7, 8) && !names(1, 7));
        assert!(names(0, 1) && names(0, 7));
        assert!(names(-7, 1) && names(-7, 8) && !names(-7, 7));
        assert!(!names(-1, 1) && names(-1, 7));
        // -i32::MIN is no peer's id: it excludes no one.
        assert!(names(i32::MIN, 1) && names(i32::MIN, i32::MAX));
    }

    /// A leading BOM in a path or a name is written twice, so that what decodes (as
    /// the engine reads it, one BOM dropped) is the name given; a confirmed path is
    /// written and read as it is.
    #[test]
    fn names_with_a_leading_bom_come_back_as_given() {
        let bom = "\u{feff}";
        let call = Packet::Call(RemoteCall {
            node: NodeRef::Path(format!("{bom}Game")),
            method: format!("{bom}greet"),
            args: vec![],
        });
        let simplify = Packet::SimplifyPath {
            id: 7,
            path: format!("{bom}Game"),
        };
        let confirm = Packet::ConfirmPath(format!("{bom}Game"));
        for p in [call, simplify, confirm] {
            let bytes = p.encode().unwrap();
            let doubled = format!("{bom}{bom}Game").into_bytes();
            let twice = bytes.windows(doubled.len()).any(|w| w == doubled);
            assert_eq!(twice, !matches!(p, Packet::ConfirmPath(_)), "{p:?}");
            assert_eq!(Packet::decode(&bytes).unwrap(), p);
        }
    }
}
