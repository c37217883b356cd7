//! The end of a run: the books closed (every packet accounted for) and the result rows, read
//! from a finished [`Engine`] (its ports closed at the end of the run, [`Engine::finish`]).

use crate::engine::Engine;
use crate::qdisc::{DropReason, QueueDisc};
use crate::results::*;
use crate::scenario::Framing;
use crate::time::{Duration, Instant};

/// A histogram value (ns) in seconds.
fn hist_secs(ns: u64) -> f64 {
    Duration::from_ns(ns).secs()
}

/// Close a finished run's books and turn them into the result rows.
pub fn finish(mut eng: Engine) -> Result<RunOutput, String> {
    let timeseries = eng.close();
    report(&eng, timeseries)
}

/// Close the books: conservation check and the result rows (`timeseries`: the rows sampled
/// during the run).
pub(crate) fn report(e: &Engine, timeseries: TimeSeries) -> Result<RunOutput, String> {
    let cons = close_books(e)?;
    let (run, w) = (e.run(), e.window());
    let end = run.duration_ns;
    let summary = Summary {
        engine: EngineRow {
            version: env!("CARGO_PKG_VERSION"),
            events: e.events(),
            wall_seconds: 0.0,
            sim_seconds: end.secs(),
            packets: e.totals().created,
            peak_packets: e.arena().capacity_used() as u64,
        },
        run: RunRow {
            duration_s: end.secs(),
            seed: run.seed,
            measure_s: [w.start.secs(), w.end.secs()],
            sample_s: run.sample_ns.map(Duration::secs),
        },
        flows: flow_rows(e),
        queues: queue_rows(e),
        links: link_rows(e),
        conservation: cons,
        captures: e.capture_rows(),
    };
    Ok(RunOutput {
        summary,
        transfers: transfer_rows(e),
        timeseries,
        distributions: distributions(e),
    })
}

/// Every port's books, then the run's: packets created = delivered + dropped + queued + in
/// flight, every drop at a named port.
fn close_books(e: &Engine) -> Result<ConservationRow, String> {
    let mut queued = 0;
    let mut in_flight = 0;
    for p in e.ports() {
        queued += p.queued();
        in_flight += p.in_flight();
        if !p.backlog_consistent() {
            return Err(format!(
                "engine error: port {} counted a backlog of {:?} (packets, bytes) where its discipline holds {:?}",
                p.params.name,
                p.backlog,
                p.qdisc.backlog()
            ));
        }
    }
    let t = e.totals();
    // Every drop happened at a named port, and each port's own ledger adds up.
    let at_ports: u64 = e.ports().iter().map(|p| p.dropped_all_run()).sum();
    if at_ports != t.dropped {
        return Err(format!(
            "engine error: {} packets dropped in all, {} of them at a port",
            t.dropped, at_ports
        ));
    }
    if let Some(err) = e.ports().iter().find_map(|p| p.ledger_error()) {
        return Err(format!("engine error: {err}"));
    }
    let cons = ConservationRow {
        created: t.created,
        delivered: t.delivered,
        dropped: t.dropped,
        queued,
        in_flight,
    };
    if t.created != t.delivered + t.dropped + queued + in_flight
        || e.arena().live() != queued + in_flight
    {
        return Err(format!(
            "engine error: packet conservation violated: created {} != delivered {} + dropped {} + queued {} + in flight {} (live {})",
            t.created, t.delivered, t.dropped, queued, in_flight, e.arena().live()
        ));
    }
    Ok(cons)
}

fn flow_rows(e: &Engine) -> Vec<FlowRow> {
    let wsecs = e.window().len().secs();
    // An empty window (a real-time run stopped before it opened) measured no rate.
    let bps = |bytes: u64| {
        if wsecs > 0.0 {
            bytes as f64 * 8.0 / wsecs
        } else {
            0.0
        }
    };
    let names = &e.topology().names;
    e.flows()
        .iter()
        .zip(e.flow_info())
        .map(|(f, info)| {
            let q = |x: f64| f.rtt.quantile(x).map(hist_secs);
            FlowRow {
                id: info.id.clone(),
                kind: info.kind,
                src: names[info.src as usize].clone(),
                dst: names[info.dst as usize].clone(),
                group: info.group.clone(),
                goodput_bps: bps(f.bytes_delivered.window),
                throughput_bps: bps(f.bytes_received.window),
                bytes_delivered: f.bytes_delivered.window,
                pkts_sent: f.pkts_sent.window,
                pkts_dropped: f.pkts_dropped.window,
                rtt_mean_s: f.rtt.mean().map(|m| m / 1e9),
                rtt_p50_s: q(0.5),
                rtt_p99_s: q(0.99),
                rtt_samples: f.rtt.count(),
                owd_mean_s: f.owd.mean().map(|m| m / 1e9),
                retransmits: f.retransmits.window,
                timeouts: f.timeouts.window,
                ce_received: f.ce_received.window,
                ecn_reductions: f.ecn_reductions.window,
                loss_rate: if f.pkts_sent.window > 0 {
                    f.pkts_dropped.window as f64 / f.pkts_sent.window as f64
                } else {
                    0.0
                },
                start_s: f.started_at.map(Instant::secs),
                completion_time_s: match (f.started_at, f.completed_at) {
                    (Some(s), Some(c)) => Some((c - s).secs()),
                    _ => None,
                },
            }
        })
        .collect()
}

