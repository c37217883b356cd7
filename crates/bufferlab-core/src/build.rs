//! From a [`Scenario`] to a ready-to-run [`Engine`]: checks, topology, routes, buffer limits,
//! agents. Every problem found is reported, each naming the plan's key path.

use crate::agent::build::{build_traffic, Builder, FlowInfo, DEFAULT_PKT_BYTES};
use crate::capture::point::Net;
use crate::engine::Engine;
use crate::metrics::flow::Window;
use crate::net::host_tx::{self, HostTx};
use crate::net::port::{Port, PortParams};
use crate::net::topology::Topology;
use crate::packet::NodeId;
use crate::problem::{Loc, Problem};
use crate::qdisc::{Limit, Qdisc};
use crate::rng::{stream, Stream};
use crate::scenario::{DirSpec, Scenario};
use crate::sizing::{self, AdaptiveSizer, SizingCtx};
use crate::time::{Duration, Instant};

pub use crate::rules::MAX_SAMPLES;

/// The round-trip propagation time of a path out and back.
fn path_delay(ports: &[PortParams], path: &[u32]) -> Duration {
    path.iter().map(|&p| ports[p as usize].delay_ns).sum()
}

/// The measurement window, the nodes and one port per link direction, with every problem
/// found on the way.
fn read_network(
    sc: &Scenario,
    errs: &mut Vec<Problem>,
) -> (Window, Vec<PortParams>, Vec<(Loc, DirSpec)>) {
    let run = &sc.run;
    let window = match run.measure_ns {
        Some([a, b]) if a < b && b <= Instant::ZERO + run.duration_ns => {
            Window { start: a, end: b }
        }
        Some(m) => {
            errs.push(Loc::root().key("run").key("measure_ns").problem(format!(
                "[{}, {}] must be an interval inside the run",
                m[0].as_ns(),
                m[1].as_ns()
            )));
            Window {
                start: Instant::ZERO,
                end: Instant::ZERO + run.duration_ns.max(Duration::from_ns(1)),
            }
        }
        None => Window {
            start: Instant::ZERO,
            end: Instant::ZERO + run.duration_ns.max(Duration::from_ns(1)),
        },
    };
    if sc.nodes.is_empty() {
        errs.push(
            Loc::root()
                .key("nodes")
                .problem("a scenario needs at least two nodes"),
        );
    }
    if sc.nodes.len() > 1_000_000 {
        errs.push(
            Loc::root()
                .key("nodes")
                .problem("more than a million nodes"),
        );
    }
    // Node ids by name (the first of a repeated name), so looking up a link's ends is not a scan.
    let mut seen = std::collections::HashMap::with_capacity(sc.nodes.len());
    for (i, n) in sc.nodes.iter().enumerate() {
        if n.is_empty() || seen.contains_key(n.as_str()) {
            errs.push(
                Loc::root()
                    .key("nodes")
                    .at(i)
                    .problem(format!("node name {n:?} is empty or used twice")),
            );
        } else {
            seen.insert(n.as_str(), i as NodeId);
        }
    }
    let node_of = |loc: Loc, name: &str, errs: &mut Vec<Problem>| -> Option<NodeId> {
        let r = seen.get(name).copied();
        if r.is_none() {
            errs.push(loc.problem(format!("unknown node {name:?}")));
        }
        r
    };
    let mut port_params = Vec::new();
    let mut port_specs = Vec::new();
    for (i, l) in sc.links.iter().enumerate() {
        let here = Loc::root().key("links").at(i);
        let a = node_of(here.key("a"), &l.a, errs);
        let b = node_of(here.key("b"), &l.b, errs);
        if a.is_some() && a == b {
            errs.push(here.problem(format!(
                "a link joins two different nodes, got {:?} twice",
                l.a
            )));
        }
        let (Some(a), Some(b)) = (a, b) else { continue };
        for (from, to, d, dir) in [(a, b, &l.forward, "forward"), (b, a, &l.reverse, "reverse")] {
            port_params.push(PortParams {
                name: format!("{}->{}", sc.nodes[from as usize], sc.nodes[to as usize]),
                from,
                to,
                rate_bps: d.rate_bps.max(1),
                delay_ns: d.delay_ns,
                jitter_ns: d.jitter_ns,
                framing: d.framing,
                loss: d.loss,
            });
            port_specs.push((here.key(dir), d.clone()));
        }
    }
    (window, port_params, port_specs)
}

