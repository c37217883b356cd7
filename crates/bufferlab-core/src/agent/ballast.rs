//! The `ballast` traffic kind: Braud et al. (2013)'s stream of tiny UDP packets.
//!
//! A fixed rate (continuous or in bursts) is a UDP source with the ballast's defaults (29 B
//! packets, TTL 2) and is built as one. With `auto = true` this agent runs the
//! [`AutoController`] from the event clock, looking at its own node's TCP connections through
//! their counters as a host looks at `TCP_INFO`: data segments and bytes sent, smoothed RTT.

use super::builder::Builder;
use super::udp::{self, Datagrams, UdpSink};
use super::{Agent, AgentHooks, Io};
use crate::ballast::{AutoConfig, AutoController, Observation};
use crate::dist::Sampler;
use crate::packet::{FlowId, NodeId, Packet};
use crate::problem::{Loc, Problem};
use crate::rng::{stream, Rng, Stream};
use crate::scenario::{BallastSpec, UdpSpec};
use crate::time::{Duration, Instant, NS_PER_SEC};

const EMIT: u32 = 0;
const DECIDE: u32 = 1;
const RTT_PROBE: u32 = 2;
/// How often the agent reads its connections' smoothed RTT to keep their minimum (the
/// simulated counterpart of `tcpi_min_rtt`).
const RTT_PROBE_NS: Duration = Duration::from_ms(10);

pub struct BallastAuto {
    out: Datagrams,
    ctl: AutoController,
    /// The TCP flows this node sends, with their packet counts at the last decision.
    watch: Vec<(FlowId, u64)>,
    min_rtt: Option<Duration>,
    start: Sampler,
    stop: Instant,
    rng: Rng,
    /// Spacing at the current rate; `None` while the controller says 0.
    period_ns: Option<f64>,
    /// The emission the agent is waiting for (stale timer firings are ignored).
    next_emit: Option<Instant>,
    seq: u64,
}

impl BallastAuto {
    /// Give the agent the node's TCP flows (known once every traffic block is built).
    pub fn watch(&mut self, flows: impl IntoIterator<Item = FlowId>) {
        self.watch = flows.into_iter().map(|f| (f, 0)).collect();
    }

    fn observe(&mut self, io: &mut Io) -> Observation {
        let (mut segs, mut bytes, mut busiest) = (0, 0, None::<(u64, FlowId)>);
        for (f, last) in &mut self.watch {
            let st = &io.flows[*f as usize];
            let sent = st.pkts_sent.total;
            segs += sent;
            bytes += st.bytes_sent.total;
            let delta = sent - *last;
            *last = sent;
            if delta > 0 && busiest.is_none_or(|(d, _)| delta > d) {
                busiest = Some((delta, *f));
            }
        }
        let srtt = busiest
            .map(|(_, f)| io.flows[f as usize].srtt_ns)
            .filter(|s| !s.is_zero());
        Observation {
            now: io.now,
            data_segs_out: segs,
            data_bytes_out: bytes,
            srtt_ns: srtt,
            min_rtt_ns: self.min_rtt,
        }
    }

    fn probe_rtt(&mut self, io: &Io) {
        for (f, _) in &self.watch {
            let s = io.flows[*f as usize].srtt_ns;
            if !s.is_zero() {
                self.min_rtt = Some(self.min_rtt.map_or(s, |m| m.min(s)));
            }
        }
    }

    fn emit(&mut self, io: &mut Io) {
        self.out.send(io, self.seq);
        self.seq += 1;
    }

    fn arm(&mut self, io: &mut Io, at: Instant, token: u32) {
        if at < self.stop {
            io.set_timer(at, token);
        }
    }
}

impl AgentHooks for BallastAuto {
    fn on_start(&mut self, io: &mut Io) {
        let t0 = Instant::from_ns(self.start.sample_u64(&mut self.rng));
        if t0 < self.stop {
            io.flows[self.out.flow as usize].started_at = Some(t0);
            self.arm(io, t0, DECIDE);
            self.arm(io, t0, RTT_PROBE);
        }
    }

    fn on_packet(&mut self, _io: &mut Io, _pkt: &Packet) {}

