//! Packets and the arena that owns them.
//!
//! A packet is a small `Copy` header (no payload bytes: only sizes matter). Packets live in an
//! arena and are referred to by index, so moving one through queues and links copies 4 bytes and
//! steady-state runs allocate nothing per packet.

use crate::time::{Duration, Instant};

/// Index of a packet in the [`Arena`].
pub type PktId = u32;

/// Index of a node in the topology.
pub type NodeId = u32;

/// Index of an agent (a traffic endpoint: source, sink, TCP sender or receiver, ...).
pub type AgentId = u32;

/// Index of a flow: one row of the flows table.
pub type FlowId = u32;

/// What a packet carries; the receiving agent interprets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Proto {
    #[default]
    Udp,
    /// ICMP echo request (ping).
    EchoRequest,
    /// ICMP echo reply.
    EchoReply,
    /// A TCP segment (data, pure ACK, SYN, FIN: see [`TcpHeader::flags`]).
    Tcp,
}

/// TCP flag bits.
pub mod tcp_flags {
    pub const SYN: u8 = 0x02;
    pub const FIN: u8 = 0x01;
    pub const ACK: u8 = 0x10;
    /// Push (RFC 9293 §3.9.1): the segment ends what the sender handed its peer in one piece.
    pub const PSH: u8 = 0x08;
    /// ECN-Echo (RFC 3168 §6.1): the receiver saw CE; on a SYN with CWR, "I am ECN-capable".
    pub const ECE: u8 = 0x40;
    /// Congestion Window Reduced (RFC 3168 §6.1.2): the sender has reduced for the ECE.
    pub const CWR: u8 = 0x80;
}

/// The IP header's ECN field (RFC 3168 §5), with the codepoints' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable: an AQM drops it.
    #[default]
    NotEct = 0,
    /// ECN-capable transport, ECT(1) (RFC 3168; L4S's identifier, RFC 9331).
    Ect1 = 1,
    /// ECN-capable transport, ECT(0): what an RFC 3168 sender sets.
    Ect0 = 2,
    /// Congestion Experienced: set by an AQM in place of a drop.
    Ce = 3,
}

impl Ecn {
    /// The field's two bits (from an IP header's TOS byte: `tos & 3`).
    pub fn from_bits(b: u8) -> Ecn {
        match b & 3 {
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            3 => Ecn::Ce,
            _ => Ecn::NotEct,
        }
    }

    /// Whether an AQM may mark it instead of dropping it (ECT or already CE: Linux's
    /// `INET_ECN_set_ce` succeeds on both).
    #[inline]
    pub fn markable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// At most this many SACK blocks fit in one segment (RFC 2018 §3: 3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The TCP part of a packet. Sequence numbers are 64-bit byte offsets: no wrap-around to handle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Connection number within the flow (web traffic multiplexes many connections on one flow).
    pub conn: u32,
    /// First byte of the payload.
    pub seq: u64,
    /// Payload length in bytes (0 for a pure ACK).
    pub len: u32,
    /// Cumulative acknowledgement: next byte expected.
    pub ack: u64,
    pub flags: u8,
    /// The AE flag (RFC 9768 §3.1, the bit before CWR, once the ECN nonce's): with CWR and ECE
    /// it makes the ACE field of AccECN feedback.
    pub ae: bool,
    /// Receiver window in bytes.
    pub rwnd: u32,
    /// SACK blocks `[start, end)`; only the first `nsack` are meaningful (RFC 2018).
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// Timestamp value (RFC 7323 TSval), in ns: the sender's clock when it sent the segment.
    pub ts_val: Instant,
    /// Timestamp echo reply (TSecr).
    pub ts_ecr: Instant,
}

impl TcpHeader {
    /// The 3-bit ACE field (RFC 9768 §3.2.2): AE, CWR, ECE from most to least significant.
    #[inline]
    pub fn ace(&self) -> u8 {
        ((self.ae as u8) << 2)
            | ((self.flags & tcp_flags::CWR != 0) as u8 * 2)
            | (self.flags & tcp_flags::ECE != 0) as u8
    }

    /// Set the ACE field to `v` mod 8.
    #[inline]
    pub fn set_ace(&mut self, v: u8) {
        self.ae = v & 4 != 0;
        self.flags &= !(tcp_flags::CWR | tcp_flags::ECE);
        if v & 2 != 0 {
            self.flags |= tcp_flags::CWR;
        }
        if v & 1 != 0 {
            self.flags |= tcp_flags::ECE;
        }
    }
}

