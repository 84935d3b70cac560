//! The blocking commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX,
//! BZMPOP (Redis 7.0 semantics).
//!
//! Each parses its arguments (the timeout where Redis parses it: first for most, after the
//! directions for `BLMOVE`), then looks at its keys in order. The first key holding data
//! serves the client at once; a key of another type is `WRONGTYPE`. If none has data, the
//! client blocks ([`Ctx::block`]): nothing is replied now, and the engine serves it later
//! (see [`crate::engine::blocking`]). Inside `MULTI`/`EXEC` nothing blocks: the command
//! replies as if it had timed out — a null array, or a null bulk for `BLMOVE` and
//! `BRPOPLPUSH`.
//!
//! Serving, now or later, runs the non-blocking equivalent (`serve`): its effect
//! (`LPOP key`, `LMOVE …`, `ZPOPMIN key`, `LPOP key count` for `BLMPOP`…) is what gets
//! recorded, as Redis propagates it.
//!
//! # Timeouts
//! Seconds, fractional allowed, parsed as a C `long double` like every Redis float
//! (`0x1p-4` and `-0.0001` included), multiplied by 1000 and rounded up to milliseconds.
//! `0` waits forever. Not a float: `ERR timeout is not a float or out of range`; below zero
//! *or too large for a 64-bit integer of milliseconds* (`inf`, `1e400`): `ERR timeout is
//! negative`, as Redis 7.0.15 says.

use crate::engine::args::{parse_i64, Args};
use crate::engine::blocking::BlockOp;
use crate::engine::error::{CmdResult, Error};
use crate::engine::longdouble::LongDouble;
use crate::engine::table::{self, Command, Flags, Group};
use crate::engine::types::list::End;
use crate::engine::types::Value;
use crate::engine::{call_inner, Client, ClientId, Ctx, Reply, Server};

use foldhash::HashMap;

const WB: Flags = Flags::WRITE.union(Flags::NOSCRIPT).union(Flags::BLOCKING);
const WDB: Flags = WB.union(Flags::DENYOOM);

