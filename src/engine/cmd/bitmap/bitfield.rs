//! BITFIELD and BITFIELD_RO: typed fields at bit offsets, with the WRAP, SAT and FAIL overflow
//! rules.

use super::common::{bit_offset, bits_for_write, byte_at, is_opt};
use crate::engine::args::{c_bytes, parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};

/// What BITFIELD does when a write does not fit the field (`OVERFLOW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Overflow {
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
pub(super) fn get_unsigned(bytes: &[u8], offset: u64, bits: u32) -> u64 {
    (0..u64::from(bits)).fold(0u64, |v, k| {
        let o = offset + k;
        (v << 1) | u64::from((byte_at(bytes, o) >> (7 - (o & 7))) & 1)
    })
}

/// As [`get_unsigned`], sign-extended from the field's top bit.
pub(super) fn get_signed(bytes: &[u8], offset: u64, bits: u32) -> i64 {
    let v = get_unsigned(bytes, offset, bits);
    if bits < 64 && v & (1 << (bits - 1)) != 0 {
        (v | (u64::MAX << bits)) as i64
    } else {
        v as i64
    }
}

/// Writes the low `bits` bits of `value` at bit `offset` (which the string covers).
pub(super) fn set_field(bytes: &mut [u8], offset: u64, bits: u32, value: u64) {
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
pub(super) fn unsigned_overflow(value: u64, incr: i64, bits: u32, ow: Overflow) -> Option<u64> {
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
pub(super) fn signed_overflow(value: i64, incr: i64, bits: u32, ow: Overflow) -> Option<i64> {
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
pub(super) fn bitfield(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    bitfield_generic(ctx, args, false)
}

/// `BITFIELD_RO key [GET type offset ...]`: BITFIELD restricted to GET, for read-only
/// contexts; any SET or INCRBY is `ERR BITFIELD_RO only supports the GET subcommand`
/// (after the whole command parsed). **O(1)** per operation.
pub(super) fn bitfield_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    bitfield_generic(ctx, args, true)
}

/// Redis's `bitfieldGeneric`.
fn bitfield_generic(ctx: &mut Ctx<'_>, args: &mut Args, read_only: bool) -> CmdResult {
    let argv = args.argv();
    let key = argv[1].clone();
    let (fields, highest) = parse_fields(ctx, argv)?;
    let Some(highest) = highest else {
        let bytes: &[u8] = match ctx.lookup_read(&key) {
            Some(v) => v.as_str()?.as_bytes(),
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
            replies.push(read_field(s.as_bytes(), f));
            continue;
        }
        let (reply, changed) = write_field(s.edit(), f);
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
}
