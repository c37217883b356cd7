//! Simulated time: integer nanoseconds since the start of the run.
//!
//! Integer time keeps runs bit-for-bit repeatable: no floating-point rounding decides the order of
//! two events. 2^64 ns is about 584 years of simulated time.
//!
//! Two types, both a bare `u64` in memory: an [`Instant`] is a point on the run's clock, a
//! [`Duration`] the distance between two. Only the arithmetic that means something exists
//! (instant + duration, instant − instant, duration × count, …), so a delay cannot be scheduled as
//! if it were a deadline. The raw nanoseconds stay one call away (`as_ns`, `from_ns`) for the
//! plan's keys, the reports and the few closed-form computations done in `f64`.

use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_SEC: u64 = 1_000_000_000;
/// Largest run, and longest delay: 30 days of simulated time, in ns (the plan's bound).
pub const MAX_DURATION_NS: u64 = 30 * 86_400 * NS_PER_SEC;

/// A point in simulated time: nanoseconds since the run started.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
#[repr(transparent)]
pub struct Instant(u64);

/// A span of simulated time in nanoseconds. In the plan a plain integer (`delay_ns = 5000000`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
#[repr(transparent)]
pub struct Duration(u64);

impl Instant {
    /// The start of the run.
    pub const ZERO: Instant = Instant(0);
    /// Never: later than any instant a run reaches (runs are capped at [`MAX_DURATION_NS`]).
    /// A deadline not due where the check sits on a per-packet path (the RTT-adaptive sizer's
    /// next update), and the neutral end for `min` (a source without `stop_ns` stops with the
    /// run); elsewhere "none" is `Option<Instant>`.
    pub const NEVER: Instant = Instant(u64::MAX);

    #[inline]
    pub const fn from_ns(ns: u64) -> Self {
        Instant(ns)
    }
    /// The instant `ms` milliseconds after the start.
    #[inline]
    pub const fn from_ms(ms: u64) -> Self {
        Instant(ms * NS_PER_MS)
    }
    /// The instant `s` seconds after the start.
    #[inline]
    pub const fn from_secs(s: u64) -> Self {
        Instant(s * NS_PER_SEC)
    }
    #[inline]
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// Seconds since the start, as `f64`, for reporting only (never for ordering).
    #[inline]
    pub fn secs(self) -> f64 {
        secs_of(self.0)
    }
    /// The time elapsed since the start of the run.
    #[inline]
    pub const fn since_start(self) -> Duration {
        Duration(self.0)
    }
    #[inline]
    pub const fn saturating_add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }
    #[inline]
    pub const fn saturating_sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(d.0))
    }
    /// `self − earlier`, zero if `earlier` is later.
    #[inline]
    pub const fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);
    /// Longest run and longest delay ([`MAX_DURATION_NS`]).
    pub const MAX_RUN: Duration = Duration(MAX_DURATION_NS);

    #[inline]
    pub const fn from_ns(ns: u64) -> Self {
        Duration(ns)
    }
    #[inline]
    pub const fn from_us(us: u64) -> Self {
        Duration(us * NS_PER_US)
    }
    #[inline]
    pub const fn from_ms(ms: u64) -> Self {
        Duration(ms * NS_PER_MS)
    }
    #[inline]
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * NS_PER_SEC)
    }
    /// Nanoseconds from seconds, rounded to the nearest nanosecond, saturating at the ends.
    #[inline]
    pub fn from_secs_f64(s: f64) -> Self {
        Duration(if s.is_nan() || s <= 0.0 {
            0
        } else if s >= (u64::MAX / NS_PER_SEC) as f64 {
            u64::MAX
        } else {
            (s * NS_PER_SEC as f64).round() as u64
        })
    }
    #[inline]
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// Seconds as `f64`, for reporting and closed forms only (never for ordering).
    #[inline]
    pub fn secs(self) -> f64 {
        secs_of(self.0)
    }
    #[inline]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub const fn saturating_add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
    #[inline]
    pub const fn saturating_sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
    #[inline]
    pub const fn abs_diff(self, d: Duration) -> Duration {
        Duration(self.0.abs_diff(d.0))
    }
    #[inline]
    pub const fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
}

#[inline]
fn secs_of(ns: u64) -> f64 {
    ns as f64 / NS_PER_SEC as f64
}

