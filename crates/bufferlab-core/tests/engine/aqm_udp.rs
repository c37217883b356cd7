//! Queue disciplines, the NIC ring with BQL, and sizing rules inside the engine, driven by
//! unresponsive (UDP) load and measured with ping. TCP-driven checks live in `aqm_tcp.rs`.

use crate::common;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, RunOutput};
use common::*;
use serde_json::{json, Value};

const MBPS10: u64 = 10_000_000;

/// One direction with the given discipline, limit and optional ring.
fn port(qdisc: Value, limit_pkts: u64, ring: Option<Value>) -> Value {
    let mut v = json!({ "rate_bps": MBPS10, "delay_ns": 5 * NS_PER_MS,
                        "queue": { "qdisc": qdisc, "limit_pkts": limit_pkts } });
    if let Some(r) = ring {
        v["ring"] = r;
    }
    v
}

/// UDP at 120% of the 10 Mb/s uplink (1500 B every 1 ms) plus a ping every 100 ms, 20 s.
fn overload(up: Value) -> RunOutput {
    let mut v = access(
        up,
        dir(MBPS10, 5 * NS_PER_MS, 1000),
        json!([
            { "kind": "udp", "pairs": [["client", "server"]], "rate_pps": 1000.0, "size_bytes": 1500 },
            { "kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * NS_PER_MS,
              "start_ns": { "dist": "const", "value": 1234567.0 } },
        ]),
        20 * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, 20 * NS_PER_SEC]);
    run(&scenario(v)).unwrap()
}

fn ping_ms(out: &RunOutput) -> (f64, f64) {
    let f = out.flow("ping-1").unwrap();
    (f.rtt_mean_s.unwrap() * 1e3, f.rtt_p99_s.unwrap() * 1e3)
}

/// The baseline: a 1000-packet FIFO fills, and the ping waits behind 1.2 s of packets.
#[test]
fn fifo_bloats_under_overload() {
    let out = overload(port(json!({ "kind": "fifo" }), 1000, None));
    let (mean, _) = ping_ms(&out);
    assert!(mean > 1100.0, "ping {mean} ms");
}

/// PIE holds the mean queueing delay near its 15 ms target against unresponsive overload,
/// dropping the excess (1/6 of the UDP packets) early.
#[test]
fn pie_holds_delay_near_target() {
    let out = overload(port(json!({ "kind": "pie" }), 1000, None));
    let q = out.queue("client->server").unwrap();
    let soj = q.sojourn_mean_s.unwrap() * 1e3;
    assert!((soj - 15.0).abs() < 4.0, "sojourn {soj} ms");
    let aqm = *q.drops_by_reason.get("aqm").unwrap_or(&0) as f64;
    assert!(
        (aqm / q.arrivals as f64 - 1.0 / 6.0).abs() < 0.02,
        "{aqm} of {}",
        q.arrivals
    );
    let (mean, _) = ping_ms(&out);
    assert!(mean < 40.0, "ping {mean} ms");
}

/// FQ-CoDel: the ping is a sparse flow; it skips the UDP flow's queue (RFC 8290 §4.1).
#[test]
fn fq_codel_ping_skips_the_bulk_queue() {
    let out = overload(port(json!({ "kind": "fq_codel" }), 10240, None));
    let (mean, p99) = ping_ms(&out);
    // Propagation 10 ms, serialization of 84 B twice, at most one 1.2 ms packet ahead.
    assert!(mean < 12.5 && p99 < 12.5, "ping {mean} / {p99} ms");
    let q = out.queue("client->server").unwrap();
    assert!(q.drops_by_reason.get("aqm").copied().unwrap_or(0) > 100);
}

/// CoDel against unresponsive overload (which it is not designed for: the drop rate has to climb
/// to the 1/6 excess through interval/sqrt(count)) still leaves a standing queue about a tenth of
/// the FIFO's 1.2 s.
#[test]
fn codel_bounds_the_standing_queue() {
    let out = overload(port(json!({ "kind": "codel" }), 1000, None));
    let q = out.queue("client->server").unwrap();
    let p50 = q.sojourn_p50_s.unwrap() * 1e3;
    assert!(p50 < 150.0, "median sojourn {p50} ms");
    let (mean, _) = ping_ms(&out);
    assert!(mean < 160.0, "ping {mean} ms");
}

/// Seed 001 Fig. 5: with a 512-descriptor ring, BQL auto keeps the ring nearly empty, so the
/// queue sits in the qdisc where CoDel controls it; with BQL off (or a limit set far too high)
/// the ring holds the queue, out of CoDel's reach, and RTT explodes.
#[test]
fn ring_with_bql_keeps_the_queue_in_the_qdisc() {
    let ring = |bql: Value| Some(json!({ "size": 512, "bql": bql }));
    let auto = overload(port(json!({ "kind": "codel" }), 1000, ring(json!("auto"))));
    let off = overload(port(json!({ "kind": "codel" }), 1000, ring(json!("off"))));
    let high = overload(port(
        json!({ "kind": "codel" }),
        1000,
        ring(json!({ "fixed": 10_000_000 })),
    ));

    let qa = auto.queue("client->server").unwrap();
    let ring_ms = qa.ring_sojourn_mean_s.unwrap() * 1e3;
    assert!(ring_ms < 3.0, "ring delay with BQL {ring_ms} ms");
    let bql = qa.bql_limit_bytes.unwrap();
    assert!((1500..=4500).contains(&bql), "BQL limit {bql}");
    let (a, _) = ping_ms(&auto);
    assert!(a < 160.0, "ping with BQL {a} ms");

    for out in [&off, &high] {
        let q = out.queue("client->server").unwrap();
        // 512 descriptors of 1.2 ms.
        let ring_ms = q.ring_sojourn_mean_s.unwrap() * 1e3;
        assert!(ring_ms > 550.0, "ring delay {ring_ms} ms");
        let (m, _) = ping_ms(out);
        assert!(m > 5.0 * a && m > 550.0, "ping {m} ms vs {a} ms with BQL");
    }
    assert_eq!(off.queue("client->server").unwrap().bql_limit_bytes, None);
}

/// Conservation holds with packets on the ring at the end, and a sizing rule resolves.
#[test]
fn sizing_rules_resolve_in_the_engine() {
    let mk = |rule: &str, scale: f64| {
        let mut up = dir(MBPS10, 50 * NS_PER_MS, 1);
        up["queue"] =
            json!({ "qdisc": { "kind": "fifo" }, "sizing": { "rule": rule, "scale": scale } });
        let v = access(
            up,
            dir(MBPS10, 50 * NS_PER_MS, 1000),
            json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": 100.0, "size_bytes": 1500 }]),
            NS_PER_SEC,
            1,
        );
        run(&scenario(v))
    };
    // 10 Mb/s x 100 ms = 125 kB = 83 packets of 1500 B.
    let out = mk("bdp", 1.0).unwrap();
    let q = out.queue("client->server").unwrap();
    assert_eq!((q.limit_pkts, q.sizing.as_deref()), (Some(83), Some("bdp")));
    let out = mk("2L", 1.0).unwrap();
    assert_eq!(out.queue("client->server").unwrap().limit_pkts, Some(2));
    let out = mk("connection-proportional", 2.0).unwrap();
    assert_eq!(out.queue("client->server").unwrap().limit_pkts, Some(12));
    let e = mk("bpd", 1.0).unwrap_err();
    assert!(
        e.contains("links[0].forward.queue.sizing.rule: unknown sizing rule"),
        "{e}"
    );
}
