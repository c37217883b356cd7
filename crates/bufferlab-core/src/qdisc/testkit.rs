//! A tiny synthetic link for discipline unit tests: arrivals from a schedule, one serializer at
//! a fixed rate, the discipline's timer honoured. Mirrors what a port does, without the engine.

use super::{DropReason, Drops, QItem, QueueDisc};
use crate::time::{tx_time, Time};

#[derive(Default)]
pub(crate) struct Trace {
    /// (dequeue time, item) of every packet sent.
    pub sent: Vec<(Time, QItem)>,
    /// (time, item, reason) of every drop.
    pub drops: Vec<(Time, QItem, DropReason)>,
}

impl Trace {
    pub fn aqm_drop_times(&self) -> Vec<Time> {
        self.drops
            .iter()
            .filter(|d| d.2 == DropReason::Aqm)
            .map(|d| d.0)
            .collect()
    }
}

/// Run `q` on a link of `rate_bps` fed with `arrivals` (sorted by time) until `until`.
/// `probe` is called after every dequeue with the time and the discipline.
pub(crate) fn run<Q: QueueDisc>(
    q: &mut Q,
    rate_bps: u64,
    arrivals: &[(Time, QItem)],
    until: Time,
    mut probe: impl FnMut(Time, &Q),
) -> Trace {
    let mut tr = Trace::default();
    let mut drops = Drops::default();
    let mut i = 0;
    let mut free_at: Time = 0;
    let mut now: Time = 0;
    loop {
        let ta = arrivals.get(i).map_or(Time::MAX, |a| a.0);
        let tt = q.next_timer().unwrap_or(Time::MAX);
        let td = if q.len_pkts() > 0 {
            free_at.max(now)
        } else {
            Time::MAX
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
        } else if tt == t {
            q.on_timer(t);
        } else {
            if let Some(it) = q.dequeue(t, &mut drops) {
                free_at = t + tx_time(it.bytes as u64, rate_bps).as_ns();
                tr.sent.push((t, it));
            }
            probe(t, q);
        }
        for (it, r) in drops.items.drain(..) {
            tr.drops.push((t, it, r));
        }
    }
    tr
}

/// Constant-bit-rate arrivals of `bytes`-byte packets of `flow`, every `gap` from `start` to `end`.
pub(crate) fn cbr(flow: u32, bytes: u32, start: Time, gap: Time, end: Time) -> Vec<(Time, QItem)> {
    let mut v = Vec::new();
    let mut t = start;
    let mut id = flow << 20;
    while t < end {
        v.push((
            t,
            QItem {
                id,
                bytes,
                enq: t,
                flow,
                srtt_ns: 0,
            },
        ));
        id += 1;
        t += gap;
    }
    v
}

/// Merge schedules by time (stable: ties keep the order of the inputs).
pub(crate) fn merge(mut all: Vec<Vec<(Time, QItem)>>) -> Vec<(Time, QItem)> {
    let mut v: Vec<(Time, QItem)> = all.drain(..).flatten().collect();
    v.sort_by_key(|a| a.0);
    v
}
