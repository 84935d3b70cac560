//! Replies: one typed value, the superset of RESP2 and RESP3, with two renderings.
//!
//! A command handler returns a [`Reply`]; the host decides how to show it:
//!
//! * [`Reply::write_resp`] encodes it as RESP bytes for protocol version 2 or 3, the way
//!   `redis-server` would put it on the wire (RESP3-only types are downgraded for RESP2
//!   exactly as Redis downgrades them: maps become flat arrays, doubles become bulk strings,
//!   booleans become integers).
//! * [`crate::engine::cli::format_reply`] renders it as the text `redis-cli` prints.
//!
//! Redis distinguishes two kinds of null in RESP2 (`$-1` for a missing string and `*-1` for
//! a missing array); [`Reply::Nil`] and [`Reply::NilArray`] keep that difference. In RESP3
//! both are `_`.

/// A reply to one command.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A status reply such as `OK` (`+OK`). Must not contain CR or LF. Borrowed for the
    /// fixed ones (`OK`, `QUEUED`, `PONG`), so that the most common reply allocates nothing.
    Status(std::borrow::Cow<'static, str>),
    /// An error reply; the text includes its code, e.g. `ERR syntax error`.
    Error(String),
    /// A signed 64-bit integer (`:1`).
    Integer(i64),
    /// A binary-safe string (`$3\r\nfoo`).
    Bulk(Vec<u8>),
    /// A missing string: `$-1` in RESP2, `_` in RESP3.
    Nil,
    /// A missing array: `*-1` in RESP2, `_` in RESP3.
    NilArray,
    /// An ordered sequence.
    Array(Vec<Reply>),
    /// RESP3 map; a flat array of `2 * len` items in RESP2.
    Map(Vec<(Reply, Reply)>),
    /// RESP3 set; an array in RESP2.
    Set(Vec<Reply>),
    /// RESP3 double; a bulk string formatted as Redis 7.0 does in RESP2.
    Double(f64),
    /// A double whose text is fixed by the command rather than by `%.17g`: a RESP3 double
    /// (`,13.36138933897018433`) or in RESP2 a bulk string, both carrying the text as is.
    /// GEOPOS and `WITHCOORD` send coordinates this way (Redis's `addReplyHumanLongDouble`:
    /// 17 decimals, trailing zeros trimmed).
    DoubleText(String),
    /// RESP3 boolean; `:1`/`:0` in RESP2.
    Bool(bool),
    /// RESP3 verbatim string with its three-letter format (`txt`, `mkd`); bulk in RESP2.
    Verbatim([u8; 3], Vec<u8>),
    /// RESP3 big number, kept as its decimal text; a bulk string in RESP2.
    BigNumber(String),
    /// RESP3 out-of-band push (pub/sub messages); an array in RESP2.
    Push(Vec<Reply>),
    /// A reply with RESP3 attributes before it (`|1` and the pairs, then the reply); in
    /// RESP2 the reply alone. Only `DEBUG PROTOCOL attrib` sends one, as in Redis 7.0.
    Attributed(Vec<(Reply, Reply)>, Box<Reply>),
}

impl Reply {
    /// The `+OK` status reply.
    pub fn ok() -> Reply {
        Reply::Status("OK".into())
    }

    /// A status reply with the given text: `&'static str` (borrowed) or `String`.
    pub fn status(s: impl Into<std::borrow::Cow<'static, str>>) -> Reply {
        Reply::Status(s.into())
    }

    /// A bulk string reply copied from `bytes`.
    pub fn bulk(bytes: &[u8]) -> Reply {
        Reply::Bulk(bytes.to_vec())
    }

    /// A bulk string reply holding the decimal text of `n`.
    pub fn bulk_int(n: i64) -> Reply {
        Reply::Bulk(n.to_string().into_bytes())
    }

    /// A bulk reply when `Some`, the null bulk string when `None`.
    pub fn bulk_or_nil(bytes: Option<&[u8]>) -> Reply {
        match bytes {
            Some(b) => Reply::bulk(b),
            None => Reply::Nil,
        }
    }

