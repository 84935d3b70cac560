//! Single bits and counts: SETBIT, GETBIT, BITCOUNT and BITPOS.

use super::common::{bit_offset, bit_range, bits_for_write, byte_at, count_bits, find_bit, unit};
use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};

/// `SETBIT key offset value`: sets (1) or clears (0) one bit, growing the string with zero
/// bytes as needed (creating it if missing), and replies with the bit's old value.
///
/// Checks, in order: the offset (`ERR bit offset is not an integer or out of range`), the
/// value (`ERR bit is not an integer or out of range` unless 0 or 1), then the type. The
/// key changes (and the command replays) when the string was created or grown or the bit
/// flipped. **O(1)** (amortised; growing is O(growth)).
pub(super) fn setbit(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let offset = bit_offset(ctx, args.next_bytes()?, None)?;
    let on = parse_i64(args.next_bytes()?)
        .filter(|v| v & !1 == 0)
        .ok_or(Error::BitValue)?;
    let (s, grown) = bits_for_write(ctx, &key, offset)?;
    let byte = &mut s.edit()[(offset >> 3) as usize];
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
pub(super) fn getbit(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let offset = bit_offset(ctx, args.next_bytes()?, None)?;
    let Some(v) = ctx.lookup_read(&key) else {
        return Ok(Reply::Integer(0));
    };
    let b = byte_at(v.as_str()?.as_bytes(), offset);
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
pub(super) fn bitcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let argv = args.argv();
    let Some(v) = ctx.lookup_read(&key) else {
        return Ok(Reply::Integer(0));
    };
    let bytes = v.as_str()?.as_bytes();
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
pub(super) fn bitpos(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    let bytes = v.as_str()?.as_bytes();
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
