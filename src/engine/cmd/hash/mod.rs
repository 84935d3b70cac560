//! The hash group: HSET and friends, counters, whole-hash reads, HRANDFIELD and HSCAN.
//!
//! Handlers follow Redis 7.0's `t_hash.c` in the order they check things. Writers that may
//! create the key (HSET, HMSET, HSETNX, HINCRBY, HINCRBYFLOAT) create it only once nothing
//! can fail any more, so an error never leaves an empty hash behind. The representation
//! and the listpack/hashtable switch are described in [`crate::engine::types::hash`].
//!
//! **Effects.** Writes replay as sent, except HINCRBYFLOAT, which is recorded as
//! `HSET key field <result>` so that replay does not depend on float arithmetic; HDEL of
//! fields that do not exist records nothing.

use crate::engine::table::{Command, Flags, Group, KeySpec};

mod common;
mod read;
#[cfg(test)]
mod tests;
mod walk;
mod write;

pub use common::{map_reply, MAX_RANDOM_REPLY};
use read::{hexists, hget, hgetall, hkeys, hlen, hmget, hstrlen, hvals};
use walk::{hrandfield, hscan};
use write::{hdel, hincrby, hincrbyfloat, hmset, hset, hsetnx};

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const DENYOOM: Flags = Flags::DENYOOM;
const FAST: Flags = Flags::FAST;

/// The hash commands.
pub const COMMANDS: &[Command] = &[
    Command::new("hdel", -3, Group::Hash, hdel)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W.union(FAST))
        .doc(
            "key field [field ...]",
            "Removes fields from a hash (the key goes with its last field); replies with how many existed.",
            "O(N) where N is the number of fields to be removed.",
            "2.0.0",
        ),
    Command::new("hexists", 3, Group::Hash, hexists)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key field",
            "Replies 1 if the hash has the field, else 0.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hget", 3, Group::Hash, hget)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc(
            "key field",
            "Returns the value of one field of a hash, or nil.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hgetall", 2, Group::Hash, hgetall)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns every field and value of a hash.",
            "O(N) where N is the size of the hash.",
            "2.0.0",
        ),
    Command::new("hincrby", 4, Group::Hash, hincrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field increment",
            "Adds an integer to the integer in a hash field (a missing field counts as 0).",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hincrbyfloat", 4, Group::Hash, hincrbyfloat)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field increment",
            "Adds a decimal number to the number in a hash field, in extended precision.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("hkeys", 2, Group::Hash, hkeys)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns every field name of a hash.",
            "O(N) where N is the size of the hash.",
            "2.0.0",
        ),
    Command::new("hlen", 2, Group::Hash, hlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key",
            "Returns the number of fields in a hash (0 if missing).",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hmget", -3, Group::Hash, hmget)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc(
            "key field [field ...]",
            "Returns the values of several fields of a hash (nil for missing ones).",
            "O(N) where N is the number of fields being requested.",
            "2.0.0",
        ),
    Command::new("hmset", -4, Group::Hash, hmset)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field value [field value ...]",
            "Sets several fields of a hash and replies OK (deprecated: HSET does the same).",
            "O(N) where N is the number of fields being set.",
            "2.0.0",
        ),
    Command::new("hrandfield", -2, Group::Hash, hrandfield)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key [count [WITHVALUES]]",
            "Returns random fields of a hash: distinct ones for a positive count, possibly repeated for a negative one.",
            "O(N) where N is the number of fields returned",
            "6.2.0",
        ),
    Command::new("hscan", -3, Group::Hash, hscan)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key cursor [MATCH pattern] [COUNT count]",
            "Iterates over the fields and values of a hash a few at a time.",
            "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
            "2.8.0",
        ),
    Command::new("hset", -4, Group::Hash, hset)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field value [field value ...]",
            "Sets fields of a hash, creating it if missing; replies with how many fields are new.",
            "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
            "2.0.0",
        ),
    Command::new("hsetnx", 4, Group::Hash, hsetnx)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field value",
            "Sets a hash field only if it does not exist; replies 1 if it did.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hstrlen", 3, Group::Hash, hstrlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key field",
            "Returns the length of a hash field's value (0 if missing).",
            "O(1)",
            "3.2.0",
        ),
    Command::new("hvals", 2, Group::Hash, hvals)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns every value of a hash.",
            "O(N) where N is the size of the hash.",
            "2.0.0",
        ),
];
