//! Reading values as Redis's `rdbLoadObject` does, for every type byte of RDB versions 1
//! to 10: the type byte, then the object, checked as it is read, so that a damaged
//! payload is refused whole.
//!
//! # What a value becomes
//! Each value gets the encoding Redis 7.0.15 gives it after loading (what `OBJECT
//! ENCODING` says after `RESTORE`), from the limits in [`LoadOptions`]:
//!
//! * strings: `int`, `embstr` or `raw`, from the bytes, as `tryObjectEncoding`;
//! * lists, of every type byte: `quicklist` (7.0 has no other list encoding);
//! * sets: an intset blob stays `intset` unless it holds more than
//!   `set-max-intset-entries` integers; a plain set (type 2) is `hashtable` from the start
//!   when its count is above that limit, else `intset` until a member is not an integer;
//! * sorted sets: listpack and ziplist blobs stay `listpack` unless they hold more than
//!   `zset-max-listpack-entries` members (their members' lengths are not looked at, as in
//!   Redis); a plain sorted set (types 3 and 5) is built as a `skiplist` and becomes a
//!   `listpack` when it is within both limits;
//! * hashes: listpack, ziplist and zipmap blobs stay `listpack` unless they hold more than
//!   `hash-max-listpack-entries` fields (a zipmap also converts for a long field or
//!   value); a plain hash (type 4) is `hashtable` from the start above that count, and
//!   converts at its first field or value longer than `hash-max-listpack-value`.
//!
//! Our sorted sets and sets keep Redis's default limits as fixed bounds of their small
//! encodings (128 members of at most 64 bytes, 512 integers; see [`ZSet`] and
//! [`SetValue`]): under a configuration that raises those limits, a value beyond the
//! defaults is loaded in the large encoding, and so is a listpack blob holding a member
//! longer than 64 bytes (which Redis, not looking at lengths, keeps as a listpack; only a
//! server whose `zset-max-listpack-value` was raised writes one).
//!
//! # What is refused
//! Everything Redis refuses: lengths that run past the bytes, damaged blobs, NaN scores,
//! duplicate members, fields or stream IDs, and objects that hold no element (an empty
//! key: [`LoadError::Empty`]). Redis checks a blob's entries only with
//! `sanitize-dump-payload yes` and otherwise keeps it unchecked; we rebuild every blob into
//! our own structures, so we always check it as deeply as Redis's sanitizer does (see
//! [`super::unpack`]) and also refuse, whatever that setting, what Redis would keep without
//! checking but could only misbehave on later: a blob with duplicates, an intset out of
//! order, a stream whose length or consumers disagree with its entries.

use super::kind;
use super::prim::Reader;
use super::unpack::{self, Elem};
use crate::engine::num::{c_bytes, strtod};
use crate::engine::types::hash::HashLimits;
use crate::engine::types::list::End;
use crate::engine::types::set::MAX_INTSET_ENTRIES;
use crate::engine::types::zset::{AddOutcome, MAX_LISTPACK_ENTRIES, MAX_LISTPACK_VALUE};
use crate::engine::types::{HashValue, ListValue, SetValue, StrValue, Value, ZSet};
use crate::engine::Config;

mod error;
mod stream;

use error::string;
pub use error::LoadError;

/// What changes how a value is read: the encoding limits of the configuration in force
/// (Redis converts a loaded value that exceeds them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// `hash-max-listpack-entries` and `hash-max-listpack-value`.
    pub hash: HashLimits,
    /// `set-max-intset-entries`.
    pub set_max_intset_entries: usize,
    /// `zset-max-listpack-entries`.
    pub zset_max_listpack_entries: usize,
    /// `zset-max-listpack-value`.
    pub zset_max_listpack_value: usize,
}

