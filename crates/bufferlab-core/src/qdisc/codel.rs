//! CoDel, Controlled Delay (RFC 8289): drop at dequeue when the sojourn time has stayed above
//! `target` for at least `interval`, then space drops by `interval / sqrt(count)`.
//!
//! Three parts, as in RFC 8289's pseudocode (§5): [`CodelConfig`] (params), [`CodelVars`] (per-queue state,
//! reused by FQ-CoDel for each flow queue) and the [`Codel`] discipline (one FIFO).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::band::{one_band_backlog, reserve_for, Band};
use super::params::{or_default_pkts, TXQUEUELEN_PKTS};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::problem::{at_key, Problem};
use crate::time::{fmt_ns, Duration, Instant};

/// CoDel's parameters (plan keys `target_ns`, `interval_ns`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time (RFC 8289 §4.3: 5 ms).
    #[schemars(range(min = 1))]
    pub target_ns: Duration,
    /// Sliding window over which the minimum sojourn must stay above target before dropping;
    /// also the base of the control law (RFC 8289 §4.2: 100 ms).
    #[schemars(range(min = 1))]
    pub interval_ns: Duration,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 8289 §5, RFC 3168). Default
    /// off, as Linux's `codel` (`noecn`).
    pub ecn: bool,
}

impl Default for CodelConfig {
    /// RFC 8289 §4.3 (TARGET = 5 ms) and §4.2 (INTERVAL = 100 ms), also Linux's defaults.
    fn default() -> Self {
        CodelConfig {
            target_ns: Duration::from_ms(5),
            interval_ns: Duration::from_ms(100),
            ecn: false,
        }
    }
}

impl CodelConfig {
    /// What the bounds of each key cannot say: target below interval.
    pub fn check(&self) -> Result<(), Problem> {
        if self.target_ns >= self.interval_ns {
            return Err(at_key(
                "target_ns",
                format!(
                    "{} must be below interval ({}); RFC 8289 §4.3 puts target at 5-10% of interval",
                    fmt_ns(self.target_ns),
                    fmt_ns(self.interval_ns)
                ),
            ));
        }
        Ok(())
    }
}

/// What CoDel needs from the queue it manages.
pub(crate) trait CodelQueue {
    /// Remove the head packet.
    fn pop(&mut self) -> Option<QItem>;
    /// Bytes still queued after the pop (RFC 8289 §5: no drop when less than one MTU waits).
    fn backlog_bytes(&self) -> u64;
}

/// CoDel's state for one queue (RFC 8289 §5, per-queue state).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelVars {
    /// Drops since entering the dropping state (sets the control-law spacing).
    count: u32,
    /// `count` when the last dropping state began (for the re-entry rule).
    lastcount: u32,
    dropping: bool,
    /// When the sojourn time first went (and stayed) above target, plus interval; `Instant::ZERO`
    /// if below (as Linux's `codel_vars`: no `Option`, the vars stay 32 bytes per FQ-CoDel flow).
    first_above_time: Instant,
    /// When the next drop is due while dropping.
    drop_next: Instant,
}

impl CodelVars {
    /// Drops in the current dropping state.
    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// The control law (RFC 8289 §3.3, §5): the next drop comes `interval / sqrt(count)` after `t`, so the
    /// drop rate grows as sqrt(count) and TCP throughput (∝ 1/sqrt(p)) falls linearly.
    #[inline]
    pub(crate) fn control_law(t: Instant, interval_ns: Duration, count: u32) -> Instant {
        t + Duration::from_ns((interval_ns.as_ns() as f64 / (count.max(1) as f64).sqrt()) as u64)
    }

    /// The common case of [`CodelVars::dequeue`], decided before the pop from the head packet's
    /// sojourn and the backlog its departure would leave: outside the dropping state, a packet
    /// that is not to be dropped. Updates `first_above_time` exactly as `dequeue` would and returns
    /// `true` (the caller pops and sends the packet); returns `false`, changing nothing, when the
    /// full `dequeue` must run (dropping state, or the drop that enters it).
    #[inline]
    pub(crate) fn passes(
        &mut self,
        p: &CodelConfig,
        now: Instant,
        sojourn: Duration,
        backlog_after: u64,
        mtu_bytes: u64,
    ) -> bool {
        if self.dropping {
            false
        } else if sojourn < p.target_ns || backlog_after <= mtu_bytes {
            self.first_above_time = Instant::ZERO;
            true
        } else if self.first_above_time == Instant::ZERO {
            self.first_above_time = now + p.interval_ns;
            true
        } else {
            now < self.first_above_time
        }
    }

