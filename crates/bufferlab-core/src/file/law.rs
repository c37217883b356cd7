//! Distributions as a file writes them: `"exp(1s)"`, `"uniform(0s, 5s)"`,
//! `"zipf(1.7, max=100000pkt)"`, `"pareto(1.2, mean=36KB)"`, `"lognormal(mean=130ms, sd=30ms)"`,
//! or a plain quantity (a constant), into the plan's [`Dist`].
//!
//! The laws and their parameters are the plan's `Dist` variants; this module knows how each is
//! written (positional order, which parameters carry a unit).

use serde_json::{json, Value};

use super::close::closest;
use super::doc::Doc;
use super::units::{self, quote, Size};

/// What a distribution draws: times (ns) or sizes (bytes; `pkt` counts `pkt_bytes`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    Time,
    Size { pkt_bytes: Option<u64> },
}

/// Each law as written: its name, its parameters in positional order, an example.
const LAWS: &[(&str, &[&str], &str)] = &[
    ("const", &["value"], "const(36KB)"),
    ("exp", &["mean"], "exp(1s)"),
    ("uniform", &["lo", "hi"], "uniform(0s,5s)"),
    ("zipf", &["s", "max"], "zipf(1.7, max=100000pkt)"),
    ("pareto", &["shape", "mean"], "pareto(1.2, mean=36KB)"),
    (
        "lognormal",
        &["mean", "sd"],
        "lognormal(mean=130ms, sd=30ms)",
    ),
];

/// The names of the laws a file may write (the plan's `Dist` variants, in its order).
pub fn law_names() -> Vec<&'static str> {
    LAWS.iter().map(|(n, _, _)| *n).collect()
}

fn quantity(v: &Doc, q: Quantity) -> Result<u64, String> {
    match q {
        Quantity::Time => units::time_ns(v),
        Quantity::Size { pkt_bytes: None } => units::bytes(v),
        Quantity::Size {
            pkt_bytes: Some(pkt),
        } => Ok(match units::size(v, true)? {
            Size::Bytes(b) => b,
            Size::Pkts(n) => n * pkt,
        }),
    }
}

fn example_for(q: Quantity) -> &'static str {
    match q {
        Quantity::Time => "\"exp(1s)\"",
        Quantity::Size { .. } => "\"pareto(1.2, mean=36KB)\"",
    }
}

/// `name(body)` of a distribution, or None.
fn call(s: &str) -> Option<(&str, &str)> {
    let t = s.trim_matches(char::is_whitespace);
    let open = t.find('(')?;
    let name = t[..open].trim_end_matches(char::is_whitespace);
    let ok_name = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let body = t[open + 1..].strip_suffix(')')?;
    ok_name.then_some((name, body))
}

