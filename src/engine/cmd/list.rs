//! The list group: every non-blocking list command of Redis 7.0.
//!
//! The representation and its costs are described in [`crate::engine::types::list`]. What
//! the handlers share:
//!
//! * **Order of checks.** Redis parses some arguments before it looks the key up and some
//!   after, and the order is visible (`LSET nokey x v` says "no such key", `LRANGE nokey x 1`
//!   says "not an integer"). Each handler follows Redis 7.0.15's order; the transcripts in
//!   `tests/transcripts/list.txt` pin it.
//! * **Empty lists vanish.** A command that removes the last element deletes the key.
//! * **Effects.** Every command replays as itself except `LMPOP`, which is recorded as the
//!   `LPOP`/`RPOP key count` it amounts to, as Redis propagates it. A command that changed
//!   nothing records nothing.
//! * **Events and WATCH.** Each change sends Redis's keyspace event (`lpush`, `rpop`,
//!   `linsert`, …; `LMOVE` sends the destination's push, then the source's pop), then `del`
//!   when the list emptied (`tests/transcripts/notify_collections.txt`). Modified keys are
//!   the table's key positions, except `LMPOP` and the no-op `LTRIM`, which signal their
//!   key themselves.
//! * **Blocking.** Every push calls [`Ctx::signal_ready`], the seam through which the
//!   blocking commands (`BLPOP`, `BLMOVE`, …, a later addition) learn that a key they wait on
//!   may now serve them.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::list::{End, ListValue};
use crate::engine::types::Value;
use crate::engine::{Ctx, Reply};

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WDF: Flags = Flags::WRITE.union(Flags::DENYOOM).union(Flags::FAST);
const RF: Flags = Flags::READONLY.union(Flags::FAST);

/// The list commands.
pub const COMMANDS: &[Command] = &[
    Command::new("lindex", 3, Group::List, lindex)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key index",
            "Returns the element at an index of a list; negative indexes count from the tail.",
            "O(1) here (Redis: O(N) in the index)",
            "1.0.0",
        ),
    Command::new("linsert", 5, Group::List, linsert)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WD)
        .doc(
            "key BEFORE | AFTER pivot element",
            "Inserts an element next to the first occurrence of a pivot element.",
            "O(N) in the elements scanned to find the pivot",
            "2.2.0",
        ),
    Command::new("llen", 2, Group::List, llen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc("key", "Returns the length of a list.", "O(1)", "1.0.0"),
    Command::new("lmove", 5, Group::List, lmove)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "RW insert")])
        .flags(WD)
        .doc(
            "source destination LEFT | RIGHT LEFT | RIGHT",
            "Pops an element from one end of a list and pushes it onto an end of another (or the same) list.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("lmpop", -4, Group::List, lmpop)
        .key_specs(&[KeySpec::index(1, "RW access delete").keynum(0, 1, 1)])
        .flags(W)
        .doc(
            "numkeys key [key ...] LEFT | RIGHT [COUNT count]",
            "Pops one or more elements from the first non-empty list among several keys.",
            "O(N + M): N keys tried, M elements popped",
            "7.0.0",
        ),
    Command::new("lpop", -2, Group::List, lpop)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns the first element(s) of a list.",
            "O(N) in the elements returned",
            "1.0.0",
        ),
    Command::new("lpos", -3, Group::List, lpos)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key element [RANK rank] [COUNT num-matches] [MAXLEN len]",
            "Returns the index (or indexes) of matching elements in a list.",
            "O(N) in the elements compared; MAXLEN bounds it",
            "6.0.6",
        ),
    Command::new("lpush", -3, Group::List, lpush)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WDF)
        .doc(
            "key element [element ...]",
            "Prepends elements to a list, creating it if needed.",
            "O(1) per element",
            "1.0.0",
        ),
    Command::new("lpushx", -3, Group::List, lpushx)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WDF)
        .doc(
            "key element [element ...]",
            "Prepends elements to a list only if the list already exists.",
            "O(1) per element",
            "2.2.0",
        ),
    Command::new("lrange", 4, Group::List, lrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start stop",
            "Returns the elements between two indexes of a list, both included.",
            "O(N) in the elements returned",
            "1.0.0",
        ),
    Command::new("lrem", 4, Group::List, lrem)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key count element",
            "Removes occurrences of an element: the first count, the last -count, or all for 0.",
            "O(N) in the length of the list",
            "1.0.0",
        ),
    Command::new("lset", 4, Group::List, lset)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WD)
        .doc(
            "key index element",
            "Replaces the element at an index of a list.",
            "O(1) here (Redis: O(N) in the index)",
            "1.0.0",
        ),
    Command::new("ltrim", 4, Group::List, ltrim)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key start stop",
            "Keeps only the elements between two indexes of a list, both included.",
            "O(N) in the elements removed",
            "1.0.0",
        ),
    Command::new("rpop", -2, Group::List, rpop)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns the last element(s) of a list.",
            "O(N) in the elements returned",
            "1.0.0",
        ),
    Command::new("rpoplpush", 3, Group::List, rpoplpush)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "RW insert")])
        .flags(WD)
        .doc(
            "source destination",
            "Pops the last element of a list and pushes it onto the head of another (the same as LMOVE source destination RIGHT LEFT).",
            "O(1)",
            "1.2.0",
        ),
    Command::new("rpush", -3, Group::List, rpush)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WDF)
        .doc(
            "key element [element ...]",
            "Appends elements to a list, creating it if needed.",
            "O(1) per element",
            "1.0.0",
        ),
    Command::new("rpushx", -3, Group::List, rpushx)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WDF)
        .doc(
            "key element [element ...]",
            "Appends elements to a list only if the list already exists.",
            "O(1) per element",
            "2.2.0",
        ),
];

