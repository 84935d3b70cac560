//! The transactions group: MULTI, EXEC, DISCARD, WATCH, UNWATCH (Redis 7.0 semantics).
//!
//! # Queueing
//! After `MULTI` a client's commands are not run but checked and queued
//! ([`MultiState`] in [`crate::engine::Client::multi`]); each replies `QUEUED`. The checks
//! are the ones [`crate::engine::Engine::execute`] makes for every command: an unknown
//! command or subcommand, a wrong number of arguments, a command flagged `NO_MULTI` (`ERR
//! Command not allowed inside a transaction`) are refused *and* mark the transaction, so
//! that `EXEC` fails with `EXECABORT Transaction discarded because of previous errors.`.
//! `EXEC`, `DISCARD`, `MULTI`, `WATCH`, `QUIT` and `RESET` are never queued: they run at
//! once (a nested `MULTI` and a `WATCH` are errors that do not mark the transaction).
//!
//! # EXEC
//! Fails with a nil array if a watched key changed or expired since `WATCH` (see
//! [`crate::engine::watch`]); otherwise runs the queued commands in order, with nothing in
//! between, and replies with the array of their replies. An error inside one of them is just
//! its entry in the array: the others still run (no rollback). Their effects are wrapped in
//! `MULTI` … `EXEC` in the effect stream when there is more than one, as Redis 7.0's
//! `propagatePendingCommands` wraps them for its AOF.
//!
//! Redis writes the array header for as many replies as there were queued commands, then
//! every reply of every command. A queued command that replies more than once (`SUBSCRIBE
//! a b`) thus shifts the following replies, and the last ones fall after the array: we
//! reply the same way (the array holds the first `N` replies, the rest follow it), so the
//! bytes are Redis's.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::table::{Command, Flags, Group};
use crate::engine::{call_with, Ctx, Effect, Reply};

/// Flags shared by MULTI, DISCARD, WATCH, UNWATCH.
const TX_FLAGS: Flags = Flags::NOSCRIPT
    .union(Flags::LOADING)
    .union(Flags::STALE)
    .union(Flags::FAST)
    .union(Flags::ALLOW_BUSY);

/// The transaction commands.
pub const COMMANDS: &[Command] = &[
    Command::new("multi", 1, Group::Transactions, multi)
        .flags(TX_FLAGS)
        .doc(
            "",
            "Starts a transaction: the following commands are queued until EXEC or DISCARD.",
            "O(1)",
            "1.2.0",
        ),
    Command::new("exec", 1, Group::Transactions, exec)
        .flags(
            Flags::NOSCRIPT
                .union(Flags::LOADING)
                .union(Flags::STALE)
                .union(Flags::SKIP_SLOWLOG),
        )
        .doc(
            "",
            "Runs the queued commands of the transaction atomically, unless a watched key changed.",
            "Depends on commands in the transaction",
            "1.2.0",
        ),
    Command::new("discard", 1, Group::Transactions, discard)
        .flags(TX_FLAGS)
        .doc(
            "",
            "Throws the queued commands of the transaction away and forgets the watched keys.",
            "O(N), when N is the number of queued commands",
            "2.0.0",
        ),
    Command::new("watch", -2, Group::Transactions, watch)
        .flags(TX_FLAGS)
        .keys(1, -1, 1)
        .key_flags(&["RO"])
        .doc(
            "key [key ...]",
            "Makes the next EXEC fail if any of the keys changes before it.",
            "O(1) for every key.",
            "2.2.0",
        ),
    Command::new("unwatch", 1, Group::Transactions, unwatch)
        .flags(TX_FLAGS)
        .doc(
            "",
            "Forgets every watched key of this connection.",
            "O(1)",
            "2.2.0",
        ),
];

/// A command waiting in a transaction, resolved when it was queued.
#[derive(Debug, Clone)]
pub struct Queued {
    /// The table row (the subcommand's, for container commands).
    pub cmd: &'static Command,
    /// Where the handler's arguments start (1, or 2 after a subcommand).
    pub pos: usize,
    /// The full argument vector.
    pub argv: Vec<Vec<u8>>,
}

