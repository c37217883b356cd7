//! The engine with UDP and ping over FIFO buffers, against closed forms.

use crate::common;

use bufferlab_core::time::{tx_time, NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, Scenario};
use common::*;
use serde_json::json;

const MBPS10: u64 = 10_000_000;

fn md1(rate_pps: f64, seed: u64, duration_s: u64) -> Scenario {
    let mut v = access(
        dir(MBPS10, 10 * NS_PER_MS, 1000),
        dir(MBPS10, 10 * NS_PER_MS, 1000),
        json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": rate_pps,
                 "size_bytes": 1500, "arrivals": "poisson" }]),
        duration_s * NS_PER_SEC,
        seed,
    );
    v["run"]["measure_ns"] = json!([10 * NS_PER_SEC, duration_s * NS_PER_SEC]);
    scenario(v)
}

/// M/D/1 (Pollaczek–Khinchine): mean wait = rho S / (2 (1 - rho)); occupancy by Little's law.
fn check_md1(rate_pps: f64) {
    let service_s = 1500.0 * 8.0 / MBPS10 as f64;
    let rho = rate_pps * service_s;
    let expect = rho * service_s / (2.0 * (1.0 - rho));
    let seeds = 8;
    let mut sum_wait = 0.0;
    for seed in 1..=seeds {
        let out = run(&md1(rate_pps, seed, 120)).unwrap();
        let q = out.queue("client->server").unwrap();
        let wait = q.sojourn_mean_s.unwrap();
        sum_wait += wait;
        // Little's law, per run: L = lambda W over the same window.
        let lambda = q.enqueued as f64 / 110.0;
        let little = lambda * wait;
        assert!(
            (q.occupancy_mean_pkts - little).abs() / little < 0.01,
            "Little: L={} lambda W={little}",
            q.occupancy_mean_pkts
        );
        assert_eq!(q.dropped, 0);
    }
    let mean = sum_wait / seeds as f64;
    let err = (mean - expect).abs() / expect;
    // One 110 s estimate spreads ~3% at rho = 0.8; 8 seeds ~1.1%. An M/M/1 model would be 100% off.
    assert!(
        err < 0.035,
        "rho={rho}: mean wait {mean} vs P-K {expect} ({:.1}%)",
        err * 100.0
    );
}

#[test]
fn md1_rho_08_matches_pollaczek_khinchine() {
    check_md1(666.67);
}

#[test]
fn md1_rho_05_matches_pollaczek_khinchine() {
    check_md1(416.67);
}

fn cbr(rate_pps: f64, limit: u64) -> Scenario {
    scenario(access(
        dir(MBPS10, 5 * NS_PER_MS, limit),
        dir(MBPS10, 5 * NS_PER_MS, limit),
        json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": rate_pps, "size_bytes": 1500 }]),
        20 * NS_PER_SEC,
        1,
    ))
}

#[test]
fn cbr_below_capacity_never_queues() {
    let out = run(&cbr(800.0, 100)).unwrap();
    let q = out.queue("client->server").unwrap();
    assert_eq!(q.sojourn_p99_s, Some(0.0));
    assert_eq!(q.occupancy_mean_pkts, 0.0);
    assert_eq!(q.dropped, 0);
    let f = out.flow("udp-1").unwrap();
    assert_eq!(f.pkts_sent, 16_000);
}

#[test]
fn cbr_above_capacity_drops_exactly_the_excess() {
    // 1000 pkt/s of 1500 B into 10 Mb/s (833.33 pkt/s) for 20 s with a 50-packet buffer.
    let out = run(&cbr(1000.0, 50)).unwrap();
    let q = out.queue("client->server").unwrap();
    let f = out.flow("udp-1").unwrap();
    let sent = f.pkts_sent;
    assert_eq!(sent, 20_000);
    let served = out.link("client->server").unwrap().pkts_sent;
    // The link sends back to back from the first packet on: 20 s / 1.2 ms, +1 for the one started last.
    assert!((served as i64 - 16_667).abs() <= 1, "served {served}");
    // Everything else is dropped, except what still waits at the end (a full buffer, give or take
    // the one slot a departure just freed).
    let waiting = out.summary.conservation.queued;
    assert!(waiting == 49 || waiting == 50, "waiting {waiting}");
    assert_eq!(q.dropped, sent - served - waiting);
    assert_eq!(q.drops_by_reason.get("overflow"), Some(&q.dropped));
    assert!((out.link("client->server").unwrap().utilization - 1.0).abs() < 1e-6);
}

fn ping_rtt(framing: &str, size: u32, rate: u64, delay: u64) -> (f64, u64) {
    ping_rtt_proto(framing, size, rate, delay, "icmp")
}

