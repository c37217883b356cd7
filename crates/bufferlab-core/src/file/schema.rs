//! The engine's parameters as the scenario file sees them.
//!
//! Each engine parameter is declared once, in the plan's types (its type, unit, bounds, default and
//! doc line). From their JSON Schema this module derives the file's keys (the plan key without its
//! unit: `target_ns` -> `target`) and how to read each value (by its unit, else by its type).
//! Bounds stay the engine's to check ([`crate::bounds`]).

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::doc::Doc;
use super::law::{self, Quantity};
use super::table::{boolean, choice, integer, number, Range};
use super::units;

pub const UNIT_SUFFIXES: [&str; 5] = ["_ns", "_bps", "_bytes", "_pkts", "_pps"];

fn defs() -> &'static Map<String, Value> {
    static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
    crate::bounds::schema()
        .get("$defs")
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// The schema of the plan type `name`.
pub fn definition(name: &str) -> &'static Value {
    defs().get(name).unwrap_or(&Value::Null)
}

/// Follow a `$ref` to `#/$defs/Name`.
pub fn deref(s: &'static Value) -> &'static Value {
    match s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => deref(definition(name)),
        None => s,
    }
}

/// The file's name of a plan key: without its unit (`quantum_bytes` -> `quantum`).
pub fn user_key(plan_key: &str) -> &str {
    UNIT_SUFFIXES
        .iter()
        .find_map(|s| plan_key.strip_suffix(s))
        .unwrap_or(plan_key)
}

