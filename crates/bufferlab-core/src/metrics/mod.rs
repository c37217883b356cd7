//! Measurement: per-flow, per-queue and per-link statistics, bounded in memory.

pub mod flow;
pub mod hist;
