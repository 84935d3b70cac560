//! MEMORY USAGE, PURGE, DOCTOR and HELP.

use super::super::connection::help_reply;
use crate::engine::args::Args;
use crate::engine::core::memory::{memory_usage_bytes, used_memory, Shape, DEFAULT_SAMPLES};
use crate::engine::error::{CmdResult, Error};
use crate::engine::{Ctx, Reply};

/// MEMORY USAGE key [SAMPLES count]
///
/// An estimate of the bytes `key` and its value take (see [`estimate_dataset_bytes`] for
/// the model), or nil without such a key. A collection is measured on `count` elements
/// spread evenly over it and scaled up (default 5; `SAMPLES 0` measures every element).
/// As in Redis the options are checked before the key is looked up (a negative count or
/// an unknown option is a syntax error, the last `SAMPLES` wins), and the key is found
/// without lazy expiry, hit/miss counting or touching its access time. The numbers differ
/// from Redis's, whose come from its allocator. O(count).
pub(super) fn memory_usage(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let mut samples = DEFAULT_SAMPLES;
    while !args.is_empty() {
        if args.eat("samples") && !args.is_empty() {
            let n = args.next_i64()?;
            if n < 0 {
                return Err(Error::Syntax);
            }
            samples = if n == 0 {
                usize::MAX
            } else {
                usize::try_from(n).unwrap_or(usize::MAX)
            };
        } else {
            return Err(Error::Syntax);
        }
    }
    let db = ctx.client.db;
    Ok(match ctx.srv.dbs[db].get_raw(&key) {
        Some(e) => {
            let shape = Shape::of(ctx.srv);
            let bytes = memory_usage_bytes(&key, e, samples, shape);
            Reply::Integer(i64::try_from(bytes).unwrap_or(i64::MAX))
        }
        None => Reply::Nil,
    })
}

/// MEMORY PURGE: Redis asks jemalloc to return dirty pages; the engine's memory is its
/// host's to manage, so there is nothing to do. Replies OK.
pub(super) fn memory_purge(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::ok())
}

/// MEMORY DOCTOR: Redis's `getMemoryDoctorReport` on the memory figures `INFO memory`
/// gives. Under 5 MB it declines, as Redis does; above, Redis looks for a high peak,
/// fragmentation and big client or replication buffers — none of which the engine's
/// estimate has (its peak is its current use, its RSS its use) — so it finds no issue.
pub(super) fn memory_doctor(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let text = if used_memory(ctx.srv) < 5 * 1024 * 1024 {
        "Hi Sam, this instance is empty or is using very little memory, my issues detector \
         can't be used in these conditions. Please, leave for your mission on Earth and fill \
         it with some data. The new Sam and I will be back to our programming as soon as I \
         finished rebooting.\n"
    } else {
        "Hi Sam, I can't find any memory issue in your instance. I can only account for what \
         occurs on this base.\n"
    };
    Ok(Reply::Verbatim(*b"txt", text.as_bytes().to_vec()))
}

/// MEMORY HELP: Redis's subcommand list, word for word (MALLOC-STATS and STATS are listed
/// there but not implemented here).
pub(super) fn memory_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "MEMORY",
        crate::help_lines![
            "DOCTOR",
            "    Return memory problems reports.",
            "MALLOC-STATS",
            "    Return internal statistics report from the memory allocator.",
            "PURGE",
            "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS",
            "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]",
            "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).",
        ],
    ))
}
