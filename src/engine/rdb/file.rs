//! Whole-dataset RDB files (`dump.rdb`): the framing around the values, as Redis 7.0 writes
//! it (RDB version 10) and as versions 1 to 10 are read.
//!
//! ```text
//! file    = "REDIS" version:4 digits  aux* function* db* EOF crc64:u64le (version 5+)
//! aux     = AUX key:string value:string         redis-ver, redis-bits, ctime, used-mem, aof-base
//! function= FUNCTION2 code:string               (FUNCTION_PRE_GA in 7.0's release candidates)
//! db      = SELECTDB index:len [RESIZEDB keys:len volatile:len] key*
//! key     = [EXPIRETIME_MS ms:i64le | EXPIRETIME s:i32le] [IDLE secs:len | FREQ counter:u8]
//!           type:u8 name:string value         value as rdb::read / rdb::write read and write it
//! ```
//!
//! # Loading
//! [`Loader`] reads a file record by record, in steps of at most N keys
//! ([`Loader::step`]), so that the browser can show progress on a big file and the native
//! server loads it in one go. Everything is checked as it is read (lengths against the
//! bytes left, database indexes, duplicate keys, the checksum at the end); the first problem
//! stops the load with a [`FileError`] naming what is wrong, the byte offset of the record
//! and the key. The dataset is built apart from any engine: only a file read to its end
//! gives an [`RdbData`], which the host installs whole
//! ([`crate::engine::snapshot::install`]), so a damaged file never leaves anything
//! half-loaded. Keys whose deadline has passed are dropped as Redis drops them on a master.
//!
//! A newer format (RDB 11 of Redis 7.2 and later) is refused before anything is read, with
//! its version number; so are module values and module AUX data (there are no modules
//! here; Redis without the module refuses them too, naming the module).

use std::fmt;

use crc::{Digest, NoTable};

use super::prim::Reader;
use super::read::{read_value, LoadError, LoadOptions};
use super::{kind, opcode, RDB_VERSION};
use crate::engine::keyspace::{Db, Entry};
use crate::engine::types::Value;

/// The number of databases a file may select (Redis's default `databases 16`).
pub const NUM_DBS: usize = 16;

mod background;
mod save;
pub use background::BackgroundFile;
use save::CRC64;
pub use save::{write_file, FileOptions, SaveError, Usage, REDIS_VER};

/// What is wrong with a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// It does not start with `REDIS` and four digits.
    Signature,
    /// Its version is not one Redis 7.0 reads (newer than 10, or 0).
    Version(u32),
    /// It ends in the middle of a record.
    Truncated,
    /// A byte where a record should start is no opcode or type Redis 7.0 knows.
    UnknownType(u8),
    /// A length, string or number of a record cannot be read.
    BadRecord(&'static str),
    /// The value of a key is damaged or not valid for its type.
    BadValue(u8),
    /// SELECTDB names a database past the 16 there are.
    DbIndex(u64),
    /// The same key twice in one database.
    Duplicate,
    /// A function library record could not be read.
    BadFunction(String),
    /// A module's value: there are no modules here.
    ModuleValue(String),
    /// A module's AUX data: there are no modules here.
    ModuleAux(String),
    /// The CRC-64 at the end does not match the file.
    Checksum {
        /// What the file says.
        stored: u64,
        /// What its bytes give.
        computed: u64,
    },
    /// Bytes follow the end of the data.
    Trailing(usize),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Signature => write!(f, "not an RDB file (it does not start with REDIS and a version)"),
            Problem::Version(v) => write!(
                f,
                "RDB format version {v} is not supported (versions 1 to {RDB_VERSION} are, as in Redis 7.0)"
            ),
            Problem::Truncated => write!(f, "the file ends in the middle of a record (cut short?)"),
            Problem::UnknownType(t) => write!(f, "unknown record type {t}"),
            Problem::BadRecord(what) => write!(f, "damaged record: {what}"),
            Problem::BadValue(t) => write!(f, "damaged value of RDB type {t}"),
            Problem::DbIndex(i) => write!(f, "database {i} does not exist (there are {NUM_DBS})"),
            Problem::Duplicate => write!(f, "duplicated key"),
            Problem::BadFunction(why) => write!(f, "damaged function library: {why}"),
            Problem::ModuleValue(m) => {
                write!(f, "module data can't be loaded: no matching module type '{m}'")
            }
            Problem::ModuleAux(m) => {
                write!(f, "module AUX data can't be loaded: no matching module '{m}'")
            }
            Problem::Checksum { stored, computed } => write!(
                f,
                "wrong RDB checksum: the file says {stored:x}, its bytes give {computed:x}"
            ),
            Problem::Trailing(n) => write!(f, "{n} unexpected bytes after the end of the data"),
        }
    }
}

