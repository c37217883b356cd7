//! CUBIC (RFC 9438): after a congestion event the window follows
//! `W_cubic(t) = C (t − K)³ + W_max`, concave up to the previous maximum and convex beyond it,
//! never below the Reno-friendly estimate `W_est` (§4.3). Windows are in segments inside, bytes
//! outside.

use super::cubic_segments::{Curve, SegmentGrowth};
use super::hystart::HyStart;
use super::{slow_start, AckInfo, CongestionControl, CwndState};
use crate::time::{Duration, Instant};

/// CUBIC's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    /// C, the scaling constant in segments/s³ (§5: 0.4).
    pub c: f64,
    /// β_cubic, the multiplicative decrease factor (§4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (§4.7: on).
    pub fast_convergence: bool,
    /// RFC 9438 §4.3's switch of the Reno-friendly estimate to α = 1 once it passes the window
    /// before the last reduction. Off as in Linux (`tcp_cubic.c`'s `tcp_friendliness` grows its
    /// estimate at 3β/(2 − β) per RTT throughout).
    pub alpha_switch: bool,
    /// HyStart ([`super::hystart`]): slow start ends on a growing delay or a long ACK train,
    /// before the first loss. On, as Linux (`tcp_cubic` `hystart = 1`) and ns-3's `TcpCubic`.
    pub hystart: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            alpha_switch: false,
            hystart: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    /// C, segments/s³ (§5: 0.4).
    c: f64,
    /// β_cubic (§4.6: 0.7).
    beta: f64,
    fast_convergence: bool,
    alpha_switch: bool,
    hystart: Option<HyStart>,
    /// W_max: the window before the last reduction, segments.
    w_max: f64,
    /// cwnd just before the last reduction (`cwnd_prior`, §4.3), segments.
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Instant>,
    /// K (s) and the plateau the epoch's curve is centred on, segments.
    k: f64,
    origin: f64,
    /// W_est (§4.3), segments.
    w_est: f64,
    /// Fractional bytes of window growth not yet applied.
    frac_bytes: f64,
    /// Whole-segment growth, as Linux's (`cwnd_unit = "segment"`).
    seg: SegmentGrowth,
    /// The least RTT seen outside a second after each reduction (Linux's `delay_min`): with
    /// whole segments the curve is aimed this far ahead, as `bictcp_update` does.
    delay_min: Option<Duration>,
}

impl Cubic {
    pub fn new(c: f64, beta: f64, fast_convergence: bool) -> Self {
        Cubic {
            c,
            beta,
            fast_convergence,
            alpha_switch: false,
            hystart: None,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            frac_bytes: 0.0,
            seg: SegmentGrowth::default(),
            delay_min: None,
        }
    }

    /// With RFC 9438 §4.3's switch of W_est to α = 1 (see [`CubicConfig::alpha_switch`]).
    pub fn with_alpha_switch(mut self, on: bool) -> Self {
        self.alpha_switch = on;
        self
    }

    /// With HyStart (see [`CubicConfig::hystart`]).
    pub fn with_hystart(mut self, on: bool) -> Self {
        self.hystart = on.then(HyStart::default);
        self
    }