fn queue_rows(e: &Engine) -> Vec<QueueRow> {
    e.ports()
        .iter()
        .map(|p| {
            let (s, q) = (&p.stats, &p.queue_stats);
            let (op, ob) = s.occupancy_mean();
            let lim = p.qdisc.limit();
            QueueRow {
                link: p.params.name.clone(),
                discipline: p.qdisc.name(),
                limit_pkts: lim.pkts,
                limit_bytes: lim.bytes,
                sizing: p.sizing.clone(),
                sojourn_mean_s: q.sojourn.mean().map(|m| m / 1e9),
                sojourn_p50_s: q.sojourn.quantile(0.5).map(hist_secs),
                sojourn_p99_s: q.sojourn.quantile(0.99).map(hist_secs),
                ring_sojourn_mean_s: q.ring_sojourn.mean().map(|m| m / 1e9),
                ring_sojourn_p99_s: q.ring_sojourn.quantile(0.99).map(hist_secs),
                bql_limit_bytes: p
                    .ring
                    .as_ref()
                    .map(|r| r.dql.limit())
                    .filter(|&l| l != u64::MAX),
                occupancy_mean_pkts: op,
                occupancy_mean_bytes: ob,
                arrivals: s.arrivals.window,
                enqueued: s.enqueued.window,
                dropped: q.dropped_total(),
                drops_by_reason: DropReason::ALL
                    .iter()
                    .filter(|r| q.dropped[r.index()].window > 0)
                    .map(|r| (r.name(), q.dropped[r.index()].window))
                    .collect(),
                marked: q.marked.window,
            }
        })
        .collect()
}

fn link_rows(e: &Engine) -> Vec<LinkRow> {
    let w = e.window();
    e.ports()
        .iter()
        .map(|p| LinkRow {
            link: p.params.name.clone(),
            rate_bps: p.params.rate_bps,
            delay_s: p.params.delay_ns.secs(),
            framing: match p.params.framing {
                Framing::None => "none",
                Framing::Ethernet => "ethernet",
                Framing::Atm => "atm",
            },
            utilization: p.utilization(
                w.start,
                w.end,
                p.stats.busy_ns.window,
                p.stats.wire_bytes_sent.window,
            ),
            bytes_sent: p.stats.bytes_sent.window,
            wire_bytes_sent: p.stats.wire_bytes_sent.window,
            pkts_sent: p.stats.pkts_sent.window,
        })
        .collect()
}

fn transfer_rows(e: &Engine) -> Vec<TransferRow> {
    // `conn` numbers a flow's transfers in the order they started.
    let mut per_flow = vec![0u64; e.flow_info().len()];
    e.transfers()
        .iter()
        .map(|t| {
            let n = per_flow.get_mut(t.flow as usize).map(|c| {
                *c += 1;
                *c
            });
            TransferRow {
                flow: e
                    .flow_info()
                    .get(t.flow as usize)
                    .map(|f| f.id.clone())
                    .unwrap_or_default(),
                conn: n.unwrap_or(0),
                size_bytes: t.size_bytes,
                start_s: t.start.secs(),
                end_s: t.completed.map(Instant::secs),
                completion_time_s: t.completed.map(|c| c.saturating_since(t.start).secs()),
            }
        })
        .collect()
}

fn distributions(e: &Engine) -> Distributions {
    let mut distributions = Distributions::default();
    for (f, info) in e.flows().iter().zip(e.flow_info()) {
        distributions.push_hist("flow", &info.id, "rtt_s", &f.rtt);
    }
    for p in e.ports() {
        distributions.push_hist("queue", &p.params.name, "sojourn_s", &p.queue_stats.sojourn);
    }
    distributions
}
