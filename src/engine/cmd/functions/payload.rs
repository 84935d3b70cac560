//! The payload of `FUNCTION DUMP` and `FUNCTION RESTORE`, as Redis 7.0 writes it: for each
//! library the RDB opcode `FUNCTION2` (245) and its code as an RDB string (LZF-compressed
//! when that saves room, as `rdbcompression yes` does), then the RDB version (10) as two
//! little-endian bytes and the CRC-64 (Jones, Redis's `crc64`) of everything before it,
//! little-endian. A payload of either server restores in the other.

use super::lzf;
use crc::{Crc, NoTable, CRC_64_REDIS};

/// The RDB version the footer carries (Redis 7.0's `RDB_VERSION`).
pub const RDB_VERSION: u16 = 10;
/// A library as Redis 7.0 saves it: its code.
const OPCODE_FUNCTION2: u8 = 245;
/// A library as 7.0's release candidates saved it: name, engine, description, code.
const OPCODE_FUNCTION: u8 = 246;
/// An RDB string's special encodings (the two top bits of its length byte set).
const ENC_INT8: u8 = 0;
const ENC_INT16: u8 = 1;
const ENC_INT32: u8 = 2;
const ENC_LZF: u8 = 3;

/// Bit by bit, with no table: payloads are small, and a 2 KB table would sit in the
/// browser's first load (data cannot be split off with the code).
const CRC64: Crc<u64, NoTable> = Crc::<u64, NoTable>::new(&CRC_64_REDIS);

/// Redis's `crc64(0, bytes)`.
pub fn crc64(bytes: &[u8]) -> u64 {
    CRC64.checksum(bytes)
}

/// Why a payload was refused: the text of Redis's error (without `ERR `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadError {
    /// The footer's version is newer than 10, or the checksum does not match.
    Footer,
    /// A record could not be read (Redis's message).
    Record(&'static str),
}

impl PayloadError {
    /// The error's text, as Redis writes it.
    pub fn text(&self) -> &'static str {
        match self {
            PayloadError::Footer => "DUMP payload version or checksum are wrong",
            PayloadError::Record(m) => m,
        }
    }
}

