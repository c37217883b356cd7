//! The network: link framing, egress ports, topology and routing, trace-driven links.

pub mod ahead;
pub mod framing;
pub mod host_tx;
pub mod port;
pub mod ring;
pub mod ring_gso;
pub mod topology;
pub mod trace;
