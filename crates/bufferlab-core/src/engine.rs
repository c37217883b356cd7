//! The event loop: pops (time, event) in order and hands each to the component it names.

use crate::agent::build::FlowInfo;
use crate::agent::{Agent, AgentHooks, Io};
use crate::metrics::flow::{Arrival, FlowStats, TransferRecord, Window};
use crate::net::port::{drop_packet, Port, PortCtx, Totals};
use crate::net::topology::{Topology, NO_ROUTE};
use crate::packet::{Arena, NodeId, Packet, PktId, Proto};
use crate::qdisc::{Qdisc, QueueDisc};
use crate::results::*;
use crate::scenario::RunSpec;
use crate::sched::{Ev, Sched};
use crate::time::{Duration, Instant};

pub struct Engine {
    pub(crate) sched: Sched,
    pub(crate) arena: Arena,
    pub(crate) ports: Vec<Port>,
    pub(crate) agents: Vec<(NodeId, Agent)>,
    pub(crate) flows: Vec<FlowStats>,
    pub(crate) flow_info: Vec<FlowInfo>,
    pub(crate) flow_src: Vec<NodeId>,
    pub(crate) topo: Topology,
    pub(crate) totals: Totals,
    /// Scratch: packets an agent emitted during one hook.
    pub(crate) out: Vec<PktId>,
    /// Scratch: timers an agent armed during one hook.
    pub(crate) timers: Vec<(Instant, u32)>,
    pub(crate) transfers: Vec<TransferRecord>,
    pub(crate) timeseries: TimeSeries,
    pub(crate) run: RunSpec,
    pub(crate) window: Window,
    pub(crate) events: u64,
    pub(crate) now: Instant,
    /// Per port (busy ns, IP bytes sent) and per flow (bytes delivered) at the previous sample.
    pub(crate) prev_port: Vec<(Duration, u64)>,
    pub(crate) prev_flow: Vec<u64>,
    pub(crate) prev_sample: Instant,
    /// Packets whose TTL ran out at a router, kept only when a driver answers them with ICMP
    /// Time Exceeded (the kernel backend); `None` in a simulation, which only counts the drop.
    pub(crate) ttl_expired: Option<Vec<TtlExpired>>,
}

/// A packet a router dropped because its TTL ran out (RFC 1812 §5.3.1), as a driver needs it
/// to answer with ICMP Time Exceeded (RFC 792): the router, the packet's source and its `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtlExpired {
    pub at: Instant,
    pub router: NodeId,
    pub src: NodeId,
    pub seq: u64,
    /// The TTL the packet arrived with (1 or 0).
    pub ttl: u8,
}

/// The port context from the engine's fields (a macro, not a method, so the borrow of these
/// fields stays disjoint from `self.ports`).
macro_rules! port_ctx {
    ($e:ident, $now:expr) => {
        PortCtx {
            now: $now,
            arena: &mut $e.arena,
            sched: &mut $e.sched,
            flows: &mut $e.flows,
            flow_src: &$e.flow_src,
            totals: &mut $e.totals,
        }
    };
}

/// Before the measurement window: remember how far each TCP connection's data had been sent,
/// so the window's goodput counts only data first sent inside it ([`FlowStats::on_delivered`]).
#[inline]
fn note_sent_before_window(p: &Packet, flows: &mut [FlowStats]) {
    if p.proto == Proto::Tcp && p.tcp.len > 0 {
        if let Some(f) = flows.get_mut(p.flow as usize) {
            f.on_sent_before_window(p.tcp.conn, p.tcp.seq + p.tcp.len as u64);
        }
    }
}

/// Route a packet from `node` into the port towards its destination.
#[inline]
pub(crate) fn forward(
    node: NodeId,
    pkt: PktId,
    ports: &mut [Port],
    topo: &Topology,
    cx: &mut PortCtx,
) {
    let dst = cx.arena.get(pkt).dst;
    let port = topo.next_port(node, dst);
    if port == NO_ROUTE {
        // Routes were checked at build time for every flow's endpoints; a packet with no route is
        // dropped rather than lost, so conservation still holds.
        drop_packet(pkt, cx);
        return;
    }
    ports[port as usize].enqueue(port, pkt, cx);
}

impl Engine {
    /// Run an agent hook, then inject what it emitted and arm what it asked for.
    pub(crate) fn with_agent(&mut self, now: Instant, a: u32, f: impl FnOnce(&mut Agent, &mut Io)) {
        let (node, agent) = &mut self.agents[a as usize];
        let node = *node;
        let mut io = Io {
            now,
            node,
            arena: &mut self.arena,
            out: &mut self.out,
            timers: &mut self.timers,
            flows: &mut self.flows,
            transfers: &mut self.transfers,
        };
        f(agent, &mut io);
        for (at, token) in self.timers.drain(..) {
            self.sched.at(at, Ev::Timer { agent: a, token });
        }
        let mut cx = port_ctx!(self, now);
        let before_window = now < self.window.start;
        for id in self.out.drain(..) {
            cx.totals.created += 1;
            if before_window {
                note_sent_before_window(cx.arena.get(id), cx.flows);
            }
            forward(node, id, &mut self.ports, &self.topo, &mut cx);
        }
    }

