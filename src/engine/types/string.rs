//! Strings.
//!
//! A string is a byte vector. Redis 7.0 stores it in one of three encodings, and `OBJECT
//! ENCODING` shows which, so we track enough to answer the same way. Which encoding Redis
//! picks depends on the command that stored the value, not only on the bytes:
//!
//! * commands that store an argument as given (SET, SETEX, PSETEX, SETNX, GETSET, MSET,
//!   MSETNX, APPEND on a missing key) call `tryObjectEncoding`: the canonical decimal text
//!   of an `i64` (at most 20 bytes) becomes `int`, anything else up to 44 bytes `embstr`,
//!   longer values `raw` ([`StrValue::new`]);
//! * INCR, DECR, INCRBY and DECRBY store an integer, so their results are always `int`
//!   ([`StrValue::from_i64`], the same as [`StrValue::new`] of its canonical text);
//! * INCRBYFLOAT builds its result with `createStringObject`, which never tries the integer
//!   form: `embstr` up to 44 bytes, else `raw`, even for `"11"` ([`StrValue::plain`]);
//! * APPEND to an existing key, SETRANGE and the bit commands edit the bytes in place, which
//!   Redis only does on a `raw` copy, so the value stays `raw` from then on
//!   ([`StrValue::raw`], or [`StrValue::edit`]).
//!
//! # Representation
//!
//! A `StrValue` is 24 bytes, and a short one needs no allocation of its own, which matters
//! for memory per key (a million `key:N` → 10-byte values):
//!
//! * a value that is not `raw` and has at most [`INLINE_CAP`] bytes is stored inline, with
//!   its length and `plain` flag in one byte;
//! * a longer value that is not `raw` is an exact-size boxed slice (a value stored as
//!   given is not edited, so it needs no spare capacity);
//! * a `raw` value is a boxed growable vector with the room Redis's sds would have
//!   ([`StrValue::sds_alloc`]). Once `raw`, `plain` no longer matters (the encoding is
//!   `raw` either way) and is not kept.
//!
//! The choice is canonical (construction normalises), so two equal values have the same
//! representation. The enum's tag is the first byte and has values to spare, so an enum
//! holding a `StrValue` can keep its own tag there (`Value` stays as small as its other
//! variants allow).
//!
//! Invariant: the length never exceeds `proto-max-bulk-len` (512 MB by default); the
//! commands that grow a string check before they grow it.

use crate::engine::args::parse_i64;
use std::fmt;

/// Longest string Redis keeps in the `embstr` encoding (`OBJ_ENCODING_EMBSTR_SIZE_LIMIT`).
pub const EMBSTR_SIZE_LIMIT: usize = 44;

/// Longest string stored inline, without an allocation of its own.
pub const INLINE_CAP: usize = 22;

/// The `plain` flag in the inline meta byte (the length is in the low 5 bits).
const INLINE_PLAIN: u8 = 0x20;
const INLINE_LEN: u8 = 0x1f;

/// A string value. See the module docs for its encodings and representation.
#[derive(Clone)]
pub struct StrValue(Repr);

#[derive(Clone)]
enum Repr {
    /// Not `raw`, at most [`INLINE_CAP`] bytes: the meta byte holds the length (low 5
    /// bits) and [`INLINE_PLAIN`].
    Inline(u8, [u8; INLINE_CAP]),
    /// Not `raw`, longer than [`INLINE_CAP`]: exact-size bytes. The flag is `plain`.
    Exact(bool, Box<[u8]>),
    /// `raw`: edited in place or created so.
    Edited(Box<Edited>),
}

#[derive(Clone)]
struct Edited {
    bytes: Vec<u8>,
    /// See [`StrValue::sds_alloc`].
    sds_alloc: u32,
}

impl Default for StrValue {
    /// The empty string, as SET stores it.
    fn default() -> StrValue {
        StrValue(Repr::Inline(0, [0; INLINE_CAP]))
    }
}

impl fmt::Debug for StrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StrValue")
            .field("bytes", &self.as_bytes())
            .field("raw", &self.is_raw())
            .field("plain", &self.is_plain())
            .field("sds_alloc", &self.sds_alloc())
            .finish()
    }
}

impl PartialEq for StrValue {
    /// Bytes and encoding flags; the sds room is not compared.
    fn eq(&self, other: &StrValue) -> bool {
        self.as_bytes() == other.as_bytes()
            && self.is_raw() == other.is_raw()
            && self.is_plain() == other.is_plain()
    }
}

impl Eq for StrValue {}

impl AsRef<[u8]> for StrValue {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl StrValue {
    /// A string stored as SET stores it (`tryObjectEncoding`): `int`, `embstr` or `raw`
    /// depending on the bytes.
    pub fn new(bytes: Vec<u8>) -> StrValue {
        StrValue::stored(bytes, false)
    }

    /// [`StrValue::new`] of a copy of `bytes`, copying only once (inline when short).
    pub fn from_slice(bytes: &[u8]) -> StrValue {
        match inline(bytes, false) {
            Some(r) => StrValue(r),
            None => StrValue(Repr::Exact(false, bytes.into())),
        }
    }