/// Every flow's route both ways (data out, replies and ACKs back), or a problem naming it.
fn route_flows(
    topo: &Topology,
    flows: &[FlowInfo],
    errs: &mut Vec<Problem>,
) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut flow_paths = Vec::with_capacity(flows.len());
    for f in flows {
        match (topo.path(f.src, f.dst), topo.path(f.dst, f.src)) {
            (Some(fw), Some(bw)) => flow_paths.push((fw, bw)),
            _ => errs.push(Loc::root().key("traffic").problem(format!(
                "flow {} has no route between {:?} and {:?} (add a link that connects them)",
                f.id, topo.names[f.src as usize], topo.names[f.dst as usize]
            ))),
        }
    }
    flow_paths
}

/// Build the engine, or every problem found.
pub fn build(sc: &Scenario) -> Result<Engine, Vec<Problem>> {
    build_started(sc, crate::bounds::check(sc))
}

/// [`build`] for a plan the scenario reader made: `plan` is the JSON it wrote and `sc` what was
/// read from that JSON. The bounds are walked on `plan` itself rather than on `sc` written back
/// into JSON, which for 10,000 flows took a quarter of the build (and its defaults, which the
/// JSON leaves out, are in bounds by construction: every build from a `Scenario` checks them).
pub fn build_read(sc: &Scenario, plan: &serde_json::Value) -> Result<Engine, Vec<Problem>> {
    build_started(sc, crate::bounds::check_value(plan))
}

/// The engine built with the plan's bounds already walked (`bounds`: what they found), its
/// agents started.
fn build_started(sc: &Scenario, bounds: Vec<Problem>) -> Result<Engine, Vec<Problem>> {
    let mut eng = build_network_checked(sc, bounds)?;
    eng.start();
    Ok(eng)
}

/// Routes both ways per flow, as [`route_flows`] gives them.
type FlowPaths = [(Vec<u32>, Vec<u32>)];

/// The flows whose data or ACKs cross each port, in flow order: what sizing rules count. Empty
/// when no port sizes its buffer by a rule.
fn crossing_flows(specs: &[(Loc, DirSpec)], flow_paths: &FlowPaths) -> Vec<Vec<u32>> {
    let mut crossing: Vec<Vec<u32>> = Vec::new();
    if specs.iter().any(|(_, d)| d.queue.sizing.is_some()) {
        crossing.resize(specs.len(), Vec::new());
        for (i, (fw, bw)) in flow_paths.iter().enumerate() {
            for &p in fw.iter().chain(bw) {
                let v = &mut crossing[p as usize];
                if v.last() != Some(&(i as u32)) {
                    v.push(i as u32);
                }
            }
        }
    }
    crossing
}

/// What building one port needs to know about the rest of the network.
struct PortCx<'a> {
    seed: u64,
    window: Window,
    topo: &'a Topology,
    ports: &'a [PortParams],
    flows: &'a [FlowInfo],
    flow_paths: &'a FlowPaths,
    crossing: &'a [Vec<u32>],
}

/// Port `pid`: its buffer limit (given, or from its sizing rule over the flows that cross it),
/// its discipline and its ring. A problem names the port's key.
fn build_port(pid: usize, path: &Loc, d: &DirSpec, cx: &PortCx) -> Result<Port, Problem> {
    let pp = &cx.ports[pid];
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
            let crossing: Vec<(Duration, u32)> = cx.crossing[pid]
                .iter()
                .map(|&i| (&cx.flow_paths[i as usize], &cx.flows[i as usize]))
                .filter(|(_, f)| f.kind != "ping")
                .map(|((fw, bw), f)| {
                    (
                        path_delay(cx.ports, fw) + path_delay(cx.ports, bw),
                        f.pkt_bytes,
                    )
                })
                .collect();
            let ctx = SizingCtx {
                rate_bps: pp.rate_bps,
                flow_rtts_ns: crossing.iter().map(|c| c.0).collect(),
                input_links: cx.topo.in_degree(pp.from),
                // Rules count full-sized data packets of the flows that cross.
                pkt_bytes: crossing
                    .iter()
                    .map(|c| c.1)
                    .max()
                    .unwrap_or(DEFAULT_PKT_BYTES),
            };
            let at = path.key("queue").key("sizing");
            let (l, name) = sizing::resolve(s, &ctx).map_err(|e| e.under(&at))?;
            if name == "rtt-adaptive" {
                adaptive = Some(
                    AdaptiveSizer::new(s, &ctx, AdaptiveSizer::DEFAULT_PERIOD_NS)
                        .map_err(|e| e.under(&at))?,
                );
            }
            (l, Some(name))
        }
    };
    let qdisc = Qdisc::build(
        &d.queue.qdisc,
        limit,
        crate::rng::mix_key(cx.seed, pid as u64),
    )
    .map_err(|e| e.under(&path.key("queue").key("qdisc")))?;
    let mut port = Port::new(
        pp.clone(),
        qdisc,
        sizing,
        cx.window,
        stream(cx.seed, Stream::Link, pid as u64),
    );
    if let Some(r) = &d.ring {
        port = port.with_ring(r);
    }
    if let Some(t) = &d.trace {
        port = port.with_trace(t);
    }
    if let Some(a) = adaptive {
        port = port.with_adaptive(a);
    }
    Ok(port)
}

