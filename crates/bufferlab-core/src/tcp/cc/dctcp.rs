//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010) as Linux's `tcp_dctcp`: Reno's growth, and
//! on ECN marks a reduction in proportion to the marked fraction. α, the sender's estimate of
//! that fraction, is an EWMA over windows of data (RFC 8257 §3.3):
//! `α ← (1 − g)·α + g·F`, with F the fraction of the window's delivered segments that were
//! marked; a window with marks reduces once, `cwnd ← cwnd·(1 − α/2)` (§3.3, Linux's
//! `dctcp_ssthresh`). A loss halves the window as Reno does (§3.4; Linux's
//! `dctcp_react_to_loss`). The receiver's echo of every mark is [`crate::tcp::receiver`]'s.

use super::{reno_growth, AckEvent, AckInfo, CongestionControl, CwndState};
use crate::time::Instant;

/// RFC 8257 §4.2 and Linux's `dctcp_shift_g = 4`: g = 1/16.
pub const G: f64 = 1.0 / 16.0;

/// The fraction of delivered segments that were marked, as an EWMA taken once per window of
/// data (RFC 8257 §3.3; Linux's `dctcp_update_alpha`): a window ends when the cumulative ACK
/// passes what was sent when it began. Shared by DCTCP and Prague.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkedFraction {
    /// α in [0, 1]. Linux keeps it as an integer of 1024ths; here it is a float, so a small α
    /// decays smoothly (Linux's integer update zeroes an α below 16/1024 in one step).
    pub alpha: f64,
    g: f64,
    /// The window under way ends when SND.UNA reaches this byte (Linux's `next_seq`).
    next_seq: u64,
    /// Segments delivered and marked since the window began.
    delivered: u64,
    marked: u64,
}

impl MarkedFraction {
    pub fn new(alpha: f64, g: f64) -> Self {
        MarkedFraction {
            alpha,
            g,
            next_seq: 0,
            delivered: 0,
            marked: 0,
        }
    }

    /// Count one ACK's delivered and marked segments.
    #[inline]
    pub fn count(&mut self, ev: &AckEvent) {
        self.delivered += ev.delivered_segs;
        self.marked += ev.ce_segs;
    }

    /// Whether the window under way has been acknowledged (Linux's `!before(snd_una, next_seq)`).
    #[inline]
    pub fn window_done(&self, ev: &AckEvent) -> bool {
        ev.snd_una >= self.next_seq
    }

    /// Fold the finished window's fraction into α and start the next window at SND.NXT.
    pub fn update(&mut self, ev: &AckEvent) {
        let f = if self.delivered == 0 {
            0.0
        } else {
            (self.marked as f64 / self.delivered as f64).min(1.0)
        };
        self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).min(1.0);
        self.restart(ev.snd_nxt);
    }

    /// Start a window at `snd_nxt` without updating α (Linux's `dctcp_reset`).
    pub fn restart(&mut self, snd_nxt: u64) {
        self.next_seq = snd_nxt;
        self.delivered = 0;
        self.marked = 0;
    }
}

/// DCTCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpConfig {
    /// α at the start of a connection: 1, Linux's `dctcp_alpha_on_init = 1024` (of 1024), so
    /// that the first marks halve the window as Reno's would (RFC 8257 §4.2 notes the choice).
    pub alpha_init: f64,
    /// The EWMA gain g (RFC 8257 §4.2: 1/16).
    pub g: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            alpha_init: 1.0,
            g: G,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    est: MarkedFraction,
    /// Bytes acknowledged towards the next one-segment increase.
    acc_bytes: u64,
}

impl Dctcp {
    pub fn new(c: DctcpConfig) -> Self {
        Dctcp {
            est: MarkedFraction::new(c.alpha_init, c.g),
            acc_bytes: 0,
        }
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.est.alpha
    }
}

/// `max(cwnd − cwnd·α/2, 2 MSS)` (RFC 8257 §3.3; Linux's `dctcp_ssthresh`).
pub fn scaled_reduction(cwnd_bytes: u64, alpha: f64, mss: u64) -> u64 {
    let cut = (cwnd_bytes as f64 * alpha / 2.0) as u64;
    cwnd_bytes.saturating_sub(cut).max(2 * mss)
}

