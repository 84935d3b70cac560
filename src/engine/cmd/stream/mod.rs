//! The stream group: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XREAD, XREADGROUP, XACK,
//! XPENDING, XCLAIM, XAUTOCLAIM, XSETID, XGROUP and XINFO, as Redis 7.0's `t_stream.c`.
//!
//! The data structure and its invariants are in [`crate::engine::types::stream`]. This file
//! parses arguments in Redis's order (which decides which error wins), shapes replies, and
//! records effects the way Redis propagates them:
//!
//! * `XADD` with `*` or `ms-*` is recorded with the ID it generated; an approximate trim
//!   (`MAXLEN ~ n`, `MINID ~ id`) is recorded as an exact one (`= <resulting length>` or
//!   `= <first ID>`), so that replaying removes exactly what was removed.
//! * `XREADGROUP`, `XCLAIM` and `XAUTOCLAIM` are not recorded as such: each delivery or
//!   claim is recorded as `XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID
//!   LASTID last`, a group's last ID moved without a claim as `XGROUP SETID … ENTRIESREAD
//!   n`, and a consumer created by a `NOACK` read as `XGROUP CREATECONSUMER`.
//!
//! Two additions make replaying exact where a Redis replica drifts: a group read that
//! delivered new entries also records `XGROUP SETID … ENTRIESREAD n` (Redis's XCLAIMs carry
//! the last ID but not the read counter), and a consumer created by any read is recorded
//! with `XGROUP CREATECONSUMER` (Redis records it only for NOACK reads, so a consumer whose
//! first read delivered nothing does not exist on its replicas), and a read of a consumer's
//! history, which counts a delivery of each entry, records the same `XCLAIM … FORCE JUSTID`
//! per entry (Redis records nothing, so its replicas keep the older count and time).
//!
//! Idle times, delivery times and `*` IDs come from the command's instant (`Ctx::now_ms`,
//! the injected clock).
//!
//! # Blocking
//! `XREAD … BLOCK` and `XREADGROUP … BLOCK` with nothing to serve block their client on
//! the stream keys ([`BlockOp::XRead`](crate::engine::blocking::BlockOp::XRead)). After a write signals one of those keys, the engine
//! asks [`read::blocked_action`] what to do with each waiter and serves it with
//! `serve_blocked`: a plain reader when the stream's last ID passed the ID it waits
//! after, a group reader when it passed the group's last delivered ID. A group reader
//! whose group was destroyed gets `NOGROUP`, one whose key was deleted or replaced by
//! another type `UNBLOCKED`, as Redis 7.0 replies.
//!
//! # Layout
//! - [`helpers`]: ID parsing, entry replies, stream access shared by the commands.
//! - [`mod@write`]: XADD, XTRIM, XDEL, XLEN, XRANGE, XREVRANGE.
//! - [`read`]: XREAD, XREADGROUP, and the blocked readers' family ([`Readers`]).
//! - [`pending`]: XACK, XPENDING, XCLAIM, XAUTOCLAIM, XSETID.
//! - [`group`]: XGROUP and its subcommands.
//! - [`info`]: XINFO and its subcommands.

pub mod group;
pub mod helpers;
pub mod info;
pub mod pending;
pub mod read;
pub mod write;

use crate::engine::table::{Command, Flags, Group, KeySpec};
use group::{
    xgroup_create, xgroup_createconsumer, xgroup_delconsumer, xgroup_destroy, xgroup_help,
    xgroup_setid,
};
use info::{xinfo_consumers, xinfo_groups, xinfo_help, xinfo_stream};
use pending::{xack, xautoclaim, xclaim, xpending, xsetid};
pub use read::{blocked_action, BlockedAction, Readers, READERS};
use read::{xread, xreadgroup};
use write::{xadd, xdel, xlen, xrange, xrevrange, xtrim};
const R: Flags = Flags::READONLY;
const RF: Flags = Flags::READONLY.union(Flags::FAST);
const W: Flags = Flags::WRITE;
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);
const WDF: Flags = WD.union(Flags::FAST);
const HELP_FLAGS: Flags = Flags::LOADING.union(Flags::STALE);

