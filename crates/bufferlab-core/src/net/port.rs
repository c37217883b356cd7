//! An egress port: queue discipline -> optional NIC ring (with BQL) -> serializer -> propagation
//! pipe (the Linux egress stack of seed 001 §IV-B; without a ring, a classic router buffer).
//!
//! The port does all the accounting (arrivals, enqueues, drops by reason, sojourn, occupancy,
//! busy time); the discipline only decides. With a ring, the qdisc's sojourn ends when the
//! driver moves the packet to the ring (what CoDel measures) and the ring's starts there: the two
//! layers' delays are kept apart. In-flight packets leave the pipe in FIFO order, so the port
//! needs at most one pending arrival event.

use rand::Rng as _;

use super::ahead::Ahead;
use super::framing::wire_bytes;
use super::host_tx::HostTx;
use super::ring::Ring;
use super::ring_gso::Seg;
use super::topology::Topology;
use super::trace::{TraceClock, TraceSpec};
use crate::capture::{Capture, Tap};
use crate::metrics::flow::{Counter, FlowStats, Window};
use crate::metrics::hist::Hist;
use crate::packet::{AgentId, Arena, Ecn, FlowId, NodeId, Packet, PktId, Proto};
use crate::qdisc::{DropReason, Drops, QItem, Qdisc, QueueDisc};
use crate::rng::Rng;
use crate::scenario::{Framing, RingSpec};
use crate::sched::{Ev, Sched};
use crate::sizing::AdaptiveSizer;
use crate::slot_ring::SlotRing;
use crate::time::{tx_time, Duration, Instant};

/// A port's fixed parameters (what every transmission reads first; the name last).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct PortParams {
    pub rate_bps: u64,
    pub delay_ns: Duration,
    /// The largest random extra delay per packet (`DirSpec::jitter_ns`); zero for none.
    pub jitter_ns: Duration,
    /// Random loss probability on the wire.
    pub loss: f64,
    pub framing: Framing,
    pub from: NodeId,
    pub to: NodeId,
    /// `"FROM->TO"`.
    pub name: String,
}

/// Packet totals over the whole run, for the conservation check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
}

/// What a port hook needs from the rest of the engine.
pub struct PortCtx<'a> {
    pub now: Instant,
    /// The measurement window (every port's: [`PortStats::window`]), read here at each hop
    /// rather than from the port's fourth line.
    pub window: Window,
    pub arena: &'a mut Arena,
    pub sched: &'a mut Sched,
    pub flows: &'a mut [FlowStats],
    /// Each flow's source node: drops of packets from it count as the flow's losses.
    pub flow_src: &'a [NodeId],
    /// Each flow's DSCP (its traffic block's `dscp`), carried by the packets its source sends.
    pub flow_dscp: &'a [u8],
    pub totals: &'a mut Totals,
    /// The run's packet capture, if it has one (ports with `taps` hand it packets).
    pub capture: Option<&'a mut Capture>,
    /// What each flow's host egress reports to its sockets (TCP small queues, `fq` pacing).
    pub host_tx: &'a mut [HostTx],
    /// The network's routes, for what a packet sent on a link touches at its far end ([`Ahead`]).
    pub topo: &'a Topology,
}

/// A packet of a TCP connection whose bytes its host's egress counts, being serialized: its
/// completion releases them and may wake the sender.
#[derive(Clone, Copy, Debug)]
struct TxOwner {
    flow: FlowId,
    conn: u32,
    agent: AgentId,
    bytes: u32,
}

/// A port's counters and its occupancy integral, in the order a hop touches them (`repr(C)`
/// keeps it). Placed after the port's first 96 bytes, the counters every hop updates fill the
/// rest of its second cache line and its third; the occupancy integral (a hop into a queue's)
/// and the window (the engine's, which the hops read from [`PortCtx::window`]) its fourth
/// (`layout` test below).
#[repr(C)]
pub struct PortStats {
    pub arrivals: Counter,
    pub enqueued: Counter,
    pub pkts_sent: Counter,
    /// IP bytes sent.
    pub bytes_sent: Counter,
    /// Bytes on the wire, framing included.
    pub wire_bytes_sent: Counter,
    /// Nanoseconds the serializer was busy, inside the window / in all.
    pub busy_ns: Counter,
    last_change: Instant,
    occ_pkts_area: u128,
    occ_bytes_area: u128,
    pub window: Window,
}

/// What a port measures only when packets wait or are dropped: kept apart from [`PortStats`] so
/// that the lines a hop through an idle port reads stay few (with 8,000 ports, each a miss).
pub struct PortQueueStats {
    /// Time from enqueue to leaving the discipline (for the wire, or for the ring if there is
    /// one), inside the window.
    pub sojourn: Hist,
    pub dropped: [Counter; DropReason::ALL.len()],
    /// Time from reaching the NIC ring to the start of transmission (ports with a ring).
    pub ring_sojourn: Hist,
    /// Packets the discipline marked CE in place of dropping them (RFC 3168 §5).
    pub marked: Counter,
}

impl PortStats {
    fn new(window: Window) -> Self {
        PortStats {
            window,
            arrivals: Counter::default(),
            enqueued: Counter::default(),
            pkts_sent: Counter::default(),
            bytes_sent: Counter::default(),
            wire_bytes_sent: Counter::default(),
            busy_ns: Counter::default(),
            occ_pkts_area: 0,
            occ_bytes_area: 0,
            last_change: Instant::ZERO,
        }
    }

