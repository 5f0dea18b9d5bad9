//! Helpers shared by the fuzz targets (and the seed generator): how a selector byte
//! picks the settings, the re-encode allow-list, a reference frame splitter, and the
//! game-state type of `decode_struct`. The layouts here are what
//! `seeds/make-seeds.sh` writes, so change both together.

use std::collections::HashMap;
use std::sync::OnceLock;

use godot_bin::framing::Framing;
use godot_bin::{Config, Dialect, Error, PoolStringArray, Precision, Quat, Variant, Vector3};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// Bits 0-1 of a selector: 0 Godot 2, 1 Godot 3, 2 and 3 Godot 4 (the richest dialect
/// gets the spare value).
pub fn dialect(sel: u8) -> Dialect {
    [Dialect::Godot2, Dialect::Godot3, Dialect::Godot4, Dialect::Godot4][usize::from(sel & 3)]
}

/// The `decode` selector: bits 0-1 dialect, bit 2 double precision, bit 3 `allow_objects`.
/// Double precision is only applied to Godot 4: Godot 2 and 3 refuse to *encode* with it
/// (documented in `Config::precision`), which would make every re-encode fail.
pub fn config(sel: u8) -> Config {
    let d = dialect(sel);
    let precision = if d == Dialect::Godot4 && sel & 4 != 0 {
        Precision::Double
    } else {
        Precision::Single
    };
    Config::new()
        .dialect(d)
        .precision(precision)
        .allow_objects(sel & 8 != 0)
}

/// The stream selector of `var_reader` and `codec`: bits 0-1 framing (3 is the
/// engine's default `STORE_VAR` again), bits 2-3 dialect, bit 4 `allow_objects`.
/// Bits 5-7 are the target's own.
pub fn stream_config(sel: u8) -> (Framing, Config) {
    let framing = [
        Framing::StreamPeer { big_endian: false },
        Framing::StreamPeer { big_endian: true },
        Framing::PacketPeerStream,
        Framing::STORE_VAR,
    ][usize::from(sel & 3)];
    let cfg = Config::new()
        .dialect(dialect(sel >> 2))
        .allow_objects(sel & 16 != 0);
    (framing, cfg)
}

/// Frame limit for the stream targets: small, so that `FrameTooLarge` is easy to reach
/// and no input makes the reader wait for megabytes.
pub const MAX_FRAME: usize = 4096;

/// Re-encode errors accepted as documented unrepresentable cases (matched against the
/// error's `Display`; README, "Reading untrusted bytes"). Godot 2's decoder accepts the
/// 64-bit int and float form that 2.1.x forks wrote, but standard Godot 2 bytes carry
/// only 32-bit numbers: such a value has no Godot 2 encoding, and the encoder says so
/// rather than narrow it.
pub const UNREPRESENTABLE: &[&str] = &[
    "out of range for a Godot 2 int (i32)",
    "Godot 2 floats are 32-bit and it would change",
];

/// Whether a failed re-encode is acceptable: listed in [`UNREPRESENTABLE`], or in the
/// `FUZZ_ALLOW_REENCODE` environment variable (`|`-separated substrings), which a long
/// campaign sets to get past a finding already recorded. CI never sets it.
pub fn reencode_allowed(e: &Error) -> bool {
    static EXTRA: OnceLock<Vec<String>> = OnceLock::new();
    let extra = EXTRA.get_or_init(|| {
        std::env::var("FUZZ_ALLOW_REENCODE")
            .unwrap_or_default()
            .split('|')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    });
    let msg = e.to_string();
    UNREPRESENTABLE.iter().any(|s| msg.contains(s)) || extra.iter().any(|s| msg.contains(s))
}

