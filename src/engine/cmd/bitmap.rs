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

use crate::engine::args::{c_bytes, parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

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

// ---------------------------------------------------------------------------------------
// SETBIT, GETBIT
// ---------------------------------------------------------------------------------------

/// `SETBIT key offset value`: sets (1) or clears (0) one bit, growing the string with zero
/// bytes as needed (creating it if missing), and replies with the bit's old value.
///
/// Checks, in order: the offset (`ERR bit offset is not an integer or out of range`), the
/// value (`ERR bit is not an integer or out of range` unless 0 or 1), then the type. The
/// key changes (and the command replays) when the string was created or grown or the bit
/// flipped. **O(1)** (amortised; growing is O(growth)).
fn setbit(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let offset = bit_offset(ctx, args.next_bytes()?, None)?;
    let on = parse_i64(args.next_bytes()?)
        .filter(|v| v & !1 == 0)
        .ok_or(Error::BitValue)?;
    let (s, grown) = bits_for_write(ctx, &key, offset)?;
    let byte = &mut s.bytes[(offset >> 3) as usize];
    let mask = 0x80u8 >> (offset & 7);
    let old = *byte & mask != 0;
    let changed = grown || old != (on == 1);
    if changed {
        if on == 1 {
            *byte |= mask;
        } else {
            *byte &= !mask;
        }
        ctx.dirty += 1;
        ctx.signal_modified(&key);
        ctx.notify(class::STRING, "setbit", &key);
    }
    Ok(Reply::Integer(i64::from(old)))
}

/// `GETBIT key offset`: the bit at `offset`, 0 past the end of the string or for a missing
/// key. The offset is checked (as SETBIT's) before the key. **O(1).**
fn getbit(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let offset = bit_offset(ctx, args.next_bytes()?, None)?;
    let Some(v) = ctx.lookup_read(&key) else {
        return Ok(Reply::Integer(0));
    };
    let b = byte_at(&v.as_str()?.bytes, offset);
    Ok(Reply::Integer(i64::from(b & (0x80 >> (offset & 7)) != 0)))
}

// ---------------------------------------------------------------------------------------
// BITCOUNT, BITPOS
// ---------------------------------------------------------------------------------------

/// `BITCOUNT key [start end [BYTE | BIT]]`: the number of set bits, in the whole string or
/// between two byte (default) or bit indexes, inclusive; negative indexes count from the
/// end.
///
/// As in Redis the key is looked up first: a missing key replies 0 whatever the other
/// arguments, and a wrong type is WRONGTYPE. Then a start and end that are both negative
/// with start > end reply 0 before the unit is read; three arguments, or more than five,
/// are a syntax error. **O(N)** in the range's length.
fn bitcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let argv = args.argv();
    let Some(v) = ctx.lookup_read(&key) else {
        return Ok(Reply::Integer(0));
    };
    let bytes = &v.as_str()?.bytes;
    let len = bytes.len() as u64;
    let range = match argv.len() {
        2 => (len > 0).then(|| (0, len * 8 - 1)),
        4 | 5 => {
            let start = parse_i64(&argv[2]).ok_or(Error::NotInteger)?;
            let end = parse_i64(&argv[3]).ok_or(Error::NotInteger)?;
            if start < 0 && end < 0 && start > end {
                return Ok(Reply::Integer(0));
            }
            let in_bits = match argv.get(4) {
                Some(u) => unit(u)?,
                None => false,
            };
            bit_range(len, start, end, in_bits)
        }
        _ => return Err(Error::Syntax),
    };
    let n = range.map_or(0, |(first, last)| count_bits(bytes, first, last));
    Ok(Reply::Integer(n as i64))
}

