//! What traffic blocks are turned into: the agents and the rows of the flows table, collected
//! by a [`Builder`] each kind's block adds to.

use std::collections::HashMap;

use super::Agent;
use crate::metrics::flow::Window;
use crate::packet::{AgentId, FlowId, NodeId};
use crate::problem::{Loc, Problem};
use crate::time::Instant;
use crate::wire::encode::TcpShape;

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
    /// Its traffic block's group label, if any (an rrul test's label).
    pub group: Option<String>,
    /// A TCP flow's settings its packets do not carry (what a packet capture writes of them).
    pub tcp: Option<TcpShape>,
    /// A TCP flow's `tsq` key (TCP small queues: `None`, where its host's egress models
    /// Linux); `None` for other flows, which have none.
    pub tsq: Option<bool>,
    /// The DSCP its source's packets carry (its traffic block's `dscp`; 0, best effort).
    pub dscp: u8,
}

impl FlowInfo {
    /// Whether a TCP connection (or several, for `web`) carries the flow.
    pub fn is_tcp(&self) -> bool {
        self.tcp.is_some()
    }
}

/// Most flows (rows of the flows table) one scenario may have, over all its traffic blocks.
pub const MAX_FLOWS: u64 = 100_000;

/// A full-sized packet when a flow does not say otherwise: a 1500 B Ethernet MTU.
pub const DEFAULT_PKT_BYTES: u32 = 1500;

/// Collects agents and flows while traffic blocks are turned into them.
pub struct Builder<'a> {
    pub seed: u64,
    pub window: Window,
    /// The end of the run.
    pub end: Instant,
    pub node_ids: &'a HashMap<String, NodeId>,
    pub agents: Vec<(NodeId, Agent)>,
    pub flows: Vec<FlowInfo>,
    per_kind: HashMap<&'static str, u32>,
}

impl<'a> Builder<'a> {
    pub fn new(
        seed: u64,
        window: Window,
        end: Instant,
        node_ids: &'a HashMap<String, NodeId>,
    ) -> Self {
        Builder {
            seed,
            window,
            end,
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
            group: None,
            tcp: None,
            tsq: None,
            dscp: 0,
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
