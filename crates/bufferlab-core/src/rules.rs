//! What the bounds of each key cannot say, checked before anything is built: rules across keys
//! of one part of the plan (CoDel's target below its interval, RED's thresholds in order, a TCP
//! block's RTO bounds in order and windows of a segment, Vegas' α ≤ β) and the samples a run
//! would record. Each part's own `check` states its rule; this walks the plan and places them.
//!
//! Run beside [`crate::bounds`] on a whole plan, and by the scenario reader on a partial one
//! (each part that can be read is checked), so that a file's problems come out in one pass
//! instead of one build stage at a time.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::net::trace::TraceSpec;
use crate::problem::{Loc, Problem};
use crate::scenario::{QueueSpec, RunSpec, Scenario, TrafficSpec};
use crate::time::Duration;

/// Most samples one time series may hold (`run.sample_ns`).
pub const MAX_SAMPLES: u64 = 10_000_000;

/// Every rule a whole plan breaks.
pub fn check(sc: &Scenario) -> Vec<Problem> {
    let mut out = Vec::new();
    run_rules(&sc.run, &mut out);
    for (i, l) in sc.links.iter().enumerate() {
        let here = Loc::root().key("links").at(i);
        queue_rules(&here.key("forward"), &l.forward.queue, &mut out);
        queue_rules(&here.key("reverse"), &l.reverse.queue, &mut out);
        for (dir, d) in [("forward", &l.forward), ("reverse", &l.reverse)] {
            if let Some(t) = &d.trace {
                trace_rules(&here.key(dir), t, &mut out);
            }
        }
    }
    for (i, t) in sc.traffic.iter().enumerate() {
        traffic_rules(&Loc::root().key("traffic").at(i), t, &mut out);
    }
    out
}

/// The same rules over a plan as JSON, which may be partial: a part that cannot be read as its
/// type (a value missing or of another shape) is left to the problems that say so.
pub fn check_value(plan: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    if let Some(run) = plan.get("run").and_then(read::<RunSpec>) {
        run_rules(&run, &mut out);
    }
    let list = |key: &str| plan.get(key).and_then(Value::as_array).cloned();
    for (i, l) in list("links").unwrap_or_default().iter().enumerate() {
        let here = Loc::root().key("links").at(i);
        for dir in ["forward", "reverse"] {
            // The queue alone: a bad rate or delay beside it does not hide its rules.
            if let Some(q) = l
                .get(dir)
                .and_then(|d| d.get("queue"))
                .and_then(read::<QueueSpec>)
            {
                queue_rules(&here.key(dir), &q, &mut out);
            }
            if let Some(t) = l
                .get(dir)
                .and_then(|d| d.get("trace"))
                .and_then(read::<TraceSpec>)
            {
                trace_rules(&here.key(dir), &t, &mut out);
            }
        }
    }
    for (i, t) in list("traffic").unwrap_or_default().iter().enumerate() {
        if let Some(t) = read::<TrafficSpec>(t) {
            traffic_rules(&Loc::root().key("traffic").at(i), &t, &mut out);
        }
    }
    out
}

fn read<T: DeserializeOwned>(v: &Value) -> Option<T> {
    serde_json::from_value(v.clone()).ok()
}

fn run_rules(run: &RunSpec, out: &mut Vec<Problem>) {
    // Each time series keeps one sample per step: bound the count, or a tiny step over a long
    // run would take the machine's memory (and its time: a sample is an event).
    if let Some(step) = run.sample_ns.filter(|&s| s > Duration::ZERO) {
        let n = run.duration_ns / step;
        if n > MAX_SAMPLES {
            out.push(Loc::root().key("run").key("sample_ns").problem(format!(
                "would record {n} samples per series (at most {MAX_SAMPLES}); use a longer step"
            )));
        }
    }
}

fn queue_rules(loc: &Loc, q: &QueueSpec, out: &mut Vec<Problem>) {
    if q.sizing.is_some() && (q.limit_pkts.is_some() || q.limit_bytes.is_some()) {
        out.push(
            loc.key("queue")
                .problem("give either a limit or a sizing rule, not both"),
        );
    }
    if let Err(e) = q.qdisc.check() {
        out.push(e.under(&loc.key("queue").key("qdisc")));
    }
}