/// Why a file could not be loaded: what, at which byte of the file, and in which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// What is wrong.
    pub problem: Problem,
    /// The byte offset of the record where it was found.
    pub offset: usize,
    /// The database and key of that record, when it is a key's.
    pub key: Option<(usize, Vec<u8>)>,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.problem, self.offset)?;
        if let Some((db, key)) = &self.key {
            write!(f, " (key '{}' in DB {db})", String::from_utf8_lossy(key))?;
        }
        Ok(())
    }
}

impl std::error::Error for FileError {}

/// What changes how a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadFileOptions {
    /// `rdbchecksum`: check the CRC-64 at the end (a zero one means "not computed", as
    /// Redis takes it).
    pub checksum: bool,
    /// The time keys' deadlines are compared with, Unix ms.
    pub now_ms: i64,
    /// The encoding limits values are loaded under.
    pub values: LoadOptions,
}

/// A file read to its end: the dataset to install and what the file said about itself.
#[derive(Debug)]
pub struct RdbData {
    /// The 16 databases.
    pub dbs: Vec<Db>,
    /// The function libraries' code, in file order.
    pub functions: Vec<Vec<u8>>,
    /// The AUX fields, in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// The file's RDB version.
    pub version: u32,
    /// Keys loaded.
    pub keys: u64,
    /// Keys left out because their deadline had passed.
    pub expired: u64,
    /// Empty values left out (Redis skips them too).
    pub empty: u64,
    /// True when the file carried no checksum to check (a zero one, or version < 5).
    pub unchecked: bool,
}

impl RdbData {
    /// An AUX field's value.
    pub fn aux(&self, key: &str) -> Option<&[u8]> {
        self.aux
            .iter()
            .find(|(k, _)| k == key.as_bytes())
            .map(|(_, v)| &v[..])
    }
}

/// A file being read in steps: see the module's "Loading" section.
pub struct Loader {
    bytes: Vec<u8>,
    pos: usize,
    opts: LoadFileOptions,
    digest: Digest<'static, u64, NoTable>,
    /// Bytes already fed to the digest.
    digested: usize,
    data: RdbData,
    db: usize,
    done: bool,
}

/// The state a key's record carries from the opcodes before it.
#[derive(Default)]
struct KeyPrefix {
    expire_ms: Option<i64>,
    idle_s: Option<u64>,
    freq: Option<u8>,
}