    /// Integrate the occupancy `(pkts, bytes)` that held since the last change up to `now`.
    #[inline]
    fn integrate(&mut self, now: Instant, pkts: u64, bytes: u64) {
        let lo = self.last_change.max(self.window.start);
        let hi = now.min(self.window.end);
        if hi > lo {
            let dt = (hi - lo).as_ns() as u128;
            self.occ_pkts_area += pkts as u128 * dt;
            self.occ_bytes_area += bytes as u128 * dt;
        }
        self.last_change = now;
    }

    /// Time-averaged occupancy over the window, in packets and bytes.
    pub fn occupancy_mean(&self) -> (f64, f64) {
        let w = self.window.len().as_ns().max(1) as f64;
        (
            self.occ_pkts_area as f64 / w,
            self.occ_bytes_area as f64 / w,
        )
    }
}

impl PortQueueStats {
    fn new() -> Self {
        PortQueueStats {
            sojourn: Hist::default(),
            dropped: Default::default(),
            ring_sojourn: Hist::default(),
            marked: Counter::default(),
        }
    }

    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().map(|c| c.window).sum()
    }
}

/// An egress port. `repr(C)` keeps the fields in the order below: those every hop reads and
/// writes first, packed into four cache lines (a 100-flow dumbbell has 400 ports, a 2,000-flow
/// one 8,000: a layout ordered by the compiler spread each hop over twice as many lines), then
/// what a hop into a queue reads (the discipline, its drops), the rarely used last; aligned to a
/// cache line, so that those lines are the cache's.
#[repr(C, align(64))]
pub struct Port {
    // First cache line: what every hop reads.
    /// When the serializer is free again (the end of the current packet's serialization).
    tx_end: Instant,
    /// Packets and bytes in the discipline, kept here from what goes in, comes out and is
    /// dropped (every discipline reports its drops), so the occupancy integral and the "anything
    /// waiting?" tests at each hop need no call through the discipline enum, whose jump
    /// mispredicts on paths that alternate disciplines. Checked against the discipline's own
    /// count at the end of the run.
    pub(crate) backlog: (u64, u64),
    /// The last packet size serialized and its transmission time: a port mostly carries one size
    /// (full segments one way, ACKs the other), and this saves a division.
    last_tx_ns: Duration,
    /// The link's propagation delay (a copy of `params.delay_ns`, on this line).
    delay_ns: Duration,
    /// The largest packet that may skip the discipline when it is empty and the wire idle: the
    /// most an empty FIFO accepts (such a packet would go in and straight back out, changing
    /// nothing); 0 for every other discipline, and with a ring or an adaptive limit.
    bypass_bytes: u32,
    last_tx_bytes: u32,
    /// The node at the far end (a copy of `params.to`, on this line: what an arrival reads).
    to: NodeId,
    /// Zero sojourns inside the window not yet in [`PortQueueStats::sojourn`]: most hops of a
    /// simulation find nothing waiting, and counting those here spares the histogram's cache
    /// lines; folded in when it would overflow and by [`Port::finish`] (a histogram's counts
    /// do not depend on the order of its samples).
    sojourn_zeros: u32,
    /// The link's framing (a copy of `params.framing`, on this line: each packet's wire bytes).
    framing: Framing,
    /// Whether a `TxDone` is scheduled at `tx_end`. The event exists only when something must
    /// happen then: a packet is waiting to follow, or BQL must learn of the completion. A packet
    /// leaving an empty queue goes straight into the pipe when it starts, with no event for the
    /// end of its serialization (most hops in a simulation are not congested).
    tx_pending: bool,
    /// Whether the discipline may take a packet through in one step when it is empty and the
    /// wire idle ([`QueueDisc::pass_through`]); false with a ring or an adaptive limit.
    bypass_qdisc: bool,
    /// Whether the link has a random loss rate (`params.loss > 0`).
    lossy: bool,
    /// Whether the link adds a random delay per packet (`params.jitter_ns > 0`).
    jittery: bool,
    /// Where the run's capture takes packets from this port ([`Tap::bit`]s); 0 without one.
    pub(crate) taps: u8,
    /// The port is the first hop of a flow that TCP small queues track: it counts those
    /// flows' data packets until their TX completion ([`HostTx`]). On this line so that every
    /// other port skips that for one flag read.
    host_tsq: bool,
    /// Neither a NIC ring nor a trace: a transmission then reads nothing past the port's first
    /// lines (the ring and the trace lie far down the port, a cache miss of their own on each
    /// hop through a port of thousands).
    plain_wire: bool,
    // Second line: the pipe, then the counters (to the end of the fourth).
    /// Packets propagating, with their arrival times and what each touches first at the far
    /// end, in order.
    pipe: SlotRing<(Instant, PktId, Ahead)>,
    pub stats: PortStats,
    // Fifth and sixth lines: what a hop into a queue reads (the discipline, a FIFO inline, and
    // what it dropped), and the pointers a hop tests.
    pub qdisc: Qdisc,
    drops: Drops,
    /// The RTT-adaptive sizing rule re-sizing the discipline, if the port uses it.
    pub adaptive: Option<Box<AdaptiveSizer>>,
    /// The NIC ring and its byte queue limits, if the port has one.
    pub ring: Option<Box<Ring>>,
    /// The delivery opportunities the serializer waits for, if the link is trace-driven.
    pub trace: Option<Box<TraceClock>>,
    // The rest: read on congested hops, with timers, or at the end.
    /// A pending discipline timer, if one is scheduled.
    qdisc_timer: Option<Instant>,
    pub queue_stats: PortQueueStats,
    pub params: PortParams,
    /// The sizing rule the limit came from, if any.
    pub sizing: Option<String>,
    loss_rng: Rng,
    /// The port's index in the engine (what the capture knows it by).
    index: u32,
    /// The tracked packet being serialized, if it is one.
    wire_owner: Option<TxOwner>,
}

