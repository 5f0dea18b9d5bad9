//! RPC arguments as Godot 4 sends them: top-level bools and ints compressed into a
//! type byte, everything else as plain `var_to_bytes` (ints inside containers too).

use godot_bin::{Config, Dialect, Variant, Vector2, Vector3};

use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;

const BOOL: u8 = 1;
const INT: u8 = 2;

fn config() -> Config {
    Config::new().dialect(Dialect::Godot4)
}

/// Appends `args` in the compressed form (without the count byte).
pub(crate) fn encode(args: &[Variant], out: &mut Vec<u8>) -> Result<()> {
    let cfg = config();
    for (index, arg) in args.iter().enumerate() {
        match *arg {
            Variant::Bool(v) => out.push(BOOL | u8::from(v) << 7),
            Variant::Int(v) => {
                // The smallest of 1, 2, 4 or 8 bytes; the low bytes of the
                // little-endian i64 are the narrower integer.
                let mode = if i8::try_from(v).is_ok() {
                    0
                } else if i16::try_from(v).is_ok() {
                    1
                } else if i32::try_from(v).is_ok() {
                    2
                } else {
                    3
                };
                out.push(INT | mode << 6);
                out.extend_from_slice(&v.to_le_bytes()[..1 << mode]);
            }
            _ => {
                let start = out.len();
                cfg.to_vec_into(arg, out)
                    .map_err(|source| Error::at(ErrorKind::Argument { index, source }, start))?;
            }
        }
    }
    Ok(())
}

/// Reads `argc` compressed arguments from `r`, which must hold exactly them.
pub(crate) fn decode(r: &mut Reader<'_>, argc: usize) -> Result<Vec<Variant>> {
    let cfg = config();
    // Each argument takes a byte at least: a count beyond the bytes left is refused
    // before anything is allocated for it.
    let left = r.bytes.len() - r.pos;
    if argc > left {
        return Err(Error::at(
            ErrorKind::Truncated("the arguments"),
            r.bytes.len(),
        ));
    }
    let mut args = Vec::with_capacity(argc);
    for index in 0..argc {
        let at = r.pos;
        let head = r.u8("an argument")?;
        let arg = match head & 0x3F {
            BOOL if head & 0x40 == 0 => Variant::Bool(head >> 7 == 1),
            INT => {
                let b = r.take(1 << (head >> 6), "a compressed int")?;
                // Sign-extended from its top byte.
                let mut w = [if b[b.len() - 1] & 0x80 != 0 { 0xFF } else { 0 }; 8];
                w[..b.len()].copy_from_slice(b);
                Variant::Int(i64::from_le_bytes(w))
            }
            BOOL => return Err(Error::at(ErrorKind::Compressed(head), at)),
            _ if head & 0xC0 != 0 => return Err(Error::at(ErrorKind::Compressed(head), at)),
            _ => {
                if let Some((v, used)) = fast(&r.bytes[at..]) {
                    r.pos = at + used;
                    args.push(v);
                    continue;
                }
                let (v, used) =
                    cfg.take_from_slice::<Variant>(&r.bytes[at..])
                        .map_err(|source| {
                            let offset = at + source.offset().unwrap_or(0);
                            Error::at(ErrorKind::Argument { index, source }, offset)
                        })?;
                r.pos = at + used;
                v
            }
        };
        args.push(arg);
    }
    Ok(args)
}

