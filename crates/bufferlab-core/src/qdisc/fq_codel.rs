//! FQ-CoDel, FlowQueue-CoDel (RFC 8290): packets hashed into flow queues, each with its own
//! CoDel state; deficit round robin between them, with newly active ("sparse") flows served
//! before the old ones.
//!
//! Storage: every queued packet sits in one preallocated slab; a flow queue is a linked list
//! through it, and the new/old lists link flow queues. Nothing is allocated per packet.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::codel::{CodelConfig, CodelQueue, CodelVars};
use super::flow_list::{Chain, Linked, NIL};
use super::params::flow_hash;
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::packet::Ecn;
use crate::problem::Problem;
use crate::time::{Duration, Instant};

/// FQ-CoDel's parameters (plan keys `target_ns`, `interval_ns`, `flows`, `quantum_bytes`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    /// CoDel target per flow queue (RFC 8290 §5.1: 5 ms).
    #[schemars(range(min = 1))]
    pub target_ns: Duration,
    /// CoDel interval per flow queue (RFC 8290 §5.1: 100 ms).
    #[schemars(range(min = 1))]
    pub interval_ns: Duration,
    /// Number of flow queues packets are hashed into (RFC 8290 §5.1: 1024; Linux allows 65536).
    #[schemars(range(min = 1, max = 65536))]
    pub flows: u32,
    /// Bytes a queue may send per round of deficit round robin (RFC 8290 §5.1: one MTU, 1514 B);
    /// under 64 B a round cannot send a minimum-size packet.
    #[schemars(range(min = 64, max = 1_048_576))]
    pub quantum_bytes: u32,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 8290 §4.1 recommends it).
    /// Default on, as Linux's `fq_codel`.
    pub ecn: bool,
    /// Linux's `ce_threshold` (since 4.2): a packet that leaves after waiting longer than this
    /// is marked CE, besides CoDel's own marks, if its ECN field matches
    /// `ce_threshold_selector`/`ce_threshold_mask` — the shallow step marking an L4S sender
    /// (RFC 9331) needs. Absent: off, as Linux.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub ce_threshold_ns: Option<Duration>,
    /// With `ce_threshold_mask`, which packets `ce_threshold` applies to: those whose ECN field
    /// ANDed with the mask equals this (Linux's `ce_threshold_selector`, 5.14+, on the DS byte,
    /// whose two low bits are the ECN field). Default 0x01 with mask 0x01: ECT(1) and CE, the
    /// L4S identifier (RFC 9331 §5.1), as the L4S setting `ce_threshold_selector 0x1/0x1`;
    /// classic ECT(0) traffic is left to CoDel. Linux's own default, without a selector, is
    /// every ECN-capable packet: `ce_threshold_mask = 0`.
    #[schemars(range(max = 3))]
    pub ce_threshold_selector: u8,
    /// See `ce_threshold_selector` (Linux's `ce_threshold_mask`). Default 0x01.
    #[schemars(range(max = 3))]
    pub ce_threshold_mask: u8,
}

impl Default for FqCodelConfig {
    /// RFC 8290 §5.1's defaults: CoDel's 5 ms / 100 ms, 1024 flows, a quantum of 1514 B (an
    /// Ethernet MTU with its header); the same as Linux `sch_fq_codel`.
    fn default() -> Self {
        FqCodelConfig {
            target_ns: Duration::from_ms(5),
            interval_ns: Duration::from_ms(100),
            flows: 1024,
            quantum_bytes: 1514,
            ecn: true,
            ce_threshold_ns: None,
            ce_threshold_selector: 0x01,
            ce_threshold_mask: 0x01,
        }
    }
}

impl FqCodelConfig {
    /// What the bounds of each key cannot say: target below interval (RFC 8289 §4.3).
    pub fn check(&self) -> Result<(), Problem> {
        self.codel().check()
    }

