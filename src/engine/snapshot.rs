//! Versioned, checksummed serialisation of the dataset and of the effect log, with no I/O.
//!
//! Persistence (the browser's IndexedDB in `src/persist`, or any other store) keeps two
//! kinds of record, both produced and read here:
//!
//! * a **snapshot**: every key of the 16 databases with its value, encoding and absolute
//!   deadline — Redis's RDB file;
//! * **log records**: the replayable [`Effect`]s of the writes since that snapshot, each
//!   stamped with the time its command ran — Redis's append-only file.
//!
//! Loading is: decode the snapshot, replay the log records after it in order
//! ([`Replayer`]), then [`install`] the result into the live engine, which drops the keys
//! whose deadline passed meanwhile.
//!
//! # Why the log records the time of each command
//! An effect replays exactly only at the time it first ran: `PEXPIREAT k t` followed by
//! `PERSIST k` keeps `k` forever, but replayed after `t` the first would delete `k` and the
//! second would find nothing. Redis avoids this by not expiring anything while it loads;
//! we replay on a [`ManualClock`] set to each effect's original time, so every command
//! (expiry checks, `SET … PXAT` in the past, lazy deletions) sees what it saw the first time.
//!
//! # Format (version 1)
//! Integers are little-endian; `varint` is LEB128 (7 bits per byte, low group first);
//! `bytes` is a varint length then the bytes; `crc` is the CRC-32 (IEEE, as zlib) of the
//! bytes it follows, as a `u32`.
//!
//! ```text
//! snapshot  = "KVLS" version:u16 created_ms:i64 last_seq:u64 crc     header
//!             chunk*                                                  ≤ 4096 keys each
//!             0:u32                                                   end marker
//! chunk     = len:u32 crc(payload):u32 payload[len]
//! payload   = count:varint entry*
//! entry     = db:varint key:bytes tag:u8 flags:u8 [expire_ms:i64 if flags&0x80] value
//! value     = string  (tag 0): bytes                  flags 1 = raw, 2 = plain (INCRBYFLOAT)
//!           | list    (tag 1): n:varint bytes*n
//!           | set     (tag 2): n:varint bytes*n       flags 1 = hashtable (else intset)
//!           | zset    (tag 3): n:varint (bytes f64)*n flags 1 = skiplist (else listpack)
//!           | hash    (tag 4): n:varint (bytes bytes)*n flags 1 = hashtable (else listpack)
//! log record = "KL" version:u8 seq:varint base_ms:i64 n:varint effect*n crc
//! effect    = dt_ms:zigzag-varint db:varint argc:varint bytes*argc
//! ```
//!
//! Storage order is kept (list order, listpack order of small hashes, a hash table's
//! order), so `HGETALL`, `SMEMBERS` and `OBJECT ENCODING` answer the same after a reload.
//! A new type (streams) gets a new tag and a version bump: an older reader refuses the file
//! ([`FormatError::Newer`]) rather than misreading it.
//!
//! # Guarantees of the decoder
//! * A version newer than [`VERSION`] is refused with [`FormatError::Newer`]; nothing is
//!   decoded, so the host can leave the stored data untouched.
//! * Older versions are migrated on read ([`decode_snapshot`] handles version 0).
//! * A chunk whose checksum fails, or that is cut short, stops decoding: the chunks before
//!   it are returned together with the error ([`Decoded::error`]). Log records carry their
//!   own checksum, so the host replays the records before the first bad one.
//! * No input makes it panic or allocate more than the input's size suggests: lengths are
//!   checked against the bytes that remain before anything is reserved.

use super::clock::ManualClock;
use super::keyspace::{Db, Entry, Key};
use super::types::{HashValue, ListValue, SetValue, StrValue, Value, ZSet};
use super::{Effect, Engine, Reply, NUM_DBS};
use std::fmt;

/// The format version this build writes.
pub const VERSION: u16 = 1;
/// Magic at the start of a snapshot.
pub const SNAPSHOT_MAGIC: &[u8; 4] = b"KVLS";
/// Magic at the start of a log record.
pub const LOG_MAGIC: &[u8; 2] = b"KL";
/// Keys per snapshot chunk: the unit that a checksum protects and that is lost on damage.
pub const CHUNK_KEYS: usize = 4096;

