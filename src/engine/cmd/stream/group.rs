//! XGROUP: creating, moving and destroying consumer groups, and their consumers.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error, StreamError};
use crate::engine::pubsub::class;
use crate::engine::types::stream::{parse_id, Group as CGroup, StreamId};
use crate::engine::types::{Stream, Value};
use crate::engine::{Ctx, Reply};

use super::helpers::{strict_id, write_stream};
use super::read::touch_consumer;

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
pub(super) fn xgroup_create(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
        ctx.db()
            .set(&a.key, Value::Stream(Box::new(Stream::new())), false, now);
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
pub(super) fn xgroup_setid(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xgroup_destroy(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xgroup_createconsumer(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xgroup_delconsumer(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn xgroup_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(super::super::connection::help_reply(
        "XGROUP",
        crate::help_lines![
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
