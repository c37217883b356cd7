//! The automatic ballast rate: what Braud et al. (2013) §II-D and §VI leave as future work.
//!
//! A state machine with time passed in: every `period` the caller hands it what the host can see
//! of its own TCP connections (cumulative data segments and bytes sent, smoothed and minimum RTT:
//! Linux's `tcpi_data_segs_out`, `tcpi_bytes_sent`, `tcpi_rtt`, `tcpi_min_rtt`), and it answers
//! with the UDP rate to send until the next call. The simulator calls it from its event clock, the
//! `bufferlab ballast --auto` tool from the wall clock: one implementation.
//!
//! The rule:
//! - the upload's segment rate `R_T` is measured over the last period; below
//!   [`IDLE_SEGMENTS`] segments the uplink is idle and the ballast stops (nothing to protect);
//! - eq. 6 gives the rate for the current reduction factor `α`: `R_U = R_T (α − 1)`, starting
//!   from the paper's `α = 2` ("matching this rate will halve queueing delay");
//! - the queueing delay is the connection's smoothed RTT less its minimum; while it is above the
//!   target `α` grows by `step`, while it is below half the target `α` shrinks by `step` (never
//!   below 1, no ballast);
//! - eq. 7 caps the rate so the ballast's share of the bytes sent stays at most `max_share`, and
//!   `max_pps` caps it absolutely;
//! - a ballast that does not work gives up: when `α` has stayed at or above [`FUTILE_ALPHA`] for
//!   [`FUTILE_HOLD_RTTS`] smoothed RTTs (at least [`FUTILE_HOLD_NS`]: the upload's window needs
//!   a loss cycle to feel a fuller buffer) and the queueing delay is still above
//!   [`FUTILE_SHARE`] of the largest seen since the upload started, the buffer is not counted in packets (a byte limit, an AQM) or the sender is not
//!   what fills it, and more tiny packets would only cost capacity. The ballast stops for
//!   [`BACKOFF_PERIODS`] periods, then tries again from `α = 2`.

use super::model::{max_rate_for_share, rate_for_reduction, reduction_for_rate};
use crate::time::{Duration, Instant, NS_PER_SEC};

/// Fewer data segments than this in a period: the uplink carries no upload.
pub const IDLE_SEGMENTS: u64 = 2;
/// The target queueing delay, when none is given, is the time this many full segments take at
/// the measured TCP rate. At 800 kb/s (≈ 66 segments/s) it is 375 ms, the delay the paper's
/// 250 pkt/s ballast gives over a 120-packet buffer (Table II).
pub const DEFAULT_TARGET_SEGMENTS: f64 = 25.0;
/// `α` at which a ballast that has not shortened the queue is judged futile: four times the
/// starting `α = 2`, i.e. eq. 5's buffer-filling rate raised sevenfold.
pub const FUTILE_ALPHA: f64 = 8.0;
/// How long `α` must stay that high before the verdict, in smoothed RTTs ...
pub const FUTILE_HOLD_RTTS: u64 = 8;
/// ... and at least this long.
pub const FUTILE_HOLD_NS: Duration = Duration::from_secs(10);
/// "Not shortened": still above this share of the largest queueing delay of the episode.
pub const FUTILE_SHARE: f64 = 0.8;
/// How long a futile ballast stays off before it tries again: 60 s at the default period.
pub const BACKOFF_PERIODS: u32 = 120;
/// The default target never goes below this (fast uplinks).
pub const MIN_TARGET_NS: Duration = Duration::from_ms(5);

/// The controller's parameters.
#[derive(Clone, Debug)]
pub struct AutoConfig {
    /// Target queueing delay; `None`: [`DEFAULT_TARGET_SEGMENTS`] segments' time.
    pub target_queue_ns: Option<Duration>,
    /// Largest share of the bytes sent the ballast may take (eq. 7). Default 0.2.
    pub max_share: f64,
    /// Size of one ballast packet in IP bytes. Default 29 B (1 B of payload).
    pub udp_bytes: u32,
    /// Absolute cap on the rate, packets per second.
    pub max_pps: f64,
    /// How often the controller decides. Default 500 ms: a stopped upload silences the
    /// ballast within two periods.
    pub period_ns: Duration,
    /// Multiplicative step of `α`. Default 1.5.
    pub step: f64,
}

impl Default for AutoConfig {
    fn default() -> Self {
        AutoConfig {
            target_queue_ns: None,
            max_share: 0.2,
            udp_bytes: 29,
            max_pps: 5_000.0,
            period_ns: Duration::from_ms(500),
            step: 1.5,
        }
    }
}

