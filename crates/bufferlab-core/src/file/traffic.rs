//! `[[traffic]]` blocks -> the plan's `TrafficSpec` list (one entry per block, same order).
//!
//! The kinds, each kind's keys and their defaults are the plan's `TrafficSpec` variants: a file
//! key is a variant's field without its unit (`interval_ns` -> `interval`), `from`/`to` give its
//! `pairs`, and the kinds with a `tcp` field take the TCP options as keys of the block.
//!
//! `from` and `to` name nodes, groups (the dumbbell's `senders` and `receivers`) or lists of
//! nodes. Two groups of equal size pair member by member (`s_i` with `d_i`); a single node on
//! either side pairs with every member of the other. Every pair must be joined by some path.
//!
//! TCP options the file leaves out are left out of the plan, so the transport's defaults (each
//! citing its RFC) apply. `pkt` in a TCP size or window is one full segment's payload: the MSS
//! less the timestamp option's 12 B when the block sends it (the default): 1448 B.

use std::collections::{HashMap, VecDeque};
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use super::close::{did_you_mean, name_list};
use super::doc::Doc;
use super::law::{self, Quantity};
use super::schema::{definition, deref, tcp_keys, user_key, Reader};
use super::table::{boolean, choice, index, integer, join, name, or_null, Problems, Table};
use super::topology::Topology;
use super::units::{self, Rate, Size};
use crate::tcp::params::{TcpParams, TS_OPTION_BYTES};

/// Keys every block has besides its variant's fields.
const COMMON: [&str; 4] = ["kind", "from", "to", "start"];

/// Keys a kind refuses, with the reason (rather than "unknown key").
const UNSUPPORTED: &[(&str, &[(&str, &str)])] = &[
    (
        "tcp",
        &[(
            "stop",
            "TCP sources run to the end of the run or of their transfer",
        )],
    ),
    (
        "web",
        &[
            ("stop", "web sources run to the end of the run"),
            ("count", "web arrivals are set by arrival_rate"),
        ],
    ),
    (
        "tcp_onoff",
        &[("stop", "on/off sources run to the end of the run")],
    ),
    (
        "rrul",
        &[
            (
                "start",
                "an rrul test's probes start with the run and its TCP streams `delay` later",
            ),
            ("stop", "an rrul test runs to the end of the run"),
        ],
    ),
];

/// One traffic kind as the plan declares it.
pub struct KindDecl {
    pub kind: &'static str,
    /// The variant's fields: (plan key, property schema), `pairs` and `kind` aside.
    pub fields: Vec<(&'static str, &'static Value)>,
    /// Whether it runs TCP (has a `tcp` field).
    pub tcp: bool,
}

impl KindDecl {
    /// The keys a block of this kind takes: the common ones (less those it refuses), its
    /// fields', the TCP options.
    pub fn keys(&self) -> Vec<&'static str> {
        let refused = unsupported(self.kind);
        let mut out: Vec<&'static str> = COMMON
            .into_iter()
            .filter(|k| !refused.iter().any(|(u, _)| u == k))
            .collect();
        for (k, _) in &self.fields {
            let u = user_key(k);
            if *k != "tcp" && !out.contains(&u) {
                out.push(u);
            }
        }
        if self.tcp {
            out.extend(tcp_keys().iter().map(|k| k.user));
        }
        out
    }

    fn default(&self, plan_key: &str) -> Option<&'static Value> {
        self.fields
            .iter()
            .find(|(k, _)| *k == plan_key)
            .and_then(|(_, p)| p.get("default"))
    }
}

/// The keys kind `kind` refuses, with the reason.
fn unsupported(kind: &str) -> &'static [(&'static str, &'static str)] {
    UNSUPPORTED
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&[][..], |(_, u)| *u)
}

