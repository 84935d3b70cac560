//! The generic (keyspace) group — DEL, EXISTS, the EXPIRE family, TTL, KEYS, SCAN, RENAME,
//! COPY, MOVE, OBJECT, RESTORE, … — and the database commands SWAPDB, DBSIZE, FLUSHDB and FLUSHALL.
//!
//! These commands never look inside a value: they move, copy, time out and describe whole
//! [`Value`](crate::engine::types::Value)s, so a new data type works with all of them as soon as it has a `Value`
//! variant with a type name and an encoding.
//!
//! # Lookups
//! Redis reads keys in three ways, and each command here uses the one Redis uses, because
//! the difference shows in `OBJECT IDLETIME` and in the `INFO` hit/miss counters:
//! * a *read* ([`Ctx::lookup_read`](crate::engine::Ctx::lookup_read): TOUCH, COPY's source) expires the key lazily, counts a
//!   hit or miss and refreshes the access time;
//! * a *no-touch read* ([`Ctx::lookup_read_notouch`](crate::engine::Ctx::lookup_read_notouch): EXISTS, TTL, TYPE, OBJECT, SCAN's
//!   TYPE filter) does the same without refreshing the access time;
//! * a *write lookup* ([`Ctx::lookup_write`](crate::engine::Ctx::lookup_write): EXPIRE, PERSIST, RENAME, MOVE) refreshes the
//!   access time but counts nothing.
//!
//! KEYS alone only *filters* expired keys without removing them, as Redis's `keysCommand`
//! does; every other command removes an expired key it meets, which records a `DEL` effect.
//!
//! # Effects
//! The EXPIRE family replays as `PEXPIREAT key <absolute ms>` (the condition flags are
//! dropped: they held when the command ran, so the effect applies unconditionally), or as
//! `DEL key` when the deadline is already past. A command that changed nothing records
//! nothing. FLUSHDB and FLUSHALL are always recorded, even on empty databases, as Redis
//! forces their propagation. Everything else replays as itself in the client's database.
//!
//! # WATCH and keyspace events
//! Changes are signalled to `WATCH` as Redis's `signalModifiedKey` calls do: by the engine
//! from the key positions for most commands, explicitly where the keys are elsewhere
//! (MOVE's and COPY's target database; COPY's source is not touched) or are whole
//! databases (FLUSHDB, FLUSHALL, SWAPDB: [`Ctx::signal_flushed`](crate::engine::Ctx::signal_flushed), [`Ctx::signal_swapped`](crate::engine::Ctx::signal_swapped)).
//! Keyspace events carry Redis's names: `del`, `expire`, `persist`, `rename_from` and
//! `rename_to`, `move_from` and `move_to`, `copy_to`, and `new` for a created key.

use crate::engine::table::{Command, Flags, Group, KeySpec, Touches};

mod db;
mod dump;
mod exists;
mod expire;
pub(crate) mod object;
mod parse;
mod rename;
mod restore;
mod scan;
#[cfg(test)]
mod tests;

use db::{flushall, flushdb, swapdb};
use dump::dump;
use exists::{del, exists, touch, type_, unlink};
use expire::{expire, expireat, expiretime, persist, pexpire, pexpireat, pexpiretime, pttl, ttl};
use object::{object_encoding, object_freq, object_help, object_idletime, object_refcount};
use rename::{copy, move_, rename, renamenx};
use restore::restore;
use scan::{dbsize, keys, randomkey, scan};

const RW_FAST: Flags = Flags::WRITE.union(Flags::FAST);
const RO_FAST: Flags = Flags::READONLY.union(Flags::FAST);

