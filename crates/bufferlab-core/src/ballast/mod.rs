//! The ballast of Braud, Heusse, Duda (2013): a stream of tiny UDP packets that takes slots of a
//! packet-count buffer so a TCP upload's queue, and everyone's latency, shrinks.
//!
//! [`model`] holds the paper's closed forms (eqs. 6–7); [`controller`] the automatic rate the
//! paper leaves as future work. The simulator's `ballast` agent and the `bufferlab ballast` tool
//! both drive the same controller, one from the event clock, the other from the wall clock.

pub mod controller;
pub mod model;

pub use controller::{Action, AutoConfig, AutoController, Decision, Observation};
