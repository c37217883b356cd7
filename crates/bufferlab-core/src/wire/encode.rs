//! The real headers of a simulated packet: IPv4 (RFC 791) with TCP (RFC 9293, options of RFC
//! 7323 and RFC 2018), UDP (RFC 768) or ICMP echo (RFC 792), checksums included.
//!
//! The simulator's packets carry no bytes, only the header fields a model reads; here they
//! become the bytes a capture on a real wire would show:
//! - addresses and ports from [`super`]: node `i` is 10.77.0.0 + i + 1; a flow's source side
//!   takes port 32768 + conn, its destination side 20000 + flow (an echo's identifier);
//! - TCP sequence numbers are the simulator's 64-bit byte offsets plus an initial sequence
//!   number per connection and direction, taken modulo 2^32; the SYN and FIN take one sequence
//!   number each on the wire (the simulator does not count them: RFC 9293 §3.4 does);
//! - the IP total length is the packet's size on the simulated wire, plus the TCP options the
//!   simulator carries as fields without charging their bytes: the SYN's MSS, SACK-permitted
//!   and window scale options, and SACK blocks (4 + 8 bytes per block, RFC 2018 §3);
//! - timestamps (RFC 7323 §3) tick in milliseconds, as Linux's (`TCP_TS_HZ`);
//! - the window is scaled by the smallest shift that fits the flow's receive window in 16 bits
//!   (at most 14, RFC 7323 §2.3), announced in the SYN and SYN-ACK;
//! - payload bytes are zeros, so checksums are those of the headers and the pseudo-header alone
//!   (zeros add nothing to a one's-complement sum) and stay right whatever is kept of them.

use super::{flow_port, node_ipv4, ones_sum, source_port, PROTO_ICMP, PROTO_TCP, PROTO_UDP};
use crate::packet::{tcp_flags, FlowId, NodeId, Packet, Proto};
use crate::time::{Instant, NS_PER_MS};

pub const IPV4_HEADER: usize = 20;
const TCP_HEADER: usize = 20;
/// The longest headers written here: IPv4 and TCP with 40 bytes of options.
pub const MAX_HEADERS: usize = IPV4_HEADER + TCP_HEADER + 40;

/// RFC 6864 §4.1: with DF set, the identification field of an atomic datagram means nothing.
const DONT_FRAGMENT: u16 = 0x4000;

const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WSCALE: u8 = 3;
const OPT_SACK_PERMITTED: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMP: u8 = 8;

/// A TCP flow's settings its packets do not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpShape {
    pub mss: u16,
    pub sack: bool,
    pub timestamps: bool,
    /// The receive window both ends advertise, in bytes.
    pub rwnd: u32,
}

impl TcpShape {
    /// The window scale shift (RFC 7323 §2.3): the smallest that fits the window in 16 bits.
    pub fn wscale(&self) -> u8 {
        let mut s = 0;
        while s < 14 && (self.rwnd >> s) > 0xffff {
            s += 1;
        }
        s
    }
}

/// What a flow's packets need beyond their own fields: its source node (the side that opens it)
/// and, for TCP, its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWire {
    pub flow: FlowId,
    pub src: NodeId,
    pub tcp: Option<TcpShape>,
}

/// The initial sequence number of connection `conn` of `flow` on `side` (0: the flow's source),
/// a fixed function of the three (RFC 9293 §3.4.1 asks for unpredictable ones; a simulation
/// wants repeatable ones).
pub fn isn(flow: FlowId, conn: u32, side: u8) -> u32 {
    crate::rng::mix_key(((flow as u64) << 32) | conn as u64, side as u64 + 0x15A) as u32
}

/// Encoded headers: the bytes written into the buffer and the IP packet's total length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers {
    pub len: usize,
    pub total_len: u32,
}

