//! Streams (types 15 and 19), as Redis's `rdbLoadObject` reads them: the listpack nodes
//! keyed by their master ID, the length and last ID, (type 19) the first ID, the largest
//! deleted ID and the count of entries ever added, then the consumer groups, each with its
//! last delivered ID, (type 19) its read counter, its pending entries and its consumers.
//!
//! A node's listpack holds its master entry (live count, deleted count, the master
//! fields, a 0), then each entry: flags (1 deleted, 2 same fields as the master), the ID
//! as a difference from the master ID, then either the values (flag 2) or a count and
//! each field followed by its value, and last the count of elements the entry took. Every count is
//! checked, as Redis's deep `streamValidateListpackIntegrity` checks it, and the stream
//! built must hold together (the live counts, the declared length and each entry's node
//! agree; every pending entry has exactly one consumer).

use super::error::{string, LoadError};
use crate::engine::rdb::prim::Reader;
use crate::engine::rdb::unpack::{self, Elem};
use crate::engine::types::stream::load::LoadedEntry;
use crate::engine::types::stream::{Consumer, Group, Nack, Stream, StreamId};
use crate::engine::types::Value;

/// Entry flag: deleted (`STREAM_ITEM_FLAG_DELETED`).
const FLAG_DELETED: i64 = 1;
/// Entry flag: the master entry's fields (`STREAM_ITEM_FLAG_SAMEFIELDS`).
const FLAG_SAMEFIELDS: i64 = 2;

fn bad<T>() -> Result<T, LoadError> {
    Err(LoadError::Bad)
}

/// A 16-byte big-endian stream ID (a node key, a pending entry).
fn raw_id(b: &[u8]) -> Result<StreamId, LoadError> {
    let Ok(b) = <[u8; 16]>::try_from(b) else {
        return bad();
    };
    let (ms, seq) = b.split_at(8);
    let ms = u64::from_be_bytes(ms.try_into().map_err(|_| LoadError::Bad)?);
    let seq = u64::from_be_bytes(seq.try_into().map_err(|_| LoadError::Bad)?);
    Ok(StreamId::new(ms, seq))
}

/// An ID written as two lengths.
fn len_id(r: &mut Reader<'_>) -> Result<StreamId, LoadError> {
    let ms = r.length().ok_or(LoadError::Bad)?;
    let seq = r.length().ok_or(LoadError::Bad)?;
    Ok(StreamId::new(ms, seq))
}

/// Milliseconds as Redis's `rdbLoadMillisecondTime`: eight little-endian bytes.
fn millis(r: &mut Reader<'_>) -> Result<i64, LoadError> {
    Ok(i64::from_le_bytes(r.array().ok_or(LoadError::Bad)?))
}

/// Walks a node's elements.
struct Elems<'a, 'b> {
    items: &'b [(Elem<'a>, usize)],
    at: usize,
}

impl<'a> Elems<'a, '_> {
    fn next(&mut self) -> Result<Elem<'a>, LoadError> {
        let e = self.items.get(self.at).ok_or(LoadError::Bad)?.0;
        self.at += 1;
        Ok(e)
    }

    fn int(&mut self) -> Result<i64, LoadError> {
        self.next()?.integer().ok_or(LoadError::Bad)
    }

    /// A count of following elements, which must be there.
    fn count(&mut self) -> Result<usize, LoadError> {
        let n = usize::try_from(self.int()?).map_err(|_| LoadError::Bad)?;
        if n > self.items.len() - self.at {
            return bad();
        }
        Ok(n)
    }
}

/// A node's listpack, parsed: the master fields, the entries in append order, and the
/// bytes the entries take.
struct NodeParts {
    master_fields: Vec<Vec<u8>>,
    entries: Vec<LoadedEntry>,
    entry_bytes: usize,
}