/// The traffic kinds, in the plan's order.
pub fn kinds() -> &'static [KindDecl] {
    static K: OnceLock<Vec<KindDecl>> = OnceLock::new();
    K.get_or_init(|| {
        let branches = definition("TrafficSpec")
            .get("oneOf")
            .and_then(Value::as_array);
        branches
            .into_iter()
            .flatten()
            .filter_map(|b| {
                let b = deref(b);
                let kind = b
                    .pointer("/properties/kind/const")
                    .and_then(Value::as_str)?;
                let props = b.get("properties").and_then(Value::as_object)?;
                let fields: Vec<(&'static str, &'static Value)> = props
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "kind" | "pairs"))
                    .map(|(k, v)| (k.as_str(), v))
                    .collect();
                let tcp = props.contains_key("tcp");
                Some(KindDecl { kind, fields, tcp })
            })
            .collect()
    })
}

pub fn kind_names() -> Vec<&'static str> {
    kinds().iter().map(|k| k.kind).collect()
}

/// The kinds that run TCP and take its options.
pub fn tcp_kind_names() -> Vec<&'static str> {
    kinds().iter().filter(|k| k.tcp).map(|k| k.kind).collect()
}

/// The traffic blocks and their origins (plan path, file path).
pub fn read_traffic(
    doc: &Table,
    topo: Option<&Topology>,
    p: &mut Problems,
) -> (Vec<Value>, Vec<(String, String)>) {
    let single;
    let blocks: &[Doc] = match doc.raw("traffic") {
        None => &[],
        Some(Doc::List(l)) => l,
        Some(t @ Doc::Table(_)) => {
            single = [t.clone()]; // [traffic] written for [[traffic]]: accept a single block
            &single
        }
        Some(other) => {
            p.add(
                "traffic",
                format!("expected [[traffic]] tables, got {}", other.describe()),
            );
            return (vec![], vec![]);
        }
    };
    // Routes only on a whole topology: a partial one's links are missing, not absent.
    let graph = topo.filter(|t| !t.partial).map(components);
    let mut out = Vec::new();
    let mut origins = Vec::new();
    let mut rrul_tests = 0;
    for (i, block) in blocks.iter().enumerate() {
        let path = index("traffic", i);
        let before = p.len();
        let Some(spec) = read_block(block, &path, topo, graph.as_ref(), p) else {
            continue;
        };
        let parts = match expand_rrul(&spec, rrul_tests, p.len() == before) {
            Some((parts, tests)) => {
                rrul_tests += tests;
                parts
            }
            None => vec![spec],
        };
        for part in parts {
            origins.push((format!("traffic[{}]", out.len()), path.clone()));
            out.push(part);
        }
    }
    (out, origins)
}

/// An rrul block as the `tcp` and `ping` blocks it stands for ([`crate::agent::rrul`]), and the
/// number of tests in it; `None` for a block of another kind. A block with a problem, or a
/// number out of its bounds, stays as it is, so that those are reported at its own keys.
fn expand_rrul(spec: &Value, first: usize, read_ok: bool) -> Option<(Vec<Value>, usize)> {
    use crate::agent::rrul;
    use crate::scenario::{RrulSpec, TrafficSpec};
    if spec.get("kind").and_then(Value::as_str) != Some("rrul") {
        return None;
    }
    let tests = spec
        .get("pairs")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if !read_ok || !crate::bounds::check_value(&json!({ "traffic": [spec] })).is_empty() {
        return Some((vec![spec.clone()], tests));
    }
    let mut fields = spec.clone();
    if let Some(m) = fields.as_object_mut() {
        m.remove("kind");
    }
    let Ok(typed) = serde_json::from_value::<RrulSpec>(fields) else {
        return Some((vec![spec.clone()], tests));
    };
    // The TCP options as the file gave them: those it leaves out stay out of the plan.
    let tcp = spec.get("tcp").cloned().unwrap_or_else(|| json!({}));
    let parts = rrul::expand(&typed, first)
        .iter()
        .filter_map(|b| {
            let mut v = serde_json::to_value(b).ok()?;
            let m = v.as_object_mut()?;
            m.retain(|_, x| !x.is_null());
            if matches!(b, TrafficSpec::Tcp(_)) {
                m.insert("tcp".into(), tcp.clone());
            }
            Some(v)
        })
        .collect();
    Some((parts, tests))
}

