//! Read-only inspection of the keyspace, for tools that show data rather than run commands
//! (the web app's keyspace browser and value views).
//!
//! Nothing here changes the engine: no lazy expiry, no access-time update, no statistics,
//! no effects — looking at data must not alter what the next command sees. Expired keys
//! that were not yet removed are reported with a negative remaining TTL; callers hide them.
//!
//! Three parts:
//! - [`KeyIndex`]: the keys of one database kept **sorted**, updated from the keys each
//!   write touched ([`touched_keys`]) instead of re-reading the whole database, and cut into
//!   [`Row`]s of a tree grouped by a delimiter (`user:1:name` under `user:` → `user:1:`).
//!   Every folder's keys are one contiguous run of the sorted vector, so a collapsed folder
//!   and its count cost one binary search, whatever it holds: a tree over 100,000 keys is
//!   built in time proportional to the rows shown, not to the keys.
//! - [`snapshot`]: a bounded copy of one value ([`ValueView`]) for display.
//! - [`KeyMeta`]/[`meta`]: a key's type and deadline, looked up without touching it.

use super::keyspace::{Db, Entry, Key};
use super::table::{self, Touches};
use super::types::stream::{Fields, Stream, StreamId};
use super::types::{hll, Value};
use super::Effect;

/// The type and deadline of a key, as `TYPE` and `PTTL` would tell, plus the kinds of
/// string the views treat apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyMeta {
    /// What the key holds.
    pub kind: Kind,
    /// Absolute deadline in Unix milliseconds, if volatile.
    pub expire_at: Option<i64>,
}

/// What a key holds, as the browser badges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    String,
    /// A string that is a HyperLogLog (starts with the `HYLL` header).
    Hll,
    /// A list.
    List,
    /// A set.
    Set,
    /// A sorted set.
    ZSet,
    /// A hash.
    Hash,
    /// A type the views do not know yet (its `TYPE` name).
    Other(&'static str),
}

impl Kind {
    /// The kind of a stored value.
    pub fn of(value: &Value) -> Kind {
        #[allow(unreachable_patterns)]
        match value {
            Value::Str(s) if s.as_bytes().starts_with(b"HYLL") => Kind::Hll,
            Value::Str(_) => Kind::String,
            Value::List(_) => Kind::List,
            Value::Set(_) => Kind::Set,
            Value::ZSet(_) => Kind::ZSet,
            Value::Hash(_) => Kind::Hash,
            // New types (streams) land here until they get a view of their own.
            other => Kind::Other(other.type_name()),
        }
    }

    /// The `TYPE` name (`hll` for HyperLogLogs, which Redis calls `string`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Hll => "hll",
            Kind::List => "list",
            Kind::Set => "set",
            Kind::ZSet => "zset",
            Kind::Hash => "hash",
            Kind::Other(name) => name,
        }
    }
}

/// The type and deadline of `key` in `db`, without any expiry check. **O(1).**
pub fn meta(db: &Db, key: &[u8]) -> Option<KeyMeta> {
    db.get_raw(key).map(|e: &Entry| KeyMeta {
        kind: Kind::of(&e.value),
        expire_at: e.expire_at(),
    })
}

/// A key's size as a learner asks for it: what the type's length command replies
/// (`STRLEN`, `LLEN`, `SCARD`, `ZCARD`, `HLEN`, `XLEN`; a HyperLogLog's `STRLEN` too) and
/// the bytes `MEMORY USAGE` reports. Without expiring the key. O(1) for the length, plus
/// `MEMORY USAGE`'s five samples.
pub fn footprint(db: &Db, key: &[u8]) -> Option<Footprint> {
    let e = db.get_raw(key)?;
    let len = match &e.value {
        Value::Str(s) => s.len() as u64,
        Value::Hash(h) => h.len() as u64,
        Value::List(l) => l.len() as u64,
        Value::Set(s) => s.len() as u64,
        Value::ZSet(z) => z.len() as u64,
        Value::Stream(s) => s.len(),
    };
    Some(Footprint {
        len,
        memory: super::core::memory::memory_usage_bytes(
            key,
            e,
            super::core::memory::DEFAULT_SAMPLES,
            super::core::memory::Shape::default(),
        ),
    })
}