impl Port {
    pub fn new(
        params: PortParams,
        qdisc: Qdisc,
        sizing: Option<String>,
        window: Window,
        loss_rng: Rng,
    ) -> Self {
        let mut qdisc = qdisc;
        qdisc.set_link_rate(params.rate_bps);
        let bypass_bytes = qdisc.empty_fifo_accepts().min(u32::MAX as u64) as u32;
        let bypass_qdisc = qdisc.passes_through();
        let (delay_ns, lossy, to) = (params.delay_ns, params.loss > 0.0, params.to);
        let jittery = !params.jitter_ns.is_zero();
        let framing = params.framing;
        Port {
            params,
            qdisc,
            sizing,
            ring: None,
            trace: None,
            adaptive: None,
            tx_end: Instant::ZERO,
            tx_pending: false,
            bypass_qdisc,
            last_tx_bytes: u32::MAX,
            last_tx_ns: Duration::ZERO,
            delay_ns,
            to,
            sojourn_zeros: 0,
            framing,
            lossy,
            jittery,
            taps: 0,
            index: 0,
            host_tsq: false,
            plain_wire: true,
            wire_owner: None,
            backlog: (0, 0),
            pipe: SlotRing::with_capacity(16),
            qdisc_timer: None,
            bypass_bytes,
            loss_rng,
            drops: Drops::default(),
            stats: PortStats::new(window),
            queue_stats: PortQueueStats::new(),
        }
    }

    /// Give the port a NIC ring between its discipline and the wire.
    pub fn with_ring(mut self, spec: &RingSpec) -> Self {
        self.ring = Some(Box::new(Ring::new(spec)));
        self.plain_wire = false;
        self.bypass_bytes = 0;
        self.bypass_qdisc = false;
        self
    }

    /// Make the port a host's egress whose completions TCP small queues count: it releases the
    /// bytes of the flows [`HostTx::tracked`] marks.
    pub fn set_host_tsq(&mut self, tsq: bool) {
        self.host_tsq = tsq;
    }

    /// Send only at the delivery opportunities of a trace ([`super::trace`]). Every packet then
    /// goes through the discipline: none can skip it when the wire looks idle, since the wire
    /// waits for its next opportunity.
    pub fn with_trace(mut self, spec: &TraceSpec) -> Self {
        self.trace = Some(Box::new(TraceClock::new(spec)));
        self.plain_wire = false;
        self.bypass_bytes = 0;
        self.bypass_qdisc = false;
        self
    }

    /// Hand the run's capture the packets seen at `taps` (port `index` of the engine).
    pub fn set_taps(&mut self, index: u32, taps: u8) {
        self.index = index;
        self.taps = taps;
    }

    /// Let an RTT-adaptive sizer re-size the discipline (seed 003 §4.2).
    pub fn with_adaptive(mut self, sizer: AdaptiveSizer) -> Self {
        self.adaptive = Some(Box::new(sizer));
        self.bypass_bytes = 0;
        self.bypass_qdisc = false;
        self
    }