fn ping_rtt_proto(framing: &str, size: u32, rate: u64, delay: u64, proto: &str) -> (f64, u64) {
    let mut v = access(
        dir(rate, delay, 100),
        dir(rate, delay, 100),
        json!([{ "kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * NS_PER_MS,
                 "size_bytes": size, "proto": proto }]),
        2 * NS_PER_SEC,
        1,
    );
    v["links"][0]["forward"]["framing"] = json!(framing);
    v["links"][0]["reverse"]["framing"] = json!(framing);
    let out = run(&scenario(v)).unwrap();
    let f = out.flow("ping-1").unwrap();
    assert_eq!(f.rtt_samples, 20);
    (
        f.rtt_p99_s.unwrap(),
        (f.rtt_mean_s.unwrap() * 1e9).round() as u64,
    )
}

#[test]
fn idle_ping_rtt_is_propagation_plus_serialization() {
    let delay = 7 * NS_PER_MS + 123;
    // 84 B: 84 + 16 B of AAL5/LLC = 100 B -> 3 cells.
    for (framing, wire) in [("none", 84u64), ("ethernet", 84 + 18 + 20), ("atm", 3 * 53)] {
        let expect = 2 * (delay + tx_time(wire, 1_000_000).as_ns());
        let (_, mean_ns) = ping_rtt(framing, 84, 1_000_000, delay);
        assert_eq!(mean_ns, expect, "framing {framing}");
    }
    // A 1500 B echo over ATM is 32 cells = 1696 B each way (the format's example).
    let expect = 2 * (delay + tx_time(1696, 800_000).as_ns());
    let (_, mean_ns) = ping_rtt("atm", 1500, 800_000, delay);
    assert_eq!(mean_ns, expect);
}

#[test]
fn udp_echo_probe_measures_the_same_rtt_as_icmp() {
    // The far host sends the datagram back at once: every probe is answered, and its RTT is the
    // path's, as an ICMP echo of the same size.
    let delay = 3 * NS_PER_MS + 7;
    let expect = 2 * (delay + tx_time(84, 2_000_000).as_ns());
    let (_, mean_ns) = ping_rtt_proto("none", 84, 2_000_000, delay, "udp");
    assert_eq!(mean_ns, expect);
}

