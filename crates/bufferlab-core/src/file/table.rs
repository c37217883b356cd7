//! Reading a table key by key while collecting every problem with its key path.
//!
//! The reader never stops at the first problem: each value that cannot be read is recorded in the
//! shared [`Problems`] and comes back as `None`, and the plan is built only when none were found.

use super::close::did_you_mean;
use super::doc::Doc;

/// `path.key`, or `path[i]`.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// Every problem found so far: (key path in the file, what is wrong and how to fix it).
#[derive(Debug, Default)]
pub struct Problems {
    pub items: Vec<(String, String)>,
    /// Paths where a table belongs and something else is: nothing under them is reported again.
    not_tables: Vec<String>,
}

impl Problems {
    pub fn add(&mut self, path: &str, message: impl Into<String>) {
        if self.not_tables.iter().any(|t| {
            path.len() > t.len() && path.starts_with(t.as_str()) && path.as_bytes()[t.len()] == b'.'
        }) {
            return;
        }
        let p = (path.to_string(), message.into());
        if !self.items.contains(&p) {
            self.items.push(p);
        }
    }

    pub fn not_a_table(&mut self, path: &str, message: impl Into<String>) {
        self.add(path, message);
        self.not_tables.push(path.to_string());
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
}

/// A parser of one value: its reading or the message saying how to fix it.
pub type Parse<'a, T> = &'a dyn Fn(&Doc) -> Result<T, String>;

/// A table being read: known keys are taken with a parser, unknown ones are reported.
pub struct Table<'d> {
    pub path: String,
    pub data: &'d [(String, Doc)],
    pub ok: bool,
}

static EMPTY: [(String, Doc); 0] = [];

impl<'d> Table<'d> {
    /// Open `value` as a table at `path` taking `keys`; `unsupported` keys are refused with their
    /// reason, `example` shows a table of the right shape when `value` is not one.
    pub fn open(
        value: &'d Doc,
        path: &str,
        p: &mut Problems,
        keys: &[&str],
        unsupported: &[(&str, &str)],
        example: Option<&str>,
    ) -> Table<'d> {
        let Some(data) = value.as_table() else {
            let hint = example.map(|e| format!(" (e.g. {e})")).unwrap_or_default();
            p.not_a_table(
                path,
                format!("expected a table, got {}{hint}", value.describe()),
            );
            return Table {
                path: path.to_string(),
                data: &EMPTY,
                ok: false,
            };
        };
        for (key, _) in data {
            if keys.contains(&key.as_str()) {
                continue;
            }
            if let Some((_, why)) = unsupported.iter().find(|(k, _)| k == key) {
                p.add(&join(path, key), format!("not supported yet: {why}"));
                continue;
            }
            p.add(
                &join(path, key),
                format!(
                    "unknown key{}; known keys here: {}",
                    did_you_mean(key, keys),
                    keys.join(", ")
                ),
            );
        }
        Table {
            path: path.to_string(),
            data,
            ok: true,
        }
    }

    /// A table whose every key is taken (a map such as `groups`).
    pub fn any_keys(value: &'d Doc, path: &str, p: &mut Problems) -> Table<'d> {
        let keys: Vec<&str> = value
            .as_table()
            .map(|t| t.iter().map(|(k, _)| k.as_str()).collect())
            .unwrap_or_default();
        Table::open(value, path, p, &keys, &[], None)
    }

    pub fn has(&self, key: &str) -> bool {
        self.data.iter().any(|(k, _)| k == key)
    }

    pub fn raw(&self, key: &str) -> Option<&'d Doc> {
        self.data.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The parsed value of `key`: `None` when absent or bad (a problem recorded for bad values).
    pub fn get<T>(&self, p: &mut Problems, key: &str, parse: Parse<T>) -> Option<T> {
        let v = self.raw(key)?;
        self.parse(p, key, v, parse)
    }

    /// `get`, with a problem when the key is missing (`example` shows a value).
    pub fn need<T>(
        &self,
        p: &mut Problems,
        key: &str,
        parse: Parse<T>,
        example: &str,
    ) -> Option<T> {
        if !self.has(key) {
            let ex = if example.is_empty() {
                String::new()
            } else {
                format!(" (e.g. {key} = {example})")
            };
            p.add(&self.at(key), format!("missing{ex}"));
            return None;
        }
        self.get(p, key, parse)
    }

    pub fn parse<T>(&self, p: &mut Problems, key: &str, v: &Doc, parse: Parse<T>) -> Option<T> {
        match parse(v) {
            Ok(x) => Some(x),
            Err(e) => {
                p.add(&self.at(key), e);
                None
            }
        }
    }

    /// The sub-table `key` (`None` when absent).
    pub fn sub(
        &self,
        p: &mut Problems,
        key: &str,
        keys: &[&str],
        unsupported: &[(&str, &str)],
        example: Option<&str>,
    ) -> Option<Table<'d>> {
        let v = self.raw(key)?;
        Some(Table::open(v, &self.at(key), p, keys, unsupported, example))
    }

    pub fn problem(&self, p: &mut Problems, key: Option<&str>, message: impl Into<String>) {
        let at = key.map_or_else(|| self.path.clone(), |k| self.at(k));
        p.add(&at, message);
    }
}

// ---------------------------------------------------------------- plain value parsers

