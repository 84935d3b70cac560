//! The handlers: `EVAL`, `EVALSHA`, `EVAL_RO`, `EVALSHA_RO` (Redis's `evalGenericCommand`
//! and `scriptPrepareForRun`) and `SCRIPT`'s subcommands.

use super::debug::DebugHost;
use super::host::{to_reply, ScriptHost};
use crate::engine::args::Args;
use crate::engine::blocking::BlockOp;
use crate::engine::busy::{Checks, Debugger, RunEnv, Running};
use crate::engine::cmd::connection::help::help_reply;
use crate::engine::cmd::multi::wrap_effects;
use crate::engine::core::client::Client;
use crate::engine::core::ctx::Ctx;
use crate::engine::core::evict;
use crate::engine::core::monitor;
use crate::engine::core::server::Server;
use crate::engine::error::{CmdResult, Error};
use crate::engine::num::parse_i64;
use crate::engine::reply::Reply;
use crate::engine::scripting::{self, Script, ScriptFlags};
use kvlab_lua::redis::{ScriptError, Step, Value};

const NOSCRIPT: &str = "NOSCRIPT No matching script. Please use EVAL.";

/// `EVAL script numkeys [key ...] [arg ...]`. Runs the script, compiling and caching it
/// first if it is new. O(length of the script) to hash it, plus what the script does.
pub(super) fn eval(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    generic(ctx, args, false, false)
}

/// `EVAL_RO`: as EVAL, with write commands refused.
pub(super) fn eval_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    generic(ctx, args, false, true)
}

/// `EVALSHA sha1 numkeys [key ...] [arg ...]`: a cached script. O(1) to find it.
pub(super) fn evalsha(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    generic(ctx, args, true, false)
}

/// `EVALSHA_RO`: as EVALSHA, with write commands refused.
pub(super) fn evalsha_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    generic(ctx, args, true, true)
}

fn generic(ctx: &mut Ctx<'_>, args: &mut Args, by_sha: bool, ro: bool) -> CmdResult {
    // Redis feeds monitors the call before the commands the script runs (and whether or
    // not it runs at all).
    monitor::feed_monitors(ctx.srv, ctx.client, args.argv());
    // The call as sent, for FUNCTION STATS while it runs.
    let command = args.argv().to_vec();
    let body = args.next_owned()?;
    if by_sha && body.len() != 40 {
        return Err(Error::Coded(NOSCRIPT.into()));
    }
    let numkeys = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
    let rest = args.rest();
    if numkeys > rest.len() as i64 {
        return Err(Error::KeysOverArgs);
    }
    if numkeys < 0 {
        return Err(Error::KeysNegative);
    }
    let sha = if by_sha {
        String::from_utf8_lossy(&body).to_ascii_lowercase()
    } else {
        scripting::sha1hex(&body)
    };
    let flags = match ctx.srv.scripts.cache.get(&sha) {
        Some(s) => s.flags,
        None if by_sha => return Err(Error::Coded(NOSCRIPT.into())),
        None => create(ctx, &sha, body)?,
    };
    let (keys, argv) = rest.split_at(numkeys as usize);
    run(ctx, &sha, flags, ro, keys, argv, command)
}

/// Caches and compiles a new script (Redis's `luaCreateFunction`); returns its flags.
fn create(ctx: &mut Ctx<'_>, sha: &str, body: Vec<u8>) -> Result<ScriptFlags, Error> {
    let (flags, shebang_len) = scripting::shebang(&body).map_err(Error::Err)?;
    let deprecated_api = ctx.srv.config.lua_deprecated_api();
    let env = ctx.srv.scripts.env(deprecated_api);
    if let Err(msg) = env.create_script(sha, &body[shebang_len..]) {
        return Err(Error::Err(format!(
            "Error compiling script (new function): {}",
            String::from_utf8_lossy(&msg)
        )));
    }
    ctx.srv
        .scripts
        .cache
        .insert(sha.to_string(), Script { body, flags });
    Ok(flags)
}

