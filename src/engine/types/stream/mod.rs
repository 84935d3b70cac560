//! Streams: an append-only log of entries, each an ID and a list of field-value pairs,
//! with consumer groups that track delivery.
//!
//! # Representation
//! Redis keeps a stream as a radix tree of *listpack nodes*: each node holds a run of
//! consecutive entries, delta-encoded against its first ("master") entry, and deleting an
//! entry only flags it inside its node. We keep the entries themselves in a
//! [`BTreeMap`] from [`StreamId`] to their fields, which gives `XRANGE` its documented
//! O(log N + M), and keep *beside* it a small model of Redis's nodes ([`Node`]): for each
//! node its master ID, how many live and flagged-deleted entries it holds, the ID of the
//! last entry appended to it, and its size in bytes as the listpack encoding would make it.
//! The model exists because Redis's behaviour depends on it:
//!
//! * a new node starts when the tail node holds `stream-node-max-entries` entries (live plus
//!   deleted) or adding the entry's fields and values would reach `stream-node-max-bytes`;
//! * approximate trimming (`MAXLEN ~`, `MINID ~`) removes whole nodes only, and `LIMIT`
//!   counts the live entries of the nodes removed;
//! * `XINFO STREAM` reports `radix-tree-keys` (the number of nodes) and `radix-tree-nodes`
//!   (the nodes of the radix tree over the 16-byte big-endian master IDs, see
//!   [`Stream::rax_nodes`]).
//!
//! An entry belongs to the node with the greatest master ID not above its own ID, with one
//! exception, the *strays*. A node whose last live entry is removed by `XDEL` disappears,
//! as in Redis; an exact trim that ends inside a node only flags entries, so (again as in
//! Redis) that node may stay with deleted entries alone, still counted in
//! `radix-tree-keys`. If `XSETID` then sets the last ID below that node's master, the
//! next entries go into it all the same (Redis appends to the tail node, whatever its
//! master), although their IDs are below its master: those entries are recorded in
//! `strays`, with the node they are in. An exact trim walks a node's entries in the order
//! they were appended, its strays first. More generally, once an entry is appended below
//! a node's last appended ID, the node remembers where that happened
//! (`Node::out_of_order`), because a `MINID` trim, which in Redis walks deleted entries
//! too, stops at a deleted entry above the minimum before reaching those entries.
//!
//! # Metadata
//! * `last_id`: the greatest ID ever added (or set by `XSETID`); new IDs must exceed it, so
//!   IDs stay monotonic even if the clock goes back (`*` then uses `last_id` + 1 sequence).
//! * `first_id`: Redis 7.0's *recorded first entry ID*: 0-0 when empty, updated when the
//!   first entry is deleted or trimmed (not when entries are added to an empty stream that
//!   had one before — see [`Stream::append`]).
//! * `max_deleted_entry_id`: the greatest ID removed by `XDEL` (or set by `XSETID`).
//! * `entries_added`: how many entries were ever added (`XSETID ENTRIESADDED` overrides).
//!
//! # Consumer groups
//! A [`Group`] has a last delivered ID, a logical read counter (`entries_read`, -1 when
//! unknown: Redis 7.0's lag logic, [`Stream::lag`]), the pending entries list (PEL) — for
//! each delivered but unacknowledged ID a [`Nack`] with its owner, last delivery time and
//! delivery count — and its consumers, each with a seen-time and the set of IDs it owns.
//! Invariant: an ID is in a consumer's `pending` set exactly when the group's PEL entry for
//! it names that consumer. Groups and consumers are ordered by name bytes, as Redis's radix
//! trees order them.
//!
//! A stream is never deleted for being empty: `XDEL` of every entry leaves an empty stream
//! with its metadata and groups.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `stream_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::collections::BTreeMap;

use crate::engine::args::parse_i64;

mod group;
mod id;
pub mod layout;
pub mod load;
mod rewrite;
#[cfg(test)]
mod tests;
pub use group::{Consumer, Group, Nack};
pub use id::{parse_id, string2ull, Fields, ParsedId, StreamId};

