//! The entry points: check a scenario, or build and run it. They sit above both the builder
//! ([`crate::build`]) and the event loop ([`crate::engine`]), so neither depends on the other's
//! caller: plan -> build -> engine -> results, one way.

use crate::agent::Agent;
use crate::engine::Engine;
use crate::packet::{FlowId, NodeId};
use crate::problem::{join, Problem};
use crate::results::RunOutput;
use crate::scenario::Scenario;
use crate::tcp::workload::Draws;
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

/// A TCP flow's workload draws, as [`workload_draws`] gives them.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowDraws {
    /// Its row in the flows table.
    pub flow: FlowId,
    /// Its id (`"web-1"`), kind, source and destination nodes.
    pub id: String,
    pub kind: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
    pub draws: Draws,
}

/// Each TCP flow's workload draws in a run of `sc`, at most `limit` transfers per flow: the
/// scenario is built as a run builds it, and each sender replays its own stream and samplers
/// (`tcp/workload.rs`). What the kernel backend's hosts play, so that a seed's transfers are
/// the same on both backends.
pub fn workload_draws(sc: &Scenario, limit: usize) -> Result<Vec<FlowDraws>, Vec<Problem>> {
    let eng = crate::build::build_network(sc)?;
    let info = eng.flow_info();
    let mut out: Vec<FlowDraws> = eng
        .agents()
        .iter()
        .filter_map(|p| match &p.agent {
            Agent::TcpSender(s) => {
                let f = &info[s.flow() as usize];
                Some(FlowDraws {
                    flow: s.flow(),
                    id: f.id.clone(),
                    kind: f.kind,
                    src: f.src,
                    dst: f.dst,
                    draws: s.draws(limit),
                })
            }
            _ => None,
        })
        .collect();
    out.sort_by_key(|d| d.flow);
    Ok(out)
}
