//! Reading requests: a connection's query buffer and Redis's two request syntaxes.
//!
//! Bytes read from the socket are appended to one growing buffer; [`QueryBuffer::next_request`]
//! parses complete requests out of it in place, and [`QueryBuffer::compact`] drops what was
//! consumed once a batch is done — the shape of Redis's `querybuf` + `qb_pos`.
//!
//! The first byte of a request picks its syntax, as in `processInputBuffer`:
//!
//! * `*` starts a **multibulk** request, `*<count>\r\n` then `count` times
//!   `$<len>\r\n<len bytes>\r\n`. A count ≤ 0 is an empty request and is skipped. The parse
//!   state (arguments still expected, the length of the next bulk) survives between reads,
//!   so a request may arrive in any number of pieces.
//! * anything else is an **inline** request: one line up to `\n` (a `\r` before it is
//!   dropped), split into arguments with redis-cli's quoting rules
//!   ([`split_args_bytes`]). An empty line is skipped.
//!
//! # Faithful quirks
//! Redis looks for line ends with `strchr`, which stops at a NUL byte: a header or inline
//! line with a NUL before its line end is never complete (the client waits until the 64 KB
//! limit turns it into an error). After a header's `\r` and after a bulk's payload Redis skips
//! two bytes without checking that they are `\r\n`. Both are reproduced here, so byte streams
//! get the same replies as from `redis-server` 7.0.
//!
//! # Limits and errors
//! Each [`ProtocolError`] is answered with its exact Redis text and then the connection is
//! closed. A header or inline line still unterminated after more than 64 KB
//! (`PROTO_INLINE_MAX_SIZE`) is an error; a count above `i32::MAX` or a bulk length above
//! `proto-max-bulk-len` (512 MB) is an error; from a client that must still authenticate, a
//! count above 10 or a bulk length above 16 KB is one too
//! ([`QueryBuffer::set_unauthenticated`]). Nothing is allocated from a claimed count or
//! length beyond what the data already sent justifies, except for the one bulk being read
//! (as Redis does for arguments of 32 KB or more, so they are read straight into place).

use crate::engine::args::parse_i64;
use crate::engine::cli::split_args_bytes;

/// Longest header or inline line waited for (Redis's `PROTO_INLINE_MAX_SIZE`).
pub const INLINE_MAX: usize = 64 * 1024;

/// Default largest bulk argument (Redis's `proto-max-bulk-len`, 512 MB).
pub const DEFAULT_MAX_BULK_LEN: usize = 512 * 1024 * 1024;

/// Bulk arguments at least this long are read straight into a buffer of their own size
/// (Redis's `PROTO_MBULK_BIG_ARG`).
pub const BIG_ARG: usize = 32 * 1024;

/// Unparsed input beyond this closes the connection (Redis's `client-query-buffer-limit`, 1 GB).
pub const QUERY_BUFFER_LIMIT: usize = 1024 * 1024 * 1024;

/// How much room a normal read asks for (Redis's `PROTO_IOBUF_LEN`).
pub const READ_CHUNK: usize = 16 * 1024;

/// Room beyond which [`QueryBuffer::trim`] gives memory back (Redis's 4 KB).
const TRIM_SLACK: usize = 4 * 1024;

/// A buffer above this may shrink to its recent peak (Redis's `PROTO_RESIZE_THRESHOLD`).
const RESIZE_THRESHOLD: usize = 32 * 1024;

/// Largest multibulk count (`INT_MAX` in Redis 7.0).
const MAX_MULTIBULK: i64 = i32::MAX as i64;

/// Arguments pre-allocated for a multibulk request, whatever count it claims.
const ARGV_PREALLOC: usize = 1024;

/// Largest multibulk count accepted from a client that must authenticate and has not yet.
const UNAUTH_MAX_MULTIBULK: usize = 10;

/// Largest bulk length accepted from a client that must authenticate and has not yet.
const UNAUTH_MAX_BULK_LEN: usize = 16 * 1024;

