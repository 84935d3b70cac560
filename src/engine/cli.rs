//! What `redis-cli` does with text: splitting a typed line into arguments
//! ([`split_args`], Redis's `sdssplitargs`) and rendering a reply as the text it prints on a
//! terminal ([`format_reply`], `cliFormatReplyTTY`).
//!
//! ```
//! use kvlab::engine::cli::{format_reply, split_args};
//! use kvlab::engine::Reply;
//!
//! assert_eq!(split_args(r#"SET "a b" 'c'"#).unwrap(), vec![b"SET".to_vec(), b"a b".to_vec(), b"c".to_vec()]);
//! let r = Reply::Array(vec![Reply::bulk(b"x"), Reply::Integer(2)]);
//! assert_eq!(format_reply(&r), "1) \"x\"\n2) (integer) 2");
//! ```

use super::reply::{format_double, format_double_resp3, Reply};
use super::{ClientId, Engine};

pub use super::splitargs::{split_args, split_args_bytes, INVALID_ARGUMENTS};

/// Renders `reply` as `redis-cli` prints it on a terminal, without the final newline.
pub fn format_reply(reply: &Reply) -> String {
    let mut out = String::new();
    format_into(reply, "", &mut out);
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

/// Renders `reply` as `redis-cli` prints it to a client speaking protocol `proto`: in RESP2
/// the RESP3-only types arrive downgraded (maps and sets as flat arrays, doubles and big
/// numbers as bulk strings, booleans as integers), so they print that way. Verbatim
/// strings print raw either way, as redis-cli prints the commands that use them (`INFO`,
/// `CLIENT LIST`) raw.
///
/// A RESP3 client's `invalidate` push with keys (client-side caching) prints as
/// redis-cli's push handler prints it: `-> invalidate: 'a', 'b'`.
pub fn format_reply_for(reply: &Reply, proto: u8) -> String {
    if proto >= 3 {
        invalidation_line(reply).unwrap_or_else(|| format_reply(reply))
    } else {
        format_reply(&to_resp2(reply))
    }
}

/// redis-cli's `cliFormatInvalidateTTY`, for a push `invalidate` with an array of keys
/// (a flush, with a null, prints as any push); each key as C's `%s` prints it.
fn invalidation_line(reply: &Reply) -> Option<String> {
    let Reply::Push(items) = reply else {
        return None;
    };
    let [Reply::Bulk(kind), Reply::Array(keys)] = items.as_slice() else {
        return None;
    };
    if kind.as_slice() != b"invalidate" {
        return None;
    }
    let keys: Vec<String> = keys
        .iter()
        .map(|k| match k {
            Reply::Bulk(b) => format!("'{}'", super::error::c_str(b)),
            other => format!("'{}'", format_reply(other)),
        })
        .collect();
    Some(format!("-> invalidate: {}", keys.join(", ")))
}

/// Renders replies one after the other as `redis-cli` prints them to a client speaking
/// protocol `proto`, joined by newlines, trailing spaces trimmed from every line.
pub fn format_replies(replies: &[Reply], proto: u8) -> String {
    replies
        .iter()
        .map(|r| format_reply_for(r, proto))
        .collect::<Vec<_>>()
        .join("\n")
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// What client `id` was sent since this was last asked (its pushes, taken), as `redis-cli`
/// prints it ([`format_replies`]) in the protocol the client speaks now (HELLO switches
/// before it replies). The one rendering the walkthroughs and the transcript tests share.
pub fn render_sent(engine: &mut Engine, id: ClientId) -> String {
    let replies = engine.take_pushes(id);
    let proto = engine.client(id).map_or(2, |c| c.proto);
    format_replies(&replies, proto)
}

/// Renders `reply` as `redis-cli --raw` prints it (`cliFormatReplyRaw`), without the
/// newline redis-cli ends every reply with: strings, status and error texts as they are,
/// integers and doubles as bare numbers, nil as nothing (an empty line), the elements of
/// arrays, sets and pushes one per line however deeply nested (an empty one prints
/// nothing), a map's pairs one per line as `key value`. An error keeps redis-cli's own
/// trailing newline (it prints an empty line after it). Bytes that are not UTF-8 are shown
/// as U+FFFD, as a UTF-8 terminal would. `proto` as for [`format_reply_for`].
pub fn format_reply_raw(reply: &Reply, proto: u8) -> String {
    String::from_utf8_lossy(&format_reply_raw_bytes(reply, proto)).into_owned()
}

/// [`format_reply_raw`] as the bytes redis-cli writes, not made UTF-8.
pub fn format_reply_raw_bytes(reply: &Reply, proto: u8) -> Vec<u8> {
    let mut out = Vec::new();
    if proto >= 3 {
        raw_into(reply, &mut out);
    } else {
        raw_into(&to_resp2(reply), &mut out);
    }
    out
}

fn raw_into(reply: &Reply, out: &mut Vec<u8>) {
    match reply {
        // The console shows the reply an attribute comes with (redis-cli 7.0 fails on
        // the `|` instead).
        Reply::Attributed(_, inner) => raw_into(inner, out),
        Reply::Error(e) => {
            out.extend_from_slice(e.as_bytes());
            out.push(b'\n');
        }
        Reply::Status(s) => out.extend_from_slice(s.as_bytes()),
        Reply::Bulk(b) | Reply::Verbatim(_, b) => out.extend_from_slice(b),
        Reply::Integer(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Reply::Double(d) => out.extend_from_slice(format_double_resp3(*d).as_bytes()),
        Reply::DoubleText(t) | Reply::BigNumber(t) => out.extend_from_slice(t.as_bytes()),
        Reply::Nil | Reply::NilArray => {}
        Reply::Bool(b) => out.extend_from_slice(if *b { b"(true)" } else { b"(false)" }),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                raw_into(item, out);
            }
        }
        Reply::Map(pairs) => {
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                raw_into(k, out);
                out.push(b' ');
                raw_into(v, out);
            }
        }
    }
}