fn read_block(
    block: &Doc,
    path: &str,
    topo: Option<&Topology>,
    graph: Option<&HashMap<&str, usize>>,
    p: &mut Problems,
) -> Option<Value> {
    if block.as_table().is_none() {
        p.add(
            path,
            format!(
                "expected a table, got {} (e.g. [[traffic]] kind = \"tcp\")",
                block.describe()
            ),
        );
        return None;
    }
    let names = kind_names();
    let Some(kind_raw) = block.get("kind") else {
        p.add(
            &join(path, "kind"),
            format!("missing (one of {})", names.join(", ")),
        );
        return None;
    };
    let kind = match choice(&names)(kind_raw) {
        Ok(k) => k,
        Err(e) => {
            p.add(&join(path, "kind"), e);
            return None;
        }
    };
    let decl = kinds().iter().find(|k| k.kind == kind)?;
    let t = Table::open(block, path, p, &decl.keys(), unsupported(&kind), None);
    let mut spec = Map::new();
    spec.insert("kind".into(), Value::from(kind.as_str()));
    spec.insert("pairs".into(), Value::from(pairs(&t, topo, graph, p)));
    if t.has("group") {
        spec.insert("group".into(), or_null(t.get(p, "group", &name)));
    }
    if t.has("start") && kind != "rrul" {
        spec.insert(
            "start_ns".into(),
            or_null(t.get(p, "start", &|v| law::parse(v, Quantity::Time))),
        );
    }
    let default = |k: &str| decl.default(k).cloned().unwrap_or(Value::Null);
    match kind.as_str() {
        "tcp" | "web" | "tcp_onoff" => {
            let (tcp, segment) = tcp_options(&t, p);
            let sizes = Quantity::Size {
                pkt_bytes: Some(segment),
            };
            match kind.as_str() {
                "tcp" => {
                    let count = integer(None, None, "a number of connections per pair");
                    let c = if t.has("count") {
                        or_null(t.get(p, "count", &|v| count(v).map(|n| n as i64)))
                    } else {
                        default("count")
                    };
                    spec.insert("count".into(), c);
                    if let Some(size) = t.get(p, "size", &|v| transfer_size(v, segment)).flatten() {
                        spec.insert("size_bytes".into(), Value::from(size)); // absent or "inf": bulk
                    }
                }
                "web" => {
                    let rate = t.need(p, "arrival_rate", &units::per_second, "\"1/s\"");
                    spec.insert("arrival_rate".into(), or_null(rate));
                    let size = t.need(
                        p,
                        "size",
                        &|v| size_dist(v, sizes),
                        "\"zipf(1.7, max=100000pkt)\"",
                    );
                    spec.insert("size_bytes".into(), or_null(size));
                }
                _ => {
                    let size = t.need(p, "size", &|v| size_dist(v, sizes), "\"36KB\"");
                    spec.insert("size_bytes".into(), or_null(size));
                    let idle = t.need(p, "idle", &|v| law::parse(v, Quantity::Time), "\"exp(1s)\"");
                    spec.insert("idle_ns".into(), or_null(idle));
                }
            }
            spec.insert("tcp".into(), Value::Object(tcp));
        }
        "udp" => {
            let size = t.need(p, "size", &units::bytes, "\"1500B\"");
            let rate = t.need(p, "rate", &|v| units::rate(v, true), "\"250pps\"");
            spec.insert("size_bytes".into(), or_null(size));
            if let Some(pps) = rate.and_then(|r| pps(r, size)) {
                spec.insert("rate_pps".into(), Value::from(pps));
            }
            if let Some((k, prop)) = decl.fields.iter().find(|(k, _)| *k == "arrivals") {
                if t.has("arrivals") {
                    let r = Reader::of(k, prop);
                    spec.insert(
                        "arrivals".into(),
                        or_null(t.get(p, "arrivals", &|v| r.read(v))),
                    );
                }
            }
            if t.has("burst") {
                spec.insert("burst".into(), or_null(burst(&t, p)));
            }
            if t.has("ttl") {
                spec.insert("ttl".into(), or_null(t.get(p, "ttl", &ttl)));
            }
            stop(&t, &mut spec, p);
        }
        "ballast" => ballast(&t, &mut spec, decl, p),
        "rrul" => {
            // Counts and times by their declared types; the TCP options as for a tcp block.
            for (k, prop) in &decl.fields {
                let user = user_key(k);
                if matches!(*k, "tcp" | "group") || !t.has(user) {
                    continue;
                }
                let r = Reader::of(k, prop);
                spec.insert((*k).into(), or_null(t.get(p, user, &|v| r.read(v))));
            }
            spec.insert("tcp".into(), Value::Object(tcp_options(&t, p).0));
        }
        _ => {
            // ping
            let interval = if t.has("interval") {
                or_null(t.get(p, "interval", &units::time_ns))
            } else {
                default("interval_ns")
            };
            spec.insert("interval_ns".into(), interval);
            let size = if t.has("size") {
                or_null(t.get(p, "size", &units::bytes))
            } else {
                default("size_bytes")
            };
            spec.insert("size_bytes".into(), size);
            if t.has("proto") {
                if let Some((k, prop)) = decl.fields.iter().find(|(k, _)| *k == "proto") {
                    let r = Reader::of(k, prop);
                    spec.insert("proto".into(), or_null(t.get(p, "proto", &|v| r.read(v))));
                }
            }
            stop(&t, &mut spec, p);
        }
    }
    Some(Value::Object(spec))
}