#[test]
fn the_time_series_carries_each_steps_probe_rtt() {
    let delay = 5 * NS_PER_MS;
    let mut v = access(
        dir(1_000_000, delay, 100),
        dir(1_000_000, delay, 100),
        json!([{ "kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * NS_PER_MS }]),
        NS_PER_SEC,
        1,
    );
    v["run"]["sample_ns"] = json!(100 * NS_PER_MS);
    let out = run(&scenario(v)).unwrap();
    let ts = &out.timeseries;
    let rtts: Vec<f64> = (0..ts.value.len())
        .filter(|&i| ts.metric[i] == "rtt_s" && ts.id[i] == "ping-1")
        .map(|i| ts.value[i])
        .collect();
    let expect = 2.0 * (delay + tx_time(84, 1_000_000).as_ns()) as f64 / 1e9;
    // Requests at 0, 0.1, ..., 0.9 s, each back 11.3 ms later inside its own step: one row per
    // step sampled (0.1 to 0.9 s), the last reply coming after the last sample.
    assert_eq!(rtts.len(), 9, "{rtts:?}");
    assert!(rtts.iter().all(|r| (r - expect).abs() < 1e-12), "{rtts:?}");
}

#[test]
fn an_rrul_block_in_a_plan_builds_its_labelled_flows() {
    let v = access(
        dir(10_000_000, 5 * NS_PER_MS, 100),
        dir(10_000_000, 5 * NS_PER_MS, 100),
        json!([{ "kind": "rrul", "pairs": [["client", "server"]], "uploads": 1, "downloads": 2,
                 "delay_ns": { "dist": "const", "value": (100 * NS_PER_MS) as f64 } }]),
        NS_PER_SEC,
        1,
    );
    let out = run(&scenario(v)).unwrap();
    let f = &out.summary.flows;
    let kinds: Vec<(&str, &str)> = f.iter().map(|r| (r.kind, r.src.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("tcp", "client"),
            ("tcp", "server"),
            ("tcp", "server"),
            ("ping", "client"),
            ("ping", "client"),
            ("ping", "client"),
            ("ping", "client")
        ]
    );
    assert!(f.iter().all(|r| r.group.as_deref() == Some("rrul-1")));
    // Streams start after the delay; every probe is answered.
    assert!(f[..3]
        .iter()
        .all(|r| r.start_s == Some(0.1) && r.goodput_bps > 0.0));
    // Every probe is answered (the streams' slow start may drop one in the full FIFO).
    assert!(f[3..]
        .iter()
        .all(|r| r.rtt_samples >= 3 && r.pkts_sent == 5));
}

#[test]
fn same_seed_same_summary_different_seed_differs() {
    let a = run(&md1(666.67, 3, 20)).unwrap().summary_json();
    let b = run(&md1(666.67, 3, 20)).unwrap().summary_json();
    let c = run(&md1(666.67, 4, 20)).unwrap().summary_json();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn burst_source_paces_within_bursts() {
    // 100 packets at 250 pkt/s every second (seed 000 §II-E): 100 per second, none in the gaps.
    let v = access(
        dir(MBPS10, NS_PER_MS, 1000),
        dir(MBPS10, NS_PER_MS, 1000),
        json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": 250.0, "size_bytes": 29,
                 "burst": { "packets": 100, "every_ns": NS_PER_SEC } }]),
        10 * NS_PER_SEC,
        1,
    );
    let out = run(&scenario(v)).unwrap();
    assert_eq!(out.flow("udp-1").unwrap().pkts_sent, 1000);
}

#[test]
fn unreachable_destination_is_an_error() {
    let v = json!({
        "run": { "duration_ns": NS_PER_SEC },
        "nodes": ["a", "b", "c"],
        "links": [ { "a": "a", "b": "b", "forward": dir(MBPS10, 0, 10), "reverse": dir(MBPS10, 0, 10) } ],
        "traffic": [ { "kind": "udp", "pairs": [["a", "c"]], "rate_pps": 10.0, "size_bytes": 100 } ],
    });
    let err = run(&scenario(v)).unwrap_err();
    assert!(err.contains("no route"), "{err}");
}

#[test]
fn ttl_expires_after_the_first_router() {
    // a -> r -> b with TTL 1: the router drops every packet (reason ttl).
    let v = json!({
        "run": { "duration_ns": NS_PER_SEC },
        "nodes": ["a", "r", "b"],
        "links": [ { "a": "a", "b": "r", "forward": dir(MBPS10, 0, 10), "reverse": dir(MBPS10, 0, 10) },
                   { "a": "r", "b": "b", "forward": dir(MBPS10, 0, 10), "reverse": dir(MBPS10, 0, 10) } ],
        "traffic": [ { "kind": "udp", "pairs": [["a", "b"]], "rate_pps": 100.0, "size_bytes": 100, "ttl": 1 } ],
    });
    let out = run(&scenario(v)).unwrap();
    let q = out.queue("r->b").unwrap();
    assert_eq!(q.drops_by_reason.get("ttl"), Some(&100));
    assert_eq!(out.flow("udp-1").unwrap().bytes_delivered, 0);
    assert_eq!(out.flow("udp-1").unwrap().loss_rate, 1.0);
}

#[test]
fn time_series_and_distributions() {
    // CBR at 1000 pkt/s into 833 pkt/s of capacity: the queue fills to its 50 packets and stays.
    let mut v = access(
        dir(MBPS10, 5 * NS_PER_MS, 50),
        dir(MBPS10, 5 * NS_PER_MS, 50),
        json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": 1000.0, "size_bytes": 1500 }]),
        4 * NS_PER_SEC,
        1,
    );
    v["run"]["sample_ns"] = json!(100 * NS_PER_MS);
    let out = run(&scenario(v)).unwrap();
    let ts = &out.timeseries;
    let series = |obj: &str, id: &str, metric: &str| -> Vec<(f64, f64)> {
        (0..ts.len())
            .filter(|&i| ts.object[i] == obj && ts.id[i] == id && ts.metric[i] == metric)
            .map(|i| (ts.time_s[i], ts.value[i]))
            .collect()
    };
    let q = series("queue", "client->server", "qlen_pkts");
    assert_eq!(q.len(), 40);
    assert_eq!(q[0], (0.0, 0.0));
    assert!(
        q[20..].iter().all(|&(_, v)| v == 49.0 || v == 50.0),
        "{q:?}"
    );
    let u = series("link", "client->server", "utilization");
    assert!(u[1..].iter().all(|&(_, v)| (v - 1.0).abs() < 1e-9), "{u:?}");
    let g = series("flow", "udp-1", "goodput_bps");
    // Delivered rate = link rate × payload share (1472 of 1500 B).
    assert!(
        g[5..]
            .iter()
            .all(|&(_, v)| (v - 10e6 * 1472.0 / 1500.0).abs() / 10e6 < 0.02),
        "{g:?}"
    );
    // The sojourn CDF of a full 50-packet FIFO is concentrated near 49-50 × 1.2 ms.
    let d = &out.distributions;
    let rows: Vec<usize> = (0..d.value.len())
        .filter(|&i| d.id[i] == "client->server" && d.metric[i] == "sojourn_s")
        .collect();
    let median = rows
        .iter()
        .find(|&&i| d.cdf[i] >= 0.5)
        .map(|&i| d.value[i])
        .unwrap();
    assert!((median - 0.0594).abs() < 0.001, "median sojourn {median}");
}
