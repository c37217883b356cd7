//! What a packet on a link touches first at the far end, worked out when it starts across the
//! link (its header is at hand then), so that the engine's look-ahead can bring that into the
//! cache one event before the packet arrives.
//!
//! With thousands of flows, the port a router forwards a packet into and the books of the flow
//! a host delivers it to are cache misses, and each is known only once the packet's slot has
//! been read: one pointer deeper than the look-ahead reaches (`docs/BENCHMARKS.md`). A hint
//! only: a wrong or missing one costs a useless prefetch, never a result.

use crate::net::topology::Topology;
use crate::packet::{Arena, FlowId, NodeId, PktId};

/// A port index, or a flow (top bit set), or nothing; 4 bytes, which a pipe's entry and the
/// arrival event had spare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ahead(u32);

/// What an [`Ahead`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// A router forwards the packet into this port.
    Port(u32),
    /// The packet is delivered: this flow's books are updated, and its endpoint at the flow's
    /// source (`sender`: the flow's sender, for TCP) or at its destination gets the packet.
    Flow { flow: FlowId, sender: bool },
}

const FLOW: u32 = 1 << 31;
/// With [`FLOW`]: delivered at the flow's source.
const AT_SOURCE: u32 = 1 << 30;

impl Default for Ahead {
    fn default() -> Self {
        Ahead::NONE
    }
}

impl Ahead {
    pub const NONE: Ahead = Ahead(u32::MAX);

    /// What packet `pkt`, sent on a port whose far end is node `to`, touches first there. The
    /// port passes its own copy of `to` (on its first line), where the topology's table of
    /// ports, 8 bytes a port, is a miss of its own with thousands of them. `flow_src`: each
    /// flow's source node, read here (where the packet's header is at hand) so that the
    /// look-ahead finds the endpoint from the flow's entry alone.
    #[inline]
    pub fn of(
        topo: &Topology,
        arena: &Arena,
        to: NodeId,
        pkt: PktId,
        flow_src: &[NodeId],
    ) -> Ahead {
        let p = arena.get(pkt);
        if p.dst == to {
            return Ahead::flow(p.flow, flow_src.get(p.flow as usize) == Some(&to));
        }
        Ahead::port(topo.try_next_port(to, p.dst))
    }

    fn port(p: u32) -> Ahead {
        if p < FLOW {
            Ahead(p)
        } else {
            Ahead::NONE
        }
    }

    fn flow(f: FlowId, at_source: bool) -> Ahead {
        if f < AT_SOURCE - 1 {
            Ahead(FLOW | if at_source { AT_SOURCE } else { 0 } | f)
        } else {
            Ahead::NONE
        }
    }

    #[inline]
    pub fn next(self) -> Option<Next> {
        match self.0 {
            u32::MAX => None,
            v if v & FLOW != 0 => Some(Next::Flow {
                flow: v & !(FLOW | AT_SOURCE),
                sender: v & AT_SOURCE != 0,
            }),
            v => Some(Next::Port(v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;

    /// A three-node line a - r - b: from a's port (to r), a packet for b is forwarded at r into the
    /// port towards b; one for r is r's delivery, named by its flow.
    #[test]
    fn names_the_port_or_the_flow() {
        let names = ["a", "r", "b"].map(String::from).to_vec();
        let topo = Topology::new(names, vec![(0, 1), (1, 0), (1, 2), (2, 1)]);
        let mut arena = Arena::default();
        let to_b = arena.alloc(Packet {
            dst: 2,
            flow: 7,
            ..Default::default()
        });
        let to_r = arena.alloc(Packet {
            dst: 1,
            flow: 9,
            ..Default::default()
        });
        // Flow 9 starts at r, flow 7 at a.
        let mut src = vec![0; 10];
        src[9] = 1;
        assert_eq!(
            Ahead::of(&topo, &arena, 1, to_b, &src).next(),
            Some(Next::Port(2))
        );
        assert_eq!(
            Ahead::of(&topo, &arena, 1, to_r, &src).next(),
            Some(Next::Flow {
                flow: 9,
                sender: true
            })
        );
        src[9] = 2;
        assert_eq!(
            Ahead::of(&topo, &arena, 1, to_r, &src).next(),
            Some(Next::Flow {
                flow: 9,
                sender: false
            })
        );
        assert_eq!(
            Ahead::of(&topo, &arena, 1, to_r, &[]).next(),
            Some(Next::Flow {
                flow: 9,
                sender: false
            })
        );
        assert_eq!(Ahead::of(&topo, &arena, 9, to_b, &src), Ahead::NONE);
        let far = arena.alloc(Packet {
            dst: 40,
            ..Default::default()
        });
        assert_eq!(Ahead::of(&topo, &arena, 1, far, &src), Ahead::NONE);
        // Into a or b (one port out): that port; into r (two): none.
        assert_eq!(topo.egress_after(1), 0);
        assert_eq!(topo.egress_after(2), 3);
        assert_eq!(topo.egress_after(0), crate::net::topology::NO_ROUTE);
        assert_eq!(topo.egress_after(9), crate::net::topology::NO_ROUTE);
    }
}
