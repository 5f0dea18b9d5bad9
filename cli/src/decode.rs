//! `godot-bin decode`: bytes to text, a dissection tree, or JSON.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use godot_bin::dissect::Dissection;
use godot_bin::{text, Config, Dialect, Variant, GODOT_MAX_DEPTH};

use crate::args::{DecodeArgs, DecodeOutput, DialectArg};
use crate::{frames, input, tree};

pub fn run(a: DecodeArgs) -> Result<ExitCode> {
    let bytes = input::unspell(input::read_all(a.file.as_deref())?, a.input)?;
    let bytes = input::open(bytes, a.password.as_deref())?;
    let (frames, split) = frames::split(&bytes, a.framing.framing());
    let all: Vec<&[u8]> = frames.iter().map(|f| f.bytes).collect();
    let dialect = choose_dialect(a.dialect, &all);
    // As deep as the engine reads, not the library's more cautious default (main
    // gives the thread the stack for it).
    let cfg = Config::new()
        .dialect(dialect)
        .allow_objects(a.allow_objects)
        .max_depth(GODOT_MAX_DEPTH);
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    let many = a.framing.framing().is_some();
    for (i, frame) in frames.iter().enumerate() {
        // The tree needs the walk through the bytes; the other outputs only the value,
        // and the walk's partial value when it does not decode.
        let value = match a.output {
            DecodeOutput::Tree => None,
            DecodeOutput::Text | DecodeOutput::Json => {
                cfg.take_from_slice::<Variant>(frame.bytes).ok()
            }
        };
        let d = match value {
            Some((v, len)) => Dissection {
                items: Vec::new(),
                value: Some(v),
                len,
                error: None,
            },
            None => cfg.dissect(frame.bytes),
        };
        let mut error = d.error.map(|e| {
            let at = frame.at + e.offset().unwrap_or(d.len);
            format!("byte {at}: {}", e.kind())
        });
        if error.is_none() && d.len < frame.bytes.len() {
            let extra = frame.bytes.len() - d.len;
            error = Some(format!(
                "byte {}: {extra} bytes after the value",
                frame.at + d.len
            ));
        }
        let text = match a.output {
            DecodeOutput::Text => d
                .value
                .as_ref()
                .map(|v| format!("{}\n", v.display(dialect))),
            DecodeOutput::Json => d
                .value
                .as_ref()
                .map(|v| format!("{}\n", godot_bin::json::to_string(v))),
            DecodeOutput::Tree => {
                let mut s = String::new();
                if many {
                    let _ = writeln!(
                        s,
                        "value {i}: bytes {}..{} ({} bytes, after a 4-byte length)",
                        frame.at,
                        frame.at + frame.bytes.len(),
                        frame.bytes.len()
                    );
                }
                tree::write(&mut s, &d.items, frame.bytes, frame.at, dialect);
                Some(s)
            }
        };
        out.write_all(text.unwrap_or_default().as_bytes())?;
        if let Some(error) = error {
            out.flush()?;
            let what = if many {
                format!("value {i}")
            } else {
                "the value".into()
            };
            let shown = if d.value.is_some() {
                " (above: what decoded before it)"
            } else {
                ""
            };
            eprintln!("godot-bin: {what} does not decode at {error}{shown}");
            failed = true;
        }
    }
    out.flush()?;
    if let Err(e) = split {
        eprintln!("godot-bin: {e}");
        failed = true;
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The dialect asked for, or the one detected from `values`, said on standard error.
pub fn choose_dialect(arg: DialectArg, values: &[&[u8]]) -> Dialect {
    if let Some(d) = arg.fixed() {
        return d;
    }
    if values.is_empty() {
        return Dialect::Godot4;
    }
    let mut detection = Dialect::detect_all(values);
    if detection.dialect().is_none() && values.len() > 1 {
        // Some value is broken in every dialect: go by the first alone.
        detection = Dialect::detect(values[0]);
    }
    let Some(d) = detection.dialect() else {
        eprintln!(
            "godot-bin: no dialect reads the first value as a whole; reading it as Godot 4 \
             (choose with --dialect)"
        );
        return Dialect::Godot4;
    };
    let others: Vec<_> = detection
        .readers()
        .into_iter()
        .filter(|r| *r != d)
        .map(Dialect::engine_name)
        .collect();
    let how = if detection.writers().contains(&d) {
        "its engine writes these bytes"
    } else {
        "it reads these bytes"
    };
    let mut note = format!("godot-bin: dialect {} (detected: {how}", d.engine_name());
    if !others.is_empty() {
        let _ = write!(note, "; {} read them too", others.join(" and "));
        if detection.is_ambiguous() {
            note.push_str(", as a different value: choose with --dialect");
        } else {
            note.push_str(", as the same value");
        }
    }
    eprintln!("{note})");
    d
}

/// A value's text form on one line.
pub fn one_line(v: &Variant, dialect: Dialect) -> String {
    let s = text::to_string(v, dialect).unwrap_or_else(|e| format!("<{e}>"));
    s.replace('\n', "\\n")
}
