//! The little of IPv4 the driver reads: addresses, protocol, ports (the 5-tuple flow-aware
//! disciplines hash) and the TTL routers decrement (RFC 791 §3.1).

use std::net::Ipv4Addr;

pub use bufferlab_core::wire::{PROTO_ICMP, PROTO_TCP, PROTO_UDP};

/// The fields of an IPv4 packet the driver needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub proto: u8,
    pub ttl: u8,
    /// The ECN field, the TOS byte's low two bits (RFC 3168 §5).
    pub ecn: u8,
    /// Total length from the header (the IP packet size the engine serializes).
    pub len: u16,
    /// TCP/UDP ports, or for an ICMP echo the identifier in both (RFC 792).
    pub sport: u16,
    pub dport: u16,
    /// ICMP type (8 echo request, 0 echo reply), 0 for other protocols.
    pub icmp_type: u8,
}

/// Parse an IPv4 header; `None` for anything else (IPv6, truncated, inconsistent lengths).
pub fn parse(p: &[u8]) -> Option<Header> {
    if p.len() < 20 || p[0] >> 4 != 4 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let len = u16::from_be_bytes([p[2], p[3]]);
    if ihl < 20 || (len as usize) < ihl || len as usize > p.len() {
        return None;
    }
    let proto = p[9];
    let l4 = &p[ihl..len as usize];
    // Only a first fragment carries the ports.
    let first_fragment = u16::from_be_bytes([p[6], p[7]]) & 0x1fff == 0;
    let (mut sport, mut dport, mut icmp_type) = (0, 0, 0);
    if first_fragment {
        match proto {
            PROTO_TCP | PROTO_UDP if l4.len() >= 4 => {
                sport = u16::from_be_bytes([l4[0], l4[1]]);
                dport = u16::from_be_bytes([l4[2], l4[3]]);
            }
            PROTO_ICMP if l4.len() >= 8 => {
                icmp_type = l4[0];
                sport = u16::from_be_bytes([l4[4], l4[5]]);
                dport = sport;
            }
            _ => {}
        }
    }
    Some(Header {
        src: Ipv4Addr::new(p[12], p[13], p[14], p[15]),
        dst: Ipv4Addr::new(p[16], p[17], p[18], p[19]),
        proto,
        ttl: p[8],
        ecn: p[1] & 3,
        len,
        sport,
        dport,
        icmp_type,
    })
}

/// Rewrite the 16-bit header word at `at` and update the header checksum incrementally
/// (RFC 1624 eq. 3: HC' = ~(~HC + ~m + m')).
fn rewrite_word(p: &mut [u8], at: usize, new: u16) {
    let old = u16::from_be_bytes([p[at], p[at + 1]]);
    p[at..at + 2].copy_from_slice(&new.to_be_bytes());
    let hc = u16::from_be_bytes([p[10], p[11]]);
    let mut sum = (!hc as u32) + (!old as u32) + new as u32;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let c = !(sum as u16);
    p[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Set the TTL (in the word it shares with the protocol), the checksum updated.
pub fn set_ttl(p: &mut [u8], ttl: u8) {
    if p.len() < 20 || p[8] == ttl {
        return;
    }
    rewrite_word(p, 8, u16::from_be_bytes([ttl, p[9]]));
}

/// Set the ECN field (the TOS byte's low two bits: an AQM's CE, RFC 3168 §5; in the word it
/// shares with version and IHL), the checksum updated.
pub fn set_ecn(p: &mut [u8], ecn: u8) {
    if p.len() < 20 || p[1] & 3 == ecn & 3 {
        return;
    }
    rewrite_word(p, 0, u16::from_be_bytes([p[0], (p[1] & !3) | (ecn & 3)]));
}

pub use bufferlab_core::wire::internet_checksum;

/// The full header checksum (RFC 791), 0 when the header is intact.
pub fn header_checksum(p: &[u8]) -> u16 {
    let ihl = (p[0] & 0x0f) as usize * 4;
    internet_checksum(&p[..ihl])
}

/// A UDP packet 10.77.0.1:4000 -> `dst`:`dport` of `len` bytes (zero payload) with TTL `ttl` and
/// a correct header checksum: the packet the tests of this crate send.
#[cfg(test)]
pub(crate) fn test_udp(len: u16, ttl: u8, dst: [u8; 4], dport: u16) -> Vec<u8> {
    let mut p = vec![0u8; len as usize];
    p[0] = 0x45;
    p[2..4].copy_from_slice(&len.to_be_bytes());
    p[8] = ttl;
    p[9] = PROTO_UDP;
    p[12..16].copy_from_slice(&[10, 77, 0, 1]);
    p[16..20].copy_from_slice(&dst);
    p[20..22].copy_from_slice(&4000u16.to_be_bytes());
    p[22..24].copy_from_slice(&dport.to_be_bytes());
    let c = header_checksum(&p);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A UDP packet 10.77.0.1:4000 -> 10.77.0.2:5001 with a correct header checksum.
    fn udp() -> Vec<u8> {
        test_udp(48, 64, [10, 77, 0, 2], 5001)
    }

    #[test]
    fn parses_the_five_tuple() {
        let h = parse(&udp()).unwrap();
        assert_eq!(h.src, Ipv4Addr::new(10, 77, 0, 1));
        assert_eq!(h.dst, Ipv4Addr::new(10, 77, 0, 2));
        assert_eq!(
            (h.proto, h.sport, h.dport, h.len, h.ttl),
            (PROTO_UDP, 4000, 5001, 48, 64)
        );
    }

    #[test]
    fn rejects_what_is_not_ipv4() {
        let mut p = udp();
        p[0] = 0x60;
        assert!(parse(&p).is_none());
        assert!(
            parse(&udp()[..30]).is_none(),
            "total length beyond the bytes read"
        );
    }

    #[test]
    fn ttl_rewrite_keeps_the_checksum_valid() {
        for ttl in [63u8, 1, 0, 255, 64] {
            let mut p = udp();
            set_ttl(&mut p, ttl);
            assert_eq!(p[8], ttl);
            assert_eq!(header_checksum(&p), 0, "ttl {ttl}");
        }
    }

    #[test]
    fn ce_keeps_the_header_checksum_right() {
        let mut p = test_udp(100, 64, [10, 77, 0, 2], 5000);
        // An ECT(0) header with its checksum, then an AQM's CE.
        p[1] = 0x02;
        p[10..12].copy_from_slice(&[0, 0]);
        let c = internet_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(header_checksum(&p), 0);
        set_ecn(&mut p, 3);
        assert_eq!(parse(&p).unwrap().ecn, 3);
        assert_eq!(header_checksum(&p), 0);
    }
}