    /// W_cubic(t) (eq. 1), `t` in seconds since the epoch started.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.origin
    }

    /// K (eq. 2) of the current epoch, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// The reduction shared by fast retransmit and timeout (§4.6, §4.7).
    fn reduce(&mut self, w: &mut CwndState, flight_bytes: u64) {
        let mss = w.mss_bytes as f64;
        let cwnd = w.cwnd_bytes as f64 / mss;
        self.epoch_start = None;
        self.frac_bytes = 0.0;
        self.seg.reset();
        // §4.7 fast convergence: a flow whose maximum shrinks releases bandwidth sooner.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        if w.whole_segments {
            // Linux's `last_max_cwnd`, an integer: cwnd · (1024 + 717) / 2048, rounded down.
            self.w_max = (self.w_max + 1e-9).floor();
        }
        self.cwnd_prior = cwnd;
        w.ssthresh_bytes = w.reduced(flight_bytes, self.beta);
    }

    fn avoidance(&mut self, w: &mut CwndState, ack: &AckInfo, acked_bytes: u64) {
        let mss = w.mss_bytes as f64;
        let cwnd = w.cwnd_bytes as f64 / mss;
        let epoch_new = self.epoch_start.is_none();
        let start = *self.epoch_start.get_or_insert_with(|| {
            // §4.2: a new epoch starts at the first ACK of congestion avoidance.
            if cwnd < self.w_max {
                self.k = ((self.w_max - cwnd) / self.c).cbrt();
                self.origin = self.w_max;
            } else {
                self.k = 0.0;
                self.origin = cwnd;
            }
            self.w_est = cwnd;
            ack.now
        });
        let t = (ack.now - start).secs();
        if w.whole_segments {
            let ahead = self.delay_min.unwrap_or(ack.srtt_ns).secs();
            let c = Curve {
                now: ack.now,
                cwnd: w.cwnd_bytes / w.mss_bytes,
                acked: acked_bytes.div_ceil(w.mss_bytes),
                epoch_new,
                w_max: self.w_max as u64,
                origin: self.origin as u64,
                target: self.w_cubic(t + ahead),
                beta: self.beta,
            };
            w.cwnd_bytes += self.seg.on_ack(&c) * w.mss_bytes;
            return;
        }
        let acked = acked_bytes as f64 / mss;
        // §4.3: W_est grows like Reno with α_cubic = 3(1 − β)/(1 + β), and, with the switch,
        // with α = 1 once it has passed the window the last reduction started from. Linux keeps
        // α_cubic: with ten flows through CoDel at 10 Mb/s the windows live in this region, and
        // the switch grew them faster than Linux's (581 drops in 15 s against Linux's 419,
        // 487 without it; docs/validation-linux.md, cubic-codel-10).
        let alpha = if self.alpha_switch && self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        };
        self.w_est += alpha * acked / cwnd;
        let new_cwnd = if self.w_cubic(t) < self.w_est {
            // Reno-friendly region.
            self.w_est.max(cwnd)
        } else {
            // §4.4/4.5: aim at W_cubic one RTT ahead, bounded to [cwnd, 1.5 cwnd].
            let target = self.w_cubic(t + ack.srtt_ns.secs()).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * acked
        };
        self.frac_bytes += (new_cwnd - cwnd) * mss;
        if self.frac_bytes >= 1.0 {
            let whole = self.frac_bytes.floor();
            w.cwnd_bytes += whole as u64;
            self.frac_bytes -= whole;
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo) {
        let mut acked = ack.acked_bytes;
        if let Some(h) = self.hystart.as_mut() {
            h.on_ack(ack.now, w, ack.snd_una, ack.snd_nxt, ack.srtt_ns);
        }
        if w.in_slow_start() {
            acked = slow_start(w, acked);
            if acked == 0 {
                return;
            }
        }
        self.avoidance(w, ack, acked);
    }

    fn on_congestion(&mut self, _now: Instant, w: &mut CwndState, flight_bytes: u64) {
        self.reduce(w, flight_bytes);
        w.cwnd_bytes = w.ssthresh_bytes;
    }

    fn on_rto(&mut self, _now: Instant, w: &mut CwndState, flight_bytes: u64) {
        // §4.8: ssthresh as after a fast retransmit, cwnd back to one segment. Then Linux
        // forgets the curve (`cubictcp_state(TCP_CA_Loss)` → `bictcp_reset`): after slow start
        // the next epoch starts at the window it reaches, K = 0, with no W_max to approach.
        self.reduce(w, flight_bytes);
        w.cwnd_bytes = w.mss_bytes;
        self.w_max = 0.0;
        self.delay_min = None;
        if let Some(h) = self.hystart.as_mut() {
            h.on_timeout();
        }
    }

    fn on_rtt_sample(&mut self, now: Instant, rtt_ns: Duration) {
        // Linux discards HyStart's samples for a second after a recovery's epoch begins
        // (`cubictcp_acked`): the queue the recovery drains says nothing of the path.
        if self
            .epoch_start
            .is_some_and(|e| now.saturating_since(e) < Duration::from_secs(1))
        {
            return;
        }
        self.delay_min = Some(self.delay_min.map_or(rtt_ns, |d| d.min(rtt_ns)));
        if let Some(h) = self.hystart.as_mut() {
            h.on_rtt_sample(rtt_ns);
        }
    }

    fn on_idle_restart(&mut self, _now: Instant) {
        // An idle period is not congestion avoidance: start a fresh epoch on the next ACK.
        self.epoch_start = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;

    const MSS: u64 = 1000;

    /// Drive `c` with one ACK per segment, evenly spread over each RTT of `rtt_ns`, for
    /// `dur_ns`, calling `f(t_since_start_ns, cwnd_segments)` at every ACK.
    fn drive(
        c: &mut Cubic,
        w: &mut CwndState,
        rtt_ns: Duration,
        dur_ns: Duration,
        mut f: impl FnMut(Duration, f64),
    ) {
        let mut now = Instant::ZERO + Duration::from_secs(1);
        let t0 = now;
        while now < t0 + dur_ns {
            let n = (w.cwnd_bytes / MSS).max(1);
            let gap = rtt_ns / n;
            for _ in 0..n {
                now += gap;
                let ack = AckInfo {
                    now,
                    acked_bytes: MSS,
                    srtt_ns: rtt_ns,
                    snd_nxt: 0,
                    snd_una: 0,
                };
                c.on_ack(w, &ack);
                f(now - t0, w.cwnd_bytes as f64 / MSS as f64);
            }
        }
    }

    #[test]
    fn window_follows_the_cubic_curve() {
        // W_max = 1000 segments, RTT 100 ms: the cubic term dominates the Reno-friendly one.
        let mut c = Cubic::new(0.4, 0.7, true);
        let mut w = CwndState {
            cwnd_bytes: 1000 * MSS,
            ssthresh_bytes: u64::MAX / 2,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        };
        c.on_congestion(Instant::ZERO, &mut w, 1000 * MSS);
        assert_eq!(w.cwnd_bytes, 700 * MSS, "β = 0.7");
        // K = cbrt(W_max (1 − β) / C) = cbrt(750) = 9.086 s.
        let k_expect = (1000.0f64 * 0.3 / 0.4).cbrt();
        let mut worst: f64 = 0.0;
        let mut c_view = None;
        drive(
            &mut c,
            &mut w,
            Duration::from_ms(100),
            Duration::from_secs(15),
            |t, cw| {
                let t = t.as_ns() as f64 / 1e9;
                let model = 0.4 * (t - k_expect).powi(3) + 1000.0;
                worst = worst.max((cw - model).abs());
                c_view = Some(cw);
            },
        );
        assert!((c.k() - k_expect).abs() < 1e-9);
        assert!(worst <= 1.0, "max |cwnd − W_cubic(t)| = {worst} segments");
        // Past K the curve is convex and the window leaves W_max behind.
        assert!(c_view.unwrap() > 1040.0);
    }

    #[test]
    fn reno_friendly_region_at_short_rtt() {
        // At 1 ms RTT and a small window, W_est (Reno at α = 3(1−β)/(1+β) per RTT) is ahead of
        // the cubic curve: the window grows linearly at α segments per RTT; with RFC 9438
        // §4.3's switch, at one segment per RTT once past the window before the reduction.
        let alpha = 3.0 * 0.3 / 1.7;
        let rtts = 200.0;
        let rtts_to_prior = 30.0 / alpha;
        for (switch, expect) in [
            // Linux: α_cubic throughout.
            (false, 70.0 + alpha * rtts),
            // α_cubic up to cwnd_prior = 100 segments, then α = 1.
            (true, 100.0 + (rtts - rtts_to_prior)),
        ] {
            let mut c = Cubic::new(0.4, 0.7, true).with_alpha_switch(switch);
            let mut w = CwndState {
                cwnd_bytes: 100 * MSS,
                ssthresh_bytes: u64::MAX / 2,
                mss_bytes: MSS,
                whole_segments: false,
                abc_limit_bytes: 0,
            };
            c.on_congestion(Instant::ZERO, &mut w, 100 * MSS);
            drive(
                &mut c,
                &mut w,
                Duration::from_ms(1),
                Duration::from_ms(200),
                |_, _| {},
            );
            let got = w.cwnd_bytes as f64 / MSS as f64;
            assert!(
                (got - expect).abs() / expect < 0.05,
                "switch {switch}: {got} vs {expect}"
            );
            assert!(
                c.w_cubic(0.2) < got,
                "the cubic curve is below: Reno-friendly region"
            );
        }
    }

    #[test]
    fn a_timeout_forgets_the_curve_as_linux() {
        let mut c = Cubic::new(0.4, 0.7, true);
        let mut w = CwndState {
            cwnd_bytes: 100 * MSS,
            ssthresh_bytes: u64::MAX / 2,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        };
        c.on_rto(Instant::ZERO, &mut w, 100 * MSS);
        assert_eq!((w.cwnd_bytes, w.ssthresh_bytes), (MSS, 70 * MSS));
        assert_eq!(c.w_max(), 0.0);
        // Slow start to ssthresh, then the first epoch: K = 0 from the window reached.
        w.cwnd_bytes = 70 * MSS;
        let ack = AckInfo {
            now: Instant::ZERO + Duration::from_secs(1),
            acked_bytes: MSS,
            srtt_ns: Duration::from_ms(100),
            snd_nxt: 0,
            snd_una: 0,
        };
        c.on_ack(&mut w, &ack);
        assert_eq!(c.k(), 0.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::new(0.4, 0.7, true);
        let mut w = CwndState {
            cwnd_bytes: 100 * MSS,
            ssthresh_bytes: u64::MAX / 2,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        };
        c.on_congestion(Instant::ZERO, &mut w, 100 * MSS);
        assert_eq!(c.w_max(), 100.0);
        w.cwnd_bytes = 80 * MSS;
        c.on_congestion(Instant::ZERO, &mut w, 80 * MSS);
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
        let mut c2 = Cubic::new(0.4, 0.7, false);
        w.cwnd_bytes = 100 * MSS;
        c2.on_congestion(Instant::ZERO, &mut w, 100 * MSS);
        w.cwnd_bytes = 80 * MSS;
        c2.on_congestion(Instant::ZERO, &mut w, 80 * MSS);
        assert_eq!(c2.w_max(), 80.0);
    }
}
