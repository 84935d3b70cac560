//! The string group.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::table::{Command, Flags, Group};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// The string commands.
pub const COMMANDS: &[Command] = &[
    Command::new("get", 2, Group::String, get)
        .flags(Flags::READONLY.union(Flags::FAST))
        .keys(1, 1, 1)
        .doc("key", "Returns the string value of a key.", "O(1)", "1.0.0"),
    Command::new("set", -3, Group::String, set)
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .keys(1, 1, 1)
        .doc(
            "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]",
            "Stores a string under a key, optionally with an expiry and a condition.",
            "O(1)",
            "1.0.0",
        ),
];

/// GET key
fn get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    match ctx.lookup_read(&key) {
        Some(v) => Ok(Reply::bulk(&v.as_str()?.bytes)),
        None => Ok(Reply::Nil),
    }
}

/// SET key value (options come with the full string group)
fn set(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    // Copied, not taken (`next_owned`): the argv is this command's replayed effect.
    let key = args.next_bytes()?.to_vec();
    let value = args.next_bytes()?.to_vec();
    args.finish()?;
    ctx.set_value(key, Value::Str(StrValue::new(value)), false);
    Ok(Reply::ok())
}
