//! One engine, two clocks: the hooks a wall-clock driver (the kernel backend) uses to run the
//! scenario's network between real hosts.
//!
//! The simulator pops its event heap in virtual time; a driver instead calls
//! [`RealtimeNet::advance`] with the wall-clock time since the start of the run, injects the
//! packets real hosts sent with [`RealtimeNet::inject`], sleeps until
//! [`RealtimeNet::next_event_at`] or the next packet, and writes out what
//! [`RealtimeNet::take_deliveries`] hands it. Links, ports, disciplines, rings and routers are
//! the simulator's own: only the agents differ. Every host node gets an
//! [`External`] agent in place of the scenario's traffic (whose flows stay, so their rows and
//! the buffer-sizing rules that count them are those of the simulation).
//!
//! Packets carry no payload in the engine. An injected packet's `seq` holds its arena slot,
//! which stays its own until it is delivered or dropped: the driver keeps the real bytes in a
//! slab indexed by that slot ([`handle`]), so nothing is allocated per packet on either side.

use crate::agent::build::FlowInfo;
use crate::agent::external::{Delivered, External};
use crate::agent::Agent;
use crate::build::build_network;
pub use crate::engine::TtlExpired;
use crate::engine::{forward, Engine};
use crate::net::port::PortCtx;
use crate::packet::{AgentId, FlowId, NodeId, Packet, PktId, Proto};
use crate::results::RunOutput;
use crate::scenario::Scenario;
use crate::sched::Ev;
use crate::time::{Duration, Instant};

/// No external agent on this node (a router, or a node no host sits on).
const NO_AGENT: AgentId = AgentId::MAX;

pub use crate::agent::external::handle;

/// What the driver knows of a packet a real host sent.
#[derive(Clone, Copy, Debug)]
pub struct Outbound {
    pub dst: NodeId,
    /// IP packet size in bytes.
    pub size: u32,
    /// Flow identity: a scenario flow's index when the packet belongs to one (its drops and
    /// bytes then count in that flow's row), else any other number unique to the 5-tuple.
    /// Flow-aware disciplines (FQ-CoDel, SplitBuff) hash it as they hash a simulated flow.
    pub flow: FlowId,
    pub ttl: u8,
    pub proto: Proto,
}

/// The scenario's network with real hosts at its host nodes.
pub struct RealtimeNet {
    eng: Engine,
    /// External agent of each node, or [`NO_AGENT`].
    ext: Vec<AgentId>,
}

impl RealtimeNet {
    /// Build the scenario's network; `hosts` are the nodes real hosts sit on. The scenario's
    /// traffic is checked and its flows kept, but none of its agents runs.
    pub fn build(sc: &Scenario, hosts: &[NodeId]) -> Result<Self, Vec<String>> {
        let mut eng =
            build_network(sc).map_err(|e| e.iter().map(|p| p.to_string()).collect::<Vec<_>>())?;
        let n = eng.topo.n();
        if let Some(h) = hosts.iter().find(|&&h| h as usize >= n) {
            return Err(vec![format!("host node {h} is not in the topology")]);
        }
        eng.agents.clear();
        let mut ext = vec![NO_AGENT; n];
        for &h in hosts {
            if ext[h as usize] == NO_AGENT {
                ext[h as usize] = eng.agents.len() as AgentId;
                eng.agents.push((h, Agent::External(External::default())));
            }
        }
        if sc.run.sample_ns.is_some() {
            eng.sched.at(Instant::ZERO, Ev::Sample);
        }
        eng.ttl_expired = Some(Vec::new());
        Ok(RealtimeNet { eng, ext })
    }

    /// The scenario's flows, in the order of their rows.
    pub fn flows(&self) -> &[FlowInfo] {
        &self.eng.flow_info
    }

    pub fn node_names(&self) -> &[String] {
        &self.eng.topo.names
    }

    /// Time of the last event processed.
    pub fn now(&self) -> Instant {
        self.eng.now
    }

    /// When the engine next has something to do, if anything.
    pub fn next_event_at(&self) -> Option<Instant> {
        self.eng.sched.next_at()
    }

    /// Process every event due at or before `now`.
    pub fn advance(&mut self, now: Instant) {
        self.eng
            .run_until(now.saturating_add(Duration::from_ns(1)), |_| true);
    }

