//! The entry points: check a scenario, or build and run it. They sit above both the builder
//! ([`crate::build`]) and the event loop ([`crate::engine`]), so neither depends on the other's
//! caller: plan -> build -> engine -> results, one way.

use crate::engine::Engine;
use crate::problem::{join, Problem};
use crate::results::RunOutput;
use crate::scenario::Scenario;
use crate::time::Instant;

/// Build and run a scenario to the end.
pub fn run(sc: &Scenario) -> Result<RunOutput, String> {
    run_with_progress(sc, |_| true)
}

/// Build and run a scenario; `progress` sees the simulated time every 2^16 events and may stop
/// the run by returning `false` (the result is then an error).
pub fn run_with_progress(
    sc: &Scenario,
    progress: impl FnMut(Instant) -> bool,
) -> Result<RunOutput, String> {
    let mut eng = crate::build::build(sc).map_err(|e| join(&e))?;
    if !eng.run_until(Instant::ZERO + sc.run.duration_ns, progress) {
        return Err("interrupted".to_string());
    }
    crate::report::finish(eng)
}

/// Check a scenario without running it: every problem found, or none. (Building is checking:
/// [`crate::build::build`] checks the plan's bounds first, then what only a build can know.)
pub fn check(sc: &Scenario) -> Vec<Problem> {
    match crate::build::build(sc) {
        Ok(_) => Vec::new(),
        Err(e) => e,
    }
}

/// Build and run a scenario, with the wall time in its summary.
pub fn run_timed(
    sc: &Scenario,
    progress: impl FnMut(Instant) -> bool,
) -> Result<RunOutput, String> {
    let t0 = std::time::Instant::now();
    let eng = crate::build::build(sc).map_err(|e| join(&e))?;
    run_engine(eng, t0, progress)
}

/// Run a built engine to the end of its run; the summary's wall time counts from `t0` (before
/// the build). `progress` as in [`run_with_progress`].
pub fn run_engine(
    mut eng: Engine,
    t0: std::time::Instant,
    progress: impl FnMut(Instant) -> bool,
) -> Result<RunOutput, String> {
    if !eng.run_until(eng.end(), progress) {
        return Err("interrupted".to_string());
    }
    let mut out = crate::report::finish(eng)?;
    out.summary.engine.wall_seconds = t0.elapsed().as_secs_f64();
    Ok(out)
}