const TAG_STRING: u8 = 0;
const TAG_LIST: u8 = 1;
const TAG_SET: u8 = 2;
const TAG_ZSET: u8 = 3;
const TAG_HASH: u8 = 4;
/// A stream, stored as the commands that rebuild it ([`Stream::rewrite`]).
const TAG_STREAM: u8 = 5;
const FLAG_EXPIRE: u8 = 0x80;

/// Why stored bytes could not be (fully) decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// The bytes do not start with the expected magic: not kvlab data.
    BadMagic,
    /// Written by a newer kvlab; refused so that it is left untouched.
    Newer {
        /// The version found.
        found: u16,
        /// The newest version this build reads.
        supported: u16,
    },
    /// A checksum did not match: the bytes were damaged.
    Checksum {
        /// Which part: `header`, `chunk 3`, `log record 17`.
        what: String,
    },
    /// The data ends in the middle of a structure.
    Truncated {
        /// Which part.
        what: String,
    },
    /// A field holds an impossible value (unknown type tag, database out of range).
    Invalid {
        /// What was wrong.
        what: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::BadMagic => write!(f, "not kvlab data (bad magic)"),
            FormatError::Newer { found, supported } => write!(
                f,
                "saved by a newer kvlab (format version {found}; this version reads up to \
                 {supported}); the data was left untouched — open it with a newer kvlab"
            ),
            FormatError::Checksum { what } => write!(f, "{what} is corrupt (checksum mismatch)"),
            FormatError::Truncated { what } => write!(f, "{what} is truncated"),
            FormatError::Invalid { what } => write!(f, "invalid data: {what}"),
        }
    }
}

impl std::error::Error for FormatError {}

// ---------------------------------------------------------------------------------------
// CRC-32 (IEEE 802.3, reflected, as zlib's crc32): a 1 KB table built at compile time.

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// CRC-32 of `bytes` (the same value as zlib's `crc32(0, bytes)`). **O(n).**
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c = CRC_TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

// ---------------------------------------------------------------------------------------
// Primitive writers and a bounds-checked reader.

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A cursor over bytes whose every read fails cleanly at the end.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'a str,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8], what: &'a str) -> Reader<'a> {
        Reader { buf, pos: 0, what }
    }

    fn truncated(&self) -> FormatError {
        FormatError::Truncated {
            what: self.what.to_string(),
        }
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if n > self.remaining() {
            return Err(self.truncated());
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, FormatError> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u16(&mut self) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, FormatError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn f64(&mut self) -> Result<f64, FormatError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    fn varint(&mut self) -> Result<u64, FormatError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(FormatError::Invalid {
            what: format!("{}: varint too long", self.what),
        })
    }

    /// A count of items each at least `min_size` bytes long: refused if the rest of the
    /// input could not hold them, so a damaged count cannot make us reserve gigabytes.
    fn count(&mut self, min_size: usize) -> Result<usize, FormatError> {
        let n = self.varint()?;
        if n > (self.remaining() / min_size.max(1)) as u64 {
            return Err(self.truncated());
        }
        Ok(n as usize)
    }

    fn bytes(&mut self) -> Result<Vec<u8>, FormatError> {
        let n = self.varint()?;
        if n > self.remaining() as u64 {
            return Err(self.truncated());
        }
        Ok(self.take(n as usize)?.to_vec())
    }

    fn db(&mut self) -> Result<usize, FormatError> {
        let db = self.varint()?;
        if db >= NUM_DBS as u64 {
            return Err(FormatError::Invalid {
                what: format!("{}: database {db} out of range", self.what),
            });
        }
        Ok(db as usize)
    }
}

// ---------------------------------------------------------------------------------------
// Snapshots.

/// A decoded snapshot: the databases as they were when it was taken.
pub struct Snapshot {
    /// Format version it was stored in (older versions were migrated on read).
    pub version: u16,
    /// When it was taken, Unix milliseconds.
    pub created_ms: i64,
    /// Sequence number of the last log record it includes (records after it replay on top).
    pub last_seq: u64,
    /// The 16 databases.
    pub dbs: Vec<Db>,
}

