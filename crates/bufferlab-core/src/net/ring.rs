//! A NIC transmit ring between the qdisc and the serializer (seed 001 §IV-B, Fig. 2): a FIFO of
//! `size` descriptors the driver fills from the qdisc while Byte Queue Limits allow it.
//! The ring only holds packets; the port does the accounting.

use std::collections::VecDeque;

use crate::packet::PktId;
use crate::qdisc::bql::Dql;
use crate::scenario::RingSpec;
use crate::time::Instant;

pub struct Ring {
    size: usize,
    /// Packets on the ring with their IP bytes and when they were put there.
    q: VecDeque<(PktId, u32, Instant)>,
    pub dql: Dql,
    bytes: u64,
    /// The IP bytes of the packet being serialized, for BQL's completion count (0: none).
    pub(crate) on_wire: u32,
}

impl Ring {
    pub fn new(spec: &RingSpec) -> Self {
        Ring {
            size: spec.size as usize,
            q: VecDeque::with_capacity((spec.size as usize).min(1 << 16)),
            dql: Dql::new(spec.bql),
            on_wire: 0,
            bytes: 0,
        }
    }

    /// Whether the driver may hand the ring another packet: a free descriptor, and BQL's
    /// budget not yet overdrawn (Linux stops the queue only after the packet that crossed it).
    #[inline]
    pub fn has_room(&self) -> bool {
        self.q.len() < self.size && self.dql.avail() >= 0
    }

    #[inline]
    pub fn push(&mut self, pkt: PktId, bytes: u32, now: Instant) {
        self.dql.queued(bytes as u64);
        self.bytes += bytes as u64;
        self.q.push_back((pkt, bytes, now));
    }

    /// The next packet for the wire, with when it reached the ring.
    #[inline]
    pub fn pop(&mut self) -> Option<(PktId, u32, Instant)> {
        let e = self.q.pop_front()?;
        self.bytes -= e.1 as u64;
        Some(e)
    }

    pub fn len(&self) -> u64 {
        self.q.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}
