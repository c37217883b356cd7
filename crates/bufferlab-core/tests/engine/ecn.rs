//! Explicit Congestion Notification end to end (RFC 3168): an ECN sender behind a marking AQM
//! loses nothing and retransmits nothing, reduces once per window of marks, and keeps the queue
//! where the same AQM's drops keep it.

use crate::common;

use bufferlab_core::results::FlowRow;
use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, RunOutput};
use common::*;
use serde_json::{json, Value};

const MBPS10: u64 = 10_000_000;

/// `client -> server` over 10 Mb/s, 20 ms RTT: `flows` bulk uploads with the TCP options
/// `tcp`, the uplink's queue `queue`; measured from 5 s.
fn upload(queue: Value, tcp: Value, flows: u32, secs: u64) -> RunOutput {
    let mut v = access(
        json!({ "rate_bps": MBPS10, "delay_ns": 10 * NS_PER_MS, "queue": queue }),
        dir(MBPS10, 10 * NS_PER_MS, 1000),
        json!([{ "kind": "tcp", "pairs": [["client", "server"]], "count": flows, "tcp": tcp }]),
        secs * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, secs * NS_PER_SEC]);
    run(&scenario(v)).unwrap()
}

fn total(out: &RunOutput, f: impl Fn(&FlowRow) -> u64) -> u64 {
    out.summary.flows.iter().map(f).sum()
}

fn aqm_drops(out: &RunOutput) -> u64 {
    let q = out.queue("client->server").unwrap();
    q.drops_by_reason.get("aqm").copied().unwrap_or(0)
}

/// RFC 3168 §5-6 through CoDel with `ecn` (RFC 8289 §5): the marks take the drops' place one for
/// one in the control law, every mark reaches the receiver and is echoed, nothing is resent, and
/// the standing queue and the link's use are those of the dropping CoDel.
#[test]
fn codel_marks_an_ecn_flow_instead_of_dropping_it() {
    let codel = |ecn| json!({ "qdisc": { "kind": "codel", "ecn": ecn }, "limit_pkts": 1000 });
    for cc in ["newreno", "cubic"] {
        let marked = upload(codel(true), json!({ "cc": cc, "ecn": true }), 1, 40);
        let dropped = upload(codel(true), json!({ "cc": cc }), 1, 40);
        let q = marked.queue("client->server").unwrap();
        let (m, d) = (q.marked, aqm_drops(&dropped));
        eprintln!(
            "{cc}: marks {m}, drops {d}; ce {} reductions {} retx {}",
            total(&marked, |f| f.ce_received),
            total(&marked, |f| f.ecn_reductions),
            total(&marked, |f| f.retransmits)
        );
        assert_eq!(
            aqm_drops(&marked),
            0,
            "{cc}: an ECN-capable flow is marked, never dropped"
        );
        assert_eq!(
            total(&marked, |f| f.retransmits),
            0,
            "{cc}: a mark is not a loss"
        );
        assert_eq!(total(&marked, |f| f.pkts_dropped), 0);
        // Not-ECT packets through the same marking CoDel are dropped (and none marked).
        assert_eq!(dropped.queue("client->server").unwrap().marked, 0);
        assert!(d > 20, "{cc}: drops without ECN {d}");
        // Every mark arrives (nothing after the queue loses it), but for the window's edges: a
        // packet marked just before the window opens (or just before the run ends) is counted
        // on one side of it only. CoDel marks at most one packet in any 10 ms, the path's one-way
        // delay.
        let ce = total(&marked, |f| f.ce_received);
        assert!(ce.abs_diff(m) <= 2, "{cc}: {ce} CE received, {m} marked");
        // One reduction per window of marks: never more than the marks received, and at least
        // one for every few (CoDel spaces its marks about an interval, 5 RTTs, apart at first).
        let r = total(&marked, |f| f.ecn_reductions);
        assert!(
            r <= ce && 2 * r >= ce,
            "{cc}: {r} reductions for {ce} marks"
        );
        // The same congestion signal at the same rate: marks within 30% of the drops.
        let ratio = m as f64 / d as f64;
        assert!((0.7..1.3).contains(&ratio), "{cc}: marks/drops {ratio:.2}");
        let sojourn =
            |o: &RunOutput| o.queue("client->server").unwrap().sojourn_mean_s.unwrap() * 1e3;
        let (sm, sd) = (sojourn(&marked), sojourn(&dropped));
        assert!(
            sm < 10.0 && (sm - sd).abs() < 2.0,
            "{cc}: sojourn {sm:.2} vs {sd:.2} ms"
        );
        let util = marked.link("client->server").unwrap().utilization;
        assert!(util > 0.9, "{cc}: utilization {util}");
    }
}

/// RFC 3168 §6.1.2: "the TCP sender SHOULD NOT ... reduce the congestion window more than once
/// per window of data". RED marking at max_p = 1 marks most packets of a window; the sender still
/// reduces at most once per round trip (here ≥ 20 ms), and far less often than it is marked.
#[test]
fn marks_in_one_window_reduce_once() {
    let red = json!({ "qdisc": { "kind": "red", "ecn": true, "min_th": 5.0, "max_th": 10.0,
                                  "max_p": 1.0, "weight": 0.2 }, "limit_pkts": 1000 });
    let out = upload(red, json!({ "cc": "newreno", "ecn": true }), 1, 25);
    let ce = total(&out, |f| f.ce_received);
    let r = total(&out, |f| f.ecn_reductions);
    let rounds = (20 * NS_PER_SEC / (20 * NS_PER_MS)) as u64;
    eprintln!("ce {ce}, reductions {r}, at most {rounds} round trips");
    assert!(
        r > 0 && r <= rounds,
        "{r} reductions in {rounds} round trips"
    );
    assert!(ce > 2 * r, "{ce} marks for {r} reductions");
    assert_eq!(aqm_drops(&out), 0);
    assert_eq!(total(&out, |f| f.retransmits), 0);
}

/// RFC 3168 §6.1.1: ECN is used only when both ends agree. A sender that does not ask sends
/// Not-ECT (FQ-CoDel, which marks by default as Linux's does, then drops); one that asks is
/// marked. Without a handshake, a sender that asks is taken at its word.
#[test]
fn ecn_is_negotiated() {
    let fq = json!({ "qdisc": { "kind": "fq_codel" }, "limit_pkts": 10240 });
    let plain = upload(fq.clone(), json!({}), 2, 20);
    let asks = upload(fq.clone(), json!({ "ecn": true }), 2, 20);
    let no_syn = upload(fq, json!({ "ecn": true, "handshake": false }), 2, 20);
    assert_eq!(plain.queue("client->server").unwrap().marked, 0);
    assert!(aqm_drops(&plain) > 0);
    for out in [&asks, &no_syn] {
        assert!(out.queue("client->server").unwrap().marked > 0);
        assert_eq!(aqm_drops(out), 0);
    }
}
