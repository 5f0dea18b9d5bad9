//! Reading what the user gave: files or standard input, raw, hex or Base64, encrypted
//! or not.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use godot_bin::framing::encrypted;

use crate::args::BytesFormat;

/// The whole of `path`, or of standard input when it is absent or `-`.
pub fn read_all(path: Option<&Path>) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    match path {
        Some(p) if p != Path::new("-") => {
            buf = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?
        }
        _ => {
            std::io::stdin()
                .read_to_end(&mut buf)
                .context("cannot read standard input")?;
        }
    }
    Ok(buf)
}

/// Writes `bytes` to `path`, or to standard output for `-`.
pub fn write_all(path: &Path, bytes: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        Ok(())
    } else {
        std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The bytes that `text` spells in `format`.
pub fn unspell(input: Vec<u8>, format: BytesFormat) -> Result<Vec<u8>> {
    let text = || -> Result<String> {
        let s = String::from_utf8(input.clone()).context("the input is not text")?;
        Ok(s.split_whitespace().collect())
    };
    Ok(match format {
        BytesFormat::Raw => input,
        BytesFormat::Hex => {
            let s = text()?;
            let s = s.strip_prefix("0x").unwrap_or(&s);
            hex::decode(s).context("the input is not hex")?
        }
        BytesFormat::Base64 => base64::engine::general_purpose::STANDARD
            .decode(text()?)
            .context("the input is not Base64")?,
    })
}

/// `bytes` spelled in `format`, ready for output.
pub fn spell(bytes: &[u8], format: BytesFormat) -> Vec<u8> {
    match format {
        BytesFormat::Raw => bytes.to_vec(),
        BytesFormat::Hex => format!("{}\n", hex::encode(bytes)).into_bytes(),
        BytesFormat::Base64 => format!(
            "{}\n",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
        .into_bytes(),
    }
}

/// Decrypts an encrypted save when a password is given; refuses an encrypted save
/// without one.
pub fn open(bytes: Vec<u8>, password: Option<&str>) -> Result<Vec<u8>> {
    let encrypted = bytes.starts_with(b"GDEC");
    match password {
        Some(pass) if encrypted => {
            Ok(encrypted::open(&bytes, pass).context("cannot open the encrypted save")?)
        }
        Some(_) => {
            bail!("--password was given, but the input is not an encrypted save (no GDEC header)")
        }
        None if encrypted => bail!("the input is an encrypted save (GDEC): give its --password"),
        None => Ok(bytes),
    }
}
