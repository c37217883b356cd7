//! CAKE, Common Applications Kept Enhanced (Høiland-Jørgensen, Täht, Morton, "Piece of CAKE: A
//! Comprehensive Queue Management Solution for Home Gateways", IEEE LANMAN 2018; Linux
//! `net/sched/sch_cake.c`; `tc-cake(8)`): a deficit-mode shaper with overhead compensation,
//! DiffServ tins with priority up to a bandwidth threshold, set-associative flow queues with
//! per-host fairness (DRR++ with host-scaled quanta), and COBALT (CoDel + BLUE) on each queue.
//!
//! Modelled as Linux does it, with these differences: the packet's size in memory
//! (`skb->truesize`) is its IP size, so `memlimit` counts IP bytes; the overflow drop finds the
//! fattest queue by walking the active lists (Linux keeps a max-heap; only ties can differ);
//! no `ack-filter`, `nat`, `wash`, `autorate-ingress`, `fwmark`, GSO splitting (no packet is a
//! GSO super-packet here); COBALT's control law in floating point ([`cobalt`]); the shaper's
//! times are whole nanoseconds (`tx_time`) instead of Linux's rate shifted by `rate_shft`.
//! The engine hands CAKE each packet's end nodes and DSCP beside it
//! ([`Cake::enqueue_from`]); the plain [`QueueDisc::enqueue`] treats every packet as host 0 to
//! host 0 with DSCP 0.

mod cobalt;
mod hashing;
mod lists;
mod overhead;
mod tins;

use rand::RngCore as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use hashing::{Isolation, WayStats};
pub use overhead::AtmMode;
pub use tins::Diffserv;

use cobalt::{CobaltParams, CobaltVars, Verdict};
use lists::{List, ListId};
use overhead::Overhead;

use super::flow_list::NIL;
use super::slab::{PacketSlab, PktChain};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::rng::{stream, Rng, Stream};
use crate::time::{tx_time, Duration, Instant};

/// Flow queues per tin (Linux `CAKE_QUEUES`).
pub(crate) const QUEUES: usize = 1024;
/// Ways of the set-associative hash (Linux `CAKE_SET_WAYS`).
pub(crate) const WAYS: usize = 8;
/// The MTU CAKE scales its quantum and MTU time by: Linux's `psched_mtu` of an Ethernet device
/// (1500 B + 14 B header).
pub const MTU_BYTES: u32 = 1514;
/// Linux's `sch->limit` for CAKE (`cake_init`): 10240 packets, which caps the memory limit at
/// 10240 MTUs.
pub const DEFAULT_LIMIT_PKTS: u64 = 10240;

/// CAKE's parameters, `tc-cake(8)`'s keywords (plan keys `bandwidth_bps`, `rtt_ns`, ...).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct CakeConfig {
    /// The shaper's rate; none: unlimited (`unlimited`, Linux's default), CAKE then only
    /// schedules and the link sets the pace.
    #[schemars(range(min = 1))]
    pub bandwidth_bps: Option<u64>,
    /// COBALT's interval, the RTT CAKE expects (`rtt`; Linux default 100 ms, `internet`).
    #[schemars(range(min = 1))]
    pub rtt_ns: Duration,
    /// COBALT's target (Linux default 5 ms; raised to 1.5 MTU times at low rates).
    #[schemars(range(min = 1))]
    pub target_ns: Duration,
    /// Tins by DSCP (Linux default `diffserv3`).
    pub diffserv: Diffserv,
    /// What fairness is between (Linux default `triple-isolate`).
    pub isolation: Isolation,
    /// Bytes of framing the link adds to each IP packet (`overhead`, -64 to 256); none: `raw`,
    /// the IP packet plus its 14 B Ethernet header as Linux sees it.
    #[schemars(range(min = -64, max = 256))]
    pub overhead_bytes: Option<i32>,
    /// Minimum packet unit: the least the shaper charges a packet (`mpu`; default 0).
    #[schemars(range(max = 256))]
    pub mpu_bytes: u32,
    /// Cell framing: `noatm` (default), `atm` (48 B per 53 B cell), `ptm` (64/65 coding).
    pub atm: AtmMode,
    /// Memory limit (`memlimit`); none: Linux's, 4 rtt of traffic at the shaped rate (at least
    /// 4 MB), unlimited when unshaped, in both cases at most `limit` MTUs.
    #[schemars(range(min = 1))]
    pub memlimit_bytes: Option<u64>,
    /// Shaping an ingress (download) link (`ingress`): dropped packets count against the shaper,
    /// and COBALT's target grows with the number of bulk flows.
    pub ingress: bool,
}

