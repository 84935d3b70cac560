//! Parsing helpers of the stream commands: IDs as each command reads them, entry
//! replies, and access to the stream at a key.

use crate::engine::error::{CmdResult, Error, StreamError};
use crate::engine::types::stream::{parse_id, Fields, StreamId};
use crate::engine::types::{Stream, Value};
use crate::engine::{Ctx, Reply};

/// A strict ID (`-` and `+` refused), a missing sequence being 0.
pub(super) fn strict_id(arg: &[u8]) -> CmdResult<StreamId> {
    parse_id(arg, 0, true, false)
        .map(|p| p.id)
        .ok_or(Error::Stream(StreamError::InvalidId))
}

/// An interval bound (Redis's `streamParseIntervalIDOrReply`): `(id` is exclusive and
/// strict, anything else may be `-` or `+`. Returns the ID and whether it is exclusive.
fn interval_id(arg: &[u8], missing_seq: u64) -> CmdResult<(StreamId, bool)> {
    let excl = arg.len() > 1 && arg[0] == b'(';
    let parsed = if excl {
        parse_id(&arg[1..], missing_seq, true, false)
    } else {
        parse_id(arg, missing_seq, false, false)
    };
    parsed
        .map(|p| (p.id, excl))
        .ok_or(Error::Stream(StreamError::InvalidId))
}

/// The start of a range: inclusive from `arg`, or after it for `(`.
pub(super) fn range_start(arg: &[u8]) -> CmdResult<StreamId> {
    let (id, excl) = interval_id(arg, 0)?;
    if excl {
        id.incr().ok_or(Error::Stream(StreamError::InvalidStart))
    } else {
        Ok(id)
    }
}

/// The end of a range: inclusive up to `arg` (a missing sequence is the greatest), or
/// before it for `(`.
pub(super) fn range_end(arg: &[u8]) -> CmdResult<StreamId> {
    let (id, excl) = interval_id(arg, u64::MAX)?;
    if excl {
        id.decr().ok_or(Error::Stream(StreamError::InvalidEnd))
    } else {
        Ok(id)
    }
}

/// The `[id, [field, value, …]]` reply of one entry.
pub(super) fn entry_reply(id: StreamId, fields: &Fields) -> Reply {
    let mut flat = Vec::with_capacity(fields.len() * 2);
    for (f, v) in fields {
        flat.push(Reply::bulk(f));
        flat.push(Reply::bulk(v));
    }
    Reply::Array(vec![Reply::Bulk(id.to_bytes()), Reply::Array(flat)])
}

/// The stream at `key` for reading (`None` if absent), or WRONGTYPE.
pub(super) fn read_stream<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c Stream>> {
    ctx.read_as(key, Value::as_stream)
}

/// The stream at `key` for writing (`None` if absent), or WRONGTYPE.
///
/// A write through here does not serve blocked readers ([`Ctx::wakes_blocked`]): only an
/// added entry does (XADD), or a destroyed group (XGROUP DESTROY), which say so again.
pub(super) fn write_stream<'c>(
    ctx: &'c mut Ctx<'_>,
    key: &[u8],
) -> CmdResult<Option<&'c mut Stream>> {
    ctx.wakes_blocked = false;
    ctx.write_as(key, Value::as_stream_mut)
}

/// `XREAD`'s answer shape: an array of `[key, entries]` in RESP2, a map in RESP3.
pub(super) fn per_key_reply(proto: u8, items: Vec<(Vec<u8>, Reply)>) -> Reply {
    if proto >= 3 {
        Reply::Map(
            items
                .into_iter()
                .map(|(k, v)| (Reply::Bulk(k), v))
                .collect(),
        )
    } else {
        Reply::Array(
            items
                .into_iter()
                .map(|(k, v)| Reply::Array(vec![Reply::Bulk(k), v]))
                .collect(),
        )
    }
}

pub(super) fn bytes(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}
