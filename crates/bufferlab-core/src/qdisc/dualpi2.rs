//! DualPI2, the coupled dual-queue AQM of L4S (RFC 9332; Linux `net/sched/sch_dualpi2.c`):
//! ECT(1) and CE packets wait in the L queue, the rest in the C queue; one PI controller sets a
//! base probability p' from the queueing delay, the C queue drops or marks with p' squared, the
//! L queue marks with k·p' or, natively, whenever a packet has waited longer than a step
//! threshold; a weighted round robin keeps the L queue first without starving the C queue.
//!
//! The behaviour follows Linux 6.18's defaults where they and the RFC's example differ (see
//! `docs/qdisc-dualpi2.md`): the controller reads the larger of the two queues' head sojourn
//! times, the AQM acts at dequeue, the scheduler is Linux's WRR (`c_protection`), not the RFC's
//! time-shifted FIFO.

use std::collections::VecDeque;

use rand::Rng as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::band::{reserve_for, Band};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::packet::Ecn;
use crate::problem::{at_key, Problem};
use crate::rng::{stream, Rng, Stream};
use crate::time::{fmt_ns, Duration, Instant};

/// DualPI2's parameters (plan keys `target_ns`, `tupdate_ns`, `alpha`, `beta`, `coupling_factor`,
/// `step_thresh_ns`, `step_thresh_packets`, `min_qlen_step`, `c_protection`, `drop_overload`,
/// `drop_early`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DualPi2Config {
    /// The PI controller's delay target (RFC 9332 Appendix A and Linux: 15 ms).
    #[schemars(range(min = 1))]
    pub target_ns: Duration,
    /// Period of the probability update (RFC 9332 Appendix A and Linux: 16 ms).
    #[schemars(range(min = 1))]
    pub tupdate_ns: Duration,
    /// Integral gain, per second (RFC 9332 Appendix A: 0.16 Hz; Linux's 41/256 Hz).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub alpha: f64,
    /// Proportional gain, per second (RFC 9332 Appendix A: 3.2 Hz; Linux's 819/256 Hz).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub beta: f64,
    /// The coupling factor k: the L queue marks with k·p' (RFC 9332 §2.1: 2 for window fairness
    /// at equal RTTs; Linux the same).
    #[schemars(range(min = 1, max = 255))]
    pub coupling_factor: u32,
    /// The L queue's native step: mark an L packet that waited longer than this (Linux: 1 ms).
    #[schemars(range(min = 1))]
    pub step_thresh_ns: Duration,
    /// The step counted in packets instead of time (Linux `step_thresh` given in packets,
    /// `step_in_packets`): mark an L packet that leaves more than this many packets behind it in
    /// the L queue. Unset (Linux's default), the step is `step_thresh` of sojourn.
    #[schemars(range(min = 1, max = 10000000))]
    pub step_thresh_packets: Option<u32>,
    /// Apply the step only to L packets that found at least this many packets in the L queue
    /// when they arrived (Linux `min_qlen_step`; 0, its default: every L packet).
    #[schemars(range(min = 0, max = 10000000))]
    pub min_qlen_step: u32,
    /// The C queue's share of the round robin between the queues, percent (Linux `c_protection`:
    /// 10; the L queue gets the rest).
    #[schemars(range(min = 0, max = 100))]
    pub c_protection: u32,
    /// On overload (k·p' > 1) drop L packets with p'² as classic ones rather than only marking
    /// them (RFC 9332 on overload; Linux `drop_overload`, default on).
    pub drop_overload: bool,
    /// Apply the PI drop or mark at enqueue rather than at dequeue (Linux `drop_early`, default
    /// off: at dequeue).
    pub drop_early: bool,
}

impl Default for DualPi2Config {
    /// Linux `sch_dualpi2`'s defaults (`dualpi2_reset_default`), which RFC 9332 Appendix A's example
    /// shares for target, tupdate, alpha, beta and k.
    fn default() -> Self {
        DualPi2Config {
            target_ns: Duration::from_ms(15),
            tupdate_ns: Duration::from_ms(16),
            alpha: 0.16,
            beta: 3.2,
            coupling_factor: 2,
            step_thresh_ns: Duration::from_ms(1),
            step_thresh_packets: None,
            min_qlen_step: 0,
            c_protection: 10,
            drop_overload: true,
            drop_early: false,
        }
    }
}

impl DualPi2Config {
    /// What the bounds of each key cannot say: the step threshold under the PI target (above it
    /// the L queue would be no shallower than the C queue).
    pub fn check(&self) -> Result<(), Problem> {
        if self.step_thresh_ns >= self.target_ns {
            return Err(at_key(
                "step_thresh_ns",
                format!(
                    "{} must be below target ({}): the L queue's step marks at a shallower \
                     delay than the classic target",
                    fmt_ns(self.step_thresh_ns),
                    fmt_ns(self.target_ns)
                ),
            ));
        }
        Ok(())
    }
}

