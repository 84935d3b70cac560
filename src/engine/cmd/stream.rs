//! The stream group: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XREAD, XREADGROUP, XACK,
//! XPENDING, XCLAIM, XAUTOCLAIM, XSETID, XGROUP and XINFO, as Redis 7.0's `t_stream.c`.
//!
//! The data structure and its invariants are in [`crate::engine::types::stream`]. This file
//! parses arguments in Redis's order (which decides which error wins), shapes replies, and
//! records effects the way Redis propagates them:
//!
//! * `XADD` with `*` or `ms-*` is recorded with the ID it generated; an approximate trim
//!   (`MAXLEN ~ n`, `MINID ~ id`) is recorded as an exact one (`= <resulting length>` or
//!   `= <first ID>`), so that replaying removes exactly what was removed.
//! * `XREADGROUP`, `XCLAIM` and `XAUTOCLAIM` are not recorded as such: each delivery or
//!   claim is recorded as `XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID
//!   LASTID last`, a group's last ID moved without a claim as `XGROUP SETID … ENTRIESREAD
//!   n`, and a consumer created by a `NOACK` read as `XGROUP CREATECONSUMER`.
//!
//! Two additions make replaying exact where a Redis replica drifts: a group read that
//! delivered new entries also records `XGROUP SETID … ENTRIESREAD n` (Redis's XCLAIMs carry
//! the last ID but not the read counter), and a consumer created by any read is recorded
//! with `XGROUP CREATECONSUMER` (Redis records it only for NOACK reads, so a consumer whose
//! first read delivered nothing does not exist on its replicas), and a read of a consumer's
//! history, which counts a delivery of each entry, records the same `XCLAIM … FORCE JUSTID`
//! per entry (Redis records nothing, so its replicas keep the older count and time).
//!
//! Idle times, delivery times and `*` IDs come from the command's instant (`Ctx::now_ms`,
//! the injected clock).
//!
//! # Blocking
//! `XREAD … BLOCK` and `XREADGROUP … BLOCK` with nothing to serve block their client on
//! the stream keys ([`BlockOp::XRead`]). After a write signals one of those keys, the engine
//! asks [`blocked_action`] what to do with each waiter and serves it with
//! [`serve_blocked`]: a plain reader when the stream's last ID passed the ID it waits
//! after, a group reader when it passed the group's last delivered ID. A group reader
//! whose group was destroyed gets `NOGROUP`, one whose key was deleted or replaced by
//! another type `UNBLOCKED`, as Redis 7.0 replies.

use std::ops::Bound;

use crate::engine::args::{parse_i64, Args};
use crate::engine::blocking::{BlockOp, XReadWait};
use crate::engine::core::ctx::Site;
use crate::engine::core::dispatch::{call, Mode};
use crate::engine::core::waiters::{Readiness, Waiters};
use crate::engine::error::{c_str, CmdResult, Error, StreamError};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::stream::{
    parse_id, AppendError, Consumer, Fields, Group as CGroup, Nack, StreamId, Trim, TrimStrategy,
};
use crate::engine::types::{Stream, Value};
use crate::engine::{Ctx, Reply, Server};

const R: Flags = Flags::READONLY;
const RF: Flags = Flags::READONLY.union(Flags::FAST);
const W: Flags = Flags::WRITE;
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);
const WDF: Flags = WD.union(Flags::FAST);
const HELP_FLAGS: Flags = Flags::LOADING.union(Flags::STALE);

/// Count given to a blocked reader that asked for none (Redis's
/// `XREAD_BLOCKED_DEFAULT_COUNT`).
const BLOCKED_DEFAULT_COUNT: i64 = 1000;

/// The stream commands.
pub const COMMANDS: &[Command] = &[
    Command::new("xack", -4, Group::Stream, xack)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WF)
        .doc(
            "key group id [id ...]",
            "Acknowledges messages of a consumer group, removing them from its pending entries list.",
            "O(1) for each message ID processed.",
            "5.0.0",
        ),
    Command::new("xadd", -5, Group::Stream, xadd)
        .key_specs(&[
            KeySpec::index(1, "RW update")
                .notes("UPDATE instead of INSERT because of the optional trimming feature"),
        ])
        .tips(&["nondeterministic_output"])
        .flags(WDF)
        .doc(
            "key [NOMKSTREAM] [MAXLEN | MINID [= | ~] threshold [LIMIT count]] * | id field value [field value ...]",
            "Appends an entry to a stream, creating the stream if needed, and optionally trims it.",
            "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
            "5.0.0",
        ),
    Command::new("xautoclaim", -6, Group::Stream, xautoclaim)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .tips(&["nondeterministic_output"])
        .flags(WF)
        .doc(
            "key group consumer min-idle-time start [COUNT count] [JUSTID]",
            "Transfers pending messages idle long enough to a consumer, scanning the pending list like SCAN.",
            "O(1) if COUNT is small.",
            "6.2.0",
        ),
    Command::new("xclaim", -6, Group::Stream, xclaim)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .tips(&["nondeterministic_output"])
        .flags(WF)
        .doc(
            "key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]",
            "Changes the owner of pending messages of a consumer group.",
            "O(log N) with N being the number of messages in the PEL of the consumer group.",
            "5.0.0",
        ),
    Command::new("xdel", -3, Group::Stream, xdel)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(WF)
        .doc(
            "key id [id ...]",
            "Deletes entries from a stream by ID, returning how many existed.",
            "O(1) for each single item to delete in the stream, regardless of the stream size.",
            "5.0.0",
        ),
    Command::container("xgroup", Group::Stream, XGROUP_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Manages the consumer groups of a stream.",
        "Depends on subcommand.",
        "5.0.0",
    ),
    Command::container("xinfo", Group::Stream, XINFO_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Reports on streams, their consumer groups and consumers.",
        "Depends on subcommand.",
        "5.0.0",
    ),
    Command::new("xlen", 2, Group::Stream, xlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc(
            "key",
            "Returns the number of entries in a stream.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("xpending", -3, Group::Stream, xpending)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key group [[IDLE min-idle-time] start end count [consumer]]",
            "Reports on the pending entries list of a consumer group: a summary, or the entries in a range.",
            "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
            "5.0.0",
        ),
    Command::new("xrange", -4, Group::Stream, xrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start end [COUNT count]",
            "Returns the entries of a stream with IDs in a range.",
            "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
            "5.0.0",
        ),
    Command::new("xread", -4, Group::Stream, xread)
        .key_specs(&[KeySpec::keyword("STREAMS", 1, "RO access").range(-1, 1, 2)])
        .flags(R.union(Flags::BLOCKING))
        .doc(
            "[COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]",
            "Returns entries of streams with IDs greater than given ones; blocks until some arrive otherwise.",
            "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
            "5.0.0",
        ),
    Command::new("xreadgroup", -7, Group::Stream, xreadgroup)
        .key_specs(&[KeySpec::keyword("STREAMS", 4, "RO access").range(-1, 1, 2)])
        .flags(W.union(Flags::BLOCKING))
        .doc(
            "GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]",
            "Reads from streams as a consumer of a group, recording deliveries in its pending entries list; blocks until new entries arrive otherwise.",
            "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
            "5.0.0",
        ),
    Command::new("xrevrange", -4, Group::Stream, xrevrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key end start [COUNT count]",
            "Returns the entries of a stream with IDs in a range, highest first.",
            "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
            "5.0.0",
        ),
    Command::new("xsetid", -3, Group::Stream, xsetid)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WDF)
        .doc(
            "key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]",
            "Sets a stream's last generated ID, entries-added counter and maximal deleted ID.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("xtrim", -4, Group::Stream, xtrim)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .tips(&["nondeterministic_output"])
        .flags(W)
        .doc(
            "key MAXLEN | MINID [= | ~] threshold [LIMIT count]",
            "Removes the oldest entries of a stream, by length or by ID.",
            "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
            "5.0.0",
        ),
];