/// A packet header. Sizes are IP packet sizes in bytes; link framing is added by the link.
///
/// Laid out by hand (`repr(C)`): what a router reads to forward a packet (destination, TTL, size,
/// flow, ECN field, the stamped RTT) fills the first 32 bytes, and the alignment of 32 keeps those
/// bytes inside one cache line of the arena, so a hop through a router touches one line of the
/// packet, not the three it spans (with tens of thousands of packets in flight, that line is a
/// cache miss at every hop). Field order changes nothing else: no code reads the bytes.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub struct Packet {
    /// The sender's smoothed RTT when it sent the packet, `Duration::ZERO` when it has none (no
    /// RTT is zero; an `Option` would grow every header by 8 bytes) (seed 004 §III-A: "active RTT
    /// estimation" stamped in the header, read by SplitBuff).
    pub srtt_ns: Duration,
    pub flow: FlowId,
    pub dst: NodeId,
    /// IP packet size in bytes (headers included).
    pub size: u32,
    pub src: NodeId,
    /// IP time to live, decremented by each router (not by the sending host).
    pub ttl: u8,
    /// The IP header's ECN field.
    pub ecn: Ecn,
    pub proto: Proto,
    /// Segments of the same GSO buffer that follow this one (0: the buffer's last, or a packet
    /// sent alone). A TCP sender writes it on each segment of a GSO burst; a NIC ring with
    /// `gso` on puts the segments of one buffer that reach it in a row on one descriptor, as
    /// Linux's driver gets the buffer whole (`net/ring.rs`). It fills the byte of padding after
    /// `proto`: the header does not grow.
    pub gso_left: u8,
    // Below: read by the agents at the ends (and by `fq`, CAKE and captures).
    /// Agent that sent the packet (replies go back to it).
    pub src_agent: AgentId,
    /// Agent that receives the packet at `dst`.
    pub dst_agent: AgentId,
    /// When the source emitted it.
    pub created: Instant,
    /// Sequence number for UDP and ping (per flow).
    pub seq: u64,
    /// The earliest time the sending host's egress may send it (Linux `skb->tstamp` under the
    /// "earliest departure time" model: a TCP sender stamps every packet, advancing the stamp by
    /// each segment's time at its pacing rate when an `fq` qdisc paces it); `Instant::ZERO`:
    /// now. Read only by `fq`, at the sending host.
    pub tstamp: Instant,
    pub tcp: TcpHeader,
}

/// Owner of all live packets. Freed slots are reused, so memory stays flat in steady state.
#[derive(Default)]
pub struct Arena {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    live: u64,
}

impl Arena {
    pub fn with_capacity(n: usize) -> Self {
        Arena {
            slots: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
            live: 0,
        }
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            if self.slots.len() == self.slots.capacity() {
                self.grow();
            }
            self.slots.push(p);
            (self.slots.len() - 1) as PktId
        }
    }

    /// Double the slots (off the hot path).
    #[cold]
    fn grow(&mut self) {
        let mut v = Vec::with_capacity((2 * self.slots.capacity()).max(64));
        v.extend_from_slice(&self.slots);
        self.slots = v;
    }

    #[inline]
    pub fn free(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Prefetch every cache line of packet `id`'s slot: it is handled a moment later (the
    /// engine's look-ahead).
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::line(&p.srtt_ns);
            crate::prefetch::line(&p.tcp.sack);
            crate::prefetch::line(&p.tcp.ts_val);
        }
    }

    /// Prefetch the first line of packet `id`'s slot (what a port reads to send it: its
    /// destination and flow).
    #[inline]
    pub fn prefetch_head(&self, id: PktId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::prefetch::line(&p.srtt_ns);
        }
    }

    /// Packets allocated and not yet freed.
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Slots ever allocated (the arena's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a router reads lies in the first 32 bytes (one cache line at the alignment of 32).
    #[test]
    fn router_fields_share_a_line() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Packet>(), 32);
        assert_eq!(size_of::<Packet>() % 32, 0);
        // `gso_left` took a byte of padding: the header is still five half-lines.
        assert_eq!(size_of::<Packet>(), 160);
        assert_eq!(offset_of!(Packet, gso_left), 27);
        for end in [
            offset_of!(Packet, srtt_ns) + 8,
            offset_of!(Packet, flow) + 4,
            offset_of!(Packet, dst) + 4,
            offset_of!(Packet, size) + 4,
            offset_of!(Packet, ttl) + 1,
            offset_of!(Packet, ecn) + 1,
        ] {
            assert!(end <= 32, "{end}");
        }
    }

    /// `Arena::prefetch` asks for every cache line a slot spans, at either offset the
    /// alignment of 32 leaves a slot within a line.
    #[test]
    fn prefetch_covers_every_line() {
        use std::mem::{offset_of, size_of};
        let tcp = offset_of!(Packet, tcp);
        let read = [
            offset_of!(Packet, srtt_ns),
            tcp + offset_of!(TcpHeader, sack),
            tcp + offset_of!(TcpHeader, ts_val),
        ];
        for start in [0, 32] {
            let lines = |o: usize| (start + o) / 64;
            let all: std::collections::BTreeSet<_> = (0..size_of::<Packet>()).map(lines).collect();
            let hit: std::collections::BTreeSet<_> = read.iter().map(|&o| lines(o)).collect();
            assert_eq!(hit, all, "slot at {start} mod 64");
        }
    }

    #[test]
    fn arena_reuses_slots() {
        let mut a = Arena::default();
        let x = a.alloc(Packet {
            size: 100,
            ..Default::default()
        });
        let y = a.alloc(Packet {
            size: 200,
            ..Default::default()
        });
        a.free(x);
        let z = a.alloc(Packet {
            size: 300,
            ..Default::default()
        });
        assert_eq!(z, x);
        assert_eq!(a.get(z).size, 300);
        assert_eq!(a.get(y).size, 200);
        assert_eq!(a.live(), 2);
        assert_eq!(a.capacity_used(), 2);
    }
}
