//! The event queue: a radix heap ordered by (time, sequence number).
//!
//! The sequence number breaks ties in insertion order, so two events at the same nanosecond always
//! run in the order they were scheduled and a run is repeatable bit for bit.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::net::ahead::Ahead;
use crate::time::Instant;

/// What happens. Small and `Copy`: it names the component; the component holds the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// A port finished serializing the packet on its wire.
    TxDone(u32),
    /// The packet at the head of a port's propagation pipe reaches the far end (`pkt`, that
    /// packet, is named so that the engine can bring its slot into the cache before it comes, and
    /// so is what the packet touches first there, `ahead`).
    Arrive { port: u32, pkt: u32, ahead: Ahead },
    /// An agent's timer.
    Timer { agent: u32, token: u32 },
    /// A packet of connection `conn` left the host's egress while the agent that sent it waited
    /// for that (TCP small queues).
    TxWake { agent: u32, conn: u32 },
    /// A queue discipline's timer (PIE's periodic update, `fq`'s watchdog).
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

/// Bits of a key per digit of the radix heap, and the values a digit takes.
const DIGIT_BITS: u32 = 4;
const DIGIT_VALUES: usize = 1 << DIGIT_BITS;
/// Buckets of the radix heap: one per (digit position, value) of a 128-bit key.
const BUCKETS: usize = 128 / DIGIT_BITS as usize * DIGIT_VALUES;
/// The largest bucket sorted into the front whole; a larger one is spread over the lower
/// buckets first. Sorting a few dozen keys costs less than moving each one down a digit or more,
/// and an insertion into a front this short moves few entries.
const FRONT_MAX: usize = 48;

/// A radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) over the (time, sequence) keys, in its
/// multi-digit form: the engine takes events in key order and schedules none before the one it
/// is running, so a key only has to be compared with the last one taken. Keys are read as 32
/// digits of 4 bits; bucket `16 d + v` holds the keys whose highest digit differing from the
/// last key taken is digit `d` and has the value `v` there. Every key of a bucket is below every
/// key of a later one, and a bucket of digit 0 holds one key, so the first full bucket holds the
/// smallest key: taken at once if its digit is 0, otherwise spread over lower buckets from that
/// bucket's smallest key (each move takes a key at least one digit lower: at most 32 moves).
/// A push is one append. The buckets are plain vectors walked in order, where a binary heap of
/// tens of thousands of events (every link's next arrival, every connection's timer in a
/// many-flow run) spent a fifth of the run on cache misses in its sift; digits of 4 bits move a
/// key a quarter as often as the one-bit radix heap this replaced (the bucket of the highest
/// differing bit alone). The order is the same total order, so runs are the same bit for bit.
///
/// In front of the buckets, a short run of the next events sorted (`front`): a bucket of at most
/// [`FRONT_MAX`] keys is sorted there whole when its turn comes, instead of being spread over the
/// lower buckets key by key (the many arrivals due within a few microseconds of a many-flow run),
/// and the engine can read the events after the next one there, to start their cache misses
/// several events early ([`Sched::peek_nth`]). Every front key is below every bucketed key, and
/// `last` is then the front's largest key (a key of the bucket it came from, so the other buckets
/// stay where they belong); a new key below it goes into the front in its place.
///
/// An event scheduled before the last one taken (none in the engine today) goes to a small
/// binary heap of its own, taken first: everything in it is earlier than every bucketed key.
pub struct Sched {
    /// The key the buckets are placed by: the last key taken, or the front's largest key while
    /// the front holds any.
    last: u128,
    /// The last key taken.
    taken: u128,
    /// The next events, sorted by key from the last to the first (the next one is popped off the
    /// end).
    front: Vec<Entry>,
    buckets: Vec<Vec<Entry>>,
    /// Which buckets hold events (bit `i % 64` of word `i / 64`): the first one is found without
    /// walking the bucket headers.
    full: [u64; BUCKETS / 64],
    past: BinaryHeap<Entry>,
    len: usize,
    seq: u64,
}

impl Default for Sched {
    fn default() -> Self {
        Sched::with_capacity(0)
    }
}

