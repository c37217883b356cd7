//! The interface between the engine and the agents (traffic endpoints): the hooks an agent has
//! and the [`Io`] it acts through. Below both the agents and the transports, so a transport
//! (`tcp`) implements it without knowing the set of agents ([`crate::agent::Agent`]).

use crate::metrics::flow::{FlowStats, TransferRecord};
use crate::net::host_tx::HostTx;
use crate::packet::{Arena, NodeId, Packet, PktId};
use crate::time::Instant;

/// What an agent can do while one of its hooks runs.
pub struct Io<'a> {
    pub now: Instant,
    /// The node the agent sits on (the source address of what it sends).
    pub node: NodeId,
    /// Packets go straight into the arena (one copy of the header, not two); their ids wait
    /// here for the engine to forward them once the hook returns.
    pub(crate) arena: &'a mut Arena,
    pub(crate) out: &'a mut Vec<PktId>,
    pub(crate) timers: &'a mut Vec<(Instant, u32)>,
    /// Every flow's counters, indexed by flow id.
    pub flows: &'a mut [FlowStats],
    /// Finite transfers, appended as they start and updated as they end.
    pub transfers: &'a mut Vec<TransferRecord>,
    /// What each flow's host egress reports to its sockets, indexed by flow id.
    pub host_tx: &'a mut [HostTx],
}

impl<'a> Io<'a> {
    /// Emit a packet from this agent's node. `src` is set to the node.
    #[inline]
    pub fn send(&mut self, mut p: Packet) {
        p.src = self.node;
        let id = self.arena.alloc(p);
        self.out.push(id);
    }

    /// Emit a packet and count it as sent by its flow (for sources whose every packet is data).
    #[inline]
    pub fn send_counted(&mut self, p: Packet) {
        let st = &mut self.flows[p.flow as usize];
        let w = st.window;
        st.pkts_sent.add(&w, self.now, 1);
        st.bytes_sent.add(&w, self.now, p.size as u64);
        self.send(p);
    }

    /// Ask for [`AgentHooks::on_timer`] with `token` at time `at` (not before now). Timers are never
    /// cancelled: an agent that re-arms keeps its own deadline and ignores stale firings.
    #[inline]
    pub fn set_timer(&mut self, at: Instant, token: u32) {
        self.timers.push((at.max(self.now), token));
    }
}

/// The hooks every agent has.
pub trait AgentHooks {
    /// Fires once, at time 0, before any packet moves.
    fn on_start(&mut self, io: &mut Io);
    /// Fires when a packet addressed to this agent arrives at its node.
    fn on_packet(&mut self, io: &mut Io, pkt: &Packet);
    /// Fires when a timer armed with `token` expires.
    fn on_timer(&mut self, io: &mut Io, token: u32);
    /// Fires when a packet of this agent's connection `conn` left its host's egress while the
    /// agent waited for that ([`HostTx::throttle`]: TCP small queues).
    fn on_tx_wake(&mut self, _io: &mut Io, _conn: u32) {}
}
