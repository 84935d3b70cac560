//! Redis's RDB serialization: the bytes of a `DUMP` payload, of `FUNCTION DUMP`, and of a
//! `dump.rdb` file, as Redis 7.0 (RDB version 10) writes them and as versions 1 to 10 can
//! be read.
//!
//! * [`prim`]: lengths, strings (with the integer and LZF encodings) and the reader the
//!   rest is built on.
//! * [`lzf`]: LZF, byte for byte as Redis's liblzf compresses.
//! * [`file`](mod@file): whole-dataset files (`dump.rdb`): the framing, and a loader that reads in steps.
//! * [`read`]: objects of every type byte into values; [`unpack`]: the listpacks,
//!   ziplists, zipmaps and intsets inside them.
//! * [`pack`]: listpacks and intsets, the blobs small values are kept in.
//! * this file: the numbers of the format (type bytes, opcodes), the CRC-64 and the
//!   payload footer `DUMP`, `RESTORE`, `FUNCTION DUMP` and `FUNCTION RESTORE` share.
//!
//! Nothing here does I/O: a file is bytes in and bytes out, so the browser and the native
//! server read and write the same format with the same code.

pub mod file;
pub mod lzf;
pub mod pack;
pub mod prim;
pub mod read;
pub mod unpack;
pub mod write;

use crc::{Crc, NoTable, CRC_64_REDIS};

/// The RDB version Redis 7.0 writes (`RDB_VERSION`), and the newest one it reads.
pub const RDB_VERSION: u16 = 10;

/// Object type bytes (Redis's `RDB_TYPE_*`).
#[allow(missing_docs)] // each is Redis's constant of the same name
pub mod kind {
    pub const STRING: u8 = 0;
    pub const LIST: u8 = 1;
    pub const SET: u8 = 2;
    pub const ZSET: u8 = 3;
    pub const HASH: u8 = 4;
    /// Sorted set with binary (little-endian `f64`) scores (RDB 8+).
    pub const ZSET_2: u8 = 5;
    pub const MODULE_PRE_GA: u8 = 6;
    pub const MODULE_2: u8 = 7;
    pub const HASH_ZIPMAP: u8 = 9;
    pub const LIST_ZIPLIST: u8 = 10;
    pub const SET_INTSET: u8 = 11;
    pub const ZSET_ZIPLIST: u8 = 12;
    pub const HASH_ZIPLIST: u8 = 13;
    /// A quicklist of ziplists (RDB 7–9).
    pub const LIST_QUICKLIST: u8 = 14;
    pub const STREAM_LISTPACKS: u8 = 15;
    pub const HASH_LISTPACK: u8 = 16;
    pub const ZSET_LISTPACK: u8 = 17;
    /// A quicklist of listpacks, each node tagged plain or packed (RDB 10).
    pub const LIST_QUICKLIST_2: u8 = 18;
    /// Streams with first-entry id, max deleted id and entries added (RDB 10).
    pub const STREAM_LISTPACKS_2: u8 = 19;
    /// Redis 7.2's stream with per-group lag (`RDB_TYPE_STREAM_LISTPACKS_3`); RDB 11.
    pub const STREAM_LISTPACKS_3: u8 = 21;
}

/// File opcodes (Redis's `RDB_OPCODE_*`).
#[allow(missing_docs)] // each is Redis's constant of the same name
pub mod opcode {
    pub const FUNCTION2: u8 = 245;
    /// A library as 7.0's release candidates saved it: name, engine, description, code.
    pub const FUNCTION_PRE_GA: u8 = 246;
    pub const MODULE_AUX: u8 = 247;
    pub const IDLE: u8 = 248;
    pub const FREQ: u8 = 249;
    pub const AUX: u8 = 250;
    pub const RESIZEDB: u8 = 251;
    pub const EXPIRETIME_MS: u8 = 252;
    pub const EXPIRETIME: u8 = 253;
    pub const SELECTDB: u8 = 254;
    pub const EOF: u8 = 255;
}

/// An RDB string's special encodings (the two top bits of its length byte set).
#[allow(missing_docs)] // each is Redis's constant of the same name
pub mod enc {
    pub const INT8: u8 = 0;
    pub const INT16: u8 = 1;
    pub const INT32: u8 = 2;
    pub const LZF: u8 = 3;
}

/// Bit by bit, with no table: a 2 KB table would sit in the browser's first load (data
/// cannot be split off with the code), and payloads are checked far less often than
/// they are used.
const CRC64: Crc<u64, NoTable> = Crc::<u64, NoTable>::new(&CRC_64_REDIS);

/// Redis's `crc64(0, bytes)`.
pub fn crc64(bytes: &[u8]) -> u64 {
    CRC64.checksum(bytes)
}

/// Appends the payload footer `DUMP` and `FUNCTION DUMP` end with: the RDB version as two
/// little-endian bytes, then the CRC-64 of everything before the checksum, little-endian.
pub fn seal(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = crc64(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// The body of a payload whose footer holds (Redis's `verifyDumpPayload`): at least the
/// 10 footer bytes, a version no newer than [`RDB_VERSION`], and a matching checksum
/// (a zero checksum is not accepted as "unchecked", as Redis does not for payloads; the
/// checksum is not looked at when `check_crc` is false: `DEBUG
/// SET-SKIP-CHECKSUM-VALIDATION 1`). `None` is Redis's "DUMP payload version or checksum
/// are wrong".
pub fn unseal(payload: &[u8], check_crc: bool) -> Option<&[u8]> {
    if payload.len() < 10 {
        return None;
    }
    let (body, footer) = payload.split_at(payload.len() - 10);
    let version = u16::from_le_bytes([footer[0], footer[1]]);
    if version > RDB_VERSION {
        return None;
    }
    if !check_crc {
        return Some(body);
    }
    let mut crc = [0u8; 8];
    crc.copy_from_slice(&footer[2..]);
    (crc64(&payload[..payload.len() - 8]) == u64::from_le_bytes(crc)).then_some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_is_redis_jones() {
        // Redis's crc64.c test vector.
        assert_eq!(crc64(b"123456789"), 0xe9c6d914c4b8d9ca);
    }

    #[test]
    fn sealed_payloads_open_and_damaged_ones_do_not() {
        let p = seal(b"\x00\x03abc".to_vec());
        assert_eq!(unseal(&p, true), Some(&b"\x00\x03abc"[..]));
        let mut bad = p.clone();
        bad[2] ^= 1;
        assert_eq!(unseal(&bad, true), None);
        assert_eq!(unseal(&p[..9], true), None);
        let mut newer = b"x".to_vec();
        newer.extend_from_slice(&11u16.to_le_bytes());
        let crc = crc64(&newer);
        newer.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(unseal(&newer, true), None);
    }
}
