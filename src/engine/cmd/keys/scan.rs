//! Enumeration: KEYS, SCAN, RANDOMKEY and DBSIZE.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::scan::{parse_cursor, parse_opts};
use crate::engine::{glob, Ctx, Reply};

/// `KEYS pattern`: every key matching the glob, in storage order. Expired keys are left
/// out but not removed (as Redis). A pattern of exactly `*` takes every key, the empty
/// name included. O(N) in the number of keys.
pub(super) fn keys(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let pattern = args.next_bytes()?;
    let all = pattern == b"*";
    let now = ctx.now_ms;
    let found = ctx
        .db()
        .iter()
        .filter(|(k, e)| (all || glob::matches(pattern, k, false)) && !e.is_expired_at(now))
        .map(|(k, _)| Reply::bulk(k))
        .collect();
    Ok(Reply::Array(found))
}

/// `SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]`: one step of a cursor walk over
/// the keys (see [`crate::engine::keyspace`] for the guarantee: every key present for the
/// whole walk is returned at least once). `COUNT` (default 10) is the number of positions
/// examined. The examined keys are then filtered as Redis does, in its order: by pattern,
/// by type (a no-touch lookup, which removes an expired key, so an expired key shows as
/// type `none`), and finally expired keys are removed and left out. Replies with the next
/// cursor (0 when done) and the keys. O(COUNT) per call.
pub(super) fn scan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let cursor = parse_cursor(args.next_bytes()?)?;
    let opts = parse_opts(args, true)?;
    let mut candidates = Vec::new();
    let next = ctx.db().scan(cursor, opts.count, |k, _| {
        candidates.push(k.to_vec());
    });
    let pattern = opts.pattern.as_deref().filter(|p| *p != b"*");
    let mut found = Vec::new();
    for key in candidates {
        if pattern.is_some_and(|p| !glob::matches(p, &key, false)) {
            continue;
        }
        if let Some(want) = &opts.type_filter {
            let ty = ctx
                .lookup_read_notouch(&key)
                .map_or("none", |e| e.value.type_name());
            if !ty.eq_ignore_ascii_case(want) {
                continue;
            }
        }
        if ctx.expired_for_read(&key) {
            continue;
        }
        found.push(Reply::Bulk(key));
    }
    Ok(Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(found),
    ]))
}

/// `RANDOMKEY`: a key chosen uniformly at random, or nil when the database is empty. A
/// chosen key that has expired is removed and another is drawn, so the reply is never an
/// expired key. O(1) expected (each retry removes a key).
pub(super) fn randomkey(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    loop {
        let len = ctx.db().len();
        if len == 0 {
            return Ok(Reply::Nil);
        }
        let i = ctx.random_below(len);
        let Some(key) = ctx.db().key_at(i).map(|(k, _)| k.to_vec()) else {
            return Ok(Reply::Nil);
        };
        if !ctx.expire_if_needed(&key) {
            return Ok(Reply::Bulk(key));
        }
    }
}

/// `DBSIZE`: the number of keys in the selected database, counting expired keys that have
/// not been removed yet (as Redis). O(1).
pub(super) fn dbsize(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.db().len() as i64))
}