/// What decoding produced: everything readable, and the error that stopped it, if any.
pub struct Decoded<T> {
    /// The data recovered (all of it when `error` is `None`).
    pub value: T,
    /// The damage found; the data after it was not read.
    pub error: Option<FormatError>,
}

/// Encodes the 16 databases as a snapshot taken at `now_ms` that includes the log up to
/// `last_seq`. Keys already expired at `now_ms` are left out. **O(size of the dataset).**
pub fn encode_snapshot(dbs: &[Db], last_seq: u64, now_ms: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(SNAPSHOT_MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&now_ms.to_le_bytes());
    out.extend_from_slice(&last_seq.to_le_bytes());
    let c = crc32(&out);
    out.extend_from_slice(&c.to_le_bytes());
    let mut payload = Vec::new();
    let mut count = 0usize;
    let flush = |out: &mut Vec<u8>, payload: &mut Vec<u8>, count: &mut usize| {
        if *count == 0 {
            return;
        }
        let mut chunk = Vec::with_capacity(payload.len() + 5);
        put_varint(&mut chunk, *count as u64);
        chunk.extend_from_slice(payload);
        out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32(&chunk).to_le_bytes());
        out.extend_from_slice(&chunk);
        payload.clear();
        *count = 0;
    };
    for (db, d) in dbs.iter().enumerate() {
        for (key, entry) in d.iter() {
            if entry.is_expired_at(now_ms) {
                continue;
            }
            encode_entry(&mut payload, db, key, entry);
            count += 1;
            if count == CHUNK_KEYS {
                flush(&mut out, &mut payload, &mut count);
            }
        }
    }
    flush(&mut out, &mut payload, &mut count);
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

fn encode_entry(out: &mut Vec<u8>, db: usize, key: &[u8], entry: &Entry) {
    put_varint(out, db as u64);
    put_bytes(out, key);
    let expire = if entry.expire_at.is_some() {
        FLAG_EXPIRE
    } else {
        0
    };
    let (tag, flags) = match &entry.value {
        Value::Str(s) => (TAG_STRING, u8::from(s.raw) | (u8::from(s.plain) << 1)),
        Value::List(_) => (TAG_LIST, 0),
        Value::Set(s) => (TAG_SET, u8::from(!s.is_intset())),
        Value::ZSet(z) => (TAG_ZSET, u8::from(!z.is_listpack())),
        Value::Hash(h) => (TAG_HASH, u8::from(h.big)),
        Value::Stream(_) => (TAG_STREAM, 0),
    };
    out.push(tag);
    out.push(flags | expire);
    if let Some(t) = entry.expire_at {
        out.extend_from_slice(&t.to_le_bytes());
    }
    match &entry.value {
        Value::Str(s) => put_bytes(out, &s.bytes),
        Value::List(l) => {
            put_varint(out, l.len() as u64);
            for item in &l.items {
                put_bytes(out, item);
            }
        }
        Value::Set(s) => {
            put_varint(out, s.len() as u64);
            for m in s.iter() {
                put_bytes(out, m);
            }
        }
        Value::ZSet(z) => {
            put_varint(out, z.len() as u64);
            for (m, score) in z.iter() {
                put_bytes(out, m);
                out.extend_from_slice(&score.to_le_bytes());
            }
        }
        Value::Hash(h) => {
            put_varint(out, h.len() as u64);
            for (f, v) in h.iter() {
                put_bytes(out, f);
                put_bytes(out, v);
            }
        }
        Value::Stream(st) => {
            let commands = st.rewrite(key);
            put_varint(out, commands.len() as u64);
            for argv in &commands {
                put_varint(out, argv.len() as u64);
                for a in argv {
                    put_bytes(out, a);
                }
            }
        }
    }
}

