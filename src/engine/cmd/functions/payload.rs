//! The payload of `FUNCTION DUMP` and `FUNCTION RESTORE`, as Redis 7.0 writes it: for each
//! library the RDB opcode `FUNCTION2` (245) and its code as an RDB string (LZF-compressed
//! when that saves room, as `rdbcompression yes` does), then the RDB version (10) as two
//! little-endian bytes and the CRC-64 (Jones, Redis's `crc64`) of everything before it,
//! little-endian. A payload of either server restores in the other.

use crate::engine::error::Error;
use crate::engine::rdb::prim::{put_string, Reader};
use crate::engine::rdb::{opcode, seal, unseal};

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadError {
    /// The footer's version is newer than 10, or the checksum does not match: RESTORE's
    /// own error ([`Error::DumpPayload`]).
    Footer,
    /// A record could not be read (Redis's message, without `ERR `).
    Record(&'static str),
}

impl From<PayloadError> for Error {
    fn from(e: PayloadError) -> Error {
        match e {
            PayloadError::Footer => Error::DumpPayload,
            PayloadError::Record(m) => Error::Err(m.into()),
        }
    }
}

/// `FUNCTION DUMP`'s payload of the libraries' codes, in order.
pub fn encode(codes: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for code in codes {
        out.push(opcode::FUNCTION2);
        put_string(&mut out, code, true);
    }
    seal(out)
}

/// The libraries' codes of a payload (Redis's `verifyDumpPayload`, then the records as
/// `functionRestoreCommand` reads them; 7.0 release candidates' records are turned into
/// a code with its `#!` line, as Redis does). `check_crc`: see [`unseal`].
pub fn decode(payload: &[u8], check_crc: bool) -> Result<Vec<Vec<u8>>, PayloadError> {
    let body = unseal(payload, check_crc).ok_or(PayloadError::Footer)?;
    let mut r = Reader::new(body);
    let mut codes = Vec::new();
    while !r.at_end() {
        let Some(kind) = r.byte() else {
            return Err(PayloadError::Record("can not read data type"));
        };
        match kind {
            opcode::FUNCTION2 => codes.push(
                r.string()
                    .ok_or(PayloadError::Record("Failed loading library payload"))?,
            ),
            opcode::FUNCTION_PRE_GA => {
                codes.push(old_record(&mut r).map_err(PayloadError::Record)?)
            }
            _ => return Err(PayloadError::Record("given type is not a function")),
        }
    }
    Ok(codes)
}

/// A record of 7.0's release candidates: name, engine, a description flag (and the
/// description), code; read back as `#!<engine> name=<name>\n<code>`.
pub(crate) fn old_record(r: &mut Reader<'_>) -> Result<Vec<u8>, &'static str> {
    let name = r.string().ok_or("Failed loading library name")?;
    let engine = r.string().ok_or("Failed loading engine name")?;
    let has_desc = r
        .length()
        .ok_or("Failed loading library description indicator")?;
    if has_desc != 0 && r.string().is_none() {
        return Err("Failed loading library description");
    }
    let blob = r.string().ok_or("Failed loading library blob")?;
    let mut code = b"#!".to_vec();
    code.extend_from_slice(&engine);
    code.extend_from_slice(b" name=");
    code.extend_from_slice(&name);
    code.push(b'\n');
    code.extend_from_slice(&blob);
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_damage_is_refused() {
        let codes = vec![
            b"#!lua name=a\nredis.register_function('a', function() return 1 end)".to_vec(),
            b"#!lua name=b\nredis.register_function('b', function() return 2 end) -- -- -- -- -- -- -- -- -- --".to_vec(),
            b"#!lua name=c\n".to_vec(),
        ];
        let p = encode(&codes);
        assert_eq!(decode(&p, true), Ok(codes));
        let mut bad = p.clone();
        bad[3] ^= 1;
        assert_eq!(decode(&bad, true), Err(PayloadError::Footer));
        assert_eq!(decode(&p[..9], true), Err(PayloadError::Footer));
        assert_eq!(decode(&encode(&[]), true), Ok(vec![]));
        let wrong = seal(vec![1u8, 0]);
        assert_eq!(
            decode(&wrong, true),
            Err(PayloadError::Record("given type is not a function"))
        );
    }
}
