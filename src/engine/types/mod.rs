//! The data structures a key can hold, one file per type, each opening with an essay on its
//! representation and the invariants it keeps.

pub mod hash;
pub mod list;
pub mod set;
pub mod string;

pub use hash::HashValue;
pub use list::ListValue;
pub use set::SetValue;
pub use string::StrValue;

use super::error::{CmdResult, Error};

/// The value stored under a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A binary-safe string (also the storage of bitmaps and HyperLogLogs).
    Str(StrValue),
    /// A field → value map.
    Hash(HashValue),
    /// A sequence of strings, pushed and popped at both ends.
    List(ListValue),
    /// An unordered collection of distinct strings.
    Set(SetValue),
}

impl Value {
    /// The name `TYPE` replies with.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::Hash(_) => "hash",
            Value::List(_) => "list",
            Value::Set(_) => "set",
        }
    }

    /// The encoding `OBJECT ENCODING` replies with: what Redis 7.0 would use for this value
    /// under its default thresholds (see each type's documentation).
    pub fn encoding(&self) -> &'static str {
        match self {
            Value::Str(s) => s.encoding(),
            Value::Hash(h) => h.encoding(),
            Value::List(l) => l.encoding(),
            Value::Set(s) => s.encoding(),
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
            Value::List(l) => l.is_empty(),
            Value::Set(s) => s.is_empty(),
        }
    }

    /// The list inside, or `WRONGTYPE`.
    pub fn as_list(&self) -> CmdResult<&ListValue> {
        match self {
            Value::List(l) => Ok(l),
            _ => Err(Error::WrongType),
        }
    }

    /// The list inside, mutably, or `WRONGTYPE`.
    pub fn as_list_mut(&mut self) -> CmdResult<&mut ListValue> {
        match self {
            Value::List(l) => Ok(l),
            _ => Err(Error::WrongType),
        }
    }

    /// The set inside, or `WRONGTYPE`.
    pub fn as_set(&self) -> CmdResult<&SetValue> {
        match self {
            Value::Set(s) => Ok(s),
            _ => Err(Error::WrongType),
        }
    }

    /// The set inside, mutably, or `WRONGTYPE`.
    pub fn as_set_mut(&mut self) -> CmdResult<&mut SetValue> {
        match self {
            Value::Set(s) => Ok(s),
            _ => Err(Error::WrongType),
        }
    }
}
