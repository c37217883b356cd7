//! Quantities with units, parsed strictly: `"50ms"`, `"10Mbps"`, `"64KiB"`, `"120pkt"`, `"1/s"`.
//!
//! Each becomes an integer in its base unit (ns, bit/s, bytes) or a packet count. A value that is
//! not the quantity it should be gets a message that says how to write it: the likeliest unit for
//! a misspelt one, the unit a bare number most likely meant, bytes versus bits. SI prefixes are
//! powers of 1000 (`KB`), the binary ones powers of 1024 (`KiB`); times round to the nearest ns,
//! ties to even.

use std::cmp::Ordering;

use super::close::closest;
use super::decimal::Dec;
use super::doc::Doc;

pub const NS_PER_S: u128 = 1_000_000_000;

pub const TIME_UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", NS_PER_S),
    ("min", 60 * NS_PER_S),
    ("h", 3600 * NS_PER_S),
];
const TIME_NAMES: &[&str] = &["ns", "us", "ms", "s", "min", "h"];
const BIT_RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Tbps", 1_000_000_000_000),
];
const PACKET_RATE_UNITS: &[(&str, u128)] = &[("pps", 1), ("kpps", 1_000), ("Mpps", 1_000_000)];
const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];
const PKT: &str = "pkt";

/// Units people write for ones we take: the spellings to suggest, likeliest first (the first
/// valid for the quantity at hand is offered).
const ALIASES: &[(&str, &[&str])] = &[
    ("sec", &["s"]),
    ("secs", &["s"]),
    ("second", &["s"]),
    ("seconds", &["s"]),
    ("m", &["min", "MB"]),
    ("mins", &["min"]),
    ("minute", &["min"]),
    ("minutes", &["min"]),
    ("hr", &["h"]),
    ("hour", &["h"]),
    ("hours", &["h"]),
    ("msec", &["ms"]),
    ("msecs", &["ms"]),
    ("usec", &["us"]),
    ("usecs", &["us"]),
    ("nsec", &["ns"]),
    ("Kbps", &["kbps"]),
    ("kb/s", &["kbps"]),
    ("Mb/s", &["Mbps"]),
    ("Gb/s", &["Gbps"]),
    ("b/s", &["bps"]),
    ("kbit", &["kbps", "KB"]),
    ("Mbit", &["Mbps", "MB"]),
    ("Gbit", &["Gbps", "GB"]),
    ("k", &["kbps", "KB"]),
    ("K", &["kbps", "KB"]),
    ("M", &["Mbps", "MB"]),
    ("G", &["Gbps", "GB"]),
    ("kB", &["KB"]),
    ("kb", &["kbps", "KB"]),
    ("Mb", &["Mbps", "MB"]),
    ("Gb", &["Gbps", "GB"]),
    ("bytes", &["B"]),
    ("byte", &["B"]),
    ("b", &["bps", "B"]),
    ("pkts", &["pkt"]),
    ("packets", &["pkt"]),
    ("packet", &["pkt"]),
    ("p", &["pkt", "pps"]),
];

/// The quantity a message names, and the two spellings it suggests.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Time,
    Rate,
    BitRate,
    Size,
    ByteSize,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Time => "time",
            Kind::Rate => "rate",
            Kind::BitRate => "bit rate",
            Kind::Size => "size",
            Kind::ByteSize => "byte size",
        }
    }
    fn examples(self, n: &str) -> (String, String) {
        let (a, b) = match self {
            Kind::Time => ("ms", "s"),
            Kind::Rate => ("Mbps", "pps"),
            Kind::BitRate => ("Mbps", "kbps"),
            Kind::Size => ("B", "pkt"),
            Kind::ByteSize => ("B", "KB"),
        };
        (format!("\"{n}{a}\""), format!("\"{n}{b}\""))
    }
}

fn lookup(table: &[(&str, u128)], unit: &str) -> Option<u128> {
    table.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f)
}