/// A rate in packets per second (a bit rate counts packets of `size`).
fn pps(r: Rate, size: Option<u64>) -> Option<f64> {
    match (r, size) {
        (Rate::Pps(x), _) => Some(x),
        (Rate::Bps(b), Some(s)) if s > 0 => Some(b as f64 / (8 * s) as f64),
        _ => None,
    }
}

/// A fixed-rate ballast is a UDP stream with other defaults; `auto` lets the controller choose
/// the rate (docs/ballast.md).
fn ballast(t: &Table, spec: &mut Map<String, Value>, decl: &KindDecl, p: &mut Problems) {
    let size = if t.has("size") {
        t.get(p, "size", &units::bytes)
    } else {
        decl.default("size_bytes").and_then(Value::as_u64)
    };
    spec.insert("size_bytes".into(), or_null(size));
    let auto = if t.has("auto") {
        t.get(p, "auto", &boolean).unwrap_or(false)
    } else {
        false
    };
    const AUTO_ONLY: [&str; 3] = ["target", "max_share", "period"];
    if auto {
        spec.insert("auto".into(), Value::from(true));
        for key in ["rate", "burst"] {
            if t.has(key) {
                t.problem(
                    p,
                    Some(key),
                    "auto = true chooses the rate itself (remove this key, or auto)",
                );
            }
        }
        if t.has("target") {
            spec.insert(
                "target_ns".into(),
                or_null(t.get(p, "target", &units::time_ns)),
            );
        }
        if t.has("max_share") {
            spec.insert("max_share".into(), or_null(t.get(p, "max_share", &share)));
        }
        if t.has("period") {
            spec.insert(
                "period_ns".into(),
                or_null(t.get(p, "period", &units::time_ns)),
            );
        }
    } else {
        for key in AUTO_ONLY {
            if t.has(key) {
                t.problem(
                    p,
                    Some(key),
                    "only the automatic ballast takes this key (add auto = true)",
                );
            }
        }
        let rate = t.need(
            p,
            "rate",
            &|v| units::rate(v, true),
            "\"250pps\" (or auto = true)",
        );
        if let (Some(r), Some(s)) = (rate, size.filter(|s| *s > 0)) {
            spec.insert(
                "rate_pps".into(),
                Value::from(pps(r, Some(s)).unwrap_or(0.0)),
            );
        }
        if t.has("burst") {
            spec.insert("burst".into(), or_null(burst(t, p)));
        }
    }
    if t.has("ttl") {
        spec.insert("ttl".into(), or_null(t.get(p, "ttl", &ttl)));
    }
    stop(t, spec, p);
}