/// True when `reply` holds a string with bytes past ASCII that are valid UTF-8 — text
/// that redis-cli shows as `\xHH` escapes unless `--raw` is on.
pub fn has_utf8_text(reply: &Reply) -> bool {
    match reply {
        Reply::Bulk(b) => !b.is_ascii() && std::str::from_utf8(b).is_ok(),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            items.iter().any(has_utf8_text)
        }
        Reply::Map(pairs) => pairs
            .iter()
            .any(|(k, v)| has_utf8_text(k) || has_utf8_text(v)),
        _ => false,
    }
}

/// The shape a RESP2 client receives `reply` in (see [`Reply::write_resp`]).
fn to_resp2(reply: &Reply) -> Reply {
    match reply {
        Reply::Map(pairs) => Reply::Array(
            pairs
                .iter()
                .flat_map(|(k, v)| [to_resp2(k), to_resp2(v)])
                .collect(),
        ),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            Reply::Array(items.iter().map(to_resp2).collect())
        }
        Reply::Double(d) => Reply::Bulk(format_double(*d).into_bytes()),
        Reply::DoubleText(t) => Reply::Bulk(t.clone().into_bytes()),
        Reply::Bool(b) => Reply::Integer(i64::from(*b)),
        Reply::BigNumber(n) => Reply::Bulk(n.clone().into_bytes()),
        Reply::Attributed(_, inner) => to_resp2(inner),
        other => other.clone(),
    }
}

