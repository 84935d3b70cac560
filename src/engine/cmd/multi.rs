//! The transactions group: MULTI, EXEC, DISCARD, WATCH, UNWATCH (Redis 7.0 semantics).
//!
//! # Queueing
//! After `MULTI` a client's commands are not run but checked and queued
//! ([`crate::engine::MultiState`] in [`crate::engine::Client::multi`]); each replies `QUEUED`. The checks
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
use crate::engine::core::dispatch::{call, Mode};
use crate::engine::error::{CmdResult, Error};
use crate::engine::table::{Command, DispatchFlags, Flags, Group, KeySpec, Touches};
use crate::engine::{Ctx, Effect, MultiState, Reply};

/// Flags shared by MULTI, DISCARD, WATCH, UNWATCH.
const TX_FLAGS: Flags = Flags::NOSCRIPT
    .union(Flags::LOADING)
    .union(Flags::STALE)
    .union(Flags::FAST)
    .union(Flags::ALLOW_BUSY);

/// The transaction commands.
pub const COMMANDS: &[Command] = &[
    Command::new("multi", 1, Group::Transactions, multi)
        .dispatch(DispatchFlags::NOT_QUEUED)
        .touches(Touches::Nothing)
        .flags(TX_FLAGS)
        .doc(
            "",
            "Starts a transaction: the following commands are queued until EXEC or DISCARD.",
            "O(1)",
            "1.2.0",
        ),
    Command::new("exec", 1, Group::Transactions, exec)
        .dispatch(
            DispatchFlags::NOT_QUEUED
                .union(DispatchFlags::ENDS_MULTI)
                .union(DispatchFlags::RUNS_QUEUE),
        )
        .touches(Touches::Nothing)
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
        .dispatch(DispatchFlags::NOT_QUEUED.union(DispatchFlags::ENDS_MULTI))
        .flags(TX_FLAGS)
        .doc(
            "",
            "Throws the queued commands of the transaction away and forgets the watched keys.",
            "O(N), when N is the number of queued commands",
            "2.0.0",
        ),
    Command::new("watch", -2, Group::Transactions, watch)
        .dispatch(DispatchFlags::NOT_QUEUED)
        .key_specs(&[KeySpec::index(1, "RO").range(-1, 1, 0)])
        .flags(TX_FLAGS)
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
        // Found again by name: the table is static, so this is the row it was queued as.
        let Some(cmd) = ctx.table.resolved(&q.argv, q.pos) else {
            continue;
        };
        replies.extend(call(ctx.site(), cmd, q.pos, q.argv, Mode::IN_EXEC));
    }
    // Redis writes an array header for `count` replies, then every reply of every queued
    // command: with a multi-reply command among them, the last replies fall after the array.
    let after = replies.split_off(count.min(replies.len()));
    ctx.also_reply_all(after);
    wrap_effects(&mut ctx.srv.effects, first_effect);
    Ok(Reply::Array(replies))
}

