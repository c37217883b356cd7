//! The network: link framing, egress ports, topology and routing.

pub mod framing;
pub mod port;
pub mod ring;
pub mod topology;
