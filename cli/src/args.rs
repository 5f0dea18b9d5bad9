//! The command line: commands, options and their values.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use godot_bin::framing::Framing;
use godot_bin::Dialect;

/// Inspect, convert, encode and relay Godot's binary Variant bytes (var2bytes,
/// store_var, put_var).
#[derive(Parser, Debug)]
#[command(name = "godot-bin", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Bytes to Godot's text form, a dissection tree, or JSON.
    Decode(DecodeArgs),
    /// Godot's text form to bytes.
    Encode(EncodeArgs),
    /// A save (bare value or store_var sequence) from one dialect, or JSON, to another.
    Convert(ConvertArgs),
    /// A logging TCP relay between a Godot game and its server, with injection.
    Proxy(ProxyArgs),
    /// Plays a proxy log's client side against a server and compares the replies.
    Replay(ReplayArgs),
    /// A packet in a game's own StreamPeer layout (put_u8, put_float, ...), field by
    /// field with byte offsets, from a layout such as "u8 str0 vec3 quat".
    Raw(RawArgs),
}

/// Which engine's bytes: `2`, `3`, `4`, or `auto` (detected from the first value).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialectArg {
    #[value(name = "2")]
    Godot2,
    #[value(name = "3")]
    Godot3,
    #[value(name = "4")]
    Godot4,
    Auto,
}

impl DialectArg {
    pub fn fixed(self) -> Option<Dialect> {
        match self {
            DialectArg::Godot2 => Some(Dialect::Godot2),
            DialectArg::Godot3 => Some(Dialect::Godot3),
            DialectArg::Godot4 => Some(Dialect::Godot4),
            DialectArg::Auto => None,
        }
    }
}

/// A concrete dialect (for writing).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialectOut {
    #[value(name = "2")]
    Godot2,
    #[value(name = "3")]
    Godot3,
    #[value(name = "4")]
    Godot4,
}

impl DialectOut {
    pub fn dialect(self) -> Dialect {
        match self {
            DialectOut::Godot2 => Dialect::Godot2,
            DialectOut::Godot3 => Dialect::Godot3,
            DialectOut::Godot4 => Dialect::Godot4,
        }
    }
}

/// How values are framed.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramingArg {
    /// One bare value (`var2bytes`, one `PacketPeer` packet).
    None,
    /// `store_var` / `StreamPeer.put_var`: a little-endian u32 length before each value.
    StoreVar,
    /// The same with a big-endian length (`big_endian` / `endian_swap` set).
    StoreVarBe,
    /// `PacketPeerStream`: a little-endian u32 length before each value.
    PacketPeerStream,
}