fn kind_of_unit(unit: &str) -> Option<&'static str> {
    if lookup(TIME_UNITS, unit).is_some() {
        Some("time")
    } else if lookup(BIT_RATE_UNITS, unit).is_some() || lookup(PACKET_RATE_UNITS, unit).is_some() {
        Some("rate")
    } else if lookup(SIZE_UNITS, unit).is_some() || unit == PKT {
        Some("size")
    } else if unit.starts_with('/') {
        Some("frequency")
    } else {
        None
    }
}

/// A typed value in double quotes for a message, its quotes escaped and every control character
/// (and the Unicode line and paragraph separators) written as `\u` and four hex digits: what was
/// typed stays visible, and a message stays one line per problem however it was typed.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number in a rate's message, in the largest unit it fills: `10Mbps`.
fn fmt_rate(bps: Dec) -> String {
    for (unit, f) in [
        ("Gbps", 1_000_000_000u128),
        ("Mbps", 1_000_000),
        ("kbps", 1_000),
    ] {
        if bps.cmp_int(f) != Ordering::Less {
            return format!("{}{unit}", bps.div_int(f).show());
        }
    }
    format!("{}bps", bps.show())
}

/// The largest rate a link takes: 10 Tb/s.
const MAX_BPS: u128 = 10_000_000_000_000;

fn bare_number_message(n: &str, kind: Kind, example: Kind) -> String {
    let head = format!("{n} is a bare number; a {} needs a unit", kind.name());
    let d = Dec::parse(n).unwrap_or(Dec::int(0));
    if matches!(kind, Kind::Rate | Kind::BitRate) && d.cmp_int(MAX_BPS) == Ordering::Greater {
        // Beyond any rate in either unit: a conversion of it would only echo the mistake.
        return format!("{head} (at most 10Tbps)");
    }
    if matches!(kind, Kind::Rate | Kind::BitRate) && d.cmp_int(1000) != Ordering::Less {
        // Tools that take bare rates (ns-3's DataRate, tc) read them as bits per second.
        return format!(
            "{head} (try \"{}\" if it is in bits per second)",
            fmt_rate(d)
        );
    }
    if kind == Kind::Time && !d.is_negative() && !d.is_zero() && d.cmp_int(1) == Ordering::Less {
        // A fraction is seconds (ns-3's Seconds(0.05), a config in s).
        return format!(
            "{head} (try \"{}ms\" if it is in seconds)",
            d.times(1000).show()
        );
    }
    let (a, b) = example.examples(n);
    format!("{head} (try {a} or {b})")
}

/// The number and unit of a quantity (the regex `^\s*NUMBER\s*UNIT?\s*$`), or None.
pub fn split_text(value: &str) -> Option<(&str, &str)> {
    let s = value.trim_matches(char::is_whitespace);
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let int_end = digits(i);
    let mut end = int_end;
    if end < b.len() && b[end] == b'.' {
        let frac_end = digits(end + 1);
        if int_end == i && frac_end == end + 1 {
            return None; // "." alone
        }
        end = frac_end;
    } else if int_end == i {
        return None;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut j = end + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let k = digits(j);
        if k > j {
            end = k;
        }
    }
    let number = &s[..end];
    let unit = s[end..].trim_start_matches(char::is_whitespace);
    if let Some(c) = unit.chars().next() {
        if c.is_ascii_digit()
            || c == '.'
            || c == '+'
            || c == '-'
            || unit.contains(char::is_whitespace)
        {
            return None;
        }
    }
    Some((number, unit))
}

fn comma_decimal(value: &str) -> bool {
    // \s*[+-]?\d+,\d+\s*\S*\s*
    let s = value.trim_matches(char::is_whitespace);
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let Some((a, rest)) = s.split_once(',') else {
        return false;
    };
    if a.is_empty() || !a.bytes().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let d = rest.bytes().take_while(u8::is_ascii_digit).count();
    if d == 0 {
        return false;
    }
    let tail = rest[d..].trim_start_matches(char::is_whitespace);
    !tail.contains(char::is_whitespace)
}

