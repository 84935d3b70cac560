//! Argument parsing the generic handlers share: an argument by index, a C `int`, and a
//! database index.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::NUM_DBS;

/// The argument at index `i` of the full argument vector. Arity is checked before a
/// handler runs, so this only fails if a table row is wrong; it fails softly.
pub(super) fn arg(args: &Args, i: usize) -> CmdResult<&[u8]> {
    args.argv().get(i).map(Vec::as_slice).ok_or(Error::Syntax)
}

/// Parses a C `int` as Redis's `getIntFromObjectOrReply` does: not an integer →
/// `ERR value is not an integer or out of range`; outside `int` → `ERR value is out of
/// range, value must between -2147483648 and 2147483647`.
pub(super) fn parse_int(a: &[u8]) -> CmdResult<i64> {
    let v = parse_i64(a).ok_or(Error::NotInteger)?;
    if v < i64::from(i32::MIN) || v > i64::from(i32::MAX) {
        return Err(Error::OutOfRangeBetween(
            i64::from(i32::MIN),
            i64::from(i32::MAX),
        ));
    }
    Ok(v)
}

/// A database index that `SELECT` would accept, else `ERR DB index is out of range`.
pub(super) fn db_index(v: i64) -> CmdResult<usize> {
    usize::try_from(v)
        .ok()
        .filter(|&i| i < NUM_DBS)
        .ok_or(Error::DbIndexOutOfRange)
}