    /// A packet a real host at `node` sent at `now` (after [`Self::advance`] to `now`). Returns
    /// its handle, or `None` when its destination has no host (it is not injected).
    pub fn inject(&mut self, now: Instant, node: NodeId, o: Outbound) -> Option<PktId> {
        if *self.ext.get(node as usize)? == NO_AGENT {
            return None;
        }
        self.inject_at(now, node, o)
    }

    /// A packet a router of the engine originates at `now` (an ICMP error, RFC 1812 §4.3.2):
    /// it leaves `router` by the port towards its destination as a forwarded packet would.
    /// Returns its handle, or `None` when its destination has no host.
    pub fn inject_from_router(
        &mut self,
        now: Instant,
        router: NodeId,
        o: Outbound,
    ) -> Option<PktId> {
        if router as usize >= self.ext.len() {
            return None;
        }
        self.inject_at(now, router, o)
    }

    /// Packets whose TTL ran out at a router since the last call, oldest first; their handles
    /// ([`TtlExpired::seq`]) are valid until the next injection.
    pub fn take_ttl_expired(&mut self, out: &mut Vec<TtlExpired>) {
        if let Some(v) = self.eng.ttl_expired.as_mut() {
            out.append(v);
        }
    }

    fn inject_at(&mut self, now: Instant, node: NodeId, o: Outbound) -> Option<PktId> {
        let src_agent = self.ext[node as usize];
        let dst_agent = *self.ext.get(o.dst as usize)?;
        if dst_agent == NO_AGENT {
            return None;
        }
        let e = &mut self.eng;
        let id = e.arena.alloc(Packet {
            flow: o.flow,
            src: node,
            dst: o.dst,
            src_agent,
            dst_agent,
            size: o.size,
            proto: o.proto,
            ttl: o.ttl,
            created: now,
            ..Default::default()
        });
        e.arena.get_mut(id).seq = id as u64;
        if let Some(st) = e.flows.get_mut(o.flow as usize) {
            if e.flow_src.get(o.flow as usize) == Some(&node) {
                let w = st.window;
                st.pkts_sent.add(&w, now, 1);
                st.bytes_sent.add(&w, now, o.size as u64);
            }
        }
        e.totals.created += 1;
        let mut cx = PortCtx {
            now,
            arena: &mut e.arena,
            sched: &mut e.sched,
            flows: &mut e.flows,
            flow_src: &e.flow_src,
            totals: &mut e.totals,
        };
        forward(node, id, &mut e.ports, &e.topo, &mut cx);
        Some(id)
    }

    /// Hand every packet delivered since the last call to `f(node, delivered)`, in delivery
    /// order per node. Handles stay valid until the next [`Self::inject`].
    /// A scenario flow's packets from its source count in its throughput as they arrive.
    pub fn take_deliveries(&mut self, mut f: impl FnMut(NodeId, Delivered)) {
        let e = &mut self.eng;
        for (node, a) in e.agents.iter_mut() {
            if let Agent::External(x) = a {
                for d in x.inbox.drain(..) {
                    let k = d.flow as usize;
                    if let (Some(st), Some(&src)) = (e.flows.get_mut(k), e.flow_src.get(k)) {
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

    /// Close the books at `end` (the run's duration, or earlier when it was stopped): the same
    /// summary and tables as a simulation.
    pub fn finish(mut self, end: Instant) -> Result<RunOutput, String> {
        self.advance(end.saturating_sub(Duration::from_ns(1)));
        let e = &mut self.eng;
        if end < Instant::ZERO + e.run.duration_ns {
            // Stopped early: the books close at `end`, and every rate and mean is over the part
            // of the measurement window that ran.
            let end = end.max(Instant::from_ns(1));
            e.run.duration_ns = end.since_start();
            let mut w = e.window;
            w.end = w.end.min(end);
            if w.start >= w.end {
                w.start = Instant::ZERO;
            }
            e.window = w;
            for p in &mut e.ports {
                p.stats.window = w;
            }
            for f in &mut e.flows {
                f.window = w;
            }
        }
        self.eng.finish()
    }
}

#[cfg(test)]
mod tests;
