//! Encrypted files: what `File.open_encrypted_with_pass` (Godot 3) and
//! `FileAccess.open_encrypted_with_pass` (Godot 4) write and read (feature `encryption`).
//!
//! Godot keeps the whole plaintext in memory and writes it, encrypted, when the file is
//! closed. The plaintext is whatever the game stored; save games usually hold
//! `store_var` frames, read with [`VarReader`](super::VarReader) and
//! [`Framing::STORE_VAR`](super::Framing::STORE_VAR).
//!
//! ```
//! use godot_bin::framing::encrypted::{self, Format};
//! use godot_bin::framing::{Framing, VarReader, VarWriter};
//!
//! let mut plain = Vec::new();
//! let mut w = VarWriter::new(&mut plain, Framing::STORE_VAR);
//! w.put_var("level 3")?;
//! w.put_var(&1200)?;
//! let file = encrypted::seal(&plain, "secret", Format::Godot3)?;
//! assert_eq!(&file[..8], b"GDEC\x01\0\0\0");
//!
//! let plain = encrypted::open(&file, "secret")?;
//! let mut r = VarReader::new(&plain[..], Framing::STORE_VAR);
//! assert_eq!(r.get_var::<String>()?.as_deref(), Some("level 3"));
//! assert_eq!(r.get_var::<i64>()?, Some(1200));
//!
//! let err = encrypted::open(&file, "wrong").unwrap_err();
//! assert!(matches!(err.kind(), godot_bin::ErrorKind::WrongPassword));
//! # Ok::<(), godot_bin::Error>(())
//! ```
//!
//! # Layouts
//!
//! Checked byte for byte against files written by Godot 3.2.3, 3.6 and 4.6 (3.2.3 and
//! 3.6 write the same bytes). Integers are little-endian; the MD5 is the plaintext's.
//!
//! | layout | header | then |
//! |---|---|---|
//! | [`Format::Godot3`] | `GDEC`, `u32` mode (always 1: AES-256), MD5 (16 bytes), `u64` plaintext length: 32 bytes | the plaintext zero-padded to a multiple of 16, encrypted block by block with AES-256 in ECB mode |
//! | [`Format::Godot4`] | `GDEC`, MD5 (16 bytes), `u64` plaintext length, random IV (16 bytes): 44 bytes | the same padded plaintext, encrypted with AES-256 in CFB-128 mode |
//!
//! The AES key for a password is [`password_key`]: the 32 ASCII characters of the
//! lowercase hexadecimal MD5 of the password's UTF-8 bytes (Godot's `md5_text`).
//! `open_encrypted` takes the 32 key bytes directly ([`open_with_key`],
//! [`seal_with_key`]).
//!
//! # Which layout a file has
//!
//! [`open`] decides from the bytes alone, with [`Format::detect`]. A file the engine
//! wrote is 32 bytes plus the padded plaintext long in Godot 3 and 44 bytes plus it in
//! Godot 4, so its size modulo 16 is 0 in one and 12 in the other. A file whose size is
//! exactly Godot 4's for the length at bytes 20..28 is Godot 4; any other is Godot 3 if
//! bytes 4..8 hold the mode 1, else Godot 4. The size test comes first because one
//! Godot 4 checksum in 2<sup>32</sup> starts with the bytes of the mode; the mode test
//! settles files that were cut short or have bytes appended. A file with another number
//! at bytes 4..8 but exactly Godot 3's size is refused as an unknown mode.
//!
//! # Checks
//!
//! Like the engine, [`open`] refuses a file without the magic
//! ([`ErrorKind::NotEncrypted`]), a Godot 3 mode other than 1
//! ([`ErrorKind::UnknownEncryptionMode`]), a length that the file's bytes cannot hold
//! ([`ErrorKind::EncryptedTruncated`], checked before anything is allocated: the output
//! is never larger than the input) and plaintext whose MD5 differs from the stored one
//! ([`ErrorKind::WrongPassword`]: a wrong password or a corrupt file). Like the engine,
//! it ignores bytes after the ciphertext and the values of the padding bytes.
//!
//! The container keeps data from casual eyes, no more: the key ships with the game,
//! ECB mode (Godot 3) shows repeated blocks, and MD5 detects mistakes, not tampering.
//!
//! [`ErrorKind::NotEncrypted`]: crate::ErrorKind::NotEncrypted
//! [`ErrorKind::UnknownEncryptionMode`]: crate::ErrorKind::UnknownEncryptionMode
//! [`ErrorKind::EncryptedTruncated`]: crate::ErrorKind::EncryptedTruncated
//! [`ErrorKind::WrongPassword`]: crate::ErrorKind::WrongPassword

use std::io;

use aes::cipher::{AsyncStreamCipher, BlockDecrypt, BlockEncrypt, KeyInit, KeyIvInit};
use aes::Aes256;
use md5::{Digest, Md5};

use crate::error::{Error, ErrorKind, Result};
use crate::Dialect;

