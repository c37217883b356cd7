//! The event loop: pops (time, event) in order and hands each to the component it names.

use sample::Sampling;
use timer_ahead::{TIMER_ENTRY, TIMER_RECORD};

use crate::agent::build::FlowInfo;
use crate::agent::external::Delivered;
use crate::agent::{Agent, AgentHooks, Io};
use crate::capture::point::Net;
use crate::capture::{port_ends, Capture, CaptureRow, Seen};
use crate::metrics::flow::{Arrival, FlowStats, TransferRecord, Window};
use crate::net::ahead::{Ahead, Next};
use crate::net::host_tx::HostTx;
use crate::net::port::{drop_packet, Port, PortCtx, Totals};
use crate::net::topology::{Topology, NO_ROUTE};
use crate::packet::{AgentId, Arena, FlowId, NodeId, Packet, PktId, Proto};
use crate::results::TimeSeries;
use crate::scenario::RunSpec;
use crate::sched::{Ev, Sched};
use crate::time::Instant;

mod sample;
mod timer_ahead;

/// The network, its agents and the books, and the event heap that drives them. Built by
/// [`crate::build`]; run by [`Engine::run_until`] (or by a wall-clock driver through
/// [`crate::realtime`]); closed by `report::finish` into the result rows.
pub struct Engine {
    sched: Sched,
    arena: Arena,
    ports: Vec<Port>,
    agents: Vec<Placed>,
    flows: Vec<FlowStats>,
    flow_info: Vec<FlowInfo>,
    flow_src: Vec<NodeId>,
    /// Each TCP flow's sender and receiver agents (`NO_AGENT` for other flows): what the
    /// look-ahead brings in for a packet delivered to either end, before it reads the packet.
    tcp_ends: Vec<[AgentId; 2]>,
    /// Each flow's DSCP (its traffic block's `dscp`).
    flow_dscp: Vec<u8>,
    /// What each flow's host egress reports to its sockets (TCP small queues, `fq` pacing).
    host_tx: Vec<HostTx>,
    topo: Topology,
    totals: Totals,
    /// Scratch: packets an agent emitted during one hook.
    out: Vec<PktId>,
    /// Scratch: timers an agent armed during one hook.
    timers: Vec<(Instant, u32)>,
    transfers: Vec<TransferRecord>,
    sampling: Sampling,
    run: RunSpec,
    window: Window,
    events: u64,
    now: Instant,
    /// The events the look-ahead saw second and third, which the first stage warmed.
    in_view: [Option<Ev>; 2],
    /// Whether the look-ahead works in two stages (enough packets alive for their misses to
    /// count); decided every 2^16 events.
    deep: bool,
    /// Whether the next arrival is warmed while the run is not deep: a network of at least
    /// [`SHALLOW_LOOK_AHEAD_PORTS`] ports.
    shallow: bool,
    /// The event count from which the heap is next offered huge pages ([`crate::huge_pages`]),
    /// once the run is deep: at the first check that finds it so, then each time the count has
    /// doubled (the heap grows mostly as the windows open, early in a run).
    huge_pages_at: u64,
    huge_pages: crate::huge_pages::HugePages,
    /// Packets whose TTL ran out at a router, kept only when a driver answers them with ICMP
    /// Time Exceeded (the kernel backend); `None` in a simulation, which only counts the drop.
    ttl_expired: Option<Vec<TtlExpired>>,
    /// The run's packet capture (`run.capture`), once given a folder to write in.
    capture: Option<Box<Capture>>,
}

/// An agent, the node it runs on, and the port everything it sends leaves by if there is one
/// ([`Topology::sole_routes`]: a host on its access link; `NO_ROUTE` otherwise). In `repr(C)`
/// order, so the node and the port sit on the line the agent's tag and pointer start: what an
/// agent sends is routed without a lookup in the routing tables, whose entries for thousands of
/// hosts are a miss each.
#[repr(C)]
pub(crate) struct Placed {
    pub node: NodeId,
    pub egress: u32,
    pub agent: Agent,
}

