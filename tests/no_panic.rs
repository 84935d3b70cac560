//! The engine must never panic, whatever it is sent: a panic in the browser kills the page.
//!
//! Property: for any sequence of operations — commands whose names come from the command
//! table (with their subcommands, in any letter case) or are random bytes, with arguments
//! mixing keywords, a few shared keys, numbers on the edges (`i64::MIN`, `i64::MAX`, huge
//! counts, floats, `inf`, `nan`), random integers and binary junk; the clock moving forward
//! (and now and then backward); active-expiry ticks; two clients plus an unknown client id —
//! `Engine::execute` and `Engine::tick` return normally. The effects the engine records are
//! replayed on a second engine, which must not panic either.
//!
//! `KVLAB_NO_PANIC_CASES` sets the number of cases (default 1000, a few seconds).
#![cfg(not(target_arch = "wasm32"))]

use kvlab::engine::{table, Engine, ManualClock};
use proptest::prelude::*;

/// Command names, and container + subcommand pairs, from the table.
fn command_names() -> Vec<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for c in table::all() {
        if c.subcommands.is_empty() {
            out.push(vec![c.name.as_bytes().to_vec()]);
        } else {
            out.push(vec![c.name.as_bytes().to_vec()]);
            for s in c.subcommands {
                out.push(vec![c.name.as_bytes().to_vec(), s.name.as_bytes().to_vec()]);
            }
            out.push(vec![c.name.as_bytes().to_vec(), b"nosuchsub".to_vec()]);
        }
    }
    out
}

const KEYWORDS: &[&str] = &[
    "NX",
    "XX",
    "GT",
    "LT",
    "CH",
    "INCR",
    "EX",
    "PX",
    "EXAT",
    "PXAT",
    "KEEPTTL",
    "PERSIST",
    "GET",
    "LEN",
    "IDX",
    "MINMATCHLEN",
    "WITHMATCHLEN",
    "MATCH",
    "COUNT",
    "TYPE",
    "DB",
    "REPLACE",
    "ASYNC",
    "SYNC",
    "WITHVALUES",
    "WITHSCORES",
    "WITHSCORE",
    "LIMIT",
    "BYSCORE",
    "BYLEX",
    "REV",
    "LEFT",
    "RIGHT",
    "BEFORE",
    "AFTER",
    "RANK",
    "MAXLEN",
    "ALPHA",
    "BY",
    "STORE",
    "AGGREGATE",
    "WEIGHTS",
    "SUM",
    "MIN",
    "MAX",
    "NOVALUES",
    "SETNAME",
    "AUTH",
    "ID",
    "KILL",
    "LIST",
    "INFO",
    "HELP",
    "ENCODING",
    "FREQ",
    "IDLETIME",
    "REFCOUNT",
    "RESETSTAT",
    "*",
    "",
    "string",
    "hash",
    "list",
    "set",
    "zset",
    "none",
    "(",
    "[a",
    "-",
    "+",
    "-inf",
    "+inf",
    // Streams: options, special IDs and IDs at the edges.
    "stream",
    "STREAMS",
    "GROUP",
    "BLOCK",
    "NOACK",
    "MKSTREAM",
    "ENTRIESREAD",
    "ENTRIESADDED",
    "MAXDELETEDID",
    "NOMKSTREAM",
    "MINID",
    "JUSTID",
    "FORCE",
    "IDLE",
    "TIME",
    "RETRYCOUNT",
    "LASTID",
    "FULL",
    "CREATE",
    "SETID",
    "$",
    ">",
    "~",
    "=",
    "(0-0",
    "1-*",
    "0-1",
    "1-1",
    "18446744073709551615-18446744073709551615",
    "18446744073709551615-*",
    "(18446744073709551615-18446744073709551615",
    "18446744073709551616-0",
];

