use serde_json::json;

use super::*;
use crate::time::{Duration, Instant, NS_PER_US};

const MS: Duration = Duration::from_ms(1);
const T0: Instant = Instant::ZERO;

fn dir(qdisc: serde_json::Value, limit_pkts: u64) -> serde_json::Value {
    json!({ "rate_bps": 10_000_000u64, "delay_ns": 5 * MS,
            "queue": { "qdisc": qdisc, "limit_pkts": limit_pkts } })
}

/// a - r - b, every direction 10 Mb/s and 5 ms; the a->r port's discipline and limit as given.
fn net(qdisc: serde_json::Value, limit_pkts: u64) -> RealtimeNet {
    let fifo = json!({ "kind": "fifo" });
    let sc: Scenario = serde_json::from_value(json!({
        "run": { "duration_ns": 1_000 * MS },
        "nodes": ["a", "r", "b"],
        "links": [
            { "a": "a", "b": "r", "forward": dir(qdisc, limit_pkts), "reverse": dir(fifo.clone(), 100) },
            { "a": "r", "b": "b", "forward": dir(fifo.clone(), 100), "reverse": dir(fifo, 100) },
        ],
    }))
    .unwrap();
    RealtimeNet::build(&sc, &[0, 2]).unwrap()
}

fn pkt(flow: FlowId) -> Outbound {
    Outbound {
        dst: 2,
        size: 1500,
        flow,
        ttl: 64,
        proto: Proto::Udp,
        ecn: Ecn::NotEct,
    }
}

/// Run the engine event by event as a driver would, noting when each handle reached which node.
fn drain(n: &mut RealtimeNet, until: Instant) -> Vec<(Instant, NodeId, Delivered)> {
    let mut got = Vec::new();
    while let Some(t) = n.next_event_at().filter(|&t| t < until) {
        n.advance(t);
        n.take_deliveries(|node, d| got.push((t, node, d)));
    }
    got
}

#[test]
fn store_and_forward_timing_and_ttl() {
    let mut n = net(json!({ "kind": "fifo" }), 100);
    let ids: Vec<_> = (0..3).map(|_| n.inject(T0, 0, pkt(7)).unwrap()).collect();
    let got = drain(&mut n, Instant::NEVER);
    // 1500 B at 10 Mb/s is 1.2 ms per hop; the router forwards each packet once it has all of it.
    let want = [12_400, 13_600, 14_800].map(|us| Instant::from_ns(us * NS_PER_US));
    assert_eq!(got.len(), 3);
    for ((t, node, d), (w, id)) in got.iter().zip(want.iter().zip(&ids)) {
        assert_eq!((*t, *node, d.handle), (*w, 2, *id));
        assert_eq!(d.ttl, 63, "one router on the way");
        assert_eq!(d.at, *t);
    }
}

#[test]
fn queue_limit_drops_and_conservation() {
    let mut n = net(json!({ "kind": "fifo" }), 2);
    for _ in 0..10 {
        n.inject(T0, 0, pkt(0)).unwrap();
    }
    let got = drain(&mut n, Instant::NEVER);
    // One on the wire at once, two waiting: the rest overflow.
    assert_eq!(got.len(), 3);
    let out = n.finish(T0 + 1_000 * MS).unwrap();
    // Flow 0 has no row (the scenario has no traffic): its packets count nowhere else.
    assert!(out.summary.flows.is_empty());
    let q = &out.summary.queues[0];
    assert_eq!((q.link.as_str(), q.dropped), ("a->r", 7));
    assert_eq!(out.summary.conservation.created, 10);
    assert_eq!(out.summary.conservation.delivered, 3);
}

#[test]
fn no_host_no_injection() {
    let mut n = net(json!({ "kind": "fifo" }), 10);
    let to_router = Outbound { dst: 1, ..pkt(0) };
    assert!(n.inject(T0, 0, to_router).is_none());
    assert!(
        n.inject(T0, 1, pkt(0)).is_none(),
        "no host sits on the router"
    );
    assert!(n.next_event_at().is_none());
}

