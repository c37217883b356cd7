//! Agents: the traffic endpoints that live on nodes (sources, sinks, ping, TCP endpoints).
//!
//! An agent is a state machine with time passed in: the engine calls one of its hooks with an
//! [`Io`] that carries `now`, takes the packets it emits and the timers it arms. Built-ins are
//! reached through the [`Agent`] enum, so the hot path has no virtual call.

pub mod ballast;
pub mod build;
pub mod builder;
pub mod external;
pub mod ping;
pub mod rrul;
pub mod udp;

pub mod tcp;

pub use crate::hooks::{AgentHooks, Io};
use crate::packet::{FlowId, Packet};

/// The built-in agents.
pub enum Agent {
    UdpSource(udp::UdpSource),
    UdpSink(udp::UdpSink),
    PingClient(ping::PingClient),
    PingServer(ping::PingServer),
    TcpSender(Box<crate::tcp::TcpSender>),
    TcpReceiver(Box<crate::tcp::TcpReceiver>),
    Ballast(Box<ballast::BallastAuto>),
    /// A real host of the kernel backend.
    External(external::External),
}

macro_rules! dispatch {
    ($self:ident, $a:ident => $e:expr) => {
        match $self {
            Agent::UdpSource($a) => $e,
            Agent::UdpSink($a) => $e,
            Agent::PingClient($a) => $e,
            Agent::PingServer($a) => $e,
            Agent::TcpSender($a) => $e,
            Agent::TcpReceiver($a) => $e,
            Agent::Ballast($a) => $e,
            Agent::External($a) => $e,
        }
    };
}

/// The engine's look-ahead into an agent a packet is about to be delivered to (hints: no result
/// depends on them).
impl Agent {
    /// The flow of a TCP endpoint, and whether it is the sender (what the look-ahead finds a
    /// delivered packet's agent by before it reads the packet).
    pub fn tcp_end(&self) -> Option<(FlowId, bool)> {
        match self {
            Agent::TcpSender(a) => Some((a.flow(), true)),
            Agent::TcpReceiver(a) => Some((a.flow(), false)),
            _ => None,
        }
    }

    /// Prefetch the record a boxed TCP endpoint points to (the line holding its connections).
    #[inline]
    pub fn prefetch(&self) {
        match self {
            Agent::TcpSender(a) => a.prefetch(),
            Agent::TcpReceiver(a) => a.prefetch(),
            _ => {}
        }
    }

    /// Prefetch connection `conn`'s state (reads the record [`Agent::prefetch`] brought).
    #[inline]
    pub fn prefetch_conn(&self, conn: u32) {
        match self {
            Agent::TcpSender(a) => a.prefetch_conn(conn),
            Agent::TcpReceiver(a) => a.prefetch_conn(conn),
            _ => {}
        }
    }
}

impl AgentHooks for Agent {
    fn on_start(&mut self, io: &mut Io) {
        dispatch!(self, a => a.on_start(io))
    }
    #[inline]
    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        dispatch!(self, a => a.on_packet(io, pkt))
    }
    #[inline]
    fn on_timer(&mut self, io: &mut Io, token: u32) {
        dispatch!(self, a => a.on_timer(io, token))
    }
    fn on_tx_wake(&mut self, io: &mut Io, conn: u32) {
        if let Agent::TcpSender(a) = self {
            a.on_tx_wake(io, conn);
        }
    }
}
