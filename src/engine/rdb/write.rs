//! Writing values as Redis 7.0 saves them (`rdbSaveObjectType` + `rdbSaveObject`): the
//! type byte Redis would choose for the value's encoding, then the object. `DUMP` and the
//! RDB file share it.
//!
//! | value                         | type byte              | object                        |
//! |-------------------------------|------------------------|-------------------------------|
//! | string                        | `STRING`               | the string (integer, LZF)     |
//! | listpack hash                 | `HASH_LISTPACK`        | the listpack as a string      |
//! | hash table hash               | `HASH`                 | count, field and value        |
//! | intset set                    | `SET_INTSET`           | the intset as a string        |
//! | hash table set                | `SET`                  | count, members                |
//! | listpack sorted set           | `ZSET_LISTPACK`        | the listpack as a string      |
//! | skiplist sorted set           | `ZSET_2`               | count, member and binary score, greatest first |
//! | list                          | `LIST_QUICKLIST_2`     | node count, per node its container and listpack |
//! | stream                        | `STREAM_LISTPACKS_2`   | nodes, metadata, groups       |
//!
//! Every string goes through `rdbSaveRawString`'s rules ([`put_string`]): a short canonical
//! integer as an integer, with `rdbcompression` anything longer than 20 bytes LZF-compressed
//! when that saves 4 bytes, listpacks and intsets included.
//!
//! # Where the bytes are Redis's, and where they can differ
//! Byte for byte the same as Redis for strings, listpack hashes and sorted sets (both keep
//! Redis's listpack order), and for lists and streams built the usual way. A hash-table
//! hash or set is written in our table's order and a skiplist from its greatest member, as
//! Redis does, but Redis's own table order is random per process: those payloads restore
//! to the same value, not to equal bytes. The other differences come from history that a
//! value does not keep:
//!
//! * **intsets** are written at the width their members need now; Redis widens an intset
//!   for a large member and keeps the width after that member is removed.
//! * **lists** are packed into quicklist nodes as `RPUSH` of the elements in order would
//!   pack them under the current `list-max-listpack-size` (Redis's `_quicklistNodeAllowInsert`:
//!   a node takes an element while its size class, or at most 8 KB and its count limit,
//!   allows; elements of 1 GB or more get a plain node of their own). A list that Redis
//!   grew at the head (`LPUSH`), in the middle (`LINSERT`, `LSET`) or shrank (pops, `LREM`,
//!   `LTRIM`) has its node boundaries where that history put them, so its bytes differ;
//!   so do lists made under another fill setting (Redis keeps the fill a list was created
//!   with). With `list-compress-depth` *d*, nodes more than *d* from either end are
//!   LZF-compressed as Redis's `__quicklistCompressNode` would (48 bytes at least, 8 saved
//!   at least), as they are in a list built by `RPUSH`.
//! * **streams** keep Redis's nodes (the type models them: master IDs, master fields,
//!   node boundaries from `stream-node-max-entries`/`-bytes` as `XADD` made them), the
//!   entries delta-encoded against their master with the same-fields flag, and the groups
//!   with their PEL (delivery time and count) and consumers (seen-time, owned IDs). What we
//!   don't keep is the contents of entries deleted *inside* a node (`XDEL` of some of a
//!   node's entries, an exact trim that ends inside a node): Redis leaves them in the
//!   listpack flagged deleted. Such a node is written with its live entries only and a
//!   deleted count of 0 (a node left with none has its master entry alone), so it
//!   restores to the same stream, with the same nodes, but it is smaller than Redis's.

use super::pack::{element_size, intset, Listpack};
use super::prim::{put_len, put_string};
use super::{kind, lzf};
use crate::engine::num::parse_i64;
use crate::engine::reply::format_g17;
use crate::engine::types::stream::layout::NodeView;
use crate::engine::types::stream::{Stream, StreamId};
use crate::engine::types::{HashValue, ListValue, SetValue, Value, ZSet};
use crate::engine::Config;

/// What changes how a value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveOptions {
    /// `rdbcompression`: LZF-compress strings of more than 20 bytes where that pays.
    pub compress: bool,
    /// `list-max-listpack-size`: how full a list's quicklist nodes get (positive: at most
    /// that many elements, and 8 KB; -1 to -5: at most 4 KB to 64 KB).
    pub list_fill: i64,
    /// `list-compress-depth`: how many nodes at each end of a list stay uncompressed
    /// (0: none is compressed).
    pub list_compress_depth: usize,
    /// Elements this long or longer get a plain quicklist node of their own
    /// (`DEBUG QUICKLIST-PACKED-THRESHOLD`; 1 GB by default).
    pub packed_threshold: usize,
}

