//! Scenario builders for the TCP integration tests.
#![allow(dead_code)]

use bufferlab_core::results::RunOutput;
use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, Scenario};
use serde_json::{json, Value};

pub const MBPS: u64 = 1_000_000;

/// One direction of a link with a FIFO of `limit_pkts` packets.
pub fn dir(rate_bps: u64, delay_ns: u64, limit_pkts: u64) -> Value {
    json!({ "rate_bps": rate_bps, "delay_ns": delay_ns,
            "queue": { "qdisc": { "kind": "fifo" }, "limit_pkts": limit_pkts } })
}

/// A dumbbell: `s_i -> r1 -> r2 -> d_i`; the bottleneck `r1->r2` has `rate_bps`, `delay_ns` and a
/// FIFO of `limit_pkts`; access links run at 10× the bottleneck with one-way delays
/// `access_ns[i]` and large buffers. Pair i's round-trip propagation time is
/// 2 (2 access_i + delay).
pub struct Dumbbell {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub limit_pkts: u64,
    pub access_ns: Vec<u64>,
    pub loss: f64,
    pub duration_ns: u64,
    pub measure_ns: Option<[u64; 2]>,
    pub sample_ns: Option<u64>,
    pub seed: u64,
}

impl Dumbbell {
    pub fn new(pairs: usize, rate_bps: u64, delay_ns: u64, limit_pkts: u64) -> Self {
        Dumbbell {
            rate_bps,
            delay_ns,
            limit_pkts,
            access_ns: vec![NS_PER_MS / 2; pairs],
            loss: 0.0,
            duration_ns: 30 * NS_PER_SEC,
            measure_ns: None,
            sample_ns: None,
            seed: 1,
        }
    }

    pub fn rtt_ns(&self, i: usize) -> u64 {
        2 * (2 * self.access_ns[i] + self.delay_ns)
    }

    /// Bandwidth-delay product of pair `i` in packets of `pkt_bytes`.
    pub fn bdp_pkts(&self, i: usize, pkt_bytes: u64) -> f64 {
        self.rate_bps as f64 * self.rtt_ns(i) as f64 / 1e9 / 8.0 / pkt_bytes as f64
    }

    /// The scenario with one traffic entry per element of `traffic` (each given its `pairs`
    /// from `(s_i, d_i)` for the pair indices listed).
    pub fn scenario(&self, traffic: Vec<(Vec<usize>, Value)>) -> Scenario {
        serde_json::from_value(self.plan(traffic)).expect("valid plan")
    }

    /// The plan [`Dumbbell::scenario`] parses, as JSON.
    pub fn plan(&self, traffic: Vec<(Vec<usize>, Value)>) -> Value {
        let n = self.access_ns.len();
        let mut nodes = vec!["r1".to_string(), "r2".to_string()];
        let mut links = vec![];
        let mut bottleneck = dir(self.rate_bps, self.delay_ns, self.limit_pkts);
        bottleneck["loss"] = json!(self.loss);
        links.push(json!({ "a": "r1", "b": "r2", "forward": bottleneck,
                           "reverse": dir(self.rate_bps, self.delay_ns, 100_000) }));
        let fast = 10 * self.rate_bps;
        for i in 0..n {
            let (s, d) = (format!("s{}", i + 1), format!("d{}", i + 1));
            let a = self.access_ns[i];
            links.push(json!({ "a": s, "b": "r1", "forward": dir(fast, a, 100_000), "reverse": dir(fast, a, 100_000) }));
            links.push(json!({ "a": "r2", "b": d, "forward": dir(fast, a, 100_000), "reverse": dir(fast, a, 100_000) }));
            nodes.push(s);
            nodes.push(d);
        }
        let traffic: Vec<Value> = traffic
            .into_iter()
            .map(|(idx, mut t)| {
                t["pairs"] = json!(idx
                    .iter()
                    .map(|i| [format!("s{}", i + 1), format!("d{}", i + 1)])
                    .collect::<Vec<_>>());
                t
            })
            .collect();
        let mut run = json!({ "duration_ns": self.duration_ns, "seed": self.seed });
        if let Some(m) = self.measure_ns {
            run["measure_ns"] = json!(m);
        }
        if let Some(s) = self.sample_ns {
            run["sample_ns"] = json!(s);
        }
        json!({ "run": run, "nodes": nodes, "links": links, "traffic": traffic })
    }
}

/// A bulk TCP block with the given `tcp` options.
pub fn bulk(tcp: Value) -> Value {
    json!({ "kind": "tcp", "tcp": tcp })
}

pub fn run_ok(sc: &Scenario) -> RunOutput {
    run(sc).expect("run")
}

/// Jain's fairness index.
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}