const XGROUP_SUBCOMMANDS: &[Command] = &[
    Command::new("create", -5, Group::Stream, xgroup_create)
        .key_specs(&[KeySpec::index(2, "RW insert")])
        .flags(WD)
        .doc(
            "key group id | $ [MKSTREAM] [ENTRIESREAD entries-read]",
            "Creates a consumer group.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("createconsumer", 5, Group::Stream, xgroup_createconsumer)
        .key_specs(&[KeySpec::index(2, "RW insert")])
        .flags(WD)
        .doc(
            "key group consumer",
            "Creates a consumer in a consumer group.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("delconsumer", 5, Group::Stream, xgroup_delconsumer)
        .key_specs(&[KeySpec::index(2, "RW delete")])
        .flags(W)
        .doc(
            "key group consumer",
            "Deletes a consumer from a consumer group, with its pending entries.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("destroy", 4, Group::Stream, xgroup_destroy)
        .key_specs(&[KeySpec::index(2, "RW delete")])
        .flags(W)
        .doc(
            "key group",
            "Destroys a consumer group.",
            "O(N) where N is the number of entries in the group's pending entries list (PEL).",
            "5.0.0",
        ),
    Command::new("help", 2, Group::Stream, xgroup_help)
        .flags(HELP_FLAGS)
        .doc("", "Shows what XGROUP can do.", "O(1)", "5.0.0"),
    Command::new("setid", -5, Group::Stream, xgroup_setid)
        .key_specs(&[KeySpec::index(2, "RW update")])
        .flags(W)
        .doc(
            "key group id | $ [ENTRIESREAD entries-read]",
            "Sets the last delivered ID of a consumer group.",
            "O(1)",
            "5.0.0",
        ),
];

const XINFO_SUBCOMMANDS: &[Command] = &[
    Command::new("consumers", 4, Group::Stream, xinfo_consumers)
        .key_specs(&[KeySpec::index(2, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key group",
            "Lists the consumers of a consumer group.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("groups", 3, Group::Stream, xinfo_groups)
        .key_specs(&[KeySpec::index(2, "RO access")])
        .flags(R)
        .doc(
            "key",
            "Lists the consumer groups of a stream.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("help", 2, Group::Stream, xinfo_help)
        .flags(HELP_FLAGS)
        .doc("", "Shows what XINFO can do.", "O(1)", "5.0.0"),
    Command::new("stream", -3, Group::Stream, xinfo_stream)
        .key_specs(&[KeySpec::index(2, "RO access")])
        .flags(R)
        .doc(
            "key [FULL [COUNT count]]",
            "Reports on a stream: its length, IDs and groups, or everything with FULL.",
            "O(1)",
            "5.0.0",
        ),
];

// ---------------------------------------------------------------------------------------
// Parsing helpers
// ---------------------------------------------------------------------------------------

/// A strict ID (`-` and `+` refused), a missing sequence being 0.
fn strict_id(arg: &[u8]) -> CmdResult<StreamId> {
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
fn range_start(arg: &[u8]) -> CmdResult<StreamId> {
    let (id, excl) = interval_id(arg, 0)?;
    if excl {
        id.incr().ok_or(Error::Stream(StreamError::InvalidStart))
    } else {
        Ok(id)
    }
}

/// The end of a range: inclusive up to `arg` (a missing sequence is the greatest), or
/// before it for `(`.
fn range_end(arg: &[u8]) -> CmdResult<StreamId> {
    let (id, excl) = interval_id(arg, u64::MAX)?;
    if excl {
        id.decr().ok_or(Error::Stream(StreamError::InvalidEnd))
    } else {
        Ok(id)
    }
}

/// The `[id, [field, value, …]]` reply of one entry.
fn entry_reply(id: StreamId, fields: &Fields) -> Reply {
    let mut flat = Vec::with_capacity(fields.len() * 2);
    for (f, v) in fields {
        flat.push(Reply::bulk(f));
        flat.push(Reply::bulk(v));
    }
    Reply::Array(vec![Reply::Bulk(id.to_bytes()), Reply::Array(flat)])
}

/// The stream at `key` for reading (`None` if absent), or WRONGTYPE.
fn read_stream<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c Stream>> {
    ctx.read_as(key, Value::as_stream)
}

/// The stream at `key` for writing (`None` if absent), or WRONGTYPE.
///
/// A write through here does not serve blocked readers ([`Ctx::wakes_blocked`]): only an
/// added entry does (XADD), or a destroyed group (XGROUP DESTROY), which say so again.
fn write_stream<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c mut Stream>> {
    ctx.wakes_blocked = false;
    ctx.write_as(key, Value::as_stream_mut)
}

/// `XREAD`'s answer shape: an array of `[key, entries]` in RESP2, a map in RESP3.
fn per_key_reply(proto: u8, items: Vec<(Vec<u8>, Reply)>) -> Reply {
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

fn bytes(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

// ---------------------------------------------------------------------------------------
// XADD, XTRIM, XDEL, XLEN, XRANGE
// ---------------------------------------------------------------------------------------

/// The options of XADD and XTRIM after parsing (Redis's `streamParseAddOrTrimArgsOrReply`).
struct AddTrimArgs {
    trim: Option<Trim>,
    /// Index in argv of the trim threshold.
    threshold_idx: usize,
    no_mkstream: bool,
    /// XADD: the explicit ID, if any.
    id: Option<crate::engine::types::stream::ParsedId>,
    /// XADD: index in argv of the ID (`*` or explicit).
    id_idx: usize,
}

/// Parses `[NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] <*|id>` (XADD) or the
/// trim options of XTRIM, from argv index 2, with Redis's errors in its order.
fn parse_add_trim(argv: &[Vec<u8>], xadd: bool, node_max_entries: i64) -> CmdResult<AddTrimArgs> {
    let argc = argv.len();
    let mut strategy: Option<TrimStrategy> = None;
    let mut approx = false;
    let mut limit: i64 = 0;
    let mut limit_given = false;
    let mut out = AddTrimArgs {
        trim: None,
        threshold_idx: 0,
        no_mkstream: false,
        id: None,
        id_idx: argc,
    };
    let mut i = 2;
    while i < argc {
        let moreargs = argc - 1 - i;
        let opt = argv[i].as_slice();
        if xadd && opt == b"*" {
            out.id_idx = i;
            break;
        } else if (opt.eq_ignore_ascii_case(b"maxlen") || opt.eq_ignore_ascii_case(b"minid"))
            && moreargs > 0
        {
            let maxlen = opt.eq_ignore_ascii_case(b"maxlen");
            if strategy.is_some() {
                return Err(StreamError::MaxlenAndMinid.into());
            }
            approx = false;
            let next = argv[i + 1].as_slice();
            if moreargs >= 2 && next == b"~" {
                approx = true;
                i += 1;
            } else if moreargs >= 2 && next == b"=" {
                i += 1;
            }
            let arg = argv[i + 1].as_slice();
            if maxlen {
                let n = parse_i64(arg).ok_or(Error::NotInteger)?;
                if n < 0 {
                    return Err(StreamError::MaxlenNegative.into());
                }
                strategy = Some(TrimStrategy::MaxLen(n as u64));
            } else {
                strategy = Some(TrimStrategy::MinId(strict_id(arg)?));
            }
            i += 1;
            out.threshold_idx = i;
        } else if opt.eq_ignore_ascii_case(b"limit") && moreargs > 0 {
            limit = parse_i64(&argv[i + 1]).ok_or(Error::NotInteger)?;
            if limit < 0 {
                return Err(StreamError::LimitNegative.into());
            }
            limit_given = true;
            i += 1;
        } else if xadd && opt.eq_ignore_ascii_case(b"nomkstream") {
            out.no_mkstream = true;
        } else if xadd {
            let p = parse_id(opt, 0, true, true).ok_or(StreamError::InvalidId)?;
            out.id = Some(p);
            out.id_idx = i;
            break;
        } else {
            return Err(Error::Syntax);
        }
        i += 1;
    }
    if limit != 0 && strategy.is_none() {
        return Err(StreamError::LimitWithoutStrategy.into());
    }
    if !xadd && strategy.is_none() {
        return Err(StreamError::TrimNeedsStrategy.into());
    }
    if limit_given {
        if !approx {
            return Err(StreamError::LimitWithoutApprox.into());
        }
    } else if approx {
        limit = node_max_entries.saturating_mul(100);
        if limit <= 0 {
            limit = 10_000;
        }
        limit = limit.min(1_000_000);
    } else {
        limit = 0;
    }
    out.trim = strategy.map(|strategy| Trim {
        strategy,
        approx,
        limit,
    });
    Ok(out)
}

/// After an approximate trim, rewrites `~ threshold` as `= <what is left>` in `argv`, as
/// Redis's `streamRewriteTrimArgument`: the length for MAXLEN, the first ID (counting
/// deleted entries still in the first node) for MINID. Redis keeps `LIMIT n` in what it
/// propagates (its replicas and AOF loading skip the check that LIMIT needs `~`); our
/// effects replay as ordinary commands, so the `LIMIT n` pair is dropped, which trims the
/// same (an exact trim has no limit).
fn rewrite_approx(argv: &mut Vec<Vec<u8>>, idx: usize, stop: usize, trim: &Trim, s: &Stream) {
    if !trim.approx {
        return;
    }
    if let Some(a) = argv.get_mut(idx.wrapping_sub(1)) {
        *a = b"=".to_vec();
    }
    if let Some(a) = argv.get_mut(idx) {
        *a = match trim.strategy {
            TrimStrategy::MaxLen(_) => s.len().to_string().into_bytes(),
            TrimStrategy::MinId(_) => s.first_node_id().to_bytes(),
        };
    }
    // Walk the options as the parser did (up to the ID for XADD), dropping each `LIMIT n`.
    let mut stop = stop;
    let mut i = 2;
    while i < stop.min(argv.len()) {
        let a = &argv[i];
        if a.eq_ignore_ascii_case(b"MAXLEN") || a.eq_ignore_ascii_case(b"MINID") {
            i += 1;
            if argv.get(i).is_some_and(|n| n == b"=" || n == b"~") && i + 1 < stop {
                i += 1;
            }
            i += 1;
        } else if a.eq_ignore_ascii_case(b"LIMIT") && i + 1 < stop {
            argv.drain(i..i + 2);
            stop -= 2;
        } else {
            i += 1;
        }
    }
}

/// The node limits in force (`stream-node-max-entries`, `stream-node-max-bytes`).
fn node_limits(ctx: &Ctx<'_>) -> (i64, i64) {
    (
        ctx.srv.config.int("stream-node-max-entries"),
        ctx.srv.config.int("stream-node-max-bytes"),
    )
}

/// `XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value
/// [field value ...]`: appends an entry and replies its ID. `*` makes the ID from the clock
/// (or the last ID's next sequence if the clock is behind), `ms-*` the next sequence for
/// that millisecond. Creates the stream unless NOMKSTREAM (then a missing key replies nil).
/// Trims afterwards when asked. Recorded with the ID used and an exact trim. O(1) plus
/// the entries trimmed.
fn xadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (max_entries, max_bytes) = node_limits(ctx);
    let mut argv = args.argv().to_vec();
    let parsed = parse_add_trim(&argv, true, max_entries)?;
    let field_pos = parsed.id_idx + 1;
    let nfields = argv.len().saturating_sub(field_pos);
    if argv.len() < field_pos + 2 || nfields % 2 == 1 {
        return Err(Error::WrongArity("xadd".into()));
    }
    if let Some(p) = parsed.id {
        if p.seq_given && p.id == StreamId::MIN {
            return Err(StreamError::IdZero.into());
        }
    }
    let key = argv[1].clone();
    let now = ctx.now_ms;
    match ctx.lookup_write(&key) {
        Some(e) => {
            e.value.as_stream()?;
        }
        None => {
            if parsed.no_mkstream {
                return Ok(Reply::Nil);
            }
            ctx.db().set(
                key.clone(),
                Value::Stream(Box::new(Stream::new())),
                false,
                now,
            );
            ctx.notify(class::NEW, "new", &key);
        }
    }
    let fields: Fields = argv[field_pos..]
        .chunks(2)
        .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
        .collect();
    // Not `write_stream`: an added entry is what serves blocked readers.
    let Some(s) = ctx.write_as(&key, Value::as_stream_mut)? else {
        return Ok(Reply::Nil);
    };
    if s.last_id == StreamId::MAX {
        return Err(StreamError::Exhausted.into());
    }
    let id = match parsed.id {
        Some(p) if p.seq_given => p.id,
        Some(p) => {
            if s.last_id.ms == p.id.ms {
                if s.last_id.seq == u64::MAX {
                    return Err(StreamError::IdNotGreater.into());
                }
                StreamId::new(p.id.ms, s.last_id.seq + 1)
            } else {
                p.id
            }
        }
        None => s.next_auto_id(now).ok_or(StreamError::Exhausted)?,
    };
    match s.append(id, fields, max_entries, max_bytes) {
        Ok(()) => {}
        Err(AppendError::NotGreater) => return Err(StreamError::IdNotGreater.into()),
        Err(AppendError::TooLarge) => return Err(StreamError::TooLarge.into()),
    }
    if parsed.id.is_none_or(|p| !p.seq_given) {
        if let Some(a) = argv.get_mut(parsed.id_idx) {
            *a = id.to_bytes();
        }
    }
    let mut trimmed = 0;
    if let Some(t) = parsed.trim {
        trimmed = s.trim(&t);
        rewrite_approx(&mut argv, parsed.threshold_idx, parsed.id_idx, &t, s);
    }
    ctx.signal_modified(&key);
    ctx.notify(class::STREAM, "xadd", &key);
    if trimmed > 0 {
        ctx.notify(class::STREAM, "xtrim", &key);
    }
    ctx.dirty += 1;
    ctx.propagate(argv);
    Ok(Reply::Bulk(id.to_bytes()))
}

/// `XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]`: removes the oldest entries and
/// replies how many. `~` removes whole nodes only (and at most LIMIT entries, by default
/// 100 × `stream-node-max-entries`); recorded as the exact trim it amounted to. O(N) in
/// the entries removed.
fn xtrim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (max_entries, _) = node_limits(ctx);
    let mut argv = args.argv().to_vec();
    let parsed = parse_add_trim(&argv, false, max_entries)?;
    let key = argv[1].clone();
    let Some(s) = write_stream(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let Some(t) = parsed.trim else {
        return Ok(Reply::Integer(0));
    };
    let deleted = s.trim(&t);
    if deleted > 0 {
        let stop = argv.len();
        rewrite_approx(&mut argv, parsed.threshold_idx, stop, &t, s);
        ctx.notify(class::STREAM, "xtrim", &key);
        ctx.signal_modified(&key);
        ctx.dirty += deleted;
        ctx.propagate(argv);
    }
    Ok(Reply::Integer(deleted as i64))
}

/// `XDEL key id [id ...]`: deletes entries, replying how many existed. A missing key
/// replies 0 before the IDs are checked; an invalid ID fails the whole command. O(1) per
/// ID (O(log N) here).
fn xdel(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let rest = args.rest();
    if write_stream(ctx, &key)?.is_none() {
        return Ok(Reply::Integer(0));
    }
    let ids = rest
        .iter()
        .map(|a| strict_id(a))
        .collect::<CmdResult<Vec<_>>>()?;
    let Some(s) = write_stream(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let deleted = ids.into_iter().filter(|id| s.delete(*id)).count() as u64;
    if deleted > 0 {
        ctx.notify(class::STREAM, "xdel", &key);
        ctx.dirty += deleted;
    }
    Ok(Reply::Integer(deleted as i64))
}

/// `XLEN key`: the number of entries (0 for a missing key). O(1).
fn xlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    Ok(Reply::Integer(
        read_stream(ctx, &key)?.map_or(0, |s| s.len() as i64),
    ))
}

/// `XRANGE key start end [COUNT count]`: entries with IDs from start to end. `-` and `+`
/// are the extremes, an ID without sequence means its first (start) or last (end)
/// sequence, `(` excludes the bound. COUNT 0 replies a null array, a negative COUNT
/// counts as 0. O(log N + M).
fn xrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, false)
}

/// `XREVRANGE key end start [COUNT count]`: XRANGE from the end.
fn xrevrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, true)
}

fn range_generic(ctx: &mut Ctx<'_>, args: &mut Args, rev: bool) -> CmdResult {
    let key = args.next_owned()?;
    let a = args.next_owned()?;
    let b = args.next_owned()?;
    let (start_arg, end_arg) = if rev { (b, a) } else { (a, b) };
    let start = range_start(&start_arg)?;
    let end = range_end(&end_arg)?;
    let mut count: i64 = -1;
    while !args.is_empty() {
        if args.remaining() >= 2 && args.eat("COUNT") {
            count = args.next_i64()?.max(0);
        } else {
            return Err(Error::Syntax);
        }
    }
    let Some(s) = read_stream(ctx, &key)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    if count == 0 {
        return Ok(Reply::NilArray);
    }
    let limit = if count < 0 {
        usize::MAX
    } else {
        count as usize
    };
    let it = s.range(start, end);
    let out: Vec<Reply> = if rev {
        it.rev()
            .take(limit)
            .map(|(id, f)| entry_reply(*id, f))
            .collect()
    } else {
        it.take(limit).map(|(id, f)| entry_reply(*id, f)).collect()
    };
    Ok(Reply::Array(out))
}

// ---------------------------------------------------------------------------------------
// XREAD, XREADGROUP
// ---------------------------------------------------------------------------------------

/// Where a group read starts for one stream: after an explicit ID (history), or `>`.
const NEW_ONLY: StreamId = StreamId::MAX;

/// Serves one group read on `key` as Redis's `streamReplyWithRange` with a group: new
/// entries after `start` (advancing the group and adding PEL entries unless NOACK), or
/// with `history` the consumer's own pending entries from `start`. Records the effects
/// Redis propagates. The caller made sure the group and consumer exist.
#[allow(clippy::too_many_arguments)]
fn group_read(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    start: StreamId,
    count: i64,
    noack: bool,
    history: bool,
) -> Reply {
    let now = ctx.now_ms;
    let mut effects = Vec::new();
    let reply = {
        let Ok(Some(s)) = write_stream(ctx, key) else {
            return Reply::Array(Vec::new());
        };
        let limit = if count <= 0 {
            usize::MAX
        } else {
            count as usize
        };
        let mut out = Vec::new();
        if history {
            let ids: Vec<StreamId> = s
                .groups
                .get(group)
                .and_then(|g| g.consumers.get(consumer))
                .map(|c| c.pending.range(start..).take(limit).copied().collect())
                .unwrap_or_default();
            for id in ids {
                let entry = s.get(id).map(|f| entry_reply(id, f));
                match entry {
                    Some(r) => {
                        if let Some(g) = s.groups.get_mut(group) {
                            if let Some(n) = g.pel.get_mut(&id) {
                                n.delivery_time = now;
                                n.delivery_count = n.delivery_count.wrapping_add(1);
                                let count = n.delivery_count;
                                effects.push(claim_effect(
                                    key,
                                    group,
                                    consumer,
                                    &id.to_bytes(),
                                    now,
                                    count,
                                    g,
                                ));
                            }
                        }
                        out.push(r);
                    }
                    None => out.push(Reply::Array(vec![
                        Reply::Bulk(id.to_bytes()),
                        Reply::NilArray,
                    ])),
                }
            }
        } else {
            let ids: Vec<StreamId> = s
                .range(start, StreamId::MAX)
                .take(limit)
                .map(|(id, _)| *id)
                .collect();
            let mut advanced = false;
            for id in ids {
                if s.advance_group(group, id) {
                    advanced = true;
                }
                if let Some(f) = s.get(id) {
                    out.push(entry_reply(id, f));
                }
                if !noack {
                    let Some(g) = s.groups.get_mut(group) else {
                        continue;
                    };
                    g.assign(id, consumer, now, 1);
                    effects.push(claim_effect(
                        key,
                        group,
                        consumer,
                        &id.to_bytes(),
                        now,
                        1,
                        g,
                    ));
                }
            }
            // Redis propagates the group's new last ID only after a NOACK read (otherwise
            // the XCLAIMs carry it as LASTID, but not the read counter, so a Redis replica's
            // `entries-read` and lag drift). We also record it after a read that created
            // pending entries, so that replaying rebuilds the group exactly.
            if advanced {
                if let Some(g) = s.groups.get(group) {
                    effects.push(setid_effect(key, group, g));
                }
            }
        }
        Reply::Array(out)
    };
    for e in effects {
        ctx.propagate(e);
    }
    reply
}

/// The `XCLAIM … FORCE JUSTID LASTID` command that recreates a PEL entry, as Redis's
/// `streamPropagateXCLAIM`.
fn claim_effect(
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    id: &[u8],
    time: i64,
    count: u64,
    g: &CGroup,
) -> Vec<Vec<u8>> {
    vec![
        bytes("XCLAIM"),
        key.to_vec(),
        group.to_vec(),
        consumer.to_vec(),
        bytes("0"),
        id.to_vec(),
        bytes("TIME"),
        time.to_string().into_bytes(),
        bytes("RETRYCOUNT"),
        (count as i64).to_string().into_bytes(),
        bytes("FORCE"),
        bytes("JUSTID"),
        bytes("LASTID"),
        g.last_id.to_bytes(),
    ]
}

/// `XGROUP SETID key group last ENTRIESREAD n`, as Redis's `streamPropagateGroupID`.
fn setid_effect(key: &[u8], group: &[u8], g: &CGroup) -> Vec<Vec<u8>> {
    vec![
        bytes("XGROUP"),
        bytes("SETID"),
        key.to_vec(),
        group.to_vec(),
        g.last_id.to_bytes(),
        bytes("ENTRIESREAD"),
        g.entries_read.to_string().into_bytes(),
    ]
}

/// Looks up `consumer` in `group` of the stream at `key`, refreshing its seen-time, or
/// creates it (one change, the `xgroup-createconsumer` event). Returns true if created.
fn touch_consumer(ctx: &mut Ctx<'_>, key: &[u8], group: &[u8], consumer: &[u8]) -> bool {
    let now = ctx.now_ms;
    let Ok(Some(s)) = write_stream(ctx, key) else {
        return false;
    };
    let Some(g) = s.groups.get_mut(group) else {
        return false;
    };
    match g.consumers.get_mut(consumer) {
        Some(c) => {
            c.seen_time = now;
            false
        }
        None => {
            g.consumers.insert(
                consumer.to_vec(),
                Consumer {
                    seen_time: now,
                    pending: Default::default(),
                },
            );
            ctx.dirty += 1;
            ctx.notify(class::STREAM, "xgroup-createconsumer", key);
            true
        }
    }
}

/// `XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]`: for each stream,
/// the entries after its ID (`$`: after the current last ID), at most COUNT each; streams
/// with none are left out, and a null array means none had any. With BLOCK and nothing to
/// read, waits up to `ms` (0: forever) for entries after the IDs. O(M) in the entries.
fn xread(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    read_generic(ctx, args, false)
}

/// `XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key [key
/// ...] id [id ...]`: reads as `consumer` of `group` (created on first use). `>` reads
/// entries never delivered to the group, advancing its last delivered ID and adding them
/// to the pending list (unless NOACK); any other ID reads the consumer's own pending
/// entries after it (a deleted entry shows as `[id, nil]`). Only `>` blocks. O(M).
fn xreadgroup(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    read_generic(ctx, args, true)
}

fn read_generic(ctx: &mut Ctx<'_>, args: &mut Args, is_group: bool) -> CmdResult {
    let argv = args.argv().to_vec();
    let argc = argv.len();
    let mut deadline: Option<Option<i64>> = None;
    let mut count: i64 = 0;
    let mut streams_arg = 0;
    let mut streams_count = 0;
    let mut group: Option<(Vec<u8>, Vec<u8>)> = None;
    let mut noack = false;
    let mut i = 1;
    while i < argc {
        let moreargs = argc - i - 1;
        let o = argv[i].as_slice();
        if o.eq_ignore_ascii_case(b"BLOCK") && moreargs > 0 {
            i += 1;
            deadline = Some(super::blocking::parse_timeout_ms(&argv[i], ctx.now_ms)?);
        } else if o.eq_ignore_ascii_case(b"COUNT") && moreargs > 0 {
            i += 1;
            count = parse_i64(&argv[i]).ok_or(Error::NotInteger)?.max(0);
        } else if o.eq_ignore_ascii_case(b"STREAMS") && moreargs > 0 {
            streams_arg = i + 1;
            streams_count = argc - streams_arg;
            if streams_count % 2 != 0 {
                return Err(StreamError::Unbalanced.into());
            }
            streams_count /= 2;
            break;
        } else if o.eq_ignore_ascii_case(b"GROUP") && moreargs >= 2 {
            if !is_group {
                return Err(StreamError::GroupInXread.into());
            }
            group = Some((argv[i + 1].clone(), argv[i + 2].clone()));
            i += 2;
        } else if o.eq_ignore_ascii_case(b"NOACK") {
            if !is_group {
                return Err(StreamError::NoackInXread.into());
            }
            noack = true;
        } else {
            return Err(Error::Syntax);
        }
        i += 1;
    }
    if streams_arg == 0 {
        return Err(Error::Syntax);
    }
    if is_group && group.is_none() {
        return Err(StreamError::MissingGroup.into());
    }
    let keys: Vec<Vec<u8>> = argv[streams_arg..streams_arg + streams_count].to_vec();
    let mut ids: Vec<StreamId> = Vec::with_capacity(streams_count);
    for (k, key) in keys.iter().enumerate() {
        let arg = &argv[streams_arg + streams_count + k];
        let s = read_stream(ctx, key)?;
        if let Some((g, _)) = &group {
            if s.is_none_or(|s| !s.groups.contains_key(g)) {
                return Err(StreamError::NoGroupRead(c_str(key), c_str(g)).into());
            }
        }
        if arg.as_slice() == b"$" {
            if is_group {
                return Err(StreamError::DollarInGroup.into());
            }
            ids.push(s.map_or(StreamId::MIN, |s| s.last_id));
        } else if arg.as_slice() == b">" {
            if !is_group {
                return Err(StreamError::GreaterOutsideGroup.into());
            }
            ids.push(NEW_ONLY);
        } else {
            ids.push(strict_id(arg)?);
        }
    }
    if is_group {
        ctx.propagate_none();
    }
    let mut served: Vec<(Vec<u8>, Reply)> = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let gt = ids[k];
        let Some(s) = read_stream(ctx, key)? else {
            continue;
        };
        let mut start_after = gt;
        let mut history = false;
        let serve = match &group {
            Some((g, _)) => {
                if gt != NEW_ONLY {
                    history = true;
                    true
                } else if !s.is_empty() {
                    let last = s.groups.get(g).map_or(StreamId::MAX, |g| g.last_id);
                    start_after = last;
                    s.last_valid_id() > last
                } else {
                    false
                }
            }
            None => !s.is_empty() && s.last_valid_id() > gt,
        };
        if !serve {
            continue;
        }
        let start = start_after.incr().unwrap_or(StreamId::MIN);
        let reply = match &group {
            Some((g, c)) => {
                let created = touch_consumer(ctx, key, g, c);
                if created {
                    ctx.propagate(vec![
                        bytes("XGROUP"),
                        bytes("CREATECONSUMER"),
                        key.clone(),
                        g.clone(),
                        c.clone(),
                    ]);
                }
                let r = group_read(ctx, key, g, c, start, count, noack, history);
                ctx.dirty += 1;
                ctx.signal_modified(key);
                r
            }
            None => {
                let limit = if count == 0 {
                    usize::MAX
                } else {
                    count as usize
                };
                Reply::Array(
                    s.range(start, StreamId::MAX)
                        .take(limit)
                        .map(|(id, f)| entry_reply(*id, f))
                        .collect(),
                )
            }
        };
        served.push((key.clone(), reply));
    }
    if !served.is_empty() {
        return Ok(per_key_reply(ctx.client.proto, served));
    }
    if let Some(deadline) = deadline {
        if ctx.deny_blocking {
            return Ok(Reply::NilArray);
        }
        let mut waits: Vec<(Vec<u8>, StreamId)> = Vec::new();
        for (k, key) in keys.iter().enumerate() {
            if !waits.iter().any(|(w, _)| w == key) {
                waits.push((key.clone(), ids[k]));
            }
        }
        let op = BlockOp::XRead(Box::new(XReadWait {
            ids: waits,
            count: if count > 0 {
                count
            } else {
                BLOCKED_DEFAULT_COUNT
            },
            group,
            noack,
        }));
        ctx.block(keys, deadline, op);
    }
    Ok(Reply::NilArray)
}

/// What the engine does with a client blocked on stream `key` after the key was signalled.
pub enum BlockedAction {
    /// Nothing to serve yet: keep waiting.
    Wait,
    /// Unblock with this error.
    Fail(Error),
    /// Serve entries after this ID.
    Serve(StreamId),
}

/// Decides for a reader blocked on `key` of database `db` (Redis's
/// `serveClientsBlockedOnStreamKey` and `unblockDeletedStreamReadgroupClients`).
pub fn blocked_action(srv: &Server, db: usize, key: &[u8], w: &XReadWait) -> BlockedAction {
    let value = srv
        .dbs
        .get(db)
        .and_then(|d| d.get_raw(key))
        .map(|e| &e.value);
    let Some(Value::Stream(s)) = value else {
        return if w.group.is_some() {
            BlockedAction::Fail(StreamError::KeyGone.into())
        } else {
            BlockedAction::Wait
        };
    };
    let gt = match &w.group {
        Some((g, _)) => match s.groups.get(g) {
            Some(g) => g.last_id,
            None => return BlockedAction::Fail(StreamError::GroupGone.into()),
        },
        None => w
            .ids
            .iter()
            .find(|(k, _)| k == key)
            .map_or(StreamId::MAX, |(_, id)| *id),
    };
    if s.last_id > gt {
        BlockedAction::Serve(gt)
    } else {
        BlockedAction::Wait
    }
}

/// The command that serves a blocked reader: not in the table, run by [`serve_blocked`]
/// through the engine's `call` so its effects and events are recorded as a command's.
static SERVE_BLOCKED: Command = Command::new("xreadgroup", -1, Group::Stream, serve_blocked_cmd)
    .flags(W)
    .doc("", "Serves a blocked stream reader.", "O(M)", "5.0.0");

/// Serves a reader blocked on `key` with the entries after `after`: replies
/// `[[key, entries]]` (a one-entry map in RESP3), as Redis replies to a served blocked
/// XREAD/XREADGROUP, with the same delivery bookkeeping and effects as a direct read.
fn serve_blocked(site: Site<'_>, key: &[u8], w: &XReadWait, after: StreamId) -> Reply {
    let mut argv = vec![
        bytes("XREADGROUP"),
        key.to_vec(),
        after.to_bytes(),
        w.count.to_string().into_bytes(),
        bytes(if w.noack { "1" } else { "0" }),
    ];
    if let Some((g, c)) = &w.group {
        argv.push(g.clone());
        argv.push(c.clone());
    }
    call(site, &SERVE_BLOCKED, 1, argv, Mode::SERVE_BLOCKED)
        .into_iter()
        .next()
        .unwrap_or(Reply::NilArray)
}

/// The family of blocked stream readers (`XREAD BLOCK`, `XREADGROUP BLOCK`): see
/// [`blocked_action`].
pub struct Readers;

/// The one [`Readers`], handed to the engine in [`crate::engine::table::WAITERS`].
pub const READERS: Readers = Readers;

impl Waiters for Readers {
    fn serves(&self, op: &BlockOp) -> bool {
        matches!(op, BlockOp::XRead(_))
    }

    fn readiness(&self, srv: &Server, db: usize, key: &[u8], op: &BlockOp) -> Readiness {
        let BlockOp::XRead(w) = op else {
            return Readiness::Wait;
        };
        match blocked_action(srv, db, key, w) {
            BlockedAction::Wait => Readiness::Wait,
            BlockedAction::Fail(e) => Readiness::Fail(e),
            BlockedAction::Serve(_) => Readiness::Serve,
        }
    }

    fn serve(&self, site: Site<'_>, key: &[u8], op: &BlockOp) -> Reply {
        let BlockOp::XRead(w) = op else {
            return Reply::NilArray;
        };
        // The client blocked in the site's database; nothing changed since `readiness`.
        let db = site.client.db;
        match blocked_action(site.srv, db, key, w) {
            BlockedAction::Serve(after) => serve_blocked(site, key, w, after),
            _ => Reply::NilArray,
        }
    }
}

/// The handler behind [`serve_blocked`]: `key after count noack [group consumer]`.
fn serve_blocked_cmd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let after = strict_id(args.next_bytes()?)?;
    let count = args.next_i64()?;
    let noack = args.next_bytes()? == b"1";
    let group = if args.is_empty() {
        None
    } else {
        Some((args.next_owned()?, args.next_owned()?))
    };
    let start = after.incr().unwrap_or(StreamId::MIN);
    let entries = match &group {
        Some((g, c)) => {
            ctx.propagate_none();
            let created = touch_consumer(ctx, &key, g, c);
            if created {
                ctx.propagate(vec![
                    bytes("XGROUP"),
                    bytes("CREATECONSUMER"),
                    key.clone(),
                    g.clone(),
                    c.clone(),
                ]);
            }
            let r = group_read(ctx, &key, g, c, start, count, noack, false);
            ctx.signal_modified(&key);
            ctx.dirty += 1;
            r
        }
        None => {
            ctx.propagate_none();
            let Some(s) = read_stream(ctx, &key)? else {
                return Ok(Reply::NilArray);
            };
            Reply::Array(
                s.range(start, StreamId::MAX)
                    .take(count.max(1) as usize)
                    .map(|(id, f)| entry_reply(*id, f))
                    .collect(),
            )
        }
    };
    Ok(per_key_reply(ctx.client.proto, vec![(key, entries)]))
}

// ---------------------------------------------------------------------------------------
// XACK, XPENDING, XCLAIM, XAUTOCLAIM, XSETID
// ---------------------------------------------------------------------------------------

/// `XACK key group id [id ...]`: removes the IDs from the group's pending list, replying
/// how many were pending. A missing key or group replies 0 before the IDs are checked; an
/// invalid ID fails the whole command. O(1) per ID.
fn xack(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let group = args.next_owned()?;
    let rest = args.rest();
    let has_group = read_stream(ctx, &key)?.is_some_and(|s| s.groups.contains_key(&group));
    if !has_group {
        return Ok(Reply::Integer(0));
    }
    let ids = rest
        .iter()
        .map(|a| strict_id(a))
        .collect::<CmdResult<Vec<_>>>()?;
    let Some(g) = write_stream(ctx, &key)?.and_then(|s| s.groups.get_mut(&group)) else {
        return Ok(Reply::Integer(0));
    };
    let acked = ids.into_iter().filter(|id| g.ack(*id)).count() as u64;
    ctx.dirty += acked;
    Ok(Reply::Integer(acked as i64))
}

/// `XPENDING key group [[IDLE min-idle] start end count [consumer]]`: without a range, a
/// summary `[count, first, last, [[consumer, count], …]]`; with one, up to `count` pending
/// entries `[id, consumer, idle ms, deliveries]` in the range, of one consumer if named
/// (an unknown consumer gives an empty array), idle at least `min-idle` if given. O(N).
fn xpending(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv().to_vec();
    let argc = argv.len();
    if argc != 3 && !(6..=9).contains(&argc) {
        return Err(Error::Syntax);
    }
    let key = argv[1].clone();
    let group = argv[2].clone();
    let mut range: Option<(StreamId, StreamId, i64, Option<Vec<u8>>)> = None;
    let mut minidle: i64 = 0;
    if argc >= 6 {
        let mut startidx = 3;
        if argv[3].eq_ignore_ascii_case(b"IDLE") {
            minidle = parse_i64(&argv[4]).ok_or(Error::NotInteger)?;
            if argc < 8 {
                return Err(Error::Syntax);
            }
            startidx += 2;
        }
        let count = parse_i64(&argv[startidx + 2])
            .ok_or(Error::NotInteger)?
            .max(0);
        let start = range_start(&argv[startidx])?;
        let end = range_end(&argv[startidx + 1])?;
        let consumer = argv.get(startidx + 3).cloned();
        range = Some((start, end, count, consumer));
    }
    let now = ctx.now_ms;
    let s = read_stream(ctx, &key)?;
    let Some(g) = s.and_then(|s| s.groups.get(&group)) else {
        return Err(StreamError::NoKeyOrGroup(c_str(&key), c_str(&group)).into());
    };
    let Some((start, end, count, consumer)) = range else {
        if g.pel.is_empty() {
            return Ok(Reply::Array(vec![
                Reply::Integer(0),
                Reply::Nil,
                Reply::Nil,
                Reply::NilArray,
            ]));
        }
        let first = g.pel.keys().next().copied().unwrap_or_default();
        let last = g.pel.keys().next_back().copied().unwrap_or_default();
        let consumers = g
            .consumers
            .iter()
            .filter(|(_, c)| !c.pending.is_empty())
            .map(|(n, c)| {
                Reply::Array(vec![
                    Reply::bulk(n),
                    Reply::Bulk(c.pending.len().to_string().into_bytes()),
                ])
            })
            .collect();
        return Ok(Reply::Array(vec![
            Reply::Integer(g.pel.len() as i64),
            Reply::Bulk(first.to_bytes()),
            Reply::Bulk(last.to_bytes()),
            Reply::Array(consumers),
        ]));
    };
    let ids: Box<dyn Iterator<Item = StreamId>> = match &consumer {
        Some(name) => match g.consumers.get(name) {
            None => return Ok(Reply::Array(Vec::new())),
            Some(c) => Box::new(c.pending.range(start..).copied()),
        },
        None => Box::new(g.pel.range(start..).map(|(k, _)| *k)),
    };
    let mut out = Vec::new();
    let mut left = count;
    for id in ids {
        if left == 0 || id > end {
            break;
        }
        let Some(n) = g.pel.get(&id) else { continue };
        let idle = now - n.delivery_time;
        if minidle != 0 && idle < minidle {
            continue;
        }
        left -= 1;
        out.push(Reply::Array(vec![
            Reply::Bulk(id.to_bytes()),
            Reply::bulk(&n.consumer),
            Reply::Integer(idle.max(0)),
            Reply::Integer(n.delivery_count as i64),
        ]));
    }
    Ok(Reply::Array(out))
}

/// `XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms-unix-time]
/// [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]`: gives the pending entries idle at
/// least `min-idle-time` to `consumer` (created if needed), resetting their idle time
/// (or to IDLE/TIME) and counting a delivery (unless JUSTID; RETRYCOUNT sets the count).
/// FORCE creates missing PEL entries for existing stream entries; an entry deleted from
/// the stream is dropped from the PEL. Replies the claimed entries (their IDs with
/// JUSTID). Recorded as one `XCLAIM … FORCE JUSTID LASTID` per claim. O(log N) per ID.
fn xclaim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv().to_vec();
    let argc = argv.len();
    let key = argv[1].clone();
    let group = argv[2].clone();
    let consumer = argv[3].clone();
    let has_group = read_stream(ctx, &key)?.is_some_and(|s| s.groups.contains_key(&group));
    if !has_group {
        return Err(StreamError::NoKeyOrGroup(c_str(&key), c_str(&group)).into());
    }
    let minidle = parse_i64(&argv[4])
        .ok_or(StreamError::MinIdle("XCLAIM"))?
        .max(0);
    let mut j = 5;
    let mut ids: Vec<(StreamId, Vec<u8>)> = Vec::new();
    while j < argc {
        match parse_id(&argv[j], 0, true, false) {
            Some(p) => ids.push((p.id, argv[j].clone())),
            None => break,
        }
        j += 1;
    }
    let now = ctx.now_ms;
    let mut force = false;
    let mut justid = false;
    let mut retrycount: i64 = -1;
    let mut deliverytime: i64 = -1;
    let mut last_id = StreamId::MIN;
    while j < argc {
        let moreargs = argc - 1 - j;
        let opt = argv[j].as_slice();
        if opt.eq_ignore_ascii_case(b"FORCE") {
            force = true;
        } else if opt.eq_ignore_ascii_case(b"JUSTID") {
            justid = true;
        } else if opt.eq_ignore_ascii_case(b"IDLE") && moreargs > 0 {
            j += 1;
            let v = parse_i64(&argv[j]).ok_or(StreamError::XclaimArg("IDLE"))?;
            deliverytime = now.wrapping_sub(v);
        } else if opt.eq_ignore_ascii_case(b"TIME") && moreargs > 0 {
            j += 1;
            deliverytime = parse_i64(&argv[j]).ok_or(StreamError::XclaimArg("TIME"))?;
        } else if opt.eq_ignore_ascii_case(b"RETRYCOUNT") && moreargs > 0 {
            j += 1;
            retrycount = parse_i64(&argv[j]).ok_or(StreamError::XclaimArg("RETRYCOUNT"))?;
        } else if opt.eq_ignore_ascii_case(b"LASTID") && moreargs > 0 {
            j += 1;
            last_id = strict_id(&argv[j])?;
        } else {
            return Err(StreamError::XclaimOption(c_str(opt)).into());
        }
        j += 1;
    }
    ctx.propagate_none();
    let mut propagate_last_id = false;
    if let Some(g) = write_stream(ctx, &key)?.and_then(|s| s.groups.get_mut(&group)) {
        if last_id > g.last_id {
            g.last_id = last_id;
            propagate_last_id = true;
        }
    }
    if deliverytime == -1 || deliverytime < 0 || deliverytime > now {
        deliverytime = now;
    }
    let mut out = Vec::new();
    let mut effects = Vec::new();
    let mut consumer_ready = false;
    let mut changes = 0u64;
    for (id, raw) in ids {
        let Some(s) = write_stream(ctx, &key)? else {
            break;
        };
        let exists = s.contains(id);
        let Some(g) = s.groups.get_mut(&group) else {
            break;
        };
        if !exists {
            if let Some(n) = g.pel.get(&id).cloned() {
                effects.push(claim_effect(
                    &key,
                    &group,
                    &n.consumer,
                    &raw,
                    n.delivery_time,
                    n.delivery_count,
                    g,
                ));
                propagate_last_id = false;
                changes += 1;
                g.ack(id);
            }
            continue;
        }
        let (old, fresh) = match g.pel.get(&id) {
            Some(n) => (Some(n.clone()), false),
            None if force => (None, true),
            None => continue,
        };
        if let Some(n) = &old {
            if minidle > 0 && now - n.delivery_time < minidle {
                continue;
            }
        }
        if !consumer_ready {
            consumer_ready = true;
            touch_consumer(ctx, &key, &group, &consumer);
        }
        let Some(s) = write_stream(ctx, &key)? else {
            break;
        };
        let fields = s.get(id).cloned();
        let Some(g) = s.groups.get_mut(&group) else {
            break;
        };
        let prev_count = if fresh {
            1
        } else {
            old.map_or(1, |n| n.delivery_count)
        };
        let count = if retrycount >= 0 {
            retrycount as u64
        } else if !justid {
            prev_count.wrapping_add(1)
        } else {
            prev_count
        };
        g.assign(id, &consumer, deliverytime, count);
        if justid {
            out.push(Reply::Bulk(id.to_bytes()));
        } else if let Some(f) = &fields {
            out.push(entry_reply(id, f));
        }
        effects.push(claim_effect(
            &key,
            &group,
            &consumer,
            &raw,
            deliverytime,
            count,
            g,
        ));
        propagate_last_id = false;
        changes += 1;
    }
    if propagate_last_id {
        if let Some(g) = write_stream(ctx, &key)?.and_then(|s| s.groups.get(&group)) {
            effects.push(setid_effect(&key, &group, g));
        }
        changes += 1;
    }
    ctx.dirty += changes;
    for e in effects {
        ctx.propagate(e);
    }
    Ok(Reply::Array(out))
}

/// Largest `XAUTOCLAIM` COUNT that Redis could allocate its temporary array for; a larger
/// one gets Redis's out-of-memory error (Redis asks `malloc` for COUNT × 16 bytes, which
/// fails long before this on any real machine).
const AUTOCLAIM_MAX_ALLOC_COUNT: i64 = 1 << 32;

/// `XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]`: XCLAIM for
/// the pending entries from `start` idle at least `min-idle-time`, at most COUNT (default
/// 100) claimed and 10 × COUNT examined. Entries deleted from the stream are dropped from
/// the PEL and listed. Replies `[next start (0-0 when done), claimed, deleted IDs]`.
/// O(COUNT) (O(log N) to start).
fn xautoclaim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv().to_vec();
    let argc = argv.len();
    let key = argv[1].clone();
    let group = argv[2].clone();
    let consumer = argv[3].clone();
    let minidle = parse_i64(&argv[4])
        .ok_or(StreamError::MinIdle("XAUTOCLAIM"))?
        .max(0);
    let start = range_start(&argv[5])?;
    let mut count: i64 = 100;
    let mut justid = false;
    let mut j = 6;
    while j < argc {
        let moreargs = argc - 1 - j;
        let opt = argv[j].as_slice();
        if opt.eq_ignore_ascii_case(b"COUNT") && moreargs > 0 {
            let max = i64::MAX / 16;
            count = parse_i64(&argv[j + 1])
                .filter(|c| (1..=max).contains(c))
                .ok_or(StreamError::CountPositive)?;
            j += 1;
        } else if opt.eq_ignore_ascii_case(b"JUSTID") {
            justid = true;
        } else {
            return Err(Error::Syntax);
        }
        j += 1;
    }
    let has_group = read_stream(ctx, &key)?.is_some_and(|s| s.groups.contains_key(&group));
    if !has_group {
        return Err(StreamError::NoKeyOrGroup(c_str(&key), c_str(&group)).into());
    }
    if count > AUTOCLAIM_MAX_ALLOC_COUNT {
        return Err(Error::Err(
            "Insufficient memory, failed allocating transient memory, COUNT too high.".into(),
        ));
    }
    ctx.propagate_none();
    let now = ctx.now_ms;
    let mut attempts = count.saturating_mul(10);
    let mut claimed = Vec::new();
    let mut deleted = Vec::new();
    let mut effects = Vec::new();
    let mut changes = 0u64;
    let mut consumer_ready = false;
    let mut lower = Bound::Included(start);
    let mut eof = false;
    loop {
        if attempts == 0 {
            break;
        }
        attempts -= 1;
        if count == 0 {
            break;
        }
        let Some(s) = write_stream(ctx, &key)? else {
            break;
        };
        let Some(g) = s.groups.get(&group) else {
            break;
        };
        let Some((&id, n)) = g.pel.range((lower, Bound::Unbounded)).next() else {
            eof = true;
            break;
        };
        let n = n.clone();
        lower = Bound::Excluded(id);
        if !s.contains(id) {
            effects.push(claim_effect(
                &key,
                &group,
                &n.consumer,
                &id.to_bytes(),
                n.delivery_time,
                n.delivery_count,
                g,
            ));
            changes += 1;
            if let Some(g) = s.groups.get_mut(&group) {
                g.ack(id);
            }
            deleted.push(Reply::Bulk(id.to_bytes()));
            count -= 1;
            continue;
        }
        if minidle > 0 && now - n.delivery_time < minidle {
            continue;
        }
        if !consumer_ready {
            consumer_ready = true;
            touch_consumer(ctx, &key, &group, &consumer);
        }
        let Some(s) = write_stream(ctx, &key)? else {
            break;
        };
        let fields = s.get(id).cloned();
        let Some(g) = s.groups.get_mut(&group) else {
            break;
        };
        let dcount = if justid {
            n.delivery_count
        } else {
            n.delivery_count.wrapping_add(1)
        };
        g.assign(id, &consumer, now, dcount);
        if justid {
            claimed.push(Reply::Bulk(id.to_bytes()));
        } else if let Some(f) = &fields {
            claimed.push(entry_reply(id, f));
        }
        count -= 1;
        effects.push(claim_effect(
            &key,
            &group,
            &consumer,
            &id.to_bytes(),
            now,
            dcount,
            g,
        ));
        changes += 1;
    }
    let next = if eof {
        StreamId::MIN
    } else {
        read_stream(ctx, &key)?
            .and_then(|s| s.groups.get(&group))
            .and_then(|g| g.pel.range((lower, Bound::Unbounded)).next())
            .map_or(StreamId::MIN, |(id, _)| *id)
    };
    ctx.dirty += changes;
    for e in effects {
        ctx.propagate(e);
    }
    Ok(Reply::Array(vec![
        Reply::Bulk(next.to_bytes()),
        Reply::Array(claimed),
        Reply::Array(deleted),
    ]))
}

/// `XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]`: sets the stream's last ID
/// (not below its last entry), entries-added counter (not below its length) and maximal
/// deleted ID (not above the last ID). A missing key is `ERR no such key`. O(1).
fn xsetid(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let id = strict_id(args.next_bytes()?)?;
    let mut entries_added: i64 = -1;
    let mut max_xdel = StreamId::MIN;
    while !args.is_empty() {
        if args.remaining() >= 2 && args.eat("ENTRIESADDED") {
            entries_added = args.next_i64()?;
            if entries_added < 0 {
                return Err(StreamError::EntriesAdded.into());
            }
        } else if args.remaining() >= 2 && args.eat("MAXDELETEDID") {
            max_xdel = strict_id(args.next_bytes()?)?;
            if id < max_xdel {
                return Err(StreamError::SetIdBelowMaxDeleted.into());
            }
        } else {
            return Err(Error::Syntax);
        }
    }
    let Some(s) = write_stream(ctx, &key)? else {
        return Err(Error::NoSuchKey);
    };
    if !s.is_empty() {
        if id < s.last_valid_id() {
            return Err(StreamError::SetIdBelowTop.into());
        }
        if entries_added != -1 && s.len() > entries_added as u64 {
            return Err(StreamError::SetIdEntriesAdded.into());
        }
    }
    s.last_id = id;
    if entries_added != -1 {
        s.entries_added = entries_added as u64;
    }
    if max_xdel != StreamId::MIN {
        s.max_deleted_entry_id = max_xdel;
    }
    ctx.dirty += 1;
    ctx.notify(class::STREAM, "xsetid", &key);
    Ok(Reply::ok())
}

// ---------------------------------------------------------------------------------------
// XGROUP
// ---------------------------------------------------------------------------------------

/// The subcommands of XGROUP share Redis's checks, in its order: options (CREATE:
/// MKSTREAM, ENTRIESREAD; SETID: ENTRIESREAD), the key's type, the key's existence
/// (unless MKSTREAM), the group's existence (SETID, CREATECONSUMER, DELCONSUMER).
struct XGroupArgs {
    key: Vec<u8>,
    group: Vec<u8>,
    mkstream: bool,
    entries_read: i64,
}

fn xgroup_prelude(ctx: &mut Ctx<'_>, args: &Args) -> CmdResult<XGroupArgs> {
    let argv = args.argv();
    let sub = String::from_utf8_lossy(&argv[1]).to_ascii_uppercase();
    let create = sub == "CREATE";
    let setid = sub == "SETID";
    let mut mkstream = false;
    let mut entries_read: i64 = -1;
    let mut i = 5;
    while i < argv.len() {
        if create && argv[i].eq_ignore_ascii_case(b"MKSTREAM") {
            mkstream = true;
            i += 1;
        } else if (create || setid)
            && argv[i].eq_ignore_ascii_case(b"ENTRIESREAD")
            && i + 1 < argv.len()
        {
            entries_read = parse_i64(&argv[i + 1]).ok_or(Error::NotInteger)?;
            if entries_read < 0 && entries_read != -1 {
                return Err(StreamError::EntriesRead.into());
            }
            i += 2;
        } else {
            return Err(Error::subcommand_syntax(argv));
        }
    }
    let key = argv[2].clone();
    let group = argv[3].clone();
    let s = write_stream(ctx, &key)?;
    if !mkstream {
        let Some(s) = s else {
            return Err(StreamError::XgroupNeedsKey.into());
        };
        if !s.groups.contains_key(&group)
            && matches!(sub.as_str(), "SETID" | "CREATECONSUMER" | "DELCONSUMER")
        {
            return Err(StreamError::NoGroupForKey(c_str(&group), c_str(&key)).into());
        }
    }
    Ok(XGroupArgs {
        key,
        group,
        mkstream,
        entries_read,
    })
}

/// `XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]`: creates a group whose last
/// delivered ID is `id` (`$`: the stream's last ID); MKSTREAM creates a missing stream.
/// `BUSYGROUP` if it exists. O(1).
fn xgroup_create(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let a = xgroup_prelude(ctx, args)?;
    let argv = args.argv().to_vec();
    if argv.len() > 8 {
        return Err(Error::subcommand_syntax(&argv));
    }
    let exists = write_stream(ctx, &a.key)?.map(|s| s.last_id);
    let id = if argv[4].as_slice() == b"$" {
        exists.unwrap_or(StreamId::MIN)
    } else {
        strict_id(&argv[4])?
    };
    if exists.is_none() {
        debug_assert!(a.mkstream);
        let now = ctx.now_ms;
        ctx.db().set(
            a.key.clone(),
            Value::Stream(Box::new(Stream::new())),
            false,
            now,
        );
        ctx.notify(class::NEW, "new", &a.key);
        ctx.signal_modified(&a.key);
    }
    let Some(s) = write_stream(ctx, &a.key)? else {
        return Ok(Reply::ok());
    };
    if s.groups.contains_key(&a.group) {
        return Err(StreamError::BusyGroup.into());
    }
    s.groups
        .insert(a.group.clone(), CGroup::new(id, a.entries_read));
    ctx.dirty += 1;
    ctx.signal_modified(&a.key);
    ctx.notify(class::STREAM, "xgroup-create", &a.key);
    Ok(Reply::ok())
}

/// `XGROUP SETID key group id|$ [ENTRIESREAD n]`: moves a group's last delivered ID (and
/// sets its read counter, unknown unless given). O(1).
fn xgroup_setid(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let a = xgroup_prelude(ctx, args)?;
    let argv = args.argv().to_vec();
    if argv.len() != 5 && argv.len() != 7 {
        return Err(Error::subcommand_syntax(&argv));
    }
    let Some(s) = write_stream(ctx, &a.key)? else {
        return Err(StreamError::XgroupNeedsKey.into());
    };
    let id = if argv[4].as_slice() == b"$" {
        s.last_id
    } else {
        parse_id(&argv[4], 0, false, false)
            .ok_or(StreamError::InvalidId)?
            .id
    };
    if let Some(g) = s.groups.get_mut(&a.group) {
        g.last_id = id;
        g.entries_read = a.entries_read;
    }
    ctx.dirty += 1;
    ctx.notify(class::STREAM, "xgroup-setid", &a.key);
    Ok(Reply::ok())
}

/// `XGROUP DESTROY key group`: removes a group with its pending list and consumers,
/// replying 1, or 0 if there was none. Clients blocked reading as the group get
/// `NOGROUP`. O(N) in its pending entries.
fn xgroup_destroy(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let a = xgroup_prelude(ctx, args)?;
    let Some(s) = write_stream(ctx, &a.key)? else {
        return Ok(Reply::Integer(0));
    };
    if s.groups.remove(&a.group).is_none() {
        return Ok(Reply::Integer(0));
    }
    // Readers blocked as the group learn that it is gone (NOGROUP).
    ctx.wakes_blocked = true;
    ctx.dirty += 1;
    ctx.notify(class::STREAM, "xgroup-destroy", &a.key);
    Ok(Reply::Integer(1))
}

/// `XGROUP CREATECONSUMER key group consumer`: creates a consumer, replying 1, or 0 if it
/// exists. O(1).
fn xgroup_createconsumer(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let a = xgroup_prelude(ctx, args)?;
    let consumer = args.argv()[4].clone();
    let exists = write_stream(ctx, &a.key)?
        .and_then(|s| s.groups.get(&a.group))
        .is_none_or(|g| g.consumers.contains_key(&consumer));
    if exists {
        return Ok(Reply::Integer(0));
    }
    Ok(Reply::Integer(i64::from(touch_consumer(
        ctx, &a.key, &a.group, &consumer,
    ))))
}

/// `XGROUP DELCONSUMER key group consumer`: deletes a consumer and its pending entries,
/// replying how many it had (0 for an unknown consumer). O(N) in its pending entries.
fn xgroup_delconsumer(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let a = xgroup_prelude(ctx, args)?;
    let consumer = args.argv()[4].clone();
    let pending = write_stream(ctx, &a.key)?
        .and_then(|s| s.groups.get_mut(&a.group))
        .and_then(|g| g.delete_consumer(&consumer));
    match pending {
        Some(n) => {
            ctx.dirty += 1;
            ctx.notify(class::STREAM, "xgroup-delconsumer", &a.key);
            Ok(Reply::Integer(n as i64))
        }
        None => Ok(Reply::Integer(0)),
    }
}

/// `XGROUP HELP`
fn xgroup_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(super::connection::help_reply(
        "XGROUP",
        &[
            "CREATE <key> <groupname> <id|$> [option]",
            "    Create a new consumer group. Options are:",
            "    * MKSTREAM",
            "      Create the empty stream if it does not exist.",
            "    * ENTRIESREAD entries_read",
            "      Set the group's entries_read counter (internal use).",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "    Create a new consumer in the specified group.",
            "DELCONSUMER <key> <groupname> <consumer>",
            "    Remove the specified consumer.",
            "DESTROY <key> <groupname>",
            "    Remove the specified group.",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "    Set the current group ID and entries_read counter.",
        ],
    ))
}

