//! Pretty-printing a string that holds a JSON object or array, for the string view's JSON
//! mode. serde_json reads it; each scalar, and each object key, is written back as it was
//! written in the string (serde_json's `RawValue`), so numbers keep their digits and strings
//! their escapes, and an object keeps its keys in their order, repeated ones included.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// How deep the view follows nested objects and arrays before it shows the text as it is.
const MAX_DEPTH: usize = 64;

/// Re-indents `src` (two spaces a level) if it is a JSON object or array; `None` if it does
/// not parse.
pub fn pretty_json(src: &str) -> Option<String> {
    let t = src.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let raw: &RawValue = serde_json::from_str(t).ok()?;
    let mut out = String::new();
    write(raw, 0, &mut out)?;
    Some(out)
}

/// Writes `raw` at nesting `depth`: a container one item a line, a scalar as written.
fn write(raw: &RawValue, depth: usize, out: &mut String) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let text = raw.get();
    let (open, close, items) = match text.as_bytes().first()? {
        b'[' => {
            let items: Items = serde_json::from_str(text).ok()?;
            (b'[', b']', items.0)
        }
        b'{' => {
            let items: Items = serde_json::from_str(text).ok()?;
            (b'{', b'}', items.0)
        }
        _ => {
            out.push_str(text);
            return Some(());
        }
    };
    out.push(open as char);
    if items.is_empty() {
        out.push(close as char);
        return Some(());
    }
    for (i, (key, value)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, depth + 1);
        if let Some(key) = key {
            out.push_str(key.get());
            out.push_str(": ");
        }
        write(value, depth + 1, out)?;
    }
    newline(out, depth);
    out.push(close as char);
    Some(())
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// The items of one array (no keys) or object (each with its key), in order, as written.
struct Items<'a>(Vec<(Option<&'a RawValue>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Items<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ItemsVisitor)
    }
}

struct ItemsVisitor;

impl<'de> Visitor<'de> for ItemsVisitor {
    type Value = Items<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array or object")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Items<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<&RawValue>()? {
            items.push((None, v));
        }
        Ok(Items(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Items<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some((k, v)) = map.next_entry::<&RawValue, &RawValue>()? {
            items.push((Some(k), v));
        }
        Ok(Items(items))
    }
}
