//! A bounded-memory log-linear histogram for durations (ns) and other non-negative integers.
//!
//! Values below 2^SUB_BITS are counted exactly; above, each power of two is split into 2^SUB_BITS
//! equal sub-buckets, so a reported percentile is within 2^-SUB_BITS (about 0.8%) of a value that
//! was recorded. Memory is bounded (at most 58 × 128 counters) whatever the run length, and only
//! the buckets between the smallest and the largest value recorded are kept (an RTT histogram
//! holds a few hundred counters, not the 3000 from 0 up); the exact sum is kept alongside so
//! means are exact.

const SUB_BITS: u32 = 7;
const SUB: usize = 1 << SUB_BITS;
const GROUPS: usize = 64 - SUB_BITS as usize + 1;

/// Records whose counter is written a batch at a time. With thousands of flows a record's
/// counter is a cache miss, and one record at a time the event waited on it; a batch's
/// increments are independent, so their misses overlap (`docs/BENCHMARKS.md`, 2026-11-28).
const BATCH: usize = 8;

/// `repr(C)`: what a record writes (`sum` to `batched`) comes first, within 57 bytes, and the
/// counters' place (`counts`, `base`), which only a batch reads, after it.
#[derive(Clone)]
#[repr(C)]
pub struct Hist {
    sum: u128,
    n: u64,
    min: u64,
    max: u64,
    /// The buckets of the last `batched` records, not yet in `counts` (bucket numbers are below
    /// 58 × 128). `n`, `sum`, `min` and `max` count them already.
    batch: [u16; BATCH],
    batched: u8,
    /// Counters of buckets `base ..= base + counts.len() - 1`.
    counts: Vec<u64>,
    base: usize,
}

impl Default for Hist {
    fn default() -> Self {
        Hist {
            sum: 0,
            n: 0,
            min: u64::MAX,
            max: 0,
            batch: [0; BATCH],
            batched: 0,
            counts: Vec::new(),
            base: 0,
        }
    }
}

#[inline]
fn bucket(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros(); // >= SUB_BITS
    let group = (msb - SUB_BITS + 1) as usize;
    let sub = ((v >> (msb - SUB_BITS)) as usize) & (SUB - 1);
    group * SUB + sub
}

/// The midpoint of a bucket's range (the lowest value for exact buckets).
fn bucket_value(b: usize) -> u64 {
    let group = b / SUB;
    let sub = (b % SUB) as u64;
    if group == 0 {
        return sub;
    }
    let shift = group as u32 - 1;
    let lo = (SUB as u64 + sub) << shift;
    let width = 1u64 << shift;
    lo + (width - 1) / 2
}

impl Hist {
    /// The counter of bucket `b`, growing the kept range to include it (only when a new
    /// smallest or largest value arrives: at most GROUPS * SUB counters).
    #[inline]
    fn slot(&mut self, b: usize) -> &mut u64 {
        debug_assert!(b < GROUPS * SUB);
        if self.counts.is_empty() {
            self.base = b;
        }
        if b < self.base {
            self.grow_down(b);
        }
        let i = b - self.base;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        &mut self.counts[i]
    }

    #[cold]
    fn grow_down(&mut self, b: usize) {
        let extra = self.base - b;
        self.counts.splice(0..0, std::iter::repeat_n(0, extra));
        self.base = b;
    }

