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
use crate::engine::core::ctx::Site;
use crate::engine::core::dispatch::{call, Mode};
use crate::engine::core::waiters::{Readiness, Waiters};
use crate::engine::error::{CmdResult, Error};
use crate::engine::longdouble::LongDouble;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::list::End;
use crate::engine::types::Value;
use crate::engine::{Ctx, Reply, Server};

const WB: Flags = Flags::WRITE.union(Flags::NOSCRIPT).union(Flags::BLOCKING);
const WDB: Flags = WB.union(Flags::DENYOOM);

/// The blocking list commands (group `list`).
pub const LIST_COMMANDS: &[Command] = &[
    Command::new("blmove", 6, Group::List, blmove)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "RW insert")])
        .flags(WDB)
        .doc(
            "source destination LEFT | RIGHT LEFT | RIGHT timeout",
            "Pops an element from a list, pushes it to another list and returns it; blocks until an element is available otherwise.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("blmpop", -5, Group::List, blmpop)
        .key_specs(&[KeySpec::index(2, "RW access delete").keynum(0, 1, 1)])
        .flags(Flags::WRITE.union(Flags::BLOCKING))
        .doc(
            "timeout numkeys key [key ...] LEFT | RIGHT [COUNT count]",
            "Pops elements from the first non-empty list among several keys; blocks until one is available otherwise.",
            "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
            "7.0.0",
        ),
    Command::new("blpop", -3, Group::List, blpop)
        .key_specs(&[KeySpec::index(1, "RW access delete").range(-2, 1, 0)])
        .flags(WB)
        .doc(
            "key [key ...] timeout",
            "Removes and returns the first element of the first non-empty list; blocks until one is available otherwise.",
            "O(N) where N is the number of provided keys.",
            "2.0.0",
        ),
    Command::new("brpop", -3, Group::List, brpop)
        .key_specs(&[KeySpec::index(1, "RW access delete").range(-2, 1, 0)])
        .flags(WB)
        .doc(
            "key [key ...] timeout",
            "Removes and returns the last element of the first non-empty list; blocks until one is available otherwise.",
            "O(N) where N is the number of provided keys.",
            "2.0.0",
        ),
    Command::new("brpoplpush", 4, Group::List, brpoplpush)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "RW insert")])
        .flags(WDB)
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
        .key_specs(&[KeySpec::index(2, "RW access delete").keynum(0, 1, 1)])
        .flags(Flags::WRITE.union(Flags::BLOCKING))
        .doc(
            "timeout numkeys key [key ...] MIN | MAX [COUNT count]",
            "Removes and returns members by score from one or more sorted sets; blocks until one is available otherwise.",
            "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
            "7.0.0",
        ),
    Command::new("bzpopmax", -3, Group::SortedSet, bzpopmax)
        .key_specs(&[KeySpec::index(1, "RW access delete").range(-2, 1, 0)])
        .flags(WB.union(Flags::FAST))
        .doc(
            "key [key ...] timeout",
            "Removes and returns the member with the highest score from one or more sorted sets; blocks until one is available otherwise.",
            "O(log(N)) with N being the number of elements in the sorted set.",
            "5.0.0",
        ),
    Command::new("bzpopmin", -3, Group::SortedSet, bzpopmin)
        .key_specs(&[KeySpec::index(1, "RW access delete").range(-2, 1, 0)])
        .flags(WB.union(Flags::FAST))
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
        return Err(Error::TimeoutNegative);
    }
    Ok((ms > 0).then(|| ms.saturating_add(now_ms)))
}

