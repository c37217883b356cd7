//! The end of a run: the books closed (every packet accounted for) and the result rows.

use crate::engine::Engine;
use crate::qdisc::{DropReason, QueueDisc};
use crate::results::*;
use crate::scenario::Framing;
use crate::time::{Duration, Instant};

/// A histogram value (ns) in seconds.
fn hist_secs(ns: u64) -> f64 {
    Duration::from_ns(ns).secs()
}

impl Engine {
    /// Close the books: conservation check and the result rows.
    pub fn finish(mut self) -> Result<RunOutput, String> {
        let cons = self.close_books()?;
        let (end, w) = (self.run.duration_ns, self.window);
        let summary = Summary {
            engine: EngineRow {
                version: env!("CARGO_PKG_VERSION"),
                events: self.events,
                wall_seconds: 0.0,
                sim_seconds: end.secs(),
                packets: self.totals.created,
                peak_packets: self.arena.capacity_used() as u64,
            },
            run: RunRow {
                duration_s: end.secs(),
                seed: self.run.seed,
                measure_s: [w.start.secs(), w.end.secs()],
                sample_s: self.run.sample_ns.map(Duration::secs),
            },
            flows: self.flow_rows(),
            queues: self.queue_rows(),
            links: self.link_rows(),
            conservation: cons,
        };
        Ok(RunOutput {
            summary,
            transfers: self.transfer_rows(),
            timeseries: std::mem::take(&mut self.timeseries),
            distributions: self.distributions(),
        })
    }

    /// Every port's books, then the run's: packets created = delivered + dropped + queued + in
    /// flight, every drop at a named port.
    fn close_books(&mut self) -> Result<ConservationRow, String> {
        let end = Instant::ZERO + self.run.duration_ns;
        let mut queued = 0;
        let mut in_flight = 0;
        for p in &mut self.ports {
            p.finish(end);
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
        let t = self.totals;
        // Every drop happened at a named port, and each port's own ledger adds up.
        let at_ports: u64 = self.ports.iter().map(|p| p.dropped_all_run()).sum();
        if at_ports != t.dropped {
            return Err(format!(
                "engine error: {} packets dropped in all, {} of them at a port",
                t.dropped, at_ports
            ));
        }
        if let Some(e) = self.ports.iter().find_map(|p| p.ledger_error()) {
            return Err(format!("engine error: {e}"));
        }
        let cons = ConservationRow {
            created: t.created,
            delivered: t.delivered,
            dropped: t.dropped,
            queued,
            in_flight,
        };
        if t.created != t.delivered + t.dropped + queued + in_flight
            || self.arena.live() != queued + in_flight
        {
            return Err(format!(
                "engine error: packet conservation violated: created {} != delivered {} + dropped {} + queued {} + in flight {} (live {})",
                t.created, t.delivered, t.dropped, queued, in_flight, self.arena.live()
            ));
        }
        Ok(cons)
    }

    fn flow_rows(&self) -> Vec<FlowRow> {
        let wsecs = self.window.len().secs();
        let names = &self.topo.names;
        self.flows
            .iter()
            .zip(&self.flow_info)
            .map(|(f, info)| {
                let q = |x: f64| f.rtt.quantile(x).map(hist_secs);
                FlowRow {
                    id: info.id.clone(),
                    kind: info.kind,
                    src: names[info.src as usize].clone(),
                    dst: names[info.dst as usize].clone(),
                    goodput_bps: f.bytes_delivered.window as f64 * 8.0 / wsecs,
                    throughput_bps: f.bytes_received.window as f64 * 8.0 / wsecs,
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

    fn queue_rows(&self) -> Vec<QueueRow> {
        self.ports
            .iter()
            .map(|p| {
                let s = &p.stats;
                let (op, ob) = s.occupancy_mean();
                let lim = p.qdisc.limit();
                QueueRow {
                    link: p.params.name.clone(),
                    discipline: p.qdisc.name(),
                    limit_pkts: lim.pkts,
                    limit_bytes: lim.bytes,
                    sizing: p.sizing.clone(),
                    sojourn_mean_s: s.sojourn.mean().map(|m| m / 1e9),
                    sojourn_p50_s: s.sojourn.quantile(0.5).map(hist_secs),
                    sojourn_p99_s: s.sojourn.quantile(0.99).map(hist_secs),
                    ring_sojourn_mean_s: s.ring_sojourn.mean().map(|m| m / 1e9),
                    ring_sojourn_p99_s: s.ring_sojourn.quantile(0.99).map(hist_secs),
                    bql_limit_bytes: p
                        .ring
                        .as_ref()
                        .map(|r| r.dql.limit())
                        .filter(|&l| l != u64::MAX),
                    occupancy_mean_pkts: op,
                    occupancy_mean_bytes: ob,
                    arrivals: s.arrivals.window,
                    enqueued: s.enqueued.window,
                    dropped: s.dropped_total(),
                    drops_by_reason: DropReason::ALL
                        .iter()
                        .filter(|r| s.dropped[r.index()].window > 0)
                        .map(|r| (r.name(), s.dropped[r.index()].window))
                        .collect(),
                }
            })
            .collect()
    }

    fn link_rows(&self) -> Vec<LinkRow> {
        let w = self.window;
        self.ports
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
                utilization: p.stats.busy_ns.window as f64 / w.len().as_ns() as f64,
                bytes_sent: p.stats.bytes_sent.window,
                wire_bytes_sent: p.stats.wire_bytes_sent.window,
                pkts_sent: p.stats.pkts_sent.window,
            })
            .collect()
    }

    fn transfer_rows(&self) -> Vec<TransferRow> {
        // `conn` numbers a flow's transfers in the order they started.
        let mut per_flow = vec![0u64; self.flow_info.len()];
        self.transfers
            .iter()
            .map(|t| {
                let n = per_flow.get_mut(t.flow as usize).map(|c| {
                    *c += 1;
                    *c
                });
                TransferRow {
                    flow: self
                        .flow_info
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

    fn distributions(&self) -> Distributions {
        let mut distributions = Distributions::default();
        for (f, info) in self.flows.iter().zip(&self.flow_info) {
            distributions.push_hist("flow", &info.id, "rtt_s", &f.rtt);
        }
        for p in &self.ports {
            distributions.push_hist("queue", &p.params.name, "sojourn_s", &p.stats.sojourn);
        }
        distributions
    }
}
