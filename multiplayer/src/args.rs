//! RPC arguments as Godot 4 sends them: top-level bools and ints compressed into a
//! type byte, everything else as plain `var_to_bytes` (ints inside containers too).

use godot_bin::{Config, Dialect, Variant};

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