impl Default for LoadOptions {
    /// Redis's defaults (redis-server started without a configuration file).
    fn default() -> LoadOptions {
        LoadOptions {
            hash: HashLimits::default(),
            set_max_intset_entries: MAX_INTSET_ENTRIES,
            zset_max_listpack_entries: MAX_LISTPACK_ENTRIES,
            zset_max_listpack_value: MAX_LISTPACK_VALUE,
        }
    }
}

impl LoadOptions {
    /// The limits `config` sets.
    pub fn from_config(config: &Config) -> LoadOptions {
        LoadOptions {
            hash: HashLimits {
                max_listpack_entries: config.hash_max_listpack_entries(),
                max_listpack_value: config.hash_max_listpack_value(),
            },
            set_max_intset_entries: config.set_max_intset_entries(),
            zset_max_listpack_entries: config.zset_max_listpack_entries(),
            zset_max_listpack_value: config.zset_max_listpack_value(),
        }
    }
}

/// The most bytes Redis lets a listpack grow to (`LISTPACK_MAX_SAFETY_SIZE`): a loaded
/// hash or sorted set whose strings add up to more is refused (a zipmap) or kept large.
const LISTPACK_MAX_SAFETY_SIZE: usize = 1 << 30;

/// A quicklist node holding one large element as it is (`QUICKLIST_NODE_CONTAINER_PLAIN`).
const CONTAINER_PLAIN: u64 = 1;
/// A quicklist node holding a listpack (`QUICKLIST_NODE_CONTAINER_PACKED`).
const CONTAINER_PACKED: u64 = 2;

/// Reads one object of type `type_byte` (already read) from `r`.
///
/// # Errors
/// [`LoadError`]: damaged or inconsistent bytes, an empty object, a module value or an
/// unknown type byte. Nothing is returned half-built.
pub fn read_value(
    r: &mut Reader<'_>,
    type_byte: u8,
    opts: &LoadOptions,
) -> Result<Value, LoadError> {
    let value = match type_byte {
        kind::STRING => Value::Str(StrValue::new(string(r)?)),
        kind::LIST => {
            let n = r.count(1).ok_or(LoadError::Bad)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(string(r)?);
            }
            Value::List(items.into_iter().collect())
        }
        kind::SET => read_set(r, opts)?,
        kind::ZSET | kind::ZSET_2 => read_zset(r, type_byte == kind::ZSET_2, opts)?,
        kind::HASH => read_hash(r, opts)?,
        kind::LIST_QUICKLIST | kind::LIST_QUICKLIST_2 => {
            read_quicklist(r, type_byte == kind::LIST_QUICKLIST_2)?
        }
        kind::HASH_ZIPMAP => {
            let blob = string(r)?;
            let pairs = unpack::zipmap(&blob).ok_or(LoadError::Bad)?;
            let total = pairs.iter().map(|(f, v)| f.len() + v.len()).sum::<usize>();
            if total > LISTPACK_MAX_SAFETY_SIZE {
                return Err(LoadError::Bad);
            }
            let longest = pairs.iter().map(|(f, v)| f.len().max(v.len())).max();
            let big = pairs.len() > opts.hash.max_listpack_entries
                || longest.unwrap_or(0) > opts.hash.max_listpack_value;
            let pairs = pairs.into_iter().map(|(f, v)| (f.to_vec(), v.to_vec()));
            Value::Hash(hash_of_pairs(pairs, big)?)
        }
        kind::LIST_ZIPLIST => {
            let blob = string(r)?;
            let elems = unpack::ziplist(&blob).ok_or(LoadError::Bad)?;
            Value::List(elems.into_iter().map(Elem::to_vec).collect())
        }
        kind::SET_INTSET => {
            let blob = string(r)?;
            let ints = unpack::intset(&blob).ok_or(LoadError::Bad)?;
            let stays = ints.len() <= opts.set_max_intset_entries.min(MAX_INTSET_ENTRIES);
            let members = ints.into_iter().map(|v| v.to_string().into_bytes());
            Value::Set(if stays {
                members.collect()
            } else {
                SetValue::hashtable(members)
            })
        }
        kind::ZSET_ZIPLIST | kind::ZSET_LISTPACK => {
            let blob = string(r)?;
            let elems = if type_byte == kind::ZSET_ZIPLIST {
                unpack::ziplist(&blob)
            } else {
                unpack::listpack(&blob)
            };
            zset_of_pairs(&elems.ok_or(LoadError::Bad)?, opts)?
        }
        kind::HASH_ZIPLIST | kind::HASH_LISTPACK => {
            let blob = string(r)?;
            let elems = if type_byte == kind::HASH_ZIPLIST {
                unpack::ziplist(&blob)
            } else {
                unpack::listpack(&blob)
            };
            let elems = elems.ok_or(LoadError::Bad)?;
            if elems.len() % 2 != 0 {
                return Err(LoadError::Bad);
            }
            let big = elems.len() / 2 > opts.hash.max_listpack_entries;
            let pairs = elems
                .chunks_exact(2)
                .map(|p| (p[0].to_vec(), p[1].to_vec()));
            Value::Hash(hash_of_pairs(pairs, big)?)
        }
        kind::STREAM_LISTPACKS | kind::STREAM_LISTPACKS_2 => {
            stream::read_stream(r, type_byte == kind::STREAM_LISTPACKS_2)?
        }
        kind::MODULE_PRE_GA | kind::MODULE_2 => return Err(LoadError::Module),
        other => return Err(LoadError::UnknownType(other)),
    };
    if value.is_empty_collection() {
        return Err(LoadError::Empty);
    }
    Ok(value)
}

