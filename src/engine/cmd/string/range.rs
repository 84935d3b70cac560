//! Lengths and ranges: STRLEN, APPEND, GETRANGE, SETRANGE and SUBSTR.

use super::common::{byte_span, check_string_length, grow_zeroed, max_bulk_len, read_string};
use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// `APPEND key value`: appends to the string (creating it if missing) and replies with the
/// new length. Fails with `ERR string exceeds maximum allowed size (proto-max-bulk-len)`
/// before growing past the limit. The value becomes `raw` and keeps its expiry.
pub(super) fn append(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let tail = args.next_bytes()?.to_vec();
    let max = max_bulk_len(ctx);
    let Some(entry) = ctx.lookup_write(&key) else {
        let len = tail.len();
        ctx.set_value(&key, Value::Str(StrValue::new(tail)), false);
        ctx.notify(class::STRING, "append", &key);
        return Ok(Reply::Integer(len as i64));
    };
    let s = entry.value.as_str_mut()?;
    check_string_length(max, s.len() as u64, tail.len() as u64)?;
    let old = s.len();
    let bytes = s.edit();
    bytes
        .try_reserve(tail.len())
        .map_err(|_| Error::OutOfMemory)?;
    bytes.extend_from_slice(&tail);
    s.edited(old);
    let len = s.len();
    ctx.dirty += 1;
    ctx.notify(class::STRING, "append", &key);
    Ok(Reply::Integer(len as i64))
}

/// `STRLEN key`: the length of the string, 0 if missing, WRONGTYPE for other types.
pub(super) fn strlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    match ctx.lookup_read(&key) {
        Some(v) => Ok(Reply::Integer(v.as_str()?.len() as i64)),
        None => Ok(Reply::Integer(0)),
    }
}

/// `GETRANGE key start end` (and its old name `SUBSTR`): the bytes from `start` to `end`
/// inclusive; negative offsets count from the end, out-of-range offsets are clamped, an
/// empty range (or missing key) gives `""`.
pub(super) fn getrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let mut start = args.next_i64()?;
    let mut end = args.next_i64()?;
    let Some(bytes) = read_string(ctx, &key)? else {
        return Ok(Reply::Bulk(Vec::new()));
    };
    let len = bytes.len() as i64;
    if start < 0 && end < 0 && start > end {
        return Ok(Reply::Bulk(Vec::new()));
    }
    if start < 0 {
        start = len.saturating_add(start);
    }
    if end < 0 {
        end = len.saturating_add(end);
    }
    start = start.max(0);
    end = end.max(0);
    if end >= len {
        end = len - 1;
    }
    if start > end || len == 0 {
        return Ok(Reply::Bulk(Vec::new()));
    }
    Ok(Reply::bulk(&bytes[start as usize..=end as usize]))
}

/// `SETRANGE key offset value`: overwrites from `offset`, padding with zero bytes, and
/// replies with the new length. `ERR offset is out of range` for a negative offset (checked
/// before the key's type); an empty value changes nothing and replies the current length
/// (0 for a missing key, which is not created); a result longer than `proto-max-bulk-len`
/// is refused before anything grows. The value becomes `raw` and keeps its expiry.
pub(super) fn setrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let offset = args.next_i64()?;
    let value = args.next_bytes()?.to_vec();
    if offset < 0 {
        return Err(Error::OffsetOutOfRange);
    }
    let max = max_bulk_len(ctx);
    let offset = offset as u64;
    match ctx.lookup_write(&key) {
        None => {
            if value.is_empty() {
                return Ok(Reply::Integer(0));
            }
            check_string_length(max, offset, value.len() as u64)?;
            let (start, end) = byte_span(offset, value.len())?;
            let mut bytes = Vec::new();
            grow_zeroed(&mut bytes, end)?;
            bytes[start..end].copy_from_slice(&value);
            let len = bytes.len();
            ctx.set_value(&key, Value::Str(StrValue::raw(bytes)), false);
            ctx.notify(class::STRING, "setrange", &key);
            Ok(Reply::Integer(len as i64))
        }
        Some(entry) => {
            let s = entry.value.as_str_mut()?;
            if value.is_empty() {
                return Ok(Reply::Integer(s.len() as i64));
            }
            check_string_length(max, offset, value.len() as u64)?;
            let (start, end) = byte_span(offset, value.len())?;
            let old = s.len();
            let bytes = s.edit();
            grow_zeroed(bytes, end)?;
            bytes[start..end].copy_from_slice(&value);
            s.edited(old);
            let len = s.len();
            ctx.dirty += 1;
            ctx.notify(class::STRING, "setrange", &key);
            Ok(Reply::Integer(len as i64))
        }
    }
}