/// The blocking list commands (group `list`).
pub const LIST_COMMANDS: &[Command] = &[
    Command::new("blmove", 6, Group::List, blmove)
        .flags(WDB)
        .keys(1, 2, 1)
        .doc(
            "source destination LEFT | RIGHT LEFT | RIGHT timeout",
            "Pops an element from a list, pushes it to another list and returns it; blocks until an element is available otherwise.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("blmpop", -5, Group::List, blmpop)
        .flags(Flags::WRITE.union(Flags::BLOCKING).union(Flags::MOVABLE_KEYS))
        .doc(
            "timeout numkeys key [key ...] LEFT | RIGHT [COUNT count]",
            "Pops elements from the first non-empty list among several keys; blocks until one is available otherwise.",
            "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
            "7.0.0",
        ),
    Command::new("blpop", -3, Group::List, blpop)
        .flags(WB)
        .keys(1, -2, 1)
        .doc(
            "key [key ...] timeout",
            "Removes and returns the first element of the first non-empty list; blocks until one is available otherwise.",
            "O(N) where N is the number of provided keys.",
            "2.0.0",
        ),
    Command::new("brpop", -3, Group::List, brpop)
        .flags(WB)
        .keys(1, -2, 1)
        .doc(
            "key [key ...] timeout",
            "Removes and returns the last element of the first non-empty list; blocks until one is available otherwise.",
            "O(N) where N is the number of provided keys.",
            "2.0.0",
        ),
    Command::new("brpoplpush", 4, Group::List, brpoplpush)
        .flags(WDB)
        .keys(1, 2, 1)
        .doc(
            "source destination timeout",
            "Pops an element from a list, pushes it to another list and returns it; blocks until an element is available otherwise.",
            "O(1)",
            "2.2.0",
        ),
];

/// The blocking sorted-set commands (group `sorted_set`).
pub const ZSET_COMMANDS: &[Command] = &[
    Command::new("bzmpop", -5, Group::SortedSet, bzmpop)
        .flags(Flags::WRITE.union(Flags::BLOCKING).union(Flags::MOVABLE_KEYS))
        .doc(
            "timeout numkeys key [key ...] MIN | MAX [COUNT count]",
            "Removes and returns members by score from one or more sorted sets; blocks until one is available otherwise.",
            "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
            "7.0.0",
        ),
    Command::new("bzpopmax", -3, Group::SortedSet, bzpopmax)
        .flags(WB.union(Flags::FAST))
        .keys(1, -2, 1)
        .doc(
            "key [key ...] timeout",
            "Removes and returns the member with the highest score from one or more sorted sets; blocks until one is available otherwise.",
            "O(log(N)) with N being the number of elements in the sorted set.",
            "5.0.0",
        ),
    Command::new("bzpopmin", -3, Group::SortedSet, bzpopmin)
        .flags(WB.union(Flags::FAST))
        .keys(1, -2, 1)
        .doc(
            "key [key ...] timeout",
            "Removes and returns the member with the lowest score from one or more sorted sets; blocks until one is available otherwise.",
            "O(log(N)) with N being the number of elements in the sorted set.",
            "5.0.0",
        ),
];

/// Parses a timeout in seconds into an absolute deadline (`None`: forever), as Redis's
/// `getTimeoutFromObjectOrReply` with `UNIT_SECONDS`. See the module documentation.
pub fn parse_timeout(arg: &[u8], now_ms: i64) -> CmdResult<Option<i64>> {
    let v = LongDouble::parse(arg)
        .ok_or_else(|| Error::Err("timeout is not a float or out of range".into()))?;
    let ms = v.mul_ceil_to_i64(1000);
    if ms < 0 {
        return Err(Error::Err("timeout is negative".into()));
    }
    Ok((ms > 0).then(|| ms.saturating_add(now_ms)))
}

/// What the caller of a key-by-key check found.
enum Found {
    /// The key holds data of the wanted type.
    Data,
    /// Nothing there.
    Nothing,
}

/// Looks `key` up for a blocking command: data of the wanted type, nothing, or WRONGTYPE.
fn probe(ctx: &mut Ctx<'_>, key: &[u8], zset: bool) -> CmdResult<Found> {
    match ctx.lookup_write(key).map(|e| &e.value) {
        None => Ok(Found::Nothing),
        Some(Value::List(_)) if !zset => Ok(Found::Data),
        Some(Value::ZSet(_)) if zset => Ok(Found::Data),
        Some(_) => Err(Error::WrongType),
    }
}

/// Serves at once from the first of `keys` with data, or blocks (or, inside EXEC, replies
/// `denied`).
fn serve_or_block(
    ctx: &mut Ctx<'_>,
    keys: Vec<Vec<u8>>,
    deadline: Option<i64>,
    op: BlockOp,
    denied: Reply,
) -> CmdResult {
    let zset = op.wants_zset();
    for key in &keys {
        if let Found::Data = probe(ctx, key, zset)? {
            let now = ctx.now_ms;
            return Ok(serve(
                &mut *ctx.srv,
                &mut *ctx.client,
                &mut *ctx.others,
                &op,
                key,
                now,
            ));
        }
    }
    if ctx.deny_blocking {
        return Ok(denied);
    }
    ctx.block(keys, deadline, op);
    Ok(Reply::NilArray)
}

/// Performs `op` on `key` for `client` by running its non-blocking equivalent (see
/// [`BlockOp::equivalent`]) and shapes the reply as the blocking command replies. The
/// caller checked that `key` holds data of the right type.
pub(crate) fn serve(
    srv: &mut Server,
    client: &mut Client,
    others: &mut HashMap<ClientId, Client>,
    op: &BlockOp,
    key: &[u8],
    now_ms: i64,
) -> Reply {
    let argv = op.equivalent(key);
    let Some(cmd) = argv.first().and_then(|n| table::lookup(n)) else {
        return Reply::NilArray;
    };
    let reply = call_inner(srv, client, others, cmd, 1, argv, now_ms, true, false)
        .into_iter()
        .next()
        .unwrap_or(Reply::NilArray);
    match (op, reply) {
        (_, e @ Reply::Error(_)) => e,
        (BlockOp::Pop { .. }, Reply::Bulk(v)) => {
            Reply::Array(vec![Reply::bulk(key), Reply::Bulk(v)])
        }
        (BlockOp::ZPop { .. }, Reply::Array(mut items)) if items.len() == 2 => {
            items.insert(0, Reply::bulk(key));
            Reply::Array(items)
        }
        (_, r) => r,
    }
}

/// The keys of `BLPOP`-shaped commands: every argument but the last.
fn keys_then_timeout(ctx: &Ctx<'_>, args: &mut Args) -> CmdResult<(Vec<Vec<u8>>, Option<i64>)> {
    let mut rest = args.rest();
    let timeout = rest.pop().ok_or_else(|| Error::WrongArity(args.name()))?;
    Ok((rest, parse_timeout(&timeout, ctx.now_ms)?))
}

/// `BLPOP key [key ...] timeout`: pops the head of the first non-empty list among the keys
/// and replies `[key, element]`; with none, blocks up to `timeout` seconds (0: forever) and
/// replies a null array on timeout. The timeout is parsed first; a key of another type
/// before the first list is WRONGTYPE. O(N) in the keys.
fn blpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (keys, deadline) = keys_then_timeout(ctx, args)?;
    serve_or_block(
        ctx,
        keys,
        deadline,
        BlockOp::Pop { end: End::Left },
        Reply::NilArray,
    )
}