/// A malformed request. Redis replies with [`ProtocolError::reply`] and closes the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolError {
    /// `*` followed by something that is not an integer in `..=i32::MAX`.
    InvalidMultibulkLength,
    /// `$` followed by something that is not an integer in `0..=proto-max-bulk-len`.
    InvalidBulkLength,
    /// A multibulk argument header that does not start with `$`; holds the byte found.
    ExpectedDollar(u8),
    /// An inline line with an unterminated quote or a closing quote glued to more text.
    UnbalancedQuotes,
    /// An inline line longer than 64 KB without a line end.
    TooBigInline,
    /// A `*` header longer than 64 KB without `\r`.
    TooBigMbulkCount,
    /// A `$` header longer than 64 KB without `\r`.
    TooBigBulkCount,
    /// A count above 10 from a client that has not authenticated (`requirepass` set).
    UnauthenticatedMultibulkLength,
    /// A bulk length above 16 KB from a client that has not authenticated.
    UnauthenticatedBulkLength,
}

impl ProtocolError {
    /// Appends the exact error reply `redis-server` sends, e.g.
    /// `-ERR Protocol error: invalid bulk length\r\n`.
    pub fn write_reply(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"-ERR Protocol error: ");
        match self {
            ProtocolError::InvalidMultibulkLength => {
                out.extend_from_slice(b"invalid multibulk length")
            }
            ProtocolError::InvalidBulkLength => out.extend_from_slice(b"invalid bulk length"),
            ProtocolError::ExpectedDollar(b) => {
                out.extend_from_slice(b"expected '$', got '");
                // Error lines can't carry CR or LF; Redis maps them to spaces.
                out.push(if *b == b'\r' || *b == b'\n' { b' ' } else { *b });
                out.push(b'\'');
            }
            ProtocolError::UnbalancedQuotes => {
                out.extend_from_slice(b"unbalanced quotes in request")
            }
            ProtocolError::TooBigInline => out.extend_from_slice(b"too big inline request"),
            ProtocolError::TooBigMbulkCount => out.extend_from_slice(b"too big mbulk count string"),
            ProtocolError::TooBigBulkCount => out.extend_from_slice(b"too big bulk count string"),
            ProtocolError::UnauthenticatedMultibulkLength => {
                out.extend_from_slice(b"unauthenticated multibulk length")
            }
            ProtocolError::UnauthenticatedBulkLength => {
                out.extend_from_slice(b"unauthenticated bulk length")
            }
        }
        out.extend_from_slice(b"\r\n");
    }

    /// The reply as a fresh buffer.
    pub fn reply(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_reply(&mut out);
        out
    }
}

/// A connection's input: the bytes read and not yet consumed, plus the state of a
/// multibulk request that is only partly read.
#[derive(Debug)]
pub struct QueryBuffer {
    /// Bytes read from the socket; `buf[pos..]` is not parsed yet.
    buf: Vec<u8>,
    pos: usize,
    /// Arguments still expected by the multibulk request being read; 0 between requests.
    pending_args: usize,
    /// Length of the next bulk argument once its `$` header has been read.
    bulk_len: Option<usize>,
    /// Arguments of the multibulk request being read.
    argv: Vec<Vec<u8>>,
    /// Largest accepted bulk (`proto-max-bulk-len`).
    max_bulk_len: usize,
    /// The client must still authenticate: counts and lengths get the small limits.
    unauthenticated: bool,
    /// Most bytes the buffer held since the last [`QueryBuffer::trim`] (Redis's
    /// `querybuf_peak`).
    peak: usize,
    /// Tests turn the fast path off to compare it with the general one.
    #[cfg(test)]
    general_only: bool,
}

impl Default for QueryBuffer {
    fn default() -> Self {
        QueryBuffer::new()
    }
}

impl QueryBuffer {
    /// An empty buffer with Redis's default limits.
    pub fn new() -> QueryBuffer {
        QueryBuffer {
            buf: Vec::with_capacity(READ_CHUNK),
            pos: 0,
            pending_args: 0,
            bulk_len: None,
            argv: Vec::new(),
            max_bulk_len: DEFAULT_MAX_BULK_LEN,
            unauthenticated: false,
            peak: 0,
            #[cfg(test)]
            general_only: false,
        }
    }

    /// Sets the largest accepted bulk argument (`proto-max-bulk-len`).
    pub fn set_max_bulk_len(&mut self, n: usize) {
        self.max_bulk_len = n;
    }

