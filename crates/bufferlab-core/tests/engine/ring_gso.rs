//! GSO descriptors end to end (docs/bql.md, GSO descriptors): a NIC ring whose descriptors hold
//! a sender's GSO buffers holds more bytes than its size in packets, so a 1 MB BQL limit binds
//! where, one packet per descriptor, 512 × 1500 B (768 kB) never reach it (Cardozo et al.'s
//! "mis-set" BQL, §V-C).

use crate::common;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, RunOutput};
use common::*;
use serde_json::{json, Value};

/// One bulk NewReno upload (GSO buffers, TCP small queues off: the ring fills) over 10 Mb/s, 20 ms,
/// through a 1000-packet FIFO above a 512-descriptor ring.
fn upload(bql: Value, gso: bool) -> RunOutput {
    let mut up = dir(10_000_000, 10 * NS_PER_MS, 1000);
    up["ring"] = json!({ "size": 512, "bql": bql, "gso": gso });
    let mut v = access(
        up,
        dir(10_000_000, 10 * NS_PER_MS, 1000),
        json!([{ "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "tsq": false } }]),
        20 * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, 20 * NS_PER_SEC]);
    run(&scenario(v)).unwrap()
}

/// The longest time a packet spent on the ring (its p99): the ring's bytes ahead of it at
/// 10 Mb/s, so 768 kB is 614 ms and 1 MB 800 ms.
fn ring_p99_ms(out: &RunOutput) -> f64 {
    out.queue("client->server")
        .unwrap()
        .ring_sojourn_p99_s
        .unwrap()
        * 1e3
}

#[test]
fn a_1mb_bql_binds_on_a_gso_ring_only() {
    let (gso_off, gso_1mb) = (
        upload(json!("off"), true),
        upload(json!({ "fixed": 1_000_000 }), true),
    );
    let (off, one_mb) = (
        upload(json!("off"), false),
        upload(json!({ "fixed": 1_000_000 }), false),
    );
    let ms = [&gso_off, &gso_1mb, &off, &one_mb].map(ring_p99_ms);
    eprintln!(
        "ring p99: gso off {:.0} ms, gso 1MB {:.0} ms; off {:.0} ms, 1MB {:.0} ms",
        ms[0], ms[1], ms[2], ms[3]
    );
    // One packet per descriptor: at most 768 kB, under the limit; 1 MB is off, run for run.
    assert!(ms[2] < 620.0, "{ms:?}");
    // (What differs is the report of the limit itself.)
    let without_limit = |o: &RunOutput| {
        let mut v = serde_json::to_value(&o.summary).unwrap();
        v["queues"][0]["bql_limit_bytes"] = Value::Null;
        v
    };
    assert_eq!(without_limit(&off), without_limit(&one_mb));
    // GSO buffers: the ring holds more than 768 kB without BQL, and BQL stops it at ~1 MB.
    assert!(ms[0] > 900.0, "{ms:?}");
    assert!(ms[1] > 650.0 && ms[1] < 850.0, "{ms:?}");
}