/// Write `p`'s headers into `out`.
pub fn encode(p: &Packet, f: &FlowWire, out: &mut [u8; MAX_HEADERS]) -> Headers {
    let from_src = p.src == f.src;
    let (l4_len, proto, total) = match p.proto {
        Proto::Tcp => {
            let (n, extra) = tcp(p, f, from_src, &mut out[IPV4_HEADER..]);
            (n, PROTO_TCP, (p.size + extra).max((IPV4_HEADER + n) as u32))
        }
        Proto::Udp => {
            let (sport, dport) = ports(f, 0, from_src);
            let o = &mut out[IPV4_HEADER..IPV4_HEADER + 8];
            o[0..2].copy_from_slice(&sport.to_be_bytes());
            o[2..4].copy_from_slice(&dport.to_be_bytes());
            let total = p.size.max(IPV4_HEADER as u32 + 8);
            o[4..6].copy_from_slice(&((total - IPV4_HEADER as u32) as u16).to_be_bytes());
            o[6..8].copy_from_slice(&[0, 0]);
            (8, PROTO_UDP, total)
        }
        Proto::EchoRequest | Proto::EchoReply => {
            let o = &mut out[IPV4_HEADER..IPV4_HEADER + 8];
            o[0] = if p.proto == Proto::EchoRequest { 8 } else { 0 };
            o[1] = 0;
            o[2..4].copy_from_slice(&[0, 0]);
            o[4..6].copy_from_slice(&flow_port(f.flow).to_be_bytes());
            o[6..8].copy_from_slice(&(p.seq as u16).to_be_bytes());
            (8, PROTO_ICMP, p.size.max(IPV4_HEADER as u32 + 8))
        }
    };
    let total = total.min(u16::MAX as u32);
    ip(p, proto, total as u16, &mut out[..IPV4_HEADER]);
    let l4 = IPV4_HEADER..IPV4_HEADER + l4_len;
    let sum_at = match proto {
        PROTO_TCP => 16,
        PROTO_UDP => 6,
        _ => 2,
    };
    // ICMP's checksum covers its message only; TCP's and UDP's the pseudo-header too.
    let start = if proto == PROTO_ICMP {
        0
    } else {
        let mut pseudo = [0u8; 12];
        pseudo[0..8].copy_from_slice(&out[12..20]);
        pseudo[9] = proto;
        pseudo[10..12].copy_from_slice(&((total as usize - IPV4_HEADER) as u16).to_be_bytes());
        ones_sum(&pseudo, 0) as u32
    };
    let mut c = !ones_sum(&out[l4.clone()], start);
    if proto == PROTO_UDP && c == 0 {
        c = 0xffff; // RFC 768: an all-zero checksum means "none"
    }
    out[IPV4_HEADER + sum_at..IPV4_HEADER + sum_at + 2].copy_from_slice(&c.to_be_bytes());
    Headers {
        len: IPV4_HEADER + l4_len,
        total_len: total,
    }
}

fn ip(p: &Packet, proto: u8, total: u16, o: &mut [u8]) {
    o[0] = 0x45;
    o[1] = p.ecn as u8;
    o[2..4].copy_from_slice(&total.to_be_bytes());
    o[4..6].copy_from_slice(&[0, 0]);
    o[6..8].copy_from_slice(&DONT_FRAGMENT.to_be_bytes());
    o[8] = p.ttl;
    o[9] = proto;
    o[10..12].copy_from_slice(&[0, 0]);
    o[12..16].copy_from_slice(&node_ipv4(p.src));
    o[16..20].copy_from_slice(&node_ipv4(p.dst));
    let c = !ones_sum(&o[..IPV4_HEADER], 0);
    o[10..12].copy_from_slice(&c.to_be_bytes());
}

/// (source port, destination port) of a packet of connection `conn`.
fn ports(f: &FlowWire, conn: u32, from_src: bool) -> (u16, u16) {
    let (a, b) = (source_port(conn), flow_port(f.flow));
    if from_src {
        (a, b)
    } else {
        (b, a)
    }
}

fn ms32(t: Instant) -> [u8; 4] {
    ((t.as_ns() / NS_PER_MS) as u32).to_be_bytes()
}

