//! BBR's long-term bandwidth sampling (Linux `tcp_bbr.c`, `bbr_lt_bw_sampling`): token-bucket
//! policers are common (Flach et al., "An Internet-Wide Analysis of Traffic Policing", SIGCOMM
//! 2016), and a flow probing above the token rate loses heavily while its max filter still
//! reports the burst rate. BBR suspects a policer after two sampling intervals of 4–16 round
//! trips, each ending on a loss, with a loss rate of at least 50/256 (≈ 20 %) and rates within
//! 1/8 (or 4 kb/s) of each other; it then paces at their mean for 48 round trips, then starts
//! over.

use super::super::ConnState;
use crate::tcp::rate::RateSample;
use crate::time::{Duration, Instant};

/// The shortest sampling interval, in round trips (`bbr_lt_intvl_min_rtts`).
const INTVL_MIN_RTTS: u32 = 4;
/// Lost / delivered above this (in 1/256) makes an interval "lossy" (`bbr_lt_loss_thresh`).
const LOSS_THRESH: u64 = 50;
/// Two intervals' rates are consistent within 1/8 of each other (`bbr_lt_bw_ratio`) ...
const BW_RATIO: u64 = 256 / 8;
/// ... or within 4 kb/s, i.e. 500 B/s (`bbr_lt_bw_diff`).
const BW_DIFF_BYTES_PER_SEC: u64 = 4000 / 8;
/// How long the policed rate is used, in round trips (`bbr_lt_bw_max_rtts`).
const MAX_RTTS: u32 = 48;

/// What a sample did to the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LtEvent {
    None,
    /// A policer is suspected: pace at `lt_bw` with gain 1 from now on.
    Policed,
    /// The policed rate expired: restart the gain cycle.
    Expired,
}

/// The long-term estimator's state (`lt_*` of Linux's `struct bbr`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LtBw {
    is_sampling: bool,
    /// Round trips in this interval (or since the policed rate was adopted).
    rtt_cnt: u32,
    use_bw: bool,
    /// The estimate, bytes per second (0: none yet).
    bw: u64,
    last_delivered: u64,
    last_at: Instant,
    last_lost: u64,
}

impl LtBw {
    /// Whether the policed rate is in use, and the rate.
    pub(super) fn policed(&self) -> Option<u64> {
        self.use_bw.then_some(self.bw)
    }

    /// Forget everything (`bbr_reset_lt_bw_sampling`; the interval restarts when sampling
    /// does).
    pub(super) fn reset(&mut self) {
        *self = LtBw::default();
    }

    fn reset_interval(&mut self, c: &ConnState) {
        self.last_at = c.delivered_at;
        self.last_delivered = c.delivered_bytes;
        self.last_lost = c.lost_bytes;
        self.rtt_cnt = 0;
    }

