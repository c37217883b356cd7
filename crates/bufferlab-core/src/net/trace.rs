//! A trace-driven link direction: the serializer sends only at the delivery opportunities of a
//! trace, as Mahimahi's `mm-link` does (Netravali et al., "Mahimahi: Accurate Record-and-Replay
//! for HTTP", USENIX ATC 2015; `src/frontend/link_queue.cc`).
//!
//! The trace lists times in milliseconds; each is one opportunity to send 1500 bytes (an MTU).
//! When the list runs out it starts over, shifted by its last time (`mm-link`'s repeat: the
//! period is the last timestamp). An opportunity's bytes serve whatever is queued when it comes,
//! several small packets or a part of a large one; what no packet uses is lost with it, and a
//! packet larger than what is left goes on in the next opportunities. A packet leaves the
//! discipline at the opportunity that starts it and is delivered to the propagation delay at
//! the one that carries its last byte.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::problem::Loc;
use crate::time::{Duration, Instant, NS_PER_MS};

/// Bytes one delivery opportunity carries: one 1500-byte packet (Mahimahi's traces README;
/// `mm-link` counts 1504, the MTU and its TUN device's 4-byte header, so its packets cost 4
/// bytes more each than here).
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// Most opportunities a trace may list (Mahimahi's longest public trace has about 340,000).
pub const MAX_OPPORTUNITIES: usize = 10_000_000;

/// Longest period of a trace, in ms: one day (the bound keeps its mean rate above 1 bps).
pub const MAX_PERIOD_MS: u64 = 86_400_000;

/// A link direction's delivery-opportunity trace, as the plan carries it (the scenario's
/// `rate = "trace(FILE)"`; the direction's `rate_bps` is then the trace's mean rate).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// The trace file, as the scenario names it (for the record; the times below are what runs).
    pub file: String,
    /// Delivery opportunities in ms from the start of the trace, nondecreasing, the last one
    /// after 0: each carries 1500 bytes, and the list repeats every `last` ms.
    pub opportunities_ms: Vec<u64>,
}

impl TraceSpec {
    /// What is wrong with the opportunities (as Mahimahi refuses them), at `loc`.
    pub fn check(&self, loc: &Loc) -> Option<crate::problem::Problem> {
        let at = loc.key("opportunities_ms");
        let o = &self.opportunities_ms;
        if o.is_empty() {
            return Some(at.problem("a trace needs at least one delivery opportunity"));
        }
        if o.len() > MAX_OPPORTUNITIES {
            return Some(at.problem(format!(
                "{} opportunities, more than {MAX_OPPORTUNITIES}",
                o.len()
            )));
        }
        if let Some(i) = o.windows(2).position(|w| w[1] < w[0]) {
            return Some(at.at(i + 1).problem(format!(
                "{} ms comes after {} ms: times must not decrease",
                o[i + 1],
                o[i]
            )));
        }
        let last = *o.last().unwrap_or(&0);
        if last == 0 {
            return Some(
                at.problem("the trace must last longer than 0 ms (its last time is its period)"),
            );
        }
        if last > MAX_PERIOD_MS {
            return Some(at.problem(format!(
                "the trace lasts {last} ms, more than a day ({MAX_PERIOD_MS} ms)"
            )));
        }
        None
    }

    /// The mean rate of the trace in bits per second, rounded (at least 1).
    pub fn mean_rate_bps(&self) -> u64 {
        mean_rate_bps(
            self.opportunities_ms.len() as u64,
            *self.opportunities_ms.last().unwrap_or(&1),
        )
    }
}

/// The mean rate of `n` opportunities every `period_ms`, in bits per second (rounded, at
/// least 1).
pub fn mean_rate_bps(n: u64, period_ms: u64) -> u64 {
    let bits = n as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1000;
    let p = period_ms.max(1) as u128;
    ((bits + p / 2) / p).clamp(1, u64::MAX as u128) as u64
}

/// The serializer's clock of a trace-driven port: the current opportunity and the bytes left in
/// it. Built once; nothing is allocated per packet.
#[derive(Clone, Debug)]
pub struct TraceClock {
    /// Opportunity times within one period, from its start.
    at: Vec<Duration>,
    period: Duration,
    /// The current opportunity: its repetition of the trace, its index and its time.
    cycle: u64,
    idx: usize,
    cur: Instant,
    /// Bytes the current opportunity can still carry.
    left: u32,
    /// When the busy time of the last packet sent ends, counted at the trace's mean rate (what
    /// the port's utilization is measured against).
    pub busy_until: Instant,
}

