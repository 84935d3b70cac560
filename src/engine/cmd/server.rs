//! The connection and server groups: PING, ECHO, SELECT, HELLO, CLIENT, INFO, CONFIG,
//! COMMAND and friends.

use std::collections::BTreeMap;

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::table::{self, Command, Flags, Group};
use crate::engine::{Ctx, Reply, NUM_DBS};

/// The connection and server commands.
pub const COMMANDS: &[Command] = &[
    Command::new("ping", -1, Group::Connection, ping)
        .flags(Flags::FAST.union(Flags::STALE))
        .doc(
            "[message]",
            "Answers PONG, or echoes the message: a liveness check.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("echo", 2, Group::Connection, echo)
        .flags(Flags::FAST.union(Flags::LOADING).union(Flags::STALE))
        .doc(
            "message",
            "Replies with the message it was given.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("select", 2, Group::Connection, select)
        .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
        .doc(
            "index",
            "Switches this connection to another logical database (0-15).",
            "O(1)",
            "1.0.0",
        ),
    Command::container("command", Group::Server, COMMAND_SUBCOMMANDS)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc(
            "[subcommand]",
            "Describes the commands this server knows.",
            "O(N) where N is the number of commands",
            "2.8.13",
        ),
];

const COMMAND_SUBCOMMANDS: &[Command] = &[Command::new("count", 2, Group::Server, command_count)
    .flags(Flags::LOADING.union(Flags::STALE))
    .doc(
        "",
        "Counts the commands this server knows.",
        "O(1)",
        "2.8.13",
    )];

/// The configuration parameters and their defaults.
pub fn default_config() -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (k, v) in [("databases", "16"), ("hz", "10"), ("maxmemory", "0")] {
        m.insert(k.to_string(), v.to_string());
    }
    m
}

/// PING [message]
fn ping(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    match args.remaining() {
        0 => Ok(Reply::status("PONG")),
        1 => Ok(Reply::bulk(args.next_bytes()?)),
        _ => Err(Error::WrongArity("ping".into())),
    }
}

/// ECHO message
fn echo(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    Ok(Reply::bulk(args.next_bytes()?))
}

/// SELECT index
fn select(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let idx = args.next_i64()?;
    if idx < 0 || idx >= NUM_DBS as i64 {
        return Err(Error::DbIndexOutOfRange);
    }
    ctx.client.db = idx as usize;
    Ok(Reply::ok())
}

/// COMMAND COUNT
fn command_count(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(table::all().count() as i64))
}
