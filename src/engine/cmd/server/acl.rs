//! The ACL container: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT, GENPASS,
//! DRYRUN and HELP, over the users table of [`crate::engine::acl`]. (LOAD, SAVE and LOG
//! are not implemented: there is no ACL file, and no ACL log yet.)

use crate::engine::acl::{self, rules, Denied, User};
use crate::engine::args::Args;
use crate::engine::cmd::connection::help_reply;
use crate::engine::core::dispatch::resolve;
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::table::{Command, Flags, Group};
use crate::engine::{Ctx, Reply};

/// Flags of the administrative subcommands.
const ADMIN: Flags = Flags::ADMIN
    .union(Flags::NOSCRIPT)
    .union(Flags::LOADING)
    .union(Flags::STALE);
/// Flags of the others (CAT, GENPASS, WHOAMI).
const PLAIN: Flags = Flags::NOSCRIPT.union(Flags::LOADING).union(Flags::STALE);

/// The ACL command.
pub const COMMANDS: &[Command] = &[Command::container("acl", Group::Server, SUBCOMMANDS).doc(
    "",
    "Manages ACL users: their passwords, the commands, keys and channels they may use.",
    "Depends on subcommand.",
    "6.0.0",
)];

const SUBCOMMANDS: &[Command] = &[
    Command::new("cat", -2, Group::Server, acl_cat)
        .flags(PLAIN)
        .doc(
            "[category]",
            "Lists the ACL categories, or the commands in one.",
            "O(1) since the categories and commands are a fixed set.",
            "6.0.0",
        ),
    Command::new("deluser", -3, Group::Server, acl_deluser)
        .flags(ADMIN)
        .doc(
            "username [username ...]",
            "Deletes users and closes the connections authenticated as them.",
            "O(1) amortized time considering the typical user.",
            "6.0.0",
        ),
    Command::new("dryrun", -4, Group::Server, acl_dryrun)
        .flags(ADMIN)
        .doc(
            "username command [arg [arg ...]]",
            "Says whether a user may run a command line, without running it.",
            "O(1).",
            "7.0.0",
        ),
    Command::new("genpass", -2, Group::Server, acl_genpass)
        .flags(PLAIN)
        .doc(
            "[bits]",
            "Returns a random password in hex, 256 bits by default.",
            "O(1)",
            "6.0.0",
        ),
    Command::new("getuser", 3, Group::Server, acl_getuser)
        .flags(ADMIN)
        .doc(
            "username",
            "Describes a user: flags, password hashes, commands, keys, channels.",
            "O(N). Where N is the number of password, command and pattern rules that the user has.",
            "6.0.0",
        ),
    Command::new("help", 2, Group::Server, acl_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the ACL subcommands.", "O(1)", "6.0.0"),
    Command::new("list", 2, Group::Server, acl_list)
        .flags(ADMIN)
        .doc(
            "",
            "Lists every user with its rules, as ACL SETUSER takes them.",
            "O(N). Where N is the number of configured users.",
            "6.0.0",
        ),
    Command::new("setuser", -3, Group::Server, acl_setuser)
        .flags(ADMIN)
        .doc(
            "username [rule [rule ...]]",
            "Creates or changes a user by applying rules to it, all or none.",
            "O(N). Where N is the number of rules provided.",
            "6.0.0",
        ),
    Command::new("users", 2, Group::Server, acl_users)
        .flags(ADMIN)
        .doc(
            "",
            "Lists the user names.",
            "O(N). Where N is the number of configured users.",
            "6.0.0",
        ),
    Command::new("whoami", 2, Group::Server, acl_whoami)
        .flags(PLAIN)
        .doc(
            "",
            "Returns the user this connection is authenticated as.",
            "O(1)",
            "6.0.0",
        ),
];

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// ACL SETUSER username [rule ...]: applies the rules to a copy of the user (a new one
/// when it doesn't exist) and stores it only if every rule applied.
fn acl_setuser(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let name = args.next_owned()?;
    if name.iter().any(|&c| c.is_ascii_whitespace() || c == 0) {
        return Err(Error::Err(
            "Usernames can't contain spaces or null characters".into(),
        ));
    }
    let mut user = ctx
        .srv
        .acl
        .get(&name)
        .cloned()
        .unwrap_or_else(|| User::new(&name));
    for op in args.rest() {
        rules::apply(&mut user, ctx.table, &op)
            .map_err(|why| Error::AclModifier(c_str(&op), why))?;
    }
    ctx.srv.acl.put(user);
    Ok(Reply::ok())
}

/// ACL DELUSER username ...: deletes them (never `default`) and closes every connection
/// authenticated as one of them — the caller's own after this reply. Replies how many
/// existed.
fn acl_deluser(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let names = args.rest();
    if names.iter().any(|n| n == b"default") {
        return Err(Error::Err("The 'default' user cannot be removed".into()));
    }
    let mut deleted = 0;
    for name in &names {
        if !ctx.srv.acl.remove(name) {
            continue;
        }
        deleted += 1;
        for c in ctx.others.iter_mut() {
            if c.user == *name {
                c.close_asap = true;
            }
        }
        if ctx.client.user == *name {
            ctx.client.close_after_reply = true;
        }
    }
    Ok(Reply::Integer(deleted))
}

/// ACL GETUSER username: the user's flags, passwords, command rules, key patterns,
/// channels and (none here) selectors; nil for an unknown user.
fn acl_getuser(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let Some(u) = ctx.srv.acl.get(args.next_bytes()?) else {
        return Ok(Reply::Nil);
    };
    let flags = u
        .flags()
        .into_iter()
        .map(|f| Reply::bulk(f.as_bytes()))
        .collect();
    let field = |s: &str| Reply::bulk(s.as_bytes());
    Ok(Reply::Map(vec![
        (field("flags"), Reply::Array(flags)),
        (
            field("passwords"),
            Reply::Array(u.passwords.iter().map(|p| field(p)).collect()),
        ),
        (field("commands"), field(&u.describe_commands(ctx.table))),
        (field("keys"), field(&u.describe_keys())),
        (field("channels"), field(&u.channel_list().join(" "))),
        (field("selectors"), Reply::Array(Vec::new())),
    ]))
}

/// ACL LIST: `user <name> <rules>` for each user, in name order.
fn acl_list(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let table = ctx.table;
    Ok(Reply::Array(
        ctx.srv
            .acl
            .iter()
            .map(|u| {
                let line = format!("user {} {}", lossy(&u.name), u.describe(table));
                Reply::bulk(line.as_bytes())
            })
            .collect(),
    ))
}

/// ACL USERS: the user names, in order.
fn acl_users(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Array(
        ctx.srv.acl.iter().map(|u| Reply::bulk(&u.name)).collect(),
    ))
}