    /// The packets propagating, with their arrival times, oldest first.
    #[cfg(test)]
    pub(crate) fn in_pipe(&self) -> impl Iterator<Item = (Instant, PktId)> + '_ {
        self.pipe.iter().map(|&(at, id, _)| (at, id))
    }

    /// The node at the far end of the link.
    #[inline]
    pub fn to(&self) -> NodeId {
        self.to
    }

    /// Packets waiting in the discipline.
    pub fn queued(&self) -> u64 {
        self.qdisc.len_pkts()
    }

    /// Packets handed to the NIC ring, being serialized or propagating (a packet enters the
    /// pipe when its serialization starts).
    pub fn in_flight(&self) -> u64 {
        self.ring.as_ref().map_or(0, |r| r.len()) + self.pipe.len() as u64
    }

    /// Whether the serializer is free at `now` with no completion still to handle.
    #[inline]
    fn wire_idle(&self, now: Instant) -> bool {
        !self.tx_pending && now >= self.tx_end
    }

    /// Make sure a `TxDone` fires when the serializer frees up.
    #[inline]
    /// Arrival `at` with the link's random extra delay, uniform in [0, jitter] ns (drawn from the
    /// port's wire stream, the one its losses use), and never before the packet ahead of it on
    /// the wire: the link delays packets, it does not reorder them (netem reorders unless told
    /// not to; a wire does not).
    fn jittered(&mut self, at: Instant) -> Instant {
        let extra = self.loss_rng.gen_range(0..=self.params.jitter_ns.as_ns());
        let at = at + Duration::from_ns(extra);
        match self.pipe.get(self.pipe.len().wrapping_sub(1)) {
            Some(&(ahead, _, _)) => at.max(ahead),
            None => at,
        }
    }

    fn want_tx_done(&mut self, id: u32, sched: &mut Sched) {
        if !self.tx_pending {
            self.tx_pending = true;
            sched.at(self.tx_end, Ev::TxDone(id));
        }
    }

    /// A packet's time in the discipline, if it left inside the window.
    #[inline]
    fn record_sojourn(&mut self, w: &Window, now: Instant, sojourn: Duration) {
        if w.contains(now) {
            if !sojourn.is_zero() {
                self.queue_stats.sojourn.record(sojourn.as_ns());
            } else if self.sojourn_zeros < u32::MAX {
                self.sojourn_zeros += 1;
            } else {
                self.fold_zeros();
                self.sojourn_zeros = 1;
            }
        }
    }

    /// Fold the zero sojourns counted on the first line into the histogram.
    #[cold]
    fn fold_zeros(&mut self) {
        let z = std::mem::take(&mut self.sojourn_zeros);
        self.queue_stats.sojourn.record_n(0, z as u64);
    }

    #[inline]
    fn touch(&mut self, now: Instant) {
        let (p, b) = self.backlog;
        self.stats.integrate(now, p, b);
    }

    #[inline]
    fn account_drops(&mut self, cx: &mut PortCtx) {
        if self.drops.items.is_empty() {
            return;
        }
        self.account_drops_slow(cx);
    }

    #[cold]
    fn account_drops_slow(&mut self, cx: &mut PortCtx) {
        let w = self.stats.window;
        for (item, reason) in self.drops.items.drain(..) {
            self.backlog.0 -= 1;
            self.backlog.1 -= item.bytes as u64;
            if self.host_tsq {
                // Linux frees a dropped skb at once: `tcp_wfree` runs as at a completion.
                if let Some(o) = tracked(self.params.from, cx.arena.get(item.id), cx.host_tx) {
                    release(o, cx);
                }
            }
            // In the window of its arrival here, like `arrivals` (docs/measurement.md): a
            // window's drops are then a part of its arrivals, whenever the drop happens.
            self.queue_stats.dropped[reason.index()].add(&w, item.enq, 1);
            tap(self.taps, self.index, Tap::Drops, item.id, cx);
            drop_packet(item.id, cx);
        }
    }

    /// Marks the discipline made (RFC 3168 §5: CE in place of a drop), counted in the window of
    /// the marked packet's arrival, as drops are.
    #[cold]
    fn count_marks(&mut self, enq: Instant) {
        let w = self.stats.window;
        self.queue_stats.marked.add(&w, enq, self.drops.marks);
        self.drops.marks = 0;
    }

    /// Re-arm the discipline's timer if it wants one earlier than the pending one.
    #[inline]
    fn arm_qdisc_timer(&mut self, id: u32, sched: &mut Sched) {
        if let Some(t) = self.qdisc.next_timer() {
            if self.qdisc_timer.is_none_or(|p| t < p) {
                self.qdisc_timer = Some(t);
                sched.at(t, Ev::QdiscTimer(id));
            }
        }
    }

    /// A packet reaches the port (from the host's stack or from the router's forwarding).
    #[inline]
    pub fn enqueue(&mut self, id: u32, pkt: PktId, cx: &mut PortCtx) {
        let now = cx.now;
        let p = cx.arena.get(pkt);
        let item = QItem {
            id: pkt,
            bytes: p.size,
            enq: now,
            flow: p.flow,
            srtt_ns: p.srtt_ns,
            ecn: p.ecn,
        };
        let w = cx.window;
        self.stats.arrivals.add(&w, now, 1);
        tap(self.taps, self.index, Tap::Arrivals, pkt, cx);
        if self.backlog.0 == 0 && self.wire_idle(now) {
            // An empty discipline before an idle wire: the packet would be queued and dequeued
            // at once, with a sojourn of 0 and the occupancy 0 before and after. An empty FIFO
            // that has room changes nothing; FQ-CoDel updates its lists and CoDel state in one
            // step. (The queue cannot drop here: nothing waits and the packet's sojourn is 0.)
            let through = if item.bytes <= self.bypass_bytes {
                Some(item)
            } else if self.bypass_qdisc {
                self.qdisc.pass_through(now, item, &mut self.drops)
            } else {
                None
            };
            if let Some(it) = through {
                self.stats.enqueued.add(&w, now, 1);
                self.record_sojourn(&w, now, Duration::ZERO);
                tap(self.taps, self.index, Tap::Departures, it.id, cx);
                self.transmit(id, it.id, it.bytes, cx);
                return;
            }
        }
        self.touch(now);
        if let Some(a) = &mut self.adaptive {
            // Seed 003 §4.2: the router reads the RTT from the packets, and re-sizes once a
            // sawtooth cycle has ended.
            a.on_packet(now, item.srtt_ns);
            if now >= a.next_update() {
                let l = a.update(now);
                self.qdisc.set_limit(l);
            }
        }
        // Counted in; a refused packet comes back out among the drops.
        self.backlog.0 += 1;
        self.backlog.1 += item.bytes as u64;
        let accepted = match &mut self.qdisc {
            // `fq` reads departure times (it never lets a packet skip it).
            Qdisc::Fq(q) => {
                let at = departure_time(self.params.from, cx.arena.get(pkt));
                q.enqueue_at(now, item, at, &mut self.drops)
            }
            // CAKE reads the end hosts and the DSCP (neither does it let a packet skip it).
            Qdisc::Cake(q) => {
                let p = cx.arena.get(pkt);
                let dscp = packet_dscp(p, cx.flow_src, cx.flow_dscp);
                q.enqueue_from(now, item, p.src, p.dst, dscp, &mut self.drops)
            }
            _ => self.qdisc.enqueue(now, item, &mut self.drops),
        };
        if accepted {
            self.stats.enqueued.add(&w, now, 1);
        }
        if self.drops.marks > 0 {
            self.count_marks(now); // PIE and RED mark at enqueue
        }
        if let Some(a) = &mut self.adaptive {
            if !self.drops.items.is_empty() {
                a.on_drop(now);
            }
        }
        self.account_drops(cx);
        self.fill_ring(cx);
        if self.wire_idle(now) {
            self.start_tx(id, cx);
            self.fill_ring(cx);
        } else if self.backlog.0 > 0 {
            self.want_tx_done(id, cx.sched);
        }
        self.arm_qdisc_timer(id, cx.sched);
    }

    /// Take the next packet from the discipline, recording its sojourn there.
    #[inline]
    fn take_from_qdisc(&mut self, cx: &mut PortCtx) -> Option<QItem> {
        let now = cx.now;
        self.touch(now);
        let next = self.qdisc.dequeue(now, &mut self.drops);
        self.account_drops(cx);
        let item = next?;
        if let Qdisc::Fifo(q) = &self.qdisc {
            // The packet behind leaves at the next completion: its slot (read then for what it
            // touches at the far end, `Ahead`) has waited in the queue long enough to be cold.
            if let Some(id) = q.next_id() {
                cx.arena.prefetch_head(id);
            }
        }
        if self.drops.marks > 0 {
            self.count_marks(item.enq);
        }
        if item.ecn == Ecn::Ce {
            // A mark made here or upstream travels in the packet.
            cx.arena.get_mut(item.id).ecn = Ecn::Ce;
        }
        self.backlog.0 -= 1;
        self.backlog.1 -= item.bytes as u64;
        self.record_sojourn(&cx.window, now, now - item.enq);
        tap(self.taps, self.index, Tap::Departures, item.id, cx);
        Some(item)
    }

    /// The driver hands packets to the ring while it has a descriptor and BQL's budget.
    #[inline]
    fn fill_ring(&mut self, cx: &mut PortCtx) {
        if !self.plain_wire && self.ring.is_some() {
            self.fill_ring_slow(cx);
        }
    }

    fn fill_ring_slow(&mut self, cx: &mut PortCtx) {
        if self.ring.as_ref().is_some_and(|r| r.gso()) {
            return self.fill_gso_ring(cx);
        }
        while self.ring.as_ref().is_some_and(|r| r.has_room()) {
            let Some(item) = self.take_from_qdisc(cx) else {
                return;
            };
            if let Some(r) = &mut self.ring {
                r.push(item.id, item.bytes, cx.now);
            }
        }
    }

    /// A ring of GSO descriptors: a packet put back earlier goes first, then the driver takes
    /// packets while a descriptor is free or the newest buffer expects its next segment
    /// (`net/ring_gso.rs`).
    #[cold]
    fn fill_gso_ring(&mut self, cx: &mut PortCtx) {
        if let Some(r) = &mut self.ring {
            r.place_held();
        }
        while self.ring.as_ref().is_some_and(|r| r.may_take()) {
            let Some(item) = self.take_from_qdisc(cx) else {
                return;
            };
            let p = cx.arena.get(item.id);
            let seg = Seg {
                flow: p.flow,
                conn: p.tcp.conn,
                left: p.gso_left,
            };
            if let Some(r) = &mut self.ring {
                r.offer(item.id, item.bytes, seg, cx.now);
            }
        }
    }

    /// The serializer is free: take the next packet from the ring, or the discipline if none.
    fn start_tx(&mut self, id: u32, cx: &mut PortCtx) {
        let now = cx.now;
        if !self.plain_wire && self.trace.is_some() && !self.at_opportunity(id, cx) {
            return;
        }
        let ring = if self.plain_wire {
            None
        } else {
            self.ring.as_deref_mut()
        };
        let (pkt, bytes) = if let Some(r) = ring {
            let Some((pkt, bytes, at)) = r.pop() else {
                return;
            };
            if self.stats.window.contains(now) {
                self.queue_stats.ring_sojourn.record((now - at).as_ns());
            }
            (pkt, bytes)
        } else {
            let Some(item) = self.take_from_qdisc(cx) else {
                return;
            };
            (item.id, item.bytes)
        };
        self.transmit(id, pkt, bytes, cx);
    }

    /// A trace-driven port with something to send: whether an opportunity is open now; if not,
    /// the serializer waits for the next one (a `TxDone` then), the packet in the discipline.
    #[cold]
    fn at_opportunity(&mut self, id: u32, cx: &mut PortCtx) -> bool {
        let waiting = self.backlog.0 > 0 || self.ring.as_ref().is_some_and(|r| !r.is_empty());
        let Some(t) = &mut self.trace else {
            return true;
        };
        if !waiting {
            return false;
        }
        let slot = t.next_slot(cx.now);
        if slot > cx.now {
            self.tx_end = slot;
            self.want_tx_done(id, cx.sched);
            return false;
        }
        true
    }

    /// Serialize `pkt` (of `bytes` IP bytes) from now: it enters the pipe, lost or due at the far
    /// end.
    #[inline]
    fn transmit(&mut self, id: u32, pkt: PktId, bytes: u32, cx: &mut PortCtx) {
        let now = cx.now;
        let w = cx.window;
        let (wire, tx) = self.tx_cost(bytes);
        tap(self.taps, self.index, Tap::Wire, pkt, cx);
        let busy_end = now + tx;
        let trace = if self.plain_wire {
            None
        } else {
            self.trace.as_deref_mut()
        };
        let end = match trace {
            None => busy_end,
            Some(t) => {
                // A trace-driven link is busy for the time the bytes take at the trace's mean
                // rate (its `rate_bps`, what its utilization is a share of); the packet is
                // delivered at the opportunity that carries its last byte.
                t.busy_until = busy_end;
                t.send(wire)
            }
        };
        // Busy time inside the window: the overlap of [now, busy_end) with it.
        let busy_in = busy_end.min(w.end).saturating_since(now.max(w.start));
        let st = &mut self.stats;
        st.busy_ns.total += tx.as_ns();
        st.busy_ns.window += busy_in.as_ns();
        st.pkts_sent.total += 1;
        st.bytes_sent.total += bytes as u64;
        st.wire_bytes_sent.total += wire;
        if w.contains(now) {
            st.pkts_sent.window += 1;
            st.bytes_sent.window += bytes as u64;
            st.wire_bytes_sent.window += wire;
        }
        self.tx_end = end;
        // The packet's fate on the wire is known now: lost, or at the far end one propagation
        // delay after its last bit leaves. A loss is counted here and now, at the start of the
        // transmission, everywhere at once (this port, the flow, the run's totals): it is in
        // this port's `loss` drops and nowhere else, even if the run ends while its bits are
        // still being sent (the serializer stays busy for them all the same).
        if self.lossy && self.loss_rng.gen::<f64>() < self.params.loss {
            self.queue_stats.dropped[DropReason::Loss.index()].add(&w, now, 1);
            tap(self.taps, self.index, Tap::Drops, pkt, cx);
            drop_packet(pkt, cx);
        } else {
            let mut at = end + self.delay_ns;
            if self.jittery {
                at = self.jittered(at);
            }
            debug_assert_eq!(cx.topo.ports.get(id as usize).map(|p| p.1), Some(self.to));
            let ahead = Ahead::of(cx.topo, cx.arena, self.to, pkt, cx.flow_src);
            if self.pipe.is_empty() {
                cx.sched.at(
                    at,
                    Ev::Arrive {
                        port: id,
                        pkt,
                        ahead,
                    },
                );
            }
            self.pipe.push_back((at, pkt, ahead));
            // The slot the next transmission writes: on a busy link a line later in the pipe,
            // which its packets' stores would otherwise wait on (a store to a line not in the
            // cache holds up the stores behind it), brought in by the time the wire is free.
            crate::prefetch::line(self.pipe.next_slot());
        }
        let ring = if self.plain_wire {
            None
        } else {
            self.ring.as_deref_mut()
        };
        if let Some(r) = ring {
            // TX completion: BQL learns from each packet (or GSO descriptor) the NIC finished.
            r.started(bytes);
            self.want_tx_done(id, cx.sched);
        } else if self.backlog.0 > 0 {
            self.want_tx_done(id, cx.sched);
        }
        if self.host_tsq {
            self.own_wire(id, pkt, cx);
        }
    }

    /// Packet `pkt` started its serialization at a port that counts completions: if its bytes
    /// are tracked, its completion, at the end of its serialization whatever the wire does with
    /// it, releases them. (A packet the wire lost is already freed; its arena slot keeps its
    /// header until the next allocation.)
    #[inline(never)]
    fn own_wire(&mut self, id: u32, pkt: PktId, cx: &mut PortCtx) {
        self.wire_owner = tracked(self.params.from, cx.arena.get(pkt), cx.host_tx);
        if self.wire_owner.is_some() {
            self.want_tx_done(id, cx.sched);
        }
    }

    /// The wire bytes and transmission time of a packet of `bytes` IP bytes: the time that of
    /// the last size serialized, kept on the port's first line, or worked out (and kept).
    #[inline]
    fn tx_cost(&mut self, bytes: u32) -> (u64, Duration) {
        let wire = wire_bytes(self.framing, bytes as u64);
        if self.last_tx_bytes != bytes {
            self.last_tx_bytes = bytes;
            self.last_tx_ns = tx_time(wire, self.params.rate_bps);
        }
        (wire, self.last_tx_ns)
    }

    /// The serializer is free: the next packet starts.
    #[inline]
    pub fn on_tx_done(&mut self, id: u32, cx: &mut PortCtx) {
        let now = cx.now;
        self.tx_pending = false;
        if let Some(r) = &mut self.ring {
            // A trace-driven port also wakes for an opportunity with nothing completing.
            if r.on_wire > 0 {
                r.dql.completed(now, r.on_wire as u64);
                r.on_wire = 0;
            }
        }
        if self.host_tsq {
            if let Some(o) = self.wire_owner.take() {
                release(o, cx);
            }
        }
        self.start_tx(id, cx);
        self.fill_ring(cx);
        if self.ring.is_some() && self.wire_idle(now) {
            // The ring was empty when the wire freed up and the completion let the driver fill
            // it: the NIC sends what it was just given.
            self.start_tx(id, cx);
            self.fill_ring(cx);
        }
        self.arm_qdisc_timer(id, cx.sched);
    }

    /// The head of the pipe, `pkt`, has arrived at the far end and been handled: it leaves the
    /// pipe, and the arrival of the one behind it is scheduled in the place `seq` that was
    /// reserved when `pkt` arrived (so that the order of events is the order it would be had the
    /// arrival been scheduled before `pkt` was handled).
    #[inline]
    pub fn pop_arrival(&mut self, id: u32, pkt: PktId, seq: u64, sched: &mut Sched) {
        let head = self.pipe.pop_front();
        debug_assert_eq!(head.map(|e| e.1), Some(pkt), "the pipe's head arrives");
        if let Some(&(at, next, ahead)) = self.pipe.front() {
            sched.at_reserved(
                at,
                seq,
                Ev::Arrive {
                    port: id,
                    pkt: next,
                    ahead,
                },
            );
        }
    }

    /// Prefetch what an arrival reads of the port: its first line (the far end's node, the
    /// capture's taps) and the line of the pipe: the engine's look-ahead.
    #[inline]
    pub fn prefetch_arrival(&self) {
        crate::prefetch::line(&self.tx_end);
        crate::prefetch::line(&self.pipe);
    }

    /// Prefetch the lines a packet's hop into the port touches (the first line, the pipe's and
    /// the counters': `layout` test): the engine's look-ahead, for the port a router forwards
    /// the next arriving packet into.
    #[inline]
    pub fn prefetch_hop(&self) {
        crate::prefetch::line(&self.tx_end);
        crate::prefetch::line(&self.pipe);
        crate::prefetch::line(&self.stats.pkts_sent);
    }

    /// Prefetch what a hop into a queue reads besides (the occupancy integral, the discipline,
    /// its drops: `layout` test): for a port whose queue is likely not empty (a sending host's egress, which takes
    /// its bursts; a port whose serializer finishes next).
    #[inline]
    pub fn prefetch_queue(&self) {
        crate::prefetch::line(&self.stats.occ_pkts_area);
        crate::prefetch::line(&self.qdisc);
        crate::prefetch::line(&self.drops);
    }

    /// Prefetch the pipe's slot the next packet sent is written to (reads the pipe's header:
    /// the look-ahead's second stage, for a port [`Port::prefetch_hop`] brought).
    #[inline]
    pub fn prefetch_pipe_tail(&self) {
        crate::prefetch::line(self.pipe.next_slot());
    }

    /// Prefetch the FIFO's slot the next packet queued is written to (reads the FIFO's header:
    /// the look-ahead's second stage, for a port [`Port::prefetch_queue`] brought).
    #[inline]
    pub fn prefetch_queue_tail(&self) {
        if let Qdisc::Fifo(q) = &self.qdisc {
            crate::prefetch::line(q.next_slot());
        }
    }

    /// Prefetch the entry behind the pipe's head (what [`Port::pop_arrival`] reads), while the
    /// head packet is handled.
    #[inline]
    pub fn prefetch_pipe_next(&self) {
        if let Some(e) = self.pipe.get(1) {
            crate::prefetch::line(e);
        }
    }

    /// The discipline's timer fired.
    pub fn on_qdisc_timer(&mut self, id: u32, cx: &mut PortCtx) {
        let now = cx.now;
        if self.qdisc_timer.is_some_and(|t| t <= now) {
            self.qdisc_timer = None;
        }
        if self.qdisc.next_timer().is_some_and(|t| t <= now) {
            self.touch(now);
            self.qdisc.on_timer(now);
            if self.qdisc.holds_back() && self.backlog.0 > 0 {
                // `fq`'s watchdog: a throttled flow's departure time has come.
                self.fill_ring(cx);
                if self.wire_idle(now) {
                    self.start_tx(id, cx);
                    self.fill_ring(cx);
                }
            }
        }
        self.arm_qdisc_timer(id, cx.sched);
    }

    /// A trace-driven port's capacity over `[from, to)`: the wire bytes its opportunities
    /// there can carry (`None` for a port of constant rate).
    pub fn trace_capacity_bytes(&self, from: Instant, to: Instant) -> Option<u64> {
        self.trace
            .as_ref()
            .map(|t| t.opportunities_in(from, to) * super::trace::OPPORTUNITY_BYTES as u64)
    }

    /// The share of its capacity the port used over `[from, to)`: the busy time (`busy_ns`
    /// over the span, given) over the span's length, or on a trace-driven link the wire bytes
    /// sent (given) over what its opportunities there could carry.
    pub fn utilization(&self, from: Instant, to: Instant, busy_ns: u64, wire_bytes: u64) -> f64 {
        match self.trace_capacity_bytes(from, to) {
            Some(0) => 0.0,
            Some(cap) => wire_bytes as f64 / cap as f64,
            None => busy_ns as f64 / to.saturating_since(from).as_ns().max(1) as f64,
        }
    }

    /// How long the serializer has been busy from the start of the run up to `now`.
    pub fn busy_ns_until(&self, now: Instant) -> Duration {
        let busy_end = self.trace.as_ref().map_or(self.tx_end, |t| t.busy_until);
        Duration::from_ns(self.stats.busy_ns.total) - busy_end.saturating_since(now)
    }

    /// Close the occupancy integral at the end of the run.
    pub fn finish(&mut self, now: Instant) {
        self.touch(now);
        self.fold_zeros();
        self.queue_stats.sojourn.settle();
        self.queue_stats.ring_sojourn.settle();
    }

    /// Whether the port's own backlog count agrees with the discipline's.
    pub fn backlog_consistent(&self) -> bool {
        self.backlog == self.qdisc.backlog()
    }

    /// Drops at this port over the whole run, every reason.
    pub fn dropped_all_run(&self) -> u64 {
        self.queue_stats.dropped.iter().map(|c| c.total).sum()
    }

    /// The port's own ledger over the whole run, or what does not add up: every packet that
    /// arrived was sent, dropped before the wire (any reason but `loss`), or is still waiting in
    /// the discipline or on the ring.
    pub fn ledger_error(&self) -> Option<String> {
        let s = &self.stats;
        let lost = self.queue_stats.dropped[DropReason::Loss.index()].total;
        let before_wire = self.dropped_all_run() - lost;
        let ring = self.ring.as_ref().map_or(0, |r| r.len());
        let out = s.pkts_sent.total + before_wire + self.queued() + ring;
        if s.arrivals.total != out || lost > s.pkts_sent.total {
            return Some(format!(
                "port {}: {} arrivals != {} sent + {} dropped before the wire + {} queued + {} on the ring ({} lost on the wire)",
                self.params.name, s.arrivals.total, s.pkts_sent.total, before_wire, self.queued(), ring, lost
            ));
        }
        None
    }

    /// A packet that reached this port with its TTL spent (RFC 1812 §5.3.1): an arrival here,
    /// dropped before the discipline.
    pub fn drop_ttl(&mut self, pkt: PktId, cx: &mut PortCtx) {
        let (w, now) = (self.stats.window, cx.now);
        self.stats.arrivals.add(&w, now, 1);
        self.queue_stats.dropped[DropReason::Ttl.index()].add(&w, now, 1);
        tap(self.taps, self.index, Tap::Arrivals, pkt, cx);
        tap(self.taps, self.index, Tap::Drops, pkt, cx);
        drop_packet(pkt, cx);
    }

    /// The packet `pkt` reached the far end at `now`: the capture's, if it takes them here.
    #[inline]
    pub fn on_received(
        &self,
        now: Instant,
        pkt: &crate::packet::Packet,
        capture: Option<&mut Capture>,
    ) {
        if self.taps & Tap::Received.bit() != 0 {
            if let Some(c) = capture {
                c.record(self.index, Tap::Received, now, pkt);
            }
        }
    }
}

