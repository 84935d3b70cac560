//! The format's shared pieces: its version and magic numbers, the value tags, the
//! [`FormatError`] it reports, the CRC-32 its checksums use, and the [`Reader`] the snapshot and
//! log decoders read with.

use std::fmt;

use crate::engine::codec::{self, CodecError};
use crate::engine::NUM_DBS;

/// The format version this build writes.
pub const VERSION: u16 = 1;
/// Magic at the start of a snapshot.
pub const SNAPSHOT_MAGIC: &[u8; 4] = b"KVLS";
/// Magic of the function libraries' section, after a snapshot's end marker.
pub const FUNCTIONS_MAGIC: &[u8; 4] = b"KVLF";
/// Magic at the start of a log record.
pub const LOG_MAGIC: &[u8; 2] = b"KL";
/// Keys per snapshot chunk: the unit that a checksum protects and that is lost on damage.
pub const CHUNK_KEYS: usize = 4096;

pub(super) const TAG_STRING: u8 = 0;
pub(super) const TAG_LIST: u8 = 1;
pub(super) const TAG_SET: u8 = 2;
pub(super) const TAG_ZSET: u8 = 3;
pub(super) const TAG_HASH: u8 = 4;
/// A stream, stored as the commands that rebuild it ([`Stream::rewrite`]).
pub(super) const TAG_STREAM: u8 = 5;
pub(super) const FLAG_EXPIRE: u8 = 0x80;

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
pub(super) struct Reader<'a> {
    pub(super) inner: codec::Reader<'a>,
    pub(super) what: &'a str,
}

impl<'a> Reader<'a> {
    pub(super) fn new(buf: &'a [u8], what: &'a str) -> Reader<'a> {
        Reader {
            inner: codec::Reader::new(buf),
            what,
        }
    }

    pub(super) fn error(&self, e: CodecError) -> FormatError {
        match e {
            CodecError::Truncated => FormatError::Truncated {
                what: self.what.to_string(),
            },
            CodecError::VarintTooLong => FormatError::Invalid {
                what: format!("{}: varint too long", self.what),
            },
        }
    }

    pub(super) fn truncated(&self) -> FormatError {
        self.error(CodecError::Truncated)
    }

    pub(super) fn position(&self) -> usize {
        self.inner.position()
    }

    pub(super) fn remaining(&self) -> usize {
        self.inner.remaining()
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        self.inner.take(n).map_err(|e| self.error(e))
    }

    pub(super) fn u8(&mut self) -> Result<u8, FormatError> {
        self.inner.u8().map_err(|e| self.error(e))
    }

    pub(super) fn array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        self.inner.array().map_err(|e| self.error(e))
    }

    pub(super) fn u16(&mut self) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    pub(super) fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub(super) fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub(super) fn i64(&mut self) -> Result<i64, FormatError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    pub(super) fn f64(&mut self) -> Result<f64, FormatError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    pub(super) fn varint(&mut self) -> Result<u64, FormatError> {
        self.inner.varint().map_err(|e| self.error(e))
    }

    /// A count of items each at least `min_size` bytes long (see [`codec::Reader::count`]).
    pub(super) fn count(&mut self, min_size: usize) -> Result<usize, FormatError> {
        self.inner.count(min_size).map_err(|e| self.error(e))
    }

    pub(super) fn bytes(&mut self) -> Result<Vec<u8>, FormatError> {
        self.inner.bytes().map_err(|e| self.error(e))
    }

    pub(super) fn db(&mut self) -> Result<usize, FormatError> {
        let db = self.varint()?;
        if db >= NUM_DBS as u64 {
            return Err(FormatError::Invalid {
                what: format!("{}: database {db} out of range", self.what),
            });
        }
        Ok(db as usize)
    }
}
