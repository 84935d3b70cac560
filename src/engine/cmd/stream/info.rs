//! XINFO: what a stream, its groups and their consumers hold.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error, StreamError};
use crate::engine::types::stream::{Nack, StreamId};
use crate::engine::types::Stream;
use crate::engine::{Ctx, Reply};

use super::helpers::{entry_reply, read_stream};

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
pub(super) fn xinfo_stream(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xinfo_groups(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xinfo_consumers(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xinfo_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(super::super::connection::help_reply(
        "XINFO",
        crate::help_lines![
            "CONSUMERS <key> <groupname>",
            "    Show consumers of <groupname>.",
            "GROUPS <key>",
            "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]",
            "    Show information about the stream.",
        ],
    ))
}