impl Default for CakeConfig {
    /// Linux's `cake_init` defaults.
    fn default() -> Self {
        CakeConfig {
            bandwidth_bps: None,
            rtt_ns: Duration::from_ms(100),
            target_ns: Duration::from_ms(5),
            diffserv: Diffserv::Diffserv3,
            isolation: Isolation::TripleIsolate,
            overhead_bytes: None,
            mpu_bytes: 0,
            atm: AtmMode::Noatm,
            memlimit_bytes: None,
            ingress: false,
        }
    }
}

/// Where a flow queue stands in DRR++ (Linux `CAKE_SET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Set {
    None,
    Sparse,
    /// Counted as sparse, but in the old (bulk) rotation.
    SparseWait,
    Bulk,
    /// Empty, its COBALT state decaying.
    Decaying,
}

/// One flow queue: its packets (a chain through the slab), DRR++ state and COBALT.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flow {
    pub(crate) pkts: PktChain,
    backlog: u32,
    deficit: i32,
    pub(crate) prev: u32,
    pub(crate) next: u32,
    pub(crate) srchost: u16,
    pub(crate) dsthost: u16,
    pub(crate) set: Set,
    list: ListId,
    cvars: CobaltVars,
}

impl Flow {
    const IDLE: Flow = Flow {
        pkts: PktChain::EMPTY,
        backlog: 0,
        deficit: 0,
        prev: NIL,
        next: NIL,
        srchost: 0,
        dsthost: 0,
        set: Set::None,
        list: ListId::None,
        cvars: CobaltVars::REST,
    };
}

/// A host's entry: whose it is and its bulk flows, as a source and as a destination.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Host {
    pub(crate) src_tag: u32,
    pub(crate) dst_tag: u32,
    pub(crate) src_bulk: u32,
    pub(crate) dst_bulk: u32,
}

/// A tin's counters (Linux's per-tin statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TinStats {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// Drops by COBALT (CoDel and BLUE) and by the memory limit.
    pub dropped: u64,
    pub ecn_marked: u64,
    /// Flows BLUE holds active (Linux `unresponsive_flow_count`).
    pub unresponsive: u32,
}

/// One tin: its flow queues and hosts, lists, shaper and COBALT parameters.
pub(crate) struct Tin {
    pub(crate) flows: Vec<Flow>,
    pub(crate) tags: Vec<u32>,
    pub(crate) hosts: Vec<Host>,
    lists: [List; 3],
    /// Bytes a flow's quantum holds (Linux: `rate >> 12` bytes, between 300 and 1514).
    flow_quantum: u32,
    cparams: CobaltParams,
    sparse: u32,
    bulk: u32,
    decaying: u32,
    /// The tin's threshold rate (0: unshaped).
    rate_bps: u64,
    time_next: Instant,
    tin_quantum: i32,
    tin_deficit: i32,
    backlog: u64,
    pub(crate) ways: WayStats,
    stats: TinStats,
}

impl Tin {
    fn new(rate_bps: u64, quantum: i32, cfg: &CakeConfig) -> Tin {
        // Linux `cake_set_rate`.
        let (flow_quantum, mtu_time) = if rate_bps > 0 {
            let q = ((rate_bps / 8) >> 12).clamp(300, MTU_BYTES as u64) as u32;
            (q, tx_time(MTU_BYTES as u64, rate_bps))
        } else {
            (MTU_BYTES, Duration::ZERO)
        };
        let target = cfg.target_ns.max(mtu_time * 3 / 2);
        let interval = (cfg.rtt_ns + target - cfg.target_ns).max(target * 2);
        Tin {
            flows: vec![Flow::IDLE; QUEUES],
            tags: vec![0; QUEUES],
            hosts: vec![Host::default(); QUEUES],
            lists: [List::EMPTY; 3],
            flow_quantum,
            cparams: CobaltParams {
                target,
                interval,
                mtu_time,
                p_inc: 1 << 24,
                p_dec: 1 << 20,
            },
            sparse: 0,
            bulk: 0,
            decaying: 0,
            rate_bps,
            time_next: Instant::ZERO,
            tin_quantum: quantum,
            tin_deficit: 0,
            backlog: 0,
            ways: WayStats::default(),
            stats: TinStats::default(),
        }
    }

