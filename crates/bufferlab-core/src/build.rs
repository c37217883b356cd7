//! From a [`Scenario`] to a ready-to-run [`Engine`]: checks, topology, routes, buffer limits,
//! agents. Every problem found is reported, each naming the plan's key path.

use crate::agent::build::{build_traffic, Builder, DEFAULT_PKT_BYTES};
use crate::agent::{Agent, AgentHooks, Io};
use crate::engine::Engine;
use crate::metrics::flow::{FlowStats, Window};
use crate::net::port::{Port, PortParams};
use crate::net::topology::Topology;
use crate::packet::{Arena, NodeId};
use crate::qdisc::{Limit, Qdisc};
use crate::rng::{stream, Stream};
use crate::scenario::{DirSpec, QueueSpec, Scenario};
use crate::sched::{Ev, Sched};
use crate::sizing::{self, AdaptiveSizer, SizingCtx};
use crate::time::NS_PER_SEC;

/// Largest link rate accepted (10 Tb/s): beyond, serialization times round to nothing.
const MAX_RATE_BPS: u64 = 10_000_000_000_000;
/// Largest run accepted: 30 days of simulated time.
const MAX_DURATION_NS: u64 = 30 * 86_400 * NS_PER_SEC;
/// Largest buffer accepted, in packets and in bytes.
const MAX_LIMIT_PKTS: u64 = 100_000_000;
const MAX_LIMIT_BYTES: u64 = 1 << 40;

fn check_dir(path: &str, d: &DirSpec, errs: &mut Vec<String>) {
    if d.rate_bps == 0 || d.rate_bps > MAX_RATE_BPS {
        errs.push(format!(
            "{path}.rate_bps: must be between 1 b/s and 10 Tb/s, got {}",
            d.rate_bps
        ));
    }
    if d.delay_ns > MAX_DURATION_NS {
        errs.push(format!(
            "{path}.delay_ns: {} ns is longer than any run",
            d.delay_ns
        ));
    }
    if !(0.0..=1.0).contains(&d.loss) {
        errs.push(format!(
            "{path}.loss: a probability between 0 and 1, got {}",
            d.loss
        ));
    }
    check_queue(&format!("{path}.queue"), &d.queue, errs);
    if let Some(r) = &d.ring {
        if r.size == 0 {
            errs.push(format!(
                "{path}.ring.size: a ring needs at least one descriptor"
            ));
        }
    }
}

fn check_queue(path: &str, q: &QueueSpec, errs: &mut Vec<String>) {
    if let Some(l) = q.limit_pkts {
        if l == 0 || l > MAX_LIMIT_PKTS {
            errs.push(format!(
                "{path}.limit_pkts: must be between 1 and {MAX_LIMIT_PKTS}, got {l}"
            ));
        }
    }
    if let Some(l) = q.limit_bytes {
        if l == 0 || l > MAX_LIMIT_BYTES {
            errs.push(format!(
                "{path}.limit_bytes: must be between 1 B and 1 TiB, got {l}"
            ));
        }
    }
    if let Some(s) = &q.sizing {
        if !(s.scale.is_finite() && s.scale > 0.0) {
            errs.push(format!(
                "{path}.sizing.scale: must be a positive number, got {}",
                s.scale
            ));
        }
        if q.limit_pkts.is_some() || q.limit_bytes.is_some() {
            errs.push(format!(
                "{path}: give either a limit or a sizing rule, not both"
            ));
        }
    }
}

/// The round-trip propagation time of a path out and back, in ns.
fn path_delay(ports: &[PortParams], path: &[u32]) -> u64 {
    path.iter().map(|&p| ports[p as usize].delay_ns).sum()
}

/// Build the engine, or every problem found.
pub fn build(sc: &Scenario) -> Result<Engine, Vec<String>> {
    let mut eng = build_network(sc)?;
    // Agents start at time 0 in their order; what they emit and arm is queued like any other.
    for a in 0..eng.agents.len() {
        eng.with_agent(0, a as u32, |ag: &mut Agent, io: &mut Io| ag.on_start(io));
    }
    if sc.run.sample_ns.is_some() {
        eng.sched.at(0, Ev::Sample);
    }
    Ok(eng)
}

