//! The data structures a key can hold, one file per type, each opening with an essay on its
//! representation and the invariants it keeps.

pub mod hash;
pub mod string;

pub use hash::HashValue;
pub use string::StrValue;

use super::error::{CmdResult, Error};

/// The value stored under a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A binary-safe string (also the storage of bitmaps and HyperLogLogs).
    Str(StrValue),
    /// A field → value map.
    Hash(HashValue),
}

impl Value {
    /// The name `TYPE` replies with.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::Hash(_) => "hash",
        }
    }

    /// The encoding `OBJECT ENCODING` replies with: what Redis 7.0 would use for this value
    /// under its default thresholds (see each type's documentation).
    pub fn encoding(&self) -> &'static str {
        match self {
            Value::Str(s) => s.encoding(),
            Value::Hash(h) => h.encoding(),
        }
    }

    /// The string inside, or `WRONGTYPE`.
    pub fn as_str(&self) -> CmdResult<&StrValue> {
        match self {
            Value::Str(s) => Ok(s),
            _ => Err(Error::WrongType),
        }
    }

    /// The string inside, mutably, or `WRONGTYPE`.
    pub fn as_str_mut(&mut self) -> CmdResult<&mut StrValue> {
        match self {
            Value::Str(s) => Ok(s),
            _ => Err(Error::WrongType),
        }
    }

    /// The hash inside, or `WRONGTYPE`.
    pub fn as_hash(&self) -> CmdResult<&HashValue> {
        match self {
            Value::Hash(h) => Ok(h),
            _ => Err(Error::WrongType),
        }
    }

    /// The hash inside, mutably, or `WRONGTYPE`.
    pub fn as_hash_mut(&mut self) -> CmdResult<&mut HashValue> {
        match self {
            Value::Hash(h) => Ok(h),
            _ => Err(Error::WrongType),
        }
    }

    /// True when a collection has no elements left (Redis deletes such keys).
    pub fn is_empty_collection(&self) -> bool {
        match self {
            Value::Str(_) => false,
            Value::Hash(h) => h.is_empty(),
        }
    }
}
