//! The stream's nodes as the RDB writer needs them: each node's master ID and master
//! fields, and its live entries in the order they were appended.

use std::collections::BTreeMap;

use super::id::{Fields, StreamId};
use super::Stream;

/// One listpack node of the stream (see the module documentation of [`super`]).
#[derive(Debug, Clone)]
pub struct NodeView<'a> {
    /// The master ID (the radix-tree key the node's entries are delta-encoded against).
    pub master: StreamId,
    /// The master entry's fields: those of the first entry appended to the node.
    pub master_fields: &'a [Vec<u8>],
    /// The live entries, in the order they were appended.
    pub entries: Vec<(StreamId, &'a Fields)>,
}

impl Stream {
    /// The nodes in master-ID order, each with its live entries in append order.
    /// **O(N + nodes)** over the whole iteration.
    pub fn node_views(&self) -> impl Iterator<Item = NodeView<'_>> {
        // Strays grouped by node once, so the walk stays linear.
        let mut strays: BTreeMap<StreamId, Vec<StreamId>> = BTreeMap::new();
        for (id, master) in &self.strays {
            strays.entry(*master).or_default().push(*id);
        }
        let masters: Vec<StreamId> = self.nodes.keys().copied().collect();
        self.nodes
            .iter()
            .enumerate()
            .map(move |(i, (master, node))| {
                let mut entries = Vec::with_capacity(node.live as usize);
                for id in strays.get(master).into_iter().flatten() {
                    if let Some(f) = self.entries.get(id) {
                        entries.push((*id, f));
                    }
                }
                let range = match masters.get(i + 1) {
                    Some(next) => self.entries.range(*master..*next),
                    None => self.entries.range(*master..),
                };
                entries.extend(
                    range
                        .filter(|(id, _)| !self.strays.contains_key(id))
                        .map(|(id, f)| (*id, f)),
                );
                NodeView {
                    master: *master,
                    master_fields: &node.master_fields,
                    entries,
                }
            })
    }
}
