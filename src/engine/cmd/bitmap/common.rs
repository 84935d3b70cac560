//! What the bitmap handlers share: option words, bit offsets, the string a write grows,
//! and counting and searching bits within a range.

use crate::engine::args::{c_bytes, parse_i64};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::{StrValue, Value};
use crate::engine::Ctx;

/// Case-insensitive comparison of an option with a keyword, as `strcasecmp` does.
pub(super) fn is_opt(arg: &[u8], word: &str) -> bool {
    c_bytes(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// Redis's `getBitOffsetFromArgument`: a non-negative bit offset whose byte is below
/// `proto-max-bulk-len`. With `hash_bits` (BITFIELD) an offset written `#n` means
/// `n * bits`; the product wraps as the C multiplication does on every real machine.
pub(super) fn bit_offset(ctx: &Ctx<'_>, arg: &[u8], hash_bits: Option<u32>) -> CmdResult<u64> {
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
pub(super) fn bits_for_write<'c>(
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
            .set(key, Value::Str(StrValue::raw(bytes)), false, now);
    }
    let s = ctx
        .db()
        .get_raw_mut(key)
        .ok_or(Error::NoSuchKey)?
        .value
        .as_str_mut()?;
    let old = s.len();
    let bytes = s.edit();
    let mut grown = !exists;
    if old < need {
        bytes
            .try_reserve_exact(need - old)
            .map_err(|_| Error::OutOfMemory)?;
        bytes.resize(need, 0);
        if exists {
            s.edited(old);
        }
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
pub(super) fn byte_at(bytes: &[u8], bit: u64) -> u8 {
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
pub(super) fn count_bits(bytes: &[u8], first: u64, last: u64) -> u64 {
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
pub(super) fn find_bit(bytes: &[u8], first: u64, last: u64, bit: bool) -> Option<u64> {
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
pub(super) fn bit_range(len: u64, start: i64, end: i64, in_bits: bool) -> Option<(u64, u64)> {
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
pub(super) fn unit(arg: &[u8]) -> CmdResult<bool> {
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
