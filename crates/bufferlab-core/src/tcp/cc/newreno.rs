//! NewReno's window: slow start, congestion avoidance, AIMD decrease (RFC 5681 §3.1; the
//! recovery itself, RFC 6582, is the sender's). `beta` is the decrease factor: 0.5 in RFC 5681,
//! 0.875 in seed 003 §5 for smoother load.

use super::{reduced, reno_growth, AckInfo, CongestionControl, CwndState};
use crate::time::Instant;

/// NewReno's parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewRenoConfig {
    /// Multiplicative decrease factor: the window after a loss is `beta` times the flight size
    /// (RFC 5681 eq. 4: 0.5).
    pub beta: f64,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig { beta: 0.5 }
    }
}

#[derive(Clone, Debug)]
pub struct NewReno {
    beta: f64,
    /// Bytes acknowledged towards the next one-segment increase.
    acc_bytes: u64,
}

impl NewReno {
    pub fn new(beta: f64) -> Self {
        NewReno { beta, acc_bytes: 0 }
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo) {
        reno_growth(w, &mut self.acc_bytes, ack.acked_bytes);
    }

    fn on_congestion(&mut self, _now: Instant, w: &mut CwndState, flight_bytes: u64) {
        w.ssthresh_bytes = reduced(flight_bytes, self.beta, w.mss_bytes);
        w.cwnd_bytes = w.ssthresh_bytes;
        self.acc_bytes = 0;
    }

    fn on_rto(&mut self, _now: Instant, w: &mut CwndState, flight_bytes: u64) {
        w.ssthresh_bytes = reduced(flight_bytes, self.beta, w.mss_bytes);
        w.cwnd_bytes = w.mss_bytes;
        self.acc_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aimd_decrease_by_beta() {
        for beta in [0.5, 0.875] {
            let mut c = NewReno::new(beta);
            let mut w = CwndState {
                cwnd_bytes: 80_000,
                ssthresh_bytes: 1,
                mss_bytes: 1000,
            };
            c.on_congestion(Instant::ZERO, &mut w, 80_000);
            assert_eq!(w.cwnd_bytes, (80_000.0 * beta) as u64);
            assert_eq!(w.ssthresh_bytes, w.cwnd_bytes);
            c.on_rto(Instant::ZERO, &mut w, 2000);
            assert_eq!(w.cwnd_bytes, 1000);
            assert_eq!(w.ssthresh_bytes, 2000, "never below two segments");
        }
    }
}
