//! FQ, Linux's Fair Queue packet scheduler (`net/sched/sch_fq.c`, E. Dumazet, 2013-2023): one
//! queue per flow, served round robin by byte credit with newly active flows first, and each
//! packet held back until its departure time — the time stamp a paced sender put on it (the
//! "earliest departure time" model TCP has used since Linux 4.20), or the flow's `maxrate`.
//!
//! What is modelled, as Linux 6.x has it: per-flow credit refilled by `quantum` (a new flow
//! starts with `initial_quantum`, a flow idle for longer than `refill_delay` comes back with at
//! least one quantum), new and old flow lists, the per-flow limit (`flow_limit`) and the total
//! limit (`limit`), the departure time per packet (`skb->tstamp`) and per flow
//! (`time_next_packet`, which `maxrate` advances), flows throttled in a time-ordered set until
//! their next departure, the 10 s `horizon` beyond which a time stamp is dropped (or capped),
//! `ce_threshold`, and the fast path of Linux 6.7+ (a packet due now, reaching a queue with no
//! flow ready to send, goes to a small FIFO served first).
//!
//! What is not: priority bands (Linux 6.7+ keeps three, chosen by `skb->priority`; every packet
//! here has priority 0, which Linux's default priomap puts in band 1, so one band is exactly
//! Linux for this traffic); flow garbage collection (Linux frees a flow idle for 3 s when a
//! packet of another socket in the same hash tree looks it up; a collected flow would come back
//! with `initial_quantum` instead of `quantum`, so it changes nothing a run measures except that
//! first credit, and nothing about correctness); `timer_slack` (the watchdog fires exactly on
//! time here); `offload_horizon` (0 in Linux unless a NIC offloads pacing).
//!
//! Flows are keyed by the packet's flow id, as Linux keys a local packet by its socket (no two
//! flows ever share a queue); flow ids past [`KEYED_FLOWS`] (the kernel backend's other
//! conversations) share [`ORPHAN_BUCKETS`] queues by hash, as Linux hashes packets that carry no
//! socket into `orphan_mask + 1` buckets. Per-flow state is preallocated, indexed by flow id,
//! and grows only when a new flow id is first seen; packets live in one slab linked into the
//! flow queues, as in [`super::fq_codel`]. Nothing is allocated per packet.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flow_list::{Chain, Linked, NIL};
use super::params::flow_hash;
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::time::{Duration, Instant, NS_PER_SEC};

