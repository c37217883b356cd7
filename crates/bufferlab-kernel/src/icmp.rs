//! ICMP Time Exceeded from the engine's routers (RFC 792; RFC 1812 §4.3.2, §5.3.1), so
//! `traceroute`, `mtr` and a ballast with a small TTL see the path a real one would.
//!
//! A router that drops a packet because its TTL ran out answers its source with type 11 code 0:
//! an IPv4 header from the router's address, 8 bytes of ICMP header, and the dropped packet's IP
//! header plus the first 8 bytes of its payload (RFC 792, "Time Exceeded Message"). Routers limit
//! the rate of these (RFC 1812 §4.3.2.8); [`RateLimit`] is Linux's: per destination a token
//! bucket filled at one message per `icmp_ratelimit` (1000 ms) and holding up to
//! `XRLIM_BURST_FACTOR` (6) messages (`inet_peer_xrlim_allow`, net/ipv4/inetpeer.c).

use std::collections::HashMap;
use std::net::Ipv4Addr;

use bufferlab_core::time::{Duration, Instant};

use crate::ipv4::{self, header_checksum, internet_checksum, PROTO_ICMP};

pub const ICMP_TIME_EXCEEDED: u8 = 11;
/// Code 0: time to live exceeded in transit (code 1 is fragment reassembly).
pub const CODE_TTL_IN_TRANSIT: u8 = 0;
/// Linux's default `net.ipv4.icmp_ratelimit`.
pub const RATELIMIT_NS: Duration = Duration::from_ms(1000);
/// Linux's `XRLIM_BURST_FACTOR`: a bucket holds this many messages.
pub const BURST: u64 = 6;
/// Linux sends ICMP errors with TTL `net.ipv4.ip_default_ttl` (64) and TOS 0xc0
/// (IPTOS_PREC_INTERNETCONTROL, RFC 1812 §4.3.2.5).
const TTL: u8 = 64;
const TOS: u8 = 0xc0;

/// The Time Exceeded message `router` sends about `dropped` (its bytes as the source sent
/// them), quoting its header with the TTL it had on arrival, `ttl_at_router`. `None` when
/// `dropped` is not an IPv4 packet or is itself an ICMP error (RFC 1812 §4.3.2.7: never answer
/// an ICMP error with one).
pub fn time_exceeded(router: Ipv4Addr, dropped: &[u8], ttl_at_router: u8) -> Option<Vec<u8>> {
    let h = ipv4::parse(dropped)?;
    if h.proto == PROTO_ICMP && !matches!(h.icmp_type, 0 | 8 | 13 | 14 | 15 | 16 | 17 | 18) {
        return None;
    }
    let ihl = (dropped[0] & 0x0f) as usize * 4;
    let quoted = (ihl + 8).min(h.len as usize);
    let total = 20 + 8 + quoted;
    let mut p = vec![0u8; total];
    p[0] = 0x45;
    p[1] = TOS;
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    p[8] = TTL;
    p[9] = PROTO_ICMP;
    p[12..16].copy_from_slice(&router.octets());
    p[16..20].copy_from_slice(&h.src.octets());
    let c = header_checksum(&p[..20]);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    p[20] = ICMP_TIME_EXCEEDED;
    p[21] = CODE_TTL_IN_TRANSIT;
    p[28..].copy_from_slice(&dropped[..quoted]);
    ipv4::set_ttl(&mut p[28..28 + ihl], ttl_at_router);
    let c = internet_checksum(&p[20..]);
    p[22..24].copy_from_slice(&c.to_be_bytes());
    Some(p)
}

/// Per (router, destination) token buckets, time passed in: `allow(now, ..)` says whether a
/// message may go now and takes its token.
#[derive(Default)]
pub struct RateLimit {
    /// Tokens in ns of credit and when they were last topped up.
    peers: HashMap<(u32, Ipv4Addr), (Duration, Instant)>,
}

impl RateLimit {
    pub fn allow(&mut self, now: Instant, router: u32, dst: Ipv4Addr) -> bool {
        let cap = BURST * RATELIMIT_NS;
        // A new peer starts with a full bucket (Linux's rate_last = 0 ages it to the cap).
        let (tokens, last) = self.peers.entry((router, dst)).or_insert((cap, now));
        *tokens = (*tokens + now.saturating_since(*last)).min(cap);
        *last = now;
        if *tokens >= RATELIMIT_NS {
            *tokens -= RATELIMIT_NS;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UDP 10.77.0.1:4000 -> 10.77.0.3:9 with 1 B of payload (29 B, the ballast's packet).
    fn udp() -> Vec<u8> {
        let mut p = ipv4::test_udp(29, 2, [10, 77, 0, 3], 9);
        p[24..26].copy_from_slice(&9u16.to_be_bytes());
        p[28] = 0xab;
        p
    }

    #[test]
    fn the_message_quotes_the_header_and_eight_bytes() {
        let router = Ipv4Addr::new(10, 77, 0, 2);
        let m = time_exceeded(router, &udp(), 1).unwrap();
        assert_eq!(
            m.len(),
            20 + 8 + 28,
            "IP + ICMP headers + quoted header + 8 B"
        );
        let h = ipv4::parse(&m).unwrap();
        assert_eq!(
            (h.src, h.dst, h.proto, h.ttl),
            (router, Ipv4Addr::new(10, 77, 0, 1), PROTO_ICMP, 64)
        );
        assert_eq!(header_checksum(&m[..20]), 0, "outer header checksum");
        assert_eq!(internet_checksum(&m[20..]), 0, "ICMP checksum");
        assert_eq!((m[20], m[21]), (11, 0));
        let q = &m[28..];
        assert_eq!(q[8], 1, "quoted with the TTL it arrived with");
        assert_eq!(
            header_checksum(&q[..20]),
            0,
            "quoted header still consistent"
        );
        assert_eq!(
            &q[12..],
            &udp()[12..28],
            "addresses and the UDP header as sent"
        );
    }

    #[test]
    fn no_error_about_an_error() {
        let router = Ipv4Addr::new(10, 77, 0, 2);
        let m = time_exceeded(router, &udp(), 1).unwrap();
        assert!(time_exceeded(router, &m, 1).is_none());
        let mut echo = m.clone();
        echo[20] = 8; // an echo request is answered
        assert!(time_exceeded(router, &echo, 1).is_some());
    }

    #[test]
    fn rate_limit_is_a_burst_of_six_then_one_per_second() {
        let mut r = RateLimit::default();
        let a = Ipv4Addr::new(10, 77, 0, 1);
        let b = Ipv4Addr::new(10, 77, 0, 5);
        let sent = (0..100)
            .filter(|&i| r.allow(Instant::from_ms(i), 1, a))
            .count();
        assert_eq!(sent, 6, "a burst of 6 within 100 ms");
        assert!(
            r.allow(Instant::ZERO, 1, b),
            "each destination has its own bucket"
        );
        assert!(!r.allow(Instant::from_ms(900), 1, a));
        assert!(r.allow(Instant::from_ms(1_100), 1, a), "a token per second");
        // Over 10 s at 1000 packets/s: the burst plus one per second.
        let mut r = RateLimit::default();
        let sent = (0..10_000)
            .filter(|&i| r.allow(Instant::from_ms(i), 1, a))
            .count();
        assert_eq!(sent, 6 + 9);
    }
}
