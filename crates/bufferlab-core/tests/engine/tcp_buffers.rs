//! One long TCP flow through a drop-tail bottleneck: the link utilization seed 003 derives for a
//! buffer of one bandwidth-delay product and for a minimal buffer.

use crate::tcp_util;

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

/// HyStart (Linux Cubic's default) in a buffer of four BDPs (85 + 340 packets hold the path).
/// With delayed ACKs (one per 2.4 ms at 10 Mb/s, too sparse for an ACK train) the delay test
/// ends slow start: each round starts with the queue the last one left, and once that queue is
/// 12.75 ms (clamp(RTT / 8, 4, 16 ms)) at the round's start slow start ends, here at ~330
/// packets, before the buffer overflows; nothing is lost. ACKing every segment (1.2 ms apart), an
/// ACK train outlasting half the minimum RTT ends it at ~1.5 BDP, and the queue stays far below
/// the buffer. Without HyStart slow start doubles on until the buffer overflows and loses about
/// half a window: over 700 drops and a full buffer (408 ms). After HyStart, Linux's Cubic (the
/// whole-segment default) knows no W_max and grows at least 5% per RTT (`bictcp_update`'s
/// `cnt ≤ 20`), so the buffer does overflow later, a few tens of packets within the 6 s with
/// delayed ACKs; Linux loses 11 in the matrix's cubic-fifo-4bdp-1 (docs/validation-linux.md).
#[test]
fn hystart_ends_cubic_slow_start_before_a_deep_buffer_overflows() {
    let run = |hystart: bool, delayed_ack: bool| {
        let mut d = Dumbbell::new(1, 10 * MBPS, 50 * NS_PER_MS, 340);
        d.duration_ns = 6 * NS_PER_SEC;
        let tcp = json!({"cc": "cubic", "cubic_hystart": hystart, "delayed_ack": delayed_ack});
        let out = run_ok(&d.scenario(vec![(vec![0], bulk(tcp))]));
        let f = &out.summary.flows[0];
        let q = out.queue("r1->r2").unwrap();
        let p99 = q.sojourn_p99_s.unwrap() * 1e3;
        eprintln!("hystart {hystart}, delayed ACKs {delayed_ack}: {} resent, {} dropped, sojourn p99 {p99:.1} ms", f.retransmits, q.dropped);
        (f.retransmits, q.dropped, p99)
    };
    assert!(run(true, true).1 < 50);
    let (_, drops, p99) = run(true, false);
    assert!(drops < 50, "{drops} dropped after the ACK train");
    // Nothing lost, the buffer (408 ms) never full: the queue the 5% growth builds stays below.
    assert!(p99 < 350.0, "ACK train: sojourn p99 {p99} ms");
    for delayed_ack in [true, false] {
        let (retx, drops, p99) = run(false, delayed_ack);
        assert!(
            drops > 300 && retx >= drops,
            "{drops} dropped, {retx} resent"
        );
        assert!(p99 > 350.0, "the buffer fills: p99 {p99} ms");
    }
}

#[test]
fn pacing_lets_cubic_use_a_two_packet_buffer() {
    // With access links ten times the bottleneck, an ACK that releases three segments at once
    // overflows two packets of buffer while the window is still below the pipe. Paced, the
    // segments arrive spread and the window reaches the pipe: Cubic's β = 0.7 then bounds the
    // load from below at 85 %.
    let unpaced = utilization(2, json!({"cc": "cubic"}));
    let paced = utilization(2, json!({"cc": "cubic", "pacing": true}));
    assert!(paced >= 0.85, "paced: utilization {paced}");
    assert!(paced > unpaced + 0.05, "paced {paced}, unpaced {unpaced}");
}
