//! The packet store of the flow-queueing disciplines that keep a FIFO per flow queue (FQ-PIE,
//! CAKE): every queued packet in one slab, a flow queue's packets a chain through it, freed
//! slots on a free list. Nothing is allocated per packet once the slab has grown to the
//! discipline's backlog.

use super::flow_list::NIL;
use super::QItem;

/// One flow queue's packets: the first and last slot of its chain ([`NIL`] when empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PktChain {
    pub(crate) head: u32,
    pub(crate) tail: u32,
}

impl PktChain {
    pub(crate) const EMPTY: PktChain = PktChain {
        head: NIL,
        tail: NIL,
    };

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.head == NIL
    }
}

/// A packet and the next slot of its chain (or of the free list).
#[derive(Clone, Copy)]
struct Slot {
    item: QItem,
    next: u32,
}

pub(crate) struct PacketSlab {
    slots: Vec<Slot>,
    free: u32,
}

impl PacketSlab {
    /// A slab of `cap` free slots (built once, at the discipline's build).
    pub(crate) fn with_capacity(cap: usize) -> Self {
        let mut s = PacketSlab {
            slots: Vec::with_capacity(cap),
            free: NIL,
        };
        s.grow(cap);
        s
    }

    /// Add `n` free slots (at build time, or once when the backlog outgrows the slab).
    fn grow(&mut self, n: usize) {
        for _ in 0..n {
            self.slots.push(Slot {
                item: QItem::default(),
                next: self.free,
            });
            self.free = (self.slots.len() - 1) as u32;
        }
    }

    /// Append `item` to the chain `c`.
    #[inline]
    pub(crate) fn push_back(&mut self, c: &mut PktChain, item: QItem) {
        if self.free == NIL {
            self.grow(self.slots.len().max(64));
        }
        let s = self.free;
        self.free = self.slots[s as usize].next;
        self.slots[s as usize] = Slot { item, next: NIL };
        if c.tail == NIL {
            c.head = s;
        } else {
            self.slots[c.tail as usize].next = s;
        }
        c.tail = s;
    }

    /// Take the first packet of the chain `c`, if any.
    #[inline]
    pub(crate) fn pop_front(&mut self, c: &mut PktChain) -> Option<QItem> {
        let s = c.head;
        if s == NIL {
            return None;
        }
        let slot = self.slots[s as usize];
        c.head = slot.next;
        if slot.next == NIL {
            c.tail = NIL;
        }
        self.slots[s as usize].next = self.free;
        self.free = s;
        Some(slot.item)
    }

    /// Packets in the chain `c` (for tests: walks it).
    #[cfg(test)]
    pub(crate) fn count(&self, c: &PktChain) -> u32 {
        let (mut n, mut s) = (0, c.head);
        while s != NIL {
            n += 1;
            s = self.slots[s as usize].next;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: u32) -> QItem {
        QItem {
            id,
            bytes: 100,
            ..Default::default()
        }
    }

    /// Chains stay first in, first out however they interleave, and the slab grows past its
    /// first size without losing a packet.
    #[test]
    fn chains_are_fifo_and_the_slab_grows() {
        let mut slab = PacketSlab::with_capacity(2);
        let (mut a, mut b) = (PktChain::EMPTY, PktChain::EMPTY);
        for i in 0..100 {
            slab.push_back(if i % 3 == 0 { &mut a } else { &mut b }, item(i));
        }
        assert_eq!((slab.count(&a), slab.count(&b)), (34, 66));
        let got: Vec<u32> = std::iter::from_fn(|| slab.pop_front(&mut a).map(|x| x.id)).collect();
        assert_eq!(got, (0..100).step_by(3).collect::<Vec<_>>());
        assert!(a.is_empty() && a == PktChain::EMPTY);
        slab.push_back(&mut a, item(500));
        assert_eq!(slab.pop_front(&mut b).unwrap().id, 1);
        assert_eq!(slab.pop_front(&mut a).unwrap().id, 500);
        assert_eq!(slab.pop_front(&mut a), None);
    }
}
