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
