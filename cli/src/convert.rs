//! `godot-bin convert`: saves from one dialect (or JSON) to another.
//!
//! Values go through `godot_bin::Variant`, which knows no version: the types keep
//! their identity and only their names and ids change (`Quat` is `Quaternion`,
//! `PoolRealArray` is `PackedFloat32Array`). A value with no form in the target is an
//! error naming where it sits: `[2].players[3].avatar: Image has no Godot 4 form`
//! (`[i]` is the i-th value of a sequence or an Array index, `.name` a Dictionary key
//! that is an identifier-like String or an Object property, `[key]` any other key in
//! the text form).

use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use godot_bin::framing::{encrypted, Framing};
use godot_bin::{Config, Dialect, Variant, GODOT_MAX_DEPTH};

use crate::args::{ConvertArgs, ConvertFormat, ConvertFraming, DialectArg};
use crate::{decode, frames, input};

pub fn run(a: ConvertArgs) -> Result<ExitCode> {
    let bytes = input::open(input::read_all(Some(&a.input))?, a.password.as_deref())?;
    let (values, framing) = read(&bytes, a.from, a.framing)?;
    let out = match a.to {
        ConvertFormat::Json => {
            let mut s = String::new();
            for v in &values {
                s.push_str(&godot_bin::json::to_string(v));
                s.push('\n');
            }
            s.into_bytes()
        }
        ConvertFormat::Auto => bail!("--to needs a dialect (2, 3 or 4) or json"),
        to => {
            let dialect = dialect_of(to).expect("a dialect");
            let encoded = write(&values, dialect, framing.is_some())?;
            let mut out = frames::join(&encoded, framing)?;
            if let Some(pass) = &a.password {
                out = encrypted::seal(&out, pass, encrypted::Format::of(dialect))?;
            }
            out
        }
    };
    input::write_all(&a.output, &out)?;
    Ok(ExitCode::SUCCESS)
}

fn dialect_of(f: ConvertFormat) -> Option<Dialect> {
    match f {
        ConvertFormat::Godot2 => Some(Dialect::Godot2),
        ConvertFormat::Godot3 => Some(Dialect::Godot3),
        ConvertFormat::Godot4 => Some(Dialect::Godot4),
        ConvertFormat::Json | ConvertFormat::Auto => None,
    }
}

/// The input's values and the framing they came in (kept for the output).
fn read(
    bytes: &[u8],
    from: ConvertFormat,
    framing: ConvertFraming,
) -> Result<(Vec<Variant>, Option<Framing>)> {
    if from == ConvertFormat::Json {
        let mut values = Vec::new();
        for (i, doc) in serde_json::Deserializer::from_slice(bytes)
            .into_iter::<serde_json::Value>()
            .enumerate()
        {
            let doc = doc.with_context(|| format!("JSON document {i}"))?;
            values.push(
                godot_bin::json::from_value(&doc).with_context(|| format!("JSON document {i}"))?,
            );
        }
        let framing = match framing {
            ConvertFraming::Auto if values.len() == 1 => None,
            ConvertFraming::Auto => Some(Framing::STORE_VAR),
            f => explicit(f),
        };
        return Ok((values, framing));
    }
    let framing = match framing {
        ConvertFraming::Auto if frames::is_sequence(bytes, Framing::STORE_VAR) => {
            Some(Framing::STORE_VAR)
        }
        ConvertFraming::Auto => None,
        f => explicit(f),
    };
    let (frames, split) = frames::split(bytes, framing);
    split?;
    let arg = match from {
        ConvertFormat::Godot2 => DialectArg::Godot2,
        ConvertFormat::Godot3 => DialectArg::Godot3,
        ConvertFormat::Godot4 => DialectArg::Godot4,
        _ => DialectArg::Auto,
    };
    let all: Vec<&[u8]> = frames.iter().map(|f| f.bytes).collect();
    let dialect = decode::choose_dialect(arg, &all);
    let cfg = Config::new()
        .dialect(dialect)
        .allow_objects(true)
        .max_depth(GODOT_MAX_DEPTH);
    let values = frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            cfg.from_slice::<Variant>(f.bytes).map_err(|e| {
                let at = f.at + e.offset().unwrap_or(0);
                anyhow!(
                    "value {i} does not decode as {}: byte {at}: {}",
                    dialect.engine_name(),
                    e.kind()
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((values, framing))
}

fn explicit(f: ConvertFraming) -> Option<Framing> {
    match f {
        ConvertFraming::Auto | ConvertFraming::None => None,
        ConvertFraming::StoreVar => Some(Framing::STORE_VAR),
        ConvertFraming::StoreVarBe => Some(Framing::StreamPeer { big_endian: true }),
        ConvertFraming::PacketPeerStream => Some(Framing::PacketPeerStream),
    }
}

/// Each value in `dialect`, or the error naming the first value without a form there.
fn write(values: &[Variant], dialect: Dialect, sequence: bool) -> Result<Vec<Vec<u8>>> {
    let cfg = Config::new()
        .dialect(dialect)
        .allow_objects(true)
        .max_depth(GODOT_MAX_DEPTH);
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            cfg.to_vec(v).map_err(|_| {
                let start = if sequence {
                    format!("[{i}]")
                } else {
                    String::new()
                };
                let (path, why) = locate(v, cfg, start);
                let path = if path.is_empty() {
                    "the value".into()
                } else {
                    path
                };
                anyhow!("{path}: {why}")
            })
        })
        .collect()
}

/// The deepest part of `v` (which does not encode) that does not encode, with why.
fn locate(v: &Variant, cfg: Config, path: String) -> (String, String) {
    let fails = |c: &Variant| cfg.to_vec(c).is_err();
    let dialect = cfg.get_dialect();
    let children: Vec<(String, &Variant)> = match v {
        Variant::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("[{i}]"), c))
            .collect(),
        Variant::TypedArray(a) => a
            .items
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("[{i}]"), c))
            .collect(),
        Variant::Dictionary(d) => entries(d.iter()),
        Variant::TypedDictionary(d) => entries(d.entries.iter()),
        Variant::Object(o) => o
            .properties
            .iter()
            .map(|(name, c)| (format!(".{name}"), c))
            .collect(),
        _ => Vec::new(),
    };
    for (step, child) in children {
        if fails(child) {
            return locate(child, cfg, path + &step);
        }
    }
    let ty = v.get_type();
    let why = if dialect.id_of(ty).is_none() {
        format!("{} has no {} form", ty.name(), dialect.engine_name())
    } else {
        cfg.to_vec(v)
            .err()
            .map_or_else(|| "does not encode".into(), |e| e.to_string())
    };
    (path, why)
}

/// A Dictionary's keys and values as path steps. Keys are shown in Godot 4's text form,
/// which has every type (the target may not).
fn entries<'a>(it: impl Iterator<Item = (&'a Variant, &'a Variant)>) -> Vec<(String, &'a Variant)> {
    let mut out = Vec::new();
    for (k, v) in it {
        let step = match k {
            Variant::String(s) if is_identifier(s) => format!(".{s}"),
            _ => format!("[{}]", decode::one_line(k, Dialect::Godot4)),
        };
        out.push((format!("{step} (the key)"), k));
        out.push((step, v));
    }
    out
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