/// A share of the uplink: 0.2 or "20%" (its bounds are the engine's).
fn share(v: &Doc) -> Result<f64, String> {
    match v {
        Doc::Str(s) if s.trim().ends_with('%') => {
            let body = &s.trim()[..s.trim().len() - 1];
            body.trim()
                .parse::<f64>()
                .map(|x| x / 100.0)
                .map_err(|_| format!("\"{s}\" is not a share (e.g. 0.2 or \"20%\")"))
        }
        Doc::Int(_) | Doc::Float(_) => Ok(v.as_f64().unwrap_or(0.0)),
        other => Err(format!(
            "{} is not a share (e.g. 0.2 or \"20%\")",
            other.describe()
        )),
    }
}

fn stop(t: &Table, spec: &mut Map<String, Value>, p: &mut Problems) {
    if !t.has("stop") {
        return;
    }
    let stop = t.get(p, "stop", &units::time_ns);
    spec.insert("stop_ns".into(), or_null(stop));
    let start = spec
        .get("start_ns")
        .cloned()
        .unwrap_or(json!({"dist": "const", "value": 0.0}));
    let earliest = match start.get("dist").and_then(Value::as_str) {
        Some("const") => start.get("value").and_then(Value::as_f64),
        Some("uniform") => start.get("lo").and_then(Value::as_f64),
        _ => None,
    };
    if let (Some(stop), Some(e)) = (stop, earliest) {
        if stop as f64 <= e {
            t.problem(
                p,
                Some("stop"),
                "comes before the source starts (make stop later than start)",
            );
        }
    }
}

fn burst(t: &Table, p: &mut Problems) -> Option<Value> {
    let bt = t.sub(
        p,
        "burst",
        &["packets", "every"],
        &[],
        Some("{ packets = 100, every = \"1s\" }"),
    )?;
    if !bt.ok {
        return None;
    }
    let packets = bt.need(
        p,
        "packets",
        &|v| integer(Some(0), None, "a number of packets")(v).map(|n| n as i64),
        "100",
    );
    let every = bt.need(p, "every", &units::time_ns, "\"1s\"");
    Some(json!({"packets": or_null(packets), "every_ns": or_null(every)}))
}

/// An IP TTL: it fits one byte; the engine wants at least 1 (`UdpSpec.ttl`).
fn ttl(v: &Doc) -> Result<i64, String> {
    integer(Some(0), Some(255), "an IP TTL (1 to 255)")(v).map(|n| n as i64)
}

/// A transfer's size in bytes; `None` for `"inf"` (a bulk transfer).
fn transfer_size(v: &Doc, segment: u64) -> Result<Option<u64>, String> {
    if let Doc::Str(s) = v {
        if s == "inf" {
            return Ok(None);
        }
        if matches!(
            s.trim().to_lowercase().as_str(),
            "inf" | "infinite" | "infinity"
        ) {
            return Err("write \"inf\" for a transfer that never ends".into());
        }
    }
    let n = match units::size(v, true) {
        Ok(Size::Bytes(b)) => b,
        Ok(Size::Pkts(k)) => k * segment,
        Err(e) => return Err(format!("{e}; or \"inf\" for a transfer that never ends")),
    };
    if n == 0 {
        return Err(format!(
            "\"{}\": a transfer must carry at least 1 B (or \"inf\")",
            v.plain()
        ));
    }
    Ok(Some(n))
}

