//! Where in the file a problem with the plan lies.
//!
//! The templates record origins: plan path prefixes (`links[3].forward`, `traffic[0]`) and the
//! file key each came from (`topology.bottleneck`, `traffic[0]`). Below them the plan's keys
//! become the file's by dropping the tables the file does not have (`qdisc`, `tcp`) and the unit
//! in the name (`target_ns` -> `target`).

use super::schema::user_key;
use super::FileProblem;
use crate::problem::{Problem, Seg};

/// A key path's steps: `links[3].forward` -> [links, 3, forward].
pub fn steps(path: &str) -> Vec<Seg> {
    super::overrides::key_path(path).unwrap_or_default()
}

/// A path as text: `links[0].forward`.
pub fn text(segs: &[Seg]) -> String {
    let mut out = String::new();
    for s in segs {
        match s {
            Seg::Key(k) if out.is_empty() => out.push_str(k),
            Seg::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A problem the engine found in the plan, at the file's key.
pub fn place_one(p: &Problem, origins: &[(String, String)]) -> FileProblem {
    let loc = p.loc.segs();
    let best = origins
        .iter()
        .map(|(plan, user)| (steps(plan), user))
        .filter(|(s, _)| loc.len() >= s.len() && loc[..s.len()] == s[..])
        .max_by_key(|(s, _)| s.len());
    let Some((prefix, user)) = best else {
        let segs: Vec<Seg> = loc
            .iter()
            .map(|s| match s {
                Seg::Key(k) => Seg::Key(user_key(k).to_string()),
                other => other.clone(),
            })
            .collect();
        return (text(&segs), p.message.clone());
    };
    let mut tail: Vec<Seg> = Vec::new();
    for step in &loc[prefix.len()..] {
        let last = match tail.last() {
            Some(Seg::Key(k)) => k.as_str(),
            _ => "",
        };
        match step {
            // The discipline's keys sit in the file's queue table; TCP's in the block.
            Seg::Key(k) if k == "tcp" || k == "qdisc" => continue,
            // The file gives the byte limit itself.
            Seg::Key(k) if last == "bql" && k == "fixed" => continue,
            Seg::Key(k) if last == "sizing" && (k == "rule" || k == "scale") => {
                if k == "scale" {
                    // The file's scale sits beside sizing.
                    if let Some(t) = tail.last_mut() {
                        *t = Seg::Key("scale".into());
                    }
                }
                continue;
            }
            Seg::Key(k) => tail.push(Seg::Key(user_key(k).to_string())),
            other => tail.push(other.clone()),
        }
    }
    let mut segs = steps(user);
    segs.extend(tail);
    (text(&segs), p.message.clone())
}

/// Every problem at its file key, each once (both directions of a template's link map to one key).
pub fn place(problems: &[Problem], origins: &[(String, String)]) -> Vec<FileProblem> {
    let mut out: Vec<FileProblem> = Vec::new();
    for p in problems {
        let fp = place_one(p, origins);
        if !out.contains(&fp) {
            out.push(fp);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Loc;

    #[test]
    fn engine_paths_become_file_keys() {
        let origins = vec![(
            "links[0].forward".to_string(),
            "topology.bottleneck".to_string(),
        )];
        let p = Loc::root()
            .key("links")
            .at(0)
            .key("forward")
            .key("queue")
            .key("qdisc")
            .key("target_ns")
            .problem("too big");
        assert_eq!(
            place_one(&p, &origins),
            ("topology.bottleneck.queue.target".into(), "too big".into())
        );
        assert_eq!(text(&steps("traffic[2].tcp")), "traffic[2].tcp");
    }
}
