//! The set group: every set command of Redis 7.0.
//!
//! The representation, its encodings and their costs are described in
//! [`crate::engine::types::set`]. What the handlers share:
//!
//! * **Replies.** Commands that return a whole set (`SMEMBERS`, `SINTER`, `SUNION`,
//!   `SDIFF`, `SPOP key count`) reply with a RESP3 set to RESP3 clients and an array to
//!   RESP2 ones, as Redis; `SRANDMEMBER key count` always replies with an array (it may
//!   repeat members). Intset-encoded results come out in ascending order, like Redis's.
//! * **Multi-key commands** type-check every key before computing anything, and treat a
//!   missing key as an empty set. `SINTER` walks the smallest set and probes the others
//!   (O(N·M) worst case), `SUNION` and `SDIFF` build their result as a fresh set, which
//!   starts as an intset and converts as Redis's does. The `…STORE` forms overwrite a
//!   destination of any type (dropping its TTL) and delete it when the result is empty.
//! * **Effects.** `SPOP` is not deterministic, so it is recorded as the `SREM` of the
//!   members it popped (in batches of up to 1024), or as `DEL` when it took the whole set.
//!   Everything else replays as itself; a command that changed nothing records nothing.
//! * **Huge counts.** `SPOP`/`SRANDMEMBER` with a positive count never return more than the
//!   set holds. A negative `SRANDMEMBER` count asks for that many picks *with* repetition;
//!   beyond [`MAX_REPEATED_PICKS`] it is refused with [`Error::ReplyTooLarge`](crate::engine::Error::ReplyTooLarge) rather than
//!   building a reply that cannot fit in memory (Redis would try to stream it).

use crate::engine::table::{Command, Flags, Group, KeySpec};

mod access;
mod algebra;
mod single;
#[cfg(test)]
mod tests;

use algebra::{sdiff, sdiffstore, sinter, sintercard, sinterstore, sunion, sunionstore};
pub use single::MAX_REPEATED_PICKS;
use single::{sadd, scard, sismember, smembers, smismember, smove, spop, srandmember, srem, sscan};

const R: Flags = Flags::READONLY;
const RF: Flags = Flags::READONLY.union(Flags::FAST);
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WDF: Flags = Flags::WRITE.union(Flags::DENYOOM).union(Flags::FAST);

/// The set commands.
pub const COMMANDS: &[Command] = &[
    Command::new("sadd", -3, Group::Set, sadd)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WDF)
        .doc(
            "key member [member ...]",
            "Adds members to a set, creating it if needed; replies with how many were new.",
            "O(1) per member",
            "1.0.0",
        ),
    Command::new("scard", 2, Group::Set, scard)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc("key", "Returns the number of members of a set.", "O(1)", "1.0.0"),
    Command::new("sdiff", -2, Group::Set, sdiff)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key [key ...]",
            "Returns the members of the first set that are in none of the others.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
    Command::new("sdiffstore", -3, Group::Set, sdiffstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(WD)
        .doc(
            "destination key [key ...]",
            "Stores the difference of sets in a key, replacing what was there.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
    Command::new("sinter", -2, Group::Set, sinter)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key [key ...]",
            "Returns the members common to all the given sets.",
            "O(N*M): N the smallest set's size, M the number of sets",
            "1.0.0",
        ),
    Command::new("sintercard", -3, Group::Set, sintercard)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [LIMIT limit]",
            "Counts the members common to all the given sets, stopping early at LIMIT.",
            "O(N*M): N the smallest set's size, M the number of sets",
            "7.0.0",
        ),
    Command::new("sinterstore", -3, Group::Set, sinterstore)
        .key_specs(&[
            KeySpec::index(1, "RW update"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(WD)
        .doc(
            "destination key [key ...]",
            "Stores the intersection of sets in a key, replacing what was there.",
            "O(N*M): N the smallest set's size, M the number of sets",
            "1.0.0",
        ),
    Command::new("sismember", 3, Group::Set, sismember)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc(
            "key member",
            "Tells whether a member belongs to a set (1) or not (0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("smembers", 2, Group::Set, smembers)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns all the members of a set.",
            "O(N) in the size of the set",
            "1.0.0",
        ),
    Command::new("smismember", -3, Group::Set, smismember)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member [member ...]",
            "Tells for each of several members whether it belongs to a set.",
            "O(1) per member",
            "6.2.0",
        ),
    Command::new("smove", 4, Group::Set, smove)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "RW insert")])
        .flags(WF)
        .doc(
            "source destination member",
            "Moves a member from one set to another.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("spop", -2, Group::Set, spop)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .tips(&["nondeterministic_output"])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns one or more random members of a set.",
            "O(1) without count; O(N) in the count",
            "1.0.0",
        ),
    Command::new("srandmember", -2, Group::Set, srandmember)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key [count]",
            "Returns random members of a set: distinct ones for a positive count, possibly repeated for a negative one.",
            "O(1) without count; O(N) in the absolute count",
            "1.0.0",
        ),
    Command::new("srem", -3, Group::Set, srem)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(WF)
        .doc(
            "key member [member ...]",
            "Removes members from a set; replies with how many were there.",
            "O(1) per member",
            "1.0.0",
        ),
    Command::new("sscan", -3, Group::Set, sscan)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key cursor [MATCH pattern] [COUNT count]",
            "Iterates over the members of a set a few at a time.",
            "O(1) per call, O(N) for a complete iteration",
            "2.8.0",
        ),
    Command::new("sunion", -2, Group::Set, sunion)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key [key ...]",
            "Returns the members of all the given sets together.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
    Command::new("sunionstore", -3, Group::Set, sunionstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(WD)
        .doc(
            "destination key [key ...]",
            "Stores the union of sets in a key, replacing what was there.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
];
