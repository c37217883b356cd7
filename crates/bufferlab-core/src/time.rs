//! Simulated time: integer nanoseconds since the start of the run.
//!
//! Integer time keeps runs bit-for-bit repeatable: no floating-point rounding decides the order of
//! two events. 2^64 ns is about 584 years of simulated time.

/// A point in simulated time, or a duration, in nanoseconds.
pub type Time = u64;

pub const NS_PER_US: Time = 1_000;
pub const NS_PER_MS: Time = 1_000_000;
pub const NS_PER_SEC: Time = 1_000_000_000;
/// Largest run, and longest delay: 30 days of simulated time.
pub const MAX_DURATION_NS: Time = 30 * 86_400 * NS_PER_SEC;

/// Seconds as `f64`, for reporting only (never for ordering).
#[inline]
/// A duration for messages, in the largest unit that shows it exactly (`100 ms`, `1500 us`).
pub fn fmt_ns(t: Time) -> String {
    for (unit, name) in [(NS_PER_SEC, "s"), (NS_PER_MS, "ms"), (1_000, "us")] {
        if t >= unit && t.is_multiple_of(unit) {
            return format!("{} {name}", t / unit);
        }
    }
    format!("{t} ns")
}

pub fn secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Nanoseconds from seconds, rounded to the nearest nanosecond, saturating at the ends.
#[inline]
pub fn from_secs_f64(s: f64) -> Time {
    if s.is_nan() || s <= 0.0 {
        0
    } else if s >= (u64::MAX / NS_PER_SEC) as f64 {
        u64::MAX
    } else {
        (s * NS_PER_SEC as f64).round() as Time
    }
}

/// Time to serialize `bytes` at `rate_bps`, rounded up to a whole nanosecond so that a link never
/// runs faster than its rate. Exact whenever `bytes * 8e9` is a multiple of the rate.
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    debug_assert!(rate_bps > 0);
    // Any packet fits in 64 bits (up to 2.3 GB); the 128-bit division is for the rest.
    match bytes.checked_mul(8 * NS_PER_SEC) {
        Some(num) => num.div_ceil(rate_bps),
        None => (bytes as u128 * 8 * NS_PER_SEC as u128).div_ceil(rate_bps as u128) as Time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_exact_and_rounded_up() {
        // 1500 B at 10 Mb/s = 1.2 ms exactly.
        assert_eq!(tx_time(1500, 10_000_000), 1_200_000);
        // 84 B at 1 Gb/s = 672 ns.
        assert_eq!(tx_time(84, 1_000_000_000), 672);
        // 1 B at 3 b/s = 2.666.. s -> rounded up.
        assert_eq!(tx_time(1, 3), 2_666_666_667);
    }
}