    fn on_timer(&mut self, io: &mut Io, token: u32) {
        match token {
            EMIT => {
                if self.next_emit != Some(io.now) {
                    return; // superseded by a later decision
                }
                self.emit(io);
                let next = io.now + Duration::from_ns(self.period_ns.unwrap_or(0.0).round() as u64);
                self.next_emit = Some(next);
                self.arm(io, next, EMIT);
            }
            DECIDE => {
                let obs = self.observe(io);
                let d = self.ctl.on_observation(obs);
                let was_quiet = self.period_ns.is_none();
                self.period_ns = (d.rate_pps > 0.0).then(|| NS_PER_SEC as f64 / d.rate_pps);
                match self.period_ns {
                    None => self.next_emit = None,
                    // Resume at once after a pause; otherwise the new spacing applies from the
                    // next packet on.
                    Some(_) if was_quiet => {
                        self.next_emit = Some(io.now);
                        self.arm(io, io.now, EMIT);
                    }
                    Some(_) => {}
                }
                let next = io.now + self.ctl.config().period_ns;
                self.arm(io, next, DECIDE);
            }
            _ => {
                self.probe_rtt(io);
                self.arm(io, io.now + RTT_PROBE_NS, RTT_PROBE);
            }
        }
    }
}

pub fn build(loc: &Loc, s: &BallastSpec, b: &mut Builder) -> Result<(), Problem> {
    if !s.auto {
        let Some(rate) = s.rate_pps else {
            return Err(loc.problem("give a rate (e.g. \"250pps\") or auto = true"));
        };
        let spec = UdpSpec {
            pairs: s.pairs.clone(),
            rate_pps: rate,
            size_bytes: s.size_bytes,
            arrivals: Default::default(),
            burst: s.burst.clone(),
            ttl: s.ttl,
            start_ns: s.start_ns.clone(),
            stop_ns: s.stop_ns,
            group: s.group.clone(),
            dscp: 0,
        };
        return udp::build_kind(loc, "ballast", &spec, b);
    }
    if s.rate_pps.is_some() || s.burst.is_some() {
        return Err(loc.problem("auto = true chooses the rate itself (remove rate and burst)"));
    }
    let mut cfg = AutoConfig {
        target_queue_ns: s.target_ns,
        max_share: s.max_share,
        udp_bytes: s.size_bytes,
        ..AutoConfig::default()
    };
    if let Some(p) = s.period_ns {
        cfg.period_ns = p;
    }
    let start =
        Sampler::new(&s.start_ns).map_err(|e| loc.key("start_ns").problem(e.to_string()))?;
    for (src, dst) in &s.pairs {
        let (n_src, n_dst) = (b.node(&loc.key("from"), src)?, b.node(&loc.key("to"), dst)?);
        if n_src == n_dst {
            return Err(loc.problem(format!("from and to are the same node {src:?}")));
        }
        let flow = b.add_flow("ballast", n_src, n_dst);
        b.flows[flow as usize].pkt_bytes = s.size_bytes;
        let sink = b.add_agent(n_dst, Agent::UdpSink(UdpSink::new(flow)));
        let idx = b.next_agent_id() as u64;
        let agent = BallastAuto {
            out: Datagrams {
                flow,
                dst: n_dst,
                dst_agent: sink,
                size: s.size_bytes,
                ttl: s.ttl,
            },
            ctl: AutoController::new(cfg.clone()),
            watch: Vec::new(),
            min_rtt: None,
            start: start.clone(),
            stop: s.stop_ns.unwrap_or(Instant::NEVER).min(b.end),
            rng: stream(b.seed, Stream::Agent, idx),
            period_ns: None,
            next_emit: None,
            seq: 0,
        };
        b.add_agent(n_src, Agent::Ballast(Box::new(agent)));
    }
    Ok(())
}

/// After every block is built: each auto ballast watches the TCP flows its node sends.
pub fn wire(b: &mut Builder) {
    let tcp: Vec<(NodeId, FlowId)> = b
        .flows
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_tcp())
        .map(|(i, f)| (f.src, i as FlowId))
        .collect();
    for (node, agent) in &mut b.agents {
        if let Agent::Ballast(a) = agent {
            a.watch(tcp.iter().filter(|(n, _)| n == node).map(|&(_, f)| f));
        }
    }
}
