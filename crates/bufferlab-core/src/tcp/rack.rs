//! RACK (RFC 8985): time-based loss detection for SACK connections.
//!
//! RFC 6675 calls a segment lost when DupThresh segments above it are SACKed. That never
//! happens to a retransmission that is lost again (the segments above it were SACKed before it
//! was resent) nor to a loss near the end of a small window (too few segments follow it), and
//! both wait for the retransmission timer. RACK instead remembers the most recently *sent*
//! segment that has been delivered (cumulatively or by SACK), and calls lost every segment sent
//! before it that is still undelivered one RTT (RACK.rtt, that segment's own round trip) plus a
//! reordering window after its own sending. Linux detects losses this way by default
//! (`net.ipv4.tcp_recovery = 1`, since RACK came in 4.4). Tail loss probes (RFC 8985 §7) are
//! not modelled: a lost tail still waits for the timer.
//!
//! This file holds RACK's per-connection state (RFC 8985 §6.1: RACK.xmit_ts, RACK.end_seq,
//! RACK.rtt) and the reordering window; the scoreboard walks its segments against them.

use super::params::DUP_THRESH;
use crate::time::{Duration, Instant};

/// RACK's reference: the most recently sent segment delivered so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    /// RACK.xmit_ts, RACK.end_seq (a byte offset), RACK.rtt; `None` before any delivery.
    reference: Option<(Instant, u64, Duration)>,
    /// The ACK being processed: its arrival, the timestamp it echoes, and the connection's
    /// minimum RTT.
    now: Instant,
    ts_ecr: Instant,
    min_rtt: Duration,
}

impl Rack {
    /// An ACK echoing `ts_ecr` (RFC 7323) arrived at `now`; `min_rtt` is the smallest RTT
    /// measured on the connection.
    pub fn begin(&mut self, now: Instant, ts_ecr: Instant, min_rtt: Duration) {
        self.now = now;
        self.ts_ecr = ts_ecr;
        self.min_rtt = min_rtt;
    }

    /// RFC 8985 §6.2 step 2 (RACK_update): the segment ending at `end`, last sent at `sent`,
    /// was delivered by this ACK, by SACK if `sacked`, else cumulatively. A resent segment
    /// delivered by an earlier copy says nothing about its last sending: RFC 8985 §6.2 step 2
    /// tells so by a round trip shorter than the minimum RTT, or by the ACK's echoed timestamp
    /// being older than the resending. Linux applies the second test to cumulative ACKs only
    /// (`tcp_skb_spurious_retrans` in `tcp_clean_rtx_queue`; `tcp_sacktag_one` calls
    /// `tcp_rack_advance` without it): an ACK that SACKs a segment above a hole echoes the
    /// receiver's older TS.Recent (RFC 7323 §4.3 updates it for in-order data only), so the test
    /// would discard every SACKed retransmission above a hole (a tail loss probe's, a
    /// recovery's) and leave the losses below it to the timer.
    #[inline]
    pub fn on_delivered(&mut self, sent: Instant, end: u64, resent: bool, sacked: bool) {
        let rtt = self.now.saturating_since(sent);
        if resent && (rtt < self.min_rtt || (!sacked && self.ts_ecr < sent)) {
            return;
        }
        if self.reference.is_none_or(|(x, e, _)| (sent, end) > (x, e)) {
            self.reference = Some((sent, end, rtt));
        }
    }

    /// (RACK.xmit_ts, RACK.end_seq, RACK.rtt).
    pub fn reference(&self) -> Option<(Instant, u64, Duration)> {
        self.reference
    }

    /// RFC 8985 §6.2 step 4 (RACK_update_reo_wnd) without reordering seen (the network here
    /// reorders only across paths, and DSACK is not modelled): none during a recovery or once
    /// DupThresh segments are SACKed, else a quarter of the minimum RTT, at most one SRTT.
    pub fn reo_wnd(in_recovery: bool, sacked: u32, min_rtt: Duration, srtt: Duration) -> Duration {
        if in_recovery || sacked >= DUP_THRESH {
            Duration::ZERO
        } else {
            Duration::from_ns(min_rtt.as_ns() / 4).min(srtt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_ms(1);
    const T0: Instant = Instant::ZERO;

    #[test]
    fn the_reference_is_the_latest_sent_delivery() {
        let mut r = Rack::default();
        r.begin(T0 + 100 * MS, T0 + 10 * MS, 40 * MS);
        r.on_delivered(T0 + 10 * MS, 2000, false, false);
        r.on_delivered(T0 + 5 * MS, 9000, false, true); // sent earlier: not the reference
        assert_eq!(r.reference(), Some((T0 + 10 * MS, 2000, 90 * MS)));
        // Same sending time: the higher end wins (RFC 8985 §6.2, RACK_sent_after).
        r.on_delivered(T0 + 10 * MS, 3000, false, true);
        assert_eq!(r.reference(), Some((T0 + 10 * MS, 3000, 90 * MS)));
    }

    #[test]
    fn an_ambiguous_retransmission_is_ignored() {
        let mut r = Rack::default();
        // Resent at 95 ms and delivered at 100 ms: 5 ms is below the 40 ms minimum RTT, so
        // the original copy arrived.
        r.begin(T0 + 100 * MS, T0 + 95 * MS, 40 * MS);
        r.on_delivered(T0 + 95 * MS, 1000, true, false);
        assert_eq!(r.reference(), None);
        r.on_delivered(T0 + 95 * MS, 1000, true, true);
        assert_eq!(r.reference(), None);
        // Resent at 50 ms, but the cumulative ACK echoes the 10 ms of the original: not this
        // copy.
        r.begin(T0 + 100 * MS, T0 + 10 * MS, 40 * MS);
        r.on_delivered(T0 + 50 * MS, 1000, true, false);
        assert_eq!(r.reference(), None);
        // A SACK echoes the receiver's older TS.Recent whichever copy arrived: the round trip
        // alone decides, as Linux's `tcp_sacktag_one`.
        r.on_delivered(T0 + 50 * MS, 1000, true, true);
        assert_eq!(r.reference(), Some((T0 + 50 * MS, 1000, 50 * MS)));
        // A resent segment whose own copy made a full round trip counts.
        let mut r = Rack::default();
        r.begin(T0 + 100 * MS, T0 + 50 * MS, 40 * MS);
        r.on_delivered(T0 + 50 * MS, 1000, true, false);
        assert_eq!(r.reference(), Some((T0 + 50 * MS, 1000, 50 * MS)));
    }

    #[test]
    fn reordering_window_only_before_recovery_and_dupthresh() {
        let (min, srtt) = (40 * MS, 60 * MS);
        assert_eq!(Rack::reo_wnd(false, 0, min, srtt), 10 * MS);
        assert_eq!(Rack::reo_wnd(false, 2, min, srtt), 10 * MS);
        assert_eq!(Rack::reo_wnd(false, 3, min, srtt), Duration::ZERO);
        assert_eq!(Rack::reo_wnd(true, 0, min, srtt), Duration::ZERO);
        assert_eq!(Rack::reo_wnd(false, 0, min, 5 * MS), 5 * MS);
    }
}
