//! Undoing a window reduction that proved needless: after a timeout F-RTO finds spurious
//! ([`super::super::frto`]), and after a recovery whose every retransmission D-SACKs report
//! needless ([`super::super::dsack`]); and RACK's reordering window, which reads the same
//! D-SACKs.

use super::super::cc::{Cc, CwndState};
use super::super::dsack::first_is_dsack;
use super::SendConn;
use crate::packet::TcpHeader;

impl SendConn {
    /// Back to the window before a reduction found needless (Linux's
    /// `tcp_undo_cwnd_reduction`): cwnd and ssthresh at least what they were, and the
    /// algorithm's own state restored ([`Cc::undo_to`]).
    pub(super) fn restore_window(&mut self, w: CwndState, cc: Cc) {
        self.cc.undo_to(cc);
        self.w.cwnd_bytes = self.w.cwnd_bytes.max(w.cwnd_bytes);
        self.w.ssthresh_bytes = self.w.ssthresh_bytes.max(w.ssthresh_bytes);
    }

    /// A recovery begins (Linux's `tcp_init_undo`): what a D-SACK undo would restore, if the
    /// recovery `reduces` the window (not when it begins inside an ECN reduction).
    pub(super) fn begin_undo(&mut self, reduces: bool) {
        let saved = reduces.then(|| (self.w, self.cc.clone()));
        let (total, in_flight) = (self.sb.resent_total(), self.sb.retransmitted() as u64);
        self.dsack.start(self.v.una, total, in_flight, saved);
    }

    /// Read the ACK's first SACK block if it is a D-SACK (RFC 2883 §4, Linux's
    /// `tcp_check_dsack`), before SND.UNA moves; returns how many leading blocks to leave out
    /// of the scoreboard's marking (1 for a D-SACK, else 0).
    pub(super) fn read_dsack(&mut self, h: &TcpHeader, ack: u64) -> usize {
        let blocks = &h.sack[..(h.nsack as usize).min(h.sack.len())];
        if !first_is_dsack(blocks, ack) {
            return 0;
        }
        let (lo, hi) = blocks[0];
        let total = self.sb.resent_total();
        let max_window = self.v.peer_rwnd.max(self.cfg.mss);
        let Some(segs) = self
            .dsack
            .duplicates(lo, hi, self.cfg.mss, max_window, total)
        else {
            return 1;
        };
        // Below what earlier ACKs acknowledged the segments are gone: Linux counts their
        // length ("dumb counting"); above, the resent ones among them.
        let needless = if hi <= self.v.una {
            segs
        } else {
            self.sb.dsack_resent(lo, hi) as u64
        };
        self.dsack.on_needless(hi, needless, total);
        // RACK widens its window only for connections that have seen reordering (Linux's
        // `tcp_dsack_seen`: a D-SACK without it is a delay or a duplicate in the network).
        if self.sb.reordered() {
            if let Some(r) = self.sb.rack_mut() {
                r.on_dsack();
            }
        }
        1
    }

    /// After the ACK's deliveries, before its losses are looked for (Linux's
    /// `tcp_rack_update_reo_wnd`, then `tcp_fastretrans_alert`): RACK's window takes the
    /// D-SACKs in, and a recovery all of whose retransmissions proved needless is undone, as
    /// it ends or after (`tcp_try_undo_recovery`, `tcp_try_undo_dsack`). `was_in_recovery`:
    /// before the ACK.
    pub(super) fn after_dsacks(&mut self, was_in_recovery: bool) {
        let due = self.dsack.due(self.sb.resent_total());
        let ended = was_in_recovery && !self.v.in_recovery;
        if let Some(r) = self.sb.rack_mut() {
            r.update_reo_wnd();
            match (ended, due) {
                (true, false) => r.on_recovery_end(),
                (false, true) => r.on_dsack_undo(),
                _ => {}
            }
        }
        if due {
            if let Some((w, cc)) = self.dsack.take() {
                self.restore_window(w, cc);
            }
            // Linux's `tcp_try_to_open`: the recovery is over; losses still marked start
            // another (`tcp_time_to_recover`).
            if self.v.in_recovery {
                self.v.in_recovery = false;
                self.prr = None;
            }
            self.v.recover = None;
        }
    }

    /// Recoveries undone by D-SACKs.
    pub fn spurious_recoveries(&self) -> u64 {
        self.dsack.undone()
    }
}
