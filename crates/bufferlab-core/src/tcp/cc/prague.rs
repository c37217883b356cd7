//! TCP Prague, the L4S team's scalable sender (RFC 9331 §4.3's requirements; the reference
//! Linux module `net/ipv4/tcp_prague.c` of the L4S team's tree, v0.6), which this follows:
//!
//! - DCTCP's response: α, the EWMA (g = 1/16) of the fraction of delivered segments that were
//!   CE-marked, counted from AccECN feedback ([`super::dctcp::MarkedFraction`]); a window with
//!   marks reduces the window by α/2 (`prague_enter_cwr`), α starting at 1 and updated only
//!   once the path has shown a mark (`saw_ce`).
//! - The window is kept as a fraction of segments (`frac_cwnd`): congestion avoidance adds
//!   `ai/cwnd` per unmarked segment delivered ("unsaturated" growth: marked segments add nothing),
//!   and the sent window steps one segment per ACK towards it.
//! - A loss halves it (`prague_enter_loss`, on recovery and on a timeout): Reno's response.
//! - RTT independence (`RTT_CONTROL_RATE`, the module's default): after `rtt_transition` rounds
//!   of congestion avoidance, a flow whose RTT is below `rtt_target` (25 ms) grows by
//!   (RTT/target)² of a segment per round, updates α and reduces at most once per target RTT,
//!   so it takes the rate share a flow of the target RTT would.
//! - Paced at 100% of cwnd/SRTT, 200% in slow start (`prague_update_pacing_rate`).
//!
//! The module's classic-ECN-queue detection (`prague_ecn_fallback`) is off by default there and
//! is not modelled. As a rate-controlling algorithm (Linux's `cong_control` op) it sets the
//! window itself; the sender runs no PRR.

use super::dctcp::{MarkedFraction, G};
use super::{slow_start, AckEvent, CaState, CongestionControl, ConnState, Control, CwndState};
use crate::tcp::rate::RateSample;
use crate::time::{Duration, Instant};

/// `MIN_CWND`: the window never steps below two segments.
const MIN_CWND_SEGS: u64 = 2;
/// `MAX_SCALED_RTT`: above 100 ms the growth is not scaled.
const MAX_SCALED_RTT: Duration = Duration::from_ms(100);

/// Prague's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PragueConfig {
    /// The RTT a short-RTT flow behaves as if it had, once RTT-independent; zero turns RTT
    /// independence off (`prague_rtt_target`, default 25 ms).
    pub rtt_target: Duration,
    /// Rounds of congestion avoidance before RTT independence starts
    /// (`prague_rtt_transition`, default 500).
    pub rtt_transition: u32,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            rtt_target: Duration::from_ms(25),
            rtt_transition: 500,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Prague {
    cfg: PragueConfig,
    est: MarkedFraction,
    /// A CE mark has been seen: there is an L4S AQM on the path (`saw_ce`).
    saw_ce: bool,
    /// The window in segments, with its fraction (`frac_cwnd`).
    frac_cwnd: f64,
    /// The window before the last loss, for an undo (`loss_frac_cwnd`).
    loss_frac_cwnd: f64,
    /// In a loss reduction: no growth until the connection is open again (`in_loss`).
    in_loss: bool,
    /// Rounds of congestion avoidance so far (`round`).
    round: u32,
    /// Segments of growth per round at the window's size (`ai_ack_increase`, 1 unscaled).
    ai_per_round: f64,
    /// When the window was last reduced for marks, and α last updated (`cwr_stamp`,
    /// `alpha_stamp`).
    cwr_at: Option<Instant>,
    alpha_at: Instant,
    /// The ACK being processed, from [`CongestionControl::on_ack_event`].
    ack: Option<AckEvent>,
    srtt: Option<Duration>,
}

impl Prague {
    pub fn new(cfg: PragueConfig) -> Self {
        Prague {
            cfg,
            est: MarkedFraction::new(1.0, G),
            saw_ce: false,
            frac_cwnd: 0.0,
            loss_frac_cwnd: 0.0,
            in_loss: false,
            round: 0,
            ai_per_round: 1.0,
            cwr_at: None,
            alpha_at: Instant::ZERO,
            ack: None,
            srtt: None,
        }
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.est.alpha
    }

    /// The window in segments, with its fraction.
    pub fn frac_cwnd(&self) -> f64 {
        self.frac_cwnd
    }

    /// Whether the flow has become RTT-independent (`prague_is_rtt_indep`).
    pub fn rtt_independent(&self, w: &CwndState) -> bool {
        !self.cfg.rtt_target.is_zero()
            && !w.in_slow_start()
            && self.round >= self.cfg.rtt_transition
    }

    /// `prague_rate_scaled_ai_ack_increase`: a flow below the target RTT grows by
    /// (RTT/target)² segments per round, i.e. at the rate a flow of the target RTT grows.
    fn update_ai(&mut self) {
        let t = self.cfg.rtt_target;
        self.ai_per_round = match self.srtt {
            Some(r)
                if !t.is_zero()
                    && self.round >= self.cfg.rtt_transition
                    && !r.is_zero()
                    && r <= MAX_SCALED_RTT
                    && r < t =>
            {
                let x = r.as_ns() as f64 / t.as_ns() as f64;
                x * x
            }
            _ => 1.0,
        };
    }

