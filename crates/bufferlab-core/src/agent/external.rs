//! A host endpoint outside the engine: the real network stack of the kernel backend.
//!
//! The engine sees only this: packets injected at the host's node (see [`crate::realtime`]) and
//! packets delivered to it, which it keeps in an inbox until the driver writes them out. Its
//! packets carry no payload here; their bytes stay with the driver, keyed by the packet's arena
//! slot ([`handle`]).

use super::{AgentHooks, Io};
use crate::packet::{Ecn, FlowId, NodeId, Packet, PktId};
use crate::time::Instant;

/// The key of an external packet's bytes outside the engine: its arena slot.
#[inline]
pub fn handle(p: &Packet) -> PktId {
    p.seq as PktId
}

/// A packet that reached an external host: the key of its bytes and its TTL after the routers
/// it crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub handle: PktId,
    pub ttl: u8,
    /// The ECN field as it arrives (an AQM on the way may have set CE).
    pub ecn: Ecn,
    /// When the engine delivered it (a driver's lateness is measured from here).
    pub at: Instant,
    pub flow: FlowId,
    pub src: NodeId,
    /// IP bytes.
    pub size: u32,
}

#[derive(Default)]
pub struct External {
    pub(crate) inbox: Vec<Delivered>,
}

impl AgentHooks for External {
    /// A real host sends when its kernel does, not at time 0.
    fn on_start(&mut self, _io: &mut Io) {}

    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        self.inbox.push(Delivered {
            handle: handle(pkt),
            ttl: pkt.ttl,
            ecn: pkt.ecn,
            at: io.now,
            flow: pkt.flow,
            src: pkt.src,
            size: pkt.size,
        });
    }

    fn on_timer(&mut self, _io: &mut Io, _token: u32) {}
}
