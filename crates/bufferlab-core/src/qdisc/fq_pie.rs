//! FQ-PIE, Flow Queue PIE (Linux `sch_fq_pie`, Ramakrishnan et al., "FQ-PIE Queue Discipline
//! in the Linux Kernel: Design, Implementation and Challenges", IEEE LCN Symposium 2019): FQ-CoDel's
//! flow queueing (RFC 8290 §4: hashed flow queues, deficit round robin, new flows first) with
//! RFC 8033's PIE controller in each flow queue in place of CoDel. PIE drops (or marks) at
//! enqueue, from the arriving packet's flow queue; a timer updates every flow queue's
//! probability from that queue's own delay.
//!
//! Storage: every queued packet in one preallocated slab ([`super::slab`]), a flow queue a
//! chain through it, the new and old lists linking flow queues. Nothing is allocated per packet.

mod vars;

use rand::Rng as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flow_list::{Chain, Linked, NIL};
use super::params::flow_hash;
use super::slab::{PacketSlab, PktChain};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::rng::{stream, Rng, Stream};
use crate::time::{Duration, Instant};
pub use vars::{PieParams, PieVars};

/// FQ-PIE's parameters (plan keys as `tc-fq_pie(8)`'s options).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FqPieConfig {
    /// Each flow queue's delay target (`target`; Linux and RFC 8033 §4.2: 15 ms).
    #[schemars(range(min = 1))]
    pub target_ns: Duration,
    /// The period of the probability update (`tupdate`; Linux and RFC 8033 §4.2: 15 ms).
    #[schemars(range(min = 1))]
    pub tupdate_ns: Duration,
    /// Weight of the deviation from target, per second (`alpha`, which `tc` gives in 1/16:
    /// 2, i.e. 0.125, RFC 8033 §4.2).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub alpha: f64,
    /// Weight of the delay trend, per second (`beta`, in 1/16 for `tc`: 20, i.e. 1.25).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub beta: f64,
    /// Number of flow queues packets are hashed into (`flows`; Linux: 1024, at most 65536).
    #[schemars(range(min = 1, max = 65536))]
    pub flows: u32,
    /// Bytes a flow queue may send per round (`quantum`; Linux: the device MTU with its
    /// link-layer header, 1514 B).
    #[schemars(range(min = 64, max = 1_048_576))]
    pub quantum_bytes: u32,
    /// Mark ECN-capable packets CE instead of dropping them while the flow queue's drop
    /// probability is at most `ecn_prob` (`ecn`; default off, as Linux's `fq_pie`).
    pub ecn: bool,
    /// The probability up to which ECN-capable packets are marked rather than dropped
    /// (`ecn_prob`, Linux: 10%, RFC 8033 §5.1's threshold).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ecn_prob: f64,
}

impl Default for FqPieConfig {
    /// Linux `fq_pie_init` with `pie_params_init`: target and tupdate 15 ms, alpha 2/16, beta
    /// 20/16, 1024 flows, a 1514 B quantum, ECN off with a 10% marking threshold.
    fn default() -> Self {
        FqPieConfig {
            target_ns: Duration::from_ms(15),
            tupdate_ns: Duration::from_ms(15),
            alpha: 0.125,
            beta: 1.25,
            flows: 1024,
            quantum_bytes: 1514,
            ecn: false,
            ecn_prob: 0.1,
        }
    }
}

/// Linux `fq_pie_init`: `sch->limit = 10 * 1024` packets when none is given.
pub const DEFAULT_LIMIT_PKTS: u64 = 10240;
/// Linux arms the first probability update half a second after the qdisc is created
/// (`mod_timer(..., jiffies + HZ / 2)`), then every `tupdate`.
const FIRST_UPDATE: Duration = Duration::from_ms(500);
/// PIE's burst allowance after a reset (Linux `pie_vars_init`: 150 ms, RFC 8033 §4.4's
/// MAX_BURST).
const MAX_BURST: Duration = Duration::from_ms(150);

/// Which list a flow queue is on; `New` and `Old` index [`FqPie::lists`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
enum List {
    New = 0,
    Old = 1,
    None = 2,
}