/// The common argument types read straight from their bytes, skipping the general
/// decoder's setup (most RPC arguments are these). `None` whenever the general
/// decoder might decide otherwise (a 64-bit vector, a string with a BOM, a NUL, bad
/// UTF-8 or non-zero padding, a bool that is not 0 or 1, too few bytes): it then
/// reads the argument, so the two always agree.
fn fast(b: &[u8]) -> Option<(Variant, usize)> {
    let word = |i: usize| -> Option<[u8; 4]> { b.get(i..i + 4)?.try_into().ok() };
    let f32_at = |i: usize| word(i).map(f32::from_le_bytes);
    let head = u32::from_le_bytes(word(0)?);
    let wide = head & (1 << 16) != 0;
    if head & !(0xFF | 1 << 16) != 0 {
        return None;
    }
    Some(match (head & 0xFF, wide) {
        (0, false) => (Variant::Nil, 4),
        (1, false) => match u32::from_le_bytes(word(4)?) {
            v @ (0 | 1) => (Variant::Bool(v == 1), 8),
            _ => return None,
        },
        (2, false) => (Variant::Int(i64::from(i32::from_le_bytes(word(4)?))), 8),
        (2, true) => {
            let v: [u8; 8] = b.get(4..12)?.try_into().ok()?;
            (Variant::Int(i64::from_le_bytes(v)), 12)
        }
        (3, false) => (Variant::Float(f64::from(f32_at(4)?)), 8),
        (3, true) => {
            let v: [u8; 8] = b.get(4..12)?.try_into().ok()?;
            (Variant::Float(f64::from_le_bytes(v)), 12)
        }
        (4, false) => {
            let len = u32::from_le_bytes(word(4)?) as usize;
            let padded = len.checked_add(3)? & !3;
            let all = b.get(8..8usize.checked_add(padded)?)?;
            let (text, pad) = all.split_at(len);
            if pad.iter().any(|&p| p != 0)
                || text.contains(&0)
                || text.starts_with(&[0xEF, 0xBB, 0xBF])
            {
                return None;
            }
            (
                Variant::String(std::str::from_utf8(text).ok()?.to_owned()),
                8 + padded,
            )
        }
        (5, false) => (Variant::Vector2(Vector2::new(f32_at(4)?, f32_at(8)?)), 12),
        (9, false) => (
            Variant::Vector3(Vector3::new(f32_at(4)?, f32_at(8)?, f32_at(12)?)),
            16,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{QuickCheck, TestResult};

    /// Wherever the fast path reads an argument, the general decoder reads the same
    /// value and length: on random bytes behind each fast type's header, and on
    /// values of those types written by the encoder.
    #[test]
    fn the_fast_path_agrees_with_the_decoder() {
        fn prop(kind: u8, wide: bool, body: Vec<u8>) -> TestResult {
            let kind = [0u8, 1, 2, 3, 4, 5, 9][usize::from(kind) % 7];
            let mut b = vec![kind, 0, u8::from(wide), 0];
            b.extend_from_slice(&body);
            let Some((v, used)) = fast(&b) else {
                return TestResult::discard();
            };
            match config().take_from_slice::<Variant>(&b) {
                Ok((w, n)) => {
                    TestResult::from_bool(n == used && format!("{v:?}") == format!("{w:?}"))
                }
                Err(e) => TestResult::error(format!("{e}: fast path read {v:?}")),
            }
        }
        QuickCheck::new()
            .tests(20_000)
            .max_tests(200_000)
            .quickcheck(prop as fn(u8, bool, Vec<u8>) -> TestResult);

        let cfg = config();
        let values = [
            Variant::Nil,
            Variant::Bool(true),
            Variant::Int(-5),
            Variant::Int(1 << 40),
            Variant::Float(1.5),
            Variant::Float(0.1),
            Variant::Float(f64::NAN),
            Variant::String(String::new()),
            Variant::String("héllo".into()),
            Variant::String("\u{feff}bom".into()),
            Variant::Vector2(Vector2::new(1.0, -2.0)),
            Variant::Vector3(Vector3::new(1.0, 2.0, f32::INFINITY)),
        ];
        for v in values {
            let b = cfg.to_vec(&v).unwrap();
            let general = cfg.take_from_slice::<Variant>(&b).unwrap();
            if let Some((f, n)) = fast(&b) {
                assert_eq!(
                    (format!("{f:?}"), n),
                    (format!("{:?}", general.0), general.1)
                );
            }
        }
        // The common ones do take the fast path.
        for v in [
            Variant::Int(3),
            Variant::String("hi".into()),
            Variant::Vector3(Vector3::new(1.0, 2.0, 3.0)),
        ] {
            assert!(fast(&cfg.to_vec(&v).unwrap()).is_some(), "{v:?}");
        }
    }
}