impl Default for SaveOptions {
    /// Redis's defaults: compression on, 8 KB list nodes, no list node compression.
    fn default() -> SaveOptions {
        SaveOptions {
            compress: true,
            list_fill: -2,
            list_compress_depth: 0,
            packed_threshold: PACKED_THRESHOLD,
        }
    }
}

impl SaveOptions {
    /// The options in force under `config` (`rdbcompression`, `list-max-listpack-size`,
    /// `list-compress-depth`).
    pub fn from_config(config: &Config) -> SaveOptions {
        SaveOptions {
            compress: config.flag("rdbcompression"),
            list_fill: config.list_max_listpack_size(),
            list_compress_depth: config.list_compress_depth(),
            packed_threshold: PACKED_THRESHOLD,
        }
    }

    /// These options with plain nodes from `threshold` bytes (the server's
    /// [`DebugSwitches::packed_threshold`](crate::engine::core::server::DebugSwitches)).
    pub fn plain_from(self, threshold: usize) -> SaveOptions {
        SaveOptions {
            packed_threshold: threshold,
            ..self
        }
    }
}

/// Appends `value`'s type byte and its object. **O(N)** in the value's size.
pub fn write_value(out: &mut Vec<u8>, value: &Value, opts: &SaveOptions) {
    match value {
        Value::Str(s) => {
            out.push(kind::STRING);
            put_string(out, s.as_bytes(), opts.compress);
        }
        Value::Hash(h) => write_hash(out, h, opts),
        Value::Set(s) => write_set(out, s, opts),
        Value::ZSet(z) => write_zset(out, z, opts),
        Value::List(l) => write_list(out, l, opts),
        Value::Stream(s) => write_stream(out, s, opts),
    }
}

fn write_hash(out: &mut Vec<u8>, h: &HashValue, opts: &SaveOptions) {
    if h.is_big() {
        out.push(kind::HASH);
        put_len(out, h.len() as u64);
        for (f, v) in h.iter() {
            put_string(out, f, opts.compress);
            put_string(out, v, opts.compress);
        }
    } else {
        out.push(kind::HASH_LISTPACK);
        let mut lp = Listpack::new();
        for (f, v) in h.iter() {
            lp.push(f);
            lp.push(v);
        }
        put_string(out, &lp.finish(), opts.compress);
    }
}

fn write_set(out: &mut Vec<u8>, s: &SetValue, opts: &SaveOptions) {
    if s.is_intset() {
        out.push(kind::SET_INTSET);
        // The invariant of an intset set: every member parses, in ascending order.
        let members: Vec<i64> = s.iter().filter_map(parse_i64).collect();
        put_string(out, &intset(&members), opts.compress);
    } else {
        out.push(kind::SET);
        put_len(out, s.len() as u64);
        for m in s.iter() {
            put_string(out, m, opts.compress);
        }
    }
}

/// Redis's `double2ll`: a score that is an integer within ±2^62, which a listpack keeps
/// as an integer.
pub(crate) fn score_as_int(d: f64) -> Option<i64> {
    const LIMIT: f64 = 4_611_686_018_427_387_904.0; // (double)(LLONG_MAX / 2)
    ((-LIMIT..=LIMIT).contains(&d) && d.fract() == 0.0).then_some(d as i64)
}

fn write_zset(out: &mut Vec<u8>, z: &ZSet, opts: &SaveOptions) {
    if z.is_listpack() {
        out.push(kind::ZSET_LISTPACK);
        let mut lp = Listpack::new();
        for (m, score) in z.iter() {
            lp.push(m);
            match score_as_int(score) {
                Some(i) => lp.push_int(i),
                // `d2string`: `inf`, `-inf` or `%.17g` (never an integer's text).
                None if score.is_infinite() => lp.push(if score > 0.0 { b"inf" } else { b"-inf" }),
                None => lp.push(format_g17(score).as_bytes()),
            }
        }
        put_string(out, &lp.finish(), opts.compress);
    } else {
        out.push(kind::ZSET_2);
        let n = z.len();
        put_len(out, n as u64);
        // From the tail, as Redis walks its skiplist backwards.
        for (m, score) in z.iter_from_rank(n.saturating_sub(1), true, n) {
            put_string(out, m, opts.compress);
            out.extend_from_slice(&score.to_le_bytes());
        }
    }
}