    #[inline]
    fn active(&self) -> bool {
        self.sparse + self.bulk > 0
    }

    #[inline]
    fn move_to(&mut self, f: usize, to: ListId) {
        let from = self.flows[f].list;
        if from != ListId::None {
            self.lists[from as usize].remove(&mut self.flows, f as u32);
        }
        if to != ListId::None {
            self.lists[to as usize].push_back(&mut self.flows, f as u32);
        }
        self.flows[f].list = to;
    }

    /// A new quantum for flow `f`, divided among its busiest host's bulk flows, with Linux's
    /// random dithering of the division's remainder (`rand` 32 bits).
    #[inline]
    fn quantum_share(&self, mode: Isolation, f: usize, rand: u32) -> i32 {
        let div = 65535 / self.host_load(mode, f);
        ((self.flow_quantum * div + (rand >> 16)) >> 16) as i32
    }
}

pub struct Cake {
    cfg: CakeConfig,
    overhead: Overhead,
    tins: Vec<Tin>,
    cur_tin: usize,
    seed: u64,
    rng: Rng,
    slab: PacketSlab,
    pkts: u64,
    bytes: u64,
    /// The queue block's limit (Linux `sch->limit`, packets) and the memory limit it yields.
    limit: Limit,
    buffer_limit: u64,
    /// The global shaper: when the next packet may leave (0 rate: unshaped).
    rate_bps: u64,
    time_next: Instant,
    /// When the shaper next lets a packet go, if a dequeue found it closed (Linux's watchdog).
    watchdog: Option<Instant>,
    /// Drops by the memory limit (Linux `drop_overlimit`).
    overlimit_drops: u64,
}

impl Cake {
    pub fn new(cfg: CakeConfig, limit: Limit, seed: u64) -> Self {
        let rate = cfg.bandwidth_bps.unwrap_or(0);
        let tins = (0..cfg.diffserv.tins())
            .map(|i| {
                let s = cfg.diffserv.share(i);
                let r = (rate as u128 * s.num as u128 / s.den as u128) as u64;
                Tin::new(if rate > 0 { r.max(1) } else { 0 }, s.quantum, &cfg)
            })
            .collect();
        let cap = 1024;
        let mut q = Cake {
            cfg,
            overhead: Overhead {
                overhead: cfg.overhead_bytes,
                mpu: cfg.mpu_bytes,
                atm: cfg.atm,
            },
            tins,
            cur_tin: 0,
            seed,
            rng: stream(seed, Stream::Qdisc, 0),
            slab: PacketSlab::with_capacity(cap),
            pkts: 0,
            bytes: 0,
            limit,
            buffer_limit: 0,
            rate_bps: rate,
            time_next: Instant::ZERO,
            watchdog: None,
            overlimit_drops: 0,
        };
        q.set_limit(limit);
        q
    }

    /// Linux `cake_reconfigure`'s memory limit: `memlimit` if given (or the queue block's byte
    /// limit), else 4 × rtt at the shaped rate (at least 4 MB), unlimited when unshaped; in all
    /// cases at most `limit` MTUs unless `memlimit` says more.
    fn memory_limit(cfg: &CakeConfig, limit: Limit) -> u64 {
        let config = cfg.memlimit_bytes.or(limit.bytes);
        let base = match (config, cfg.bandwidth_bps) {
            (Some(c), _) => c,
            (None, Some(bps)) => {
                let t = (bps / 8) as u128 * cfg.rtt_ns.as_ns() as u128 * 4 / 1_000_000_000;
                (t as u64).max(4 << 20)
            }
            (None, None) => u64::MAX,
        };
        let by_pkts = limit
            .pkts
            .unwrap_or(DEFAULT_LIMIT_PKTS)
            .saturating_mul(MTU_BYTES as u64);
        base.min(by_pkts.max(config.unwrap_or(0)))
    }

    /// The memory limit in force, in bytes.
    pub fn buffer_limit(&self) -> u64 {
        self.buffer_limit
    }

    /// Tin `i`'s counters.
    pub fn tin_stats(&self, i: usize) -> TinStats {
        self.tins[i].stats
    }

    /// Tin `i`'s set-associative lookup counters.
    pub fn way_stats(&self, i: usize) -> WayStats {
        self.tins[i].ways
    }

