//! Proportional Rate Reduction (RFC 6937): how many segments a SACK sender may send on each ACK
//! of a fast recovery.
//!
//! Without it (RFC 6675 alone) the window drops to ssthresh at once, the sender sends nothing
//! until the pipe has fallen below it (half an RTT of silence after a slow-start overshoot), then
//! sends on every ACK; and when losses leave the pipe far below ssthresh it sends the difference
//! in one burst. PRR spreads the reduction over the recovery's round trip: while the pipe exceeds
//! ssthresh it sends `ssthresh / RecoverFS` segments per segment delivered; below it, the slow
//! start reduction bound (PRR-SSRB, §3.1) lets the pipe climb back by at most one segment more
//! than was delivered. Linux (`tcp_cwnd_reduction`) and ns-3 (`TcpPrrRecovery`) recover this way
//! by default. Counts are in segments, as Linux's.

/// One recovery's PRR state: RFC 6937 §3's `prr_delivered`, `prr_out` and `RecoverFS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    delivered: u64,
    out: u64,
    recover_fs: u64,
}

impl Prr {
    /// Recovery starts with `flight` segments outstanding (RecoverFS = SND.NXT − SND.UNA).
    pub fn start(flight: u64) -> Prr {
        Prr {
            delivered: 0,
            out: 0,
            recover_fs: flight.max(1),
        }
    }

    /// Segments sent (new or resent) during the recovery.
    pub fn on_sent(&mut self, segs: u64) {
        self.out += segs;
    }

    /// Segments sent so far (`prr_out`).
    pub fn sent(&self) -> u64 {
        self.out
    }

    /// An ACK delivered `delivered` segments (cumulatively or by SACK); the pipe is now `pipe`
    /// and the target `ssthresh` (segments). How many segments may leave now (`sndcnt`). `safe`:
    /// the ACK advanced SND.UNA and marked no segment newly lost; only then may the pipe climb
    /// below ssthresh by a segment more than was delivered (Linux's `tcp_cwnd_reduction`,
    /// RFC 6937bis's SafeACK: an ACK that reports new losses, or only SACKs, keeps the packet
    /// count).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, safe: bool) -> u64 {
        self.delivered += delivered;
        if pipe > ssthresh {
            // Proportional part: sndcnt = CEIL(prr_delivered × ssthresh / RecoverFS) − prr_out.
            (self.delivered * ssthresh)
                .div_ceil(self.recover_fs)
                .saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) (+ MSS on a safe ACK).
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + safe as u64;
            (ssthresh - pipe).min(limit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `acks` ACKs of one delivered segment each, starting from `pipe`; what each lets out
    /// and the final pipe. `safe`: every ACK advances SND.UNA and reports no new loss.
    fn run(
        prr: &mut Prr,
        mut pipe: u64,
        ssthresh: u64,
        acks: usize,
        safe: bool,
    ) -> (Vec<u64>, u64) {
        let mut sent = Vec::new();
        for _ in 0..acks {
            pipe -= 1;
            let n = prr.on_ack(1, pipe, ssthresh, safe);
            prr.on_sent(n);
            pipe += n;
            sent.push(n);
        }
        (sent, pipe)
    }

    /// One loss from a window of 20 (RFC 6937 §3's Reno case): ssthresh 10. After the third
    /// duplicate ACK the pipe is 17 (3 SACKed, 1 lost, its retransmission out). While the pipe
    /// exceeds ssthresh PRR sends one segment for every second segment delivered (10/20); from
    /// the ACK that brings it down to ssthresh, one per segment delivered, holding it there:
    /// never a burst, never a half-RTT silence.
    #[test]
    fn one_loss_sends_on_every_other_ack_then_holds_ssthresh() {
        let mut prr = Prr::start(20);
        prr.on_sent(1); // the fast retransmit
        let (sent, pipe) = run(&mut prr, 17, 10, 17, true);
        assert_eq!(sent, [0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1]);
        assert_eq!(pipe, 10);
    }

    /// Heavy losses leave the pipe below ssthresh: the slow start reduction bound lets it climb
    /// by one segment per ACK (two sent for each one delivered), not to ssthresh in one burst.
    #[test]
    fn below_ssthresh_the_pipe_climbs_like_slow_start() {
        let mut prr = Prr::start(40);
        prr.on_sent(1);
        // 30 of 40 lost: pipe 10 plus the retransmission, ssthresh 20.
        let (sent, pipe) = run(&mut prr, 11, 20, 12, true);
        assert_eq!(sent, [2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1]);
        assert_eq!(pipe, 20);
    }

    /// ACKs that only SACK (SND.UNA stays at the hole) or that report new losses keep the packet
    /// count below ssthresh: one segment out for each delivered, the pipe stays where the losses
    /// left it until cumulative ACKs come (Linux's `tcp_cwnd_reduction`).
    #[test]
    fn below_ssthresh_only_a_safe_ack_lets_the_pipe_climb() {
        let mut prr = Prr::start(40);
        prr.on_sent(1);
        let (sent, pipe) = run(&mut prr, 11, 20, 6, false);
        assert_eq!(sent, [1; 6]);
        assert_eq!(pipe, 11);
        let (sent, pipe) = run(&mut prr, pipe, 20, 3, true);
        assert_eq!(sent, [2, 2, 2]);
        assert_eq!(pipe, 14);
    }
}