/// A trace Mahimahi would run (`rate = "trace(FILE)"`).
fn trace_rules(loc: &Loc, t: &TraceSpec, out: &mut Vec<Problem>) {
    out.extend(t.check(&loc.key("trace")));
}

fn traffic_rules(loc: &Loc, t: &TrafficSpec, out: &mut Vec<Problem>) {
    let tcp = match t {
        TrafficSpec::Tcp(s) => &s.tcp,
        TrafficSpec::Web(s) => &s.tcp,
        TrafficSpec::TcpOnoff(s) => &s.tcp,
        TrafficSpec::Rrul(s) => &s.tcp,
        TrafficSpec::Udp(_) | TrafficSpec::Ping(_) | TrafficSpec::Ballast(_) => return,
    };
    if let Err(e) = tcp.check() {
        out.push(e.under(&loc.key("tcp")));
    }
}

/// `extra` less the problems at a path `found` already names, or under or above one: one
/// mistake, one message (a limit out of bounds is not also a limit beside a sizing rule).
pub fn new_places(found: &[Problem], extra: Vec<Problem>) -> Vec<Problem> {
    let related = |a: &Loc, b: &Loc| {
        let (a, b) = (a.segs(), b.segs());
        let n = a.len().min(b.len());
        a[..n] == b[..n]
    };
    extra
        .into_iter()
        .filter(|e| !found.iter().any(|f| related(&f.loc, &e.loc)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan() -> Value {
        json!({
            "run": {"duration_ns": 1_000_000_000_000u64, "seed": 1, "sample_ns": 1000},
            "nodes": ["a", "b"],
            "links": [{"a": "a", "b": "b",
                "forward": {"rate_bps": 1_000_000, "delay_ns": 1_000_000,
                    "queue": {"qdisc": {"kind": "codel", "target_ns": 200_000_000, "interval_ns": 100_000_000}, "limit_pkts": 100}},
                "reverse": {"rate_bps": 1_000_000, "delay_ns": 1_000_000,
                    "queue": {"qdisc": {"kind": "fifo"}, "limit_pkts": 100, "sizing": {"rule": "bdp"}}}}],
            "traffic": [
                {"kind": "tcp", "pairs": [["a", "b"]], "tcp": {"min_rto_ns": 10_000_000_000u64, "max_rto_ns": 1_000_000_000}},
                {"kind": "web", "pairs": [["b", "a"]], "arrival_rate": 1.0, "size_bytes": {"dist": "const", "value": 1000.0},
                    "tcp": {"rwnd_bytes": 100}},
            ],
        })
    }

    fn paths(ps: &[Problem]) -> Vec<String> {
        ps.iter().map(|p| p.loc.to_string()).collect()
    }

    #[test]
    fn every_rule_of_every_part_at_once() {
        let got = paths(&check_value(&plan()));
        assert_eq!(
            got,
            [
                "run.sample_ns",
                "links[0].forward.queue.qdisc.target_ns",
                "links[0].reverse.queue",
                "traffic[0].tcp.min_rto_ns",
                "traffic[1].tcp.rwnd_bytes",
            ]
        );
        let sc: Scenario = serde_json::from_value(plan()).unwrap();
        assert_eq!(paths(&check(&sc)), got, "the typed walk finds the same");
    }

    #[test]
    fn a_part_that_cannot_be_read_is_left_out() {
        let mut p = plan();
        p["links"][0]["forward"]["queue"]["qdisc"]["target_ns"] = Value::Null;
        p["links"][0]["reverse"]["rate_bps"] = Value::Null; // the queue is still read
        p["traffic"][0]["kind"] = json!("tpc");
        assert_eq!(
            paths(&check_value(&p)),
            [
                "run.sample_ns",
                "links[0].reverse.queue",
                "traffic[1].tcp.rwnd_bytes"
            ]
        );
    }

    #[test]
    fn one_mistake_one_message() {
        let found = vec![Loc::root()
            .key("links")
            .at(0)
            .key("reverse")
            .key("queue")
            .key("limit_pkts")
            .problem("out of bounds")];
        let extra = check_value(&plan());
        let kept = paths(&new_places(&found, extra));
        assert!(!kept.contains(&"links[0].reverse.queue".to_string()));
        assert_eq!(kept.len(), 4);
    }
}