/// One flow queue: its packets (a chain through the slab), its credit, its link in the list
/// it is on, and its PIE controller.
struct Flow {
    pkts: PktChain,
    bytes: u64,
    deficit: i64,
    next: u32,
    list: List,
    /// On [`FqPie::unsettled`].
    tracked: bool,
    vars: PieVars,
}

impl Linked for Flow {
    #[inline]
    fn next_mut(&mut self) -> &mut u32 {
        &mut self.next
    }
}

pub struct FqPie {
    cfg: FqPieConfig,
    pie: PieParams,
    limit: Limit,
    seed: u64,
    rng: Rng,
    slab: PacketSlab,
    flows: Vec<Flow>,
    lists: [Chain; 2],
    pkts: u64,
    bytes: u64,
    next_update: Instant,
    /// The flow queues whose controller the next update may change: every queue that has held
    /// a packet since its controller last settled. The others' update is the identity, and
    /// walking all `flows` every `tupdate` cost a third of the discipline's time.
    unsettled: Vec<u32>,
}

impl FqPie {
    pub fn new(cfg: FqPieConfig, limit: Limit, seed: u64) -> Self {
        let limit = Limit {
            pkts: Some(limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS)),
            bytes: limit.bytes,
        };
        let pie = PieParams {
            target: cfg.target_ns,
            alpha: cfg.alpha,
            beta: cfg.beta,
            max_burst: MAX_BURST,
        };
        let cap = (limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS) + 1).min(1 << 16) as usize;
        FqPie {
            cfg,
            pie,
            limit,
            seed,
            rng: stream(seed, Stream::Qdisc, 0),
            slab: PacketSlab::with_capacity(cap),
            flows: (0..cfg.flows)
                .map(|_| Flow {
                    pkts: PktChain::EMPTY,
                    bytes: 0,
                    deficit: 0,
                    next: NIL,
                    list: List::None,
                    tracked: false,
                    vars: PieVars::new(&pie),
                })
                .collect(),
            lists: [Chain::EMPTY; 2],
            pkts: 0,
            bytes: 0,
            next_update: Instant::ZERO + FIRST_UPDATE,
            unsettled: Vec::with_capacity(cfg.flows as usize),
        }
    }

    /// The flow queue of a flow (Linux hashes the 5-tuple, `reciprocal_scale` onto the table;
    /// our packets carry their flow id).
    #[inline]
    fn classify(&self, flow: u32) -> usize {
        ((flow_hash(flow, self.seed) as u128 * self.cfg.flows as u128) >> 64) as usize
    }

    /// The drop probability of the flow queue `flow` hashes to (for tests and diagnostics).
    pub fn flow_prob(&self, flow: u32) -> f64 {
        self.flows[self.classify(flow)].vars.prob
    }

    /// Bytes queued in the flow queue `flow` hashes to.
    pub fn flow_backlog_bytes(&self, flow: u32) -> u64 {
        self.flows[self.classify(flow)].bytes
    }

    /// Every queue off the unsettled list is settled (so skipping its update changes nothing:
    /// a settled controller is a fixed point of the update, `vars`' tests).
    #[cfg(test)]
    fn untracked_are_settled(&self) -> bool {
        self.flows
            .iter()
            .all(|f| f.tracked || f.vars.settled(&self.pie, f.bytes))
    }

    #[inline]
    fn push_list(&mut self, which: List, f: u32) {
        self.flows[f as usize].list = which;
        self.lists[which as usize].push(&mut self.flows, f);
    }

    #[inline]
    fn pop_list(&mut self, which: List) -> u32 {
        let f = self.lists[which as usize].pop(&mut self.flows);
        self.flows[f as usize].list = List::None;
        f
    }

    /// Take the head packet of flow queue `f`, if any.
    #[inline]
    fn pop_packet(&mut self, f: usize) -> Option<QItem> {
        let fl = &mut self.flows[f];
        let item = self.slab.pop_front(&mut fl.pkts)?;
        fl.bytes -= item.bytes as u64;
        self.pkts -= 1;
        self.bytes -= item.bytes as u64;
        Some(item)
    }
}