/// What the host sees of its TCP connections at one instant.
#[derive(Clone, Copy, Debug, Default)]
pub struct Observation {
    pub now: Instant,
    /// Data segments sent so far, retransmissions included (cumulative).
    pub data_segs_out: u64,
    /// IP bytes of those segments (cumulative).
    pub data_bytes_out: u64,
    /// Smoothed RTT of the busiest connection.
    pub srtt_ns: Option<Duration>,
    /// Its smallest RTT sample, if the host knows it.
    pub min_rtt_ns: Option<Duration>,
}

/// Why the rate is what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// No upload: no ballast.
    Idle,
    /// An upload appeared: resume at the last `α`.
    Start,
    /// Queueing delay above target: more ballast.
    Raise,
    /// Queueing delay well below target: less ballast.
    Lower,
    Hold,
    /// Held at the eq. 7 share cap or the absolute cap.
    Capped,
    /// The ballast did not shorten the queue: off for a while.
    Futile,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Idle => "idle",
            Action::Start => "start",
            Action::Raise => "raise",
            Action::Lower => "lower",
            Action::Hold => "hold",
            Action::Capped => "capped",
            Action::Futile => "futile",
        }
    }
}

/// One decision, with what it was based on (for the log).
#[derive(Clone, Copy, Debug)]
pub struct Decision {
    pub now: Instant,
    pub rate_pps: f64,
    pub alpha: f64,
    /// The upload's measured segment rate.
    pub tcp_pps: f64,
    pub queue_ns: Option<Duration>,
    pub target_ns: Duration,
    pub action: Action,
}

pub struct AutoController {
    cfg: AutoConfig,
    alpha: f64,
    last: Option<Observation>,
    base_rtt: Option<Duration>,
    active: bool,
    /// Largest queueing delay since the upload (re)started.
    peak_queue: Duration,
    /// Periods left before a futile ballast tries again.
    backoff: u32,
    /// Since when `α` has been at or above [`FUTILE_ALPHA`].
    high_since: Option<Instant>,
}

impl AutoController {
    pub fn new(cfg: AutoConfig) -> Self {
        AutoController {
            cfg,
            alpha: 2.0,
            last: None,
            base_rtt: None,
            active: false,
            peak_queue: Duration::ZERO,
            backoff: 0,
            high_since: None,
        }
    }

    pub fn config(&self) -> &AutoConfig {
        &self.cfg
    }

