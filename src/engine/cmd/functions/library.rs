//! `FUNCTION`'s subcommands (Redis's `functions.c`): LOAD, DELETE, LIST, DUMP, RESTORE,
//! FLUSH, STATS, KILL and HELP. The ones that change the libraries count as a change
//! (`dirty`), so their command line is recorded as a write effect and replays.

use super::payload;
use crate::engine::args::{eq_kw, Args};
use crate::engine::cmd::connection::help::help_reply;
use crate::engine::core::ctx::Ctx;
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::functions::LOAD_TIMEOUT_MS;
use crate::engine::glob;
use crate::engine::reply::Reply;
use crate::engine::scripting::FLAG_NAMES;

/// `FUNCTION LOAD [REPLACE] code`: compiles the library and registers its functions;
/// replies with its name. O(1) besides the compilation.
pub(super) fn function_load(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mut replace = false;
    while args.remaining() > 1 {
        let word = args.next_bytes()?;
        if !eq_kw(word, "replace") {
            return Err(Error::Err(format!("Unknown option given: {}", c_str(word))));
        }
        replace = true;
    }
    if args.is_empty() {
        return Err(Error::Err("Function code is missing".into()));
    }
    let code = args.next_owned()?;
    let srv = &mut *ctx.srv;
    let clock = &srv.clock;
    let name = srv
        .functions
        .load(code, replace, LOAD_TIMEOUT_MS, &|| clock.now_ms() as u64)
        .map_err(Error::Err)?;
    ctx.dirty += 1;
    Ok(Reply::Bulk(name.into_bytes()))
}

/// `FUNCTION DELETE library-name`. O(1).
pub(super) fn function_delete(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let name = args.next_bytes()?;
    let found = std::str::from_utf8(name).is_ok_and(|n| ctx.srv.functions.delete(n));
    if !found {
        return Err(Error::Err("Library not found".into()));
    }
    ctx.dirty += 1;
    Ok(Reply::ok())
}

/// `FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]`: each library (matching the
/// pattern, case-insensitively) with its engine, functions and code. O(N) in functions.
pub(super) fn function_list(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (mut with_code, mut pattern) = (false, None);
    while !args.is_empty() {
        let word = args.next_bytes()?;
        if !with_code && eq_kw(word, "withcode") {
            with_code = true;
            continue;
        }
        if pattern.is_none() && eq_kw(word, "libraryname") {
            if args.is_empty() {
                return Err(Error::Err("library name argument was not given".into()));
            }
            pattern = Some(args.next_owned()?);
            continue;
        }
        return Err(Error::Err(format!("Unknown argument {}", c_str(word))));
    }
    let bulk = |s: &str| Reply::Bulk(s.as_bytes().to_vec());
    let libraries = ctx
        .srv
        .functions
        .libraries
        .values()
        .filter(|l| {
            pattern
                .as_deref()
                .is_none_or(|p| glob::matches(p, l.name.as_bytes(), true))
        })
        .map(|lib| {
            let functions = lib
                .functions
                .iter()
                .map(|f| {
                    let flags = FLAG_NAMES
                        .iter()
                        .filter(|(flag, _)| f.flags.contains(*flag))
                        .map(|(_, name)| Reply::status(*name))
                        .collect();
                    Reply::Map(vec![
                        (bulk("name"), bulk(&f.name)),
                        (
                            bulk("description"),
                            f.description.clone().map_or(Reply::Nil, Reply::Bulk),
                        ),
                        (bulk("flags"), Reply::Set(flags)),
                    ])
                })
                .collect();
            let mut fields = vec![
                (bulk("library_name"), bulk(&lib.name)),
                (bulk("engine"), bulk("LUA")),
                (bulk("functions"), Reply::Array(functions)),
            ];
            if with_code {
                fields.push((bulk("library_code"), Reply::Bulk(lib.code.clone())));
            }
            Reply::Map(fields)
        })
        .collect();
    Ok(Reply::Array(libraries))
}

/// `FUNCTION DUMP`: every library in Redis's payload format. O(N) in the code's size.
pub(super) fn function_dump(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Bulk(payload::encode(&ctx.srv.functions.codes())))
}