/// A client's open transaction (Redis's `multiState` plus `CLIENT_DIRTY_EXEC`).
#[derive(Debug, Clone, Default)]
pub struct MultiState {
    /// Commands queued since MULTI, in order.
    pub queue: Vec<Queued>,
    /// A command was refused while queueing: EXEC must fail with EXECABORT.
    pub dirty_exec: bool,
}

/// `MULTI`: opens a transaction. Nested: `ERR MULTI calls can not be nested` (the open
/// transaction is not affected).
fn multi(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    if ctx.client.multi.is_some() {
        return Err(Error::Err("MULTI calls can not be nested".into()));
    }
    ctx.client.multi = Some(MultiState::default());
    Ok(Reply::ok())
}

/// `DISCARD`: drops the queued commands and every watch; `ERR DISCARD without MULTI` outside
/// a transaction.
fn discard(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    if ctx.client.multi.take().is_none() {
        return Err(Error::Err("DISCARD without MULTI".into()));
    }
    ctx.srv.watches.reset(ctx.client.id);
    Ok(Reply::ok())
}

/// `EXEC`: see the module documentation. Outside a transaction: `ERR EXEC without MULTI`.
/// O(N) in the queued commands plus their own costs.
fn exec(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let Some(state) = ctx.client.multi.take() else {
        return Err(Error::Err("EXEC without MULTI".into()));
    };
    let id = ctx.client.id;
    let now = ctx.now_ms;
    let touched =
        ctx.srv.watches.is_dirty(id) || ctx.srv.watches.any_expired(id, &ctx.srv.dbs, now);
    ctx.srv.watches.reset(id);
    if state.dirty_exec {
        return Err(Error::Coded(
            "EXECABORT Transaction discarded because of previous errors.".into(),
        ));
    }
    if touched {
        return Ok(Reply::NilArray);
    }
    let first_effect = ctx.srv.effects.len();
    let count = state.queue.len();
    let mut replies = Vec::with_capacity(count);
    for q in state.queue {
        replies.extend(call_with(
            &mut *ctx.srv,
            &mut *ctx.client,
            &mut *ctx.others,
            q.cmd,
            q.pos,
            q.argv,
            now,
            true,
        ));
    }
    // Redis writes an array header for `count` replies, then every reply of every queued
    // command: with a multi-reply command among them, the last replies fall after the array.
    let after = replies.split_off(count.min(replies.len()));
    ctx.also_reply_all(after);
    let effects = &mut ctx.srv.effects;
    if effects.len() > first_effect + 1 {
        let first_db = effects[first_effect].db;
        let last_db = effects.last().map_or(first_db, |e| e.db);
        effects.insert(
            first_effect,
            Effect {
                db: first_db,
                argv: vec![b"MULTI".to_vec()],
            },
        );
        effects.push(Effect {
            db: last_db,
            argv: vec![b"EXEC".to_vec()],
        });
    }
    Ok(Reply::Array(replies))
}

/// `WATCH key [key ...]`: watches the keys in the selected database for the next EXEC.
/// Inside MULTI: `ERR WATCH inside MULTI is not allowed`. A client whose watched keys already
/// changed just replies OK (its EXEC will fail anyway). O(1) per key.
fn watch(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if ctx.client.multi.is_some() {
        return Err(Error::Err("WATCH inside MULTI is not allowed".into()));
    }
    let (id, db, now) = (ctx.client.id, ctx.client.db, ctx.now_ms);
    if ctx.srv.watches.is_dirty(id) {
        return Ok(Reply::ok());
    }
    for key in args.rest() {
        let expired = ctx.srv.dbs[db].is_expired(&key, now);
        ctx.srv.watches.watch(id, db, &key, expired);
    }
    Ok(Reply::ok())
}

/// `UNWATCH`: forgets every watched key (and that one changed). O(N) in watched keys.
fn unwatch(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.srv.watches.reset(ctx.client.id);
    Ok(Reply::ok())
}
