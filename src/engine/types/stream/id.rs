//! Stream entry IDs: [`StreamId`], Redis's `string2ull`, and [`parse_id`] with the `-`, `+`, `$`,
//! `*` and `ms-*` forms the commands accept.

use crate::engine::args::parse_i64;
use std::fmt;

/// A stream entry ID: milliseconds and a sequence number, ordered as a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StreamId {
    /// Milliseconds part.
    pub ms: u64,
    /// Sequence part.
    pub seq: u64,
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

impl StreamId {
    /// The smallest ID, 0-0.
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    /// The greatest ID.
    pub const MAX: StreamId = StreamId {
        ms: u64::MAX,
        seq: u64::MAX,
    };

    /// An ID from its parts.
    pub const fn new(ms: u64, seq: u64) -> StreamId {
        StreamId { ms, seq }
    }

    /// The next ID, or `None` past the greatest (Redis's `streamIncrID`).
    pub fn incr(self) -> Option<StreamId> {
        if self.seq == u64::MAX {
            if self.ms == u64::MAX {
                None
            } else {
                Some(StreamId::new(self.ms + 1, 0))
            }
        } else {
            Some(StreamId::new(self.ms, self.seq + 1))
        }
    }

    /// The previous ID, or `None` before 0-0 (Redis's `streamDecrID`).
    pub fn decr(self) -> Option<StreamId> {
        if self.seq == 0 {
            if self.ms == 0 {
                None
            } else {
                Some(StreamId::new(self.ms - 1, u64::MAX))
            }
        } else {
            Some(StreamId::new(self.ms, self.seq - 1))
        }
    }

    /// The ID as `ms-seq` bytes.
    pub fn to_bytes(self) -> Vec<u8> {
        self.to_string().into_bytes()
    }

    /// The 16 big-endian bytes Redis uses as the radix-tree key.
    pub(super) fn encode(self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.ms.to_be_bytes());
        out[8..].copy_from_slice(&self.seq.to_be_bytes());
        out
    }
}

/// Parses an unsigned 64-bit number as Redis's `string2ull`: a strict `string2ll` first
/// (negative numbers rejected), then C's `strtoull` over the whole string, which also takes
/// leading spaces, a sign, and leading zeros (`-1` is refused by the first step, but a
/// form `string2ll` rejects, like `-01`, wraps around as `strtoull` does).
pub fn string2ull(s: &[u8]) -> Option<u64> {
    if let Some(v) = parse_i64(s) {
        return (v >= 0).then_some(v as u64);
    }
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let digits = &s[i..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// How an ID argument was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedId {
    /// The ID (a missing sequence filled in as asked).
    pub id: StreamId,
    /// False for the `ms-*` form (XADD only): the sequence is to be generated.
    pub seq_given: bool,
}

/// Parses a stream ID argument as Redis's `streamGenericParseIDOrReply`: `ms-seq`, `ms`
/// (the sequence becomes `missing_seq`), `-` and `+` (unless `strict`), and with
/// `allow_star_seq` the `ms-*` form. The text stops at its first NUL byte (Redis reads it
/// as a C string) and may be at most 127 bytes. `None` means
/// `ERR Invalid stream ID specified as stream command argument`.
pub fn parse_id(
    arg: &[u8],
    missing_seq: u64,
    strict: bool,
    allow_star_seq: bool,
) -> Option<ParsedId> {
    if arg.len() > 127 {
        return None;
    }
    let s = crate::engine::args::c_bytes(arg);
    if strict && (s == b"-" || s == b"+") {
        return None;
    }
    if s == b"-" {
        return Some(ParsedId {
            id: StreamId::MIN,
            seq_given: true,
        });
    }
    if s == b"+" {
        return Some(ParsedId {
            id: StreamId::MAX,
            seq_given: true,
        });
    }
    match s.iter().position(|&b| b == b'-') {
        Some(dash) => {
            let ms = string2ull(&s[..dash])?;
            let rest = &s[dash + 1..];
            if allow_star_seq && rest == b"*" {
                return Some(ParsedId {
                    id: StreamId::new(ms, 0),
                    seq_given: false,
                });
            }
            let seq = string2ull(rest)?;
            Some(ParsedId {
                id: StreamId::new(ms, seq),
                seq_given: true,
            })
        }
        None => Some(ParsedId {
            id: StreamId::new(string2ull(s)?, missing_seq),
            seq_given: true,
        }),
    }
}

/// The field-value pairs of one entry.
pub type Fields = Vec<(Vec<u8>, Vec<u8>)>;
