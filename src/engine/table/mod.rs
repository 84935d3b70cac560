//! The command table: the single source of truth for every command.
//!
//! Each command group (`cmd/string.rs`, `cmd/hash.rs`, …) declares a `COMMANDS` slice of
//! [`Command`] values: name, arity in Redis's ±N convention (N = exactly N arguments
//! counting the name, -N = at least N), flags, group, key specs, syntax, summary,
//! complexity, the version that introduced it, and the handler. Container commands
//! (`CONFIG`, `CLIENT`, `OBJECT`, `COMMAND`) list their subcommands the same way.
//!
//! Keys are described once, as Redis 7 does, by [`KeySpec`]s: each says what the command
//! does with some keys (`RW access delete`, `OW update`, …) and how to find them — where
//! the search begins (a position, or after a keyword) and how keys follow from there (a
//! range, or a count then that many keys). Everything about keys is derived from them:
//! the legacy first/last/step and the `movablekeys` flag (as Redis's
//! `populateCommandLegacyRangeSpec` derives them, see [`legacy_range`]), `COMMAND INFO`'s
//! key-spec section, `COMMAND GETKEYS`/`GETKEYSANDFLAGS`, the keys cluster mode checks
//! for CROSSSLOT, and those touched keys that WATCH and keyspace notifications see. A few
//! commands need a procedure the specs can't express ([`GetKeys`], Redis's
//! `getkeys_proc`): SORT's STORE, and SET's and BITFIELD's flags that depend on the
//! arguments.
//!
//! Everything that needs to know about commands reads this table: dispatch and the central
//! arity check in [`crate::engine::Engine::execute`], `COMMAND INFO/DOCS/LIST/COUNT`, and the
//! console's hints and `HELP`.
//!
//! # Layout
//! - [`docs`]: the rows' prose (summaries, complexities), which the browser build fetches.
//! - [`keyspec`]: key specs and the legacy key range derived from them.
//! - [`row`]: the row type ([`CommandRow`], generic over its handler), flags, groups, and
//!   [`row::Table`], the by-name index.
//! - this file: the rows themselves — every command group's `COMMANDS` — as [`TABLE`], the
//!   table the engine is built with.

pub mod docs;
pub mod keyspec;
mod name;
pub mod row;

pub use keyspec::{legacy_range, BeginSearch, FindKeys, GetKeys, KeyFlags, KeyRange, KeySpec};
pub use row::{CommandRow, DispatchFlags, Flags, Group, Touches};

pub use super::core::ctx::{Command, Handler, Table};

use super::core::waiters::Waiters;

/// The engine's command table: every command group's rows, in the order `COMMAND` lists
/// them. [`crate::engine::Engine::new`] hands it to the engine.
pub static TABLE: Table = Table::new(&[
    super::cmd::string::COMMANDS,
    super::cmd::hash::COMMANDS,
    super::cmd::keys::COMMANDS,
    super::cmd::pubsub::COMMANDS,
    super::cmd::multi::COMMANDS,
    super::cmd::connection::COMMANDS,
    super::cmd::server::COMMANDS,
    super::cmd::server::acl::COMMANDS,
    super::cmd::command::COMMANDS,
    super::cmd::list::COMMANDS,
    super::cmd::blocking::LIST_COMMANDS,
    super::cmd::set::COMMANDS,
    super::cmd::zset::COMMANDS,
    super::cmd::blocking::ZSET_COMMANDS,
    super::cmd::sort::COMMANDS,
    super::cmd::bitmap::COMMANDS,
    super::cmd::hyperloglog::COMMANDS,
    super::cmd::cluster::COMMANDS,
    super::cmd::geo::COMMANDS,
    super::cmd::stream::COMMANDS,
    super::cmd::scripting::COMMANDS,
    super::cmd::functions::COMMANDS,
]);

/// The families of blocking commands that serve clients blocked on keys (see
/// [`crate::engine::core::blocked`]), handed to the engine with [`TABLE`].
pub static WAITERS: &[&'static dyn Waiters] = &[
    &super::cmd::blocking::LISTS_AND_ZSETS,
    &super::cmd::stream::READERS,
];