    /// The result of INCR and the like: the canonical text of `n`, `int` encoded.
    pub fn from_i64(n: i64) -> StrValue {
        StrValue::from_slice(itoa::Buffer::new().format(n).as_bytes())
    }

    /// A string built by `createStringObject`: `embstr` up to 44 bytes, else `raw`, never
    /// `int` (the results of INCRBYFLOAT).
    pub fn plain(bytes: Vec<u8>) -> StrValue {
        StrValue::stored(bytes, true)
    }

    /// A string that is `raw` whatever its bytes (created or edited in place).
    pub fn raw(bytes: Vec<u8>) -> StrValue {
        StrValue(Repr::Edited(Box::new(Edited {
            bytes,
            sds_alloc: 0,
        })))
    }

    /// Not `raw`: inline when short, else the vector shrunk to an exact-size box.
    fn stored(bytes: Vec<u8>, plain: bool) -> StrValue {
        match inline(&bytes, plain) {
            Some(r) => StrValue(r),
            None => StrValue(Repr::Exact(plain, bytes.into_boxed_slice())),
        }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline(meta, buf) => &buf[..usize::from(meta & INLINE_LEN)],
            Repr::Exact(_, b) => b,
            Repr::Edited(e) => &e.bytes,
        }
    }

    /// The bytes, as a vector (no copy unless the value is inline).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::Inline(meta, buf) => buf[..usize::from(meta & INLINE_LEN)].to_vec(),
            Repr::Exact(_, b) => b.into_vec(),
            Repr::Edited(e) => e.bytes,
        }
    }

    /// True once the value was modified in place (or created so), which makes Redis use
    /// the `raw` encoding.
    pub fn is_raw(&self) -> bool {
        matches!(self.0, Repr::Edited(_))
    }

    /// True when the value was stored without trying the `int` encoding (INCRBYFLOAT) and
    /// is not `raw` since.
    pub fn is_plain(&self) -> bool {
        match &self.0 {
            Repr::Inline(meta, _) => meta & INLINE_PLAIN != 0,
            Repr::Exact(plain, _) => *plain,
            Repr::Edited(_) => false,
        }
    }

    /// The room Redis's sds would have for this string after edits in place (its `alloc`:
    /// `sdsMakeRoomFor` doubles what it needs below 1 MB), 0 while it is allocated exactly.
    /// Only `MEMORY USAGE` reads it; it is not compared, and is not saved, as Redis's own
    /// strings come back exact from an RDB file.
    pub fn sds_alloc(&self) -> u32 {
        match &self.0 {
            Repr::Edited(e) => e.sds_alloc,
            _ => 0,
        }
    }

    /// The bytes, for an edit in place: the value is `raw` from now on. Call
    /// [`StrValue::edited`] after a change of length.
    pub fn edit(&mut self) -> &mut Vec<u8> {
        if !self.is_raw() {
            let bytes = std::mem::take(self).into_vec();
            *self = StrValue::raw(bytes);
        }
        match &mut self.0 {
            Repr::Edited(e) => &mut e.bytes,
            _ => unreachable!("made raw above"),
        }
    }

    /// Records an edit in place that took the string from `old_len` to `len()` bytes:
    /// the value is `raw` from now on, and Redis's sds grows as `sdsMakeRoomFor` grows it
    /// when it has no room for the new length (below 1 MB twice the length, else 1 MB
    /// more, then the allocator's whole size class); a string allocated exactly has room
    /// for its old length only.
    pub fn edited(&mut self, old_len: usize) {
        let len = self.edit().len();
        let Repr::Edited(e) = &mut self.0 else {
            unreachable!("made raw above");
        };
        let have = if e.sds_alloc == 0 {
            old_len
        } else {
            e.sds_alloc as usize
        };
        if len <= have {
            return;
        }
        let want = if len < 1 << 20 {
            len * 2
        } else {
            len + (1 << 20)
        };
        let header = crate::engine::alloc::sds_header(want).max(3);
        let usable = crate::engine::alloc::jemalloc_size(header + want as u64 + 1) - header - 1;
        e.sds_alloc = u32::try_from(usable).unwrap_or(u32::MAX);
    }

    /// The `OBJECT ENCODING` name.
    pub fn encoding(&self) -> &'static str {
        let bytes = self.as_bytes();
        if self.is_raw() {
            "raw"
        } else if !self.is_plain() && bytes.len() <= 20 && parse_i64(bytes).is_some() {
            "int"
        } else if bytes.len() <= EMBSTR_SIZE_LIMIT {
            "embstr"
        } else {
            "raw"
        }
    }

    /// The value as Redis's `getLongLongFromObject` reads it: the whole string must be a
    /// canonical decimal `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        parse_i64(self.as_bytes())
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Inline(meta, _) => usize::from(meta & INLINE_LEN),
            Repr::Exact(_, b) => b.len(),
            Repr::Edited(e) => e.bytes.len(),
        }
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `bytes` inline, if short enough.
fn inline(bytes: &[u8], plain: bool) -> Option<Repr> {
    if bytes.len() > INLINE_CAP {
        return None;
    }
    let mut buf = [0u8; INLINE_CAP];
    buf[..bytes.len()].copy_from_slice(bytes);
    let flag = if plain { INLINE_PLAIN } else { 0 };
    Some(Repr::Inline(bytes.len() as u8 | flag, buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_follow_the_storing_command() {
        assert_eq!(StrValue::new(b"12".to_vec()).encoding(), "int");
        assert_eq!(
            StrValue::new(b"-9223372036854775808".to_vec()).encoding(),
            "int"
        );
        assert_eq!(
            StrValue::new(b"9223372036854775808".to_vec()).encoding(),
            "embstr"
        );
        assert_eq!(StrValue::new(b"012".to_vec()).encoding(), "embstr");
        assert_eq!(StrValue::new(vec![b'a'; 44]).encoding(), "embstr");
        assert_eq!(StrValue::new(vec![b'a'; 45]).encoding(), "raw");
        assert_eq!(StrValue::plain(b"11".to_vec()).encoding(), "embstr");
        assert_eq!(StrValue::plain(vec![b'1'; 30]).encoding(), "embstr");
        assert_eq!(StrValue::plain(vec![b'1'; 45]).encoding(), "raw");
        assert_eq!(StrValue::raw(b"1".to_vec()).encoding(), "raw");
        assert_eq!(StrValue::default().encoding(), "embstr");
    }

    #[test]
    fn is_24_bytes_and_lends_its_tag_as_a_niche() {
        assert_eq!(std::mem::size_of::<StrValue>(), 24);
        assert_eq!(std::mem::size_of::<Option<StrValue>>(), 24);
        // An enum of a StrValue and 16-byte variants keeps its tag in StrValue's.
        #[allow(dead_code)]
        enum Toy {
            S(StrValue),
            B(Box<u8>),
            C(Box<[u8]>),
        }
        assert_eq!(std::mem::size_of::<Toy>(), 24);
    }

    #[test]
    fn short_values_are_inline_and_keep_their_flags() {
        for len in [0, 1, 21, 22, 23, 44, 45, 100] {
            let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            for s in [
                StrValue::new(bytes.clone()),
                StrValue::from_slice(&bytes),
                StrValue::plain(bytes.clone()),
                StrValue::raw(bytes.clone()),
            ] {
                assert_eq!(s.as_bytes(), &bytes[..]);
                assert_eq!(s.len(), len);
                assert_eq!(s.is_empty(), len == 0);
                assert_eq!(s.sds_alloc(), 0);
                assert_eq!(matches!(s.0, Repr::Inline(..)), !s.is_raw() && len <= 22);
                assert_eq!(s.clone(), s);
                assert_eq!(s.clone().into_vec(), bytes);
            }
            assert!(StrValue::plain(bytes.clone()).is_plain());
            assert!(!StrValue::new(bytes.clone()).is_plain());
            assert!(StrValue::raw(bytes.clone()).is_raw());
            assert_ne!(StrValue::new(bytes.clone()), StrValue::plain(bytes.clone()));
            assert_ne!(StrValue::new(bytes.clone()), StrValue::raw(bytes.clone()));
            assert_eq!(StrValue::new(bytes.clone()), StrValue::from_slice(&bytes));
        }
        assert_eq!(StrValue::default(), StrValue::new(Vec::new()));
    }

    #[test]
    fn from_i64_is_the_canonical_text() {
        for n in [0, 1, -1, 9, 10, -10, 12345, i64::MAX, i64::MIN] {
            let s = StrValue::from_i64(n);
            assert_eq!(s, StrValue::new(n.to_string().into_bytes()));
            assert_eq!(s.as_i64(), Some(n));
            assert_eq!(s.encoding(), "int");
        }
    }

    #[test]
    fn edits_make_the_value_raw_and_track_sds_room() {
        let mut s = StrValue::new(b"12".to_vec());
        s.edit().extend_from_slice(b"3");
        s.edited(2);
        assert!(s.is_raw());
        assert_eq!(s.as_bytes(), b"123");
        assert_eq!(s.encoding(), "raw");
        // Room for twice the new length, rounded up to jemalloc's size class, minus the
        // sds header and terminator.
        assert_eq!(s.sds_alloc(), 16 - 3 - 1);
        let room = s.sds_alloc();
        s.edit().push(b'4');
        s.edited(3);
        assert_eq!(s.sds_alloc(), room, "fits in the room it has");
        // Equality ignores the room.
        assert_eq!(s, StrValue::raw(b"1234".to_vec()));
        // A plain value loses `plain` once raw: the encoding is `raw` either way.
        let mut p = StrValue::plain(vec![b'x'; 30]);
        p.edit();
        assert!(p.is_raw() && !p.is_plain());
        assert_eq!(p, StrValue::raw(vec![b'x'; 30]));
        // Marking raw without a change of length keeps the value exact.
        let mut q = StrValue::new(b"ab".to_vec());
        q.edit()[0] = b'z';
        assert_eq!(q.sds_alloc(), 0);
        assert_eq!(q, StrValue::raw(b"zb".to_vec()));
    }
}
