//! A NIC transmit ring between the qdisc and the serializer (seed 001 §IV-B, Fig. 2): a FIFO of
//! `size` descriptors the driver fills from the qdisc while Byte Queue Limits allow it.
//! The ring only holds packets; the port does the accounting.
//!
//! A descriptor holds one packet, or with `gso` one GSO buffer ([`super::ring_gso`]).

use std::collections::VecDeque;

use super::ring_gso::{Gso, Seg};
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
    /// The IP bytes BQL learns of at the end of the packet being serialized (0: none).
    pub(crate) on_wire: u32,
    /// GSO descriptors, if the ring has them (boxed: a ring without them stays as it was).
    gso: Option<Box<Gso>>,
}

impl Ring {
    pub fn new(spec: &RingSpec) -> Self {
        Ring {
            size: spec.size as usize,
            q: VecDeque::with_capacity((spec.size as usize).min(1 << 16)),
            dql: Dql::new(spec.bql),
            on_wire: 0,
            bytes: 0,
            gso: spec.gso.then(|| Box::new(Gso::new(spec.size))),
        }
    }

    /// Whether descriptors hold GSO buffers.
    #[inline]
    pub fn gso(&self) -> bool {
        self.gso.is_some()
    }

    /// Descriptors in use.
    #[inline]
    pub fn descriptors(&self) -> usize {
        match &self.gso {
            None => self.q.len(),
            Some(g) => g.descriptors(),
        }
    }

    /// Whether the driver may hand the ring another packet: a free descriptor, and BQL's
    /// budget not yet overdrawn (Linux stops the queue only after the packet that crossed it).
    #[inline]
    pub fn has_room(&self) -> bool {
        self.descriptors() < self.size && self.dql.avail() >= 0
    }

    /// Whether the driver takes another packet from the qdisc: room for a new descriptor, or
    /// (GSO) the newest buffer's next segment to come, which needs none.
    #[inline]
    pub fn may_take(&self) -> bool {
        match &self.gso {
            None => self.has_room(),
            Some(g) => !g.holds() && (self.has_room() || g.expects_more()),
        }
    }

    #[inline]
    pub fn push(&mut self, pkt: PktId, bytes: u32, now: Instant) {
        self.dql.queued(bytes as u64);
        self.bytes += bytes as u64;
        self.q.push_back((pkt, bytes, now));
    }

    /// (GSO) Put `pkt`, segment `seg` of its buffer, on the ring: on the newest descriptor if
    /// it continues that descriptor's buffer, on a new one if one is free; otherwise it waits
    /// beside the ring for a free descriptor (the driver took it expecting the buffer's next
    /// segment). BQL counts every byte queued, the whole buffer's (Linux:
    /// `netdev_tx_sent_queue(skb->len)`); the queue stops only between buffers.
    pub fn offer(&mut self, pkt: PktId, bytes: u32, seg: Seg, now: Instant) {
        let room = self.has_room();
        let Some(g) = self.gso.as_deref_mut() else {
            return self.push(pkt, bytes, now);
        };
        if g.join(seg, bytes) || (room && g.open(seg, bytes)) {
            self.push(pkt, bytes, now);
        } else {
            self.bytes += bytes as u64;
            g.hold(pkt, bytes, now, seg);
        }
    }

    /// (GSO) The packet waiting for a descriptor takes one if one is free.
    pub fn place_held(&mut self) {
        if !self.gso.as_ref().is_some_and(|g| g.holds()) || !self.has_room() {
            return;
        }
        if let Some(g) = self.gso.as_deref_mut() {
            if let Some((pkt, bytes, at, seg)) = g.unhold() {
                g.open(seg, bytes);
                self.bytes -= bytes as u64;
                self.push(pkt, bytes, at);
            }
        }
    }

    /// The next packet for the wire, with when it reached the ring.
    #[inline]
    pub fn pop(&mut self) -> Option<(PktId, u32, Instant)> {
        let e = self.q.pop_front()?;
        self.bytes -= e.1 as u64;
        if let Some(g) = self.gso.as_deref_mut() {
            g.popped(e.1);
        }
        Some(e)
    }

    /// The packet just popped, of `bytes` IP bytes, starts its serialization: what BQL learns
    /// at its end (a GSO descriptor completes whole, at its last segment's end: Linux's
    /// completion counts the super-packet's bytes, `netdev_tx_completed_queue`).
    #[inline]
    pub fn started(&mut self, bytes: u32) {
        self.on_wire = match self.gso.as_deref_mut() {
            None => bytes,
            Some(g) => g.completes(),
        };
    }

    /// Packets past the qdisc and not yet on the wire: on the ring, and one waiting for a
    /// descriptor (GSO).
    pub fn len(&self) -> u64 {
        self.q.len() as u64 + self.gso.as_ref().map_or(0, |g| g.holds() as u64)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Their IP bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
#[path = "ring_tests.rs"]
mod tests;