// ---------------------------------------------------------------------------------------
// XINFO
// ---------------------------------------------------------------------------------------

fn kv(name: &str, v: Reply) -> (Reply, Reply) {
    (Reply::bulk(name.as_bytes()), v)
}

fn opt_int(v: Option<i64>) -> Reply {
    v.map_or(Reply::Nil, Reply::Integer)
}

/// The stream at `key` for XINFO: `ERR no such key` if missing.
fn info_stream<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<&'c Stream> {
    read_stream(ctx, key)?.ok_or(Error::NoSuchKey)
}

/// `XINFO STREAM key [FULL [COUNT count]]`: the stream's length, node counts, IDs and
/// counters, then its group count and first and last entries; with FULL, up to COUNT
/// entries (default 10, 0 for all) and every group with its pending list and consumers
/// (pending lists also cut at COUNT). O(1) without FULL (O(nodes) for the tree size).
fn xinfo_stream(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv().to_vec();
    let key = argv[2].clone();
    let s = info_stream(ctx, &key)?;
    let opts = &argv[3..];
    let sub_err = || Error::subcommand_syntax(&argv);
    let mut full = false;
    let mut count: i64 = 10;
    if !opts.is_empty() {
        if opts.len() != 1 && opts.len() != 3 {
            return Err(sub_err());
        }
        if !opts[0].eq_ignore_ascii_case(b"full") {
            return Err(sub_err());
        }
        full = true;
        if opts.len() == 3 {
            if !opts[1].eq_ignore_ascii_case(b"count") {
                return Err(sub_err());
            }
            count = parse_i64(&opts[2]).ok_or(Error::NotInteger)?;
            if count < 0 {
                count = 10;
            }
        }
    }
    let mut m = vec![
        kv("length", Reply::Integer(s.len() as i64)),
        kv("radix-tree-keys", Reply::Integer(s.node_count() as i64)),
        kv("radix-tree-nodes", Reply::Integer(s.rax_nodes() as i64)),
        kv("last-generated-id", Reply::Bulk(s.last_id.to_bytes())),
        kv(
            "max-deleted-entry-id",
            Reply::Bulk(s.max_deleted_entry_id.to_bytes()),
        ),
        kv("entries-added", Reply::Integer(s.entries_added as i64)),
        kv(
            "recorded-first-entry-id",
            Reply::Bulk(s.first_id.to_bytes()),
        ),
    ];
    if !full {
        m.push(kv("groups", Reply::Integer(s.groups.len() as i64)));
        m.push(kv(
            "first-entry",
            s.first().map_or(Reply::Nil, |(id, f)| entry_reply(id, f)),
        ));
        m.push(kv(
            "last-entry",
            s.last().map_or(Reply::Nil, |(id, f)| entry_reply(id, f)),
        ));
        return Ok(Reply::Map(m));
    }
    let limit = if count == 0 {
        usize::MAX
    } else {
        count as usize
    };
    m.push(kv(
        "entries",
        Reply::Array(
            s.range(StreamId::MIN, StreamId::MAX)
                .take(limit)
                .map(|(id, f)| entry_reply(*id, f))
                .collect(),
        ),
    ));
    let groups = s
        .groups
        .iter()
        .map(|(name, g)| {
            let pel = g
                .pel
                .iter()
                .take(limit)
                .map(|(id, n)| {
                    Reply::Array(vec![
                        Reply::Bulk(id.to_bytes()),
                        Reply::bulk(&n.consumer),
                        Reply::Integer(n.delivery_time),
                        Reply::Integer(n.delivery_count as i64),
                    ])
                })
                .collect();
            let consumers = g
                .consumers
                .iter()
                .map(|(cname, c)| {
                    let pending = c
                        .pending
                        .iter()
                        .take(limit)
                        .filter_map(|id| g.pel.get(id).map(|n| (id, n)))
                        .map(|(id, n): (&StreamId, &Nack)| {
                            Reply::Array(vec![
                                Reply::Bulk(id.to_bytes()),
                                Reply::Integer(n.delivery_time),
                                Reply::Integer(n.delivery_count as i64),
                            ])
                        })
                        .collect();
                    Reply::Map(vec![
                        kv("name", Reply::bulk(cname)),
                        kv("seen-time", Reply::Integer(c.seen_time)),
                        kv("pel-count", Reply::Integer(c.pending.len() as i64)),
                        kv("pending", Reply::Array(pending)),
                    ])
                })
                .collect();
            Reply::Map(vec![
                kv("name", Reply::bulk(name)),
                kv("last-delivered-id", Reply::Bulk(g.last_id.to_bytes())),
                kv(
                    "entries-read",
                    opt_int((g.entries_read != -1).then_some(g.entries_read)),
                ),
                kv("lag", opt_int(s.lag(g))),
                kv("pel-count", Reply::Integer(g.pel.len() as i64)),
                kv("pending", Reply::Array(pel)),
                kv("consumers", Reply::Array(consumers)),
            ])
        })
        .collect();
    m.push(kv("groups", Reply::Array(groups)));
    Ok(Reply::Map(m))
}

