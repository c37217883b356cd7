//! The `queue` and `ring` tables of a port, into the plan's `QueueSpec` and `RingSpec`.
//!
//! Defaults: no `queue` is Linux's `pfifo` at `txqueuelen` (1000 packets); a queue with neither
//! `limit` nor `sizing` takes its discipline's Linux default ([`QdiscSpec::default_limit_pkts`]);
//! a `ring` without `bql` is `"auto"`, as with any Linux driver that supports BQL. Discipline
//! parameters the file leaves out stay out of the plan: the engine's parameter structs hold those
//! defaults, each with its source. The keys each discipline takes come from its parameter struct
//! ([`super::schema`]); their bounds are the engine's.

use serde_json::{json, Map, Value};

use super::close::did_you_mean;
use super::doc::Doc;
use super::schema::{discipline_names, qdisc_keys};
use super::table::{boolean, choice, integer, number, Problems, Range, Table};
use super::units::{self, Size};
use crate::qdisc::QdiscSpec;
use crate::sizing;

const QUEUE_KEYS: [&str; 4] = ["discipline", "limit", "sizing", "scale"];
/// RED's thresholds have three plan spellings (plain, `_pkts`, `_bytes`) and one file key each.
const RED_SPELLINGS: [&str; 4] = ["min_th_pkts", "min_th_bytes", "max_th_pkts", "max_th_bytes"];
const RED_THRESHOLDS: [&str; 2] = ["min_th", "max_th"];

/// The file keys of discipline `disc` (RED's thresholds once each).
fn param_keys(disc: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in qdisc_keys(disc) {
        if disc == "red" && RED_SPELLINGS.contains(&k.plan) {
            continue;
        }
        if !out.contains(&k.user) {
            out.push(k.user);
        }
    }
    out
}

fn all_param_keys() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = discipline_names()
        .iter()
        .flat_map(|d| param_keys(d))
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The queue of a port the file gives none for: Linux's pfifo at txqueuelen.
pub fn default_queue() -> Value {
    json!({"qdisc": {"kind": "fifo"}, "limit_pkts": QdiscSpec::default_limit_pkts("fifo")})
}

fn sizing_rule(v: &Doc) -> Result<String, String> {
    let Doc::Str(s) = v else {
        return Err(format!(
            "expected a sizing rule such as \"bdp\", got {}",
            v.describe()
        ));
    };
    if let Some(r) = sizing::canonical(s) {
        return Ok(r.to_string());
    }
    let rules = sizing::RULES.map(|r| format!("\"{r}\"")).join(", ");
    Err(format!(
        "\"{s}\" is not a sizing rule{}; known: {rules}",
        did_you_mean(s, &sizing::RULES)
    ))
}

/// A RED threshold: `"5pkt"` or a plain number (packets, as in ns-2), or `"30KB"` (byte mode):
/// (plan key suffix, value).
fn red_threshold(v: &Doc) -> Result<(&'static str, f64), String> {
    if v.is_number() {
        return Ok(("", number(Range::default(), "a number")(v)?));
    }
    Ok(match units::size(v, true)? {
        Size::Pkts(n) => ("_pkts", n as f64),
        Size::Bytes(b) => ("_bytes", b as f64),
    })
}

