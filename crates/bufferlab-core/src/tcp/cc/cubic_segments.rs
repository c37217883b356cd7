//! Cubic's growth in whole segments, as Linux's `tcp_cubic` computes it (`bictcp_update`,
//! `tcp_cong_avoid_ai`): the curve's target is a whole number of segments, the window grows by
//! one segment each time `cnt` segments have been acknowledged, and `cnt` is recomputed at most
//! every 1/32 s while the window stands still.
//!
//! RFC 9438's arithmetic ([`super::cubic`] with `cwnd_unit = "byte"`) grows the window by
//! `(target − cwnd) / cwnd` of a segment per segment acknowledged, continuously. Linux's target is
//! `W_max ± ⌊C·|t − K|³⌋`: within about 1.36 s of K (where C·|t − K|³ < 1) it equals W_max, and a
//! window at W_max grows by one segment per hundred windows (`cnt = 100·cwnd`), not by the curve's
//! fraction; below it, `cnt = ⌊cwnd / (target − cwnd)⌋` counts whole segments too. At windows of
//! 4 to 10 segments (ten flows sharing 10 Mb/s) these floors are a large part of the window's
//! growth (docs/validation-linux-differences.md, cwnd-unit).

use crate::time::{Duration, Instant};

/// Linux's `tcp_cubic` keeps `cnt` for this long while cwnd does not change (`HZ / 32`).
const CNT_HOLD: Duration = Duration::from_ns(1_000_000_000 / 32);

/// The counters of Linux's `struct bictcp` and `tcp_sock` that whole-segment growth needs.
#[derive(Clone, Debug, Default)]
pub struct SegmentGrowth {
    /// Segments acknowledged per one-segment increase (`ca->cnt`).
    cnt: u64,
    /// Segments acknowledged towards the next increase (`tp->snd_cwnd_cnt`).
    cwnd_cnt: u64,
    /// Segments acknowledged in this epoch, for the Reno-friendly window (`ca->ack_cnt`).
    ack_cnt: u64,
    /// The Reno-friendly window, segments (`ca->tcp_cwnd`).
    tcp_cwnd: u64,
    /// cwnd and time when `cnt` was last computed (`ca->last_cwnd`, `ca->last_time`).
    last: Option<(u64, Instant)>,
}

/// What one ACK brings to [`SegmentGrowth::on_ack`]; windows in segments.
pub struct Curve {
    pub now: Instant,
    /// The window, whole segments.
    pub cwnd: u64,
    /// Segments this ACK acknowledged (beyond slow start).
    pub acked: u64,
    /// The epoch just started at this ACK.
    pub epoch_new: bool,
    /// W_max before the epoch, segments (0: none known, as after a timeout).
    pub w_max: u64,
    /// The curve's origin (W_max, or the window the epoch started from when above it), whole
    /// segments.
    pub origin: u64,
    /// The curve's value one RTT ahead before truncation: origin ± C·|t − K|³.
    pub target: f64,
    /// β_cubic, for the Reno-friendly rate.
    pub beta: f64,
}

impl SegmentGrowth {
    /// A congestion event: the counters start over (`tcp_init_cwnd_reduction` zeroes
    /// `snd_cwnd_cnt`; `bictcp_recalc_ssthresh` ends the epoch, so `cnt` is recomputed).
    pub fn reset(&mut self) {
        self.cwnd_cnt = 0;
        self.last = None;
    }

    /// Segments to add to the window for this ACK.
    pub fn on_ack(&mut self, c: &Curve) -> u64 {
        if c.epoch_new {
            self.ack_cnt = 0;
            self.tcp_cwnd = c.cwnd;
            self.last = None;
        }
        self.ack_cnt += c.acked;
        let held = self
            .last
            .is_some_and(|(w, at)| w == c.cwnd && c.now.saturating_since(at) <= CNT_HOLD);
        if !held {
            self.last = Some((c.cwnd, c.now));
            self.cnt = self.count(c);
        }
        // `tcp_cong_avoid_ai(tp, cnt, acked)`: credit earned at a higher cnt is applied gently.
        let mut add = 0;
        if self.cwnd_cnt >= self.cnt {
            self.cwnd_cnt = 0;
            add += 1;
        }
        self.cwnd_cnt += c.acked;
        if self.cwnd_cnt >= self.cnt {
            let d = self.cwnd_cnt / self.cnt;
            self.cwnd_cnt -= d * self.cnt;
            add += d;
        }
        add
    }