/// ACL WHOAMI: the caller's user.
fn acl_whoami(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::bulk(&ctx.client.user))
}

/// ACL CAT [category]: the categories, or the full names of the commands in one.
fn acl_cat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.is_empty() {
        return Ok(Reply::Array(
            acl::CATEGORIES
                .iter()
                .map(|c| Reply::bulk(c.as_bytes()))
                .collect(),
        ));
    }
    let given = args.next_bytes()?;
    let Some(cat) = acl::CATEGORIES
        .iter()
        .find(|c| c.as_bytes().eq_ignore_ascii_case(given))
    else {
        let shown: Vec<u8> = given.iter().copied().take(128).collect();
        return Err(Error::Err(format!("Unknown category '{}'", c_str(&shown))));
    };
    Ok(Reply::Array(
        acl::rows(ctx.table)
            .into_iter()
            .filter(|(c, _)| c.acl_categories().contains(cat))
            .map(|(_, name)| Reply::bulk(name.as_bytes()))
            .collect(),
    ))
}

/// ACL GENPASS [bits]: `bits` (1..4096, default 256) random bits as hex digits, rounded up
/// to whole digits.
fn acl_genpass(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let bits = if args.is_empty() {
        256
    } else {
        args.next_i64()?
    };
    if !(1..=4096).contains(&bits) {
        return Err(Error::Err(
            "ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096"
                .into(),
        ));
    }
    let chars = (bits + 3) / 4;
    let hex: Vec<u8> = (0..chars)
        .map(|_| b"0123456789abcdef"[ctx.srv.rng.usize(..16)])
        .collect();
    Ok(Reply::Bulk(hex))
}

/// ACL DRYRUN username command [arg ...]: `OK` when the user may run the line, else why
/// not, as a bulk string.
fn acl_dryrun(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let name = args.next_owned()?;
    let Some(u) = ctx.srv.acl.get(&name) else {
        return Err(Error::Err(format!("User '{}' not found", c_str(&name))));
    };
    let argv = args.rest();
    let (_, cmd, fullname, _) = match resolve(ctx.table, &argv) {
        Ok(r) => r,
        Err(Error::WrongArity(full)) if ctx.table.lookup(&argv[0]).is_some() => {
            return Err(Error::WrongArity(full))
        }
        Err(_) => {
            return Err(Error::Err(format!(
                "Command '{}' not found",
                c_str(&argv[0])
            )))
        }
    };
    let why = match u.check(cmd, &argv) {
        Ok(()) => return Ok(Reply::ok()),
        Err(Denied::Command) => {
            format!("This user has no permissions to run the '{fullname}' command")
        }
        Err(Denied::Key(i)) => format!(
            "This user has no permissions to access the '{}' key",
            c_str(&argv[i])
        ),
        Err(Denied::Channel(i)) => format!(
            "This user has no permissions to access the '{}' channel",
            c_str(&argv[i])
        ),
    };
    Ok(Reply::bulk(why.as_bytes()))
}

/// ACL HELP.
fn acl_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "ACL",
        crate::help_lines![
            "CAT [<category>]",
            "    List all commands that belong to <category>, or all command categories",
            "    when no category is specified.",
            "DELUSER <username> [<username> ...]",
            "    Delete a list of users.",
            "DRYRUN <username> <command> [<arg> ...]",
            "    Returns whether the user can execute the given command without executing the command.",
            "GETUSER <username>",
            "    Get the user's details.",
            "GENPASS [<bits>]",
            "    Generate a secure 256-bit user password. The optional `bits` argument can",
            "    be used to specify a different size.",
            "LIST",
            "    Show users details in config file format.",
            "SETUSER <username> <attribute> [<attribute> ...]",
            "    Create or modify a user with the specified attributes.",
            "USERS",
            "    List all the registered usernames.",
            "WHOAMI",
            "    Return the current connection username.",
        ],
    ))
}
