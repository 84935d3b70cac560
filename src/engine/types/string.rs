//! Strings.
//!
//! A string is a byte vector. Redis 7.0 stores it in one of three encodings, and `OBJECT
//! ENCODING` shows which, so we track enough to answer the same way:
//!
//! * `int` — the value was stored by a command that tries to compact it (SET, INCR, …) and
//!   it is the canonical decimal text of an `i64` (at most 20 bytes);
//! * `embstr` — stored that way, at most 44 bytes, not an integer;
//! * `raw` — longer, or modified in place (APPEND, SETRANGE, SETBIT), which Redis always
//!   leaves raw.
//!
//! Invariant: `bytes.len()` never exceeds `proto-max-bulk-len` (512 MB by default); the
//! commands that grow a string check before they grow it.

/// A string value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StrValue {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// True once the value was modified in place, which makes Redis use the `raw` encoding.
    pub raw: bool,
}

impl StrValue {
    /// A freshly stored string (encoding chosen as SET chooses it).
    pub fn new(bytes: Vec<u8>) -> StrValue {
        StrValue { bytes, raw: false }
    }

    /// The `OBJECT ENCODING` name.
    pub fn encoding(&self) -> &'static str {
        if self.raw {
            "raw"
        } else if self.bytes.len() <= 20 && crate::engine::args::parse_i64(&self.bytes).is_some() {
            "int"
        } else if self.bytes.len() <= 44 {
            "embstr"
        } else {
            "raw"
        }
    }
}