impl Sched {
    pub fn with_capacity(n: usize) -> Self {
        let mut buckets: Vec<Vec<Entry>> = (0..BUCKETS).map(|_| Vec::new()).collect();
        // The high buckets take the far-future events (timers); the low ones fill as they come.
        buckets[BUCKETS - 1].reserve(n);
        Sched {
            last: 0,
            taken: 0,
            front: Vec::with_capacity(FRONT_MAX + 64),
            buckets,
            full: [0; BUCKETS / 64],
            past: BinaryHeap::new(),
            len: 0,
            seq: 0,
        }
    }

    #[inline]
    fn bucket(&self, key: u128) -> usize {
        let x = key ^ self.last;
        // The highest differing digit (0 when the key is the last one).
        let d = (127 - x.leading_zeros().min(127)) / DIGIT_BITS;
        let v = (key >> (d * DIGIT_BITS)) as usize & (DIGIT_VALUES - 1);
        d as usize * DIGIT_VALUES + v
    }

    #[inline]
    pub fn at(&mut self, at: Instant, ev: Ev) {
        let seq = self.reserve();
        self.at_reserved(at, seq, ev);
    }

    /// Take the next place in the order of insertion now, for an event scheduled later with
    /// [`Sched::at_reserved`]: it runs as if it had been scheduled now.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedule `ev` at `at` in the place `seq` taken by [`Sched::reserve`].
    #[inline]
    pub fn at_reserved(&mut self, at: Instant, seq: u64, ev: Ev) {
        let e = Entry {
            key: (at.as_ns() as u128) << 64 | seq as u128,
            ev,
        };
        self.len += 1;
        if e.key > self.last {
            let b = self.bucket(e.key);
            self.put(b, e);
        } else if e.key > self.taken {
            // Inside the front's span (only while the front holds keys: `last` is `taken`
            // otherwise): in its place, found from the end, where the next keys are (in a
            // many-flow run, a few places from it: a walk beats a binary search's mispredicted
            // branches there).
            let f = &mut self.front;
            f.push(e);
            let mut i = f.len() - 1;
            while i > 0 && f[i - 1].key < e.key {
                f[i] = f[i - 1];
                i -= 1;
            }
            f[i] = e;
        } else {
            self.past.push(e);
        }
    }

    #[inline]
    fn put(&mut self, b: usize, e: Entry) {
        self.buckets[b].push(e);
        self.full[b / 64] |= 1 << (b % 64);
    }