const MAGIC: &[u8; 4] = b"GDEC";
/// Godot 3's `FileAccessEncrypted::MODE_WRITE_AES256`, the only mode it writes or reads.
const MODE_AES256: u32 = 1;
const BLOCK: usize = 16;

/// Where a layout keeps its fields.
struct Layout {
    md5_at: usize,
    len_at: usize,
    iv_at: Option<usize>,
    /// The header's size: where the ciphertext starts.
    header: usize,
}

/// The container layout: which engine writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Godot 3.x: a mode field, AES-256 in ECB mode, no IV.
    Godot3,
    /// Godot 4.x: no mode field, AES-256 in CFB-128 mode with a random IV.
    Godot4,
}

impl Format {
    /// The layout the engine of `dialect` writes. Godot 2 is taken to write Godot 3's
    /// (its source has the same code; no Godot 2 engine was checked).
    ///
    /// ```
    /// use godot_bin::framing::encrypted::Format;
    /// assert_eq!(Format::of(godot_bin::Dialect::Godot4), Format::Godot4);
    /// ```
    pub fn of(dialect: Dialect) -> Format {
        match dialect {
            Dialect::Godot2 | Dialect::Godot3 => Format::Godot3,
            Dialect::Godot4 => Format::Godot4,
        }
    }

    /// The layout of an encrypted file, from its header and size (the rule is in the
    /// [module docs](self#which-layout-a-file-has)); nothing is decrypted or checked
    /// beyond the magic and the mode.
    ///
    /// ```
    /// use godot_bin::framing::encrypted::{self, Format};
    /// let file = encrypted::seal(b"data", "pw", Format::Godot4)?;
    /// assert_eq!(Format::detect(&file)?, Format::Godot4);
    /// assert!(Format::detect(b"PK\x03\x04").is_err());
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn detect(file: &[u8]) -> Result<Format> {
        if !file.starts_with(MAGIC) {
            return Err(if MAGIC.starts_with(file) {
                Error::at(ErrorKind::Eof("the GDEC magic"), 0)
            } else {
                Error::at(ErrorKind::NotEncrypted, 0)
            });
        }
        if exact_size(file, Format::Godot4) {
            return Ok(Format::Godot4);
        }
        match get(file, 4).map(u32::from_le_bytes) {
            Some(MODE_AES256) => Ok(Format::Godot3),
            Some(mode) if exact_size(file, Format::Godot3) => {
                Err(Error::at(ErrorKind::UnknownEncryptionMode(mode), 4))
            }
            _ => Ok(Format::Godot4),
        }
    }

    fn layout(self) -> Layout {
        match self {
            Format::Godot3 => Layout {
                md5_at: 8,
                len_at: 24,
                iv_at: None,
                header: 32,
            },
            Format::Godot4 => Layout {
                md5_at: 4,
                len_at: 20,
                iv_at: Some(28),
                header: 44,
            },
        }
    }
}

/// The AES-256 key Godot derives from a password: the lowercase hex MD5 of its UTF-8
/// bytes, as 32 ASCII bytes (`String.md5_text`).
///
/// ```
/// let key = godot_bin::framing::encrypted::password_key("secret");
/// assert_eq!(&key, b"5ebe2294ecd0e0f08eab7690d2a6ee69");
/// ```
pub fn password_key(password: &str) -> [u8; 32] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Md5::digest(password.as_bytes());
    let mut key = [0; 32];
    for (pair, byte) in key.chunks_exact_mut(2).zip(digest) {
        pair[0] = HEX[usize::from(byte >> 4)];
        pair[1] = HEX[usize::from(byte & 15)];
    }
    key
}

/// Decrypts a file written with `open_encrypted_with_pass` by Godot 3 or 4 and returns
/// the plaintext, checked against the file's MD5.
///
/// ```
/// use godot_bin::framing::encrypted::{self, Format};
/// let file = encrypted::seal(b"hello", "pw", Format::Godot4)?;
/// assert_eq!(encrypted::open(&file, "pw")?, b"hello");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn open(file: &[u8], password: &str) -> Result<Vec<u8>> {
    open_with_key(file, &password_key(password))
}

/// [`open`] for a file written with `open_encrypted` and a 32-byte key.
pub fn open_with_key(file: &[u8], key: &[u8; 32]) -> Result<Vec<u8>> {
    let Layout {
        md5_at,
        len_at,
        iv_at,
        header,
    } = Format::detect(file)?.layout();
    let md5 = field::<16>(file, md5_at, "the MD5 checksum")?;
    let len = u64::from_le_bytes(field(file, len_at, "the plaintext length")?);
    let iv = iv_at
        .map(|at| field::<16>(file, at, "the IV"))
        .transpose()?;
    let left = file.len().saturating_sub(header);
    // The engine reads the whole padded plaintext; refused before any allocation.
    let padded = match padded(len) {
        Some(n) if n <= left as u64 => n as usize,
        n => {
            return Err(Error::at(
                ErrorKind::EncryptedTruncated {
                    len: n.unwrap_or(u64::MAX),
                    left,
                },
                header,
            ))
        }
    };
    let mut data = file[header..header + padded].to_vec();
    match iv {
        None => {
            let aes = Aes256::new(key.into());
            for block in data.chunks_exact_mut(BLOCK) {
                aes.decrypt_block(block.into());
            }
        }
        // CFB runs the cipher forwards both ways: the engine sets an encryption key.
        Some(iv) => cfb_mode::Decryptor::<Aes256>::new(key.into(), &iv.into()).decrypt(&mut data),
    }
    // `padded` is `len` rounded up, so `len` fits in usize.
    data.truncate(len as usize);
    if Md5::digest(&data)[..] != md5 {
        return Err(Error::at(ErrorKind::WrongPassword, md5_at));
    }
    Ok(data)
}