impl QueueDisc for FqPie {
    /// Linux `fq_pie_qdisc_enqueue`: a full discipline refuses the arriving packet (unlike
    /// FQ-CoDel, which drops from the fattest queue); else the flow queue's PIE decides.
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        let fi = self.classify(item.flow);
        if !self.flows[fi].tracked {
            self.flows[fi].tracked = true;
            self.unsettled.push(fi as u32);
        }
        if self
            .limit
            .exceeded_by(self.pkts, self.bytes, item.bytes as u64)
        {
            self.flows[fi].vars.on_drop();
            drops.push(item, DropReason::Overflow);
            return false;
        }
        let mut item = item;
        let rng = &mut self.rng;
        let fl = &mut self.flows[fi];
        if fl.vars.drop_early(&self.pie, fl.bytes, || rng.gen::<f64>()) {
            // Marked instead while the probability is at most ecn_prob (RFC 8033 §5.1).
            let marked = self.cfg.ecn && fl.vars.prob <= self.cfg.ecn_prob && drops.mark(&mut item);
            if !marked {
                fl.vars.on_drop();
                drops.push(item, DropReason::Aqm);
                return false;
            }
        }
        let fl = &mut self.flows[fi];
        self.slab.push_back(&mut fl.pkts, item);
        fl.bytes += item.bytes as u64;
        self.pkts += 1;
        self.bytes += item.bytes as u64;
        if fl.list == List::None {
            // A newly active flow joins the new list with a full quantum (RFC 8290 §4.1).
            fl.deficit = self.cfg.quantum_bytes as i64;
            self.push_list(List::New, fi as u32);
        }
        true
    }

    /// Linux `fq_pie_qdisc_dequeue`: deficit round robin, new list first (RFC 8290 §4.2), and
    /// the served queue's PIE notes the packet's sojourn.
    #[inline]
    fn dequeue(&mut self, now: Instant, _drops: &mut Drops) -> Option<QItem> {
        loop {
            let [new, old] = self.lists;
            let which = if new.head != NIL {
                List::New
            } else if old.head != NIL {
                List::Old
            } else {
                return None;
            };
            let f = self.lists[which as usize].head;
            let fl = &mut self.flows[f as usize];
            if fl.deficit <= 0 {
                fl.deficit += self.cfg.quantum_bytes as i64;
                self.pop_list(which);
                self.push_list(List::Old, f);
                continue;
            }
            let Some(item) = self.pop_packet(f as usize) else {
                // An emptied new queue goes through the old list once (so it cannot keep its
                // priority by emptying and refilling); an emptied old one goes idle.
                self.pop_list(which);
                if which == List::New && self.lists[List::Old as usize].head != NIL {
                    self.push_list(List::Old, f);
                }
                continue;
            };
            let fl = &mut self.flows[f as usize];
            fl.deficit -= item.bytes as i64;
            fl.vars.on_dequeue(now, item.enq, fl.bytes);
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
        self.limit = Limit {
            pkts: Some(limit.pkts.unwrap_or(DEFAULT_LIMIT_PKTS)),
            bytes: limit.bytes,
        };
    }

    fn next_timer(&self) -> Option<Instant> {
        Some(self.next_update)
    }

    /// Linux `fq_pie_timer`: every flow queue's probability from its own backlog, every
    /// `tupdate`. (Linux walks at most 2048 queues per tick; with more it finishes the walk on
    /// the next jiffy, which at this model's granularity is the same update.) Only the queues
    /// on the unsettled list are visited: a settled idle queue's update would leave it as it is.
    fn on_timer(&mut self, now: Instant) {
        if now < self.next_update {
            return;
        }
        let (flows, pie) = (&mut self.flows, &self.pie);
        self.unsettled.retain(|&f| {
            let fl = &mut flows[f as usize];
            fl.vars.update(pie, fl.bytes);
            fl.tracked = !fl.vars.settled(pie, fl.bytes);
            fl.tracked
        });
        self.next_update = now + self.cfg.tupdate_ns;
    }
}

#[cfg(test)]
mod tests;
