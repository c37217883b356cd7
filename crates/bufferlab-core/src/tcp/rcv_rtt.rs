//! The receiver's own RTT estimate (Linux's `rcv_rtt_est`), from the timestamps its ACKs get
//! echoed (`tcp_rcv_rtt_measure_ts`, millisecond timestamps). Two receiver mechanisms read it:
//! SACK compression's hold ([`super::comp_sack`]) and dynamic right-sizing's once-per-RTT
//! measure ([`super::rcv_window`]).
//!
//! The state of one connection's receiver; time is passed in.

use crate::time::{Duration, Instant};

/// `TCP_MSS_DEFAULT`: the receiver's guess of the sender's segment size before it sees one.
const RCV_MSS_INIT: u32 = 536;

#[derive(Clone, Debug)]
pub struct RcvRtt {
    /// `rcv_rtt_est.rtt_us`: eight times the smoothed receiver RTT (ns here), 0 before a sample.
    rtt8: u64,
    /// `rcv_rtt_last_tsecr`: the echo last sampled.
    last_ecr: Option<Instant>,
    /// `icsk_ack.rcv_mss`: the largest segment seen; shorter ones give no RTT sample.
    rcv_mss: u32,
}

impl Default for RcvRtt {
    fn default() -> Self {
        RcvRtt {
            rtt8: 0,
            last_ecr: None,
            rcv_mss: RCV_MSS_INIT,
        }
    }
}

impl RcvRtt {
    /// A data segment of `len` bytes echoing `ts_ecr` arrived at `now` (Linux's
    /// `tcp_rcv_rtt_measure_ts`): one sample per new echo, from full-sized segments, in whole
    /// milliseconds (the timestamp clock's tick; 0 counts as 1), smoothed with gain 1/8 upward
    /// and taken at once downward (`tcp_rcv_rtt_update`).
    pub fn measure(&mut self, now: Instant, ts_ecr: Instant, len: u32) {
        self.rcv_mss = self.rcv_mss.max(len);
        if self.last_ecr == Some(ts_ecr) {
            return;
        }
        self.last_ecr = Some(ts_ecr);
        if len < self.rcv_mss || ts_ecr > now {
            return;
        }
        const MS: u64 = 1_000_000;
        let ticks = (now.as_ns() / MS)
            .saturating_sub(ts_ecr.as_ns() / MS)
            .max(1);
        let sample = ticks * MS;
        // A sample below the estimate replaces it (`tcp_rcv_rtt_update`: the receiver tracks
        // the minimum downward at once, smooths upward).
        self.rtt8 = if self.rtt8 == 0 || sample << 3 < self.rtt8 {
            sample << 3
        } else {
            self.rtt8 - (self.rtt8 >> 3) + sample
        };
    }

    /// Eight times the smoothed RTT in ns, 0 before a sample (Linux keeps it so scaled; SACK
    /// compression divides the scaled value).
    pub fn rtt8(&self) -> u64 {
        self.rtt8
    }

    /// The receiver's smoothed RTT, if sampled.
    pub fn rtt(&self) -> Option<Duration> {
        (self.rtt8 > 0).then(|| Duration::from_ns(self.rtt8 >> 3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> Instant {
        Instant::from_ns(us * 1_000)
    }

    /// `tcp_rcv_rtt_measure_ts`: whole milliseconds, one sample per echo, full segments only,
    /// gain 1/8 upward, the minimum downward.
    #[test]
    fn the_receiver_rtt_is_sampled_once_per_echo_from_full_segments() {
        let mut c = RcvRtt::default();
        c.measure(at(40_000), at(0), 1448);
        assert_eq!(c.rtt(), Some(Duration::from_ms(40)));
        assert_eq!(c.rtt8(), 8 * Duration::from_ms(40).as_ns());
        // The same echo again: no sample.
        c.measure(at(200_000), at(0), 1448);
        assert_eq!(c.rtt(), Some(Duration::from_ms(40)));
        // A short segment: its echo is taken, no sample.
        c.measure(at(200_000), at(100_000), 100);
        c.measure(at(200_000), at(100_000), 1448);
        assert_eq!(c.rtt(), Some(Duration::from_ms(40)));
        // 80.9 ms is 80 ticks (the clocks' milliseconds): 40 + (80 − 40)/8 = 45 ms.
        c.measure(at(180_900), at(100_900), 1448);
        assert_eq!(c.rtt(), Some(Duration::from_ms(45)));
        // A sample below the estimate is taken whole: 30 ms.
        c.measure(at(230_900), at(200_900), 1448);
        assert_eq!(c.rtt(), Some(Duration::from_ms(30)));
        // Within one tick counts as one.
        let mut c = RcvRtt::default();
        c.measure(at(500), at(100), 1448);
        assert_eq!(c.rtt(), Some(Duration::from_ms(1)));
    }
}
