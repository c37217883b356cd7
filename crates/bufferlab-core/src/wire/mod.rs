//! The packets as bytes: the IPv4 addresses and ports the simulation's nodes and flows stand
//! for, the Internet checksum, and the real IPv4/TCP/UDP/ICMP headers of a simulated packet
//! ([`encode`]) that a packet capture holds.
//!
//! One mapping serves both backends: node `i` is `10.77.0.0 + i + 1` (10.77.0.1 for the first
//! node; the kernel backend gives its namespaces these addresses), and a flow's destination
//! side uses port (or ICMP echo identifier) `FLOW_PORT_BASE + flow`, as the kernel backend's
//! programs do so that their packets count as the flow's.

pub mod encode;

use crate::packet::{FlowId, NodeId};

/// A scenario flow's destination port (or echo identifier) is `FLOW_PORT_BASE + flow`.
pub const FLOW_PORT_BASE: u16 = 20_000;

/// The first port of the range a flow's source side takes its port from (Linux's
/// `ip_local_port_range` default, 32768-60999).
pub const EPHEMERAL_BASE: u16 = 32_768;
const EPHEMERAL_PORTS: u32 = 28_232;

pub const PROTO_ICMP: u8 = 1;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// The IPv4 address of node `id`: 10.77.0.0 + id + 1 (10.77.0.1, 10.77.0.2, ..., on into
/// 10.78.0.0 past the 65,535th node).
pub fn node_ipv4(id: NodeId) -> [u8; 4] {
    (0x0A4D_0000u32.wrapping_add(id).wrapping_add(1)).to_be_bytes()
}

/// The port (or echo identifier) of flow `flow`'s destination side.
pub fn flow_port(flow: FlowId) -> u16 {
    FLOW_PORT_BASE + (flow % (u16::MAX - FLOW_PORT_BASE) as u32) as u16
}

/// The port of the source side of connection `conn` (a UDP flow's: `conn` 0).
pub fn source_port(conn: u32) -> u16 {
    EPHEMERAL_BASE + (conn % EPHEMERAL_PORTS) as u16
}

/// The one's-complement sum of `b`'s 16-bit big-endian words (an odd last byte padded with 0),
/// folded to 16 bits: RFC 1071 §4.1, before the final complement.
pub fn ones_sum(b: &[u8], start: u32) -> u16 {
    let mut sum = start;
    let mut words = b.chunks_exact(2);
    for w in &mut words {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    if let [last] = words.remainder() {
        sum += (*last as u32) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The Internet checksum (RFC 1071) of `b`: 0 over data that carries a correct one.
pub fn internet_checksum(b: &[u8]) -> u16 {
    !ones_sum(b, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_ports() {
        assert_eq!(node_ipv4(0), [10, 77, 0, 1]);
        assert_eq!(node_ipv4(255), [10, 77, 1, 0]);
        assert_eq!(node_ipv4(65_535), [10, 78, 0, 0]);
        assert_eq!(flow_port(3), 20_003);
        assert_eq!(flow_port(45_535), 20_000, "wraps before the last port");
        assert_eq!(source_port(0), 32_768);
        assert_eq!(source_port(28_231), 60_999);
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (folded).
        assert_eq!(
            ones_sum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7], 0),
            0xddf2
        );
        assert_eq!(
            internet_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0x220d
        );
        // An odd byte counts as the high half of a last word.
        assert_eq!(ones_sum(&[0x12], 0), 0x1200);
    }
}