/// Wraps the effects recorded from `first` on in `MULTI` … `EXEC` when there are several,
/// so that they replicate (and persist) as one unit: a transaction's, or a script's.
pub(crate) fn wrap_effects(effects: &mut Vec<Effect>, first: usize) {
    if effects.len() > first + 1 {
        let first_db = effects[first].db;
        let last_db = effects.last().map_or(first_db, |e| e.db);
        effects.insert(
            first,
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

#[cfg(test)]
mod tests {

    use crate::engine::testing::{self, run};
    use crate::engine::{ClientId, Effect, Engine, ManualClock, Reply};

    fn engine() -> (Engine, ManualClock, ClientId, ClientId) {
        let (mut e, clock) = testing::engine();
        let a = e.connect();
        let b = e.connect();
        (e, clock, a, b)
    }

    /// WATCH k on `a`, then `touch` (on either client), then a transaction on `a`:
    /// true if EXEC ran it, false if it failed with a nil array.
    fn exec_survives(
        e: &mut Engine,
        a: ClientId,
        setup: &[(ClientId, &str)],
        touch: &[(ClientId, &str)],
    ) -> bool {
        for (c, line) in setup {
            run(e, *c, line);
        }
        assert_eq!(run(e, a, "WATCH k"), Reply::ok());
        for (c, line) in touch {
            run(e, *c, line);
        }
        assert_eq!(run(e, a, "MULTI"), Reply::ok());
        assert_eq!(run(e, a, "PING"), Reply::status("QUEUED"));
        match run(e, a, "EXEC") {
            Reply::NilArray => false,
            Reply::Array(items) => {
                assert_eq!(items, vec![Reply::status("PONG")]);
                true
            }
            other => panic!("unexpected EXEC reply {other:?}"),
        }
    }

    #[test]
    fn each_kind_of_write_invalidates_a_watch() {
        let writes = [
            "SET k 2",
            "DEL k",
            "UNLINK k",
            "APPEND k x",
            "INCR k",
            "SETRANGE k 0 z",
            "GETDEL k",
            "GETEX k EX 100",
            "EXPIRE k 100",
            "PEXPIRE k -1",
            "RENAME k other",
            "RENAME other k",
            "MOVE k 3",
            "COPY other k REPLACE",
            "MSET x 1 k 2",
            "FLUSHDB",
            "FLUSHALL",
            "SWAPDB 0 1",
        ];
        for w in writes {
            for by_self in [false, true] {
                let (mut e, _, a, b) = engine();
                let writer = if by_self { a } else { b };
                let setup = [(b, "SET k 1"), (b, "SET other 9")];
                assert!(
                    !exec_survives(&mut e, a, &setup, &[(writer, w)]),
                    "{w} (by {}) did not invalidate the watch",
                    if by_self {
                        "the watcher"
                    } else {
                        "another client"
                    }
                );
            }
        }
    }

    #[test]
    fn hash_writes_and_persist_invalidate_a_watch() {
        for (setup, w) in [
            ("HSET k f 1", "HSET k g 2"),
            ("HSET k f 1", "HDEL k f"),
            ("HSET k f 1", "HINCRBY k f 1"),
            ("HSET k f 1", "HINCRBYFLOAT k f 1"),
            ("HSET k f 1", "HSETNX k g 1"),
            ("SET k 1 EX 100", "PERSIST k"),
        ] {
            let (mut e, _, a, b) = engine();
            assert!(!exec_survives(&mut e, a, &[(b, setup)], &[(b, w)]), "{w}");
        }
    }

    #[test]
    fn writes_that_change_nothing_leave_the_watch_alone() {
        for w in [
            "DEL nosuch k2",
            "EXPIRE nosuch 10",
            "PERSIST k",
            "SETNX k 5",
            "HDEL k f",
            "RENAME k k",
            "SET other 1",
            "COPY k copy",
            "FLUSHDB",
            "SWAPDB 4 5",
            "GET k",
        ] {
            let (mut e, _, a, b) = engine();
            let setup = [(b, "SELECT 0"), (b, "SET k 1")];
            let touch = [(b, "SELECT 2"), (b, w), (b, "SELECT 0")];
            let survives = exec_survives(&mut e, a, &setup, &touch);
            // In database 2 nothing touches database 0's k, whatever the command.
            assert!(survives, "{w} in another database");
            let (mut e, _, a, b) = engine();
            let touch = [(b, w)];
            let expect = !matches!(w, "FLUSHDB");
            assert_eq!(exec_survives(&mut e, a, &setup, &touch), expect, "{w}");
        }
    }

    #[test]
    fn expiry_invalidates_a_watch_lazily_actively_or_not_at_all() {
        // Expired by the clock alone: EXEC checks deadlines (Redis 7.0).
        let (mut e, clock, a, b) = engine();
        run(&mut e, b, "SET k 1 PX 100");
        run(&mut e, a, "WATCH k");
        clock.advance_ms(101);
        run(&mut e, a, "MULTI");
        assert_eq!(run(&mut e, a, "EXEC"), Reply::NilArray);
        // Removed by a lazy lookup from another client.
        let (mut e, clock, a, b) = engine();
        run(&mut e, b, "SET k 1 PX 100");
        run(&mut e, a, "WATCH k");
        clock.advance_ms(101);
        assert_eq!(run(&mut e, b, "GET k"), Reply::Nil);
        run(&mut e, a, "MULTI");
        assert_eq!(run(&mut e, a, "EXEC"), Reply::NilArray);
        // Removed by the active cycle.
        let (mut e, clock, a, b) = engine();
        run(&mut e, b, "SET k 1 PX 100");
        run(&mut e, a, "WATCH k");
        clock.advance_ms(101);
        assert_eq!(e.tick(), 1);
        run(&mut e, a, "MULTI");
        assert_eq!(run(&mut e, a, "EXEC"), Reply::NilArray);
        // Already expired when watched: its removal is no change.
        let (mut e, clock, a, b) = engine();
        run(&mut e, b, "SET k 1 PX 100");
        clock.advance_ms(101);
        run(&mut e, a, "WATCH k");
        assert_eq!(e.tick(), 1);
        run(&mut e, a, "MULTI");
        assert_eq!(
            run(&mut e, a, "EXEC"),
            Reply::Array(vec![]),
            "a key watched while expired"
        );
    }

    #[test]
    fn a_dirty_client_stays_dirty_until_the_transaction_ends() {
        let (mut e, _, a, b) = engine();
        run(&mut e, a, "WATCH k");
        run(&mut e, b, "SET k 1");
        // Watching more keys does not clean the flag; UNWATCH does.
        run(&mut e, a, "WATCH j");
        run(&mut e, a, "MULTI");
        assert_eq!(run(&mut e, a, "EXEC"), Reply::NilArray);
        run(&mut e, a, "WATCH k");
        run(&mut e, b, "SET k 2");
        run(&mut e, a, "UNWATCH");
        run(&mut e, a, "MULTI");
        assert_eq!(run(&mut e, a, "EXEC"), Reply::Array(vec![]));
        assert_eq!(e.server().watches.client_count(), 0);
        assert_eq!(e.server().watches.key_count(), 0);
    }

    #[test]
    fn queueing_errors_abort_and_runtime_errors_do_not() {
        let (mut e, _, a, _) = engine();
        run(&mut e, a, "MULTI");
        assert_eq!(run(&mut e, a, "SET k v"), Reply::status("QUEUED"));
        assert!(run(&mut e, a, "GET").is_error());
        assert_eq!(
            run(&mut e, a, "EXEC"),
            Reply::Error("EXECABORT Transaction discarded because of previous errors.".into())
        );
        assert_eq!(run(&mut e, a, "GET k"), Reply::Nil);
        run(&mut e, a, "MULTI");
        run(&mut e, a, "SET k v");
        run(&mut e, a, "INCR k");
        run(&mut e, a, "SET j w");
        let Reply::Array(items) = run(&mut e, a, "EXEC") else {
            panic!("EXEC did not run")
        };
        assert_eq!(items.len(), 3);
        assert!(items[1].is_error());
        assert_eq!(run(&mut e, a, "GET j"), Reply::bulk(b"w"));
    }

    #[test]
    fn exec_wraps_its_effects_in_multi_exec_when_there_are_several() {
        let (mut e, _, a, _) = engine();
        let argv = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
        run(&mut e, a, "MULTI");
        run(&mut e, a, "SET k 1");
        run(&mut e, a, "SELECT 2");
        run(&mut e, a, "INCR k");
        run(&mut e, a, "GET k");
        run(&mut e, a, "EXEC");
        assert_eq!(
            e.take_effects(),
            vec![
                Effect {
                    db: 0,
                    argv: argv(&["MULTI"])
                },
                Effect {
                    db: 0,
                    argv: argv(&["SET", "k", "1"])
                },
                Effect {
                    db: 2,
                    argv: argv(&["INCR", "k"])
                },
                Effect {
                    db: 2,
                    argv: argv(&["EXEC"])
                },
            ]
        );
        // One write needs no wrapping (Redis 7.0), a read-only transaction records nothing.
        run(&mut e, a, "MULTI");
        run(&mut e, a, "SET k 2");
        run(&mut e, a, "EXEC");
        assert_eq!(e.take_effects().len(), 1);
        run(&mut e, a, "MULTI");
        run(&mut e, a, "GET k");
        run(&mut e, a, "EXEC");
        assert!(e.take_effects().is_empty());
    }

    #[test]
    fn disconnect_and_reset_leave_nothing_behind() {
        let (mut e, _, a, b) = engine();
        run(&mut e, a, "WATCH k j");
        run(&mut e, a, "MULTI");
        run(&mut e, a, "SET k 1");
        run(&mut e, b, "WATCH k");
        assert_eq!(e.server().watches.key_count(), 2);
        e.disconnect(a);
        assert_eq!(e.server().watches.key_count(), 1);
        assert_eq!(run(&mut e, b, "RESET"), Reply::status("RESET"));
        assert_eq!(e.server().watches.key_count(), 0);
        assert_eq!(e.server().watches.client_count(), 0);
        run(&mut e, b, "MULTI");
        run(&mut e, b, "RESET");
        assert!(e.client(b).is_some_and(|c| c.multi.is_none()));
    }
}
