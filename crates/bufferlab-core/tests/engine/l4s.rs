//! L4S end to end: TCP Prague (ECT(1), AccECN) through DualPI2 (RFC 9332) beside a Cubic flow.
//! The coupled AQM keeps the L queue near its 1 ms step and the C queue near its PI target of
//! 15 ms; each flow's one-way delay less the path's is its queue's delay.

use crate::common;

use bufferlab_core::results::FlowRow;
use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, RunOutput};
use common::*;
use serde_json::{json, Value};

const RATE: u64 = 40_000_000;
const ONE_WAY_NS: u64 = 10 * NS_PER_MS;

fn l4s(traffic: Value, secs: u64) -> RunOutput {
    let q = json!({ "qdisc": { "kind": "dualpi2" }, "limit_pkts": 10000 });
    let mut v = access(
        json!({ "rate_bps": RATE, "delay_ns": ONE_WAY_NS, "queue": q }),
        dir(RATE, ONE_WAY_NS, 1000),
        traffic,
        secs * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, secs * NS_PER_SEC]);
    run(&scenario(v)).unwrap()
}

/// Queueing delay of a flow: its mean one-way delay less the propagation and a 1500 B packet's
/// serialization, in ms.
fn queue_ms(f: &FlowRow) -> f64 {
    let base = ONE_WAY_NS as f64 * 1e-6 + 1500.0 * 8.0 / RATE as f64 * 1e3;
    f.owd_mean_s.unwrap() * 1e3 - base
}

#[test]
fn prague_sits_in_the_l_queue_near_its_step_and_cubic_in_the_c_queue_near_target() {
    let out = l4s(
        json!([
            { "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "cc": "prague" } },
            { "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "cc": "cubic" } },
        ]),
        20,
    );
    let (prague, cubic) = (&out.summary.flows[0], &out.summary.flows[1]);
    let q = out.queue("client->server").unwrap();
    let util = out.link("client->server").unwrap().utilization;
    let (lq, cq) = (queue_ms(prague), queue_ms(cubic));
    eprintln!(
        "prague: queue {lq:.2} ms, {:.1} Mb/s, ce {}; cubic: queue {cq:.2} ms, {:.1} Mb/s; \
         marked {} aqm drops {:?}, utilization {util:.3}",
        prague.goodput_bps / 1e6,
        prague.ce_received,
        cubic.goodput_bps / 1e6,
        q.marked,
        q.drops_by_reason.get("aqm")
    );
    // The L queue: Prague marked from a 1 ms sojourn on, and by the coupled p_L = k·p' below
    // it, so it sits under the step, far below the C queue.
    assert!(lq > 0.0 && lq < 1.5 && lq < cq / 10.0, "L queue {lq:.2} ms");
    // The C queue: the PI holds it at 15 ms.
    assert!((cq - 15.0).abs() < 4.0, "C queue {cq:.2} ms");
    assert_eq!(prague.retransmits, 0, "an L4S flow is marked, not dropped");
    assert!(prague.ce_received > 0);
    assert!(util > 0.9, "utilization {util}");
    // Coupling (RFC 9332 §2.1): both flows get a share; neither starves.
    assert!(prague.goodput_bps > 0.1 * RATE as f64 && cubic.goodput_bps > 0.1 * RATE as f64);
}

/// Alone, Prague keeps DualPI2's L queue below about a millisecond and the link busy; DCTCP
/// behind the same queue is classic (ECT(0)): the C queue, 15 ms.
#[test]
fn prague_alone_keeps_the_queue_shallow_and_dctcp_is_classified_classic() {
    let tcp =
        |cc: &str| json!([{ "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "cc": cc } }]);
    let p = l4s(tcp("prague"), 15);
    let d = l4s(tcp("dctcp"), 15);
    let (pq, dq) = (queue_ms(&p.summary.flows[0]), queue_ms(&d.summary.flows[0]));
    let pu = p.link("client->server").unwrap().utilization;
    eprintln!("prague alone: queue {pq:.2} ms, utilization {pu:.3}; dctcp: queue {dq:.2} ms");
    assert!(pq < 2.0, "{pq:.2} ms");
    assert!(pu > 0.9, "{pu}");
    assert!((dq - 15.0).abs() < 5.0, "{dq:.2} ms");
}

/// At 10 Mb/s a 1500 B packet takes 1.2 ms to send, longer than the step's 1 ms: an L packet
/// queued behind one other is marked. Two Prague flows from one host through a router's DualPI2
/// over a 100 ms round trip then hold the link well under its rate with Linux's defaults, and
/// fill it with Linux's remedies for slow links: the step counted in packets (`step_thresh` 2
/// packets) or applied only above a queue of `min_qlen_step` = 2 packets; the L queue's delay
/// stays a few ms either way.
#[test]
fn at_ten_megabits_the_step_in_packets_or_min_qlen_step_keep_the_link_busy() {
    let rate = 10_000_000;
    let run_with = |q: Value| {
        // The second flow starts 0.37 s after the first: two flows started together stay in step
        // and fare worse still.
        let prague = |start_ns: u64| {
            json!({ "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "cc": "prague" },
                    "start_ns": { "dist": "const", "value": start_ns as f64 } })
        };
        let v = json!({
            "run": { "duration_ns": 40 * NS_PER_SEC, "seed": 1, "measure_ns": [10 * NS_PER_SEC, 40 * NS_PER_SEC] },
            "nodes": ["client", "router", "server"],
            "links": [
                { "a": "client", "b": "router", "forward": dir(2 * rate, NS_PER_MS, 1000),
                  "reverse": dir(2 * rate, NS_PER_MS, 1000) },
                { "a": "router", "b": "server",
                  "forward": { "rate_bps": rate, "delay_ns": 49 * NS_PER_MS,
                               "queue": { "qdisc": q, "limit_pkts": 10000 } },
                  "reverse": dir(rate, 49 * NS_PER_MS, 1000) },
            ],
            "traffic": [prague(0), prague(370 * NS_PER_MS)],
        });
        let out = run(&scenario(v)).unwrap();
        let util = out.link("router->server").unwrap().utilization;
        let q = out.queue("router->server").unwrap();
        (util, q.sojourn_mean_s.unwrap_or(0.0) * 1e3)
    };
    let default = run_with(json!({ "kind": "dualpi2" }));
    let packets = run_with(json!({ "kind": "dualpi2", "step_thresh_packets": 2 }));
    let min_qlen = run_with(json!({ "kind": "dualpi2", "min_qlen_step": 2 }));
    eprintln!("utilization, L sojourn (ms): default {default:?}, step in packets {packets:?}, min_qlen_step {min_qlen:?}");
    // (70% in this run; 43% over three seeds of random starts on a dumbbell of two pairs)
    assert!(default.0 < 0.8, "{default:?}");
    for (util, ms) in [packets, min_qlen] {
        assert!(util > 0.9 && ms < 3.0, "{util} {ms} ms");
    }
}