/// `BRPOP key [key ...] timeout`: as BLPOP, from the tail.
fn brpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (keys, deadline) = keys_then_timeout(ctx, args)?;
    serve_or_block(
        ctx,
        keys,
        deadline,
        BlockOp::Pop { end: End::Right },
        Reply::NilArray,
    )
}

/// `BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout`: LMOVE, blocking while
/// `source` is empty. The directions are parsed before the timeout (syntax error first).
/// A destination of another type is WRONGTYPE when the move happens. O(1).
fn blmove(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let src = args.next_owned()?;
    let dst = args.next_owned()?;
    let from = End::parse(args.next_bytes()?).ok_or(Error::Syntax)?;
    let to = End::parse(args.next_bytes()?).ok_or(Error::Syntax)?;
    let deadline = parse_timeout(args.next_bytes()?, ctx.now_ms)?;
    serve_or_block(
        ctx,
        vec![src],
        deadline,
        BlockOp::Move { dst, from, to },
        Reply::Nil,
    )
}

/// `BRPOPLPUSH source destination timeout`: `BLMOVE source destination RIGHT LEFT`.
fn brpoplpush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let src = args.next_owned()?;
    let dst = args.next_owned()?;
    let deadline = parse_timeout(args.next_bytes()?, ctx.now_ms)?;
    let op = BlockOp::Move {
        dst,
        from: End::Right,
        to: End::Left,
    };
    serve_or_block(ctx, vec![src], deadline, op, Reply::Nil)
}

/// The `numkeys key [key ...] WHERE [COUNT count]` tail of BLMPOP and BZMPOP, with LMPOP's
/// and ZMPOP's errors. `where_` parses the direction word.
fn mpop_args<T>(
    args: &mut Args,
    where_: impl Fn(&[u8]) -> Option<T>,
) -> CmdResult<(Vec<Vec<u8>>, T, i64)> {
    let numkeys = parse_i64(args.next_bytes()?)
        .filter(|n| *n >= 1)
        .ok_or(Error::NumkeysNotPositive)?;
    if numkeys >= args.remaining() as i64 {
        return Err(Error::Syntax);
    }
    let mut keys = Vec::new();
    for _ in 0..numkeys {
        keys.push(args.next_owned()?);
    }
    let dir = where_(args.next_bytes()?).ok_or(Error::Syntax)?;
    let mut count = None;
    while !args.is_empty() {
        if count.is_none() && args.remaining() > 1 && args.eat("COUNT") {
            count = Some(
                parse_i64(args.next_bytes()?)
                    .filter(|n| *n >= 1)
                    .ok_or(Error::CountNotPositive)?,
            );
        } else {
            return Err(Error::Syntax);
        }
    }
    Ok((keys, dir, count.unwrap_or(1)))
}

/// `BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]`: LMPOP, blocking while
/// every list is empty. The timeout is parsed first, then LMPOP's arguments with its
/// errors. O(N + M).
fn blmpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let deadline = parse_timeout(args.next_bytes()?, ctx.now_ms)?;
    let (keys, end, count) = mpop_args(args, End::parse)?;
    serve_or_block(
        ctx,
        keys,
        deadline,
        BlockOp::MPop { end, count },
        Reply::NilArray,
    )
}

/// `BZPOPMIN key [key ...] timeout`: pops the lowest-scored member of the first non-empty
/// sorted set and replies `[key, member, score]`; blocks otherwise. O(log N).
fn bzpopmin(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (keys, deadline) = keys_then_timeout(ctx, args)?;
    serve_or_block(
        ctx,
        keys,
        deadline,
        BlockOp::ZPop { max: false },
        Reply::NilArray,
    )
}

/// `BZPOPMAX key [key ...] timeout`: as BZPOPMIN, for the highest score.
fn bzpopmax(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (keys, deadline) = keys_then_timeout(ctx, args)?;
    serve_or_block(
        ctx,
        keys,
        deadline,
        BlockOp::ZPop { max: true },
        Reply::NilArray,
    )
}

/// `BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]`: ZMPOP, blocking while every
/// sorted set is missing. O(K + M log N).
fn bzmpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let deadline = parse_timeout(args.next_bytes()?, ctx.now_ms)?;
    let (keys, max, count) = mpop_args(args, |w| {
        if w.eq_ignore_ascii_case(b"min") {
            Some(false)
        } else if w.eq_ignore_ascii_case(b"max") {
            Some(true)
        } else {
            None
        }
    })?;
    serve_or_block(
        ctx,
        keys,
        deadline,
        BlockOp::ZMPop { max, count },
        Reply::NilArray,
    )
}
