//! Turning `tcp`, `web` and `tcp_onoff` traffic blocks into sender and receiver agents.

use super::builder::Builder;
use super::Agent;
use crate::dist::Sampler;
use crate::problem::{Loc, Problem};
use crate::rng::{stream, Stream};
use crate::scenario::{Dist, TrafficSpec};
use crate::tcp::endpoint::{TcpSender, Workload};
use crate::tcp::params::{TcpOptions, TcpParams, HEADER_BYTES};
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::Peer;
use crate::time::NS_PER_SEC;
use crate::wire::encode::TcpShape;

fn tcp_params(loc: &Loc, o: &TcpOptions) -> Result<TcpParams, Problem> {
    o.check().map_err(|e| e.under(&loc.key("tcp")))?;
    Ok(o.resolve())
}

fn sampler(loc: &Loc, key: &str, d: &Dist) -> Result<Sampler, Problem> {
    Sampler::new(d).map_err(|e| loc.key(key).problem(e))
}

/// Build one traffic block of a TCP kind.
pub fn build(loc: &Loc, t: &TrafficSpec, b: &mut Builder) -> Result<(), Problem> {
    match t {
        TrafficSpec::Tcp(s) => {
            let p = tcp_params(loc, &s.tcp)?;
            let start = sampler(loc, "start_ns", &s.start_ns)?;
            let work = Workload::Transfer { size: s.size_bytes };
            for (src, dst) in &s.pairs {
                for _ in 0..s.count {
                    add_pair(loc, "tcp", src, dst, &p, work.clone(), &start, b)?;
                }
            }
        }
        TrafficSpec::Web(s) => {
            let p = tcp_params(loc, &s.tcp)?;
            let sizes = sampler(loc, "size_bytes", &s.size_bytes)?;
            let start = sampler(loc, "start_ns", &s.start_ns)?;
            let work = Workload::Web {
                mean_gap_ns: NS_PER_SEC as f64 / s.arrival_rate,
                sizes,
            };
            for (src, dst) in &s.pairs {
                add_pair(loc, "web", src, dst, &p, work.clone(), &start, b)?;
            }
        }
        TrafficSpec::TcpOnoff(s) => {
            let p = tcp_params(loc, &s.tcp)?;
            let sizes = sampler(loc, "size_bytes", &s.size_bytes)?;
            let idle = sampler(loc, "idle_ns", &s.idle_ns)?;
            let start = sampler(loc, "start_ns", &s.start_ns)?;
            let work = Workload::OnOff { sizes, idle };
            for (src, dst) in &s.pairs {
                add_pair(loc, "tcp_onoff", src, dst, &p, work.clone(), &start, b)?;
            }
        }
        other => {
            return Err(loc
                .key("kind")
                .problem(format!("{:?} is not a TCP workload", other.kind())))
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_pair(
    loc: &Loc,
    kind: &'static str,
    src: &str,
    dst: &str,
    p: &TcpParams,
    work: Workload,
    start: &Sampler,
    b: &mut Builder,
) -> Result<(), Problem> {
    let s = b.node(&loc.key("from"), src)?;
    let d = b.node(&loc.key("to"), dst)?;
    if s == d {
        return Err(loc.problem(format!("from and to are the same node {src:?}")));
    }
    let flow = b.add_flow(kind, s, d);
    let info = &mut b.flows[flow as usize];
    info.pkt_bytes = p.mss_bytes + HEADER_BYTES;
    info.tcp = Some(TcpShape {
        mss: p.mss_bytes.min(u16::MAX as u32) as u16,
        sack: p.sack,
        timestamps: p.timestamps,
        rwnd: p.rwnd_bytes.min(u32::MAX as u64) as u32,
    });
    info.tsq = p.tsq;
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
    let sender = TcpSender::new(peer, p.clone(), work, start.clone(), rng, b.end);
    b.add_agent(s, Agent::TcpSender(Box::new(sender)));
    Ok(())
}