/// One listpack node of Redis's representation, as far as behaviour depends on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Live entries.
    pub live: u64,
    /// Entries flagged deleted but still inside.
    pub deleted: u64,
    /// The last entry appended (live or not).
    pub last_id: StreamId,
    /// The fields of the master entry (the node's first entry).
    master_fields: Vec<Vec<u8>>,
    /// Bytes of the entries after the master entry, as encoded.
    entry_bytes: usize,
    /// Set when an entry was appended with an ID below the node's last appended one (after
    /// XSETID lowered the stream's last ID below deleted entries still in the node): the
    /// last ID appended before, and the first ID appended out of order. Redis's `MINID`
    /// walk over a node goes in append order, deleted entries included, and stops at the
    /// first ID not below the minimum: when the first of these is at or above it, the
    /// walk stops before the entries appended out of order.
    out_of_order: Option<(StreamId, StreamId)>,
}

impl Node {
    /// The listpack's size in bytes (`lpBytes`): header, master entry, entries, end byte.
    fn bytes(&self) -> usize {
        let mut n = 6 + 1;
        n += lp_int_size(self.live as i64) + lp_int_size(self.deleted as i64);
        n += lp_int_size(self.master_fields.len() as i64);
        n += self
            .master_fields
            .iter()
            .map(|f| lp_elem_size(f))
            .sum::<usize>();
        n += lp_int_size(0);
        n + self.entry_bytes
    }
}

/// Bytes of a listpack element holding the integer `v`, with its back-length.
fn lp_int_size(v: i64) -> usize {
    let enc = if (0..=127).contains(&v) {
        1
    } else if (-4096..=4095).contains(&v) {
        2
    } else if i64::from(i16::MIN) <= v && v <= i64::from(i16::MAX) {
        3
    } else if (-(1 << 23)..(1 << 23)).contains(&v) {
        4
    } else if i64::from(i32::MIN) <= v && v <= i64::from(i32::MAX) {
        5
    } else {
        9
    };
    enc + lp_backlen_size(enc)
}

/// Bytes of the back-length of an element whose encoding takes `l` bytes.
fn lp_backlen_size(l: usize) -> usize {
    match l {
        0..=127 => 1,
        128..=16382 => 2,
        16383..=2097150 => 3,
        2097151..=268435454 => 4,
        _ => 5,
    }
}

/// Bytes of a listpack element holding the string `s` (stored as an integer when it is
/// one, as `lpAppend` does).
fn lp_elem_size(s: &[u8]) -> usize {
    if let Some(v) = parse_i64(s) {
        return lp_int_size(v);
    }
    let len = s.len();
    let enc = if len < 64 {
        1 + len
    } else if len < 4096 {
        2 + len
    } else {
        5 + len
    };
    enc + lp_backlen_size(enc)
}

/// How a trim decides what goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimStrategy {
    /// Keep at most this many entries.
    MaxLen(u64),
    /// Remove entries with IDs below this one.
    MinId(StreamId),
}

/// A trim request (Redis's `streamAddTrimArgs` after parsing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trim {
    /// What to remove.
    pub strategy: TrimStrategy,
    /// `~`: whole nodes only.
    pub approx: bool,
    /// Most entries removed (0: no limit); only with `approx`.
    pub limit: i64,
}

/// A stream. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stream {
    entries: BTreeMap<StreamId, Fields>,
    nodes: BTreeMap<StreamId, Node>,
    /// Entries in a node whose master ID is above their own ID (see the module
    /// documentation): entry ID → that node's master ID.
    strays: BTreeMap<StreamId, StreamId>,
    /// The greatest ID ever added or set.
    pub last_id: StreamId,
    /// The recorded first entry ID (0-0 when empty).
    pub first_id: StreamId,
    /// The greatest ID deleted by XDEL.
    pub max_deleted_entry_id: StreamId,
    /// Entries ever added.
    pub entries_added: u64,
    /// Consumer groups by name.
    pub groups: BTreeMap<Vec<u8>, Group>,
}

/// Why an append failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendError {
    /// The ID is not above the last one (or no ID is left).
    NotGreater,
    /// Fields and values together exceed the listpack limit.
    TooLarge,
}

/// Largest total of field and value bytes one entry may have (Redis's
/// `STREAM_LISTPACK_MAX_SIZE`, 1 GiB).
const LISTPACK_MAX_SIZE: usize = 1 << 30;

