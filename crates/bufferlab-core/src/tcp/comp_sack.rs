//! Linux's SACK compression (`__tcp_ack_snd_check` since 4.19, `net.ipv4.tcp_comp_sack_*`): a
//! receiver holding out-of-order data sends the first three duplicate ACKs for a hole at once,
//! as RFC 5681 §4.2 asks, so the sender's fast retransmit is not delayed; the SACKs for later
//! out-of-order segments of the same hole wait up to min(`tcp_comp_sack_delay_ns`, RTT / 20)
//! and go as one ACK (at most `tcp_comp_sack_nr` held). Any ACK sent in between carries them.
//! The RTT is the receiver's own estimate ([`super::rcv_rtt::RcvRtt`], Linux's `rcv_rtt_est`).
//!
//! The state of one connection's receiver; time and that estimate are passed in.

use crate::time::{Duration, Instant};

/// `net.ipv4.tcp_comp_sack_nr`: the most SACKs one compressed ACK stands for.
pub const COMP_SACK_NR: u8 = 44;
/// `net.ipv4.tcp_comp_sack_delay_ns`: the longest a SACK is held.
pub const DEFAULT_DELAY: Duration = Duration::from_ms(1);
/// `TCP_FASTRETRANS_THRESH`: duplicate ACKs of a hole sent at once before any is held.
const DUPS_AT_ONCE: u8 = 3;
/// `TCP_SACK_BLOCKS_EXPECTED`: a segment that changes a SACK block ranked at or below this
/// (the third block or later) first sends what is held, so no block falls out of the option
/// unreported (`tcp_sack_compress_send_ack` from `tcp_sack_new_ofo_skb`).
pub const BLOCKS_EXPECTED: usize = 2;

/// What to do with the ACK an out-of-order segment asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ofo {
    /// Send it now.
    Now,
    /// Hold it; `Some(at)`: a new hold, due at `at` (arm a timer).
    Hold(Option<Instant>),
}

#[derive(Clone, Debug)]
pub struct SackCompress {
    /// `compressed_ack_rcv_nxt`: the cumulative ACK point the count below is for.
    dup_for: u64,
    /// `dup_ack_counter`: duplicate ACKs sent at once for it.
    dups: u8,
    /// `compressed_ack`: SACKs held since the last ACK went out.
    held: u8,
    /// When the held SACKs go (`compressed_ack_timer`).
    due: Option<Instant>,
}

impl Default for SackCompress {
    fn default() -> Self {
        SackCompress {
            dup_for: u64::MAX,
            dups: 0,
            held: 0,
            due: None,
        }
    }
}

impl SackCompress {
    /// An out-of-order segment asks for an ACK while the cumulative ACK point is `rcv_nxt`
    /// (after `__tcp_ack_snd_check`'s reasons to ACK at once, which the caller has checked).
    /// `cap`: `tcp_comp_sack_delay_ns`; `rtt8`: eight times the receiver's RTT, 0 before a
    /// sample ([`super::rcv_rtt::RcvRtt::rtt8`]).
    pub fn on_ofo(&mut self, now: Instant, rcv_nxt: u64, cap: Duration, rtt8: u64) -> Ofo {
        if self.held >= COMP_SACK_NR {
            return Ofo::Now;
        }
        if self.dup_for != rcv_nxt {
            self.dup_for = rcv_nxt;
            self.dups = 0;
        }
        if self.dups < DUPS_AT_ONCE {
            self.dups += 1;
            return Ofo::Now;
        }
        self.held += 1;
        if self.due.is_some() {
            return Ofo::Hold(None);
        }
        // 5% of the RTT (`rtt_us * (NSEC_PER_USEC >> 3) / 20` of the eight-fold estimate), at
        // most the cap; no sample yet gives 0, the next tick.
        let at = now + Duration::from_ns((rtt8 / 160).min(cap.as_ns()));
        self.due = Some(at);
        Ofo::Hold(Some(at))
    }

    /// SACKs are held.
    pub fn holding(&self) -> bool {
        self.held > 0
    }

    /// When the held SACKs go.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// An ACK went out: it carried whatever was held (`tcp_event_ack_sent` clears the count and
    /// cancels the timer).
    pub fn sent(&mut self) {
        self.held = 0;
        self.due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> Instant {
        Instant::from_ns(us * 1_000)
    }

    /// Eight times an RTT of `ms` milliseconds.
    fn rtt8(ms: u64) -> u64 {
        8 * Duration::from_ms(ms).as_ns()
    }

    /// RFC 5681 §4.2's three duplicate ACKs at once, then held up to min(1 ms, RTT/20), one
    /// timer for all that are held; a new hole (the ACK point moved) starts the count again.
    #[test]
    fn three_at_once_then_held_for_the_smaller_of_the_cap_and_a_twentieth_of_the_rtt() {
        let mut c = SackCompress::default();
        let r = rtt8(44);
        let now = at(100_000);
        for _ in 0..3 {
            assert_eq!(c.on_ofo(now, 5000, DEFAULT_DELAY, r), Ofo::Now);
        }
        assert_eq!(
            c.on_ofo(now, 5000, DEFAULT_DELAY, r),
            Ofo::Hold(Some(at(101_000)))
        );
        assert_eq!(c.on_ofo(now, 5000, DEFAULT_DELAY, r), Ofo::Hold(None));
        assert!(c.holding());
        c.sent();
        assert!(!c.holding() && c.due().is_none());
        // Still the same hole: held again.
        assert!(matches!(
            c.on_ofo(now, 5000, DEFAULT_DELAY, r),
            Ofo::Hold(Some(_))
        ));
        c.sent();
        // A new hole: three at once again.
        for _ in 0..3 {
            assert_eq!(c.on_ofo(now, 9000, DEFAULT_DELAY, r), Ofo::Now);
        }
        // A 10 ms RTT holds for 0.5 ms.
        let mut c = SackCompress::default();
        let r = rtt8(10);
        for _ in 0..3 {
            c.on_ofo(now, 0, DEFAULT_DELAY, r);
        }
        assert_eq!(
            c.on_ofo(now, 0, DEFAULT_DELAY, r),
            Ofo::Hold(Some(at(100_500)))
        );
    }

    /// `tcp_comp_sack_nr`: the 45th SACK held goes at once.
    #[test]
    fn at_most_forty_four_are_held() {
        let mut c = SackCompress::default();
        let r = rtt8(44);
        let now = at(100_000);
        for _ in 0..3 {
            c.on_ofo(now, 0, DEFAULT_DELAY, r);
        }
        for _ in 0..44 {
            assert!(matches!(c.on_ofo(now, 0, DEFAULT_DELAY, r), Ofo::Hold(_)));
        }
        assert_eq!(c.on_ofo(now, 0, DEFAULT_DELAY, r), Ofo::Now);
    }
}
