//! bufferlab-core: a deterministic packet-level discrete-event simulator for router-buffer
//! experiments. No Python here; see `bufferlab-py` for the bindings.

pub mod agent;
pub mod ballast;
pub mod bench;
pub mod bounds;
pub mod build;
pub mod capture;
pub mod dist;
pub mod engine;
pub mod estimate;
pub mod file;
pub mod hooks;
mod huge_pages;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod prefetch;
pub mod problem;
pub mod qdisc;
pub mod realtime;
pub mod report;
pub mod results;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod sched;
pub mod simulate;
pub mod sizing;
pub mod slot_ring;
pub mod speed;
pub mod tcp;
pub mod time;
pub mod wire;

pub use results::RunOutput;
pub use scenario::Scenario;
pub use simulate::{check, run, run_engine, run_timed, run_with_progress, workload_draws};