    /// Whether `ce_threshold` marks a packet that waited `sojourn` with ECN field `ecn`
    /// (Linux's `codel_dequeue` tail: strictly longer, and the selector matching).
    #[inline]
    pub fn ce_threshold_marks(&self, sojourn: Duration, ecn: Ecn) -> bool {
        self.ce_threshold_ns.is_some_and(|th| sojourn > th)
            && (ecn as u8) & self.ce_threshold_mask == self.ce_threshold_selector
    }

    /// The CoDel each flow queue runs.
    pub fn codel(&self) -> CodelConfig {
        CodelConfig {
            target_ns: self.target_ns,
            interval_ns: self.interval_ns,
            ecn: self.ecn,
        }
    }
}

/// RFC 8290 §5.1 / Linux: 10240 packets when the queue block gives no limit.
pub const DEFAULT_LIMIT_PKTS: u64 = 10240;

/// Which list a flow queue is on; `New` and `Old` index [`FqCodel::lists`].
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum List {
    New = 0,
    Old = 1,
    None = 2,
}

/// A flow queue's packets: a chain through the slab.
struct FlowQueue {
    head: u32,
    tail: u32,
    bytes: u64,
}

/// Everything one flow queue keeps, CoDel's state included, in one cache line: a packet's
/// enqueue and dequeue touch one line per flow instead of two.
#[repr(align(64))]
struct Flow {
    q: FlowQueue,
    deficit: i64,
    /// Next flow in the list this flow is on.
    next: u32,
    list: List,
    vars: CodelVars,
}

impl Linked for Flow {
    #[inline]
    fn next_mut(&mut self) -> &mut u32 {
        &mut self.next
    }
}

/// One node per slab slot: the packet and the next slot of its flow queue.
#[derive(Clone, Copy)]
struct Slot {
    item: QItem,
    next: u32,
}

pub struct FqCodel {
    cfg: FqCodelConfig,
    codel: CodelConfig,
    limit: Limit,
    seed: u64,
    slots: Vec<Slot>,
    free: u32,
    flows: Vec<Flow>,
    /// The new and the old list, indexed by [`List`].
    lists: [Chain; 2],
    pkts: u64,
    bytes: u64,
    mtu_bytes: u64,
}

/// The view CoDel gets of one flow queue: pops from the flow, backlog of the whole discipline
/// (as Linux's `fq_codel` passes the qdisc backlog to `codel_dequeue`).
struct FlowView<'a> {
    slots: &'a mut Vec<Slot>,
    free: &'a mut u32,
    flow: &'a mut FlowQueue,
    pkts: &'a mut u64,
    bytes: &'a mut u64,
}

impl CodelQueue for FlowView<'_> {
    #[inline]
    fn pop(&mut self) -> Option<QItem> {
        let s = self.flow.head;
        if s == NIL {
            return None;
        }
        let slot = self.slots[s as usize];
        self.flow.head = slot.next;
        if slot.next == NIL {
            self.flow.tail = NIL;
        }
        self.flow.bytes -= slot.item.bytes as u64;
        *self.pkts -= 1;
        *self.bytes -= slot.item.bytes as u64;
        self.slots[s as usize].next = *self.free;
        *self.free = s;
        Some(slot.item)
    }
    #[inline]
    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

/// The view CoDel gets of the one packet of an otherwise empty discipline passing through.
struct Passing(Option<QItem>);

impl CodelQueue for Passing {
    #[inline]
    fn pop(&mut self) -> Option<QItem> {
        self.0.take()
    }
    #[inline]
    fn backlog_bytes(&self) -> u64 {
        0
    }
}

