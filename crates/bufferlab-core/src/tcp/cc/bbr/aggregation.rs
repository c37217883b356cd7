//! BBR's allowance for ACK aggregation (Linux `tcp_bbr.c`, `bbr_update_ack_aggregation`, since
//! 5.1): when ACKs arrive in bursts (a Wi-Fi link, a receiver's GRO, stretched ACKs) more data is
//! acknowledged in a burst than the estimated bandwidth explains, and a window of exactly
//! 2 × BDP would stall in the silences between bursts. The largest excess over an epoch of
//! ACKs arriving at least as fast as the bandwidth predicts — `extra_acked` — is added to the
//! target window once the pipe is full, capped by the window and by 100 ms at the estimated rate;
//! the maximum is kept over 5–10 round trips (two halves that alternate).

use super::super::ConnState;
use super::per_sec_over;
use crate::time::{Duration, Instant};

/// Rounds per half of the max filter (`bbr_extra_acked_win_rtts`).
const WIN_RTTS: u32 = 5;
/// An epoch restarts after this many packets acknowledged in it
/// (`bbr_ack_epoch_acked_reset_thresh`).
const EPOCH_RESET_PKTS: u64 = 1 << 20;
/// The allowance is at most this long at the estimated rate (`bbr_extra_acked_max_us`).
pub(super) const MAX_EXTRA: Duration = Duration::from_ms(100);

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckAggregation {
    /// Start of the epoch, and bytes acknowledged in it.
    epoch_at: Instant,
    epoch_acked: u64,
    /// The two halves of the max filter (bytes), the current one, and its age in rounds.
    extra: [u64; 2],
    idx: usize,
    win_rtts: u32,
}

impl AckAggregation {
    /// The largest excess of the last 5–10 round trips, bytes.
    pub(super) fn extra_acked(&self) -> u64 {
        self.extra[0].max(self.extra[1])
    }

    /// A new epoch from `now` (after an idle period: `CA_EVENT_TX_START`).
    pub(super) fn restart(&mut self, now: Instant) {
        self.epoch_at = now;
        self.epoch_acked = 0;
    }

    /// An ACK newly delivering `acked` bytes, `round_start` if it began a round trip; `bw` the
    /// estimate (bytes/s), `cwnd_bytes` the window (the cap), `mss` a full segment.
    pub(super) fn update(
        &mut self,
        acked: u64,
        c: &ConnState,
        round_start: bool,
        bw: u64,
        cwnd_bytes: u64,
        mss: u64,
    ) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(31);
            if self.win_rtts >= WIN_RTTS {
                self.win_rtts = 0;
                self.idx ^= 1;
                self.extra[self.idx] = 0;
            }
        }
        // Linux counts the epoch in whole microseconds and what it expected in whole packets
        // (`bbr_update_ack_aggregation`: the product floored), so the excess it keeps is the
        // packets acknowledged less the expected ones rounded down.
        let epoch = c.delivered_at.saturating_since(self.epoch_at);
        let epoch = Duration::from_us(epoch.as_ns() / 1000);
        let mut expected = per_sec_over(bw, epoch) / mss.max(1) * mss;
        // ACKs slower than the estimate (or an epoch grown old): start a new epoch here.
        if self.epoch_acked <= expected || self.epoch_acked + acked >= EPOCH_RESET_PKTS * mss {
            self.epoch_acked = 0;
            self.epoch_at = c.delivered_at;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min((EPOCH_RESET_PKTS - 1) * mss);
        let extra = (self.epoch_acked - expected).min(cwnd_bytes);
        if extra > self.extra[self.idx] {
            self.extra[self.idx] = extra;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::CaState;

    fn at(us: u64) -> ConnState {
        let t = Instant::from_ns(us * 1000);
        ConnState {
            now: t,
            ca: CaState::Open,
            in_flight_bytes: 0,
            srtt: None,
            delivered_bytes: 0,
            delivered_at: t,
            lost_bytes: 0,
            cwnd_limited: true,
            edt_wait: Duration::ZERO,
        }
    }

    #[test]
    fn smooth_acks_leave_no_excess_and_a_burst_shows_its_size() {
        let mut a = AckAggregation::default();
        // 1 MB/s and an ACK of 1000 B every ms: exactly as the rate predicts.
        for k in 1..=50 {
            a.update(1000, &at(k * 1000), false, 1_000_000, 1 << 30, 1000);
        }
        assert!(a.extra_acked() <= 1000, "{}", a.extra_acked());
        // Then 20 ms of silence and 20 kB acknowledged at once: the epoch (restarted by the
        // slow part) sees 20 kB more than the rate explains over no time.
        a.update(1000, &at(70_000), false, 1_000_000, 1 << 30, 1000);
        for _ in 0..19 {
            a.update(1000, &at(70_000), false, 1_000_000, 1 << 30, 1000);
        }
        assert_eq!(a.extra_acked(), 20_000);
        // Capped by the window.
        a.update(1000, &at(70_000), false, 1_000_000, 8000, 1000);
        assert_eq!(a.extra_acked(), 20_000, "the max keeps the larger value");
    }

    /// Linux floors what it expected to whole packets before taking it off (the excess is
    /// then rounded up): 1 MB/s for 0.5 ms expects half a packet, counted as none.
    #[test]
    fn the_expected_count_is_whole_packets() {
        let mut a = AckAggregation::default();
        a.update(1000, &at(0), false, 1_000_000, 1 << 30, 1000);
        a.update(3000, &at(500), false, 1_000_000, 1 << 30, 1000);
        assert_eq!(a.extra_acked(), 4000);
        // 2.5 ms expects two packets and a half: two.
        let mut a = AckAggregation::default();
        a.update(3000, &at(0), false, 1_000_000, 1 << 30, 1000);
        a.update(4000, &at(2500), false, 1_000_000, 1 << 30, 1000);
        assert_eq!(a.extra_acked(), 5000);
    }

    #[test]
    fn the_maximum_ages_out_after_two_halves() {
        let mut a = AckAggregation::default();
        a.update(5000, &at(0), false, 1_000_000, 1 << 30, 1000);
        assert_eq!(a.extra_acked(), 5000);
        // Five rounds flip to the other half; five more clear the first.
        for r in 1..=10 {
            a.update(0, &at(r * 100_000), true, 1_000_000, 1 << 30, 1000);
        }
        assert_eq!(a.extra_acked(), 0);
    }
}