/// What the hosts' egress ports report to their sockets: the TCP flows whose first hop counts
/// their bytes (TCP small queues, where [`host_tx::applies`]) and those it paces (an `fq`), and
/// the ports that count.
fn host_egress(flows: &[FlowInfo], flow_paths: &FlowPaths, ports: &mut [Port]) -> Vec<HostTx> {
    let mut host = vec![HostTx::default(); flows.len()];
    let mut tsq = vec![false; ports.len()];
    for (i, f) in flows.iter().enumerate() {
        let Some(&first) = flow_paths[i].0.first() else {
            continue;
        };
        let p = &ports[first as usize];
        if !f.is_tcp() {
            continue;
        }
        let is_fq = matches!(p.qdisc, crate::qdisc::Qdisc::Fq(_));
        if host_tx::applies(f.tsq, p.ring.is_some(), is_fq) {
            host[i].tracked = true;
            tsq[first as usize] = true;
        }
        // Linux's `fq` sets `SK_PACING_FQ` on a socket when it classifies its first packet; every
        // packet of the flow leaves by this port, so that is known now.
        host[i].paced_by_fq = p.qdisc.paces_flows();
    }
    for (p, tsq) in ports.iter_mut().zip(tsq) {
        p.set_host_tsq(tsq);
    }
    host
}

/// The engine with its network, flows and agents, before any agent has started: what the
/// kernel backend builds on (it replaces the agents by the real hosts).
///
/// The plan's bounds ([`crate::bounds`]) and its rules across keys ([`crate::rules`]) are
/// checked first, together: every one broken is reported at once, and nothing is built.
pub(crate) fn build_network(sc: &Scenario) -> Result<Engine, Vec<Problem>> {
    build_network_checked(sc, crate::bounds::check(sc))
}

/// [`build_network`] with the plan's bounds already walked (`bounds`: what they found).
fn build_network_checked(sc: &Scenario, bounds: Vec<Problem>) -> Result<Engine, Vec<Problem>> {
    let mut errs = bounds;
    let rules = crate::rules::check(sc);
    errs.extend(crate::rules::new_places(&errs, rules));
    if !errs.is_empty() {
        return Err(errs);
    }
    let run = &sc.run;
    let (window, port_params, port_specs) = read_network(sc, &mut errs);
    if !errs.is_empty() {
        return Err(errs);
    }

    let ends: Vec<(NodeId, NodeId)> = port_params.iter().map(|p| (p.from, p.to)).collect();
    let net = Net {
        names: &sc.nodes,
        ports: &ends,
    };
    if let Err((i, e)) = crate::capture::port_taps(run, &net) {
        return Err(vec![Loc::root().key("run").key("capture").at(i).problem(e)]);
    }
    let topo = Topology::new(sc.nodes.clone(), ends);
    let mut b = Builder::new(run.seed, window, Instant::ZERO + run.duration_ns, &topo.ids);
    build_traffic(sc, &mut b)?;
    let flow_paths = route_flows(&topo, &b.flows, &mut errs);
    if !errs.is_empty() {
        return Err(errs);
    }
    let crossing = crossing_flows(&port_specs, &flow_paths);
    let cx = PortCx {
        seed: run.seed,
        window,
        topo: &topo,
        ports: &port_params,
        flows: &b.flows,
        flow_paths: &flow_paths,
        crossing: &crossing,
    };
    let mut ports = Vec::with_capacity(port_params.len());
    for (pid, (path, d)) in port_specs.iter().enumerate() {
        match build_port(pid, path, d, &cx) {
            Ok(p) => ports.push(p),
            Err(e) => errs.push(e),
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let host_tx = host_egress(&b.flows, &flow_paths, &mut ports);
    let (agents, flow_info) = (b.agents, b.flows);
    Ok(Engine::new(
        sc.run.clone(),
        agents,
        flow_info,
        topo,
        ports,
        host_tx,
        window,
    ))
}