/// Type 2: a count, then the members.
fn read_set(r: &mut Reader<'_>, opts: &LoadOptions) -> Result<Value, LoadError> {
    let n = r.count(1).ok_or(LoadError::Bad)?;
    let max = opts.set_max_intset_entries.min(1 << 30);
    let mut members = Vec::new();
    for _ in 0..n {
        members.push(string(r)?);
    }
    let set = if n > max {
        SetValue::hashtable(members)
    } else {
        let mut s = SetValue::new();
        for m in members {
            if !s.insert(m) {
                return Err(LoadError::Bad);
            }
        }
        s
    };
    if set.len() != n {
        return Err(LoadError::Bad);
    }
    Ok(Value::Set(set))
}

/// Redis's `rdbLoadDoubleValue` (sorted sets of RDB 1–7): a length byte (253 NaN, 254
/// +inf, 255 -inf) and that many bytes of text, read as `sscanf("%lg")`.
fn ascii_double(r: &mut Reader<'_>) -> Result<f64, LoadError> {
    let len = r.byte().ok_or(LoadError::Bad)?;
    Ok(match len {
        255 => f64::NEG_INFINITY,
        254 => f64::INFINITY,
        253 => f64::NAN,
        n => {
            let text = r.take(usize::from(n)).ok_or(LoadError::Bad)?;
            let parsed = strtod(c_bytes(text));
            if parsed.consumed == 0 {
                return Err(LoadError::Bad);
            }
            parsed.value
        }
    })
}

/// Types 3 and 5: a count, then members and scores (text or little-endian binary).
fn read_zset(r: &mut Reader<'_>, binary: bool, opts: &LoadOptions) -> Result<Value, LoadError> {
    let n = r.count(if binary { 9 } else { 2 }).ok_or(LoadError::Bad)?;
    let mut z = ZSet::new_skiplist();
    let (mut longest, mut total) = (0usize, 0usize);
    for _ in 0..n {
        let member = string(r)?;
        let score = if binary {
            f64::from_le_bytes(r.array().ok_or(LoadError::Bad)?)
        } else {
            ascii_double(r)?
        };
        if score.is_nan() {
            return Err(LoadError::Bad);
        }
        longest = longest.max(member.len());
        total = total.saturating_add(member.len());
        if z.add(&member, score) != AddOutcome::Added {
            return Err(LoadError::Bad);
        }
    }
    if z.len() <= opts.zset_max_listpack_entries
        && longest <= opts.zset_max_listpack_value
        && total <= LISTPACK_MAX_SAFETY_SIZE
    {
        z.shrink_encoding_if_small();
    }
    Ok(Value::ZSet(z))
}

