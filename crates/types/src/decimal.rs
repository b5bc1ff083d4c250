//! Exact decimal helpers: powers of ten, digit counts, rescaling with SQL Server's rounding
//! (half away from zero), and a small 256-bit unsigned integer for the products and quotients
//! of 38-digit mantissas that do not fit in `i128`.

use std::cmp::Ordering;

/// 10^0 ..= 10^38 as i128.
pub const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^n for n <= 38.
#[inline]
pub fn pow10(n: u32) -> i128 {
    POW10[n as usize]
}

/// Number of decimal digits of |m| (0 has 1 digit).
pub fn digits(m: i128) -> u8 {
    let a = m.unsigned_abs();
    let mut d = 1u8;
    while d < 39 && a >= POW10[d as usize] as u128 {
        d += 1;
    }
    d
}

/// True when |m| < 10^precision.
#[inline]
pub fn fits(m: i128, precision: u8) -> bool {
    precision >= 39 || m.unsigned_abs() < POW10[precision as usize] as u128
}

/// Divides by 10^n rounding half away from zero.
pub fn div_pow10_round(m: i128, n: u32) -> i128 {
    if n == 0 {
        return m;
    }
    if n > 38 {
        return 0;
    }
    let p = POW10[n as usize];
    let q = m / p;
    let r = (m % p).unsigned_abs();
    if r * 2 >= p as u128 {
        if m < 0 {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

/// Divides by 10^n truncating toward zero.
pub fn div_pow10_trunc(m: i128, n: u32) -> i128 {
    if n > 38 {
        0
    } else {
        m / POW10[n as usize]
    }
}

/// Changes the scale of a mantissa, rounding half away from zero when the scale shrinks.
/// `None` on i128 overflow.
pub fn rescale(m: i128, from: u8, to: u8) -> Option<i128> {
    match to.cmp(&from) {
        Ordering::Equal => Some(m),
        Ordering::Greater => {
            let k = (to - from) as u32;
            if k > 38 {
                if m == 0 {
                    Some(0)
                } else {
                    None
                }
            } else {
                m.checked_mul(POW10[k as usize])
            }
        }
        Ordering::Less => Some(div_pow10_round(m, (from - to) as u32)),
    }
}

/// Like [`rescale`] but truncating.
pub fn rescale_trunc(m: i128, from: u8, to: u8) -> Option<i128> {
    if to >= from {
        rescale(m, from, to)
    } else {
        Some(div_pow10_trunc(m, (from - to) as u32))
    }
}

/// Removes trailing zero digits: the canonical (mantissa, scale) of a decimal value.
pub fn normalize(mut m: i128, mut s: u8) -> (i128, u8) {
    if m == 0 {
        return (0, 0);
    }
    while s > 0 && m % 10 == 0 {
        m /= 10;
        s -= 1;
    }
    (m, s)
}

/// Deterministic conversion of a decimal to f64 (used by casts, comparison and hashing so that
/// equal values always give the same double).
pub fn to_f64(m: i128, s: u8) -> f64 {
    let (m, s) = normalize(m, s);
    if s == 0 {
        return m as f64;
    }
    if m.unsigned_abs() < (1u128 << 53) && s <= 22 {
        return m as f64 / 10f64.powi(s as i32);
    }
    // Fall back to text parsing, which is correctly rounded.
    let neg = m < 0;
    let digits = m.unsigned_abs().to_string();
    let s = s as usize;
    let text = if digits.len() > s {
        format!(
            "{}.{}",
            &digits[..digits.len() - s],
            &digits[digits.len() - s..]
        )
    } else {
        format!("0.{}{}", "0".repeat(s - digits.len()), digits)
    };
    let v: f64 = text.parse().unwrap_or(0.0);
    if neg {
        -v
    } else {
        v
    }
}

/// Converts a finite double to a mantissa at `scale`, rounding half away from zero.
/// `None` when it does not fit in 38 digits.
pub fn from_f64(v: f64, scale: u8) -> Option<i128> {
    if !v.is_finite() {
        return None;
    }
    // Use the shortest round-trip decimal text of the double, as SQL Server's conversion works
    // from the value's decimal digits (0.1e0 converts to 0.1, not 0.1000000000000000055...).
    let text = format!("{:e}", v);
    let (mant, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let neg = mant.starts_with('-');
    let mant = mant.trim_start_matches('-');
    let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
    let all: String = format!("{int_part}{frac_part}");
    // value = all * 10^(exp - frac_len)
    let e = exp - frac_part.len() as i32 + scale as i32;
    let base: i128 = all.parse().ok()?;
    let m = if e >= 0 {
        if e > 38 {
            if base == 0 {
                0
            } else {
                return None;
            }
        } else {
            base.checked_mul(POW10[e as usize])?
        }
    } else {
        div_pow10_round(base, (-e) as u32)
    };
    if m.unsigned_abs() >= POW10[38] as u128 {
        return None;
    }
    Some(if neg { -m } else { m })
}

/// Formats a mantissa with exactly `scale` fractional digits (SQL Server's decimal text).
pub fn format(m: i128, scale: u8, out: &mut String) {
    let neg = m < 0;
    let digits = m.unsigned_abs().to_string();
    let s = scale as usize;
    if neg {
        out.push('-');
    }
    if s == 0 {
        out.push_str(&digits);
        return;
    }
    if digits.len() > s {
        out.push_str(&digits[..digits.len() - s]);
        out.push('.');
        out.push_str(&digits[digits.len() - s..]);
    } else {
        out.push_str("0.");
        for _ in 0..(s - digits.len()) {
            out.push('0');
        }
        out.push_str(&digits);
    }
}

/// Formats with SQL Server's text for decimals: like [`format`] but `.5` style values keep
/// their leading zero (`0.5`), negative zero never appears.
pub fn to_string(m: i128, scale: u8) -> String {
    let mut s = String::with_capacity(42);
    format(m, scale, &mut s);
    s
}

/// Parses a decimal numeric string (`[+-]digits[.digits]`, optional surrounding blanks,
/// optional exponent when `allow_exp`) into (mantissa, scale) exactly, keeping all given
/// fractional digits. `None` when malformed or too long for 38 digits.
pub fn parse(text: &str) -> Option<(i128, u8)> {
    let t = text.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n' || c == '\r');
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (ip, fp) = match body.split_once('.') {
        Some((a, b)) => (a, b),
        None => (body, ""),
    };
    if ip.is_empty() && fp.is_empty() {
        return None;
    }
    if !ip.bytes().all(|b| b.is_ascii_digit()) || !fp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ip = ip.trim_start_matches('0');
    if ip.len() + fp.len() > 38 {
        // Too many digits: keep integer part, round the fraction to fit 38 digits.
        if ip.len() > 38 {
            return None;
        }
        let keep = 38 - ip.len();
        let mut m: i128 = 0;
        for b in ip.bytes().chain(fp.bytes().take(keep)) {
            m = m * 10 + (b - b'0') as i128;
        }
        if fp.as_bytes().get(keep).is_some_and(|b| *b >= b'5') {
            m += 1;
        }
        if m.unsigned_abs() >= POW10[38] as u128 {
            return None;
        }
        return Some((if neg { -m } else { m }, keep as u8));
    }
    let mut m: i128 = 0;
    for b in ip.bytes().chain(fp.bytes()) {
        m = m * 10 + (b - b'0') as i128;
    }
    Some((if neg { -m } else { m }, fp.len() as u8))
}

/// Unsigned 256-bit integer (hi, lo) for intermediate decimal results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct U256 {
    pub hi: u128,
    pub lo: u128,
}

impl U256 {
    pub const ZERO: U256 = U256 { hi: 0, lo: 0 };

    pub fn from_u128(v: u128) -> U256 {
        U256 { hi: 0, lo: v }
    }

    /// Full 128x128 -> 256 product.
    pub fn mul128(a: u128, b: u128) -> U256 {
        let (a1, a0) = (a >> 64, a & u64::MAX as u128);
        let (b1, b0) = (b >> 64, b & u64::MAX as u128);
        let p00 = a0 * b0;
        let p01 = a0 * b1;
        let p10 = a1 * b0;
        let p11 = a1 * b1;
        let mid = (p00 >> 64) + (p01 & u64::MAX as u128) + (p10 & u64::MAX as u128);
        let lo = (p00 & u64::MAX as u128) | (mid << 64);
        let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
        U256 { hi, lo }
    }

    /// self * m, `None` on overflow.
    pub fn checked_mul_u128(self, m: u128) -> Option<U256> {
        let low = U256::mul128(self.lo, m);
        let high = U256::mul128(self.hi, m);
        if high.hi != 0 {
            return None;
        }
        let hi = low.hi.checked_add(high.lo)?;
        Some(U256 { hi, lo: low.lo })
    }

    /// self * 10^n, `None` on overflow.
    pub fn checked_mul_pow10(self, mut n: u32) -> Option<U256> {
        let mut v = self;
        while n > 0 {
            let k = n.min(38);
            v = v.checked_mul_u128(POW10[k as usize] as u128)?;
            n -= k;
        }
        Some(v)
    }

    pub fn checked_add(self, o: U256) -> Option<U256> {
        let (lo, c) = self.lo.overflowing_add(o.lo);
        let hi = self.hi.checked_add(o.hi)?.checked_add(c as u128)?;
        Some(U256 { hi, lo })
    }

    pub fn wrapping_sub(self, o: U256) -> U256 {
        let (lo, b) = self.lo.overflowing_sub(o.lo);
        let hi = self.hi.wrapping_sub(o.hi).wrapping_sub(b as u128);
        U256 { hi, lo }
    }

    fn shl1(self) -> U256 {
        U256 {
            hi: (self.hi << 1) | (self.lo >> 127),
            lo: self.lo << 1,
        }
    }

    fn bits(self) -> u32 {
        if self.hi != 0 {
            256 - self.hi.leading_zeros()
        } else {
            128 - self.lo.leading_zeros()
        }
    }

    fn bit(self, i: u32) -> bool {
        if i >= 128 {
            (self.hi >> (i - 128)) & 1 == 1
        } else {
            (self.lo >> i) & 1 == 1
        }
    }

    /// Quotient and remainder (`None` when dividing by zero).
    pub fn divrem(self, d: U256) -> Option<(U256, U256)> {
        if d == U256::ZERO {
            return None;
        }
        if self.hi == 0 && d.hi == 0 {
            return Some((
                U256::from_u128(self.lo / d.lo),
                U256::from_u128(self.lo % d.lo),
            ));
        }
        let mut q = U256::ZERO;
        let mut r = U256::ZERO;
        let n = self.bits();
        for i in (0..n).rev() {
            r = r.shl1();
            if self.bit(i) {
                r.lo |= 1;
            }
            if r >= d {
                r = r.wrapping_sub(d);
                if i >= 128 {
                    q.hi |= 1 << (i - 128);
                } else {
                    q.lo |= 1 << i;
                }
            }
        }
        Some((q, r))
    }

    /// Value as u128 if it fits.
    pub fn to_u128(self) -> Option<u128> {
        if self.hi == 0 {
            Some(self.lo)
        } else {
            None
        }
    }
}

/// Signed rounded quotient (half away from zero) of two 256-bit magnitudes with a sign.
/// Returns `None` on division by zero or when the result does not fit in i128.
pub fn div_round_u256(neg: bool, n: U256, d: U256) -> Option<i128> {
    let (q, r) = n.divrem(d)?;
    // round: 2r >= d
    let twice = r.checked_add(r);
    let round_up = match twice {
        Some(t) => t >= d,
        None => true,
    };
    let q = if round_up {
        q.checked_add(U256::from_u128(1))?
    } else {
        q
    };
    let q = q.to_u128()?;
    if q > i128::MAX as u128 {
        return None;
    }
    Some(if neg { -(q as i128) } else { q as i128 })
}

/// Exact product a*b (scales add), rounded to `target_scale` (half away from zero).
/// `None` when the rounded result does not fit in i128.
pub fn mul_rescale(a: i128, b: i128, scale_sum: u32, target_scale: u32) -> Option<i128> {
    if let Some(p) = a.checked_mul(b) {
        if target_scale >= scale_sum {
            return p.checked_mul(*POW10.get((target_scale - scale_sum) as usize)?);
        }
        return Some(div_pow10_round(p, scale_sum - target_scale));
    }
    let neg = (a < 0) != (b < 0);
    let p = U256::mul128(a.unsigned_abs(), b.unsigned_abs());
    if target_scale >= scale_sum {
        let v = p.checked_mul_pow10(target_scale - scale_sum)?.to_u128()?;
        if v > i128::MAX as u128 {
            return None;
        }
        return Some(if neg { -(v as i128) } else { v as i128 });
    }
    let d = U256::from_u128(1).checked_mul_pow10(scale_sum - target_scale)?;
    div_round_u256(neg, p, d)
}

/// Rounded quotient of (a / 10^sa) / (b / 10^sb) at `target_scale`. `None` on overflow;
/// the caller checks b != 0.
pub fn div_rescale(a: i128, sa: u32, b: i128, sb: u32, target_scale: u32) -> Option<i128> {
    // q = a * 10^(target + sb - sa) / b
    let e = target_scale as i64 + sb as i64 - sa as i64;
    let neg = (a < 0) != (b < 0);
    let (mut n, mut d) = (
        U256::from_u128(a.unsigned_abs()),
        U256::from_u128(b.unsigned_abs()),
    );
    if e >= 0 {
        n = n.checked_mul_pow10(e as u32)?;
    } else {
        d = d.checked_mul_pow10((-e) as u32)?;
    }
    div_round_u256(neg, n, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(div_pow10_round(25, 1), 3);
        assert_eq!(div_pow10_round(-25, 1), -3);
        assert_eq!(div_pow10_round(24, 1), 2);
        assert_eq!(rescale(155, 2, 1), Some(16));
        assert_eq!(rescale(-155, 2, 1), Some(-16));
        assert_eq!(digits(0), 1);
        assert_eq!(digits(99), 2);
        assert_eq!(digits(-100), 3);
        assert_eq!(digits(POW10[38] - 1), 38);
    }

    #[test]
    fn parse_and_format() {
        assert_eq!(parse(" 12.50 "), Some((1250, 2)));
        assert_eq!(parse("-.5"), Some((-5, 1)));
        assert_eq!(parse("1."), Some((1, 0)));
        assert_eq!(parse("."), None);
        assert_eq!(parse("1e3"), None);
        assert_eq!(to_string(-1, 2), "-0.01");
        assert_eq!(to_string(1250, 3), "1.250");
        assert_eq!(to_string(3, 0), "3");
    }

    #[test]
    fn wide_arith() {
        let big = POW10[37] * 3;
        // (3e37 * 1e-10) * (3e37 * 1e-10) = 9e54 at scale 20 -> overflow
        assert_eq!(mul_rescale(big, big, 20, 6), None);
        // 3e27 * 2 (scale 10 + 0) rounded to 6
        let a = 3 * POW10[37];
        let r = mul_rescale(a, 2 * POW10[10], 20, 6).unwrap();
        assert_eq!(r, 6 * POW10[33]);
        assert_eq!(div_rescale(7, 0, 20, 1, 6), Some(3_500_000));
        assert_eq!(div_rescale(2, 0, 3, 0, 6), Some(666_667));
        assert_eq!(div_rescale(-2, 0, 3, 0, 6), Some(-666_667));
        let x = U256::mul128(u128::MAX, u128::MAX);
        let (q, r) = x.divrem(U256::from_u128(u128::MAX)).unwrap();
        assert_eq!(q, U256::from_u128(u128::MAX));
        assert_eq!(r, U256::ZERO);
    }

    #[test]
    fn float_conv() {
        assert_eq!(from_f64(0.1, 2), Some(10));
        assert_eq!(from_f64(2.5, 0), Some(3));
        assert_eq!(from_f64(-2.5, 0), Some(-3));
        assert_eq!(from_f64(1e40, 0), None);
        assert_eq!(to_f64(15, 1), 1.5);
        assert_eq!(to_f64(150, 2), 1.5);
    }
}
