//! Little-endian words out of byte slices, and the word-at-a-time byte tests of the
//! short-string paths (encoder and decoder alike).

/// The low bit of every byte.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of every byte.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// `b`, of exactly `N` bytes, as an array (zeros otherwise). An exact conversion,
/// not a prefix: bulk conversions of pool arrays vectorise only so.
#[inline]
pub(crate) fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    b.try_into().unwrap_or([0; N])
}

/// `b[i..i + n]` (`n` at most 8) as the low bytes of a word.
#[inline]
pub(crate) fn word(b: &[u8], i: usize, n: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&b[i..i + n]);
    u64::from_le_bytes(w)
}

/// The high bit of `w`'s zero bytes (the classic bit trick): the lowest one set marks
/// exactly the first zero byte; above it, borrows may flag others.
#[inline]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGH
}

/// Whether any byte of `w` is zero.
#[inline]
pub(crate) fn has_zero(w: u64) -> bool {
    zero_bytes(w) != 0
}

/// Whether `b` holds a zero byte, a word at a time, the last word overlapping the
/// one before (short strings: faster than a call to memchr).
#[inline]
pub(crate) fn has_nul(b: &[u8]) -> bool {
    let n = b.len();
    if n < 8 {
        return b.contains(&0);
    }
    // Two words a step; the last 16 bytes (overlapping) settle the rest.
    let zero = |w: &[u8]| {
        let (a, b) = (
            u64::from_le_bytes(le::<8>(&w[..8])),
            u64::from_le_bytes(le::<8>(&w[8..])),
        );
        zero_bytes(a) | zero_bytes(b) != 0
    };
    if n < 16 {
        return has_zero(u64::from_le_bytes(le::<8>(&b[..8])))
            || has_zero(u64::from_le_bytes(le::<8>(&b[n - 8..])));
    }
    zero(&b[n - 16..]) || b.chunks_exact(16).any(zero)
}

/// The 1 to 3 bytes of `b` as the low bytes of a zero-padded word, from its first,
/// middle and last byte (which overlap where `b` is shorter): no loop, no copy call.
#[inline]
pub(crate) fn tiny(b: &[u8]) -> u64 {
    let len = b.len();
    u64::from(b[0])
        | u64::from(b[len / 2]) << (8 * (len / 2))
        | u64::from(b[len - 1]) << (8 * (len - 1))
}

/// The ASCII string before the first NUL of `b`, when that NUL is within its first
/// 64 bytes and everything before it is ASCII: one pass a word at a time finds both
/// (a NUL-terminated string's end and its check). `None` for anything else.
#[inline]
pub(crate) fn ascii_to_nul(b: &[u8]) -> Option<&str> {
    let head = &b[..b.len().min(64)];
    let mut words = head.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let w = u64::from_le_bytes(le::<8>(w));
        if (zero_bytes(w) | w & HIGH) != 0 {
            return ascii_before_nul(b, at, w);
        }
        at += 8;
    }
    let tail = words.remainder();
    if tail.is_empty() {
        return None;
    }
    // Past the end: bytes that are neither NUL nor high, so no end is found there.
    let w = word(tail, 0, tail.len()) | 0x7F7F_7F7F_7F7F_7F7F << (8 * tail.len());
    if (zero_bytes(w) | w & HIGH) != 0 {
        return ascii_before_nul(b, at, w);
    }
    None
}

/// [`ascii_to_nul`] once the word at `at` holds a NUL or a high byte: the string,
/// when that word's first NUL comes before any high byte (the words before it had
/// neither).
#[inline]
fn ascii_before_nul(b: &[u8], at: usize, w: u64) -> Option<&str> {
    let zeros = zero_bytes(w);
    let before = (zeros & zeros.wrapping_neg()).wrapping_sub(1);
    if zeros == 0 || w & HIGH & before != 0 {
        return None;
    }
    let end = at + zeros.trailing_zeros() as usize / 8;
    // SAFETY: every byte of `b[..end]` was in a word tested by `ascii_to_nul` or here
    // and had its high bit clear: ASCII, hence UTF-8.
    #[allow(unsafe_code)]
    Some(unsafe { std::str::from_utf8_unchecked(&b[..end]) })
}