/// A whole number in `[lo, hi]`.
pub fn integer(
    lo: Option<i128>,
    hi: Option<i128>,
    what: &str,
) -> impl Fn(&Doc) -> Result<i128, String> + '_ {
    move |v: &Doc| {
        let n = match v {
            Doc::Int(i) => *i,
            Doc::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1.7e38 => *f as i128,
            Doc::Float(_) => return Err(format!("expected {what}, got {}", v.describe())),
            other => return Err(format!("expected {what}, got {}", other.describe())),
        };
        if let Some(lo) = lo.filter(|lo| n < *lo) {
            return Err(format!("{n} is too small (at least {lo})"));
        }
        if let Some(hi) = hi.filter(|hi| n > *hi) {
            return Err(format!("{n} is too large (at most {hi})"));
        }
        Ok(n)
    }
}

/// Bounds of a [`number`].
#[derive(Clone, Copy, Default)]
pub struct Range {
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub lo_open: bool,
}

/// A number within `range`.
pub fn number(range: Range, what: &str) -> impl Fn(&Doc) -> Result<f64, String> + '_ {
    move |v: &Doc| {
        let x = match v {
            Doc::Int(i) => *i as f64,
            Doc::Float(f) => *f,
            Doc::Str(s) if s.trim().parse::<f64>().is_ok() => {
                return Err(format!(
                    "expected {what}, got the string {} (write it without quotes)",
                    v.describe()
                ))
            }
            other => return Err(format!("expected {what}, got {}", other.describe())),
        };
        if !x.is_finite() {
            return Err(format!("expected {what}, got {}", v.describe()));
        }
        if let Some(lo) = range.lo {
            if x < lo || (range.lo_open && x == lo) {
                let op = if range.lo_open { ">" } else { ">=" };
                return Err(format!(
                    "{} is out of range (must be {op} {})",
                    v.describe(),
                    g(lo)
                ));
            }
        }
        if let Some(hi) = range.hi {
            if x > hi {
                return Err(format!(
                    "{} is out of range (must be <= {})",
                    v.describe(),
                    g(hi)
                ));
            }
        }
        Ok(x)
    }
}

/// A value read, or `null` when it could not be (the key was given: nothing is reported missing).
pub fn or_null<T: Into<serde_json::Value>>(v: Option<T>) -> serde_json::Value {
    v.map_or(serde_json::Value::Null, Into::into)
}

/// Python's `{:g}` for the bounds messages quote: `0`, `1`, `1e+06`.
pub fn g(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-4) {
        super::doc::scientific(x)
    } else {
        let s = format!("{x}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    }
}

pub fn boolean(v: &Doc) -> Result<bool, String> {
    match v {
        Doc::Bool(b) => Ok(*b),
        Doc::Str(s) if matches!(s.to_lowercase().as_str(), "true" | "false") => Err(format!(
            "expected true or false, got the string {} (write {} without quotes)",
            v.describe(),
            s.to_lowercase()
        )),
        other => Err(format!("expected true or false, got {}", other.describe())),
    }
}

/// One of `choices`, spelt exactly.
pub fn choice<'a>(choices: &'a [&'a str]) -> impl Fn(&Doc) -> Result<String, String> + 'a {
    move |v: &Doc| {
        let list = || {
            choices
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Doc::Str(s) = v else {
            return Err(format!("expected one of {}, got {}", list(), v.describe()));
        };
        if choices.contains(&s.as_str()) {
            return Ok(s.clone());
        }
        let normal = s.trim().to_lowercase().replace('-', "_");
        if let Some(c) = choices
            .iter()
            .find(|c| c.to_lowercase().replace('-', "_") == normal)
        {
            return Err(format!("\"{s}\" is not one of {} (try \"{c}\")", list()));
        }
        Err(format!(
            "\"{s}\" is not one of {}{}",
            list(),
            did_you_mean(s, choices)
        ))
    }
}

/// A node or group name: a non-empty string without whitespace, commas or `->`.
pub fn name(v: &Doc) -> Result<String, String> {
    let Doc::Str(s) = v else {
        return Err(format!("expected a name (a string), got {}", v.describe()));
    };
    if s.is_empty() || s.chars().any(char::is_whitespace) || s.contains("->") || s.contains(',') {
        return Err(format!(
            "\"{s}\" is not a usable name (no spaces, commas or \"->\")"
        ));
    }
    Ok(s.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_reported_with_a_suggestion() {
        let d: Doc = serde_json::from_str(r#"{"durration": "1s", "seed": 1}"#).unwrap();
        let mut p = Problems::default();
        let t = Table::open(&d, "run", &mut p, &["duration", "seed"], &[], None);
        assert!(t.ok);
        assert_eq!(
            p.items,
            vec![(
                "run.durration".to_string(),
                "unknown key (did you mean \"duration\"?); known keys here: duration, seed"
                    .to_string()
            )]
        );
    }

    #[test]
    fn nothing_is_reported_below_a_non_table() {
        let mut p = Problems::default();
        let _ = Table::open(&Doc::Int(3), "topology", &mut p, &[], &[], None);
        p.add("topology.pairs", "x");
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn numbers() {
        assert_eq!(g(1e6), "1e+06");
        assert_eq!(g(0.0), "0");
        assert_eq!(g(2.5), "2.5");
        let n = number(
            Range {
                lo: Some(0.0),
                lo_open: true,
                ..Range::default()
            },
            "a scale",
        );
        assert_eq!(
            n(&Doc::Int(0)),
            Err("0 is out of range (must be > 0)".into())
        );
        let i = integer(Some(1), Some(10), "a count");
        assert_eq!(i(&Doc::Float(2.0)), Ok(2));
        assert_eq!(i(&Doc::Float(2.5)), Err("expected a count, got 2.5".into()));
    }
}