fn type_name(v: &Doc) -> String {
    match v {
        Doc::Table(_) => "a table".into(),
        Doc::List(_) => "a list".into(),
        Doc::Null => "nothing".into(),
        Doc::Str(_) => "str".into(),
        Doc::Bool(_) => "bool".into(),
        Doc::Int(_) => "int".into(),
        Doc::Float(_) => "float".into(),
    }
}

/// Split a quantity into (value, unit, number as written); refuses non-strings with a fix.
fn split(value: &Doc, kind: Kind, example: Kind) -> Result<(Dec, String, String), String> {
    let (ex, _) = example.examples("10");
    let s = match value {
        Doc::Bool(b) => return Err(format!("expected a {} such as {ex}, got {b}", kind.name())),
        Doc::Float(f) if !f.is_finite() => {
            return Err(format!(
                "expected a {}, got {}",
                kind.name(),
                value.describe()
            ))
        }
        Doc::Int(_) | Doc::Float(_) => {
            return Err(bare_number_message(&value.describe(), kind, example))
        }
        Doc::Str(s) => s,
        other => {
            return Err(format!(
                "expected a {} such as {ex}, got {}",
                kind.name(),
                type_name(other)
            ))
        }
    };
    if comma_decimal(s) {
        return Err(format!(
            "{}: write decimals with a point (try {})",
            quote(s),
            quote(&s.trim().replace(',', "."))
        ));
    }
    let Some((number, unit)) = split_text(s) else {
        return Err(format!(
            "{} is not a {} (write a number and a unit, e.g. {ex})",
            quote(s),
            kind.name()
        ));
    };
    if unit.is_empty() {
        return Err(bare_number_message(number, kind, example));
    }
    let d = Dec::parse(number).ok_or_else(|| format!("{} is not a {}", quote(s), kind.name()))?;
    Ok((d, unit.to_string(), number.to_string()))
}

/// The message for a value whose unit is not one of `units`, with the likeliest fix.
fn unknown_unit(value: &str, number: &str, unit: &str, kind: Kind, units: &[&str]) -> String {
    if let Some(other) = kind_of_unit(unit) {
        if other != kind.name() && !(kind == Kind::BitRate && other == "rate") {
            let (a, _) = kind.examples(number);
            return format!(
                "{} is a {other}, not a {} (try {a})",
                quote(value),
                kind.name()
            );
        }
    }
    let alias = ALIASES
        .iter()
        .find(|(a, _)| *a == unit)
        .and_then(|(_, fixes)| fixes.iter().find(|f| units.contains(f)).copied());
    let lower: Vec<String> = units.iter().map(|u| u.to_lowercase()).collect();
    let fix = alias
        .or_else(|| {
            lower
                .iter()
                .position(|l| *l == unit.to_lowercase())
                .map(|i| units[i])
        })
        .or_else(|| closest(unit, units.iter().copied(), 0.5))
        .or_else(|| {
            let hit = closest(&unit.to_lowercase(), lower.iter().map(String::as_str), 0.5)?;
            lower.iter().position(|l| l == hit).map(|i| units[i])
        });
    match fix {
        Some(f) => format!(
            "{} is not a {} (try {})",
            quote(value),
            kind.name(),
            quote(&format!("{number}{f}"))
        ),
        None => format!(
            "{} is not a {}: unknown unit {} (use one of {})",
            quote(value),
            kind.name(),
            quote(unit),
            units.join(", ")
        ),
    }
}

fn text(value: &Doc) -> &str {
    value.as_str().unwrap_or("")
}