/// `sch_fq`'s parameters (tc-fq(8) names, with their units: plan keys `quantum_bytes`,
/// `initial_quantum_bytes`, `flow_limit_pkts`, `maxrate_bps`, `pacing`, `horizon_ns`,
/// `horizon_drop`, `ce_threshold_ns`, `refill_delay_ns`, `low_rate_threshold_bps`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct FqConfig {
    /// Credit a flow gets per round (Linux `fq_init`: 2 × the device's MTU with its link
    /// header, 2 × 1514 B). Linux accepts 1 B up; below 64 B a round cannot send one packet and
    /// the scheduler spins through rounds.
    #[schemars(range(min = 64, max = 1_048_576))]
    pub quantum_bytes: u32,
    /// Credit of a flow the first time it sends (Linux: 10 × 1514 B).
    #[schemars(range(max = 2_147_483_647))]
    pub initial_quantum_bytes: u32,
    /// Packets one flow may have queued; an arriving packet beyond is dropped (reason
    /// `flow_limit`). Linux: 100.
    #[schemars(range(min = 1, max = 100_000_000))]
    pub flow_limit_pkts: u32,
    /// Largest rate of any one flow, in bits per second (tc-fq's `maxrate`); absent: unlimited,
    /// as Linux. Linux stores it in bytes per second in 32 bits: at most 34 Gb/s.
    #[serde(default)]
    #[schemars(range(min = 8, max = 34_359_738_360u64))]
    pub maxrate_bps: Option<u64>,
    /// Pace flows (tc-fq's `pacing` / `nopacing`, Linux `rate_enable`): a local TCP sender is
    /// told its packets are paced here (`SK_PACING_FQ`) and stamps them with departure times
    /// at its pacing rate, and `maxrate` applies. Default on, as Linux. Time stamps are honoured
    /// either way, as Linux does.
    pub pacing: bool,
    /// How far in the future a departure time may be (Linux: 10 s).
    #[schemars(range(max = 4_294_967_295_000u64))]
    pub horizon_ns: Duration,
    /// Beyond the horizon, drop the packet (reason `horizon`, Linux's default) rather than cap
    /// its time stamp at the horizon.
    pub horizon_drop: bool,
    /// Mark a packet CE when it leaves more than this after its departure time (tc-fq's
    /// `ce_threshold`, for L4S-style marking); absent: never, as Linux's default (4294 s).
    #[serde(default)]
    #[schemars(range(max = 4_294_967_295_000u64))]
    pub ce_threshold_ns: Option<Duration>,
    /// A flow that was idle (no packet queued) for longer than this comes back with at least one
    /// quantum of credit (Linux: 40 ms).
    #[schemars(range(max = crate::time::MAX_DURATION_NS))]
    pub refill_delay_ns: Duration,
    /// With `maxrate`, a flow whose packets carry no departure time and whose rate is at or
    /// below this is paced packet by packet, not a quantum at a time (Linux: 550 kb/s).
    #[schemars(range(max = 34_359_738_360u64))]
    pub low_rate_threshold_bps: u64,
}

/// Linux's `psched_mtu` of an Ethernet device: 1500 B of MTU and its 14 B header.
const PSCHED_MTU_BYTES: u32 = 1514;

impl Default for FqConfig {
    /// Linux `fq_init` (net/sched/sch_fq.c): quantum 2 × MTU, initial quantum 10 × MTU, flow
    /// limit 100, no max rate, pacing on, horizon 10 s with drop, no CE threshold, refill delay
    /// 40 ms, low-rate threshold 550 kb/s.
    fn default() -> Self {
        FqConfig {
            quantum_bytes: 2 * PSCHED_MTU_BYTES,
            initial_quantum_bytes: 10 * PSCHED_MTU_BYTES,
            flow_limit_pkts: 100,
            maxrate_bps: None,
            pacing: true,
            horizon_ns: Duration::from_secs(10),
            horizon_drop: true,
            ce_threshold_ns: None,
            refill_delay_ns: Duration::from_ms(40),
            low_rate_threshold_bps: 550_000,
        }
    }
}

/// Linux `fq_init`: `sch->limit` = 10000 packets when the queue block gives no limit.
pub const DEFAULT_LIMIT_PKTS: u64 = 10_000;

/// Flow ids below this are keyed one flow per queue (more than any scenario's flows).
pub const KEYED_FLOWS: u32 = 1 << 17;
/// Queues the other flow ids are hashed into (Linux's `orphan_mask` 1023, plus one).
pub const ORPHAN_BUCKETS: u32 = 1024;

/// The fast-path FIFO holds at most this many packets while other packets are queued (Linux
/// `fq_fastpath_check`: "do not allow fast path queue to explode").
const FASTPATH_MAX_PKTS: usize = 8;

/// Where a flow is: on the new or the old list (indexing [`Fq::lists`]), in the throttled set,
/// or detached (idle, on no list; Linux's `fq_flow_set_detached`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Place {
    New = 0,
    Old = 1,
    Throttled = 2,
    Detached = 3,
}

/// Linux's `fq_flow`: the queue (a chain through the slab, ordered by departure time), its
/// credit and where it is.
#[derive(Clone, Copy, Debug)]
struct Flow {
    head: u32,
    tail: u32,
    qlen: u32,
    /// Next flow on the list this one is on.
    next: u32,
    credit: i64,
    /// No packet of this flow may leave before this (set by throttling and by `maxrate`).
    time_next_packet: Instant,
    /// When it was last detached (for `refill_delay`).
    age: Instant,
    place: Place,
    /// Whether the flow exists yet (Linux allocates it at its first packet).
    seen: bool,
}