/// The TCP header into `o`: its length, and the bytes of options the simulated packet's size
/// leaves out.
fn tcp(p: &Packet, f: &FlowWire, from_src: bool, o: &mut [u8]) -> (usize, u32) {
    let h = &p.tcp;
    let shape = f.tcp.unwrap_or(TcpShape {
        mss: 1460,
        sack: h.nsack > 0,
        timestamps: true,
        rwnd: h.rwnd.max(65_535),
    });
    let syn = h.flags & tcp_flags::SYN != 0;
    let fin = h.flags & tcp_flags::FIN != 0;
    let (sport, dport) = ports(f, h.conn, from_src);
    let own = isn(f.flow, h.conn, u8::from(!from_src));
    let peer = isn(f.flow, h.conn, u8::from(from_src));
    // Sequence numbers: the SYN takes the ISN itself, data starts one after it. Only the
    // source side sends data; the other side's packets acknowledge it.
    let seq = if syn {
        own
    } else if from_src {
        own.wrapping_add(1).wrapping_add(h.seq as u32)
    } else {
        own.wrapping_add(1)
    };
    let mut flags = h.flags;
    let ack = if from_src {
        // Every segment after the SYN acknowledges the peer's SYN (RFC 9293 §3.4).
        if !syn {
            flags |= tcp_flags::ACK;
        }
        if syn {
            0
        } else {
            peer.wrapping_add(1)
        }
    } else {
        // The FIN-ACK answers the source's FIN, which took a sequence number.
        let off = h.ack as u32 + u32::from(fin);
        peer.wrapping_add(1).wrapping_add(off)
    };
    let ws = shape.wscale();
    let window = if syn {
        shape.rwnd.min(0xffff)
    } else {
        let w = if h.rwnd > 0 { h.rwnd } else { shape.rwnd };
        (w >> ws).min(0xffff)
    };
    // Options, in Linux's order and padding (`tcp_options_write`).
    let mut opt = [0u8; 40];
    let mut n = 0;
    let mut put = |bytes: &[u8], n: &mut usize| {
        opt[*n..*n + bytes.len()].copy_from_slice(bytes);
        *n += bytes.len();
    };
    let ts = |at: Instant, ecr: Instant| {
        let (v, e) = (ms32(at), ms32(ecr));
        [
            OPT_TIMESTAMP,
            10,
            v[0],
            v[1],
            v[2],
            v[3],
            e[0],
            e[1],
            e[2],
            e[3],
        ]
    };
    if syn {
        let m = shape.mss.to_be_bytes();
        put(&[OPT_MSS, 4, m[0], m[1]], &mut n);
        if shape.timestamps {
            if shape.sack {
                put(&[OPT_SACK_PERMITTED, 2], &mut n);
            } else {
                put(&[OPT_NOP, OPT_NOP], &mut n);
            }
            put(&ts(h.ts_val, h.ts_ecr), &mut n);
        } else if shape.sack {
            put(&[OPT_NOP, OPT_NOP, OPT_SACK_PERMITTED, 2], &mut n);
        }
        put(&[OPT_NOP, OPT_WSCALE, 3, ws], &mut n);
    } else {
        if shape.timestamps {
            put(&[OPT_NOP, OPT_NOP], &mut n);
            put(&ts(h.ts_val, h.ts_ecr), &mut n);
        }
        // RFC 2018 §3: 3 blocks fit beside the timestamp option, 4 without it.
        let room = if shape.timestamps { 3 } else { 4 };
        let blocks = (h.nsack as usize).min(room).min(h.sack.len());
        if blocks > 0 {
            put(&[OPT_NOP, OPT_NOP, OPT_SACK, 2 + 8 * blocks as u8], &mut n);
            for &(l, r) in &h.sack[..blocks] {
                let base = peer.wrapping_add(1);
                put(&base.wrapping_add(l as u32).to_be_bytes(), &mut n);
                put(&base.wrapping_add(r as u32).to_be_bytes(), &mut n);
            }
        }
    }
    let hlen = TCP_HEADER + n;
    // The simulated size charges the timestamp option (12 bytes with its padding) only.
    let charged = if shape.timestamps { 12 } else { 0 };
    let extra = n.saturating_sub(charged) as u32;
    o[0..2].copy_from_slice(&sport.to_be_bytes());
    o[2..4].copy_from_slice(&dport.to_be_bytes());
    o[4..8].copy_from_slice(&seq.to_be_bytes());
    o[8..12].copy_from_slice(&ack.to_be_bytes());
    o[12] = ((hlen / 4) as u8) << 4;
    o[13] = flags;
    o[14..16].copy_from_slice(&(window as u16).to_be_bytes());
    o[16..20].copy_from_slice(&[0, 0, 0, 0]);
    o[TCP_HEADER..hlen].copy_from_slice(&opt[..n]);
    (hlen, extra)
}

#[cfg(test)]
mod tests;
