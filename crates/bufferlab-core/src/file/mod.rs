//! The scenario file, read in one place: TOML's values (or a Python dict's) are unit-parsed,
//! templated (dumbbell, access, explicit nodes and links, groups, per-pair lists), overridden
//! (`--set`) and checked against the one declaration of each key (the plan's types), and
//! expanded into the plan the engine runs ([`crate::scenario::Scenario`]).
//!
//! Every problem is found in one pass and born with its file key: the reader's own, the bounds
//! the plan's types declare, the rules across the keys of each part ([`crate::rules`]: CoDel's
//! target below its interval, a TCP block's RTO bounds in order, ...), and what only the built
//! engine knows (sizing rules), the last three placed at the file's keys through the origins the
//! templates record.

pub mod close;
pub mod decimal;
pub mod doc;
pub mod law;
pub mod links;
pub mod overrides;
pub mod queue;
pub mod schema;
pub mod table;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod units;
mod where_;

pub use where_::place;

use std::path::Path;

use serde_json::{json, Map, Value};

pub use doc::Doc;
use table::{integer, Problems, Table};

/// The seed of a file that gives none.
pub const DEFAULT_SEED: u64 = 1;
const TOP_KEYS: [&str; 6] = ["description", "run", "topology", "node", "link", "traffic"];
const RUN_KEYS: [&str; 7] = [
    "duration",
    "seed",
    "measure",
    "sample",
    "capture",
    "capture_snaplen",
    "capture_limit",
];

/// A scenario read and expanded.
#[derive(Debug)]
pub struct Read {
    /// The plan, as the engine's JSON (what the file gave; the engine's defaults left out).
    pub plan: Value,
    /// The same plan, typed.
    pub scenario: crate::Scenario,
    /// Named groups of nodes (the dumbbell's `senders` and `receivers`, explicit `groups`).
    pub groups: Vec<(String, Vec<String>)>,
    /// (plan path, file key path): where each part of the plan came from.
    pub origins: Vec<(String, String)>,
}

/// A problem at a file key: (key path, what is wrong and how to fix it).
pub type FileProblem = (String, String);

/// Read `doc` (with `seed` in place of `run.seed`): the plan, or every problem at once.
/// `engine_check` adds what only the built engine can check (routes, sizing rules). Files the
/// scenario names (link traces) are found from `dir`, the scenario file's folder.
pub fn read(
    doc: &Doc,
    seed: Option<u64>,
    engine_check: bool,
    dir: &Path,
) -> Result<Read, Vec<FileProblem>> {
    let mut p = Problems::default();
    let top = Table::open(doc, "", &mut p, &TOP_KEYS, &[], None);
    if top.raw("description").is_some_and(|d| d.as_str().is_none()) {
        p.add("description", "expected a string");
    }
    let run = read_run(&top, &mut p, seed);
    let topo_seed = run
        .get("seed")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_SEED);
    let topo = topology::read_topology(&top, &mut p, topo_seed, dir);
    let (traffic, t_origins) = traffic::read_traffic(&top, topo.as_ref(), &mut p);
    // A partial topology (a template's nodes without its links) served the traffic's endpoints;
    // the plan has none.
    let topo = topo.filter(|t| !t.partial);
    let mut origins = vec![("run".to_string(), "run".to_string())];
    if let Some(t) = &topo {
        origins.extend(t.origins.iter().cloned());
    }
    origins.extend(t_origins);
    let read_topology = topo.is_some();
    let (nodes, links, groups) =
        topo.map_or((vec![], vec![], vec![]), |t| (t.nodes, t.links, t.groups));
    let mut plan = Map::new();
    plan.insert("run".into(), Value::Object(run));
    plan.insert("nodes".into(), Value::from(nodes));
    plan.insert("links".into(), Value::Array(links));
    plan.insert("traffic".into(), Value::Array(traffic));
    let plan = Value::Object(plan);
    if !p.is_empty() || !read_topology {
        // One pass: the bounds of what could be read, and the rules across its keys, are
        // reported with the reader's problems (a rule only where nothing above or below its key
        // is wrong already: one mistake, one message).
        let mut found = p.items;
        let bounds = where_::place(&crate::bounds::check_value(&plan), &origins);
        for b in bounds {
            if !found.iter().any(|(path, _)| *path == b.0) {
                found.push(b);
            }
        }
        let rules = where_::place(&crate::rules::check_value(&plan), &origins);
        for r in rules {
            if !found.iter().any(|(path, _)| nested(path, &r.0)) {
                found.push(r);
            }
        }
        return Err(found);
    }
    use serde::Deserialize;
    let scenario = match crate::Scenario::deserialize(&plan) {
        Ok(sc) => sc,
        Err(e) => {
            // A number the reader passed on that its type cannot hold (a ring of -1 packets):
            // its bounds name the key and the range.
            let bounds = where_::place(&crate::bounds::check_value(&plan), &origins);
            if !bounds.is_empty() {
                return Err(bounds);
            }
            return Err(vec![(
                String::new(),
                format!("the plan cannot be read: {e}"),
            )]);
        }
    };
    if engine_check {
        let problems = crate::check(&scenario);
        if !problems.is_empty() {
            return Err(where_::place(&problems, &origins));
        }
    }
    Ok(Read {
        plan,
        scenario,
        groups,
        origins,
    })
}