/// `BITPOS key bit [start [end [BYTE | BIT]]]`: the position (in bits from the start of
/// the string) of the first bit equal to `bit` within the range, or -1.
///
/// The bit must be 0 or 1 (`ERR The bit argument must be 1 or 0.`, after the integer
/// check). A missing key is an endless run of zeroes: 0 when looking for 0, -1 for 1.
/// When looking for a 0 and none is found, the reply is the first bit after the range
/// (the string is taken as zero-padded) **unless an end was given**, then -1. An empty
/// range replies -1. **O(N)** in the range's length.
fn bitpos(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let bit = args.next_i64()?;
    if bit != 0 && bit != 1 {
        return Err(Error::Err("The bit argument must be 1 or 0.".into()));
    }
    let bit = bit == 1;
    let argv = args.argv();
    let Some(v) = ctx.lookup_read(&key) else {
        return Ok(Reply::Integer(if bit { -1 } else { 0 }));
    };
    let bytes = &v.as_str()?.bytes;
    let len = bytes.len() as u64;
    let mut end_given = false;
    let range = match argv.len() {
        3 => (len > 0).then(|| (0, len * 8 - 1)),
        4..=6 => {
            let start = parse_i64(&argv[3]).ok_or(Error::NotInteger)?;
            let in_bits = match argv.get(5) {
                Some(u) => unit(u)?,
                None => false,
            };
            let end = match argv.get(4) {
                Some(e) => {
                    end_given = true;
                    parse_i64(e).ok_or(Error::NotInteger)?
                }
                None => -1,
            };
            bit_range(len, start, end, in_bits)
        }
        _ => return Err(Error::Syntax),
    };
    let Some((first, last)) = range else {
        return Ok(Reply::Integer(-1));
    };
    let pos = match find_bit(bytes, first, last, bit) {
        Some(p) => p as i64,
        None if bit || end_given => -1,
        None => last as i64 + 1,
    };
    Ok(Reply::Integer(pos))
}

// ---------------------------------------------------------------------------------------
// BITOP
// ---------------------------------------------------------------------------------------

/// The four BITOP operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BitOp {
    And,
    Or,
    Xor,
    Not,
}

/// `BITOP <AND | OR | XOR | NOT> destkey key [key ...]`: stores the bitwise operation of
/// the source strings at `destkey` and replies with its length.
///
/// Missing sources are empty strings; shorter sources are padded with zero bytes to the
/// longest, which is the result's length. NOT takes exactly one source (`ERR BITOP NOT must
/// be called with a single source key.`, checked after the operation name and before any
/// key). A source of another type is WRONGTYPE and nothing is written. An empty result
/// deletes `destkey`; otherwise it replaces whatever was there (clearing its TTL).
/// **O(N)** in the total length of the sources.
fn bitop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv();
    let name = &argv[1];
    let op = if is_opt(name, "and") {
        BitOp::And
    } else if is_opt(name, "or") {
        BitOp::Or
    } else if is_opt(name, "xor") {
        BitOp::Xor
    } else if is_opt(name, "not") {
        BitOp::Not
    } else {
        return Err(Error::Syntax);
    };
    if op == BitOp::Not && argv.len() != 4 {
        return Err(Error::Err(
            "BITOP NOT must be called with a single source key.".into(),
        ));
    }
    let dest = argv[2].clone();
    let mut acc: Vec<u8> = Vec::new();
    for (j, key) in argv[3..].iter().enumerate() {
        let src: &[u8] = match ctx.lookup_read(key) {
            Some(v) => &v.as_str()?.bytes,
            None => &[],
        };
        if src.len() > acc.len() {
            acc.try_reserve_exact(src.len() - acc.len())
                .map_err(|_| Error::OutOfMemory)?;
            // Redis pads the first source with zero bytes too, so NOT of the padding is
            // 0xff; NOT has one source only, so there is never padding to invert.
            acc.resize(src.len(), 0);
        }
        if j == 0 {
            acc[..src.len()].copy_from_slice(src);
            if op == BitOp::Not {
                acc.iter_mut().for_each(|b| *b = !*b);
            }
            continue;
        }
        match op {
            BitOp::And => {
                for (a, &s) in acc.iter_mut().zip(src) {
                    *a &= s;
                }
                if let Some(rest) = acc.get_mut(src.len()..) {
                    rest.fill(0);
                }
            }
            BitOp::Or => acc.iter_mut().zip(src).for_each(|(a, &s)| *a |= s),
            BitOp::Xor => acc.iter_mut().zip(src).for_each(|(a, &s)| *a ^= s),
            BitOp::Not => {}
        }
    }
    let len = acc.len();
    if len == 0 {
        if ctx.delete(&dest) {
            ctx.notify(class::GENERIC, "del", &dest);
        }
    } else {
        ctx.set_value(dest.clone(), Value::Str(StrValue::raw(acc)), false);
        ctx.notify(class::STRING, "set", &dest);
    }
    Ok(Reply::Integer(len as i64))
}

// ---------------------------------------------------------------------------------------
// BITFIELD
// ---------------------------------------------------------------------------------------

/// What BITFIELD does when a write does not fit the field (`OVERFLOW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overflow {
    /// Keep the low bits (two's complement for signed fields). The default.
    Wrap,
    /// Clamp to the field's minimum or maximum.
    Sat,
    /// Write nothing and reply nil for that operation.
    Fail,
}

