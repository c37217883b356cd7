//! Every number of a plan against the bounds its type declares.
//!
//! A key's bounds are written once, as `#[schemars(range(..))]` on its field in the plan's types
//! (`scenario.rs`, each discipline's and the transport's parameters). They reach users through
//! the plan's JSON Schema ([`crate::scenario::plan_schema`]); this module walks a plan beside
//! that schema and reports every number out of bounds at once, each at its key path, in the
//! key's unit and with its default.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::problem::{Loc, Problem, Seg};
use crate::scenario::{plan_schema, Scenario};
use crate::time::{fmt_ns, Duration};

pub(crate) fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(plan_schema)
}

/// Every out-of-bounds number of the plan (none: an empty list).
pub fn check(sc: &Scenario) -> Vec<Problem> {
    match serde_json::to_value(sc) {
        Ok(plan) => check_value(&plan),
        Err(_) => vec![Loc::root().problem("the plan cannot be serialised")],
    }
}

/// The same walk over a plan as JSON, which may be partial: what is missing, or of another shape
/// than the schema's, is not checked. The scenario reader uses it to report the bounds a file
/// breaks together with the problems it found itself, in one pass.
pub fn check_value(plan: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    let c = compiled();
    c.walk(plan, 0, &mut Vec::new(), &mut out);
    out
}

/// A step of the walk's key path, borrowing its key from the compiled schema: the walk visits
/// every value of a plan of thousands of flows, and a [`Seg`] (an owned key) is made only for a
/// problem.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn segs(path: &[Step<'_>]) -> Vec<Seg> {
    path.iter()
        .map(|s| match *s {
            Step::Key(k) => Seg::Key(k.to_string()),
            Step::Index(i) => Seg::Index(i),
        })
        .collect()
}

/// Follow a `$ref` to `#/$defs/Name`.
fn deref<'a>(s: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
            .map_or(s, |d| deref(d, defs)),
        None => s,
    }
}

/// The schema compiled once into a tree of nodes, references resolved, so that walking a plan
/// of thousands of links looks up no schema key by name.
struct Compiled {
    nodes: Vec<Node>,
}

/// One schema node: alternatives (`oneOf`/`anyOf`: the first whose shape fits is walked),
/// properties, list items, and a number's bounds.
#[derive(Default)]
struct Node {
    alts: Option<Vec<(Shape, usize)>>,
    props: Vec<(String, usize)>,
    prefix: Option<Vec<usize>>,
    items: Option<usize>,
    bounds: Bounds,
}

#[derive(Default)]
struct Bounds {
    min: Option<f64>,
    xmin: Option<f64>,
    max: Option<f64>,
    xmax: Option<f64>,
    default: Option<f64>,
}

/// What a branch of alternatives accepts: its types, its enum or constant, its tag constants
/// and its required keys.
#[derive(Default)]
struct Shape {
    types: Option<Vec<String>>,
    values: Option<Vec<Value>>,
    consts: Vec<(String, Value)>,
    required: Vec<String>,
}

fn compiled() -> &'static Compiled {
    static C: OnceLock<Compiled> = OnceLock::new();
    C.get_or_init(|| {
        let root = schema();
        let empty = Map::new();
        let defs = root
            .get("$defs")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut c = Compiled { nodes: Vec::new() };
        let mut by_ptr: Vec<(*const Value, usize)> = Vec::new();
        c.compile(root, defs, &mut by_ptr);
        c
    })
}

