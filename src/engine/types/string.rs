//! Strings.
//!
//! A string is a byte vector. Redis 7.0 stores it in one of three encodings, and `OBJECT
//! ENCODING` shows which, so we track enough to answer the same way. Which encoding Redis
//! picks depends on the command that stored the value, not only on the bytes:
//!
//! * commands that store an argument as given (SET, SETEX, PSETEX, SETNX, GETSET, MSET,
//!   MSETNX, APPEND on a missing key) call `tryObjectEncoding`: the canonical decimal text
//!   of an `i64` (at most 20 bytes) becomes `int`, anything else up to 44 bytes `embstr`,
//!   longer values `raw` ([`StrValue::new`]);
//! * INCR, DECR, INCRBY and DECRBY store an integer, so their results are always `int`
//!   (also [`StrValue::new`], since the text is canonical);
//! * INCRBYFLOAT builds its result with `createStringObject`, which never tries the integer
//!   form: `embstr` up to 44 bytes, else `raw`, even for `"11"` ([`StrValue::plain`]);
//! * APPEND to an existing key, SETRANGE and the bit commands edit the bytes in place, which
//!   Redis only does on a `raw` copy, so the value stays `raw` from then on
//!   ([`StrValue::raw`], or set the `raw` flag).
//!
//! Invariant: `bytes.len()` never exceeds `proto-max-bulk-len` (512 MB by default); the
//! commands that grow a string check before they grow it.

use crate::engine::args::parse_i64;

/// Longest string Redis keeps in the `embstr` encoding (`OBJ_ENCODING_EMBSTR_SIZE_LIMIT`).
pub const EMBSTR_SIZE_LIMIT: usize = 44;

/// A string value.
#[derive(Debug, Clone, Default)]
pub struct StrValue {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// True once the value was modified in place, which makes Redis use the `raw` encoding.
    pub raw: bool,
    /// True when the value was stored without trying the `int` encoding (INCRBYFLOAT).
    pub plain: bool,
    /// The room Redis's sds would have for this string after edits in place (its `alloc`:
    /// `sdsMakeRoomFor` doubles what it needs below 1 MB), 0 while it is allocated exactly.
    /// Only `MEMORY USAGE` reads it; it sits in the struct's padding, is not compared, and
    /// is not saved, as Redis's own strings come back exact from an RDB file.
    pub sds_alloc: u32,
}

impl PartialEq for StrValue {
    fn eq(&self, other: &StrValue) -> bool {
        self.bytes == other.bytes && self.raw == other.raw && self.plain == other.plain
    }
}

impl Eq for StrValue {}

impl StrValue {
    /// A string stored as SET stores it (`tryObjectEncoding`): `int`, `embstr` or `raw`
    /// depending on the bytes.
    pub fn new(bytes: Vec<u8>) -> StrValue {
        StrValue {
            bytes,
            raw: false,
            plain: false,
            sds_alloc: 0,
        }
    }

    /// A string built by `createStringObject`: `embstr` up to 44 bytes, else `raw`, never
    /// `int` (the results of INCRBYFLOAT).
    pub fn plain(bytes: Vec<u8>) -> StrValue {
        StrValue {
            bytes,
            raw: false,
            plain: true,
            sds_alloc: 0,
        }
    }

    /// A string that is `raw` whatever its bytes (created or edited in place).
    pub fn raw(bytes: Vec<u8>) -> StrValue {
        StrValue {
            bytes,
            raw: true,
            plain: false,
            sds_alloc: 0,
        }
    }

    /// Records an edit in place that took the string from `old_len` to `len()` bytes:
    /// the value is `raw` from now on, and Redis's sds grows as `sdsMakeRoomFor` grows it
    /// when it has no room for the new length (below 1 MB twice the length, else 1 MB
    /// more, then the allocator's whole size class); a string allocated exactly has room
    /// for its old length only.
    pub fn edited(&mut self, old_len: usize) {
        self.raw = true;
        let len = self.bytes.len();
        let have = if self.sds_alloc == 0 {
            old_len
        } else {
            self.sds_alloc as usize
        };
        if len <= have {
            return;
        }
        let want = if len < 1 << 20 {
            len * 2
        } else {
            len + (1 << 20)
        };
        let header = crate::engine::alloc::sds_header(want).max(3);
        let usable = crate::engine::alloc::jemalloc_size(header + want as u64 + 1) - header - 1;
        self.sds_alloc = u32::try_from(usable).unwrap_or(u32::MAX);
    }

    /// The `OBJECT ENCODING` name.
    pub fn encoding(&self) -> &'static str {
        if self.raw {
            "raw"
        } else if !self.plain && self.bytes.len() <= 20 && parse_i64(&self.bytes).is_some() {
            "int"
        } else if self.bytes.len() <= EMBSTR_SIZE_LIMIT {
            "embstr"
        } else {
            "raw"
        }
    }

    /// The value as Redis's `getLongLongFromObject` reads it: the whole string must be a
    /// canonical decimal `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        parse_i64(&self.bytes)
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_follow_the_storing_command() {
        assert_eq!(StrValue::new(b"12".to_vec()).encoding(), "int");
        assert_eq!(
            StrValue::new(b"-9223372036854775808".to_vec()).encoding(),
            "int"
        );
        assert_eq!(
            StrValue::new(b"9223372036854775808".to_vec()).encoding(),
            "embstr"
        );
        assert_eq!(StrValue::new(b"012".to_vec()).encoding(), "embstr");
        assert_eq!(StrValue::new(vec![b'a'; 44]).encoding(), "embstr");
        assert_eq!(StrValue::new(vec![b'a'; 45]).encoding(), "raw");
        assert_eq!(StrValue::plain(b"11".to_vec()).encoding(), "embstr");
        assert_eq!(StrValue::plain(vec![b'1'; 45]).encoding(), "raw");
        assert_eq!(StrValue::raw(b"1".to_vec()).encoding(), "raw");
    }
}