/// A score as Redis reads it from a listpack or ziplist entry (`zzlGetScore`): an integer
/// entry as is, a string through `strtod` of at most its first 127 bytes.
fn elem_score(e: Elem<'_>) -> f64 {
    match e {
        Elem::Int(v) => v as f64,
        Elem::Str(s) => strtod(c_bytes(&s[..s.len().min(127)])).value,
    }
}

/// A ziplist's or listpack's member, score, member, score… as a sorted set: `listpack`
/// unless more than `zset-max-listpack-entries` members.
fn zset_of_pairs(elems: &[Elem<'_>], opts: &LoadOptions) -> Result<Value, LoadError> {
    if elems.len() % 2 != 0 {
        return Err(LoadError::Bad);
    }
    let n = elems.len() / 2;
    let mut z = if n > opts.zset_max_listpack_entries {
        ZSet::new_skiplist()
    } else {
        ZSet::new()
    };
    for pair in elems.chunks_exact(2) {
        let score = elem_score(pair[1]);
        if score.is_nan() {
            return Err(LoadError::Bad);
        }
        if z.add(&pair[0].to_vec(), score) != AddOutcome::Added {
            return Err(LoadError::Bad);
        }
    }
    Ok(Value::ZSet(z))
}

/// Fields and values in order, as a hash table if `big`, else as a listpack hash; a
/// repeated field is refused.
fn hash_of_pairs(
    pairs: impl Iterator<Item = (Vec<u8>, Vec<u8>)>,
    big: bool,
) -> Result<HashValue, LoadError> {
    match HashValue::from_pairs(pairs, big) {
        (h, false) => Ok(h),
        (_, true) => Err(LoadError::Bad),
    }
}

/// Type 4: a count, then fields and values.
fn read_hash(r: &mut Reader<'_>, opts: &LoadOptions) -> Result<Value, LoadError> {
    let n = r.count(2).ok_or(LoadError::Bad)?;
    let mut big = n > opts.hash.max_listpack_entries;
    let mut total = 0usize;
    let mut pairs = Vec::new();
    for _ in 0..n {
        let f = string(r)?;
        let v = string(r)?;
        total = total.saturating_add(f.len() + v.len());
        if f.len() > opts.hash.max_listpack_value
            || v.len() > opts.hash.max_listpack_value
            || total > LISTPACK_MAX_SAFETY_SIZE
        {
            big = true;
        }
        pairs.push((f, v));
    }
    Ok(Value::Hash(hash_of_pairs(pairs.into_iter(), big)?))
}

/// Types 14 and 18: a count of nodes, each a ziplist (14) or, tagged plain or packed, one
/// element or a listpack (18). Empty blobs are skipped, as Redis skips them.
fn read_quicklist(r: &mut Reader<'_>, tagged: bool) -> Result<Value, LoadError> {
    let n = r.count(2).ok_or(LoadError::Bad)?;
    let mut list = ListValue::new();
    for _ in 0..n {
        let container = if tagged {
            r.length().ok_or(LoadError::Bad)?
        } else {
            CONTAINER_PACKED
        };
        if container != CONTAINER_PLAIN && container != CONTAINER_PACKED {
            return Err(LoadError::Bad);
        }
        let blob = string(r)?;
        if blob.is_empty() {
            return Err(LoadError::Bad);
        }
        if container == CONTAINER_PLAIN {
            list.push(End::Right, blob);
            continue;
        }
        let elems = if tagged {
            unpack::listpack(&blob)
        } else {
            unpack::ziplist(&blob)
        };
        list.extend(elems.ok_or(LoadError::Bad)?.into_iter().map(Elem::to_vec));
    }
    Ok(Value::List(list))
}

#[cfg(test)]
mod tests;