/// The plan's QueueSpec from a `queue` table.
pub fn read_queue(value: &Doc, path: &str, p: &mut Problems) -> Option<Value> {
    if value.as_table().is_none() {
        Table::open(
            value,
            path,
            p,
            &[],
            &[],
            Some("{ discipline = \"fifo\", limit = \"100pkt\" }"),
        );
        return None;
    }
    let names = discipline_names();
    let disc = match value.get("discipline") {
        None => Some("fifo".to_string()),
        Some(d) => match choice(&names)(d) {
            Ok(d) => Some(d),
            Err(e) => {
                p.add(&format!("{path}.discipline"), e);
                None
            }
        },
    };
    let all = all_param_keys();
    let own = disc.as_deref().map(param_keys);
    let mut keys: Vec<&str> = QUEUE_KEYS.to_vec();
    keys.extend(own.clone().unwrap_or_else(|| all.clone()));
    // A key that belongs to another discipline: say so rather than only "unknown key".
    let misplaced: Vec<&str> = value
        .as_table()
        .unwrap_or_default()
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !keys.contains(k) && all.contains(k))
        .collect();
    let dname = disc.as_deref().unwrap_or("None");
    for key in &misplaced {
        let owners: Vec<&str> = names
            .iter()
            .copied()
            .filter(|d| param_keys(d).contains(key))
            .collect();
        let own_list = own.as_ref().map(|o| o.join(", ")).unwrap_or_default();
        p.add(
            &format!("{path}.{key}"),
            format!(
                "{dname} has no parameter '{key}' ({} {}); {dname}'s parameters: {}",
                owners.join(", "),
                if owners.len() == 1 { "has" } else { "have" },
                if own_list.is_empty() {
                    "none besides limit and sizing".to_string()
                } else {
                    own_list
                }
            ),
        );
    }
    keys.extend(misplaced.iter().copied());
    let t = Table::open(value, path, p, &keys, &[], None);

    let mut qdisc = Map::new();
    qdisc.insert(
        "kind".into(),
        Value::from(disc.clone().unwrap_or_else(|| "fifo".into())),
    );
    if let Some(d) = disc.as_deref() {
        for k in qdisc_keys(d) {
            if d == "red" && RED_SPELLINGS.contains(&k.plan) {
                continue;
            }
            if d == "red" && RED_THRESHOLDS.contains(&k.plan) {
                // The threshold's unit goes into the plan key (`min_th_bytes`); the engine
                // checks that both share it and are in order.
                if let Some((suffix, v)) = t.get(p, k.plan, &red_threshold) {
                    qdisc.insert(format!("{}{suffix}", k.plan), Value::from(v));
                }
            } else if let Some(v) = t.get(p, k.user, &|v| k.reader().read(v)) {
                qdisc.insert(k.plan.into(), v);
            }
        }
    }
    let mut spec = Map::new();
    spec.insert("qdisc".into(), Value::Object(qdisc));
    let (has_limit, has_sizing) = (t.has("limit"), t.has("sizing"));
    if has_limit && has_sizing {
        p.add(
            &format!("{path}.limit"),
            "give either limit or sizing, not both",
        );
    }
    if let Some(limit) = t.raw("limit") {
        match read_limit(limit, disc.as_deref()) {
            Ok((k, n)) => {
                spec.insert(k.into(), Value::from(n));
            }
            Err(e) => p.add(&format!("{path}.limit"), e),
        }
    }
    if has_sizing {
        let rule = t.get(p, "sizing", &sizing_rule);
        let scale = t.get(
            p,
            "scale",
            &number(
                Range {
                    lo: Some(0.0),
                    hi: Some(1e6),
                    lo_open: true,
                },
                "a scale factor > 0",
            ),
        );
        if let Some(rule) = rule {
            spec.insert(
                "sizing".into(),
                json!({"rule": rule, "scale": scale.unwrap_or(1.0)}),
            );
        }
    } else if t.has("scale") {
        p.add(
            &format!("{path}.scale"),
            "scale multiplies a sizing rule; add sizing = \"bdp\" (or another rule)",
        );
    }
    if !has_limit && !has_sizing {
        let kind = disc.as_deref().unwrap_or("fifo");
        spec.insert(
            "limit_pkts".into(),
            Value::from(QdiscSpec::default_limit_pkts(kind)),
        );
    }
    Some(Value::Object(spec))
}

fn read_limit(v: &Doc, disc: Option<&str>) -> Result<(&'static str, u64), String> {
    // tc's fq_codel and fq limits are packet counts; accept a bare number as tc does.
    let fq = disc.filter(|d| *d == "fq_codel" || *d == "fq" || *d == "cake");
    let size = match v {
        Doc::Int(n) if fq.is_some() => units::size(&Doc::Str(format!("{n}pkt")), true),
        _ => units::size(v, true),
    }?;
    match (size, fq) {
        (Size::Pkts(n), _) => Ok(("limit_pkts", n)),
        (Size::Bytes(_), Some(d)) => Err(format!(
            "{}: {d}'s limit counts packets (e.g. \"{}pkt\")",
            quote_plain(v),
            QdiscSpec::default_limit_pkts(d)
        )),
        (Size::Bytes(b), None) => Ok(("limit_bytes", b)),
    }
}

fn quote_plain(v: &Doc) -> String {
    units::quote(&v.plain())
}

