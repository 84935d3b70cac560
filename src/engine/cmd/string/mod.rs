//! The string group: GET/SET and their variants, counters, ranges, LCS.
//!
//! Every handler follows Redis 7.0's `t_string.c` in the order it checks things, because
//! the order decides which error a client sees when several things are wrong: option syntax
//! first, then the expire value, then the key's type, then the value's content.
//!
//! **Effects.** Writes that depend on the clock or on float formatting are recorded in a
//! form that replays to the same data (see
//! [`Ctx::propagate`](crate::engine::Ctx::propagate)): SET/SETEX/PSETEX with an
//! expiry become `SET key value PXAT <ms>`, SET's `GET` flag is dropped, GETSET becomes SET,
//! GETEX becomes `PEXPIREAT`, `PERSIST` or `DEL`, GETDEL becomes `DEL`, and INCRBYFLOAT
//! becomes `SET key <result> KEEPTTL`. A write that changed nothing records nothing.

use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};

mod common;
mod counter;
mod getset;
mod lcs;
mod range;
#[cfg(test)]
mod tests;

pub use common::{max_bulk_len, DEFAULT_PROTO_MAX_BULK_LEN};
use counter::{decr, decrby, incr, incrby, incrbyfloat};
use getset::{get, getdel, getex, getset, mget, mset, msetnx, psetex, set, setex, setnx};
use lcs::lcs;
use range::{append, getrange, setrange, strlen};

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const DENYOOM: Flags = Flags::DENYOOM;
const FAST: Flags = Flags::FAST;

/// The string commands.
pub const COMMANDS: &[Command] = &[
    Command::new("append", 3, Group::String, append)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key value",
            "Adds bytes to the end of a string, creating it if missing; replies with the new length.",
            "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
            "2.0.0",
        ),
    Command::new("decr", 2, Group::String, decr)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key",
            "Subtracts one from the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("decrby", 3, Group::String, decrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key decrement",
            "Subtracts a number from the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("get", 2, Group::String, get)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc("key", "Returns the string stored at a key, or nil.", "O(1)", "1.0.0"),
    Command::new("getdel", 2, Group::String, getdel)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(W.union(FAST))
        .doc(
            "key",
            "Returns the string stored at a key and deletes the key.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("getex", -2, Group::String, getex)
        .key_specs(&[
            KeySpec::index(1, "RW access update").notes("RW and UPDATE because it changes the TTL"),
        ])
        .flags(W.union(FAST))
        .doc(
            "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]",
            "Returns the string stored at a key and optionally changes or removes its expiry.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("getrange", 4, Group::String, getrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start end",
            "Returns the bytes between two offsets of a string (negative offsets count from the end).",
            "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
            "2.4.0",
        ),
    Command::new("getset", 3, Group::String, getset)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key value",
            "Stores a new string at a key and returns the old one (deprecated: SET … GET).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("incr", 2, Group::String, incr)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key",
            "Adds one to the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("incrby", 3, Group::String, incrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key increment",
            "Adds a number to the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("incrbyfloat", 3, Group::String, incrbyfloat)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key increment",
            "Adds a decimal number to the number in a string, computing in extended precision.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("lcs", -3, Group::String, lcs)
        .key_specs(&[KeySpec::index(1, "RO access").range(1, 1, 0)])
        .flags(R)
        .doc(
            "key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]",
            "Finds the longest common subsequence of two strings, its length, or where it matches.",
            "O(N*M) where N and M are the lengths of s1 and s2, respectively",
            "7.0.0",
        ),
    Command::new("mget", -2, Group::String, mget)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard"])
        .flags(R.union(FAST))
        .doc(
            "key [key ...]",
            "Returns the strings stored at several keys (nil for missing keys and other types).",
            "O(N) where N is the number of keys to retrieve.",
            "1.0.0",
        ),
    Command::new("mset", -3, Group::String, mset)
        .key_specs(&[KeySpec::index(1, "OW update").range(-1, 2, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:all_succeeded"])
        .flags(W.union(DENYOOM))
        .doc(
            "key value [key value ...]",
            "Stores several strings at once, replacing what was there.",
            "O(N) where N is the number of keys to set.",
            "1.0.1",
        ),
    Command::new("msetnx", -3, Group::String, msetnx)
        .key_specs(&[KeySpec::index(1, "OW insert").range(-1, 2, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_min"])
        .flags(W.union(DENYOOM))
        .doc(
            "key value [key value ...]",
            "Stores several strings only if none of the keys exists; replies 1 if it did.",
            "O(N) where N is the number of keys to set.",
            "1.0.1",
        ),
    Command::new("psetex", 4, Group::String, psetex)
        .key_specs(&[KeySpec::index(1, "OW update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key milliseconds value",
            "Stores a string that expires after a number of milliseconds.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("set", -3, Group::String, set)
        .key_specs(&[
            KeySpec::index(1, "RW access update variable_flags")
                .notes("RW and ACCESS due to the optional `GET` argument"),
        ])
        .getkeys(GetKeys::Set)
        .flags(W.union(DENYOOM))
        .doc(
            "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]",
            "Stores a string under a key, optionally with an expiry, a condition, or returning the old value.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("setex", 4, Group::String, setex)
        .key_specs(&[KeySpec::index(1, "OW update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key seconds value",
            "Stores a string that expires after a number of seconds.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("setnx", 3, Group::String, setnx)
        .key_specs(&[KeySpec::index(1, "OW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key value",
            "Stores a string only if the key does not exist; replies 1 if it did.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("setrange", 4, Group::String, setrange)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key offset value",
            "Overwrites part of a string from an offset, padding with zero bytes; replies with the new length.",
            "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
            "2.2.0",
        ),
    Command::new("strlen", 2, Group::String, strlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key",
            "Returns the length in bytes of the string stored at a key (0 if missing).",
            "O(1)",
            "2.2.0",
        ),
    Command::new("substr", 4, Group::String, getrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start end",
            "Returns the bytes between two offsets of a string (old name of GETRANGE).",
            "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
            "1.0.0",
        ),
];
