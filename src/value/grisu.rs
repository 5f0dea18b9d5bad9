//! Godot 4's number text: Grisu2 (Florian Loitsch's algorithm, in the form
//! nlohmann::json ships and Godot 4 vendors as `thirdparty/grisu2`). It is not always
//! the shortest round-trip text (Rust's `{}` is), so `var_to_str` needs the same
//! algorithm to print the same digits.

use std::sync::OnceLock;

#[derive(Clone, Copy)]
struct DiyFp {
    f: u64,
    e: i32,
}

impl DiyFp {
    fn sub(self, y: DiyFp) -> DiyFp {
        DiyFp {
            f: self.f - y.f,
            e: self.e,
        }
    }

    /// The upper 64 bits of the 128-bit product, rounded.
    fn mul(self, y: DiyFp) -> DiyFp {
        let p = u128::from(self.f) * u128::from(y.f);
        let h = (p >> 64) as u64 + ((p >> 63) & 1) as u64;
        DiyFp {
            f: h,
            e: self.e + y.e + 64,
        }
    }

    fn normalize(mut self) -> DiyFp {
        let shift = self.f.leading_zeros();
        self.f <<= shift;
        self.e -= shift as i32;
        self
    }

    fn normalize_to(self, e: i32) -> DiyFp {
        DiyFp {
            f: self.f << (self.e - e),
            e,
        }
    }
}

/// The value and its rounding boundaries, for a float of `precision` significand bits
/// (24 or 53) given by its raw bits.
fn boundaries(bits: u64, precision: u32, max_exponent: i32) -> (DiyFp, DiyFp, DiyFp) {
    let bias = max_exponent - 1 + (precision as i32 - 1);
    let min_exp = 1 - bias;
    let hidden = 1u64 << (precision - 1);
    let e_bits = bits >> (precision - 1);
    let f_bits = bits & (hidden - 1);
    let v = if e_bits == 0 {
        DiyFp {
            f: f_bits,
            e: min_exp,
        }
    } else {
        DiyFp {
            f: f_bits + hidden,
            e: e_bits as i32 - bias,
        }
    };
    let lower_closer = f_bits == 0 && e_bits > 1;
    let m_plus = DiyFp {
        f: 2 * v.f + 1,
        e: v.e - 1,
    };
    let m_minus = if lower_closer {
        DiyFp {
            f: 4 * v.f - 1,
            e: v.e - 2,
        }
    } else {
        DiyFp {
            f: 2 * v.f - 1,
            e: v.e - 1,
        }
    };
    let w_plus = m_plus.normalize();
    (v.normalize(), m_minus.normalize_to(w_plus.e), w_plus)
}

const ALPHA: i32 = -60;
const MIN_DEC_EXP: i32 = -300;
const DEC_STEP: i32 = 8;

/// 10^k for k = -300, -292, ..., 324 as normalized 64-bit significands, rounded to
/// nearest (the grisu table), computed exactly once with big integers.
fn cached_powers() -> &'static [(u64, i32, i32)] {
    static TABLE: OnceLock<Vec<(u64, i32, i32)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..79)
            .map(|i| {
                let k = MIN_DEC_EXP + DEC_STEP * i;
                let (f, e) = pow10_normalized(k);
                (f, e, k)
            })
            .collect()
    })
}

/// Little-endian base-2^32 big integers: just enough for powers of ten.
fn big_pow10(n: u32) -> Vec<u32> {
    let mut v = vec![1u32];
    for _ in 0..n {
        let mut carry = 0u64;
        for limb in v.iter_mut() {
            let x = u64::from(*limb) * 10 + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            v.push(carry as u32);
        }
    }
    v
}

fn bit_len(v: &[u32]) -> u32 {
    match v.iter().rposition(|&l| l != 0) {
        Some(i) => 32 * i as u32 + (32 - v[i].leading_zeros()),
        None => 0,
    }
}

fn bit(v: &[u32], i: u32) -> bool {
    v.get((i / 32) as usize)
        .is_some_and(|l| (l >> (i % 32)) & 1 == 1)
}

/// `10^k ≈ f · 2^e` with `f` normalized to 64 bits and rounded to nearest.
fn pow10_normalized(k: i32) -> (u64, i32) {
    if k >= 0 {
        let v = big_pow10(k as u32);
        let len = bit_len(&v);
        let shift = len as i32 - 64;
        if shift <= 0 {
            let f = v
                .iter()
                .rev()
                .fold(0u64, |acc, &l| (acc << 32) | u64::from(l));
            return (f << -shift, shift);
        }
        let mut f = 0u64;
        for i in (shift as u32..len).rev() {
            f = (f << 1) | bit(&v, i) as u64;
        }
        round_up(f, bit(&v, shift as u32 - 1), shift)
    } else {
        // 2^n / 10^-k, with n chosen so the quotient has 65 bits (one to round with).
        let d = big_pow10((-k) as u32);
        let n = bit_len(&d) + 64;
        // 10^k is no dyadic number, so the dropped bit alone decides the rounding.
        let q = div_pow2(n, &d);
        round_up((q >> 1) as u64, q & 1 == 1, 1 - n as i32)
    }
}