/// `QUICKLIST_NODE_CONTAINER_PLAIN` and `_PACKED`.
const CONTAINER_PLAIN: u64 = 1;
const CONTAINER_PACKED: u64 = 2;
/// Elements this long or longer get a plain node of their own (`packed_threshold`).
pub const PACKED_THRESHOLD: usize = 1 << 30;
/// The node size limits of fill -1 to -5 (`optimization_level`).
const SIZE_CLASSES: [usize; 5] = [4096, 8192, 16384, 32768, 65536];
/// The most a node limited by count may take (`SIZE_SAFETY_LIMIT`).
const SIZE_SAFETY_LIMIT: usize = 8192;
/// What an element may add beyond its length (`SIZE_ESTIMATE_OVERHEAD`).
const SIZE_ESTIMATE_OVERHEAD: usize = 8;
/// Nodes smaller than this are not compressed (`MIN_COMPRESS_BYTES`).
const MIN_COMPRESS_BYTES: usize = 48;
/// Compression must save more than this (`MIN_COMPRESS_IMPROVE`).
const MIN_COMPRESS_IMPROVE: usize = 8;

/// Redis's `_quicklistNodeAllowInsert` for a packed node of `node_bytes` and `count`
/// elements, and an element of `len` bytes.
pub(crate) fn node_takes(node_bytes: usize, count: usize, fill: i64, len: usize) -> bool {
    let new = node_bytes + len + SIZE_ESTIMATE_OVERHEAD;
    if fill < 0 {
        let class = usize::try_from(-fill - 1).unwrap_or(usize::MAX);
        if SIZE_CLASSES.get(class).is_some_and(|&limit| new <= limit) {
            return true;
        }
    }
    new <= SIZE_SAFETY_LIMIT && (count as i64) < fill
}

/// Where a list's next element goes as RPUSH cuts the list into quicklist nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Into the open packed node.
    Join,
    /// Into a plain node of its own (an element of `PACKED_THRESHOLD` bytes or more).
    Plain,
    /// Into a new packed node.
    Open,
}

/// Cuts a list into quicklist nodes element by element, as RPUSH does under
/// `list-max-listpack-size` (`fill`): the one rule DUMP's nodes and MEMORY USAGE's node
/// count follow. It tracks the open packed node's size as its listpack's bytes.
pub(crate) struct NodeCutter {
    fill: i64,
    /// Elements this long or longer get a plain node.
    plain_from: usize,
    /// The open packed node's listpack bytes and elements, if a node is open.
    open: Option<(usize, usize)>,
}

impl NodeCutter {
    /// A cutter for `list-max-listpack-size` = `fill` (within `quicklistSetFill`'s bounds).
    pub(crate) fn new(fill: i64, plain_from: usize) -> NodeCutter {
        NodeCutter {
            fill: fill.clamp(-5, (1 << 15) - 1),
            plain_from,
            open: None,
        }
    }

    /// Places element `e`. Returns where it went, and the listpack bytes of the packed node
    /// that closed for it, if one did.
    pub(crate) fn place(&mut self, e: &[u8]) -> (Cut, Option<usize>) {
        if e.len() >= self.plain_from {
            return (Cut::Plain, self.finish());
        }
        if let Some((bytes, count)) = &mut self.open {
            if node_takes(*bytes, *count, self.fill, e.len()) {
                *bytes += element_size(e);
                *count += 1;
                return (Cut::Join, None);
            }
        }
        let closed = self.finish();
        self.open = Some((Listpack::EMPTY_BYTES + element_size(e), 1));
        (Cut::Open, closed)
    }

    /// Closes the open packed node, if any, and returns its listpack bytes.
    pub(crate) fn finish(&mut self) -> Option<usize> {
        self.open.take().map(|(bytes, _)| bytes)
    }
}

/// One quicklist node's container and bytes.
struct QuickNode {
    container: u64,
    bytes: Vec<u8>,
}

fn write_list(out: &mut Vec<u8>, l: &ListValue, opts: &SaveOptions) {
    out.push(kind::LIST_QUICKLIST_2);
    let mut cut = NodeCutter::new(opts.list_fill, opts.packed_threshold);
    let mut nodes: Vec<QuickNode> = Vec::new();
    let mut tail: Option<Listpack> = None;
    let close = |tail: &mut Option<Listpack>, nodes: &mut Vec<QuickNode>| {
        if let Some(lp) = tail.take() {
            nodes.push(QuickNode {
                container: CONTAINER_PACKED,
                bytes: lp.finish(),
            });
        }
    };
    for e in l.iter() {
        match (cut.place(e).0, &mut tail) {
            (Cut::Join, Some(lp)) => lp.push(e),
            (Cut::Plain, _) => {
                close(&mut tail, &mut nodes);
                nodes.push(QuickNode {
                    container: CONTAINER_PLAIN,
                    bytes: e.to_vec(),
                });
            }
            // A new node (Join finds one open: the cutter opens a node with `tail`).
            _ => {
                close(&mut tail, &mut nodes);
                let mut lp = Listpack::new();
                lp.push(e);
                tail = Some(lp);
            }
        }
    }
    close(&mut tail, &mut nodes);
    put_len(out, nodes.len() as u64);
    let depth = opts.list_compress_depth;
    let n = nodes.len();
    for (i, node) in nodes.iter().enumerate() {
        put_len(out, node.container);
        // `__quicklistCompress` compresses every node outside the `depth` at each end once
        // the list has more than `2 × depth` nodes.
        let inner = depth > 0 && n > 2 * depth && i >= depth && i < n - depth;
        let sz = node.bytes.len();
        let packed = if inner && sz >= MIN_COMPRESS_BYTES {
            lzf::compress(&node.bytes, sz).filter(|c| c.len() + MIN_COMPRESS_IMPROVE < sz)
        } else {
            None
        };
        match packed {
            Some(c) => {
                // `rdbSaveLzfBlob`, whatever `rdbcompression` says.
                out.push(0xc0 | super::enc::LZF);
                put_len(out, c.len() as u64);
                put_len(out, sz as u64);
                out.extend_from_slice(&c);
            }
            None => put_string(out, &node.bytes, opts.compress),
        }
    }
}

