//! Writing a `dump.rdb` at once ([`write_file`]), and the pieces a background save
//! ([`super::BackgroundFile`]) shares with it.

use std::fmt;

use crc::{Crc, NoTable, CRC_64_REDIS};

use crate::engine::keyspace::{Db, Entry};
use crate::engine::rdb::prim::{put_integer_string, put_len, put_string};
use crate::engine::rdb::write::{write_value, SaveOptions};
use crate::engine::rdb::{opcode, RDB_VERSION};

/// The version redis-server reports in the files it writes, and kvlab claims to be.
pub const REDIS_VER: &str = "7.0.15";

/// A static, so that a digest can be carried across the steps of a load or a save (it is
/// computed bit by bit: a whole big file's checksum at once would stall a step).
pub(super) static CRC64: Crc<u64, NoTable> = Crc::<u64, NoTable>::new(&CRC_64_REDIS);

/// What a saved file records about the server besides the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileOptions {
    /// How values are written (`rdbcompression`, the list node sizes); keys and function
    /// libraries are compressed as `values.compress` says too.
    pub values: SaveOptions,
    /// `rdbchecksum`: end with the CRC-64 of the file (else eight zero bytes).
    pub checksum: bool,
    /// The `ctime` AUX field: when the file was made, Unix seconds.
    pub ctime_s: i64,
    /// The `used-mem` AUX field.
    pub used_mem: u64,
    /// What the eviction policy tracks per key, saved as IDLE or FREQ before each key.
    pub usage: Usage,
}

/// The per-key usage information a file carries (Redis saves the one its
/// `maxmemory-policy` uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Usage {
    /// Neither.
    #[default]
    None,
    /// Seconds since the last access (an LRU policy).
    Idle,
    /// The LFU counter (an LFU policy).
    Freq,
}

impl Default for FileOptions {
    fn default() -> FileOptions {
        FileOptions {
            values: SaveOptions::default(),
            checksum: true,
            ctime_s: 0,
            used_mem: 0,
            usage: Usage::None,
        }
    }
}

/// A key that could not be saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveError {
    /// The database.
    pub db: usize,
    /// The key.
    pub key: Vec<u8>,
    /// Its type (`TYPE`'s name).
    pub type_name: &'static str,
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "can't save a value of type {} in RDB format yet (key '{}' in DB {})",
            self.type_name,
            String::from_utf8_lossy(&self.key),
            self.db
        )
    }
}

/// The file Redis 7.0's `SAVE` would write for these databases and function libraries at
/// `now_ms`. **O(size of the dataset).** A background save writes the same bytes in
/// steps ([`super::BackgroundFile`]).
///
/// # Errors
/// A value the value writer cannot encode (never, once every type has its codec).
pub fn write_file(
    dbs: &[Db],
    functions: &[Vec<u8>],
    now_ms: i64,
    opts: &FileOptions,
) -> Result<Vec<u8>, SaveError> {
    let mut out = header(functions, opts);
    for (i, db) in dbs.iter().enumerate().filter(|(_, db)| !db.is_empty()) {
        put_db_start(&mut out, i, db.len() as u64, db.volatile_len() as u64);
        for (key, entry) in db.iter() {
            put_key(&mut out, key, entry, now_ms, opts).map_err(|type_name| SaveError {
                db: i,
                key: key.to_vec(),
                type_name,
            })?;
        }
    }
    out.push(opcode::EOF);
    let crc = if opts.checksum {
        CRC64.checksum(&out)
    } else {
        0
    };
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// A file's start: signature, AUX fields, function libraries.
pub(super) fn header(functions: &[Vec<u8>], opts: &FileOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(format!("REDIS{RDB_VERSION:04}").as_bytes());
    put_aux(&mut out, b"redis-ver", REDIS_VER.as_bytes());
    put_aux_int(&mut out, b"redis-bits", 64);
    put_aux_int(&mut out, b"ctime", opts.ctime_s);
    put_aux_int(&mut out, b"used-mem", opts.used_mem as i64);
    put_aux_int(&mut out, b"aof-base", 0);
    for code in functions {
        out.push(opcode::FUNCTION2);
        put_string(&mut out, code, opts.values.compress);
    }
    out
}

/// A database's start: SELECTDB, and RESIZEDB with its sizes when the save began. As
/// Redis does, every key is then written, the logically expired ones too (a loader drops
/// them).
pub(super) fn put_db_start(out: &mut Vec<u8>, index: usize, keys: u64, volatile: u64) {
    out.push(opcode::SELECTDB);
    put_len(out, index as u64);
    out.push(opcode::RESIZEDB);
    put_len(out, keys);
    put_len(out, volatile);
}

/// One key's record: deadline, usage, type, name, value. The error is the type of a value
/// the value writer cannot encode.
pub(super) fn put_key(
    out: &mut Vec<u8>,
    key: &[u8],
    entry: &Entry,
    now_ms: i64,
    opts: &FileOptions,
) -> Result<(), &'static str> {
    let mut value = Vec::new();
    write_value(&mut value, &entry.value, &opts.values);
    let Some((&type_byte, object)) = value.split_first() else {
        return Err(entry.value.type_name());
    };
    if let Some(at) = entry.expire_at() {
        out.push(opcode::EXPIRETIME_MS);
        out.extend_from_slice(&at.to_le_bytes());
    }
    match opts.usage {
        Usage::None => {}
        Usage::Idle => {
            out.push(opcode::IDLE);
            let idle = now_ms.saturating_sub(entry.accessed_ms()).max(0) / 1000;
            put_len(out, idle as u64);
        }
        Usage::Freq => {
            out.push(opcode::FREQ);
            out.push(entry.lfu);
        }
    }
    out.push(type_byte);
    put_string(out, key, opts.values.compress);
    out.extend_from_slice(object);
    Ok(())
}

fn put_aux(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    out.push(opcode::AUX);
    put_string(out, key, false);
    put_string(out, value, false);
}

fn put_aux_int(out: &mut Vec<u8>, key: &[u8], value: i64) {
    out.push(opcode::AUX);
    put_string(out, key, false);
    put_integer_string(out, value);
}
