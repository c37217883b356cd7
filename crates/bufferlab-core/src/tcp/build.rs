//! Turning `tcp`, `web` and `tcp_onoff` traffic blocks into sender and receiver agents.

use super::endpoint::{TcpSender, Workload};
use super::params::{TcpParams, HEADER_BYTES};
use super::receiver::TcpReceiver;
use super::sender::Peer;
use crate::agent::build::Builder;
use crate::agent::Agent;
use crate::dist::Sampler;
use crate::rng::{stream, Stream};
use crate::scenario::{Dist, TrafficSpec};
use crate::time::NS_PER_SEC;

/// Beyond a million new connections per second a web source is surely a typo.
const MAX_ARRIVAL_RATE: f64 = 1e6;
/// Connections per pair of one `tcp` block.
const MAX_COUNT: u32 = 100_000;

fn sampler(path: &str, key: &str, d: &Dist) -> Result<Sampler, String> {
    Sampler::new(d).map_err(|e| format!("{path}.{key}: {e}"))
}

/// Build one traffic block of a TCP kind.
pub fn build(path: &str, t: &TrafficSpec, b: &mut Builder) -> Result<(), String> {
    match t {
        TrafficSpec::Tcp(s) => {
            let p = TcpParams::from_options(path, &s.tcp)?;
            if s.count == 0 || s.count > MAX_COUNT {
                return Err(format!(
                    "{path}.count: between 1 and {MAX_COUNT} connections per pair, got {}",
                    s.count
                ));
            }
            if s.size_bytes == Some(0) {
                return Err(format!(
                    "{path}.size_bytes: a transfer carries at least 1 B (or \"inf\")"
                ));
            }
            let start = sampler(path, "start_ns", &s.start_ns)?;
            let work = Workload::Transfer { size: s.size_bytes };
            for (src, dst) in &s.pairs {
                for _ in 0..s.count {
                    add_pair(path, "tcp", src, dst, &p, work.clone(), &start, b)?;
                }
            }
        }
        TrafficSpec::Web(s) => {
            let p = TcpParams::from_options(path, &s.tcp)?;
            if !(s.arrival_rate.is_finite()
                && s.arrival_rate > 0.0
                && s.arrival_rate <= MAX_ARRIVAL_RATE)
            {
                return Err(format!(
                    "{path}.arrival_rate: a positive rate up to {MAX_ARRIVAL_RATE:e} per second, got {}",
                    s.arrival_rate
                ));
            }
            let sizes = sampler(path, "size_bytes", &s.size_bytes)?;
            let start = sampler(path, "start_ns", &s.start_ns)?;
            let work = Workload::Web {
                mean_gap_ns: NS_PER_SEC as f64 / s.arrival_rate,
                sizes,
            };
            for (src, dst) in &s.pairs {
                add_pair(path, "web", src, dst, &p, work.clone(), &start, b)?;
            }
        }
        TrafficSpec::TcpOnoff(s) => {
            let p = TcpParams::from_options(path, &s.tcp)?;
            let sizes = sampler(path, "size_bytes", &s.size_bytes)?;
            let idle = sampler(path, "idle_ns", &s.idle_ns)?;
            let start = sampler(path, "start_ns", &s.start_ns)?;
            let work = Workload::OnOff { sizes, idle };
            for (src, dst) in &s.pairs {
                add_pair(path, "tcp_onoff", src, dst, &p, work.clone(), &start, b)?;
            }
        }
        other => {
            return Err(format!(
                "{path}.kind: {:?} is not a TCP workload",
                other.kind()
            ))
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_pair(
    path: &str,
    kind: &'static str,
    src: &str,
    dst: &str,
    p: &TcpParams,
    work: Workload,
    start: &Sampler,
    b: &mut Builder,
) -> Result<(), String> {
    let s = b.node(&format!("{path}.from"), src)?;
    let d = b.node(&format!("{path}.to"), dst)?;
    if s == d {
        return Err(format!("{path}: from and to are the same node {src:?}"));
    }
    let flow = b.add_flow(kind, s, d);
    b.flows[flow as usize].pkt_bytes = p.mss_bytes + HEADER_BYTES;
    let receiver = b.next_agent_id();
    b.add_agent(
        d,
        Agent::TcpReceiver(Box::new(TcpReceiver::new(flow, receiver, p))),
    );
    let me = b.next_agent_id();
    let peer = Peer {
        flow,
        me,
        node: d,
        agent: receiver,
    };
    let rng = stream(b.seed, Stream::Agent, me as u64);
    let sender = TcpSender::new(peer, p.clone(), work, start.clone(), rng, b.duration_ns);
    b.add_agent(s, Agent::TcpSender(Box::new(sender)));
    Ok(())
}
