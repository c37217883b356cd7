//! Topologies: the `dumbbell` and `access` templates, and explicit `[[node]]`/`[[link]]`.
//!
//! Each becomes the plan's explicit form: a node list and links with a `forward` (a -> b) and a
//! `reverse` (b -> a) direction, plus named groups of nodes that traffic blocks may use.
//!
//! dumbbell (Gorinsky et al. 2005, §3.1): `s1..sN -> r1 -> r2 -> d1..dN`. The bottleneck is
//! `r1 -> r2` (`links[0]`); the reverse direction copies it unless `[topology.bottleneck_reverse]`
//! says otherwise. Access links default to twice the bottleneck rate and 0.5 ms, and pair i's
//! access delay applies to both of its access links, so its round-trip propagation time is
//! `2 (2 access_i + bottleneck)`. An access delay given as a distribution is drawn once per pair
//! from the run's seed by the engine's sampler, so every backend builds the same RTTs.
//!
//! access: `client` and `server` joined by one link whose forward direction is `[topology.up]`
//! and reverse `[topology.down]`.

use std::path::Path;

use serde_json::Value;

use super::close::{did_you_mean, name_list};
use super::doc::Doc;
use super::law::{self, Quantity};
use super::links::{complete, link_delay_ns, merge, read_layer, Layer, DIR_KEYS};
use super::table::{choice, index, integer, join, name, Problems, Table};

pub const MAX_PAIRS: i128 = 10_000;
/// 0.5 ms (SCENARIO-FORMAT, dumbbell template).
const DEFAULT_ACCESS_DELAY_NS: u64 = 500_000;
pub const TEMPLATES: [&str; 2] = ["dumbbell", "access"];

#[derive(Debug, Default)]
pub struct Topology {
    pub nodes: Vec<String>,
    pub links: Vec<Value>,
    /// Named groups of nodes, in the order declared.
    pub groups: Vec<(String, Vec<String>)>,
    /// (plan path prefix, the file's key path) for placing the engine's problems at the file's keys.
    pub origins: Vec<(String, String)>,
    /// Only the nodes and groups are known (a template whose links could not be read): enough
    /// to check the traffic's endpoints in the same report, not its routes, and no plan.
    pub partial: bool,
}

impl Topology {
    fn add_link(
        &mut self,
        a: &str,
        b: &str,
        fwd: Value,
        rev: Value,
        fwd_from: &str,
        rev_from: &str,
    ) {
        let i = self.links.len();
        // Moved in, not through `json!` (which would serialise each direction again).
        let mut link = serde_json::Map::new();
        link.insert("a".into(), Value::from(a));
        link.insert("b".into(), Value::from(b));
        link.insert("forward".into(), fwd);
        link.insert("reverse".into(), rev);
        self.links.push(Value::Object(link));
        self.origins
            .push((format!("links[{i}].forward"), fwd_from.to_string()));
        self.origins
            .push((format!("links[{i}].reverse"), rev_from.to_string()));
    }

    pub fn group(&self, g: &str) -> Option<&[String]> {
        self.groups
            .iter()
            .find(|(n, _)| n == g)
            .map(|(_, m)| m.as_slice())
    }
}

/// The topology of the whole document (`doc` is its top-level table).
/// `dir` is the folder trace files are named from (the scenario file's).
pub fn read_topology(doc: &Table, p: &mut Problems, seed: u64, dir: &Path) -> Option<Topology> {
    let explicit = doc.has("node") || doc.has("link");
    let Some(raw) = doc.raw("topology") else {
        if explicit {
            return explicit_topology(doc, p, None, dir);
        }
        p.add(
            "topology",
            "missing (e.g. [topology] template = \"dumbbell\", or [[node]] and [[link]] tables)",
        );
        return None;
    };
    if raw.as_table().is_none() {
        p.add(
            "topology",
            format!(
                "expected a table, got {} (e.g. [topology] template = \"access\")",
                raw.describe()
            ),
        );
        return None;
    }
    let Some(template) = raw.get("template") else {
        let t = Table::open(raw, "topology", p, &["groups", "node", "link"], &[], None);
        let inner = t.has("node") || t.has("link");
        if explicit && inner {
            p.add(
                "topology.node",
                "give [[node]]/[[link]] either at the top level or in [topology], not both",
            );
            return None;
        }
        if !explicit && !inner {
            p.add(
                "topology.template",
                "missing: give a template (\"dumbbell\" or \"access\") or [[node]] and [[link]] tables",
            );
            return None;
        }
        return explicit_topology(if explicit { doc } else { &t }, p, Some(&t), dir);
    };
    if let Err(e) = choice(&TEMPLATES)(template) {
        p.add("topology.template", e);
        return None;
    }
    if explicit {
        let at = if doc.has("node") { "node" } else { "link" };
        p.add(
            at,
            format!(
                "[[node]]/[[link]] cannot be combined with template = \"{}\"",
                template.plain()
            ),
        );
    }
    if template.as_str() == Some("dumbbell") {
        dumbbell(raw, p, seed, dir)
    } else {
        access(raw, p, dir)
    }
}