#[test]
fn flow_queueing_reads_the_given_flow() {
    // Twenty packets of flow 1, then one of flow 2: FQ-CoDel serves the new flow's packet after
    // the one on the wire and one quantum of flow 1 (RFC 8290 §4.1), where FIFO serves it last.
    let order = |qdisc| {
        let mut n = net(qdisc, 100);
        let mut flows = std::collections::HashMap::new();
        for i in 0..21 {
            let f = if i < 20 { 1 } else { 2 };
            flows.insert(n.inject(T0, 0, pkt(f)).unwrap(), f);
        }
        let got = drain(&mut n, Instant::NEVER);
        got.iter()
            .position(|(_, _, d)| flows[&d.handle] == 2)
            .unwrap()
    };
    assert_eq!(order(json!({ "kind": "fifo" })), 20);
    assert!(order(json!({ "kind": "fq_codel" })) <= 2);
}

#[test]
fn scenario_flows_keep_their_rows_and_count_real_packets() {
    let fifo = json!({ "kind": "fifo" });
    let sc: Scenario = serde_json::from_value(json!({
        "run": { "duration_ns": 1_000 * MS },
        "nodes": ["a", "b"],
        "links": [ { "a": "a", "b": "b", "forward": dir(fifo.clone(), 3), "reverse": dir(fifo, 3) } ],
        "traffic": [ { "kind": "udp", "pairs": [["a", "b"]], "rate_pps": 1000.0, "size_bytes": 1500 } ],
    }))
    .unwrap();
    let mut n = RealtimeNet::build(&sc, &[0, 1]).unwrap();
    assert_eq!(n.flows()[0].id, "udp-1");
    assert!(
        n.next_event_at().is_none(),
        "the scenario's own UDP source does not run"
    );
    let o = Outbound { dst: 1, ..pkt(0) };
    for _ in 0..6 {
        n.inject(T0, 0, o).unwrap();
    }
    // A packet of the flow going back (an acknowledgement) is not the flow's data.
    n.inject(T0, 1, Outbound { dst: 0, ..o }).unwrap();
    drain(&mut n, Instant::NEVER);
    let out = n.finish(T0 + 1_000 * MS).unwrap();
    let f = &out.summary.flows[0];
    assert_eq!((f.pkts_sent, f.pkts_dropped), (6, 2));
    assert_eq!(f.throughput_bps, 4.0 * 1500.0 * 8.0);
}

#[test]
fn stopping_early_closes_the_books_at_the_stop() {
    let mut n = net(json!({ "kind": "fifo" }), 100);
    for _ in 0..10 {
        n.inject(T0, 0, pkt(0)).unwrap();
    }
    drain(&mut n, Instant::NEVER);
    // Ten packets of 1.2 ms on a 1 s run stopped at 24 ms: the link was busy half of it.
    let out = n.finish(T0 + 24 * MS).unwrap();
    assert_eq!(out.summary.run.duration_s, 0.024);
    let u = out.summary.links[0].utilization;
    assert!((u - 0.5).abs() < 1e-9, "utilization {u}");
}

/// The a->r network of [`net`] with a measurement window of 100-500 ms.
fn net_measured() -> RealtimeNet {
    let fifo = json!({ "kind": "fifo" });
    let sc: Scenario = serde_json::from_value(json!({
        "run": { "duration_ns": 1_000 * MS, "measure_ns": [100 * MS, 500 * MS] },
        "nodes": ["a", "r", "b"],
        "links": [
            { "a": "a", "b": "r", "forward": dir(fifo.clone(), 100), "reverse": dir(fifo.clone(), 100) },
            { "a": "r", "b": "b", "forward": dir(fifo.clone(), 100), "reverse": dir(fifo, 100) },
        ],
    }))
    .unwrap();
    RealtimeNet::build(&sc, &[0, 2]).unwrap()
}

#[test]
fn stopped_before_its_window_a_run_measured_nothing_and_says_so() {
    let mut n = net_measured();
    for _ in 0..10 {
        n.inject(T0, 0, pkt(0)).unwrap();
    }
    drain(&mut n, Instant::NEVER);
    let out = n.finish(T0 + 50 * MS).unwrap();
    // Not the whole run passed off as the window: an empty window at the stop, rates of 0.
    assert_eq!(out.summary.run.measure_s, [0.05, 0.05]);
    let l = &out.summary.links[0];
    assert_eq!((l.utilization, l.pkts_sent), (0.0, 0));
    assert_eq!(out.summary.queues[0].occupancy_mean_pkts, 0.0);
}

