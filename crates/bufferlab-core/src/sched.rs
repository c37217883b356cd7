//! The event queue: a binary heap ordered by (time, sequence number).
//!
//! The sequence number breaks ties in insertion order, so two events at the same nanosecond always
//! run in the order they were scheduled and a run is repeatable bit for bit.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Instant;

/// What happens. Small and `Copy`: it names the component; the component holds the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// A port finished serializing the packet on its wire.
    TxDone(u32),
    /// The packet at the head of a port's propagation pipe reaches the far end.
    Arrive(u32),
    /// An agent's timer.
    Timer { agent: u32, token: u32 },
    /// A queue discipline's timer (PIE's periodic update).
    QdiscTimer(u32),
    /// Record one row of time series.
    Sample,
}

/// An event with its order key: time in the high 64 bits, sequence number in the low ones, so
/// ordering by (time, sequence) is one integer comparison in the heap's inner loop.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Ev,
}

impl Entry {
    #[inline]
    fn at(&self) -> Instant {
        Instant::from_ns((self.key >> 64) as u64)
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

#[derive(Default)]
pub struct Sched {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl Sched {
    pub fn with_capacity(n: usize) -> Self {
        Sched {
            heap: BinaryHeap::with_capacity(n),
            seq: 0,
        }
    }

    #[inline]
    pub fn at(&mut self, at: Instant, ev: Ev) {
        self.seq += 1;
        self.heap.push(Entry {
            key: (at.as_ns() as u128) << 64 | self.seq as u128,
            ev,
        });
    }

    /// The next event if it is due before `end`.
    #[inline]
    pub fn pop_before(&mut self, end: Instant) -> Option<(Instant, Ev)> {
        match self.heap.peek() {
            Some(e) if e.at() < end => self.heap.pop().map(|e| (e.at(), e.ev)),
            _ => None,
        }
    }

    /// When the next event is due, if any (what a wall-clock driver sleeps until).
    #[inline]
    pub fn next_at(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.at())
    }

    pub fn pending(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_then_insertion_order() {
        let t = Instant::from_ns;
        let mut s = Sched::default();
        s.at(t(5), Ev::Sample);
        s.at(t(3), Ev::TxDone(1));
        s.at(t(5), Ev::TxDone(2));
        s.at(t(3), Ev::TxDone(3));
        let got: Vec<_> = std::iter::from_fn(|| s.pop_before(t(10))).collect();
        assert_eq!(
            got,
            vec![
                (t(3), Ev::TxDone(1)),
                (t(3), Ev::TxDone(3)),
                (t(5), Ev::Sample),
                (t(5), Ev::TxDone(2))
            ]
        );
        s.at(t(10), Ev::Sample);
        assert_eq!(s.pop_before(t(10)), None);
    }

    /// Against a sorted reference: a random mix of pushes and pops, each new event at or after
    /// the last popped one (as the engine schedules) or now and then before it, and stops at
    /// `end`.
    #[test]
    fn matches_a_sorted_reference() {
        use rand::{Rng as _, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut s = Sched::default();
        let mut reference = std::collections::BTreeSet::<(u64, u64, u32)>::new();
        let (mut now, mut n) = (0u64, 0u64);
        for step in 0..200_000u32 {
            if rng.gen_bool(0.52) {
                let at = if rng.gen_bool(0.001) {
                    now.saturating_sub(rng.gen_range(0..1000))
                } else if rng.gen_bool(0.2) {
                    now
                } else {
                    let span = 1u64 << rng.gen_range(0..40);
                    now + rng.gen_range(0..span)
                };
                n += 1;
                s.at(Instant::from_ns(at), Ev::TxDone(step));
                reference.insert((at, n, step));
            } else {
                let end = now + rng.gen_range(0..1u64 << 20);
                let want = match reference.first() {
                    Some(&(at, _, id)) if at < end => {
                        reference.pop_first();
                        Some((Instant::from_ns(at), Ev::TxDone(id)))
                    }
                    _ => None,
                };
                assert_eq!(s.pop_before(Instant::from_ns(end)), want, "step {step}");
                if let Some((at, _)) = want {
                    now = at.as_ns();
                }
            }
            assert_eq!(s.pending(), reference.len());
        }
    }
}