/// Linux's default limit (`dualpi2_reset_default`: 10000 packets, "125 ms at 1 Gb/s"), over
/// both queues together.
pub const DEFAULT_LIMIT_PKTS: u64 = 10_000;

/// The MTU in the "never drop below two MTUs of backlog" guard and the round robin's initial
/// credit (Linux's `psched_mtu`; here the IP MTU, as queue bytes count IP bytes).
const MTU_BYTES: i64 = 1500;

/// What the discipline did, by queue (counters only go up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DualPi2Stats {
    /// Packets admitted to the L queue.
    pub l_enqueued: u64,
    /// Packets admitted to the C queue.
    pub c_enqueued: u64,
    /// L packets marked by the step (Linux `step_marks`).
    pub step_marks: u64,
    /// L packets marked by the coupled probability k·p'.
    pub l_pi_marks: u64,
    /// C packets marked with p'².
    pub c_marks: u64,
    /// L packets dropped by the PI (overload) or the step (not ECN-capable).
    pub l_drops: u64,
    /// C packets dropped with p'².
    pub c_drops: u64,
}

pub struct DualPi2 {
    cfg: DualPi2Config,
    l: Band,
    c: Band,
    limit: Limit,
    rng: Rng,
    /// p', the base probability (Linux `pi2_prob`, here in [0, 1]).
    prob: f64,
    last_qdelay_ns: Duration,
    next_update: Instant,
    /// WRR credit: L is served while it is at most 0 (Linux `c_protection_credit`).
    credit: i64,
    credit_init: i64,
    /// Whether each packet of the L queue, in its order, found `min_qlen_step` packets there when
    /// it arrived (Linux's `apply_step`, kept in the packet's control block); empty while
    /// `min_qlen_step` is 0, when the step applies to every L packet.
    apply_step: VecDeque<bool>,
    stats: DualPi2Stats,
}

/// The L queue takes ECT(1) and CE (RFC 9332, the L4S identifier of RFC 9331; CE
/// because it may have been ECT(1) before an earlier bottleneck marked it). Linux: the ECN field
/// ANDed with `ecn_mask` = ECT(1)'s bit.
#[inline]
pub fn is_l4s(ecn: Ecn) -> bool {
    matches!(ecn, Ecn::Ect1 | Ecn::Ce)
}

impl DualPi2 {
    pub fn new(cfg: DualPi2Config, limit: Limit, seed: u64) -> Self {
        let limit = super::params::or_default_pkts(limit, DEFAULT_LIMIT_PKTS);
        // Each band is unlimited itself: the limit is over both (Linux `sch->limit`).
        let cap = reserve_for(limit);
        let wc = cfg.c_protection as i64;
        let credit_init = MTU_BYTES * (wc - (100 - wc));
        DualPi2 {
            cfg,
            l: Band::new(Limit::default(), cap),
            c: Band::new(Limit::default(), cap),
            limit,
            rng: stream(seed, Stream::Qdisc, 0),
            prob: 0.0,
            last_qdelay_ns: Duration::ZERO,
            next_update: Instant::ZERO + cfg.tupdate_ns,
            credit: credit_init,
            credit_init,
            apply_step: VecDeque::new(),
            stats: DualPi2Stats::default(),
        }
    }

