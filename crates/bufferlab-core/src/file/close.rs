//! "Did you mean": the closest known word to a misspelt one.
//!
//! The similarity is Ratcliff and Obershelp's gestalt pattern matching (twice the matched
//! characters over the total), computed as Python's `difflib.SequenceMatcher.ratio` does, so that
//! a suggestion is the one a Python user of `difflib.get_close_matches` would get.

use std::collections::HashMap;

/// `2 M / T` for the characters of `a` and `b` (M: characters in matching blocks).
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matched(&a, &b) as f64 / total as f64
}

/// Characters in the matching blocks: the longest common block, then recursively left and right
/// of it (SequenceMatcher.get_matching_blocks; no junk, as for short words).
fn matched(a: &[char], b: &[char]) -> usize {
    let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
    for (j, c) in b.iter().enumerate() {
        b2j.entry(*c).or_default().push(j);
    }
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest(a, &b2j, alo, ahi, blo, bhi);
        if k > 0 {
            total += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    total
}

/// The longest block `a[i..i+k] == b[j..j+k]` within the ranges, earliest in `a`, then in `b`.
fn longest(
    a: &[char],
    b2j: &HashMap<char, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut besti, mut bestj, mut bestk) = (alo, blo, 0);
    let mut j2len: HashMap<usize, usize> = HashMap::new();
    for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next: HashMap<usize, usize> = HashMap::new();
        if let Some(js) = b2j.get(c) {
            for &j in js {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = j
                    .checked_sub(1)
                    .and_then(|p| j2len.get(&p))
                    .copied()
                    .unwrap_or(0)
                    + 1;
                next.insert(j, k);
                if k > bestk {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestk = k;
                }
            }
        }
        j2len = next;
    }
    (besti, bestj, bestk)
}

/// The best of `choices` whose ratio with `word` is at least `cutoff` (ties: the greater
/// string, as `difflib.get_close_matches`).
pub fn closest<'a>(
    word: &str,
    choices: impl IntoIterator<Item = &'a str>,
    cutoff: f64,
) -> Option<&'a str> {
    let mut best: Option<(f64, &str)> = None;
    for c in choices {
        let r = ratio(c, word);
        if r >= cutoff && best.is_none_or(|(br, bc)| r > br || (r == br && c > bc)) {
            best = Some((r, c));
        }
    }
    best.map(|(_, c)| c)
}

/// `closest`, and failing that the closest ignoring case (the suggestion keeps its case).
pub fn closest_any_case<'a>(word: &str, choices: &[&'a str], cutoff: f64) -> Option<&'a str> {
    if let Some(c) = closest(word, choices.iter().copied(), cutoff) {
        return Some(c);
    }
    let lower: Vec<String> = choices.iter().map(|c| c.to_lowercase()).collect();
    let hit = closest(
        &word.to_lowercase(),
        lower.iter().map(String::as_str),
        cutoff,
    )?;
    // The last choice of that spelling wins, as a dict keyed by the lower-case form keeps it.
    let idx = lower.iter().rposition(|l| l == hit)?;
    Some(choices[idx])
}

/// ` (did you mean "x"?)` for the closest of `choices`, or nothing.
pub fn did_you_mean(word: &str, choices: &[&str]) -> String {
    match closest_any_case(word, choices, 0.6) {
        Some(c) => format!(" (did you mean \"{c}\"?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_difflibs() {
        // difflib.SequenceMatcher(None, a, b).ratio()
        assert!((ratio("abcd", "bcde") - 0.75).abs() < 1e-12);
        assert!((ratio("fq_codel", "fq-codel") - 0.875).abs() < 1e-12);
        assert!((ratio("newreno", "reno") - 8.0 / 11.0).abs() < 1e-12);
        assert_eq!(ratio("", ""), 1.0);
    }

    #[test]
    fn suggests_the_closest() {
        assert_eq!(
            did_you_mean("codle", &["fifo", "codel", "pie"]),
            " (did you mean \"codel\"?)"
        );
        assert_eq!(did_you_mean("zzz", &["fifo", "codel"]), "");
        assert_eq!(
            closest_any_case("MBPS", &["Mbps", "kbps"], 0.6),
            Some("Mbps")
        );
    }
}