/// A distribution of times or sizes, in the plan's form (`{"dist": "exp", "mean": 1e9}`).
pub fn parse(value: &Doc, q: Quantity) -> Result<Value, String> {
    let Some((name, body)) = value.as_str().and_then(call) else {
        return match quantity(value, q) {
            Ok(x) => Ok(json!({"dist": "const", "value": x as f64})),
            Err(e) => {
                if value.as_str().is_some_and(|s| s.contains('(')) {
                    Err(format!(
                        "{} is not a distribution (e.g. exp(1s))",
                        quote(value.as_str().unwrap_or_default())
                    ))
                } else {
                    Err(format!(
                        "{e}; a distribution such as {} also works",
                        example_for(q)
                    ))
                }
            }
        };
    };
    let text = value.as_str().unwrap_or_default();
    let qv = quote(text);
    let Some(&(_, positional, example)) = LAWS.iter().find(|(n, _, _)| *n == name) else {
        let hint = closest(name, law_names(), 0.5)
            .map(|c| format!(" (try {})", quote(&text.replacen(name, c, 1))))
            .unwrap_or_default();
        return Err(format!(
            "{qv}: unknown distribution {}{hint}; known: {}",
            quote(name),
            law_names().join(", ")
        ));
    };
    if name == "zipf" && q == Quantity::Time {
        return Err(format!(
            "{qv}: zipf is a distribution of sizes, not of times"
        ));
    }
    let mut args: Vec<(&str, &str)> = Vec::new();
    let parts: Vec<&str> = if body.trim().is_empty() {
        vec![]
    } else {
        body.split(',').map(str::trim).collect()
    };
    let mut seen_keyword = false;
    for (i, part) in parts.iter().enumerate() {
        let (key, val) = if let Some((k, v)) = part.split_once('=') {
            seen_keyword = true;
            let (k, v) = (k.trim(), v.trim());
            if !positional.contains(&k) {
                let hint = closest(k, positional.iter().copied(), 0.5)
                    .map(|c| format!(" (did you mean \"{c}\"?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "{qv}: {name} has no parameter {}{hint}; usage: {example}",
                    quote(k)
                ));
            }
            (k, v)
        } else {
            if seen_keyword {
                return Err(format!(
                    "{qv}: positional value after a keyword; usage: {example}"
                ));
            }
            if i >= positional.len() {
                return Err(format!(
                    "{qv}: too many values for {name}; usage: {example}"
                ));
            }
            (positional[i], *part)
        };
        if args.iter().any(|(k, _)| *k == key) {
            return Err(format!("{qv}: {key} given twice"));
        }
        if val.is_empty() {
            return Err(format!("{qv}: empty value for {key}; usage: {example}"));
        }
        args.push((key, val));
    }
    let missing: Vec<&str> = positional
        .iter()
        .filter(|k| !args.iter().any(|(a, _)| a == *k))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{qv}: {name} needs {}; usage: {example}",
            missing.join(", ")
        ));
    }
    let arg = |k: &str| {
        args.iter()
            .find(|(a, _)| *a == k)
            .map(|(_, v)| *v)
            .unwrap_or_default()
    };
    let qty = |k: &str| -> Result<f64, String> {
        quantity(&Doc::Str(arg(k).to_string()), q)
            .map(|x| x as f64)
            .map_err(|e| format!("{qv}: {k}: {e}"))
    };
    let plain = |k: &str| -> Result<f64, String> {
        let x: f64 = arg(k)
            .parse()
            .map_err(|_| format!("{qv}: {k} must be a plain number, not {}", quote(arg(k))))?;
        if !x.is_finite() {
            return Err(format!("{qv}: {k} must be finite"));
        }
        Ok(x)
    };
    let positive_mean = |mean: f64| {
        if mean <= 0.0 {
            Err(format!("{qv}: the mean must be greater than zero"))
        } else {
            Ok(mean)
        }
    };
    Ok(match name {
        "const" => json!({"dist": "const", "value": qty("value")?}),
        "exp" => json!({"dist": "exp", "mean": positive_mean(qty("mean")?)?}),
        "uniform" => {
            let (lo, hi) = (qty("lo")?, qty("hi")?);
            if lo > hi {
                return Err(format!(
                    "{qv}: the lower bound is above the upper (try uniform({},{}))",
                    arg("hi"),
                    arg("lo")
                ));
            }
            json!({"dist": "uniform", "lo": lo, "hi": hi})
        }
        "zipf" => {
            let s = plain("s")?;
            if s <= 0.0 {
                return Err(format!("{qv}: the exponent s must be greater than zero"));
            }
            let Quantity::Size {
                pkt_bytes: Some(unit),
            } = q
            else {
                return Err(format!(
                    "{qv}: zipf needs a packet size here, which this value has none of"
                ));
            };
            let kmax = match units::size(&Doc::Str(arg("max").to_string()), true) {
                Ok(Size::Pkts(n)) => n,
                Ok(Size::Bytes(b)) => b / unit,
                Err(e) => return Err(format!("{qv}: max: {e}")),
            };
            if kmax < 1 {
                return Err(format!("{qv}: max must be at least 1pkt ({unit} B)"));
            }
            if kmax > crate::dist::ZIPF_MAX_SUPPORT {
                return Err(format!(
                    "{qv}: max is {} packets; the engine tabulates the support and takes at most \
                     {} (lower max, or use pareto(shape, mean) for a tail without a bound)",
                    thousands(kmax),
                    thousands(crate::dist::ZIPF_MAX_SUPPORT)
                ));
            }
            json!({"dist": "zipf", "s": s, "max": kmax, "unit": unit as f64})
        }
        "pareto" => {
            let shape = plain("shape")?;
            if shape <= 1.0 {
                return Err(format!(
                    "{qv}: the shape must be greater than 1 for a finite mean"
                ));
            }
            json!({"dist": "pareto", "shape": shape, "mean": positive_mean(qty("mean")?)?})
        }
        _ => {
            let (mean, sd) = (qty("mean")?, qty("sd")?);
            json!({"dist": "lognormal", "mean": positive_mean(mean)?, "sd": sd})
        }
    })
}