/// What [`footprint`] measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes for a string, elements (entries, fields, members) for a collection.
    pub len: u64,
    /// `MEMORY USAGE`'s estimate, in bytes.
    pub memory: u64,
}

/// The keys a write effect may have changed, found from the command table's key positions
/// (`MULTI`/`EXEC` and commands without keys touch none). `None` when the effect changes keys
/// the table cannot name — `FLUSHDB`, `FLUSHALL`, `SWAPDB`, `MOVE`'s destination, an
/// unknown command — and the caller must re-read the database.
pub fn touched_keys(effect: &Effect) -> Option<Vec<&[u8]>> {
    let name = effect.argv.first()?;
    let cmd = table::lookup(name)?;
    if cmd.touches == Touches::Nothing {
        return Some(Vec::new());
    }
    if cmd.touches == Touches::Unnamed {
        return None;
    }
    let positions = cmd.key_positions(effect.argv.len());
    if positions.is_empty() {
        return None;
    }
    Some(
        positions
            .into_iter()
            .filter_map(|i| effect.argv.get(i).map(Vec::as_slice))
            .collect(),
    )
}

/// One line of the keyspace tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Nesting level, 0 at the top.
    pub depth: usize,
    /// What the line stands for.
    pub node: Node,
}

/// A folder or a key in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Keys sharing `prefix` (which ends with the delimiter).
    Folder {
        /// The shared prefix, delimiter included (`user:`).
        prefix: Key,
        /// The segment shown (`user`).
        label: Key,
        /// Keys under it, at any depth.
        count: usize,
        /// True if its children are shown.
        open: bool,
    },
    /// One key.
    Key {
        /// The whole key.
        key: Key,
        /// The part after the parent folder's prefix.
        label: Key,
    },
}

/// The keys of one database, sorted bytewise, with an optional glob filter and the set of
/// open folders. See the module documentation for costs.
#[derive(Debug, Clone, Default)]
pub struct KeyIndex {
    /// Every key, sorted.
    all: Vec<Key>,
    /// The keys matching `filter`, sorted; unused while there is no filter.
    matching: Vec<Key>,
    filter: Option<Key>,
    /// Prefixes of the open folders.
    open: std::collections::BTreeSet<Key>,
}

impl KeyIndex {
    /// Re-reads every key of `db`. **O(n log n).**
    pub fn rebuild(&mut self, db: &Db) {
        self.all = db.iter().map(|(k, _)| k.to_vec()).collect();
        self.all.sort_unstable();
        self.refilter();
    }

    /// Brings `key` up to date with `db`: adds it if it exists there, removes it if not.
    /// **O(log n)** to find it, plus moving the tail of the vector when it is added or
    /// removed.
    pub fn update(&mut self, db: &Db, key: &[u8]) {
        let present = db.get_raw(key).is_some();
        let matches = self.filter_matches(key);
        upsert(&mut self.all, key, present);
        if self.filter.is_some() {
            upsert(&mut self.matching, key, present && matches);
        }
    }

    /// Sets the glob filter (`SCAN … MATCH` semantics); an empty pattern or `*` shows all.
    /// **O(n)** in the keys.
    pub fn set_filter(&mut self, pattern: &[u8]) {
        self.filter = match pattern {
            b"" | b"*" => None,
            p => Some(p.to_vec()),
        };
        self.refilter();
    }

    fn filter_matches(&self, key: &[u8]) -> bool {
        self.filter
            .as_deref()
            .is_none_or(|p| super::glob::matches(p, key, false))
    }

    fn refilter(&mut self) {
        self.matching = match &self.filter {
            Some(p) => self
                .all
                .iter()
                .filter(|k| super::glob::matches(p, k, false))
                .cloned()
                .collect(),
            None => Vec::new(),
        };
    }

    /// Number of keys in the database.
    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// True when the database has no keys.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// The keys shown: those matching the filter, sorted.
    pub fn shown(&self) -> &[Key] {
        if self.filter.is_some() {
            &self.matching
        } else {
            &self.all
        }
    }

