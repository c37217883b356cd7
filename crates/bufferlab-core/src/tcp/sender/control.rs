//! The sender's side of an algorithm that controls the rate (BBR): the delivery-rate samples it
//! needs ([`crate::tcp::rate`], stamped through the scoreboard), the connection state it reads,
//! and what it decides — the window, the pacing rate, application-limited marks. Linux's
//! `tcp_ack` builds the sample (`tcp_rate_gen`) and hands it to the `cong_control` op in place
//! of the window logic of `tcp_cong_control`; the window the ACK processing itself would set
//! (PRR, RFC 6582's inflation, `cwnd = ssthresh` when a recovery or an ECN reduction ends) is
//! not used.

use super::*;
use crate::tcp::cc::{CaState, ConnState};

impl SendConn {
    /// Bytes in flight (Linux's `tcp_packets_in_flight`): the pipe with SACK, else what is
    /// outstanding from SND.NXT's point of view.
    fn in_flight_bytes(&self) -> u64 {
        if self.cfg.sack {
            self.sb.pipe() * self.cfg.mss
        } else {
            self.v.nxt - self.v.una
        }
    }

    /// Linux's congestion-avoidance state.
    fn ca_state(&self) -> CaState {
        if self.v.in_recovery {
            CaState::Recovery
        } else if self.in_loss() {
            CaState::Loss
        } else if self.v.cwr_end.is_some() {
            CaState::Cwr
        } else {
            CaState::Open
        }
    }

    fn conn_state(&self, now: Instant) -> ConnState {
        let (delivered_bytes, delivered_at, lost_bytes) =
            self.sb.rate().map_or((0, Instant::ZERO, 0), |r| {
                (r.delivered(), r.delivered_at(), r.lost())
            });
        ConnState {
            now,
            ca: self.ca_state(),
            in_flight_bytes: self.in_flight_bytes(),
            srtt: self.rtt.srtt(),
            delivered_bytes,
            delivered_at,
            lost_bytes,
            cwnd_limited: self.v.cwnd_limited,
            edt_wait: self.v.wstamp.saturating_since(now),
        }
    }

    fn apply_pacing(&mut self, rate: Option<u64>) {
        if rate.is_some() {
            self.v.pacing_rate = rate;
        }
    }

    /// The connection is open (Linux's `init` op after the handshake).
    pub(super) fn established(&mut self, now: Instant) {
        if self.cfg.rate_control {
            let c = self.conn_state(now);
            let rate = self.cc.on_established(&self.w, &c);
            self.apply_pacing(rate);
        }
    }

    /// An ACK arrives: its sample starts; the window before it (the ACK processing may not move
    /// it). Without rate control, nothing.
    #[inline]
    pub(super) fn rate_begin(&mut self) -> u64 {
        if self.cfg.rate_control {
            let f = self.in_flight_bytes();
            if let Some(r) = self.sb.rate_mut() {
                r.begin(f);
            }
        }
        self.w.cwnd_bytes
    }

    /// The ACK is processed: the sample goes to the algorithm with the window as it was before
    /// the ACK, and its pacing rate and marks are applied. `ts_rtt`: the echoed timestamp's RTT
    /// if the ACK advanced.
    pub(super) fn rate_end(&mut self, now: Instant, cwnd_before: u64, ts_rtt: Option<Duration>) {
        let min_rtt = self.v.min_rtt.unwrap_or(Duration::ZERO);
        let mss = self.cfg.mss;
        let Some(rs) = self.sb.rate_mut().map(|r| r.end(now, min_rtt, mss, ts_rtt)) else {
            return;
        };
        self.w.cwnd_bytes = cwnd_before;
        let c = self.conn_state(now);
        let out = self.cc.cong_control(&mut self.w, &rs, &c);
        self.apply_pacing(out.pacing_rate);
        if out.app_limited {
            if let Some(r) = self.sb.rate_mut() {
                r.mark_app_limited(c.in_flight_bytes);
            }
        }
    }

    /// A data segment `[seq, seq + len)` leaves at `now` (before it is counted as sent): without
    /// SACK the scoreboard keeps its stamp; with nothing else in flight while the flow is
    /// application-limited, the algorithm hears of the restart (`CA_EVENT_TX_START`).
    pub(super) fn rate_on_send(&mut self, now: Instant, seq: u64, len: u32) {
        let in_flight_before = if self.cfg.sack {
            // The scoreboard already counts this segment.
            (self.sb.pipe() * self.cfg.mss).saturating_sub(self.cfg.mss)
        } else {
            if seq >= self.v.max {
                self.sb.push(seq, len, now);
            } else {
                self.sb.on_resent_bytes(seq, now);
            }
            self.v.nxt - self.v.una
        };
        if in_flight_before == 0 && self.sb.rate().is_some_and(|r| r.is_app_limited()) {
            let c = self.conn_state(now);
            let rate = self.cc.on_tx_start(&mut self.w, &c);
            self.apply_pacing(rate);
        }
    }

    /// The application writes (`tcp_rate_check_app_limited`, called from `tcp_sendmsg`): less
    /// than a segment waiting, room in the window and no lost segment waiting to be resent mean
    /// the flow is application-limited until what is in flight is delivered.
    pub(super) fn check_app_limited(&mut self) {
        let unsent = self.v.end.saturating_sub(self.v.max) < self.cfg.mss;
        let f = self.in_flight_bytes();
        let open = f < self.w.cwnd_bytes;
        let no_lost = self.sb.lost() <= self.sb.retransmitted();
        if let Some(r) = self.sb.rate_mut() {
            r.check_app_limited(unsent, open, no_lost, f);
        }
    }

    /// Without SACK: the cumulative ACK of `acked` more bytes, up to `ack`, delivers the
    /// scoreboard's segments below it; the duplicate ACKs before it counted some already.
    pub(super) fn rate_cumulative_ack(&mut self, ack: u64, acked: u64) {
        self.sb.ack_bytes(ack);
        let mss = self.cfg.mss;
        if let Some(r) = self.sb.rate_mut() {
            r.settle_dup_acks(acked, mss);
        }
    }

    /// Without SACK: a duplicate ACK means one more segment arrived.
    pub(super) fn rate_dup_ack(&mut self) {
        let mss = self.cfg.mss;
        if let Some(r) = self.sb.rate_mut() {
            r.on_dup_ack(mss);
        }
    }

    /// Without SACK, NewReno presumes the first unacknowledged segment lost (for the
    /// estimator's loss count).
    pub(super) fn note_head_lost(&mut self) {
        if self.cfg.rate_control && !self.cfg.sack {
            self.sb.mark_lost(self.sb.head());
        }
    }

    /// After a timeout (`tcp_enter_loss`): without SACK everything outstanding is counted lost,
    /// then the algorithm enters its loss state.
    pub(super) fn rate_enter_loss(&mut self, now: Instant) {
        if !self.cfg.sack {
            self.sb.mark_all_lost();
        }
        let c = self.conn_state(now);
        self.cc.on_enter_loss(&c);
    }
}