/// The stream commands.
pub const COMMANDS: &[Command] = &[
    Command::new("xack", -4, Group::Stream, xack)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WF)
        .doc(
            "key group id [id ...]",
            "Acknowledges messages of a consumer group, removing them from its pending entries list.",
            "O(1) for each message ID processed.",
            "5.0.0",
        ),
    Command::new("xadd", -5, Group::Stream, xadd)
        .key_specs(&[
            KeySpec::index(1, "RW update")
                .notes("UPDATE instead of INSERT because of the optional trimming feature"),
        ])
        .tips(&["nondeterministic_output"])
        .flags(WDF)
        .doc(
            "key [NOMKSTREAM] [MAXLEN | MINID [= | ~] threshold [LIMIT count]] * | id field value [field value ...]",
            "Appends an entry to a stream, creating the stream if needed, and optionally trims it.",
            "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
            "5.0.0",
        ),
    Command::new("xautoclaim", -6, Group::Stream, xautoclaim)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .tips(&["nondeterministic_output"])
        .flags(WF)
        .doc(
            "key group consumer min-idle-time start [COUNT count] [JUSTID]",
            "Transfers pending messages idle long enough to a consumer, scanning the pending list like SCAN.",
            "O(1) if COUNT is small.",
            "6.2.0",
        ),
    Command::new("xclaim", -6, Group::Stream, xclaim)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .tips(&["nondeterministic_output"])
        .flags(WF)
        .doc(
            "key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]",
            "Changes the owner of pending messages of a consumer group.",
            "O(log N) with N being the number of messages in the PEL of the consumer group.",
            "5.0.0",
        ),
    Command::new("xdel", -3, Group::Stream, xdel)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(WF)
        .doc(
            "key id [id ...]",
            "Deletes entries from a stream by ID, returning how many existed.",
            "O(1) for each single item to delete in the stream, regardless of the stream size.",
            "5.0.0",
        ),
    Command::container("xgroup", Group::Stream, XGROUP_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Manages the consumer groups of a stream.",
        "Depends on subcommand.",
        "5.0.0",
    ),
    Command::container("xinfo", Group::Stream, XINFO_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Reports on streams, their consumer groups and consumers.",
        "Depends on subcommand.",
        "5.0.0",
    ),
    Command::new("xlen", 2, Group::Stream, xlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc(
            "key",
            "Returns the number of entries in a stream.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("xpending", -3, Group::Stream, xpending)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key group [[IDLE min-idle-time] start end count [consumer]]",
            "Reports on the pending entries list of a consumer group: a summary, or the entries in a range.",
            "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
            "5.0.0",
        ),
    Command::new("xrange", -4, Group::Stream, xrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start end [COUNT count]",
            "Returns the entries of a stream with IDs in a range.",
            "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
            "5.0.0",
        ),
    Command::new("xread", -4, Group::Stream, xread)
        .key_specs(&[KeySpec::keyword("STREAMS", 1, "RO access").range(-1, 1, 2)])
        .flags(R.union(Flags::BLOCKING))
        .doc(
            "[COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]",
            "Returns entries of streams with IDs greater than given ones; blocks until some arrive otherwise.",
            "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
            "5.0.0",
        ),
    Command::new("xreadgroup", -7, Group::Stream, xreadgroup)
        .key_specs(&[KeySpec::keyword("STREAMS", 4, "RO access").range(-1, 1, 2)])
        .flags(W.union(Flags::BLOCKING))
        .doc(
            "GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]",
            "Reads from streams as a consumer of a group, recording deliveries in its pending entries list; blocks until new entries arrive otherwise.",
            "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
            "5.0.0",
        ),
    Command::new("xrevrange", -4, Group::Stream, xrevrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key end start [COUNT count]",
            "Returns the entries of a stream with IDs in a range, highest first.",
            "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
            "5.0.0",
        ),
    Command::new("xsetid", -3, Group::Stream, xsetid)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WDF)
        .doc(
            "key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]",
            "Sets a stream's last generated ID, entries-added counter and maximal deleted ID.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("xtrim", -4, Group::Stream, xtrim)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .tips(&["nondeterministic_output"])
        .flags(W)
        .doc(
            "key MAXLEN | MINID [= | ~] threshold [LIMIT count]",
            "Removes the oldest entries of a stream, by length or by ID.",
            "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
            "5.0.0",
        ),
];