/// Rebuilds a stream from its rewrite commands by running them on a scratch engine (the
/// stream's internal node layout follows from the entries, as after an AOF load).
/// `now_ms` must not be before any delivery time in the commands (XCLAIM clamps to now).
pub(crate) fn stream_from_commands(
    commands: Vec<Vec<Vec<u8>>>,
    what: &str,
    now_ms: i64,
) -> Result<Value, FormatError> {
    let invalid = |why: String| FormatError::Invalid {
        what: format!("{what}: {why}"),
    };
    let mut scratch = Engine::new(Box::new(ManualClock::at_ms(now_ms)), 0);
    let client = scratch.connect();
    let key = commands
        .first()
        .and_then(|c| c.get(1))
        .cloned()
        .ok_or_else(|| invalid("empty stream record".into()))?;
    for argv in commands {
        // The key is the first argument, after XGROUP's subcommand the second.
        let at = if argv
            .first()
            .is_some_and(|c| c.eq_ignore_ascii_case(b"xgroup"))
        {
            2
        } else {
            1
        };
        if argv.get(at) != Some(&key) {
            return Err(invalid("stream record names another key".into()));
        }
        if let Reply::Error(e) = scratch.execute(client, argv) {
            return Err(invalid(format!("stream record refused: {e}")));
        }
    }
    scratch
        .srv
        .dbs
        .first_mut()
        .and_then(|db| db.remove(&key))
        .map(|e| e.value)
        .filter(|v| matches!(v, Value::Stream(_)))
        .ok_or_else(|| invalid("stream record made no stream".into()))
}

/// Decodes a snapshot of any version up to [`VERSION`]. A damaged chunk ends decoding; the
/// chunks before it are kept (see the module docs). A bad header or a newer version is an
/// error with nothing decoded. **O(size of the input).**
pub fn decode_snapshot(bytes: &[u8]) -> Result<Decoded<Snapshot>, FormatError> {
    let mut r = Reader::new(bytes, "snapshot header");
    if r.take(4).map_err(|_| FormatError::BadMagic)? != SNAPSHOT_MAGIC {
        return Err(FormatError::BadMagic);
    }
    let version = r.u16()?;
    if version > VERSION {
        return Err(FormatError::Newer {
            found: version,
            supported: VERSION,
        });
    }
    let created_ms = r.i64()?;
    let last_seq = r.u64()?;
    let header_end = r.pos;
    if r.u32()? != crc32(&bytes[..header_end]) {
        return Err(FormatError::Checksum {
            what: "snapshot header".into(),
        });
    }
    let mut snap = Snapshot {
        version,
        created_ms,
        last_seq,
        dbs: (0..NUM_DBS).map(|_| Db::default()).collect(),
    };
    let mut error = None;
    let mut index = 0usize;
    loop {
        index += 1;
        let what = format!("snapshot chunk {index}");
        let len = match r.u32() {
            Ok(0) => break,
            Ok(n) => n as usize,
            Err(_) => {
                error = Some(FormatError::Truncated { what });
                break;
            }
        };
        let chunk = r.u32().and_then(|c| Ok((c, r.take(len)?)));
        let Ok((sum, chunk)) = chunk else {
            error = Some(FormatError::Truncated { what });
            break;
        };
        if crc32(chunk) != sum {
            error = Some(FormatError::Checksum { what });
            break;
        }
        // Entries of a chunk go in only if the whole chunk decodes.
        let mut entries = Vec::new();
        let mut cr = Reader::new(chunk, &what);
        let decoded = (|| {
            let n = cr.count(4)?;
            for _ in 0..n {
                entries.push(decode_entry(&mut cr, version, created_ms)?);
            }
            Ok::<(), FormatError>(())
        })();
        if let Err(e) = decoded {
            error = Some(e);
            break;
        }
        for (db, key, entry) in entries {
            snap.dbs[db].insert_entry(key, entry);
        }
    }
    Ok(Decoded { value: snap, error })
}

