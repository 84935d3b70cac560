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

/// Parses a cursor argument: any unsigned 64-bit decimal, else `ERR invalid cursor`.
pub fn parse_cursor(arg: &[u8]) -> CmdResult<u64> {
    std::str::from_utf8(arg)
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or(Error::InvalidCursor)
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

/// True if `item` passes the optional `MATCH` pattern.
pub fn pattern_ok(opts: &ScanOpts, item: &[u8]) -> bool {
    opts.pattern
        .as_deref()
        .is_none_or(|p| super::glob::matches(p, item, false))
}
