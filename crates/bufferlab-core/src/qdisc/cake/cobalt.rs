//! COBALT, CAKE's AQM (Høiland-Jørgensen, Täht, Morton 2018, §III-D; Linux `sch_cake.c`,
//! `cobalt_should_drop`, `cobalt_queue_full`, `cobalt_queue_empty`): CoDel for flows that answer
//! congestion signals, BLUE beside it for those that do not.
//!
//! Where it differs from the project's CoDel ([`crate::qdisc::codel::CodelVars`], RFC 8289):
//! - no `first_above_time`: `drop_next` is both the end of the first interval above target and
//!   the next signal's time (the paper's "single mechanism for both purposes");
//! - `count` is not reset on leaving the dropping state: it decays by one per control-law step
//!   while the queue is below target or empty, so a flow that comes back resumes near the rate
//!   that controlled it (this replaces RFC 8289's `lastcount` re-entry rule);
//! - no "less than one MTU queued" exemption; instead the sojourn must exceed 4 MTU times at the
//!   tin's rate (and, with `ingress`, 2 MTU times per bulk flow), and the flow's last packet is
//!   never dropped (the caller's test);
//! - BLUE: a drop probability raised by `p_inc` each time the flow queue overflows (at most once
//!   per `target`), lowered by `p_dec` each time it is found empty (idem); drops by BLUE ignore
//!   ECN ("lack of ECN is deliberate").
//!
//! The control law is CoDel's (`interval / sqrt(count)`, [`CodelVars::control_law`]) computed in
//! floating point; Linux keeps `1/sqrt(count)` in Q0.32 with a Newton step (a cache below 16):
//! the spacing differs from Linux's by the Newton step's error only.

use crate::qdisc::codel::CodelVars;
use crate::time::{Duration, Instant};

/// A tin's COBALT parameters (Linux `cobalt_params`, set by `cake_set_rate`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CobaltParams {
    pub(crate) target: Duration,
    pub(crate) interval: Duration,
    /// Time to send one MTU at the tin's rate (0 when unshaped).
    pub(crate) mtu_time: Duration,
    /// BLUE's increment and decrement of the drop probability, in 2^-32 units (Linux: 1/256 and
    /// 1/4096).
    pub(crate) p_inc: u32,
    pub(crate) p_dec: u32,
}

/// One flow queue's COBALT state (Linux `cobalt_vars`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CobaltVars {
    pub(crate) count: u32,
    /// Next CoDel signal while dropping; otherwise an activity timeout (see `should_drop`).
    pub(crate) drop_next: Instant,
    /// When BLUE's probability last changed.
    blue_timer: Instant,
    /// BLUE's drop probability in 2^-32 units.
    pub(crate) p_drop: u32,
    dropping: bool,
}

/// What COBALT decides for a dequeued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    /// CoDel's signal, as a CE mark (the packet is ECN-capable).
    Mark,
    /// CoDel's signal as a drop (not ECN-capable).
    DropCodel,
    /// BLUE's random drop (whatever the ECN field).
    DropBlue,
}

impl CobaltVars {
    pub(crate) const REST: CobaltVars = CobaltVars {
        count: 0,
        drop_next: Instant::ZERO,
        blue_timer: Instant::ZERO,
        p_drop: 0,
        dropping: false,
    };

    #[inline]
    fn control(t: Instant, p: &CobaltParams, count: u32) -> Instant {
        CodelVars::control_law(t, p.interval, count)
    }

    /// The flow queue overflowed and lost its head (Linux `cobalt_queue_full`): BLUE steps up
    /// (at most once per `target`) and CoDel starts signalling at once. Returns whether BLUE went
    /// from quiet to active.
    pub(crate) fn queue_full(&mut self, p: &CobaltParams, now: Instant) -> bool {
        let mut up = false;
        if now.saturating_since(self.blue_timer) > p.target {
            up = self.p_drop == 0;
            self.p_drop = self.p_drop.saturating_add(p.p_inc);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
        up
    }

    /// The flow queue was served and found empty (Linux `cobalt_queue_empty`): BLUE steps down
    /// (at most once per `target`) and CoDel's count decays by one if its schedule is due.
    /// Returns whether BLUE went from active to quiet.
    pub(crate) fn queue_empty(&mut self, p: &CobaltParams, now: Instant) -> bool {
        let mut down = false;
        if self.p_drop > 0 && now.saturating_since(self.blue_timer) > p.target {
            self.p_drop = self.p_drop.saturating_sub(p.p_dec);
            self.blue_timer = now;
            down = self.p_drop == 0;
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.drop_next = Self::control(self.drop_next, p, self.count);
        }
        down
    }

    /// Whether the flow's state has decayed to rest (Linux keeps a flow on the decaying list
    /// until then).
    #[inline]
    pub(crate) fn at_rest(&self, now: Instant) -> bool {
        self.p_drop == 0 && self.count == 0 && now >= self.drop_next
    }

    /// The verdict on a packet just taken from the flow queue (Linux `cobalt_should_drop`):
    /// `sojourn` its time in the queue, `bulk_flows` the tin's bulk flows when `ingress` (else
    /// 0), `markable` whether it is ECN-capable, `rand` a uniform 32-bit draw, taken only while
    /// BLUE is active.
    #[inline]
    pub(crate) fn should_drop(
        &mut self,
        p: &CobaltParams,
        now: Instant,
        sojourn: Duration,
        bulk_flows: u64,
        markable: bool,
        rand: impl FnOnce() -> u32,
    ) -> Verdict {
        // `schedule`'s sign (now against drop_next) as first computed, kept for the activity
        // timeout below even when drop_next moves meanwhile (as Linux's `schedule`).
        let mut late = now > self.drop_next;
        let over_target = sojourn > p.target
            && sojourn.as_ns() > p.mtu_time.as_ns().saturating_mul(bulk_flows * 2)
            && sojourn.as_ns() > p.mtu_time.as_ns().saturating_mul(4);
        let mut next_due = self.count > 0 && now >= self.drop_next;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = Self::control(now, p, self.count);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        let mut codel = false;
        if next_due && self.dropping {
            codel = true;
            self.count = self.count.saturating_add(1);
            self.drop_next = Self::control(self.drop_next, p, self.count);
            late = now > self.drop_next;
        } else {
            // Below target (or not yet due): the schedule relaxes one step per elapsed interval.
            while next_due {
                self.count -= 1;
                self.drop_next = Self::control(self.drop_next, p, self.count);
                late = now > self.drop_next;
                next_due = self.count > 0 && now >= self.drop_next;
            }
        }
        let blue = self.p_drop > 0 && rand() < self.p_drop;
        let verdict = if blue {
            Verdict::DropBlue
        } else if codel && markable {
            Verdict::Mark
        } else if codel {
            Verdict::DropCodel
        } else {
            Verdict::Pass
        };
        let dropped = matches!(verdict, Verdict::DropBlue | Verdict::DropCodel);
        if self.count == 0 {
            self.drop_next = now + p.interval;
        } else if late && !dropped {
            self.drop_next = now;
        }
        verdict
    }
}