    /// `bictcp_update`'s `cnt`: segments acknowledged per one-segment increase.
    fn count(&mut self, c: &Curve) -> u64 {
        let cwnd = c.cwnd.max(1);
        // The target in whole segments: the cubic term truncated towards the origin, W_max ±
        // ⌊C·|t − K|³⌋ (`bic_target`), so that below W_max it is the curve rounded up: within
        // a segment of W_max the target is W_max itself, and a window one short of it still
        // grows by a segment per window (`cnt = cwnd`).
        let offset = (c.target - c.origin as f64).trunc();
        let target = (c.origin as f64 + offset).max(0.0) as u64;
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        // No W_max known (after a timeout): at least 5% per RTT.
        if c.w_max == 0 {
            cnt = cnt.min(20);
        }
        // Reno-friendly: W_est grows one segment per `scale / 8` windows acknowledged, scale =
        // 8 (1 + β) / (3 (1 − β)) in Linux's integers (15 for β = 0.7), i.e. α = 3(1 − β)/(1 + β).
        let b = (c.beta * 1024.0).round() as u64;
        let scale = 8 * (1024 + b) / 3 / (1024 - b).max(1);
        let delta = (cwnd * scale / 8).max(1);
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        // At most one segment per two acknowledged: 1.5 times the window per RTT.
        cnt.max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(now_ms: u64, cwnd: u64, acked: u64, target: f64) -> Curve {
        Curve {
            now: Instant::ZERO + Duration::from_ms(now_ms),
            cwnd,
            acked,
            epoch_new: false,
            w_max: 10,
            origin: 10,
            target,
            beta: 0.7,
        }
    }

    /// Segments added by `n` ACKs of `acked` segments each, `step_ms` apart, at a fixed window and
    /// target, from a new epoch.
    fn grow(cwnd: u64, target: f64, n: u64, acked: u64, step_ms: u64) -> u64 {
        let mut g = SegmentGrowth::default();
        let mut c = curve(0, cwnd, acked, target);
        c.epoch_new = true;
        let mut added = g.on_ack(&c);
        for i in 1..n {
            added += g.on_ack(&curve(i * step_ms, cwnd, acked, target));
        }
        added
    }

    /// At the plateau the target is W_max itself until C·|t − K|³ reaches a segment: the window
    /// grows by one segment per 100 windows (Linux's `cnt = 100·cwnd`), where RFC 9438's
    /// arithmetic would add the curve's fraction (0.9 segment per window here). The
    /// Reno-friendly window starts at cwnd and needs 18 segments acknowledged per segment.
    #[test]
    fn at_the_plateau_growth_nearly_stops() {
        assert_eq!(grow(10, 10.9, 5, 2, 10), 0);
    }

    /// Below the plateau: cnt = ⌊cwnd / (target − cwnd)⌋, so a target 2.9 segments ahead of a
    /// 10-segment window grows it by one segment per 5 acknowledged (⌊10 / 2⌋), not per 3.4.
    #[test]
    fn the_target_counts_whole_segments() {
        assert_eq!(
            grow(10, 12.9, 10, 1, 1),
            2,
            "10 segments acknowledged at cnt = 5"
        );
    }

    /// Below the origin the cubic term is truncated towards it, not the target floored: 0.3
    /// segment below W_max = 10 the target is 10 (Linux's `bic_origin_point − delta` with
    /// `delta` = ⌊C·(K − t)³⌋ = 0), so a 9-segment window grows by one segment per 9
    /// acknowledged (`cnt = ⌊9 / (10 − 9)⌋`); flooring 9.7 would hold it at 9 until K.
    #[test]
    fn below_the_origin_the_target_is_rounded_towards_it() {
        assert_eq!(
            grow(9, 9.7, 9, 1, 1),
            1,
            "9 segments acknowledged at cnt = 9"
        );
        // 1.2 segments below: the target is 9 (10 − ⌊1.2⌋), the window's own: no growth.
        assert_eq!(grow(9, 8.8, 9, 1, 1), 0);
    }

    /// Never more than one segment per two acknowledged (Linux's `cnt ≥ 2`), and `cnt` is held
    /// for 1/32 s while the window stands still.
    #[test]
    fn growth_is_capped_and_cnt_is_held() {
        let mut g = SegmentGrowth::default();
        let mut c = curve(0, 4, 8, 100.0);
        c.epoch_new = true;
        assert_eq!(g.on_ack(&c), 4, "8 segments at cnt = 2");
        let mut g = SegmentGrowth::default();
        let mut c = curve(0, 10, 1, 10.0);
        c.epoch_new = true;
        g.on_ack(&c);
        // 10 ms later, same window, target far ahead: cnt still the plateau's 1000.
        assert_eq!(g.on_ack(&curve(10, 10, 1, 30.0)), 0);
        // 40 ms later it is recomputed: cnt = max(⌊10 / 20⌋, 2) = 2; the two segments of credit
        // earned at cnt = 1000 count one segment first, then the ACK's two another.
        assert_eq!(g.on_ack(&curve(40, 10, 2, 30.0)), 2);
    }
}
