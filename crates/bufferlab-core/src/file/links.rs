//! One direction of a link and the port at its head: `rate`, `delay`, `jitter`, `framing`,
//! `queue`, `ring`, `loss` -> the plan's `DirSpec` (a `rate` of `"trace(FILE)"` gives its `trace` too).
//!
//! A direction is read in layers (a link's common keys, then `[link.forward]`; a dumbbell's
//! bottleneck, then `bottleneck_reverse`): each layer gives some keys, later layers win, and only
//! then are missing keys reported or defaulted.

use std::path::Path;

use serde_json::{Map, Value};

use super::doc::Doc;
use super::queue::{default_queue, read_queue, read_ring};
use super::table::{choice, join, number, or_null, Problems, Range, Table};
use super::trace;
use super::units::{self, Rate};

pub const DIR_KEYS: [&str; 7] = [
    "rate", "delay", "jitter", "framing", "queue", "ring", "loss",
];
const FRAMINGS: [&str; 3] = ["none", "ethernet", "atm"];

/// The keys one layer gives, as plan keys; a bad value is kept as `null` (given, unreadable).
pub type Layer = Map<String, Value>;

pub fn link_rate_bps(v: &Doc) -> Result<u64, String> {
    match units::rate(v, false)? {
        Rate::Bps(b) => Ok(b),
        Rate::Pps(_) => Err("a rate in bits per second".into()),
    }
}

/// A propagation delay (its bounds are the engine's: `DirSpec.delay_ns`).
pub fn link_delay_ns(v: &Doc) -> Result<u64, String> {
    units::time_ns(v)
}

/// The direction keys `t` gives; a trace file's name is relative to `dir` (the scenario
/// file's folder).
pub fn read_layer(t: &Table, p: &mut Problems, dir: &Path) -> Layer {
    let mut out = Layer::new();
    if let Some(name) = t.raw("rate").and_then(trace::trace_name) {
        let (rate, spec) = match trace::read(name, dir) {
            Ok((r, spec)) => (Value::from(r), spec),
            Err(e) => {
                p.add(&t.at("rate"), e);
                (Value::Null, Value::Null)
            }
        };
        out.insert("rate_bps".into(), rate);
        out.insert("trace".into(), spec);
    } else if t.has("rate") {
        out.insert("rate_bps".into(), or_null(t.get(p, "rate", &link_rate_bps)));
        // A rate given in a later layer replaces an earlier layer's trace.
        out.insert("trace".into(), Value::Null);
    }
    if t.has("delay") {
        out.insert(
            "delay_ns".into(),
            or_null(t.get(p, "delay", &link_delay_ns)),
        );
    }
    if t.has("jitter") {
        out.insert(
            "jitter_ns".into(),
            or_null(t.get(p, "jitter", &link_delay_ns)),
        );
    }
    if t.has("framing") {
        out.insert(
            "framing".into(),
            or_null(t.get(p, "framing", &choice(&FRAMINGS))),
        );
    }
    if let Some(q) = t.raw("queue") {
        out.insert("queue".into(), or_null(read_queue(q, &t.at("queue"), p)));
    }
    if let Some(r) = t.raw("ring") {
        out.insert("ring".into(), or_null(read_ring(r, &t.at("ring"), p)));
    }
    if t.has("loss") {
        let loss = number(Range::default(), "a loss probability (0 to 1)");
        out.insert("loss".into(), or_null(t.get(p, "loss", &loss)));
    }
    out
}

/// Layers merged, later ones winning.
pub fn merge(layers: &[&Layer]) -> Layer {
    let mut out = Layer::new();
    for l in layers {
        for (k, v) in l.iter() {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}

/// The plan's DirSpec from merged layers; reports a missing rate or delay at `path`.
pub fn complete(d: &Layer, path: &str, p: &mut Problems) -> Value {
    for (key, plan_key, example) in [
        ("rate", "rate_bps", "\"10Mbps\""),
        ("delay", "delay_ns", "\"10ms\""),
    ] {
        if !d.contains_key(plan_key) {
            p.add(
                &join(path, key),
                format!("missing (e.g. {key} = {example})"),
            );
        }
    }
    let get = |k: &str| d.get(k).cloned().unwrap_or(Value::Null);
    let mut spec = Map::new();
    spec.insert("rate_bps".into(), get("rate_bps"));
    spec.insert("delay_ns".into(), get("delay_ns"));
    let framing = get("framing");
    spec.insert(
        "framing".into(),
        if framing.is_null() {
            Value::from("none")
        } else {
            framing
        },
    );
    let queue = get("queue");
    spec.insert(
        "queue".into(),
        if queue.is_null() {
            default_queue()
        } else {
            queue
        },
    );
    let ring = get("ring");
    if !ring.is_null() {
        spec.insert("ring".into(), ring);
    }
    let trace = get("trace");
    if trace.is_object() {
        spec.insert("trace".into(), trace);
    }
    if get("jitter_ns").as_u64().is_some_and(|j| j != 0) {
        spec.insert("jitter_ns".into(), get("jitter_ns"));
    }
    if get("loss").as_f64().is_some_and(|l| l != 0.0) {
        spec.insert("loss".into(), get("loss"));
    }
    Value::Object(spec)
}