    /// Tin `i`'s COBALT target and interval and its flow quantum (Linux's tin statistics).
    pub fn tin_params(&self, i: usize) -> (Duration, Duration, u32) {
        let t = &self.tins[i];
        (t.cparams.target, t.cparams.interval, t.flow_quantum)
    }

    /// Packets dropped by the memory limit.
    pub fn overlimit_drops(&self) -> u64 {
        self.overlimit_drops
    }

    /// Whether it shapes (and so may hold packets back while the wire is idle).
    pub fn shapes(&self) -> bool {
        self.rate_bps > 0
    }

    /// Enqueue a packet of host `src` to host `dst` carrying `dscp` (Linux `cake_enqueue`).
    #[inline]
    pub fn enqueue_from(
        &mut self,
        now: Instant,
        item: QItem,
        src: u32,
        dst: u32,
        dscp: u8,
        drops: &mut Drops,
    ) -> bool {
        let mode = self.cfg.isolation;
        let ti = (self.cfg.diffserv.tin_of(dscp) as usize).min(self.tins.len() - 1);
        let fi = if mode == Isolation::Flowblind {
            0
        } else {
            let h = hashing::key_hash(mode, item.flow, src, dst, self.seed);
            self.tins[ti].lookup(mode, h, src, dst)
        };
        // The shaper's schedule does not bank idle time.
        let qempty = self.pkts == 0;
        let tin = &mut self.tins[ti];
        if tin.backlog == 0 {
            tin.time_next = tin.time_next.max(now);
            if qempty {
                self.time_next = self.time_next.max(now);
            }
        }
        let tin = &mut self.tins[ti];
        let f = &mut tin.flows[fi];
        self.slab.push_back(&mut f.pkts, item);
        f.backlog += item.bytes;
        tin.backlog += item.bytes as u64;
        self.pkts += 1;
        self.bytes += item.bytes as u64;
        match f.set {
            Set::None | Set::Decaying => {
                if f.set == Set::Decaying {
                    tin.decaying -= 1;
                }
                tin.move_to(fi, ListId::New);
                tin.flows[fi].set = Set::Sparse;
                tin.sparse += 1;
                let div = 65535 / tin.host_load(mode, fi);
                tin.flows[fi].deficit = ((tin.flow_quantum * div) >> 16) as i32;
            }
            Set::SparseWait => {
                f.set = Set::Bulk;
                tin.sparse -= 1;
                tin.bulk += 1;
                tin.bulk_joins_hosts(mode, fi);
            }
            _ => {}
        }
        let mut refused = false;
        while self.bytes > self.buffer_limit {
            let Some(it) = self.drop_fattest(now) else {
                break;
            };
            refused |= it.id == item.id && it.enq == item.enq;
            self.overlimit_drops += 1;
            drops.push(it, DropReason::FqOverflow);
        }
        !refused
    }

    /// Linux `cake_drop`: the head of the queue holding the most bytes, over all tins; BLUE learns
    /// of the overflow.
    #[cold]
    fn drop_fattest(&mut self, now: Instant) -> Option<QItem> {
        let (mut best, mut best_bytes) = (None, 0);
        for (ti, tin) in self.tins.iter().enumerate() {
            for l in [ListId::New, ListId::Old] {
                let mut f = tin.lists[l as usize].head;
                while f != NIL {
                    let fl = &tin.flows[f as usize];
                    if fl.backlog > best_bytes {
                        best = Some((ti, f as usize));
                        best_bytes = fl.backlog;
                    }
                    f = fl.next;
                }
            }
        }
        let (ti, fi) = best?;
        let item = self.pop(ti, fi)?;
        let tin = &mut self.tins[ti];
        if tin.flows[fi].cvars.queue_full(&tin.cparams, now) {
            tin.stats.unresponsive += 1;
        }
        tin.stats.dropped += 1;
        if self.cfg.ingress {
            let len = self.overhead.adjusted_len(item.bytes);
            self.advance_shaper(ti, len, now);
        }
        Some(item)
    }

    /// Take the head packet of flow `fi` of tin `ti`.
    #[inline]
    fn pop(&mut self, ti: usize, fi: usize) -> Option<QItem> {
        let tin = &mut self.tins[ti];
        let f = &mut tin.flows[fi];
        let item = self.slab.pop_front(&mut f.pkts)?;
        f.backlog -= item.bytes;
        tin.backlog -= item.bytes as u64;
        self.pkts -= 1;
        self.bytes -= item.bytes as u64;
        Some(item)
    }