// ---------------------------------------------------------------- dumbbell

fn dumbbell(raw: &Doc, p: &mut Problems, seed: u64, dir: &Path) -> Option<Topology> {
    let keys = [
        "template",
        "pairs",
        "bottleneck",
        "bottleneck_reverse",
        "access",
    ];
    let t = Table::open(raw, "topology", p, &keys, &[], None);
    let pairs = match t.raw("pairs") {
        None => Some(1),
        Some(_) => t.get(
            p,
            "pairs",
            &integer(
                Some(1),
                Some(MAX_PAIRS),
                "a number of sender/receiver pairs",
            ),
        ),
    }
    .map(|n| n as usize);
    let bt = t.sub(
        p,
        "bottleneck",
        &DIR_KEYS,
        &[],
        Some("{ rate = \"10Mbps\", delay = \"50ms\" }"),
    );
    if bt.is_none() {
        p.add(
            "topology.bottleneck",
            "missing (e.g. [topology.bottleneck] rate = \"10Mbps\", delay = \"50ms\")",
        );
    }
    let base = bt.as_ref().map(|bt| read_layer(bt, p, dir));
    let rt = t.sub(p, "bottleneck_reverse", &DIR_KEYS, &[], None);
    let rev_layer = rt
        .as_ref()
        .map(|rt| read_layer(rt, p, dir))
        .unwrap_or_default();
    // The access links are read even without a bottleneck, so that their problems come in the
    // same report ("every problem at once").
    let (mut layer, delays) = match t.sub(p, "access", &DIR_KEYS, &[], None) {
        Some(at) => access_layer(&at, pairs.unwrap_or(1), seed, p, dir),
        None => (Layer::new(), None),
    };
    // Without its bottleneck, or without a valid number of pairs (then every name a dumbbell can
    // have: a misspelt `dd1` is still no node of it), the traffic's endpoints are checked
    // against the template's names alone.
    let (Some(pairs), Some(base)) = (pairs, base) else {
        return Some(Topology {
            partial: true,
            ..dumbbell_nodes(pairs.unwrap_or(MAX_PAIRS as usize))
        });
    };
    let fwd = complete(&base, "topology.bottleneck", p);
    // A key missing from both is reported once, at the bottleneck.
    let rev = complete(&merge(&[&base, &rev_layer]), "topology.bottleneck", p);
    if !layer.contains_key("rate_bps") {
        let r = fwd["rate_bps"]
            .as_u64()
            .filter(|r| *r != 0)
            .map_or(Value::Null, |r| Value::from(2 * r));
        layer.insert("rate_bps".into(), r);
    }
    let delays = delays.unwrap_or_else(|| {
        let d = layer
            .get("delay_ns")
            .cloned()
            .unwrap_or(Value::from(DEFAULT_ACCESS_DELAY_NS));
        vec![d; pairs]
    });
    layer.remove("delay_ns");

    let mut topo = dumbbell_nodes(pairs);
    let (senders, receivers) = (topo.groups[0].1.clone(), topo.groups[1].1.clone());
    let rev_from = if rt.is_some() {
        "topology.bottleneck_reverse"
    } else {
        "topology.bottleneck"
    };
    topo.add_link("r1", "r2", fwd, rev, "topology.bottleneck", rev_from);
    for (i, delay) in delays.into_iter().enumerate() {
        let mut l = layer.clone();
        l.insert("delay_ns".into(), delay);
        let spec = complete(&l, "topology.access", p);
        // Both access links of a pair, both directions, carry the same rate and delay.
        topo.add_link(
            &senders[i],
            "r1",
            spec.clone(),
            spec.clone(),
            "topology.access",
            "topology.access",
        );
        topo.add_link(
            "r2",
            &receivers[i],
            spec.clone(),
            spec,
            "topology.access",
            "topology.access",
        );
    }
    Some(topo)
}

/// A dumbbell's nodes (`s1`..`sN`, `r1`, `r2`, `d1`..`dN`) and its two groups, no links yet.
fn dumbbell_nodes(pairs: usize) -> Topology {
    let senders: Vec<String> = (1..=pairs).map(|i| format!("s{i}")).collect();
    let receivers: Vec<String> = (1..=pairs).map(|i| format!("d{i}")).collect();
    Topology {
        nodes: senders
            .iter()
            .cloned()
            .chain(["r1".into(), "r2".into()])
            .chain(receivers.iter().cloned())
            .collect(),
        groups: vec![("senders".into(), senders), ("receivers".into(), receivers)],
        ..Topology::default()
    }
}

