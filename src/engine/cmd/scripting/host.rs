//! How a running script's `redis.call` reaches the engine (Redis's `scriptCall`): the
//! checks a command from a script gets, the run as the script's own client, and the
//! conversions between the engine's replies and the interpreter's.

use kvlab_lua::redis::{Host, Interrupt, Value};

use crate::engine::busy::{Checks, SLICE_MS};

use crate::engine::cluster;
use crate::engine::core::client::Client;
use crate::engine::core::ctx::{Ctx, Site};
use crate::engine::core::dispatch::{call, resolve, Mode};
use crate::engine::error::Error;
use crate::engine::reply::{format_double, Reply};
use crate::engine::table::{Command, Flags};

/// One script run's side of the server, for one slice of its run.
pub(crate) struct ScriptHost<'c, 'a> {
    pub ctx: &'c mut Ctx<'a>,
    /// The client the script's commands run as.
    pub client: Client,
    /// What `redis.call` checks.
    pub checks: Checks,
    /// The run may pause (see [`crate::engine::busy`]): not inside `EXEC`.
    pub can_pause: bool,
    /// When this slice started, monotonic microseconds.
    pub slice_us: i64,
    /// When this slice first asked the script to pause, monotonic microseconds.
    pub pause_asked_us: Option<i64>,
    /// `SCRIPT KILL` asked for it.
    pub kill: bool,
    /// The name the log gives it.
    pub name: String,
}
impl ScriptHost<'_, '_> {
    /// Redis's checks of `scriptCall`, in its order; `Err` is the error reply's text.
    fn check(
        &mut self,
        cmd: &'static Command,
        argv: &[Vec<u8>],
        keys: &[&[u8]],
    ) -> Result<(), String> {
        let cmd_flags = cmd.flags;
        if cmd_flags.contains(Flags::NOSCRIPT) && !self.ctx.srv.debug.scripts_may_call_noscript {
            return Err("ERR This Redis command is not allowed from script".into());
        }
        if !self.ctx.srv.acl.all_open() {
            if let Some(Err(denied)) = self
                .ctx
                .srv
                .acl
                .get(&self.client.user)
                .map(|u| u.check(cmd, argv))
            {
                return Err(format!(
                    "ERR The user executing the script {}",
                    denied.script_reason()
                ));
            }
        }
        if self.checks.read_only && cmd_flags.intersects(Flags::WRITE.union(Flags::MAY_REPLICATE)) {
            return Err("ERR Write commands are not allowed from read-only scripts.".into());
        }
        if !self.checks.allow_oom
            && !self.checks.write_dirty
            && self.checks.oom_at_start
            && cmd_flags.contains(Flags::DENYOOM)
        {
            return Err(Error::OutOfMemory.to_string());
        }
        if cmd_flags.contains(Flags::WRITE)
            && !self.checks.write_dirty
            && !self.ctx.srv.config.good_replicas()
        {
            // Only reachable for scripts without a shebang (scriptPrepareForRun refuses
            // the others before they run).
            return Err(Error::NoReplicas.to_string());
        }
        if cmd_flags.contains(Flags::WRITE) {
            self.checks.write_dirty = true;
        }
        if self.ctx.srv.config.cluster_enabled() && !keys.is_empty() {
            let first = cluster::key_slot(keys[0]);
            if keys.iter().any(|k| cluster::key_slot(k) != first) {
                // Redis's getNodeByQuery finds no single node for the command.
                return Err(
                    "ERR Script attempted to access a non local key in a cluster node".into(),
                );
            }
            if !self.checks.allow_cross_slot {
                match self.checks.slot {
                    None => self.checks.slot = Some(first),
                    Some(s) if s != first => {
                        return Err(
                            "ERR Script attempted to access keys that do not hash to the same slot"
                                .into(),
                        )
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}

impl Host for ScriptHost<'_, '_> {
    fn call(&mut self, argv: Vec<Vec<u8>>, resp: u8) -> Value {
        let table = self.ctx.table;
        let (_, cmd, _, pos) = match resolve(table, &argv) {
            Ok(r) => r,
            Err(e) => {
                // Counted as errors, and a known command's arity as its rejection.
                let text = if matches!(e, Error::WrongArity(_)) {
                    self.ctx.srv.stats.reject(table, &argv);
                    "ERR Wrong number of args calling Redis command from script"
                } else {
                    "ERR Unknown Redis command called from script"
                };
                self.ctx.srv.stats.count_error(text);
                self.ctx.srv.stats.settle_errors();
                return Value::Error(text.as_bytes().to_vec());
            }
        };
        let key_pos = cmd.key_indexes(&argv).unwrap_or_default();
        let keys: Vec<&[u8]> = key_pos
            .iter()
            .filter_map(|&i| argv.get(i).map(Vec::as_slice))
            .collect();
        if let Err(e) = self.check(cmd, &argv, &keys) {
            self.ctx.srv.stats.reject_command(table, cmd, &argv, pos);
            self.ctx.srv.stats.count_error(&e);
            self.ctx.srv.stats.settle_errors();
            return Value::Error(e.into_bytes());
        }
        self.client.proto = resp;
        let site = Site {
            srv: &mut *self.ctx.srv,
            client: &mut self.client,
            others: self.ctx.others.reborrow(),
            table,
            now_ms: self.ctx.now_ms,
            started_us: None,
        };
        let replies = call(site, cmd, pos, argv, Mode::IN_SCRIPT);
        let reply = replies.into_iter().next().unwrap_or(Reply::Nil);
        to_value(reply, resp)
    }

    fn interrupt(&mut self) -> Interrupt {
        if self.kill {
            return Interrupt::Kill;
        }
        let now = self.ctx.srv.clock.monotonic_us();
        if (now - self.slice_us) / 1000 < SLICE_MS {
            return Interrupt::Continue;
        }
        // The slice is over. A script asked to pause that is still here could not (it is
        // inside a metamethod, a comparator, a coroutine of its own), and one inside EXEC
        // cannot at all: nothing can reach it with SCRIPT KILL, so past the threshold it
        // is killed here, as SCRIPT KILL would (never once it wrote).
        let stuck_since = if self.can_pause {
            *self.pause_asked_us.get_or_insert(now)
        } else {
            self.slice_us
        };
        let stuck_ms = (now - stuck_since) / 1000;
        let threshold = self.ctx.srv.config.busy_reply_threshold().max(SLICE_MS);
        if stuck_ms >= threshold && !self.checks.write_dirty {
            let why = format!(
                "Script {} ran for {stuck_ms} ms where it could not pause (inside MULTI/EXEC, a metamethod, a comparator or a coroutine); killing it as SCRIPT KILL would.",
                self.name
            );
            self.ctx.srv.log(3, why.as_bytes());
            self.kill = true;
            return Interrupt::Kill;
        }
        if self.can_pause {
            Interrupt::Pause
        } else {
            Interrupt::Continue
        }
    }

    fn log(&mut self, level: i32, message: &[u8]) {
        self.ctx.srv.log(level, message);
    }

    fn verbosity(&self) -> i32 {
        self.ctx.srv.verbosity()
    }

    fn acl_check(&mut self, argv: &[Vec<u8>]) -> Option<bool> {
        // Redis's luaRedisAclCheckCmdPermissionsCommand: an unknown command (or
        // subcommand) is an error; otherwise whether the script's user may run it.
        let top = self.ctx.table.lookup(argv.first()?)?;
        let cmd = match argv.get(1) {
            Some(sub) if !top.subcommands.is_empty() => top.subcommand(sub)?,
            _ => top,
        };
        let acl = &self.ctx.srv.acl;
        Some(
            acl.all_open()
                || acl
                    .get(&self.client.user)
                    .is_some_and(|u| u.check(cmd, argv).is_ok()),
        )
    }
}

/// An engine reply as the script's protocol carries it to Lua.
pub(super) fn to_value(reply: Reply, resp: u8) -> Value {
    let resp3 = resp >= 3;
    match reply {
        // Scripts see the reply, not its attributes (Redis's Lua parser skips them).
        Reply::Attributed(_, inner) => to_value(*inner, resp),
        Reply::Status(s) => Value::Status(s.into_owned().into_bytes()),
        Reply::Error(e) => Value::Error(e.into_bytes()),
        Reply::Integer(n) => Value::Int(n),
        Reply::Bulk(b) => Value::Bulk(b),
        Reply::Nil if resp3 => Value::Null,
        Reply::Nil => Value::NullBulk,
        Reply::NilArray if resp3 => Value::Null,
        Reply::NilArray => Value::NullArray,
        Reply::Array(items) | Reply::Push(items) => {
            Value::Array(items.into_iter().map(|r| to_value(r, resp)).collect())
        }
        Reply::Map(pairs) if resp3 => Value::Map(
            pairs
                .into_iter()
                .map(|(k, v)| (to_value(k, resp), to_value(v, resp)))
                .collect(),
        ),
        Reply::Map(pairs) => Value::Array(
            pairs
                .into_iter()
                .flat_map(|(k, v)| [to_value(k, resp), to_value(v, resp)])
                .collect(),
        ),
        Reply::Set(items) if resp3 => {
            Value::Set(items.into_iter().map(|r| to_value(r, resp)).collect())
        }
        Reply::Set(items) => Value::Array(items.into_iter().map(|r| to_value(r, resp)).collect()),
        Reply::Double(d) if resp3 => Value::Double(d),
        Reply::Double(d) => Value::Bulk(format_double(d).into_bytes()),
        Reply::DoubleText(t) if resp3 => Value::Double(t.parse().unwrap_or(0.0)),
        Reply::DoubleText(t) => Value::Bulk(t.into_bytes()),
        Reply::Bool(b) if resp3 => Value::Bool(b),
        Reply::Bool(b) => Value::Int(b as i64),
        Reply::Verbatim(f, t) if resp3 => Value::Verbatim(f.to_vec(), t),
        Reply::Verbatim(_, t) => Value::Bulk(t),
        Reply::BigNumber(n) if resp3 => Value::BigNumber(n.into_bytes()),
        Reply::BigNumber(n) => Value::Bulk(n.into_bytes()),
    }
}

/// A script's result as the engine's reply (the caller's protocol encodes it).
pub(crate) fn to_reply(v: Value) -> Reply {
    match v {
        Value::Status(s) => Reply::Status(String::from_utf8_lossy(&s).into_owned().into()),
        Value::Error(e) => Reply::Error(String::from_utf8_lossy(&e).into_owned()),
        Value::Int(n) => Reply::Integer(n),
        Value::Bulk(b) => Reply::Bulk(b),
        Value::Null | Value::NullBulk => Reply::Nil,
        Value::NullArray => Reply::NilArray,
        Value::Array(items) => Reply::Array(items.into_iter().map(to_reply).collect()),
        Value::Map(pairs) => Reply::Map(
            pairs
                .into_iter()
                .map(|(k, v)| (to_reply(k), to_reply(v)))
                .collect(),
        ),
        Value::Set(items) => Reply::Set(items.into_iter().map(to_reply).collect()),
        Value::Double(d) => Reply::Double(d),
        Value::Bool(b) => Reply::Bool(b),
        Value::BigNumber(n) => Reply::BigNumber(String::from_utf8_lossy(&n).into_owned()),
        Value::Verbatim(f, t) => {
            // Three bytes (the interpreter pads a shorter format with spaces).
            let mut format = *b"   ";
            format.iter_mut().zip(&f).for_each(|(d, s)| *d = *s);
            Reply::Verbatim(format, t)
        }
    }
}
