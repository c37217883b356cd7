//! One long TCP flow through a drop-tail bottleneck: the link utilization seed 003 derives for a
//! buffer of one bandwidth-delay product and for a minimal buffer.

mod tcp_util;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use serde_json::json;
use tcp_util::*;

/// 10 Mb/s, 50 ms bottleneck (seed 003 §3.1's 10 Mb/s case), round trip 102 ms: BDP = 85
/// packets of 1500 B. Utilization over [10 s, 30 s].
fn utilization(limit_pkts: u64, tcp: serde_json::Value) -> f64 {
    let mut d = Dumbbell::new(1, 10 * MBPS, 50 * NS_PER_MS, limit_pkts);
    d.measure_ns = Some([10 * NS_PER_SEC, 30 * NS_PER_SEC]);
    assert!((d.bdp_pkts(0, 1500) - 85.0).abs() < 0.5);
    let out = run_ok(&d.scenario(vec![(vec![0], bulk(tcp))]));
    out.link("r1->r2").unwrap().utilization
}

#[test]
fn one_bdp_buffer_keeps_the_link_busy() {
    // Seed 003 §2: halving a window of 2 BDP drains a buffer of 1 BDP exactly: no idle time.
    for tcp in [json!({}), json!({"delayed_ack": false})] {
        let u = utilization(85, tcp.clone());
        assert!(u >= 0.99, "{tcp}: utilization {u}");
    }
    // Without SACK, NewReno (RFC 6582) repairs one hole per round trip; when the overshoot
    // drops two segments the recovery takes an extra RTT and the window ends a little below
    // the pipe. It stays within 2% of full.
    let u = utilization(85, json!({"sack": false}));
    assert!(u >= 0.98, "no SACK: utilization {u}");
    // Half a BDP is not enough (seed 003 Fig. 6: goodput falls as the buffer shrinks).
    let half = utilization(42, json!({}));
    assert!(half < 0.985, "half-BDP buffer: utilization {half}");
}

#[test]
fn minimal_buffer_gives_three_quarters() {
    // Seed 003 §5: with a minimal buffer, NewReno's load swings between 100% and 50% of the
    // link: 75% on average.
    for tcp in [json!({}), json!({"sack": false})] {
        let u = utilization(2, tcp.clone());
        assert!((0.73..0.80).contains(&u), "{tcp}: utilization {u}");
    }
}

#[test]
fn aimd_beta_0875_gives_at_least_94_percent() {
    // Seed 003 §5: a decrease factor of 0.875 keeps the load between 87.5% and 100%.
    let u = utilization(2, json!({"beta": 0.875}));
    assert!(u >= 0.94, "utilization {u}");
    // and the default β = 0.5 does not.
    assert!(utilization(2, json!({})) < 0.8);
}

#[test]
fn cubic_fills_a_bdp_buffer() {
    let u = utilization(85, json!({"cc": "cubic"}));
    assert!(u >= 0.99, "utilization {u}");
}