impl FramingArg {
    /// The library's framing; `None` for bare values.
    pub fn framing(self) -> Option<Framing> {
        match self {
            FramingArg::None => None,
            FramingArg::StoreVar => Some(Framing::STORE_VAR),
            FramingArg::StoreVarBe => Some(Framing::StreamPeer { big_endian: true }),
            FramingArg::PacketPeerStream => Some(Framing::PacketPeerStream),
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BytesFormat {
    Raw,
    Hex,
    Base64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeOutput {
    /// The engine's own text form (var2str / var_to_str) for the dialect.
    Text,
    /// One line per value: offset, length, type, header flags, value and hex.
    Tree,
    /// One JSON document per value and line (godot_bin's JSON mapping).
    Json,
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// The bytes to read; standard input when absent.
    pub file: Option<PathBuf>,
    /// How the input spells the bytes.
    #[arg(long, value_enum, default_value = "raw")]
    pub input: BytesFormat,
    /// Which engine wrote the bytes; `auto` detects it (and says what it chose).
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,
    /// A file of many values prints each.
    #[arg(long, value_enum, default_value = "none")]
    pub framing: FramingArg,
    /// What to print for each value.
    #[arg(long, value_enum, default_value = "text")]
    pub output: DecodeOutput,
    /// The password of an encrypted save (open_encrypted_with_pass).
    #[arg(long)]
    pub password: Option<String>,
    /// Read full Objects (class and properties) as inert data; Godot's bytes2var
    /// refuses them by default, and so does this.
    #[arg(long)]
    pub allow_objects: bool,
}

#[derive(Args, Debug)]
pub struct RawArgs {
    /// The packet's fields in order, separated by spaces or commas: u8 i8 u16 i16 u32
    /// i32 u64 i64 half f32 f64 bool str0 utf8 str3 str4 var vec2 vec3 quat color
    /// bytes rest.
    #[arg(long)]
    pub layout: String,
    /// The packet; standard input when absent.
    pub file: Option<PathBuf>,
    /// How the input spells the bytes.
    #[arg(long, value_enum, default_value = "raw")]
    pub input: BytesFormat,
    /// Numbers and length prefixes are big-endian (StreamPeer.big_endian = true).
    #[arg(long)]
    pub big_endian: bool,
    /// The width of the count before `bytes`.
    #[arg(long, value_enum, default_value = "u32")]
    pub count: CountArg,
    /// Which engine's Variant bytes `var` fields hold.
    #[arg(long, value_enum, default_value = "4")]
    pub dialect: DialectOut,
}

/// A count prefix width.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountArg {
    U8,
    U16,
    U32,
}

#[derive(Args, Debug)]
pub struct EncodeArgs {
    /// Text-form values (several need a framing), in one argument or several;
    /// standard input when absent.
    pub text: Vec<String>,
    /// The dialect to write (and whose text syntax to read).
    #[arg(long, value_enum, default_value = "4")]
    pub dialect: DialectOut,
    /// How to frame the values; several values need one.
    #[arg(long, value_enum, default_value = "none")]
    pub framing: FramingArg,
    /// How to spell the bytes.
    #[arg(long, value_enum, default_value = "raw")]
    pub output: BytesFormat,
    /// Write an encrypted save (open_encrypted_with_pass) with this password.
    #[arg(long)]
    pub password: Option<String>,
}

/// A dialect or JSON, for `convert`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertFormat {
    #[value(name = "2")]
    Godot2,
    #[value(name = "3")]
    Godot3,
    #[value(name = "4")]
    Godot4,
    /// JSON documents, one per value (godot_bin's JSON mapping).
    Json,
    /// Detect the dialect from the first value (input only).
    Auto,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertFraming {
    /// A store_var sequence if the whole input is one, else one bare value.
    Auto,
    None,
    StoreVar,
    StoreVarBe,
    PacketPeerStream,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The input file (`-` for standard input).
    pub input: PathBuf,
    /// The output file (`-` for standard output).
    pub output: PathBuf,
    /// The input's dialect (`auto`: detected), or `json`.
    #[arg(long, value_enum)]
    pub from: ConvertFormat,
    /// The output's dialect, or `json`.
    #[arg(long, value_enum)]
    pub to: ConvertFormat,
    /// The framing of the input, kept for the output.
    #[arg(long, value_enum, default_value = "auto")]
    pub framing: ConvertFraming,
    /// Opens an encrypted input, and encrypts the output, with this password.
    #[arg(long)]
    pub password: Option<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyFraming {
    PacketPeerStream,
    StoreVar,
    StoreVarBe,
    /// Whatever each read returns is one message.
    None,
}

impl ProxyFraming {
    pub fn framing(self) -> Option<Framing> {
        match self {
            ProxyFraming::None => None,
            ProxyFraming::StoreVar => Some(Framing::STORE_VAR),
            ProxyFraming::StoreVarBe => Some(Framing::StreamPeer { big_endian: true }),
            ProxyFraming::PacketPeerStream => Some(Framing::PacketPeerStream),
        }
    }
}

#[derive(Args, Debug)]
pub struct ProxyArgs {
    /// Where the game connects (e.g. 127.0.0.1:4243).
    #[arg(long)]
    pub listen: SocketAddr,
    /// The real server.
    #[arg(long)]
    pub connect: SocketAddr,
    #[arg(long, value_enum, default_value = "packet-peer-stream")]
    pub framing: ProxyFraming,
    /// The dialect of the session (`auto`: from each connection's first message).
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,
    /// Also write every message as a JSON line to this file.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Only print (and log) messages whose text form contains this.
    #[arg(long)]
    pub filter: Option<String>,
    /// Stop after this many connections have ended (for scripts and tests).
    #[arg(long)]
    pub max_sessions: Option<usize>,
    /// `tcp`: Variants on a stream (`--framing`). `websocket`, `enet`: Godot's
    /// high-level multiplayer, each packet decoded (RPCs, path cache, peers).
    #[arg(long, value_enum, default_value = "tcp")]
    pub transport: ProxyTransport,
    /// With `--transport websocket|enet`: Godot 3 peers (methods by name, the
    /// transports' headers).
    #[arg(long)]
    pub godot3: bool,
    /// With `--transport websocket|enet`: a node's rpc method names, to name Godot 4's
    /// method ids (`--rpc Game=chat,move,welcome`; repeat for more nodes).
    #[arg(long)]
    pub rpc: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyTransport {
    Tcp,
    Websocket,
    Enet,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A JSON lines log written by `godot-bin proxy --log`.
    pub log: PathBuf,
    /// The server to replay against.
    #[arg(long)]
    pub connect: SocketAddr,
    /// Which of the log's connections to replay (default: the first).
    #[arg(long)]
    pub session: Option<u64>,
    /// How long to wait for each expected reply, in seconds.
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// The framing, if the log does not say (it does when `proxy` wrote all of it).
    #[arg(long, value_enum)]
    pub framing: Option<ProxyFraming>,
}
