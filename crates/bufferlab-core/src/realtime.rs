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
pub use crate::capture::Seen;
use crate::engine::Engine;
pub use crate::engine::TtlExpired;
use crate::packet::{AgentId, Ecn, FlowId, NodeId, Packet, PktId, Proto};
use crate::results::RunOutput;
use crate::scenario::Scenario;
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
    /// The IP header's ECN field (what a marking AQM reads and sets).
    pub ecn: Ecn,
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
        let n = eng.topology().n();
        if let Some(h) = hosts.iter().find(|&&h| h as usize >= n) {
            return Err(vec![format!("host node {h} is not in the topology")]);
        }
        let mut agents = Vec::new();
        let mut ext = vec![NO_AGENT; n];
        for &h in hosts {
            if ext[h as usize] == NO_AGENT {
                ext[h as usize] = agents.len() as AgentId;
                agents.push((h, Agent::External(External::default())));
            }
        }
        eng.replace_agents(agents);
        eng.start_sampling();
        eng.keep_ttl_expired();
        Ok(RealtimeNet { eng, ext })
    }

    /// The scenario's flows, in the order of their rows.
    pub fn flows(&self) -> &[FlowInfo] {
        self.eng.flow_info()
    }

    pub fn node_names(&self) -> &[String] {
        &self.eng.topology().names
    }

    /// The shortest round trip of the network's traffic: the smallest round-trip propagation
    /// delay of the scenario's flows, or of any two hosts when it has none (a shell's programs
    /// may talk to any host). A driver's lateness adds to every delay a host sees, so this is the
    /// scale it is judged against. `None` when no two hosts are joined.
    pub fn min_round_trip(&self) -> Option<Duration> {
        let topo = self.eng.topology();
        let ports = self.eng.ports();
        let one_way = |a: NodeId, b: NodeId| {
            topo.path(a, b).map(|p| {
                p.iter()
                    .map(|&i| ports[i as usize].params.delay_ns)
                    .sum::<Duration>()
            })
        };
        let round_trip = |a: NodeId, b: NodeId| Some(one_way(a, b)? + one_way(b, a)?);
        let flows = self.eng.flow_info();
        if !flows.is_empty() {
            return flows.iter().filter_map(|f| round_trip(f.src, f.dst)).min();
        }
        let hosts: Vec<NodeId> = (0..self.ext.len() as NodeId)
            .filter(|&n| self.ext[n as usize] != NO_AGENT)
            .collect();
        hosts
            .iter()
            .flat_map(|&a| hosts.iter().filter(move |&&b| b > a).map(move |&b| (a, b)))
            .filter_map(|(a, b)| round_trip(a, b))
            .min()
    }

    /// Time of the last event processed.
    pub fn now(&self) -> Instant {
        self.eng.now()
    }

    /// When the engine next has something to do, if anything.
    pub fn next_event_at(&self) -> Option<Instant> {
        self.eng.next_event_at()
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
        self.eng.take_ttl_expired(out);
    }

    fn inject_at(&mut self, now: Instant, node: NodeId, o: Outbound) -> Option<PktId> {
        let src_agent = self.ext[node as usize];
        let dst_agent = *self.ext.get(o.dst as usize)?;
        if dst_agent == NO_AGENT {
            return None;
        }
        let p = Packet {
            flow: o.flow,
            src: node,
            dst: o.dst,
            src_agent,
            dst_agent,
            size: o.size,
            proto: o.proto,
            ttl: o.ttl,
            ecn: o.ecn,
            created: now,
            ..Default::default()
        };
        Some(self.eng.inject(now, node, p))
    }

    /// Hand every packet delivered since the last call to `f(node, delivered)`, in delivery
    /// order per node. Handles stay valid until the next [`Self::inject`].
    /// A scenario flow's packets from its source count in its throughput as they arrive.
    pub fn take_deliveries(&mut self, f: impl FnMut(NodeId, Delivered)) {
        self.eng.take_external_deliveries(f);
    }

    /// Write the scenario's packet captures (`run.capture`) into `dir`, of the real packets:
    /// the engine records where and when it saw each ([`Self::take_seen`]) and the driver hands
    /// their bytes over ([`Self::write_seen`]).
    pub fn attach_capture(&mut self, dir: &std::path::Path) -> Result<(), String> {
        self.eng.attach_capture(dir, true)
    }

    /// The packets the capture saw since the last call; each one's handle ([`Seen::pkt`]'s
    /// `seq`) stays valid until the next injection.
    pub fn take_seen(&mut self, out: &mut Vec<Seen>) {
        self.eng.take_seen(out);
    }

    /// Write a packet the capture saw, as its real bytes `ip` (its TTL and ECN field those the
    /// engine gave it there).
    pub fn write_seen(&mut self, s: &Seen, ip: &[u8]) {
        self.eng.write_seen(s, ip);
    }

    /// Close the books at `end` (the run's duration, or earlier when it was stopped): the same
    /// summary and tables as a simulation.
    pub fn finish(mut self, end: Instant) -> Result<RunOutput, String> {
        self.advance(end.saturating_sub(Duration::from_ns(1)));
        if end < self.eng.end() {
            self.eng.end_early(end);
        }
        crate::report::finish(self.eng)
    }
}

#[cfg(test)]
mod tests;