impl FqCodel {
    pub fn new(cfg: FqCodelConfig, limit: Limit, seed: u64) -> Self {
        let limit = Limit {
            pkts: Some(limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS)),
            bytes: limit.bytes,
        };
        let cap = (limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS) + 1).min(1 << 16) as usize;
        let mut q = FqCodel {
            cfg,
            codel: cfg.codel(),
            limit,
            seed,
            slots: Vec::with_capacity(cap),
            free: NIL,
            flows: Vec::with_capacity(cfg.flows as usize),
            lists: [Chain::EMPTY; 2],
            pkts: 0,
            bytes: 0,
            mtu_bytes: 0,
        };
        for _ in 0..cfg.flows {
            q.flows.push(Flow {
                q: FlowQueue {
                    head: NIL,
                    tail: NIL,
                    bytes: 0,
                },
                deficit: 0,
                next: NIL,
                list: List::None,
                vars: CodelVars::default(),
            });
        }
        q.grow_slab(cap);
        q
    }

    /// Add `n` free slots to the slab (at build time, or once when a larger limit is set).
    fn grow_slab(&mut self, n: usize) {
        for _ in 0..n {
            self.slots.push(Slot {
                item: QItem::default(),
                next: self.free,
            });
            self.free = (self.slots.len() - 1) as u32;
        }
    }

    /// The flow queue of a flow: a multiply-shift of a cheap integer hash (RFC 8290 §4.1 hashes
    /// the 5-tuple; our packets carry their flow id).
    #[inline]
    fn classify(&self, flow: u32) -> usize {
        ((flow_hash(flow, self.seed) as u128 * self.cfg.flows as u128) >> 64) as usize
    }

    #[inline]
    fn push_list(&mut self, which: List, f: u32) {
        self.flows[f as usize].list = which;
        self.lists[which as usize].push(&mut self.flows, f);
    }

    /// Take the head off list `which` (the caller has just read it: the list is not empty).
    #[inline]
    fn pop_list(&mut self, which: List) -> u32 {
        let f = self.lists[which as usize].pop(&mut self.flows);
        self.flows[f as usize].list = List::None;
        f
    }

    /// The flow queue to serve next: the head of the new list, else of the old one.
    #[inline]
    fn head(&self) -> Option<(List, u32)> {
        let [new, old] = self.lists;
        if new.head != NIL {
            Some((List::New, new.head))
        } else if old.head != NIL {
            Some((List::Old, old.head))
        } else {
            None
        }
    }

    /// Out of credit (RFC 8290 §4.2): a new quantum and to the back of the old list.
    #[inline]
    fn refill(&mut self, which: List, f: u32) {
        self.flows[f as usize].deficit += self.cfg.quantum_bytes as i64;
        self.pop_list(which);
        self.push_list(List::Old, f);
    }

    /// An emptied queue leaves its list: a new one goes through the old list once (so it
    /// cannot keep its priority by emptying and refilling), an old one goes idle.
    #[inline]
    fn retire(&mut self, which: List, f: u32) {
        self.pop_list(which);
        if which == List::New && self.lists[List::Old as usize].head != NIL {
            self.push_list(List::Old, f);
        }
    }

    /// RFC 8290 §4.1: on overflow, drop from the head of the queue holding the most bytes.
    fn drop_from_fattest(&mut self, drops: &mut Drops) {
        // Every flow queue holding packets is on the new or the old list, so walking the two
        // lists finds the fattest without sweeping all `flows` entries (64 KB at the default
        // 1024, which would evict the rest of the simulation from the L1 cache on every
        // overflow). Ties go to the lowest index, as a sweep in index order would give.
        let mut fat = NIL;
        let mut fat_bytes = 0;
        for head in [
            self.lists[List::New as usize].head,
            self.lists[List::Old as usize].head,
        ] {
            let mut f = head;
            while f != NIL {
                let fl = &self.flows[f as usize];
                if fl.q.bytes > fat_bytes || (fl.q.bytes == fat_bytes && fl.q.bytes > 0 && f < fat)
                {
                    fat = f;
                    fat_bytes = fl.q.bytes;
                }
                f = fl.next;
            }
        }
        if fat == NIL {
            return;
        }
        let fat = fat as usize;
        let mut v = FlowView {
            slots: &mut self.slots,
            free: &mut self.free,
            flow: &mut self.flows[fat].q,
            pkts: &mut self.pkts,
            bytes: &mut self.bytes,
        };
        if let Some(it) = v.pop() {
            drops.push(it, DropReason::FqOverflow);
        }
    }

    /// The usual cases of [`FqCodel::serve`], inline: quantum refills, emptied queues retired,
    /// the passing packet sent, and a head packet CoDel lets through. `Err` hands CoDel's
    /// dropping state (and the drop that enters it) to the full loop, which then finds the same
    /// head flow.
    #[inline(always)]
    fn serve_inline(
        &mut self,
        now: Instant,
        passing: Option<(u32, QItem)>,
    ) -> Result<Option<QItem>, Option<(u32, QItem)>> {
        loop {
            let Some((which, f)) = self.head() else {
                return Ok(None);
            };
            if self.flows[f as usize].deficit <= 0 {
                self.refill(which, f);
                continue;
            }
            let fl = &mut self.flows[f as usize];
            if let Some((pf, it)) = passing {
                if pf == f {
                    // Its sojourn is 0 and nothing stays behind it: CoDel leaves any
                    // above-target episode and dropping state, as on an empty queue.
                    fl.vars.on_empty();
                    fl.deficit -= it.bytes as i64;
                    return Ok(Some(it));
                }
            }
            let s = fl.q.head;
            if s == NIL {
                fl.vars.on_empty();
                self.retire(which, f);
                continue;
            }
            let item = self.slots[s as usize].item;
            let after = self.bytes - item.bytes as u64;
            let sojourn = now.saturating_since(item.enq);
            if !fl
                .vars
                .passes(&self.codel, now, sojourn, after, self.mtu_bytes)
            {
                return Err(passing);
            }
            fl.deficit -= item.bytes as i64;
            let mut v = FlowView {
                slots: &mut self.slots,
                free: &mut self.free,
                flow: &mut fl.q,
                pkts: &mut self.pkts,
                bytes: &mut self.bytes,
            };
            return Ok(v.pop());
        }
    }

    /// The packet leaving: `ce_threshold`'s mark on top of CoDel's (Linux applies it to what
    /// `codel_dequeue` returns, by that packet's sojourn).
    #[inline]
    fn ce_threshold(&self, now: Instant, got: Option<QItem>, drops: &mut Drops) -> Option<QItem> {
        let mut it = got?;
        if self
            .cfg
            .ce_threshold_marks(now.saturating_since(it.enq), it.ecn)
        {
            drops.mark(&mut it);
        }
        Some(it)
    }

    /// RFC 8290 §4.2: deficit round robin, new list first. `passing`: a packet of the flow queue
    /// given, not stored in the slab (see [`FqCodel::pass_through`]).
    #[inline(never)]
    fn serve(
        &mut self,
        now: Instant,
        drops: &mut Drops,
        mut passing: Option<(u32, QItem)>,
    ) -> Option<QItem> {
        loop {
            let (which, f) = self.head()?;
            if self.flows[f as usize].deficit <= 0 {
                self.refill(which, f);
                continue;
            }
            let fl = &mut self.flows[f as usize];
            let got = match passing {
                Some((pf, it)) if pf == f => {
                    passing = None;
                    fl.vars.dequeue(
                        &self.codel,
                        now,
                        &mut Passing(Some(it)),
                        self.mtu_bytes,
                        drops,
                    )
                }
                _ => {
                    let mut v = FlowView {
                        slots: &mut self.slots,
                        free: &mut self.free,
                        flow: &mut fl.q,
                        pkts: &mut self.pkts,
                        bytes: &mut self.bytes,
                    };
                    fl.vars
                        .dequeue(&self.codel, now, &mut v, self.mtu_bytes, drops)
                }
            };
            match got {
                Some(it) => {
                    fl.deficit -= it.bytes as i64;
                    return Some(it);
                }
                None => self.retire(which, f),
            }
        }
    }

    /// Every flow queue's scheduling and CoDel state, and the two lists, for tests that compare
    /// two instances.
    #[cfg(test)]
    pub(crate) fn state(&self) -> String {
        let mut out = String::new();
        for (i, f) in self.flows.iter().enumerate() {
            if f.list != List::None || f.q.head != NIL || f.deficit != 0 {
                out += &format!(
                    "{i}:{:?}/{}/{}/{:?} ",
                    f.list as u8, f.deficit, f.next, f.vars
                );
            }
        }
        let chains = [
            self.lists[List::New as usize],
            self.lists[List::Old as usize],
        ]
        .map(|c| (c.head, c.tail));
        out + &format!("{chains:?} {} {} {}", self.pkts, self.bytes, self.mtu_bytes)
    }

    /// Packets queued in the flow queue `flow` hashes to (for tests and diagnostics).
    pub fn flow_backlog_pkts(&self, flow: u32) -> u32 {
        let mut n = 0;
        let mut s = self.flows[self.classify(flow)].q.head;
        while s != NIL {
            n += 1;
            s = self.slots[s as usize].next;
        }
        n
    }
}

