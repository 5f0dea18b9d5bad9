//! `godot-bin encode`: Godot's text form to bytes.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use godot_bin::framing::encrypted;
use godot_bin::{text, Config, Dialect, Variant, GODOT_MAX_DEPTH};

use crate::args::EncodeArgs;
use crate::{frames, input};

pub fn run(a: EncodeArgs) -> Result<ExitCode> {
    let source = if a.text.is_empty() {
        String::from_utf8(input::read_all(None)?).context("the input is not UTF-8")?
    } else {
        a.text.join("\n")
    };
    let dialect = a.dialect.dialect();
    let values = parse_all(&source, dialect)?;
    let cfg = Config::new()
        .dialect(dialect)
        .allow_objects(true)
        .max_depth(GODOT_MAX_DEPTH);
    let encoded = values
        .iter()
        .enumerate()
        .map(|(i, v)| cfg.to_vec(v).with_context(|| format!("value {i}")))
        .collect::<Result<Vec<_>>>()?;
    let mut bytes = frames::join(&encoded, a.framing.framing())?;
    if let Some(pass) = &a.password {
        bytes = encrypted::seal(&bytes, pass, encrypted::Format::of(dialect))?;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(&input::spell(&bytes, a.output))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Every value in `source`, one after the other, as `dialect`'s `str2var` reads each.
pub fn parse_all(source: &str, dialect: Dialect) -> Result<Vec<Variant>> {
    let mut values = Vec::new();
    let mut at = 0;
    loop {
        let rest = &source[at..];
        let skipped = rest.len() - rest.trim_start().len();
        at += skipped;
        if at == source.len() {
            break;
        }
        let (v, used) = text::parse_prefix(&source[at..], dialect).map_err(|e| {
            let line = source[..at].matches('\n').count();
            anyhow!("value {} (from line {}): {e}", values.len(), line + 1)
        })?;
        values.push(v);
        at += used;
    }
    if values.is_empty() {
        return Err(anyhow!("no value to encode"));
    }
    Ok(values)
}
