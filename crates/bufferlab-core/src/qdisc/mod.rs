//! Queue disciplines: what a port does with packets waiting for the wire.
//!
//! One narrow trait, [`QueueDisc`]; the built-ins are reached through the [`Qdisc`] enum so the
//! hot path has no virtual call. A discipline decides (accept, drop, which packet next); the port
//! does the counting (ns-3's `QueueDisc::Enqueue` vs `DoEnqueue` split).

pub(crate) mod band;
pub mod bql;
#[cfg(test)]
mod build_tests;
pub mod cake;
pub mod codel;
pub mod dualpi2;
pub mod fifo;
pub(crate) mod flow_list;
pub mod fq;
pub mod fq_codel;
pub mod fq_pie;
pub(crate) mod params;
pub mod pie;
pub mod prio_small;
pub mod red;
pub(crate) mod slab;
pub mod splitbuff;
#[cfg(test)]
pub(crate) mod testkit;

use crate::packet::{Ecn, FlowId, PktId};
use crate::problem::Problem;
use crate::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use cake::CakeConfig;
use codel::CodelConfig;
use dualpi2::DualPi2Config;
use fq::FqConfig;
use fq_codel::FqCodelConfig;
use fq_pie::FqPieConfig;
use pie::PieConfig;
use prio_small::PrioSmallConfig;
use red::RedSpec;
use splitbuff::{BlindSplitBuffConfig, SplitBuffConfig};

/// The discipline and its parameters. Absent parameters take the discipline's defaults.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscSpec {
    Fifo {},
    Red(RedSpec),
    Codel(CodelConfig),
    FqCodel(FqCodelConfig),
    Fq(FqConfig),
    Pie(PieConfig),
    FqPie(FqPieConfig),
    Splitbuff(SplitBuffConfig),
    BlindSplitbuff(BlindSplitBuffConfig),
    PrioSmall(PrioSmallConfig),
    Dualpi2(DualPi2Config),
    Cake(CakeConfig),
}

impl QdiscSpec {
    /// What the bounds of each key cannot say (RED's thresholds, CoDel's target below its
    /// interval, DualPI2's step below its target), before anything is built; problems name the key relative to the `qdisc` table.
    pub fn check(&self) -> Result<(), Problem> {
        match self {
            QdiscSpec::Red(s) => s.config().map(|_| ()),
            QdiscSpec::Codel(c) => c.check(),
            QdiscSpec::FqCodel(c) => c.check(),
            QdiscSpec::Dualpi2(c) => c.check(),
            _ => Ok(()),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            QdiscSpec::Fifo {} => "fifo",
            QdiscSpec::Red(_) => "red",
            QdiscSpec::Codel(_) => "codel",
            QdiscSpec::FqCodel(_) => "fq_codel",
            QdiscSpec::Fq(_) => "fq",
            QdiscSpec::Pie(_) => "pie",
            QdiscSpec::FqPie(_) => "fq_pie",
            QdiscSpec::Splitbuff(_) => "splitbuff",
            QdiscSpec::BlindSplitbuff(_) => "blind_splitbuff",
            QdiscSpec::PrioSmall(_) => "prio_small",
            QdiscSpec::Dualpi2(_) => "dualpi2",
            QdiscSpec::Cake(_) => "cake",
        }
    }

    /// The limit in packets of discipline `kind` when its queue gives neither a limit nor a
    /// sizing rule: Linux's default for it (`txqueuelen` for the single queues, `tc-codel(8)`,
    /// `tc-pie(8)`; 10240 for `fq_codel`, RFC 8290 §5.1; 10000 for `fq`, `tc-fq(8)`; 10240 for `fq_pie`). The
    /// scenario reader writes it into the plan, so a plan says what every queue holds.
    pub fn default_limit_pkts(kind: &str) -> u64 {
        match kind {
            "fq_codel" => fq_codel::DEFAULT_LIMIT_PKTS,
            "dualpi2" => dualpi2::DEFAULT_LIMIT_PKTS,
            "fq" => fq::DEFAULT_LIMIT_PKTS,
            "fq_pie" => fq_pie::DEFAULT_LIMIT_PKTS,
            "cake" => cake::DEFAULT_LIMIT_PKTS,
            _ => params::TXQUEUELEN_PKTS,
        }
    }
}

