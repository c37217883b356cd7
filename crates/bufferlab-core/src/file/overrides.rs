//! `--set` overrides: `"topology.bottleneck.rate" = "20Mbps"` set in the document before it is
//! read. Paths are dotted keys, with `[i]` or `.i` for the i-th table of a list
//! (`traffic[0].cc`); missing tables are created, a missing list element is a problem.

use super::doc::Doc;
use super::table::{index, join};
use super::FileProblem;
use crate::problem::Seg;

/// A key path's steps (`traffic[0].cc`, `traffic.0.cc` -> [traffic, 0, cc]); `None` if it is
/// not one.
pub fn key_path(path: &str) -> Option<Vec<Seg>> {
    let mut out = Vec::new();
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' if i > 0 && i + 1 < b.len() && b[i + 1] != b'.' && b[i + 1] != b'[' => i += 1,
            b'[' => {
                let end = path[i..].find(']')? + i;
                out.push(Seg::Index(path[i + 1..end].parse().ok()?));
                i = end + 1;
            }
            b'.' | b']' => return None,
            _ => {
                let end = path[i..]
                    .find(['.', '[', ']'])
                    .map_or(path.len(), |e| e + i);
                let name = &path[i..end];
                out.push(match name.bytes().all(|c| c.is_ascii_digit()) {
                    true => Seg::Index(name.parse().ok()?),
                    false => Seg::Key(name.to_string()),
                });
                i = end;
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

fn kind_of(v: &Doc) -> String {
    match v {
        Doc::Table(_) => "a table".into(),
        other => other.describe(),
    }
}

/// Set each `(key path, value)` in `doc`; the problems of those that cannot be set.
pub fn apply(doc: &mut Doc, overrides: &[(String, Doc)]) -> Vec<FileProblem> {
    let mut problems = Vec::new();
    'each: for (key, value) in overrides {
        let Some(steps) = key_path(key) else {
            problems.push((
                key.clone(),
                "not a key path (e.g. \"topology.bottleneck.rate\" or \"traffic[0].cc\")".into(),
            ));
            continue;
        };
        let mut node: &mut Doc = doc;
        let mut at = String::new();
        for (j, step) in steps.iter().enumerate() {
            let last = j == steps.len() - 1;
            match step {
                Seg::Index(i) => {
                    let n = node.as_list().map_or(0, <[Doc]>::len);
                    let list = match node {
                        Doc::List(list) if *i < n => list,
                        _ => {
                            let whole = if at.is_empty() { "document" } else { &at };
                            problems
                                .push((key.clone(), format!("{whole} has {n} entries, no [{i}]")));
                            continue 'each;
                        }
                    };
                    at = index(&at, *i);
                    if last {
                        list[*i] = value.clone();
                        continue 'each;
                    }
                    node = &mut list[*i];
                }
                Seg::Key(k) => {
                    let desc = kind_of(node);
                    let Doc::Table(table) = node else {
                        problems.push((key.clone(), format!("{at} is {desc}, not a table")));
                        continue 'each;
                    };
                    let pos = match table.iter().position(|(name, _)| name == k) {
                        Some(pos) => pos,
                        None => {
                            let fresh = if last {
                                Doc::Null
                            } else if matches!(steps[j + 1], Seg::Index(_)) {
                                Doc::List(vec![])
                            } else {
                                Doc::Table(vec![])
                            };
                            table.push((k.clone(), fresh));
                            table.len() - 1
                        }
                    };
                    at = join(&at, k);
                    if last {
                        table[pos].1 = value.clone();
                        continue 'each;
                    }
                    node = &mut table[pos].1;
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_keys_and_creates_tables() {
        let mut d: Doc = serde_json::from_str(r#"{"traffic": [{"cc": "reno"}]}"#).unwrap();
        let bad = apply(
            &mut d,
            &[
                ("traffic[0].cc".into(), Doc::Str("cubic".into())),
                ("topology.pairs".into(), Doc::Int(20)),
                ("traffic[3].cc".into(), Doc::Str("x".into())),
            ],
        );
        assert_eq!(
            d.get("traffic").unwrap().as_list().unwrap()[0].get("cc"),
            Some(&Doc::Str("cubic".into()))
        );
        assert_eq!(d.get("topology").unwrap().get("pairs"), Some(&Doc::Int(20)));
        assert_eq!(
            bad,
            vec![(
                "traffic[3].cc".to_string(),
                "traffic has 1 entries, no [3]".to_string()
            )]
        );
    }
}
