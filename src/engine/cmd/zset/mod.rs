//! The sorted-set group: every non-blocking `Z*` command of Redis 7.0.
//!
//! The data structure and its costs are in [`crate::engine::types::zset`]; this file parses
//! arguments exactly as Redis's `t_zset.c` does (including the order in which errors win:
//! ranges are parsed before the key is looked up, `ZUNION`'s keys are type-checked before
//! its options are parsed) and shapes the replies:
//!
//! * scores are doubles: a bulk string formatted with `%.17g` in RESP2, a RESP3 double in
//!   RESP3 (see [`score_reply`]);
//! * `WITHSCORES` gives a flat `member, score, …` array in RESP2 and an array of
//!   `[member, score]` pairs in RESP3, as Redis does.
//!
//! # Numbers
//! Redis reads scores with C's `strtod`, in two flavours that accept different inputs:
//! [`parse_score`] (`string2d`: the whole string, no leading space, no overflow, no NaN — used
//! for `ZADD`, `ZINCRBY`, `WEIGHTS`) and the range parser [`parse_score_range`]
//! (`zslParseRange`: leading spaces and even an empty string are fine). Both accept
//! hexadecimal floats and `inf`. [`strtod`](crate::engine::num::strtod) implements C's grammar once for both and for
//! `SORT`.
//!
//! # Effects
//! Every write here replays deterministically as itself (`ZADD … INCR`, `ZPOPMIN k 3`,
//! `ZUNIONSTORE …`), except `ZMPOP`, which is recorded as `ZPOPMIN`/`ZPOPMAX key count` as
//! Redis propagates it. A command that changes nothing records nothing.
//!
//! # Layout
//! - [`parse`]: scores, score and lexicographic ranges, as Redis reads them.
//! - [`reply`]: score replies and access to the sorted set at a key.
//! - [`add`]: ZADD and ZINCRBY.
//! - [`read`]: ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZCARD, ZCOUNT, ZLEXCOUNT.
//! - [`remove`]: ZREM and the ZREMRANGEBY… commands.
//! - [`range`]: ZRANGE with its older forms, and ZRANGESTORE.
//! - [`pop`]: ZPOPMIN, ZPOPMAX, ZMPOP and ZRANDMEMBER.
//! - [`scan`]: ZSCAN, a cursor over members and scores.
//! - [`setop`]: ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms.

pub mod add;
pub mod parse;
pub mod pop;
pub mod range;
pub mod read;
pub mod remove;
pub mod reply;
pub mod scan;
pub mod setop;

pub use crate::engine::num::parse_score;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use add::{zadd, zincrby};
pub use parse::{d2string, parse_lex_range, parse_score_range};
pub use pop::MAX_REPEATED_PICKS;
use pop::{zmpop, zpopmax, zpopmin, zrandmember};
use range::{
    zrange, zrangebylex, zrangebyscore, zrangestore, zrevrange, zrevrangebylex, zrevrangebyscore,
};
use read::{zcard, zcount, zlexcount, zmscore, zrank, zrevrank, zscore};
use remove::{zrem, zremrangebylex, zremrangebyrank, zremrangebyscore};
pub(crate) use reply::read_zset;
pub use reply::score_reply;
use scan::zscan;
use setop::{zdiff, zdiffstore, zinter, zintercard, zinterstore, zunion, zunionstore};
const R: Flags = Flags::READONLY;
const W: Flags = Flags::WRITE;
const RF: Flags = Flags::READONLY.union(Flags::FAST);
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WDF: Flags = Flags::WRITE.union(Flags::DENYOOM).union(Flags::FAST);
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);

