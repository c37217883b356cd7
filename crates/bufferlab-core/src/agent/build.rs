//! Turning the scenario's traffic blocks into agents and flows.

pub use super::builder::{Builder, FlowInfo, DEFAULT_PKT_BYTES, MAX_FLOWS};
use super::{ballast, ping, rrul, udp};
use crate::problem::{Loc, Problem};
use crate::scenario::{Scenario, TrafficSpec};

/// Build every traffic block of the scenario, or the problems of every block that cannot be.
pub fn build_traffic(sc: &Scenario, b: &mut Builder) -> Result<(), Vec<Problem>> {
    // Checked before anything is built: 10,000 pairs x 100,000 connections would otherwise
    // allocate a billion flows' state before the run could say no.
    let mut total: u64 = 0;
    for (i, t) in sc.traffic.iter().enumerate() {
        let (pairs, per_pair) = match t {
            TrafficSpec::Udp(u) => (u.pairs.len(), 1),
            TrafficSpec::Ping(p) => (p.pairs.len(), 1),
            TrafficSpec::Tcp(s) => (s.pairs.len(), s.count as u64),
            TrafficSpec::Web(s) => (s.pairs.len(), 1),
            TrafficSpec::TcpOnoff(s) => (s.pairs.len(), 1),
            TrafficSpec::Ballast(s) => (s.pairs.len(), 1),
            TrafficSpec::Rrul(s) => (s.pairs.len(), rrul::flows_per_pair(s)),
        };
        total += pairs as u64 * per_pair;
        if total > MAX_FLOWS {
            let (key, what) = if per_pair > 1 {
                ("count", format!("{pairs} pairs x {per_pair} connections"))
            } else {
                ("pairs", format!("{pairs} pairs"))
            };
            return Err(vec![Loc::root().key("traffic").at(i).key(key).problem(format!(
                "{what} bring the scenario to {total} flows, more than the {MAX_FLOWS} one run can hold (lower the count or the number of pairs, or split the study into a sweep)"
            ))]);
        }
    }
    // An rrul block in the plan itself (the scenario reader expands those of a file) stands for
    // the blocks it expands to, labelled as the reader labels them. Every block's problems, not
    // the first block's only.
    let mut errs = Vec::new();
    for (i, t) in rrul::plain(&sc.traffic) {
        errs.extend(build_block(&Loc::root().key("traffic").at(i), &t, b).err());
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    ballast::wire(b);
    Ok(())
}

/// One block's agents and flows, its flows labelled with its group.
fn build_block(loc: &Loc, t: &TrafficSpec, b: &mut Builder) -> Result<(), Problem> {
    let first = b.flows.len();
    match t {
        TrafficSpec::Udp(u) => udp::build(loc, u, b)?,
        TrafficSpec::Ping(p) => ping::build(loc, p, b)?,
        TrafficSpec::Ballast(s) => ballast::build(loc, s, b)?,
        TrafficSpec::Tcp(_) | TrafficSpec::Web(_) | TrafficSpec::TcpOnoff(_) => {
            super::tcp::build(loc, t, b)?
        }
        // `rrul::plain` has replaced it by its blocks.
        TrafficSpec::Rrul(_) => {}
    }
    if let Some(g) = t.group() {
        for f in &mut b.flows[first..] {
            f.group = Some(g.to_string());
        }
    }
    let dscp = t.dscp();
    if dscp != 0 {
        for f in &mut b.flows[first..] {
            f.dscp = dscp;
        }
    }
    Ok(())
}
