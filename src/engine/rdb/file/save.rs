//! Writing a `dump.rdb`: [`write_file`] at once, or [`FileWriter`] a slice of keys at a
//! time (a background save).

use std::fmt;

use crc::{Crc, Digest, NoTable, CRC_64_REDIS};

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
/// `now_ms`. **O(size of the dataset).**
///
/// # Errors
/// A value the value writer cannot encode (never, once every type has its codec).
pub fn write_file(
    dbs: &[Db],
    functions: &[Vec<u8>],
    now_ms: i64,
    opts: &FileOptions,
) -> Result<Vec<u8>, SaveError> {
    let mut w = FileWriter::new(functions, now_ms, *opts);
    while !w.step(dbs, usize::MAX)? {}
    Ok(w.finish())
}

/// A file being written in steps of at most N keys, from databases the caller keeps
/// unchanged meanwhile (a background save's copy). As Redis does, every key is written,
/// the logically expired ones too (a loader drops them), and RESIZEDB gives the
/// databases' sizes as they are.
pub struct FileWriter {
    out: Vec<u8>,
    now_ms: i64,
    opts: FileOptions,
    db: usize,
    /// The next key's position in database `db`; `None` before its SELECTDB.
    next: Option<usize>,
    keys: u64,
    done: bool,
    /// The checksum of `out[..digested]`, fed a step at a time.
    digest: Digest<'static, u64, NoTable>,
    digested: usize,
}

impl FileWriter {
    /// Starts a file: signature, AUX fields, function libraries.
    pub fn new(functions: &[Vec<u8>], now_ms: i64, opts: FileOptions) -> FileWriter {
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
        FileWriter {
            out,
            now_ms,
            opts,
            db: 0,
            next: None,
            keys: 0,
            done: false,
            digest: CRC64.digest(),
            digested: 0,
        }
    }

    /// Keys written so far.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Writes up to `max_keys` more keys of `dbs` (the same databases at every step);
    /// true once everything, EOF and checksum included, is written.
    ///
    /// # Errors
    /// A value the value writer cannot encode.
    pub fn step(&mut self, dbs: &[Db], max_keys: usize) -> Result<bool, SaveError> {
        let mut n = 0usize;
        let value_opts = self.opts.values;
        while !self.done && n < max_keys {
            let Some(db) = dbs.get(self.db) else {
                self.out.push(opcode::EOF);
                let crc = if self.opts.checksum {
                    self.digest.update(&self.out[self.digested..]);
                    self.digested = self.out.len();
                    std::mem::replace(&mut self.digest, CRC64.digest()).finalize()
                } else {
                    0
                };
                self.out.extend_from_slice(&crc.to_le_bytes());
                self.done = true;
                break;
            };
            let i = match self.next {
                Some(i) => i,
                None if db.is_empty() => {
                    self.db += 1;
                    continue;
                }
                None => {
                    self.out.push(opcode::SELECTDB);
                    put_len(&mut self.out, self.db as u64);
                    self.out.push(opcode::RESIZEDB);
                    put_len(&mut self.out, db.len() as u64);
                    put_len(&mut self.out, db.volatile_len() as u64);
                    0
                }
            };
            let Some((key, entry)) = db.key_at(i) else {
                self.db += 1;
                self.next = None;
                continue;
            };
            self.put_key(key, entry, &value_opts)
                .map_err(|type_name| SaveError {
                    db: self.db,
                    key: key.clone(),
                    type_name,
                })?;
            self.next = Some(i + 1);
            self.keys += 1;
            n += 1;
        }
        if self.opts.checksum && !self.done {
            self.digest.update(&self.out[self.digested..]);
            self.digested = self.out.len();
        }
        Ok(self.done)
    }

    fn put_key(
        &mut self,
        key: &[u8],
        entry: &Entry,
        value_opts: &SaveOptions,
    ) -> Result<(), &'static str> {
        let mut value = Vec::new();
        write_value(&mut value, &entry.value, value_opts);
        let Some((&type_byte, object)) = value.split_first() else {
            return Err(entry.value.type_name());
        };
        let out = &mut self.out;
        if let Some(at) = entry.expire_at {
            out.push(opcode::EXPIRETIME_MS);
            out.extend_from_slice(&at.to_le_bytes());
        }
        match self.opts.usage {
            Usage::None => {}
            Usage::Idle => {
                out.push(opcode::IDLE);
                let idle = self.now_ms.saturating_sub(entry.accessed_ms).max(0) / 1000;
                put_len(out, idle as u64);
            }
            Usage::Freq => {
                out.push(opcode::FREQ);
                out.push(entry.lfu);
            }
        }
        out.push(type_byte);
        put_string(out, key, self.opts.values.compress);
        out.extend_from_slice(object);
        Ok(())
    }

    /// The file (complete once [`FileWriter::step`] returned true).
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
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