fn size_dist(v: &Doc, q: Quantity) -> Result<Value, String> {
    let d = law::parse(v, q)?;
    let lo = d
        .get("value")
        .or_else(|| d.get("lo"))
        .and_then(Value::as_f64)
        .unwrap_or(1.0);
    let bounded = matches!(
        d.get("dist").and_then(Value::as_str),
        Some("const" | "uniform")
    );
    if bounded && lo <= 0.0 {
        return Err(format!(
            "\"{}\": transfers must carry at least 1 B",
            v.plain()
        ));
    }
    Ok(d)
}

/// The block's `tcp` map and what `pkt` means in its sizes and windows: a full segment's
/// payload, the MSS less the timestamp option's 12 B when the block sends it (the default, as
/// Linux: 1448 B of a 1460 B MSS).
fn tcp_options(t: &Table, p: &mut Problems) -> (Map<String, Value>, u64) {
    let defaults = TcpParams::default();
    let mut tcp = Map::new();
    let mss = t.get(p, "mss", &units::bytes);
    if let Some(m) = mss {
        tcp.insert("mss_bytes".into(), Value::from(m));
    }
    let mss = mss
        .filter(|m| *m != 0)
        .unwrap_or(u64::from(defaults.mss_bytes));
    let timestamps = |tcp: &Map<String, Value>| {
        tcp.get("timestamps")
            .and_then(Value::as_bool)
            .unwrap_or(defaults.timestamps)
    };
    // The timestamp option first: windows in `pkt` depend on it.
    let mut keys: Vec<_> = tcp_keys().iter().collect();
    keys.sort_by_key(|k| k.user != "timestamps");
    for k in keys {
        if k.user == "mss" || !t.has(k.user) {
            continue;
        }
        let segment = mss
            - if timestamps(&tcp) {
                u64::from(TS_OPTION_BYTES)
            } else {
                0
            };
        let v = if matches!(k.user, "rwnd" | "sndbuf") {
            t.get(p, k.user, &|v| {
                units::size(v, true).map(|s| match s {
                    Size::Bytes(b) => Value::from(b),
                    Size::Pkts(n) => Value::from(n * segment),
                })
            })
        } else {
            t.get(p, k.user, &|v| k.reader().read(v))
        };
        if let Some(v) = v {
            tcp.insert(k.plan.into(), v);
        }
    }
    let segment = mss
        - if timestamps(&tcp) {
            u64::from(TS_OPTION_BYTES)
        } else {
            0
        };
    (tcp, segment)
}

// ---------------------------------------------------------------- endpoints

/// Each node's connected component (links carry both directions): one pass over the graph, so
/// checking that each of N pairs is joined costs N look-ups, not N searches.
fn components(topo: &Topology) -> HashMap<&str, usize> {
    let mut order: Vec<&str> = topo.nodes.iter().map(String::as_str).collect();
    let mut adj: HashMap<&str, Vec<&str>> = order.iter().map(|n| (*n, Vec::new())).collect();
    for l in &topo.links {
        let (Some(a), Some(b)) = (
            l.get("a").and_then(Value::as_str),
            l.get("b").and_then(Value::as_str),
        ) else {
            continue;
        };
        for (x, y) in [(a, b), (b, a)] {
            adj.entry(x).or_insert_with(|| {
                order.push(x);
                Vec::new()
            });
            if let Some(v) = adj.get_mut(x) {
                v.push(y);
            }
        }
    }
    let mut comp: HashMap<&str, usize> = HashMap::with_capacity(order.len());
    for root in order {
        if comp.contains_key(root) {
            continue;
        }
        let c = comp.len();
        comp.insert(root, c);
        let mut todo = VecDeque::from([root]);
        while let Some(n) = todo.pop_front() {
            for m in adj.get(n).map(Vec::as_slice).unwrap_or_default() {
                if !comp.contains_key(m) {
                    comp.insert(m, c);
                    todo.push_back(m);
                }
            }
        }
    }
    comp
}