    fn new_round(&mut self, w: &CwndState, snd_nxt: u64) {
        self.est.restart(snd_nxt);
        if !w.in_slow_start() {
            self.round = self.round.saturating_add(1);
        }
        self.update_ai();
    }

    /// `prague_enter_loss`: halve the fractional window.
    fn enter_loss(&mut self) {
        self.loss_frac_cwnd = self.frac_cwnd;
        self.frac_cwnd -= self.frac_cwnd / 2.0;
        self.in_loss = true;
    }

    /// `prague_update_cwnd`: growth from the ACK's unmarked segments, then one step of the sent
    /// window towards the fractional one.
    fn update_cwnd(&mut self, w: &mut CwndState, ev: &AckEvent, cwnd_limited: bool) {
        let mss = w.mss_bytes;
        let mut acked = ev.delivered_segs.saturating_sub(ev.ce_segs);
        if ev.ce_segs > 0 {
            self.saw_ce = true;
        }
        if acked > 0 && !self.in_loss && cwnd_limited {
            if w.in_slow_start() {
                // Slow start moves the window itself; the fraction follows it (the module leaves
                // `frac_cwnd` at the initial window until slow start ends, which would step the
                // window back down once it does).
                acked = slow_start(w, acked * mss) / mss;
                self.frac_cwnd = self.frac_cwnd.max((w.cwnd_bytes / mss) as f64);
                if acked == 0 {
                    return;
                }
            }
            let cwnd = self.frac_cwnd.ceil().max(1.0);
            self.frac_cwnd += acked as f64 * self.ai_per_round / cwnd;
        }
        let target = (self.frac_cwnd.ceil() as u64).max(1);
        let segs = w.cwnd_bytes / mss;
        if segs > target && segs > MIN_CWND_SEGS {
            w.cwnd_bytes = (segs - 1) * mss;
            w.ssthresh_bytes = w.cwnd_bytes;
        } else if segs < target {
            w.cwnd_bytes = (segs + 1) * mss;
        }
    }

    /// `prague_update_pacing_rate`: 100% of cwnd/SRTT, twice that in slow start's first half.
    fn pacing_rate(&self, w: &CwndState) -> Option<u64> {
        let srtt = self.srtt.filter(|r| !r.is_zero())?;
        let mut rate = self.frac_cwnd * w.mss_bytes as f64 * 1e9 / srtt.as_ns() as f64;
        if w.cwnd_bytes < w.ssthresh_bytes / 2 {
            rate *= 2.0;
        }
        Some(rate as u64)
    }
}

impl CongestionControl for Prague {
    fn on_ack(&mut self, _w: &mut CwndState, _ack: &super::AckInfo) {}

    /// Entering fast recovery (`prague_state(TCP_CA_Recovery)`).
    fn on_congestion(&mut self, _now: Instant, _w: &mut CwndState, _flight_bytes: u64) {
        self.enter_loss();
    }

    /// Entering CWR (`prague_enter_cwr`): reduce the fractional window by α/2, at most once per
    /// target RTT once RTT-independent.
    fn on_ecn(&mut self, now: Instant, w: &mut CwndState, _flight_bytes: u64) {
        if self.rtt_independent(w)
            && self
                .cwr_at
                .is_some_and(|t| now.saturating_since(t) < self.cfg.rtt_target)
        {
            return;
        }
        self.cwr_at = Some(now);
        self.frac_cwnd -= self.est.alpha * self.frac_cwnd / 2.0;
    }

    /// A timeout (`CA_EVENT_LOSS`): halve; one segment may leave.
    fn on_rto(&mut self, _now: Instant, w: &mut CwndState, _flight_bytes: u64) {
        self.enter_loss();
        w.cwnd_bytes = w.mss_bytes;
    }

    fn on_ack_event(&mut self, ev: &AckEvent) {
        self.est.count(ev);
        self.ack = Some(*ev);
    }

    fn controls_rate(&self) -> bool {
        true
    }

    /// `prague_init`, once the handshake's RTT is known.
    fn on_established(&mut self, w: &CwndState, c: &ConnState) -> Option<u64> {
        self.frac_cwnd = (w.cwnd_bytes / w.mss_bytes) as f64;
        self.srtt = c.srtt;
        self.alpha_at = c.now;
        self.new_round(w, 0);
        self.pacing_rate(w)
    }

    /// `prague_cong_control`: the window, α once per round (once per target RTT when
    /// RTT-independent), the pacing rate.
    fn cong_control(&mut self, w: &mut CwndState, _rs: &RateSample, c: &ConnState) -> Control {
        self.srtt = c.srtt;
        if c.ca == CaState::Open {
            self.in_loss = false; // `prague_ca_open`
        }
        let Some(ev) = self.ack.take() else {
            return Control::default();
        };
        self.update_cwnd(w, &ev, c.cwnd_limited);
        let target_elapsed = !self.rtt_independent(w)
            || c.now.saturating_since(self.alpha_at) >= self.cfg.rtt_target;
        if self.est.window_done(&ev) && target_elapsed {
            if self.saw_ce {
                self.est.update(&ev);
                self.alpha_at = c.now;
            }
            self.new_round(w, ev.snd_nxt);
        }
        Control {
            pacing_rate: self.pacing_rate(w),
            app_limited: false,
        }
    }
}