// ---------------------------------------------------------------------------------------
// Key access
// ---------------------------------------------------------------------------------------

/// The list at `key` for reading: `None` if absent, `WRONGTYPE` if not a list.
fn read_list<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c ListValue>> {
    ctx.read_as(key, Value::as_list)
}

/// The list at `key` for writing: `None` if absent, `WRONGTYPE` if not a list.
fn write_list<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c mut ListValue>> {
    ctx.write_as(key, Value::as_list_mut)
}

/// Pushes `values` one by one at `end` of the list at `key`, creating the list when
/// `create` (else doing nothing for a missing key). Returns the new length, or `None` when
/// the key was missing and not created. Counts the changes, sends the `new` and
/// `lpush`/`rpush` events and signals waiters.
fn push_values(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    end: End,
    values: Vec<Vec<u8>>,
    create: bool,
) -> CmdResult<Option<usize>> {
    let pushed = values.len();
    let len = match write_list(ctx, key)? {
        Some(list) => {
            for v in values {
                list.push(end, v);
            }
            list.len()
        }
        None if create => {
            let mut list = ListValue::new();
            for v in values {
                list.push(end, v);
            }
            let len = list.len();
            let now = ctx.now_ms;
            ctx.db().set(key, Value::List(list), false, now);
            ctx.notify(class::NEW, "new", key);
            len
        }
        None => return Ok(None),
    };
    ctx.dirty += pushed as u64;
    ctx.notify(class::LIST, push_event(end), key);
    ctx.signal_ready(key);
    Ok(Some(len))
}

/// The keyspace event of a push at `end`: `lpush` or `rpush`.
fn push_event(end: End) -> &'static str {
    match end {
        End::Left => "lpush",
        End::Right => "rpush",
    }
}

/// The keyspace event of a pop at `end`: `lpop` or `rpop`.
fn pop_event(end: End) -> &'static str {
    match end {
        End::Left => "lpop",
        End::Right => "rpop",
    }
}