const EDGE_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "10",
    "100",
    "-100",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775806",
    "-9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "4611686018427387903",
    "-4611686018427387904",
    "4294967295",
    "4294967296",
    "2147483647",
    "-2147483648",
    "536870912",
    "536870911",
    "1000000000",
    "1.5",
    "-0.5",
    "0.1",
    "1e308",
    "1e309",
    "-1e308",
    "1e-320",
    "5e-324",
    "inf",
    "-inf",
    "+inf",
    "nan",
    "-0",
    "0x10",
    " 1",
    "1 ",
    "1e3",
    "abc",
];

fn arg() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::sample::select(KEYWORDS).prop_map(|s| s.as_bytes().to_vec()),
        4 => prop::sample::select(&["k0", "k1", "k2", "k3"][..]).prop_map(|s| s.as_bytes().to_vec()),
        4 => prop::sample::select(EDGE_NUMBERS).prop_map(|s| s.as_bytes().to_vec()),
        2 => any::<i64>().prop_map(|n| n.to_string().into_bytes()),
        1 => (-1000i64..1000).prop_map(|n| n.to_string().into_bytes()),
        1 => any::<f64>().prop_map(|f| f.to_string().into_bytes()),
        2 => prop::collection::vec(any::<u8>(), 0..12),
    ]
}

fn name(names: Vec<Vec<Vec<u8>>>) -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop_oneof![
        8 => (prop::sample::select(names), any::<u64>()).prop_map(|(mut n, case)| {
            // Random letter case: bit i of `case` decides letter i.
            let mut bit = 0;
            for part in &mut n {
                for b in part.iter_mut() {
                    if case >> (bit % 64) & 1 == 1 {
                        *b = b.to_ascii_uppercase();
                    }
                    bit += 1;
                }
            }
            n
        }),
        1 => prop::collection::vec(any::<u8>(), 0..10).prop_map(|b| vec![b]),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    /// Run a command as client 0 or 1, or (2) as an id the engine never handed out.
    Exec(u8, Vec<Vec<u8>>),
    /// Move the clock (milliseconds; occasionally backwards).
    Advance(i64),
    /// One active-expiry cycle.
    Tick,
}

fn op(names: Vec<Vec<Vec<u8>>>) -> impl Strategy<Value = Op> {
    let exec = (
        prop_oneof![10 => 0u8..2, 1 => Just(2u8)],
        name(names),
        prop::collection::vec(arg(), 0..7),
    )
        .prop_map(|(client, mut argv, args)| {
            argv.extend(args);
            Op::Exec(client, argv)
        });
    prop_oneof![
        20 => exec,
        2 => prop_oneof![
            4 => 0i64..2_000,
            2 => 0i64..10_000_000,
            1 => -5_000i64..0,
        ]
        .prop_map(Op::Advance),
        1 => Just(Op::Tick),
    ]
}

fn cases() -> u32 {
    std::env::var("KVLAB_NO_PANIC_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_shrink_iters: 2_000,
        // ChaCha in an unoptimised build costs more than the engine under test.
        rng_algorithm: proptest::test_runner::RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    })]

    #[test]
    fn engine_never_panics(ops in prop::collection::vec(op(command_names()), 1..80)) {
        let clock = ManualClock::at_ms(1_704_067_200_000);
        let mut engine = Engine::new(Box::new(clock.clone()), 7);
        let clients = [engine.connect(), engine.connect(), 999_999];
        // The replica replays the effects: they must be valid commands too.
        let replica_clock = ManualClock::at_ms(1_704_067_200_000);
        let mut replica = Engine::new(Box::new(replica_clock.clone()), 7);
        let rc = replica.connect();
        for op in ops {
            match op {
                Op::Exec(c, argv) => {
                    let _ = engine.execute(clients[usize::from(c)], argv);
                }
                Op::Advance(ms) => {
                    clock.advance_ms(ms);
                    replica_clock.advance_ms(ms);
                }
                Op::Tick => {
                    engine.tick();
                }
            }
            for effect in engine.take_effects() {
                let _ = replica.execute(rc, vec![b"SELECT".to_vec(), effect.db.to_string().into_bytes()]);
                let _ = replica.execute(rc, effect.argv);
            }
            replica.take_effects();
        }
        engine.tick();
    }
}