fn decode_entry(
    r: &mut Reader<'_>,
    version: u16,
    now_ms: i64,
) -> Result<(usize, Key, Entry), FormatError> {
    let db = r.db()?;
    let key = r.bytes()?;
    let tag = r.u8()?;
    let flags = r.u8()?;
    let expire_at = if flags & FLAG_EXPIRE != 0 {
        Some(r.i64()?)
    } else {
        None
    };
    // Version 0 stored no encoding flags: rebuild each value the way Redis builds it, so
    // its encoding follows from its contents (the migration to version 1).
    let enc = if version == 0 {
        None
    } else {
        Some(flags & 0x7f)
    };
    let value = match tag {
        TAG_STRING => {
            let bytes = r.bytes()?;
            match enc {
                Some(f) => StrValue {
                    bytes,
                    raw: f & 1 != 0,
                    plain: f & 2 != 0,
                },
                None => StrValue::new(bytes),
            }
        }
        .into_value(),
        TAG_LIST => {
            let n = r.count(1)?;
            let mut items = std::collections::VecDeque::with_capacity(n);
            for _ in 0..n {
                items.push_back(r.bytes()?);
            }
            Value::List(ListValue { items })
        }
        TAG_SET => {
            let n = r.count(1)?;
            let mut members = Vec::with_capacity(n);
            for _ in 0..n {
                members.push(r.bytes()?);
            }
            Value::Set(if enc.is_some_and(|f| f & 1 != 0) {
                SetValue::hashtable(members)
            } else {
                members.into_iter().collect()
            })
        }
        TAG_ZSET => {
            let n = r.count(9)?;
            let mut z = if enc.is_some_and(|f| f & 1 != 0) {
                ZSet::new_skiplist()
            } else {
                ZSet::new()
            };
            for _ in 0..n {
                let m = r.bytes()?;
                let score = r.f64()?;
                if score.is_nan() {
                    return Err(FormatError::Invalid {
                        what: format!("{}: NaN score", r.what),
                    });
                }
                z.add(&m, score);
            }
            Value::ZSet(z)
        }
        TAG_HASH => {
            let n = r.count(2)?;
            let mut h = HashValue::default();
            for _ in 0..n {
                let f = r.bytes()?;
                let v = r.bytes()?;
                match enc {
                    Some(_) => {
                        h.map.insert(f, v);
                    }
                    None => {
                        h.insert(f, v, Default::default());
                    }
                }
            }
            if let Some(f) = enc {
                h.big = f & 1 != 0;
            }
            Value::Hash(h)
        }
        TAG_STREAM => {
            let n = r.count(2)?;
            let mut commands = Vec::with_capacity(n);
            for _ in 0..n {
                let argc = r.count(1)?;
                let mut argv = Vec::with_capacity(argc);
                for _ in 0..argc {
                    argv.push(r.bytes()?);
                }
                commands.push(argv);
            }
            stream_from_commands(commands, r.what, now_ms)?
        }
        other => {
            return Err(FormatError::Invalid {
                what: format!("{}: unknown type tag {other}", r.what),
            })
        }
    };
    if value.is_empty_collection() {
        return Err(FormatError::Invalid {
            what: format!("{}: empty collection", r.what),
        });
    }
    Ok((db, key, Entry::new(value, expire_at, now_ms)))
}

trait IntoValue {
    fn into_value(self) -> Value;
}

impl IntoValue for StrValue {
    fn into_value(self) -> Value {
        Value::Str(self)
    }
}

