//! A first-in first-out ring whose every slot holds a value (a `VecDeque`'s free slots cannot
//! be named), so that the engine's look-ahead can bring in the slot the next value is written
//! to: a link's pipe (the packets on the wire) and a FIFO's queue. With thousands of ports,
//! that line is a cache miss of its own at each hop.

pub struct SlotRing<T> {
    /// A power of two of slots; `len` of them from `head` (wrapping) are in use. (Indices of 4
    /// bytes: the header is 32 bytes, as a `VecDeque`'s.)
    slots: Vec<T>,
    head: u32,
    len: u32,
}

impl<T: Copy + Default> SlotRing<T> {
    /// Room for `n` values (rounded up to a power of two) before the ring grows.
    pub fn with_capacity(n: usize) -> Self {
        SlotRing {
            slots: vec![T::default(); n.max(1).next_power_of_two()],
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
    pub fn push_back(&mut self, e: T) {
        if self.len() == self.slots.len() {
            self.grow();
        }
        let i = self.slot(self.len());
        self.slots[i] = e;
        self.len += 1;
    }

    /// Take the oldest value. Emptied, the ring starts over at its first slot, so a link with one
    /// packet in flight at a time (or a queue that keeps emptying) keeps using one cache line
    /// instead of walking through the whole ring.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
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

    /// The `i`-th oldest value.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len()).then(|| &self.slots[self.slot(i)])
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The slot the next [`SlotRing::push_back`] writes (while the ring has room).
    #[inline]
    pub fn next_slot(&self) -> &T {
        &self.slots[self.slot(self.len())]
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).map(|i| &self.slots[self.slot(i)])
    }

    /// Double the ring, the values in order from its first slot (off the hot path).
    #[cold]
    fn grow(&mut self) {
        let mut v = Vec::with_capacity(2 * self.slots.len());
        v.extend(self.iter().copied());
        v.resize(2 * self.slots.len(), T::default());
        self.slots = v;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(k: u32) -> (u64, u32) {
        (k as u64 * 3, k)
    }

    /// First in, first out, through growth and wrap-around, against a `VecDeque`.
    #[test]
    fn a_fifo_like_vecdeque() {
        let mut p = SlotRing::with_capacity(3);
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
        let mut p = SlotRing::with_capacity(4);
        p.push_back(e(1));
        p.push_back(e(2));
        p.pop_front();
        p.pop_front();
        assert!(std::ptr::eq(p.next_slot(), &p.slots[0]));
    }
}