/// Why a packet was dropped. Every drop carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// Tail drop: the buffer was full.
    Overflow,
    /// An active queue management decision (RED early drop, CoDel, PIE).
    Aqm,
    /// FQ-CoDel's overflow drop from the fattest flow queue (RFC 8290 §4.1); CAKE's over its
    /// memory limit (Linux `cake_drop`).
    FqOverflow,
    /// The IP time to live ran out at a router.
    Ttl,
    /// The link's random loss (`loss = p`).
    Loss,
    /// `fq`'s per-flow limit: the packet's flow already had `flow_limit` packets queued
    /// (Linux `QDISC_DROP_FLOW_LIMIT`).
    FlowLimit,
    /// `fq`: the packet's departure time was beyond the horizon (Linux
    /// `QDISC_DROP_HORIZON_LIMIT`).
    Horizon,
    /// CAKE's BLUE: a random drop of an unresponsive flow's packet (COBALT, Linux
    /// `cobalt_should_drop`).
    Blue,
}

impl DropReason {
    pub const ALL: [DropReason; 8] = [
        DropReason::Overflow,
        DropReason::Aqm,
        DropReason::FqOverflow,
        DropReason::Ttl,
        DropReason::Loss,
        DropReason::FlowLimit,
        DropReason::Horizon,
        DropReason::Blue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Aqm => "aqm",
            DropReason::FqOverflow => "fq_overflow",
            DropReason::Ttl => "ttl",
            DropReason::Loss => "loss",
            DropReason::FlowLimit => "flow_limit",
            DropReason::Horizon => "horizon",
            DropReason::Blue => "blue",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// What a discipline keeps per packet: enough to decide, without touching the packet arena.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QItem {
    pub id: PktId,
    /// IP bytes (what byte limits and DRR quanta count).
    pub bytes: u32,
    /// When the packet reached the port.
    pub enq: Instant,
    /// Flow, for flow queueing (FQ-CoDel hashes on it).
    pub flow: FlowId,
    /// The sender's smoothed RTT stamped in the packet, `Duration::ZERO` if none (SplitBuff
    /// reads it).
    pub srtt_ns: Duration,
    /// The packet's ECN field; a discipline that marks sets it to CE (the port writes it back).
    pub ecn: Ecn,
}

/// A buffer limit in packets and/or bytes; `None` means unlimited on that axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limit {
    pub pkts: Option<u64>,
    pub bytes: Option<u64>,
}

impl Limit {
    /// Would a queue holding `pkts` packets and `bytes` bytes overflow if `add` more bytes came?
    #[inline]
    pub fn exceeded_by(&self, pkts: u64, bytes: u64, add: u64) -> bool {
        self.pkts.is_some_and(|l| pkts + 1 > l) || self.bytes.is_some_and(|l| bytes + add > l)
    }
}

/// Packets a discipline dropped during one call, with reasons; the port drains it.
#[derive(Default, Debug)]
pub struct Drops {
    pub items: Vec<(QItem, DropReason)>,
    /// Packets marked CE in place of a drop since the port last counted them.
    pub marks: u64,
}

impl Drops {
    #[inline]
    pub fn push(&mut self, item: QItem, reason: DropReason) {
        self.items.push((item, reason));
    }

    /// ECN (RFC 3168 §5; RFC 8311 §4.2 lets AQMs choose): mark `item` CE in place of dropping
    /// it. `false` when it is not ECN-capable, and then the caller drops it.
    #[inline]
    pub fn mark(&mut self, item: &mut QItem) -> bool {
        if !item.ecn.markable() {
            return false;
        }
        item.ecn = Ecn::Ce;
        self.marks += 1;
        true
    }
}

/// A queue discipline. `now` is always passed in; no discipline reads a clock.
pub trait QueueDisc {
    /// Fires when a packet reaches the port. Returns `false` if `item` itself was refused (it must
    /// then also be in `drops`). Packets dropped to make room (FQ-CoDel) go into `drops` too.
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool;

    /// Fires when the port can take a packet for the wire (or the NIC ring). Disciplines that drop
    /// at dequeue (CoDel, RFC 8289 §5.3) put those packets in `drops` before returning the next.
    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem>;

    /// A packet reaching the discipline while it is empty, with the wire idle: enqueue and
    /// dequeue in one step, leaving the discipline exactly as the two calls would, and return the
    /// packet to send; `None` to have the port make the two calls instead (the default; also
    /// when the packet would be refused). Only a discipline whose state after the pair is cheap
    /// to compute without storing the packet implements it.
    fn pass_through(&mut self, _now: Instant, _item: QItem, _drops: &mut Drops) -> Option<QItem> {
        None
    }

    /// Packets waiting.
    fn len_pkts(&self) -> u64;

    /// Bytes waiting.
    fn len_bytes(&self) -> u64;

    /// The limit now in force (what the queues table reports).
    fn limit(&self) -> Limit;

    /// Change the limit (RTT-adaptive sizing re-sizes a live buffer). Packets already queued stay.
    fn set_limit(&mut self, limit: Limit);

    /// Packets and bytes queued, together.
    #[inline]
    fn backlog(&self) -> (u64, u64) {
        (self.len_pkts(), self.len_bytes())
    }

