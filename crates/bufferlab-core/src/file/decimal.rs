//! Exact decimal numbers as written in a quantity ("0.5", "1e-3", "12.50"): a unit conversion
//! ("0.1ms" -> 100000 ns) must not pick up binary rounding, and a count must be whole exactly.

use std::cmp::Ordering;

/// `(-1)^neg * mant * 10^exp`, with at most 30 significant digits kept (more is not a quantity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dec {
    pub neg: bool,
    pub mant: u128,
    pub exp: i32,
}

const MAX_DIGITS: usize = 30;
/// Beyond this many zeros before or after its digits, [`Dec::show`] writes a number in scientific
/// notation.
pub const SHOWN_ZEROS: i64 = 12;

impl Dec {
    /// Parse `[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?` exactly (None for anything else).
    pub fn parse(s: &str) -> Option<Dec> {
        let (neg, rest) = match s.as_bytes().first()? {
            b'+' => (false, &s[1..]),
            b'-' => (true, &s[1..]),
            _ => (false, s),
        };
        let (num, exp_part) = match rest.find(['e', 'E']) {
            Some(p) => (&rest[..p], Some(&rest[p + 1..])),
            None => (rest, None),
        };
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let mut exp: i64 = match exp_part {
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                e.parse::<i64>().unwrap_or(if e.starts_with('-') {
                    -1_000_000
                } else {
                    1_000_000
                })
            }
            None => 0,
        };
        // Saturating: an exponent near i64's ends must not wrap round to the other sign.
        exp = exp.saturating_sub(frac.len() as i64);
        let digits: String = format!("{int}{frac}");
        let digits = digits.trim_start_matches('0');
        let mut mant: u128 = 0;
        let mut dropped = 0i64;
        for (n, c) in digits.bytes().enumerate() {
            if n >= MAX_DIGITS {
                dropped += 1;
                continue;
            }
            mant = mant * 10 + u128::from(c - b'0');
        }
        exp = exp.saturating_add(dropped);
        Some(
            Dec {
                neg,
                mant,
                exp: exp.clamp(-100_000, 100_000) as i32,
            }
            .normalize(),
        )
    }

    pub fn int(n: u128) -> Dec {
        Dec {
            neg: false,
            mant: n,
            exp: 0,
        }
        .normalize()
    }

    /// Trailing zeros moved into the exponent (`Decimal.normalize`).
    pub fn normalize(mut self) -> Dec {
        if self.mant == 0 {
            return Dec {
                neg: self.neg,
                mant: 0,
                exp: 0,
            };
        }
        while self.mant.is_multiple_of(10) {
            self.mant /= 10;
            self.exp += 1;
        }
        self
    }

    pub fn is_zero(&self) -> bool {
        self.mant == 0
    }

    pub fn is_negative(&self) -> bool {
        self.neg && self.mant != 0
    }

    pub fn is_integral(&self) -> bool {
        self.mant == 0 || self.exp >= 0
    }

    /// `self * k` (k a unit's factor).
    pub fn times(self, k: u128) -> Dec {
        let mut d = self;
        let mut k = k;
        while k > 1 && k.is_multiple_of(10) {
            k /= 10;
            d.exp += 1;
        }
        match d.mant.checked_mul(k) {
            Some(m) => Dec { mant: m, ..d }.normalize(),
            None => {
                // Beyond 38 digits: keep the magnitude (only ever compared with a bound).
                let mut m = d.mant;
                let mut e = d.exp;
                while m.checked_mul(k).is_none() {
                    m /= 10;
                    e += 1;
                }
                Dec {
                    neg: d.neg,
                    mant: m * k,
                    exp: e,
                }
                .normalize()
            }
        }
    }

    /// Rounded to a whole number, half to even; None beyond u128 (the caller's bound is lower).
    pub fn round_even(&self) -> Option<u128> {
        if self.exp >= 0 {
            let p = 10u128.checked_pow(self.exp as u32)?;
            return self.mant.checked_mul(p);
        }
        let shift = (-self.exp) as u32;
        if shift > 38 {
            return Some(0);
        }
        let p = 10u128.pow(shift);
        let (q, r) = (self.mant / p, self.mant % p);
        let half = p / 2;
        Some(match r.cmp(&half) {
            Ordering::Greater => q + 1,
            Ordering::Less => q,
            Ordering::Equal => q + (q & 1),
        })
    }

    /// Compare magnitudes with a whole number `n` (the sign is the caller's).
    pub fn cmp_int(&self, n: u128) -> Ordering {
        if self.is_negative() {
            return Ordering::Less;
        }
        let n = Dec::int(n);
        cmp_mag(self, &n)
    }

    /// The nearest f64 (Python's `float(Decimal(...))`).
    pub fn to_f64(&self) -> f64 {
        let s = format!(
            "{}{}e{}",
            if self.neg { "-" } else { "" },
            self.mant,
            self.exp
        );
        s.parse().unwrap_or(0.0)
    }

    /// For a message: plain notation, unless that takes more than [`SHOWN_ZEROS`] zeros, then
    /// scientific (`3.33e33707079`), so that a number typed with a huge exponent is not spelt
    /// out in a hundred thousand digits.
    pub fn show(&self) -> String {
        let d = self.normalize();
        let m = d.mant.to_string();
        let zeros = if d.exp >= 0 {
            d.exp as i64
        } else {
            -(d.exp as i64) - m.len() as i64
        };
        if d.mant == 0 || zeros <= SHOWN_ZEROS {
            return d.plain();
        }
        let sign = if d.is_negative() { "-" } else { "" };
        let rest = if m.len() > 1 {
            format!(".{}", &m[1..])
        } else {
            String::new()
        };
        format!(
            "{sign}{}{rest}e{}",
            &m[..1],
            d.exp as i64 + m.len() as i64 - 1
        )
    }

    /// Plain notation, no exponent (`format(d.normalize(), "f")`).
    pub fn plain(&self) -> String {
        let d = self.normalize();
        let sign = if d.is_negative() { "-" } else { "" };
        let m = d.mant.to_string();
        if d.exp >= 0 {
            return format!("{sign}{m}{}", "0".repeat(d.exp as usize));
        }
        let shift = (-d.exp) as usize;
        if m.len() > shift {
            format!("{sign}{}.{}", &m[..m.len() - shift], &m[m.len() - shift..])
        } else {
            format!("{sign}0.{}{m}", "0".repeat(shift - m.len()))
        }
    }

    /// `self / k`, exact when it terminates (a unit's factor is a power of ten times small
    /// primes), otherwise to 30 digits.
    pub fn div_int(self, k: u128) -> Dec {
        let mut num = self.mant;
        let mut exp = self.exp;
        // Powers of ten move the exponent: a unit's prefix divides exactly.
        let mut k = k;
        while k > 1 && k.is_multiple_of(10) {
            k /= 10;
            exp -= 1;
        }
        // Scale up so that the quotient keeps 30 digits.
        while num < 10u128.pow(36) && num.checked_mul(10).is_some() {
            num *= 10;
            exp -= 1;
        }
        Dec {
            neg: self.neg,
            mant: num / k,
            exp,
        }
        .normalize()
    }
}