    /// Opens or closes the folder with `prefix`.
    pub fn toggle(&mut self, prefix: &[u8]) {
        if !self.open.remove(prefix) {
            self.open.insert(prefix.to_vec());
        }
    }

    /// True if the folder with `prefix` is open.
    pub fn is_open(&self, prefix: &[u8]) -> bool {
        self.open.contains(prefix)
    }

    /// The shown keys that start with `prefix`, sorted (for completing key names).
    /// **O(log n)** plus the keys returned.
    pub fn with_prefix(&self, prefix: &[u8]) -> &[Key] {
        let keys = &self.all;
        let start = keys.partition_point(|k| k.as_slice() < prefix);
        let len = keys
            .get(start..)
            .map_or(0, |rest| rest.partition_point(|k| k.starts_with(prefix)));
        keys.get(start..start + len).unwrap_or(&[])
    }

    /// The rows of the tree grouped by `delim`, open folders expanded. An empty `delim`
    /// gives the flat list. **O(r log n)** for r rows.
    pub fn rows(&self, delim: &[u8]) -> Vec<Row> {
        let mut rows = Vec::new();
        let keys = self.shown();
        if delim.is_empty() {
            rows.extend(keys.iter().map(|k| Row {
                depth: 0,
                node: Node::Key {
                    key: k.clone(),
                    label: k.clone(),
                },
            }));
        } else {
            self.level(keys, &[], 0, delim, &mut rows);
        }
        rows
    }

    /// Appends the rows of the keys in `keys` (all starting with `prefix`).
    fn level(&self, keys: &[Key], prefix: &[u8], depth: usize, delim: &[u8], rows: &mut Vec<Row>) {
        let mut i = 0;
        while let Some(key) = keys.get(i) {
            let rest = key.get(prefix.len()..).unwrap_or(&[]);
            let Some(at) = find(rest, delim) else {
                rows.push(Row {
                    depth,
                    node: Node::Key {
                        key: key.clone(),
                        label: rest.to_vec(),
                    },
                });
                i += 1;
                continue;
            };
            let mut sub = key
                .get(..prefix.len() + at + delim.len())
                .unwrap_or(key)
                .to_vec();
            let tail = keys.get(i..).unwrap_or(&[]);
            let count = tail.partition_point(|k| k.starts_with(&sub));
            let open = self.open.contains(&sub);
            let children = tail.get(..count).unwrap_or(&[]);
            rows.push(Row {
                depth,
                node: Node::Folder {
                    prefix: sub.clone(),
                    label: rest.get(..at).unwrap_or(rest).to_vec(),
                    count,
                    open,
                },
            });
            if open {
                self.level(children, &sub, depth + 1, delim, rows);
            }
            sub.clear();
            i += count.max(1);
        }
    }
}

/// Inserts `key` into the sorted `keys` if `present`, removes it otherwise.
fn upsert(keys: &mut Vec<Key>, key: &[u8], present: bool) {
    match (keys.binary_search_by(|k| k.as_slice().cmp(key)), present) {
        (Err(at), true) => keys.insert(at, key.to_vec()),
        (Ok(at), false) => {
            keys.remove(at);
        }
        _ => {}
    }
}

