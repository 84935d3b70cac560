//! XREAD and XREADGROUP, blocking included: consumer-group delivery, and the family of
//! blocked stream readers the engine serves through [`crate::engine::core::waiters::Waiters`].

use crate::engine::args::{parse_i64, Args};
use crate::engine::blocking::{BlockOp, XReadWait};
use crate::engine::core::ctx::Site;
use crate::engine::core::dispatch::{call, Mode};
use crate::engine::core::waiters::{Readiness, Waiters};
use crate::engine::error::{c_str, CmdResult, Error, StreamError};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, Group};
use crate::engine::types::stream::{Consumer, Group as CGroup, StreamId};
use crate::engine::types::Value;
use crate::engine::{Ctx, Reply, Server};

use super::helpers::{bytes, entry_reply, per_key_reply, read_stream, strict_id, write_stream};

/// Count given to a blocked reader that asked for none (Redis's
/// `XREAD_BLOCKED_DEFAULT_COUNT`).
const BLOCKED_DEFAULT_COUNT: i64 = 1000;

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
pub(super) fn claim_effect(
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
pub(super) fn setid_effect(key: &[u8], group: &[u8], g: &CGroup) -> Vec<Vec<u8>> {
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
pub(super) fn touch_consumer(ctx: &mut Ctx<'_>, key: &[u8], group: &[u8], consumer: &[u8]) -> bool {
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
pub(super) fn xread(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    read_generic(ctx, args, false)
}

/// `XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key [key
/// ...] id [id ...]`: reads as `consumer` of `group` (created on first use). `>` reads
/// entries never delivered to the group, advancing its last delivered ID and adding them
/// to the pending list (unless NOACK); any other ID reads the consumer's own pending
/// entries after it (a deleted entry shows as `[id, nil]`). Only `>` blocks. O(M).
pub(super) fn xreadgroup(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
            if ctx.client.script {
                // Redis refuses it outright from a script (other blocking commands there
                // just act as if they timed out).
                let name = if group.is_some() || argv[0].eq_ignore_ascii_case(b"xreadgroup") {
                    "xreadgroup"
                } else {
                    "xread"
                };
                return Err(Error::Err(format!(
                    "{name} command is not allowed with BLOCK option from scripts"
                )));
            }
            i += 1;
            deadline = Some(super::super::blocking::parse_timeout_ms(
                &argv[i], ctx.now_ms,
            )?);
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
    .flags(Flags::WRITE)
    .doc("", "Serves a blocked stream reader.", "O(M)", "5.0.0");

/// Serves a reader blocked on `key` with the entries after `after`: replies
/// `[[key, entries]]` (a one-entry map in RESP3), as Redis replies to a served blocked
/// XREAD/XREADGROUP, with the same delivery bookkeeping and effects as a direct read.
pub(super) fn serve_blocked(site: Site<'_>, key: &[u8], w: &XReadWait, after: StreamId) -> Reply {
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
