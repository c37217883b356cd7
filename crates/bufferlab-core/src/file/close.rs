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

/// Items a list of names shows before it counts the rest.
const NAMES_SHOWN: usize = 20;

/// Names for a message, with numbered runs folded (`s1..s100, r1, r2, d1..d100, senders,
/// receivers` for a dumbbell of 100 pairs, where the whole list is 204 names), and past
/// [`NAMES_SHOWN`] items the rest counted: an unknown node in a topology of thousands of hosts
/// gets a line, not a page.
pub fn name_list(names: &[&str]) -> String {
    // "s12" as ("s", 12); a name without a trailing number, or with a leading zero, is its own.
    fn numbered(n: &str) -> Option<(&str, u64)> {
        let (stem, digits) = n.split_at(n.trim_end_matches(|c: char| c.is_ascii_digit()).len());
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        Some((stem, digits.parse().ok()?))
    }
    // (the item, how many names it stands for)
    let mut items: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        if let Some((stem, first)) = numbered(names[i]) {
            while j < names.len() && numbered(names[j]) == Some((stem, first + (j - i) as u64)) {
                j += 1;
            }
        }
        if j - i >= 3 {
            items.push((format!("{}..{}", names[i], names[j - 1]), j - i));
        } else {
            items.extend(names[i..j].iter().map(|n| (n.to_string(), 1)));
        }
        i = j;
    }
    let more: usize = items.iter().skip(NAMES_SHOWN).map(|(_, n)| n).sum();
    let mut out: Vec<String> = items
        .into_iter()
        .take(NAMES_SHOWN)
        .map(|(s, _)| s)
        .collect();
    if more > 0 {
        out.push(format!("and {more} more"));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_lists_fold_numbered_runs_and_count_the_rest() {
        assert_eq!(name_list(&["client", "server"]), "client, server");
        let mut dumbbell: Vec<String> = (1..=100).map(|i| format!("s{i}")).collect();
        dumbbell.extend(["r1".to_string(), "r2".to_string()]);
        dumbbell.extend((1..=100).map(|i| format!("d{i}")));
        dumbbell.extend(["senders".to_string(), "receivers".to_string()]);
        let names: Vec<&str> = dumbbell.iter().map(String::as_str).collect();
        assert_eq!(
            name_list(&names),
            "s1..s100, r1, r2, d1..d100, senders, receivers"
        );
        // A gap, a leading zero and a repeated stem are not runs.
        assert_eq!(
            name_list(&["h1", "h2", "h4", "h05", "h06", "h07", "x", "x1", "x2", "x3"]),
            "h1, h2, h4, h05, h06, h07, x, x1..x3"
        );
        // Past twenty items the rest are counted, by names.
        let many: Vec<String> = (0..30).map(|i| format!("n{}", 2 * i)).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let shown = name_list(&many);
        assert!(
            shown.starts_with("n0, n2, ") && shown.ends_with("n38, and 10 more"),
            "{shown}"
        );
    }

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