/// Position of the first `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A bounded copy of a value for display: at most `limit` elements, with the full size.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueView {
    /// A string's bytes (at most `limit` × 64 bytes) and its full length.
    String(Vec<u8>, usize),
    /// A HyperLogLog: its cardinality estimate, encoding and size in bytes. `None` for a
    /// corrupt one.
    Hll(Option<u64>, &'static str, usize),
    /// A list's first elements, head first, and its length.
    List(Vec<Vec<u8>>, usize),
    /// A set's first members in storage order and its size.
    Set(Vec<Vec<u8>>, usize),
    /// A sorted set's first members by rank, with scores, and its size.
    ZSet(Vec<(Vec<u8>, f64)>, usize),
    /// A hash's first fields in storage order, with values, and its size.
    Hash(Vec<(Vec<u8>, Vec<u8>)>, usize),
    /// A stream: its last entries and consumer groups (see [`StreamView`]).
    Stream(Box<StreamView>),
    /// A type without a view yet: its `TYPE` name.
    Other(&'static str),
}

/// How many of a stream's last entries [`snapshot`] copies (at most `limit`).
pub const STREAM_ENTRIES: usize = 100;
/// How many pending entries per group [`snapshot`] copies.
pub const STREAM_PENDING: usize = 50;
/// How many groups, and consumers per group, [`snapshot`] copies.
pub const STREAM_GROUPS: usize = 20;

/// A bounded copy of a stream for display.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamView {
    /// The last entries (at most [`STREAM_ENTRIES`]), oldest first: ID and field-value pairs.
    pub entries: Vec<(StreamId, Fields)>,
    /// The number of entries.
    pub len: u64,
    /// The greatest ID ever added.
    pub last_id: StreamId,
    /// How many entries were ever added.
    pub entries_added: u64,
    /// The first groups by name (at most [`STREAM_GROUPS`]).
    pub groups: Vec<GroupView>,
    /// The number of groups.
    pub group_count: usize,
}

/// A bounded copy of one consumer group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupView {
    /// The group's name.
    pub name: Vec<u8>,
    /// Its last delivered ID.
    pub last_delivered: StreamId,
    /// Its logical read counter, -1 when unknown.
    pub entries_read: i64,
    /// Entries not yet delivered, `None` when it cannot be known.
    pub lag: Option<i64>,
    /// The first consumers by name (at most [`STREAM_GROUPS`]) with their pending counts.
    pub consumers: Vec<(Vec<u8>, usize)>,
    /// The first pending entries by ID (at most [`STREAM_PENDING`]): ID, consumer,
    /// delivery count.
    pub pending: Vec<(StreamId, Vec<u8>, u64)>,
    /// The size of the pending entries list.
    pub pending_count: usize,
}

/// The bounded copy of a stream: **O(limit + groups × (consumers + pending))**, each bounded.
fn stream_view(st: &Stream, limit: usize) -> StreamView {
    let mut entries: Vec<(StreamId, Fields)> = st
        .range(StreamId::MIN, StreamId::MAX)
        .rev()
        .take(limit.min(STREAM_ENTRIES))
        .map(|(id, f)| (*id, f.clone()))
        .collect();
    entries.reverse();
    let groups = st
        .groups
        .iter()
        .take(STREAM_GROUPS)
        .map(|(name, g)| GroupView {
            name: name.clone(),
            last_delivered: g.last_id,
            entries_read: g.entries_read,
            lag: st.lag(g),
            consumers: g
                .consumers
                .iter()
                .take(STREAM_GROUPS)
                .map(|(n, c)| (n.clone(), c.pending.len()))
                .collect(),
            pending: g
                .pel
                .iter()
                .take(STREAM_PENDING)
                .map(|(id, n)| (*id, n.consumer.clone(), n.delivery_count))
                .collect(),
            pending_count: g.pel.len(),
        })
        .collect();
    StreamView {
        entries,
        len: st.len(),
        last_id: st.last_id,
        entries_added: st.entries_added,
        groups,
        group_count: st.groups.len(),
    }
}

