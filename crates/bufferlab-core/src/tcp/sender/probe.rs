//! The sender's side of tail loss probes ([`crate::tcp::tlp`]): when a probe may be scheduled,
//! sending it when its timer expires, and the window reduction when its ACK shows it repaired a
//! loss. Linux keeps the probe, RACK's reordering timer and the retransmission timer in one
//! slot (`icsk_pending`); here each has its own deadline, and a probe is not sent where Linux's
//! slot would have been taken by another (a recovery or a SACK under way).

use super::*;
use crate::tcp::tlp::{AckFlags, Tlp};

impl SendConn {
    /// Whether a probe may be scheduled now (`tcp_schedule_loss_probe`): a SACK connection with
    /// data outstanding, in Linux's Open or CWR state — no recovery, no timeout's recovery or
    /// F-RTO under way, and nothing SACKed, marked lost or resent (Disorder).
    pub(super) fn probe_allowed(&self) -> bool {
        self.cfg.tlp
            && self.state == State::Open
            && self.v.una < self.v.max
            && !self.v.in_recovery
            && !self.in_loss()
            && self.frto.phase() == Phase::Off
            && self.sb.sacked() == 0
            && self.sb.lost() == 0
            && self.sb.retransmitted() == 0
    }

    /// (Re)schedule the probe, or cancel it where none may go. `advancing`: an ACK of new data
    /// restarted the retransmission timer, so the PTO is bounded by a whole RTO; after new data
    /// was sent it is bounded by what is left of the timer, counted from the oldest segment's
    /// sending (`tcp_rto_delta_us`).
    pub(super) fn schedule_probe(&mut self, io: &mut Io, advancing: bool) {
        if !self.probe_allowed() {
            self.tlp.at = None;
            return;
        }
        let rto = self.rtt.rto();
        let rto_left = if advancing {
            rto
        } else {
            let due = self.sb.head_sent().map_or(io.now, |s| s + rto);
            due.saturating_since(io.now)
        };
        let pto = Tlp::pto(
            self.rtt.srtt(),
            self.sb.outstanding(),
            self.rtt.min_rto(),
            rto_left,
        );
        let at = io.now + pto;
        self.tlp.at = Some(at);
        if self.tlp.armed.is_none_or(|a| at < a) {
            self.tlp.armed = Some(at);
            io.set_timer(at, self.conn);
        }
    }

    /// The probe timer, called from [`SendConn::on_timer`]: sleep on if the deadline moved,
    /// send the probe if it is due.
    pub(super) fn on_probe_timer(&mut self, io: &mut Io, peer: &Peer) {
        let now = io.now;
        if self.tlp.armed.is_some_and(|a| a <= now) {
            self.tlp.armed = None;
        }
        match self.tlp.at {
            None => {}
            Some(at) if at > now && self.tlp.armed.is_none() => {
                self.tlp.armed = Some(at);
                io.set_timer(at, self.conn);
            }
            // Due later and already armed: its timer will come.
            Some(at) if at > now => {}
            Some(_) => {
                self.tlp.at = None;
                if self.probe_allowed() {
                    self.send_loss_probe(io, peer);
                    self.update_gauges(io, peer);
                }
            }
        }
    }

    /// RFC 8985 §7.3 (`tcp_send_loss_probe`): one segment of new data if the peer's window and
    /// the send buffer allow it, whatever the congestion window; else the highest segment sent
    /// (a segment resent while others are in flight: pipe counts it twice), unless a copy
    /// of it is still in the host's egress. At most one probe per episode. The retransmission
    /// timer then restarts from now; without a probe it runs from the oldest segment's sending.
    fn send_loss_probe(&mut self, io: &mut Io, peer: &Peer) {
        if !self.tlp.in_episode() {
            let retrans = if self.send_new(io, peer, 1) == 1 {
                Some(false)
            } else if self.host_holds_copy(io, peer) {
                None
            } else {
                let k = self.sb.end() - 1;
                self.sb.on_retx(k, io.now);
                let (seq, len) = self.sb.bounds(k);
                self.send_data(io, peer, seq, len);
                Some(true)
            };
            if let Some(retrans) = retrans {
                self.tlp.sent(self.v.max, retrans);
                self.stats.loss_probes += 1;
                self.restart_timer(io, peer);
                return;
            }
        }
        if let Some(sent) = self.sb.head_sent() {
            let at = (sent + self.rtt.rto()).max(io.now + Duration::from_us(1));
            self.arm_rto(io, at);
        }
    }

    /// Whether a packet of this connection is still in its host's egress, so that resending the
    /// last segment would only queue a second copy behind the first (`skb_still_in_host_queue`).
    fn host_holds_copy(&self, io: &Io, peer: &Peer) -> bool {
        self.v.host_tracked
            && io
                .host_tx
                .get(peer.flow as usize)
                .is_some_and(|h| h.conn(self.conn).queued_bytes > 0)
    }

    /// Whether the ACK's first SACK block is a D-SACK of one segment ending at TLP.end_seq: the
    /// probe's copy arrived after the original (Linux's `FLAG_DSACK_TLP`, `tcp_dsack_seen`).
    pub(super) fn dsack_of_probe(&self, h: &TcpHeader, ack: u64) -> bool {
        let blocks = &h.sack[..(h.nsack as usize).min(h.sack.len())];
        // Without a probe under way (most ACKs) nothing to read.
        self.tlp.high().is_some_and(|end| {
            crate::tcp::dsack::first_is_dsack(blocks, ack)
                && blocks[0].1 == end
                && blocks[0].1 - blocks[0].0 <= self.cfg.mss
        })
    }

    /// RFC 8985 §7.4 (`tcp_process_tlp_ack`): an ACK above a resent probe that neither a
    /// duplicate ACK nor a D-SACK showed superfluous means the probe repaired a loss: reduce the
    /// window as a recovery would, at once (Linux enters CWR and ends it in the same step:
    /// `cwnd = ssthresh`). An algorithm that sets its own window (BBR) is left alone, as Linux's
    /// `tcp_end_cwnd_reduction` does for `cong_control`.
    pub(super) fn probe_ack(&mut self, io: &mut Io, f: &AckFlags) {
        if !self.tlp.on_ack(f) {
            return;
        }
        self.stats.loss_probe_recoveries += 1;
        if self.cfg.rate_control || self.v.cwr_end.is_some() {
            return;
        }
        let base = self.reduction_base();
        self.cc.on_congestion(io.now, &mut self.w, base);
        self.w.cwnd_bytes = self.w.ssthresh_bytes;
        self.note_reduction();
    }
}
