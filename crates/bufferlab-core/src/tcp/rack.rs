//! RACK (RFC 8985): time-based loss detection for SACK connections.
//!
//! RFC 6675 calls a segment lost when DupThresh segments above it are SACKed. That never
//! happens to a retransmission that is lost again (the segments above it were SACKed before it
//! was resent) nor to a loss near the end of a small window (too few segments follow it), and
//! both wait for the retransmission timer. RACK instead remembers the most recently *sent*
//! segment that has been delivered (cumulatively or by SACK), and calls lost every segment sent
//! before it that is still undelivered one RTT (RACK.rtt, that segment's own round trip) plus a
//! reordering window after its own sending. Linux detects losses this way by default
//! (`net.ipv4.tcp_recovery = 1`, since RACK came in 4.4). A lost tail, which no later delivery
//! reveals, is the tail loss probe's ([`super::tlp`], RFC 8985 §7).
//!
//! The reordering window (RFC 8985 §6.2 step 4, Linux's `tcp_rack_reo_wnd`) is a quarter of
//! the minimum RTT, at most one SRTT. Until the connection has seen reordering (a segment never
//! resent delivered below one already SACKed: Linux's `reord_seen`, found by the scoreboard) it
//! is zero during a recovery and once DupThresh segments are SACKed, so a loss is acted on as
//! fast as RFC 6675's rule would. With reordering seen, D-SACKs (RFC 2883, [`super::dsack`])
//! that show needless retransmissions widen it by one quarter of the minimum RTT per round trip
//! (RACK.reo_wnd_mult, Linux's `reo_wnd_steps`), and 16 recoveries without one bring it back
//! (`reo_wnd_persist`).
//!
//! This file holds RACK's per-connection state (RFC 8985 §6.1: RACK.xmit_ts, RACK.end_seq,
//! RACK.rtt) and the reordering window's; the scoreboard walks its segments against them.

use super::params::DUP_THRESH;
use crate::time::{Duration, Instant};

/// Recoveries without a D-SACK before the reordering window returns to one step (Linux's
/// `TCP_RACK_RECOVERY_THRESH`; RFC 8985 §6.2 step 4: "RACK.reo_wnd_persist = 16").
pub const REO_WND_PERSIST: u8 = 16;

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
    /// When the most recently sent segment this ACK delivered was sent (Linux reads the same
    /// round trip from the rate sample's `prior_delivered`).
    ack_latest_sent: Option<Instant>,
    reo: ReoWnd,
}

/// The reordering window's multiplier and its memory (RFC 8985 §6.1: RACK.reo_wnd_mult,
/// RACK.reo_wnd_persist; Linux's `struct tcp_rack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReoWnd {
    /// Quarters of the minimum RTT, 1 to 255 (Linux's `reo_wnd_steps` is 8 bits).
    mult: u8,
    /// Recoveries left before `mult` returns to 1.
    persist: u8,
    /// A D-SACK arrived since the window last grew (Linux's `dsack_seen`).
    dsack_seen: bool,
    /// When the window last grew: a D-SACK counts again only once data sent after that is
    /// delivered, one round trip later (Linux's `last_delivered`).
    grown_at: Option<Instant>,
}

impl Default for ReoWnd {
    fn default() -> Self {
        ReoWnd {
            mult: 1,
            persist: 0,
            dsack_seen: false,
            grown_at: None,
        }
    }
}

