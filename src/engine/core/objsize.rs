//! `MEMORY USAGE` as Redis 7.0 computes it (`objectComputeSize` and `memoryCommand`): the
//! bytes jemalloc hands out for the key's allocations, from the same structures Redis
//! would build for the value — a `robj`, an sds, a listpack, an intset, a quicklist of
//! listpacks, a dict, a skiplist, a stream's radix tree and listpacks.
//!
//! kvlab stores values its own way (see `types/`), but each value knows the encoding Redis
//! would give it, and `rdb::pack` knows the exact bytes of Redis's listpacks and intsets.
//! So for strings and the compact encodings the figure is Redis's own, byte for byte
//! (`tests/differential/memory.rs` checks it against redis-server); for hash tables,
//! skiplists, quicklists of several nodes and streams Redis itself samples (`SAMPLES`,
//! default 5) in an order of its own (a dict's iteration order, random skiplist levels),
//! and the figure is within a few percent of Redis's.
//!
//! Sizes are those of 64-bit Redis 7.0 linked with jemalloc 5.3 (Debian's and Redis's own
//! build): `sizeof(robj)` 16, `dictEntry` 24, `dict` 56, `quicklist` 40,
//! `quicklistNode` 40, `zskiplistNode` 24 + 16 per level, `stream` 80.

use crate::engine::alloc::{jemalloc_size, sds_header};
use crate::engine::keyspace::Entry;
use crate::engine::rdb::pack::{element_size, intset};
use crate::engine::rdb::write::{score_as_int, stream_node, Cut, NodeCutter};
use crate::engine::reply::format_g17;
use crate::engine::types::{HashValue, ListValue, SetValue, StrValue, Stream, Value, ZSet};

const ROBJ: u64 = 16;
const DICT_ENTRY: u64 = 24;
const DICT: u64 = 56;
const QUICKLIST: u64 = 40;
const QUICKLIST_NODE: u64 = 40;
const ZSET: u64 = 16;
const ZSKIPLIST: u64 = 32;
const STREAM: u64 = 80;
/// A listpack's header (total bytes, element count) and end byte.
const LP_OVERHEAD: usize = 7;
/// What a stream node's listpack is first allocated with (`STREAM_LISTPACK_MAX_PRE_ALLOCATE`).
const STREAM_PREALLOC: u64 = 4096;
/// Arguments this long arrive as their own query buffer, which keeps the `\r\n`
/// (`PROTO_MBULK_BIG_ARG`).
const BIG_ARG: usize = 32 * 1024;

/// `sdsZmallocSize` of an sds made for exactly `len` bytes (`sdsnewlen`).
fn sds_size(len: usize) -> u64 {
    jemalloc_size(sds_header(len) + len as u64 + 1)
}

/// The configuration that shapes a value's allocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// `list-max-listpack-size`: how a list's quicklist nodes are cut.
    pub list_fill: i64,
    /// `stream-node-max-entries`: a stream node this full was shrunk to fit.
    pub stream_node_entries: i64,
    /// Elements this long or longer get a plain quicklist node.
    pub packed_threshold: usize,
}

impl Default for Shape {
    /// Redis's defaults.
    fn default() -> Shape {
        Shape {
            list_fill: -2,
            stream_node_entries: 100,
            packed_threshold: crate::engine::rdb::write::PACKED_THRESHOLD,
        }
    }
}

impl Shape {
    /// The shape the server's `config` and debug switches give.
    pub fn of(srv: &crate::engine::Server) -> Shape {
        Shape {
            list_fill: srv.config.list_max_listpack_size(),
            stream_node_entries: srv.config.int("stream-node-max-entries"),
            packed_threshold: srv.debug.packed_threshold,
        }
    }
}

/// `MEMORY USAGE key SAMPLES samples` for `key` holding `e`, with allocations shaped by
/// `shape`. **O(samples)**, but for a list: the sampled nodes' elements.
pub fn memory_usage(key: &[u8], e: &Entry, samples: usize, shape: Shape) -> u64 {
    // The key: an sds copied from the argument (`dbAdd`), and its dict entry.
    sds_size(key.len()) + DICT_ENTRY + value_size(&e.value, samples.max(1), shape)
}

