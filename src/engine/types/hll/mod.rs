//! HyperLogLog, stored in a string, byte for byte as Redis 7.0 stores it.
//!
//! A HyperLogLog is not a type of its own: `PFADD` creates an ordinary string, `TYPE` says
//! `string`, `GET` returns its bytes and `SET` of those bytes (say, copied from a real Redis)
//! gives back a working HyperLogLog. So the representation must be Redis's exactly; this
//! module reads and writes it on a plain `Vec<u8>`.
//!
//! # Layout
//! A 16-byte header, then the registers:
//!
//! ```text
//! +------+---+-----+----------+---------------------------+
//! | HYLL | E | N/U | Cardinal.| registers ...             |
//! +------+---+-----+----------+---------------------------+
//!   4      1   3     8 (little endian)
//! ```
//! `E` is the encoding (0 dense, 1 sparse); the three unused bytes are copied along but never
//! read. The cardinality is a cache: the last `PFCOUNT` result, valid while the top bit of
//! its last byte is clear. Every write that may change the estimate sets that bit.
//!
//! There are 2^14 = 16384 registers (`HLL_P` = 14). An element is hashed with MurmurHash64A
//! (seed `0xadc83b19`); the low 14 bits pick the register, and the register keeps the
//! largest "position of the first set bit" (1..=51) seen among the remaining 50 bits.
//!
//! **Dense**: 16384 registers of 6 bits, packed from the least significant bit of each byte
//! upwards: register `i` starts at bit `6i`, so it occupies bits `6i % 8 ..` of byte
//! `6i / 8` and, if it does not fit, the low bits of the next byte. The string is always
//! exactly 16 + 12288 bytes; Redis rejects a dense value of any other length.
//!
//! **Sparse**: a run-length encoding, for HyperLogLogs with few non-zero registers:
//!
//! * `00xxxxxx` ZERO: 1..=64 registers set to 0;
//! * `01xxxxxx yyyyyyyy` XZERO: 1..=16384 registers set to 0 (14-bit length);
//! * `1vvvvvxx` VAL: 1..=4 registers set to the value 1..=32.
//!
//! The opcodes must cover exactly 16384 registers. A new HyperLogLog is one XZERO opcode
//! (18 bytes). Setting a register splits the opcode that covers it into at most three
//! (`XZERO VAL XZERO`), then merges neighbouring VAL opcodes with equal values; this is done
//! exactly as Redis's `hllSparseSet` does it (same split, same five-opcode merge window), so
//! that the bytes come out identical. The value is *promoted* to dense, for good, when a
//! register needs a value above 32 or when the string would grow beyond
//! `hll-sparse-max-bytes` (3000 by default, header included).
//!
//! # Corrupt values
//! Any string that starts with the header passes the type check ([`check`]), so the sparse
//! walkers meet arbitrary bytes. They never index out of range: a byte read past the end
//! reads as 0 (Redis reads the string's terminating NUL there), and a sparse value whose
//! opcodes do not add up to exactly 16384 registers is [`HllError::Corrupt`] (Redis's
//! `INVALIDOBJ`) wherever all registers are read: counting, merging, turning dense. This
//! is the rule of the reference server, Debian's 7.0.15 with the fix for CVE-2025-32023
//! (upstream 7.0.15 accepted opcodes after the 16384th register in some of those paths).
//! Raising one register only walks to the opcode that covers it, so it succeeds on such
//! a value, as in Redis.
//!
//! One divergence is deliberate. When a value ends with the first byte of an XZERO, Redis
//! reads the second byte past the end of the string: its terminating NUL the first time,
//! but after splitting that opcode, the byte its in-place edit wrote just past the new
//! end. We keep no bytes past the end and always read 0, so such a value (only ever made
//! by hand, or by bit commands on an HLL) gives the same bytes after its first edit and
//! may differ after later ones. Random command streams against redis-server agree
//! otherwise.
//!
//! # Estimate
//! [`count`] uses the estimator of Otmar Ertl ("New cardinality estimation algorithms for
//! HyperLogLog sketches", 2017), as Redis has since 5.0: a histogram of register values fed
//! through the `tau` and `sigma` series, rounded to the nearest integer.

mod edit;
mod estimate;
mod repr;
mod selftest;
mod sparse;
#[cfg(test)]
mod tests;
pub use edit::{add, new_sparse, set_register};
pub use estimate::{count, count_registers};
pub use repr::{
    cached, check, invalidate_cache, murmur64a, pattern, store_cache, Encoding, HllError, NotHll,
};
pub use repr::{DEFAULT_SPARSE_MAX_BYTES, DENSE_LEN, HASH_SEED, HEADER_LEN, HLL_P, REGISTERS};
pub use selftest::{self_test, SelfTestSize};
pub use sparse::{decode_sparse, merge_into, registers, to_dense};
