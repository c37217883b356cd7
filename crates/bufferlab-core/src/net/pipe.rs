//! A link's propagation pipe: the packets on the wire with their arrival times, oldest first.
//!
//! A ring whose every slot holds a value (a `VecDeque`'s free slots cannot be named), so that
//! the engine's look-ahead can bring in the slot the next packet sent on the link is written
//! to: with thousands of links, that line is a cache miss of its own at each hop.

use super::ahead::Ahead;
use crate::packet::PktId;
use crate::time::Instant;

/// A packet on the wire: when it arrives at the far end, and what it touches first there.
pub type Entry = (Instant, PktId, Ahead);

const UNUSED: Entry = (Instant::ZERO, 0, Ahead::NONE);

pub struct Pipe {
    /// A power of two of slots; `len` of them from `head` (wrapping) are in use. (Indices of 4
    /// bytes: the pipe's header is 32 bytes, as a `VecDeque`'s, half a port's line.)
    slots: Vec<Entry>,
    head: u32,
    len: u32,
}

impl Pipe {
    /// Room for `n` packets (rounded up to a power of two) before the ring grows.
    pub fn with_capacity(n: usize) -> Self {
        Pipe {
            slots: vec![UNUSED; n.max(1).next_power_of_two()],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head as usize + i) & (self.slots.len() - 1)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, e: Entry) {
        if self.len() == self.slots.len() {
            self.grow();
        }
        let i = self.slot(self.len());
        self.slots[i] = e;
        self.len += 1;
    }

    /// Take the oldest packet. Emptied, the ring starts over at its first slot, so a link with
    /// one packet in flight at a time keeps using one cache line instead of walking through the
    /// whole ring.
    #[inline]
    pub fn pop_front(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = self.slots[self.head as usize];
        self.len -= 1;
        self.head = if self.len == 0 {
            0
        } else {
            self.slot(1) as u32
        };
        Some(e)
    }

    /// The `i`-th oldest packet.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Entry> {
        (i < self.len()).then(|| &self.slots[self.slot(i)])
    }

    #[inline]
    pub fn front(&self) -> Option<&Entry> {
        self.get(0)
    }

    /// The slot the next [`Pipe::push_back`] writes (while the ring has room).
    #[inline]
    pub fn next_slot(&self) -> &Entry {
        &self.slots[self.slot(self.len())]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Entry> + '_ {
        (0..self.len()).map(|i| &self.slots[self.slot(i)])
    }

    /// Double the ring, the packets in order from its first slot (off the hot path).
    #[cold]
    fn grow(&mut self) {
        let mut v = Vec::with_capacity(2 * self.slots.len());
        v.extend(self.iter().copied());
        v.resize(2 * self.slots.len(), UNUSED);
        self.slots = v;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(k: u32) -> Entry {
        (Instant::from_ns(k as u64), k, Ahead::NONE)
    }

    /// First in, first out, through growth and wrap-around, against a `VecDeque`.
    #[test]
    fn a_fifo_like_vecdeque() {
        let mut p = Pipe::with_capacity(3);
        let mut q = std::collections::VecDeque::new();
        let mut k = 0;
        for round in 0..40u32 {
            for _ in 0..(round * 7) % 11 {
                k += 1;
                p.push_back(e(k));
                q.push_back(e(k));
            }
            for _ in 0..(round * 5) % 9 {
                assert_eq!(p.pop_front(), q.pop_front());
            }
            assert_eq!(p.len(), q.len());
            assert_eq!(p.front(), q.front());
            assert_eq!(p.get(1), q.get(1));
            assert!(p.iter().eq(q.iter()));
            if !p.is_empty() {
                let next = p.slot(p.len());
                p.push_back(e(0));
                assert!(std::ptr::eq(&p.slots[next], p.get(p.len() - 1).unwrap()));
                q.push_back(e(0));
            }
        }
    }

    /// Emptied, the ring starts over at its first slot.
    #[test]
    fn an_emptied_pipe_starts_over() {
        let mut p = Pipe::with_capacity(4);
        p.push_back(e(1));
        p.push_back(e(2));
        p.pop_front();
        p.pop_front();
        assert!(std::ptr::eq(p.next_slot(), &p.slots[0]));
    }
}