    /// Charge `len` shaper bytes to tin `ti` and to the global shaper (Linux
    /// `cake_advance_shaper`; its failsafe schedule, 1.5 times the rate, only matters when drops
    /// are charged without being sent, and never binds before `time_next` otherwise).
    #[inline]
    fn advance_shaper(&mut self, ti: usize, len: u32, now: Instant) {
        if self.rate_bps == 0 {
            return;
        }
        let tin = &mut self.tins[ti];
        let tin_dur = tx_time(len as u64, tin.rate_bps);
        if tin.time_next < now {
            tin.time_next += tin_dur;
        } else if tin.time_next < now + tin_dur {
            tin.time_next = now + tin_dur;
        }
        self.time_next += tx_time(len as u64, self.rate_bps);
    }

    /// Choose the tin to serve (Linux `cake_dequeue`, "Choose a class to work on"): unshaped, DRR
    /// between tins by their weights; shaped, the highest-priority tin within its threshold
    /// rate, else the one whose schedule comes first.
    #[inline]
    fn choose_tin(&mut self, now: Instant) -> Option<usize> {
        let n = self.tins.len();
        if self.rate_bps == 0 {
            let (mut wrapped, mut empty) = (false, true);
            loop {
                let b = &mut self.tins[self.cur_tin];
                if b.tin_deficit >= 0 && b.active() {
                    return Some(self.cur_tin);
                }
                if b.tin_deficit <= 0 {
                    b.tin_deficit += b.tin_quantum;
                }
                if b.active() {
                    empty = false;
                }
                self.cur_tin += 1;
                if self.cur_tin >= n {
                    self.cur_tin = 0;
                    if wrapped {
                        if empty {
                            return None;
                        }
                    } else {
                        wrapped = true;
                    }
                }
            }
        } else {
            let mut best: Option<(usize, i128)> = None;
            for (i, b) in self.tins.iter().enumerate() {
                if b.active() {
                    let ttp = b.time_next.as_ns() as i128 - now.as_ns() as i128;
                    if ttp <= 0 || best.is_none_or(|(_, t)| ttp <= t) {
                        best = Some((i, ttp));
                    }
                }
            }
            let (i, _) = best?;
            self.cur_tin = i;
            Some(i)
        }
    }

