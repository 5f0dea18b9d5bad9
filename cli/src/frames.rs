//! Splitting input into the values it frames, without trusting its length prefixes.

use anyhow::{bail, Result};
use godot_bin::framing::Framing;

/// One value's bytes and where they start in the input.
pub struct Frame<'a> {
    /// Offset of the value (after its length prefix) in the input.
    pub at: usize,
    pub bytes: &'a [u8],
}

/// The frames of `input`; a bare value (no framing) is one frame holding everything.
/// A prefix that announces more bytes than are left is an error naming its offset,
/// after the frames before it.
pub fn split(input: &[u8], framing: Option<Framing>) -> (Vec<Frame<'_>>, Result<()>) {
    let Some(framing) = framing else {
        return (
            vec![Frame {
                at: 0,
                bytes: input,
            }],
            Ok(()),
        );
    };
    let mut frames = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let Some(prefix) = input.get(at..at + 4) else {
            let left = input.len() - at;
            return (
                frames,
                Err(anyhow::anyhow!(
                    "at byte {at}: {left} bytes left, too few for a 4-byte length prefix"
                )),
            );
        };
        let len = framing.frame_len(prefix.try_into().expect("4 bytes"));
        let left = input.len() - at - 4;
        if len > left {
            return (
                frames,
                Err(anyhow::anyhow!(
                    "at byte {at}: the length prefix announces {len} bytes, only {left} follow"
                )),
            );
        }
        frames.push(Frame {
            at: at + 4,
            bytes: &input[at + 4..at + 4 + len],
        });
        at += 4 + len;
    }
    (frames, Ok(()))
}

/// Whether `input` is wholly a sequence of length-prefixed frames (`store_var`).
pub fn is_sequence(input: &[u8], framing: Framing) -> bool {
    !input.is_empty() && split(input, Some(framing)).1.is_ok()
}

/// Frames `values` for output.
pub fn join(values: &[Vec<u8>], framing: Option<Framing>) -> Result<Vec<u8>> {
    let Some(framing) = framing else {
        if values.len() != 1 {
            bail!(
                "{} values need a framing (--framing store-var) to go in one output",
                values.len()
            );
        }
        return Ok(values[0].clone());
    };
    let mut out = Vec::new();
    for v in values {
        out.extend_from_slice(&framing.prefix(v.len())?);
        out.extend_from_slice(v);
    }
    Ok(out)
}