/// Redis's `scriptPrepareForRun` and `luaCallFunction`: the checks on the script's flags,
/// then the run as the script client, with its writes replicated as one unit.
fn run(
    ctx: &mut Ctx<'_>,
    sha: &str,
    flags: ScriptFlags,
    ro: bool,
    keys: &[Vec<u8>],
    argv: &[Vec<u8>],
    command: Vec<Vec<u8>>,
) -> CmdResult {
    let oom = oom_at_start(ctx);
    let checks = prepare_run(ctx, flags, ro, oom)?;
    start_run(
        ctx,
        Start::Eval { sha },
        format!("f_{sha}"),
        checks,
        keys,
        argv,
        command,
    )
}

/// Whether memory is over `maxmemory` as a script starts, after eviction tried (Redis's
/// `pre_command_oom_state`).
pub(crate) fn oom_at_start(ctx: &mut Ctx<'_>) -> bool {
    ctx.srv.config.maxmemory() > 0
        && evict::perform_evictions(ctx.srv, ctx.now_ms) == evict::Outcome::Fail
}

/// Redis's `scriptPrepareForRun` for EVAL and FCALL alike: the refusals a script's flags
/// call for before it runs (none for a script without a shebang), and what `redis.call`
/// will check while it runs.
pub(crate) fn prepare_run(
    ctx: &Ctx<'_>,
    flags: ScriptFlags,
    ro: bool,
    oom_at_start: bool,
) -> Result<Checks, Error> {
    let compat = flags.contains(ScriptFlags::EVAL_COMPAT_MODE);
    if !compat {
        if flags.contains(ScriptFlags::NO_CLUSTER) && ctx.srv.config.cluster_enabled() {
            return Err(Error::Err(
                "Can not run script on cluster, 'no-cluster' flag is set.".into(),
            ));
        }
        let writes = !flags.contains(ScriptFlags::NO_WRITES);
        if writes && ro {
            return Err(Error::Err(
                "Can not execute a script with write flag using *_ro command.".into(),
            ));
        }
        if writes && !ctx.srv.config.good_replicas() {
            return Err(Error::NoReplicas);
        }
        if oom_at_start && !flags.intersects(ScriptFlags::ALLOW_OOM | ScriptFlags::NO_WRITES) {
            return Err(Error::Coded(
                "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'".into(),
            ));
        }
    }
    Ok(Checks {
        read_only: ro || (!compat && flags.contains(ScriptFlags::NO_WRITES)),
        allow_oom: !compat && flags.contains(ScriptFlags::ALLOW_OOM),
        oom_at_start,
        allow_cross_slot: compat || flags.contains(ScriptFlags::ALLOW_CROSS_SLOT),
        slot: None,
        write_dirty: false,
    })
}

/// What a run starts: a cached script, or a function.
pub(crate) enum Start<'x> {
    /// `EVAL` & co.: the script with this digest.
    Eval {
        /// Its SHA-1.
        sha: &'x str,
    },
    /// `FCALL` & co.: the function with this id in the functions' engine.
    Function {
        /// Its id there.
        id: i32,
    },
}