    /// Says whether the client must still authenticate (`requirepass` is set and it has not
    /// sent a good `AUTH`). Until it has, headers claiming more than 10 arguments or a bulk
    /// of more than 16 KB are protocol errors, so that a stranger cannot make the server
    /// buffer large requests (Redis's `authRequired` checks in `processMultibulkBuffer`).
    /// Set it before each [`QueryBuffer::next_request`]: an `AUTH` earlier in a pipeline
    /// lifts the limits for the requests after it.
    pub fn set_unauthenticated(&mut self, unauthenticated: bool) {
        self.unauthenticated = unauthenticated;
    }

    /// The buffer to read into, with room reserved for the next read: normally 16 KB; while
    /// a big bulk argument is awaited, exactly the bytes it still lacks, so that it ends up
    /// alone in the buffer and can be taken without a copy.
    pub fn read_target(&mut self) -> &mut Vec<u8> {
        let spare = self.buf.capacity() - self.buf.len();
        match self.bulk_len {
            Some(len) if len >= BIG_ARG => {
                let missing = (len + 2).saturating_sub(self.buf.len() - self.pos);
                if spare < missing {
                    self.buf.reserve_exact(missing);
                }
            }
            _ => {
                if spare < READ_CHUNK {
                    self.buf.reserve(READ_CHUNK);
                }
            }
        }
        &mut self.buf
    }

