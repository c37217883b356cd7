//! Vegas keeps between α and β of its packets queued at the bottleneck (Brakmo & Peterson 1995),
//! so n flows hold between nα and nβ, without loss, whatever the buffer.

use crate::tcp_util;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use serde_json::json;
use tcp_util::*;

fn vegas(n: usize, mut tcp: serde_json::Value) -> (f64, f64, u64) {
    // Brakmo & Peterson's receiver delays every ACK. Linux's quick ACKs at the start give Vegas a
    // base RTT without the delayed-ACK wait (one serialization, 1.2 ms here) that every later
    // sample has: a phantom packet of queue, and the flow keeps one packet fewer.
    tcp["quickack"] = json!(false);
    let mut d = Dumbbell::new(n, 10 * MBPS, 50 * NS_PER_MS, 400);
    d.measure_ns = Some([20 * NS_PER_SEC, 30 * NS_PER_SEC]);
    let t =
        json!({"kind": "tcp", "start_ns": {"dist": "uniform", "lo": 0.0, "hi": 1e9}, "tcp": tcp});
    let out = run_ok(&d.scenario(vec![((0..n).collect(), t)]));
    let q = out.queue("r1->r2").unwrap();
    (
        q.occupancy_mean_pkts,
        out.link("r1->r2").unwrap().utilization,
        q.dropped,
    )
}

#[test]
fn one_vegas_flow_queues_between_alpha_and_beta() {
    let (occ, util, drops) = vegas(1, json!({"cc": "vegas"}));
    assert!((1.0..=3.0).contains(&occ), "occupancy {occ}");
    assert!(util > 0.99, "utilization {util}");
    assert_eq!(drops, 0);
    // Larger thresholds, a larger standing queue.
    let (occ, _, _) = vegas(
        1,
        json!({"cc": "vegas", "vegas_alpha": 6.0, "vegas_beta": 8.0}),
    );
    assert!(
        (6.0..=8.0).contains(&occ),
        "occupancy {occ} with α = 6, β = 8"
    );
}

#[test]
fn four_vegas_flows_queue_four_times_as_much() {
    let (occ, util, drops) = vegas(4, json!({"cc": "vegas"}));
    assert!((4.0..=12.0).contains(&occ), "occupancy {occ}");
    assert!(util > 0.99);
    assert_eq!(drops, 0);
}