/// How a value of a plan key is read from the file.
#[derive(Clone, Debug)]
pub enum Reader {
    Time,
    /// A time or a law of times (`"uniform(5s,5.2s)"`): a key declared as a `Dist`.
    TimeLaw,
    Bytes,
    Rate,
    Choice(Vec<&'static str>),
    Bool,
    Int,
    Num,
}

fn types(prop: &Value) -> Vec<&str> {
    match prop.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

impl Reader {
    /// By the key's unit, else by its type.
    pub fn of(plan_key: &str, prop: &'static Value) -> Reader {
        let is_law = prop.get("$ref").and_then(Value::as_str) == Some("#/$defs/Dist");
        let prop = deref(prop);
        if plan_key.ends_with("_ns") {
            return if is_law {
                Reader::TimeLaw
            } else {
                Reader::Time
            };
        }
        if plan_key.ends_with("_bytes") {
            return Reader::Bytes;
        }
        if plan_key.ends_with("_bps") {
            return Reader::Rate;
        }
        if let Some(e) = prop.get("enum").and_then(Value::as_array) {
            return Reader::Choice(e.iter().filter_map(Value::as_str).collect());
        }
        let consts: Vec<&str> = prop
            .get("oneOf")
            .and_then(Value::as_array)
            .map(|bs| {
                bs.iter()
                    .filter_map(|b| b.get("const").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        if !consts.is_empty() {
            return Reader::Choice(consts);
        }
        let t = types(prop);
        if t.contains(&"boolean") {
            Reader::Bool
        } else if t.contains(&"integer") {
            Reader::Int
        } else {
            Reader::Num
        }
    }

    pub fn read(&self, v: &Doc) -> Result<Value, String> {
        Ok(match self {
            Reader::Time => Value::from(units::time_ns(v)?),
            Reader::TimeLaw => law::parse(v, Quantity::Time)?,
            Reader::Bytes => match v {
                Doc::Int(i) => Value::from(*i as i64),
                _ => Value::from(units::bytes(v)?),
            },
            Reader::Rate => Value::from(super::links::link_rate_bps(v)?),
            Reader::Choice(c) => Value::from(choice(c)(v)?),
            Reader::Bool => Value::from(boolean(v)?),
            Reader::Int => Value::from(integer(None, None, "a whole number")(v)? as i64),
            Reader::Num => Value::from(number(Range::default(), "a number")(v)?),
        })
    }
}

/// One key of a parameter table: the file's name, the plan's, and the property schema.
#[derive(Clone, Debug)]
pub struct Key {
    pub user: &'static str,
    pub plan: &'static str,
    pub prop: &'static Value,
}

impl Key {
    pub fn reader(&self) -> Reader {
        Reader::of(self.plan, self.prop)
    }

    /// The key's doc line.
    pub fn doc(&self) -> String {
        let d = self
            .prop
            .get("description")
            .or_else(|| deref(self.prop).get("description"))
            .and_then(Value::as_str)
            .unwrap_or("");
        d.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

fn keys_of(props: &'static Value, skip: &[&str]) -> Vec<Key> {
    props
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.as_str() != "kind" && !skip.contains(&k.as_str()))
                .map(|(k, p)| Key {
                    user: user_key(k),
                    plan: k.as_str(),
                    prop: p,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Each discipline's `kind` and its parameter keys, in the plan's order.
pub fn disciplines() -> &'static [(&'static str, Vec<Key>)] {
    static D: OnceLock<Vec<(&'static str, Vec<Key>)>> = OnceLock::new();
    D.get_or_init(|| {
        definition("QdiscSpec")
            .get("oneOf")
            .and_then(Value::as_array)
            .map(|bs| {
                bs.iter()
                    .filter_map(|b| {
                        let b = deref(b);
                        let kind = b
                            .pointer("/properties/kind/const")
                            .and_then(Value::as_str)?;
                        Some((kind, keys_of(&b["properties"], &[])))
                    })
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// The discipline names, in the plan's order.
pub fn discipline_names() -> Vec<&'static str> {
    disciplines().iter().map(|(k, _)| *k).collect()
}

/// The parameter keys of discipline `kind`.
pub fn qdisc_keys(kind: &str) -> &'static [Key] {
    disciplines()
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&[], |(_, keys)| keys.as_slice())
}

/// The TCP options a file may set.
pub fn tcp_keys() -> &'static [Key] {
    static K: OnceLock<Vec<Key>> = OnceLock::new();
    K.get_or_init(|| keys_of(&definition("TcpOptions")["properties"], &[]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_declared_as_a_law_reads_one() {
        let rrul = super::super::traffic::kinds()
            .iter()
            .find(|k| k.kind == "rrul")
            .unwrap();
        let (_, prop) = rrul.fields.iter().find(|(k, _)| *k == "delay_ns").unwrap();
        let r = Reader::of("delay_ns", prop);
        assert!(matches!(r, Reader::TimeLaw));
        // A key of the same unit declared as a plain time stays one.
        let (_, interval) = rrul
            .fields
            .iter()
            .find(|(k, _)| *k == "ping_interval_ns")
            .unwrap();
        assert!(matches!(
            Reader::of("ping_interval_ns", interval),
            Reader::Time
        ));
        assert_eq!(
            r.read(&Doc::Str("2s".into())).unwrap(),
            serde_json::json!({"dist": "const", "value": 2e9})
        );
        assert_eq!(
            r.read(&Doc::Str("uniform(1s,2s)".into())).unwrap()["dist"],
            "uniform"
        );
    }

    #[test]
    fn keys_come_from_the_plan_types() {
        assert_eq!(user_key("target_ns"), "target");
        assert_eq!(user_key("ecn"), "ecn");
        let fq: Vec<&str> = qdisc_keys("fq").iter().map(|k| k.user).collect();
        assert!(fq.contains(&"maxrate") && fq.contains(&"flow_limit"));
        let maxrate = qdisc_keys("fq")
            .iter()
            .find(|k| k.user == "maxrate")
            .unwrap();
        assert!(matches!(maxrate.reader(), Reader::Rate));
        let v = maxrate.reader().read(&Doc::Str("5Mbps".into())).unwrap();
        assert_eq!(v, Value::from(5_000_000u64));
        let codel: Vec<&str> = qdisc_keys("codel").iter().map(|k| k.user).collect();
        assert!(codel.contains(&"target") && codel.contains(&"interval"));
        assert_eq!(discipline_names()[0], "fifo");
        assert!(tcp_keys().iter().any(|k| k.user == "cc"));
    }
}