/// `b` as a string when it is 1 to 64 bytes of ASCII without NUL (most keys, names
/// and ids), tested a word at a time; `None` for anything else.
///
/// One of the crate's places with `unsafe` (with `ascii_to_nul` and `cast`): `str::from_utf8`
/// would repeat a validation these word tests already did, and cost a tenth of a typed
/// decode (measured with `benches/world.rs`).
#[inline]
pub(crate) fn short_ascii(b: &[u8]) -> Option<&str> {
    let len = b.len();
    let (lo, hi) = match len {
        // Longer keys ("is_filtering_craftable", uuids): the words at 8, 16, ... below
        // the last 8 bytes here, the first and the last word below (they overlap).
        17..=64 => {
            let mut i = 8;
            while i + 8 < len {
                let w = word(b, i, 8);
                if w & HIGH != 0 || has_zero(w) {
                    return None;
                }
                i += 8;
            }
            (word(b, 0, 8), word(b, len - 8, 8))
        }
        8..=16 => (word(b, 0, 8), word(b, len - 8, 8)),
        // Two overlapping 4-byte halves in one word.
        4..=7 => {
            let w = word(b, 0, 4) | word(b, len - 4, 4) << 32;
            (w, w)
        }
        // Above the string's bytes, bytes that are neither NUL nor high.
        1..=3 => {
            let w = tiny(b) | 0x7F7F_7F7F_7F7F_7F7F << (8 * len);
            (w, w)
        }
        _ => return None,
    };
    if (lo | hi) & HIGH != 0 || has_zero(lo) || has_zero(hi) {
        return None;
    }
    // SAFETY: the words tested hold every byte of `b` (for 17 to 64 bytes, the words
    // at 0, 8, 16, ... below `len - 8` and the last 8 bytes; for 4 to 16, the first and the last
    // `min(len, 8)`, which overlap; for 1 to 3 bytes, each of them), and none has its
    // high bit set: `b` is ASCII, hence UTF-8.
    #[allow(unsafe_code)]
    Some(unsafe { std::str::from_utf8_unchecked(b) })
}

/// Whether `wire`, a string's bytes read from the input, is `name` (of the same
/// length) and reads as exactly `name` under Godot's rules: `name` has no NUL (the
/// engine cuts a string there) and does not start with a BOM (dropped).
pub(crate) fn is_key(wire: &[u8], name: &[u8]) -> bool {
    wire == name && !has_nul(name) && !name.starts_with(BOM)
}

/// [`is_key`] for a name of at most 16 bytes, with `wire` the 16 bytes from the
/// key's start (past its end, anything): two overlapping word compares and the same
/// words' tests; no loop, no call to memcmp.
#[inline]
pub(crate) fn is_short_key(wire: &[u8; 16], name: &[u8]) -> bool {
    let len = name.len();
    let (lo, hi, same) = match len {
        8..=16 => {
            let (lo, hi) = (word(name, 0, 8), word(name, len - 8, 8));
            (
                lo,
                hi,
                word(wire, 0, 8) == lo && word(wire, len - 8, 8) == hi,
            )
        }
        4..=7 => {
            let w = word(name, 0, 4) | word(name, len - 4, 4) << 32;
            (w, w, word(wire, 0, 4) | word(wire, len - 4, 4) << 32 == w)
        }
        1..=3 => {
            let w = tiny(name);
            // Above the bytes, bytes that are not NUL.
            let filled = w | 0x7F7F_7F7F_7F7F_7F7F << (8 * len);
            (filled, filled, tiny(&wire[..len]) == w)
        }
        _ => return true,
    };
    // A BOM's three bytes would be the low three of the first word.
    same && zero_bytes(lo) | zero_bytes(hi) == 0 && lo & 0xFF_FFFF != 0xBF_BBEF
}