impl Compiled {
    /// The node of schema `s` (after `$ref`s), compiled once per distinct definition.
    fn compile(
        &mut self,
        s: &Value,
        defs: &Map<String, Value>,
        seen: &mut Vec<(*const Value, usize)>,
    ) -> usize {
        let s = deref(s, defs);
        let key = s as *const Value;
        if let Some(&(_, id)) = seen.iter().find(|(p, _)| *p == key) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        seen.push((key, id));
        let mut node = Node::default();
        for alt in ["oneOf", "anyOf"] {
            if let Some(branches) = s.get(alt).and_then(Value::as_array) {
                let mut alts = Vec::new();
                for b in branches {
                    let b = deref(b, defs);
                    let shape = Shape::of(b);
                    alts.push((shape, self.compile(b, defs, seen)));
                }
                node.alts = Some(alts);
                break;
            }
        }
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (k, sub) in props {
                let n = self.compile(sub, defs, seen);
                node.props.push((k.clone(), n));
            }
        }
        if let Some(items) = s.get("prefixItems").and_then(Value::as_array) {
            node.prefix = Some(items.iter().map(|i| self.compile(i, defs, seen)).collect());
        } else if let Some(items) = s.get("items") {
            node.items = Some(self.compile(items, defs, seen));
        }
        let get = |k: &str| s.get(k).and_then(Value::as_f64);
        node.bounds = Bounds {
            min: get("minimum"),
            xmin: get("exclusiveMinimum"),
            max: get("maximum"),
            xmax: get("exclusiveMaximum"),
            default: get("default"),
        };
        self.nodes[id] = node;
        id
    }

    /// Walk `v` beside node `n`. `path` is the key path to `v`, grown and shrunk in place: a
    /// [`Loc`] is made only for a problem.
    fn walk<'a>(&'a self, v: &Value, n: usize, path: &mut Vec<Step<'a>>, out: &mut Vec<Problem>) {
        let node = &self.nodes[n];
        if let Some(alts) = &node.alts {
            if let Some((_, b)) = alts.iter().find(|(shape, _)| shape.fits(v)) {
                self.walk(v, *b, path, out);
            }
            return;
        }
        match v {
            Value::Number(x) => {
                if let Some(x) = x.as_f64() {
                    number(x, &node.bounds, path, out);
                }
            }
            Value::Object(m) => {
                for (k, sub) in &node.props {
                    if let Some(x) = m.get(k) {
                        path.push(Step::Key(k));
                        self.walk(x, *sub, path, out);
                        path.pop();
                    }
                }
            }
            Value::Array(a) => {
                if let Some(items) = &node.prefix {
                    for (i, (x, sub)) in a.iter().zip(items).enumerate() {
                        path.push(Step::Index(i));
                        self.walk(x, *sub, path, out);
                        path.pop();
                    }
                } else if let Some(items) = node.items {
                    for (i, x) in a.iter().enumerate() {
                        path.push(Step::Index(i));
                        self.walk(x, items, path, out);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
}

impl Shape {
    fn of(b: &Value) -> Shape {
        let types = match b.get("type") {
            Some(Value::String(t)) => Some(vec![t.clone()]),
            Some(Value::Array(ts)) => Some(
                ts.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect(),
            ),
            _ => None,
        };
        let values = b
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .or_else(|| b.get("const").map(|c| vec![c.clone()]));
        let consts = b
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .filter_map(|(k, p)| p.get("const").map(|c| (k.clone(), c.clone())))
                    .collect()
            })
            .unwrap_or_default();
        let required = b
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        Shape {
            types,
            values,
            consts,
            required,
        }
    }

    /// Whether `v` is of this branch's shape.
    fn fits(&self, v: &Value) -> bool {
        let type_ok = |t: &str| match t {
            "null" => v.is_null(),
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "integer" => v.is_u64() || v.is_i64(),
            "number" => v.is_number(),
            _ => true,
        };
        if let Some(ts) = &self.types {
            if !ts.iter().any(|t| type_ok(t)) {
                return false;
            }
        }
        if let Some(values) = &self.values {
            return values.contains(v);
        }
        let Value::Object(m) = v else { return true };
        self.consts.iter().all(|(k, c)| m.get(k) == Some(c))
            && self.required.iter().all(|k| m.contains_key(k))
    }
}

fn number(x: f64, b: &Bounds, path: &[Step<'_>], out: &mut Vec<Problem>) {
    let (min, xmin, max, xmax) = (b.min, b.xmin, b.max, b.xmax);
    let ok = min.is_none_or(|m| x >= m)
        && xmin.is_none_or(|m| x > m)
        && max.is_none_or(|m| x <= m)
        && xmax.is_none_or(|m| x < m);
    if ok {
        return;
    }
    let key = match path.last() {
        Some(Step::Key(k)) => *k,
        _ => "",
    };
    let q = |y: f64| quantity(key, y);
    let mut parts = Vec::new();
    if let Some(m) = min {
        parts.push(format!("at least {}", q(m)));
    }
    if let Some(m) = xmin {
        parts.push(format!("above {}", q(m)));
    }
    if let Some(m) = max {
        parts.push(format!("at most {}", q(m)));
    }
    if let Some(m) = xmax {
        parts.push(format!("below {}", q(m)));
    }
    let default = match b.default {
        Some(d) => format!(" (default {})", q(d)),
        None => String::new(),
    };
    out.push(Loc::from_segs(&segs(path)).problem(format!(
        "must be {}, got {}{default}",
        parts.join(" and "),
        q(x)
    )));
}

/// A value of key `key` in its unit (the key's suffix), for messages.
pub fn quantity(key: &str, x: f64) -> String {
    let whole = x.fract() == 0.0 && x.abs() < 1.8e19;
    if key.ends_with("_ns") && whole && x >= 0.0 {
        // A day or more in whole hours, the largest unit a scenario file takes (30 days: 720 h).
        const HOUR_NS: f64 = 3.6e12;
        if x >= 24.0 * HOUR_NS && (x / HOUR_NS).fract() == 0.0 {
            return format!("{} h", x / HOUR_NS);
        }
        return fmt_ns(Duration::from_ns(x as u64));
    }
    // `fixed` is BQL's fixed limit, a byte count (the plan's `{"fixed": n}`).
    if (key.ends_with("_bytes") || key == "fixed") && whole {
        for (unit, name) in [
            (1u64 << 40, "TiB"),
            (1 << 30, "GiB"),
            (1 << 20, "MiB"),
            (1 << 10, "KiB"),
        ] {
            let u = unit as f64;
            if x >= u && (x / u).fract() == 0.0 {
                return format!("{} {name}", x / u);
            }
        }
        return format!("{x} B");
    }
    if key.ends_with("_bps") && whole {
        for (u, name) in [(1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")] {
            if x >= u && (x / u).fract() == 0.0 {
                return format!("{} {name}", x / u);
            }
        }
        return format!("{x} b/s");
    }
    if key.ends_with("_pkts") {
        return format!("{x} packet{}", if x == 1.0 { "" } else { "s" });
    }
    if key.ends_with("_pps") {
        return format!("{x} packets/s");
    }
    format!("{x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan_json(qdisc: Value, tcp: Value, loss: f64) -> Value {
        let dir = |q: &Value| {
            json!({"rate_bps": 10_000_000u64, "delay_ns": 1_000_000u64, "loss": loss,
                   "queue": {"qdisc": q, "limit_pkts": 100}})
        };
        let fifo = json!({"kind": "fifo"});
        json!({
            "run": {"duration_ns": 1_000_000_000u64},
            "nodes": ["a", "b"],
            "links": [{"a": "a", "b": "b", "forward": dir(&qdisc), "reverse": dir(&fifo)}],
            "traffic": [{"kind": "tcp", "pairs": [["a", "b"]], "tcp": tcp}],
        })
    }

    /// A plan with six numbers out of bounds: three of FQ-CoDel and Vegas, a delayed-ACK timer,
    /// and both directions' loss.
    fn six_out_of_bounds() -> Value {
        plan_json(
            json!({"kind": "fq_codel", "quantum_bytes": 32, "flows": 0}),
            json!({"cc": "vegas", "vegas_alpha": 0.0, "delack_ns": 500_000_000u64}),
            1.5,
        )
    }

    fn plan(qdisc: Value, tcp: Value, loss: f64) -> Scenario {
        serde_json::from_value(plan_json(qdisc, tcp, loss)).unwrap()
    }

    fn messages(sc: &Scenario) -> Vec<String> {
        check(sc).iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn in_bounds_is_quiet() {
        let sc = plan(
            json!({"kind": "fq_codel", "quantum_bytes": 64}),
            json!({}),
            1.0,
        );
        assert_eq!(messages(&sc), Vec::<String>::new());
    }

    #[test]
    fn every_problem_at_its_key_in_its_unit() {
        let sc: Scenario = serde_json::from_value(six_out_of_bounds()).unwrap();
        let m = messages(&sc);
        assert!(
            m.contains(
                &"links[0].forward.loss: must be at least 0 and at most 1, got 1.5 (default 0)"
                    .to_string()
            ),
            "{m:?}"
        );
        assert!(m.contains(&"links[0].forward.queue.qdisc.quantum_bytes: must be at least 64 B and at most 1 MiB, got 32 B (default 1514 B)".to_string()), "{m:?}");
        assert!(
            m.iter().any(|x| x.starts_with(
                "links[0].forward.queue.qdisc.flows: must be at least 1 and at most 65536, got 0"
            )),
            "{m:?}"
        );
        assert!(
            m.iter()
                .any(|x| x.starts_with("traffic[0].tcp.vegas_alpha: must be above 0")),
            "{m:?}"
        );
        assert!(m.contains(&"traffic[0].tcp.delack_ns: must be at least 1 ns and below 500 ms, got 500 ms (default 40 ms)".to_string()), "{m:?}");
        assert_eq!(m.len(), 6, "{m:?}"); // the reverse direction's loss too
    }

    /// A build from the reader's JSON (`build::build_read`) walks the bounds there: the same
    /// problems as the plan read from it, written back into JSON and walked (`check`).
    #[test]
    fn the_readers_json_walks_as_the_plan_read_from_it() {
        let v = six_out_of_bounds();
        let sc: Scenario = serde_json::from_value(v.clone()).unwrap();
        let text = |ps: &[Problem]| ps.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        assert_eq!(text(&check_value(&v)), messages(&sc));
        let read = crate::build::build_read(&sc, &v).err().unwrap();
        let plain = crate::build::build(&sc).err().unwrap();
        assert_eq!(text(&read), text(&plain));
        assert_eq!(read.len(), 6);
        // In bounds, both build.
        let v = plan_json(json!({"kind": "fifo"}), json!({}), 0.0);
        let sc: Scenario = serde_json::from_value(v.clone()).unwrap();
        assert!(crate::build::build_read(&sc, &v).is_ok());
    }

    #[test]
    fn units_read_well() {
        assert_eq!(quantity("rate_bps", 10e6), "10 Mb/s");
        assert_eq!(quantity("limit_bytes", 1536.0), "1536 B");
        assert_eq!(quantity("limit_bytes", 2048.0), "2 KiB");
        assert_eq!(quantity("delay_ns", 7_200e9), "7200 s");
        assert_eq!(quantity("limit_pkts", 3.0), "3 packets");
    }
}