impl TraceClock {
    /// The clock of a checked trace ([`TraceSpec::check`]).
    pub fn new(spec: &TraceSpec) -> TraceClock {
        let at: Vec<Duration> = spec
            .opportunities_ms
            .iter()
            .map(|&ms| Duration::from_ns(ms * NS_PER_MS))
            .collect();
        let period = at.last().copied().unwrap_or(Duration::from_ms(1));
        let first = at.first().copied().unwrap_or(Duration::ZERO);
        TraceClock {
            at,
            period,
            cycle: 0,
            idx: 0,
            cur: Instant::ZERO + first,
            left: OPPORTUNITY_BYTES,
            busy_until: Instant::ZERO,
        }
    }

    /// The time of opportunity `idx` in repetition `cycle`.
    #[inline]
    fn time_of(&self, cycle: u64, idx: usize) -> Instant {
        Instant::ZERO
            + self
                .period
                .saturating_mul(cycle)
                .saturating_add(self.at[idx])
    }

    /// Move to the next opportunity, a full one.
    #[inline]
    fn step(&mut self) {
        self.idx += 1;
        if self.idx == self.at.len() {
            self.idx = 0;
            self.cycle += 1;
        }
        self.cur = self.time_of(self.cycle, self.idx);
        self.left = OPPORTUNITY_BYTES;
    }

    /// Move to the first opportunity at or after `now` (found by bisection: an idle link skips
    /// any number of them at once).
    fn jump(&mut self, now: Instant) {
        let p = self.period.as_ns();
        let (mut cycle, r) = (now.as_ns() / p, now.as_ns() % p);
        // The last opportunity of the previous repetition falls on this one's start.
        let mut idx = if r == 0 && cycle > 0 {
            cycle -= 1;
            self.at.len() - 1
        } else {
            self.at.partition_point(|t| t.as_ns() < r)
        };
        if idx == self.at.len() {
            idx = 0;
            cycle += 1;
        }
        self.cycle = cycle;
        self.idx = idx;
        self.cur = self.time_of(cycle, idx);
        self.left = OPPORTUNITY_BYTES;
    }

    /// When the serializer can next start a packet, `now` or later: the current opportunity if
    /// it is still to come (or is now) and has bytes left, else the next one.
    #[inline]
    pub fn next_slot(&mut self, now: Instant) -> Instant {
        if self.cur < now {
            self.jump(now);
        } else if self.left == 0 {
            self.step();
        }
        self.cur
    }

    /// Opportunities at times in `[from, to)`.
    pub fn opportunities_in(&self, from: Instant, to: Instant) -> u64 {
        self.count_before(to)
            .saturating_sub(self.count_before(from))
    }

    /// Opportunities at times before `t`.
    fn count_before(&self, t: Instant) -> u64 {
        let (p, n) = (self.period.as_ns(), self.at.len() as u64);
        let (c, r) = (t.as_ns() / p, t.as_ns() % p);
        let below = |x: u64| self.at.partition_point(|a| a.as_ns() < x) as u64;
        // Repetitions before the previous one lie wholly before t; the previous one's last
        // opportunities fall on this one's start (its period), before t unless t is that start.
        let earlier = c.saturating_sub(1) * n;
        let previous = match (c, r) {
            (0, _) => 0,
            (_, 0) => below(p),
            _ => n,
        };
        earlier + previous + below(r)
    }

