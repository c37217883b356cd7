//! Where a packet is at the end of a run, case by case: a TTL drop is an arrival at the port it
//! would have left by; a packet lost on the wire is dropped at the start of its transmission,
//! at its port, in its flow and in the run's totals at once, even when the run ends while it is
//! being sent; windowed drops belong to the window the packet was sent in.

use crate::common;

use bufferlab_core::run;
use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use common::*;
use serde_json::json;

const MBPS10: u64 = 10_000_000;

#[test]
fn ttl_drops_are_arrivals_at_the_port() {
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
    assert_eq!(q.arrivals, 100, "each TTL drop arrived at the port first");
    assert_eq!(q.enqueued, 0);
    assert_eq!(out.summary.conservation.dropped, 100);
}

/// A 1 pkt/s stream of 1500 B packets over a 12 kb/s link: each takes 1 s to serialize. The run
/// ends 0.5 s into the last one's transmission. With every packet lost, all are drops at the
/// port, none in flight, and the books agree everywhere.
#[test]
fn a_wire_loss_is_counted_once_even_past_the_run_end() {
    let mut up = dir(12_000, 0, 10);
    up["loss"] = json!(1.0);
    let v = access(
        up,
        dir(12_000, 0, 10),
        json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": 1.0, "size_bytes": 1500 }]),
        3 * NS_PER_SEC + 500 * NS_PER_MS,
        1,
    );
    let out = run(&scenario(v)).unwrap();
    let s = &out.summary;
    let q = out.queue("client->server").unwrap();
    let f = out.flow("udp-1").unwrap();
    // Sent at 0, 1, 2 and 3 s: four transmissions started, the last still under way.
    assert_eq!(f.pkts_sent, 4);
    assert_eq!(q.drops_by_reason.get("loss"), Some(&4));
    assert_eq!(q.dropped, 4);
    assert_eq!(f.pkts_dropped, 4);
    assert_eq!(s.conservation.dropped, 4);
    assert_eq!(s.conservation.in_flight, 0);
    assert_eq!(out.link("client->server").unwrap().pkts_sent, 4);
}

/// A window that opens halfway through an overload: only the packets sent in it (1000 of the
/// 2000) count as sent, and only their drops as dropped.
#[test]
fn drops_belong_to_the_window_they_were_sent_in() {
    // 2000 pkt/s of 1500 B into 10 Mb/s (833 pkt/s) for 1 s, then nothing; window 0.5-3 s.
    let mut v = access(
        dir(MBPS10, 0, 100),
        dir(MBPS10, 0, 100),
        json!([{ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": 2000.0, "size_bytes": 1500,
                 "stop_ns": NS_PER_SEC }]),
        3 * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([NS_PER_SEC / 2, 3 * NS_PER_SEC]);
    let out = run(&scenario(v)).unwrap();
    let f = out.flow("udp-1").unwrap();
    assert_eq!(f.pkts_sent, 1000);
    assert!(f.pkts_dropped > 0 && f.pkts_dropped <= f.pkts_sent);
    assert!(f.loss_rate <= 1.0);
    // Goodput: datagrams sent in the window and delivered in it, within the link.
    assert!(f.goodput_bps <= 10e6 * 1472.0 / 1500.0, "{}", f.goodput_bps);
    let q = out.queue("client->server").unwrap();
    assert!(q.dropped <= q.arrivals);
}
