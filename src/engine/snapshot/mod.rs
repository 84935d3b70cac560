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

use super::keyspace::Db;
use super::{Engine, NUM_DBS};
use std::fmt;

use codec::{put_bytes, put_varint, unzigzag, zigzag, CodecError};

pub mod codec;
mod dump;
mod image;
mod log;
mod replay;
pub use dump::{canonical_dump, data_dump};
pub(crate) use image::stream_from_commands;
pub use image::{decode_snapshot, encode_snapshot, Decoded, Snapshot};
pub use log::{decode_log_record, encode_log_record, LogRecord, TimedEffect};
pub use replay::{apply_effects, install, recover, Recovery, Replayer};

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
// The reader: the shared codec's, with this format's errors and fixed-width numbers.

/// A [`codec::Reader`] that names the part it reads (`header`, `chunk 3`) in its errors.
struct Reader<'a> {
    inner: codec::Reader<'a>,
    what: &'a str,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8], what: &'a str) -> Reader<'a> {
        Reader {
            inner: codec::Reader::new(buf),
            what,
        }
    }

    fn error(&self, e: CodecError) -> FormatError {
        match e {
            CodecError::Truncated => FormatError::Truncated {
                what: self.what.to_string(),
            },
            CodecError::VarintTooLong => FormatError::Invalid {
                what: format!("{}: varint too long", self.what),
            },
        }
    }

    fn truncated(&self) -> FormatError {
        self.error(CodecError::Truncated)
    }

    fn position(&self) -> usize {
        self.inner.position()
    }

    fn remaining(&self) -> usize {
        self.inner.remaining()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        self.inner.take(n).map_err(|e| self.error(e))
    }

    fn u8(&mut self) -> Result<u8, FormatError> {
        self.inner.u8().map_err(|e| self.error(e))
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        self.inner.array().map_err(|e| self.error(e))
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
        self.inner.varint().map_err(|e| self.error(e))
    }

    /// A count of items each at least `min_size` bytes long (see [`codec::Reader::count`]).
    fn count(&mut self, min_size: usize) -> Result<usize, FormatError> {
        self.inner.count(min_size).map_err(|e| self.error(e))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, FormatError> {
        self.inner.bytes().map_err(|e| self.error(e))
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