/// `n` with a comma between groups of three digits, as Python's `{n:,}` writes it (the messages
/// are the same word for word on both sides).
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str, q: Quantity) -> Result<Value, String> {
        parse(&Doc::Str(s.into()), q)
    }

    #[test]
    fn laws() {
        assert_eq!(
            p("exp(1s)", Quantity::Time).unwrap(),
            json!({"dist": "exp", "mean": 1e9})
        );
        assert_eq!(
            p("2s", Quantity::Time).unwrap(),
            json!({"dist": "const", "value": 2e9})
        );
        let z = p(
            "zipf(1.7, max=100000pkt)",
            Quantity::Size {
                pkt_bytes: Some(1448),
            },
        )
        .unwrap();
        assert_eq!(
            z,
            json!({"dist": "zipf", "s": 1.7, "max": 100000, "unit": 1448.0})
        );
        assert_eq!(
            p("expo(1s)", Quantity::Time).unwrap_err(),
            "\"expo(1s)\": unknown distribution \"expo\" (try \"exp(1s)\"); known: const, exp, uniform, zipf, pareto, lognormal"
        );
        assert_eq!(
            p("uniform(5s, 1s)", Quantity::Time).unwrap_err(),
            "\"uniform(5s, 1s)\": the lower bound is above the upper (try uniform(1s,5s))"
        );
        // The engine's Zipf table has a bound: a larger max is refused when the file is read,
        // not when the run starts.
        let big = p(
            "zipf(1.7, max=12345678pkt)",
            Quantity::Size {
                pkt_bytes: Some(1448),
            },
        )
        .unwrap_err();
        assert!(big.contains("max is 12,345,678 packets"), "{big}");
        assert!(big.contains("at most 10,000,000"), "{big}");
        let ok = p(
            "zipf(1.7, max=10000000pkt)",
            Quantity::Size {
                pkt_bytes: Some(1448),
            },
        );
        assert!(ok.is_ok(), "{ok:?}");
    }
}

#[cfg(test)]
mod declared_once {
    use super::*;

    /// The laws a file may write are exactly the plan's `Dist` variants, in their order.
    #[test]
    fn laws_are_the_plans() {
        let dist = super::super::schema::definition("Dist");
        let tags: Vec<&str> = dist["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b.pointer("/properties/dist/const").and_then(Value::as_str))
            .collect();
        assert_eq!(tags, law_names());
        // Each law's parameters as written are its plan fields (zipf's unit is the segment).
        for (name, params, example) in LAWS {
            let branch = dist["oneOf"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b.pointer("/properties/dist/const").and_then(Value::as_str) == Some(name))
                .unwrap();
            let mut fields: Vec<&str> = branch["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "dist" && *k != "unit")
                .collect();
            fields.sort_unstable();
            let mut ps: Vec<&str> = params.to_vec();
            ps.sort_unstable();
            assert_eq!(fields, ps, "{name}");
            let ex = Doc::Str(example.to_string());
            let sizes = Quantity::Size {
                pkt_bytes: Some(1448),
            };
            assert!(
                parse(&ex, sizes).is_ok() || parse(&ex, Quantity::Time).is_ok(),
                "{example}"
            );
        }
    }
}
