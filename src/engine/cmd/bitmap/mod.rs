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

use crate::engine::args::{c_bytes, parse_i64};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};
use crate::engine::types::{StrValue, Value};
use crate::engine::Ctx;

mod bitfield;
mod bitop;
mod bits;

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

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// Case-insensitive comparison of an option with a keyword, as `strcasecmp` does.
fn is_opt(arg: &[u8], word: &str) -> bool {
    c_bytes(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// Redis's `getBitOffsetFromArgument`: a non-negative bit offset whose byte is below
/// `proto-max-bulk-len`. With `hash_bits` (BITFIELD) an offset written `#n` means
/// `n * bits`; the product wraps as the C multiplication does on every real machine.
fn bit_offset(ctx: &Ctx<'_>, arg: &[u8], hash_bits: Option<u32>) -> CmdResult<u64> {
    let (digits, mul) = match (arg.first(), hash_bits) {
        (Some(b'#'), Some(bits)) => (&arg[1..], i64::from(bits)),
        _ => (arg, 1),
    };
    let off = parse_i64(digits).ok_or(Error::BitOffset)?.wrapping_mul(mul);
    if off < 0 || (off as u64 >> 3) >= ctx.srv.config.proto_max_bulk_len() {
        return Err(Error::BitOffset);
    }
    Ok(off as u64)
}

/// Redis's `lookupStringForBitCommand`: the string at `key` for an in-place bit write,
/// created (with the `new` event) or grown with zero bytes so that bit `max_bit` exists,
/// and marked `raw`. The caller signals the change and sends its event.
/// Returns it with true if it was created or grown. WRONGTYPE for other types; out of
/// memory (not an abort) if the bytes cannot be had.
fn bits_for_write<'c>(
    ctx: &'c mut Ctx<'_>,
    key: &[u8],
    max_bit: u64,
) -> CmdResult<(&'c mut StrValue, bool)> {
    let need = usize::try_from((max_bit >> 3) + 1).map_err(|_| Error::OutOfMemory)?;
    let exists = match ctx.lookup_write(key) {
        Some(e) => {
            e.value.as_str()?;
            true
        }
        None => false,
    };
    if !exists {
        let bytes = zeroed(need)?;
        let now = ctx.now_ms;
        ctx.notify(class::NEW, "new", key);
        ctx.db()
            .set(key.to_vec(), Value::Str(StrValue::raw(bytes)), false, now);
    }
    let s = ctx
        .db()
        .get_raw_mut(key)
        .ok_or(Error::NoSuchKey)?
        .value
        .as_str_mut()?;
    s.raw = true;
    let mut grown = !exists;
    if s.bytes.len() < need {
        s.bytes
            .try_reserve_exact(need - s.bytes.len())
            .map_err(|_| Error::OutOfMemory)?;
        s.bytes.resize(need, 0);
        grown = true;
    }
    Ok((s, grown))
}

/// `len` zero bytes, or out of memory.
fn zeroed(len: usize) -> CmdResult<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory)?;
    v.resize(len, 0);
    Ok(v)
}

/// The byte holding bit `bit`, 0 past the end.
fn byte_at(bytes: &[u8], bit: u64) -> u8 {
    usize::try_from(bit >> 3)
        .ok()
        .and_then(|i| bytes.get(i))
        .copied()
        .unwrap_or(0)
}

/// Number of set bits in `bytes`.
fn popcount(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut n: u64 = 0;
    for c in &mut chunks {
        let w = u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        n += u64::from(w.count_ones());
    }
    n + chunks
        .remainder()
        .iter()
        .map(|b| u64::from(b.count_ones()))
        .sum::<u64>()
}

/// Set bits among bits `first..=last` (both inside `bytes`).
fn count_bits(bytes: &[u8], first: u64, last: u64) -> u64 {
    let (fb, lb) = ((first >> 3) as usize, (last >> 3) as usize);
    let Some(span) = bytes.get(fb..=lb) else {
        return 0;
    };
    let before = !(0xffu8 >> (first & 7));
    let after = ((1u16 << (7 - (last & 7))) - 1) as u8;
    popcount(span)
        - u64::from((span[0] & before).count_ones())
        - u64::from((span[span.len() - 1] & after).count_ones())
}

/// The first bit equal to `bit` among bits `first..=last` (both inside `bytes`).
fn find_bit(bytes: &[u8], first: u64, last: u64, bit: bool) -> Option<u64> {
    let (fb, lb) = ((first >> 3) as usize, (last >> 3) as usize);
    let span = bytes.get(fb..=lb)?;
    let skip = if bit { 0x00 } else { 0xff };
    let n = span.len();
    for (i, &b) in span.iter().enumerate() {
        if b == skip && i != 0 && i != n - 1 {
            continue;
        }
        // Look for a 1 in `wanted`: the byte, inverted when looking for a 0.
        let mut wanted = if bit { b } else { !b };
        if i == 0 {
            wanted &= 0xff >> (first & 7);
        }
        if i == n - 1 {
            wanted &= !(((1u16 << (7 - (last & 7))) - 1) as u8);
        }
        if wanted != 0 {
            return Some(((fb + i) as u64) * 8 + u64::from(wanted.leading_zeros()));
        }
    }
    None
}

/// A `start end [BYTE | BIT]` range of BITCOUNT/BITPOS resolved against a string of `len`
/// bytes as Redis does (negative indexes count from the end, then both are clamped), as
/// an inclusive range of bits; `None` when empty.
fn bit_range(len: u64, start: i64, end: i64, in_bits: bool) -> Option<(u64, u64)> {
    let total = if in_bits {
        (len as i64) << 3
    } else {
        len as i64
    };
    let mut start = if start < 0 { total + start } else { start };
    let mut end = if end < 0 { total + end } else { end };
    start = start.max(0);
    end = end.max(0);
    if end >= total {
        end = total - 1;
    }
    if start > end {
        return None;
    }
    let (start, end) = (start as u64, end as u64);
    if in_bits {
        Some((start, end))
    } else {
        Some((start * 8, end * 8 + 7))
    }
}

/// `BYTE` or `BIT` (true), else a syntax error.
fn unit(arg: &[u8]) -> CmdResult<bool> {
    if is_opt(arg, "bit") {
        Ok(true)
    } else if is_opt(arg, "byte") {
        Ok(false)
    } else {
        Err(Error::Syntax)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_and_searching_respect_bit_edges() {
        let b = [0xffu8, 0x00, 0x0f];
        assert_eq!(count_bits(&b, 0, 23), 12);
        assert_eq!(count_bits(&b, 3, 20), 5 + 1);
        assert_eq!(find_bit(&b, 0, 23, false), Some(8));
        assert_eq!(find_bit(&b, 3, 7, false), None);
        assert_eq!(find_bit(&b, 16, 23, true), Some(20));
        assert_eq!(find_bit(&b, 8, 15, true), None);
    }
}