fn value_size(v: &Value, samples: usize, shape: Shape) -> u64 {
    match v {
        Value::Str(s) => string_size(s),
        Value::List(l) => list_size(l, samples, shape.list_fill, shape.packed_threshold),
        Value::Set(s) => set_size(s, samples),
        Value::ZSet(z) => zset_size(z, samples),
        Value::Hash(h) => hash_size(h, samples),
        Value::Stream(s) => stream_size(s, samples, shape.stream_node_entries),
    }
}

fn string_size(s: &StrValue) -> u64 {
    let len = s.len();
    match s.encoding() {
        "int" => ROBJ,
        // One allocation: the robj, an sds type-8 header, the bytes and the terminator.
        "embstr" => jemalloc_size(ROBJ + 3 + len as u64 + 1),
        // Edited in place (APPEND, SETRANGE, SETBIT…): the room `sdsMakeRoomFor` left
        // (see `StrValue::edited`).
        _ if s.sds_alloc() != 0 => {
            let alloc = s.sds_alloc() as usize;
            ROBJ + jemalloc_size(sds_header(alloc).max(3) + alloc as u64 + 1)
        }
        // A big argument keeps its query buffer's `\r\n`.
        _ if len >= BIG_ARG => ROBJ + jemalloc_size(sds_header(len + 2) + len as u64 + 3),
        _ => ROBJ + sds_size(len),
    }
}

/// A listpack of `bytes` (its elements' sizes summed), as allocated: exactly, since every
/// insert reallocates to the new size.
fn listpack_alloc(bytes: usize) -> u64 {
    jemalloc_size((LP_OVERHEAD + bytes) as u64)
}

/// The slots of a dict of `n` entries grown one insert at a time: 4, then the next power
/// of two (`_dictExpandIfNeeded`).
fn dict_slots(n: usize) -> u64 {
    (n.max(4).next_power_of_two()) as u64
}

/// `samples` elements' sizes averaged and scaled to `n`, as Redis does (in doubles).
fn scaled(sizes: impl Iterator<Item = u64>, samples: usize, n: usize) -> u64 {
    let (mut sum, mut taken) = (0u64, 0u64);
    for s in sizes.take(samples) {
        sum += s;
        taken += 1;
    }
    if taken == 0 {
        0
    } else {
        (sum as f64 / taken as f64 * n as f64) as u64
    }
}

fn list_size(l: &ListValue, samples: usize, fill: i64, plain_from: usize) -> u64 {
    // The first `samples` nodes as RPUSH cuts them (`rdb::write::NodeCutter`), their
    // elements counted, then the node count: exact if they covered the list, else
    // estimated.
    let mut cut = NodeCutter::new(fill, plain_from);
    let mut nodes: Vec<u64> = Vec::new();
    let mut seen = 0usize;
    for e in l.iter() {
        let (place, closed) = cut.place(e);
        if let Some(bytes) = closed {
            nodes.push(jemalloc_size(bytes as u64));
        }
        match place {
            Cut::Plain => nodes.push(jemalloc_size(e.len() as u64)),
            Cut::Open if nodes.len() >= samples => break,
            Cut::Open | Cut::Join => {}
        }
        seen += 1;
    }
    if nodes.len() < samples {
        if let Some(bytes) = cut.finish() {
            nodes.push(jemalloc_size(bytes as u64));
        }
    }
    let total_nodes = if seen >= l.len() {
        nodes.len()
    } else {
        (l.len() as f64 * nodes.len() as f64 / seen.max(1) as f64).ceil() as usize
    };
    ROBJ + QUICKLIST
        + scaled(
            nodes.iter().map(|n| QUICKLIST_NODE + n),
            samples,
            total_nodes,
        )
}

fn set_size(s: &SetValue, samples: usize) -> u64 {
    if s.is_intset() {
        let members: Vec<i64> = s
            .iter()
            .filter_map(|m| std::str::from_utf8(m).ok()?.parse().ok())
            .collect();
        return ROBJ + jemalloc_size(intset(&members).len() as u64);
    }
    ROBJ + DICT
        + 8 * dict_slots(s.len())
        + scaled(
            s.iter().map(|m| DICT_ENTRY + sds_size(m.len())),
            samples,
            s.len(),
        )
}