    /// p', the base probability.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    pub fn stats(&self) -> DualPi2Stats {
        self.stats
    }

    /// Packets in the L and the C queue.
    pub fn lens(&self) -> (u64, u64) {
        (self.l.len(), self.c.len())
    }

    /// The PI update (RFC 9332 Appendix A `dualpi2_update`; Linux `calculate_probability`):
    /// p' += alpha (qdelay - target) + beta (qdelay - qdelay_old), clamped to [0, 1], with qdelay
    /// the larger head-of-queue sojourn of the two queues (Linux; the RFC's example reads the C
    /// queue's). Without `drop_overload` p' is capped at 1/k so the L queue never exceeds 100%.
    fn update(&mut self, now: Instant) {
        let head = |b: &Band| {
            b.front()
                .map_or(Duration::ZERO, |it| now.saturating_since(it.enq))
        };
        let qdelay = head(&self.l).max(head(&self.c));
        let dp = self.cfg.alpha * (qdelay.secs() - self.cfg.target_ns.secs())
            + self.cfg.beta * (qdelay.secs() - self.last_qdelay_ns.secs());
        self.last_qdelay_ns = qdelay;
        let cap = if self.cfg.drop_overload {
            1.0
        } else {
            1.0 / self.cfg.coupling_factor as f64
        };
        self.prob = (self.prob + dp).clamp(0.0, cap);
    }

    /// Whether the PI drops `item` (Linux `must_drop`); it may mark it instead. Never below two
    /// MTUs of backlog (Linux `must_drop`'s guard).
    #[inline]
    fn pi_drops(&mut self, item: &mut QItem, drops: &mut Drops) -> bool {
        if ((self.l.bytes() + self.c.bytes()) as i64) < 2 * MTU_BYTES || self.prob == 0.0 {
            return false;
        }
        let p = self.prob;
        let p_l = p * self.cfg.coupling_factor as f64;
        let overload = p_l > 1.0;
        let l4s = is_l4s(item.ecn);
        if !l4s || (overload && self.cfg.drop_overload) {
            // p_C = p'^2 (RFC 9332 §2.1): one draw against the square, as Linux's two rolls.
            if self.rng.gen::<f64>() < p * p {
                if l4s {
                    self.stats.l_drops += 1;
                    return true;
                }
                if overload || !drops.mark(item) {
                    self.stats.c_drops += 1;
                    return true;
                }
                self.stats.c_marks += 1;
                return false;
            }
            if !(l4s && overload) {
                return false;
            }
            // An overloaded L packet that escaped the classic drop is still marked (Linux).
            if drops.mark(item) {
                self.stats.l_pi_marks += 1;
            }
            return false;
        }
        // p_CL = k p' (RFC 9332 §2.1); with overload and no drop_overload, every L packet is
        // marked.
        if overload || self.rng.gen::<f64>() < p_l {
            if !drops.mark(item) {
                self.stats.l_drops += 1;
                return true;
            }
            self.stats.l_pi_marks += 1;
        }
        false
    }

    /// Whether the L packet `it`, just taken, is past the step: more than `step_thresh_packets`
    /// packets left behind it in the L queue, or more than `step_thresh` of sojourn (Linux
    /// `do_step_aqm`, `step_in_packets` or not).
    #[inline]
    fn past_step(&self, it: &QItem, now: Instant) -> bool {
        match self.cfg.step_thresh_packets {
            Some(n) => self.l.len() > u64::from(n),
            None => now.saturating_since(it.enq) > self.cfg.step_thresh_ns,
        }
    }

    /// The next packet by Linux's WRR (`dequeue_packet`): L while the credit is at most 0 or C is
    /// empty; serving L adds `wc` per byte to the credit, serving C takes `wl` per byte, each only
    /// while the other queue waits; both empty, the credit starts over.
    #[inline]
    fn pick(&mut self) -> Option<(QItem, bool, i64)> {
        let (l_len, c_len) = (self.l.len(), self.c.len());
        let wc = self.cfg.c_protection as i64;
        if l_len > 0 && (c_len == 0 || self.credit <= 0) {
            let it = self.l.pop()?;
            let dc = if c_len > 0 { wc * it.bytes as i64 } else { 0 };
            Some((it, true, dc))
        } else if c_len > 0 {
            let it = self.c.pop()?;
            let dc = if l_len > 0 {
                -(100 - wc) * it.bytes as i64
            } else {
                0
            };
            Some((it, false, dc))
        } else {
            self.credit = self.credit_init;
            None
        }
    }
}

impl QueueDisc for DualPi2 {
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        let (pkts, bytes) = self.backlog();
        if self.limit.exceeded_by(pkts, bytes, item.bytes as u64) {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        let mut item = item;
        if self.cfg.drop_early && self.pi_drops(&mut item, drops) {
            drops.push(item, DropReason::Aqm);
            return false;
        }
        if is_l4s(item.ecn) {
            self.stats.l_enqueued += 1;
            if self.cfg.min_qlen_step > 0 {
                // Linux `skb_apply_step`: the L queue's length before this packet joins it.
                self.apply_step
                    .push_back(self.l.len() >= u64::from(self.cfg.min_qlen_step));
            }
            self.l.push_admitted(item);
        } else {
            self.stats.c_enqueued += 1;
            self.c.push_admitted(item);
        }
        true
    }

    #[inline]
    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        while let Some((mut it, from_l, dc)) = self.pick() {
            // Whether the step may mark this packet (taken here, before the PI may drop it, so
            // that the flags stay in step with the L queue's packets).
            let applies = from_l
                && (self.cfg.min_qlen_step == 0 || self.apply_step.pop_front().unwrap_or(true));
            let marks = drops.marks;
            if !self.cfg.drop_early && self.pi_drops(&mut it, drops) {
                drops.push(it, DropReason::Aqm);
                continue;
            }
            // The native L4S AQM (Linux `do_step_aqm`): a step at `step_thresh` of sojourn, or
            // of the packets left behind in the L queue when it is counted in packets, for the
            // packets that found `min_qlen_step` there. A packet the PI has just marked is not
            // marked (counted) twice.
            if applies && drops.marks == marks && self.past_step(&it, now) {
                if !drops.mark(&mut it) {
                    self.stats.l_drops += 1;
                    drops.push(it, DropReason::Aqm);
                    continue;
                }
                self.stats.step_marks += 1;
            }
            self.credit += dc;
            return Some(it);
        }
        None
    }

    fn len_pkts(&self) -> u64 {
        self.l.len() + self.c.len()
    }

    fn len_bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
    }

    fn next_timer(&self) -> Option<Instant> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: Instant) {
        if now >= self.next_update {
            self.update(now);
            self.next_update = now + self.cfg.tupdate_ns;
        }
    }
}

#[cfg(test)]
mod tests;