/// UTF-8 of U+FEFF, the byte order mark Godot drops from the start of a string.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_bytes_are_found_in_every_position() {
        assert!(!has_zero(u64::from_le_bytes(*b"abcdefgh")));
        assert!(!has_zero(u64::MAX));
        for i in 0..8 {
            let mut b = *b"abcdefgh";
            b[i] = 0;
            assert!(has_zero(u64::from_le_bytes(b)), "{i}");
            b[i] = 0x80;
            assert!(!has_zero(u64::from_le_bytes(b)), "{i}");
        }
        assert_eq!(
            word(b"xabcd", 1, 4),
            u64::from(u32::from_le_bytes(*b"abcd"))
        );
        assert_eq!(le::<4>(b"ab"), [0; 4]);
        assert_eq!(tiny(b"a"), 0x61);
        assert_eq!(tiny(b"ab"), 0x6261);
        assert_eq!(tiny(b"abc"), 0x63_6261);
    }

    #[test]
    fn nul_is_found_in_every_position() {
        // Fillers with the high bit set and of value 1 are where the word trick's
        // borrows could mislead.
        for fill in [b'x', 0x01, 0x80, 0xFF] {
            for len in 0..72 {
                let s = vec![fill; len];
                assert!(!has_nul(&s), "{fill} {len}");
                for at in 0..len {
                    let mut t = s.clone();
                    t[at] = 0;
                    assert!(has_nul(&t), "{fill} {len} {at}");
                }
            }
        }
    }

    #[test]
    fn ascii_to_nul_takes_exactly_the_short_ascii_strings_before_a_nul() {
        fn slow(b: &[u8]) -> Option<&str> {
            let end = b.iter().position(|&c| c == 0)?;
            (end <= 63 && b[..end].is_ascii()).then(|| std::str::from_utf8(&b[..end]).unwrap())
        }
        for len in 0..=80 {
            let s: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert_eq!(ascii_to_nul(&s), None, "{len}");
            // A NUL, then maybe a non-ASCII byte, anywhere: before, at or after it.
            for nul in 0..len {
                let mut t = s.clone();
                t[nul] = 0;
                assert_eq!(ascii_to_nul(&t), slow(&t), "{len} {nul}");
                for at in 0..len {
                    for bad in [0x80u8, 0xC3, 0xFF, 0x01] {
                        let mut u = t.clone();
                        if at != nul {
                            u[at] = bad;
                        }
                        assert_eq!(ascii_to_nul(&u), slow(&u), "{len} {nul} {at} {bad}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_key_is_a_name_exactly_when_the_engine_reads_it_as_that_name() {
        // What the engine makes of a string's bytes: cut at NUL, a leading BOM dropped.
        let reads = |b: &[u8]| {
            let b = &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())];
            b.strip_prefix(BOM).unwrap_or(b).to_vec()
        };
        for len in 0..40 {
            let name: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let mut names = vec![name.clone()];
            for at in 0..len {
                for b in [0u8, 0x80, 0xEF] {
                    let mut n = name.clone();
                    n[at] = b;
                    names.push(n);
                }
            }
            if len >= 3 {
                let mut n = name.clone();
                n[..3].copy_from_slice(BOM);
                names.push(n);
            }
            for n in &names {
                for w in &names {
                    // Past the key, bytes the check must not look at.
                    let mut wire = w.clone();
                    wire.extend_from_slice(&[0xEF; 16]);
                    let want = w == n && reads(n) == *n;
                    assert_eq!(is_key(&wire[..len], n), want, "{n:?} {w:?}");
                    if len <= 16 {
                        assert_eq!(is_short_key(&le(&wire[..16]), n), want, "{n:?} {w:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn short_ascii_takes_exactly_the_short_ascii_strings() {
        for len in 0..=72 {
            let s: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let short = (1..=64).contains(&len);
            assert_eq!(
                short_ascii(&s),
                short.then(|| std::str::from_utf8(&s).unwrap())
            );
            // A NUL, a non-ASCII byte (valid UTF-8 or not) in any position.
            for at in 0..len {
                for bad in [0u8, 0x80, 0xC3, 0xEF, 0xFF] {
                    let mut t = s.clone();
                    t[at] = bad;
                    assert_eq!(short_ascii(&t), None, "{len} {at} {bad}");
                }
            }
        }
        assert_eq!(short_ascii("é€abcd".as_bytes()), None);
    }
}
