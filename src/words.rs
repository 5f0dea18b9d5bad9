//! Little-endian words out of byte slices, and the word-at-a-time byte tests of the
//! short-string paths (encoder and decoder alike).

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

/// Whether any byte of `w` is zero (the classic bit trick).
#[inline]
pub(crate) fn has_zero(w: u64) -> bool {
    w.wrapping_sub(0x0101_0101_0101_0101) & !w & HIGH != 0
}

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
    }
}