fn bql(v: &Doc) -> Result<Value, String> {
    if let Doc::Str(s) = v {
        if s == "auto" || s == "off" {
            return Ok(Value::from(s.as_str()));
        }
        let l = s.trim().to_lowercase();
        if l == "auto" || l == "off" {
            return Err(format!("\"{s}\": write \"{l}\""));
        }
    }
    match units::bytes(v) {
        Ok(n) => Ok(json!({ "fixed": n })), // its bounds (64 B to DQL_MAX_LIMIT) are the engine's
        Err(e) => Err(format!("bql is \"auto\", \"off\" or a byte limit: {e}")),
    }
}

/// The plan's RingSpec from a `ring` table.
pub fn read_ring(value: &Doc, path: &str, p: &mut Problems) -> Option<Value> {
    let t = Table::open(
        value,
        path,
        p,
        &["size", "bql", "gso"],
        &[],
        Some("{ size = 512, bql = \"auto\" }"),
    );
    if !t.ok {
        return None;
    }
    let size = t.need(
        p,
        "size",
        &|v| integer(None, None, "a number of descriptors (e.g. 512)")(v),
        "512",
    );
    let bql = match t.raw("bql") {
        None => Some(Value::from("auto")),
        Some(_) => t.get(p, "bql", &bql),
    };
    let gso = match t.raw("gso") {
        None => Some(false),
        Some(_) => t.get(p, "gso", &boolean),
    };
    let mut ring = json!({"size": size? as i64, "bql": bql?});
    if gso? {
        // Written only when on: a plan without it is the plan it was before the key existed.
        ring["gso"] = Value::from(true);
    }
    Some(ring)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::{Limit, Qdisc, QueueDisc};

    fn read(toml_like: serde_json::Value) -> (Option<Value>, Vec<(String, String)>) {
        let d: Doc = serde_json::from_value(toml_like).unwrap();
        let mut p = Problems::default();
        let q = read_queue(&d, "q", &mut p);
        (q, p.items)
    }

    /// The limit the reader writes for a queue without one is the one the engine applies to a
    /// plan without one, wherever the engine has its own default.
    #[test]
    fn default_limits_are_the_engines() {
        for kind in discipline_names() {
            let (q, problems) = read(json!({ "discipline": kind }));
            assert!(problems.is_empty(), "{kind}: {problems:?}");
            let q = q.unwrap();
            let spec: QdiscSpec = serde_json::from_value(q["qdisc"].clone()).unwrap();
            let built = Qdisc::build(&spec, Limit::default(), 1).unwrap();
            if let Some(engine) = built.limit().pkts {
                assert_eq!(q["limit_pkts"], json!(engine), "{kind}");
            }
            assert_eq!(q["limit_pkts"], json!(QdiscSpec::default_limit_pkts(kind)));
        }
    }

    #[test]
    fn a_key_of_another_discipline_is_named_as_such() {
        let (_, problems) = read(json!({ "discipline": "fifo", "target": "5ms" }));
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0]
                .1
                .starts_with("fifo has no parameter 'target' (codel, fq_codel"),
            "{problems:?}"
        );
    }

    #[test]
    fn red_thresholds_carry_their_unit() {
        let (q, p) = read(json!({ "discipline": "red", "min_th": "30KB", "max_th": "90KB" }));
        assert!(p.is_empty());
        let q = q.unwrap();
        assert_eq!(q["qdisc"]["min_th_bytes"], json!(30000.0));
        assert_eq!(q["qdisc"]["max_th_bytes"], json!(90000.0));
        let (q, _) = read(json!({ "discipline": "red", "min_th": 5 }));
        assert_eq!(q.unwrap()["qdisc"]["min_th"], json!(5.0));
    }

    /// `gso` is a boolean written into the plan only when on; a bad value names its key.
    #[test]
    fn ring_gso_reads_as_a_boolean() {
        let ring = |t: serde_json::Value| {
            let d: Doc = serde_json::from_value(t).unwrap();
            let mut p = Problems::default();
            (read_ring(&d, "topology.up.ring", &mut p), p.items)
        };
        let (r, p) = ring(json!({ "size": 512, "gso": true }));
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            r.unwrap(),
            json!({ "size": 512, "bql": "auto", "gso": true })
        );
        let (r, _) = ring(json!({ "size": 512, "gso": false }));
        assert_eq!(r.unwrap(), json!({ "size": 512, "bql": "auto" }));
        let (r, p) = ring(json!({ "size": 512, "gso": "on" }));
        assert!(r.is_none());
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, "topology.up.ring.gso");
        assert!(p[0].1.starts_with("expected true or false"), "{p:?}");
    }
}
