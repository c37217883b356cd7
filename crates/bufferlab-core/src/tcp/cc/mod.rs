//! Congestion control behind one narrow trait; the built-ins are reached through [`Cc`], so the
//! per-ACK call is a `match`, not a virtual call.
//!
//! The sender owns loss detection and recovery (RFC 6582, RFC 6675); an algorithm only decides
//! how the window grows on new ACKs and how far it falls on a congestion signal.

pub mod cubic;
pub mod hystart;
pub mod newreno;
pub mod vegas;

use crate::time::{Duration, Instant};

/// The window state an algorithm acts on, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwndState {
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    pub mss_bytes: u64,
}

impl CwndState {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd_bytes < self.ssthresh_bytes
    }
}

/// An acknowledgement of new data that arrived outside loss recovery.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Instant,
    /// Bytes newly acknowledged by this ACK.
    pub acked_bytes: u64,
    /// The connection's smoothed RTT (0 before the first sample).
    pub srtt_ns: Duration,
    /// Next byte to be sent and highest byte acknowledged after this ACK (Vegas times its
    /// once-per-RTT decisions with them).
    pub snd_nxt: u64,
    pub snd_una: u64,
}

/// The hooks of a congestion control algorithm.
pub trait CongestionControl {
    /// New data was acknowledged outside loss recovery: grow (or shrink) the window.
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo);
    /// A loss was detected by duplicate ACKs or SACK (entering fast recovery): set `ssthresh`
    /// and `cwnd` to the window recovery works with.
    fn on_congestion(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64);
    /// The retransmission timer expired: set `ssthresh`; `cwnd` becomes one segment
    /// (RFC 5681 §3.1, loss window).
    fn on_rto(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64);
    /// An RTT sample was taken (every ACK of new data).
    fn on_rtt_sample(&mut self, _now: Instant, _rtt_ns: Duration) {}
    /// Loss recovery ended with a full acknowledgement.
    fn on_recovery_exit(&mut self, _now: Instant, _w: &mut CwndState) {}
    /// The connection sends again after being idle for more than an RTO (RFC 5681 §4.1).
    fn on_idle_restart(&mut self, _now: Instant) {}
}

/// The built-in algorithms.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(newreno::NewReno),
    Cubic(cubic::Cubic),
    Vegas(vegas::Vegas),
}

macro_rules! cc_dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Vegas($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo) {
        cc_dispatch!(self, c => c.on_ack(w, ack))
    }
    fn on_congestion(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64) {
        cc_dispatch!(self, c => c.on_congestion(now, w, flight_bytes))
    }
    fn on_rto(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64) {
        cc_dispatch!(self, c => c.on_rto(now, w, flight_bytes))
    }
    #[inline]
    fn on_rtt_sample(&mut self, now: Instant, rtt_ns: Duration) {
        cc_dispatch!(self, c => c.on_rtt_sample(now, rtt_ns))
    }
    fn on_recovery_exit(&mut self, now: Instant, w: &mut CwndState) {
        cc_dispatch!(self, c => c.on_recovery_exit(now, w))
    }
    fn on_idle_restart(&mut self, now: Instant) {
        cc_dispatch!(self, c => c.on_idle_restart(now))
    }
}

/// Slow start with appropriate byte counting (RFC 3465 §2.2, L = 2): the window grows by the
/// bytes acknowledged, at most two segments per ACK, so delayed ACKs still double it each RTT.
/// Returns the acknowledged bytes left over once the window reaches `ssthresh`.
#[inline]
pub fn slow_start(w: &mut CwndState, acked: u64) -> u64 {
    let room = w.ssthresh_bytes.saturating_sub(w.cwnd_bytes);
    let inc = acked.min(2 * w.mss_bytes);
    let used = inc.min(room);
    w.cwnd_bytes += used;
    if inc > room {
        acked - room
    } else {
        0
    }
}

/// Congestion avoidance with byte counting (RFC 5681 §3.1, RFC 3465 §2.1): one segment more
/// each time a whole window has been acknowledged, whatever the ACK spacing.
#[inline]
pub fn reno_avoidance(w: &mut CwndState, acc_bytes: &mut u64, acked: u64) {
    *acc_bytes += acked;
    if *acc_bytes >= w.cwnd_bytes {
        *acc_bytes -= w.cwnd_bytes;
        w.cwnd_bytes += w.mss_bytes;
    }
}

/// `max(flight · beta, 2 · MSS)` (RFC 5681 eq. 4 with the AIMD factor in place of 1/2).
#[inline]
pub fn reduced(flight_bytes: u64, beta: f64, mss: u64) -> u64 {
    ((flight_bytes as f64 * beta) as u64).max(2 * mss)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cwnd: u64, ssthresh: u64) -> CwndState {
        CwndState {
            cwnd_bytes: cwnd,
            ssthresh_bytes: ssthresh,
            mss_bytes: 1000,
        }
    }

    #[test]
    fn slow_start_caps_at_two_segments_and_ssthresh() {
        let mut s = w(10_000, 100_000);
        assert_eq!(slow_start(&mut s, 5000), 0);
        assert_eq!(s.cwnd_bytes, 12_000);
        let mut s = w(10_000, 10_500);
        assert_eq!(slow_start(&mut s, 2000), 1500);
        assert_eq!(s.cwnd_bytes, 10_500);
    }

    #[test]
    fn avoidance_adds_one_segment_per_window() {
        let mut s = w(10_000, 0);
        let mut acc = 0;
        for _ in 0..10 {
            reno_avoidance(&mut s, &mut acc, 1000);
        }
        assert_eq!(s.cwnd_bytes, 11_000);
        for _ in 0..5 {
            reno_avoidance(&mut s, &mut acc, 2000); // delayed ACKs: same growth per window
        }
        assert_eq!(s.cwnd_bytes, 11_000);
        reno_avoidance(&mut s, &mut acc, 2000);
        assert_eq!(s.cwnd_bytes, 12_000);
    }
}
