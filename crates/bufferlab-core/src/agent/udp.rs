//! UDP sources (CBR, Poisson, paced bursts) and sinks.

use super::builder::Builder;
use super::{Agent, AgentHooks, Io};
use crate::dist::Sampler;
use crate::packet::{AgentId, FlowId, NodeId, Packet, Proto};
use crate::problem::{Loc, Problem};
use crate::rng::{stream, Rng, Stream};
use crate::scenario::{Arrivals, UdpSpec};
use crate::time::{Duration, Instant, NS_PER_SEC};

/// IPv4 (20 B) + UDP (8 B) headers: what a UDP packet carries besides the application's bytes.
pub const UDP_HEADERS: u32 = 28;
/// The largest IPv4 packet (RFC 791: 16-bit total length).
pub const MAX_IP_BYTES: u32 = 65_535;

pub struct UdpSource {
    flow: FlowId,
    dst: NodeId,
    dst_agent: AgentId,
    size: u32,
    ttl: u8,
    /// Mean spacing in ns (f64 so that CBR does not drift: emission k is at start + k·period).
    period: f64,
    arrivals: Arrivals,
    /// `(packets, every_ns)` for paced bursts.
    burst: Option<(u64, Duration)>,
    start: Sampler,
    stop: Instant,
    rng: Rng,
    t0: Instant,
    /// Packets emitted so far.
    seq: u64,
}

/// Where a UDP source's datagrams go and what they look like.
#[derive(Clone, Copy)]
pub struct Datagrams {
    pub flow: FlowId,
    pub dst: NodeId,
    pub dst_agent: AgentId,
    pub size: u32,
    pub ttl: u8,
}

impl Datagrams {
    /// Datagram number `seq`, sent now (and counted as sent by its flow).
    #[inline]
    pub fn send(&self, io: &mut Io, seq: u64) {
        io.send_counted(Packet {
            flow: self.flow,
            dst: self.dst,
            dst_agent: self.dst_agent,
            size: self.size,
            proto: Proto::Udp,
            ttl: self.ttl,
            created: io.now,
            seq,
            ..Default::default()
        });
    }
}

impl UdpSource {
    fn emit(&mut self, io: &mut Io) {
        Datagrams {
            flow: self.flow,
            dst: self.dst,
            dst_agent: self.dst_agent,
            size: self.size,
            ttl: self.ttl,
        }
        .send(io, self.seq);
        self.seq += 1;
    }

    /// When packet number `self.seq` (the next one) goes out, given the previous went at `now`.
    fn next_time(&mut self, now: Instant) -> Instant {
        match (self.arrivals, self.burst) {
            (Arrivals::Poisson, _) => {
                let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, &mut self.rng);
                let gap = e * self.period;
                now + Duration::from_ns(gap.round() as u64)
            }
            (Arrivals::Cbr, None) => {
                self.t0 + Duration::from_ns((self.seq as f64 * self.period).round() as u64)
            }
            (Arrivals::Cbr, Some((n, every))) => {
                let (b, i) = (self.seq / n, self.seq % n);
                self.t0 + b * every + Duration::from_ns((i as f64 * self.period).round() as u64)
            }
        }
    }
}

impl AgentHooks for UdpSource {
    fn on_start(&mut self, io: &mut Io) {
        self.t0 = Instant::from_ns(self.start.sample_u64(&mut self.rng));
        if self.t0 < self.stop {
            io.flows[self.flow as usize].started_at = Some(self.t0);
            io.set_timer(self.t0, 0);
        }
    }

    fn on_packet(&mut self, _io: &mut Io, _pkt: &Packet) {}

    fn on_timer(&mut self, io: &mut Io, _token: u32) {
        self.emit(io);
        let next = self.next_time(io.now);
        if next < self.stop {
            io.set_timer(next, 0);
        }
    }
}

/// Counts what a UDP flow delivers.
pub struct UdpSink {
    flow: FlowId,
}

impl UdpSink {
    pub fn new(flow: FlowId) -> Self {
        UdpSink { flow }
    }
}

impl AgentHooks for UdpSink {
    fn on_start(&mut self, _io: &mut Io) {}

    #[inline]
    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        let st = &mut io.flows[self.flow as usize];
        let w = st.window;
        st.bytes_received.add(&w, io.now, pkt.size as u64);
        st.on_delivered(io.now, pkt.size.saturating_sub(UDP_HEADERS) as u64);
        if w.contains(io.now) {
            st.owd.record((io.now - pkt.created).as_ns());
        }
    }

    fn on_timer(&mut self, _io: &mut Io, _token: u32) {}
}

pub fn build(loc: &Loc, u: &UdpSpec, b: &mut Builder) -> Result<(), Problem> {
    build_kind(loc, "udp", u, b)
}

/// Build UDP sources whose flows are named after `kind` (`"udp"`, or `"ballast"` for a fixed-rate
/// ballast, which is a UDP source with other defaults).
pub fn build_kind(
    loc: &Loc,
    kind: &'static str,
    u: &UdpSpec,
    b: &mut Builder,
) -> Result<(), Problem> {
    // Rate, size, TTL and burst bounds are the plan's (`UdpSpec`), checked before any build.
    let start =
        Sampler::new(&u.start_ns).map_err(|e| loc.key("start_ns").problem(e.to_string()))?;
    for (src, dst) in &u.pairs {
        let (s, d) = (b.node(&loc.key("from"), src)?, b.node(&loc.key("to"), dst)?);
        if s == d {
            return Err(loc.problem(format!("from and to are the same node {src:?}")));
        }
        let flow = b.add_flow(kind, s, d);
        b.flows[flow as usize].pkt_bytes = u.size_bytes;
        let sink = b.add_agent(d, Agent::UdpSink(UdpSink { flow }));
        let idx = b.next_agent_id() as u64;
        let src_agent = UdpSource {
            flow,
            dst: d,
            dst_agent: sink,
            size: u.size_bytes,
            ttl: u.ttl,
            period: NS_PER_SEC as f64 / u.rate_pps,
            arrivals: u.arrivals,
            burst: u.burst.as_ref().map(|bs| (bs.packets, bs.every_ns)),
            start: start.clone(),
            stop: u.stop_ns.unwrap_or(Instant::NEVER).min(b.end),
            rng: stream(b.seed, Stream::Agent, idx),
            t0: Instant::ZERO,
            seq: 0,
        };
        b.add_agent(s, Agent::UdpSource(src_agent));
    }
    Ok(())
}
