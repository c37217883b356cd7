//! bufferlab-core: a deterministic packet-level discrete-event simulator for router-buffer
//! experiments. No Python here; see `bufferlab-py` for the bindings.

pub mod agent;
pub mod dist;
pub mod metrics;
pub mod packet;
pub mod qdisc;
pub mod rng;
pub mod scenario;
pub mod tcp;
pub mod time;
