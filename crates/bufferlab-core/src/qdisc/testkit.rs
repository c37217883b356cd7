//! A tiny synthetic link for discipline unit tests: arrivals from a schedule, one serializer at
//! a fixed rate, the discipline's timer honoured. Mirrors what a port does, without the engine.

use super::{DropReason, Drops, QItem, QueueDisc};
use crate::time::{tx_time, Duration, Instant};

#[derive(Default)]
pub(crate) struct Trace {
    /// (dequeue time, item) of every packet sent.
    pub sent: Vec<(Instant, QItem)>,
    /// (time, item, reason) of every drop.
    pub drops: Vec<(Instant, QItem, DropReason)>,
}

impl Trace {
    /// How long each packet of `flow` waited, from its arrival to its dequeue.
    pub fn waits(&self, flow: u32) -> Vec<Duration> {
        self.sent
            .iter()
            .filter(|s| s.1.flow == flow)
            .map(|(t, it)| *t - it.enq)
            .collect()
    }

    /// The longest wait of a packet of any flow but `flow`.
    pub fn longest_wait_but(&self, flow: u32) -> Duration {
        self.sent
            .iter()
            .filter(|s| s.1.flow != flow)
            .map(|(t, it)| *t - it.enq)
            .max()
            .unwrap_or(Duration::ZERO)
    }

    pub fn aqm_drop_times(&self) -> Vec<Instant> {
        self.drops
            .iter()
            .filter(|d| d.2 == DropReason::Aqm)
            .map(|d| d.0)
            .collect()
    }
}

/// Run `q` on a link of `rate_bps` fed with `arrivals` (sorted by time) until `until` after
/// time zero. `probe` is called after every dequeue with the time and the discipline.
pub(crate) fn run<Q: QueueDisc>(
    q: &mut Q,
    rate_bps: u64,
    arrivals: &[(Instant, QItem)],
    until: Duration,
    mut probe: impl FnMut(Instant, &Q),
) -> Trace {
    let until = Instant::ZERO + until;
    let mut tr = Trace::default();
    let mut drops = Drops::default();
    let mut i = 0;
    let mut free_at = Instant::ZERO;
    let mut now = Instant::ZERO;
    // A discipline that holds packets back (`fq`) can decline to dequeue with packets queued:
    // the wire then waits for the next arrival or the discipline's timer, as a port does.
    let mut held = false;
    loop {
        let ta = arrivals.get(i).map_or(Instant::NEVER, |a| a.0);
        let tt = q.next_timer().unwrap_or(Instant::NEVER);
        let td = if q.len_pkts() > 0 && !held {
            free_at.max(now)
        } else {
            Instant::NEVER
        };
        let t = ta.min(tt).min(td);
        if t >= until {
            break;
        }
        now = t;
        if ta == t {
            let mut it = arrivals[i].1;
            it.enq = t;
            q.enqueue(t, it, &mut drops);
            i += 1;
            held = false;
        } else if tt == t {
            q.on_timer(t);
            held = false;
        } else {
            match q.dequeue(t, &mut drops) {
                Some(it) => {
                    free_at = t + tx_time(it.bytes as u64, rate_bps);
                    tr.sent.push((t, it));
                }
                None => held = true,
            }
            probe(t, q);
        }
        for (it, r) in drops.items.drain(..) {
            tr.drops.push((t, it, r));
        }
    }
    tr
}

/// Constant-bit-rate arrivals of `bytes`-byte packets of `flow`, every `gap` from `start` to `end`
/// (both after time zero).
pub(crate) fn cbr(
    flow: u32,
    bytes: u32,
    start: Duration,
    gap: Duration,
    end: Duration,
) -> Vec<(Instant, QItem)> {
    let mut v = Vec::new();
    let (mut t, end) = (Instant::ZERO + start, Instant::ZERO + end);
    let mut id = flow << 20;
    while t < end {
        v.push((
            t,
            QItem {
                id,
                bytes,
                enq: t,
                flow,
                srtt_ns: Duration::ZERO,
                ecn: Default::default(),
            },
        ));
        id += 1;
        t += gap;
    }
    v
}

/// Merge schedules by time (stable: ties keep the order of the inputs).
pub(crate) fn merge(mut all: Vec<Vec<(Instant, QItem)>>) -> Vec<(Instant, QItem)> {
    let mut v: Vec<(Instant, QItem)> = all.drain(..).flatten().collect();
    v.sort_by_key(|a| a.0);
    v
}