impl CongestionControl for Dctcp {
    /// Reno's growth (Linux's `tcp_reno_cong_avoid`).
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo) {
        reno_growth(w, &mut self.acc_bytes, ack.acked_bytes);
    }

    /// A loss: Reno's halving of the window (RFC 8257 §3.4, Linux's `dctcp_react_to_loss` on
    /// entering recovery).
    fn on_congestion(&mut self, _now: Instant, w: &mut CwndState, base_bytes: u64) {
        w.ssthresh_bytes = (base_bytes / 2).max(2 * w.mss_bytes);
        w.cwnd_bytes = w.ssthresh_bytes;
        self.acc_bytes = 0;
    }

    /// A window with marks: `cwnd·(1 − α/2)`.
    fn on_ecn(&mut self, _now: Instant, w: &mut CwndState, base_bytes: u64) {
        w.ssthresh_bytes = scaled_reduction(base_bytes, self.est.alpha, w.mss_bytes);
        w.cwnd_bytes = w.ssthresh_bytes;
        self.acc_bytes = 0;
    }

    /// A timeout: Reno's halving (Linux's `CA_EVENT_LOSS` → `dctcp_react_to_loss`).
    fn on_rto(&mut self, _now: Instant, w: &mut CwndState, base_bytes: u64) {
        w.ssthresh_bytes = (base_bytes / 2).max(2 * w.mss_bytes);
        w.cwnd_bytes = w.mss_bytes;
        self.acc_bytes = 0;
    }

    /// Every ACK (Linux's `in_ack_event`, `dctcp_update_alpha`).
    #[inline]
    fn on_ack_event(&mut self, ev: &AckEvent) {
        self.est.count(ev);
        if self.est.window_done(ev) {
            self.est.update(ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(una: u64, nxt: u64, delivered: u64, ce: u64) -> AckEvent {
        AckEvent {
            now: Instant::ZERO,
            delivered_segs: delivered,
            ce_segs: ce,
            snd_una: una,
            snd_nxt: nxt,
        }
    }

    /// RFC 8257 §3.3: with a constant fraction F of marked segments, α → F geometrically, by
    /// (1 − g) per window: after n windows |α − F| = (1 − g)^n·|α₀ − F|.
    #[test]
    fn alpha_converges_to_the_marked_fraction_at_rate_one_minus_g() {
        for f in [0.0, 0.05, 0.3, 1.0] {
            let mut d = Dctcp::new(DctcpConfig::default());
            let w = 40u64;
            d.est.restart(w); // the first window is the first 40 segments
            let marked = (f * w as f64).round() as u64;
            for n in 1..=60u64 {
                // One window of 40 segments acknowledged in 20 ACKs of two.
                for k in 1..=20u64 {
                    let una = (n - 1) * w + 2 * k;
                    let ce = if 2 * k <= marked { 2 } else { 0 };
                    // A window in flight: SND.NXT is a window ahead of SND.UNA.
                    d.on_ack_event(&ev(una, una + w, 2, ce));
                }
            }
            let expect = f + (1.0 - f) * (1.0 - G).powi(60);
            assert!(
                (d.alpha() - expect).abs() < 1e-9,
                "F {f}: α {} vs {expect}",
                d.alpha()
            );
        }
    }

    #[test]
    fn marks_reduce_by_half_alpha_and_losses_halve() {
        let mut d = Dctcp::new(DctcpConfig::default());
        let mut w = CwndState {
            cwnd_bytes: 100_000,
            ssthresh_bytes: u64::MAX,
            mss_bytes: 1000,
            whole_segments: false,
            abc_limit_bytes: 0,
        };
        // α starts at 1 (Linux's dctcp_alpha_on_init): the first marks halve.
        d.on_ecn(Instant::ZERO, &mut w, 100_000);
        assert_eq!(w.cwnd_bytes, 50_000);
        d.est.alpha = 0.2;
        d.on_ecn(Instant::ZERO, &mut w, 100_000);
        assert_eq!(w.cwnd_bytes, 90_000);
        d.on_congestion(Instant::ZERO, &mut w, 100_000);
        assert_eq!(w.cwnd_bytes, 50_000, "a loss halves whatever α is");
        d.on_rto(Instant::ZERO, &mut w, 3000);
        assert_eq!((w.cwnd_bytes, w.ssthresh_bytes), (1000, 2000));
        assert_eq!(
            scaled_reduction(3000, 1.0, 1000),
            2000,
            "never below two segments"
        );
    }
}