/// The access table: a direction layer whose `delay` may also be a list (one per pair) or a
/// distribution (drawn per pair).
fn access_layer(
    t: &Table,
    pairs: usize,
    seed: u64,
    p: &mut Problems,
    dir: &Path,
) -> (Layer, Option<Vec<Value>>) {
    let delay = t.raw("delay");
    let plain = match delay {
        None => true,
        Some(Doc::Str(s)) => !s.contains('('),
        Some(_) => false,
    };
    if plain {
        return (read_layer(t, p, dir), None);
    }
    let delay = delay.unwrap_or(&Doc::Null);
    let rest: Vec<(String, Doc)> = t
        .data
        .iter()
        .filter(|(k, _)| k != "delay")
        .cloned()
        .collect();
    let rest_doc = Doc::Table(rest);
    let layer = read_layer(
        &Table::open(&rest_doc, &t.path, p, &DIR_KEYS, &[], None),
        p,
        dir,
    );
    let path = t.at("delay");
    if let Some(list) = delay.as_list() {
        if list.len() != pairs {
            p.add(
                &path,
                format!(
                    "gives {} delays for {pairs} pairs (give one per pair, or a single delay)",
                    list.len()
                ),
            );
            return (layer, None);
        }
        let mut out = Vec::new();
        for (i, v) in list.iter().enumerate() {
            match link_delay_ns(v) {
                Ok(d) => out.push(Value::from(d)),
                Err(e) => p.add(&index(&path, i), e),
            }
        }
        let ok = out.len() == pairs;
        return (layer, ok.then_some(out));
    }
    let dist = match law::parse(delay, Quantity::Time) {
        Ok(d) => d,
        Err(e) => {
            p.add(&path, e);
            return (layer, None);
        }
    };
    // Drawn once per pair from the run's seed, by the engine's sampler and random family; the
    // resolved plan carries the values, so every backend (and ns-3) builds the same RTTs.
    let drawn = serde_json::from_value::<crate::scenario::Dist>(dist)
        .map_err(|e| e.to_string())
        .and_then(|d| crate::dist::draw_n(&d, seed, pairs));
    match drawn {
        Ok(v) => (layer, Some(v.into_iter().map(Value::from).collect())),
        Err(e) => {
            p.add(&path, e);
            (layer, None)
        }
    }
}

// ---------------------------------------------------------------- access

fn access(raw: &Doc, p: &mut Problems, dir: &Path) -> Option<Topology> {
    let t = Table::open(raw, "topology", p, &["template", "up", "down"], &[], None);
    let up = t.sub(
        p,
        "up",
        &DIR_KEYS,
        &[],
        Some("{ rate = \"800kbps\", delay = \"52ms\" }"),
    );
    let down = t.sub(
        p,
        "down",
        &DIR_KEYS,
        &[],
        Some("{ rate = \"5Mbps\", delay = \"42ms\" }"),
    );
    for (key, sub, what) in [
        ("up", &up, "client -> server"),
        ("down", &down, "server -> client"),
    ] {
        if sub.is_none() {
            p.add(
                &format!("topology.{key}"),
                format!("missing: the {what} direction (e.g. [topology.{key}] rate = \"10Mbps\", delay = \"10ms\")"),
            );
        }
    }
    // Each direction given is read even when the other is missing, so that its problems come
    // in the same report ("every problem at once").
    let fwd = up.map(|t| complete(&read_layer(&t, p, dir), "topology.up", p));
    let rev = down.map(|t| complete(&read_layer(&t, p, dir), "topology.down", p));
    let mut topo = Topology {
        nodes: vec!["client".into(), "server".into()],
        ..Topology::default()
    };
    let (Some(fwd), Some(rev)) = (fwd, rev) else {
        topo.partial = true;
        return Some(topo);
    };
    topo.add_link("client", "server", fwd, rev, "topology.up", "topology.down");
    Some(topo)
}

// ---------------------------------------------------------------- explicit

fn unknown_node(nm: &str, nodes: &[String]) -> String {
    let names: Vec<&str> = nodes.iter().map(String::as_str).collect();
    let declared = if names.is_empty() {
        "none".to_string()
    } else {
        name_list(&names)
    };
    format!(
        "unknown node \"{nm}\"{}; declared: {declared}",
        did_you_mean(nm, &names)
    )
}

fn list_of<'d>(
    where_: &Table<'d>,
    key: &str,
    p: &mut Problems,
    missing: &str,
    not_list: &str,
) -> (String, &'d [Doc]) {
    let path = join(&where_.path, key);
    match where_.raw(key) {
        None => {
            p.add(&path, missing);
            (path, &[])
        }
        Some(Doc::List(l)) => (path, l.as_slice()),
        Some(_) => {
            p.add(&path, not_list);
            (path, &[])
        }
    }
}