impl Flow {
    const UNSEEN: Flow = Flow {
        head: NIL,
        tail: NIL,
        qlen: 0,
        next: NIL,
        credit: 0,
        time_next_packet: Instant::ZERO,
        age: Instant::ZERO,
        place: Place::Detached,
        seen: false,
    };
}

impl Linked for Flow {
    #[inline]
    fn next_mut(&mut self) -> &mut u32 {
        &mut self.next
    }
}

/// A queued packet, its departure time (and whether its sender gave it one), and the next slot
/// of its flow queue.
#[derive(Clone, Copy, Default)]
struct Slot {
    item: QItem,
    time_to_send: Instant,
    stamped: bool,
    next: u32,
}

/// A throttled flow in the time-ordered set: (departure time, arrival order, flow). Equal times
/// leave in the order they were throttled, as Linux's rb-tree inserts an equal key to the right.
type Delayed = Reverse<(Instant, u64, u32)>;

pub struct Fq {
    cfg: FqConfig,
    limit: Limit,
    /// `maxrate` in bytes per second (`u64::MAX`: unlimited), and the low-rate threshold.
    max_rate_bytes: u64,
    low_rate_bytes: u64,
    slots: Vec<Slot>,
    free: u32,
    flows: Vec<Flow>,
    /// The new and the old list, indexed by [`Place`].
    lists: [Chain; 2],
    delayed: BinaryHeap<Delayed>,
    delayed_seq: u64,
    /// Linux's `q->internal`: packets due now that reached a queue with no flow ready.
    fastpath: VecDeque<QItem>,
    /// Packets and bytes queued (fast path included), and packets in flow queues.
    pkts: u64,
    bytes: u64,
    flow_pkts: u64,
    /// Flows with packets queued, and those of them throttled.
    backlogged: u64,
    throttled: u64,
    /// When the watchdog should wake the port: set when a dequeue finds only throttled flows.
    watchdog: Option<Instant>,
    seed: u64,
}

