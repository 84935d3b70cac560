//! A blocking RESP2/RESP3 client for tests.
//!
//! Replies are parsed into [`Reply`] with these conventions, so that two servers can be
//! compared value by value:
//! - `$-1` is [`Reply::Nil`], `*-1` is [`Reply::NilArray`]; RESP3's `_` is [`Reply::Nil`].
//! - RESP3 doubles are [`Reply::Double`] when `%.17g` of the value gives back their text,
//!   else [`Reply::DoubleText`] with the text.
//! - RESP3 maps, sets, doubles, booleans, verbatim strings, big numbers and pushes become
//!   the matching variants; attributes (`|`) are read and dropped.
//!
//! [`parse_reply`] also reads replies from any byte source, which is how the in-process
//! engine's replies are normalised: encode with [`Reply::to_resp`], parse back.

use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use kvlab::engine::reply::format_double_resp3;
use kvlab::engine::Reply;

/// A connection to a RESP server.
pub struct RespClient {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl RespClient {
    /// Connects to `127.0.0.1:port`. Reads time out after 30 s so a silent server fails the
    /// test instead of hanging it.
    pub fn connect(port: u16) -> io::Result<RespClient> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let writer = stream.try_clone()?;
        Ok(RespClient {
            reader: BufReader::new(stream),
            writer,
        })
    }

    /// Sends one command and reads its reply.
    pub fn call<A: AsRef<[u8]>>(&mut self, argv: &[A]) -> io::Result<Reply> {
        self.send(argv)?;
        self.read_reply()
    }

    /// Sends one command without waiting for the reply.
    pub fn send<A: AsRef<[u8]>>(&mut self, argv: &[A]) -> io::Result<()> {
        self.writer.write_all(&encode_command(argv))
    }

    /// Sends bytes already encoded (a pipeline of commands) in one write.
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Reads the next reply.
    pub fn read_reply(&mut self) -> io::Result<Reply> {
        parse_reply(&mut self.reader)
    }
}

/// Encodes a command as a RESP array of bulk strings.
pub fn encode_command<A: AsRef<[u8]>>(argv: &[A]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", argv.len()).into_bytes();
    for a in argv {
        let a = a.as_ref();
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Parses a complete reply from a byte slice (for round-tripping engine replies).
pub fn parse_bytes(bytes: &[u8]) -> io::Result<Reply> {
    let mut r = io::Cursor::new(bytes);
    let reply = parse_reply(&mut r)?;
    if (r.position() as usize) != bytes.len() {
        return Err(bad("trailing bytes after reply"));
    }
    Ok(reply)
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

fn read_line<R: BufRead>(r: &mut R) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line)?;
    if line.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    if !line.ends_with(b"\r\n") {
        return Err(bad("reply line not terminated by CRLF"));
    }
    line.truncate(line.len() - 2);
    Ok(line)
}

fn parse_int(b: &[u8]) -> io::Result<i64> {
    std::str::from_utf8(b)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(&format!("bad integer {:?}", String::from_utf8_lossy(b))))
}

fn read_exact_crlf<R: BufRead>(r: &mut R, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; n + 2];
    r.read_exact(&mut buf)?;
    if !buf.ends_with(b"\r\n") {
        return Err(bad("bulk not terminated by CRLF"));
    }
    buf.truncate(n);
    Ok(buf)
}

/// Status and error text. Invalid UTF-8 is kept visible as `\xNN` rather than replaced
/// by U+FFFD, so that a server sending raw bytes and one sending replacement characters
/// don't compare equal.
fn text(b: Vec<u8>) -> String {
    let mut s = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        s.push_str(chunk.valid());
        for x in chunk.invalid() {
            s.push_str(&format!("\\x{x:02x}"));
        }
    }
    s
}

/// Reads one reply from `r`.
pub fn parse_reply<R: BufRead>(r: &mut R) -> io::Result<Reply> {
    loop {
        let line = read_line(r)?;
        let (&kind, rest) = line.split_first().ok_or_else(|| bad("empty reply line"))?;
        let items = |r: &mut R, n: i64| -> io::Result<Vec<Reply>> {
            (0..n).map(|_| parse_reply(r)).collect()
        };
        return Ok(match kind {
            b'+' => Reply::Status(text(rest.to_vec()).into()),
            b'-' => Reply::Error(text(rest.to_vec())),
            b':' => Reply::Integer(parse_int(rest)?),
            b'$' => match parse_int(rest)? {
                -1 => Reply::Nil,
                n if n < 0 => return Err(bad("negative bulk length")),
                n => Reply::Bulk(read_exact_crlf(r, n as usize)?),
            },
            b'*' => match parse_int(rest)? {
                -1 => Reply::NilArray,
                n if n < 0 => return Err(bad("negative array length")),
                n => Reply::Array(items(r, n)?),
            },
            b'_' => Reply::Nil,
            b'#' => match rest {
                b"t" => Reply::Bool(true),
                b"f" => Reply::Bool(false),
                _ => return Err(bad("bad boolean")),
            },
            b',' => {
                // A double whose text is not what `%.17g` makes of its value (GEOPOS's
                // coordinates) keeps its text, so that both servers compare by wire form.
                let d = parse_double(rest)?;
                if format_double_resp3(d).as_bytes() == rest {
                    Reply::Double(d)
                } else {
                    Reply::DoubleText(text(rest.to_vec()))
                }
            }
            b'(' => Reply::BigNumber(text(rest.to_vec())),
            b'%' => {
                let n = parse_int(rest)?;
                let mut pairs = Vec::new();
                for _ in 0..n {
                    let k = parse_reply(r)?;
                    let v = parse_reply(r)?;
                    pairs.push((k, v));
                }
                Reply::Map(pairs)
            }
            b'~' => Reply::Set(items(r, parse_int(rest)?)?),
            b'>' => Reply::Push(items(r, parse_int(rest)?)?),
            b'=' => {
                let n = parse_int(rest)?;
                let body = read_exact_crlf(r, n.max(0) as usize)?;
                if body.len() < 4 || body[3] != b':' {
                    return Err(bad("bad verbatim string"));
                }
                let fmt: [u8; 3] = body[..3].try_into().expect("three bytes");
                Reply::Verbatim(fmt, body[4..].to_vec())
            }
            b'|' => {
                // An attribute: a map of metadata that precedes the real reply.
                let n = parse_int(rest)?;
                for _ in 0..2 * n {
                    parse_reply(r)?;
                }
                continue;
            }
            _ => return Err(bad(&format!("unknown reply type byte {:?}", kind as char))),
        });
    }
}

fn parse_double(b: &[u8]) -> io::Result<f64> {
    match b {
        b"inf" => Ok(f64::INFINITY),
        b"-inf" => Ok(f64::NEG_INFINITY),
        b"nan" | b"-nan" => Ok(f64::NAN),
        _ => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("bad double")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_reply_kind() {
        let r = Reply::Array(vec![
            Reply::ok(),
            Reply::Error("ERR x".into()),
            Reply::Integer(-7),
            Reply::bulk(b"a\r\nb"),
            Reply::Nil,
            Reply::NilArray,
            Reply::Array(vec![]),
        ]);
        assert_eq!(parse_bytes(&r.to_resp(2)).unwrap(), r);
        let m = Reply::Map(vec![(Reply::bulk(b"k"), Reply::Double(1.5))]);
        assert_eq!(parse_bytes(&m.to_resp(3)).unwrap(), m);
        let s = Reply::Set(vec![Reply::Bool(true)]);
        assert_eq!(parse_bytes(&s.to_resp(3)).unwrap(), s);
    }
}