    /// The lowest bucket holding events.
    #[inline]
    fn first_full(&self) -> Option<usize> {
        self.full
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// Bring the next events into the (empty) front: the first full bucket sorted whole if it is
    /// short, otherwise spread over lower buckets until its smallest key is alone
    /// (in a bucket of digit 0), which then makes the front. `false` if no event is bucketed.
    ///
    /// Called only when the front is empty (once a bucket): `pop_before` and `peek` test the
    /// front themselves. A call at each of them cost 37 instructions an event (the function
    /// is too large to inline and saved its registers before its first test): 3.5% of a
    /// many-flow run's instructions (cachegrind, `docs/BENCHMARKS.md`, 2026-11-27).
    #[inline(never)]
    fn settle(&mut self) -> bool {
        debug_assert!(self.front.is_empty(), "settle is for an empty front");
        let Some(i) = self.first_full() else {
            return false;
        };
        self.full[i / 64] &= !(1 << (i % 64));
        if i >= DIGIT_VALUES && self.buckets[i].len() > FRONT_MAX {
            let mut b = std::mem::take(&mut self.buckets[i]);
            self.last = b.iter().map(|e| e.key).min().unwrap_or(self.last);
            for e in b.drain(..) {
                let to = self.bucket(e.key);
                self.put(to, e);
            }
            // Keep the emptied bucket's memory for its next turn.
            self.buckets[i] = b;
            // The smallest key is now the last one: digit 0, its own value, alone there. The
            // keys of the other buckets of digit 0 differ from it in that digit alone: they stay.
            let j = self.last as usize & (DIGIT_VALUES - 1);
            self.full[0] &= !(1 << j);
            let e = self.buckets[j].pop();
            self.front.extend(e);
            return true;
        }
        // A bucket of digit 0 holds one key; a short one is sorted whole. Its largest key becomes
        // `last`: every other bucket's keys differ from it where they differed from the old one.
        let (front, b) = (&mut self.front, &mut self.buckets[i]);
        front.append(b);
        front.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        self.last = front[0].key;
        true
    }

    /// The next event if it is due before `end`.
    #[inline]
    pub fn pop_before(&mut self, end: Instant) -> Option<(Instant, Ev)> {
        let e = if let Some(p) = self.past.peek() {
            if p.at() >= end {
                return None;
            }
            self.past.pop()?
        } else {
            if self.front.is_empty() && !self.settle() {
                return None;
            }
            if self.front.last()?.at() >= end {
                return None;
            }
            let e = self.front.pop()?;
            self.taken = e.key;
            e
        };
        self.len -= 1;
        Some((e.at(), e.ev))
    }

    /// The event to be taken next unless one is scheduled before it meanwhile, brought to the
    /// front now: the engine reads it while it handles the current one, to start the cache misses
    /// of the next one early. It costs nothing beyond the next `pop_before` (the bucket is
    /// settled once either way); an event scheduled before it afterwards is taken first, as it
    /// must be.
    #[inline]
    pub fn peek(&mut self) -> Option<(Instant, Ev)> {
        if let Some(p) = self.past.peek() {
            return Some((p.at(), p.ev));
        }
        if self.front.is_empty() && !self.settle() {
            return None;
        }
        self.front.last().map(|e| (e.at(), e.ev))
    }

    /// The event `n` places after the next one, if the front holds it (after a [`Sched::peek`]):
    /// what the engine warms several events ahead. Only a hint: an event scheduled meanwhile
    /// may come before it.
    #[inline]
    pub fn peek_nth(&self, n: usize) -> Option<Ev> {
        if !self.past.is_empty() {
            return None;
        }
        let i = self.front.len().checked_sub(n + 1)?;
        Some(self.front[i].ev)
    }

    /// When the next event is due, if any (what a wall-clock driver sleeps until).
    pub fn next_at(&self) -> Option<Instant> {
        if let Some(p) = self.past.peek() {
            return Some(p.at());
        }
        if let Some(e) = self.front.last() {
            return Some(e.at());
        }
        self.buckets[self.first_full()?]
            .iter()
            .map(|e| e.key)
            .min()
            .map(|k| Instant::from_ns((k >> 64) as u64))
    }

    pub fn pending(&self) -> usize {
        self.len
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

    /// An event scheduled later in a place reserved earlier runs as if scheduled then; `peek`
    /// shows the next event without taking it, and an event scheduled before it afterwards still
    /// comes first.
    #[test]
    fn reserved_places_and_peek() {
        let t = Instant::from_ns;
        let mut s = Sched::default();
        s.at(t(5), Ev::TxDone(1));
        let seq = s.reserve();
        s.at(t(5), Ev::TxDone(3));
        s.at_reserved(t(5), seq, Ev::TxDone(2));
        s.at(t(9), Ev::TxDone(5));
        assert_eq!(s.pop_before(t(10)), Some((t(5), Ev::TxDone(1))));
        assert_eq!(s.peek(), Some((t(5), Ev::TxDone(2))));
        s.at(t(7), Ev::TxDone(4));
        let got: Vec<_> = std::iter::from_fn(|| s.pop_before(t(10)).map(|e| e.1)).collect();
        assert_eq!(
            got,
            [2, 3, 4, 5].map(Ev::TxDone).to_vec(),
            "reserved place kept"
        );
        s.at(t(10), Ev::Sample);
        assert_eq!(s.peek(), Some((t(10), Ev::Sample)));
        s.at(t(10), Ev::TxDone(6));
        assert_eq!(s.pop_before(t(11)), Some((t(10), Ev::Sample)));
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
        let (mut now, mut n, mut shown) = (0u64, 0u64, 0u64);
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
                // What the front shows ahead is what comes next, unless scheduled before it
                // (half the time: a pop must not need a peek before it).
                if rng.gen_bool(0.5) {
                    let next: Vec<_> = reference.iter().take(4).map(|e| Ev::TxDone(e.2)).collect();
                    let at = reference.first().map(|e| Instant::from_ns(e.0));
                    assert_eq!(s.peek(), at.zip(next.first().copied()), "step {step}");
                    for (n, want) in next.iter().enumerate().skip(1) {
                        if let Some(ev) = s.peek_nth(n) {
                            assert_eq!(ev, *want, "step {step}, {n} ahead");
                            shown += 1;
                        }
                    }
                }
            }
            assert_eq!(s.pending(), reference.len());
        }
        assert!(shown > 10_000, "the front showed {shown} events ahead");
    }
}