/// Iterates over every top-level command of [`TABLE`].
pub fn all() -> impl Iterator<Item = &'static row::CommandRow<Handler>> {
    TABLE.all()
}

/// Looks a top-level command of [`TABLE`] up by name, ignoring ASCII case. **O(1).**
pub fn lookup(name: &[u8]) -> Option<&'static row::CommandRow<Handler>> {
    TABLE.lookup(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::args::Args;
    use crate::engine::error::CmdResult;
    use crate::engine::Ctx;

    #[test]
    // The browser build fetches the prose (see `docs`): only native rows carry it.
    #[cfg(not(target_arch = "wasm32"))]
    fn names_are_unique_lowercase_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for c in all() {
            assert!(seen.insert(c.name), "duplicate command {}", c.name);
            assert_eq!(c.name, c.name.to_ascii_lowercase());
            assert!(!c.summary.is_empty(), "{} has no summary", c.name);
            assert!(!c.complexity.is_empty(), "{} has no complexity", c.name);
            assert!(c.arity != 0, "{} has arity 0", c.name);
            assert!(
                c.flags.contains(Flags::WRITE) != c.flags.contains(Flags::READONLY)
                    || (!c.flags.contains(Flags::WRITE) && !c.flags.contains(Flags::READONLY)),
                "{} is both write and readonly",
                c.name
            );
            for s in c.subcommands {
                assert!(
                    !s.summary.is_empty(),
                    "{}|{} has no summary",
                    c.name,
                    s.name
                );
                assert!(s.handler.is_some(), "{}|{} has no handler", c.name, s.name);
            }
            if c.subcommands.is_empty() {
                assert!(c.handler.is_some(), "{} has no handler", c.name);
            }
        }
    }

    #[test]
    fn dispatch_flags_name_the_commands_redis_tests_by_handler() {
        let with = |f: DispatchFlags| -> Vec<&str> {
            let mut v: Vec<&str> = all()
                .filter(|c| c.dispatch.contains(f))
                .map(|c| c.name)
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(
            with(DispatchFlags::SUBSCRIBER_CONTEXT),
            [
                "ping",
                "psubscribe",
                "punsubscribe",
                "quit",
                "reset",
                "ssubscribe",
                "subscribe",
                "sunsubscribe",
                "unsubscribe"
            ]
        );
        assert_eq!(
            with(DispatchFlags::NOT_QUEUED),
            ["discard", "exec", "multi", "quit", "reset", "watch"]
        );
        assert_eq!(
            with(DispatchFlags::ENDS_MULTI),
            ["discard", "exec", "quit", "reset"]
        );
        assert_eq!(with(DispatchFlags::RUNS_QUEUE), ["exec"]);
        assert_eq!(with(DispatchFlags::FUNCTION_FLAGS), ["fcall", "fcall_ro"]);
        assert_eq!(
            with(DispatchFlags::SCRIPT_FLAGS),
            ["eval", "eval_ro", "evalsha", "evalsha_ro"]
        );
        let mut nothing: Vec<&str> = all()
            .filter(|c| c.touches == Touches::Nothing)
            .map(|c| c.name)
            .collect();
        nothing.sort_unstable();
        assert_eq!(nothing, ["exec", "multi", "select"]);
        let unnamed: Vec<&str> = all()
            .filter(|c| c.touches == Touches::Unnamed)
            .map(|c| c.name)
            .collect();
        assert_eq!(unnamed, ["copy", "move"]);
        for c in all().flat_map(|c| c.subcommands.iter()) {
            assert!(
                c.dispatch.is_empty(),
                "{}: dispatch reads the top row",
                c.name
            );
        }
    }

    #[test]
    fn lookup_ignores_case() {
        assert!(lookup(b"PING").is_some());
        assert!(lookup(b"pInG").is_some());
        assert!(lookup(b"nosuchcommand").is_none());
    }

    /// Every command is found by its name in any case, and nothing else is: a name with a
    /// byte's 0x20 bit flipped where that does not change a letter's case (`-` and `\r`,
    /// `|` and `\\`), a byte changed, a NUL added (the index pads names with zeros), one
    /// byte short or long, find nothing.
    #[test]
    fn lookup_finds_every_name_and_only_names() {
        for c in TABLE.all() {
            let name = c.name.as_bytes();
            let found = |n: &[u8]| lookup(n).map(|r| r.name);
            assert_eq!(found(name), Some(c.name));
            assert_eq!(found(&name.to_ascii_uppercase()), Some(c.name));
            let mixed: Vec<u8> = name
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    if i % 2 == 0 {
                        b.to_ascii_uppercase()
                    } else {
                        *b
                    }
                })
                .collect();
            assert_eq!(found(&mixed), Some(c.name));
            for i in 0..name.len() {
                // Each byte swapped for one the hash folds with it: a different name.
                let mut twin = name.to_vec();
                twin[i] ^= 0x20;
                if !twin[i].is_ascii_alphabetic() {
                    assert_ne!(found(&twin), Some(c.name), "{twin:?}");
                }
                let mut other = name.to_vec();
                other[i] = b'#';
                assert_ne!(found(&other), Some(c.name));
            }
            assert_eq!(
                found(&name[..name.len() - 1]).filter(|n| *n == c.name),
                None
            );
            for extra in [b'x', 0] {
                let mut longer = name.to_vec();
                longer.push(extra);
                assert_ne!(found(&longer), Some(c.name));
            }
        }
        assert!(lookup(b"").is_none());
        assert!(lookup(&[b'g'; 100]).is_none());
        assert!(lookup(b"get\0").is_none());
        assert!(lookup("gét".as_bytes()).is_none());
    }

    fn ok(_: &mut Ctx<'_>, _: &mut Args) -> CmdResult {
        Ok(crate::engine::Reply::ok())
    }

    #[test]
    fn key_positions_follow_first_last_step() {
        const MSET: Command = Command::new("mset", -3, Group::String, ok)
            .key_specs(&[KeySpec::index(1, "OW update").range(-1, 2, 0)]);
        let range = KeyRange {
            first: 1,
            last: -1,
            step: 2,
        };
        assert_eq!(MSET.keys, range);
        assert!(!MSET.flags.contains(Flags::MOVABLE_KEYS));
        assert_eq!(MSET.key_positions(5), vec![1, 3]);
    }

    #[test]
    fn legacy_range_merges_consecutive_specs_and_marks_the_rest_movable() {
        let r = |first, last, step| KeyRange { first, last, step };
        // LMOVE: two single keys side by side.
        const LMOVE: &[KeySpec] = &[
            KeySpec::index(1, "RW access delete"),
            KeySpec::index(2, "RW insert"),
        ];
        assert_eq!(legacy_range(LMOVE), (r(1, 2, 1), false));
        // ZUNIONSTORE: the destination, then a counted run.
        const ZUNIONSTORE: &[KeySpec] = &[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ];
        assert_eq!(legacy_range(ZUNIONSTORE), (r(1, 1, 1), true));
        // ZUNION: nothing fixed at all.
        const ZUNION: &[KeySpec] = &[KeySpec::index(1, "RO access").keynum(0, 1, 1)];
        assert_eq!(legacy_range(ZUNION), (r(0, 0, 0), true));
        // A gap between ranges (MIGRATE-like) makes the later one movable.
        const GAP: &[KeySpec] = &[KeySpec::index(1, "RO"), KeySpec::index(3, "RO")];
        assert_eq!(legacy_range(GAP), (r(1, 1, 1), true));
        // A from-the-end last key wins (compared unsigned).
        const TAIL: &[KeySpec] = &[
            KeySpec::index(1, "RO"),
            KeySpec::index(2, "RO").range(-1, 1, 0),
        ];
        assert_eq!(legacy_range(TAIL), (r(1, -1, 1), false));
        assert_eq!(legacy_range(&[]), (r(0, 0, 0), false));
    }

    #[test]
    fn every_key_spec_says_how_the_key_is_used() {
        let access = KeyFlags::RO
            .union(KeyFlags::RW)
            .union(KeyFlags::OW)
            .union(KeyFlags::RM);
        for c in all().chain(all().flat_map(|c| c.subcommands.iter())) {
            for spec in c.key_specs {
                let n = (spec.flags & access).bits().count_ones();
                let channel = spec.flags.contains(KeyFlags::NOT_KEY);
                assert!(n == 1 || (channel && n == 0), "{}: {spec:?}", c.name);
            }
            assert!(
                !c.key_specs.is_empty() || c.keys.first == 0,
                "{} has a key range without specs",
                c.name
            );
        }
    }

    #[test]
    fn a_key_count_that_is_not_strict_falls_back_to_redis_finder() {
        let argv = |line: &str| -> Vec<Vec<u8>> {
            line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
        };
        let z = lookup(b"zunionstore").expect("zunionstore");
        let none = KeyFlags::empty();
        assert_eq!(
            z.keys_and_flags(&argv("zunionstore d 2x a b"), false),
            Some(vec![(3, none), (4, none), (1, none)])
        );
        assert_eq!(
            z.keys_and_flags(&argv("zunionstore d 2 a b"), false),
            Some(vec![
                (1, KeyFlags::of("OW update")),
                (3, KeyFlags::of("RO access")),
                (4, KeyFlags::of("RO access")),
            ])
        );
        assert_eq!(z.keys_and_flags(&argv("zunionstore d 3x a b"), false), None);
        let p = lookup(b"spublish").expect("spublish");
        assert!(!p.has_keys());
        assert_eq!(p.key_indexes(&argv("spublish ch m")), Some(vec![1]));
    }

    #[test]
    fn key_flags_parse_and_print_in_redis_order() {
        let f = KeyFlags::of("update RW  access");
        assert_eq!(f.names(), ["RW", "access", "update"]);
        assert_eq!(KeyFlags::of("").names(), Vec::<&str>::new());
    }

    #[test]
    fn specs_find_keys_like_redis() {
        let argv = |line: &str| -> Vec<Vec<u8>> {
            line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
        };
        let xread = KeySpec::keyword("STREAMS", 1, "RO access").range(-1, 1, 2);
        assert_eq!(
            xread.find_in(&argv("xread count 2 streams a b 0 0"), -4),
            Ok(vec![4, 5])
        );
        assert_eq!(xread.find_in(&argv("xread count 2"), -4), Ok(vec![]));
        let store = KeySpec::keyword("STORE", 6, "OW update");
        assert_eq!(
            store.find_in(&argv("georadius k 0 0 1 m store d"), -6),
            Ok(vec![7])
        );
        assert_eq!(
            store.find_in(&argv("georadius k 0 0 1 m store"), -6),
            Ok(vec![])
        );
        let counted = KeySpec::index(2, "RO access").keynum(0, 1, 1);
        assert_eq!(
            counted.find_in(&argv("zunionstore d 2 a b"), -4),
            Ok(vec![3, 4])
        );
        assert_eq!(counted.find_in(&argv("zunionstore d 2x a b"), -4), Err(()));
        assert_eq!(counted.find_in(&argv("zunionstore d 3 a b"), -4), Err(()));
        assert_eq!(counted.find_in(&argv("zunionstore d 0 a"), -4), Err(()));
        let huge = "zunionstore d 9223372036854775807 a";
        assert_eq!(counted.find_in(&argv(huge), -4), Err(()));
        assert_eq!(KeySpec::unknown("RO").find_in(&argv("sort k"), -2), Err(()));
    }

    /// The statistics keys' cheap hash (see [`StatKey`]) keeps the table's commands and
    /// subcommands apart: hardly any two share a hash.
    #[test]
    fn stat_keys_of_the_table_rarely_share_a_hash() {
        use crate::engine::latency::StatKey;
        use std::hash::BuildHasher;
        let state = foldhash::fast::FixedState::with_seed(1);
        let mut keys = Vec::new();
        for top in all() {
            keys.push(StatKey(top.name, ""));
            for sub in top.subcommands {
                keys.push(StatKey(top.name, sub.name));
            }
        }
        let mut hashes: Vec<u64> = keys.iter().map(|k| state.hash_one(k)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let shared = keys.len() - hashes.len();
        assert!(keys.len() > 300, "{} keys", keys.len());
        assert!(
            shared * 100 <= keys.len(),
            "{shared} of {} keys share a hash",
            keys.len()
        );
    }
}