impl Stream {
    /// An empty stream.
    pub fn new() -> Stream {
        Stream::default()
    }

    /// Number of entries. **O(1).**
    pub fn len(&self) -> u64 {
        self.entries.len() as u64
    }

    /// True when there are no entries (the key still exists).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The payload bytes (fields plus values) of up to `samples` entries from the start,
    /// for the memory estimate of `INFO`. **O(samples).**
    pub fn range_sample(&self, samples: usize) -> Vec<u64> {
        self.entries
            .values()
            .take(samples)
            .map(|f| f.iter().map(|(a, b)| (a.len() + b.len()) as u64).sum())
            .collect()
    }

    /// Number of listpack nodes (`radix-tree-keys`).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The fields of entry `id`. **O(log N).**
    pub fn get(&self, id: StreamId) -> Option<&Fields> {
        self.entries.get(&id)
    }

    /// True if entry `id` exists. **O(log N).**
    pub fn contains(&self, id: StreamId) -> bool {
        self.entries.contains_key(&id)
    }

    /// The first live entry.
    pub fn first(&self) -> Option<(StreamId, &Fields)> {
        self.entries.iter().next().map(|(k, v)| (*k, v))
    }

    /// The last live entry.
    pub fn last(&self) -> Option<(StreamId, &Fields)> {
        self.entries.iter().next_back().map(|(k, v)| (*k, v))
    }

    /// The ID of the last live entry, or 0-0 (Redis's `streamLastValidID`).
    pub fn last_valid_id(&self) -> StreamId {
        self.last().map_or(StreamId::MIN, |(id, _)| id)
    }

    /// Entries from `start` to `end` inclusive, ascending. **O(log N)** to start.
    pub fn range(
        &self,
        start: StreamId,
        end: StreamId,
    ) -> impl DoubleEndedIterator<Item = (&StreamId, &Fields)> {
        let ok = start <= end;
        let (s, e) = if ok { (start, end) } else { (end, end) };
        self.entries.range(s..=e).filter(move |_| ok)
    }

    /// The ID `XADD *` would use at `now_ms` (Redis's `streamNextID`): `now-0` when the
    /// clock is past the last ID, else the last ID plus one sequence. `None` when the last
    /// possible ID was used.
    pub fn next_auto_id(&self, now_ms: i64) -> Option<StreamId> {
        let ms = now_ms.max(0) as u64;
        if ms > self.last_id.ms {
            Some(StreamId::new(ms, 0))
        } else {
            self.last_id.incr()
        }
    }

    /// Appends an entry with `id` (which the caller resolved; it must exceed `last_id`),
    /// starting a new node when the tail node is full by `max_entries` or `max_bytes` (0:
    /// no limit by that measure). **O(log N + fields).**
    pub fn append(
        &mut self,
        id: StreamId,
        fields: Fields,
        max_entries: i64,
        max_bytes: i64,
    ) -> Result<(), AppendError> {
        if id <= self.last_id {
            return Err(AppendError::NotGreater);
        }
        let total: usize = fields
            .iter()
            .map(|(f, v)| f.len().saturating_add(v.len()))
            .fold(0usize, usize::saturating_add);
        if total > LISTPACK_MAX_SIZE {
            return Err(AppendError::TooLarge);
        }
        let max_bytes = if max_bytes <= 0 || max_bytes as u64 > LISTPACK_MAX_SIZE as u64 {
            LISTPACK_MAX_SIZE
        } else {
            max_bytes as usize
        };
        let tail_full = match self.nodes.iter().next_back() {
            None => true,
            Some((_, n)) => {
                n.bytes().saturating_add(total) >= max_bytes
                    || (max_entries > 0 && (n.live + n.deleted) as i64 >= max_entries)
            }
        };
        let target = match self.nodes.keys().next_back() {
            Some(&tail) if !tail_full => tail,
            _ => id,
        };
        if tail_full {
            self.nodes.insert(
                id,
                Node {
                    live: 0,
                    deleted: 0,
                    last_id: id,
                    master_fields: fields.iter().map(|(f, _)| f.clone()).collect(),
                    entry_bytes: 0,
                    out_of_order: None,
                },
            );
        }
        if target > id {
            self.strays.insert(id, target);
        }
        if let Some((master, node)) = self.nodes.range_mut(target..=target).next() {
            let same = node.master_fields.len() == fields.len()
                && node
                    .master_fields
                    .iter()
                    .zip(&fields)
                    .all(|(a, (b, _))| a == b);
            let ms_diff = id.ms.wrapping_sub(master.ms) as i64;
            let seq_diff = id.seq.wrapping_sub(master.seq) as i64;
            let mut b = lp_int_size(if same { 2 } else { 0 });
            b += lp_int_size(ms_diff) + lp_int_size(seq_diff);
            let n = fields.len() as i64;
            if same {
                b += fields.iter().map(|(_, v)| lp_elem_size(v)).sum::<usize>();
                b += lp_int_size(n + 3);
            } else {
                b += lp_int_size(n);
                b += fields
                    .iter()
                    .map(|(f, v)| lp_elem_size(f) + lp_elem_size(v))
                    .sum::<usize>();
                b += lp_int_size(2 * n + 4);
            }
            node.entry_bytes += b;
            node.live += 1;
            if id < node.last_id && node.out_of_order.is_none() {
                node.out_of_order = Some((node.last_id, id));
            }
            node.last_id = id;
        }
        if self.entries.is_empty() {
            self.first_id = id;
        }
        self.entries.insert(id, fields);
        self.last_id = id;
        self.entries_added = self.entries_added.wrapping_add(1);
        Ok(())
    }