/// Parses `LEFT`/`RIGHT`, or a syntax error.
fn parse_end(arg: &[u8]) -> CmdResult<End> {
    End::parse(arg).ok_or(Error::Syntax)
}

/// Parses an integer argument.
fn int_arg(arg: &[u8]) -> CmdResult<i64> {
    parse_i64(arg).ok_or(Error::NotInteger)
}

// ---------------------------------------------------------------------------------------
// Push
// ---------------------------------------------------------------------------------------

/// Shared body of the four push commands: `key element [element ...]`, replying with the
/// length after the push (0 when an `…X` variant finds no list).
fn push_command(ctx: &mut Ctx<'_>, args: &mut Args, end: End, create: bool) -> CmdResult {
    let (key, rest) = args.split_next()?;
    // Copied, not taken: the command's own argv is its effect.
    let len = push_values(ctx, key, end, rest.to_vec(), create)?;
    Ok(Reply::Integer(len.unwrap_or(0) as i64))
}

/// `LPUSH key element [element ...]`: inserts each element at the head in turn (so
/// `LPUSH k a b c` leaves `c b a`), creating the list if needed; replies with the new
/// length. WRONGTYPE if the key holds another type. O(1) per element.
fn lpush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    push_command(ctx, args, End::Left, true)
}

/// `RPUSH key element [element ...]`: appends each element at the tail, creating the list
/// if needed; replies with the new length. O(1) per element.
fn rpush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    push_command(ctx, args, End::Right, true)
}

/// `LPUSHX key element [element ...]`: as LPUSH, but only when the list exists; replies 0
/// (and changes nothing) otherwise. O(1) per element.
fn lpushx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    push_command(ctx, args, End::Left, false)
}

/// `RPUSHX key element [element ...]`: as RPUSH, but only when the list exists. O(1) per
/// element.
fn rpushx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    push_command(ctx, args, End::Right, false)
}

// ---------------------------------------------------------------------------------------
// Pop and move
// ---------------------------------------------------------------------------------------

/// Shared body of LPOP and RPOP: `key [count]`.
///
/// The count is parsed first (`ERR value is out of range, must be positive` for anything
/// but a non-negative integer), then the key is looked up. Without a count the reply is the
/// element or nil; with one it is an array of up to `count` elements, the null *array* for
/// a missing key, and an empty array for `count` 0.
fn pop_command(ctx: &mut Ctx<'_>, args: &mut Args, end: End) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::WrongArity(args.name()));
    }
    let (key, rest) = args.split_next()?;
    let count = match rest.first() {
        None => None,
        Some(n) => {
            let n = parse_i64(n)
                .filter(|n| *n >= 0)
                .ok_or(Error::MustBePositive)?;
            Some(n as u64)
        }
    };
    let Some(list) = write_list(ctx, key)? else {
        return Ok(match count {
            Some(_) => Reply::NilArray,
            None => Reply::Nil,
        });
    };
    let reply = match count {
        // The popped elements are the reply's own strings: no copies.
        None => list.pop(end).map_or(Reply::Nil, Reply::Bulk),
        Some(0) => return Ok(Reply::Array(Vec::new())),
        Some(n) => Reply::Array(list.pop_many(end, n).into_iter().map(Reply::Bulk).collect()),
    };
    ctx.dirty += 1;
    ctx.notify(class::LIST, pop_event(end), key);
    ctx.delete_if_emptied(key);
    Ok(reply)
}

/// `LPOP key [count]`: removes and returns the first element, or up to `count` elements
/// from the head. O(N) in the elements returned.
fn lpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    pop_command(ctx, args, End::Left)
}

/// `RPOP key [count]`: removes and returns the last element, or up to `count` elements
/// from the tail (last first). O(N) in the elements returned.
fn rpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    pop_command(ctx, args, End::Right)
}

