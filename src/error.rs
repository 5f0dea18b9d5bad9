//! The error type shared by the serializer and the deserializer.

use std::fmt::{self, Display};
use std::io;

use crate::Dialect;

/// Alias for `Result<T, godot_bin::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong, without the position. Match on this to tell error cases apart.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended in the middle of a value (padding included), or a count needs
    /// more bytes than are left. The offset is where the missing item starts.
    #[error("unexpected end of input while reading {0}")]
    Eof(&'static str),
    /// `from_slice` / `from_reader` found bytes after the one value they read.
    #[error("trailing bytes after the value")]
    TrailingBytes,
    /// The header names no type of the dialect. The message says when another
    /// dialect has the id (decoding Godot 4 bytes as Godot 3 is the usual mistake).
    #[error("{}", unknown_type(*.id, *.dialect))]
    UnknownType {
        /// The type id (the header's low 8 bits).
        id: u32,
        /// The dialect decoded.
        dialect: Dialect,
    },
    /// A valid value of the wrong Godot type for what the Rust type asked for.
    #[error("invalid type: found {found}, expected {expected}")]
    InvalidType {
        /// What is on the wire.
        found: String,
        /// What the caller's type needed.
        expected: String,
    },
    /// A value of the right type that the Rust type does not accept (an unknown enum
    /// variant, a number out of the target's range).
    #[error("invalid value: found {found}, expected {expected}")]
    InvalidValue {
        /// What is on the wire.
        found: String,
        /// What the caller's type needed.
        expected: String,
    },
    /// A count whose items cannot fit in the bytes left: the input ends inside them.
    #[error("{what} of {count} items does not fit in the {left} bytes left")]
    Truncated {
        /// What was counted.
        what: &'static str,
        /// The count as read.
        count: u64,
        /// The bytes left in the input after the count.
        left: usize,
    },
    /// A length or count field that cannot be right (negative, or too large for Godot).
    #[error("invalid length {len} for {what}")]
    InvalidLength {
        /// The claimed length or count.
        len: u64,
        /// What was being read.
        what: &'static str,
    },
    /// Bytes that no Godot version writes and the engine refuses (an unknown format
    /// number, a layout the engine dropped).
    #[error("malformed data: {0}")]
    Malformed(&'static str),
    /// Godot text that does not parse: the engine's message, and where (1-based line and
    /// column, in characters; the error's offset is the byte offset).
    #[error("{message} at line {line}, column {column}")]
    Syntax {
        /// What the parser expected, in the engine's words.
        message: String,
        /// The line, from 1.
        line: usize,
        /// The column in characters, from 1.
        column: usize,
    },
    /// Bytes of a string were not UTF-8.
    #[error("invalid UTF-8 in a string")]
    InvalidUtf8,
    /// The value needs more input than [`Config::max_bytes`](crate::Config::max_bytes) allows.
    #[error("value larger than the limit of {0} bytes")]
    LimitExceeded(usize),
    /// A frame (length-prefixed value) longer than the reader or writer accepts.
    #[error("frame of {len} bytes is larger than the limit of {max}")]
    FrameTooLarge {
        /// The frame's length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A framed stream lost its frame boundaries after an oversized or cut-off frame.
    #[error("stream out of sync after an oversized or cut-off frame")]
    Desynchronized,
    /// Text given as Base64 is not Base64.
    #[error("invalid Base64: {0}")]
    InvalidBase64(String),
    /// Containers nested deeper than the limit.
    #[error("nesting deeper than the limit of {0}")]
    DepthLimit(usize),
    /// A full Object was found but objects were not allowed: when decoding, Godot's
    /// `allow_objects` ([`Config::allow_objects`](crate::Config::allow_objects)); when
    /// encoding, [`Config::encode_objects`](crate::Config::encode_objects).
    #[error("full Objects are refused unless allowed (allow_objects, encode_objects)")]
    ObjectsNotAllowed,
    /// An integer that Godot cannot hold (outside `i64`), or that the target type cannot hold.
    #[error("integer {0} out of range for {1}")]
    IntOutOfRange(i128, &'static str),
    /// An unsigned integer above `i128::MAX` that Godot (or the target type) cannot hold.
    #[error("integer {0} out of range for {1}")]
    UintOutOfRange(u128, &'static str),
    /// A value the Godot format cannot carry without changing it.
    #[error("unrepresentable value: {0}")]
    Unrepresentable(String),
    /// JSON that is not the JSON form of a Variant (feature `json`): what is wrong, and
    /// where, as a JSON path in jq's syntax (`$.players[3].avatar`, `$["$Array"].values[0]`).
    /// Errors in JSON text itself (syntax, nesting) have the path `$` and give the line
    /// and column in the message.
    #[error("{path}: {message}")]
    Json {
        /// What is wrong.
        message: String,
        /// Where: `$` is the whole document.
        path: String,
    },
    /// A message from a `Serialize` / `Deserialize` impl (serde's `custom`).
    #[error("{0}")]
    Message(String),
    /// The underlying reader or writer failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// The file does not start with `GDEC`: it is no encrypted Godot file. At offset 0.
    #[error("not an encrypted Godot file (no GDEC magic)")]
    NotEncrypted,
    /// A Godot 3 encrypted file with a mode other than 1 (AES-256), which no engine
    /// writes or reads. At offset 4.
    #[error("unknown encryption mode {0} (Godot 3 writes 1, AES-256)")]
    UnknownEncryptionMode(u32),
    /// The encrypted file is shorter than its length field says: `len` bytes of
    /// ciphertext (the plaintext length rounded up to 16) with only `left` bytes left.
    /// The offset is where the ciphertext starts.
    #[error("encrypted file cut off: {len} bytes of ciphertext announced, {left} bytes left")]
    EncryptedTruncated {
        /// The ciphertext length the header announces (rounded up to a whole block).
        len: u64,
        /// The bytes after the header.
        left: usize,
    },
    /// The decrypted data does not match the file's MD5 checksum: the password (or key)
    /// is wrong, or the file is corrupt. Godot refuses such a file too. The offset is
    /// the checksum's.
    #[error("MD5 checksum mismatch after decryption: wrong password or corrupt file")]
    WrongPassword,
}

/// "unknown type id 27 in Godot 3; in Godot 4 it is Dictionary: decode with Dialect::Godot4".
fn unknown_type(id: u32, dialect: Dialect) -> String {
    let elsewhere: Vec<String> = Dialect::ALL
        .iter()
        .filter(|d| **d != dialect)
        .filter_map(|d| d.type_of(id).map(|t| (d, t)))
        .map(|(d, t)| {
            format!(
                "in {} it is {}: decode with Dialect::{d:?}",
                d.engine_name(),
                t.name_in(*d)
            )
        })
        .collect();
    let mut msg = format!("unknown Variant type id {id} in {}", dialect.engine_name());
    if !elsewhere.is_empty() {
        msg.push_str("; ");
        msg.push_str(&elsewhere.join("; "));
    }
    msg
}

/// The broad class of an [`Error`], for callers that react by category (retry with
/// more input, drop the peer, report a bug): like `serde_json::error::Category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The input is not valid Godot data, or not the shape the target type wants.
    Data,
    /// The input ended early: more bytes may complete it.
    Eof,
    /// A configured or built-in limit refused the input (depth, size, frame length,
    /// objects not allowed).
    Limit,
    /// The value has no Godot encoding in the selected dialect.
    Unsupported,
    /// The underlying reader or writer failed.
    Io,
}

/// An encoding or decoding error, with the byte offset where decoding failed.
///
/// ```
/// let err = godot_bin::from_slice::<i32>(&[4, 0, 0, 0, 1, 0, 0, 0, b'a']).unwrap_err();
/// assert!(matches!(err.kind(), godot_bin::ErrorKind::Eof(_)));
/// assert_eq!(err.offset(), Some(8));
/// ```
#[derive(Debug)]
pub struct Error(Box<Inner>);

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error(Box::new(Inner { kind, offset: None }))
    }

    #[cold]
    pub(crate) fn at(kind: ErrorKind, offset: usize) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: Some(offset),
        }))
    }

    /// Moves the offset by `delta` (a value decoded from inside a larger stream).
    pub(crate) fn shifted(mut self, delta: usize) -> Self {
        self.0.offset = self.0.offset.map(|o| o + delta);
        self
    }

    /// The error at byte `offset`, unless it has an offset already: how the decoder
    /// places an error that has none of its own (a visitor's, which cannot know
    /// where its value lies) at the value it was reading. For code that reads a
    /// value's bytes itself and hands the value to a visitor, as the decoder would
    /// (godot-bin-multiplayer's RPC arguments), so that its errors read as the
    /// decoder's.
    ///
    /// ```
    /// use serde::de::Error as _;
    /// let e = godot_bin::Error::custom("not a port").or_at(4);
    /// assert_eq!(e.offset(), Some(4));
    /// assert_eq!(e.or_at(9).offset(), Some(4));
    /// ```
    #[must_use]
    #[inline]
    pub fn or_at(mut self, offset: usize) -> Self {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The byte offset in the input of the value that failed to decode (or of the
    /// missing bytes), counted from the start of the input. `None` for encoding errors.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// Whether the input simply ended early: more bytes may complete it.
    pub fn is_eof(&self) -> bool {
        self.classify() == Category::Eof
    }

    /// The broad class of the error.
    ///
    /// ```
    /// use godot_bin::{Category, Config};
    /// let cut = godot_bin::from_slice::<String>(&[4, 0, 0, 0, 9, 0, 0, 0]).unwrap_err();
    /// assert_eq!(cut.classify(), Category::Eof);
    /// let deep = Config::new().max_depth(1).from_slice::<Vec<Vec<i32>>>(&godot_bin::to_vec(&[[1]])?);
    /// assert_eq!(deep.unwrap_err().classify(), Category::Limit);
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn classify(&self) -> Category {
        match &self.0.kind {
            ErrorKind::Eof(_)
            | ErrorKind::Truncated { .. }
            | ErrorKind::EncryptedTruncated { .. } => Category::Eof,
            ErrorKind::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => Category::Eof,
            ErrorKind::Io(_) => Category::Io,
            ErrorKind::LimitExceeded(_)
            | ErrorKind::FrameTooLarge { .. }
            | ErrorKind::DepthLimit(_)
            | ErrorKind::ObjectsNotAllowed => Category::Limit,
            ErrorKind::Unrepresentable(_) => Category::Unsupported,
            ErrorKind::TrailingBytes
            | ErrorKind::Syntax { .. }
            | ErrorKind::UnknownType { .. }
            | ErrorKind::InvalidType { .. }
            | ErrorKind::InvalidValue { .. }
            | ErrorKind::InvalidLength { .. }
            | ErrorKind::Malformed(_)
            | ErrorKind::InvalidUtf8
            | ErrorKind::Desynchronized
            | ErrorKind::InvalidBase64(_)
            | ErrorKind::IntOutOfRange(..)
            | ErrorKind::UintOutOfRange(..)
            | ErrorKind::Json { .. }
            | ErrorKind::Message(_)
            | ErrorKind::NotEncrypted
            | ErrorKind::UnknownEncryptionMode(_)
            | ErrorKind::WrongPassword => Category::Data,
        }
    }

    /// Consumes the error, returning its kind.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.offset {
            Some(o) => write!(f, "{} at byte offset {}", self.0.kind, o),
            None => Display::fmt(&self.0.kind, f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

/// For `io::Read` / `io::Write` adapters: I/O errors come back as they were; the
/// others keep this error inside, with a kind that says what happened.
impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        let kind = match e.classify() {
            Category::Io => {
                if let ErrorKind::Io(inner) = e.0.kind {
                    return inner;
                }
                io::ErrorKind::Other
            }
            Category::Eof => io::ErrorKind::UnexpectedEof,
            Category::Data | Category::Limit => io::ErrorKind::InvalidData,
            Category::Unsupported => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }
}

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()))
    }

    fn invalid_type(unexp: serde::de::Unexpected, exp: &dyn serde::de::Expected) -> Self {
        Error::new(ErrorKind::InvalidType {
            found: unexp.to_string(),
            expected: exp.to_string(),
        })
    }

    fn invalid_value(unexp: serde::de::Unexpected, exp: &dyn serde::de::Expected) -> Self {
        Error::new(ErrorKind::InvalidValue {
            found: unexp.to_string(),
            expected: exp.to_string(),
        })
    }
}