/// Hand `pkt` to the run's capture if the port's `taps` include `t` (one test of a byte when
/// nothing is captured).
#[inline]
fn tap(taps: u8, index: u32, t: Tap, pkt: PktId, cx: &mut PortCtx) {
    if taps & t.bit() != 0 {
        tap_slow(index, t, pkt, cx);
    }
}

#[cold]
fn tap_slow(index: u32, t: Tap, pkt: PktId, cx: &mut PortCtx) {
    if let Some(c) = cx.capture.as_deref_mut() {
        c.record(index, t, cx.now, cx.arena.get(pkt));
    }
}

/// The departure time of packet `p` at the egress of node `from` (for `fq`): its own if it comes
/// from this host's stack; none (`Instant::ZERO`) if forwarded, as Linux clears `skb->tstamp`.
#[inline]
fn departure_time(from: NodeId, p: &Packet) -> Instant {
    if p.src == from {
        p.tstamp
    } else {
        Instant::ZERO
    }
}

/// The DSCP of packet `p`: its flow's if its flow's source sent it (a reply or an ACK carries
/// none).
#[inline]
fn packet_dscp(p: &Packet, flow_src: &[NodeId], flow_dscp: &[u8]) -> u8 {
    let f = p.flow as usize;
    if flow_src.get(f) == Some(&p.src) {
        flow_dscp.get(f).copied().unwrap_or(0)
    } else {
        0
    }
}

