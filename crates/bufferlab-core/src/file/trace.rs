//! A link direction's `rate = "trace(FILE)"`: a Mahimahi trace file read into the plan's
//! [`TraceSpec`], its mean rate the direction's `rate_bps`.
//!
//! The format is `mm-link`'s (Mahimahi `traces/README`, `src/frontend/link_queue.cc`): one
//! integer per line, a time in milliseconds from the start of the trace, each line a delivery
//! opportunity for one 1500-byte packet (a time repeated on several lines is several
//! opportunities in that millisecond); times never decrease, and the last one, after 0, is the
//! period after which the trace repeats. As `mm-link` does, an empty line, a number with
//! anything after it or a decreasing time is refused, here with its line number.

use std::path::Path;

use serde_json::Value;

use super::doc::Doc;
use super::units::quote;
use crate::net::trace::{mean_rate_bps, TraceSpec, MAX_OPPORTUNITIES, MAX_PERIOD_MS};

/// The file named by a rate written `trace(FILE)`, or `None` for any other rate.
pub fn trace_name(v: &Doc) -> Option<&str> {
    let s = v.as_str()?.trim();
    s.strip_prefix("trace(")?.strip_suffix(')').map(str::trim)
}

/// The opportunities of a trace's text, or the line (from 1) and what is wrong with it.
pub fn parse(text: &str) -> Result<Vec<u64>, (usize, String)> {
    let mut out: Vec<u64> = Vec::new();
    if text.is_empty() {
        return Err((
            0,
            "the file is empty (a trace needs at least one time)".into(),
        ));
    }
    // `getline` semantics: a final newline ends the last line, it does not start an empty one.
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (i, raw) in body.split('\n').enumerate() {
        let n = i + 1;
        // A file written on Windows: its line ends are not part of the number.
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            return Err((n, "an empty line (each line holds one time in ms)".into()));
        }
        let t = line.trim();
        let ms: u64 = match t.parse() {
            Ok(v) if t.bytes().all(|b| b.is_ascii_digit()) => v,
            _ => {
                return Err((
                    n,
                    format!("{} is not a time in whole milliseconds (e.g. 12)", quote(t)),
                ))
            }
        };
        if let Some(&prev) = out.last() {
            if ms < prev {
                return Err((
                    n,
                    format!("{ms} comes after {prev}: times must not decrease"),
                ));
            }
        }
        if ms > MAX_PERIOD_MS {
            return Err((
                n,
                format!("{ms} ms is past a day ({MAX_PERIOD_MS} ms), the longest trace"),
            ));
        }
        if out.len() == MAX_OPPORTUNITIES {
            return Err((n, format!("more than {MAX_OPPORTUNITIES} opportunities")));
        }
        out.push(ms);
    }
    match out.last() {
        Some(0) => Err((
            out.len(),
            "the trace must last longer than 0 ms: its last time is its period".into(),
        )),
        _ => Ok(out),
    }
}

/// Read `trace(FILE)` (a relative FILE from `dir`): the plan's `(rate_bps, trace)`, or what
/// is wrong, naming the file and the line.
pub fn read(name: &str, dir: &Path) -> Result<(u64, Value), String> {
    if name.is_empty() {
        return Err("trace() needs a file name, e.g. \"trace(traces/cellular.trace)\"".into());
    }
    let path = dir.join(name);
    let shown = path.display();
    let bytes = std::fs::read(&path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        };
        format!("trace({name}): cannot read {shown}: {why}")
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("trace({name}): {shown} is not a text file"))?;
    let ms = parse(&text).map_err(|(line, why)| match line {
        0 => format!("trace({name}): {shown}: {why}"),
        n => format!("trace({name}): {shown} line {n}: {why}"),
    })?;
    let rate = mean_rate_bps(ms.len() as u64, *ms.last().unwrap_or(&1));
    let spec = TraceSpec {
        file: name.to_string(),
        opportunities_ms: ms,
    };
    Ok((rate, serde_json::to_value(spec).unwrap_or(Value::Null)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mahimahi_files_read_as_mm_link_reads_them() {
        // The traces README: "a file that contains just \"1\"" is 12 Mbps.
        assert_eq!(parse("1\n"), Ok(vec![1]));
        assert_eq!(parse("1"), Ok(vec![1]));
        // Repeated times are several opportunities in one millisecond; CRLF line ends pass.
        assert_eq!(parse("0\r\n0\r\n5\r\n"), Ok(vec![0, 0, 5]));
        assert_eq!(mean_rate_bps(3, 5), 7_200_000);
    }

    #[test]
    fn malformed_lines_are_refused_with_their_number() {
        assert_eq!(parse("1\n2\n\n3\n").unwrap_err().0, 3);
        assert_eq!(
            parse("1\n2\n3ms\n").unwrap_err(),
            (
                3,
                "\"3ms\" is not a time in whole milliseconds (e.g. 12)".into()
            )
        );
        assert_eq!(parse("1\n-2\n").unwrap_err().0, 2);
        assert_eq!(parse("1\n2.5\n").unwrap_err().0, 2);
        assert_eq!(
            parse("5\n4\n").unwrap_err(),
            (2, "4 comes after 5: times must not decrease".into())
        );
        assert_eq!(parse("0\n0\n").unwrap_err().0, 2);
        assert_eq!(parse("").unwrap_err().0, 0);
    }

    #[test]
    fn names_and_files() {
        assert_eq!(
            trace_name(&Doc::Str("trace(a/b.down)".into())),
            Some("a/b.down")
        );
        assert_eq!(trace_name(&Doc::Str(" trace( x ) ".into())), Some("x"));
        assert_eq!(trace_name(&Doc::Str("10Mbps".into())), None);
        let dir = std::env::temp_dir().join(format!("bufferlab-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("t.trace"), "1\n1\n2\n").unwrap();
        let (rate, spec) = read("t.trace", &dir).unwrap();
        assert_eq!(rate, 18_000_000);
        assert_eq!(spec["opportunities_ms"], serde_json::json!([1, 1, 2]));
        let e = read("missing.trace", &dir).unwrap_err();
        assert!(e.starts_with("trace(missing.trace): cannot read ") && e.ends_with("no such file"));
        std::fs::write(dir.join("bad.trace"), "1\nx\n").unwrap();
        assert!(read("bad.trace", &dir)
            .unwrap_err()
            .contains("bad.trace line 2: \"x\""));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