/// Each agent with its node and, from `topo`, its node's sole route.
fn place(agents: Vec<(NodeId, Agent)>, topo: &Topology) -> Vec<Placed> {
    let sole = topo.sole_routes();
    agents
        .into_iter()
        .map(|(node, agent)| Placed {
            node,
            egress: sole.get(node as usize).copied().unwrap_or(NO_ROUTE),
            agent,
        })
        .collect()
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
            window: $e.window,
            arena: &mut $e.arena,
            sched: &mut $e.sched,
            flows: &mut $e.flows,
            flow_src: &$e.flow_src,
            flow_dscp: &$e.flow_dscp,
            totals: &mut $e.totals,
            capture: $e.capture.as_deref_mut(),
            host_tx: &mut $e.host_tx,
            topo: &$e.topo,
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

/// Packets alive from which the look-ahead works in two stages ([`Engine::look_ahead`]): the
/// estimate's packets in flight beyond which the caches no longer hold a run
/// ([`crate::estimate::CACHED_PKTS`]).
const DEEP_LOOK_AHEAD_PKTS: u64 = crate::estimate::CACHED_PKTS as u64;

/// Ports from which the look-ahead warms the next arrival (its packet, its port, what it touches
/// first) even with few packets alive. Below, the ports' lines and the connections of as many
/// hosts stay in a core's caches and the warming cost more than it spared: 4-7% of the 1 Gb/s
/// UDP benchmarks' time, 4-6% of the 100-flow dumbbell's (402 ports), 2-4% at 250 NewReno flows
/// on a 100 Mb/s dumbbell (1,002 ports); at 500 such flows (2,002 ports) it spared 4-5% with a
/// SplitBuff bottleneck (`docs/BENCHMARKS.md`, 2026-11-27).
const SHALLOW_LOOK_AHEAD_PORTS: usize = 1_500;

/// No agent: a flow's end that is not a TCP endpoint ([`Engine::tcp_ends`]).
const NO_AGENT: AgentId = AgentId::MAX;

/// Each of `flows` flows' TCP sender and receiver among `agents` (`NO_AGENT` where none).
fn tcp_ends(agents: &[Placed], flows: usize) -> Vec<[AgentId; 2]> {
    let mut ends = vec![[NO_AGENT; 2]; flows];
    for (i, a) in agents.iter().enumerate() {
        if let Some((f, sender)) = a.agent.tcp_end() {
            if let Some(e) = ends.get_mut(f as usize) {
                e[usize::from(!sender)] = i as AgentId;
            }
        }
    }
    ends
}

/// Route a packet from `node` into the port towards its destination.
#[inline]
fn forward(node: NodeId, pkt: PktId, ports: &mut [Port], cx: &mut PortCtx) {
    let dst = cx.arena.get(pkt).dst;
    let port = cx.topo.next_port(node, dst);
    forward_into(port, pkt, ports, cx);
}

/// Put a packet into port `port` (its route's next hop), or drop it if it has none.
#[inline]
fn forward_into(port: u32, pkt: PktId, ports: &mut [Port], cx: &mut PortCtx) {
    if port == NO_ROUTE {
        // Routes were checked at build time for every flow's endpoints; a packet with no route is
        // dropped rather than lost, so conservation still holds.
        drop_packet(pkt, cx);
        return;
    }
    ports[port as usize].enqueue(port, pkt, cx);
}

impl Engine {
    /// The engine from its built parts, at time 0 with nothing scheduled.
    pub(crate) fn new(
        run: RunSpec,
        agents: Vec<(NodeId, Agent)>,
        flow_info: Vec<FlowInfo>,
        topo: Topology,
        ports: Vec<Port>,
        host_tx: Vec<HostTx>,
        window: Window,
    ) -> Engine {
        let agents = place(agents, &topo);
        let flow_src = flow_info.iter().map(|f| f.src).collect();
        let tcp_ends = tcp_ends(&agents, flow_info.len());
        let flow_dscp = flow_info.iter().map(|f| f.dscp).collect();
        let flows = flow_info.iter().map(|_| FlowStats::new(window)).collect();
        let n_agents = agents.len();
        let shallow = ports.len() >= SHALLOW_LOOK_AHEAD_PORTS;
        Engine {
            sched: Sched::with_capacity(1024 + 4 * n_agents + 2 * ports.len()),
            arena: Arena::with_capacity(4096),
            ports,
            agents,
            flows,
            flow_info,
            flow_src,
            tcp_ends,
            flow_dscp,
            host_tx,
            topo,
            totals: Default::default(),
            out: Vec::with_capacity(64),
            timers: Vec::with_capacity(16),
            transfers: Vec::new(),
            sampling: Sampling::default(),
            run,
            window,
            events: 0,
            now: Instant::ZERO,
            in_view: [None; 2],
            deep: false,
            shallow,
            huge_pages_at: 0,
            huge_pages: Default::default(),
            ttl_expired: None,
            capture: None,
        }
    }

    /// Start the agents at time 0 in their order (what they emit and arm is queued like any
    /// other), then the time series.
    pub(crate) fn start(&mut self) {
        for a in 0..self.agents.len() {
            self.with_agent(Instant::ZERO, a as u32, |ag, io| ag.on_start(io));
        }
        self.start_sampling();
    }

    /// Arm the first time-series sample, at time 0, if the run asks for a time series.
    pub(crate) fn start_sampling(&mut self) {
        if self.run.sample_ns.is_some() {
            self.sched.at(Instant::ZERO, Ev::Sample);
        }
    }

    /// Run an agent hook, then inject what it emitted and arm what it asked for.
    fn with_agent(&mut self, now: Instant, a: u32, f: impl FnOnce(&mut Agent, &mut Io)) {
        let Placed {
            node,
            egress,
            agent,
        } = &mut self.agents[a as usize];
        let (node, egress) = (*node, *egress);
        let mut io = Io {
            now,
            node,
            arena: &mut self.arena,
            out: &mut self.out,
            timers: &mut self.timers,
            flows: &mut self.flows,
            transfers: &mut self.transfers,
            host_tx: &mut self.host_tx,
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
            // A host's one port, unless the packet is for the host itself (no route).
            let dst = cx.arena.get(id).dst;
            let port = if egress != NO_ROUTE && dst != node {
                egress
            } else {
                cx.topo.next_port(node, dst)
            };
            debug_assert_eq!(port, cx.topo.next_port(node, dst));
            forward_into(port, id, &mut self.ports, &mut cx);
        }
    }

    /// A packet reached `node` off a link: deliver it, or forward it as a router does. `ahead`:
    /// what it touches first there, worked out when it started across the link.
    #[inline]
    fn arrive(&mut self, now: Instant, node: NodeId, pkt: PktId, ahead: Ahead) {
        let (dst, ttl) = {
            let p = self.arena.get(pkt);
            (p.dst, p.ttl)
        };
        if dst == node {
            // The agent gets its own copy: the slot is free for what it sends in reply.
            let p = *self.arena.get(pkt);
            if let Some(Placed { agent: a, .. }) = self.agents.get(p.dst_agent as usize) {
                // Its record is at hand (the look-ahead's); its connection is the next miss.
                a.prefetch_conn(p.tcp.conn);
            }
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
        // The port it leaves by: looked up when it started across the link (from the same
        // destination and the same static routes) and carried in its event, where the routing
        // table's entries are cold in a network of thousands of hosts.
        let port = match ahead.next() {
            Some(Next::Port(n)) => n,
            _ => self.topo.next_port(node, dst),
        };
        debug_assert_eq!(port, self.topo.next_port(node, dst));
        let mut cx = port_ctx!(self, now);
        // A router decrements the TTL and drops the packet when it reaches 0 (RFC 791, RFC 1812
        // §5.3.1); the packet counts as an arrival at the port it would have left by, dropped
        // there. (A router always has a route on: the packet came along one.)
        if ttl <= 1 {
            match self.ports.get_mut(port as usize) {
                Some(pt) => pt.drop_ttl(pkt, &mut cx),
                None => drop_packet(pkt, &mut cx),
            }
            return;
        }
        cx.arena.get_mut(pkt).ttl -= 1;
        forward_into(port, pkt, &mut self.ports, &mut cx);
    }

    /// Process events until simulated time `end` (exclusive). `progress` sees the time now and
    /// then (every 2^16 events) and stops the run by returning `false`; returns whether the run
    /// reached `end`.
    pub fn run_until(&mut self, end: Instant, mut progress: impl FnMut(Instant) -> bool) -> bool {
        while let Some((now, ev)) = self.sched.pop_before(end) {
            self.now = now;
            self.events += 1;
            if self.events & 0xFFFF == 0 {
                if !progress(now) {
                    return false;
                }
                self.deep = self.arena.live() >= DEEP_LOOK_AHEAD_PKTS;
                if self.deep && self.events >= self.huge_pages_at {
                    // What the look-ahead's misses touch spans more pages than the TLB holds.
                    self.huge_pages.back_heap();
                    self.huge_pages_at = 2 * self.events;
                }
            }
            self.look_ahead();
            match ev {
                Ev::TxDone(p) => {
                    let mut cx = port_ctx!(self, now);
                    self.ports[p as usize].on_tx_done(p, &mut cx);
                }
                Ev::Arrive {
                    port: p,
                    pkt,
                    ahead,
                } => {
                    // The packet is handled before it leaves its pipe, so that reading the entry
                    // behind it (likely a cache miss on a link with many packets in flight)
                    // overlaps with that work; the next arrival keeps the place it had.
                    let seq = self.sched.reserve();
                    let port = &self.ports[p as usize];
                    let to = port.to();
                    port.on_received(now, self.arena.get(pkt), self.capture.as_deref_mut());
                    self.arrive(now, to, pkt, ahead);
                    self.ports[p as usize].pop_arrival(p, pkt, seq, &mut self.sched);
                }
                Ev::Timer { agent, token } => {
                    self.with_agent(now, agent, |a, io| a.on_timer(io, token));
                }
                Ev::TxWake { agent, conn } => {
                    self.with_agent(now, agent, |a, io| a.on_tx_wake(io, conn));
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

    /// Start the cache misses of the next events while the current one runs, in two stages: the
    /// arrival three events ahead brings in its packet, its port and what it touches first
    /// ([`Engine::warm`]); the next one, whose lines have had two events' time to come, what
    /// they point to ([`Engine::warm_near`]). A miss takes longer than an event: one event
    /// between the stages left the second waiting on the first. An arrival that comes into view
    /// nearer (scheduled meanwhile, or behind a short front of the event queue) gets the first
    /// stage then. A port's transmission that comes next brings in the port.
    ///
    /// With fewer packets alive than [`DEEP_LOOK_AHEAD_PKTS`], what the run touches stays in the
    /// caches and the stages cost more than they spare: the next arrival is warmed alone then,
    /// and only in a network of [`SHALLOW_LOOK_AHEAD_PORTS`] ports or more ([`Engine::shallow`]).
    #[inline]
    fn look_ahead(&mut self) {
        if !self.deep {
            if self.shallow {
                if let Some((_, Ev::Arrive { port, pkt, ahead })) = self.sched.peek() {
                    self.warm(port, pkt, ahead);
                    if let Some(p) = self.ports.get(port as usize) {
                        p.prefetch_pipe_next();
                    }
                }
            }
            self.in_view = [None; 2];
            return;
        }
        let next = self.sched.peek();
        let (second, third) = (self.sched.peek_nth(1), self.sched.peek_nth(2));
        self.warm_timer(TIMER_ENTRY, self.sched.peek_nth(TIMER_ENTRY));
        self.warm_timer(TIMER_RECORD, second);
        if let Some(Ev::Arrive { port, pkt, ahead }) = third {
            self.warm(port, pkt, ahead);
        }
        if second != self.in_view[1] {
            if let Some(Ev::Arrive { port, pkt, ahead }) = second {
                self.warm(port, pkt, ahead);
            }
        }
        match next {
            Some((_, ev @ Ev::Arrive { port, pkt, ahead })) => {
                if Some(ev) != self.in_view[0] {
                    self.warm(port, pkt, ahead);
                }
                self.warm_near(port, pkt, ahead);
            }
            Some((_, Ev::TxDone(p))) => {
                if let Some(p) = self.ports.get(p as usize) {
                    p.prefetch_hop();
                    p.prefetch_queue();
                }
            }
            Some((_, ev @ Ev::Timer { .. })) => self.warm_timer(0, Some(ev)),
            _ => {}
        }
        self.in_view = [second, third];
    }

    /// The TCP endpoint of flow `f` at its source (`sender`) or at its destination, if that is
    /// one: which end, the arrival's [`Ahead`] says (worked out at the last hop's transmission,
    /// where the port's far node is at hand), so that the look-ahead reads one table here, not
    /// three (the ports', the flows' sources and their ends: a miss each with thousands).
    #[inline]
    fn tcp_end(&self, f: FlowId, sender: bool) -> Option<&Placed> {
        let a = self.tcp_ends.get(f as usize)?[usize::from(!sender)];
        self.agents.get(a as usize)
    }

    /// The second stage of the look-ahead, for the next arrival: the entry behind the packet in
    /// its link's pipe (what scheduling the next arrival reads), the slot of the pipe the packet
    /// (forwarded) or the reply (delivered) is written to and, for a packet delivered, its
    /// agent's record (a TCP endpoint's, whose entry the first stage brought; another agent's
    /// entry). The flow's histogram counters are not among them: a record writes its batch
    /// (`metrics/hist.rs`).
    #[inline]
    fn warm_near(&self, port: u32, pkt: PktId, ahead: Ahead) {
        if let Some(p) = self.ports.get(port as usize) {
            p.prefetch_pipe_next();
        }
        if let Some(Next::Port(n)) = ahead.next() {
            if let Some(p) = self.ports.get(n as usize) {
                p.prefetch_pipe_tail();
            }
        }
        if let Some(Next::Flow { flow: f, sender }) = ahead.next() {
            if let Some(p) = self.ports.get(self.topo.egress_after(port) as usize) {
                p.prefetch_pipe_tail();
                p.prefetch_queue_tail();
            }
            let p = self.arena.get(pkt);
            match self.tcp_end(f, sender) {
                Some(a) => a.agent.prefetch(),
                None => {
                    if let Some(a) = self.agents.get(p.dst_agent as usize) {
                        crate::prefetch::line(a);
                    }
                }
            }
        }
    }

    /// Start the cache misses of an arrival one or two events ahead, while the current one runs:
    /// with tens of thousands of packets in flight (a many-flow run), the packet's slot and its
    /// link's pipe are no longer in the cache when it arrives, and reading them first at the
    /// arrival put most of an event's time into waiting on memory. What the packet touches
    /// next (`ahead`: the port it is forwarded into, or its flow's books) is a miss one pointer
    /// deeper, started here too.
    #[inline]
    fn warm(&self, port: u32, pkt: PktId, ahead: Ahead) {
        if let Some(p) = self.ports.get(port as usize) {
            p.prefetch_arrival();
        }
        match ahead.next() {
            Some(Next::Port(n)) => {
                // A router reads the packet's first line only.
                self.arena.prefetch_head(pkt);
                if let Some(p) = self.ports.get(n as usize) {
                    p.prefetch_hop();
                }
            }
            Some(Next::Flow { flow: f, sender }) => {
                // The agent gets the whole packet.
                self.arena.prefetch(pkt);
                if let Some(fl) = self.flows.get(f as usize) {
                    fl.prefetch();
                }
                if let Some(a) = self.tcp_end(f, sender) {
                    crate::prefetch::line(a);
                }
                // What the host sends in reply leaves by its one port.
                if let Some(p) = self.ports.get(self.topo.egress_after(port) as usize) {
                    p.prefetch_hop();
                    p.prefetch_queue();
                }
            }
            None => self.arena.prefetch(pkt),
        }
    }

    /// One row of time series, and the next sample armed.
    fn sample(&mut self, now: Instant) {
        self.sampling
            .sample(now, &self.ports, &self.flows, &self.flow_info);
        if let Some(step) = self.run.sample_ns {
            self.sched.at(now + step, Ev::Sample);
        }
    }

    /// Close the books at the end of the run: every port's last counts, and the time series
    /// recorded so far (the report turns the rest into rows).
    pub(crate) fn close(&mut self) -> TimeSeries {
        let end = self.end();
        for p in &mut self.ports {
            p.finish(end);
        }
        for f in &mut self.flows {
            f.rtt.settle();
            f.owd.settle();
        }
        if let Some(c) = &mut self.capture {
            c.flush(end);
        }
        std::mem::take(&mut self.sampling.timeseries)
    }
}

/// What the report, the estimate and a driver read.
impl Engine {
    pub(crate) fn run(&self) -> &RunSpec {
        &self.run
    }

    /// The end of the run (its duration after time 0).
    pub(crate) fn end(&self) -> Instant {
        Instant::ZERO + self.run.duration_ns
    }

    /// The measurement window.
    pub(crate) fn window(&self) -> Window {
        self.window
    }

    /// Time of the last event processed.
    pub(crate) fn now(&self) -> Instant {
        self.now
    }

    /// Events processed so far.
    pub(crate) fn events(&self) -> u64 {
        self.events
    }

    /// When the engine next has something to do, if anything.
    pub(crate) fn next_event_at(&self) -> Option<Instant> {
        self.sched.next_at()
    }

    pub(crate) fn topology(&self) -> &Topology {
        &self.topo
    }

    /// The ports, in the order of their rows.
    pub(crate) fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// The scenario's flows, in the order of their rows.
    pub(crate) fn flow_info(&self) -> &[FlowInfo] {
        &self.flow_info
    }

    /// Each flow's statistics, in the same order.
    pub(crate) fn flows(&self) -> &[FlowStats] {
        &self.flows
    }

    /// Transfers started so far, in the order they started.
    pub(crate) fn transfers(&self) -> &[TransferRecord] {
        &self.transfers
    }

    /// Packets created, delivered and dropped in the whole run.
    pub(crate) fn totals(&self) -> Totals {
        self.totals
    }

    /// The packet arena (live packets and its high-water mark).
    pub(crate) fn arena(&self) -> &Arena {
        &self.arena
    }

    /// What flow `flow`'s host egress reports to its sockets.
    #[cfg(test)]
    pub(crate) fn host_tx(&self, flow: usize) -> &HostTx {
        &self.host_tx[flow]
    }

    /// The agents and their nodes, in the order they were built.
    pub(crate) fn agents(&self) -> &[Placed] {
        &self.agents
    }

    /// The capture files written, one row each (none without a capture).
    pub(crate) fn capture_rows(&self) -> Vec<CaptureRow> {
        self.capture.as_ref().map_or_else(Vec::new, |c| c.rows())
    }
}

/// A packet capture of the run (`run.capture`, checked when the engine was built).
impl Engine {
    /// Write the run's capture points into `dir` (nothing if the run has none). `defer`: the
    /// packets' bytes are the driver's, handed over by [`Engine::take_seen`] and written with
    /// [`Engine::write_seen`].
    pub fn attach_capture(&mut self, dir: &std::path::Path, defer: bool) -> Result<(), String> {
        if self.run.capture.is_empty() {
            return Ok(());
        }
        let ends = port_ends(&self.ports);
        let net = Net {
            names: &self.topo.names,
            ports: &ends,
        };
        let taps = crate::capture::port_taps(&self.run, &net)
            .map_err(|(i, e)| format!("run.capture[{i}]: {e}"))?;
        let c = Capture::create(&self.run, &net, &self.flow_info, dir, defer)?;
        for (i, (p, t)) in self.ports.iter_mut().zip(taps).enumerate() {
            p.set_taps(i as u32, t);
        }
        self.capture = Some(Box::new(c));
        Ok(())
    }

    /// Packets seen by a deferred capture since the last call.
    pub(crate) fn take_seen(&mut self, out: &mut Vec<Seen>) {
        if let Some(c) = &mut self.capture {
            c.take_seen(out);
        }
    }

    /// Write a packet a deferred capture saw, as the real IPv4 bytes `ip`.
    pub(crate) fn write_seen(&mut self, s: &Seen, ip: &[u8]) {
        if let Some(c) = &mut self.capture {
            c.write_bytes(s.port, s.tap, s.at, ip);
        }
    }
}

/// The hooks a wall-clock driver runs the network through ([`crate::realtime`]): agents that
/// stand for real hosts, packets that enter from outside and leave to it.
impl Engine {
    /// Replace the scenario's agents (their flows stay, and so do their rows).
    pub(crate) fn replace_agents(&mut self, agents: Vec<(NodeId, Agent)>) {
        self.agents = place(agents, &self.topo);
        self.tcp_ends = tcp_ends(&self.agents, self.flow_info.len());
    }

    /// Keep the packets whose TTL runs out at a router, for [`Engine::take_ttl_expired`].
    pub(crate) fn keep_ttl_expired(&mut self) {
        self.ttl_expired = Some(Vec::new());
    }

    /// Packets whose TTL ran out at a router since the last call, oldest first.
    pub(crate) fn take_ttl_expired(&mut self, out: &mut Vec<TtlExpired>) {
        if let Some(v) = self.ttl_expired.as_mut() {
            out.append(v);
        }
    }

    /// A packet from outside the engine enters at `node` at `now`, leaving by the port towards
    /// its destination. Its `seq` becomes its arena slot (the handle a driver keys the real
    /// bytes by); a scenario flow's packet from that flow's source counts as the flow's.
    pub(crate) fn inject(&mut self, now: Instant, node: NodeId, p: Packet) -> PktId {
        let id = self.arena.alloc(p);
        self.arena.get_mut(id).seq = id as u64;
        let (flow, size) = (p.flow as usize, p.size as u64);
        if let Some(st) = self.flows.get_mut(flow) {
            if self.flow_src.get(flow) == Some(&node) {
                let w = st.window;
                st.pkts_sent.add(&w, now, 1);
                st.bytes_sent.add(&w, now, size);
            }
        }
        self.totals.created += 1;
        let mut cx = port_ctx!(self, now);
        forward(node, id, &mut self.ports, &mut cx);
        id
    }

    /// Hand every packet the external agents received since the last call to
    /// `f(node, delivered)`, in delivery order per node; a scenario flow's packets from its
    /// source count in its throughput as they go.
    pub(crate) fn take_external_deliveries(&mut self, mut f: impl FnMut(NodeId, Delivered)) {
        for Placed { node, agent, .. } in self.agents.iter_mut() {
            if let Agent::External(x) = agent {
                for d in x.inbox.drain(..) {
                    let k = d.flow as usize;
                    if let (Some(st), Some(&src)) = (self.flows.get_mut(k), self.flow_src.get(k)) {
                        if d.src == src {
                            let w = st.window;
                            st.bytes_received.add(&w, d.at, d.size as u64);
                        }
                    }
                    f(*node, d);
                }
            }
        }
    }

    /// The run stopped early at `end`: the books close there, and every rate and mean is over
    /// the part of the measurement window that ran. A run stopped before its window opened
    /// measured nothing: its window is left empty, at the stop (counters count only inside a
    /// window, so the time before it cannot be measured after the fact).
    pub(crate) fn end_early(&mut self, end: Instant) {
        let end = end.max(Instant::from_ns(1));
        self.run.duration_ns = end.since_start();
        let mut w = self.window;
        w.end = w.end.min(end);
        if w.start >= w.end {
            w = Window { start: end, end };
        }
        self.window = w;
        for p in &mut self.ports {
            p.stats.window = w;
        }
        for f in &mut self.flows {
            f.window = w;
        }
    }
}

/// A 1 ms run of two nodes joined by a 1 Gb/s link (100-packet FIFOs) with `traffic`: the
/// smallest network the engine's unit tests build.
#[cfg(test)]
pub(crate) fn two_nodes(traffic: serde_json::Value) -> crate::scenario::Scenario {
    let dir = serde_json::json!({ "rate_bps": 1_000_000_000u64, "delay_ns": 1000,
                                  "queue": { "qdisc": { "kind": "fifo" }, "limit_pkts": 100 } });
    serde_json::from_value(serde_json::json!({
        "run": { "duration_ns": 1_000_000, "seed": 1 },
        "nodes": ["a", "b"],
        "links": [{ "a": "a", "b": "b", "forward": dir, "reverse": dir }],
        "traffic": traffic,
    }))
    .unwrap()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The look-ahead only warms caches: a run is the same event for event with or without its
    /// shallow stage (a small network runs without it; [`SHALLOW_LOOK_AHEAD_PORTS`]).
    #[test]
    fn shallow_look_ahead_changes_no_result() {
        let sc = two_nodes(json!([
            { "kind": "tcp", "pairs": [["a", "b"], ["b", "a"]] },
            { "kind": "ping", "pairs": [["a", "b"]], "interval_ns": 10_000 },
        ]));
        let run = |shallow: bool| {
            let mut e = crate::build::build(&sc).unwrap();
            assert!(!e.shallow, "two nodes are below the threshold");
            e.shallow = shallow;
            assert!(e.run_until(e.end(), |_| true));
            let t = e.totals();
            (e.events(), t.created, t.delivered, t.dropped)
        };
        let without = run(false);
        assert!(without.0 > 500, "{without:?}");
        assert_eq!(run(true), without);
    }

    /// The look-ahead's table names each TCP flow's sender (at its source) and receiver (at its
    /// destination), and no agent for a flow of another kind; `tcp_end` picks the one at the
    /// end it is asked for.
    #[test]
    fn tcp_ends_name_each_flows_endpoints() {
        let sc = two_nodes(json!([
            { "kind": "ping", "pairs": [["a", "b"]], "interval_ns": 1_000_000 },
            { "kind": "tcp", "pairs": [["a", "b"], ["b", "a"]] },
        ]));
        let e = crate::build::build(&sc).unwrap();
        let flows = e.flow_info();
        assert_eq!(e.tcp_ends.len(), flows.len());
        let mut tcp = 0;
        for (f, (info, ends)) in flows.iter().zip(&e.tcp_ends).enumerate() {
            if ends == &[NO_AGENT; 2] {
                continue;
            }
            tcp += 1;
            let [s, r] = ends.map(|a| &e.agents()[a as usize]);
            assert!(
                matches!(s.agent, Agent::TcpSender(_)) && s.node == info.src,
                "flow {f}"
            );
            assert!(
                matches!(r.agent, Agent::TcpReceiver(_)) && r.node == info.dst,
                "flow {f}"
            );
            for sender in [true, false] {
                let at = e.tcp_end(f as FlowId, sender).map(|x| x.node);
                let want = if sender { info.src } else { info.dst };
                assert_eq!(at, Some(want), "flow {f}, sender {sender}");
            }
        }
        assert_eq!(tcp, 2);
    }
}