impl Prague {
    /// After a spurious timeout (`prague_cwnd_undo`): the window before it, with what was
    /// gained since.
    pub fn on_undo(&mut self) {
        self.frac_cwnd = self.frac_cwnd.max(self.loss_frac_cwnd);
        self.in_loss = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn w(cwnd_segs: u64) -> CwndState {
        CwndState {
            cwnd_bytes: cwnd_segs * MSS,
            ssthresh_bytes: cwnd_segs * MSS,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        }
    }

    fn conn(now: Instant, srtt_ms: u64) -> ConnState {
        ConnState {
            now,
            ca: CaState::Open,
            in_flight_bytes: 0,
            srtt: Some(Duration::from_ms(srtt_ms)),
            delivered_bytes: 0,
            delivered_at: now,
            lost_bytes: 0,
            cwnd_limited: true,
            edt_wait: Duration::ZERO,
        }
    }

    /// Feed `rounds` rounds of `cwnd` segments, one ACK per segment, a fraction `f` of them
    /// marked; returns the window in segments.
    fn run(p: &mut Prague, win: &mut CwndState, rounds: u64, f: f64, srtt_ms: u64) -> u64 {
        let mut una = 0u64;
        let mut marked = 0.0;
        for r in 0..rounds {
            let segs = win.cwnd_bytes / MSS;
            let mut reduced = false;
            for k in 0..segs {
                marked += f;
                let ce = if marked >= 1.0 {
                    marked -= 1.0;
                    1
                } else {
                    0
                };
                una += MSS;
                let now = Instant::ZERO + Duration::from_ms(srtt_ms * r) + Duration::from_us(k);
                p.on_ack_event(&AckEvent {
                    now,
                    delivered_segs: 1,
                    ce_segs: ce,
                    snd_una: una,
                    // A window in flight.
                    snd_nxt: una + segs * MSS,
                });
                // The sender's CWR state: one reduction per round of marks.
                if ce > 0 && !reduced {
                    reduced = true;
                    p.on_ecn(now, win, win.cwnd_bytes);
                }
                p.cong_control(win, &RateSample::default(), &conn(now, srtt_ms));
            }
        }
        win.cwnd_bytes / MSS
    }

    /// Unsaturated growth: a round of W segments with none marked adds one segment; with a
    /// fraction p marked, (1 − p) of one.
    #[test]
    fn growth_is_one_segment_per_unmarked_round() {
        let mut p = Prague::new(PragueConfig::default());
        let mut win = w(50);
        p.on_established(&win, &conn(Instant::ZERO, 10));
        let before = p.frac_cwnd();
        run(&mut p, &mut win, 10, 0.0, 10);
        assert!(
            (p.frac_cwnd() - before - 10.0).abs() < 0.3,
            "{}",
            p.frac_cwnd()
        );
        assert_eq!(p.alpha(), 1.0, "α waits for a first mark");
    }

    /// α follows the marked fraction (g = 1/16 per round); the window settles where the
    /// per-round growth (1 − p) equals the per-round reduction α/2·W: W ≈ 2(1 − p)/p² at α = p
    /// when every round has a mark.
    #[test]
    fn alpha_tracks_marks_and_reductions_scale_with_it() {
        let mut p = Prague::new(PragueConfig {
            rtt_target: Duration::ZERO,
            ..Default::default()
        });
        let mut win = w(40);
        p.on_established(&win, &conn(Instant::ZERO, 10));
        run(&mut p, &mut win, 200, 0.1, 10);
        assert!((p.alpha() - 0.1).abs() < 0.02, "α {}", p.alpha());
        // 1 − 0.1 = 0.05·W per round → W ≈ 18.
        let w_end = p.frac_cwnd();
        assert!((14.0..23.0).contains(&w_end), "window {w_end}");
    }

    #[test]
    fn a_loss_halves_and_rtt_independence_scales_growth() {
        let mut p = Prague::new(PragueConfig {
            rtt_transition: 0,
            ..Default::default()
        });
        let mut win = w(40);
        p.on_established(&win, &conn(Instant::ZERO, 5));
        p.on_congestion(Instant::ZERO, &mut win, 0);
        assert_eq!(p.frac_cwnd(), 20.0);
        // At 5 ms against a 25 ms target: (5/25)² = 1/25 segment per round.
        let mut p = Prague::new(PragueConfig {
            rtt_transition: 0,
            ..Default::default()
        });
        let mut win = w(40);
        p.on_established(&win, &conn(Instant::ZERO, 5));
        run(&mut p, &mut win, 50, 0.0, 5);
        assert!((p.frac_cwnd() - 42.0).abs() < 0.2, "{}", p.frac_cwnd());
    }
}
