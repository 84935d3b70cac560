//! XACK, XPENDING, XCLAIM, XAUTOCLAIM and XSETID: the pending entries lists of consumer
//! groups, and moving a stream's last ID.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error, StreamError};
use crate::engine::pubsub::class;
use crate::engine::types::stream::{parse_id, StreamId};
use crate::engine::{Ctx, Reply};
use std::ops::Bound;

use super::helpers::{entry_reply, range_end, range_start, read_stream, strict_id, write_stream};
use super::read::{claim_effect, setid_effect, touch_consumer};

/// `XACK key group id [id ...]`: removes the IDs from the group's pending list, replying
/// how many were pending. A missing key or group replies 0 before the IDs are checked; an
/// invalid ID fails the whole command. O(1) per ID.
pub(super) fn xack(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xpending(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xclaim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xautoclaim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xsetid(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
