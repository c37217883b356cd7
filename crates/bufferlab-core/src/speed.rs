//! The engine's speed on the machine it runs on, measured once per process, so that a run's
//! wall-time estimate ([`crate::estimate`]) holds on a slower or busier machine than the one its
//! constants were fitted on.
//!
//! The estimate's events per second were fitted on one machine (docs/BENCHMARKS.md); the same
//! engine runs 1.3–1.7 times slower on another of the same kind whose host is busier, which put
//! `udp-fifo-1g`'s estimate 3.5 times under its wall time. So the first estimate of a process
//! runs a short calibration — the built-in `udp-fifo-1g` for 0.2 s of simulated time (about
//! 43,000 events, 5 ms of the event loop), three times, the median kept, since a shared host's
//! speed moves by ±15% from one second to the next — and scales the constants by its speed
//! against [`CALIBRATION_EVENTS_PER_SEC`]. The calibration runs a fixed scenario of its own and
//! changes no run's result, only what `run`, `sweep` and `bench` say a run will cost.

use std::sync::OnceLock;

/// The calibration's speed (events of `udp-fifo-1g`'s event loop per wall second) at which
/// [`crate::estimate`]'s constants give each built-in benchmark's wall time: fitted over the
/// five of docs/BENCHMARKS.md ("The estimate at the machine's own speed", 2026-11-28), the
/// geometric mean of calibration × measured / estimated.
pub const CALIBRATION_EVENTS_PER_SEC: f64 = 22.0e6;
/// Simulated seconds of one calibration run.
pub const CALIBRATION_SECONDS: f64 = 0.2;
/// Calibration runs; the median counts.
const ROUNDS: usize = 3;
/// The factor is kept within these bounds: a calibration that a stall (a suspended process, a
/// machine swapping) slowed tenfold says little about the run to come.
const FACTOR_RANGE: (f64, f64) = (0.1, 10.0);

/// Events per wall second of one calibration run, the event loop alone (no build, no report).
pub fn calibration_run() -> Option<f64> {
    let sc = crate::bench::scenario("udp-fifo-1g", CALIBRATION_SECONDS)?;
    let mut eng = crate::build::build(&sc).ok()?;
    let t0 = std::time::Instant::now();
    eng.run_until(eng.end(), |_| true);
    let wall = t0.elapsed().as_secs_f64();
    let events = crate::report::finish(eng).ok()?.summary.engine.events;
    (wall > 0.0).then(|| events as f64 / wall)
}

/// This machine's speed relative to the fitted one (2: twice as fast), from the median of
/// `rates` (events per second of calibration runs; the lower middle of an even count); 1
/// without any.
pub fn factor_from(rates: impl IntoIterator<Item = f64>) -> f64 {
    let mut r: Vec<f64> = rates
        .into_iter()
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    r.sort_by(f64::total_cmp);
    match r.get(r.len().saturating_sub(1) / 2) {
        Some(m) => (m / CALIBRATION_EVENTS_PER_SEC).clamp(FACTOR_RANGE.0, FACTOR_RANGE.1),
        None => 1.0,
    }
}

/// This machine's speed relative to the fitted one, measured on first use and kept for the
/// process.
pub fn factor() -> f64 {
    static FACTOR: OnceLock<f64> = OnceLock::new();
    *FACTOR.get_or_init(|| factor_from((0..ROUNDS).filter_map(|_| calibration_run())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_round_counts_within_bounds() {
        let c = CALIBRATION_EVENTS_PER_SEC;
        assert_eq!(factor_from([c / 2.0, c, c / 4.0]), 0.5);
        assert_eq!(factor_from([c, c / 4.0]), 0.25);
        assert_eq!(factor_from([c / 2.0]), 0.5);
        assert_eq!(factor_from([]), 1.0);
        assert_eq!(factor_from([f64::NAN, 0.0]), 1.0);
        assert_eq!(factor_from([c * 1000.0]), FACTOR_RANGE.1);
        assert_eq!(factor_from([c / 1000.0]), FACTOR_RANGE.0);
    }

    /// A calibration run of the built-in benchmark gives a speed, and the process's factor stays
    /// within its bounds.
    #[test]
    fn a_calibration_run_measures_a_speed() {
        let rate = calibration_run().expect("the built-in benchmark runs");
        assert!(rate.is_finite() && rate > 0.0, "{rate}");
        let f = factor();
        assert!((FACTOR_RANGE.0..=FACTOR_RANGE.1).contains(&f), "{f}");
    }
}
