//! XADD, XTRIM, XDEL, XLEN, XRANGE and XREVRANGE: adding, trimming, deleting and reading
//! ranges of entries.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error, StreamError};
use crate::engine::pubsub::class;
use crate::engine::types::stream::{parse_id, AppendError, Fields, StreamId, Trim, TrimStrategy};
use crate::engine::types::{Stream, Value};
use crate::engine::{Ctx, Reply};

use super::helpers::{entry_reply, range_end, range_start, read_stream, strict_id, write_stream};

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
pub(super) fn xadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
            ctx.db()
                .set(&key, Value::Stream(Box::new(Stream::new())), false, now);
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
pub(super) fn xtrim(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xdel(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    Ok(Reply::Integer(
        read_stream(ctx, &key)?.map_or(0, |s| s.len() as i64),
    ))
}

/// `XRANGE key start end [COUNT count]`: entries with IDs from start to end. `-` and `+`
/// are the extremes, an ID without sequence means its first (start) or last (end)
/// sequence, `(` excludes the bound. COUNT 0 replies a null array, a negative COUNT
/// counts as 0. O(log N + M).
pub(super) fn xrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, false)
}

/// `XREVRANGE key end start [COUNT count]`: XRANGE from the end.
pub(super) fn xrevrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