impl Fq {
    pub fn new(cfg: FqConfig, limit: Limit, seed: u64) -> Self {
        let limit = Self::with_default(limit);
        let cap = limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS).min(1 << 12) as usize + 1;
        let mut q = Fq {
            cfg,
            limit,
            max_rate_bytes: cfg.maxrate_bps.map_or(u64::MAX, |r| r / 8),
            low_rate_bytes: cfg.low_rate_threshold_bps / 8,
            slots: Vec::with_capacity(cap),
            free: NIL,
            flows: Vec::new(),
            lists: [Chain::EMPTY; 2],
            delayed: BinaryHeap::new(),
            delayed_seq: 0,
            fastpath: VecDeque::with_capacity(FASTPATH_MAX_PKTS + 1),
            pkts: 0,
            bytes: 0,
            flow_pkts: 0,
            backlogged: 0,
            throttled: 0,
            watchdog: None,
            seed,
        };
        q.grow_slab(cap);
        q
    }

    fn with_default(limit: Limit) -> Limit {
        Limit {
            pkts: Some(limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS)),
            bytes: limit.bytes,
        }
    }

    fn grow_slab(&mut self, n: usize) {
        for _ in 0..n {
            self.slots.push(Slot {
                next: self.free,
                ..Default::default()
            });
            self.free = (self.slots.len() - 1) as u32;
        }
    }

    /// The queue of flow id `flow`, made to exist (a new flow id extends the table once).
    #[inline]
    fn classify(&mut self, flow: u32) -> usize {
        let i = if flow < KEYED_FLOWS {
            flow as usize
        } else {
            (KEYED_FLOWS + (flow_hash(flow, self.seed) % ORPHAN_BUCKETS as u64) as u32) as usize
        };
        if i >= self.flows.len() {
            self.grow_flows(i + 1);
        }
        i
    }

    #[cold]
    fn grow_flows(&mut self, n: usize) {
        let n = n
            .max(self.flows.len() * 2)
            .min((KEYED_FLOWS + ORPHAN_BUCKETS) as usize);
        self.flows.resize(n, Flow::UNSEEN);
        // At most every flow is throttled at once: the set never grows during a run.
        self.delayed
            .reserve(n.saturating_sub(self.delayed.capacity()));
    }

    #[inline]
    fn push_list(&mut self, which: Place, f: u32) {
        self.flows[f as usize].place = which;
        self.lists[which as usize].push(&mut self.flows, f);
    }

    /// Take the head `f` off list `which`; the caller says where it goes.
    #[inline]
    fn pop_list(&mut self, which: Place, f: u32) {
        let head = self.lists[which as usize].pop(&mut self.flows);
        debug_assert_eq!(head, f);
    }

    /// Linux `fq_check_throttled`: flows whose departure time has come go to the old list.
    fn unthrottle(&mut self, now: Instant) {
        while let Some(&Reverse((t, _, f))) = self.delayed.peek() {
            if t > now {
                break;
            }
            self.delayed.pop();
            self.throttled -= 1;
            self.push_list(Place::Old, f);
        }
    }

    /// Linux `fq_fastpath_check` (6.7+), without `maxrate`: a packet due now may skip the flow
    /// queues when nothing is queued, or when every queued flow waits for its time (and the
    /// fast path holds fewer than 8 packets and no throttled flow is already due).
    #[inline]
    fn fastpath(&self, now: Instant, time_to_send: Instant) -> bool {
        if time_to_send > now || self.max_rate_bytes != u64::MAX {
            return false;
        }
        if self.pkts == 0 {
            return true;
        }
        self.backlogged == self.throttled
            && self.fastpath.len() < FASTPATH_MAX_PKTS
            && self
                .delayed
                .peek()
                .is_none_or(|&Reverse((t, _, _))| t > now)
    }

    /// Add a slot to flow `fi`'s chain in departure-time order (after the packets due at the
    /// same time); a sender's own stamps only grow, so this is nearly always the tail.
    #[inline]
    fn link(&mut self, fi: usize, s: u32) {
        let t = self.slots[s as usize].time_to_send;
        let f = self.flows[fi];
        if f.tail == NIL {
            self.flows[fi].head = s;
            self.flows[fi].tail = s;
        } else if self.slots[f.tail as usize].time_to_send <= t {
            self.slots[f.tail as usize].next = s;
            self.flows[fi].tail = s;
        } else if self.slots[f.head as usize].time_to_send > t {
            self.slots[s as usize].next = f.head;
            self.flows[fi].head = s;
        } else {
            let mut p = f.head;
            while self.slots[self.slots[p as usize].next as usize].time_to_send <= t {
                p = self.slots[p as usize].next;
            }
            self.slots[s as usize].next = self.slots[p as usize].next;
            self.slots[p as usize].next = s;
        }
    }

    /// Remove and return flow `fi`'s head packet.
    #[inline]
    fn unlink_head(&mut self, fi: usize) -> Slot {
        let s = self.flows[fi].head;
        let slot = self.slots[s as usize];
        self.flows[fi].head = slot.next;
        if slot.next == NIL {
            self.flows[fi].tail = NIL;
        }
        self.slots[s as usize].next = self.free;
        self.free = s;
        slot
    }

    /// After a flow's packet left: its credit is charged, and with pacing on, `maxrate` (and the
    /// socket's rate, for packets without a departure time) sets when its next packet may go
    /// (the end of Linux's `fq_dequeue`).
    #[inline]
    fn charge(&mut self, now: Instant, fi: usize, item: &QItem, stamped: bool) {
        let f = &mut self.flows[fi];
        f.credit -= item.bytes as i64;
        if !self.cfg.pacing {
            return;
        }
        let rate = self.max_rate_bytes;
        let mut plen = item.bytes as u64;
        if !stamped {
            // A packet without a departure time: the socket's own rate would bound it too, but
            // only a TCP socket has one here, and TCP packets always carry their time; so the
            // rate is `maxrate`. Above the low-rate threshold a flow is delayed a quantum at a
            // time, below it packet by packet.
            if rate <= self.low_rate_bytes {
                f.credit = 0;
            } else {
                plen = plen.max(self.cfg.quantum_bytes as u64);
                if f.credit > 0 {
                    return;
                }
            }
        }
        if rate == u64::MAX {
            return;
        }
        let mut len = if rate == 0 {
            plen.saturating_mul(NS_PER_SEC)
        } else {
            (plen as u128 * NS_PER_SEC as u128 / rate as u128) as u64
        };
        // Linux clamps the gap at 1 s (a socket's rate can change later).
        len = len.min(NS_PER_SEC);
        // Linux forgives up to half a gap for lateness: the dequeue may come after
        // `time_next_packet` (here: when the wire frees up), and the flow keeps its rate.
        if f.time_next_packet != Instant::ZERO {
            len -= (len / 2).min(now.saturating_since(f.time_next_packet).as_ns());
        }
        f.time_next_packet = now + Duration::from_ns(len);
    }

    /// Packets queued in flow id `flow`'s queue (for tests and diagnostics).
    pub fn flow_backlog_pkts(&self, flow: u32) -> u32 {
        if flow >= KEYED_FLOWS {
            return 0;
        }
        self.flows.get(flow as usize).map_or(0, |f| f.qlen)
    }

    /// Whether it paces (`pacing`, Linux `rate_enable`).
    pub fn pacing(&self) -> bool {
        self.cfg.pacing
    }

    /// Flows waiting for their departure time.
    pub fn throttled_flows(&self) -> u64 {
        self.throttled
    }

    /// The storage reserved: slab slots, flow table entries, throttled-set capacity (for tests
    /// that check nothing grows once warm).
    #[cfg(test)]
    pub(crate) fn capacities(&self) -> (usize, usize, usize) {
        (self.slots.len(), self.flows.len(), self.delayed.capacity())
    }
}

