//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995): once per RTT compare the expected rate
//! `cwnd / BaseRTT` with the actual `cwnd / RTT`; their difference times BaseRTT estimates the
//! packets this flow keeps queued. Below α add a segment, above β remove one (additive increase,
//! additive decrease), leave slow start when it exceeds γ.
//!
//! As Linux's `tcp_vegas.c`, RTT is the smallest sample of the last round (least disturbed by
//! delayed ACKs) and BaseRTT the smallest sample of the connection. As in the paper (§3.3), slow
//! start doubles the window only every other round: in the rounds between, the window holds, so
//! the queue it builds is still there when the next round's samples are taken. (Doubling every
//! round sends each window as one burst after an idle gap, the first ACK of every round sees an
//! empty queue, and slow start overshoots far past the path's capacity.)

use super::{slow_start, AckInfo, CongestionControl, CwndState};
use crate::time::{Duration, Instant};

/// Vegas' parameters: thresholds in packets this flow keeps queued at the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Below α the window grows by a segment per RTT (Brakmo & Peterson 1995: 1; ns-2's too).
    pub alpha: f64,
    /// Above β it shrinks by one (3).
    pub beta: f64,
    /// Above γ slow start ends (1).
    pub gamma: f64,
    /// The decrease factor on a loss: a loss found by Vegas' retransmission check cuts the
    /// window by a quarter (0.75).
    pub loss_beta: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            loss_beta: 0.75,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Decrease factor on loss.
    loss_beta: f64,
    base_rtt: Option<Duration>,
    /// Smallest sample of the current round, and how many samples it has.
    round_min: Option<Duration>,
    round_samples: u32,
    /// The round ends when this byte is acknowledged (`snd_nxt` when it began).
    round_end: u64,
    /// Slow start grows the window in this round (every other round only).
    ss_grow: bool,
}

impl Vegas {
    pub fn new(alpha: f64, beta: f64, gamma: f64, loss_beta: f64) -> Self {
        Vegas {
            alpha,
            beta,
            gamma,
            loss_beta,
            base_rtt: None,
            round_min: None,
            round_samples: 0,
            round_end: 0,
            ss_grow: true,
        }
    }

    /// Packets this flow keeps queued, by Vegas' estimate: `cwnd (RTT − BaseRTT) / RTT`.
    pub fn diff(cwnd_segs: f64, rtt: Duration, base: Duration) -> f64 {
        cwnd_segs * rtt.saturating_sub(base).as_ns() as f64 / rtt.as_ns().max(1) as f64
    }

    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt
    }

    fn reset_round(&mut self) {
        self.round_min = None;
        self.round_samples = 0;
    }
}

impl CongestionControl for Vegas {
    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        self.round_samples += 1;
    }

    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo) {
        let mss = w.mss_bytes;
        if ack.snd_una >= self.round_end {
            self.round_end = ack.snd_nxt;
            if let (Some(rtt), Some(base)) = (self.round_min, self.base_rtt) {
                let cwnd = w.cwnd_bytes as f64 / mss as f64;
                let diff = Self::diff(cwnd, rtt, base);
                if w.in_slow_start() {
                    if diff > self.gamma {
                        // Leave slow start with the window that matches the expected rate.
                        let target = (cwnd * base.as_ns() as f64 / rtt.as_ns() as f64) as u64 + 1;
                        w.cwnd_bytes = w.cwnd_bytes.min(target * mss).max(2 * mss);
                        w.ssthresh_bytes = w.cwnd_bytes.saturating_sub(mss);
                    }
                } else {
                    if diff > self.beta {
                        w.cwnd_bytes = w.cwnd_bytes.saturating_sub(mss).max(2 * mss);
                    } else if diff < self.alpha {
                        w.cwnd_bytes += mss;
                    }
                    // Stay in congestion avoidance at the new window.
                    w.ssthresh_bytes = w.ssthresh_bytes.min(w.cwnd_bytes.saturating_sub(mss));
                }
                self.reset_round();
                if !w.in_slow_start() {
                    return;
                }
            } else {
                self.reset_round();
            }
            self.ss_grow = !self.ss_grow;
        }
        if w.in_slow_start() && self.ss_grow {
            slow_start(w, ack.acked_bytes);
        }
    }

    fn on_congestion(&mut self, _now: Instant, w: &mut CwndState, flight_bytes: u64) {
        w.ssthresh_bytes = w.reduced(flight_bytes, self.loss_beta);
        w.cwnd_bytes = w.ssthresh_bytes;
        self.reset_round();
    }

    fn on_rto(&mut self, _now: Instant, w: &mut CwndState, flight_bytes: u64) {
        w.ssthresh_bytes = w.reduced(flight_bytes, self.loss_beta);
        w.cwnd_bytes = w.mss_bytes;
        self.reset_round();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_ms(x)
    }

    const MSS: u64 = 1000;

    /// One round: samples at `rtt`, then the ACK that ends the round.
    fn round(v: &mut Vegas, w: &mut CwndState, rtt: Duration, k: u64) {
        v.on_rtt_sample(Instant::ZERO, rtt);
        let ack = AckInfo {
            now: Instant::from_ns(k),
            acked_bytes: MSS,
            srtt_ns: rtt,
            snd_nxt: (k + 1) * 1_000_000,
            snd_una: k * 1_000_000,
        };
        v.on_ack(w, &ack);
    }

    #[test]
    fn holds_between_alpha_and_beta() {
        let mut v = Vegas::new(1.0, 3.0, 1.0, 0.75);
        let mut w = CwndState {
            cwnd_bytes: 20 * MSS,
            ssthresh_bytes: 10 * MSS,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        };
        v.on_rtt_sample(Instant::ZERO, ms(100)); // BaseRTT
                                                 // A bottleneck of 10 packets per 100 ms: RTT = cwnd / 10 · 100 ms once cwnd > 10.
        for k in 1..=200 {
            let cwnd = w.cwnd_bytes / MSS;
            let rtt = ms(cwnd.max(10) * 10);
            round(&mut v, &mut w, rtt, k);
        }
        let cwnd = (w.cwnd_bytes / MSS) as f64;
        let queued = cwnd - 10.0;
        assert!(
            (1.0..=3.0 + 1.0).contains(&queued),
            "cwnd {cwnd}: queue {queued}"
        );
        let diff = Vegas::diff(cwnd, ms(cwnd as u64 * 10), ms(100));
        assert!((1.0..=3.0).contains(&diff), "diff {diff}");
    }

    #[test]
    fn leaves_slow_start_above_gamma() {
        let mut v = Vegas::new(1.0, 3.0, 1.0, 0.75);
        let mut w = CwndState {
            cwnd_bytes: 40 * MSS,
            ssthresh_bytes: u64::MAX / 2,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        };
        // A round at the base RTT: nothing queued, slow start goes on (this round holds the
        // window, the next one grows it).
        round(&mut v, &mut w, ms(100), 1);
        assert_eq!(w.cwnd_bytes, 40 * MSS);
        assert!(w.in_slow_start());
        // RTT 200 ms at base 100 ms with 40 segments out: 20 queued > γ; back to the window
        // of the expected rate, 40 · 100/200 + 1.
        round(&mut v, &mut w, ms(200), 2);
        assert_eq!(w.cwnd_bytes, 21 * MSS);
        assert!(!w.in_slow_start());
    }
}
