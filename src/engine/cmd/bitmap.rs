//! The bitmap group: single bits of a string, SETBIT and GETBIT.
//!
//! A bitmap is not a type of its own: it is a string read as a sequence of bits, bit 0
//! being the most significant bit of the first byte (`SETBIT k 0 1` makes `"\x80"`).
//! Offsets are checked as Redis's `getBitOffsetFromArgument` checks them, before the key's
//! type: a decimal integer (`string2ll` rules), not negative, and naming a byte below
//! `proto-max-bulk-len` (512 MB by default, so bits 0..2^32-1). Setting a bit past the end
//! grows the string with zero bytes, as Redis's `sdsgrowzero` does; a growth the host
//! cannot allocate is an out-of-memory error, not an abort.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, Group};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

use super::string::max_bulk_len;

/// The bitmap commands.
pub const COMMANDS: &[Command] = &[
    Command::new("getbit", 3, Group::Bitmap, getbit)
        .flags(Flags::READONLY.union(Flags::FAST))
        .keys(1, 1, 1)
        .doc(
            "key offset",
            "Returns the bit at an offset of a string (0 past its end or for a missing key).",
            "O(1)",
            "2.2.0",
        ),
    Command::new("setbit", 4, Group::Bitmap, setbit)
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .keys(1, 1, 1)
        .doc(
            "key offset value",
            "Sets or clears the bit at an offset of a string, growing it with zero bytes; replies with the old bit.",
            "O(1)",
            "2.2.0",
        ),
];

/// Parses a bit offset as Redis's `getBitOffsetFromArgument` (without BITFIELD's `#`
/// form): `ERR bit offset is not an integer or out of range` unless it is an integer in
/// `0..proto-max-bulk-len * 8`.
fn bit_offset(ctx: &Ctx<'_>, arg: &[u8]) -> CmdResult<u64> {
    let offset = parse_i64(arg).ok_or(Error::BitOffset)?;
    let offset = u64::try_from(offset).map_err(|_| Error::BitOffset)?;
    if (offset >> 3) >= max_bulk_len(ctx) {
        return Err(Error::BitOffset);
    }
    Ok(offset)
}

/// The byte index and the mask of bit `offset` inside it.
fn locate(offset: u64) -> CmdResult<(usize, u8)> {
    let byte = usize::try_from(offset >> 3).map_err(|_| Error::OutOfMemory)?;
    Ok((byte, 0x80 >> (offset & 7)))
}

/// Grows `bytes` with zero bytes to at least `len`, failing cleanly if the host cannot
/// allocate that much.
fn grow_zeroed(bytes: &mut Vec<u8>, len: usize) -> CmdResult<()> {
    if len > bytes.len() {
        bytes
            .try_reserve_exact(len - bytes.len())
            .map_err(|_| Error::OutOfMemory)?;
        bytes.resize(len, 0);
    }
    Ok(())
}

/// `SETBIT key offset value`: sets (`1`) or clears (`0`) the bit at `offset` and replies
/// with its previous value. The offset is checked first, then the bit (anything but the
/// integers 0 and 1 is `ERR bit is not an integer or out of range`), then the key's type.
/// A missing key is created as a string of `offset / 8 + 1` zero bytes (even to clear a
/// bit); a shorter string is padded. The value takes the `raw` encoding, as Redis unshares
/// it, even when nothing changes; the key counts as modified (WATCH, `setbit` event) only
/// if it was created, grew, or the bit flipped. O(1) plus the growth.
fn setbit(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let offset = bit_offset(ctx, args.next_bytes()?)?;
    let on = match parse_i64(args.next_bytes()?) {
        Some(0) => false,
        Some(1) => true,
        _ => return Err(Error::BitValue),
    };
    let (byte, mask) = locate(offset)?;
    let len = byte.checked_add(1).ok_or(Error::OutOfMemory)?;
    let old = match ctx.lookup_write(&key) {
        None => {
            let mut bytes = Vec::new();
            grow_zeroed(&mut bytes, len)?;
            if on {
                bytes[byte] |= mask;
            }
            ctx.set_value(key.clone(), Value::Str(StrValue::raw(bytes)), false);
            false
        }
        Some(entry) => {
            let s = entry.value.as_str_mut()?;
            s.raw = true;
            let grew = s.bytes.len() < len;
            grow_zeroed(&mut s.bytes, len)?;
            let cell = &mut s.bytes[byte];
            let old = *cell & mask != 0;
            if on {
                *cell |= mask;
            } else {
                *cell &= !mask;
            }
            if grew || old != on {
                ctx.dirty += 1;
            } else {
                return Ok(Reply::Integer(i64::from(old)));
            }
            old
        }
    };
    ctx.notify(class::STRING, "setbit", &key);
    Ok(Reply::Integer(i64::from(old)))
}

/// `GETBIT key offset`: the bit at `offset` (0 past the end of the string or for a missing
/// key). The offset is checked before the key's type. O(1).
fn getbit(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let offset = bit_offset(ctx, args.next_bytes()?)?;
    let Some(value) = ctx.lookup_read(&key) else {
        return Ok(Reply::Integer(0));
    };
    let s = value.as_str()?;
    let bit = match locate(offset) {
        Ok((byte, mask)) => s.bytes.get(byte).is_some_and(|b| b & mask != 0),
        // A byte index this machine cannot address is past the end of any string.
        Err(_) => false,
    };
    Ok(Reply::Integer(i64::from(bit)))
}
