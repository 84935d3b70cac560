//! OBJECT and its subcommands: ENCODING, IDLETIME, FREQ, REFCOUNT and HELP.

use crate::engine::args::{parse_i64, Args};
use crate::engine::cmd::connection::help_reply;
use crate::engine::error::{CmdResult, Error};
use crate::engine::types::Value;
use crate::engine::{Ctx, Reply};

/// The configured `maxmemory-policy` (Redis's default when unset).
fn maxmemory_policy<'a>(ctx: &'a Ctx<'_>) -> &'a str {
    ctx.srv
        .config
        .values
        .get("maxmemory-policy")
        .map_or("noeviction", String::as_str)
}

/// True under `allkeys-lfu` or `volatile-lfu`.
fn lfu_policy(ctx: &Ctx<'_>) -> bool {
    maxmemory_policy(ctx).to_ascii_lowercase().ends_with("-lfu")
}

/// `OBJECT ENCODING key`: the representation Redis 7.0 would use for the value (`int`,
/// `embstr`, `raw`, `listpack`, `hashtable`, `quicklist`, `intset`, `skiplist`, …), or
/// nil. O(1).
pub(super) fn object_encoding(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    Ok(match ctx.lookup_read_notouch(key) {
        Some(e) => Reply::bulk(e.value.encoding().as_bytes()),
        None => Reply::Nil,
    })
}

/// `OBJECT IDLETIME key`: whole seconds since the key was last read or written, on Redis's
/// one-second LRU clock (both instants truncated to the second), or nil. Under an LFU
/// policy Redis tracks frequency instead and replies with an error. O(1).
pub(super) fn object_idletime(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let now = ctx.now_ms;
    let Some(accessed) = ctx.lookup_read_notouch(key).map(|e| e.accessed_ms()) else {
        return Ok(Reply::Nil);
    };
    if lfu_policy(ctx) {
        return Err(Error::Err(
            "An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.".into(),
        ));
    }
    let idle = now
        .div_euclid(1000)
        .saturating_sub(accessed.div_euclid(1000));
    Ok(Reply::Integer(idle.max(0)))
}

/// `OBJECT FREQ key`: the logarithmic access counter of the key under an LFU policy
/// (see [`crate::engine::evict`]), decayed to now as Redis's `LFUDecrAndReturn` does, or
/// nil; any other policy is an error (Redis's text). O(1).
pub(super) fn object_freq(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let now = ctx.now_ms;
    let Some((counter, since)) = ctx
        .lookup_read_notouch(key)
        .map(|e| (e.lfu, e.accessed_ms()))
    else {
        return Ok(Reply::Nil);
    };
    if !lfu_policy(ctx) {
        return Err(Error::Err(
            "An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.".into(),
        ));
    }
    let decay = ctx.srv.config.eviction().lfu_decay_time;
    Ok(Reply::Integer(i64::from(
        crate::engine::evict::lfu_decayed(counter, since, now, decay),
    )))
}

/// `OBJECT REFCOUNT key`: the reference count of the value, or nil. Redis shares the
/// integer objects 0..9999 (refcount 2147483647) unless `maxmemory` is set with an LRU or
/// LFU policy; every other value has refcount 1 here. (Redis also gives refcount 1 to an
/// integer made by COPY, which the engine cannot tell apart from the original.) O(1).
pub(super) fn object_refcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    if ctx.lookup_read_notouch(key).is_none() {
        return Ok(Reply::Nil);
    }
    let srv = &*ctx.srv;
    Ok(match srv.dbs[ctx.client.db].get_raw(key) {
        Some(e) => Reply::Integer(refcount(&srv.config, &e.value)),
        None => Reply::Nil,
    })
}

/// The reference count Redis 7.0 would give `value` under `config` (see
/// [`object_refcount`]; `DEBUG OBJECT` shows it too).
pub(crate) fn refcount(config: &crate::engine::Config, value: &Value) -> i64 {
    const OBJ_SHARED_INTEGERS: i64 = 10_000;
    let small_int = match value {
        Value::Str(s) if s.encoding() == "int" => {
            parse_i64(s.as_bytes()).is_some_and(|v| (0..OBJ_SHARED_INTEGERS).contains(&v))
        }
        _ => false,
    };
    let maxmemory_set = config.values.get("maxmemory").is_some_and(|v| {
        v.trim_start_matches('0')
            .starts_with(|c: char| c.is_ascii_digit())
    });
    let policy = config
        .values
        .get("maxmemory-policy")
        .map_or("noeviction", String::as_str)
        .to_ascii_lowercase();
    let sharing = !maxmemory_set || !(policy.ends_with("-lru") || policy.ends_with("-lfu"));
    if small_int && sharing {
        i64::from(i32::MAX)
    } else {
        1
    }
}

/// `OBJECT HELP`: the subcommand list, as Redis words it.
pub(super) fn object_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "OBJECT",
        crate::help_lines![
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>.",
        ],
    ))
}
