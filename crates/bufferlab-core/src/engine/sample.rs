//! The time series: one row per queue, link and flow every `run.sample_ns`.

use crate::agent::build::FlowInfo;
use crate::metrics::flow::FlowStats;
use crate::net::port::Port;
use crate::qdisc::{Qdisc, QueueDisc};
use crate::results::TimeSeries;
use crate::time::{Duration, Instant};

/// The rows so far, and what each rate is taken against: per port (busy ns, IP bytes sent, wire
/// bytes sent) and per flow (bytes delivered; RTT samples and their sum) at the previous sample.
#[derive(Default)]
pub(super) struct Sampling {
    pub(super) timeseries: TimeSeries,
    prev_port: Vec<(Duration, u64, u64)>,
    prev_flow: Vec<u64>,
    prev_rtt: Vec<(u64, u64)>,
    prev_sample: Instant,
}

impl Sampling {
    /// One row of time series per queue, link and flow: queue lengths now, and the link and flow
    /// rates over the interval since the previous sample.
    pub(super) fn sample(
        &mut self,
        now: Instant,
        ports: &[Port],
        flows: &[FlowStats],
        flow_info: &[FlowInfo],
    ) {
        let t = now.secs();
        let dt = (now - self.prev_sample).secs();
        let rate = |d: u64| if dt > 0.0 { d as f64 * 8.0 / dt } else { 0.0 };
        let ts = &mut self.timeseries;
        self.prev_port.resize(ports.len(), (Duration::ZERO, 0, 0));
        self.prev_flow.resize(flows.len(), 0);
        self.prev_rtt.resize(flows.len(), (0, 0));
        for (p, prev) in ports.iter().zip(self.prev_port.iter_mut()) {
            let name = &p.params.name;
            let (busy, bytes) = (p.busy_ns_until(now), p.stats.bytes_sent.total);
            let wire = p.stats.wire_bytes_sent.total;
            ts.push(t, "queue", name, "qlen_pkts", p.qdisc.len_pkts() as f64);
            ts.push(t, "queue", name, "qlen_bytes", p.qdisc.len_bytes() as f64);
            if let Some(r) = &p.ring {
                ts.push(t, "queue", name, "ring_pkts", r.len() as f64);
                if r.dql.limit() != u64::MAX {
                    ts.push(t, "queue", name, "bql_limit_bytes", r.dql.limit() as f64);
                }
            }
            if p.adaptive.is_some() {
                if let Some(l) = p.qdisc.limit().pkts {
                    ts.push(t, "queue", name, "limit_pkts", l as f64);
                }
            }
            if let Qdisc::SplitBuff(s) = &p.qdisc {
                for (metric, v) in s.estimates() {
                    ts.push(t, "queue", name, metric, v);
                }
            }
            // DualPI2's base probability p' (Linux `tc -s` shows it as `prob`): the C queue
            // drops or marks with p'², the L queue marks with k·p' (RFC 9332 §2.1).
            if let Qdisc::DualPi2(d) = &p.qdisc {
                ts.push(t, "queue", name, "base_prob", d.prob());
            }
            let util = if dt <= 0.0 {
                0.0
            } else if p.trace.is_some() {
                // A trace-driven link: the share of its opportunities' bytes used.
                p.utilization(self.prev_sample, now, 0, wire - prev.2)
            } else {
                (busy - prev.0).secs() / dt
            };
            ts.push(t, "link", name, "utilization", util);
            ts.push(t, "link", name, "throughput_bps", rate(bytes - prev.1));
            *prev = (busy, bytes, wire);
        }
        let prev = self.prev_flow.iter_mut().zip(self.prev_rtt.iter_mut());
        for ((f, info), (prev, prev_rtt)) in flows.iter().zip(flow_info).zip(prev) {
            let d = f.bytes_delivered.total;
            ts.push(t, "flow", &info.id, "goodput_bps", rate(d - *prev));
            *prev = d;
            if info.is_tcp() {
                ts.push(t, "flow", &info.id, "cwnd_bytes", f.cwnd_bytes as f64);
                ts.push(t, "flow", &info.id, "srtt_s", f.srtt_ns.secs());
            }
            // A probe's RTT: the mean of the replies that came back in the step (none: no row).
            let (n, sum) = (f.rtt_samples_total, f.rtt_sum_ns_total);
            if info.kind == "ping" && n > prev_rtt.0 {
                let mean_ns = (sum - prev_rtt.1) as f64 / (n - prev_rtt.0) as f64;
                ts.push(t, "flow", &info.id, "rtt_s", mean_ns / 1e9);
            }
            *prev_rtt = (n, sum);
        }
        self.prev_sample = now;
    }
}