/// One node's listpack.
fn read_node(master: StreamId, blob: &[u8]) -> Result<NodeParts, LoadError> {
    let items = unpack::listpack_sized(blob).ok_or(LoadError::Bad)?;
    if items.is_empty() {
        return bad();
    }
    let mut e = Elems {
        items: &items,
        at: 0,
    };
    let live = e.count()?;
    let deleted = e.count()?;
    let nmaster = e.count()?;
    let mut master_fields = Vec::with_capacity(nmaster);
    for _ in 0..nmaster {
        master_fields.push(e.next()?.to_vec());
    }
    if e.int()? != 0 {
        return bad();
    }
    let entries_from = e.at;
    let total = live.checked_add(deleted).ok_or(LoadError::Bad)?;
    if total > items.len() {
        return bad();
    }
    let mut entries = Vec::with_capacity(total);
    let mut seen_deleted = 0;
    for _ in 0..total {
        let flags = e.int()?;
        let ms = master.ms.wrapping_add(e.int()? as u64);
        let seq = master.seq.wrapping_add(e.int()? as u64);
        // With the master's fields only the values follow; else a count, then each field
        // followed by its value.
        let own = flags & FLAG_SAMEFIELDS == 0;
        let n = if own { e.count()? } else { nmaster };
        let mut fields = Vec::with_capacity(n);
        for name in master_fields.iter().take(if own { 0 } else { n }) {
            fields.push((name.clone(), e.next()?.to_vec()));
        }
        for _ in 0..if own { n } else { 0 } {
            let name = e.next()?.to_vec();
            fields.push((name, e.next()?.to_vec()));
        }
        // The element count of the entry: flags, two ID parts, the values, and with its
        // own fields their count and names, plus this one.
        let took = if own { 2 * n + 4 } else { n + 3 };
        if usize::try_from(e.int()?).ok() != Some(took) {
            return bad();
        }
        let is_deleted = flags & FLAG_DELETED != 0;
        seen_deleted += usize::from(is_deleted);
        entries.push(LoadedEntry {
            id: StreamId::new(ms, seq),
            deleted: is_deleted,
            fields: if is_deleted { Vec::new() } else { fields },
        });
    }
    if e.at != items.len() || seen_deleted != deleted {
        return bad();
    }
    let entry_bytes = items[entries_from..].iter().map(|(_, size)| size).sum();
    Ok(NodeParts {
        master_fields,
        entries,
        entry_bytes,
    })
}

/// A stream of type 15 (`v2` false: RDB 9, Redis 5 to 6.2) or 19 (`v2`: Redis 7.0).
pub(super) fn read_stream(r: &mut Reader<'_>, v2: bool) -> Result<Value, LoadError> {
    let mut s = Stream::new();
    let nodes = r.count(2).ok_or(LoadError::Bad)?;
    for _ in 0..nodes {
        let master = raw_id(&string(r)?)?;
        let blob = string(r)?;
        let n = read_node(master, &blob)?;
        if !s.load_node(master, n.master_fields, n.entries, n.entry_bytes) {
            return bad();
        }
    }
    let length = r.length().ok_or(LoadError::Bad)?;
    s.last_id = len_id(r)?;
    if v2 {
        s.first_id = len_id(r)?;
        s.max_deleted_entry_id = len_id(r)?;
        s.entries_added = r.length().ok_or(LoadError::Bad)?;
    } else {
        // As Redis derives them for a stream saved before 7.0: nothing deleted yet, every
        // entry there was ever added, and the first live entry (of an empty stream, the
        // greatest ID, which is what Redis's edge lookup gives).
        s.max_deleted_entry_id = StreamId::MIN;
        s.entries_added = length;
        s.first_id = s.first().map_or(StreamId::MAX, |(id, _)| id);
    }
    if length != s.len() || !s.loaded_whole() {
        return bad();
    }
    let groups = r.count(3).ok_or(LoadError::Bad)?;
    for _ in 0..groups {
        let name = string(r)?;
        let last_id = len_id(r)?;
        let entries_read = if v2 {
            r.length().ok_or(LoadError::Bad)? as i64
        } else {
            s.estimate_distance(last_id)
        };
        if s.groups.contains_key(&name) {
            return bad();
        }
        let g = read_group(r, Group::new(last_id, entries_read))?;
        s.groups.insert(name, g);
    }
    Ok(Value::Stream(Box::new(s)))
}

/// A group's pending entries (IDs, delivery times and counts) and its consumers (names,
/// seen times and the IDs they own).
fn read_group(r: &mut Reader<'_>, mut g: Group) -> Result<Group, LoadError> {
    let pending = r.count(25).ok_or(LoadError::Bad)?;
    for _ in 0..pending {
        let id = raw_id(r.take(16).ok_or(LoadError::Bad)?)?;
        let delivery_time = millis(r)?;
        let delivery_count = r.length().ok_or(LoadError::Bad)?;
        let nack = Nack {
            delivery_time,
            delivery_count,
            consumer: Vec::new(),
        };
        if g.pel.insert(id, nack).is_some() {
            return bad();
        }
    }
    let consumers = r.count(10).ok_or(LoadError::Bad)?;
    let mut owned = std::collections::BTreeSet::new();
    for _ in 0..consumers {
        let name = string(r)?;
        if g.consumers.contains_key(&name) {
            return bad();
        }
        let mut c = Consumer {
            seen_time: millis(r)?,
            ..Consumer::default()
        };
        let ids = r.count(16).ok_or(LoadError::Bad)?;
        for _ in 0..ids {
            let id = raw_id(r.take(16).ok_or(LoadError::Bad)?)?;
            // Each pending entry belongs to exactly one consumer.
            match g.pel.get_mut(&id) {
                Some(n) if owned.insert(id) => n.consumer = name.clone(),
                _ => return bad(),
            }
            c.pending.insert(id);
        }
        g.consumers.insert(name, c);
    }
    if owned.len() != g.pel.len() {
        return bad();
    }
    Ok(g)
}
