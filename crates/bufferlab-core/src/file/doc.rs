//! The scenario document as read: TOML's values (or a Python dict's), tables kept in file order
//! so that problems are reported in the order the file gives its keys.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// One value of the document.
#[derive(Clone, Debug, PartialEq)]
pub enum Doc {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    List(Vec<Doc>),
    /// A table, its keys in the order written.
    Table(Vec<(String, Doc)>),
}

impl Doc {
    pub fn as_table(&self) -> Option<&[(String, Doc)]> {
        match self {
            Doc::Table(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Doc::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Doc]> {
        match self {
            Doc::List(l) => Some(l),
            _ => None,
        }
    }

    /// The value of `key` in a table.
    pub fn get(&self, key: &str) -> Option<&Doc> {
        self.as_table()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Doc::Int(_) | Doc::Float(_))
    }

    /// A number as f64 (ints and floats; not booleans).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Doc::Int(i) => Some(*i as f64),
            Doc::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// How messages show a value the reader refuses (as the file's author wrote it).
    pub fn describe(&self) -> String {
        match self {
            Doc::Null => "nothing".into(),
            Doc::Bool(b) => if *b { "true" } else { "false" }.into(),
            Doc::Int(i) => i.to_string(),
            Doc::Float(f) => float_repr(*f),
            Doc::Str(s) => format!("\"{s}\""),
            Doc::List(_) => "a list".into(),
            Doc::Table(_) => "a table".into(),
        }
    }

    /// A plain-text spelling of a number or string (for messages that quote a bare value).
    pub fn plain(&self) -> String {
        match self {
            Doc::Str(s) => s.clone(),
            other => other.describe(),
        }
    }
}

/// Shortest round trip in scientific form, the exponent signed and of two digits at least, as
/// Python prints it (`1e+20`, `1.5e-07`).
pub fn scientific(f: f64) -> String {
    let s = format!("{f:e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// A float as TOML and Python print it: `5.0`, `0.1`, `1e+20`.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = f.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        return scientific(f);
    }
    let s = format!("{f:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        d.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a scenario value")
    }
    fn visit_unit<E>(self) -> Result<Doc, E> {
        Ok(Doc::Null)
    }
    fn visit_none<E>(self) -> Result<Doc, E> {
        Ok(Doc::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Doc, E> {
        Ok(Doc::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Doc, E> {
        Ok(Doc::Int(i as i128))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Doc, E> {
        Ok(Doc::Int(u as i128))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Doc, E> {
        Ok(Doc::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Doc, E> {
        Ok(Doc::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Doc, E> {
        Ok(Doc::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Doc::List(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut out: Vec<(String, Doc)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Doc>()? {
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        Ok(Doc::Table(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_does() {
        assert_eq!(float_repr(5.0), "5.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e20), "1e+20");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(-2.25), "-2.25");
    }

    #[test]
    fn tables_keep_file_order() {
        let d: Doc = serde_json::from_str(r#"{"b": 1, "a": [true, 2.5, "x"]}"#).unwrap();
        let t = d.as_table().unwrap();
        assert_eq!(t[0].0, "b");
        assert_eq!(d.get("a").unwrap().as_list().unwrap()[1], Doc::Float(2.5));
    }
}