/// Starts a run as the script client (Redis's `scriptPrepareForRun` done, then
/// `luaCallFunction`): it ends here, its writes replicated as one transaction, or it
/// pauses ([`crate::engine::busy`]), the caller blocked until [`Engine::resume_script`]
/// ends it. `name` is what errors and the log call it; `command` is shown by
/// FUNCTION STATS.
///
/// [`Engine::resume_script`]: crate::engine::Engine::resume_script
pub(crate) fn start_run(
    ctx: &mut Ctx<'_>,
    start: Start<'_>,
    name: String,
    checks: Checks,
    keys: &[Vec<u8>],
    argv: &[Vec<u8>],
    command: Vec<Vec<u8>>,
) -> CmdResult {
    let client = script_client(ctx);
    if ctx.srv.tracking.active() {
        // A read inside the script tracks the keys the command declares, for its caller.
        ctx.srv
            .tracking
            .set_script(Some((ctx.client.id, keys.to_vec())));
    }
    let mut debug = debugger_for(ctx, &start, keys, argv);
    let first_effect = ctx.srv.effects.len();
    let started_us = ctx.srv.clock.monotonic_us();
    let mut env = match start {
        Start::Eval { .. } => {
            let deprecated_api = ctx.srv.config.lua_deprecated_api();
            RunEnv::Eval(ctx.srv.scripts.take_env(deprecated_api))
        }
        Start::Function { .. } => RunEnv::Function(ctx.srv.functions.take_env()),
    };
    let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let argv: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
    let can_pause = !ctx.deny_blocking;
    let mut host = ScriptHost {
        ctx,
        client,
        checks,
        can_pause,
        slice_us: started_us,
        pause_asked_us: None,
        kill: false,
        name,
    };
    let step = match (&start, &mut env) {
        (Start::Eval { sha }, RunEnv::Eval(e)) => match debug.as_deref_mut() {
            Some(dbg) => {
                let mut host = DebugHost {
                    inner: &mut host,
                    dbg,
                };
                e.start_debug(sha, &keys, &argv, &mut host)
            }
            None => e.start_script(sha, &keys, &argv, &mut host),
        },
        (Start::Function { id }, RunEnv::Function(f)) => {
            // Errors name the function itself.
            let fname = host.name.clone();
            f.start_call(*id, &fname, &keys, &argv, &mut host)
        }
        _ => unreachable!("the environment matches the start"),
    };
    let ScriptHost {
        client,
        checks,
        name,
        ..
    } = host;
    ctx.srv.tracking.set_script(None);
    for (level, line) in env.take_log() {
        ctx.srv.log(level, &line);
    }
    match step {
        Step::Done(out) => {
            let reply = script_reply(out);
            let (counted, _) = ctx
                .srv
                .stats
                .count_script_errors(&reply, env.counted_errors());
            ctx.errors_counted = Some(counted);
            put_back(env, ctx.srv);
            wrap_effects(&mut ctx.srv.effects, first_effect);
            Ok(reply)
        }
        Step::Paused => {
            if let Some(d) = debug.as_deref_mut() {
                d.position = env.position().cloned();
            }
            ctx.srv.running = Some(Box::new(Running {
                caller: ctx.client.id,
                client,
                checks,
                first_effect,
                now_ms: ctx.now_ms,
                started_us,
                eval: matches!(start, Start::Eval { .. }),
                name,
                argv: command,
                kill: false,
                timed_out: false,
                waiters: Vec::new(),
                env,
                debug,
            }));
            ctx.block(Vec::new(), None, BlockOp::Script);
            Ok(Reply::Nil)
        }
    }
}

/// The debugger for this run, when its caller asked for one (`Engine::debug_eval`, for
/// `EVAL`-family scripts only): it stops before the first line.
fn debugger_for(
    ctx: &mut Ctx<'_>,
    start: &Start<'_>,
    keys: &[Vec<u8>],
    argv: &[Vec<u8>],
) -> Option<Box<Debugger>> {
    let Start::Eval { sha } = start else {
        return None;
    };
    if ctx.srv.debug_next != Some(ctx.client.id) || ctx.deny_blocking {
        return None;
    }
    ctx.srv.debug_next = None;
    let body = ctx.srv.scripts.cache.get(*sha)?.body.clone();
    Some(Box::new(Debugger {
        body,
        keys: keys.to_vec(),
        argv: argv.to_vec(),
        stepping: true,
        ..Debugger::default()
    }))
}

/// Gives a run's interpreter back to the server.
pub(super) fn put_back(env: RunEnv, srv: &mut Server) {
    match env {
        RunEnv::Eval(e) => srv.scripts.put_env(e),
        RunEnv::Function(f) => srv.functions.put_env(f),
    }
}

/// A script's result as the caller's reply.
pub(crate) fn script_reply(out: Result<Value, ScriptError>) -> Reply {
    match out {
        Ok(v) => to_reply(v),
        Err(e) => Reply::Error(String::from_utf8_lossy(&e.0).into_owned()),
    }
}