/// Moves one element from `from` of `src` to `to` of `dst` (LMOVE, RPOPLPUSH). Replies
/// with the element, or nil when `src` does not exist. `src` is type-checked first, then
/// `dst`, before anything moves. With `src == dst` the list rotates. O(1).
fn move_element(ctx: &mut Ctx<'_>, src: &[u8], dst: &[u8], from: End, to: End) -> CmdResult {
    if write_list(ctx, src)?.is_none() {
        return Ok(Reply::Nil);
    }
    if src != dst {
        write_list(ctx, dst)?;
    }
    let Some(value) = write_list(ctx, src)?.and_then(|l| l.pop(from)) else {
        return Ok(Reply::Nil);
    };
    let reply = Reply::bulk(&value);
    // The push counts the change, and keeps `src` alive when it is also `dst`. As in Redis,
    // the destination's push event comes before the source's pop event.
    push_values(ctx, dst, to, vec![value], true)?;
    ctx.notify(class::LIST, pop_event(from), src);
    ctx.delete_if_emptied(src);
    Ok(reply)
}

/// `LMOVE source destination LEFT|RIGHT LEFT|RIGHT`: atomically pops from one end of
/// `source` and pushes onto one end of `destination`, creating it if needed; replies with
/// the element, or nil if `source` does not exist. The directions are parsed before any
/// lookup. O(1).
fn lmove(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let src = args.next_bytes()?.to_vec();
    let dst = args.next_bytes()?.to_vec();
    let from = parse_end(args.next_bytes()?)?;
    let to = parse_end(args.next_bytes()?)?;
    move_element(ctx, &src, &dst, from, to)
}

/// `RPOPLPUSH source destination`: `LMOVE source destination RIGHT LEFT`. O(1).
fn rpoplpush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let src = args.next_bytes()?.to_vec();
    let dst = args.next_bytes()?.to_vec();
    move_element(ctx, &src, &dst, End::Right, End::Left)
}

/// `LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]`: pops up to `count` (default 1)
/// elements from the first of the keys that holds a list, replying `[key, [elements]]`, or
/// the null array when none does.
///
/// Errors, in Redis's order: `numkeys should be greater than 0` (also for a non-integer),
/// a syntax error when the keys leave no room for the direction, a syntax error for a bad
/// direction or option (or a second `COUNT`), `count should be greater than 0`; then
/// WRONGTYPE for a key before the first list. Recorded as `LPOP`/`RPOP key count`.
/// O(N + M): N keys tried, M elements popped.
fn lmpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let numkeys = parse_i64(args.next_bytes()?)
        .filter(|n| *n >= 1)
        .ok_or(Error::NumkeysNotPositive)?;
    if numkeys >= args.remaining() as i64 {
        return Err(Error::Syntax);
    }
    let mut keys = Vec::new();
    for _ in 0..numkeys {
        keys.push(args.next_bytes()?.to_vec());
    }
    let end = parse_end(args.next_bytes()?)?;
    let mut count: Option<i64> = None;
    while !args.is_empty() {
        let more = args.remaining() > 1;
        if count.is_none() && more && args.eat("COUNT") {
            let n = parse_i64(args.next_bytes()?)
                .filter(|n| *n >= 1)
                .ok_or(Error::CountNotPositive)?;
            count = Some(n);
        } else {
            return Err(Error::Syntax);
        }
    }
    let count = count.unwrap_or(1);
    for key in keys {
        let Some(list) = write_list(ctx, &key)? else {
            continue;
        };
        let items = list.pop_many(end, count as u64);
        ctx.dirty += 1;
        ctx.notify(class::LIST, pop_event(end), &key);
        ctx.delete_if_emptied(&key);
        // The keys of LMPOP are not in the table's key positions: signal the one popped.
        ctx.signal_modified(&key);
        let name: &[u8] = match end {
            End::Left => b"LPOP",
            End::Right => b"RPOP",
        };
        ctx.propagate(vec![
            name.to_vec(),
            key.clone(),
            count.to_string().into_bytes(),
        ]);
        return Ok(Reply::Array(vec![
            Reply::Bulk(key),
            Reply::bulk_array(items),
        ]));
    }
    Ok(Reply::NilArray)
}