    /// A packet reached `node` off a link: deliver it, or forward it as a router does.
    #[inline]
    fn arrive(&mut self, now: Instant, node: NodeId, pkt: PktId) {
        let (dst, ttl) = {
            let p = self.arena.get(pkt);
            (p.dst, p.ttl)
        };
        if dst == node {
            // The agent gets its own copy: the slot is free for what it sends in reply.
            let p = *self.arena.get(pkt);
            self.totals.delivered += 1;
            self.arena.free(pkt);
            if let Some(f) = self.flows.get_mut(p.flow as usize) {
                f.rx = Arrival {
                    sent_at: p.created,
                    conn: (p.proto == Proto::Tcp).then_some(p.tcp.conn),
                };
            }
            let a = p.dst_agent;
            if (a as usize) < self.agents.len() {
                self.with_agent(now, a, |ag, io| ag.on_packet(io, &p));
            }
            return;
        }
        if ttl <= 1 {
            if let Some(v) = self.ttl_expired.as_mut() {
                let p = self.arena.get(pkt);
                v.push(TtlExpired {
                    at: now,
                    router: node,
                    src: p.src,
                    seq: p.seq,
                    ttl,
                });
            }
        }
        let mut cx = port_ctx!(self, now);
        // A router decrements the TTL and drops the packet when it reaches 0 (RFC 791, RFC 1812
        // §5.3.1); the packet counts as an arrival at the port it would have left by, dropped
        // there. (A router always has a route on: the packet came along one.)
        if ttl <= 1 {
            let port = self.topo.next_port(node, dst);
            if let Some(pt) = self.ports.get_mut(port as usize) {
                pt.count_ttl_drop(now);
            }
            drop_packet(pkt, &mut cx);
            return;
        }
        cx.arena.get_mut(pkt).ttl -= 1;
        forward(node, pkt, &mut self.ports, &self.topo, &mut cx);
    }

    /// Process events until simulated time `end` (exclusive). `progress` sees the time now and
    /// then (every 2^16 events) and stops the run by returning `false`; returns whether the run
    /// reached `end`.
    pub fn run_until(&mut self, end: Instant, mut progress: impl FnMut(Instant) -> bool) -> bool {
        while let Some((now, ev)) = self.sched.pop_before(end) {
            self.now = now;
            self.events += 1;
            if self.events & 0xFFFF == 0 && !progress(now) {
                return false;
            }
            match ev {
                Ev::TxDone(p) => {
                    let mut cx = port_ctx!(self, now);
                    self.ports[p as usize].on_tx_done(p, &mut cx);
                }
                Ev::Arrive(p) => {
                    let port = &mut self.ports[p as usize];
                    let to = port.params.to;
                    if let Some(pkt) = port.pop_arrival(p, &mut self.sched) {
                        self.arrive(now, to, pkt);
                    }
                }
                Ev::Timer { agent, token } => {
                    self.with_agent(now, agent, |a, io| a.on_timer(io, token));
                }
                Ev::QdiscTimer(p) => {
                    let mut cx = port_ctx!(self, now);
                    self.ports[p as usize].on_qdisc_timer(p, &mut cx);
                }
                Ev::Sample => self.sample(now),
            }
        }
        self.now = self.now.max(end.min(Instant::ZERO + self.run.duration_ns));
        true
    }

    /// One row of time series per queue, link and flow: queue lengths now, and the link and flow
    /// rates over the interval since the previous sample.
    fn sample(&mut self, now: Instant) {
        let t = now.secs();
        let dt = (now - self.prev_sample).secs();
        let rate = |d: u64| if dt > 0.0 { d as f64 * 8.0 / dt } else { 0.0 };
        let ts = &mut self.timeseries;
        self.prev_port.resize(self.ports.len(), (Duration::ZERO, 0));
        self.prev_flow.resize(self.flows.len(), 0);
        for (p, prev) in self.ports.iter().zip(self.prev_port.iter_mut()) {
            let name = &p.params.name;
            let (busy, bytes) = (p.busy_ns_until(now), p.stats.bytes_sent.total);
            ts.push(t, "queue", name, "qlen_pkts", p.qdisc.len_pkts() as f64);
            ts.push(t, "queue", name, "qlen_bytes", p.qdisc.len_bytes() as f64);
            if let Some(r) = &p.ring {
                ts.push(t, "queue", name, "ring_pkts", r.len() as f64);
                if r.dql.limit() != u64::MAX {
                    ts.push(t, "queue", name, "bql_limit_bytes", r.dql.limit() as f64);
                }
            }
            if p.adaptive.is_some() {
                if let Some(l) = p.qdisc.limit().pkts {
                    ts.push(t, "queue", name, "limit_pkts", l as f64);
                }
            }
            if let Qdisc::SplitBuff(s) = &p.qdisc {
                for (metric, v) in s.estimates() {
                    ts.push(t, "queue", name, metric, v);
                }
            }
            let util = if dt > 0.0 {
                (busy - prev.0).secs() / dt
            } else {
                0.0
            };
            ts.push(t, "link", name, "utilization", util);
            ts.push(t, "link", name, "throughput_bps", rate(bytes - prev.1));
            *prev = (busy, bytes);
        }
        for ((f, info), prev) in self
            .flows
            .iter()
            .zip(&self.flow_info)
            .zip(self.prev_flow.iter_mut())
        {
            let d = f.bytes_delivered.total;
            ts.push(t, "flow", &info.id, "goodput_bps", rate(d - *prev));
            *prev = d;
            if matches!(info.kind, "tcp" | "web" | "tcp_onoff") {
                ts.push(t, "flow", &info.id, "cwnd_bytes", f.cwnd_bytes as f64);
                ts.push(t, "flow", &info.id, "srtt_s", f.srtt_ns.secs());
            }
        }
        self.prev_sample = now;
        if let Some(step) = self.run.sample_ns {
            self.sched.at(now + step, Ev::Sample);
        }
    }
}