/// A stream ID as the 16 big-endian bytes of Redis's radix-tree keys and PEL records.
fn id_bytes(id: StreamId) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&id.ms.to_be_bytes());
    b[8..].copy_from_slice(&id.seq.to_be_bytes());
    b
}

/// `STREAM_ITEM_FLAG_SAMEFIELDS`.
const SAMEFIELDS: i64 = 2;

fn write_stream(out: &mut Vec<u8>, s: &Stream, opts: &SaveOptions) {
    out.push(kind::STREAM_LISTPACKS_2);
    put_len(out, s.node_count() as u64);
    for node in s.node_views() {
        put_string(out, &id_bytes(node.master), opts.compress);
        put_string(out, &stream_node(&node), opts.compress);
    }
    write_stream_meta(out, s, opts);
}

/// A stream node's listpack, as `streamAppendItem` builds it. **O(entries of the node).**
pub(crate) fn stream_node(node: &NodeView<'_>) -> Vec<u8> {
    {
        // The master entry: live count, deleted count, the master fields, a 0.
        let mut lp = Listpack::new();
        lp.push_int(node.entries.len() as i64);
        lp.push_int(0);
        lp.push_int(node.master_fields.len() as i64);
        for f in node.master_fields {
            lp.push(f);
        }
        lp.push_int(0);
        for (id, fields) in &node.entries {
            let same = fields.len() == node.master_fields.len()
                && fields
                    .iter()
                    .zip(node.master_fields)
                    .all(|((f, _), m)| f == m);
            let n = fields.len() as i64;
            lp.push_int(if same { SAMEFIELDS } else { 0 });
            // Unsigned differences stored as signed, as `streamAppendItem` does.
            lp.push_int(id.ms.wrapping_sub(node.master.ms) as i64);
            lp.push_int(id.seq.wrapping_sub(node.master.seq) as i64);
            if !same {
                lp.push_int(n);
            }
            for (f, v) in fields.iter() {
                if !same {
                    lp.push(f);
                }
                lp.push(v);
            }
            lp.push_int(if same { n + 3 } else { 2 * n + 4 });
        }
        lp.finish()
    }
}

/// What follows a stream's nodes: length, IDs, entries added, and the consumer groups.
fn write_stream_meta(out: &mut Vec<u8>, s: &Stream, opts: &SaveOptions) {
    put_len(out, s.len());
    for id in [s.last_id, s.first_id, s.max_deleted_entry_id] {
        put_len(out, id.ms);
        put_len(out, id.seq);
    }
    put_len(out, s.entries_added);
    put_len(out, s.groups.len() as u64);
    for (name, g) in &s.groups {
        put_string(out, name, opts.compress);
        put_len(out, g.last_id.ms);
        put_len(out, g.last_id.seq);
        // -1 (unknown) as the 64-bit length it is in Redis's `rdbSaveLen`.
        put_len(out, g.entries_read as u64);
        put_len(out, g.pel.len() as u64);
        for (id, nack) in &g.pel {
            out.extend_from_slice(&id_bytes(*id));
            out.extend_from_slice(&nack.delivery_time.to_le_bytes());
            put_len(out, nack.delivery_count);
        }
        put_len(out, g.consumers.len() as u64);
        for (cname, c) in &g.consumers {
            put_string(out, cname, opts.compress);
            out.extend_from_slice(&c.seen_time.to_le_bytes());
            put_len(out, c.pending.len() as u64);
            for id in &c.pending {
                out.extend_from_slice(&id_bytes(*id));
            }
        }
    }
}
