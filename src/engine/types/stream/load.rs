//! Building a stream node by node, as an RDB payload holds it (`RESTORE`, a `dump.rdb`
//! being loaded): each listpack node with its master ID and fields, and its entries in
//! the order they were appended, deleted ones included.

use super::{Fields, Node, Stream, StreamId};

/// One entry of a node as loaded: its ID, whether it is flagged deleted, its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedEntry {
    /// The entry's ID.
    pub id: StreamId,
    /// Flagged deleted (a tombstone the node still holds).
    pub deleted: bool,
    /// Field-value pairs (kept for live entries only).
    pub fields: Fields,
}

impl Stream {
    /// Adds a node with master ID `master`, the master entry's `master_fields`, its
    /// `entries` in append order, and `entry_bytes`, the encoded size of those entries in
    /// the listpack. False, with the stream to be thrown away, when the node's master or
    /// a live entry's ID is already there. The caller sets the metadata afterwards and
    /// must then check the whole with [`Stream::check_invariants`] (entries in the ID
    /// range of the node they are in, counts that agree). **O(entries × log N).**
    pub fn load_node(
        &mut self,
        master: StreamId,
        master_fields: Vec<Vec<u8>>,
        entries: Vec<LoadedEntry>,
        entry_bytes: usize,
    ) -> bool {
        if self.nodes.contains_key(&master) {
            return false;
        }
        let mut node = Node {
            live: 0,
            deleted: 0,
            last_id: master,
            master_fields,
            entry_bytes,
            out_of_order: None,
        };
        for e in entries {
            // As `append` records it: an entry below the one appended before it.
            if e.id < node.last_id && node.out_of_order.is_none() {
                node.out_of_order = Some((node.last_id, e.id));
            }
            node.last_id = e.id;
            if e.deleted {
                node.deleted += 1;
                continue;
            }
            node.live += 1;
            if self.entries.insert(e.id, e.fields).is_some() {
                return false;
            }
            if e.id < master {
                self.strays.insert(e.id, master);
            }
        }
        self.nodes.insert(master, node);
        true
    }
}

impl Stream {
    /// True when the nodes loaded hold together, as [`Stream::check_invariants`] checks
    /// them but in **O(N log N)** whatever the strays (a payload can make many): each
    /// stray lies below its node's master; each node's live count is its strays plus the
    /// other entries in its ID range, and none of those is after its last appended ID; no
    /// entry comes before the first node unless it is a stray; nothing is above the
    /// stream's last ID.
    pub fn loaded_whole(&self) -> bool {
        // Per node: how many strays, and the greatest.
        let mut strays_of: std::collections::BTreeMap<StreamId, (u64, StreamId)> =
            Default::default();
        for (id, m) in &self.strays {
            if id >= m || !self.nodes.contains_key(m) {
                return false;
            }
            let e = strays_of.entry(*m).or_insert((0, *id));
            e.0 += 1;
            e.1 = e.1.max(*id);
        }
        let masters: Vec<StreamId> = self.nodes.keys().copied().collect();
        let mut live = 0u64;
        for (i, (m, n)) in self.nodes.iter().enumerate() {
            let next = masters.get(i + 1).copied();
            let in_range = |map_range: &mut dyn Iterator<Item = StreamId>| {
                let (mut count, mut last) = (0u64, None);
                for id in map_range {
                    if !self.strays.contains_key(&id) {
                        count += 1;
                        last = Some(id);
                    }
                }
                (count, last)
            };
            let (count, last) = match next {
                Some(nx) => in_range(&mut self.entries.range(*m..nx).map(|(k, _)| *k)),
                None => in_range(&mut self.entries.range(*m..).map(|(k, _)| *k)),
            };
            let strays = strays_of.get(m).copied();
            if count + strays.map_or(0, |s| s.0) != n.live {
                return false;
            }
            live += n.live;
            // Strays are appended first, so the last appended live entry is the last one
            // in range, or else the greatest stray.
            let last = last.or(strays.map(|s| s.1));
            if last.is_some_and(|l| l > n.last_id) {
                return false;
            }
        }
        if let Some((first, _)) = self.first() {
            if masters.first().is_none_or(|m| *m > first) && !self.strays.contains_key(&first) {
                return false;
            }
        }
        live == self.len() && self.last_valid_id() <= self.last_id
    }
}