/// One BITFIELD operation.
#[derive(Debug, Clone, Copy)]
enum FieldOp {
    Get,
    Set(i64),
    IncrBy(i64),
}

/// A parsed BITFIELD operation with its field and the OVERFLOW mode in force.
#[derive(Debug, Clone, Copy)]
struct Field {
    op: FieldOp,
    offset: u64,
    bits: u32,
    signed: bool,
    overflow: Overflow,
}

/// Redis's `getBitfieldTypeFromArgument`: `i1`..`i64` or `u1`..`u63`.
fn field_type(arg: &[u8]) -> CmdResult<(bool, u32)> {
    let a = c_bytes(arg);
    let signed = match a.first() {
        Some(b'i') => true,
        Some(b'u') => false,
        _ => return Err(Error::BitfieldType),
    };
    let bits = parse_i64(&a[1..]).ok_or(Error::BitfieldType)?;
    if bits < 1 || (signed && bits > 64) || (!signed && bits > 63) {
        return Err(Error::BitfieldType);
    }
    Ok((signed, bits as u32))
}

/// `bits` bits from bit `offset`, most significant first; bits past the end are 0.
fn get_unsigned(bytes: &[u8], offset: u64, bits: u32) -> u64 {
    (0..u64::from(bits)).fold(0u64, |v, k| {
        let o = offset + k;
        (v << 1) | u64::from((byte_at(bytes, o) >> (7 - (o & 7))) & 1)
    })
}

/// As [`get_unsigned`], sign-extended from the field's top bit.
fn get_signed(bytes: &[u8], offset: u64, bits: u32) -> i64 {
    let v = get_unsigned(bytes, offset, bits);
    if bits < 64 && v & (1 << (bits - 1)) != 0 {
        (v | (u64::MAX << bits)) as i64
    } else {
        v as i64
    }
}

/// Writes the low `bits` bits of `value` at bit `offset` (which the string covers).
fn set_field(bytes: &mut [u8], offset: u64, bits: u32, value: u64) {
    for j in 0..u64::from(bits) {
        let bit = (value >> (u64::from(bits) - 1 - j)) & 1 != 0;
        let o = offset + j;
        if let Some(b) = usize::try_from(o >> 3).ok().and_then(|i| bytes.get_mut(i)) {
            let mask = 0x80u8 >> (o & 7);
            if bit {
                *b |= mask;
            } else {
                *b &= !mask;
            }
        }
    }
}

/// Redis's `checkUnsignedBitfieldOverflow`: whether `value + incr` fits `bits` unsigned
/// bits, and if not (`Some`), the value to store under WRAP or SAT.
fn unsigned_overflow(value: u64, incr: i64, bits: u32, ow: Overflow) -> Option<u64> {
    let max = (1u64 << bits) - 1;
    let max_incr = max.wrapping_sub(value) as i64;
    let min_incr = value.wrapping_neg() as i64;
    let wrap = || value.wrapping_add(incr as u64) & !(u64::MAX << bits);
    if value > max || (incr > 0 && incr > max_incr) {
        Some(if ow == Overflow::Sat { max } else { wrap() })
    } else if incr < 0 && incr < min_incr {
        Some(if ow == Overflow::Sat { 0 } else { wrap() })
    } else {
        None
    }
}

/// Redis's `checkSignedBitfieldOverflow`: whether `value + incr` fits `bits` signed bits,
/// and if not (`Some`), the value to store under WRAP or SAT.
fn signed_overflow(value: i64, incr: i64, bits: u32, ow: Overflow) -> Option<i64> {
    let max = if bits == 64 {
        i64::MAX
    } else {
        (1i64 << (bits - 1)) - 1
    };
    let min = -max - 1;
    let max_incr = (max as u64).wrapping_sub(value as u64) as i64;
    let min_incr = min.wrapping_sub(value);
    let wrap = || {
        let mut c = (value as u64).wrapping_add(incr as u64);
        if bits < 64 {
            let mask = u64::MAX << bits;
            if c & (1u64 << (bits - 1)) != 0 {
                c |= mask;
            } else {
                c &= !mask;
            }
        }
        c as i64
    };
    let narrow = bits != 64;
    if value > max || (narrow && incr > max_incr) || (value >= 0 && incr > 0 && incr > max_incr) {
        Some(if ow == Overflow::Sat { max } else { wrap() })
    } else if value < min
        || (narrow && incr < min_incr)
        || (value < 0 && incr < 0 && incr < min_incr)
    {
        Some(if ow == Overflow::Sat { min } else { wrap() })
    } else {
        None
    }
}