// ---------------------------------------------------------------------------------------
// Read
// ---------------------------------------------------------------------------------------

/// `LLEN key`: the length of the list, 0 for a missing key. O(1).
fn llen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let len = read_list(ctx, &key)?.map_or(0, ListValue::len);
    Ok(Reply::Integer(len as i64))
}

/// `LINDEX key index`: the element at `index` (negative counts from the tail), nil when
/// out of range or the key is missing. The key is looked up before the index is parsed.
/// O(1).
fn lindex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let Some(list) = read_list(ctx, &key)? else {
        return Ok(Reply::Nil);
    };
    let index = int_arg(args.next_bytes()?)?;
    Ok(Reply::bulk_or_nil(list.get(index)))
}

/// `LRANGE key start stop`: the elements from `start` to `stop` inclusive; out-of-range
/// indexes are clamped, so any two integers are valid. Indexes are parsed before the
/// lookup. O(N) in the elements returned.
fn lrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let start = int_arg(args.next_bytes()?)?;
    let stop = int_arg(args.next_bytes()?)?;
    let Some(list) = read_list(ctx, &key)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    Ok(Reply::bulk_array(list.range(start, stop)))
}

/// `LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]`: the index of the first
/// match, or with `COUNT` an array of the indexes of up to `num-matches` matches (0 = all).
/// `RANK n` starts reporting at the n-th match, counted from the tail when negative;
/// `MAXLEN` bounds the elements compared (0 = no bound).
///
/// Options are parsed before the lookup: `RANK 0` gives the long RANK error;
/// `COUNT`/`MAXLEN` that are negative *or not integers* give `COUNT can't be negative` /
/// `MAXLEN can't be negative`; a non-integer RANK the usual integer error. A missing key
/// gives nil, or an empty array with `COUNT`. O(N), at most MAXLEN comparisons.
fn lpos(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let element = args.next_bytes()?.to_vec();
    let (mut rank, mut count, mut maxlen) = (1i64, None::<i64>, 0i64);
    while !args.is_empty() {
        let more = args.remaining() > 1;
        if more && args.eat("RANK") {
            rank = int_arg(args.next_bytes()?)?;
            if rank == 0 {
                return Err(Error::RankZero);
            }
        } else if more && args.eat("COUNT") {
            count = Some(
                parse_i64(args.next_bytes()?)
                    .filter(|n| *n >= 0)
                    .ok_or(Error::CountNegative)?,
            );
        } else if more && args.eat("MAXLEN") {
            maxlen = parse_i64(args.next_bytes()?)
                .filter(|n| *n >= 0)
                .ok_or(Error::MaxlenNegative)?;
        } else {
            return Err(Error::Syntax);
        }
    }
    let Some(list) = read_list(ctx, &key)? else {
        return Ok(match count {
            Some(_) => Reply::Array(Vec::new()),
            None => Reply::Nil,
        });
    };
    let found = list.positions(&element, rank, count.unwrap_or(1), maxlen);
    let mut ints = found.into_iter().map(|p| Reply::Integer(p as i64));
    Ok(match count {
        Some(_) => Reply::Array(ints.collect()),
        None => ints.next().unwrap_or(Reply::Nil),
    })
}

// ---------------------------------------------------------------------------------------
// Modify in place
// ---------------------------------------------------------------------------------------

