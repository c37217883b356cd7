//! BQL, Byte Queue Limits: how many bytes the stack may hand to a NIC's transmit ring, tuned
//! at run time by dynamic queue limits (Linux `lib/dynamic_queue_limits.c`, Herbert 2011; seed
//! 001 §III). The aim is the smallest limit that never lets the ring run dry between two
//! completions, so the queue — and the AQM — stays in the qdisc (Cardozo et al. Fig. 5).
//!
//! The algorithm, on each TX completion:
//! - *starved* (the ring went empty while over its limit, or everything queued up to the last
//!   completion is done while the last interval was over limit): the limit grows by what was
//!   queued and completed since, plus the previous overshoot;
//! - *busy the whole interval*: the slack — data queued beyond what two completion intervals
//!   consume — is tracked, and after a hold time the limit shrinks by the smallest slack seen.
//!
//! Byte counters are cumulative 64-bit totals, so no wrap-around arithmetic is needed.

use crate::time::{Duration, Instant};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Byte Queue Limits on the ring.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BqlSpec {
    /// Linux's dynamic queue limits (`lib/dynamic_queue_limits.c`).
    Auto,
    /// No byte limit: the ring fills to its descriptor count.
    Off,
    /// A fixed byte limit: at least 64 B (below it the ring would stall), at most Linux's
    /// `DQL_MAX_LIMIT`.
    Fixed(#[schemars(range(min = 64, max = MAX_LIMIT_BYTES))] u64),
}

/// Linux's `slack_hold_time` default: one second (HZ jiffies).
pub const SLACK_HOLD_NS: Duration = Duration::from_secs(1);
/// Linux's `DQL_MAX_LIMIT` ((UINT_MAX / 16) bytes).
pub const MAX_LIMIT_BYTES: u64 = u32::MAX as u64 / 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Auto,
    Off,
    Fixed,
}

/// Dynamic queue limits for one ring.
#[derive(Clone, Debug)]
pub struct Dql {
    mode: Mode,
    limit: u64,
    /// Bytes ever queued / completed.
    num_queued: u64,
    num_completed: u64,
    /// Bytes of the last queueing operation, and of the one before the last completion.
    last_obj: u64,
    prev_last_obj: u64,
    /// `num_queued` at the last completion.
    prev_num_queued: u64,
    /// How far over the limit the ring was at the last completion.
    prev_ovlimit: u64,
    lowest_slack: u64,
    slack_start: Instant,
    min_limit: u64,
    max_limit: u64,
}

impl Dql {
    pub fn new(spec: BqlSpec) -> Self {
        let (mode, limit) = match spec {
            // Linux starts at min_limit = 0 and learns.
            BqlSpec::Auto => (Mode::Auto, 0),
            BqlSpec::Off => (Mode::Off, u64::MAX),
            BqlSpec::Fixed(n) => (Mode::Fixed, n),
        };
        Dql {
            mode,
            limit,
            num_queued: 0,
            num_completed: 0,
            last_obj: 0,
            prev_last_obj: 0,
            prev_num_queued: 0,
            prev_ovlimit: 0,
            lowest_slack: u64::MAX,
            slack_start: Instant::ZERO,
            min_limit: 0,
            max_limit: MAX_LIMIT_BYTES,
        }
    }

    /// Bytes that may still be queued to the ring; the stack stops handing packets over once
    /// this is negative (a packet is accepted while it is >= 0, as Linux's `netif_tx_stop_queue`
    /// only triggers after the queueing that crossed the limit).
    #[inline]
    pub fn avail(&self) -> i64 {
        if self.mode == Mode::Off {
            return i64::MAX;
        }
        let inflight = self.num_queued - self.num_completed;
        self.limit.min(i64::MAX as u64) as i64 - inflight as i64
    }

    /// `bytes` were handed to the ring.
    #[inline]
    pub fn queued(&mut self, bytes: u64) {
        self.last_obj = bytes;
        self.num_queued += bytes;
    }

    /// The NIC reports `bytes` transmitted (a TX completion) at `now`.
    pub fn completed(&mut self, now: Instant, bytes: u64) {
        debug_assert!(bytes <= self.num_queued - self.num_completed);
        let bytes = bytes.min(self.num_queued - self.num_completed);
        if self.mode != Mode::Auto {
            self.num_completed += bytes;
            return;
        }
        let queued = self.num_queued;
        let completed = self.num_completed + bytes;
        let mut limit = self.limit;
        let mut ovlimit = (queued - self.num_completed).saturating_sub(limit);
        let inprogress = queued - completed;
        let prev_inprogress = self.prev_num_queued - self.num_completed;
        let all_prev_completed = completed >= self.prev_num_queued;

        if (ovlimit > 0 && inprogress == 0) || (self.prev_ovlimit > 0 && all_prev_completed) {
            // Starved: grow by what went through since the last completion plus the overshoot.
            limit += completed.saturating_sub(self.prev_num_queued) + self.prev_ovlimit;
            self.slack_start = now;
            self.lowest_slack = u64::MAX;
        } else if inprogress > 0 && prev_inprogress > 0 && !all_prev_completed {
            // Busy all interval: the excess over twice what one interval completes is slack.
            let slack =
                (limit + self.prev_ovlimit).saturating_sub(2 * (completed - self.num_completed));
            let slack_last_objs = if self.prev_ovlimit > 0 {
                self.prev_last_obj.saturating_sub(self.prev_ovlimit)
            } else {
                0
            };
            self.lowest_slack = self.lowest_slack.min(slack.max(slack_last_objs));
            if now > self.slack_start + SLACK_HOLD_NS {
                limit = limit.saturating_sub(self.lowest_slack);
                self.slack_start = now;
                self.lowest_slack = u64::MAX;
            }
        }
        limit = limit.clamp(self.min_limit, self.max_limit);
        if limit != self.limit {
            self.limit = limit;
            ovlimit = 0;
        }
        self.prev_ovlimit = ovlimit;
        self.prev_last_obj = self.last_obj;
        self.num_completed = completed;
        self.prev_num_queued = queued;
    }

