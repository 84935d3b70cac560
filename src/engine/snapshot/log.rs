//! Log records: the effects of the commands run since the last snapshot, each record numbered
//! and checksummed.

use super::super::Effect;
use super::format::{crc32, FormatError, Reader, LOG_MAGIC, VERSION};
use crate::engine::codec;
use crate::engine::codec::{put_bytes, put_varint, unzigzag, zigzag};

/// One effect and the time its command ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedEffect {
    /// Unix milliseconds of the command that produced it.
    pub at_ms: i64,
    /// The effect.
    pub effect: Effect,
}

/// A decoded log record: a batch of effects appended together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    /// Position in the log: records replay in ascending `seq`.
    pub seq: u64,
    /// The effects, oldest first.
    pub effects: Vec<TimedEffect>,
}

/// Encodes a log record. **O(size of the effects).**
pub fn encode_log_record(seq: u64, effects: &[TimedEffect]) -> Vec<u8> {
    let base = effects.first().map_or(0, |e| e.at_ms);
    let mut out = Vec::with_capacity(32);
    out.extend_from_slice(LOG_MAGIC);
    out.push(VERSION as u8);
    put_varint(&mut out, seq);
    out.extend_from_slice(&base.to_le_bytes());
    put_varint(&mut out, effects.len() as u64);
    for e in effects {
        put_varint(&mut out, zigzag(e.at_ms.wrapping_sub(base)));
        put_varint(&mut out, e.effect.db as u64);
        put_varint(&mut out, e.effect.argv.len() as u64);
        for a in &e.effect.argv {
            put_bytes(&mut out, a);
        }
    }
    let c = crc32(&out);
    out.extend_from_slice(&c.to_le_bytes());
    out
}

/// Decodes one log record. Version 0 records (no time stamps: `"KL" 0 seq n effect*n crc`
/// with `effect = db argc bytes*argc`) are migrated by stamping every effect with
/// `fallback_ms`. **O(size of the input).**
pub fn decode_log_record(bytes: &[u8], fallback_ms: i64) -> Result<LogRecord, FormatError> {
    let mut r = Reader::new(bytes, "log record");
    if r.take(2).map_err(|_| FormatError::BadMagic)? != LOG_MAGIC {
        return Err(FormatError::BadMagic);
    }
    let version = r.u8()? as u16;
    if version > VERSION {
        return Err(FormatError::Newer {
            found: version,
            supported: VERSION,
        });
    }
    let Some(body_len) = bytes.len().checked_sub(4) else {
        return Err(r.truncated());
    };
    let sum = u32::from_le_bytes([
        bytes[body_len],
        bytes[body_len + 1],
        bytes[body_len + 2],
        bytes[body_len + 3],
    ]);
    if body_len < r.position() || crc32(&bytes[..body_len]) != sum {
        return Err(FormatError::Checksum {
            what: "log record".into(),
        });
    }
    let mut r = Reader {
        inner: codec::Reader::at(&bytes[..body_len], r.position()),
        what: "log record",
    };
    let seq = r.varint()?;
    let base = if version == 0 { fallback_ms } else { r.i64()? };
    let n = r.count(3)?;
    let mut effects = Vec::with_capacity(n);
    for _ in 0..n {
        let at_ms = if version == 0 {
            base
        } else {
            base.wrapping_add(unzigzag(r.varint()?))
        };
        let db = r.db()?;
        let argc = r.count(1)?;
        let mut argv = Vec::with_capacity(argc);
        for _ in 0..argc {
            argv.push(r.bytes()?);
        }
        effects.push(TimedEffect {
            at_ms,
            effect: Effect { db, argv },
        });
    }
    if r.remaining() != 0 {
        return Err(FormatError::Invalid {
            what: "log record: trailing bytes".into(),
        });
    }
    Ok(LogRecord { seq, effects })
}
