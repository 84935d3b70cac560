//! Versioned, checksummed serialisation of the dataset and of the effect log, with no I/O.
//!
//! Persistence (the browser's IndexedDB in `src/persist`, or any other store) keeps two
//! kinds of record, both produced and read here:
//!
//! * a **snapshot**: every key of the 16 databases with its value, encoding and absolute
//!   deadline, and the function libraries' code — Redis's RDB file;
//! * **log records**: the replayable [`Effect`](crate::engine::Effect)s of the writes since that snapshot, each
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
//! we replay on a [`ManualClock`](crate::engine::ManualClock) set to each effect's original time, so every command
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
//!             [functions]                                             if any libraries
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
//! functions = "KVLF" n:varint bytes*n crc                            each library's code
//! ```
//!
//! The functions section came after version 1 without a version bump: a snapshot without
//! libraries ends at the end marker as before, and an older reader stops there.
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
use super::Engine;

mod dump;
mod format;
mod image;
mod log;
mod replay;
pub use dump::{canonical_dump, data_dump};
pub use format::{
    crc32, FormatError, CHUNK_KEYS, FUNCTIONS_MAGIC, LOG_MAGIC, SNAPSHOT_MAGIC, VERSION,
};
pub(crate) use image::stream_from_commands;
pub use image::{
    decode_snapshot, encode_engine, encode_snapshot, encode_snapshot_with, Decoded, Snapshot,
};
pub use log::{decode_log_record, encode_log_record, LogRecord, TimedEffect};
pub use replay::{
    apply_effects, install, install_dbs, install_functions, recover, Recovery, Replayer,
};

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
