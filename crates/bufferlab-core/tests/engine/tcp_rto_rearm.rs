//! Linux restarts the retransmission timer whenever it resends the oldest segment
//! (`tcp_xmit_retransmit_queue`); RFC 6298 §5.3 restarts it only on ACKs of new data. In a deep
//! FIFO a recovery's retransmission waits behind the whole queue, so the timer set before it can
//! expire while the repair is on its way: a timeout Linux does not take
//! (docs/validation-linux-differences.md, cubic-fifo-4bdp-10: Linux none in five runs).

use crate::tcp_util::*;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use serde_json::json;

/// Timeouts of ten Cubic flows through 10 Mb/s, 44 ms and four BDP of FIFO, from 5 s to 20 s.
fn timeouts(rto_rearm: bool) -> u64 {
    let mut d = Dumbbell::new(10, 10_000_000, 20 * NS_PER_MS, 147);
    d.access_ns = vec![NS_PER_MS; 10];
    d.duration_ns = 20 * NS_PER_SEC;
    // After slow start's overshoot, as the matrix measures (5-20 s).
    d.measure_ns = Some([5 * NS_PER_SEC, 20 * NS_PER_SEC]);
    // Without D-SACK, as the mechanism was measured: with it, this seed's recoveries happen not
    // to time out either way (the timer's restart is what the test is about).
    let tcp = json!({ "cc": "cubic", "rto_rearm": rto_rearm, "dsack": false });
    let mut block = bulk(tcp);
    block["start_ns"] = json!({ "dist": "uniform", "lo": 0.0, "hi": 1e9 });
    let out = run_ok(&d.scenario(vec![((0..10).collect(), block)]));
    out.summary.flows.iter().map(|f| f.timeouts).sum()
}

#[test]
fn resending_the_head_restarts_the_timer_so_a_deep_queue_takes_no_timeout() {
    let (linux, rfc) = (timeouts(true), timeouts(false));
    eprintln!("timeouts: re-armed {linux}, RFC 6298 {rfc}");
    assert_eq!(linux, 0);
    assert!(
        rfc > 0,
        "without the restart the deep FIFO's recoveries time out"
    );
}
