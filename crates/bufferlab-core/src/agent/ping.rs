//! Ping: echo requests at a fixed interval, and the host that answers them.
//!
//! As Linux `ping` does, the request carries its send time in its payload and the reply echoes it,
//! so the RTT is measured at the client from the echoed time alone. The UDP variant is the same
//! exchange in datagrams, as `irtt` (Flent's UDP latency probe) and netperf's UDP_RR make it.

use super::builder::Builder;
use super::{Agent, AgentHooks, Io};
use crate::dist::Sampler;
use crate::packet::{AgentId, FlowId, NodeId, Packet, Proto};
use crate::problem::{Loc, Problem};
use crate::rng::{stream, Rng, Stream};
use crate::scenario::{PingProto, PingSpec};
use crate::time::{Duration, Instant};

pub struct PingClient {
    flow: FlowId,
    dst: NodeId,
    server: AgentId,
    me: AgentId,
    size: u32,
    /// What the request is sent as: an ICMP echo request or a UDP datagram.
    request: Proto,
    interval: Duration,
    start: Sampler,
    stop: Instant,
    rng: Rng,
    seq: u64,
}

impl AgentHooks for PingClient {
    fn on_start(&mut self, io: &mut Io) {
        let t0 = Instant::from_ns(self.start.sample_u64(&mut self.rng));
        if t0 < self.stop {
            io.flows[self.flow as usize].started_at = Some(t0);
            io.set_timer(t0, 0);
        }
    }

    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        // The server answers an ICMP request with an echo reply and a datagram with a datagram.
        let reply = match self.request {
            Proto::EchoRequest => Proto::EchoReply,
            other => other,
        };
        if pkt.proto == reply {
            let st = &mut io.flows[self.flow as usize];
            let w = st.window;
            st.bytes_received.add(&w, io.now, pkt.size as u64);
            st.on_rtt_sample(io.now, io.now - pkt.created);
        }
    }

    fn on_timer(&mut self, io: &mut Io, _token: u32) {
        let p = Packet {
            flow: self.flow,
            dst: self.dst,
            src_agent: self.me,
            dst_agent: self.server,
            size: self.size,
            proto: self.request,
            ttl: 64,
            created: io.now,
            seq: self.seq,
            ..Default::default()
        };
        self.seq += 1;
        io.send_counted(p);
        let next = io.now + self.interval;
        if next < self.stop {
            io.set_timer(next, 0);
        }
    }
}

/// Answers echo requests at once with a reply of the same size: an ICMP echo reply to an ICMP
/// request, the datagram itself sent back to a UDP one.
pub struct PingServer;

impl AgentHooks for PingServer {
    fn on_start(&mut self, _io: &mut Io) {}

    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        let proto = match pkt.proto {
            Proto::EchoRequest => Proto::EchoReply,
            Proto::Udp => Proto::Udp,
            _ => return,
        };
        io.send(Packet {
            dst: pkt.src,
            src_agent: pkt.dst_agent,
            dst_agent: pkt.src_agent,
            proto,
            ttl: 64,
            ..*pkt
        });
    }

    fn on_timer(&mut self, _io: &mut Io, _token: u32) {}
}

pub fn build(loc: &Loc, p: &PingSpec, b: &mut Builder) -> Result<(), Problem> {
    // Interval and size bounds are the plan's (`PingSpec`), checked before any build.
    let start =
        Sampler::new(&p.start_ns).map_err(|e| loc.key("start_ns").problem(e.to_string()))?;
    for (src, dst) in &p.pairs {
        let (s, d) = (b.node(&loc.key("from"), src)?, b.node(&loc.key("to"), dst)?);
        if s == d {
            return Err(loc.problem(format!("from and to are the same node {src:?}")));
        }
        let flow = b.add_flow("ping", s, d);
        let server = b.add_agent(d, Agent::PingServer(PingServer));
        let me = b.next_agent_id();
        b.add_agent(
            s,
            Agent::PingClient(PingClient {
                flow,
                dst: d,
                server,
                me,
                size: p.size_bytes,
                request: match p.proto {
                    PingProto::Icmp => Proto::EchoRequest,
                    PingProto::Udp => Proto::Udp,
                },
                interval: p.interval_ns,
                start: start.clone(),
                stop: p.stop_ns.unwrap_or(Instant::NEVER).min(b.end),
                rng: stream(b.seed, Stream::Agent, me as u64),
                seq: 0,
            }),
        );
    }
    Ok(())
}