fn cmp_mag(a: &Dec, b: &Dec) -> Ordering {
    if a.mant == 0 || b.mant == 0 {
        return a.mant.cmp(&b.mant);
    }
    let da = a.mant.to_string().len() as i64 + a.exp as i64;
    let db = b.mant.to_string().len() as i64 + b.exp as i64;
    if da != db {
        return da.cmp(&db);
    }
    // Same order of magnitude: compare the digit strings padded to one length.
    let (sa, sb) = (a.mant.to_string(), b.mant.to_string());
    let n = sa.len().max(sb.len());
    format!("{sa:0<n$}").cmp(&format!("{sb:0<n$}"))
}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Dec) -> Option<Ordering> {
        Some(match (self.is_negative(), other.is_negative()) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => cmp_mag(self, other),
            (true, true) => cmp_mag(other, self),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exactly() {
        let d = Dec::parse("0.1").unwrap();
        assert_eq!((d.mant, d.exp), (1, -1));
        assert_eq!(d.times(1_000_000).round_even(), Some(100_000));
        assert_eq!(Dec::parse("2.5").unwrap().round_even(), Some(2));
        assert_eq!(Dec::parse("3.5").unwrap().round_even(), Some(4));
        assert_eq!(Dec::parse("1e3").unwrap().round_even(), Some(1000));
        assert_eq!(Dec::parse("12.50").unwrap().plain(), "12.5");
        assert_eq!(Dec::parse(".5").unwrap().plain(), "0.5");
        assert!(Dec::parse("1.").is_some());
        assert!(Dec::parse(".").is_none());
        assert!(Dec::parse("1e").is_none());
        assert!(Dec::parse("-0").unwrap().is_zero());
    }

    #[test]
    fn compares() {
        let d = Dec::parse("999.9").unwrap();
        assert_eq!(d.cmp_int(1000), Ordering::Less);
        assert_eq!(Dec::parse("1e3").unwrap().cmp_int(1000), Ordering::Equal);
        assert!(Dec::parse("-1").unwrap() < Dec::parse("0.5").unwrap());
        assert_eq!(
            Dec::parse("10000000").unwrap().div_int(1_000_000).plain(),
            "10"
        );
        assert_eq!(Dec::parse("0.05").unwrap().times(1000).plain(), "50");
        // A prefix divides exactly, whatever the digits.
        let d = Dec::parse("435985906703278539944896578851").unwrap();
        assert_eq!(
            d.div_int(1_000_000_000).plain(),
            "435985906703278539944.896578851"
        );
    }

    #[test]
    fn huge_exponents_neither_wrap_nor_spell_out() {
        let d = Dec::parse("1.5e-9223372036854775808").unwrap();
        assert!(d.is_zero() || d.exp < 0, "{d:?}");
        let d = Dec::parse("3333362e33707073").unwrap();
        assert_eq!(d.show(), "3.333362e100006");
        assert_eq!(Dec::parse("1e-100").unwrap().show(), "1e-100");
        assert_eq!(Dec::parse("1e12").unwrap().show(), "1000000000000");
        assert_eq!(Dec::parse("1e13").unwrap().show(), "1e13");
        assert_eq!(
            Dec::parse("0.0000000000001").unwrap().show(),
            "0.0000000000001"
        );
        assert_eq!(Dec::parse("0.00000000000001").unwrap().show(), "1e-14");
        assert_eq!(
            Dec::parse("-0.000000000000123").unwrap().show(),
            "-0.000000000000123"
        );
        assert_eq!(Dec::parse("0").unwrap().show(), "0");
    }
}