/// The client a script's commands run as (Redis's `lua_client`): the caller's database,
/// RESP2 until `redis.setresp`, shown as `lua` by MONITOR.
fn script_client(ctx: &Ctx<'_>) -> Client {
    Client {
        db: ctx.client.db,
        no_evict: true,
        readonly: ctx.client.readonly,
        script: true,
        user: ctx.client.user.clone(),
        ..Client::new(0, "lua", "", ctx.now_ms, true)
    }
}

/// `SCRIPT LOAD script`: caches and compiles it; replies with its SHA-1. O(N) in its
/// length.
pub(super) fn script_load(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let body = args.next_owned()?;
    let sha = scripting::sha1hex(&body);
    if !ctx.srv.scripts.cache.contains_key(&sha) {
        create(ctx, &sha, body)?;
    }
    Ok(Reply::Bulk(sha.into_bytes()))
}

/// `SCRIPT EXISTS sha1 [sha1 ...]`: 1 or 0 for each. O(N) in the digests.
pub(super) fn script_exists(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let cache = &ctx.srv.scripts.cache;
    Ok(Reply::Array(
        args.rest()
            .iter()
            .map(|sha| {
                // Redis looks the digest up case-insensitively.
                let known = std::str::from_utf8(sha)
                    .is_ok_and(|s| cache.contains_key(&s.to_ascii_lowercase()));
                Reply::Integer(known as i64)
            })
            .collect(),
    ))
}

/// `SCRIPT FLUSH [ASYNC | SYNC]`: forgets every script and restarts the interpreter.
/// O(N) in the cached scripts.
pub(super) fn script_flush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let rest = args.rest();
    match rest.as_slice() {
        [] => {}
        [mode] if mode.eq_ignore_ascii_case(b"sync") || mode.eq_ignore_ascii_case(b"async") => {}
        _ => {
            return Err(Error::Err(
                "SCRIPT FLUSH only support SYNC|ASYNC option".into(),
            ))
        }
    }
    ctx.srv.scripts.flush();
    Ok(Reply::ok())
}

/// `SCRIPT KILL`: stops the running script at its next check (Redis's `scriptKill`),
/// unless it has written or is a function. O(1).
pub(super) fn script_kill(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    kill(ctx, true)
}

/// `SCRIPT KILL` (`eval`) and `FUNCTION KILL`.
pub(crate) fn kill(ctx: &mut Ctx<'_>, eval: bool) -> CmdResult {
    match ctx.srv.running.as_mut() {
        None => Err(Error::NotBusy),
        Some(r) => match r.kill(eval) {
            Ok(()) => Ok(Reply::ok()),
            Err(e) => Err(Error::Coded(e.into())),
        },
    }
}

/// `SCRIPT DEBUG YES | SYNC | NO`.
pub(super) fn script_debug(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mode = args.next_bytes()?;
    if [&b"yes"[..], b"sync", b"no"]
        .iter()
        .any(|m| mode.eq_ignore_ascii_case(m))
    {
        // Redis's debugger (LDB) talks to redis-cli over the connection; kvlab's is the
        // workbench's. Accepted so clients that switch it off keep working.
        Ok(Reply::ok())
    } else {
        Err(Error::Err("Use SCRIPT DEBUG YES/SYNC/NO".into()))
    }
}

/// `SCRIPT HELP`.
pub(super) fn script_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "SCRIPT",
        crate::help_lines![
            "DEBUG (YES|SYNC|NO)",
            "    Set the debug mode for subsequent scripts executed.",
            "EXISTS <sha1> [<sha1> ...]",
            "    Return information about the existence of the scripts in the script cache.",
            "FLUSH [ASYNC|SYNC]",
            "    Flush the Lua scripts cache. Very dangerous on replicas.",
            "    When called without the optional mode argument, the behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
            "    * ASYNC: Asynchronously flush the scripts cache.",
            "    * SYNC: Synchronously flush the scripts cache.",
            "KILL",
            "    Kill the currently executing Lua script.",
            "LOAD <script>",
            "    Load a script into the scripts cache without executing it.",
        ],
    ))
}