/// Parses BITFIELD's operations (Redis checks them all before touching the key): each
/// `GET type offset`, `SET type offset value`, `INCRBY type offset increment` or
/// `OVERFLOW WRAP|SAT|FAIL`. An operation without enough arguments after it is a syntax
/// error; then the type, the offset (`#n` = n × width) and the value are checked in that
/// order. Returns the operations and the highest bit a write touches, if any write.
fn parse_fields(ctx: &Ctx<'_>, argv: &[Vec<u8>]) -> CmdResult<(Vec<Field>, Option<u64>)> {
    let mut fields = Vec::new();
    let mut overflow = Overflow::Wrap;
    let mut highest: Option<u64> = None;
    let mut j = 2;
    while j < argv.len() {
        let rem = argv.len() - j - 1;
        let sub = &argv[j];
        let write = if is_opt(sub, "get") && rem >= 2 {
            false
        } else if (is_opt(sub, "set") || is_opt(sub, "incrby")) && rem >= 3 {
            true
        } else if is_opt(sub, "overflow") && rem >= 1 {
            let t = &argv[j + 1];
            overflow = if is_opt(t, "wrap") {
                Overflow::Wrap
            } else if is_opt(t, "sat") {
                Overflow::Sat
            } else if is_opt(t, "fail") {
                Overflow::Fail
            } else {
                return Err(Error::Err("Invalid OVERFLOW type specified".into()));
            };
            j += 2;
            continue;
        } else {
            return Err(Error::Syntax);
        };
        let (signed, bits) = field_type(&argv[j + 1])?;
        let offset = bit_offset(ctx, &argv[j + 2], Some(bits))?;
        let op = if write {
            let top = offset + u64::from(bits) - 1;
            highest = Some(highest.map_or(top, |h| h.max(top)));
            let v = parse_i64(&argv[j + 3]).ok_or(Error::NotInteger)?;
            if is_opt(sub, "set") {
                FieldOp::Set(v)
            } else {
                FieldOp::IncrBy(v)
            }
        } else {
            FieldOp::Get
        };
        fields.push(Field {
            op,
            offset,
            bits,
            signed,
            overflow,
        });
        j += if write { 4 } else { 3 };
    }
    Ok((fields, highest))
}

/// The value of a field as GET replies it.
fn read_field(bytes: &[u8], f: &Field) -> Reply {
    if f.signed {
        Reply::Integer(get_signed(bytes, f.offset, f.bits))
    } else {
        Reply::Integer(get_unsigned(bytes, f.offset, f.bits) as i64)
    }
}

/// Runs one SET or INCRBY on `bytes`: the reply (the old value for SET, the new one for
/// INCRBY, nil when `OVERFLOW FAIL` refuses) and whether the field changed.
fn write_field(bytes: &mut [u8], f: &Field) -> (Reply, bool) {
    let (incr, v) = match f.op {
        FieldOp::IncrBy(by) => (true, by),
        FieldOp::Set(v) => (false, v),
        FieldOp::Get => return (read_field(bytes, f), false),
    };
    let fail = f.overflow == Overflow::Fail;
    if f.signed {
        let old = get_signed(bytes, f.offset, f.bits);
        let (ovf, new, reply) = if incr {
            let ovf = signed_overflow(old, v, f.bits, f.overflow);
            let new = ovf.unwrap_or_else(|| old.wrapping_add(v));
            (ovf.is_some(), new, new)
        } else {
            let ovf = signed_overflow(v, 0, f.bits, f.overflow);
            (ovf.is_some(), ovf.unwrap_or(v), old)
        };
        if ovf && fail {
            return (Reply::Nil, false);
        }
        set_field(bytes, f.offset, f.bits, new as u64);
        (Reply::Integer(reply), old != new)
    } else {
        let old = get_unsigned(bytes, f.offset, f.bits);
        let (ovf, new, reply) = if incr {
            let ovf = unsigned_overflow(old, v, f.bits, f.overflow);
            let new = ovf.unwrap_or_else(|| old.wrapping_add(v as u64));
            (ovf.is_some(), new, new)
        } else {
            let ovf = unsigned_overflow(v as u64, 0, f.bits, f.overflow);
            (ovf.is_some(), ovf.unwrap_or(v as u64), old)
        };
        if ovf && fail {
            return (Reply::Nil, false);
        }
        set_field(bytes, f.offset, f.bits, new);
        (Reply::Integer(reply as i64), old != new)
    }
}