/// Parses a timeout in milliseconds (an integer) into an absolute deadline (`None`:
/// forever), as Redis's `getTimeoutFromObjectOrReply` with `UNIT_MILLISECONDS` (`XREAD …
/// BLOCK`, `WAIT`).
pub fn parse_timeout_ms(arg: &[u8], now_ms: i64) -> CmdResult<Option<i64>> {
    let ms = parse_i64(arg).ok_or(Error::TimeoutNotInteger)?;
    if ms < 0 {
        return Err(Error::TimeoutNegative);
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
            return Ok(serve(ctx.site(), &op, key));
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
fn serve(site: Site<'_>, op: &BlockOp, key: &[u8]) -> Reply {
    let argv = op.equivalent(key);
    let Some(cmd) = argv.first().and_then(|n| site.table.lookup(n)) else {
        return Reply::NilArray;
    };
    let reply = call(site, cmd, 1, argv, Mode::SERVE_BLOCKED)
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

/// The list and sorted-set family of blocked clients (`BLPOP`, `BLMOVE`, `BLMPOP`,
/// `BZPOPMIN`, `BZMPOP` & co.): a ready key serves its waiters while it holds the type they
/// pop from; a key that is gone ends the look at its queue.
pub struct ListsAndZsets;

/// The one [`ListsAndZsets`], handed to the engine in [`crate::engine::table::WAITERS`].
pub const LISTS_AND_ZSETS: ListsAndZsets = ListsAndZsets;

impl Waiters for ListsAndZsets {
    fn serves(&self, op: &BlockOp) -> bool {
        matches!(
            op,
            BlockOp::Pop { .. }
                | BlockOp::Move { .. }
                | BlockOp::MPop { .. }
                | BlockOp::ZPop { .. }
                | BlockOp::ZMPop { .. }
        )
    }

    fn readiness(&self, srv: &Server, db: usize, key: &[u8], op: &BlockOp) -> Readiness {
        match srv.dbs.get(db).and_then(|d| d.get_raw(key)) {
            None => Readiness::Gone,
            Some(e) => match (&e.value, op.wants_zset()) {
                (Value::List(_), false) | (Value::ZSet(_), true) => Readiness::Serve,
                _ => Readiness::Wait,
            },
        }
    }

    fn serve(&self, site: Site<'_>, key: &[u8], op: &BlockOp) -> Reply {
        serve(site, op, key)
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

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::testing::{effects, engine, run, verbatim, T0};
    use crate::engine::{ClientId, Engine, Interrupted, Reply};

    fn submit(e: &mut Engine, c: ClientId, line: &str) {
        e.submit(c, split_args(line).unwrap_or_default());
    }

    #[test]
    fn served_commands_replay_as_their_non_blocking_equivalents() {
        let (mut e, _) = engine();
        let (a, b) = (e.connect(), e.connect());
        run(&mut e, b, "RPUSH l x y z");
        run(&mut e, b, "ZADD z 1 a 2 b 3 c");
        e.take_effects();
        for (line, want) in [
            ("BLPOP l 0", "LPOP l"),
            ("BRPOP l 0", "RPOP l"),
            ("BLMOVE l d LEFT RIGHT 0", "LMOVE l d LEFT RIGHT"),
            ("BZPOPMIN z 0", "ZPOPMIN z"),
            ("BZMPOP 0 1 z MAX COUNT 5", "ZPOPMAX z 2"),
        ] {
            run(&mut e, a, line);
            assert_eq!(effects(&mut e), [want], "{line}");
        }
        // Served later, by another client's push: the push, then the pop.
        submit(&mut e, a, "BRPOPLPUSH src dst 0");
        submit(&mut e, b, "RPUSH src v");
        assert_eq!(effects(&mut e), ["RPUSH src v", "LMOVE src dst RIGHT LEFT"]);
        submit(&mut e, a, "BLMPOP 0 1 m LEFT COUNT 3");
        submit(&mut e, b, "RPUSH m 1 2");
        assert_eq!(effects(&mut e), ["RPUSH m 1 2", "LPOP m 3"]);
        // Nothing served, nothing recorded.
        submit(&mut e, a, "BLPOP none 1");
        assert!(effects(&mut e).is_empty());
    }

    #[test]
    fn client_list_shows_blocked_clients_and_disconnect_leaves_nothing() {
        let (mut e, _) = engine();
        let (a, b) = (e.connect(), e.connect());
        submit(&mut e, a, "BLPOP k1 k2 k1 5");
        assert!(e.is_blocked(a));
        let list = verbatim(&mut e, b, "CLIENT LIST");
        let line = list.lines().next().unwrap();
        assert!(line.contains(" flags=b "), "{line}");
        assert!(line.contains(" cmd=blpop "), "{line}");
        assert_eq!(e.next_timeout_ms(), Some(T0 + 5_001));
        assert_eq!(e.server().blocking_keys.len(), 2);
        e.disconnect(a);
        assert!(e.server().blocking_keys.is_empty());
        assert_eq!(e.server().blocking.count(), 0);
        assert_eq!(e.next_timeout_ms(), None);
        assert_eq!(run(&mut e, b, "RPUSH k1 v"), Reply::Integer(1));
        assert_eq!(run(&mut e, b, "LLEN k1"), Reply::Integer(1));
    }

    #[test]
    fn timeouts_round_up_and_fire_strictly_after_the_deadline() {
        let (mut e, clock) = engine();
        let (a, b) = (e.connect(), e.connect());
        submit(&mut e, a, "BLPOP k 0x1p-4");
        assert_eq!(e.next_timeout_ms(), Some(T0 + 63 + 1));
        clock.advance_ms(63);
        assert_eq!(e.expire_blocked(), 0);
        clock.advance_ms(1);
        assert_eq!(e.expire_blocked(), 1);
        assert_eq!(e.take_pushes(a), vec![Reply::NilArray]);
        // RESP3: the null, `_`.
        run(&mut e, b, "HELLO 3");
        submit(&mut e, b, "BZPOPMIN z 0.001");
        clock.advance_ms(5);
        e.tick();
        let pushed = e.take_pushes(b);
        assert_eq!(pushed, vec![Reply::NilArray]);
        assert_eq!(pushed[0].to_resp(3), b"_\r\n");
        // A tiny negative timeout rounds up to 0: forever.
        submit(&mut e, a, "BLPOP k -0.0001");
        assert!(e.is_blocked(a));
        assert_eq!(e.next_timeout_ms(), None);
    }

    #[test]
    fn a_blocked_client_that_is_killed_or_unblocked_runs_nothing_more_or_its_queue() {
        let (mut e, _) = engine();
        let (a, b) = (e.connect(), e.connect());
        submit(&mut e, a, "BLPOP k 0");
        submit(&mut e, a, "SET after 1");
        assert_eq!(run(&mut e, b, "EXISTS after"), Reply::Integer(0));
        assert_eq!(
            run(&mut e, b, &format!("CLIENT UNBLOCK {a}")),
            Reply::Integer(1)
        );
        assert_eq!(e.take_pushes(a), vec![Reply::NilArray, Reply::ok()]);
        assert_eq!(run(&mut e, b, "EXISTS after"), Reply::Integer(1));
        submit(&mut e, a, "BLPOP k 0");
        submit(&mut e, a, "SET later 1");
        assert_eq!(
            run(&mut e, b, &format!("CLIENT KILL ID {a}")),
            Reply::Integer(1)
        );
        assert!(e.client(a).is_some_and(|c| c.close_asap));
        assert!(e.clients_with_pushes().contains(&a));
        assert!(!e.is_blocked(a));
        run(&mut e, b, "RPUSH k v");
        assert_eq!(run(&mut e, b, "EXISTS later"), Reply::Integer(0));
        assert_eq!(run(&mut e, b, "LLEN k"), Reply::Integer(1));
    }

    #[test]
    fn an_interrupted_client_stops_waiting_and_takes_nothing_pushed_later() {
        let (mut e, _) = engine();
        let (a, b) = (e.connect(), e.connect());
        submit(&mut e, a, "SELECT 3");
        e.take_pushes(a);
        submit(&mut e, a, "BLPOP k 0");
        submit(&mut e, a, "SET typed-while-blocked 1");
        let stopped = e.interrupt(a);
        assert!(stopped.blocked && !stopped.subscribed && stopped.any());
        assert!(!e.is_blocked(a));
        run(&mut e, b, "SELECT 3");
        run(&mut e, b, "LPUSH k v");
        assert_eq!(run(&mut e, b, "LLEN k"), Reply::Integer(1));
        assert_eq!(
            run(&mut e, b, "EXISTS typed-while-blocked"),
            Reply::Integer(0)
        );
        assert_eq!(e.take_pushes(a), Vec::<Reply>::new());
        // The same client, in the same database, answers again.
        assert_eq!(run(&mut e, a, "LLEN k"), Reply::Integer(1));
        assert_eq!(e.client(a).map(|c| c.db), Some(3));

        submit(&mut e, a, "XREAD BLOCK 0 STREAMS s $");
        assert!(e.interrupt(a).blocked);
        run(&mut e, b, "XADD s * f v");
        assert_eq!(e.take_pushes(a), Vec::<Reply>::new());

        submit(&mut e, a, "SUBSCRIBE ch");
        submit(&mut e, a, "PSUBSCRIBE p*");
        e.take_pushes(a);
        assert_eq!(
            e.interrupt(a),
            Interrupted {
                subscribed: true,
                ..Interrupted::default()
            }
        );
        assert_eq!(run(&mut e, b, "PUBLISH ch hi"), Reply::Integer(0));
        assert_eq!(run(&mut e, a, "PING"), Reply::Status("PONG".into()));

        submit(&mut e, a, "MONITOR");
        e.take_pushes(a);
        assert!(e.interrupt(a).monitor);
        run(&mut e, b, "PING");
        assert_eq!(e.take_pushes(a), Vec::<Reply>::new());
        assert!(!e.interrupt(a).any());
    }

    #[test]
    fn client_kill_forms() {
        let (mut e, _) = engine();
        let a = e.connect_from("10.0.0.1:1000", "127.0.0.1:6379");
        let b = e.connect_from("10.0.0.2:2000", "127.0.0.1:6379");
        let err = |s: &str| Reply::Error(s.to_string());
        assert_eq!(
            run(&mut e, a, "CLIENT KILL 1.2.3.4:5"),
            err("ERR No such client")
        );
        assert_eq!(
            run(&mut e, a, "CLIENT KILL ID 0"),
            err("ERR client-id should be greater than 0")
        );
        assert_eq!(
            run(&mut e, a, "CLIENT KILL TYPE foo"),
            err("ERR Unknown client type 'foo'")
        );
        assert_eq!(
            run(&mut e, a, "CLIENT KILL USER nobody"),
            err("ERR No such user 'nobody'")
        );
        assert_eq!(
            run(&mut e, a, "CLIENT KILL ID 1 ADDR"),
            err("ERR syntax error")
        );
        // SKIPME yes by default: the caller is spared.
        assert_eq!(run(&mut e, a, "CLIENT KILL TYPE pubsub"), Reply::Integer(0));
        assert_eq!(
            run(&mut e, a, "CLIENT KILL LADDR 127.0.0.1:6379 SKIPME yes"),
            Reply::Integer(1)
        );
        assert!(e.client(b).is_some_and(|c| c.close_asap));
        // The old form may kill the caller itself, after its reply.
        assert_eq!(run(&mut e, a, "CLIENT KILL 10.0.0.1:1000"), Reply::ok());
        assert!(e.client(a).is_some_and(|c| c.close_after_reply));
    }

    #[test]
    fn monitor_lines_follow_redis_format() {
        let (mut e, _) = engine();
        let m = e.connect();
        let c = e.connect_from("127.0.0.1:5555", "127.0.0.1:6379");
        assert_eq!(run(&mut e, m, "MONITOR"), Reply::ok());
        run(&mut e, c, "set a \"b\\n\"");
        run(&mut e, c, "CONFIG GET maxmemory");
        run(&mut e, c, "MULTI");
        run(&mut e, c, "SELECT 3");
        run(&mut e, c, "EXEC");
        run(&mut e, c, "NOSUCH");
        let lines: Vec<Reply> = e.take_pushes(m);
        let want = [
            "1700000000.000000 [0 127.0.0.1:5555] \"set\" \"a\" \"b\\n\"",
            "1700000000.000000 [0 127.0.0.1:5555] \"MULTI\"",
            "1700000000.000000 [3 127.0.0.1:5555] \"SELECT\" \"3\"",
            "1700000000.000000 [3 127.0.0.1:5555] \"EXEC\"",
        ];
        assert_eq!(
            lines,
            want.iter().map(|l| Reply::status(*l)).collect::<Vec<_>>()
        );
        // A second MONITOR replies nothing at all; RESET ends the mode.
        submit(&mut e, m, "MONITOR");
        assert!(e.take_pushes(m).is_empty());
        assert!(verbatim(&mut e, m, "CLIENT INFO").contains(" flags=O "));
        run(&mut e, m, "RESET");
        e.take_pushes(m);
        run(&mut e, c, "PING");
        assert!(e.take_pushes(m).is_empty());
    }
}