    /// Appends bytes as if read from the socket (tests and in-process hosts).
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes in the buffer, the consumed ones of this batch included (Redis's
    /// `sdslen(querybuf)`, `qbuf` in `CLIENT LIST`), and the room left in it (`qbuf-free`).
    pub fn usage(&self) -> (usize, usize) {
        (self.buf.len(), self.buf.capacity() - self.buf.len())
    }

    /// Bytes read but not yet consumed by a complete request.
    pub fn unparsed(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Drops the consumed bytes (call after each batch). The room stays, as in Redis, until
    /// [`QueryBuffer::trim`] gives it back.
    pub fn compact(&mut self) {
        self.peak = self.peak.max(self.buf.len());
        if self.pos == self.buf.len() {
            self.buf.clear();
        } else if self.pos > 0 {
            self.buf.drain(..self.pos);
        }
        self.pos = 0;
    }

    /// True while the buffer has more than 4 KB of room it might give back, the case
    /// [`QueryBuffer::trim`] looks at.
    pub fn wasting(&self) -> bool {
        self.buf.capacity() - self.buf.len() > TRIM_SLACK
    }

    /// Gives back room the client does not use, as Redis's `clientsCronResizeQueryBuffer`
    /// does ten times a second: all of it once the client has been `idle` (more than 2 s
    /// without sending), else, for a buffer over 32 KB more than twice as big as its peak
    /// since the last call, what exceeds that peak (and the bulk being read). Then the peak
    /// starts again from what the buffer holds. Call between batches; returns true if the
    /// buffer changed.
    pub fn trim(&mut self, idle: bool) -> bool {
        let (len, size) = (self.buf.len(), self.buf.capacity());
        let mut changed = false;
        if size - len > TRIM_SLACK {
            if idle {
                self.buf.shrink_to_fit();
                changed = true;
            } else if size > RESIZE_THRESHOLD && size / 2 > self.peak {
                let bulk = self.bulk_len.map_or(0, |n| n + 2);
                self.buf.shrink_to(len.max(self.peak).max(bulk));
                changed = true;
            }
        }
        self.peak = len;
        changed
    }

    /// Parses the next complete request: `Ok(Some(argv))` (never empty), `Ok(None)` when more
    /// bytes are needed, or the protocol error Redis would report.
    pub fn next_request(&mut self) -> Result<Option<Vec<Vec<u8>>>, ProtocolError> {
        loop {
            if self.pending_args == 0 {
                let Some(&first) = self.buf.get(self.pos) else {
                    return Ok(None);
                };
                if first != b'*' {
                    match self.inline()? {
                        None => return Ok(None),
                        Some(argv) if argv.is_empty() => continue,
                        Some(argv) => return Ok(Some(argv)),
                    }
                }
                let Some(count) = self.multibulk_count()? else {
                    return Ok(None);
                };
                if count == 0 {
                    continue;
                }
                self.pending_args = count;
                self.argv = Vec::with_capacity(count.min(ARGV_PREALLOC));
            }
            while self.pending_args > 0 {
                let len = match self.bulk_len {
                    Some(len) => len,
                    None => match self.bulk_header()? {
                        Some(len) => len,
                        None => return Ok(None),
                    },
                };
                if self.buf.len() - self.pos < len + 2 {
                    return Ok(None);
                }
                let arg = if self.pos == 0 && len >= BIG_ARG && self.buf.len() == len + 2 {
                    // The buffer holds exactly this argument: take it whole, and make room
                    // for another as big, as Redis does (the next is likely big too;
                    // `trim` gives the room back if not).
                    self.peak = self.peak.max(len + 2);
                    let mut whole = std::mem::replace(&mut self.buf, Vec::with_capacity(len + 2));
                    whole.truncate(len);
                    whole
                } else {
                    let arg = self.buf[self.pos..self.pos + len].to_vec();
                    // Redis skips the two bytes after the payload without looking at them.
                    self.pos += len + 2;
                    arg
                };
                self.argv.push(arg);
                self.bulk_len = None;
                self.pending_args -= 1;
            }
            return Ok(Some(std::mem::take(&mut self.argv)));
        }
    }

    /// Position of the first `byte` at or after `pos`, unless a NUL comes first (`strchr`).
    fn find_line_end(&self, byte: u8) -> Option<usize> {
        let rest = &self.buf[self.pos..];
        let i = rest.iter().position(|&b| b == byte || b == 0)?;
        (rest[i] == byte).then_some(self.pos + i)
    }

    /// The `\r` ending the header line at `pos`: `Ok(None)` if the line (including the byte
    /// after `\r`) is not all there yet, `Err(too_big)` if it never ended within 64 KB.
    fn header_end(&self, too_big: ProtocolError) -> Result<Option<usize>, ProtocolError> {
        match self.find_line_end(b'\r') {
            None if self.unparsed() > INLINE_MAX => Err(too_big),
            None => Ok(None),
            // The byte after `\r` (taken to be `\n`) must have arrived too.
            Some(cr) if cr + 1 >= self.buf.len() => Ok(None),
            Some(cr) => Ok(Some(cr)),
        }
    }

    /// The common case of a header at `pos`: a prefix byte, 1 to 18 digits without a
    /// leading zero, `\r` and one more byte. Returns the number and where the header ends;
    /// `None` sends the caller down the general path, which handles everything else.
    #[inline]
    fn plain_header(&self) -> Option<(usize, usize)> {
        #[cfg(test)]
        if self.general_only {
            return None;
        }
        let rest = self.buf.get(self.pos + 1..)?;
        let window = &rest[..rest.len().min(19)];
        let mut n: usize = 0;
        let mut digits = 0;
        while digits < window.len() {
            let d = window[digits].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            n = n * 10 + usize::from(d);
            digits += 1;
        }
        let plain = (1..=18).contains(&digits)
            && (digits == 1 || rest[0] != b'0')
            && digits + 1 < rest.len()
            && rest[digits] == b'\r';
        plain.then_some((n, self.pos + 1 + digits + 2))
    }

    /// Reads `*<count>\r\n`; returns the count, 0 for the empty requests `*0` and `*-n`.
    fn multibulk_count(&mut self) -> Result<Option<usize>, ProtocolError> {
        if let Some((n, end)) = self
            .plain_header()
            .filter(|&(n, _)| n as i64 <= MAX_MULTIBULK)
        {
            self.check_unauth_count(n)?;
            self.pos = end;
            return Ok(Some(n));
        }
        let Some(cr) = self.header_end(ProtocolError::TooBigMbulkCount)? else {
            return Ok(None);
        };
        let n = parse_i64(&self.buf[self.pos + 1..cr])
            .filter(|&n| n <= MAX_MULTIBULK)
            .ok_or(ProtocolError::InvalidMultibulkLength)?;
        let n = usize::try_from(n).unwrap_or(0);
        self.check_unauth_count(n)?;
        self.pos = cr + 2;
        Ok(Some(n))
    }

    /// The unauthenticated client's limit on a valid multibulk count.
    fn check_unauth_count(&self, n: usize) -> Result<(), ProtocolError> {
        if self.unauthenticated && n > UNAUTH_MAX_MULTIBULK {
            return Err(ProtocolError::UnauthenticatedMultibulkLength);
        }
        Ok(())
    }

    /// Reads `$<len>\r\n` and records the length.
    fn bulk_header(&mut self) -> Result<Option<usize>, ProtocolError> {
        let plain = match self.buf.get(self.pos) {
            Some(b'$') => self
                .plain_header()
                .filter(|&(len, _)| len <= self.max_bulk_len),
            _ => None,
        };
        let len = match plain {
            Some((len, end)) => {
                self.pos = end;
                len
            }
            None => {
                let Some(cr) = self.header_end(ProtocolError::TooBigBulkCount)? else {
                    return Ok(None);
                };
                let first = self.buf[self.pos];
                if first != b'$' {
                    return Err(ProtocolError::ExpectedDollar(first));
                }
                let len = parse_i64(&self.buf[self.pos + 1..cr])
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|&n| n <= self.max_bulk_len)
                    .ok_or(ProtocolError::InvalidBulkLength)?;
                self.pos = cr + 2;
                len
            }
        };
        if self.unauthenticated && len > UNAUTH_MAX_BULK_LEN {
            return Err(ProtocolError::UnauthenticatedBulkLength);
        }
        if len >= BIG_ARG && self.buf.len() - self.pos <= len + 2 {
            // Move the payload's start to the front so that the rest is read in place.
            self.buf.drain(..self.pos);
            self.pos = 0;
            let missing = len + 2 - self.buf.len();
            self.buf.reserve_exact(missing);
        }
        self.bulk_len = Some(len);
        Ok(Some(len))
    }

    /// Reads one inline line; `Some(vec![])` for a blank line.
    fn inline(&mut self) -> Result<Option<Vec<Vec<u8>>>, ProtocolError> {
        let Some(nl) = self.find_line_end(b'\n') else {
            if self.unparsed() > INLINE_MAX {
                return Err(ProtocolError::TooBigInline);
            }
            return Ok(None);
        };
        let mut line = &self.buf[self.pos..nl];
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        let argv = split_args_bytes(line).ok_or(ProtocolError::UnbalancedQuotes)?;
        self.pos = nl + 1;
        Ok(Some(argv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The requests parsed from an input, and the error that stopped it if any.
    type Parsed = (Vec<Vec<Vec<u8>>>, Option<ProtocolError>);

    fn all(input: &[u8]) -> Parsed {
        all_with(input, false)
    }

    fn all_with(input: &[u8], general_only: bool) -> Parsed {
        let mut q = QueryBuffer::new();
        q.general_only = general_only;
        q.extend_from_slice(input);
        let mut out = Vec::new();
        loop {
            match q.next_request() {
                Ok(Some(argv)) => out.push(argv),
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e)),
            }
        }
    }

    fn args(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn multibulk_and_inline_mixed() {
        let (reqs, err) = all(b"*2\r\n$4\r\nECHO\r\n$3\r\na\0b\r\nPING\r\n  SET 'a b' \"\\x41\"\n");
        assert_eq!(err, None);
        assert_eq!(
            reqs,
            vec![
                vec![b"ECHO".to_vec(), b"a\0b".to_vec()],
                args(&["PING"]),
                args(&["SET", "a b", "A"])
            ]
        );
    }

    #[test]
    fn empty_requests_are_skipped() {
        let (reqs, err) = all(b"*0\r\n*-1\r\n*-7\r\n\r\n   \r\nPING\r\n");
        assert_eq!((reqs, err), (vec![args(&["PING"])], None));
    }

    #[test]
    fn unchecked_bytes_after_cr_and_payload() {
        let (reqs, _) = all(b"*1\rX$4\r\nPINGxyPING\r\n");
        assert_eq!(reqs, vec![args(&["PING"]), args(&["PING"])]);
    }

    #[test]
    fn nul_before_line_end_waits() {
        assert_eq!(all(b"ECHO a\0b\r\nPING\r\n"), (vec![], None));
        assert_eq!(all(b"*1\0\r\n"), (vec![], None));
    }

    #[test]
    fn protocol_errors() {
        use ProtocolError::*;
        let cases: &[(&[u8], ProtocolError)] = &[
            (b"*abc\r\n", InvalidMultibulkLength),
            (b"*\r\n", InvalidMultibulkLength),
            (b"*01\r\n", InvalidMultibulkLength),
            (b"*+1\r\n", InvalidMultibulkLength),
            (b"*2147483648\r\n", InvalidMultibulkLength),
            (b"*1\r\n$-1\r\n", InvalidBulkLength),
            (b"*1\r\n$01\r\n", InvalidBulkLength),
            (b"*1\r\n$536870913\r\n", InvalidBulkLength),
            (b"*1\r\nx4\r\n", ExpectedDollar(b'x')),
            (b"*1\r\n\r\n", ExpectedDollar(b'\r')),
            (b"SET 'a b\r\n", UnbalancedQuotes),
        ];
        for (input, want) in cases {
            assert_eq!(
                all(input).1,
                Some(*want),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        assert_eq!(
            ExpectedDollar(b'\n').reply(),
            b"-ERR Protocol error: expected '$', got ' '\r\n"
        );
        assert_eq!(all(b"*2147483647\r\n"), (vec![], None));
        assert_eq!(all(b"*1\r\n$536870912\r\n"), (vec![], None));
    }

    #[test]
    fn room_is_given_back_by_trim_as_redis_does() {
        let mut q = QueryBuffer::new();
        let len = 40_000;
        q.extend_from_slice(format!("*1\r\n${len}\r\n").as_bytes());
        q.extend_from_slice(&vec![b'x'; len]);
        q.extend_from_slice(b"\r\n");
        assert_eq!(q.next_request().unwrap().unwrap()[0].len(), len);
        assert_eq!(q.next_request(), Ok(None));
        q.compact();
        // Room for another argument as big is kept after the batch...
        let (used, free) = q.usage();
        assert!(used == 0 && free >= len + 2, "{free}");
        assert!(q.wasting());
        // ...through the first trim (the peak since the last one was that argument)...
        assert!(!q.trim(false));
        assert!(q.usage().1 >= len + 2);
        // ...and given back at the next, the peak being small now.
        q.extend_from_slice(b"PING\r\n");
        assert!(q.next_request().unwrap().is_some());
        assert_eq!(q.next_request(), Ok(None));
        q.compact();
        assert!(q.trim(false));
        assert!(q.usage().1 < RESIZE_THRESHOLD);
        // A small buffer is only given back, all of it, once the client is idle.
        q.extend_from_slice(b"PING\r\n");
        q.read_target();
        assert!(q.next_request().unwrap().is_some());
        q.compact();
        assert!(q.wasting());
        assert!(!q.trim(false));
        assert!(q.trim(true));
        assert_eq!(q.usage(), (0, 0));
        assert!(!q.wasting());
    }

    #[test]
    fn unauthenticated_clients_get_small_limits() {
        use ProtocolError::*;
        let unauth = |input: &[u8]| {
            let mut q = QueryBuffer::new();
            q.set_unauthenticated(true);
            q.extend_from_slice(input);
            let mut n = 0;
            loop {
                match q.next_request() {
                    Ok(Some(_)) => n += 1,
                    Ok(None) => return (n, None),
                    Err(e) => return (n, Some(e)),
                }
            }
        };
        assert_eq!(unauth(b"*10\r\n"), (0, None));
        assert_eq!(
            unauth(b"*11\r\n"),
            (0, Some(UnauthenticatedMultibulkLength))
        );
        // Both paths: the fast one and the general one (a leading zero is invalid first).
        assert_eq!(unauth(b"*+11\r\n"), (0, Some(InvalidMultibulkLength)));
        assert_eq!(
            unauth(b"*2147483648\r\n"),
            (0, Some(InvalidMultibulkLength))
        );
        assert_eq!(unauth(b"*-5\r\n*1\r\n$4\r\nPING\r\n"), (1, None));
        assert_eq!(unauth(b"*1\r\n$16384\r\n"), (0, None));
        assert_eq!(
            unauth(b"*1\r\n$16385\r\n"),
            (0, Some(UnauthenticatedBulkLength))
        );
        assert_eq!(unauth(b"*1\r\n$-1\r\n"), (0, Some(InvalidBulkLength)));
        assert_eq!(
            unauth(b"*1\r\n$536870913\r\n"),
            (0, Some(InvalidBulkLength))
        );
        // Inline requests have their 64 KB line limit only, as in Redis.
        assert_eq!(unauth(b"a b c d e f g h i j k l\r\n"), (1, None));
        assert_eq!(
            UnauthenticatedMultibulkLength.reply(),
            b"-ERR Protocol error: unauthenticated multibulk length\r\n"
        );
        assert_eq!(
            UnauthenticatedBulkLength.reply(),
            b"-ERR Protocol error: unauthenticated bulk length\r\n"
        );
    }

    #[test]
    fn line_limits_are_strictly_above_64k() {
        let line = vec![b'A'; INLINE_MAX];
        assert_eq!(all(&line).1, None);
        let mut long = line.clone();
        long.push(b'A');
        assert_eq!(all(&long).1, Some(ProtocolError::TooBigInline));
        let mut mbulk = vec![b'*'];
        mbulk.extend_from_slice(&line);
        assert_eq!(all(&mbulk).1, Some(ProtocolError::TooBigMbulkCount));
        let mut bulk = b"*1\r\n$".to_vec();
        bulk.extend_from_slice(&line);
        assert_eq!(all(&bulk).1, Some(ProtocolError::TooBigBulkCount));
    }

    #[test]
    fn any_split_of_the_input_gives_the_same_requests() {
        let input: &[u8] =
            b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nva\r\nl\r\nGET k\r\n*0\r\n*1\r\n$4\r\nPING\r\n";
        let want = all(input);
        for cut in 0..=input.len() {
            let mut q = QueryBuffer::new();
            let mut got = Vec::new();
            for part in [&input[..cut], &input[cut..]] {
                q.extend_from_slice(part);
                while let Ok(Some(argv)) = q.next_request() {
                    got.push(argv);
                }
                q.compact();
            }
            assert_eq!(got, want.0, "cut at {cut}");
        }
    }

    #[test]
    fn big_argument_is_taken_whole() {
        let len = BIG_ARG * 3;
        let mut q = QueryBuffer::new();
        q.extend_from_slice(format!("*2\r\n$3\r\nGET\r\n${len}\r\n").as_bytes());
        assert_eq!(q.next_request(), Ok(None));
        let target = q.read_target();
        assert!(target.capacity() - target.len() >= len + 2);
        target.extend(std::iter::repeat_n(b'x', len));
        target.extend_from_slice(b"\r\n");
        let argv = q.next_request().unwrap().unwrap();
        assert_eq!(argv[1].len(), len);
        assert_eq!(q.unparsed(), 0);
    }

    proptest::proptest! {
        /// The fast header path and the general one agree on any input, fed in any two pieces.
        #[test]
        fn fast_and_general_paths_agree(
            input in proptest::collection::vec(
                proptest::sample::select(b"*$0123456789-+\r\n\0 a'\"".to_vec()),
                0..40,
            ),
            cut in 0usize..40,
        ) {
            let general = all_with(&input, true);
            proptest::prop_assert_eq!(&all_with(&input, false), &general);
            check_splits(&input, cut, &general)?;
        }

        /// The same on valid requests with a few bytes overwritten.
        #[test]
        fn damaged_requests_parse_alike(
            edits in proptest::collection::vec(
                (0usize..80, proptest::sample::select(b"*$019-\r\n\0x".to_vec())),
                0..4,
            ),
            cut in 0usize..80,
        ) {
            let mut input = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\nGET k\r\n*1\r\n$4\r\nPING\r\n".to_vec();
            for (at, byte) in edits {
                let at = at % input.len();
                input[at] = byte;
            }
            let general = all_with(&input, true);
            proptest::prop_assert_eq!(&all_with(&input, false), &general);
            check_splits(&input, cut, &general)?;
        }
    }

    /// Feeding `input` in two pieces split at `cut` gives `want`.
    fn check_splits(
        input: &[u8],
        cut: usize,
        want: &Parsed,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let cut = cut.min(input.len());
        let mut q = QueryBuffer::new();
        let mut got = Vec::new();
        let mut err = None;
        for part in [&input[..cut], &input[cut..]] {
            q.extend_from_slice(part);
            loop {
                match q.next_request() {
                    Ok(Some(argv)) => got.push(argv),
                    Ok(None) => break,
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
            if err.is_some() {
                break;
            }
            q.compact();
        }
        proptest::prop_assert_eq!(&(got, err), want);
        Ok(())
    }
}