/// `"0.5ms"` -> 500000. Times are never negative.
pub fn time_ns(value: &Doc) -> Result<u64, String> {
    let (d, unit, number) = split(value, Kind::Time, Kind::Time)?;
    let v = text(value);
    let Some(f) = lookup(TIME_UNITS, &unit) else {
        return Err(unknown_unit(v, &number, &unit, Kind::Time, TIME_NAMES));
    };
    if d.is_negative() {
        return Err(format!("{}: a time must not be negative", quote(v)));
    }
    match d.times(f).round_even() {
        Some(ns) if ns < 1 << 63 => Ok(ns as u64),
        _ => Err(format!(
            "{} is too long (at most about 292 years)",
            quote(v)
        )),
    }
}

/// A rate: bits per second, or packets per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    Bps(u64),
    Pps(f64),
}

const BYTE_RATES: &[&str] = &["Bps", "KBps", "MBps", "GBps", "B/s", "KB/s", "MB/s", "GB/s"];

/// `"10Mbps"` -> `Rate::Bps(10_000_000)`; `"250pps"` -> `Rate::Pps(250.0)`. Rates are > 0.
pub fn rate(value: &Doc, allow_pps: bool) -> Result<Rate, String> {
    let example = if allow_pps { Kind::Rate } else { Kind::BitRate };
    let (d, unit, number) = split(value, Kind::Rate, example)?;
    let v = text(value);
    let mut units: Vec<&str> = BIT_RATE_UNITS.iter().map(|(u, _)| *u).collect();
    if allow_pps {
        units.extend(PACKET_RATE_UNITS.iter().map(|(u, _)| *u));
    }
    if BYTE_RATES.contains(&unit.as_str()) {
        let first = &unit[..1];
        let size_unit = if first != "B" {
            format!("{first}B")
        } else {
            "B".into()
        };
        let bits = d
            .times(8)
            .times(lookup(SIZE_UNITS, &size_unit).unwrap_or(1));
        return Err(format!(
            "{} is in bytes per second; rates are in bits (try {})",
            quote(v),
            quote(&fmt_rate(bits))
        ));
    }
    if lookup(PACKET_RATE_UNITS, &unit).is_some() && !allow_pps {
        return Err(format!(
            "{}: this rate must be in bits per second (e.g. \"10Mbps\")",
            quote(v)
        ));
    }
    if !units.contains(&unit.as_str()) {
        return Err(unknown_unit(v, &number, &unit, Kind::Rate, &units));
    }
    if d.is_negative() || d.is_zero() {
        return Err(format!("{}: a rate must be greater than zero", quote(v)));
    }
    if let Some(f) = lookup(BIT_RATE_UNITS, &unit) {
        let bps = d.times(f).round_even();
        return match bps {
            Some(0) => Err(format!("{} is below 1 bps", quote(v))),
            Some(b) if b <= MAX_BPS => Ok(Rate::Bps(b as u64)),
            _ => Err(format!("{} is an absurd rate (at most 10Tbps)", quote(v))),
        };
    }
    let pps = d
        .times(lookup(PACKET_RATE_UNITS, &unit).unwrap_or(1))
        .to_f64();
    if pps > 1e9 {
        return Err(format!(
            "{} is an absurd rate (at most 10^9 packets per second)",
            quote(v)
        ));
    }
    Ok(Rate::Pps(pps))
}

/// A size: bytes, or packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Bytes(u64),
    Pkts(u64),
}

