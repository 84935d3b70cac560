//! Key access and replies the set handlers share: looking a set up for reading, writing or
//! peeking, gathering the sets of several keys, the set reply, and storing a result.

use crate::engine::error::CmdResult;
use crate::engine::pubsub::class;
use crate::engine::types::{SetValue, Value};
use crate::engine::{Ctx, Reply};

/// The set at `key` for reading: `None` if absent, `WRONGTYPE` if not a set.
pub(super) fn read_set<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c SetValue>> {
    ctx.read_as(key, Value::as_set)
}

/// The set at `key` for writing: `None` if absent, `WRONGTYPE` if not a set.
pub(super) fn write_set<'c>(
    ctx: &'c mut Ctx<'_>,
    key: &[u8],
) -> CmdResult<Option<&'c mut SetValue>> {
    ctx.write_as(key, Value::as_set_mut)
}

/// The set at `key` once a `read_set` of this command has looked it up (and counted the
/// hit): no expiry check, no statistics.
pub(super) fn peek_set<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> Option<&'c SetValue> {
    ctx.db().get_raw(key).and_then(|e| e.value.as_set().ok())
}

/// Looks up every key (lazily expiring, and for reads counting hits and misses), fails
/// with WRONGTYPE if any holds another type, then returns them all at once, `None` for a
/// missing key. O(number of keys).
pub(super) fn gather<'c>(
    ctx: &'c mut Ctx<'_>,
    keys: &[Vec<u8>],
    write: bool,
) -> CmdResult<Vec<Option<&'c SetValue>>> {
    for key in keys {
        let value = if write {
            ctx.lookup_write(key).map(|e| &e.value)
        } else {
            ctx.lookup_read(key)
        };
        if let Some(v) = value {
            v.as_set()?;
        }
    }
    let ctx: &'c Ctx<'_> = ctx;
    let db = &ctx.srv.dbs[ctx.client.db];
    Ok(keys
        .iter()
        .map(|k| db.get_raw(k).and_then(|e| e.value.as_set().ok()))
        .collect())
}

/// A whole-set reply: a RESP3 set, or an array for RESP2 clients.
pub(super) fn set_reply<I, B>(proto: u8, members: I) -> Reply
where
    I: IntoIterator<Item = B>,
    B: AsRef<[u8]>,
{
    let items = members
        .into_iter()
        .map(|m| Reply::bulk(m.as_ref()))
        .collect();
    if proto >= 3 {
        Reply::Set(items)
    } else {
        Reply::Array(items)
    }
}

/// Stores `result` at `dst` for the `…STORE` commands, replacing any value (and its TTL),
/// or deletes `dst` when the result is empty. Sends `event` (`sinterstore`, …) on a store,
/// `del` when an existing `dst` is deleted. Only `dst` counts as modified (WATCH), never
/// the source keys. Replies with the result's size.
pub(super) fn store(ctx: &mut Ctx<'_>, dst: Vec<u8>, result: SetValue, event: &str) -> CmdResult {
    let len = result.len();
    if len == 0 {
        if ctx.delete(&dst) {
            ctx.notify(class::GENERIC, "del", &dst);
        }
    } else {
        ctx.set_value(&dst, Value::Set(result), false);
        ctx.notify(class::SET, event, &dst);
    }
    Ok(Reply::Integer(len as i64))
}