    /// When the discipline next wants [`QueueDisc::on_timer`], if ever (PIE's periodic update;
    /// [`Qdisc`] forwards timers to PIE, FQ-PIE, DualPI2, `fq` and CAKE only: a new discipline with a timer is added there).
    fn next_timer(&self) -> Option<Instant> {
        None
    }

    /// Fires at the time [`QueueDisc::next_timer`] asked for.
    fn on_timer(&mut self, _now: Instant) {}

    /// Fires once when the port is built: the rate of the link the discipline feeds. Disciplines
    /// that reason in transmission times (RED's idle-time decay) keep it; the rest ignore it.
    fn set_link_rate(&mut self, _rate_bps: u64) {}
}

/// The built-in disciplines, dispatched without a virtual call. The FIFO, nearly every port of
/// a large network (each host's egress and each access link), is inline and keeps the enum at 72
/// bytes, so that the lines a hop reads of a port stay few (`net/port.rs`); the others, from 136
/// to 608 bytes, are boxed: one indirection on the few ports that run them, which stay in the
/// caches.
pub enum Qdisc {
    Fifo(fifo::Fifo),
    Red(Box<red::Red>),
    Codel(Box<codel::Codel>),
    FqCodel(Box<fq_codel::FqCodel>),
    Fq(Box<fq::Fq>),
    Pie(Box<pie::Pie>),
    FqPie(Box<fq_pie::FqPie>),
    SplitBuff(Box<splitbuff::SplitBuff>),
    PrioSmall(Box<prio_small::PrioSmall>),
    DualPi2(Box<dualpi2::DualPi2>),
    Cake(Box<cake::Cake>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            Qdisc::Fifo($q) => $e,
            Qdisc::Red($q) => $e,
            Qdisc::Codel($q) => $e,
            Qdisc::FqCodel($q) => $e,
            Qdisc::Fq($q) => $e,
            Qdisc::Pie($q) => $e,
            Qdisc::FqPie($q) => $e,
            Qdisc::SplitBuff($q) => $e,
            Qdisc::PrioSmall($q) => $e,
            Qdisc::DualPi2($q) => $e,
            Qdisc::Cake($q) => $e,
        }
    };
}

impl Qdisc {
    /// Build a discipline from its spec with the buffer limit already resolved (sizing rules are
    /// resolved by the caller, who knows the topology). `seed` seeds any randomness it has.
    /// Problems name the key of the discipline's parameters (relative to the `qdisc` table).
    pub fn build(spec: &QdiscSpec, limit: Limit, seed: u64) -> Result<Qdisc, Problem> {
        Ok(match spec {
            QdiscSpec::Fifo { .. } => Qdisc::Fifo(fifo::Fifo::new(limit)),
            QdiscSpec::Red(s) => Qdisc::Red(Box::new(red::Red::new(s.config()?, limit, seed))),
            QdiscSpec::Codel(c) => {
                c.check()?;
                Qdisc::Codel(Box::new(codel::Codel::new(*c, limit)))
            }
            QdiscSpec::FqCodel(c) => {
                c.check()?;
                Qdisc::FqCodel(Box::new(fq_codel::FqCodel::new(*c, limit, seed)))
            }
            QdiscSpec::Fq(c) => Qdisc::Fq(Box::new(fq::Fq::new(*c, limit, seed))),
            QdiscSpec::Pie(c) => Qdisc::Pie(Box::new(pie::Pie::new(*c, limit, seed))),
            QdiscSpec::FqPie(c) => Qdisc::FqPie(Box::new(fq_pie::FqPie::new(*c, limit, seed))),
            QdiscSpec::Splitbuff(c) => {
                Qdisc::SplitBuff(Box::new(splitbuff::SplitBuff::new(*c, limit)))
            }
            QdiscSpec::BlindSplitbuff(c) => Qdisc::SplitBuff(Box::new(
                splitbuff::SplitBuff::blind(c.buffers, limit, seed),
            )),
            QdiscSpec::PrioSmall(c) => {
                Qdisc::PrioSmall(Box::new(prio_small::PrioSmall::new(*c, limit)))
            }
            QdiscSpec::Dualpi2(c) => {
                c.check()?;
                Qdisc::DualPi2(Box::new(dualpi2::DualPi2::new(*c, limit, seed)))
            }
            QdiscSpec::Cake(c) => Qdisc::Cake(Box::new(cake::Cake::new(*c, limit, seed))),
        })
    }
}

impl Qdisc {
    // FIFO (nearly every host port) and FQ-CoDel (the Linux default) are called directly from
    // `enqueue`/`dequeue`, the FIFO inline; the rest go through one out-of-line jump table. This
    // saved FQ-CoDel's wrapper (~30 instructions a packet); the hoped-for fewer mispredictions
    // of a jump table alternating between FIFO host ports and an AQM bottleneck did not show
    // in wall time.
    #[inline(never)]
    fn enqueue_other(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        dispatch!(self, q => q.enqueue(now, item, drops))
    }
    #[inline(never)]
    fn dequeue_other(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        dispatch!(self, q => q.dequeue(now, drops))
    }
}