fn round_up(f: u64, round: bool, e: i32) -> (u64, i32) {
    if !round {
        return (f, e);
    }
    match f.checked_add(1) {
        Some(f) => (f, e),
        None => (1 << 63, e + 1),
    }
}

/// The low 65 bits of `2^n / d` (the caller picks `n` so that is all of it).
fn div_pow2(n: u32, d: &[u32]) -> u128 {
    // Long division, bit by bit: remainder r, quotient bits collected in q.
    let mut r: Vec<u32> = vec![0; d.len() + 1];
    let mut q: u128 = 0;
    for i in (0..=n).rev() {
        // r = 2r + bit i of 2^n
        let mut carry = u32::from(i == n);
        for limb in r.iter_mut() {
            let next = *limb >> 31;
            *limb = (*limb << 1) | carry;
            carry = next;
        }
        let ge = compare(&r, d) != std::cmp::Ordering::Less;
        if ge {
            subtract(&mut r, d);
        }
        if i < 65 {
            q = (q << 1) | ge as u128;
        }
    }
    q
}

fn compare(a: &[u32], b: &[u32]) -> std::cmp::Ordering {
    let len = a.len().max(b.len());
    for i in (0..len).rev() {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

fn subtract(a: &mut [u32], b: &[u32]) {
    let mut borrow = 0i64;
    for (i, limb) in a.iter_mut().enumerate() {
        let x = i64::from(*limb) - i64::from(b.get(i).copied().unwrap_or(0)) - borrow;
        borrow = i64::from(x < 0);
        *limb = (x + (borrow << 32)) as u32;
    }
}

fn cached_power(e: i32) -> (DiyFp, i32) {
    let f = ALPHA - e - 1;
    let k = (f * 78913) / (1 << 18) + i32::from(f > 0);
    let index = (-MIN_DEC_EXP + k + (DEC_STEP - 1)) / DEC_STEP;
    let (f, e, k) = cached_powers()[index.clamp(0, 78) as usize];
    (DiyFp { f, e }, k)
}

fn round_digit(buf: &mut [u8], dist: u64, delta: u64, mut rest: u64, ten_k: u64) {
    let Some(last) = buf.last_mut() else { return };
    while rest < dist
        && delta - rest >= ten_k
        && (rest.wrapping_add(ten_k) < dist || dist - rest > rest.wrapping_add(ten_k) - dist)
    {
        *last -= 1;
        rest += ten_k;
    }
}

fn largest_pow10(n: u32) -> (u32, i32) {
    let mut pow = 1_000_000_000u32;
    let mut k = 10;
    while k > 1 && n < pow {
        pow /= 10;
        k -= 1;
    }
    (pow, k)
}

/// Digits and decimal exponent of a positive, finite, non-zero value given by its
/// raw bits: the value is `digits · 10^exponent`.
pub(crate) fn digits(bits: u64, single: bool) -> (Vec<u8>, i32) {
    let (v, m_minus, m_plus) = if single {
        boundaries(bits, 24, 128)
    } else {
        boundaries(bits, 53, 1024)
    };
    let (c, k) = cached_power(m_plus.e);
    let w = v.mul(c);
    let w_minus = m_minus.mul(c);
    let w_plus = m_plus.mul(c);
    let big_minus = DiyFp {
        f: w_minus.f + 1,
        e: w_minus.e,
    };
    let big_plus = DiyFp {
        f: w_plus.f - 1,
        e: w_plus.e,
    };
    let mut exp = -k;

    let mut delta = big_plus.sub(big_minus).f;
    let mut dist = big_plus.sub(w).f;
    let one_e = -big_plus.e as u32;
    let one_f = 1u64 << one_e;
    let mut p1 = (big_plus.f >> one_e) as u32;
    let mut p2 = big_plus.f & (one_f - 1);
    let mut buf = Vec::with_capacity(20);
    let (mut pow10, mut n) = largest_pow10(p1);
    while n > 0 {
        buf.push(b'0' + (p1 / pow10) as u8);
        p1 %= pow10;
        n -= 1;
        let rest = (u64::from(p1) << one_e) + p2;
        if rest <= delta {
            exp += n;
            round_digit(&mut buf, dist, delta, rest, u64::from(pow10) << one_e);
            return (buf, exp);
        }
        pow10 /= 10;
    }
    let mut m = 0;
    loop {
        p2 *= 10;
        buf.push(b'0' + (p2 >> one_e) as u8);
        p2 &= one_f - 1;
        m += 1;
        delta *= 10;
        dist *= 10;
        if p2 <= delta {
            break;
        }
    }
    exp -= m;
    round_digit(&mut buf, dist, delta, p2, one_f);
    (buf, exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first entry of the published grisu cached-power table, and exact powers.
    #[test]
    fn cached_powers() {
        assert_eq!(super::cached_powers()[0], (0xAB70FE17C79AC6CA, -1060, -300));
        // 10^4 = 0x2710, normalized: 0x2710 << 50 · 2^-50.
        assert_eq!(pow10_normalized(4), (0x2710 << 50, -50));
    }
}
