//! The cursor and options shared by SCAN, HSCAN, SSCAN and ZSCAN.
//!
//! Every scannable collection here is position-indexed (an index map, or a structure with
//! ranks) and removes by moving its *last* element into the hole. A cursor therefore counts
//! positions not yet visited, and a scan walks from the end towards position 0, so no element
//! that stays for the whole scan is missed (see [`crate::engine::keyspace`] for the argument).
//! Cursor 0 starts a scan and a returned 0 ends it.

use super::args::{parse_i64, Args};
use super::error::{CmdResult, Error};

/// Parsed `[MATCH pattern] [COUNT count] [TYPE type]` options.
#[derive(Debug, Clone, Default)]
pub struct ScanOpts {
    /// Glob pattern (`MATCH`), if any.
    pub pattern: Option<Vec<u8>>,
    /// Work hint (`COUNT`), 10 by default.
    pub count: usize,
    /// Type filter (`TYPE`, SCAN only), lowercase.
    pub type_filter: Option<String>,
}

/// Parses a cursor argument as Redis's `parseScanCursorOrReply` does with C's `strtoul`,
/// else `ERR invalid cursor`: no leading white space, an optional `+` or `-` (a negative
/// value wraps modulo 2^64, as `strtoul` returns it), decimal digits that fit in 64 bits,
/// and nothing after them up to the end of the C string (a NUL byte ends it). An empty
/// argument is cursor 0, as in Redis.
pub fn parse_cursor(arg: &[u8]) -> CmdResult<u64> {
    let text = super::args::c_bytes(arg);
    if text.is_empty() {
        return Ok(0);
    }
    let (neg, digits) = match text[0] {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Error::InvalidCursor);
    }
    let mut v: u64 = 0;
    for &d in digits {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .ok_or(Error::InvalidCursor)?;
    }
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// Parses the options after the cursor. `allow_type` is true for SCAN only.
pub fn parse_opts(args: &mut Args, allow_type: bool) -> CmdResult<ScanOpts> {
    let mut opts = ScanOpts {
        count: 10,
        ..ScanOpts::default()
    };
    while !args.is_empty() {
        if args.remaining() < 2 {
            return Err(Error::Syntax);
        }
        if args.eat("COUNT") {
            let n = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
            if n < 1 {
                return Err(Error::Syntax);
            }
            opts.count = n as usize;
        } else if args.eat("MATCH") {
            opts.pattern = Some(args.next_bytes()?.to_vec());
        } else if allow_type && args.eat("TYPE") {
            opts.type_filter =
                Some(String::from_utf8_lossy(args.next_bytes()?).to_ascii_lowercase());
        } else {
            return Err(Error::Syntax);
        }
    }
    Ok(opts)
}

/// One step over positions `0..len` from cursor `cursor`: returns the positions to visit
/// (descending) and the next cursor. Visits at most `count` positions.
pub fn step(len: usize, cursor: u64, count: usize) -> (impl Iterator<Item = usize>, u64) {
    let len = len as u64;
    let start = if cursor == 0 || cursor > len {
        len
    } else {
        cursor
    };
    let end = start.saturating_sub(count.max(1) as u64);
    ((end..start).rev().map(|p| p as usize), end)
}

/// True if `item` passes the optional `MATCH` pattern. A pattern of exactly `*` matches
/// everything, the empty string included: Redis skips matching for it (the glob itself
/// never matches an empty string).
pub fn pattern_ok(opts: &ScanOpts, item: &[u8]) -> bool {
    opts.pattern
        .as_deref()
        .is_none_or(|p| p == b"*" || super::glob::matches(p, item, false))
}

#[cfg(test)]
mod tests {
    use super::parse_cursor;

    /// Checked against Redis 7.0.15 (`SCAN <cursor>`).
    #[test]
    fn cursors_parse_like_strtoul() {
        for (arg, want) in [
            (&b"0"[..], Some(0)),
            (b"", Some(0)),
            (b"00", Some(0)),
            (b"+0", Some(0)),
            (b"-1", Some(u64::MAX)),
            (b"18446744073709551615", Some(u64::MAX)),
            (b"18446744073709551616", None),
            (b" 0", None),
            (b"x", None),
            (b"1x", None),
            (b"-", None),
            (b"+", None),
            (b"5\x00junk", Some(5)),
        ] {
            assert_eq!(
                parse_cursor(arg).ok(),
                want,
                "{:?}",
                String::from_utf8_lossy(arg)
            );
        }
    }
}