impl QueueDisc for Qdisc {
    #[inline]
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        match self {
            Qdisc::Fifo(q) => q.enqueue(now, item, drops),
            Qdisc::FqCodel(q) => q.enqueue(now, item, drops),
            _ => self.enqueue_other(now, item, drops),
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        match self {
            Qdisc::Fifo(q) => q.dequeue(now, drops),
            Qdisc::FqCodel(q) => q.dequeue(now, drops),
            _ => self.dequeue_other(now, drops),
        }
    }
    #[inline]
    fn pass_through(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> Option<QItem> {
        match self {
            Qdisc::FqCodel(q) => q.pass_through(now, item, drops),
            _ => None,
        }
    }
    #[inline]
    fn len_pkts(&self) -> u64 {
        dispatch!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    #[inline]
    fn backlog(&self) -> (u64, u64) {
        dispatch!(self, q => q.backlog())
    }
    fn limit(&self) -> Limit {
        dispatch!(self, q => q.limit())
    }
    fn set_limit(&mut self, limit: Limit) {
        dispatch!(self, q => q.set_limit(limit))
    }
    // Only PIE, FQ-PIE, DualPI2, FQ and CAKE have a timer: a comparison here, not a jump through every
    // discipline, on a call the port makes at every hop.
    #[inline]
    fn next_timer(&self) -> Option<Instant> {
        match self {
            Qdisc::Pie(q) => q.next_timer(),
            Qdisc::FqPie(q) => q.next_timer(),
            Qdisc::DualPi2(q) => q.next_timer(),
            Qdisc::Fq(q) => q.next_timer(),
            Qdisc::Cake(q) => q.next_timer(),
            _ => None,
        }
    }
    fn on_timer(&mut self, now: Instant) {
        match self {
            Qdisc::Pie(q) => q.on_timer(now),
            Qdisc::FqPie(q) => q.on_timer(now),
            Qdisc::DualPi2(q) => q.on_timer(now),
            Qdisc::Fq(q) => q.on_timer(now),
            Qdisc::Cake(q) => q.on_timer(now),
            _ => {}
        }
    }
    fn set_link_rate(&mut self, rate_bps: u64) {
        dispatch!(self, q => q.set_link_rate(rate_bps))
    }
}

impl Qdisc {
    /// The largest packet this discipline, empty, would take and give straight back unchanged
    /// by the visit: what an empty FIFO accepts under its limit; 0 for every other discipline
    /// (an AQM's state moves with each packet even when it is empty: CoDel's `first_above_time`,
    /// FQ-CoDel's new list, PIE's departure rate).
    pub fn empty_fifo_accepts(&self) -> u64 {
        match self {
            Qdisc::Fifo(f) => {
                let l = f.limit();
                if l.pkts.is_some_and(|p| p == 0) {
                    0
                } else {
                    l.bytes.unwrap_or(u64::MAX)
                }
            }
            _ => 0,
        }
    }

    /// Whether the discipline paces the flows of its host's sockets (`fq` with `pacing`): a
    /// local TCP sender behind it stamps departure times at its pacing rate.
    pub fn paces_flows(&self) -> bool {
        matches!(self, Qdisc::Fq(q) if q.pacing())
    }

    /// Whether the discipline may hold packets back while the wire is idle (`fq`, until their
    /// departure time; CAKE's shaper): when its timer fires, the port tries to send.
    pub fn holds_back(&self) -> bool {
        match self {
            Qdisc::Fq(_) => true,
            Qdisc::Cake(q) => q.shapes(),
            _ => false,
        }
    }

    /// Whether [`QueueDisc::pass_through`] can take packets (FIFO's own pass-through is the
    /// port's size test, [`Qdisc::empty_fifo_accepts`]).
    pub fn passes_through(&self) -> bool {
        matches!(self, Qdisc::FqCodel(_))
    }

    /// The discipline's name as the scenario spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Qdisc::Fifo(_) => "fifo",
            Qdisc::Red(_) => "red",
            Qdisc::Codel(_) => "codel",
            Qdisc::FqCodel(_) => "fq_codel",
            Qdisc::Fq(_) => "fq",
            Qdisc::Pie(_) => "pie",
            Qdisc::FqPie(_) => "fq_pie",
            Qdisc::SplitBuff(s) => s.name(),
            Qdisc::PrioSmall(_) => "prio_small",
            Qdisc::DualPi2(_) => "dualpi2",
            Qdisc::Cake(_) => "cake",
        }
    }
}