/// `"64KB"` -> `Size::Bytes(64000)`; `"120pkt"` -> `Size::Pkts(120)`. Whole units, >= 0.
pub fn size(value: &Doc, allow_pkt: bool) -> Result<Size, String> {
    let example = if allow_pkt {
        Kind::Size
    } else {
        Kind::ByteSize
    };
    let (d, unit, number) = split(value, Kind::Size, example)?;
    let v = text(value);
    let mut units: Vec<&str> = SIZE_UNITS.iter().map(|(u, _)| *u).collect();
    if allow_pkt {
        units.push(PKT);
    }
    if unit == PKT && !allow_pkt {
        return Err(format!(
            "{}: this size must be in bytes (e.g. \"1500B\")",
            quote(v)
        ));
    }
    if !units.contains(&unit.as_str()) {
        return Err(unknown_unit(v, &number, &unit, Kind::Size, &units));
    }
    if d.is_negative() {
        return Err(format!("{}: a size must not be negative", quote(v)));
    }
    if unit == PKT {
        if !d.is_integral() {
            return Err(format!(
                "{}: a packet count must be a whole number",
                quote(v)
            ));
        }
        return match d.round_even() {
            Some(n) if n <= 1_000_000_000_000 => Ok(Size::Pkts(n as u64)),
            _ => Err(format!(
                "{} is an absurd number of packets (at most 10^12)",
                quote(v)
            )),
        };
    }
    // The bound first: beyond u128 a product keeps only its magnitude, not its last digits.
    let b = d.times(lookup(SIZE_UNITS, &unit).unwrap_or(1));
    if b.cmp_int(1 << 50) == Ordering::Greater {
        return Err(format!("{} is an absurd size (at most 1 PiB)", quote(v)));
    }
    if !b.is_integral() {
        return Err(format!("{} is not a whole number of bytes", quote(v)));
    }
    match b.round_even() {
        Some(n) => Ok(Size::Bytes(n as u64)),
        None => Err(format!("{} is an absurd size (at most 1 PiB)", quote(v))),
    }
}

/// A size that must be in bytes (`"1500B"`, `"64KiB"`).
pub fn bytes(value: &Doc) -> Result<u64, String> {
    match size(value, false)? {
        Size::Bytes(b) => Ok(b),
        Size::Pkts(_) => Err("a size in bytes".into()),
    }
}

