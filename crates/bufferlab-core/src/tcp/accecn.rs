//! Accurate ECN feedback (AccECN, RFC 9768), the part L4S senders need: the receiver counts the
//! CE-marked packets it receives and every ACK carries the count's low 3 bits in the ACE field
//! (AE, CWR, ECE); the sender keeps its own count and adds the field's increase on each ACK, so
//! it learns how many packets were marked, where RFC 3168's ECE says only that some were within
//! a round trip. The AccECN TCP option (byte counters) is not modelled: the ACE field alone is
//! what RFC 9768 requires of every implementation (§3.2.2), and what Linux falls back to without
//! the option.

use crate::packet::tcp_flags;

/// The packet counters start at 5 (RFC 9768 §3.2.2.1, `r.cep` and `s.cep`), so a middlebox
/// that zeroes the flags is noticed.
pub const CEP_INIT: u32 = 5;

/// The SYN asking for AccECN carries AE, CWR and ECE (RFC 9768 §3.1.1).
pub const SYN_FLAGS: u8 = tcp_flags::CWR | tcp_flags::ECE;

/// The ACE field wraps at 8.
const ACE_MOD: u64 = 8;

/// A receiver sends an ACK at once when this many CE marks have arrived since its last one
/// (RFC 9768 §3.2.2.5.2, increment-triggered ACKs: fewer than the field's 8 values, so a lost
/// ACK leaves the count unambiguous).
pub const INCREMENT_TRIGGER: u32 = 3;

/// The SYN-ACK's (AE, CWR, ECE) agreeing to AccECN for a SYN that arrived Not-ECT (RFC 9768
/// §3.1.1, Table 2): CWR alone, a pattern no RFC 3168 receiver sends (it answers ECE alone).
pub const SYN_ACK_NOT_ECT: (bool, u8) = (false, tcp_flags::CWR);

/// Whether a SYN-ACK agrees to AccECN: any of Table 2's answers has AE or CWR set.
#[inline]
pub fn syn_ack_agrees(ae: bool, flags: u8) -> bool {
    ae || flags & tcp_flags::CWR != 0
}

/// The sender's side: its count of CE-marked packets (`s.cep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceCounter {
    cep: u64,
}

impl Default for AceCounter {
    fn default() -> Self {
        AceCounter {
            cep: CEP_INIT as u64,
        }
    }
}

impl AceCounter {
    /// The CE-marked packets an ACK with field `ace` reports, given that it newly delivered
    /// `delivered_segs` segments. The field's increase mod 8 is the count unless the ACK
    /// covers 8 or more segments; then as many marks as are consistent with the field and
    /// no more than were delivered are presumed (RFC 9768 Appendix A.2's safe reading, as
    /// Linux's `tcp_accecn_process` takes it without the option).
    pub fn on_ack(&mut self, ace: u8, delivered_segs: u64) -> u64 {
        let delta = (ace as u64).wrapping_sub(self.cep) % ACE_MOD;
        let n = if delivered_segs >= ACE_MOD {
            delivered_segs - (delivered_segs - delta) % ACE_MOD
        } else {
            delta
        };
        self.cep += n;
        n
    }

    /// Packets counted as CE-marked so far (from [`CEP_INIT`]).
    pub fn count(&self) -> u64 {
        self.cep - CEP_INIT as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::TcpHeader;

    #[test]
    fn the_field_round_trips_and_the_sender_adds_its_increase() {
        let mut h = TcpHeader::default();
        for v in 0..8 {
            h.set_ace(v);
            assert_eq!(h.ace(), v);
        }
        let mut s = AceCounter::default();
        // The receiver's count goes 5 → 6 → 6 → 9 → 13 (wrapping past 8).
        assert_eq!(s.on_ack(6, 2), 1);
        assert_eq!(s.on_ack(6, 2), 0);
        assert_eq!(s.on_ack(9 % 8, 3), 3);
        assert_eq!(s.on_ack(13 % 8, 4), 4);
        assert_eq!(s.count(), 8);
    }

    #[test]
    fn an_ack_covering_eight_or_more_segments_presumes_the_most_marks() {
        let mut s = AceCounter::default();
        // 10 segments delivered, field up by 2: 2 or 10 marks; the safe reading is 10.
        assert_eq!(s.on_ack(7, 10), 10);
        // 12 delivered, field up by 5 (mod 8): 5 or 13; 13 > 12, so 5.
        let c = s.cep;
        assert_eq!(s.on_ack(((c + 5) % 8) as u8, 12), 5);
    }

    #[test]
    fn syn_ack_patterns() {
        assert!(syn_ack_agrees(SYN_ACK_NOT_ECT.0, SYN_ACK_NOT_ECT.1));
        assert!(!syn_ack_agrees(false, tcp_flags::ECE), "an RFC 3168 answer");
    }
}