    /// An array of bulk strings.
    pub fn bulk_array<I, B>(items: I) -> Reply
    where
        I: IntoIterator<Item = B>,
        B: AsRef<[u8]>,
    {
        Reply::Array(items.into_iter().map(|b| Reply::bulk(b.as_ref())).collect())
    }

    /// True for [`Reply::Error`].
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// Encodes the reply as RESP for protocol version `proto` (2 or 3), appending to `out`.
    pub fn write_resp(&self, proto: u8, out: &mut Vec<u8>) {
        match self {
            Reply::Status(s) => {
                out.push(b'+');
                out.extend_from_slice(s.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
            Reply::Error(s) => {
                out.push(b'-');
                // An error line can't carry CR or LF; Redis replaces them with spaces.
                out.extend(
                    s.bytes()
                        .map(|b| if b == b'\r' || b == b'\n' { b' ' } else { b }),
                );
                out.extend_from_slice(b"\r\n");
            }
            Reply::Integer(n) => write_line(out, b':', *n),
            Reply::Bulk(b) => write_bulk(out, b),
            Reply::Nil => {
                if proto >= 3 {
                    out.extend_from_slice(b"_\r\n");
                } else {
                    out.extend_from_slice(b"$-1\r\n");
                }
            }
            Reply::NilArray => {
                if proto >= 3 {
                    out.extend_from_slice(b"_\r\n");
                } else {
                    out.extend_from_slice(b"*-1\r\n");
                }
            }
            Reply::Array(items) => {
                write_line(out, b'*', items.len() as i64);
                for item in items {
                    item.write_resp(proto, out);
                }
            }
            Reply::Map(pairs) => {
                if proto >= 3 {
                    write_line(out, b'%', pairs.len() as i64);
                } else {
                    write_line(out, b'*', 2 * pairs.len() as i64);
                }
                for (k, v) in pairs {
                    k.write_resp(proto, out);
                    v.write_resp(proto, out);
                }
            }
            Reply::Set(items) => {
                write_line(
                    out,
                    if proto >= 3 { b'~' } else { b'*' },
                    items.len() as i64,
                );
                for item in items {
                    item.write_resp(proto, out);
                }
            }
            Reply::Push(items) => {
                write_line(
                    out,
                    if proto >= 3 { b'>' } else { b'*' },
                    items.len() as i64,
                );
                for item in items {
                    item.write_resp(proto, out);
                }
            }
            Reply::Attributed(pairs, reply) => {
                if proto >= 3 {
                    write_line(out, b'|', pairs.len() as i64);
                    for (k, v) in pairs {
                        k.write_resp(proto, out);
                        v.write_resp(proto, out);
                    }
                }
                reply.write_resp(proto, out);
            }
            Reply::Double(d) => {
                if proto >= 3 {
                    out.push(b',');
                    out.extend_from_slice(format_double_resp3(*d).as_bytes());
                    out.extend_from_slice(b"\r\n");
                } else {
                    write_bulk(out, format_double(*d).as_bytes());
                }
            }
            Reply::DoubleText(text) => {
                if proto >= 3 {
                    out.push(b',');
                    out.extend_from_slice(text.as_bytes());
                    out.extend_from_slice(b"\r\n");
                } else {
                    write_bulk(out, text.as_bytes());
                }
            }
            Reply::Bool(b) => {
                if proto >= 3 {
                    out.extend_from_slice(if *b { b"#t\r\n" } else { b"#f\r\n" });
                } else {
                    out.extend_from_slice(if *b { b":1\r\n" } else { b":0\r\n" });
                }
            }
            Reply::Verbatim(fmt, text) => {
                if proto >= 3 {
                    write_line(out, b'=', text.len() as i64 + 4);
                    out.extend_from_slice(fmt);
                    out.push(b':');
                    out.extend_from_slice(text);
                    out.extend_from_slice(b"\r\n");
                } else {
                    write_bulk(out, text);
                }
            }
            Reply::BigNumber(n) => {
                if proto >= 3 {
                    out.push(b'(');
                    out.extend_from_slice(n.as_bytes());
                    out.extend_from_slice(b"\r\n");
                } else {
                    write_bulk(out, n.as_bytes());
                }
            }
        }
    }

    /// The RESP encoding as a fresh buffer.
    pub fn to_resp(&self, proto: u8) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_resp(proto, &mut out);
        out
    }
}

fn write_line(out: &mut Vec<u8>, prefix: u8, n: i64) {
    out.push(prefix);
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    out.extend_from_slice(b"\r\n");
}

fn write_bulk(out: &mut Vec<u8>, b: &[u8]) {
    write_line(out, b'$', b.len() as i64);
    out.extend_from_slice(b);
    out.extend_from_slice(b"\r\n");
}

/// Formats a double as Redis 7.0's `addReplyDouble` does for RESP2 (and `d2string`):
/// `inf`/`-inf`, integral values in the exactly representable range printed as integers,
/// everything else with `%.17g`.
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "nan".to_string();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if d == 0.0 {
        // d2string prints "-0" for negative zero.
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // d2string: integral values within +-2^52 use integer formatting.
    const LIMIT: f64 = (1u64 << 52) as f64;
    if d.fract() == 0.0 && d.abs() < LIMIT {
        return itoa::Buffer::new().format(d as i64).to_owned();
    }
    format_g17(d)
}

/// RESP3 doubles: Redis 7.0 writes `,inf`, `,-inf`, `,nan` and `%.17g` otherwise. This
/// is also the text `redis-cli` prints after `(double) `.
pub fn format_double_resp3(d: f64) -> String {
    if d.is_nan() {
        "nan".to_string()
    } else if d.is_infinite() {
        if d > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format_g17(d)
    }
}

/// C's `printf("%.17g", d)` for a finite `d`: the Lua crate's `%g`, which its tests hold to
/// glibc's.
pub fn format_g17(d: f64) -> String {
    kvlab_lua::numfmt::g17(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resp2_and_resp3_nulls_differ() {
        assert_eq!(Reply::Nil.to_resp(2), b"$-1\r\n");
        assert_eq!(Reply::NilArray.to_resp(2), b"*-1\r\n");
        assert_eq!(Reply::Nil.to_resp(3), b"_\r\n");
    }

    #[test]
    fn map_flattens_in_resp2() {
        let m = Reply::Map(vec![(Reply::bulk(b"a"), Reply::Integer(1))]);
        assert_eq!(m.to_resp(2), b"*2\r\n$1\r\na\r\n:1\r\n");
        assert_eq!(m.to_resp(3), b"%1\r\n$1\r\na\r\n:1\r\n");
    }

    #[test]
    fn doubles_format_like_redis_7_0() {
        assert_eq!(format_double(1.1), "1.1000000000000001");
        assert_eq!(format_double(3.0), "3");
        assert_eq!(format_double(f64::INFINITY), "inf");
        assert_eq!(format_double(1e20), "1e+20");
        assert_eq!(format_double(0.5), "0.5");
        assert_eq!(format_double(1.5e-7), "1.4999999999999999e-07");
        let format_g = kvlab_lua::numfmt::format_g;
        assert_eq!(format_g(100000.0, 6), "100000");
        assert_eq!(format_g(1000000.0, 6), "1e+06");
        assert_eq!(format_g(0.0001, 6), "0.0001");
        assert_eq!(format_g(0.00001, 6), "1e-05");
        assert_eq!(format_double(-4_503_599_627_370_495.0), "-4503599627370495");
        assert_eq!(format_double(4_503_599_627_370_496.0), "4503599627370496");
    }

    #[test]
    fn error_text_cannot_break_the_frame() {
        assert_eq!(
            Reply::Error("ERR a\r\nb".into()).to_resp(2),
            b"-ERR a  b\r\n"
        );
    }
}
