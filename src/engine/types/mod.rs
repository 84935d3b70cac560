//! The data structures a key can hold, one file per type, each opening with an essay on its
//! representation and the invariants it keeps.

pub mod geohash;
pub mod hash;
pub mod hll;
pub mod list;
pub mod ostree;
pub mod set;
pub mod small;
pub mod stream;
pub mod string;
pub mod varint;
pub mod zdict;
pub mod zset;

pub use hash::HashValue;
pub use list::ListValue;
pub use set::SetValue;
pub use stream::Stream;
pub use string::StrValue;
pub use zset::ZSet;

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
    /// A sorted set: members ordered by score.
    ZSet(ZSet),
    /// An append-only log of entries with consumer groups.
    Stream(Box<Stream>),
}

impl Value {
    /// The name `TYPE` replies with.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::Hash(_) => "hash",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::ZSet(_) => "zset",
            Value::Stream(_) => "stream",
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
            Value::ZSet(z) => z.encoding(),
            Value::Stream(_) => "stream",
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
            Value::ZSet(z) => z.is_empty(),
            // Redis keeps an empty stream: its IDs and groups live on.
            Value::Stream(_) => false,
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

    /// The sorted set inside, or `WRONGTYPE`.
    pub fn as_zset(&self) -> CmdResult<&ZSet> {
        match self {
            Value::ZSet(z) => Ok(z),
            _ => Err(Error::WrongType),
        }
    }

    /// The sorted set inside, mutably, or `WRONGTYPE`.
    pub fn as_zset_mut(&mut self) -> CmdResult<&mut ZSet> {
        match self {
            Value::ZSet(z) => Ok(z),
            _ => Err(Error::WrongType),
        }
    }

    /// The stream inside, or `WRONGTYPE`.
    pub fn as_stream(&self) -> CmdResult<&Stream> {
        match self {
            Value::Stream(s) => Ok(s),
            _ => Err(Error::WrongType),
        }
    }

    /// The stream inside, mutably, or `WRONGTYPE`.
    pub fn as_stream_mut(&mut self) -> CmdResult<&mut Stream> {
        match self {
            Value::Stream(s) => Ok(s),
            _ => Err(Error::WrongType),
        }
    }

    /// This value as an input of `ZUNION`/`ZINTER`/`ZDIFF` (a sorted set, or a plain set
    /// whose members all score 1), or `WRONGTYPE`.
    pub fn zset_input(&self) -> CmdResult<zset::ZInput<'_>> {
        match self {
            Value::ZSet(z) => Ok(zset::ZInput::ZSet(z)),
            Value::Set(s) => Ok(zset::ZInput::Set(s)),
            _ => Err(Error::WrongType),
        }
    }

    /// This value as the input of `SORT` (a list, set or sorted set), or `WRONGTYPE`.
    pub fn sort_source(&self) -> CmdResult<zset::SortSource<'_>> {
        match self {
            Value::ZSet(z) => Ok(zset::SortSource::ZSet(z)),
            Value::List(l) => Ok(zset::SortSource::List(l)),
            Value::Set(s) => Ok(zset::SortSource::Set(s)),
            _ => Err(Error::WrongType),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// A database of small values is mostly entries: every type but the string keeps its
    /// body behind one pointer, so that a value is a string's 24 bytes (its tag in the
    /// string's own, see `string.rs`) and the types that grow pay for their size in their
    /// own blocks.
    #[test]
    fn a_value_is_three_words() {
        assert!(size_of::<HashValue>() <= 16);
        assert!(size_of::<ListValue>() <= 16);
        assert!(size_of::<SetValue>() <= 16);
        assert!(size_of::<ZSet>() <= 16);
        assert!(size_of::<Box<Stream>>() <= 16);
        assert_eq!(size_of::<Value>(), 24);
    }
}