    /// The master ID of the node holding `id`.
    fn node_of(&self, id: StreamId) -> Option<StreamId> {
        if let Some(&m) = self.strays.get(&id) {
            return Some(m);
        }
        self.nodes.range(..=id).next_back().map(|(k, _)| *k)
    }

    /// The IDs of the live entries of the node with master `master` (whose successor
    /// node, if any, has master `next`), in the order they were appended: its strays,
    /// then the entries in its ID range.
    fn node_entries(&self, master: StreamId, next: Option<StreamId>) -> Vec<StreamId> {
        let strays = self
            .strays
            .iter()
            .filter(|(_, m)| **m == master)
            .map(|(id, _)| *id);
        let range = match next {
            Some(n) => self.entries.range(master..n),
            None => self.entries.range(master..),
        };
        strays
            .chain(
                range
                    .map(|(k, _)| *k)
                    .filter(|k| !self.strays.contains_key(k)),
            )
            .collect()
    }

    /// Removes entry `id` without touching the stream's metadata: flags it deleted in its
    /// node, dropping the node when it had no other live entry. **O(log N).**
    fn remove_entry(&mut self, id: StreamId) -> bool {
        if self.entries.remove(&id).is_none() {
            return false;
        }
        let m = self.node_of(id);
        self.strays.remove(&id);
        if let Some(m) = m {
            if let Some(n) = self.nodes.get_mut(&m) {
                if n.live <= 1 {
                    self.nodes.remove(&m);
                    self.strays.retain(|_, node| *node != m);
                } else {
                    n.live -= 1;
                    n.deleted += 1;
                }
            }
        }
        true
    }

    /// `XDEL` of one ID: removes it, updating the maximal deleted ID and the recorded first
    /// ID. True if it existed. **O(log N).**
    pub fn delete(&mut self, id: StreamId) -> bool {
        if !self.remove_entry(id) {
            return false;
        }
        if id > self.max_deleted_entry_id {
            self.max_deleted_entry_id = id;
        }
        if self.entries.is_empty() {
            self.first_id = StreamId::MIN;
        } else if id == self.first_id {
            self.first_id = self.first().map_or(StreamId::MIN, |(i, _)| i);
        }
        true
    }