/// The engine with its network, flows and agents, before any agent has started: what the
/// kernel backend builds on (it replaces the agents by the real hosts).
pub(crate) fn build_network(sc: &Scenario) -> Result<Engine, Vec<String>> {
    let mut errs = Vec::new();
    let run = &sc.run;
    if run.duration_ns == 0 || run.duration_ns > MAX_DURATION_NS {
        errs.push(format!(
            "run.duration_ns: must be positive and at most 30 days, got {}",
            run.duration_ns
        ));
    }
    let window = match run.measure_ns {
        Some([a, b]) if a < b && b <= run.duration_ns => Window { start: a, end: b },
        Some(m) => {
            errs.push(format!(
                "run.measure_ns: [{}, {}] must be an interval inside the run",
                m[0], m[1]
            ));
            Window {
                start: 0,
                end: run.duration_ns.max(1),
            }
        }
        None => Window {
            start: 0,
            end: run.duration_ns.max(1),
        },
    };
    if run.sample_ns == Some(0) {
        errs.push("run.sample_ns: must be positive".to_string());
    }
    if sc.nodes.is_empty() {
        errs.push("nodes: a scenario needs at least two nodes".to_string());
    }
    if sc.nodes.len() > 1_000_000 {
        errs.push("nodes: more than a million nodes".to_string());
    }
    // Node ids by name (the first of a repeated name), so looking up a link's ends is not a scan.
    let mut seen = std::collections::HashMap::with_capacity(sc.nodes.len());
    for (i, n) in sc.nodes.iter().enumerate() {
        if n.is_empty() || seen.contains_key(n.as_str()) {
            errs.push(format!(
                "nodes[{i}]: node name {n:?} is empty or used twice"
            ));
        } else {
            seen.insert(n.as_str(), i as NodeId);
        }
    }
    let node_of = |path: String, name: &str, errs: &mut Vec<String>| -> Option<NodeId> {
        let r = seen.get(name).copied();
        if r.is_none() {
            errs.push(format!("{path}: unknown node {name:?}"));
        }
        r
    };
    let mut port_params = Vec::new();
    let mut port_specs = Vec::new();
    for (i, l) in sc.links.iter().enumerate() {
        let a = node_of(format!("links[{i}].a"), &l.a, &mut errs);
        let b = node_of(format!("links[{i}].b"), &l.b, &mut errs);
        if a.is_some() && a == b {
            errs.push(format!(
                "links[{i}]: a link joins two different nodes, got {:?} twice",
                l.a
            ));
        }
        check_dir(&format!("links[{i}].forward"), &l.forward, &mut errs);
        check_dir(&format!("links[{i}].reverse"), &l.reverse, &mut errs);
        let (Some(a), Some(b)) = (a, b) else { continue };
        for (from, to, d, dir) in [(a, b, &l.forward, "forward"), (b, a, &l.reverse, "reverse")] {
            port_params.push(PortParams {
                name: format!("{}->{}", sc.nodes[from as usize], sc.nodes[to as usize]),
                from,
                to,
                rate_bps: d.rate_bps.max(1),
                delay_ns: d.delay_ns,
                framing: d.framing,
                loss: d.loss,
            });
            port_specs.push((format!("links[{i}].{dir}"), d.clone()));
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    let topo = Topology::new(
        sc.nodes.clone(),
        port_params.iter().map(|p| (p.from, p.to)).collect(),
    );
    let mut b = Builder::new(run.seed, window, run.duration_ns, &topo.ids);
    if let Err(e) = build_traffic(sc, &mut b) {
        return Err(vec![e]);
    }
    // Every flow needs a route both ways (data out, replies and ACKs back).
    let mut flow_paths = Vec::with_capacity(b.flows.len());
    for f in &b.flows {
        match (topo.path(f.src, f.dst), topo.path(f.dst, f.src)) {
            (Some(fw), Some(bw)) => flow_paths.push((fw, bw)),
            _ => errs.push(format!(
                "traffic: flow {} has no route between {:?} and {:?} (add a link that connects them)",
                f.id, topo.names[f.src as usize], topo.names[f.dst as usize]
            )),
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    // The flows whose data or ACKs cross each port (for sizing rules), in flow order.
    let mut crossing_flows: Vec<Vec<u32>> = Vec::new();
    if port_specs.iter().any(|(_, d)| d.queue.sizing.is_some()) {
        crossing_flows.resize(port_params.len(), Vec::new());
        for (i, (fw, bw)) in flow_paths.iter().enumerate() {
            for &p in fw.iter().chain(bw) {
                let v = &mut crossing_flows[p as usize];
                if v.last() != Some(&(i as u32)) {
                    v.push(i as u32);
                }
            }
        }
    }

    let mut ports = Vec::with_capacity(port_params.len());
    for (pid, (pp, (path, d))) in port_params.iter().zip(port_specs.iter()).enumerate() {
        let mut adaptive = None;
        let (limit, sizing) = match &d.queue.sizing {
            None => (
                Limit {
                    pkts: d.queue.limit_pkts,
                    bytes: d.queue.limit_bytes,
                },
                None,
            ),
            Some(s) => {
                // Flows whose data or ACKs cross this port, with their round-trip propagation;
                // pings are probes, not load, and do not count.
                let crossing: Vec<(u64, u32)> = crossing_flows[pid]
                    .iter()
                    .map(|&i| (&flow_paths[i as usize], &b.flows[i as usize]))
                    .filter(|(_, f)| f.kind != "ping")
                    .map(|((fw, bw), f)| {
                        (
                            path_delay(&port_params, fw) + path_delay(&port_params, bw),
                            f.pkt_bytes,
                        )
                    })
                    .collect();
                let ctx = SizingCtx {
                    rate_bps: pp.rate_bps,
                    flow_rtts_ns: crossing.iter().map(|c| c.0).collect(),
                    input_links: topo.in_degree(pp.from),
                    // Rules count full-sized data packets of the flows that cross.
                    pkt_bytes: crossing
                        .iter()
                        .map(|c| c.1)
                        .max()
                        .unwrap_or(DEFAULT_PKT_BYTES),
                };
                match sizing::resolve(s, &ctx) {
                    Ok((l, name)) => {
                        if name == "rtt-adaptive" {
                            match AdaptiveSizer::new(s, &ctx, AdaptiveSizer::DEFAULT_PERIOD_NS) {
                                Ok(a) => adaptive = Some(a),
                                Err(e) => errs.push(format!("{path}.queue.sizing: {e}")),
                            }
                        }
                        (l, Some(name))
                    }
                    Err(e) => {
                        errs.push(format!("{path}.queue.sizing.{e}"));
                        continue;
                    }
                }
            }
        };
        let qdisc = match Qdisc::build(
            &d.queue.qdisc,
            limit,
            crate::rng::mix_key(run.seed, pid as u64),
        ) {
            Ok(q) => q,
            Err(e) => {
                errs.push(format!("{path}.queue.qdisc: {e}"));
                continue;
            }
        };
        let mut port = Port::new(
            pp.clone(),
            qdisc,
            sizing,
            window,
            stream(run.seed, Stream::Link, pid as u64),
        );
        if let Some(r) = &d.ring {
            port = port.with_ring(r);
        }
        if let Some(a) = adaptive {
            port = port.with_adaptive(a);
        }
        ports.push(port);
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    let flow_src = b.flows.iter().map(|f| f.src).collect();
    let flows = b.flows.iter().map(|_| FlowStats::new(window)).collect();
    let n_agents = b.agents.len();
    let eng = Engine {
        sched: Sched::with_capacity(1024 + 4 * n_agents + 2 * ports.len()),
        arena: Arena::with_capacity(4096),
        ports,
        agents: b.agents,
        flows,
        flow_info: b.flows,
        flow_src,
        topo,
        totals: Default::default(),
        out: Vec::with_capacity(64),
        timers: Vec::with_capacity(16),
        transfers: Vec::new(),
        timeseries: Default::default(),
        run: run.clone(),
        window,
        events: 0,
        now: 0,
        prev_port: Vec::new(),
        prev_flow: Vec::new(),
        prev_sample: 0,
        ttl_expired: None,
    };
    Ok(eng)
}
