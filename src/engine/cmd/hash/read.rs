//! Hash reads: HGET, HMGET, HEXISTS, HLEN, HSTRLEN, HKEYS, HVALS and HGETALL.

use super::common::{map_reply, read_hash};
use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::{Ctx, Reply};

/// `HGET key field`: the field's value, nil if the field or key is missing.
pub(super) fn hget(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?;
    let h = read_hash(ctx, &key)?;
    Ok(Reply::bulk_or_nil(h.and_then(|h| h.get(field))))
}

/// `HMGET key field [field ...]`: each field's value or nil; a missing key is an empty
/// hash, another type is WRONGTYPE.
pub(super) fn hmget(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let fields = args.rest();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Array(
        fields
            .iter()
            .map(|f| Reply::bulk_or_nil(h.and_then(|h| h.get(f))))
            .collect(),
    ))
}

/// `HEXISTS key field`: 1 if the field exists, else 0.
pub(super) fn hexists(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?;
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Integer(i64::from(
        h.is_some_and(|h| h.contains(field)),
    )))
}

/// `HLEN key`: the number of fields, 0 if missing.
pub(super) fn hlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Integer(h.map_or(0, |h| h.len() as i64)))
}

/// `HSTRLEN key field`: the length of the field's value, 0 if missing.
pub(super) fn hstrlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?;
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Integer(
        h.and_then(|h| h.get(field)).map_or(0, |v| v.len() as i64),
    ))
}

/// `HGETALL key`: every field and value (a map in RESP3, a flat array in RESP2), in listpack
/// order while the hash is small.
pub(super) fn hgetall(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let proto = ctx.client.proto;
    let pairs = match read_hash(ctx, &key)? {
        Some(h) => h
            .iter()
            .map(|(f, v)| (Reply::bulk(f), Reply::bulk(v)))
            .collect(),
        None => Vec::new(),
    };
    Ok(map_reply(proto, pairs))
}

/// `HKEYS key`: every field name.
pub(super) fn hkeys(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Array(
        h.map(|h| h.iter().map(|(f, _)| Reply::bulk(f)).collect())
            .unwrap_or_default(),
    ))
}

/// `HVALS key`: every value.
pub(super) fn hvals(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Array(
        h.map(|h| h.iter().map(|(_, v)| Reply::bulk(v)).collect())
            .unwrap_or_default(),
    ))
}
