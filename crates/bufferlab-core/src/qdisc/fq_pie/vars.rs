//! The PIE controller as Linux runs it in each flow queue of `sch_fq_pie` (the functions
//! `sch_pie.c` exports: `pie_drop_early`, `pie_process_dequeue`, `pie_calculate_probability`),
//! in its default mode: the queueing delay is the sojourn of the packet last dequeued
//! (`dq_rate_estimator` off), not RFC 8033's departure-rate estimate that [`super::super::pie`]
//! follows. Where Linux departs from RFC 8033's pseudocode it is followed, and the comment says so.

use crate::time::{Duration, Instant};

/// Linux's "fewer than two MTU-sized packets" safeguard counts the flow's bytes against twice
/// the device MTU; our packets are counted in IP bytes, so the MTU is Ethernet's 1500.
const MTU_BYTES: u64 = 1500;
/// Derandomization (RFC 8033 §5.4, Linux `accu_prob`): no early drop until the probabilities
/// of the packets since the last drop add up to 0.85, a certain one once they reach 8.5.
const ACCU_NO_DROP: f64 = 0.85;
const ACCU_MUST_DROP: f64 = 8.5;
/// Linux adds 2% to the probability at every update while the delay exceeds 250 ms (its
/// "non-linear drop", not in RFC 8033).
const HIGH_DELAY: Duration = Duration::from_ms(250);

/// The controller's parameters, shared by every flow queue.
#[derive(Clone, Copy, Debug)]
pub struct PieParams {
    pub target: Duration,
    /// Weights per second of the deviation from target and of the delay's trend.
    pub alpha: f64,
    pub beta: f64,
    /// The burst allowance a reset controller gets (Linux: 150 ms, fixed).
    pub max_burst: Duration,
}

/// One flow queue's controller state (Linux `struct pie_vars`, timestamp mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieVars {
    /// Drop probability, 0..=1.
    pub prob: f64,
    /// Probabilities summed since the last drop (derandomization).
    pub accu_prob: f64,
    /// Sojourn of the packet last dequeued; 0 once the queue has emptied.
    pub qdelay: Duration,
    /// `qdelay` at the previous update.
    pub qdelay_old: Duration,
    /// Burst allowance left.
    pub burst: Duration,
    /// When a packet was last dequeued since the last reset.
    pub dq_tstamp: Option<Instant>,
}

impl PieVars {
    /// A fresh controller (Linux `pie_vars_init` on zeroed memory).
    pub fn new(p: &PieParams) -> Self {
        PieVars {
            prob: 0.0,
            accu_prob: 0.0,
            qdelay: Duration::ZERO,
            qdelay_old: Duration::ZERO,
            burst: p.max_burst,
            dq_tstamp: None,
        }
    }

    /// Linux `pie_vars_init` on a live controller: the burst allowance re-armed and the
    /// derandomization and departure clocks forgotten; probability and delays stay.
    fn reset(&mut self, p: &PieParams) {
        self.burst = p.max_burst;
        self.dq_tstamp = None;
        self.accu_prob = 0.0;
    }

