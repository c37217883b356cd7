//! What a run returns: the summary rows of the result contract, time series and transfers.

use std::collections::BTreeMap;

use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct EngineRow {
    pub version: &'static str,
    pub events: u64,
    pub wall_seconds: f64,
    pub sim_seconds: f64,
    /// Packets created by all sources.
    pub packets: u64,
    /// Most packets alive at once (the arena's high-water mark).
    pub peak_packets: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    pub duration_s: f64,
    pub seed: u64,
    pub measure_s: [f64; 2],
    pub sample_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowRow {
    pub id: String,
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    /// The traffic block's group label (an rrul test's), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub bytes_delivered: u64,
    pub pkts_sent: u64,
    pub pkts_dropped: u64,
    pub rtt_mean_s: Option<f64>,
    pub rtt_p50_s: Option<f64>,
    pub rtt_p99_s: Option<f64>,
    pub rtt_samples: u64,
    pub owd_mean_s: Option<f64>,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Data packets received marked CE, and the sender's ECN window reductions (RFC 3168).
    pub ce_received: u64,
    pub ecn_reductions: u64,
    pub loss_rate: f64,
    pub start_s: Option<f64>,
    pub completion_time_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct QueueRow {
    pub link: String,
    pub discipline: &'static str,
    pub limit_pkts: Option<u64>,
    pub limit_bytes: Option<u64>,
    pub sizing: Option<String>,
    pub sojourn_mean_s: Option<f64>,
    pub sojourn_p50_s: Option<f64>,
    pub sojourn_p99_s: Option<f64>,
    /// Ports with a NIC ring: time on the ring before transmission, and BQL's limit at the end
    /// (`None` without a ring, or with BQL off).
    pub ring_sojourn_mean_s: Option<f64>,
    pub ring_sojourn_p99_s: Option<f64>,
    pub bql_limit_bytes: Option<u64>,
    pub occupancy_mean_pkts: f64,
    pub occupancy_mean_bytes: f64,
    pub arrivals: u64,
    pub enqueued: u64,
    pub dropped: u64,
    pub drops_by_reason: BTreeMap<&'static str, u64>,
    /// Packets marked CE in place of a drop (RFC 3168 §5).
    pub marked: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkRow {
    pub link: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub framing: &'static str,
    pub utilization: f64,
    pub bytes_sent: u64,
    pub wire_bytes_sent: u64,
    pub pkts_sent: u64,
}

/// Packets over the whole run: created = delivered + dropped + queued + in flight.
#[derive(Clone, Debug, Serialize)]
pub struct ConservationRow {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub queued: u64,
    pub in_flight: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct TransferRow {
    pub flow: String,
    pub conn: u64,
    pub size_bytes: u64,
    pub start_s: f64,
    pub end_s: Option<f64>,
    pub completion_time_s: Option<f64>,
}

/// Time series in long form: one row per (time, object, id, metric).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSeries {
    pub time_s: Vec<f64>,
    pub object: Vec<&'static str>,
    pub id: Vec<String>,
    pub metric: Vec<&'static str>,
    pub value: Vec<f64>,
}

impl TimeSeries {
    pub fn push(
        &mut self,
        t: f64,
        object: &'static str,
        id: &str,
        metric: &'static str,
        value: f64,
    ) {
        self.time_s.push(t);
        self.object.push(object);
        self.id.push(id.to_owned());
        self.metric.push(metric);
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

/// Empirical distributions (from the bounded-memory histograms) in long form: one row per
/// (object, id, metric, value) with the fraction of samples at or below the value.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Distributions {
    pub object: Vec<&'static str>,
    pub id: Vec<String>,
    pub metric: Vec<&'static str>,
    pub value: Vec<f64>,
    pub cdf: Vec<f64>,
}

impl Distributions {
    pub fn push_hist(
        &mut self,
        object: &'static str,
        id: &str,
        metric: &'static str,
        h: &crate::metrics::hist::Hist,
    ) {
        for (v, c) in h.cdf() {
            self.object.push(object);
            self.id.push(id.to_owned());
            self.metric.push(metric);
            self.value.push(v as f64 / 1e9);
            self.cdf.push(c);
        }
    }
}

/// The summary (`summary.json`).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub engine: EngineRow,
    pub run: RunRow,
    pub flows: Vec<FlowRow>,
    pub queues: Vec<QueueRow>,
    pub links: Vec<LinkRow>,
    pub conservation: ConservationRow,
    /// The packet capture files written (`run.capture`), if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captures: Vec<crate::capture::CaptureRow>,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: Summary,
    pub transfers: Vec<TransferRow>,
    pub timeseries: TimeSeries,
    pub distributions: Distributions,
}

impl RunOutput {
    pub fn flow(&self, id: &str) -> Option<&FlowRow> {
        self.summary.flows.iter().find(|f| f.id == id)
    }
    pub fn queue(&self, link: &str) -> Option<&QueueRow> {
        self.summary.queues.iter().find(|q| q.link == link)
    }
    pub fn link(&self, link: &str) -> Option<&LinkRow> {
        self.summary.links.iter().find(|l| l.link == link)
    }
    /// The summary as compact JSON, for the Python front (which parses it and writes
    /// `summary.json` itself): indenting a summary of thousands of flows cost a fifth of a
    /// short many-flow run's set-up and teardown.
    pub fn summary_json(&self) -> String {
        serde_json::to_string(&self.summary).expect("summary serializes")
    }
}