impl Rack {
    /// An ACK echoing `ts_ecr` (RFC 7323) arrived at `now`; `min_rtt` is the smallest RTT
    /// measured on the connection.
    pub fn begin(&mut self, now: Instant, ts_ecr: Instant, min_rtt: Duration) {
        self.now = now;
        self.ts_ecr = ts_ecr;
        self.min_rtt = min_rtt;
        self.ack_latest_sent = None;
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
        self.ack_latest_sent = self.ack_latest_sent.max(Some(sent));
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

    /// The reordering window (RFC 8985 §6.2 step 4, Linux's `tcp_rack_reo_wnd`): without
    /// reordering seen, none during a recovery or once DupThresh segments are SACKed; else
    /// `mult` quarters of the minimum RTT, at most one SRTT.
    pub fn reo_wnd(
        &self,
        reordering_seen: bool,
        in_recovery: bool,
        sacked: u32,
        min_rtt: Duration,
        srtt: Duration,
    ) -> Duration {
        if !reordering_seen && (in_recovery || sacked >= DUP_THRESH) {
            Duration::ZERO
        } else {
            Duration::from_ns(min_rtt.as_ns() / 4 * self.reo.mult as u64).min(srtt)
        }
    }

    /// The window's multiplier (RACK.reo_wnd_mult).
    pub fn reo_wnd_mult(&self) -> u8 {
        self.reo.mult
    }

    /// A D-SACK reported a needless retransmission on a connection that has seen reordering:
    /// the window may have been too small (Linux's `tcp_dsack_seen` sets `dsack_seen` only
    /// then).
    pub fn on_dsack(&mut self) {
        self.reo.dsack_seen = true;
    }

    /// After the ACK's deliveries (Linux's `tcp_rack_update_reo_wnd`): a D-SACK grows the
    /// window by one step, at most once per round trip (one seen before the last growth's
    /// round trip has passed is dropped), and holds it for [`REO_WND_PERSIST`] recoveries;
    /// after those it returns to one step. An ACK that delivered nothing decides nothing.
    pub fn update_reo_wnd(&mut self) {
        let Some(latest) = self.ack_latest_sent else {
            return;
        };
        let r = &mut self.reo;
        if r.grown_at.is_some_and(|t| latest < t) {
            r.dsack_seen = false;
        }
        if r.dsack_seen {
            r.mult = r.mult.saturating_add(1);
            r.dsack_seen = false;
            r.grown_at = Some(self.now);
            r.persist = REO_WND_PERSIST;
        } else if r.persist == 0 {
            r.mult = 1;
        }
    }

    /// A recovery ended without being undone: one fewer for the window to persist (Linux's
    /// `tcp_try_undo_recovery`).
    pub fn on_recovery_end(&mut self) {
        self.reo.persist = self.reo.persist.saturating_sub(1);
    }

    /// D-SACKs undid a recovery: one more (Linux's `tcp_try_undo_dsack`).
    pub fn on_dsack_undo(&mut self) {
        self.reo.persist = (self.reo.persist + 1).min(REO_WND_PERSIST);
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
        let r = Rack::default();
        assert_eq!(r.reo_wnd(false, false, 0, min, srtt), 10 * MS);
        assert_eq!(r.reo_wnd(false, false, 2, min, srtt), 10 * MS);
        assert_eq!(r.reo_wnd(false, false, 3, min, srtt), Duration::ZERO);
        assert_eq!(r.reo_wnd(false, true, 0, min, srtt), Duration::ZERO);
        assert_eq!(r.reo_wnd(false, false, 0, min, 5 * MS), 5 * MS);
        // Reordering seen (Linux's `reord_seen`): the window holds in a recovery too.
        assert_eq!(r.reo_wnd(true, true, 5, min, srtt), 10 * MS);
    }

    /// One ACK at `now` delivering a segment sent at `sent`, after a D-SACK if `dsack`.
    fn ack(r: &mut Rack, now: Instant, sent: Instant, dsack: bool) {
        r.begin(now, sent, 40 * MS);
        r.on_delivered(sent, 1000, false, false);
        if dsack {
            r.on_dsack();
        }
        r.update_reo_wnd();
    }

    /// RFC 8985 §6.2 step 4 as Linux has it: a step per round trip with D-SACKs, none for a
    /// second D-SACK within the round trip, capped by SRTT; back to one step after 16
    /// recoveries without D-SACK, not before.
    #[test]
    fn dsacks_widen_the_window_a_step_per_round_trip() {
        let (min, srtt) = (40 * MS, 100 * MS);
        let mut r = Rack::default();
        ack(&mut r, T0 + 100 * MS, T0 + 60 * MS, true);
        assert_eq!(r.reo_wnd_mult(), 2);
        assert_eq!(r.reo_wnd(true, true, 9, min, srtt), 20 * MS);
        // Data sent before the growth (at 100 ms): the same round trip, no step.
        ack(&mut r, T0 + 110 * MS, T0 + 70 * MS, true);
        ack(&mut r, T0 + 130 * MS, T0 + 95 * MS, true);
        assert_eq!(r.reo_wnd_mult(), 2);
        // The D-SACK seen then is not kept for later either.
        ack(&mut r, T0 + 150 * MS, T0 + 105 * MS, false);
        assert_eq!(r.reo_wnd_mult(), 2);
        // A round trip later: another step.
        ack(&mut r, T0 + 160 * MS, T0 + 110 * MS, true);
        assert_eq!(r.reo_wnd_mult(), 3);
        // A pending D-SACK waits for an ACK that delivers something.
        r.on_dsack();
        r.begin(T0 + 210 * MS, T0 + 170 * MS, 40 * MS);
        r.update_reo_wnd();
        assert_eq!(r.reo_wnd_mult(), 3);
        ack(&mut r, T0 + 220 * MS, T0 + 180 * MS, false);
        assert_eq!(r.reo_wnd_mult(), 4);
        assert_eq!(r.reo_wnd(true, false, 0, min, srtt), 40 * MS);
        for step in 5..=12 {
            let t = T0 + step as u64 * 100 * MS;
            ack(&mut r, t, t - 40 * MS, true);
        }
        assert_eq!(
            r.reo_wnd(true, false, 0, min, srtt),
            srtt,
            "at most one SRTT"
        );
        // 15 recoveries without a D-SACK (one undone by D-SACKs gives one back): still wide.
        for _ in 0..15 {
            r.on_recovery_end();
        }
        r.on_dsack_undo();
        r.on_recovery_end();
        ack(&mut r, T0 + 2000 * MS, T0 + 1960 * MS, false);
        assert_eq!(r.reo_wnd_mult(), 12);
        // The 16th: back to a quarter of the minimum RTT.
        r.on_recovery_end();
        ack(&mut r, T0 + 2100 * MS, T0 + 2060 * MS, false);
        assert_eq!(r.reo_wnd_mult(), 1);
        assert_eq!(r.reo_wnd(true, true, 9, min, srtt), 10 * MS);
    }

    #[test]
    fn the_multiplier_stops_at_255() {
        let mut r = Rack::default();
        for k in 1..=300u64 {
            let t = T0 + k * 100 * MS;
            ack(&mut r, t, t - 40 * MS, true);
        }
        assert_eq!(r.reo_wnd_mult(), 255);
    }
}