/// Whether one key path is the other or lies under it (`a.b` and `a.b.c`, `a` and `a[0]`).
fn nested(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.strip_prefix(short)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

fn read_run(top: &Table, p: &mut Problems, seed: Option<u64>) -> Map<String, Value> {
    let mut run = Map::new();
    let Some(rt) = top.sub(
        p,
        "run",
        &RUN_KEYS,
        &[],
        Some("{ duration = \"60s\", seed = 1 }"),
    ) else {
        p.add("run", "missing (e.g. [run] duration = \"60s\")");
        return run;
    };
    // Its bounds (longer than zero, at most 30 days) are the engine's, reported with ours.
    let duration = rt.need(p, "duration", &units::time_ns, "\"60s\"");
    run.insert(
        "duration_ns".into(),
        duration.map_or(Value::Null, Value::from),
    );
    let file_seed = match rt.raw("seed") {
        None => Some(DEFAULT_SEED),
        Some(_) => rt
            .get(
                p,
                "seed",
                &integer(
                    Some(0),
                    Some(u64::MAX as i128),
                    "a seed (a whole number >= 0)",
                ),
            )
            .map(|s| s as u64),
    };
    run.insert(
        "seed".into(),
        seed.or(file_seed).map_or(Value::Null, Value::from),
    );
    if rt.has("measure") {
        run.insert(
            "measure_ns".into(),
            // A zero duration is the bounds' problem alone: no window fits in it to suggest.
            measure(&rt, p, duration.filter(|&d| d > 0)).map_or(Value::Null, |m| json!(m)),
        );
    }
    if rt.has("sample") {
        // Longer than zero, and at most ten million samples per series: the engine's checks.
        run.insert(
            "sample_ns".into(),
            rt.get(p, "sample", &units::time_ns)
                .map_or(Value::Null, Value::from),
        );
    }
    // The points are the engine's to check against the topology; their bounds too.
    if rt.has("capture") {
        run.insert(
            "capture".into(),
            rt.get(p, "capture", &capture_points)
                .map_or(Value::Null, Value::from),
        );
    }
    for (key, plan_key) in [
        ("capture_snaplen", "capture_snaplen_bytes"),
        ("capture_limit", "capture_limit_bytes"),
    ] {
        if rt.has(key) {
            let v = rt.get(p, key, &units::bytes);
            run.insert(plan_key.into(), v.map_or(Value::Null, Value::from));
        }
    }
    run
}

/// `capture = ["r1->r2", "h1"]`: the capture points, as strings.
fn capture_points(v: &Doc) -> Result<Vec<String>, String> {
    let example = "e.g. [\"r1->r2\", \"r1->r2:drops\", \"h1\"]";
    let Some(list) = v.as_list() else {
        return Err(format!(
            "expected a list of capture points ({example}), got {}",
            v.describe()
        ));
    };
    list.iter()
        .map(|x| match x.as_str() {
            Some(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            _ => Err(format!(
                "expected capture points as strings ({example}), got {}",
                x.describe()
            )),
        })
        .collect()
}

fn measure(rt: &Table, p: &mut Problems, duration: Option<u64>) -> Option<[u64; 2]> {
    let raw = rt.raw("measure")?;
    let Some(list) = raw.as_list().filter(|l| l.len() == 2) else {
        rt.problem(
            p,
            Some("measure"),
            format!(
                "expected a window [start, end], e.g. [\"10s\", \"60s\"], got {}",
                raw.describe()
            ),
        );
        return None;
    };
    let mut ends = Vec::new();
    for (j, v) in list.iter().enumerate() {
        match units::time_ns(v) {
            Ok(t) => ends.push(t),
            Err(e) => p.add(&table::index(&rt.at("measure"), j), e),
        }
    }
    let [a, b] = ends[..] else { return None };
    if a >= b {
        let msg = if a > b {
            format!(
                "the window ends before it starts (try [\"{}\", \"{}\"])",
                list[1].plain(),
                list[0].plain()
            )
        } else {
            "the window is empty".to_string()
        };
        rt.problem(p, Some("measure"), msg);
        return None;
    }
    if let Some(d) = duration.filter(|d| b > *d) {
        // A run measures only inside its window, and the window only inside the run: the part
        // that would run, or the whole run when the window would not even open.
        let dur = rt.raw("duration").map(Doc::plain).unwrap_or_default();
        let from = if a < d {
            list[0].plain()
        } else {
            "0s".to_string()
        };
        rt.problem(
            p,
            Some("measure"),
            format!(
                "the window ends at {}, after the run (duration {dur}); measure within it (try [\"{from}\", \"{dur}\"])",
                list[1].plain()
            ),
        );
        return None;
    }
    Some([a, b])
}