/// An event rate: `"1/s"`, `"30/min"`, `"5/100ms"` -> events per second (> 0).
pub fn per_second(value: &Doc) -> Result<f64, String> {
    let s = match value {
        Doc::Int(_) | Doc::Float(_) => {
            let n = value.describe();
            return Err(format!(
                "{n} is a bare number; an event rate needs a unit (try \"{n}/s\")"
            ));
        }
        Doc::Str(s) => s.as_str(),
        other => {
            return Err(format!(
                "expected an event rate such as \"1/s\", got {}",
                type_name(other)
            ))
        }
    };
    let parsed = s.split_once('/').and_then(|(count, per)| {
        let (count, _) = split_text(count).filter(|(_, u)| u.is_empty())?;
        let per = per.trim_matches(char::is_whitespace);
        let n_end = per
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(per.len());
        let (per_n, unit) = (
            &per[..n_end],
            per[n_end..].trim_start_matches(char::is_whitespace),
        );
        let unit_ok = !unit.is_empty() && unit.chars().all(|c| c.is_ascii_lowercase() || c == 'µ');
        unit_ok.then_some((count, per_n, unit))
    });
    let Some((count, per_n, unit)) = parsed else {
        if let Some((number, u)) = split_text(s) {
            if u.is_empty() {
                return Err(format!(
                    "{s} is a bare number; an event rate needs a unit (try \"{}/s\")",
                    s.trim()
                ));
            }
            return Err(format!(
                "{} is not an event rate (try \"{number}/s\")",
                quote(s)
            ));
        }
        return Err(format!("{} is not an event rate (e.g. \"1/s\")", quote(s)));
    };
    let per_n = if per_n.is_empty() { "1" } else { per_n };
    let Some(f) = lookup(TIME_UNITS, unit) else {
        let names: Vec<&str> = TIME_UNITS.iter().map(|(u, _)| *u).collect();
        let fix = closest(unit, names, 0.5)
            .map(|c| {
                format!(
                    " (try \"{count}/{}{c}\")",
                    if per_n != "1" { per_n } else { "" }
                )
            })
            .unwrap_or_default();
        return Err(format!(
            "{} is not an event rate: unknown time unit {}{fix}",
            quote(s),
            quote(unit)
        ));
    };
    let (Some(c), Some(p)) = (Dec::parse(count), Dec::parse(per_n)) else {
        return Err(format!("{} is not an event rate", quote(s)));
    };
    let per_ns = p.times(f);
    if c.is_negative() || c.is_zero() || per_ns.is_zero() {
        return Err(format!(
            "{}: an event rate must be greater than zero",
            quote(s)
        ));
    }
    // Beyond f64 either way (a count of 1e400, a time of 1e-400 ns): not a rate to simulate.
    let rate = c.times(NS_PER_S).to_f64() / per_ns.to_f64();
    if !rate.is_finite() {
        return Err(format!("{} is an absurd event rate", quote(s)));
    }
    if rate == 0.0 {
        return Err(format!(
            "{}: an event rate must be greater than zero",
            quote(s)
        ));
    }
    Ok(rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Doc {
        Doc::Str(v.into())
    }

    #[test]
    fn a_quoted_value_keeps_its_message_on_one_line() {
        // U+0085 (NEL) ends a line for Python's str.splitlines; a tab is a control character too.
        assert_eq!(quote("0:\u{85}"), "\"0:\\u0085\"");
        assert_eq!(quote("a\"b\tc\u{2028}"), "\"a\\\"b\\u0009c\\u2028\"");
        assert_eq!(quote("10 Mbps é"), "\"10 Mbps é\"");
        let e = size(&s("0:\u{85}"), true).unwrap_err();
        assert_eq!(e.lines().count(), 1, "{e}");
    }

    #[test]
    fn times() {
        assert_eq!(time_ns(&s("0.5ms")), Ok(500_000));
        assert_eq!(time_ns(&s("1 s")), Ok(1_000_000_000));
        assert_eq!(time_ns(&s("2.5ns")), Ok(2));
        assert_eq!(
            time_ns(&s("50 msec")),
            Err("\"50 msec\" is not a time (try \"50ms\")".into())
        );
        assert_eq!(
            time_ns(&Doc::Float(0.05)),
            Err(
                "0.05 is a bare number; a time needs a unit (try \"50ms\" if it is in seconds)"
                    .into()
            )
        );
        assert_eq!(
            time_ns(&s("10Mbps")),
            Err("\"10Mbps\" is a rate, not a time (try \"10ms\")".into())
        );
        assert_eq!(
            time_ns(&s("-1s")),
            Err("\"-1s\": a time must not be negative".into())
        );
        assert_eq!(
            time_ns(&s("1,5s")),
            Err("\"1,5s\": write decimals with a point (try \"1.5s\")".into())
        );
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(rate(&s("10Mbps"), true), Ok(Rate::Bps(10_000_000)));
        assert_eq!(rate(&s("250pps"), true), Ok(Rate::Pps(250.0)));
        assert_eq!(
            rate(&Doc::Int(10_000_000), true),
            Err("10000000 is a bare number; a rate needs a unit (try \"10Mbps\" if it is in bits per second)".into())
        );
        // Beyond any rate: no conversion of the number (the reader's clamped exponent) is offered.
        assert_eq!(
            rate(&s("3333362e33707073"), true),
            Err("3333362e33707073 is a bare number; a rate needs a unit (at most 10Tbps)".into())
        );
        assert_eq!(
            rate(&s("1MBps"), true),
            Err("\"1MBps\" is in bytes per second; rates are in bits (try \"8Mbps\")".into())
        );
        assert_eq!(size(&s("64KiB"), true), Ok(Size::Bytes(65536)));
        assert_eq!(size(&s("120pkt"), true), Ok(Size::Pkts(120)));
        assert_eq!(
            size(&s("1.5pkt"), true),
            Err("\"1.5pkt\": a packet count must be a whole number".into())
        );
        assert_eq!(
            size(&s("10 packets"), true),
            Err("\"10 packets\" is not a size (try \"10pkt\")".into())
        );
        assert_eq!(per_second(&s("30/min")), Ok(0.5));
        assert_eq!(per_second(&s("5/100ms")), Ok(50.0));
    }
}
