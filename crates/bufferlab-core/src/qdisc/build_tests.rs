//! `Qdisc::build` from plan specs: every discipline builds with its defaults, and bad keys or
//! values are refused with the key named.

use super::*;
use serde_json::json;

fn spec(v: serde_json::Value) -> QdiscSpec {
    serde_json::from_value(v).unwrap()
}

#[test]
fn every_discipline_builds_with_defaults() {
    for kind in [
        "fifo",
        "red",
        "codel",
        "fq_codel",
        "pie",
        "splitbuff",
        "blind_splitbuff",
        "prio_small",
    ] {
        let q = Qdisc::build(&spec(json!({ "kind": kind })), Limit::default(), 1).unwrap();
        assert_eq!(q.name(), kind);
    }
    let q = Qdisc::build(&spec(json!({ "kind": "fq_codel" })), Limit::default(), 1).unwrap();
    assert_eq!(q.limit().pkts, Some(10240));
    let q = Qdisc::build(&spec(json!({ "kind": "codel" })), Limit::default(), 1).unwrap();
    assert_eq!(q.limit().pkts, Some(1000));
    let given = Limit {
        pkts: Some(50),
        bytes: None,
    };
    let q = Qdisc::build(&spec(json!({ "kind": "pie" })), given, 1).unwrap();
    assert_eq!(q.limit(), given);
}

#[test]
fn errors_name_the_key() {
    let cases = [
        (
            json!({ "kind": "codel", "target_ns": "5ms" }),
            "codel.target_ns: ",
        ),
        (
            json!({ "kind": "codel", "target_ns": 0 }),
            "codel.target_ns: ",
        ),
        (
            json!({ "kind": "codel", "target": 5 }),
            "codel.target: unknown field",
        ),
        (
            json!({ "kind": "fq_codel", "flows": 0 }),
            "fq_codel.flows: ",
        ),
        (
            json!({ "kind": "fq_codel", "quantum_bytes": -1 }),
            "fq_codel.quantum_bytes: ",
        ),
        (json!({ "kind": "pie", "alpha": -0.5 }), "pie.alpha: "),
        (
            json!({ "kind": "pie", "tupdate_ns": 0 }),
            "pie.tupdate_ns: ",
        ),
        (json!({ "kind": "red", "max_th": 2 }), "red.max_th: "),
        (
            json!({ "kind": "splitbuff", "buffers": 4 }),
            "splitbuff.buffers: ",
        ),
        (
            json!({ "kind": "splitbuff", "smoothing": 1.5 }),
            "splitbuff.smoothing: ",
        ),
        (
            json!({ "kind": "blind_splitbuff", "update_ns": 5 }),
            "blind_splitbuff.update_ns: unknown field",
        ),
        (
            json!({ "kind": "prio_small", "threshold_bytes": true }),
            "prio_small.threshold_bytes: ",
        ),
    ];
    for (v, want) in cases {
        let e = Qdisc::build(&spec(v.clone()), Limit::default(), 1)
            .err()
            .unwrap();
        assert!(e.starts_with(want), "{v}: {e}");
    }
}