    /// Prefetch the lines a record writes (not the counters: a batch reaches them together).
    #[inline]
    pub fn prefetch(&self) {
        crate::prefetch::line(&self.sum);
        crate::prefetch::line(&self.batched);
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = self.batched as usize;
        // The bucket of any u64 is below 58 × 128, so it fits.
        self.batch[i] = bucket(v) as u16;
        if i + 1 == BATCH {
            self.count_batch(BATCH);
        } else {
            self.batched += 1;
        }
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Record `k` samples of value `v` at once (the same as `k` calls of [`Hist::record`]).
    pub fn record_n(&mut self, v: u64, k: u64) {
        if k == 0 {
            return;
        }
        *self.slot(bucket(v)) += k;
        self.n += k;
        self.sum += v as u128 * k as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Write the first `n` batched records into their counters; the batch is then empty.
    #[inline(never)]
    fn count_batch(&mut self, n: usize) {
        let batch = self.batch;
        for &b in &batch[..n] {
            *self.slot(b as usize) += 1;
        }
        self.batched = 0;
    }

    /// Count the records still in the batch (the run's end: the report then reads the counters
    /// without a copy).
    pub fn settle(&mut self) {
        self.count_batch(usize::from(self.batched));
    }

    /// This histogram with every record in its counters: itself, or a copy with its batch
    /// counted (what the readers of the counters read).
    fn counted(&self) -> std::borrow::Cow<'_, Hist> {
        if self.batched == 0 {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut h = self.clone();
        h.settle();
        std::borrow::Cow::Owned(h)
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The empirical CDF: `(value, fraction of samples <= value)` for every non-empty bucket, in
    /// increasing order (values are bucket midpoints, clamped to the recorded range).
    pub fn cdf(&self) -> Vec<(u64, f64)> {
        let h = self.counted();
        let mut out = Vec::new();
        let mut seen = 0u64;
        for (i, &c) in h.counts.iter().enumerate() {
            let b = h.base + i;
            if c > 0 {
                seen += c;
                out.push((
                    bucket_value(b).clamp(self.min, self.max),
                    seen as f64 / self.n as f64,
                ));
            }
        }
        out
    }

    /// The value at quantile `q` in [0, 1] (nearest rank), clamped to the recorded min and max.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let h = self.counted();
        let mut seen = 0;
        for (i, &c) in h.counts.iter().enumerate() {
            let b = h.base + i;
            seen += c;
            if seen >= rank {
                return Some(bucket_value(b).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_values_exact() {
        let mut h = Hist::default();
        for v in 0..100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(49));
        assert_eq!(h.quantile(0.99), Some(98));
        assert_eq!(h.mean(), Some(49.5));
    }

    #[test]
    fn record_n_is_repeated_record() {
        let (mut a, mut b) = (Hist::default(), Hist::default());
        for (v, k) in [(0, 5), (7, 0), (130_000, 3), (0, 2), (9_999_999, 1)] {
            a.record_n(v, k);
            for _ in 0..k {
                b.record(v);
            }
        }
        assert_eq!(a.count(), b.count());
        assert_eq!(a.mean(), b.mean());
        assert_eq!((a.quantile(0.0), a.max()), (b.quantile(0.0), b.max()));
        assert_eq!(a.cdf(), b.cdf());
    }

    #[test]
    fn cdf_ends_at_one_and_increases() {
        let mut h = Hist::default();
        for v in [5, 5, 1000, 2_000_000] {
            h.record(v);
        }
        let c = h.cdf();
        assert_eq!(c.first(), Some(&(5, 0.5)));
        assert_eq!(c.last().unwrap().1, 1.0);
        assert!(c.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    }

    proptest! {
        /// A record waiting in the batch reads as one counted at once (`record_n` counts at
        /// once), after every record, whatever the batch holds.
        #[test]
        fn batched_records_read_as_counted(vs in proptest::collection::vec(0u64..10_000_000_000, 1..40)) {
            let (mut batched, mut counted) = (Hist::default(), Hist::default());
            for &v in &vs {
                batched.record(v);
                counted.record_n(v, 1);
                prop_assert_eq!(batched.cdf(), counted.cdf());
                prop_assert_eq!(batched.quantile(0.5), counted.quantile(0.5));
                prop_assert_eq!(batched.quantile(0.99), counted.quantile(0.99));
                prop_assert_eq!((batched.count(), batched.mean()), (counted.count(), counted.mean()));
            }
            // Settled at the run's end: the batch is in the counters, nothing left to copy.
            batched.settle();
            prop_assert_eq!(batched.batched, 0);
            prop_assert_eq!(batched.cdf(), counted.cdf());
        }

        #[test]
        fn quantile_within_relative_error(mut vs in proptest::collection::vec(1u64..10_000_000_000, 1..500), q in 0.0f64..1.0) {
            let mut h = Hist::default();
            for &v in &vs { h.record(v); }
            vs.sort();
            let rank = ((q * vs.len() as f64).ceil() as usize).max(1);
            let exact = vs[rank - 1] as f64;
            let got = h.quantile(q).unwrap() as f64;
            prop_assert!((got - exact).abs() <= exact / SUB as f64 + 1.0, "got {got} exact {exact}");
        }
    }
}