/// The generic and database commands.
pub const COMMANDS: &[Command] = &[
    Command::new("copy", -3, Group::Generic, copy)
        .key_specs(&[KeySpec::index(1, "RO access"), KeySpec::index(2, "OW update")])
        .touches(Touches::Unnamed)
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .doc(
            "source destination [DB destination-db] [REPLACE]",
            "Copies the value (and deadline) of a key to another key, possibly in another database.",
            "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
            "6.2.0",
        ),
    Command::new("del", -2, Group::Generic, del)
        .key_specs(&[KeySpec::index(1, "RM delete").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(Flags::WRITE)
        .doc(
            "key [key ...]",
            "Deletes keys and replies with how many existed.",
            "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
            "1.0.0",
        ),
    Command::new("dump", 2, Group::Generic, dump)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Serializes the value at a key in Redis's RDB format, for RESTORE.",
            "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
            "2.6.0",
        ),
    Command::new("exists", -2, Group::Generic, exists)
        .key_specs(&[KeySpec::index(1, "RO").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(RO_FAST)
        .doc(
            "key [key ...]",
            "Counts how many of the given keys exist; a key named twice counts twice.",
            "O(N) where N is the number of keys to check.",
            "1.0.0",
        ),
    Command::new("expire", -3, Group::Generic, expire)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key seconds [NX | XX | GT | LT]",
            "Gives a key a time to live in seconds, optionally only under a condition.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("expireat", -3, Group::Generic, expireat)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key unix-time-seconds [NX | XX | GT | LT]",
            "Makes a key expire at a Unix time in seconds, optionally only under a condition.",
            "O(1)",
            "1.2.0",
        ),
    Command::new("expiretime", 2, Group::Generic, expiretime)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with the Unix time in seconds at which a key expires (-1 none, -2 no key).",
            "O(1)",
            "7.0.0",
        ),
    Command::new("keys", 2, Group::Generic, keys)
        .acl(&["dangerous"])
        .tips(&["request_policy:all_shards", "nondeterministic_output_order"])
        .flags(Flags::READONLY)
        .doc(
            "pattern",
            "Lists every key matching a glob pattern, in one blocking pass.",
            "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
            "1.0.0",
        ),
    Command::new("move", 3, Group::Generic, move_)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .touches(Touches::Unnamed)
        .flags(RW_FAST)
        .doc(
            "key db",
            "Moves a key to another database, unless a key of that name is already there.",
            "O(1)",
            "1.0.0",
        ),
    Command::container("object", Group::Generic, OBJECT_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Inspects how a key's value is stored.",
        "Depends on subcommand.",
        "2.2.3",
    ),
    Command::new("persist", 2, Group::Generic, persist)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key",
            "Removes a key's deadline, making it persistent.",
            "O(1)",
            "2.2.0",
        ),
    Command::new("pexpire", -3, Group::Generic, pexpire)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key milliseconds [NX | XX | GT | LT]",
            "Gives a key a time to live in milliseconds, optionally only under a condition.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("pexpireat", -3, Group::Generic, pexpireat)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key unix-time-milliseconds [NX | XX | GT | LT]",
            "Makes a key expire at a Unix time in milliseconds, optionally only under a condition.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("pexpiretime", 2, Group::Generic, pexpiretime)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with the Unix time in milliseconds at which a key expires (-1 none, -2 no key).",
            "O(1)",
            "7.0.0",
        ),
    Command::new("pttl", 2, Group::Generic, pttl)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with a key's remaining time to live in milliseconds (-1 none, -2 no key).",
            "O(1)",
            "2.6.0",
        ),
    Command::new("randomkey", 1, Group::Generic, randomkey)
        .tips(&["request_policy:all_shards", "nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "",
            "Replies with a key chosen uniformly at random, or nil for an empty database.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("rename", 3, Group::Generic, rename)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "OW update")])
        .flags(Flags::WRITE)
        .doc(
            "key newkey",
            "Renames a key, keeping its deadline and replacing any key of the new name.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("renamenx", 3, Group::Generic, renamenx)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "OW insert")])
        .flags(RW_FAST)
        .doc(
            "key newkey",
            "Renames a key only if the new name is free.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("restore", -4, Group::Generic, restore)
        .key_specs(&[KeySpec::index(1, "OW update")])
        .acl(&["keyspace", "dangerous"])
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .doc(
            "key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]",
            "Creates a key from a DUMP payload, with a time to live (0 for none).",
            "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
            "2.6.0",
        ),
    Command::new("scan", -2, Group::Generic, scan)
        .tips(&["nondeterministic_output", "request_policy:special"])
        .flags(Flags::READONLY)
        .doc(
            "cursor [MATCH pattern] [COUNT count] [TYPE type]",
            "Iterates over the keys a few at a time with a cursor; every key present throughout is returned.",
            "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
            "2.8.0",
        ),
    Command::new("touch", -2, Group::Generic, touch)
        .key_specs(&[KeySpec::index(1, "RO").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(RO_FAST)
        .doc(
            "key [key ...]",
            "Refreshes the access time of keys and counts how many exist.",
            "O(N) where N is the number of keys that will be touched.",
            "3.2.1",
        ),
    Command::new("ttl", 2, Group::Generic, ttl)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with a key's remaining time to live in seconds (-1 none, -2 no key).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("type", 2, Group::Generic, type_)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RO_FAST)
        .doc(
            "key",
            "Names the type of the value at a key, or none.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("unlink", -2, Group::Generic, unlink)
        .key_specs(&[KeySpec::index(1, "RM delete").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(RW_FAST)
        .doc(
            "key [key ...]",
            "Deletes keys like DEL (Redis frees big values in the background).",
            "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
            "4.0.0",
        ),
    Command::new("swapdb", 3, Group::Server, swapdb)
        .acl(&["keyspace", "dangerous"])
        .flags(RW_FAST)
        .doc(
            "index1 index2",
            "Exchanges the contents of two databases; clients stay on their index.",
            "O(N) where N is the count of clients watching or blocking on keys from both databases.",
            "4.0.0",
        ),
    Command::new("dbsize", 1, Group::Server, dbsize)
        .acl(&["keyspace"])
        .tips(&["request_policy:all_shards", "response_policy:agg_sum"])
        .flags(RO_FAST)
        .doc(
            "",
            "Counts the keys in the selected database (expired keys not yet removed included).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("flushdb", -1, Group::Server, flushdb)
        .acl(&["keyspace", "dangerous"])
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .flags(Flags::WRITE)
        .doc(
            "[ASYNC | SYNC]",
            "Deletes every key of the selected database.",
            "O(N) where N is the number of keys in the selected database",
            "1.0.0",
        ),
    Command::new("flushall", -1, Group::Server, flushall)
        .acl(&["keyspace", "dangerous"])
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .flags(Flags::WRITE)
        .doc(
            "[ASYNC | SYNC]",
            "Deletes every key of every database.",
            "O(N) where N is the total number of keys in all databases",
            "1.0.0",
        ),
];

/// `OBJECT` subcommands.
const OBJECT_SUBCOMMANDS: &[Command] = &[
    Command::new("encoding", 3, Group::Generic, object_encoding)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Names the internal representation of the value at a key.",
            "O(1)",
            "2.2.3",
        ),
    Command::new("freq", 3, Group::Generic, object_freq)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Replies with the logarithmic access frequency counter of a key (LFU policies only).",
            "O(1)",
            "4.0.0",
        ),
    Command::new("help", 2, Group::Generic, object_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the OBJECT subcommands.", "O(1)", "6.2.0"),
    Command::new("idletime", 3, Group::Generic, object_idletime)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Replies with the seconds since a key was last read or written.",
            "O(1)",
            "2.2.3",
        ),
    Command::new("refcount", 3, Group::Generic, object_refcount)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Replies with the reference count of the value at a key.",
            "O(1)",
            "2.2.3",
        ),
];