/// A score as a listpack element: an integer when it is one, else `d2string`'s text.
fn score_element(score: f64) -> usize {
    match score_as_int(score) {
        Some(i) => element_size(i.to_string().as_bytes()),
        None if score.is_infinite() => element_size(if score > 0.0 { b"inf" } else { b"-inf" }),
        None => element_size(format_g17(score).as_bytes()),
    }
}

/// A skiplist node's expected allocation: 24 bytes and 16 per level, with levels drawn
/// as Redis draws them (p = 1/4): 48 for three nodes in four, 64, 80, …; 53 on average.
/// Redis's own figure depends on the levels its first `SAMPLES` nodes drew.
const SKIPLIST_NODE: u64 = 53;
/// The skiplist's header node: 32 levels (`ZSKIPLIST_MAXLEVEL`), 536 bytes → 640.
const SKIPLIST_HEADER: u64 = 640;

fn zset_size(z: &ZSet, samples: usize) -> u64 {
    if z.is_listpack() {
        let bytes: usize = z
            .iter()
            .map(|(m, score)| element_size(m) + score_element(score))
            .sum();
        return ROBJ + listpack_alloc(bytes);
    }
    ROBJ + ZSET
        + ZSKIPLIST
        + DICT
        + 8 * dict_slots(z.len())
        + SKIPLIST_HEADER
        + scaled(
            z.iter()
                .map(|(m, _)| sds_size(m.len()) + DICT_ENTRY + SKIPLIST_NODE),
            samples,
            z.len(),
        )
}

fn hash_size(h: &HashValue, samples: usize) -> u64 {
    if h.encoding() == "listpack" {
        let bytes: usize = h
            .iter()
            .map(|(f, v)| element_size(f) + element_size(v))
            .sum();
        return ROBJ + listpack_alloc(bytes);
    }
    ROBJ + DICT
        + 8 * dict_slots(h.len())
        + scaled(
            h.iter()
                .map(|(f, v)| sds_size(f.len()) + sds_size(v.len()) + DICT_ENTRY),
            samples,
            h.len(),
        )
}

/// Redis's `streamRadixTreeMemoryUsage` for a radix tree of `elements` 16-byte keys: 16
/// bytes per element, and per node 4 bytes plus a flat 240; a tree of stream IDs has
/// about two nodes per element.
fn rax_size(elements: usize) -> u64 {
    let nodes = (2 * elements) as u64;
    16 * elements as u64 + nodes * 4 + nodes * 240
}

fn stream_size(s: &Stream, samples: usize, node_entries: i64) -> u64 {
    let nodes = s.node_count();
    let mut size = ROBJ + STREAM + rax_size(nodes);
    // Each node's listpack is first allocated with 4 KB and grows to its size past that;
    // one that reached `stream-node-max-entries` was shrunk to fit when the next entry
    // opened a new node (`lpShrinkToFit`).
    let mut lps: Vec<u64> = Vec::new();
    for (i, node) in s.node_views().take(samples).enumerate() {
        let fit = jemalloc_size(stream_node(&node).len() as u64);
        let shrunk = i + 1 < nodes && node_entries > 0 && node.entries.len() as i64 >= node_entries;
        lps.push(if shrunk {
            fit
        } else {
            fit.max(STREAM_PREALLOC)
        });
    }
    // As Redis: all of them when they are all sampled, else their average for all but
    // the last node, and the last (open, so 4 KB at least; its size taken as the
    // average's otherwise, to stay O(samples)).
    size += if nodes <= lps.len() {
        lps.iter().sum::<u64>()
    } else {
        let avg = lps.iter().sum::<u64>() / lps.len().max(1) as u64;
        avg * (nodes as u64 - 1) + avg.max(STREAM_PREALLOC)
    };
    if !s.groups.is_empty() {
        // The groups' radix tree, each group, its PEL (a NACK of 8 + 8 + 8 bytes per
        // entry), its consumers with their names and PELs.
        size += 8 + rax_size(s.groups.len());
        for g in s.groups.values() {
            size += 48 + rax_size(g.pel.len()) + 24 * g.pel.len() as u64;
            for (name, c) in &g.consumers {
                size += 40
                    + sds_size(name.len())
                    + rax_size(c.pending.len())
                    + 8 * c.pending.len() as u64;
            }
        }
    }
    size
}