/// Encodes a decoded value again; panics unless the error is an accepted one.
/// `None` means "accepted error, nothing to compare".
pub fn reencode(cfg: &Config, v: &Variant, input: &[u8]) -> Option<Vec<u8>> {
    match cfg.to_vec(v) {
        Ok(bytes) => Some(bytes),
        Err(e) if reencode_allowed(&e) => None,
        Err(e) => panic!("decoded value does not re-encode: {e}\n  value: {v:?}\n  input: {}", hex(input)),
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How a framed stream ends, by the engine's framing rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The input ends between frames.
    Clean,
    /// A length prefix above the limit; its frame starts at this offset.
    TooLarge(usize),
    /// The input ends inside a prefix or a frame.
    CutOff,
}

/// Splits `stream` into frames the simple way (a reference for the streaming readers):
/// every frame's value bytes with the offset where they start, and how the stream ends.
pub fn split_frames(stream: &[u8], framing: Framing, max: usize) -> (Vec<(usize, &[u8])>, End) {
    let mut frames = Vec::new();
    let mut at = 0;
    loop {
        let rest = &stream[at..];
        if rest.is_empty() {
            return (frames, End::Clean);
        }
        let Some(prefix) = rest.get(..4) else { return (frames, End::CutOff) };
        let len = framing.frame_len(prefix.try_into().unwrap());
        if len > max {
            return (frames, End::TooLarge(at));
        }
        let Some(value) = rest[4..].get(..len) else { return (frames, End::CutOff) };
        frames.push((at + 4, value));
        at += 4 + len;
    }
}

/// Checks what a streaming reader produced for one frame against decoding the frame's
/// bytes directly: same value, or an error of the same kind.
pub fn check_frame(cfg: &Config, frame: &[u8], got: &Result<Variant, Error>) {
    let want = cfg.from_slice::<Variant>(frame);
    match (got, &want) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "frame {}", hex(frame)),
        (Err(a), Err(b)) => assert_eq!(a.kind().to_string(), b.kind().to_string(), "frame {}", hex(frame)),
        _ => panic!("stream reader and from_slice disagree on frame {}: {got:?} vs {want:?}", hex(frame)),
    }
}

/// The `decode_struct` target's type: one of every shape a game's save or network
/// message has (scalars of several widths, options, nested structs, an enum with every
/// variant kind, a map, Godot math types, pool arrays of numbers and strings (owned and borrowed), bytes, a borrowed string).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameState<'a> {
    pub name: String,
    #[serde(borrow)]
    pub tag: &'a str,
    pub level: i32,
    pub score: i64,
    pub lives: u8,
    pub speed: f32,
    pub time: f64,
    pub best: Option<i64>,
    pub items: Vec<Item>,
    pub mode: Mode,
    pub stats: HashMap<String, i32>,
    pub pos: Vector3,
    pub rot: Quat,
    #[serde(with = "godot_bin::pool::real")]
    pub samples: Vec<f32>,
    pub blob: ByteBuf,
    pub titles: PoolStringArray,
    #[serde(with = "godot_bin::pool::string")]
    pub friends: Vec<String>,
    #[serde(borrow, with = "godot_bin::pool::string")]
    pub callsigns: Vec<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: i64,
    pub label: String,
    pub weight: f32,
    pub hidden: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Mode {
    Idle,
    Boost(f64),
    Travel { to: Vector3, run: bool },
}

/// A few sample states for the seed corpus.
pub fn sample_states() -> Vec<GameState<'static>> {
    let base = GameState {
        name: "Player One".into(),
        tag: "p1",
        level: 3,
        score: 1 << 40,
        lives: 2,
        speed: 1.5,
        time: 12.25,
        best: Some(-7),
        items: vec![
            Item { id: 1, label: "sword".into(), weight: 3.5, hidden: None },
            Item { id: 2, label: "shield".into(), weight: 0.1, hidden: Some(true) },
        ],
        mode: Mode::Travel { to: Vector3::new(1.0, 2.0, 3.0), run: true },
        stats: HashMap::from([("str".into(), 10), ("dex".into(), -3)]),
        pos: Vector3::new(0.5, -1.0, 1e10),
        rot: Quat::IDENTITY,
        samples: vec![0.0, -0.5, f32::INFINITY],
        blob: ByteBuf::from(vec![0, 1, 2, 255]),
        titles: PoolStringArray(vec!["hero".into(), String::new(), "\u{feff}bom".into()]),
        friends: vec!["ada".into(), "bob the builder".into()],
        callsigns: vec!["red five", "", "gold leader"],
    };
    let empty = GameState {
        name: String::new(),
        tag: "",
        level: i32::MIN,
        score: i64::MAX,
        lives: 255,
        speed: f32::NAN,
        time: -0.0,
        best: None,
        items: vec![],
        mode: Mode::Idle,
        stats: HashMap::new(),
        pos: Vector3::default(),
        rot: Quat::new(0.0, 0.0, 1.0, 0.0),
        samples: vec![],
        blob: ByteBuf::new(),
        titles: PoolStringArray(vec![]),
        friends: vec![],
        callsigns: vec![],
    };
    // Fits Godot 2's 32-bit ints, so that dialect gets a seed too.
    let boost = GameState {
        mode: Mode::Boost(2.0),
        name: "héros ✓".into(),
        score: 123_456,
        ..base.clone()
    };
    vec![base, empty, boost]
}
