//! Writing values as Redis 7.0 saves them (`rdbSaveObjectType` + `rdbSaveObject`): the
//! type byte Redis would choose for the value's encoding, then the object.

use super::kind;
use super::prim::put_string;
use crate::engine::types::Value;

/// What changes how a value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveOptions {
    /// `rdbcompression`: LZF-compress strings of more than 20 bytes where that pays.
    pub compress: bool,
}

impl Default for SaveOptions {
    fn default() -> SaveOptions {
        SaveOptions { compress: true }
    }
}

/// Appends `value`'s type byte and its object.
pub fn write_value(out: &mut Vec<u8>, value: &Value, opts: &SaveOptions) {
    match value {
        Value::Str(s) => {
            out.push(kind::STRING);
            put_string(out, &s.bytes, opts.compress);
        }
        // The other types come with DUMP (issue 21).
        _ => unimplemented_type(out, value, opts),
    }
}

fn unimplemented_type(_out: &mut Vec<u8>, _value: &Value, _opts: &SaveOptions) {}