    /// Take the host's counters at `obs.now` and decide the rate until the next period.
    pub fn on_observation(&mut self, obs: Observation) -> Decision {
        let rtt_floor = obs.min_rtt_ns.or(obs.srtt_ns);
        if let Some(r) = rtt_floor.filter(|r| !r.is_zero()) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
        let prev = self.last.replace(obs);
        let queue_ns = match (obs.srtt_ns, self.base_rtt) {
            (Some(s), Some(b)) if !s.is_zero() => Some(s.saturating_sub(b)),
            _ => None,
        };
        let mut d = Decision {
            now: obs.now,
            rate_pps: 0.0,
            alpha: self.alpha,
            tcp_pps: 0.0,
            queue_ns,
            target_ns: self.cfg.target_queue_ns.unwrap_or(MIN_TARGET_NS),
            action: Action::Idle,
        };
        let Some(prev) = prev else { return d };
        let dt = obs.now.saturating_since(prev.now);
        let segs = obs.data_segs_out.saturating_sub(prev.data_segs_out);
        if dt.is_zero() || segs < IDLE_SEGMENTS {
            self.active = false;
            self.peak_queue = Duration::ZERO;
            self.high_since = None;
            return d;
        }
        if self.backoff > 0 {
            self.backoff -= 1;
            d.action = Action::Futile;
            if self.backoff == 0 {
                self.active = false; // the next period starts a fresh episode
                self.alpha = 2.0;
            }
            return d;
        }
        self.peak_queue = self.peak_queue.max(queue_ns.unwrap_or(Duration::ZERO));
        self.high_since = match self.high_since {
            _ if self.alpha < FUTILE_ALPHA => None,
            None => Some(obs.now),
            since => since,
        };
        let hold = (FUTILE_HOLD_RTTS * obs.srtt_ns.unwrap_or(Duration::ZERO)).max(FUTILE_HOLD_NS);
        let held = self.high_since.is_some_and(|t| obs.now - t >= hold);
        let tcp_pps = segs as f64 * NS_PER_SEC as f64 / dt.as_ns() as f64;
        let seg_bytes = obs.data_bytes_out.saturating_sub(prev.data_bytes_out) as f64 / segs as f64;
        let target = self.cfg.target_queue_ns.unwrap_or_else(|| {
            let t = DEFAULT_TARGET_SEGMENTS / tcp_pps * NS_PER_SEC as f64;
            Duration::from_ns(t as u64).max(MIN_TARGET_NS)
        });
        d.tcp_pps = tcp_pps;
        d.target_ns = target;
        d.action = if !self.active {
            self.active = true;
            Action::Start
        } else {
            match queue_ns {
                Some(q)
                    if held && q.as_ns() as f64 > FUTILE_SHARE * self.peak_queue.as_ns() as f64 =>
                {
                    self.alpha = 1.0;
                    self.backoff = BACKOFF_PERIODS;
                    self.peak_queue = Duration::ZERO;
                    self.high_since = None;
                    d.alpha = 1.0;
                    d.action = Action::Futile;
                    return d;
                }
                Some(q) if q.as_ns() as f64 > 1.25 * target.as_ns() as f64 => {
                    self.alpha *= self.cfg.step;
                    Action::Raise
                }
                Some(q) if (q.as_ns() as f64) < 0.5 * target.as_ns() as f64 && self.alpha > 1.0 => {
                    self.alpha = (self.alpha / self.cfg.step).max(1.0);
                    Action::Lower
                }
                _ => Action::Hold,
            }
        };
        let udp_bytes = self.cfg.udp_bytes as f64;
        let cap = max_rate_for_share(tcp_pps, seg_bytes, udp_bytes, self.cfg.max_share)
            .min(self.cfg.max_pps);
        let mut rate = rate_for_reduction(tcp_pps, self.alpha);
        if rate > cap {
            // Do not wind up past the cap: the next step down must take effect at once.
            rate = cap;
            self.alpha = reduction_for_rate(tcp_pps, cap);
            d.action = Action::Capped;
        }
        d.rate_pps = rate;
        d.alpha = self.alpha;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: Duration = Duration::from_ms(1);

    /// A synthetic upload: `pps` segments of 1500 B a second, RTT = base + queue.
    struct Upload {
        segs: u64,
        now: Instant,
        base: Duration,
    }

    impl Upload {
        fn tick(&mut self, c: &mut AutoController, pps: u64, queue: Duration) -> Decision {
            self.now += 500 * MS;
            self.segs += pps / 2;
            c.on_observation(Observation {
                now: self.now,
                data_segs_out: self.segs,
                data_bytes_out: self.segs * 1500,
                srtt_ns: Some(self.base + queue),
                min_rtt_ns: Some(self.base),
            })
        }
    }

    fn upload() -> Upload {
        Upload {
            segs: 0,
            now: Instant::ZERO,
            base: 100 * MS,
        }
    }

    #[test]
    fn starts_at_the_papers_alpha_2() {
        let mut c = AutoController::new(AutoConfig::default());
        let mut u = upload();
        assert_eq!(u.tick(&mut c, 66, Duration::ZERO).action, Action::Idle); // first look: no rate yet
        let d = u.tick(&mut c, 66, 1_800 * MS);
        assert_eq!(d.action, Action::Start);
        assert_eq!(d.tcp_pps, 66.0);
        assert_eq!(d.rate_pps, 66.0); // eq. 6 with α = 2
                                      // 25 segments at 66/s: 378.8 ms.
        assert_eq!(d.target_ns / MS, 378);
    }

    #[test]
    fn raises_while_above_target_lowers_when_well_below() {
        let mut c = AutoController::new(AutoConfig::default());
        let mut u = upload();
        u.tick(&mut c, 66, Duration::ZERO);
        u.tick(&mut c, 66, 1_800 * MS);
        let d = u.tick(&mut c, 66, 1_800 * MS);
        assert_eq!((d.action, d.alpha), (Action::Raise, 3.0));
        assert!((d.rate_pps - 132.0).abs() < 1e-9);
        let d = u.tick(&mut c, 66, 300 * MS); // within [0.5, 1.25] x target
        assert_eq!((d.action, d.alpha), (Action::Hold, 3.0));
        let d = u.tick(&mut c, 66, 100 * MS);
        assert_eq!((d.action, d.alpha), (Action::Lower, 2.0));
        for _ in 0..5 {
            u.tick(&mut c, 66, Duration::ZERO);
        }
        let d = u.tick(&mut c, 66, Duration::ZERO);
        assert_eq!(d.alpha, 1.0); // never below 1: no ballast, not negative
        assert_eq!(d.rate_pps, 0.0);
    }

    #[test]
    fn never_exceeds_the_eq_7_share() {
        let cfg = AutoConfig {
            max_share: 0.1,
            ..AutoConfig::default()
        };
        let mut c = AutoController::new(cfg);
        let mut u = upload();
        u.tick(&mut c, 66, Duration::ZERO);
        let mut last = None;
        for _ in 0..40 {
            let d = u.tick(&mut c, 66, 5_000 * MS);
            let share = d.rate_pps * 29.0 / (d.rate_pps * 29.0 + 66.0 * 1500.0);
            assert!(share <= 0.1 + 1e-12, "{share}");
            last = Some(d);
        }
        let d = last.unwrap();
        assert_eq!(d.action, Action::Capped);
        // 0.1 / 0.9 x 66 x 1500 / 29 = 379.3 pps
        assert!((d.rate_pps - 379.31).abs() < 0.01, "{}", d.rate_pps);
        // Capped α does not wind up: one step down below target lowers the rate at once.
        let d = u.tick(&mut c, 66, Duration::ZERO);
        assert_eq!(d.action, Action::Lower);
        assert!(d.rate_pps < 379.0 / 1.4);
    }

    #[test]
    fn goes_idle_when_the_upload_stops_and_resumes_where_it_was() {
        let mut c = AutoController::new(AutoConfig::default());
        let mut u = upload();
        u.tick(&mut c, 66, Duration::ZERO);
        u.tick(&mut c, 66, 1_800 * MS);
        u.tick(&mut c, 66, 1_800 * MS);
        let d = u.tick(&mut c, 2, 1_800 * MS); // one segment in 500 ms
        assert_eq!((d.action, d.rate_pps), (Action::Idle, 0.0));
        let d = u.tick(&mut c, 66, 1_800 * MS);
        assert_eq!((d.action, d.alpha), (Action::Start, 3.0));
    }

    #[test]
    fn a_ballast_that_does_not_shorten_the_queue_gives_up_then_retries() {
        // A byte-limited buffer: the queueing delay does not move whatever the rate.
        let mut c = AutoController::new(AutoConfig::default());
        let mut u = upload();
        u.tick(&mut c, 66, Duration::ZERO);
        let mut actions = Vec::new();
        for _ in 0..60 {
            let d = u.tick(&mut c, 66, 1_500 * MS);
            actions.push(d.action);
            if d.action == Action::Futile {
                assert_eq!(d.rate_pps, 0.0);
                break;
            }
        }
        // Start at alpha 2 (t = 1 s), raise to 3, 4.5, 6.75, 10.1 (t = 3 s), on to the eq. 7 cap
        // (13.9), and give up at the first decision 12.8 s (8 RTTs of 1.6 s) after one saw
        // alpha >= 8 (t = 3.5 s): t = 16.5 s, the 32nd.
        use Action::*;
        assert_eq!(&actions[..5], [Start, Raise, Raise, Raise, Raise]);
        assert_eq!(actions.last(), Some(&Futile));
        assert_eq!(actions.len(), 32);
        for _ in 0..BACKOFF_PERIODS {
            let d = u.tick(&mut c, 66, 1_500 * MS);
            assert_eq!((d.action, d.rate_pps), (Futile, 0.0));
        }
        let d = u.tick(&mut c, 66, 1_500 * MS);
        assert_eq!((d.action, d.alpha), (Start, 2.0));
        // A packet-count buffer: each raise shortens the queue, so it never gives up.
        let mut c = AutoController::new(AutoConfig::default());
        let mut u = upload();
        u.tick(&mut c, 66, Duration::ZERO);
        let mut q = 3_000.0;
        for _ in 0..30 {
            let d = u.tick(&mut c, 66, Duration::from_ns((q * NS_PER_MS as f64) as u64));
            assert_ne!(d.action, Futile);
            q = (3_000.0 / d.alpha).max(200.0);
        }
    }

    #[test]
    fn absolute_cap_and_explicit_target() {
        let cfg = AutoConfig {
            target_queue_ns: Some(20 * MS),
            max_pps: 100.0,
            max_share: 0.9,
            ..AutoConfig::default()
        };
        let mut c = AutoController::new(cfg);
        let mut u = upload();
        u.tick(&mut c, 66, Duration::ZERO);
        u.tick(&mut c, 66, 500 * MS);
        let d = u.tick(&mut c, 66, 500 * MS);
        assert_eq!(d.target_ns, 20 * MS);
        assert_eq!((d.action, d.rate_pps), (Action::Capped, 100.0));
    }

    #[test]
    fn base_rtt_from_srtt_when_min_rtt_is_unknown() {
        let mut c = AutoController::new(AutoConfig::default());
        let obs = |now, segs: u64, srtt| Observation {
            now,
            data_segs_out: segs,
            data_bytes_out: segs * 1500,
            srtt_ns: Some(srtt),
            min_rtt_ns: None,
        };
        c.on_observation(obs(Instant::ZERO, 0, 120 * MS));
        let d = c.on_observation(obs(Instant::from_ms(500), 33, 900 * MS));
        assert_eq!(d.queue_ns, Some(780 * MS));
    }
}