impl Loader {
    /// Starts reading `bytes`: checks the signature and version.
    ///
    /// # Errors
    /// Not an RDB file, or a version other than 1 to 10.
    pub fn new(bytes: Vec<u8>, opts: LoadFileOptions) -> Result<Loader, FileError> {
        let fail = |problem| FileError {
            problem,
            offset: 0,
            key: None,
        };
        let head = bytes.get(..9).ok_or_else(|| fail(Problem::Signature))?;
        if &head[..5] != b"REDIS" || !head[5..].iter().all(u8::is_ascii_digit) {
            return Err(fail(Problem::Signature));
        }
        let version: u32 = std::str::from_utf8(&head[5..])
            .ok()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| fail(Problem::Signature))?;
        if version < 1 || version > u32::from(RDB_VERSION) {
            return Err(fail(Problem::Version(version)));
        }
        let mut dbs = Vec::with_capacity(NUM_DBS);
        dbs.resize_with(NUM_DBS, Db::default);
        Ok(Loader {
            bytes,
            pos: 9,
            opts,
            digest: CRC64.digest(),
            digested: 0,
            data: RdbData {
                dbs,
                functions: Vec::new(),
                aux: Vec::new(),
                version,
                keys: 0,
                expired: 0,
                empty: 0,
                unchecked: false,
            },
            db: 0,
            done: false,
        })
    }

    /// Bytes read so far.
    pub fn done_bytes(&self) -> usize {
        self.pos
    }

    /// The file's size.
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Keys loaded so far.
    pub fn keys(&self) -> u64 {
        self.data.keys
    }

    /// True once the whole file was read and checked.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Reads up to `max_keys` more keys (and the other records on the way); true once the
    /// file was read to its end and its checksum checked.
    ///
    /// # Errors
    /// The first problem found; the loader must not be stepped again after one.
    pub fn step(&mut self, max_keys: usize) -> Result<bool, FileError> {
        let mut keys = 0usize;
        while !self.done && keys < max_keys {
            if self.record()? {
                keys += 1;
            }
        }
        self.feed_digest(self.pos);
        Ok(self.done)
    }

    /// Reads the rest of the file and gives its dataset.
    ///
    /// # Errors
    /// The first problem found.
    pub fn finish(mut self) -> Result<RdbData, FileError> {
        while !self.step(usize::MAX)? {}
        Ok(self.data)
    }

    fn feed_digest(&mut self, upto: usize) {
        if upto > self.digested {
            self.digest.update(&self.bytes[self.digested..upto]);
            self.digested = upto;
        }
    }

    /// Reads one record; true if it was a key.
    fn record(&mut self) -> Result<bool, FileError> {
        let start = self.pos;
        let mut prefix = KeyPrefix::default();
        let bytes = std::mem::take(&mut self.bytes);
        let result = self.record_in(&bytes, start, &mut prefix);
        self.bytes = bytes;
        result
    }

    fn record_in(
        &mut self,
        bytes: &[u8],
        start: usize,
        prefix: &mut KeyPrefix,
    ) -> Result<bool, FileError> {
        let mut r = Reader::new(&bytes[start..]);
        let at = |r: &Reader<'_>| start + r.pos();
        let err = |problem, offset| FileError {
            problem,
            offset,
            key: None,
        };
        let truncated_or = |r: &Reader<'_>, what| {
            if r.at_end() {
                Problem::Truncated
            } else {
                Problem::BadRecord(what)
            }
        };
        loop {
            let op_at = at(&r);
            let Some(op) = r.byte() else {
                return Err(err(Problem::Truncated, op_at));
            };
            match op {
                opcode::EXPIRETIME => {
                    let s = r
                        .array::<4>()
                        .ok_or_else(|| err(Problem::Truncated, op_at))?;
                    prefix.expire_ms = Some(i64::from(i32::from_le_bytes(s)) * 1000);
                }
                opcode::EXPIRETIME_MS => {
                    let ms = r
                        .array::<8>()
                        .ok_or_else(|| err(Problem::Truncated, op_at))?;
                    prefix.expire_ms = Some(i64::from_le_bytes(ms));
                }
                opcode::FREQ => {
                    prefix.freq = Some(r.byte().ok_or_else(|| err(Problem::Truncated, op_at))?);
                }
                opcode::IDLE => {
                    let idle = r
                        .length()
                        .ok_or_else(|| err(truncated_or(&r, "bad IDLE length"), op_at))?;
                    prefix.idle_s = Some(idle);
                }
                opcode::EOF => {
                    self.pos = at(&r);
                    self.end(bytes)?;
                    return Ok(false);
                }
                opcode::SELECTDB => {
                    let index = r
                        .length()
                        .ok_or_else(|| err(truncated_or(&r, "bad SELECTDB index"), op_at))?;
                    if index >= NUM_DBS as u64 {
                        return Err(err(Problem::DbIndex(index), op_at));
                    }
                    self.db = index as usize;
                    self.pos = at(&r);
                    return Ok(false);
                }
                opcode::RESIZEDB => {
                    // Sizes to reserve: only hints, and not trusted for that either.
                    for _ in 0..2 {
                        r.length()
                            .ok_or_else(|| err(truncated_or(&r, "bad RESIZEDB size"), op_at))?;
                    }
                    self.pos = at(&r);
                    return Ok(false);
                }
                opcode::AUX => {
                    let key = r
                        .string()
                        .ok_or_else(|| err(truncated_or(&r, "bad AUX field name"), op_at))?;
                    let value = r
                        .string()
                        .ok_or_else(|| err(truncated_or(&r, "bad AUX field value"), op_at))?;
                    self.data.aux.push((key, value));
                    self.pos = at(&r);
                    return Ok(false);
                }
                opcode::MODULE_AUX => {
                    let id = r
                        .length()
                        .ok_or_else(|| err(truncated_or(&r, "bad module id"), op_at))?;
                    return Err(err(Problem::ModuleAux(module_name(id)), op_at));
                }
                opcode::FUNCTION2 => {
                    let code = r
                        .string()
                        .ok_or_else(|| err(truncated_or(&r, "bad function library code"), op_at))?;
                    self.add_function(code, op_at)?;
                    self.pos = at(&r);
                    return Ok(false);
                }
                opcode::FUNCTION_PRE_GA => {
                    let code = crate::engine::cmd::functions::payload::old_record(&mut r)
                        .map_err(|why| err(Problem::BadFunction(why.to_string()), op_at))?;
                    self.add_function(code, op_at)?;
                    self.pos = at(&r);
                    return Ok(false);
                }
                t if is_object_type(t) => {
                    let key = r
                        .string()
                        .ok_or_else(|| err(truncated_or(&r, "bad key name"), op_at))?;
                    let key_err = |problem| FileError {
                        problem,
                        offset: op_at,
                        key: Some((self.db, key.clone())),
                    };
                    if t == kind::MODULE_2 || t == kind::MODULE_PRE_GA {
                        let id = r.length().ok_or_else(|| key_err(Problem::Truncated))?;
                        return Err(key_err(Problem::ModuleValue(module_name(id))));
                    }
                    let value = match read_value(&mut r, t, &self.opts.values) {
                        Ok(v) => Some(v),
                        // Redis skips an empty value (older versions could save one).
                        Err(LoadError::Empty) => None,
                        Err(_) if r.at_end() => return Err(key_err(Problem::Truncated)),
                        Err(_) => return Err(key_err(Problem::BadValue(t))),
                    };
                    self.pos = at(&r);
                    self.add_key(key, value, prefix, op_at)?;
                    return Ok(true);
                }
                t => return Err(err(Problem::UnknownType(t), op_at)),
            }
        }
    }

    fn add_function(&mut self, code: Vec<u8>, offset: usize) -> Result<(), FileError> {
        let bad = |why: String| FileError {
            problem: Problem::BadFunction(why),
            offset,
            key: None,
        };
        let (name, _) = crate::engine::functions::metadata(&code).map_err(bad)?;
        for other in &self.data.functions {
            if crate::engine::functions::metadata(other).is_ok_and(|(n, _)| n == name) {
                return Err(bad(format!("Library '{name}' already exists")));
            }
        }
        self.data.functions.push(code);
        Ok(())
    }

    fn add_key(
        &mut self,
        key: Vec<u8>,
        value: Option<Value>,
        prefix: &KeyPrefix,
        offset: usize,
    ) -> Result<(), FileError> {
        let Some(value) = value.filter(|v| !is_empty(v)) else {
            self.data.empty += 1;
            return Ok(());
        };
        let now = self.opts.now_ms;
        if prefix.expire_ms.is_some_and(|t| t < now) {
            self.data.expired += 1;
            return Ok(());
        }
        let db = &mut self.data.dbs[self.db];
        if db.get_raw(&key).is_some() {
            return Err(FileError {
                problem: Problem::Duplicate,
                offset,
                key: Some((self.db, key)),
            });
        }
        let mut entry = Entry::new(value, prefix.expire_ms, now);
        if let Some(idle) = prefix.idle_s {
            let ms = i64::try_from(idle).unwrap_or(i64::MAX).saturating_mul(1000);
            entry.set_accessed_ms(now.saturating_sub(ms));
        }
        if let Some(freq) = prefix.freq {
            entry.lfu = freq;
        }
        db.insert_entry(key, entry);
        self.data.keys += 1;
        Ok(())
    }

    /// After EOF (`self.pos` just past it; `bytes` the file): the checksum (version 5+),
    /// and nothing after it.
    fn end(&mut self, bytes: &[u8]) -> Result<(), FileError> {
        let err = |problem, offset| FileError {
            problem,
            offset,
            key: None,
        };
        if self.data.version >= 5 {
            if self.pos > self.digested {
                self.digest.update(&bytes[self.digested..self.pos]);
            }
            let crc_at = self.pos;
            let stored: [u8; 8] = bytes
                .get(crc_at..crc_at + 8)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(|| err(Problem::Truncated, crc_at))?;
            let stored = u64::from_le_bytes(stored);
            self.pos += 8;
            let computed = std::mem::replace(&mut self.digest, CRC64.digest()).finalize();
            if stored == 0 {
                self.data.unchecked = true;
            } else if self.opts.checksum && stored != computed {
                return Err(err(Problem::Checksum { stored, computed }, crc_at));
            }
        } else {
            self.data.unchecked = true;
        }
        self.digested = bytes.len();
        if self.pos < bytes.len() {
            return Err(err(Problem::Trailing(bytes.len() - self.pos), self.pos));
        }
        self.done = true;
        Ok(())
    }
}

/// Reads a whole file at once.
///
/// # Errors
/// The first problem found.
pub fn load_file(bytes: Vec<u8>, opts: LoadFileOptions) -> Result<RdbData, FileError> {
    Loader::new(bytes, opts)?.finish()
}

/// Redis's `rdbIsObjectType` for RDB 10.
fn is_object_type(t: u8) -> bool {
    matches!(t, 0..=7 | 9..=19)
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Str(_) | Value::Stream(_) => false,
        Value::Hash(h) => h.len() == 0,
        Value::List(l) => l.len() == 0,
        Value::Set(s) => s.len() == 0,
        Value::ZSet(z) => z.len() == 0,
    }
}

/// A module's 9-character name from its 64-bit type id (the top 54 bits, 6 per character;
/// the low 10 bits are the encoding version), as Redis prints it.
fn module_name(id: u64) -> String {
    const CHARS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut id = id >> 10;
    let mut name = [0u8; 9];
    for c in name.iter_mut().rev() {
        *c = CHARS[(id & 63) as usize];
        id >>= 6;
    }
    String::from_utf8_lossy(&name).into_owned()
}

#[cfg(test)]
mod tests;