    /// Linux `cake_dequeue` from the chosen tin's flows: DRR++ over the decaying (first pick
    /// only), new and old lists, COBALT on each packet taken.
    fn serve(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        let mode = self.cfg.isolation;
        self.watchdog = None;
        // Only the first pick of a call looks at the decaying list first (Linux: `first_flow`
        // is set once per dequeue, not at each `goto begin`).
        let mut first_flow = true;
        'begin: loop {
            if self.pkts == 0 {
                return None;
            }
            if self.rate_bps > 0 && self.time_next > now {
                self.watchdog = Some(self.time_next);
                return None;
            }
            let ti = self.choose_tin(now)?;
            'retry: loop {
                let tin = &mut self.tins[ti];
                let dec = ListId::Decaying as usize;
                let which = if first_flow && !tin.lists[dec].is_empty() {
                    ListId::Decaying
                } else if !tin.lists[ListId::New as usize].is_empty() {
                    ListId::New
                } else if !tin.lists[ListId::Old as usize].is_empty() {
                    ListId::Old
                } else if !tin.lists[dec].is_empty() {
                    ListId::Decaying
                } else {
                    // Counts say active but no list holds a flow: cannot happen.
                    debug_assert!(false, "cake: active tin with empty lists");
                    return None;
                };
                first_flow = false;
                let fi = tin.lists[which as usize].head as usize;
                if tin.flows[fi].deficit <= 0 {
                    // Out of credit: a sparse flow with packets becomes bulk (an empty one waits,
                    // still counted sparse); a new quantum shared by its host's bulk flows.
                    if tin.flows[fi].set == Set::Sparse {
                        if !tin.flows[fi].pkts.is_empty() {
                            tin.sparse -= 1;
                            tin.bulk += 1;
                            tin.bulk_joins_hosts(mode, fi);
                            tin.flows[fi].set = Set::Bulk;
                        } else {
                            tin.flows[fi].set = Set::SparseWait;
                        }
                    }
                    let rand = self.rng.next_u32();
                    let tin = &mut self.tins[ti];
                    tin.flows[fi].deficit += tin.quantum_share(mode, fi, rand);
                    tin.move_to(fi, ListId::Old);
                    continue 'retry;
                }
                loop {
                    let Some(mut item) = self.pop(ti, fi) else {
                        self.retire(ti, fi, now);
                        continue 'begin;
                    };
                    let tin = &mut self.tins[ti];
                    let bulk = if self.cfg.ingress { tin.bulk as u64 } else { 0 };
                    let sojourn = now.saturating_since(item.enq);
                    let rng = &mut self.rng;
                    let fl = &mut tin.flows[fi];
                    let verdict = fl.cvars.should_drop(
                        &tin.cparams,
                        now,
                        sojourn,
                        bulk,
                        item.ecn.markable(),
                        || rng.next_u32(),
                    );
                    let last = fl.pkts.is_empty();
                    let reason = match verdict {
                        Verdict::Pass => None,
                        Verdict::Mark => {
                            drops.mark(&mut item);
                            tin.stats.ecn_marked += 1;
                            None
                        }
                        // The flow's last packet is sent even when COBALT would drop it.
                        _ if last => None,
                        Verdict::DropCodel => Some(DropReason::Aqm),
                        Verdict::DropBlue => Some(DropReason::Blue),
                    };
                    let Some(reason) = reason else {
                        return Some(self.deliver(ti, fi, item, now));
                    };
                    tin.stats.dropped += 1;
                    drops.push(item, reason);
                    if self.cfg.ingress {
                        let len = self.overhead.adjusted_len(item.bytes);
                        self.advance_shaper(ti, len, now);
                        let tin = &mut self.tins[ti];
                        tin.flows[fi].deficit -= len as i32;
                        tin.tin_deficit -= len as i32;
                        continue 'retry;
                    }
                }
            }
        }
    }

    /// The packet leaves: the shaper and the deficits are charged its adjusted length.
    #[inline]
    fn deliver(&mut self, ti: usize, fi: usize, item: QItem, now: Instant) -> QItem {
        let len = self.overhead.adjusted_len(item.bytes);
        self.advance_shaper(ti, len, now);
        let tin = &mut self.tins[ti];
        tin.flows[fi].deficit -= len as i32;
        tin.tin_deficit -= len as i32;
        tin.stats.sent_pkts += 1;
        tin.stats.sent_bytes += item.bytes as u64;
        item
    }

    /// Flow `fi` was served and found empty: it decays on the decaying list while COBALT has
    /// state, else leaves the rotation.
    fn retire(&mut self, ti: usize, fi: usize, now: Instant) {
        let mode = self.cfg.isolation;
        let tin = &mut self.tins[ti];
        if tin.flows[fi].cvars.queue_empty(&tin.cparams, now) {
            tin.stats.unresponsive = tin.stats.unresponsive.saturating_sub(1);
        }
        let set = tin.flows[fi].set;
        if set == Set::Bulk {
            tin.bulk_leaves_hosts(mode, fi);
        }
        match set {
            Set::Bulk => tin.bulk -= 1,
            Set::Sparse | Set::SparseWait => tin.sparse -= 1,
            Set::Decaying => tin.decaying -= 1,
            Set::None => {}
        }
        if tin.flows[fi].cvars.at_rest(now) {
            tin.move_to(fi, ListId::None);
            tin.flows[fi].set = Set::None;
        } else {
            tin.move_to(fi, ListId::Decaying);
            tin.flows[fi].set = Set::Decaying;
            tin.decaying += 1;
        }
    }
}

impl QueueDisc for Cake {
    /// Every packet from host 0 to host 0, DSCP 0: the port calls [`Cake::enqueue_from`].
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        self.enqueue_from(now, item, 0, 0, 0, drops)
    }

    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        self.serve(now, drops)
    }

    fn len_pkts(&self) -> u64 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// The memory limit, in bytes: CAKE has no packet limit (Linux's `sch->limit` only caps the
    /// memory limit, at that many MTUs), so a queue of small packets may hold more than `limit`.
    fn limit(&self) -> Limit {
        Limit {
            pkts: None,
            bytes: Some(self.buffer_limit),
        }
    }

    fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
        self.buffer_limit = Self::memory_limit(&self.cfg, limit);
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