// ---------------------------------------------------------------------------------------
// Log records.

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
    if body_len < r.pos || crc32(&bytes[..body_len]) != sum {
        return Err(FormatError::Checksum {
            what: "log record".into(),
        });
    }
    let mut r = Reader {
        buf: &bytes[..body_len],
        pos: r.pos,
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

// ---------------------------------------------------------------------------------------
// Replay and install.

/// Rebuilds a dataset: a snapshot's databases, then log effects applied in order, each at
/// the time it first ran (see the module docs).
pub struct Replayer {
    engine: Engine,
    clock: ManualClock,
    client: super::ClientId,
    db: usize,
    /// Effects applied so far.
    pub applied: u64,
}

impl Replayer {
    /// A replayer starting from `dbs` (a decoded snapshot's, or empty databases).
    pub fn new(dbs: Option<Vec<Db>>) -> Replayer {
        let clock = ManualClock::at_ms(0);
        let mut engine = Engine::new(Box::new(clock.clone()), 0);
        if let Some(mut dbs) = dbs {
            dbs.resize_with(NUM_DBS, Db::default);
            engine.srv.dbs = dbs;
        }
        let client = engine.connect();
        Replayer {
            engine,
            clock,
            client,
            db: 0,
            applied: 0,
        }
    }

    /// Applies one effect at the time it first ran. **As the effect's command.**
    pub fn apply(&mut self, e: &TimedEffect) {
        self.clock.set_ms(e.at_ms);
        if e.effect.db != self.db {
            // Inside a replayed MULTI this is queued and runs in order, as it did.
            self.engine.execute(
                self.client,
                vec![b"SELECT".to_vec(), e.effect.db.to_string().into_bytes()],
            );
            self.db = e.effect.db;
        }
        self.engine.execute(self.client, e.effect.argv.clone());
        self.engine.srv.effects.clear();
        self.applied += 1;
    }

    /// Applies every effect of a record.
    pub fn apply_record(&mut self, record: &LogRecord) {
        for e in &record.effects {
            self.apply(e);
        }
    }

    /// The rebuilt databases.
    pub fn finish(self) -> Vec<Db> {
        self.engine.srv.dbs
    }
}

/// Applies replicated effects to a live engine's dataset (a follower tab's replica), each
/// at the time it first ran, as [`Replayer`] does while loading. Clients keep their state;
/// the effects this produces are discarded. **O(size of the effects).**
pub fn apply_effects(engine: &mut Engine, effects: &[TimedEffect]) {
    if effects.is_empty() {
        return;
    }
    let mut rp = Replayer::new(Some(std::mem::take(&mut engine.srv.dbs)));
    for e in effects {
        rp.apply(e);
    }
    engine.srv.dbs = rp.finish();
}

/// Replaces the databases of `engine` with `dbs` (a restored dataset), dropping the keys
/// whose deadline passed — they expired while nothing was running. Connected clients keep
/// their state; the effects this produces are discarded. **O(keys).**
pub fn install(engine: &mut Engine, mut dbs: Vec<Db>) {
    let now = engine.srv.clock.now_ms();
    dbs.resize_with(NUM_DBS, Db::default);
    dbs.truncate(NUM_DBS);
    for db in &mut dbs {
        let expired: Vec<Key> = db
            .iter()
            .filter(|(_, e)| e.is_expired_at(now))
            .map(|(k, _)| k.clone())
            .collect();
        for k in expired {
            db.remove(&k);
        }
    }
    engine.srv.dbs = dbs;
    engine.srv.index_slots();
}

/// A canonical text of a dataset, equal for two datasets exactly when they hold the same
/// keys, values, encodings and deadlines: keys sorted, members of unordered encodings
/// sorted, bytes escaped. For tests and diagnostics. **O(N log N).**
pub fn canonical_dump(dbs: &[Db]) -> String {
    dump(dbs, true)
}

/// [`canonical_dump`] without encodings: equal when two datasets hold the same data and
/// deadlines, as seen by commands that do not depend on the encoding (members of sets and
/// fields of hashes compare as sets). This is what replaying a log guarantees: like
/// Redis's append-only file, effects carry data, not encodings, so a sorted set that was
/// converted to a skiplist by `SORT` comes back as a listpack (and a score of -0 in it as
/// 0). Snapshots keep encodings.
pub fn data_dump(dbs: &[Db]) -> String {
    dump(dbs, false)
}

fn dump(dbs: &[Db], with_encoding: bool) -> String {
    use std::fmt::Write;
    let esc = |b: &[u8]| b.escape_ascii().to_string();
    let mut out = String::new();
    for (i, db) in dbs.iter().enumerate() {
        let mut keys: Vec<(&Key, &Entry)> = db.iter().collect();
        keys.sort_by(|a, b| a.0.cmp(b.0));
        for (k, e) in keys {
            let _ = write!(
                out,
                "{i} {} {:?} {} {}:",
                esc(k),
                e.expire_at,
                e.value.type_name(),
                if with_encoding {
                    e.value.encoding()
                } else {
                    ""
                }
            );
            let mut items: Vec<String> = match &e.value {
                Value::Str(s) => vec![esc(&s.bytes)],
                Value::List(l) => l.items.iter().map(|x| esc(x)).collect(),
                Value::Set(s) => s.iter().map(&esc).collect(),
                // A score of -0 is 0 once a listpack holds it (see `ZSet::add`), so
                // without encodings the two compare equal.
                Value::ZSet(z) => z
                    .iter()
                    .map(|(m, s)| {
                        let s = if with_encoding || s != 0.0 { s } else { 0.0 };
                        format!("{}={:?}", esc(m), s)
                    })
                    .collect(),
                Value::Hash(h) => h
                    .iter()
                    .map(|(f, v)| format!("{}={}", esc(f), esc(v)))
                    .collect(),
                // Entries, IDs, groups and pending lists, as the commands that rebuild them.
                Value::Stream(st) => st
                    .rewrite(k)
                    .iter()
                    .map(|argv| argv.iter().map(|a| esc(a)).collect::<Vec<_>>().join(" "))
                    .collect(),
            };
            let unordered = match &e.value {
                Value::Set(s) => !s.is_intset() || !with_encoding,
                Value::Hash(h) => h.big || !with_encoding,
                _ => false,
            };
            if unordered {
                items.sort();
            }
            let _ = writeln!(out, " {}", items.join(" "));
        }
    }
    out
}

impl Engine {
    /// The databases (for encoding a snapshot or an export).
    pub fn dbs(&self) -> &[Db] {
        &self.srv.dbs
    }

    /// The engine's current time, Unix milliseconds.
    pub fn now_ms(&self) -> i64 {
        self.srv.clock.now_ms()
    }
}

/// What loading stored data found: the dataset to install and what went wrong on the way.
pub struct Recovery {
    /// The rebuilt databases (pass to [`install`]).
    pub dbs: Vec<Db>,
    /// The highest sequence number seen (snapshot or log, good or bad): new records must
    /// be numbered after it.
    pub last_seq: u64,
    /// Damage found (a corrupt snapshot chunk, a corrupt log record): reported to the user;
    /// everything before the damage was recovered.
    pub damage: Vec<FormatError>,
    /// Sequence numbers of the log records that were not replayed (the first damaged one
    /// and every one after it), to be set aside.
    pub skipped: Vec<u64>,
    /// Log records replayed.
    pub replayed: usize,
    /// Effects replayed.
    pub effects: u64,
}

/// Loads stored data: the snapshot (if any), then the log records after it in ascending
/// sequence order, stopping at the first damaged record (those after it depend on it).
/// Records the snapshot already includes are ignored. Version 0 log records are stamped
/// with `now_ms`.
///
/// # Errors
/// [`FormatError::Newer`] (or a bad snapshot header) if the data must not be touched: the
/// host keeps it as it is and runs in memory.
pub fn recover(
    snapshot: Option<&[u8]>,
    log: &[(u64, &[u8])],
    now_ms: i64,
) -> Result<Recovery, FormatError> {
    let mut damage = Vec::new();
    let (dbs, snap_seq) = match snapshot {
        Some(bytes) => {
            let d = decode_snapshot(bytes)?;
            damage.extend(d.error);
            (Some(d.value.dbs), d.value.last_seq)
        }
        None => (None, 0),
    };
    // Refuse before replaying anything if any record is from a newer version.
    for (_, bytes) in log {
        if let Err(e @ FormatError::Newer { .. }) = decode_log_record(bytes, now_ms) {
            return Err(e);
        }
    }
    let mut sorted: Vec<&(u64, &[u8])> = log.iter().collect();
    sorted.sort_by_key(|(seq, _)| *seq);
    let mut rp = Replayer::new(dbs);
    let mut last_seq = snap_seq;
    let mut skipped = Vec::new();
    let mut replayed = 0;
    for &&(seq, bytes) in &sorted {
        last_seq = last_seq.max(seq);
        if !skipped.is_empty() {
            skipped.push(seq);
            continue;
        }
        if seq <= snap_seq {
            continue;
        }
        match decode_log_record(bytes, now_ms) {
            Ok(rec) if rec.seq == seq => {
                rp.apply_record(&rec);
                replayed += 1;
            }
            Ok(rec) => {
                damage.push(FormatError::Invalid {
                    what: format!("log record {seq} says it is record {}", rec.seq),
                });
                skipped.push(seq);
            }
            Err(e) => {
                damage.push(match e {
                    FormatError::Checksum { .. } => FormatError::Checksum {
                        what: format!("log record {seq}"),
                    },
                    FormatError::Truncated { .. } => FormatError::Truncated {
                        what: format!("log record {seq}"),
                    },
                    other => other,
                });
                skipped.push(seq);
            }
        }
    }
    let effects = rp.applied;
    Ok(Recovery {
        dbs: rp.finish(),
        last_seq,
        damage,
        skipped,
        replayed,
        effects,
    })
}
