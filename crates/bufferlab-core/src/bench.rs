//! The benchmark scenarios shared by `cargo bench` and `bufferlab bench`.

use std::time::Instant;

use serde::Serialize;
use serde_json::json;

use crate::scenario::Scenario;
use crate::time::NS_PER_SEC;

/// Names of the built-in benchmarks.
pub const NAMES: [&str; 2] = ["udp-fifo-1g", "udp-3hop-1g"];

fn fifo(rate_bps: u64, delay_ns: u64) -> serde_json::Value {
    json!({ "rate_bps": rate_bps, "delay_ns": delay_ns,
            "queue": { "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 } })
}

/// The scenario of benchmark `name` run for `seconds` of simulated time:
/// `udp-fifo-1g` — Poisson UDP of 1500 B packets through one 1 Gb/s FIFO at 90% load;
/// `udp-3hop-1g` — the same over a path of three 1 Gb/s hops.
pub fn scenario(name: &str, seconds: f64) -> Option<Scenario> {
    let g = 1_000_000_000u64;
    let pps = 0.9 * g as f64 / (1500.0 * 8.0);
    let hops = match name {
        "udp-fifo-1g" => 1,
        "udp-3hop-1g" => 3,
        _ => return None,
    };
    let nodes: Vec<String> = (0..=hops).map(|i| format!("n{i}")).collect();
    let links: Vec<_> = (0..hops)
        .map(|i| json!({ "a": nodes[i], "b": nodes[i + 1], "forward": fifo(g, 100_000), "reverse": fifo(g, 100_000) }))
        .collect();
    let v = json!({
        "run": { "duration_ns": (seconds * NS_PER_SEC as f64) as u64, "seed": 1 },
        "nodes": nodes,
        "links": links,
        "traffic": [ { "kind": "udp", "pairs": [["n0", nodes[hops]]], "rate_pps": pps,
                       "size_bytes": 1500, "arrivals": "poisson" } ],
    });
    serde_json::from_value(v).ok()
}

/// One benchmark's figures.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub name: String,
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    pub events: u64,
    pub packets: u64,
    pub events_per_sec: f64,
    pub packets_per_sec: f64,
    pub peak_packets: u64,
    /// What the engine's estimate said the run would take (`crate::estimate`).
    pub estimated_wall_seconds: f64,
}

pub fn run(name: &str, seconds: f64) -> Result<BenchResult, String> {
    let sc = scenario(name, seconds)
        .ok_or_else(|| format!("unknown benchmark {name:?} (one of {NAMES:?})"))?;
    let estimated = crate::estimate::check_and_estimate(&sc)
        .map(|e| e.at_speed(crate::speed::factor()).wall_s)
        .map_err(|p| format!("{p:?}"))?;
    let t0 = Instant::now();
    let out = crate::simulate::run(&sc)?;
    let wall = t0.elapsed().as_secs_f64();
    let e = &out.summary.engine;
    Ok(BenchResult {
        name: name.to_string(),
        sim_seconds: seconds,
        wall_seconds: wall,
        events: e.events,
        packets: e.packets,
        events_per_sec: e.events as f64 / wall,
        packets_per_sec: e.packets as f64 / wall,
        peak_packets: e.peak_packets,
        estimated_wall_seconds: estimated,
    })
}
