//! The sender's side of ECN feedback: what the handshake agreed (RFC 3168 §6.1.1, RFC 9768
//! §3.1.1), what each ACK says about marks (ECE, or the ACE field's count), and the per-ACK
//! delivered/marked counts the algorithm reads (Linux's `tp->delivered`, `tp->delivered_ce`
//! and the `in_ack_event` hook).

use super::*;
use crate::tcp::accecn;
use crate::tcp::cc::AckEvent;

/// What one ACK says about marks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks {
    /// A congestion signal: ECE (RFC 3168), or a rise of the ACE count (AccECN).
    pub(super) signal: bool,
    /// With AccECN, how many packets the ACK reports marked; with RFC 3168 feedback, `None`:
    /// every segment it delivered counts as marked if it carries ECE.
    pub(super) count: Option<u64>,
}

impl SendConn {
    /// The SYN-ACK's answer: RFC 3168 ECN is ECE alone; AccECN is one of RFC 9768 Table 2's
    /// patterns (AE or CWR set), taken only if this end asked for it. An L4S (ECT(1)) sender
    /// does not fall back to RFC 3168 feedback: without AccECN it sends Not-ECT, as Prague's
    /// `TCP_CONG_NO_FALLBACK_RFC3168` says.
    pub(super) fn negotiated_ecn(&mut self, h: &TcpHeader) {
        let classic = h.flags & tcp_flags::ECE != 0 && h.flags & tcp_flags::CWR == 0 && !h.ae;
        self.v.accecn_ok = self.cfg.ecn && self.cfg.accecn && accecn::syn_ack_agrees(h.ae, h.flags);
        let l4s = self.cfg.ect == Ecn::Ect1;
        self.v.ecn_ok = self.cfg.ecn && (self.v.accecn_ok || (classic && !l4s));
    }

    /// Read an ACK's ECN feedback (after its SACK blocks, `sacked_before` the SACKed count
    /// before them).
    pub(super) fn read_ecn_feedback(
        &mut self,
        h: &TcpHeader,
        ack: u64,
        sacked_before: u32,
        duplicate: bool,
    ) -> Marks {
        if !self.v.ecn_ok {
            return Marks::default();
        }
        if self.v.accecn_ok {
            // Segments the ACK may have delivered, for the field's wrap (an upper bound: a
            // segment SACKed before and now cumulatively acknowledged counts twice).
            let newly = ack.saturating_sub(self.v.una).div_ceil(self.cfg.mss)
                + self.sb.sacked().saturating_sub(sacked_before) as u64
                + (duplicate && !self.cfg.sack) as u64;
            let n = self.v.ace.on_ack(h.ace(), newly);
            Marks {
                signal: n > 0,
                count: Some(n),
            }
        } else {
            Marks {
                signal: h.flags & tcp_flags::ECE != 0,
                count: None,
            }
        }
    }

    /// After the ACK is processed: the segments it delivered (cumulatively acknowledged or
    /// SACKed; without SACK a duplicate ACK counts one) and the marked ones go to the algorithm.
    pub(super) fn ack_event(
        &mut self,
        now: Instant,
        before: super::Before,
        una_before: u64,
        duplicate: bool,
        marks: Marks,
    ) {
        let delivered = if self.cfg.sack {
            before.delivered(&self.sb)
        } else {
            let acked = self.v.una - una_before;
            if acked > 0 {
                acked.div_ceil(self.cfg.mss)
            } else {
                duplicate as u64
            }
        };
        let ce_segs = match marks.count {
            Some(n) => n,
            None if marks.signal => delivered,
            None => 0,
        };
        self.cc.on_ack_event(&AckEvent {
            now,
            delivered_segs: delivered,
            ce_segs,
            snd_una: self.v.una,
            snd_nxt: self.v.max,
        });
    }

    /// Marked packets the AccECN feedback has reported so far.
    pub fn accecn_marks(&self) -> u64 {
        self.v.ace.count()
    }

    /// Whether AccECN was agreed.
    pub fn accecn_ok(&self) -> bool {
        self.v.accecn_ok
    }
}