    /// What [`CodelVars::dequeue`] does on an empty queue: leave the above-target episode and
    /// the dropping state.
    #[inline]
    pub(crate) fn on_empty(&mut self) {
        self.first_above_time = Instant::ZERO;
        self.dropping = false;
    }

    /// One head-of-queue dequeue and the "ok to drop" verdict (RFC 8289 §5, `dodequeue`).
    #[inline(always)]
    fn do_dequeue<Q: CodelQueue>(
        &mut self,
        p: &CodelConfig,
        now: Instant,
        q: &mut Q,
        mtu_bytes: u64,
    ) -> (Option<QItem>, bool) {
        let Some(item) = q.pop() else {
            // An empty queue leaves the above-target episode.
            self.first_above_time = Instant::ZERO;
            return (None, false);
        };
        let sojourn = now.saturating_since(item.enq);
        let mut ok_to_drop = false;
        if sojourn < p.target_ns || q.backlog_bytes() <= mtu_bytes {
            // Below target, or too little queued to be a standing queue.
            self.first_above_time = Instant::ZERO;
        } else if self.first_above_time == Instant::ZERO {
            // Just went above target: give it one interval to come back down.
            self.first_above_time = now + p.interval_ns;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(item), ok_to_drop)
    }

    /// CoDel's dequeue (RFC 8289 §5): the packet to send, after any drops (pushed to `drops`
    /// with [`DropReason::Aqm`]).
    #[inline]
    pub(crate) fn dequeue<Q: CodelQueue>(
        &mut self,
        p: &CodelConfig,
        now: Instant,
        q: &mut Q,
        mtu_bytes: u64,
        drops: &mut Drops,
    ) -> Option<QItem> {
        let (mut item, ok_to_drop) = self.do_dequeue(p, now, q, mtu_bytes);
        let Some(first) = item else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                // Sojourn went below target: leave the dropping state.
                self.dropping = false;
            } else {
                // Drop on schedule; each drop tightens the schedule. With ECN an ECN-capable
                // packet is marked and sent instead, and the round ends (Linux `codel_dequeue`).
                while self.dropping && now >= self.drop_next {
                    let Some(mut victim) = item else { break };
                    self.count += 1;
                    if p.ecn && drops.mark(&mut victim) {
                        item = Some(victim);
                        self.drop_next =
                            Self::control_law(self.drop_next, p.interval_ns, self.count);
                        break;
                    }
                    drops.push(victim, DropReason::Aqm);
                    let (next, ok) = self.do_dequeue(p, now, q, mtu_bytes);
                    item = next;
                    if !ok {
                        self.dropping = false;
                    } else {
                        self.drop_next =
                            Self::control_law(self.drop_next, p.interval_ns, self.count);
                    }
                }
            }
        } else if ok_to_drop {
            // Enter the dropping state with one drop (or one mark).
            let mut first = first;
            if p.ecn && drops.mark(&mut first) {
                item = Some(first);
            } else {
                drops.push(first, DropReason::Aqm);
                let (next, _) = self.do_dequeue(p, now, q, mtu_bytes);
                item = next;
            }
            self.dropping = true;
            // If we were dropping recently, resume near the rate that last controlled the
            // queue instead of starting over at one drop per interval.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now.saturating_since(self.drop_next) < 16 * p.interval_ns {
                self.count = delta;
            }
            self.drop_next = Self::control_law(now, p.interval_ns, self.count);
            self.lastcount = self.count;
        }
        item
    }
}

/// CoDel over one FIFO.
pub struct Codel {
    cfg: CodelConfig,
    vars: CodelVars,
    fifo: Band,
    /// Largest packet seen: CoDel's "MTU" for the one-packet backlog test (RFC 8289 §5).
    mtu_bytes: u64,
}

impl CodelQueue for Band {
    #[inline]
    fn pop(&mut self) -> Option<QItem> {
        Band::pop(self)
    }
    #[inline]
    fn backlog_bytes(&self) -> u64 {
        self.bytes()
    }
}

impl Codel {
    /// `limit` from the queue block; Linux's 1000 packets when it gave none.
    pub fn new(cfg: CodelConfig, limit: Limit) -> Self {
        let limit = or_default_pkts(limit, TXQUEUELEN_PKTS);
        Codel {
            cfg,
            vars: CodelVars::default(),
            fifo: Band::new(limit, reserve_for(limit)),
            mtu_bytes: 0,
        }
    }

    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl QueueDisc for Codel {
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        if !self.fifo.push(item) {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        self.mtu_bytes = self.mtu_bytes.max(item.bytes as u64);
        true
    }

    #[inline]
    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        self.vars
            .dequeue(&self.cfg, now, &mut self.fifo, self.mtu_bytes, drops)
    }

    one_band_backlog!(fifo);
}

#[cfg(test)]
mod tests;