impl Add<Duration> for Instant {
    type Output = Instant;
    #[inline]
    fn add(self, d: Duration) -> Instant {
        Instant(self.0 + d.0)
    }
}
impl AddAssign<Duration> for Instant {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}
impl Sub<Duration> for Instant {
    type Output = Instant;
    #[inline]
    fn sub(self, d: Duration) -> Instant {
        Instant(self.0 - d.0)
    }
}
impl SubAssign<Duration> for Instant {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        self.0 -= d.0;
    }
}
impl Sub for Instant {
    type Output = Duration;
    #[inline]
    fn sub(self, earlier: Instant) -> Duration {
        Duration(self.0 - earlier.0)
    }
}
impl Add for Duration {
    type Output = Duration;
    #[inline]
    fn add(self, d: Duration) -> Duration {
        Duration(self.0 + d.0)
    }
}
impl AddAssign for Duration {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}
impl Sub for Duration {
    type Output = Duration;
    #[inline]
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0 - d.0)
    }
}
impl SubAssign for Duration {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        self.0 -= d.0;
    }
}
impl Mul<u64> for Duration {
    type Output = Duration;
    #[inline]
    fn mul(self, k: u64) -> Duration {
        Duration(self.0 * k)
    }
}
impl Mul<Duration> for u64 {
    type Output = Duration;
    #[inline]
    fn mul(self, d: Duration) -> Duration {
        Duration(self * d.0)
    }
}
impl Div<u64> for Duration {
    type Output = Duration;
    #[inline]
    fn div(self, k: u64) -> Duration {
        Duration(self.0 / k)
    }
}
/// How many whole `d` fit in `self`.
impl Div for Duration {
    type Output = u64;
    #[inline]
    fn div(self, d: Duration) -> u64 {
        self.0 / d.0
    }
}
impl std::iter::Sum for Duration {
    fn sum<I: Iterator<Item = Duration>>(it: I) -> Duration {
        it.fold(Duration::ZERO, Add::add)
    }
}

/// In the plan's schema a duration is the integer it is written as: the schema of `u64`, inlined
/// so that a field's `#[schemars(range(...))]` bounds apply to it as before.
impl JsonSchema for Duration {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        u64::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        u64::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        u64::json_schema(generator)
    }
}

/// In the plan an instant (`stop_ns`, `measure_ns`) is an integer too, as a duration is.
impl JsonSchema for Instant {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        u64::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        u64::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        u64::json_schema(generator)
    }
}

/// A duration for messages, in the largest unit that shows it exactly (`100 ms`, `1500 us`).
pub fn fmt_ns(d: Duration) -> String {
    let t = d.0;
    for (unit, name) in [(NS_PER_SEC, "s"), (NS_PER_MS, "ms"), (1_000, "us")] {
        if t >= unit && t.is_multiple_of(unit) {
            return format!("{} {name}", t / unit);
        }
    }
    format!("{t} ns")
}

/// Time to serialize `bytes` at `rate_bps`, rounded up to a whole nanosecond so that a link never
/// runs faster than its rate. Exact whenever `bytes * 8e9` is a multiple of the rate.
#[inline]
pub fn tx_time(bytes: u64, rate_bps: u64) -> Duration {
    debug_assert!(rate_bps > 0);
    // Any packet fits in 64 bits (up to 2.3 GB); the 128-bit division is for the rest.
    Duration(match bytes.checked_mul(8 * NS_PER_SEC) {
        Some(num) => num.div_ceil(rate_bps),
        None => (bytes as u128 * 8 * NS_PER_SEC as u128).div_ceil(rate_bps as u128) as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_exact_and_rounded_up() {
        // 1500 B at 10 Mb/s = 1.2 ms exactly.
        assert_eq!(tx_time(1500, 10_000_000), Duration::from_us(1200));
        // 84 B at 1 Gb/s = 672 ns.
        assert_eq!(tx_time(84, 1_000_000_000), Duration::from_ns(672));
        // 1 B at 3 b/s = 2.666.. s -> rounded up.
        assert_eq!(tx_time(1, 3), Duration::from_ns(2_666_666_667));
    }

    #[test]
    fn arithmetic_and_units() {
        let t = Instant::from_ns(5) + Duration::from_us(1);
        assert_eq!(t.as_ns(), 1005);
        assert_eq!(t - Instant::from_ns(5), Duration::from_us(1));
        assert_eq!(
            Instant::ZERO.saturating_sub(Duration::from_ns(1)),
            Instant::ZERO
        );
        assert_eq!(Instant::ZERO.saturating_since(t), Duration::ZERO);
        assert_eq!(Duration::from_ms(3) * 2 / 3, Duration::from_ms(2));
        assert_eq!(Duration::from_secs(1) / Duration::from_ms(300), 3);
        assert!(Instant::NEVER > Instant::ZERO + Duration::MAX_RUN);
        assert_eq!(fmt_ns(Duration::from_us(1500)), "1500 us");
        assert_eq!(Duration::from_secs_f64(0.25).as_ns(), 250_000_000);
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::ZERO);
    }

    #[test]
    fn plan_form_is_a_plain_integer() {
        let d: Duration = serde_json::from_str("40000000").unwrap();
        assert_eq!(d, Duration::from_ms(40));
        assert_eq!(serde_json::to_string(&d).unwrap(), "40000000");
        assert_eq!(
            serde_json::to_value(schemars::schema_for!(Duration)).unwrap()["type"],
            "integer"
        );
    }
}