/// The sorted-set commands.
pub const COMMANDS: &[Command] = &[
    Command::new("zadd", -4, Group::SortedSet, zadd)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WDF)
        .doc(
            "key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]",
            "Adds members with scores, or updates the scores of existing members.",
            "O(log N) for each member added or updated",
            "1.2.0",
        ),
    Command::new("zcard", 2, Group::SortedSet, zcard)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc("key", "Counts the members of a sorted set.", "O(1)", "1.2.0"),
    Command::new("zcount", 4, Group::SortedSet, zcount)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key min max",
            "Counts the members whose score lies in a range.",
            "O(log N)",
            "2.0.0",
        ),
    Command::new("zdiff", -3, Group::SortedSet, zdiff)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [WITHSCORES]",
            "Returns the members of the first sorted set that are in none of the others.",
            "O(L + (N-K) log N): L elements in all inputs, N in the first, K in the result",
            "6.2.0",
        ),
    Command::new("zdiffstore", -4, Group::SortedSet, zdiffstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ])
        .flags(WD)
        .doc(
            "destination numkeys key [key ...]",
            "Stores the difference of sorted sets in a key.",
            "O(L + (N-K) log N): L elements in all inputs, N in the first, K in the result",
            "6.2.0",
        ),
    Command::new("zincrby", 4, Group::SortedSet, zincrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(WDF)
        .doc(
            "key increment member",
            "Adds to the score of a member (creating it at 0 first if needed).",
            "O(log N)",
            "1.2.0",
        ),
    Command::new("zinter", -3, Group::SortedSet, zinter)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]",
            "Returns the members present in every input, with combined scores.",
            "O(N*K) + O(M log M): N the smallest input, K inputs, M results",
            "6.2.0",
        ),
    Command::new("zintercard", -3, Group::SortedSet, zintercard)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [LIMIT limit]",
            "Counts the members present in every input, optionally stopping at a limit.",
            "O(N*K): N the smallest input, K inputs",
            "7.0.0",
        ),
    Command::new("zinterstore", -4, Group::SortedSet, zinterstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ])
        .flags(WD)
        .doc(
            "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]",
            "Stores the intersection of sorted sets in a key.",
            "O(N*K) + O(M log M): N the smallest input, K inputs, M results",
            "2.0.0",
        ),
    Command::new("zlexcount", 4, Group::SortedSet, zlexcount)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key min max",
            "Counts the members in a lexicographic range (for sets with equal scores).",
            "O(log N)",
            "2.8.9",
        ),
    Command::new("zmpop", -4, Group::SortedSet, zmpop)
        .key_specs(&[KeySpec::index(1, "RW access delete").keynum(0, 1, 1)])
        .flags(Flags::WRITE)
        .doc(
            "numkeys key [key ...] MIN | MAX [COUNT count]",
            "Pops the lowest or highest members from the first non-empty sorted set.",
            "O(K) + O(M log N): K keys, M members popped",
            "7.0.0",
        ),
    Command::new("zmscore", -3, Group::SortedSet, zmscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member [member ...]",
            "Returns the scores of several members.",
            "O(N) for N members asked",
            "6.2.0",
        ),
    Command::new("zpopmax", -2, Group::SortedSet, zpopmax)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns the members with the highest scores.",
            "O(log N + M) for M members popped",
            "5.0.0",
        ),
    Command::new("zpopmin", -2, Group::SortedSet, zpopmin)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns the members with the lowest scores.",
            "O(log N + M) for M members popped",
            "5.0.0",
        ),
    Command::new("zrandmember", -2, Group::SortedSet, zrandmember)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key [count [WITHSCORES]]",
            "Returns random members: distinct ones for a positive count, possibly repeated for a negative one.",
            "O(N) for N members returned",
            "6.2.0",
        ),
    Command::new("zrange", -4, Group::SortedSet, zrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]",
            "Returns members in a range of ranks, scores or lexicographic values.",
            "O(log N + M) for M members returned",
            "1.2.0",
        ),
    Command::new("zrangebylex", -4, Group::SortedSet, zrangebylex)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key min max [LIMIT offset count]",
            "Returns members in a lexicographic range (superseded by ZRANGE … BYLEX).",
            "O(log N + M) for M members returned",
            "2.8.9",
        ),
    Command::new("zrangebyscore", -4, Group::SortedSet, zrangebyscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key min max [WITHSCORES] [LIMIT offset count]",
            "Returns members in a score range (superseded by ZRANGE … BYSCORE).",
            "O(log N + M) for M members returned",
            "1.0.5",
        ),
    Command::new("zrangestore", -5, Group::SortedSet, zrangestore)
        .key_specs(&[KeySpec::index(1, "OW update"), KeySpec::index(2, "RO access")])
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .doc(
            "dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]",
            "Stores a range of a sorted set in another key.",
            "O(log N + M) for M members stored",
            "6.2.0",
        ),
    Command::new("zrank", 3, Group::SortedSet, zrank)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member",
            "Returns the 0-based position of a member, lowest score first.",
            "O(log N)",
            "2.0.0",
        ),
    Command::new("zrem", -3, Group::SortedSet, zrem)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(WF)
        .doc(
            "key member [member ...]",
            "Removes members.",
            "O(M log N) for M members removed",
            "1.2.0",
        ),
    Command::new("zremrangebylex", 4, Group::SortedSet, zremrangebylex)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key min max",
            "Removes the members in a lexicographic range.",
            "O(log N + M) for M members removed",
            "2.8.9",
        ),
    Command::new("zremrangebyrank", 4, Group::SortedSet, zremrangebyrank)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key start stop",
            "Removes the members in a range of ranks.",
            "O(log N + M) for M members removed",
            "2.0.0",
        ),
    Command::new("zremrangebyscore", 4, Group::SortedSet, zremrangebyscore)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key min max",
            "Removes the members in a score range.",
            "O(log N + M) for M members removed",
            "1.2.0",
        ),
    Command::new("zrevrange", -4, Group::SortedSet, zrevrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start stop [WITHSCORES]",
            "Returns members in a range of ranks, highest score first (superseded by ZRANGE … REV).",
            "O(log N + M) for M members returned",
            "1.2.0",
        ),
    Command::new("zrevrangebylex", -4, Group::SortedSet, zrevrangebylex)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key max min [LIMIT offset count]",
            "Returns members in a lexicographic range, highest first (superseded by ZRANGE … BYLEX REV).",
            "O(log N + M) for M members returned",
            "2.8.9",
        ),
    Command::new("zrevrangebyscore", -4, Group::SortedSet, zrevrangebyscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key max min [WITHSCORES] [LIMIT offset count]",
            "Returns members in a score range, highest first (superseded by ZRANGE … BYSCORE REV).",
            "O(log N + M) for M members returned",
            "2.2.0",
        ),
    Command::new("zrevrank", 3, Group::SortedSet, zrevrank)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member",
            "Returns the 0-based position of a member, highest score first.",
            "O(log N)",
            "2.0.0",
        ),
    Command::new("zscan", -3, Group::SortedSet, zscan)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key cursor [MATCH pattern] [COUNT count]",
            "Iterates over members and scores with a cursor.",
            "O(1) per call, O(N) for a whole iteration",
            "2.8.0",
        ),
    Command::new("zscore", 3, Group::SortedSet, zscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc("key member", "Returns the score of a member.", "O(1)", "1.2.0"),
    Command::new("zunion", -3, Group::SortedSet, zunion)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]",
            "Returns the members of any input, with combined scores.",
            "O(N) + O(M log M): N elements in all inputs, M results",
            "6.2.0",
        ),
    Command::new("zunionstore", -4, Group::SortedSet, zunionstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ])
        .flags(WD)
        .doc(
            "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]",
            "Stores the union of sorted sets in a key.",
            "O(N) + O(M log M): N elements in all inputs, M results",
            "2.0.0",
        ),
];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::num::strtod;
    use crate::engine::testing::{cli, connected_at};
    use crate::engine::{ClientId, Engine, Reply};
    use std::collections::HashSet;

    fn encoding(e: &Engine, key: &str) -> &'static str {
        e.server().dbs[0]
            .get_raw(key.as_bytes())
            .map(|en| en.value.encoding())
            .unwrap_or("none")
    }

    /// RESP3 replies, as `redis-cli -3` prints them against Redis 7.0.15.
    #[test]
    fn resp3_scores_are_doubles_and_pairs_nest() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        e.clients.get_mut(&c).expect("client").proto = 3;
        let cases: &[(&str, &str)] = &[
            ("ZADD z 1 a 2.5 b inf c", "(integer) 3"),
            ("ZSCORE z b", "(double) 2.5"),
            ("ZSCORE z c", "(double) inf"),
            ("ZMSCORE z a nosuch", "1) (double) 1\n2) (nil)"),
            (
                "ZRANGE z 0 -1 WITHSCORES",
                "1) 1) \"a\"\n   2) (double) 1\n2) 1) \"b\"\n   2) (double) 2.5\n3) 1) \"c\"\n   2) (double) inf",
            ),
            ("ZRANGE z 0 -1", "1) \"a\"\n2) \"b\"\n3) \"c\""),
            ("ZPOPMIN z", "1) \"a\"\n2) (double) 1"),
            ("ZADD z 1 a", "(integer) 1"),
            ("ZPOPMIN z 1", "1) 1) \"a\"\n   2) (double) 1"),
            ("ZADD z 1 a", "(integer) 1"),
            (
                "ZMPOP 1 z MAX COUNT 2",
                "1) \"z\"\n2) 1) 1) \"c\"\n      2) (double) inf\n   2) 1) \"b\"\n      2) (double) 2.5",
            ),
            ("ZADD z 1 a 2 b", "(integer) 1"),
            (
                "ZUNION 1 z WITHSCORES",
                "1) 1) \"a\"\n   2) (double) 1\n2) 1) \"b\"\n   2) (double) 2",
            ),
            (
                "ZRANDMEMBER z 5 WITHSCORES",
                "1) 1) \"b\"\n   2) (double) 2\n2) 1) \"a\"\n   2) (double) 1",
            ),
            ("ZINCRBY z 1 a", "(double) 2"),
            ("ZADD z INCR 1 a", "(double) 3"),
            ("ZMPOP 1 nokey MIN", "(nil)"),
            ("ZRANDMEMBER nokey", "(nil)"),
            ("ZSCORE z nosuch", "(nil)"),
            ("ZSCAN z 0", "1) \"0\"\n2) 1) \"b\"\n   2) \"2\"\n   3) \"a\"\n   4) \"3\""),
            ("ZADD z -0 m", "(integer) 1"),
            (
                "ZRANGEBYSCORE z -inf +inf WITHSCORES",
                "1) 1) \"m\"\n   2) (double) 0\n2) 1) \"b\"\n   2) (double) 2\n3) 1) \"a\"\n   2) (double) 3",
            ),
        ];
        for (cmd, want) in cases {
            assert_eq!(cli(&mut e, c, cmd), *want, "{cmd}");
        }
    }

    #[test]
    fn encoding_switches_like_redis_and_never_back() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        let members: Vec<String> = (0..128).map(|i| format!("{i} m{i}")).collect();
        cli(&mut e, c, &format!("ZADD z {}", members.join(" ")));
        assert_eq!(encoding(&e, "z"), "listpack");
        cli(&mut e, c, "ZADD z 1 m0");
        assert_eq!(encoding(&e, "z"), "listpack");
        cli(&mut e, c, "ZADD z 1 extra");
        assert_eq!(encoding(&e, "z"), "skiplist");
        cli(&mut e, c, "ZREMRANGEBYRANK z 0 100");
        assert_eq!(encoding(&e, "z"), "skiplist");
        // A STORE result is re-evaluated: small and short members make a listpack.
        cli(&mut e, c, "ZUNIONSTORE u 1 z");
        assert_eq!(encoding(&e, "u"), "listpack");
        cli(&mut e, c, "ZRANGESTORE r z 0 -1");
        assert_eq!(encoding(&e, "r"), "listpack");
        let long = "x".repeat(65);
        cli(&mut e, c, &format!("ZADD big 1 {long}"));
        assert_eq!(encoding(&e, "big"), "skiplist");
        cli(&mut e, c, "ZADD small 1 a");
        cli(&mut e, c, "SORT small");
        assert_eq!(encoding(&e, "small"), "skiplist");
        // The skiplist keeps -0; a listpack stores it as the integer 0.
        cli(&mut e, c, "ZADD big -0 z");
        assert_eq!(cli(&mut e, c, "ZSCORE big z"), "\"-0\"");
        cli(&mut e, c, "ZADD lp -0 z");
        assert_eq!(cli(&mut e, c, "ZSCORE lp z"), "\"0\"");
        cli(&mut e, c, "ZUNIONSTORE lp2 1 big");
        assert_eq!(cli(&mut e, c, "ZSCORE lp2 z"), "\"-0\"");
        cli(&mut e, c, "ZREM big x");
        cli(&mut e, c, &format!("ZREM big {long}"));
        cli(&mut e, c, "ZUNIONSTORE lp3 1 big");
        assert_eq!(encoding(&e, "lp3"), "listpack");
        assert_eq!(cli(&mut e, c, "ZSCORE lp3 z"), "\"0\"");
    }

    #[test]
    fn large_sets_scan_every_member_exactly_as_present() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        let members: Vec<String> = (0..1000).map(|i| format!("{i} m{i}")).collect();
        cli(&mut e, c, &format!("ZADD z {}", members.join(" ")));
        let mut seen = HashSet::new();
        let mut cursor = "0".to_string();
        loop {
            let r = e.execute(
                c,
                vec![
                    b"ZSCAN".to_vec(),
                    b"z".to_vec(),
                    cursor.clone().into_bytes(),
                    b"COUNT".to_vec(),
                    b"37".to_vec(),
                ],
            );
            let Reply::Array(parts) = r else {
                panic!("not an array")
            };
            let (Reply::Bulk(next), Reply::Array(items)) = (&parts[0], &parts[1]) else {
                panic!("bad shape")
            };
            for pair in items.chunks(2) {
                let (Reply::Bulk(m), Reply::Bulk(s)) = (&pair[0], &pair[1]) else {
                    panic!("bad pair")
                };
                let m = String::from_utf8(m.clone()).expect("utf8");
                assert_eq!(format!("m{}", String::from_utf8_lossy(s)), m);
                seen.insert(m);
            }
            cursor = String::from_utf8(next.clone()).expect("utf8");
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(seen.len(), 1000);
    }

    #[test]
    fn effects_replay_and_no_ops_record_nothing() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        cli(&mut e, c, "ZADD z 1 a 2 b 3 c");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 1);
        assert_eq!(fx[0].argv[0], b"ZADD");
        for noop in [
            "ZADD z 1 a",
            "ZADD z NX 5 a",
            "ZADD z GT 0 a",
            "ZINCRBY z 0 a",
            "ZREM z nosuch",
            "ZREM nokey a",
            "ZREMRANGEBYSCORE z 10 20",
            "ZPOPMIN nokey",
            "ZMPOP 1 nokey MIN",
            "ZUNIONSTORE dst 1 nokey",
            "ZRANGESTORE dst z 5 10",
            "SORT z",
            "SORT nokey STORE dst",
            "ZSCORE z a",
        ] {
            cli(&mut e, c, noop);
            assert!(e.take_effects().is_empty(), "{noop} recorded an effect");
        }
        cli(&mut e, c, "ZMPOP 2 nokey z MAX COUNT 5");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 1);
        assert_eq!(
            fx[0].argv,
            vec![b"ZPOPMAX".to_vec(), b"z".to_vec(), b"3".to_vec()]
        );
        cli(&mut e, c, "ZADD z 1 a");
        cli(&mut e, c, "ZPOPMIN z 2");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 2);
        assert_eq!(fx[1].argv[0], b"ZPOPMIN");
        cli(&mut e, c, "ZADD src 1 a");
        cli(&mut e, c, "ZUNIONSTORE dst 1 src");
        cli(&mut e, c, "ZINTERSTORE dst 2 src nokey");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 3, "store, then delete of the destination");
        assert_eq!(cli(&mut e, c, "GET dst"), "(nil)");
    }

    #[test]
    fn huge_counts_give_errors_or_bounded_answers() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        cli(&mut e, c, "ZADD z 1 a 2 b 3 c");
        assert_eq!(
            cli(&mut e, c, "ZRANDMEMBER z -9223372036854775807"),
            "(error) ERR value is out of range, the reply would exceed 1048576 elements"
        );
        let r = e.execute(
            c,
            vec![b"ZRANDMEMBER".to_vec(), b"z".to_vec(), b"-1048576".to_vec()],
        );
        assert!(matches!(r, Reply::Array(v) if v.len() == 1 << 20));
        assert_eq!(
            cli(&mut e, c, "ZRANDMEMBER z 9223372036854775807")
                .lines()
                .count(),
            3
        );
        assert_eq!(
            cli(&mut e, c, "ZPOPMIN z 9223372036854775807")
                .lines()
                .count(),
            6
        );
        cli(&mut e, c, "ZADD z 1 a 2 b 3 c");
        assert_eq!(
            cli(
                &mut e,
                c,
                "ZRANGE z -inf +inf BYSCORE LIMIT 9223372036854775807 -1"
            ),
            "(empty array)"
        );
        assert_eq!(
            cli(
                &mut e,
                c,
                "ZRANGE z +inf -inf BYSCORE REV LIMIT 2 9223372036854775807"
            ),
            "1) \"a\""
        );
        assert_eq!(
            cli(&mut e, c, "ZMPOP 9223372036854775807 z MIN"),
            "(error) ERR syntax error"
        );
        assert_eq!(
            cli(&mut e, c, "ZUNIONSTORE d 9223372036854775807 z"),
            "(error) ERR syntax error"
        );
        assert_eq!(
            cli(
                &mut e,
                c,
                "ZREMRANGEBYRANK z -9223372036854775808 9223372036854775807"
            ),
            "(integer) 3"
        );
    }

    #[test]
    fn random_members_are_distinct_or_repeated_as_asked() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        let members: Vec<String> = (0..50).map(|i| format!("{i} m{i}")).collect();
        cli(&mut e, c, &format!("ZADD z {}", members.join(" ")));
        for count in [1, 5, 20, 40, 49] {
            let r = e.execute(
                c,
                vec![
                    b"ZRANDMEMBER".to_vec(),
                    b"z".to_vec(),
                    count.to_string().into_bytes(),
                ],
            );
            let Reply::Array(items) = r else { panic!() };
            assert_eq!(items.len(), count);
            let distinct: HashSet<_> = items.iter().map(|i| format!("{i:?}")).collect();
            assert_eq!(distinct.len(), count, "count {count} repeated a member");
        }
        let r = e.execute(
            c,
            vec![b"ZRANDMEMBER".to_vec(), b"z".to_vec(), b"-200".to_vec()],
        );
        let Reply::Array(items) = r else { panic!() };
        assert_eq!(items.len(), 200);
        let one = cli(&mut e, c, "ZRANDMEMBER z");
        assert!(one.starts_with("\"m"), "{one}");
    }

    #[test]
    fn strtod_follows_c() {
        let v = |s: &str| strtod(s.as_bytes());
        assert_eq!(v("1.5").value, 1.5);
        assert_eq!(v("1.5").consumed, 3);
        assert_eq!(v("  -2e3x").value, -2000.0);
        assert_eq!(v("  -2e3x").consumed, 6);
        assert_eq!(v("1e").consumed, 1);
        assert_eq!(v("5.").value, 5.0);
        assert_eq!(v("5.").consumed, 2);
        assert_eq!(v("1.e3").value, 1000.0);
        assert_eq!(v(".5e-1").value, 0.05);
        assert_eq!(v("0x10").value, 16.0);
        assert_eq!(v("0x1.8p1").value, 3.0);
        assert_eq!(v("0x").consumed, 1);
        assert_eq!(v("-InFinity").value, f64::NEG_INFINITY);
        assert!(v("nan").value.is_nan());
        assert_eq!(v("").consumed, 0);
        assert_eq!(v(".").consumed, 0);
        assert!(v("1e400").range_error);
        assert!(v("1e-400").range_error);
        assert!(v("1e-310").range_error);
        assert!(!v("0.0").range_error);
    }

    #[test]
    fn score_parsing_matches_string2d() {
        assert_eq!(parse_score(b"0x10"), Some(16.0));
        assert_eq!(parse_score(b"1e-310"), Some(1e-310));
        for bad in [&b"1e400"[..], b"1e-400", b" 1", b"1 ", b"", b"nan", b"abc"] {
            assert_eq!(parse_score(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn range_bounds_match_zslparserange() {
        assert!(parse_score_range(b"", b"(").is_ok());
        assert!(parse_score_range(b" 1", b"(2").is_ok());
        assert!(parse_score_range(b"1 ", b"2").is_err());
        assert!(parse_score_range(b"nan", b"2").is_err());
        assert!(parse_lex_range(b"a", b"+").is_err());
        assert!(parse_lex_range(b"-", b"+").is_ok());
        assert!(parse_lex_range(b"-x", b"+").is_err());
    }

    #[test]
    fn d2string_uses_integers_up_to_2_pow_62() {
        assert_eq!(d2string(1e17), "100000000000000000");
        assert_eq!(d2string(4_611_686_018_427_387_904.0), "4611686018427387904");
        assert_eq!(
            d2string(9_223_372_036_854_775_808.0),
            "9.2233720368547758e+18"
        );
        assert_eq!(d2string(0.1), "0.10000000000000001");
        assert_eq!(d2string(-0.0), "-0");
    }

    /// Runs `write` on a second client between `WATCH key` and `EXEC` on the first; true if
    /// the transaction still ran.
    fn exec_survives(e: &mut Engine, watcher: ClientId, key: &str, write: &str) -> bool {
        let other = e.connect();
        cli(e, watcher, &format!("WATCH {key}"));
        cli(e, other, write);
        cli(e, watcher, "MULTI");
        cli(e, watcher, "PING");
        let survived = cli(e, watcher, "EXEC") != "(nil)";
        e.disconnect(other);
        survived
    }

    #[test]
    fn store_commands_touch_the_destination_not_the_sources() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        cli(&mut e, c, "ZADD z1 1 a 2 b");
        cli(&mut e, c, "ZADD z2 2 b 3 c");
        for write in [
            "ZUNIONSTORE dst 2 z1 z2",
            "ZINTERSTORE dst 2 z1 z2",
            "ZDIFFSTORE dst 2 z1 z2",
            "ZRANGESTORE dst z1 0 -1",
            "SORT z1 BY nosort STORE dst",
        ] {
            assert!(exec_survives(&mut e, c, "z1", write), "{write}");
            assert!(exec_survives(&mut e, c, "z2", write), "{write}");
            assert!(!exec_survives(&mut e, c, "dst", write), "{write}");
        }
    }

    #[test]
    fn zmpop_touches_the_key_it_popped_and_no_other() {
        let (mut e, c) = connected_at(1_704_067_200_000);
        cli(&mut e, c, "ZADD z 1 a 2 b 3 c");
        assert!(exec_survives(&mut e, c, "nokey", "ZMPOP 2 nokey z MIN"));
        assert!(!exec_survives(&mut e, c, "z", "ZMPOP 2 nokey z MAX"));
    }
}
