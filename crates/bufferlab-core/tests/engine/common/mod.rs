//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use bufferlab_core::Scenario;
use serde_json::{json, Value};

/// One direction of a link with a FIFO of `limit_pkts` packets.
pub fn dir(rate_bps: u64, delay_ns: u64, limit_pkts: u64) -> Value {
    json!({ "rate_bps": rate_bps, "delay_ns": delay_ns,
            "queue": { "qdisc": { "kind": "fifo" }, "limit_pkts": limit_pkts } })
}

/// `client` <-> `server` over one link (the `access` template).
pub fn access(up: Value, down: Value, traffic: Value, duration_ns: u64, seed: u64) -> Value {
    json!({
        "run": { "duration_ns": duration_ns, "seed": seed },
        "nodes": ["client", "server"],
        "links": [ { "a": "client", "b": "server", "forward": up, "reverse": down } ],
        "traffic": traffic,
    })
}

pub fn scenario(v: Value) -> Scenario {
    serde_json::from_value(v).expect("valid plan")
}