    /// The byte limit now in force (`u64::MAX` when BQL is off).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes handed to the ring and not yet completed.
    pub fn inflight(&self) -> u64 {
        self.num_queued - self.num_completed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{tx_time, Duration};

    /// A ring in front of a link, fed from an always-backlogged qdisc: the stack queues while
    /// BQL allows it (and the ring has descriptors), the NIC completes each packet when sent.
    /// Completions are batched `batch` packets at a time (interrupt coalescing).
    fn steady_link(
        dql: &mut Dql,
        rate_bps: u64,
        pkt: u64,
        batch: usize,
        until: Instant,
    ) -> Vec<(Instant, u64, u64)> {
        let ring_size = 512;
        let mut ring: std::collections::VecDeque<u64> = Default::default();
        let mut pending = 0usize; // sent, awaiting completion
        let mut t = Instant::ZERO;
        let mut log = Vec::new();
        while t < until {
            while dql.avail() >= 0 && ring.len() < ring_size {
                dql.queued(pkt);
                ring.push_back(pkt);
            }
            log.push((t, dql.limit(), dql.inflight()));
            // Send the head packet.
            let p = ring.pop_front().unwrap();
            t += tx_time(p, rate_bps);
            pending += 1;
            if pending == batch || ring.is_empty() {
                dql.completed(t, pending as u64 * pkt);
                pending = 0;
            }
        }
        log
    }

    /// Per-packet completions: from 0 the limit grows to one packet (starved with one in the
    /// ring), then once more to two (the previous interval was over limit and all of it
    /// completed). Each hold time the slack rule tries one packet again and starvation puts it
    /// back: the limit lives in {1, 2} packets with at most 3 in the ring, never the
    /// 512-descriptor ring's worth.
    #[test]
    fn converges_small_with_per_packet_completions() {
        let mut d = Dql::new(BqlSpec::Auto);
        let log = steady_link(&mut d, 100_000_000, 1500, 1, Instant::from_secs(5));
        assert_eq!(log[1].1, 1500);
        let late: Vec<_> = log.iter().filter(|l| l.0 > Instant::from_ms(1)).collect();
        let bad: Vec<_> = late
            .iter()
            .filter(|l| l.1 != 3000 && l.1 != 1500)
            .take(3)
            .collect();
        assert!(bad.is_empty(), "limit {bad:?}");
        assert!(late.iter().all(|l| l.2 <= 4500));
        assert!(late.iter().filter(|l| l.1 == 3000).count() > late.len() * 99 / 100);
    }

    /// Completions in batches of 8 packets: the ring must hold more than a batch to never run
    /// dry, so the limit grows past 8 packets, and the slack rule keeps it under about two
    /// batches (far under the 512-descriptor ring).
    #[test]
    fn converges_to_a_batch_with_coalesced_completions() {
        let mut d = Dql::new(BqlSpec::Auto);
        let log = steady_link(&mut d, 100_000_000, 1500, 8, Instant::from_secs(10));
        let late: Vec<u64> = log
            .iter()
            .filter(|l| l.0 > Instant::from_secs(5))
            .map(|l| l.1)
            .collect();
        let (lo, hi) = (*late.iter().min().unwrap(), *late.iter().max().unwrap());
        assert!(lo >= 8 * 1500, "limit fell to {lo}");
        assert!(hi <= 17 * 1500, "limit rose to {hi}");
    }

    /// The slack rule: a limit set far too high by a burst shrinks after the hold time.
    #[test]
    fn excess_limit_shrinks_after_hold_time() {
        let mut d = Dql::new(BqlSpec::Auto);
        d.limit = 300_000;
        let log = steady_link(&mut d, 100_000_000, 1500, 1, Instant::from_secs(3));
        let at = |s: Instant| log.iter().find(|l| l.0 >= s).unwrap().1;
        assert_eq!(at(Instant::from_ms(500)), 300_000, "held for one second");
        assert!(
            at(Instant::from_ms(2_500)) <= 3000,
            "{}",
            at(Instant::from_ms(2_500))
        );
    }

    #[test]
    fn off_and_fixed() {
        let mut off = Dql::new(BqlSpec::Off);
        off.queued(1 << 30);
        assert_eq!(off.avail(), i64::MAX);
        let mut fixed = Dql::new(BqlSpec::Fixed(3000));
        fixed.queued(1500);
        assert_eq!(fixed.avail(), 1500);
        fixed.queued(1500);
        fixed.queued(1500);
        assert_eq!(fixed.avail(), -1500);
        fixed.completed(Instant::ZERO + Duration::from_ns(10), 3000);
        assert_eq!(fixed.avail(), 1500);
        assert_eq!(fixed.limit(), 3000);
    }
}