/// A copy of the value of `key` in `db` with at most `limit` elements (strings: `limit`
/// × 64 bytes), without touching the key. `None` if there is no such key. **O(limit)**.
pub fn snapshot(db: &Db, key: &[u8], limit: usize) -> Option<ValueView> {
    let e = db.get_raw(key)?;
    #[allow(unreachable_patterns)]
    Some(match &e.value {
        Value::Str(s) if s.as_bytes().starts_with(b"HYLL") => ValueView::Hll(
            hll::count(s.as_bytes()).ok(),
            match hll::check(s.as_bytes()) {
                Ok(hll::Encoding::Dense) => "dense",
                Ok(hll::Encoding::Sparse) => "sparse",
                Err(_) => "invalid",
            },
            s.len(),
        ),
        Value::Str(s) => {
            let cap = limit.saturating_mul(64);
            let shown = s.as_bytes().get(..cap).unwrap_or(s.as_bytes());
            ValueView::String(shown.to_vec(), s.len())
        }
        Value::List(l) => ValueView::List(
            l.range(0, limit as i64 - 1).map(<[u8]>::to_vec).collect(),
            l.len(),
        ),
        Value::Set(s) => {
            ValueView::Set(s.iter().take(limit).map(<[u8]>::to_vec).collect(), s.len())
        }
        Value::ZSet(z) => ValueView::ZSet(
            z.iter().take(limit).map(|(m, s)| (m.to_vec(), s)).collect(),
            z.len(),
        ),
        Value::Hash(h) => ValueView::Hash(
            h.iter()
                .take(limit)
                .map(|(f, v)| (f.to_vec(), v.to_vec()))
                .collect(),
            h.len(),
        ),
        Value::Stream(st) => ValueView::Stream(Box::new(stream_view(st, limit))),
        // Later types: the views show their type until they get a view.
        other => ValueView::Other(other.type_name()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::types::stream::Group;
    use crate::engine::types::StrValue;

    /// The key browser's figures are the console's: `inspect::footprint` gives what
    /// `MEMORY USAGE` and the type's length command reply, sampled collections included.
    #[test]
    fn footprint_matches_memory_usage_and_the_length_commands() {
        let mut e = crate::engine::Engine::new(Box::new(crate::engine::ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let long: Vec<String> = (0..100)
            .map(|i| format!("element-{i:0>width$}", width = i % 7))
            .collect();
        run_line(&mut e, a, &format!("RPUSH long {}", long.join(" ")));
        for (setup, key, len) in [
            ("SET s hello", "s", "STRLEN s"),
            ("RPUSH l a b c", "l", "LLEN l"),
            ("SADD st a b", "st", "SCARD st"),
            ("ZADD z 1 a", "z", "ZCARD z"),
            ("HSET h f v g w", "h", "HLEN h"),
            ("XADD x 1-1 f v", "x", "XLEN x"),
            ("PFADD p a b", "p", "STRLEN p"),
            ("PING", "long", "LLEN long"),
        ] {
            run_line(&mut e, a, setup);
            let fp = footprint(&e.server().dbs[0], key.as_bytes()).expect(key);
            let usage = run_line(&mut e, a, &format!("MEMORY USAGE {key}"));
            assert_eq!(
                usage,
                crate::engine::Reply::Integer(fp.memory as i64),
                "{key}"
            );
            assert_eq!(
                run_line(&mut e, a, len),
                crate::engine::Reply::Integer(fp.len as i64),
                "{key}"
            );
        }
    }

    fn run_line(
        e: &mut crate::engine::Engine,
        c: crate::engine::ClientId,
        line: &str,
    ) -> crate::engine::Reply {
        e.execute(c, crate::engine::cli::split_args(line).expect("valid line"))
    }

    fn db(keys: &[&str]) -> Db {
        let mut db = Db::default();
        for k in keys {
            let v = Value::Str(StrValue::new(b"v".to_vec()));
            db.set(k.as_bytes(), v, false, 0);
        }
        db
    }

    #[test]
    fn stream_snapshot_keeps_last_entries_and_bounded_pending() {
        let mut st = Stream::new();
        for i in 1..=150u64 {
            let f = vec![(b"n".to_vec(), i.to_string().into_bytes())];
            st.append(StreamId::new(i, 0), f, 100, 0).expect("append");
        }
        let mut g = Group::new(StreamId::new(60, 0), 60);
        for c in [&b"al"[..], b"bob"] {
            g.consumers.insert(c.to_vec(), Default::default());
        }
        for i in 1..=60u64 {
            g.assign(
                StreamId::new(i, 0),
                if i % 2 == 0 { b"bob" } else { b"al" },
                0,
                1,
            );
        }
        st.groups.insert(b"g1".to_vec(), g);
        let mut d = Db::default();
        d.set(b"s", Value::Stream(Box::new(st)), false, 0);
        let Some(ValueView::Stream(v)) = snapshot(&d, b"s", 1000) else {
            panic!("not a stream view");
        };
        assert_eq!(
            (v.len, v.last_id, v.entries_added),
            (150, StreamId::new(150, 0), 150)
        );
        assert_eq!(v.entries.len(), STREAM_ENTRIES);
        assert_eq!(v.entries.first().map(|e| e.0), Some(StreamId::new(51, 0)));
        assert_eq!(v.entries.last().map(|e| e.0), Some(StreamId::new(150, 0)));
        assert_eq!(v.group_count, 1);
        let g = &v.groups[0];
        assert_eq!(
            (g.name.as_slice(), g.last_delivered, g.entries_read),
            (&b"g1"[..], StreamId::new(60, 0), 60)
        );
        assert_eq!(g.lag, Some(90));
        assert_eq!(
            g.consumers,
            vec![(b"al".to_vec(), 30), (b"bob".to_vec(), 30)]
        );
        assert_eq!((g.pending.len(), g.pending_count), (STREAM_PENDING, 60));
        assert_eq!(g.pending[0], (StreamId::new(1, 0), b"al".to_vec(), 1));
        // A small limit bounds the entries too.
        let Some(ValueView::Stream(v)) = snapshot(&d, b"s", 3) else {
            panic!("not a stream view");
        };
        assert_eq!(v.entries.len(), 3);
    }

    fn labels(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| match &r.node {
                Node::Folder { label, count, .. } => format!(
                    "{}{}/ ({count})",
                    "  ".repeat(r.depth),
                    String::from_utf8_lossy(label)
                ),
                Node::Key { label, .. } => {
                    format!("{}{}", "  ".repeat(r.depth), String::from_utf8_lossy(label))
                }
            })
            .collect()
    }

    #[test]
    fn tree_groups_by_delimiter_and_counts_folders() {
        let d = db(&[
            "user:1:name",
            "user:1:age",
            "user:2:name",
            "plain",
            "user",
            "z:",
        ]);
        let mut ix = KeyIndex::default();
        ix.rebuild(&d);
        assert_eq!(
            labels(&ix.rows(b":")),
            ["plain", "user", "user/ (3)", "z/ (1)"]
        );
        ix.toggle(b"user:");
        ix.toggle(b"user:1:");
        assert_eq!(
            labels(&ix.rows(b":")),
            [
                "plain",
                "user",
                "user/ (3)",
                "  1/ (2)",
                "    age",
                "    name",
                "  2/ (1)",
                "z/ (1)"
            ]
        );
        // The flat list and the filter.
        assert_eq!(ix.rows(b"").len(), 6);
        ix.set_filter(b"user:*:name");
        assert_eq!(ix.shown().len(), 2);
        assert_eq!(ix.with_prefix(b"user:1").len(), 2);
    }

    #[test]
    fn updates_follow_the_database() {
        let mut d = db(&["a", "b"]);
        let mut ix = KeyIndex::default();
        ix.rebuild(&d);
        ix.set_filter(b"c*");
        d.set(b"c1", Value::Str(StrValue::new(b"v".to_vec())), false, 0);
        ix.update(&d, b"c1");
        d.remove(b"a");
        ix.update(&d, b"a");
        assert_eq!(ix.len(), 2);
        assert_eq!(ix.shown(), [b"c1".to_vec()]);
        assert_eq!(meta(&d, b"c1").map(|m| m.kind), Some(Kind::String));
    }

    #[test]
    fn touched_keys_come_from_the_table() {
        let e = |argv: &[&str]| Effect {
            db: 0,
            argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        };
        assert_eq!(
            touched_keys(&e(&["MSET", "a", "1", "b", "2"])),
            Some(vec![&b"a"[..], b"b"])
        );
        assert_eq!(touched_keys(&e(&["FLUSHALL"])), None);
        assert_eq!(touched_keys(&e(&["MULTI"])), Some(vec![]));
    }

    #[test]
    fn a_hundred_thousand_keys_give_a_small_collapsed_tree() {
        let names: Vec<String> = (0..100_000).map(|i| format!("user:{i}:name")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut ix = KeyIndex::default();
        ix.rebuild(&db(&refs));
        let rows = ix.rows(b":");
        assert_eq!(rows.len(), 1);
        assert!(matches!(rows[0].node, Node::Folder { count: 100_000, .. }));
    }
}