    /// Linux `pie_drop_early` for a packet arriving at a queue of `backlog` bytes; `draw` is a
    /// uniform draw in [0, 1), taken only when the decision is random.
    #[inline]
    pub fn drop_early(&mut self, p: &PieParams, backlog: u64, draw: impl FnOnce() -> f64) -> bool {
        if !self.burst.is_zero() {
            return false;
        }
        // Linux tests the current delay here (RFC 8033's pseudocode: the previous one).
        if self.qdelay < p.target / 2 && self.prob < 0.2 {
            return false;
        }
        if backlog < 2 * MTU_BYTES {
            return false;
        }
        if self.prob == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += self.prob;
        }
        if self.accu_prob < ACCU_NO_DROP {
            return false;
        }
        if self.accu_prob >= ACCU_MUST_DROP {
            return true;
        }
        if draw() < self.prob {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// A packet was dropped at enqueue (early or for lack of room): the derandomization sum
    /// starts again (Linux clears `accu_prob` on every enqueue drop).
    #[inline]
    pub fn on_drop(&mut self) {
        self.accu_prob = 0.0;
    }

    /// Linux `pie_process_dequeue`, timestamp mode: the delay is this packet's sojourn (0 if
    /// the queue is now empty), and the time since the previous dequeue comes off the burst
    /// allowance.
    #[inline]
    pub fn on_dequeue(&mut self, now: Instant, enq: Instant, backlog_after: u64) {
        self.qdelay = if backlog_after == 0 {
            Duration::ZERO
        } else {
            now.saturating_since(enq)
        };
        let since = self
            .dq_tstamp
            .map_or(Duration::ZERO, |t| now.saturating_since(t));
        self.dq_tstamp = Some(now);
        self.burst = self.burst.saturating_sub(since);
    }

    /// Whether an update would leave this controller exactly as it is: an idle queue whose
    /// controller has settled (the timer may skip it).
    #[inline]
    pub fn settled(&self, p: &PieParams, backlog: u64) -> bool {
        backlog == 0
            && self.prob == 0.0
            && self.qdelay.is_zero()
            && self.qdelay_old.is_zero()
            && self.burst == p.max_burst
            && self.dq_tstamp.is_none()
            && self.accu_prob == 0.0
    }

    /// Linux `pie_calculate_probability`, timestamp mode, every `tupdate`.
    pub fn update(&mut self, p: &PieParams, backlog: u64) {
        let qdelay = self.qdelay;
        let qdelay_old = self.qdelay_old;
        // A delay of 0 with bytes queued means a backlog too small to measure: hold.
        let mut update_prob = !(qdelay.is_zero() && backlog != 0);
        // RFC 8033 §4.2's auto-tuning, as Linux writes it: halve the weights below 10%, then
        // quarter them for each further decade, down to 1e-6.
        let mut scale = 1.0;
        if self.prob < 0.1 {
            scale /= 2.0;
            let mut bound = 0.01;
            while self.prob < bound && bound >= 1e-6 {
                scale /= 4.0;
                bound /= 10.0;
            }
        }
        let signed = |d: Duration, e: Duration| d.as_ns() as f64 * 1e-9 - e.as_ns() as f64 * 1e-9;
        let mut delta = scale * p.alpha * signed(qdelay, p.target)
            + scale * p.beta * signed(qdelay, qdelay_old);
        // Steps of at most 2% once the probability is at 10% or more.
        if delta > 0.02 && self.prob >= 0.1 {
            delta = 0.02;
        }
        if qdelay > HIGH_DELAY {
            delta += 0.02;
        }
        self.prob += delta;
        if self.prob > 1.0 {
            self.prob = 1.0;
            update_prob = false;
        } else if self.prob < 0.0 {
            self.prob = 0.0;
        }
        // Two updates in a row without delay: decay by 1/64 (RFC 8033: to 98%).
        if qdelay.is_zero() && qdelay_old.is_zero() && update_prob {
            self.prob -= self.prob / 64.0;
        }
        if qdelay < p.target / 2 && qdelay_old < p.target / 2 && self.prob == 0.0 {
            self.reset(p);
        }
        self.qdelay_old = qdelay;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> PieParams {
        PieParams {
            target: Duration::from_ms(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Duration::from_ms(150),
        }
    }

    #[test]
    fn weights_scale_by_decade_as_linux() {
        // From 0 with the delay 10 ms above target and steady, one update adds
        // alpha * 0.010 s / 2048 (probability below 1e-6: halved, then quartered five times).
        let p = params();
        let mut v = PieVars::new(&p);
        v.qdelay = Duration::from_ms(25);
        v.qdelay_old = Duration::from_ms(25);
        v.update(&p, 100_000);
        let want = 0.125 * 0.010 / 2048.0;
        assert!((v.prob - want).abs() < 1e-12, "{} vs {want}", v.prob);
        // At 5%: halved only.
        v.prob = 0.05;
        v.update(&p, 100_000);
        assert!((v.prob - (0.05 + 0.125 * 0.010 / 2.0)).abs() < 1e-12);
        // At 50%, a large step is capped at 2%.
        v.prob = 0.5;
        v.qdelay = Duration::from_ms(200);
        v.qdelay_old = Duration::from_ms(25);
        v.update(&p, 100_000);
        assert!((v.prob - 0.52).abs() < 1e-12, "{}", v.prob);
        // Above 250 ms of delay another 2% comes on top.
        v.qdelay = Duration::from_ms(300);
        v.update(&p, 100_000);
        assert!((v.prob - (0.52 + 0.02 + 0.02)).abs() < 1e-12, "{}", v.prob);
    }

    #[test]
    fn derandomized_drops_are_evenly_spaced_at_ten_percent() {
        // With prob 0.1 the sum reaches 0.85 at the 9th packet; from there each packet is
        // dropped with probability 0.1 until the sum reaches 8.5 (the 85th packet, or the 86th
        // as the tenths round: Linux's integer tenth rounds down the same way), so no gap
        // between drops exceeds 86 packets and none is shorter than 9.
        let p = params();
        let mut v = PieVars::new(&p);
        v.burst = Duration::ZERO;
        v.prob = 0.1;
        v.qdelay = Duration::from_ms(30);
        let mut rng = crate::rng::stream(7, crate::rng::Stream::Qdisc, 0);
        use rand::Rng as _;
        let (mut gap, mut gaps) = (0u32, Vec::new());
        for _ in 0..200_000 {
            gap += 1;
            if v.drop_early(&p, 10_000, || rng.gen::<f64>()) {
                v.on_drop();
                gaps.push(gap);
                gap = 0;
            }
        }
        let (lo, hi) = (*gaps.iter().min().unwrap(), *gaps.iter().max().unwrap());
        assert!(lo == 9 && (85..=86).contains(&hi), "gaps {lo}..{hi}");
        // The mean gap: 8 packets before the sum reaches 0.85, then geometric with p = 0.1
        // (truncated at 85): about 8 + 10 = 18.
        let mean = gaps.iter().map(|&g| g as f64).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 18.0).abs() < 0.5, "mean gap {mean}");
    }

    #[test]
    fn safeguards_hold_drops_back() {
        let p = params();
        let mut v = PieVars::new(&p);
        v.prob = 1.0;
        v.qdelay = Duration::from_ms(30);
        // Burst allowance left.
        assert!(!v.drop_early(&p, 10_000, || 0.0));
        v.burst = Duration::ZERO;
        // Fewer than two MTUs queued.
        assert!(!v.drop_early(&p, 2999, || 0.0));
        // Low delay and low probability.
        v.prob = 0.19;
        v.qdelay = Duration::from_ms(7);
        assert!(!v.drop_early(&p, 10_000, || 0.0));
        v.prob = 0.2;
        v.accu_prob = 1.0;
        assert!(v.drop_early(&p, 10_000, || 0.0));
    }

    #[test]
    fn dequeues_spend_the_burst_allowance_and_idle_resets_it() {
        let p = params();
        let mut v = PieVars::new(&p);
        let t0 = Instant::from_ms(1000);
        v.on_dequeue(t0, t0 - Duration::from_ms(3), 5000);
        assert_eq!(v.burst, p.max_burst, "the first dequeue has no predecessor");
        assert_eq!(v.qdelay, Duration::from_ms(3));
        v.on_dequeue(t0 + Duration::from_ms(100), t0, 5000);
        assert_eq!(v.burst, Duration::from_ms(50));
        v.on_dequeue(t0 + Duration::from_ms(200), t0, 0);
        assert_eq!((v.burst, v.qdelay), (Duration::ZERO, Duration::ZERO));
        // Two quiet updates with the probability at 0: the allowance comes back.
        v.update(&p, 0);
        v.update(&p, 0);
        assert_eq!(v.burst, p.max_burst);
        assert!(v.settled(&p, 0));
        let before = v;
        v.update(&p, 0);
        assert_eq!(
            v, before,
            "a settled controller is a fixed point of the update"
        );
    }
}
