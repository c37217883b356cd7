//! Turning the scenario's traffic blocks into agents and flows.

use std::collections::HashMap;

use super::{ballast, ping, udp, Agent};
use crate::metrics::flow::Window;
use crate::packet::{AgentId, FlowId, NodeId};
use crate::problem::{Loc, Problem};
use crate::scenario::{Scenario, TrafficSpec};

/// One row of the flows table, before any measurement.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    /// `"udp-1"`, `"tcp-3"`, ... numbered per kind in scenario order.
    pub id: String,
    pub kind: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
    /// The flow's full-sized data packet in IP bytes (what buffer-sizing rules count packets in).
    pub pkt_bytes: u32,
}

/// Most flows (rows of the flows table) one scenario may have, over all its traffic blocks.
pub const MAX_FLOWS: u64 = 100_000;

/// A full-sized packet when a flow does not say otherwise: a 1500 B Ethernet MTU.
pub const DEFAULT_PKT_BYTES: u32 = 1500;

/// Collects agents and flows while traffic blocks are turned into them.
pub struct Builder<'a> {
    pub seed: u64,
    pub window: Window,
    pub duration_ns: u64,
    pub node_ids: &'a HashMap<String, NodeId>,
    pub agents: Vec<(NodeId, Agent)>,
    pub flows: Vec<FlowInfo>,
    per_kind: HashMap<&'static str, u32>,
}

impl<'a> Builder<'a> {
    pub fn new(
        seed: u64,
        window: Window,
        duration_ns: u64,
        node_ids: &'a HashMap<String, NodeId>,
    ) -> Self {
        Builder {
            seed,
            window,
            duration_ns,
            node_ids,
            agents: Vec::new(),
            flows: Vec::new(),
            per_kind: HashMap::new(),
        }
    }

    pub fn node(&self, loc: &Loc, name: &str) -> Result<NodeId, Problem> {
        self.node_ids
            .get(name)
            .copied()
            .ok_or_else(|| loc.problem(format!("unknown node {name:?}")))
    }

    /// A new flow row; its id string is numbered per kind.
    pub fn add_flow(&mut self, kind: &'static str, src: NodeId, dst: NodeId) -> FlowId {
        let n = self.per_kind.entry(kind).or_insert(0);
        *n += 1;
        self.flows.push(FlowInfo {
            id: format!("{kind}-{n}"),
            kind,
            src,
            dst,
            pkt_bytes: DEFAULT_PKT_BYTES,
        });
        (self.flows.len() - 1) as FlowId
    }

    /// The id the next added agent will get (to wire two endpoints to each other).
    pub fn next_agent_id(&self) -> AgentId {
        self.agents.len() as AgentId
    }

    pub fn add_agent(&mut self, node: NodeId, agent: Agent) -> AgentId {
        self.agents.push((node, agent));
        (self.agents.len() - 1) as AgentId
    }
}

/// Build every traffic block of the scenario.
pub fn build_traffic(sc: &Scenario, b: &mut Builder) -> Result<(), Problem> {
    // Checked before anything is built: 10,000 pairs x 100,000 connections would otherwise
    // allocate a billion flows' state before the run could say no.
    let mut total: u64 = 0;
    for (i, t) in sc.traffic.iter().enumerate() {
        let (pairs, per_pair) = match t {
            TrafficSpec::Udp(u) => (u.pairs.len(), 1),
            TrafficSpec::Ping(p) => (p.pairs.len(), 1),
            TrafficSpec::Tcp(s) => (s.pairs.len(), s.count as u64),
            TrafficSpec::Web(s) => (s.pairs.len(), 1),
            TrafficSpec::TcpOnoff(s) => (s.pairs.len(), 1),
            TrafficSpec::Ballast(s) => (s.pairs.len(), 1),
        };
        total += pairs as u64 * per_pair;
        if total > MAX_FLOWS {
            let (key, what) = if per_pair > 1 {
                ("count", format!("{pairs} pairs x {per_pair} connections"))
            } else {
                ("pairs", format!("{pairs} pairs"))
            };
            return Err(Loc::root().key("traffic").at(i).key(key).problem(format!(
                "{what} bring the scenario to {total} flows, more than the {MAX_FLOWS} one run can hold (lower the count or the number of pairs, or split the study into a sweep)"
            )));
        }
    }
    for (i, t) in sc.traffic.iter().enumerate() {
        let loc = Loc::root().key("traffic").at(i);
        match t {
            TrafficSpec::Udp(u) => udp::build(&loc, u, b)?,
            TrafficSpec::Ping(p) => ping::build(&loc, p, b)?,
            TrafficSpec::Ballast(s) => ballast::build(&loc, s, b)?,
            TrafficSpec::Tcp(_) | TrafficSpec::Web(_) | TrafficSpec::TcpOnoff(_) => {
                super::tcp::build(&loc, t, b)?
            }
        }
    }
    ballast::wire(b);
    Ok(())
}