#[test]
fn stopped_inside_its_window_a_run_measured_the_part_that_ran() {
    let mut n = net_measured();
    drain(&mut n, T0 + 100 * MS);
    for _ in 0..10 {
        n.inject(T0 + 100 * MS, 0, pkt(0)).unwrap();
    }
    drain(&mut n, Instant::NEVER);
    let out = n.finish(T0 + 124 * MS).unwrap();
    assert_eq!(out.summary.run.measure_s, [0.1, 0.124]);
    // Ten packets of 1.2 ms in the 24 ms that ran of the window: the link was busy half of it.
    let u = out.summary.links[0].utilization;
    assert!((u - 0.5).abs() < 1e-9, "utilization {u}");
}

#[test]
fn the_shortest_round_trip_is_the_flows_or_the_hosts() {
    // No flows: a and b, through r, 5 ms each way on each link.
    assert_eq!(
        net(json!({ "kind": "fifo" }), 100).min_round_trip(),
        Some(20 * MS)
    );
    let fifo = json!({ "kind": "fifo" });
    let slow = json!({ "rate_bps": 10_000_000u64, "delay_ns": 40 * MS,
                       "queue": { "qdisc": fifo.clone(), "limit_pkts": 100 } });
    // Hosts a, b, c; a flow a -> c over the 40 ms links alone: its round trip, not a <-> b's.
    let sc: Scenario = serde_json::from_value(json!({
        "run": { "duration_ns": 1_000 * MS },
        "nodes": ["a", "r", "b", "c"],
        "links": [
            { "a": "a", "b": "r", "forward": dir(fifo.clone(), 100), "reverse": dir(fifo.clone(), 100) },
            { "a": "r", "b": "b", "forward": dir(fifo.clone(), 100), "reverse": dir(fifo, 100) },
            { "a": "r", "b": "c", "forward": slow.clone(), "reverse": slow },
        ],
        "traffic": [{ "kind": "ping", "pairs": [["a", "c"]], "interval_ns": 100 * MS }],
    }))
    .unwrap();
    let n = RealtimeNet::build(&sc, &[0, 2, 3]).unwrap();
    assert_eq!(n.min_round_trip(), Some(90 * MS));
}

#[test]
fn ttl_expiry_is_reported_and_a_router_can_answer() {
    let mut n = net(json!({ "kind": "fifo" }), 100);
    let mut p = pkt(7);
    p.ttl = 1;
    let id = n.inject(T0, 0, p).unwrap();
    let got = drain(&mut n, Instant::NEVER);
    assert!(got.is_empty(), "a TTL of 1 dies at the router");
    let mut exp = Vec::new();
    n.take_ttl_expired(&mut exp);
    assert_eq!(exp.len(), 1);
    let e = exp[0];
    assert_eq!((e.router, e.src, e.seq as PktId, e.ttl), (1, 0, id, 1));
    assert_eq!(
        e.at,
        Instant::from_ns(6_200 * NS_PER_US),
        "1.2 ms serialization + 5 ms on the wire"
    );
    // The router's answer goes back to a over r->a: 56 B at 10 Mb/s plus 5 ms.
    let answer = Outbound {
        dst: 0,
        size: 56,
        flow: 99,
        ttl: 64,
        proto: Proto::Udp,
        ecn: Ecn::NotEct,
    };
    let back = n.inject_from_router(e.at, 1, answer).unwrap();
    let got = drain(&mut n, Instant::NEVER);
    assert_eq!(got.len(), 1);
    let (t, node, d) = got[0];
    assert_eq!((node, d.handle, d.ttl), (0, back, 64));
    assert_eq!(t, e.at + 5 * MS + Duration::from_ns(56 * 8 * 100));
    n.take_ttl_expired(&mut exp);
    assert_eq!(exp.len(), 1, "nothing new");
    let out = n.finish(T0 + 1_000 * MS).unwrap();
    assert_eq!(out.summary.conservation.created, 2);
    assert_eq!(out.summary.conservation.delivered, 1);
}
