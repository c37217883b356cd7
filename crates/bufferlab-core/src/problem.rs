//! A problem with a plan and where it is.
//!
//! The place is data, not text: a list of keys and list indices from the plan's root (as
//! pydantic's `loc`), so the Python front maps it to the scenario file's keys without parsing a
//! message. `Display` gives the familiar `links[0].forward.rate_bps: why` for logs and tests.

use std::fmt;

use serde::Serialize;

/// One step of a key path: a table key or a list index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A key path from the plan's root; empty for the plan as a whole.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Loc(Vec<Seg>);

impl Loc {
    pub fn root() -> Loc {
        Loc(Vec::new())
    }

    /// The path of these steps.
    pub fn from_segs(segs: &[Seg]) -> Loc {
        Loc(segs.to_vec())
    }

    /// This path extended by a key.
    pub fn key(&self, k: &str) -> Loc {
        let mut v = self.0.clone();
        v.push(Seg::Key(k.to_string()));
        Loc(v)
    }

    /// This path extended by a list index.
    pub fn at(&self, i: usize) -> Loc {
        let mut v = self.0.clone();
        v.push(Seg::Index(i));
        Loc(v)
    }

    /// A problem here.
    pub fn problem(&self, message: impl Into<String>) -> Problem {
        Problem {
            loc: self.clone(),
            message: message.into(),
        }
    }

    pub fn segs(&self) -> &[Seg] {
        &self.0
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(j) => write!(f, "[{j}]")?,
            }
        }
        Ok(())
    }
}

/// What is wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub loc: Loc,
    pub message: String,
}

impl Problem {
    /// A problem found in a part of the plan (its path relative to that part), placed under the
    /// part's own path.
    pub fn under(self, prefix: &Loc) -> Problem {
        let mut v = prefix.0.clone();
        v.extend(self.loc.0);
        Problem {
            loc: Loc(v),
            message: self.message,
        }
    }
}

/// A problem at a key of the part being checked (relative to it; see [`Problem::under`]).
pub fn at_key(key: &str, message: impl Into<String>) -> Problem {
    Loc::root().key(key).problem(message)
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.loc.0.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.loc, self.message)
        }
    }
}

impl std::error::Error for Problem {}

/// Every problem of a plan, one per line.
pub fn join(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_as_keys_and_indices() {
        let l = Loc::root()
            .key("links")
            .at(0)
            .key("forward")
            .key("rate_bps");
        assert_eq!(l.to_string(), "links[0].forward.rate_bps");
        assert_eq!(
            l.problem("zero").to_string(),
            "links[0].forward.rate_bps: zero"
        );
        assert_eq!(Loc::root().problem("empty").to_string(), "empty");
        let j = serde_json::to_string(&l).unwrap();
        assert_eq!(j, r#"["links",0,"forward","rate_bps"]"#);
    }
}
