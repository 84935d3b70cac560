//! Consumer groups: a group's pending entries list (`Nack`s) and its consumers.

use super::id::StreamId;
use std::collections::{BTreeMap, BTreeSet};

/// One pending entry of a consumer group (Redis's `streamNACK`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nack {
    /// Unix milliseconds of the last delivery.
    pub delivery_time: i64,
    /// Number of deliveries (shown as a signed 64-bit number, as Redis does).
    pub delivery_count: u64,
    /// The consumer that owns it.
    pub consumer: Vec<u8>,
}

/// A consumer of a group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Consumer {
    /// Unix milliseconds when it last read or claimed (Redis 7.0's `seen_time`).
    pub seen_time: i64,
    /// The IDs it owns in the group's PEL.
    pub pending: BTreeSet<StreamId>,
}

/// A consumer group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The last ID delivered to the group.
    pub last_id: StreamId,
    /// The logical read counter of `last_id`, or -1 when unknown.
    pub entries_read: i64,
    /// The pending entries list.
    pub pel: BTreeMap<StreamId, Nack>,
    /// The consumers by name.
    pub consumers: BTreeMap<Vec<u8>, Consumer>,
}

impl Group {
    /// A group with no pending entries and no consumers.
    pub fn new(last_id: StreamId, entries_read: i64) -> Group {
        Group {
            last_id,
            entries_read,
            pel: BTreeMap::new(),
            consumers: BTreeMap::new(),
        }
    }

    /// Removes `id` from the PEL and from its owner's set; true if it was pending.
    pub fn ack(&mut self, id: StreamId) -> bool {
        match self.pel.remove(&id) {
            Some(n) => {
                if let Some(c) = self.consumers.get_mut(&n.consumer) {
                    c.pending.remove(&id);
                }
                true
            }
            None => false,
        }
    }

    /// Gives pending entry `id` to `consumer` (which must exist), with the time and count
    /// given, creating the PEL entry if there is none.
    pub fn assign(&mut self, id: StreamId, consumer: &[u8], time: i64, count: u64) {
        if let Some(old) = self.pel.get(&id) {
            if old.consumer != consumer {
                let prev = old.consumer.clone();
                if let Some(c) = self.consumers.get_mut(&prev) {
                    c.pending.remove(&id);
                }
            }
        }
        self.pel.insert(
            id,
            Nack {
                delivery_time: time,
                delivery_count: count,
                consumer: consumer.to_vec(),
            },
        );
        if let Some(c) = self.consumers.get_mut(consumer) {
            c.pending.insert(id);
        }
    }

    /// Deletes a consumer with its pending entries; returns how many it had, or `None`.
    pub fn delete_consumer(&mut self, name: &[u8]) -> Option<usize> {
        let c = self.consumers.remove(name)?;
        for id in &c.pending {
            self.pel.remove(id);
        }
        Some(c.pending.len())
    }
}