    /// Trims as Redis's `streamTrim`: walks nodes from the first; removes a node whole when
    /// all of it may go; otherwise, unless approximate, removes the remaining entries from
    /// inside that node and stops. `limit` caps the entries removed (counted in whole
    /// nodes). Returns how many entries were removed. **O(log N + M)** for M removed.
    pub fn trim(&mut self, t: &Trim) -> u64 {
        let mut deleted: u64 = 0;
        loop {
            if let TrimStrategy::MaxLen(max) = t.strategy {
                if self.len() <= max {
                    break;
                }
            }
            let Some((&master, node)) = self.nodes.iter().next() else {
                break;
            };
            let entries = node.live;
            if t.limit > 0 && deleted.saturating_add(entries) > t.limit as u64 {
                break;
            }
            let remove_node = match t.strategy {
                TrimStrategy::MaxLen(max) => self.len() - entries >= max,
                TrimStrategy::MinId(min) => node.last_id < min,
            };
            let next_master = self.nodes.range(master..).nth(1).map(|(k, _)| *k);
            if remove_node {
                let ids = self.node_entries(master, next_master);
                self.nodes.remove(&master);
                for id in ids {
                    self.entries.remove(&id);
                    self.strays.remove(&id);
                }
                deleted += entries;
                continue;
            }
            if t.approx {
                break;
            }
            let out_of_order = node.out_of_order;
            let ids = self.node_entries(master, next_master);
            let mut removed = 0u64;
            for id in ids {
                let stop = match t.strategy {
                    TrimStrategy::MaxLen(max) => self.len() <= max,
                    TrimStrategy::MinId(min) => {
                        id >= min
                            || out_of_order
                                .is_some_and(|(before, first)| before >= min && id >= first)
                    }
                };
                if stop {
                    break;
                }
                self.entries.remove(&id);
                self.strays.remove(&id);
                removed += 1;
            }
            if let Some(n) = self.nodes.get_mut(&master) {
                n.live -= removed.min(n.live);
                n.deleted += removed;
            }
            deleted += removed;
            break;
        }
        if self.entries.is_empty() {
            self.first_id = StreamId::MIN;
        } else if deleted > 0 {
            self.first_id = self.first().map_or(StreamId::MIN, |(i, _)| i);
        }
        deleted
    }

    /// The first ID in the first node, deleted or not (Redis's `streamGetEdgeID` without
    /// skipping tombstones, which an approximate trim propagates as its `MINID`): the
    /// node's master ID, or the greatest ID when there is no node.
    pub fn first_node_id(&self) -> StreamId {
        self.nodes.keys().next().copied().unwrap_or(StreamId::MAX)
    }