/// `XINFO GROUPS key`: each group's name, consumer count, pending count, last delivered
/// ID, read counter and lag (nil when unknown). O(groups).
fn xinfo_groups(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let s = info_stream(ctx, &key)?;
    Ok(Reply::Array(
        s.groups
            .iter()
            .map(|(name, g)| {
                Reply::Map(vec![
                    kv("name", Reply::bulk(name)),
                    kv("consumers", Reply::Integer(g.consumers.len() as i64)),
                    kv("pending", Reply::Integer(g.pel.len() as i64)),
                    kv("last-delivered-id", Reply::Bulk(g.last_id.to_bytes())),
                    kv(
                        "entries-read",
                        opt_int((g.entries_read != -1).then_some(g.entries_read)),
                    ),
                    kv("lag", opt_int(s.lag(g))),
                ])
            })
            .collect(),
    ))
}

/// `XINFO CONSUMERS key group`: each consumer's name, pending count and idle time (since
/// it last read or claimed). O(consumers).
fn xinfo_consumers(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let group = args.next_owned()?;
    let now = ctx.now_ms;
    let s = info_stream(ctx, &key)?;
    let Some(g) = s.groups.get(&group) else {
        return Err(StreamError::NoGroupForKey(c_str(&group), c_str(&key)).into());
    };
    Ok(Reply::Array(
        g.consumers
            .iter()
            .map(|(name, c)| {
                Reply::Map(vec![
                    kv("name", Reply::bulk(name)),
                    kv("pending", Reply::Integer(c.pending.len() as i64)),
                    kv("idle", Reply::Integer((now - c.seen_time).max(0))),
                ])
            })
            .collect(),
    ))
}