    /// Send `bytes` from the current opportunity on (the port calls it at the time
    /// [`Self::next_slot`] gave): returns the time of the opportunity that carries the last byte.
    #[inline]
    pub fn send(&mut self, bytes: u64) -> Instant {
        let mut need = bytes;
        loop {
            let take = need.min(self.left as u64);
            need -= take;
            self.left -= take as u32;
            if need == 0 {
                return self.cur;
            }
            self.step();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(ms: &[u64]) -> TraceClock {
        TraceClock::new(&TraceSpec {
            file: "t".into(),
            opportunities_ms: ms.to_vec(),
        })
    }

    fn ms(t: Instant) -> f64 {
        t.as_ns() as f64 / NS_PER_MS as f64
    }

    #[test]
    fn one_line_trace_is_a_constant_rate() {
        // Mahimahi's README: a file holding "1" is one MTU per millisecond, 12 Mbps.
        let spec = TraceSpec {
            file: "t".into(),
            opportunities_ms: vec![1],
        };
        assert_eq!(spec.mean_rate_bps(), 12_000_000);
        let mut c = clock(&[1]);
        let mut t = Instant::ZERO;
        for k in 1..=5u64 {
            t = c.next_slot(t);
            assert_eq!(ms(t), k as f64);
            assert_eq!(c.send(1500), t);
        }
    }

    #[test]
    fn small_packets_share_an_opportunity_and_large_ones_span_several() {
        let mut c = clock(&[2, 5]);
        let t = c.next_slot(Instant::ZERO);
        assert_eq!(ms(t), 2.0);
        // 1000 + 400 bytes fit in the first opportunity, 100 bytes are left.
        assert_eq!(c.send(1000), t);
        assert_eq!(c.next_slot(t), t);
        assert_eq!(c.send(400), t);
        // A 1500-byte packet takes those 100 and 1400 of the opportunity at 5 ms.
        assert_eq!(c.next_slot(t), t);
        assert_eq!(ms(c.send(1500)), 5.0);
        // The trace repeats with period 5 ms: 7 ms, 10 ms, 12 ms, ...
        let t = c.next_slot(Instant::from_ms(5));
        assert_eq!(ms(t), 5.0, "100 bytes are left at 5 ms");
        assert_eq!(ms(c.send(3000)), 10.0);
        assert_eq!(ms(c.next_slot(Instant::from_ms(10))), 10.0);
    }

    #[test]
    fn an_opportunity_nobody_used_is_lost() {
        let mut c = clock(&[1, 2, 3, 4]);
        // Idle until 2.5 ms: the next opportunity is at 3 ms, full.
        let t = c.next_slot(Instant::from_ns(2_500_000));
        assert_eq!(ms(t), 3.0);
        assert_eq!(c.send(1000), t);
        // The 500 bytes left at 3 ms are gone once 3 ms has passed.
        assert_eq!(ms(c.next_slot(Instant::from_ns(3_000_001))), 4.0);
    }

    #[test]
    fn jumping_far_ahead_lands_on_the_right_repetition() {
        // Period 10 ms; opportunities at 0, 0, 4 and 10 ms of each repetition.
        let mut c = clock(&[0, 0, 4, 10]);
        // 1234.5 ms: repetition 123, offset 4.5 ms -> its 10 ms opportunity, at 1240 ms.
        assert_eq!(ms(c.next_slot(Instant::from_ns(1_234_500_000))), 1240.0);
        // At 1240 ms exactly: that one (the last of repetition 123), then the next
        // repetition's two at 1240 ms too, then 1244 ms.
        let mut c = clock(&[0, 0, 4, 10]);
        let t = Instant::from_ms(1240);
        let mut times = Vec::new();
        let mut now = t;
        for _ in 0..4 {
            now = c.next_slot(now);
            times.push(ms(now));
            c.send(1500);
        }
        assert_eq!(times, vec![1240.0, 1240.0, 1240.0, 1244.0]);
    }

    #[test]
    fn opportunities_over_a_long_span_match_the_file() {
        // Greedy full packets through a trace: the count in [0, T) is what the trace lists.
        let trace = [3, 3, 7, 8, 20];
        let mut c = clock(&trace);
        let (mut now, mut n) = (Instant::ZERO, 0u64);
        let end = Instant::from_ms(20 * 50);
        loop {
            now = c.next_slot(now);
            if now >= end {
                break;
            }
            c.send(1500);
            n += 1;
        }
        // 50 repetitions of 5 opportunities, less the last one, at 1000 ms.
        assert_eq!(n, 50 * 5 - 1);
    }

    #[test]
    fn opportunities_in_a_span_are_counted_as_listed() {
        let c = clock(&[0, 0, 4, 10, 10]);
        let all: Vec<u64> = (0..20u64)
            .flat_map(|k| [0, 0, 4, 10, 10].map(|m| k * 10 + m))
            .collect();
        for (a, b) in [
            (0, 1),
            (0, 10),
            (0, 11),
            (3, 25),
            (10, 10),
            (10, 30),
            (7, 150),
            (20, 21),
        ] {
            let want = all.iter().filter(|&&m| a <= m && m < b).count() as u64;
            let got = c.opportunities_in(Instant::from_ms(a), Instant::from_ms(b));
            assert_eq!(got, want, "[{a}, {b}) ms");
        }
    }

    #[test]
    fn checks_follow_mahimahi() {
        let loc = Loc::root();
        let bad = |ms: Vec<u64>| {
            TraceSpec {
                file: "t".into(),
                opportunities_ms: ms,
            }
            .check(&loc)
            .map(|p| p.to_string())
        };
        assert!(bad(vec![]).unwrap().contains("at least one"));
        assert!(bad(vec![0, 0]).unwrap().contains("longer than 0 ms"));
        assert_eq!(
            bad(vec![1, 5, 3]).unwrap(),
            "opportunities_ms[2]: 3 ms comes after 5 ms: times must not decrease"
        );
        assert_eq!(bad(vec![0, 1, 1]), None);
    }
}