/// `BITFIELD key [GET type offset | [OVERFLOW WRAP|SAT|FAIL] SET type offset value |
/// INCRBY type offset increment ...]`: integers of 1 to 64 bits (`i1`..`i64`, `u1`..`u63`)
/// at any bit offset (`#n` means n × width), read and written in order; replies with an
/// array of one result per GET/SET/INCRBY (SET gives the old value, INCRBY the new one,
/// nil when `OVERFLOW FAIL` refuses the write).
///
/// All operations are parsed before the key is read. With only GETs the key is read like
/// GETBIT; otherwise it is created or grown with zero bytes up to the highest bit written,
/// becomes `raw`, and keeps its TTL. Overflow follows the last OVERFLOW before each
/// operation: WRAP (default), SAT or FAIL. **O(1)** per operation.
fn bitfield(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    bitfield_generic(ctx, args, false)
}

/// `BITFIELD_RO key [GET type offset ...]`: BITFIELD restricted to GET, for read-only
/// contexts; any SET or INCRBY is `ERR BITFIELD_RO only supports the GET subcommand`
/// (after the whole command parsed). **O(1)** per operation.
fn bitfield_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    bitfield_generic(ctx, args, true)
}

/// Redis's `bitfieldGeneric`.
fn bitfield_generic(ctx: &mut Ctx<'_>, args: &mut Args, read_only: bool) -> CmdResult {
    let argv = args.argv();
    let key = argv[1].clone();
    let (fields, highest) = parse_fields(ctx, argv)?;
    let Some(highest) = highest else {
        let bytes: &[u8] = match ctx.lookup_read(&key) {
            Some(v) => &v.as_str()?.bytes,
            None => &[],
        };
        return Ok(Reply::Array(
            fields.iter().map(|f| read_field(bytes, f)).collect(),
        ));
    };
    if read_only {
        return Err(Error::Err(
            "BITFIELD_RO only supports the GET subcommand".into(),
        ));
    }
    let (s, grown) = bits_for_write(ctx, &key, highest)?;
    let mut changes = 0u64;
    let mut replies = Vec::with_capacity(fields.len());
    for f in &fields {
        if let FieldOp::Get = f.op {
            replies.push(read_field(&s.bytes, f));
            continue;
        }
        let (reply, changed) = write_field(&mut s.bytes, f);
        if !matches!(reply, Reply::Nil) && (grown || changed) {
            changes += 1;
        }
        replies.push(reply);
    }
    if changes > 0 {
        ctx.signal_modified(&key);
        ctx.notify(class::STRING, "setbit", &key);
    }
    // See the module docs: a grown string is a change even if every write failed.
    ctx.dirty += changes.max(u64::from(grown));
    Ok(Reply::Array(replies))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_at_odd_offsets() {
        let mut b = vec![0u8; 20];
        set_field(&mut b, 7, 5, 23);
        assert_eq!(&b[..2], &[0b0000_0001, 0b0111_0000]);
        assert_eq!(get_unsigned(&b, 7, 5), 23);
        set_field(&mut b, 13, 64, i64::MIN as u64);
        assert_eq!(get_signed(&b, 13, 64), i64::MIN);
        assert_eq!(get_unsigned(&b, 1000, 8), 0);
    }

    #[test]
    fn overflow_rules() {
        assert_eq!(unsigned_overflow(250, 10, 8, Overflow::Wrap), Some(4));
        assert_eq!(unsigned_overflow(250, 10, 8, Overflow::Sat), Some(255));
        assert_eq!(unsigned_overflow(5, -10, 8, Overflow::Sat), Some(0));
        assert_eq!(unsigned_overflow(5, -5, 8, Overflow::Sat), None);
        assert_eq!(signed_overflow(127, 1, 8, Overflow::Wrap), Some(-128));
        assert_eq!(signed_overflow(-128, -1, 8, Overflow::Sat), Some(-128));
        assert_eq!(
            signed_overflow(i64::MAX, 1, 64, Overflow::Wrap),
            Some(i64::MIN)
        );
        assert_eq!(
            signed_overflow(i64::MIN, -1, 64, Overflow::Sat),
            Some(i64::MIN)
        );
        assert_eq!(signed_overflow(0, i64::MIN, 64, Overflow::Sat), None);
    }

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