/// `XINFO HELP`
fn xinfo_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(super::connection::help_reply(
        "XINFO",
        &[
            "CONSUMERS <key> <groupname>",
            "    Show consumers of <groupname>.",
            "GROUPS <key>",
            "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]",
            "    Show information about the stream.",
        ],
    ))
}

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::{ClientId, Engine, ManualClock, Reply};

    const T0: i64 = 1_700_000_000_000;

    fn engine() -> (Engine, ManualClock) {
        let clock = ManualClock::at_ms(T0);
        (Engine::new(Box::new(clock.clone()), 7), clock)
    }

    fn run(e: &mut Engine, c: ClientId, line: &str) -> Reply {
        e.execute(c, split_args(line).unwrap_or_default())
    }

    fn bulk(s: &str) -> Reply {
        Reply::bulk(s.as_bytes())
    }

    /// XINFO STREAM FULL with the consumers' seen-times blanked: a replica creates
    /// consumers when it replays, so their seen-time is its own clock's (in Redis too).
    fn full_info(e: &mut Engine, c: ClientId, key: &str) -> Reply {
        fn mask(r: Reply) -> Reply {
            match r {
                Reply::Map(pairs) => Reply::Map(
                    pairs
                        .into_iter()
                        .map(|(k, v)| {
                            if k == Reply::bulk(b"seen-time") {
                                (k, Reply::Integer(0))
                            } else {
                                (k, mask(v))
                            }
                        })
                        .collect(),
                ),
                Reply::Array(items) => Reply::Array(items.into_iter().map(mask).collect()),
                other => other,
            }
        }
        mask(run(e, c, &format!("XINFO STREAM {key} FULL COUNT 0")))
    }

    #[test]
    fn replaying_the_effects_rebuilds_streams_groups_and_pending_lists() {
        let (mut e, clock) = engine();
        let (a, b) = (e.connect(), e.connect());
        let script = [
            "XADD s * f 1",
            "XADD s * f 2",
            "XADD s 1700000000500-* f 3",
            "XGROUP CREATE s g 0",
            "XGROUP CREATE s g2 $ ENTRIESREAD 3",
            "XGROUP CREATE other g 0 MKSTREAM",
            "XREADGROUP GROUP g alice COUNT 2 STREAMS s >",
            "XREADGROUP GROUP g neo NOACK STREAMS s >",
            "XADD s * f 4",
            "XREADGROUP GROUP g bob STREAMS s >",
            "XREADGROUP GROUP g alice STREAMS s 0",
            "XCLAIM s g carol 10 1700000000100-0 IDLE 500",
            "XCLAIM s g carol 0 1700000000200-0 RETRYCOUNT 7 LASTID 9999999999999-0",
            "XCLAIM s g2 carol 0 1700000000100-0 FORCE JUSTID",
            "XDEL s 1700000000200-0",
            "XAUTOCLAIM s g dave 0 0 COUNT 2",
            "XACK s g 1700000000500-0",
            "XGROUP CREATECONSUMER s g erin",
            "XGROUP DELCONSUMER s g bob",
            "XGROUP SETID s g2 0 ENTRIESREAD 0",
            "XADD s MAXLEN ~ 1 * f 5",
            "XTRIM s MINID = 0",
            "XSETID s 99999999999999-0 ENTRIESADDED 100 MAXDELETEDID 5-0",
            "XADD s * f 6",
        ];
        for line in script {
            clock.advance_ms(100);
            let r = run(&mut e, a, line);
            assert!(!r.is_error(), "{line}: {r:?}");
        }
        // A blocked group read served by another client's XADD.
        e.submit(
            a,
            split_args("XREADGROUP GROUP g frank BLOCK 0 STREAMS s >").unwrap(),
        );
        clock.advance_ms(100);
        run(&mut e, b, "XADD s * f 7");
        assert!(!e.is_blocked(a));
        let effects = e.take_effects();
        assert!(effects
            .iter()
            .all(|fx| !fx.argv[0].eq_ignore_ascii_case(b"XREADGROUP")));
        // The replica replays later: XCLAIM's TIME is never in its future.
        let (mut r, rclock) = engine();
        rclock.set_ms(T0 + 10_000);
        let c = r.connect();
        for fx in &effects {
            run(&mut r, c, &format!("SELECT {}", fx.db));
            let reply = r.execute(c, fx.argv.clone());
            assert!(!reply.is_error(), "{:?}: {reply:?}", fx.argv);
        }
        run(&mut r, c, "SELECT 0");
        for key in ["s", "other"] {
            assert_eq!(
                full_info(&mut e, a, key),
                full_info(&mut r, c, key),
                "{key}"
            );
        }
    }

    #[test]
    fn ids_stay_monotonic_when_the_clock_goes_back() {
        let (mut e, clock) = engine();
        let a = e.connect();
        assert_eq!(run(&mut e, a, "XADD s * a 1"), bulk("1700000000000-0"));
        clock.set_ms(T0 - 5_000);
        assert_eq!(run(&mut e, a, "XADD s * a 1"), bulk("1700000000000-1"));
        clock.set_ms(T0 + 1);
        assert_eq!(run(&mut e, a, "XADD s * a 1"), bulk("1700000000001-0"));
    }

    #[test]
    fn idle_times_come_from_the_clock() {
        let (mut e, clock) = engine();
        let a = e.connect();
        run(&mut e, a, "XADD s 1-0 f v");
        run(&mut e, a, "XADD s 2-0 f v");
        run(&mut e, a, "XGROUP CREATE s g 0");
        run(&mut e, a, "XREADGROUP GROUP g c STREAMS s >");
        clock.advance_ms(1500);
        let want = Reply::Array(vec![Reply::Array(vec![
            bulk("1-0"),
            bulk("c"),
            Reply::Integer(1500),
            Reply::Integer(1),
        ])]);
        assert_eq!(run(&mut e, a, "XPENDING s g - + 1"), want);
        assert_eq!(
            run(&mut e, a, "XPENDING s g IDLE 1501 - + 10"),
            Reply::Array(vec![])
        );
        let consumers = run(&mut e, a, "XINFO CONSUMERS s g");
        assert_eq!(
            consumers,
            Reply::Array(vec![Reply::Map(vec![
                (bulk("name"), bulk("c")),
                (bulk("pending"), Reply::Integer(2)),
                (bulk("idle"), Reply::Integer(1500)),
            ])])
        );
        // Claimed with IDLE 300: 300 ms idle now, and two deliveries.
        run(&mut e, a, "XCLAIM s g d 1000 1-0 IDLE 300 JUSTID");
        let Reply::Array(rows) = run(&mut e, a, "XPENDING s g - + 1") else {
            panic!()
        };
        assert_eq!(
            rows[0],
            Reply::Array(vec![
                bulk("1-0"),
                bulk("d"),
                Reply::Integer(300),
                Reply::Integer(1)
            ])
        );
        // TIME in the future is clamped to now.
        run(&mut e, a, "XCLAIM s g d 0 2-0 TIME 99999999999999");
        let Reply::Array(rows) = run(&mut e, a, "XPENDING s g - + 10 d") else {
            panic!()
        };
        assert_eq!(
            rows[1],
            Reply::Array(vec![
                bulk("2-0"),
                bulk("d"),
                Reply::Integer(0),
                Reply::Integer(2)
            ])
        );
    }

    #[test]
    fn blocked_readers_time_out_and_are_served_in_order() {
        let (mut e, clock) = engine();
        let (a, b, c) = (e.connect(), e.connect(), e.connect());
        e.submit(a, split_args("XREAD BLOCK 1000 STREAMS s $").unwrap());
        e.submit(b, split_args("XREAD BLOCK 0 STREAMS s $").unwrap());
        clock.advance_ms(1001);
        e.expire_blocked();
        assert_eq!(e.take_pushes(a), vec![Reply::NilArray]);
        assert!(e.is_blocked(b));
        run(&mut e, c, "XADD s 1-0 f v");
        assert_eq!(
            e.take_pushes(b),
            vec![Reply::Array(vec![Reply::Array(vec![
                bulk("s"),
                Reply::Array(vec![Reply::Array(vec![
                    bulk("1-0"),
                    Reply::Array(vec![bulk("f"), bulk("v")])
                ])])
            ])])]
        );
    }

    #[test]
    fn huge_and_odd_arguments_do_not_panic() {
        let (mut e, _) = engine();
        let a = e.connect();
        for line in [
            "XADD s 18446744073709551615-18446744073709551615 a b",
            "XADD s * a b",
            "XRANGE s - + COUNT 9223372036854775807",
            "XREVRANGE s + - COUNT 9223372036854775807",
            "XREAD COUNT 9223372036854775807 STREAMS s 0",
            "XREAD BLOCK 9223372036854775807 STREAMS s $",
            "XTRIM s MAXLEN ~ 0 LIMIT 9223372036854775807",
            "XTRIM s MINID 18446744073709551615-18446744073709551615",
            "XGROUP CREATE s g 18446744073709551615-18446744073709551615",
            "XREADGROUP GROUP g c COUNT 9223372036854775807 STREAMS s 0",
            "XAUTOCLAIM s g c 9223372036854775807 0 COUNT 576460752303423487",
            "XCLAIM s g c -9223372036854775808 1-1 IDLE -9223372036854775808 RETRYCOUNT 9223372036854775807",
            "XCLAIM s g c 0 1-1 TIME -9223372036854775808 FORCE",
            "XPENDING s g IDLE -9223372036854775808 - + 9223372036854775807",
            "XINFO STREAM s FULL COUNT 9223372036854775807",
            "XSETID s 18446744073709551615-18446744073709551615 ENTRIESADDED 9223372036854775807",
            "XADD s MAXLEN 9223372036854775807 * a b",
        ] {
            run(&mut e, a, line);
        }
    }
}
