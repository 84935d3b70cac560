//! Renaming, copying and moving keys: RENAME, RENAMENX, MOVE and COPY.

use super::parse::{arg, db_index, parse_int};
use crate::engine::args::{eq_kw, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::keyspace::Entry;
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};

/// The shared body of RENAME and RENAMENX (Redis's `renameGenericCommand`): `ERR no such
/// key` if the source is missing; renaming a key to itself changes nothing (OK, or 0 for
/// RENAMENX); an existing destination is replaced (RENAME) or makes RENAMENX reply 0. The
/// value keeps its deadline. O(1), plus freeing a replaced value.
fn rename_generic(ctx: &mut Ctx<'_>, args: &Args, nx: bool) -> CmdResult {
    let (src, dst) = (arg(args, 1)?, arg(args, 2)?);
    if ctx.lookup_write(src).is_none() {
        return Err(Error::NoSuchKey);
    }
    let done = |moved: bool| {
        Ok(if nx {
            Reply::Integer(i64::from(moved))
        } else {
            Reply::ok()
        })
    };
    if src == dst {
        return done(false);
    }
    if ctx.lookup_write(dst).is_some() {
        if nx {
            return done(false);
        }
        ctx.db().remove(dst);
    }
    let db = ctx.db();
    if let Some(entry) = db.remove(src) {
        db.insert_entry(dst.to_vec(), entry);
    }
    ctx.signal_modified(src);
    ctx.signal_modified(dst);
    ctx.notify(class::NEW, "new", dst);
    ctx.notify(class::GENERIC, "rename_from", src);
    ctx.notify(class::GENERIC, "rename_to", dst);
    ctx.dirty += 1;
    done(true)
}

/// `RENAME key newkey`: see [`rename_generic`].
pub(super) fn rename(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rename_generic(ctx, args, false)
}

/// `RENAMENX key newkey`: see [`rename_generic`]; 1 if renamed, 0 if `newkey` exists.
pub(super) fn renamenx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rename_generic(ctx, args, true)
}

/// `MOVE key db`: moves a key with its deadline to database `db`. Errors, in Redis's order:
/// a bad index (`ERR value is not an integer or out of range`, or the C-int range error),
/// an index beyond the databases (`ERR DB index is out of range`), the same database
/// (`ERR source and destination objects are the same`). Replies 0 if the key is missing or
/// already present in the target, else 1. Replays as itself in the source database. O(1).
pub(super) fn move_(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if ctx.srv.config.cluster_enabled() {
        return Err(Error::NotInCluster("MOVE"));
    }
    let key = arg(args, 1)?;
    let dst = db_index(parse_int(arg(args, 2)?)?)?;
    let src = ctx.client.db;
    if dst == src {
        return Err(Error::SameObject);
    }
    if ctx.lookup_write(key).is_none() {
        return Ok(Reply::Integer(0));
    }
    ctx.expire_if_needed_in(dst, key);
    if ctx.srv.dbs[dst].get_raw(key).is_some() {
        return Ok(Reply::Integer(0));
    }
    if let Some(entry) = ctx.db().remove(key) {
        ctx.srv.dbs[dst].insert_entry(key.to_vec(), entry);
    }
    ctx.notify_in(dst, class::NEW, "new", key);
    ctx.signal_modified(key);
    ctx.signal_modified_in(dst, key);
    ctx.notify(class::GENERIC, "move_from", key);
    ctx.notify_in(dst, class::GENERIC, "move_to", key);
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}

/// `COPY source destination [DB destination-db] [REPLACE]`: copies the value and its
/// deadline to `destination` (in `destination-db`, by default the selected one). Errors, in
/// Redis's order: options (`ERR syntax error`, the index errors of MOVE), then copying a key
/// onto itself in the same database (`ERR source and destination objects are the same`).
/// Replies 0 if the source is missing or the destination exists without REPLACE, else 1.
/// The copy is a new value: its access time is now. O(N) in the size of the value.
pub(super) fn copy(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (src_key, dst_key) = (arg(args, 1)?, arg(args, 2)?);
    let src = ctx.client.db;
    let mut dst = src;
    let mut replace = false;
    let options = args.argv().get(3..).unwrap_or_default();
    let mut i = 0;
    while let Some(opt) = options.get(i) {
        if eq_kw(opt, "replace") {
            replace = true;
        } else if eq_kw(opt, "db") && i + 1 < options.len() {
            i += 1;
            dst = db_index(parse_int(&options[i])?)?;
        } else {
            return Err(Error::Syntax);
        }
        i += 1;
    }
    if ctx.srv.config.cluster_enabled() && (src != 0 || dst != 0) {
        return Err(Error::Err(
            "Copying to another database is not allowed in cluster mode".into(),
        ));
    }
    if src == dst && src_key == dst_key {
        return Err(Error::SameObject);
    }
    let Some(value) = ctx.lookup_read(src_key).cloned() else {
        return Ok(Reply::Integer(0));
    };
    let expire_at = ctx.db().get_raw(src_key).and_then(|e| e.expire_at());
    ctx.expire_if_needed_in(dst, dst_key);
    if ctx.srv.dbs[dst].get_raw(dst_key).is_some() {
        if !replace {
            return Ok(Reply::Integer(0));
        }
        ctx.srv.dbs[dst].remove(dst_key);
    }
    let entry = Entry::new(value, expire_at, ctx.now_ms);
    ctx.srv.dbs[dst].insert_entry(dst_key.to_vec(), entry);
    ctx.notify_in(dst, class::NEW, "new", dst_key);
    ctx.signal_modified_in(dst, dst_key);
    ctx.notify_in(dst, class::GENERIC, "copy_to", dst_key);
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}
