//! A sender behind its host's `fq` is paced by it: every packet leaves the host at the
//! departure time it carries, and those times are spaced at the pacing rate.

use std::collections::BTreeMap;

use serde_json::json;

use crate::packet::Proto;
use crate::scenario::Scenario;
use crate::time::{tx_time, Duration, Instant, NS_PER_MS, NS_PER_SEC};

/// `client` -(1 Gb/s, 1 ms, `host_qdisc`)-> `router` -(10 Mb/s, 10 ms, FIFO)-> `server`; one
/// upload with `cc`, one segment per packet (GSO off: the spacing checked below is a segment's).
/// The server's own egress (its ACKs) has `server_qdisc`.
fn upload(
    cc: &str,
    host_qdisc: serde_json::Value,
    server_qdisc: serde_json::Value,
    secs: u64,
) -> Scenario {
    upload_gso(cc, host_qdisc, server_qdisc, secs, false)
}

fn upload_gso(
    cc: &str,
    host_qdisc: serde_json::Value,
    server_qdisc: serde_json::Value,
    secs: u64,
    gso: bool,
) -> Scenario {
    let fifo = json!({ "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 });
    let dir = |rate: u64, delay: u64, q: &serde_json::Value| json!({ "rate_bps": rate, "delay_ns": delay, "queue": q });
    let host = json!({ "qdisc": host_qdisc, "limit_pkts": 10000 });
    let server = json!({ "qdisc": server_qdisc, "limit_pkts": 10000 });
    serde_json::from_value(json!({
        "run": { "duration_ns": secs * NS_PER_SEC, "seed": 1 },
        "nodes": ["client", "router", "server"],
        "links": [
            { "a": "client", "b": "router", "forward": dir(1_000_000_000, NS_PER_MS, &host),
              "reverse": dir(1_000_000_000, NS_PER_MS, &fifo) },
            { "a": "router", "b": "server", "forward": dir(10_000_000, 10 * NS_PER_MS, &fifo),
              "reverse": dir(10_000_000, 10 * NS_PER_MS, &server) },
        ],
        "traffic": [{ "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "cc": cc, "gso": gso } }],
    }))
    .unwrap()
}

fn paced_upload(host_qdisc: serde_json::Value, secs: u64) -> Scenario {
    upload("cubic", host_qdisc, json!({ "kind": "fifo" }), secs)
}

/// Every data packet that left the client, by the time its transmission started: (departure
/// time it carried, when it was sent by TCP).
fn departures(sc: &Scenario) -> BTreeMap<Instant, (Instant, Instant)> {
    let mut e = crate::build::build(sc).unwrap();
    let mut out = BTreeMap::new();
    let end = Instant::ZERO + sc.run.duration_ns;
    let mut t = Instant::ZERO;
    // The host link's propagation (1 ms) is longer than a step: every packet is seen in the
    // pipe at least once.
    while t < end {
        t += Duration::from_us(200);
        e.run_until(t, |_| true);
        let port = &e.ports()[0];
        for (arrive, id) in port.in_pipe() {
            let p = e.arena().get(id);
            if p.proto == Proto::Tcp && p.tcp.len > 0 {
                let start = arrive - port.params.delay_ns - tx_time(p.size as u64, 1_000_000_000);
                out.insert(start, (p.tstamp, p.created));
            }
        }
    }
    out
}

#[test]
fn fq_holds_each_packet_to_its_departure_time() {
    let paced = departures(&paced_upload(json!({ "kind": "fq" }), 3));
    assert!(paced.len() > 2000, "{} packets", paced.len());
    let wire = tx_time(1500, 1_000_000_000);
    let mut delayed = 0;
    for (&start, &(tstamp, created)) in &paced {
        // Never before its time; on an idle 1 Gb/s wire, at it (or one packet later).
        assert!(start >= tstamp, "left at {start:?}, due {tstamp:?}");
        assert!(start <= tstamp + wire, "left at {start:?}, due {tstamp:?}");
        if tstamp > created {
            delayed += 1;
        }
    }
    // Most were held back: pacing spaced them, TCP did not.
    assert!(
        delayed * 2 > paced.len(),
        "{delayed} of {} held back",
        paced.len()
    );
    // Spaced by the pacing rate (which follows the window: from 2.5 packets a millisecond at the
    // bottleneck's rate to several times that while slow start grows the window): once the
    // first ten segments are out, no two data packets leave back to back (12 µs apart on the
    // 1 Gb/s wire); with `nopacing`, as the ACKs release them two at a time, half of them do.
    let back_to_back = |d: &BTreeMap<Instant, (Instant, Instant)>| {
        let t: Vec<Instant> = d.keys().copied().collect();
        t.windows(2)
            .skip(20)
            .filter(|w| w[1] - w[0] < Duration::from_us(50))
            .count()
    };
    let unpaced = departures(&paced_upload(json!({ "kind": "fq", "pacing": false }), 3));
    assert_eq!(back_to_back(&paced), 0);
    let b = back_to_back(&unpaced);
    assert!(
        b * 3 > unpaced.len(),
        "{b} of {} back to back unpaced",
        unpaced.len()
    );
    for (&start, &(tstamp, created)) in &unpaced {
        assert_eq!(tstamp, created, "unpaced: stamped now");
        assert!(start >= tstamp);
    }
}

/// `fq` on the receiver's host paces the receiver's socket, not the sender's: the sender behind a
/// FIFO stamps every packet "now".
#[test]
fn only_the_senders_own_fq_paces_it() {
    let d = departures(&upload(
        "cubic",
        json!({ "kind": "fifo" }),
        json!({ "kind": "fq" }),
        1,
    ));
    assert!(d.len() > 500);
    assert!(d.values().all(|&(tstamp, created)| tstamp == created));
}

/// BBR, which paces itself by TCP's timer without `fq`, is paced by its host's `fq` instead
/// (Linux's `fq` turns `SK_PACING_NEEDED` into `SK_PACING_FQ`): every packet leaves at its stamp.
#[test]
fn bbr_behind_fq_is_paced_by_it() {
    let fifo = json!({ "kind": "fifo" });
    let d = departures(&upload("bbr", json!({ "kind": "fq" }), fifo, 2));
    assert!(d.len() > 1000, "{} packets", d.len());
    let wire = tx_time(1500, 1_000_000_000);
    let held = d
        .values()
        .filter(|&&(tstamp, created)| tstamp > created)
        .count();
    for (&start, &(tstamp, _)) in &d {
        assert!(
            start >= tstamp && start <= tstamp + wire,
            "left at {start:?}, due {tstamp:?}"
        );
    }
    assert!(held * 2 > d.len(), "{held} of {} held back", d.len());
}

/// With GSO (the default), a buffer of segments carries one departure time: `fq` releases it whole
/// at that time, and its segments follow one another on the wire. BBR at 10 Mb/s asks for pairs
/// (`bbr_min_tso_segs`).
#[test]
fn a_gso_buffer_leaves_whole_at_its_stamp() {
    let fifo = json!({ "kind": "fifo" });
    let d = departures(&upload_gso("bbr", json!({ "kind": "fq" }), fifo, 2, true));
    let wire = tx_time(1500, 1_000_000_000);
    let mut by_stamp: BTreeMap<Instant, Vec<Instant>> = BTreeMap::new();
    for (&start, &(tstamp, _)) in &d {
        by_stamp.entry(tstamp).or_default().push(start);
    }
    let pairs = by_stamp.values().filter(|v| v.len() >= 2).count();
    assert!(
        pairs * 2 > by_stamp.len(),
        "{pairs} of {} buffers hold two or more",
        by_stamp.len()
    );
    for (&tstamp, starts) in &by_stamp {
        assert!(
            starts[0] >= tstamp,
            "left at {:?}, due {tstamp:?}",
            starts[0]
        );
        for w in starts.windows(2) {
            assert_eq!(w[1] - w[0], wire, "a buffer's segments follow one another");
        }
    }
}
