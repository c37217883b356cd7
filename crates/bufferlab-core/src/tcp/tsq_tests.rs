//! TCP small queues end to end: a Cubic upload from a host whose egress is the Linux stack
//! (`scenarios/linux-stack.toml`: qdisc, 512-descriptor ring with BQL, 10 Mb/s), the engine
//! stepped in 50 µs slices to watch the connection's bytes in its host.

use serde_json::{json, Value};

use super::tsq::{Check, LIMIT_OUTPUT_BYTES};
use crate::agent::Agent;
use crate::engine::Engine;
use crate::scenario::Scenario;
use crate::time::{Duration, Instant, NS_PER_MS, NS_PER_SEC};

const PKT: u64 = 1500;

/// `client -> server` at `rate_bps`, 5 ms each way, a 1000-packet FIFO and a ring on the
/// uplink; one Cubic upload (with `tsq`) and a ping every 100 ms.
fn linux_stack(rate_bps: u64, tsq: Option<bool>, secs: u64) -> Scenario {
    // One segment per packet (GSO off), so that the budget below is two of them.
    // The budget against the link's rate: the window grows while the last send attempt found
    // it full. With Linux's latch (`cwnd_latch`) a TSQ-held slow start grows to twice the
    // packets out, and the pacing rate, and with it the budget, to twice what is asked here.
    let mut tcp = json!({ "cc": "cubic", "gso": false, "cwnd_latch": false });
    if let Some(t) = tsq {
        tcp["tsq"] = json!(t);
    }
    let dir = |ring: bool| {
        let mut d = json!({ "rate_bps": rate_bps, "delay_ns": 5 * NS_PER_MS,
                            "queue": { "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 } });
        if ring {
            d["ring"] = json!({ "size": 512, "bql": "auto" });
        }
        d
    };
    let v: Value = json!({
        "run": { "duration_ns": secs * NS_PER_SEC, "seed": 1, "measure_ns": [NS_PER_SEC, secs * NS_PER_SEC] },
        "nodes": ["client", "server"],
        "links": [{ "a": "client", "b": "server", "forward": dir(true), "reverse": dir(false) }],
        "traffic": [
            { "kind": "tcp", "pairs": [["client", "server"]], "tcp": tcp },
            { "kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * NS_PER_MS },
        ],
    });
    serde_json::from_value(v).unwrap()
}

fn pacing_rate(e: &Engine) -> Option<u64> {
    e.agents().iter().find_map(|p| match &p.agent {
        Agent::TcpSender(s) => s.conns().first().and_then(|c| c.pacing_rate()),
        _ => None,
    })
}

/// What the run showed: the most bytes the connection had in its host, the largest budget
/// TCP small queues allowed, and the ratio of the one to the other at its worst.
struct Watch {
    max_queued: u64,
    max_budget: u64,
}

/// Run `sc` in 50 µs steps; at each, the connection's bytes in its host must be what the host's
/// egress holds of it (qdisc, ring, wire) and under the budget TCP small queues allowed.
fn watch(sc: &Scenario) -> Watch {
    let mut e = crate::build::build(sc).unwrap();
    let mut w = Watch {
        max_queued: 0,
        max_budget: 0,
    };
    let end = Instant::ZERO + sc.run.duration_ns;
    let mut t = Instant::ZERO;
    while t < end {
        t += Duration::from_us(50);
        e.run_until(t, |_| true);
        let rate = pacing_rate(&e);
        let budget = Check {
            pacing_rate: rate,
            pkt_bytes: PKT as u32,
            limit_output: LIMIT_OUTPUT_BYTES,
            retransmit: false,
            alone: false,
        }
        .budget();
        // Before the first RTT sample (the SYN's) the rate is unlimited and the budget is
        // `tcp_limit_output_bytes`; no data leaves before it.
        if rate.is_some() {
            w.max_budget = w.max_budget.max(budget);
        }
        let queued = e.host_tx(0).conn(0).queued_bytes;
        w.max_queued = w.max_queued.max(queued);
        // A sender may send while it holds less than its budget: at most a packet more.
        assert!(queued < w.max_budget + PKT, "{t:?}: {queued} B queued");
        // The same bytes the port holds: its qdisc and ring (with a ping or two of 84 B),
        // and the packet being serialized.
        let port = &e.ports()[0];
        let held = port.backlog.1 + port.ring.as_ref().map_or(0, |r| r.bytes());
        assert!(
            queued <= held + PKT && held <= queued + 2 * 84,
            "{t:?}: {queued} B vs {held} B held"
        );
    }
    w
}

/// With a 1000-packet FIFO in the host, the upload keeps at most its budget (two packets at
/// 10 Mb/s) there at all times, and a ping beside it sees the path's 10 ms; without TCP small
/// queues the FIFO fills and the ping waits behind it for over a second.
#[test]
fn host_queue_stays_within_the_budget_and_rtt_drops() {
    let w = watch(&linux_stack(10_000_000, None, 8));
    assert!(w.max_budget <= 2 * PKT + 1500, "budget {}", w.max_budget);
    assert!(
        w.max_queued >= 2 * PKT,
        "never reached its budget: {}",
        w.max_queued
    );
    let on = crate::simulate::run(&linux_stack(10_000_000, None, 30)).unwrap();
    let off = crate::simulate::run(&linux_stack(10_000_000, Some(false), 30)).unwrap();
    let ping = |o: &crate::results::RunOutput| o.flow("ping-1").unwrap().rtt_mean_s.unwrap() * 1e3;
    let goodput = |o: &crate::results::RunOutput| o.flow("tcp-1").unwrap().goodput_bps / 1e6;
    eprintln!(
        "ping with TSQ {:.2} ms, {:.3} Mb/s; without {:.1} ms, {:.3} Mb/s",
        ping(&on),
        goodput(&on),
        ping(&off),
        goodput(&off)
    );
    assert!(ping(&on) < 14.0, "with TSQ: {} ms", ping(&on));
    assert!(ping(&off) > 500.0, "without TSQ: {} ms", ping(&off));
    assert!(
        goodput(&on) > 9.5,
        "with TSQ the link stays busy: {}",
        goodput(&on)
    );
}

/// The budget is about 1 ms of the pacing rate: ten times the link rate, ten times the bytes
/// the connection keeps in its host (and at least two packets, the floor at 10 Mb/s).
#[test]
fn budget_scales_with_the_pacing_rate() {
    let fast = watch(&linux_stack(100_000_000, None, 3));
    let faster = watch(&linux_stack(1_000_000_000, None, 2));
    for (w, rate) in [(&fast, 100e6), (&faster, 1e9)] {
        // The window's rate is about the link's (the queue stays in the socket), paced at 2
        // times it: with nothing lost, slow start's ratio holds (Linux's 200 %).
        let ms_of_link = rate / 8.0 / 1024.0;
        let b = w.max_budget as f64;
        assert!(
            b > 1.8 * ms_of_link && b < 2.5 * ms_of_link,
            "{rate}: budget {b}"
        );
        let q = w.max_queued as f64;
        assert!(
            q > 0.8 * b && q < b + PKT as f64,
            "{rate}: {q} B queued, budget {b}"
        );
    }
    let ratio = faster.max_queued as f64 / fast.max_queued as f64;
    assert!(ratio > 7.0 && ratio < 13.0, "ratio {ratio}");
}

/// Same scenario, same bytes.
#[test]
fn deterministic() {
    let sc = linux_stack(10_000_000, None, 5);
    let a = crate::simulate::run(&sc).unwrap().summary_json();
    let b = crate::simulate::run(&sc).unwrap().summary_json();
    let scrub = |s: String| {
        s.lines()
            .filter(|l| !l.contains("wall_seconds"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(scrub(a), scrub(b));
}
