//! What goes wrong reading an object, and the string read every part of the reader uses.

use crate::engine::rdb::prim::Reader;

/// Why a value could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The bytes are not a valid object (Redis's "Bad data format" for RESTORE).
    Bad,
    /// A valid object with no element (Redis's `RDB_LOAD_ERR_EMPTY_KEY`): `RESTORE`
    /// refuses it as bad data, a file load skips the key.
    Empty,
    /// A module's value (types 6 and 7): no module can be loaded here.
    Module,
    /// A type byte RDB 10 does not have.
    UnknownType(u8),
}

/// A string (any of the RDB string encodings).
pub(super) fn string(r: &mut Reader<'_>) -> Result<Vec<u8>, LoadError> {
    r.string().ok_or(LoadError::Bad)
}