/// `FUNCTION RESTORE payload [FLUSH | APPEND | REPLACE]`: loads a dump's libraries, next
/// to the existing ones (APPEND, the default: a library of the same name is an error),
/// replacing those of the same name, or instead of every library. All or nothing.
pub(super) fn function_restore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::subcommand_syntax(args.argv()));
    }
    let data = args.next_owned()?;
    let policy = match args.peek() {
        None => b'A',
        Some(p) if eq_kw(p, "append") => b'A',
        Some(p) if eq_kw(p, "replace") => b'R',
        Some(p) if eq_kw(p, "flush") => b'F',
        Some(_) => {
            return Err(Error::Err(
                "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
                    .into(),
            ))
        }
    };
    let codes = payload::decode(&data, ctx.srv.debug.checksums)?;
    ctx.srv
        .functions
        .restore(codes, policy, &|| 0)
        .map_err(Error::Err)?;
    ctx.dirty += 1;
    Ok(Reply::ok())
}

/// `FUNCTION FLUSH [ASYNC | SYNC]`: deletes every library. O(N) in the functions.
pub(super) fn function_flush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    match args.remaining() {
        0 => {}
        1 => {
            let mode = args.next_bytes()?;
            if !eq_kw(mode, "sync") && !eq_kw(mode, "async") {
                return Err(Error::Err(
                    "FUNCTION FLUSH only supports SYNC|ASYNC option".into(),
                ));
            }
        }
        _ => return Err(Error::subcommand_syntax(args.argv())),
    }
    ctx.srv.functions.flush();
    ctx.dirty += 1;
    Ok(Reply::ok())
}

/// `FUNCTION STATS`: no function is ever running when a command is read (a function runs
/// to its end first), so `running_script` is nil; then the one engine's counts.
pub(super) fn function_stats(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let f = &ctx.srv.functions;
    let bulk = |s: &str| Reply::Bulk(s.as_bytes().to_vec());
    let lua = Reply::Map(vec![
        (
            bulk("libraries_count"),
            Reply::Integer(f.libraries.len() as i64),
        ),
        (
            bulk("functions_count"),
            Reply::Integer(f.index.len() as i64),
        ),
    ]);
    // The script running now, when one paused (Redis's scriptIsRunning).
    let running = match ctx.srv.running.as_ref() {
        None => Reply::Nil,
        Some(r) => {
            let ms = (ctx.srv.clock.monotonic_us() - r.started_us) / 1000;
            Reply::Map(vec![
                (bulk("name"), bulk(&r.name)),
                (
                    bulk("command"),
                    Reply::Array(r.argv.iter().map(|a| Reply::Bulk(a.clone())).collect()),
                ),
                (bulk("duration_ms"), Reply::Integer(ms)),
            ])
        }
    };
    Ok(Reply::Map(vec![
        (bulk("running_script"), running),
        (bulk("engines"), Reply::Map(vec![(bulk("LUA"), lua)])),
    ]))
}

/// `FUNCTION KILL`: stops the running function at its next check (Redis's
/// `scriptKill`), unless it has written or is an EVAL script. O(1).
pub(super) fn function_kill(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    crate::engine::cmd::scripting::kill(ctx, false)
}

/// `FUNCTION HELP`.
pub(super) fn function_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "FUNCTION",
        crate::help_lines![
            "LOAD [REPLACE] <FUNCTION CODE>",
            "    Create a new library with the given library name and code.",
            "DELETE <LIBRARY NAME>",
            "    Delete the given library.",
            "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
            "    Return general information on all the libraries:",
            "    * Library name",
            "    * The engine used to run the Library",
            "    * Library description",
            "    * Functions list",
            "    * Library code (if WITHCODE is given)",
            "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
            "STATS",
            "    Return information about the current function running:",
            "    * Function name",
            "    * Command used to run the function",
            "    * Duration in MS that the function is running",
            "    If no function is running, return nil",
            "    In addition, returns a list of available engines.",
            "KILL",
            "    Kill the current running function.",
            "FLUSH [ASYNC|SYNC]",
            "    Delete all the libraries.",
            "    When called without the optional mode argument, the behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
            "    * ASYNC: Asynchronously flush the libraries.",
            "    * SYNC: Synchronously flush the libraries.",
            "DUMP",
            "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
            "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
            "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
            "    control how to handle existing libraries (default APPEND):",
            "    * FLUSH: delete all existing libraries.",
            "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
            "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
            "      libraries with the new libraries (notice that even on this option there is a chance of failure",
            "      in case of functions name collision with another library).",
        ],
    ))
}