/// `LINSERT key BEFORE|AFTER pivot element`: inserts `element` next to the first
/// occurrence of `pivot`; replies with the new length, -1 when the pivot is absent, 0 when
/// the key is missing. The direction is parsed before the lookup. O(N).
fn linsert(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let after = if args.eat("AFTER") {
        true
    } else if args.eat("BEFORE") {
        false
    } else {
        return Err(Error::Syntax);
    };
    let pivot = args.next_bytes()?.to_vec();
    let element = args.next_bytes()?.to_vec();
    let Some(list) = write_list(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    if !list.insert_at_pivot(after, &pivot, element) {
        return Ok(Reply::Integer(-1));
    }
    let len = list.len();
    ctx.dirty += 1;
    ctx.notify(class::LIST, "linsert", &key);
    Ok(Reply::Integer(len as i64))
}

/// `LREM key count element`: removes the first `count` occurrences of `element` (the last
/// `-count` when negative, all when 0); replies with how many went. The count is parsed
/// before the lookup. O(N).
fn lrem(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let count = int_arg(args.next_bytes()?)?;
    let element = args.next_bytes()?.to_vec();
    let Some(list) = write_list(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let removed = list.remove(count, &element);
    if removed > 0 {
        ctx.dirty += removed as u64;
        ctx.notify(class::LIST, "lrem", &key);
        ctx.delete_if_emptied(&key);
    }
    Ok(Reply::Integer(removed as i64))
}

/// `LSET key index element`: replaces the element at `index`. `ERR no such key` for a
/// missing key (checked before the index is parsed), `ERR index out of range` outside the
/// list. O(1).
fn lset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let Some(list) = write_list(ctx, &key)? else {
        return Err(Error::NoSuchKey);
    };
    let index = int_arg(args.next_bytes()?)?;
    if !list.set(index, args.next_bytes()?.to_vec()) {
        return Err(Error::IndexOutOfRange);
    }
    ctx.dirty += 1;
    ctx.notify(class::LIST, "lset", &key);
    Ok(Reply::ok())
}

/// `LTRIM key start stop`: keeps only the elements from `start` to `stop` inclusive
/// (clamped as LRANGE); an empty range deletes the key. Replies OK, also for a missing
/// key. On an existing list it always sends `ltrim` and touches watchers, as Redis does. Indexes are parsed before the lookup. O(N) in the elements removed.
fn ltrim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let start = int_arg(args.next_bytes()?)?;
    let stop = int_arg(args.next_bytes()?)?;
    let Some(list) = write_list(ctx, &key)? else {
        return Ok(Reply::ok());
    };
    let removed = list.trim(start, stop);
    ctx.dirty += removed as u64;
    // Like Redis, an existing list counts as modified (event, WATCH) even when nothing was
    // trimmed; only the effect is skipped then.
    ctx.notify(class::LIST, "ltrim", &key);
    ctx.delete_if_emptied(&key);
    ctx.signal_modified(&key);
    Ok(Reply::ok())
}

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::testing::{self, connected_at, exec_survives, run, T0};
    use crate::engine::{ClientId, Engine, Reply};

    /// The effects of running `line`, as command lines.
    fn effects_of(e: &mut Engine, c: ClientId, line: &str) -> Vec<String> {
        e.take_effects();
        run(e, c, line);
        testing::effects(e)
    }

    #[test]
    fn writes_replay_as_themselves_with_their_arguments_intact() {
        let (mut e, c) = connected_at(T0);
        assert_eq!(effects_of(&mut e, c, "RPUSH l a b c"), ["RPUSH l a b c"]);
        assert_eq!(effects_of(&mut e, c, "LPUSHX l z"), ["LPUSHX l z"]);
        assert_eq!(
            effects_of(&mut e, c, "LINSERT l BEFORE b x"),
            ["LINSERT l BEFORE b x"]
        );
        assert_eq!(
            effects_of(&mut e, c, "LMOVE l l2 LEFT RIGHT"),
            ["LMOVE l l2 LEFT RIGHT"]
        );
        assert_eq!(effects_of(&mut e, c, "LSET l 0 q"), ["LSET l 0 q"]);
        assert_eq!(effects_of(&mut e, c, "LPOP l 2"), ["LPOP l 2"]);
    }

    #[test]
    fn lmpop_replays_as_a_pop_with_count() {
        let (mut e, c) = connected_at(T0);
        run(&mut e, c, "RPUSH l a b c");
        assert_eq!(
            effects_of(&mut e, c, "LMPOP 2 nokey l RIGHT COUNT 2"),
            ["RPOP l 2"]
        );
        assert_eq!(effects_of(&mut e, c, "LMPOP 1 l LEFT"), ["LPOP l 1"]);
        assert_eq!(
            effects_of(&mut e, c, "LMPOP 1 l LEFT"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn writes_that_change_nothing_record_nothing() {
        let (mut e, c) = connected_at(T0);
        run(&mut e, c, "RPUSH l a b c");
        for line in [
            "LPUSHX nokey a",
            "RPUSHX nokey a",
            "LINSERT l BEFORE nosuch x",
            "LINSERT nokey BEFORE a x",
            "LREM l 0 nosuch",
            "LTRIM l 0 -1",
            "LTRIM nokey 0 1",
            "LPOP nokey",
            "LPOP l 0",
            "RPOP nokey 3",
            "LMOVE nokey l LEFT LEFT",
            "RPOPLPUSH nokey l",
        ] {
            assert_eq!(effects_of(&mut e, c, line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn a_push_signals_keys_that_clients_block_on() {
        let (mut e, c) = connected_at(T0);
        let waiter = e.connect();
        e.submit(waiter, split_args("BLPOP q 0").unwrap_or_default());
        assert!(e.is_blocked(waiter));
        run(&mut e, c, "RPUSH other a");
        assert!(e.is_blocked(waiter));
        run(&mut e, c, "RPUSH src x");
        run(&mut e, c, "LMOVE src q LEFT LEFT");
        assert!(!e.is_blocked(waiter), "LMOVE into q serves the waiter");
        assert!(e.srv.ready_keys.is_empty());
        assert_eq!(
            e.take_pushes(waiter),
            vec![Reply::Array(vec![Reply::bulk(b"q"), Reply::bulk(b"x")])]
        );
    }

    #[test]
    fn the_wrongtype_check_on_the_destination_comes_before_the_pop() {
        let (mut e, c) = connected_at(T0);
        run(&mut e, c, "RPUSH l a");
        run(&mut e, c, "SET s x");
        assert!(run(&mut e, c, "LMOVE l s LEFT LEFT").is_error());
        assert_eq!(run(&mut e, c, "LLEN l"), Reply::Integer(1));
    }

    #[test]
    fn lmpop_touches_the_key_it_popped_and_no_other() {
        let (mut e, c) = connected_at(T0);
        run(&mut e, c, "RPUSH l a b c");
        assert!(exec_survives(&mut e, c, "nokey", "LMPOP 2 nokey l LEFT"));
        assert!(!exec_survives(&mut e, c, "l", "LMPOP 2 nokey l LEFT"));
        assert!(!exec_survives(&mut e, c, "l", "LMPOP 1 l RIGHT COUNT 5"));
    }

    #[test]
    fn ltrim_of_an_existing_list_always_touches_it() {
        let (mut e, c) = connected_at(T0);
        run(&mut e, c, "RPUSH l a b");
        assert!(!exec_survives(&mut e, c, "l", "LTRIM l 0 -1"));
        assert!(exec_survives(&mut e, c, "l", "LTRIM nokey 0 -1"));
        assert_eq!(effects_of(&mut e, c, "LTRIM l 0 -1"), Vec::<String>::new());
    }

    #[test]
    fn moves_touch_both_lists() {
        let (mut e, c) = connected_at(T0);
        run(&mut e, c, "RPUSH src a b");
        assert!(!exec_survives(&mut e, c, "dst", "LMOVE src dst LEFT LEFT"));
        assert!(!exec_survives(&mut e, c, "src", "RPOPLPUSH src dst"));
        assert!(exec_survives(&mut e, c, "dst", "RPOPLPUSH src dst"));
    }
}
