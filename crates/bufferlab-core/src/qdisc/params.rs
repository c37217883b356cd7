//! Discipline parameters from the plan's `queue.qdisc` map.
//!
//! Each discipline declares a serde struct with `deny_unknown_fields` and a `Default` that cites
//! where each default comes from. Parsing checks one key at a time first, so an error names the
//! key that is wrong (`codel.target_ns: invalid type: ...`), then the whole map.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Limit;

/// Parse `map` into `T`, naming the offending key on error (`"<kind>.<key>: <why>"`).
pub(crate) fn parse<T: DeserializeOwned + Default>(
    kind: &str,
    map: &Map<String, Value>,
) -> Result<T, String> {
    for (k, v) in map {
        let mut one = Map::with_capacity(1);
        one.insert(k.clone(), v.clone());
        if let Err(e) = serde_json::from_value::<T>(Value::Object(one)) {
            return Err(format!("{kind}.{k}: {e}"));
        }
    }
    serde_json::from_value(Value::Object(map.clone())).map_err(|e| format!("{kind}: {e}"))
}

/// A check on one parsed key: `Err("<kind>.<key>: <why>")` when `ok` is false.
pub(crate) fn check(
    ok: bool,
    kind: &str,
    key: &str,
    why: impl FnOnce() -> String,
) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{kind}.{key}: {}", why()))
    }
}

/// The limit a discipline applies when the queue block gave none: Linux's default for it.
pub(crate) fn or_default_pkts(limit: Limit, pkts: u64) -> Limit {
    if limit.pkts.is_none() && limit.bytes.is_none() {
        Limit {
            pkts: Some(pkts),
            bytes: None,
        }
    } else {
        limit
    }
}

/// Linux's `txqueuelen` default (1000 packets), the limit of `codel`, `pie`, `red` and the other
/// single-queue disciplines when the scenario gives none (seed 001 §IV-B; `tc-codel(8)`,
/// `tc-pie(8)`).
pub(crate) const TXQUEUELEN_PKTS: u64 = 1000;

/// A cheap integer hash (SplitMix64's finaliser) for mapping flows to queues: no per-packet
/// hashing of headers, just one multiply-xorshift round trip on the flow id and a seed.
#[inline]
pub(crate) fn flow_hash(flow: u32, seed: u64) -> u64 {
    let mut z = (flow as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields, default)]
    struct P {
        a_ns: u64,
        b: f64,
    }
    impl Default for P {
        fn default() -> Self {
            P { a_ns: 7, b: 0.5 }
        }
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn names_the_bad_key() {
        let e = parse::<P>("x", &map(serde_json::json!({"b": 1.0, "a_ns": "5ms"}))).unwrap_err();
        assert!(e.starts_with("x.a_ns: "), "{e}");
        let e = parse::<P>("x", &map(serde_json::json!({"zz": 1}))).unwrap_err();
        assert!(e.starts_with("x.zz: unknown field"), "{e}");
        let p = parse::<P>("x", &map(serde_json::json!({"b": 2.0}))).unwrap();
        assert_eq!(p, P { a_ns: 7, b: 2.0 });
    }
}