    /// Checks the invariants between the entries and the node model (for tests): the live
    /// counts add up to the length, every entry lies in a
    /// node at or after its master ID and not after its last appended ID, and `last_id` is
    /// not below any entry; and in each consumer group, a pending ID is in its owner's
    /// set and the owners' sets hold nothing else. **O(N).**
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut live = 0u64;
        let masters: Vec<StreamId> = self.nodes.keys().copied().collect();
        for (i, (m, n)) in self.nodes.iter().enumerate() {
            let next = masters.get(i + 1).copied();
            let ids = self.node_entries(*m, next);
            if ids.len() as u64 != n.live {
                return Err(format!("node {m}: {} entries, {} live", ids.len(), n.live));
            }
            if let Some(last) = ids.last() {
                if *last > n.last_id {
                    return Err(format!("node {m}: entry {last} after its last ID"));
                }
            }
            live += n.live;
        }
        if live != self.len() {
            return Err(format!("nodes hold {live}, stream has {}", self.len()));
        }
        if let Some((first, _)) = self.first() {
            if masters.first().is_none_or(|m| *m > first) && !self.strays.contains_key(&first) {
                return Err(format!("entry {first} before the first node"));
            }
        }
        for (id, m) in &self.strays {
            if !self.entries.contains_key(id) || !self.nodes.contains_key(m) || id >= m {
                return Err(format!("stray {id} in node {m}"));
            }
        }
        if self.last_valid_id() > self.last_id {
            return Err("an entry above last_id".into());
        }
        for (name, g) in &self.groups {
            let owned: usize = g.consumers.values().map(|c| c.pending.len()).sum();
            if owned != g.pel.len() {
                return Err(format!(
                    "group {name:?}: consumers own {owned} of {}",
                    g.pel.len()
                ));
            }
            for (id, nack) in &g.pel {
                if !g
                    .consumers
                    .get(&nack.consumer)
                    .is_some_and(|c| c.pending.contains(id))
                {
                    return Err(format!("group {name:?}: {id}'s owner does not list it"));
                }
            }
        }
        Ok(())
    }

    /// Nodes of the radix tree Redis would build over the nodes' master IDs (16-byte
    /// big-endian keys): a chain of bytes shared by every key below a point is one node,
    /// each point where keys part is one node, and each key ends in a leaf node. An empty
    /// tree has its root alone. **O(nodes × 16).**
    pub fn rax_nodes(&self) -> u64 {
        let keys: Vec<[u8; 16]> = self.nodes.keys().map(|k| k.encode()).collect();
        if keys.is_empty() {
            return 1;
        }
        rax_count(&keys, 0)
    }

    /// Redis's `streamRangeHasTombstones`: true if a deleted entry may lie between `start`
    /// and the end of the stream.
    pub fn range_has_tombstones(&self, start: StreamId) -> bool {
        if self.entries.is_empty() || self.max_deleted_entry_id == StreamId::MIN {
            return false;
        }
        if self.first_id > self.max_deleted_entry_id {
            return false;
        }
        start <= self.max_deleted_entry_id
    }

    /// Redis's `streamEstimateDistanceFromFirstEverEntry`: the logical read counter of
    /// `id`, or -1 when it cannot be known.
    pub fn estimate_distance(&self, id: StreamId) -> i64 {
        if self.entries_added == 0 {
            return 0;
        }
        let added = self.entries_added as i64;
        if self.entries.is_empty() && id <= self.last_id {
            return added;
        }
        if id == self.last_id {
            return added;
        }
        if id > self.last_id {
            return -1;
        }
        if self.max_deleted_entry_id == StreamId::MIN || self.max_deleted_entry_id < self.first_id {
            let len = self.len() as i64;
            // Redis computes in `long long`; past i64::MAX (XSETID ENTRIESADDED) it wraps.
            if id < self.first_id {
                return added.wrapping_sub(len);
            }
            if id == self.first_id {
                return added.wrapping_sub(len).wrapping_add(1);
            }
        }
        -1
    }

    /// A group's lag (entries not yet delivered), or `None` when it cannot be known
    /// (Redis's `streamReplyWithCGLag`).
    pub fn lag(&self, g: &Group) -> Option<i64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if g.entries_read != -1 && !self.range_has_tombstones(g.last_id) {
            return Some((self.entries_added as i64).wrapping_sub(g.entries_read));
        }
        let read = self.estimate_distance(g.last_id);
        (read != -1).then(|| (self.entries_added as i64).wrapping_sub(read))
    }

    /// Records that `id` was delivered to group `name`: advances its last ID and keeps its
    /// read counter as Redis's `streamReplyWithRange` does. True if the last ID moved.
    pub fn advance_group(&mut self, name: &[u8], id: StreamId) -> bool {
        let tomb = self.range_has_tombstones(id);
        let est = self.estimate_distance(id);
        let added = self.entries_added;
        let Some(g) = self.groups.get_mut(name) else {
            return false;
        };
        if id <= g.last_id {
            return false;
        }
        if g.entries_read != -1 && !tomb {
            g.entries_read = g.entries_read.wrapping_add(1);
        } else if added != 0 {
            g.entries_read = est;
        }
        g.last_id = id;
        true
    }
}

/// Counts radix-tree nodes for sorted, distinct 16-byte `keys` sharing their first `depth`
/// bytes (see [`Stream::rax_nodes`]).
fn rax_count(keys: &[[u8; 16]], depth: usize) -> u64 {
    if depth >= 16 {
        return 1;
    }
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return 0;
    };
    // Keys are sorted: the common prefix of all is that of the first and the last.
    let mut p = depth;
    while p < 16 && first[p] == last[p] {
        p += 1;
    }
    if p == 16 {
        // One key: its remaining bytes in one node, then the leaf.
        return 2;
    }
    let chain = u64::from(p > depth);
    let mut n = chain + 1;
    let mut i = 0;
    while i < keys.len() {
        let b = keys[i][p];
        let mut j = i;
        while j < keys.len() && keys[j][p] == b {
            j += 1;
        }
        n += rax_count(&keys[i..j], p + 1);
        i = j;
    }
    n
}