/// Encrypts `plain` as `open_encrypted_with_pass` does in `format`'s engine, which
/// opens the result with the same password. Godot 4 files get a random IV from the
/// operating system (an error only if it has none to give).
///
/// ```
/// use godot_bin::framing::encrypted::{self, Format};
/// let file = encrypted::seal(b"hello", "pw", Format::Godot3)?;
/// assert_eq!(file.len(), 32 + 16);
/// assert_eq!(encrypted::open(&file, "pw")?, b"hello");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn seal(plain: &[u8], password: &str, format: Format) -> Result<Vec<u8>> {
    seal_with_key(plain, &password_key(password), format)
}

/// [`seal`] with a 32-byte key, for `open_encrypted`.
pub fn seal_with_key(plain: &[u8], key: &[u8; 32], format: Format) -> Result<Vec<u8>> {
    match format {
        Format::Godot3 => {
            let (mut out, start) = unencrypted(plain, Some(MODE_AES256), None);
            let aes = Aes256::new(key.into());
            for block in out[start..].chunks_exact_mut(BLOCK) {
                aes.encrypt_block(block.into());
            }
            Ok(out)
        }
        Format::Godot4 => {
            let mut iv = [0; 16];
            getrandom::getrandom(&mut iv).map_err(io::Error::from)?;
            Ok(seal_with_iv(plain, key, iv))
        }
    }
}

/// The Godot 4 file for `plain` with a chosen IV: the same bytes every time, for tests
/// and reproducible output. An IV must never be used twice with one key for different
/// data; [`seal`] takes a random one. (Godot 3 files have no IV and are reproducible
/// anyway.)
///
/// ```
/// use godot_bin::framing::encrypted::{self, password_key};
/// let key = password_key("pw");
/// let file = encrypted::seal_with_iv(b"hello", &key, [7; 16]);
/// assert_eq!(file[28..44], [7; 16]);
/// assert_eq!(file, encrypted::seal_with_iv(b"hello", &key, [7; 16]));
/// assert_eq!(encrypted::open(&file, "pw")?, b"hello");
/// # Ok::<(), godot_bin::Error>(())
/// ```
pub fn seal_with_iv(plain: &[u8], key: &[u8; 32], iv: [u8; 16]) -> Vec<u8> {
    let (mut out, start) = unencrypted(plain, None, Some(iv));
    // The engine encrypts the zero padding too (CFB would not need it).
    cfb_mode::Encryptor::<Aes256>::new(key.into(), &iv.into()).encrypt(&mut out[start..]);
    out
}

/// The header and the zero-padded plaintext, still unencrypted, and where the
/// plaintext starts.
fn unencrypted(plain: &[u8], mode: Option<u32>, iv: Option<[u8; 16]>) -> (Vec<u8>, usize) {
    let padded = plain.len().div_ceil(BLOCK) * BLOCK;
    let mut out = Vec::with_capacity(Format::Godot4.layout().header + padded);
    out.extend_from_slice(MAGIC);
    if let Some(mode) = mode {
        out.extend_from_slice(&mode.to_le_bytes());
    }
    out.extend_from_slice(&Md5::digest(plain));
    out.extend_from_slice(&(plain.len() as u64).to_le_bytes());
    if let Some(iv) = iv {
        out.extend_from_slice(&iv);
    }
    let start = out.len();
    out.extend_from_slice(plain);
    out.resize(start + padded, 0);
    (out, start)
}

/// A plaintext length rounded up to whole blocks; `None` past `u64::MAX`.
fn padded(len: u64) -> Option<u64> {
    Some(len.checked_add(BLOCK as u64 - 1)? & !(BLOCK as u64 - 1))
}

/// Whether `file` is exactly as long as `format`'s engine writes it for its length field.
fn exact_size(file: &[u8], format: Format) -> bool {
    let Layout { len_at, header, .. } = format.layout();
    match (
        get(file, len_at).map(u64::from_le_bytes),
        file.len().checked_sub(header),
    ) {
        (Some(len), Some(body)) => padded(len) == Some(body as u64),
        _ => false,
    }
}

fn field<const N: usize>(file: &[u8], at: usize, what: &'static str) -> Result<[u8; N]> {
    get(file, at).ok_or_else(|| Error::at(ErrorKind::Eof(what), at))
}

fn get<const N: usize>(file: &[u8], at: usize) -> Option<[u8; N]> {
    file.get(at..at + N)?.try_into().ok()
}
