//! The bitmap group: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO.
//!
//! A bitmap is an ordinary string read as a bit array: bit 0 is the most significant bit
//! of byte 0, bit 8 the most significant bit of byte 1, and so on; bits past the end of the
//! string read as 0. Handlers follow Redis 7.0's `bitops.c`, including the order of their
//! checks (which decides the error a client sees) and its quirks:
//!
//! * offsets are checked against `proto-max-bulk-len`: an offset whose byte (`offset / 8`)
//!   would reach the limit is `ERR bit offset is not an integer or out of range`, so with
//!   the default 512 MB the largest bit offset is 2^32 - 1;
//! * commands that write (SETBIT, BITFIELD with SET/INCRBY) first grow the string with zero
//!   bytes to cover the highest bit they write, and edit it in place, which makes the value
//!   `raw` (see [`crate::engine::types::string`]) even when no bit changes; it keeps its TTL;
//! * BITOP stores a new `raw` value (clearing the TTL), or deletes the destination when the
//!   result is empty;
//! * reads on a missing key see an empty string.
//!
//! **Notifications.** As Redis: `setbit` for SETBIT and BITFIELD when a bit changed (after
//! `new` when the string was created), `set` or `del` for BITOP's destination.
//!
//! **Effects.** Every write replays as itself. One divergence from Redis: a BITFIELD whose
//! writes all fail under `OVERFLOW FAIL` still grows (or creates) the string; Redis then
//! propagates nothing, which would leave a replica without the key, so we record the
//! command, whose replay grows it the same way.

use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};

mod bitfield;
mod bitop;
mod bits;
mod common;

use bitfield::{bitfield, bitfield_ro};
use bitop::bitop;
use bits::{bitcount, bitpos, getbit, setbit};

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const DENYOOM: Flags = Flags::DENYOOM;
const FAST: Flags = Flags::FAST;

/// The bitmap commands.
pub const COMMANDS: &[Command] = &[
    Command::new("bitcount", -2, Group::Bitmap, bitcount)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key [start end [BYTE | BIT]]",
            "Counts the set bits of a string, optionally within a byte or bit range.",
            "O(N)",
            "2.6.0",
        ),
    Command::new("bitfield", -2, Group::Bitmap, bitfield)
        .key_specs(&[
            KeySpec::index(1, "RW access update variable_flags")
                .notes("This command allows both access and modification of the key"),
        ])
        .getkeys(GetKeys::Bitfield)
        .flags(W.union(DENYOOM))
        .doc(
            "key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]]",
            "Reads, writes and increments integers of any width from 1 to 64 bits at any bit offset of a string.",
            "O(1) for each subcommand specified",
            "3.2.0",
        ),
    Command::new("bitfield_ro", -2, Group::Bitmap, bitfield_ro)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc(
            "key [GET encoding offset [GET encoding offset ...]]",
            "Reads integers of any width at any bit offset of a string (BITFIELD with GET only).",
            "O(1) for each subcommand specified",
            "6.0.0",
        ),
    Command::new("bitop", -4, Group::Bitmap, bitop)
        .key_specs(&[
            KeySpec::index(2, "OW update"),
            KeySpec::index(3, "RO access").range(-1, 1, 0),
        ])
        .flags(W.union(DENYOOM))
        .doc(
            "<AND | OR | XOR | NOT> destkey key [key ...]",
            "Stores the bitwise AND, OR, XOR of strings, or the NOT of one, at a destination key.",
            "O(N)",
            "2.6.0",
        ),
    Command::new("bitpos", -3, Group::Bitmap, bitpos)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key bit [start [end [BYTE | BIT]]]",
            "Finds the first set or clear bit of a string, optionally within a byte or bit range.",
            "O(N)",
            "2.8.7",
        ),
    Command::new("getbit", 3, Group::Bitmap, getbit)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc(
            "key offset",
            "Returns the bit at an offset of a string (0 past its end).",
            "O(1)",
            "2.2.0",
        ),
    Command::new("setbit", 4, Group::Bitmap, setbit)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key offset value",
            "Sets or clears the bit at an offset of a string, growing it with zero bytes; replies with the old bit.",
            "O(1)",
            "2.2.0",
        ),
];