/// Quotes bytes as redis-cli does (`sdscatrepr`): `"…"` with `\\ \" \n \r \t \a \b`
/// escaped and other non-printable bytes as `\xHH`.
pub fn quote(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            7 => s.push_str("\\a"),
            8 => s.push_str("\\b"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('"');
    s
}

fn format_into(reply: &Reply, prefix: &str, out: &mut String) {
    match reply {
        Reply::Attributed(_, inner) => format_into(inner, prefix, out),
        Reply::Error(e) => {
            out.push_str("(error) ");
            out.push_str(e);
            out.push('\n');
        }
        Reply::Status(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Reply::Integer(n) => {
            out.push_str(&format!("(integer) {n}\n"));
        }
        // redis-cli prints a RESP3 double's text as it came on the wire.
        Reply::Double(d) => {
            out.push_str(&format!("(double) {}\n", format_double_resp3(*d)));
        }
        Reply::DoubleText(t) => {
            out.push_str(&format!("(double) {t}\n"));
        }
        Reply::Bulk(b) => {
            out.push_str(&quote(b));
            out.push('\n');
        }
        // redis-cli 7.0 can't print big numbers (it exits with "Unknown reply type: 13");
        // this is the form later versions print. No Redis 7.0 command replies with one.
        Reply::BigNumber(n) => {
            out.push_str(&format!("(big number) {n}\n"));
        }
        Reply::Verbatim(_, text) => {
            out.push_str(&String::from_utf8_lossy(text));
            out.push('\n');
        }
        Reply::Nil | Reply::NilArray => out.push_str("(nil)\n"),
        Reply::Bool(b) => out.push_str(if *b { "(true)\n" } else { "(false)\n" }),
        Reply::Array(items) => {
            format_aggregate(items.iter().collect(), ')', "(empty array)", prefix, out)
        }
        Reply::Set(items) => {
            format_aggregate(items.iter().collect(), '~', "(empty set)", prefix, out)
        }
        Reply::Push(items) => {
            format_aggregate(items.iter().collect(), ')', "(empty push)", prefix, out)
        }
        Reply::Map(pairs) => {
            if pairs.is_empty() {
                out.push_str("(empty hash)\n");
                return;
            }
            let idxlen = digits(pairs.len());
            let child_prefix = format!("{prefix}{}", " ".repeat(idxlen + 2));
            for (i, (k, v)) in pairs.iter().enumerate() {
                let p = if i == 0 { "" } else { prefix };
                out.push_str(&format!("{p}{:>width$}# ", i + 1, width = idxlen));
                let mut tmp = String::new();
                format_into(k, &child_prefix, &mut tmp);
                if tmp.ends_with('\n') {
                    tmp.pop();
                }
                out.push_str(&tmp);
                out.push_str(" => ");
                if is_multiline(v) {
                    // A value spanning several lines starts on its own line, aligned
                    // under the key (redis-cli's `cliIsMultilineValueTTY`).
                    out.push('\n');
                    out.push_str(&child_prefix);
                }
                format_into(v, &child_prefix, out);
            }
        }
    }
}

/// True when `reply` renders on more than one line: an aggregate with more than one
/// element, or with one element that itself spans several lines.
fn is_multiline(reply: &Reply) -> bool {
    match reply {
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => match items.as_slice() {
            [] => false,
            [one] => is_multiline(one),
            _ => true,
        },
        Reply::Map(pairs) => match pairs.as_slice() {
            [] => false,
            [(_, v)] => is_multiline(v),
            _ => true,
        },
        _ => false,
    }
}

fn format_aggregate(items: Vec<&Reply>, sep: char, empty: &str, prefix: &str, out: &mut String) {
    if items.is_empty() {
        out.push_str(empty);
        out.push('\n');
        return;
    }
    let idxlen = digits(items.len());
    let child_prefix = format!("{prefix}{}", " ".repeat(idxlen + 2));
    for (i, item) in items.iter().enumerate() {
        let p = if i == 0 { "" } else { prefix };
        out.push_str(&format!("{p}{:>width$}{sep} ", i + 1, width = idxlen));
        format_into(item, &child_prefix, out);
    }
}

fn digits(mut n: usize) -> usize {
    let mut d = 0;
    loop {
        d += 1;
        n /= 10;
        if n == 0 {
            return d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Option<Vec<String>> {
        split_args(s).map(|v| {
            v.into_iter()
                .map(|a| String::from_utf8(a).unwrap())
                .collect()
        })
    }

    #[test]
    fn splits_like_sdssplitargs() {
        assert_eq!(split("set a b").unwrap(), ["set", "a", "b"]);
        assert_eq!(split("  set   a  ").unwrap(), ["set", "a"]);
        assert_eq!(split(r#"set "a b" c"#).unwrap(), ["set", "a b", "c"]);
        assert_eq!(split(r#"set "a\nb""#).unwrap(), ["set", "a\nb"]);
        assert_eq!(split(r#"set "\x41\x42""#).unwrap(), ["set", "AB"]);
        assert_eq!(split(r#"set 'it\'s'"#).unwrap(), ["set", "it's"]);
        assert_eq!(split(r#"set 'a\nb'"#).unwrap(), ["set", "a\\nb"]);
        assert_eq!(split(r#"set """#).unwrap(), ["set", ""]);
        assert_eq!(split(r#"set a"b c""#).unwrap(), ["set", "ab c"]);
        assert_eq!(split(""), Some(vec![]));
        assert_eq!(split(r#"set "abc"#), None);
        assert_eq!(split(r#"set 'abc"#), None);
        assert_eq!(split(r#"set "a"b"#), None);
    }

    #[test]
    fn splits_raw_bytes_and_stops_at_nul() {
        assert_eq!(
            split_args_bytes(b"set \xff \"\x80\"").unwrap(),
            vec![b"set".to_vec(), vec![0xff], vec![0x80]]
        );
        // A C string ends at NUL: what follows is not seen (and the split terminates).
        assert_eq!(
            split_args_bytes(b"set a\0b c").unwrap(),
            vec![b"set".to_vec(), b"a".to_vec()]
        );
        assert_eq!(split_args_bytes(b"\0set"), Some(vec![]));
        assert_eq!(split_args_bytes(b"set \"a\0\""), None);
    }

    #[test]
    fn renders_nested_arrays_with_redis_cli_indentation() {
        let items: Vec<Reply> = (0..10).map(Reply::bulk_int).collect();
        let r = Reply::Array(vec![Reply::Array(items), Reply::Nil]);
        let text = format_reply(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "1)  1) \"0\"");
        assert_eq!(lines[1], "    2) \"1\"");
        assert_eq!(lines[9], "   10) \"9\"");
        assert_eq!(lines[10], "2) (nil)");
    }

    #[test]
    fn multiline_map_values_start_on_their_own_line() {
        let inner = Reply::Map(vec![
            (Reply::bulk(b"a"), Reply::Integer(1)),
            (Reply::bulk(b"b"), Reply::Integer(2)),
        ]);
        let single = Reply::Map(vec![(Reply::bulk(b"x"), Reply::Integer(3))]);
        let r = Reply::Map(vec![
            (Reply::bulk(b"m"), inner),
            (Reply::bulk(b"s"), single),
        ]);
        assert_eq!(
            format_reply(&r),
            "1# \"m\" => \n   1# \"a\" => (integer) 1\n   2# \"b\" => (integer) 2\n2# \"s\" => 1# \"x\" => (integer) 3"
        );
    }

    #[test]
    fn quotes_binary_like_sdscatrepr() {
        assert_eq!(quote(b"a\"b\\\x00\xff\t"), r#""a\"b\\\x00\xff\t""#);
    }

    /// Byte for byte what `redis-cli --raw` 7.0.15 printed for these replies (captured
    /// from it against redis-server 7.0.15, each followed by its newline).
    #[test]
    fn raw_output_matches_redis_cli_raw() {
        let raw = |r: &Reply| format!("{}\n", format_reply_raw(r, 2));
        // GET 名字 (value 值), GET nope, INCR n
        assert_eq!(raw(&Reply::bulk("值".as_bytes())), "值\n");
        assert_eq!(raw(&Reply::Nil), "\n");
        assert_eq!(raw(&Reply::Integer(1)), "1\n");
        // RPUSH l a "" b; LRANGE l 0 -1; LRANGE nope 0 -1
        let l = Reply::Array(vec![Reply::bulk(b"a"), Reply::bulk(b""), Reply::bulk(b"b")]);
        assert_eq!(raw(&l), "a\n\nb\n");
        assert_eq!(raw(&Reply::Array(vec![])), "\n");
        // GETT x
        let e = Reply::Error("ERR unknown command 'GETT', with args beginning with: 'x' ".into());
        assert_eq!(
            raw(&e),
            "ERR unknown command 'GETT', with args beginning with: 'x' \n\n"
        );
        // XADD s 1-1 f v; XRANGE s - +  (nested arrays, flattened)
        let x = Reply::Array(vec![Reply::Array(vec![
            Reply::bulk(b"1-1"),
            Reply::Array(vec![Reply::bulk(b"f"), Reply::bulk(b"v")]),
        ])]);
        assert_eq!(raw(&x), "1-1\nf\nv\n");
        assert_eq!(raw(&Reply::ok()), "OK\n");
        // HELLO 3, then HGETALL h (a map) and ZSCORE z m (a double)
        let h = Reply::Map(vec![
            (Reply::bulk(b"f1"), Reply::bulk(b"v1")),
            (Reply::bulk(b"f2"), Reply::bulk(b"v2")),
        ]);
        assert_eq!(format!("{}\n", format_reply_raw(&h, 3)), "f1 v1\nf2 v2\n");
        assert_eq!(format!("{}\n", format_reply_raw(&h, 2)), "f1\nv1\nf2\nv2\n");
        assert_eq!(format_reply_raw(&Reply::Double(1.5), 3), "1.5");
        assert_eq!(format_reply_raw(&Reply::Set(vec![]), 3), "");
    }

    #[test]
    fn utf8_text_is_told_from_binary() {
        assert!(has_utf8_text(&Reply::bulk("值".as_bytes())));
        assert!(has_utf8_text(&Reply::Array(vec![
            Reply::bulk(b"a"),
            Reply::bulk("é".as_bytes())
        ])));
        assert!(!has_utf8_text(&Reply::bulk(b"\xff\xfe")));
        assert!(!has_utf8_text(&Reply::bulk(b"plain")));
    }

    #[test]
    fn empty_and_scalar_replies() {
        assert_eq!(format_reply(&Reply::Array(vec![])), "(empty array)");
        assert_eq!(format_reply(&Reply::ok()), "OK");
        assert_eq!(format_reply(&Reply::Integer(-3)), "(integer) -3");
        assert_eq!(format_reply(&Reply::Nil), "(nil)");
        assert_eq!(format_reply(&Reply::Error("ERR x".into())), "(error) ERR x");
    }
}