impl QueueDisc for FqCodel {
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        let fi = self.classify(item.flow);
        if self.free == NIL {
            self.grow_slab(self.slots.len().max(64));
        }
        let s = self.free;
        self.free = self.slots[s as usize].next;
        self.slots[s as usize] = Slot { item, next: NIL };
        let f = &mut self.flows[fi];
        if f.q.tail == NIL {
            f.q.head = s;
        } else {
            self.slots[f.q.tail as usize].next = s;
        }
        f.q.tail = s;
        f.q.bytes += item.bytes as u64;
        self.pkts += 1;
        self.bytes += item.bytes as u64;
        self.mtu_bytes = self.mtu_bytes.max(item.bytes as u64);
        if f.list == List::None {
            // A newly active flow joins the new list with a full quantum (RFC 8290 §4.1).
            f.deficit = self.cfg.quantum_bytes as i64;
            self.push_list(List::New, fi as u32);
        }
        // Over the limit: make room from the fattest flow (possibly this one), not by refusing.
        let mut refused = false;
        while self.limit.pkts.is_some_and(|l| self.pkts > l)
            || self.limit.bytes.is_some_and(|l| self.bytes > l)
        {
            let before = drops.items.len();
            self.drop_from_fattest(drops);
            if drops.items.len() == before {
                break;
            }
            refused |= drops.items[before].0.id == item.id && drops.items[before].0.enq == item.enq;
        }
        !refused
    }

    #[inline]
    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        let got = match self.serve_inline(now, None) {
            Ok(got) => got,
            Err(passing) => self.serve(now, drops, passing),
        };
        self.ce_threshold(now, got, drops)
    }

    /// Enqueue and dequeue at once, for a packet reaching an empty discipline before an idle
    /// wire: the same new-list entry, DRR rounds and CoDel state as [`QueueDisc::enqueue`] then
    /// [`QueueDisc::dequeue`] (the empty flows ahead of it still move between the lists), without
    /// storing the packet. `None` if the limit would refuse it (the port then takes the long way,
    /// which drops it).
    fn pass_through(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> Option<QItem> {
        debug_assert_eq!(self.pkts, 0);
        if self.limit.pkts.is_some_and(|l| l == 0)
            || self.limit.bytes.is_some_and(|l| item.bytes as u64 > l)
        {
            return None;
        }
        let fi = self.classify(item.flow);
        self.mtu_bytes = self.mtu_bytes.max(item.bytes as u64);
        if self.flows[fi].list == List::None {
            self.flows[fi].deficit = self.cfg.quantum_bytes as i64;
            self.push_list(List::New, fi as u32);
        }
        let passing = Some((fi as u32, item));
        let got = match self.serve_inline(now, passing) {
            Ok(got) => got,
            Err(passing) => self.serve(now, drops, passing),
        };
        self.ce_threshold(now, got, drops)
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
        self.limit = Limit {
            pkts: Some(limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS)),
            bytes: limit.bytes,
        };
    }
}

#[cfg(test)]
mod tests;