impl Fq {
    /// Linux's `fq_enqueue`: `item` with the departure time its sending host stamped on it
    /// (`skb->tstamp`; `Instant::ZERO`: none, send now). Returns `false` if it was refused.
    pub fn enqueue_at(
        &mut self,
        now: Instant,
        item: QItem,
        tstamp: Instant,
        drops: &mut Drops,
    ) -> bool {
        // Linux checks the limit against the packets of the packet's band (flow queues only:
        // the fast path is not counted); one band here.
        if self.limit.pkts.is_some_and(|l| self.flow_pkts >= l)
            || self
                .limit
                .bytes
                .is_some_and(|l| self.bytes + item.bytes as u64 > l)
        {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        let stamped = tstamp != Instant::ZERO;
        let mut time_to_send = if stamped { tstamp } else { now };
        let horizon = now.saturating_add(self.cfg.horizon_ns);
        if time_to_send > horizon {
            if self.cfg.horizon_drop {
                drops.push(item, DropReason::Horizon);
                return false;
            }
            time_to_send = horizon;
        }
        if self.fastpath(now, time_to_send) {
            self.fastpath.push_back(item);
            self.pkts += 1;
            self.bytes += item.bytes as u64;
            return true;
        }
        let fi = self.classify(item.flow);
        let f = &mut self.flows[fi];
        if !f.seen {
            // Linux allocates the flow detached, with the initial quantum.
            f.seen = true;
            f.credit = self.cfg.initial_quantum_bytes as i64;
            f.age = now;
        }
        if f.qlen >= self.cfg.flow_limit_pkts {
            drops.push(item, DropReason::FlowLimit);
            return false;
        }
        if f.place == Place::Detached {
            if now > f.age.saturating_add(self.cfg.refill_delay_ns) {
                f.credit = f.credit.max(self.cfg.quantum_bytes as i64);
            }
            self.push_list(Place::New, fi as u32);
        }
        let f = &mut self.flows[fi];
        if f.qlen == 0 {
            self.backlogged += 1;
        }
        f.qlen += 1;
        if self.free == NIL {
            self.grow_slab(self.slots.len().max(64));
        }
        let s = self.free;
        self.free = self.slots[s as usize].next;
        self.slots[s as usize] = Slot {
            item,
            time_to_send,
            stamped,
            next: NIL,
        };
        self.link(fi, s);
        self.pkts += 1;
        self.flow_pkts += 1;
        self.bytes += item.bytes as u64;
        true
    }
}

impl QueueDisc for Fq {
    /// A packet without a departure time (the discipline's own tests and a plain caller).
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        self.enqueue_at(now, item, Instant::ZERO, drops)
    }

    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        if self.pkts == 0 {
            return None;
        }
        if let Some(it) = self.fastpath.pop_front() {
            self.pkts -= 1;
            self.bytes -= it.bytes as u64;
            return Some(it);
        }
        self.unthrottle(now);
        loop {
            let [new, old] = self.lists;
            let (which, f) = if new.head != NIL {
                (Place::New, new.head)
            } else if old.head != NIL {
                (Place::Old, old.head)
            } else {
                // Every queued flow waits for its time: wake the port then.
                self.watchdog = self.delayed.peek().map(|&Reverse((t, _, _))| t);
                return None;
            };
            let fi = f as usize;
            if self.flows[fi].credit <= 0 {
                self.flows[fi].credit += self.cfg.quantum_bytes as i64;
                self.pop_list(which, f);
                self.push_list(Place::Old, f);
                continue;
            }
            let fl = self.flows[fi];
            if fl.head == NIL {
                // Emptied: a new flow passes through the old list once (so that it cannot keep
                // its priority by emptying and refilling), an old one is detached.
                self.pop_list(which, f);
                if which == Place::New {
                    self.push_list(Place::Old, f);
                } else {
                    let fl = &mut self.flows[fi];
                    fl.place = Place::Detached;
                    fl.age = now;
                }
                continue;
            }
            let due = self.slots[fl.head as usize]
                .time_to_send
                .max(fl.time_next_packet);
            if now < due {
                self.pop_list(which, f);
                let fl = &mut self.flows[fi];
                fl.time_next_packet = due;
                fl.place = Place::Throttled;
                self.delayed_seq += 1;
                self.delayed.push(Reverse((due, self.delayed_seq, f)));
                self.throttled += 1;
                continue;
            }
            let slot = self.unlink_head(fi);
            let mut item = slot.item;
            let fl = &mut self.flows[fi];
            fl.qlen -= 1;
            if fl.qlen == 0 {
                self.backlogged -= 1;
            }
            self.pkts -= 1;
            self.flow_pkts -= 1;
            self.bytes -= item.bytes as u64;
            if self
                .cfg
                .ce_threshold_ns
                .is_some_and(|th| now.saturating_since(due) > th)
            {
                drops.mark(&mut item);
            }
            self.charge(now, fi, &item, slot.stamped);
            return Some(item);
        }
    }

    fn len_pkts(&self) -> u64 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn set_limit(&mut self, limit: Limit) {
        self.limit = Self::with_default(limit);
    }

    fn next_timer(&self) -> Option<Instant> {
        self.watchdog
    }

    fn on_timer(&mut self, now: Instant) {
        if self.watchdog.is_some_and(|t| t <= now) {
            self.watchdog = None;
        }
    }
}

#[cfg(test)]
mod tests;
