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
        "fq_pie",
        "splitbuff",
        "blind_splitbuff",
        "prio_small",
        "dualpi2",
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

/// Every problem of a plan whose bottleneck runs `qdisc`: from parsing, from the bounds, from
/// the discipline's own rules.
fn problems(qdisc: serde_json::Value) -> Vec<String> {
    let dir = |q: &serde_json::Value| json!({"rate_bps": 10_000_000u64, "delay_ns": 1_000_000u64, "queue": {"qdisc": q}});
    let plan = json!({
        "run": {"duration_ns": 1_000_000_000u64},
        "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b", "forward": dir(&qdisc), "reverse": dir(&json!({"kind": "fifo"}))}],
    });
    match crate::scenario::Scenario::from_json(&plan.to_string()) {
        Err(p) => vec![p.to_string()],
        Ok(sc) => crate::simulate::check(&sc)
            .iter()
            .map(|p| p.to_string())
            .collect(),
    }
}

#[test]
fn errors_name_the_key() {
    let cases = [
        (
            json!({ "kind": "codel", "target_ns": "5ms" }),
            "invalid type: string \"5ms\", expected u64",
        ),
        (
            json!({ "kind": "codel", "target_ns": 0 }),
            "target_ns: must be at least 1 ns",
        ),
        (
            json!({ "kind": "codel", "target_ns": 200_000_000u64 }),
            "target_ns: 200 ms must be below interval (100 ms)",
        ),
        (
            json!({ "kind": "codel", "target": 5 }),
            "unknown field `target`",
        ),
        (
            json!({ "kind": "fq_codel", "flows": 0 }),
            "flows: must be at least 1",
        ),
        (
            json!({ "kind": "fq_codel", "quantum_bytes": -1 }),
            "invalid value: integer `-1`",
        ),
        (
            json!({ "kind": "pie", "alpha": -0.5 }),
            "alpha: must be at least 0",
        ),
        (
            json!({ "kind": "pie", "tupdate_ns": 0 }),
            "tupdate_ns: must be at least 1 ns",
        ),
        (
            json!({ "kind": "red", "max_th": 2 }),
            "max_th: must exceed min_th (5), got 2",
        ),
        (
            json!({ "kind": "red", "min_th_bytes": 3000, "max_th": 9 }),
            "max_th: give min_th and max_th in the same unit",
        ),
        (
            json!({ "kind": "splitbuff", "buffers": 4 }),
            "buffers: must be at least 2 and at most 3, got 4",
        ),
        (
            json!({ "kind": "splitbuff", "smoothing": 1.5 }),
            "smoothing: must be above 0 and at most 1, got 1.5",
        ),
        (
            json!({ "kind": "blind_splitbuff", "update_ns": 5 }),
            "unknown field `update_ns`",
        ),
        (
            json!({ "kind": "dualpi2", "step_thresh_ns": 20_000_000 }),
            "step_thresh_ns: 20 ms must be below target",
        ),
        (
            json!({ "kind": "prio_small", "threshold_bytes": true }),
            "invalid type: boolean `true`",
        ),
    ];
    for (v, want) in cases {
        let got = problems(v.clone());
        assert_eq!(got.len(), 1, "{v}: {got:?}");
        let want_full = format!("links[0].forward.queue.qdisc.{want}");
        assert!(
            got[0].starts_with(&want_full) || got[0].contains(want),
            "{v}: {got:?}, want {want_full}"
        );
        assert!(
            got[0].starts_with("links[0].forward.queue.qdisc"),
            "{v}: {got:?}"
        );
    }
}
