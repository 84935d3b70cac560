//! Snapshots: the whole keyspace encoded as a header and checksummed chunks of keys, and decoded
//! back (migrating version 0), keeping every value's encoding.

use super::super::clock::ManualClock;
use super::super::keyspace::{Db, Entry, Key};
use super::super::types::list::End;
use super::super::types::{HashValue, ListValue, SetValue, StrValue, Value, ZSet};
use super::super::{Engine, Reply, NUM_DBS};
use super::format::{
    crc32, FormatError, Reader, CHUNK_KEYS, FLAG_EXPIRE, FUNCTIONS_MAGIC, SNAPSHOT_MAGIC, TAG_HASH,
    TAG_LIST, TAG_SET, TAG_STREAM, TAG_STRING, TAG_ZSET, VERSION,
};
use crate::engine::codec::{put_bytes, put_varint};

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
    /// The function libraries' code, in load order (none in a snapshot written before
    /// functions existed).
    pub functions: Vec<Vec<u8>>,
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
    encode_snapshot_with(dbs, &[], last_seq, now_ms)
}

/// An engine's snapshot: its databases and its function libraries, which are data too
/// (Redis's RDB carries them). **O(size of the dataset).**
pub fn encode_engine(engine: &Engine, last_seq: u64) -> Vec<u8> {
    encode_snapshot_with(
        engine.dbs(),
        &engine.srv.functions.codes(),
        last_seq,
        engine.now_ms(),
    )
}

/// [`encode_snapshot`] with the function libraries' code after the end marker (left out
/// when there are none, so such a snapshot is byte for byte what older builds wrote).
pub fn encode_snapshot_with(
    dbs: &[Db],
    functions: &[Vec<u8>],
    last_seq: u64,
    now_ms: i64,
) -> Vec<u8> {
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
    if !functions.is_empty() {
        let start = out.len();
        out.extend_from_slice(FUNCTIONS_MAGIC);
        put_varint(&mut out, functions.len() as u64);
        for code in functions {
            put_bytes(&mut out, code);
        }
        let c = crc32(&out[start..]);
        out.extend_from_slice(&c.to_le_bytes());
    }
    out
}

/// The functions section after the end marker: its codes, or the damage found.
fn decode_functions(r: &mut Reader<'_>, bytes: &[u8]) -> Result<Vec<Vec<u8>>, FormatError> {
    if r.remaining() == 0 {
        return Ok(Vec::new());
    }
    let start = r.position();
    if r.take(FUNCTIONS_MAGIC.len())? != FUNCTIONS_MAGIC {
        return Err(FormatError::Invalid {
            what: "snapshot functions: bad magic".into(),
        });
    }
    let n = r.count(1)?;
    let mut codes = Vec::with_capacity(n);
    for _ in 0..n {
        codes.push(r.bytes()?);
    }
    let end = r.position();
    if r.u32()? != crc32(&bytes[start..end]) {
        return Err(FormatError::Checksum {
            what: "snapshot functions".into(),
        });
    }
    Ok(codes)
}

fn encode_entry(out: &mut Vec<u8>, db: usize, key: &[u8], entry: &Entry) {
    put_varint(out, db as u64);
    put_bytes(out, key);
    let expire = if entry.expire_at().is_some() {
        FLAG_EXPIRE
    } else {
        0
    };
    let (tag, flags) = match &entry.value {
        Value::Str(s) => (
            TAG_STRING,
            u8::from(s.is_raw()) | (u8::from(s.is_plain()) << 1),
        ),
        Value::List(_) => (TAG_LIST, 0),
        Value::Set(s) => (TAG_SET, u8::from(!s.is_intset())),
        Value::ZSet(z) => (TAG_ZSET, u8::from(!z.is_listpack())),
        Value::Hash(h) => (TAG_HASH, u8::from(h.is_big())),
        Value::Stream(_) => (TAG_STREAM, 0),
    };
    out.push(tag);
    out.push(flags | expire);
    if let Some(t) = entry.expire_at() {
        out.extend_from_slice(&t.to_le_bytes());
    }
    match &entry.value {
        Value::Str(s) => put_bytes(out, s.as_bytes()),
        Value::List(l) => {
            put_varint(out, l.len() as u64);
            for item in l.iter() {
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
    let header_end = r.position();
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
        functions: Vec::new(),
    };
    let mut error = None;
    let mut index = 0usize;
    loop {
        index += 1;
        let what = format!("snapshot chunk {index}");
        let len = match r.u32() {
            Ok(0) => {
                let mut fr = Reader::new(bytes, "snapshot functions");
                fr.take(r.position()).ok();
                match decode_functions(&mut fr, bytes) {
                    Ok(codes) => snap.functions = codes,
                    Err(e) => error = Some(e),
                }
                break;
            }
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
                Some(f) if f & 1 != 0 => StrValue::raw(bytes),
                Some(f) if f & 2 != 0 => StrValue::plain(bytes),
                Some(_) => StrValue::new(bytes),
                None => StrValue::new(bytes),
            }
        }
        .into_value(),
        TAG_LIST => {
            let n = r.count(1)?;
            let mut list = ListValue::new();
            for _ in 0..n {
                list.push(End::Right, r.bytes()?);
            }
            Value::List(list)
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
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                pairs.push((r.bytes()?, r.bytes()?));
            }
            Value::Hash(match enc {
                Some(f) => HashValue::from_pairs(pairs, f & 1 != 0).0,
                None => {
                    let mut h = HashValue::default();
                    for (f, v) in pairs {
                        h.insert(f, v, Default::default());
                    }
                    h
                }
            })
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