/// `FUNCTION DUMP`'s payload of the libraries' codes, in order.
pub fn encode(codes: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for code in codes {
        out.push(OPCODE_FUNCTION2);
        put_string(&mut out, code);
    }
    out.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The libraries' codes of a payload (Redis's `verifyDumpPayload`, then the records as
/// `functionRestoreCommand` reads them; 7.0 release candidates' records are turned into
/// a code with its `#!` line, as Redis does).
pub fn decode(payload: &[u8]) -> Result<Vec<Vec<u8>>, PayloadError> {
    if payload.len() < 10 {
        return Err(PayloadError::Footer);
    }
    let (body, footer) = payload.split_at(payload.len() - 10);
    let version = u16::from_le_bytes([footer[0], footer[1]]);
    if version > RDB_VERSION {
        return Err(PayloadError::Footer);
    }
    let mut crc = [0u8; 8];
    crc.copy_from_slice(&footer[2..]);
    if crc64(&payload[..payload.len() - 8]) != u64::from_le_bytes(crc) {
        return Err(PayloadError::Footer);
    }
    let mut r = Reader {
        bytes: body,
        pos: 0,
    };
    let mut codes = Vec::new();
    while r.pos < body.len() {
        let Some(kind) = r.byte() else {
            return Err(PayloadError::Record("can not read data type"));
        };
        match kind {
            OPCODE_FUNCTION2 => codes.push(
                r.string()
                    .ok_or(PayloadError::Record("Failed loading library payload"))?,
            ),
            OPCODE_FUNCTION => codes.push(old_record(&mut r)?),
            _ => return Err(PayloadError::Record("given type is not a function")),
        }
    }
    Ok(codes)
}

/// A record of 7.0's release candidates: name, engine, a description flag (and the
/// description), code; read back as `#!<engine> name=<name>\n<code>`.
fn old_record(r: &mut Reader<'_>) -> Result<Vec<u8>, PayloadError> {
    let name = r
        .string()
        .ok_or(PayloadError::Record("Failed loading library name"))?;
    let engine = r
        .string()
        .ok_or(PayloadError::Record("Failed loading engine name"))?;
    let has_desc = r.len().ok_or(PayloadError::Record(
        "Failed loading library description indicator",
    ))?;
    if has_desc != 0 && r.string().is_none() {
        return Err(PayloadError::Record("Failed loading library description"));
    }
    let blob = r
        .string()
        .ok_or(PayloadError::Record("Failed loading library blob"))?;
    let mut code = b"#!".to_vec();
    code.extend_from_slice(&engine);
    code.extend_from_slice(b" name=");
    code.extend_from_slice(&name);
    code.push(b'\n');
    code.extend_from_slice(&blob);
    Ok(code)
}

/// Redis's `rdbSaveLen`.
fn put_len(out: &mut Vec<u8>, len: u64) {
    if len < 1 << 6 {
        out.push(len as u8);
    } else if len < 1 << 14 {
        out.push(0x40 | (len >> 8) as u8);
        out.push(len as u8);
    } else if len <= u32::MAX as u64 {
        out.push(0x80);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// Redis's `rdbSaveRawString` with compression on: a string of more than 20 bytes is
/// stored LZF-compressed when that saves at least 4 bytes (a library's code starts with
/// `#!`, so the integer encodings never apply).
fn put_string(out: &mut Vec<u8>, s: &[u8]) {
    if s.len() > 20 {
        if let Some(packed) = lzf::compress(s, s.len() - 4) {
            out.push(0xc0 | ENC_LZF);
            put_len(out, packed.len() as u64);
            put_len(out, s.len() as u64);
            out.extend_from_slice(&packed);
            return;
        }
    }
    put_len(out, s.len() as u64);
    out.extend_from_slice(s);
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// What an RDB length field holds.
enum Len {
    Plain(u64),
    Encoded(u8),
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    /// Redis's `rdbLoadLenByRef`.
    fn len_or_encoding(&mut self) -> Option<Len> {
        let b = self.byte()?;
        Some(match b >> 6 {
            0 => Len::Plain((b & 0x3f) as u64),
            1 => Len::Plain((((b & 0x3f) as u64) << 8) | self.byte()? as u64),
            3 => Len::Encoded(b & 0x3f),
            _ if b == 0x80 => Len::Plain(u32::from_be_bytes(self.take(4)?.try_into().ok()?) as u64),
            _ if b == 0x81 => Len::Plain(u64::from_be_bytes(self.take(8)?.try_into().ok()?)),
            _ => return None,
        })
    }

    fn len(&mut self) -> Option<u64> {
        match self.len_or_encoding()? {
            Len::Plain(n) => Some(n),
            Len::Encoded(_) => None,
        }
    }

    /// Redis's `rdbGenericLoadStringObject`.
    fn string(&mut self) -> Option<Vec<u8>> {
        match self.len_or_encoding()? {
            Len::Plain(n) => Some(self.take(usize::try_from(n).ok()?)?.to_vec()),
            Len::Encoded(ENC_INT8) => Some((self.byte()? as i8).to_string().into_bytes()),
            Len::Encoded(ENC_INT16) => {
                let v = i16::from_le_bytes(self.take(2)?.try_into().ok()?);
                Some(v.to_string().into_bytes())
            }
            Len::Encoded(ENC_INT32) => {
                let v = i32::from_le_bytes(self.take(4)?.try_into().ok()?);
                Some(v.to_string().into_bytes())
            }
            Len::Encoded(ENC_LZF) => {
                let clen = usize::try_from(self.len()?).ok()?;
                let len = usize::try_from(self.len()?).ok()?;
                let packed = self.take(clen)?;
                // Never trust a length more than LZF can expand the input to.
                if len == 0 || len > packed.len().saturating_mul(256) {
                    return None;
                }
                lzf::decompress(packed, len)
            }
            Len::Encoded(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_is_redis_jones() {
        // Redis's crc64.c test vector.
        assert_eq!(crc64(b"123456789"), 0xe9c6d914c4b8d9ca);
    }

    #[test]
    fn lengths_round_trip() {
        for n in [
            0u64,
            63,
            64,
            16383,
            16384,
            u32::MAX as u64,
            u32::MAX as u64 + 1,
        ] {
            let mut out = Vec::new();
            put_len(&mut out, n);
            let mut r = Reader {
                bytes: &out,
                pos: 0,
            };
            assert_eq!(r.len(), Some(n));
            assert_eq!(r.pos, out.len());
        }
    }

    #[test]
    fn payloads_round_trip_and_damage_is_refused() {
        let codes = vec![
            b"#!lua name=a\nredis.register_function('a', function() return 1 end)".to_vec(),
            b"#!lua name=b\nredis.register_function('b', function() return 2 end) -- -- -- -- -- -- -- -- -- --".to_vec(),
            b"#!lua name=c\n".to_vec(),
        ];
        let p = encode(&codes);
        assert_eq!(decode(&p), Ok(codes));
        let mut bad = p.clone();
        bad[3] ^= 1;
        assert_eq!(decode(&bad), Err(PayloadError::Footer));
        assert_eq!(decode(&p[..9]), Err(PayloadError::Footer));
        assert_eq!(decode(&encode(&[])), Ok(vec![]));
        let mut wrong = vec![1u8, 0];
        wrong.extend_from_slice(&RDB_VERSION.to_le_bytes());
        let crc = crc64(&wrong);
        wrong.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(
            decode(&wrong),
            Err(PayloadError::Record("given type is not a function"))
        );
    }
}