fn explicit_topology(
    where_: &Table,
    p: &mut Problems,
    topo_table: Option<&Table>,
    dir: &Path,
) -> Option<Topology> {
    let mut topo = Topology::default();
    let (node_path, nodes) = list_of(
        where_,
        "node",
        p,
        "missing: declare each node, e.g. [[node]] name = \"r1\"",
        "expected a list of tables ([[node]] name = \"r1\")",
    );
    for (i, n) in nodes.iter().enumerate() {
        let nt = Table::open(
            n,
            &index(&node_path, i),
            p,
            &["name"],
            &[],
            Some("{ name = \"r1\" }"),
        );
        let Some(nm) = nt.need(p, "name", &name, "\"r1\"") else {
            continue;
        };
        if topo.nodes.contains(&nm) {
            p.add(&nt.at("name"), format!("\"{nm}\" is declared twice"));
            continue;
        }
        topo.nodes.push(nm);
    }

    let (link_path, links) = list_of(
        where_,
        "link",
        p,
        "missing: join nodes with [[link]] between = [\"a\", \"b\"], rate, delay",
        "expected a list of tables ([[link]] between = [\"a\", \"b\"])",
    );
    let mut keys: Vec<&str> = vec!["between"];
    keys.extend(DIR_KEYS);
    keys.extend(["forward", "reverse"]);
    let mut seen: Vec<(String, String)> = Vec::new();
    for (i, lraw) in links.iter().enumerate() {
        let path = index(&link_path, i);
        let lt = Table::open(lraw, &path, p, &keys, &[], None);
        let mut ends: Option<(String, String)> = None;
        match lt.raw("between") {
            None => p.add(
                &lt.at("between"),
                "missing (e.g. between = [\"r1\", \"r2\"])",
            ),
            Some(Doc::List(l)) if l.len() == 2 && l.iter().all(|x| x.as_str().is_some()) => {
                let (a, b) = (l[0].plain(), l[1].plain());
                for (j, nm) in [&a, &b].into_iter().enumerate() {
                    if !topo.nodes.contains(nm) {
                        p.add(&index(&lt.at("between"), j), unknown_node(nm, &topo.nodes));
                    }
                }
                let key = if a <= b {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                };
                if a == b {
                    p.add(
                        &lt.at("between"),
                        format!("a link joins two different nodes, not \"{a}\" to itself"),
                    );
                } else if seen.contains(&key) {
                    p.add(
                        &lt.at("between"),
                        format!("a second link between \"{a}\" and \"{b}\" (one link per pair of nodes)"),
                    );
                }
                seen.push(key);
                ends = Some((a, b));
            }
            Some(other) => p.add(
                &lt.at("between"),
                format!(
                    "expected two node names, e.g. [\"r1\", \"r2\"], got {}",
                    other.describe()
                ),
            ),
        }
        let common = read_layer(&lt, p, dir);
        let ft = lt.sub(p, "forward", &DIR_KEYS, &[], None);
        let rt = lt.sub(p, "reverse", &DIR_KEYS, &[], None);
        // A key missing from both the link and its direction is reported once, at the link.
        let fl = ft
            .as_ref()
            .map(|t| read_layer(t, p, dir))
            .unwrap_or_default();
        let rl = rt
            .as_ref()
            .map(|t| read_layer(t, p, dir))
            .unwrap_or_default();
        let fwd = complete(&merge(&[&common, &fl]), &path, p);
        let rev = complete(&merge(&[&common, &rl]), &path, p);
        if let Some((a, b)) = ends {
            let ff = if ft.is_some() {
                lt.at("forward")
            } else {
                path.clone()
            };
            let rf = if rt.is_some() {
                lt.at("reverse")
            } else {
                path.clone()
            };
            topo.add_link(&a, &b, fwd, rev, &ff, &rf);
        }
    }

    if let Some(tt) = topo_table {
        if let Some(graw) = tt.raw("groups") {
            let gt = Table::any_keys(graw, "topology.groups", p);
            for (g, members) in gt.data {
                let gp = gt.at(g);
                if topo.nodes.contains(g) {
                    p.add(&gp, format!("\"{g}\" is already a node name"));
                    continue;
                }
                let names: Option<Vec<String>> = members
                    .as_list()
                    .filter(|l| !l.is_empty())
                    .and_then(|l| l.iter().map(|m| m.as_str().map(str::to_string)).collect());
                let Some(names) = names else {
                    p.add(
                        &gp,
                        format!(
                            "expected a non-empty list of node names, got {}",
                            members.describe()
                        ),
                    );
                    continue;
                };
                for (j, m) in names.iter().enumerate() {
                    if !topo.nodes.contains(m) {
                        p.add(&index(&gp, j), unknown_node(m, &topo.nodes));
                    }
                }
                topo.groups.push((g.clone(), names));
            }
        }
    }
    Some(topo)
}