const XGROUP_SUBCOMMANDS: &[Command] = &[
    Command::new("create", -5, Group::Stream, xgroup_create)
        .key_specs(&[KeySpec::index(2, "RW insert")])
        .flags(WD)
        .doc(
            "key group id | $ [MKSTREAM] [ENTRIESREAD entries-read]",
            "Creates a consumer group.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("createconsumer", 5, Group::Stream, xgroup_createconsumer)
        .key_specs(&[KeySpec::index(2, "RW insert")])
        .flags(WD)
        .doc(
            "key group consumer",
            "Creates a consumer in a consumer group.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("delconsumer", 5, Group::Stream, xgroup_delconsumer)
        .key_specs(&[KeySpec::index(2, "RW delete")])
        .flags(W)
        .doc(
            "key group consumer",
            "Deletes a consumer from a consumer group, with its pending entries.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("destroy", 4, Group::Stream, xgroup_destroy)
        .key_specs(&[KeySpec::index(2, "RW delete")])
        .flags(W)
        .doc(
            "key group",
            "Destroys a consumer group.",
            "O(N) where N is the number of entries in the group's pending entries list (PEL).",
            "5.0.0",
        ),
    Command::new("help", 2, Group::Stream, xgroup_help)
        .flags(HELP_FLAGS)
        .doc("", "Shows what XGROUP can do.", "O(1)", "5.0.0"),
    Command::new("setid", -5, Group::Stream, xgroup_setid)
        .key_specs(&[KeySpec::index(2, "RW update")])
        .flags(W)
        .doc(
            "key group id | $ [ENTRIESREAD entries-read]",
            "Sets the last delivered ID of a consumer group.",
            "O(1)",
            "5.0.0",
        ),
];

const XINFO_SUBCOMMANDS: &[Command] = &[
    Command::new("consumers", 4, Group::Stream, xinfo_consumers)
        .key_specs(&[KeySpec::index(2, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key group",
            "Lists the consumers of a consumer group.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("groups", 3, Group::Stream, xinfo_groups)
        .key_specs(&[KeySpec::index(2, "RO access")])
        .flags(R)
        .doc(
            "key",
            "Lists the consumer groups of a stream.",
            "O(1)",
            "5.0.0",
        ),
    Command::new("help", 2, Group::Stream, xinfo_help)
        .flags(HELP_FLAGS)
        .doc("", "Shows what XINFO can do.", "O(1)", "5.0.0"),
    Command::new("stream", -3, Group::Stream, xinfo_stream)
        .key_specs(&[KeySpec::index(2, "RO access")])
        .flags(R)
        .doc(
            "key [FULL [COUNT count]]",
            "Reports on a stream: its length, IDs and groups, or everything with FULL.",
            "O(1)",
            "5.0.0",
        ),
];

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::testing::{engine, run, T0};
    use crate::engine::{ClientId, Engine, Reply};

    fn bulk(s: &str) -> Reply {
        Reply::bulk(s.as_bytes())
    }

    /// XINFO STREAM FULL with the consumers' seen-times blanked: a replica creates
    /// consumers when it replays, so their seen-time is its own clock's (in Redis too).
    fn full_info(e: &mut Engine, c: ClientId, key: &str) -> Reply {
        fn mask(r: Reply) -> Reply {
            match r {
                Reply::Map(pairs) => Reply::Map(
                    pairs
                        .into_iter()
                        .map(|(k, v)| {
                            if k == Reply::bulk(b"seen-time") {
                                (k, Reply::Integer(0))
                            } else {
                                (k, mask(v))
                            }
                        })
                        .collect(),
                ),
                Reply::Array(items) => Reply::Array(items.into_iter().map(mask).collect()),
                other => other,
            }
        }
        mask(run(e, c, &format!("XINFO STREAM {key} FULL COUNT 0")))
    }

    #[test]
    fn replaying_the_effects_rebuilds_streams_groups_and_pending_lists() {
        let (mut e, clock) = engine();
        let (a, b) = (e.connect(), e.connect());
        let script = [
            "XADD s * f 1",
            "XADD s * f 2",
            "XADD s 1700000000500-* f 3",
            "XGROUP CREATE s g 0",
            "XGROUP CREATE s g2 $ ENTRIESREAD 3",
            "XGROUP CREATE other g 0 MKSTREAM",
            "XREADGROUP GROUP g alice COUNT 2 STREAMS s >",
            "XREADGROUP GROUP g neo NOACK STREAMS s >",
            "XADD s * f 4",
            "XREADGROUP GROUP g bob STREAMS s >",
            "XREADGROUP GROUP g alice STREAMS s 0",
            "XCLAIM s g carol 10 1700000000100-0 IDLE 500",
            "XCLAIM s g carol 0 1700000000200-0 RETRYCOUNT 7 LASTID 9999999999999-0",
            "XCLAIM s g2 carol 0 1700000000100-0 FORCE JUSTID",
            "XDEL s 1700000000200-0",
            "XAUTOCLAIM s g dave 0 0 COUNT 2",
            "XACK s g 1700000000500-0",
            "XGROUP CREATECONSUMER s g erin",
            "XGROUP DELCONSUMER s g bob",
            "XGROUP SETID s g2 0 ENTRIESREAD 0",
            "XADD s MAXLEN ~ 1 * f 5",
            "XTRIM s MINID = 0",
            "XSETID s 99999999999999-0 ENTRIESADDED 100 MAXDELETEDID 5-0",
            "XADD s * f 6",
        ];
        for line in script {
            clock.advance_ms(100);
            let r = run(&mut e, a, line);
            assert!(!r.is_error(), "{line}: {r:?}");
        }
        // A blocked group read served by another client's XADD.
        e.submit(
            a,
            split_args("XREADGROUP GROUP g frank BLOCK 0 STREAMS s >").unwrap(),
        );
        clock.advance_ms(100);
        run(&mut e, b, "XADD s * f 7");
        assert!(!e.is_blocked(a));
        let effects = e.take_effects();
        assert!(effects
            .iter()
            .all(|fx| !fx.argv[0].eq_ignore_ascii_case(b"XREADGROUP")));
        // The replica replays later: XCLAIM's TIME is never in its future.
        let (mut r, rclock) = engine();
        rclock.set_ms(T0 + 10_000);
        let c = r.connect();
        for fx in &effects {
            run(&mut r, c, &format!("SELECT {}", fx.db));
            let reply = r.execute(c, fx.argv.clone());
            assert!(!reply.is_error(), "{:?}: {reply:?}", fx.argv);
        }
        run(&mut r, c, "SELECT 0");
        for key in ["s", "other"] {
            assert_eq!(
                full_info(&mut e, a, key),
                full_info(&mut r, c, key),
                "{key}"
            );
        }
    }

    #[test]
    fn ids_stay_monotonic_when_the_clock_goes_back() {
        let (mut e, clock) = engine();
        let a = e.connect();
        assert_eq!(run(&mut e, a, "XADD s * a 1"), bulk("1700000000000-0"));
        clock.set_ms(T0 - 5_000);
        assert_eq!(run(&mut e, a, "XADD s * a 1"), bulk("1700000000000-1"));
        clock.set_ms(T0 + 1);
        assert_eq!(run(&mut e, a, "XADD s * a 1"), bulk("1700000000001-0"));
    }

    #[test]
    fn idle_times_come_from_the_clock() {
        let (mut e, clock) = engine();
        let a = e.connect();
        run(&mut e, a, "XADD s 1-0 f v");
        run(&mut e, a, "XADD s 2-0 f v");
        run(&mut e, a, "XGROUP CREATE s g 0");
        run(&mut e, a, "XREADGROUP GROUP g c STREAMS s >");
        clock.advance_ms(1500);
        let want = Reply::Array(vec![Reply::Array(vec![
            bulk("1-0"),
            bulk("c"),
            Reply::Integer(1500),
            Reply::Integer(1),
        ])]);
        assert_eq!(run(&mut e, a, "XPENDING s g - + 1"), want);
        assert_eq!(
            run(&mut e, a, "XPENDING s g IDLE 1501 - + 10"),
            Reply::Array(vec![])
        );
        let consumers = run(&mut e, a, "XINFO CONSUMERS s g");
        assert_eq!(
            consumers,
            Reply::Array(vec![Reply::Map(vec![
                (bulk("name"), bulk("c")),
                (bulk("pending"), Reply::Integer(2)),
                (bulk("idle"), Reply::Integer(1500)),
            ])])
        );
        // Claimed with IDLE 300: 300 ms idle now, and two deliveries.
        run(&mut e, a, "XCLAIM s g d 1000 1-0 IDLE 300 JUSTID");
        let Reply::Array(rows) = run(&mut e, a, "XPENDING s g - + 1") else {
            panic!()
        };
        assert_eq!(
            rows[0],
            Reply::Array(vec![
                bulk("1-0"),
                bulk("d"),
                Reply::Integer(300),
                Reply::Integer(1)
            ])
        );
        // TIME in the future is clamped to now.
        run(&mut e, a, "XCLAIM s g d 0 2-0 TIME 99999999999999");
        let Reply::Array(rows) = run(&mut e, a, "XPENDING s g - + 10 d") else {
            panic!()
        };
        assert_eq!(
            rows[1],
            Reply::Array(vec![
                bulk("2-0"),
                bulk("d"),
                Reply::Integer(0),
                Reply::Integer(2)
            ])
        );
    }

    #[test]
    fn blocked_readers_time_out_and_are_served_in_order() {
        let (mut e, clock) = engine();
        let (a, b, c) = (e.connect(), e.connect(), e.connect());
        e.submit(a, split_args("XREAD BLOCK 1000 STREAMS s $").unwrap());
        e.submit(b, split_args("XREAD BLOCK 0 STREAMS s $").unwrap());
        clock.advance_ms(1001);
        e.expire_blocked();
        assert_eq!(e.take_pushes(a), vec![Reply::NilArray]);
        assert!(e.is_blocked(b));
        run(&mut e, c, "XADD s 1-0 f v");
        assert_eq!(
            e.take_pushes(b),
            vec![Reply::Array(vec![Reply::Array(vec![
                bulk("s"),
                Reply::Array(vec![Reply::Array(vec![
                    bulk("1-0"),
                    Reply::Array(vec![bulk("f"), bulk("v")])
                ])])
            ])])]
        );
    }

    #[test]
    fn huge_and_odd_arguments_do_not_panic() {
        let (mut e, _) = engine();
        let a = e.connect();
        for line in [
            "XADD s 18446744073709551615-18446744073709551615 a b",
            "XADD s * a b",
            "XRANGE s - + COUNT 9223372036854775807",
            "XREVRANGE s + - COUNT 9223372036854775807",
            "XREAD COUNT 9223372036854775807 STREAMS s 0",
            "XREAD BLOCK 9223372036854775807 STREAMS s $",
            "XTRIM s MAXLEN ~ 0 LIMIT 9223372036854775807",
            "XTRIM s MINID 18446744073709551615-18446744073709551615",
            "XGROUP CREATE s g 18446744073709551615-18446744073709551615",
            "XREADGROUP GROUP g c COUNT 9223372036854775807 STREAMS s 0",
            "XAUTOCLAIM s g c 9223372036854775807 0 COUNT 576460752303423487",
            "XCLAIM s g c -9223372036854775808 1-1 IDLE -9223372036854775808 RETRYCOUNT 9223372036854775807",
            "XCLAIM s g c 0 1-1 TIME -9223372036854775808 FORCE",
            "XPENDING s g IDLE -9223372036854775808 - + 9223372036854775807",
            "XINFO STREAM s FULL COUNT 9223372036854775807",
            "XSETID s 18446744073709551615-18446744073709551615 ENTRIESADDED 9223372036854775807",
            "XADD s MAXLEN 9223372036854775807 * a b",
        ] {
            run(&mut e, a, line);
        }
    }
}