    /// One ACK's sample, `round_start` if it began a round trip; `probe_bw`: BBR is in
    /// PROBE_BW.
    pub(super) fn sample(
        &mut self,
        rs: &RateSample,
        c: &ConnState,
        round_start: bool,
        probe_bw: bool,
    ) -> LtEvent {
        if self.use_bw {
            if probe_bw && round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= MAX_RTTS {
                    self.reset();
                    return LtEvent::Expired;
                }
            }
            return LtEvent::None;
        }
        // Sample from the first loss on: the policer's bucket is empty then, and its
        // steady-state rate shows.
        if !self.is_sampling {
            if rs.losses == 0 {
                return LtEvent::None;
            }
            self.reset_interval(c);
            self.is_sampling = true;
        }
        // Out of data: the interval would underestimate.
        if rs.is_app_limited {
            self.reset();
            return LtEvent::None;
        }
        if round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < INTVL_MIN_RTTS {
            return LtEvent::None;
        }
        if self.rtt_cnt > 4 * INTVL_MIN_RTTS {
            self.reset();
            return LtEvent::None;
        }
        // The interval ends on a loss, once the bucket is surely empty.
        if rs.losses == 0 {
            return LtEvent::None;
        }
        let lost = c.lost_bytes - self.last_lost;
        let delivered = c.delivered_bytes - self.last_delivered;
        if delivered == 0 || lost * 256 < LOSS_THRESH * delivered {
            return LtEvent::None;
        }
        let t = c.delivered_at.saturating_since(self.last_at);
        if t < Duration::from_ms(1) {
            return LtEvent::None;
        }
        let bw = super::per_sec(delivered, t);
        self.interval_done(bw, c)
    }

    /// An interval ended with rate `bw`: a policer if it matches the previous one.
    fn interval_done(&mut self, bw: u64, c: &ConnState) -> LtEvent {
        if self.bw != 0 {
            let diff = bw.abs_diff(self.bw);
            // Linux compares the difference as a pacing rate, with BBR's 1 % margin off.
            if diff * 256 <= BW_RATIO * self.bw || diff * 99 / 100 <= BW_DIFF_BYTES_PER_SEC {
                self.bw = (bw + self.bw) / 2;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtEvent::Policed;
            }
        }
        self.bw = bw;
        self.reset_interval(c);
        LtEvent::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CaState;

    fn conn(ms: u64, delivered: u64, lost: u64) -> ConnState {
        ConnState {
            now: Instant::from_ms(ms),
            ca: CaState::Open,
            in_flight_bytes: 0,
            srtt: None,
            delivered_bytes: delivered,
            delivered_at: Instant::from_ms(ms),
            lost_bytes: lost,
            cwnd_limited: true,
            edt_wait: Duration::ZERO,
        }
    }

    fn lossy(losses: u64) -> RateSample {
        RateSample {
            losses,
            ..RateSample::default()
        }
    }

    /// Run `rounds` round trips of 100 ms delivering `rate` B/s and losing a quarter as much,
    /// from `t0`; the event of the last ACK.
    fn interval(lt: &mut LtBw, t0: u64, d0: u64, l0: u64, rate: u64, rounds: u64) -> LtEvent {
        let mut ev = LtEvent::None;
        for r in 1..=rounds {
            let d = d0 + rate * r / 10;
            ev = lt.sample(
                &lossy(1),
                &conn(t0 + 100 * r, d, l0 + (d - d0) / 4),
                true,
                true,
            );
        }
        ev
    }

    #[test]
    fn two_consistent_lossy_intervals_mean_a_policer() {
        let mut lt = LtBw::default();
        // The first loss starts sampling.
        assert_eq!(
            lt.sample(&lossy(1), &conn(0, 0, 0), false, true),
            LtEvent::None
        );
        // Four rounds at 1 MB/s with 25 % loss: the first interval.
        assert_eq!(interval(&mut lt, 0, 0, 0, 1_000_000, 4), LtEvent::None);
        assert_eq!(lt.policed(), None);
        // Four more at 1.1 MB/s (within 1/8): policed, at the mean.
        assert_eq!(
            interval(&mut lt, 400, 400_000, 100_000, 1_100_000, 4),
            LtEvent::Policed
        );
        assert_eq!(lt.policed(), Some(1_050_000));
        // 48 round trips in PROBE_BW later it expires.
        for k in 0..47 {
            assert_eq!(
                lt.sample(&lossy(0), &conn(900 + k, 0, 0), true, true),
                LtEvent::None
            );
        }
        assert_eq!(
            lt.sample(&lossy(0), &conn(1000, 0, 0), true, true),
            LtEvent::Expired
        );
        assert_eq!(lt.policed(), None);
    }

    #[test]
    fn inconsistent_or_light_losses_are_not_a_policer() {
        let mut lt = LtBw::default();
        lt.sample(&lossy(1), &conn(0, 0, 0), false, true);
        interval(&mut lt, 0, 0, 0, 1_000_000, 4);
        // Twice the rate: not consistent; this interval becomes the reference.
        assert_eq!(
            interval(&mut lt, 400, 400_000, 100_000, 2_000_000, 4),
            LtEvent::None
        );
        assert_eq!(lt.policed(), None);
        // 10 % loss never ends an interval; past 16 round trips sampling starts over.
        let mut lt = LtBw::default();
        lt.sample(&lossy(1), &conn(0, 0, 0), false, true);
        for r in 1..=17u64 {
            let d = 100_000 * r;
            lt.sample(&lossy(1), &conn(100 * r, d, d / 10), true, true);
        }
        assert_eq!(lt.policed(), None);
        assert!(!lt.is_sampling, "reset after 16 round trips");
    }
}