/// The connection whose bytes packet `p` counts in at the egress of node `from`, if that egress
/// tracks them (a data packet its sender counted, [`HostTx::on_send`]).
#[inline]
fn tracked(from: NodeId, p: &Packet, host_tx: &[HostTx]) -> Option<TxOwner> {
    let ours = p.src == from && p.proto == Proto::Tcp && p.tcp.len > 0;
    (ours && host_tx.get(p.flow as usize).is_some_and(|h| h.tracked)).then_some(TxOwner {
        flow: p.flow,
        conn: p.tcp.conn,
        agent: p.src_agent,
        bytes: p.size,
    })
}

/// A tracked packet left its host (TX completion) or was dropped there: its bytes no longer
/// count, and a sender waiting for that is woken (Linux: `tcp_wfree`, then the TSQ handler runs
/// `tcp_write_xmit`; here an event at the same instant, after the port's own work).
#[inline]
fn release(o: TxOwner, cx: &mut PortCtx) {
    if let Some(h) = cx.host_tx.get_mut(o.flow as usize) {
        if h.on_release(o.conn, o.bytes) {
            cx.sched.at(
                cx.now,
                Ev::TxWake {
                    agent: o.agent,
                    conn: o.conn,
                },
            );
        }
    }
}

/// Free a dropped packet and count it against its flow: in the window its source sent it in,
/// like `pkts_sent`, so a window's drops are a part of its sends (docs/measurement.md).
#[inline]
pub fn drop_packet(pkt: PktId, cx: &mut PortCtx) {
    let p = cx.arena.get(pkt);
    let f = p.flow as usize;
    if let Some(st) = cx.flows.get_mut(f) {
        if cx.flow_src.get(f) == Some(&p.src) {
            let w = st.window;
            st.pkts_dropped.add(&w, p.created, 1);
        }
    }
    cx.totals.dropped += 1;
    cx.arena.free(pkt);
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;
