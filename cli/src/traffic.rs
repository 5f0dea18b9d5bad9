//! What `proxy` writes about each message and `replay` reads back: the JSON lines
//! records (the schema is in the `proxy` module's documentation), a message's text form
//! on one line, and the description of a message's bytes.

use godot_bin::{Config, Dialect, Variant};
use serde::{Deserialize, Serialize};

/// The largest value the proxy holds and decodes. Larger frames are passed on as their
/// bytes arrive; replay refuses them. The engines send at most 8 MiB (`store_var`,
/// `put_var`) or 64 KiB (`PacketPeerStream`), so only a broken or hostile stream gets
/// near this.
pub const DECODE_CAP: usize = 16 << 20;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis()
}

/// `hh:mm:ss.mmm` (UTC) of `ms` since the epoch: how the proxies stamp their lines.
pub fn time_of_day(ms: u128) -> String {
    let day = (ms / 1000) % 86_400;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        day / 3600,
        day / 60 % 60,
        day % 60,
        ms % 1000
    )
}

/// Which way a message goes.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// From the game (the client) to the server.
    #[serde(rename = "->")]
    ToServer,
    /// From the server to the game.
    #[serde(rename = "<-")]
    ToClient,
}

impl Dir {
    pub fn arrow(self) -> &'static str {
        match self {
            Dir::ToServer => "->",
            Dir::ToClient => "<-",
        }
    }
}

/// One line of the JSON lines log.
#[derive(Serialize, Deserialize, Debug)]
pub struct Line {
    /// Seconds since the Unix epoch, to the millisecond.
    pub time: f64,
    #[serde(flatten)]
    pub record: Record,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum Record {
    /// The proxy started.
    Listen {
        listen: String,
        connect: String,
        /// As `--framing` spells it.
        framing: String,
    },
    /// A game connected (and the proxy connected to the server for it).
    Open {
        session: u64,
        client: String,
        server: String,
    },
    /// The dialect a session's messages are read and injected in: 2, 3 or 4.
    Dialect {
        session: u64,
        dialect: u8,
        /// Detected from the session's bytes, rather than given with `--dialect`.
        detected: bool,
    },
    Message {
        session: u64,
        dir: Dir,
        /// The length prefix as it came, in hex (fewer than 4 bytes when the connection
        /// ended inside it); `null` with `--framing none`.
        prefix: Option<String>,
        /// The value's length as the prefix announces it (`--framing none`: the bytes
        /// read at once); `null` when the prefix itself was cut off.
        size: Option<usize>,
        /// The value's bytes (without the prefix), all of them unless `truncated`.
        hex: String,
        /// The value in the session dialect's text form, on one line; `null` if it
        /// does not decode.
        text: Option<String>,
        /// Why the value does not decode, or what is odd about it; `null` if nothing.
        error: Option<String>,
        /// Typed on the proxy's standard input rather than relayed.
        injected: bool,
        /// `hex` holds only the value's first bytes: the frame was larger than the
        /// proxy decodes, and was passed on as it arrived.
        truncated: bool,
    },
    /// A session ended.
    Close {
        session: u64,
        reason: String,
        /// Messages relayed each way (injected ones not counted).
        to_server: usize,
        to_client: usize,
    },
    /// A record of a later version of this log: skipped.
    #[serde(other)]
    Other,
}

pub fn dialect_number(d: Dialect) -> u8 {
    match d {
        Dialect::Godot2 => 2,
        Dialect::Godot3 => 3,
        _ => 4,
    }
}

pub fn dialect_from_number(n: u8) -> Option<Dialect> {
    match n {
        2 => Some(Dialect::Godot2),
        3 => Some(Dialect::Godot3),
        4 => Some(Dialect::Godot4),
        _ => None,
    }
}

/// `1 reply`, `2 replies`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// What a value's bytes say: its text, and what is wrong with them.
pub struct Described {
    pub text: Option<String>,
    pub error: Option<String>,
}

/// Decodes one value (a whole frame) in `dialect`. Objects are read as inert data: the
/// proxy only shows them. Bytes after the value, which the engine ignores, give the
/// text and an error saying so.
pub fn describe(value: &[u8], dialect: Dialect) -> Described {
    let cfg = Config::new().dialect(dialect).allow_objects(true);
    match cfg.take_from_slice::<Variant>(value) {
        Ok((v, used)) => Described {
            text: Some(one_line(&v, dialect)),
            error: (used < value.len()).then(|| {
                let extra = value.len() - used;
                format!("byte {used}: {extra} bytes after the value (the engine ignores them)")
            }),
        },
        Err(e) => Described {
            text: None,
            error: Some(match e.offset() {
                Some(at) => format!("byte {at}: {}", e.kind()),
                None => e.kind().to_string(),
            }),
        },
    }
}

/// The value's text form in `dialect` on one line: the line breaks the engine puts
/// around Dictionary entries become `{"a": 1, "b": 2}`, and those inside strings
/// become `\n` escapes (which `str2var` reads back as line breaks).
pub fn one_line(v: &Variant, dialect: Dialect) -> String {
    let text = v.display(dialect).to_string();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        } else {
            match c {
                '"' => {
                    in_string = true;
                    out.push(c);
                }
                // After `{`, before `}`, after an Object: nothing; after `,`: a space.
                '\n' if out.ends_with(',') => out.push(' '),
                '\n' => {}
                c => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_dictionaries() {
        let v: Variant = r#"{"Join": {"name": "A\nB", "at": Vector2(1, 2)}, "e": {}}"#
            .parse()
            .unwrap();
        assert_eq!(
            one_line(&v, Dialect::Godot4),
            r#"{"Join": {"at": Vector2(1, 2), "name": "A\nB"}, "e": {}}"#
        );
        assert_eq!(
            one_line(&v, Dialect::Godot3),
            r#"{"Join": {"at": Vector2( 1, 2 ), "name": "A\nB"}, "e": {}}"#
        );
        // The text reads back to the same value.
        let back: Variant = one_line(&v, Dialect::Godot4).parse().unwrap();
        assert_eq!(back, v);
    }
}