fn endpoints(
    t: &Table,
    key: &str,
    topo: Option<&Topology>,
    nodes: &HashMap<&str, ()>,
    p: &mut Problems,
) -> Option<Vec<String>> {
    let Some(raw) = t.raw(key) else {
        t.problem(
            p,
            Some(key),
            "missing (a node or group name, e.g. \"client\" or \"senders\")",
        );
        return None;
    };
    let topo = topo?;
    match raw {
        Doc::Str(s) => {
            if let Some(g) = topo.group(s) {
                return Some(g.to_vec());
            }
            if nodes.contains_key(s.as_str()) {
                return Some(vec![s.clone()]);
            }
            let names: Vec<&str> = topo
                .nodes
                .iter()
                .map(String::as_str)
                .chain(topo.groups.iter().map(|(g, _)| g.as_str()))
                .collect();
            t.problem(
                p,
                Some(key),
                format!(
                    "unknown node or group \"{s}\"{}; known: {}",
                    did_you_mean(s, &names),
                    name_list(&names)
                ),
            );
            None
        }
        Doc::List(l) if !l.is_empty() && l.iter().all(|x| x.as_str().is_some()) => {
            let mut out = Vec::new();
            let mut ok = true;
            let all: Vec<&str> = topo.nodes.iter().map(String::as_str).collect();
            for (j, x) in l.iter().enumerate() {
                let x = x.plain();
                if nodes.contains_key(x.as_str()) {
                    out.push(x);
                } else {
                    p.add(
                        &index(&t.at(key), j),
                        format!("unknown node \"{x}\"{}", did_you_mean(&x, &all)),
                    );
                    ok = false;
                }
            }
            ok.then_some(out)
        }
        other => {
            t.problem(
                p,
                Some(key),
                format!(
                    "expected a node or group name, or a list of node names, got {}",
                    other.describe()
                ),
            );
            None
        }
    }
}

fn pairs(
    t: &Table,
    topo: Option<&Topology>,
    graph: Option<&HashMap<&str, usize>>,
    p: &mut Problems,
) -> Vec<Value> {
    let nodes: HashMap<&str, ()> = topo
        .map(|tp| tp.nodes.iter().map(|n| (n.as_str(), ())).collect())
        .unwrap_or_default();
    let src = endpoints(t, "from", topo, &nodes, p);
    let dst = endpoints(t, "to", topo, &nodes, p);
    let (Some(src), Some(dst), Some(graph)) = (src, dst, graph) else {
        return vec![];
    };
    let pairs: Vec<(&String, &String)> = if src.len() == dst.len() {
        src.iter().zip(dst.iter()).collect()
    } else if src.len() == 1 {
        dst.iter().map(|d| (&src[0], d)).collect()
    } else if dst.len() == 1 {
        src.iter().map(|s| (s, &dst[0])).collect()
    } else {
        t.problem(
            p,
            Some("to"),
            format!(
                "{} destinations cannot pair with {} sources (give as many of each, or one on either side)",
                dst.len(),
                src.len()
            ),
        );
        return vec![];
    };
    let mut out = Vec::new();
    for (s, d) in pairs {
        if s == d {
            t.problem(
                p,
                Some("to"),
                format!("\"{d}\" is also the source; traffic needs two different nodes"),
            );
        } else if graph.get(s.as_str()).is_none() || graph.get(s.as_str()) != graph.get(d.as_str())
        {
            t.problem(
                p,
                Some("to"),
                format!("\"{d}\" cannot be reached from \"{s}\": no path of links joins them"),
            );
        } else {
            out.push(json!([s, d]));
        }
    }
    out
}
