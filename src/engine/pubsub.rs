//! Publish/subscribe: who listens to what, message delivery, and keyspace notifications.
//!
//! # Representation
//! As in Redis's `pubsub.c`, each kind of subscription is indexed both ways:
//!
//! * channel → subscribers, in subscription order (delivery order), for `SUBSCRIBE` and,
//!   separately, for the shard channels of `SSUBSCRIBE` (a different namespace: `PUBLISH`
//!   does not reach `SSUBSCRIBE`rs and `SPUBLISH` does not reach `SUBSCRIBE`rs);
//! * pattern → subscribers, in the order patterns were first subscribed; `PUBLISH` matches
//!   every pattern against the channel with [`glob::matches`] (**O(patterns)**, as Redis);
//! * client → its channels, patterns and shard channels, in subscription order, so that
//!   `UNSUBSCRIBE` without arguments, `RESET` and disconnecting are O(its subscriptions).
//!
//! Index sets keep both orders and give O(1) membership; removal uses `shift_remove` to keep
//! the order (O(n) in that set, as Redis's list search).
//!
//! # Delivery
//! [`Server::publish`](crate::engine::Server::publish) appends a message to each receiver's queue in
//! [`Server::outboxes`](crate::engine::Server::outboxes) as a [`Reply::Push`](crate::engine::Reply::Push) (a RESP3 push;
//! RESP2 clients receive the same elements as an array). The receiver may be the client that
//! is publishing (RESP3 allows commands while subscribed): its message is queued before the
//! command's own reply, as Redis writes it.
//!
//! # Keyspace notifications
//! [`Server::notify_keyspace_event`](crate::engine::Server::notify_keyspace_event) is Redis's `notifyKeyspaceEvent`: if the event's class is
//! enabled by `notify-keyspace-events`, it publishes `<event>` on `__keyspace@<db>__:<key>`
//! (flag `K`) and `<key>` on `__keyevent@<db>__:<event>` (flag `E`). Handlers call it through
//! [`crate::engine::Ctx::notify`] with Redis's event names; the class bits are in
//! [`class`].

use foldhash::HashMap;

use indexmap::{IndexMap, IndexSet};

use super::glob;
use super::ClientId;

/// The keyspace-event classes of `notify-keyspace-events`, with Redis's `NOTIFY_*` values.
pub mod class {
    /// `K`: publish on `__keyspace@<db>__:<key>`.
    pub const KEYSPACE: u32 = 1 << 0;
    /// `E`: publish on `__keyevent@<db>__:<event>`.
    pub const KEYEVENT: u32 = 1 << 1;
    /// `g`: generic commands (DEL, EXPIRE, RENAME, …).
    pub const GENERIC: u32 = 1 << 2;
    /// `$`: string commands.
    pub const STRING: u32 = 1 << 3;
    /// `l`: list commands.
    pub const LIST: u32 = 1 << 4;
    /// `s`: set commands.
    pub const SET: u32 = 1 << 5;
    /// `h`: hash commands.
    pub const HASH: u32 = 1 << 6;
    /// `z`: sorted-set commands.
    pub const ZSET: u32 = 1 << 7;
    /// `x`: a key expired.
    pub const EXPIRED: u32 = 1 << 8;
    /// `e`: a key was evicted.
    pub const EVICTED: u32 = 1 << 9;
    /// `t`: stream commands.
    pub const STREAM: u32 = 1 << 10;
    /// `m`: a read found no key (not part of `A`).
    pub const KEY_MISS: u32 = 1 << 11;
    /// `d`: module events.
    pub const MODULE: u32 = 1 << 13;
    /// `n`: a key was created (not part of `A`).
    pub const NEW: u32 = 1 << 14;
    /// `A`: `g$lshzxetd`.
    pub const ALL: u32 =
        GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;
}

/// What one client is subscribed to.
#[derive(Debug, Default, Clone)]
struct Subscriptions {
    channels: IndexSet<Vec<u8>>,
    patterns: IndexSet<Vec<u8>>,
    shard: IndexSet<Vec<u8>>,
}

/// Which namespace a channel subscription is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `SUBSCRIBE` / `PUBLISH` channels.
    Channel,
    /// `SSUBSCRIBE` / `SPUBLISH` shard channels.
    Shard,
}

/// Every subscription of every client.
#[derive(Debug, Default)]
pub struct PubSub {
    channels: HashMap<Vec<u8>, IndexSet<ClientId>>,
    shard: HashMap<Vec<u8>, IndexSet<ClientId>>,
    patterns: IndexMap<Vec<u8>, IndexSet<ClientId>>,
    clients: HashMap<ClientId, Subscriptions>,
}

impl PubSub {
    fn index(&mut self, kind: Kind) -> &mut HashMap<Vec<u8>, IndexSet<ClientId>> {
        match kind {
            Kind::Channel => &mut self.channels,
            Kind::Shard => &mut self.shard,
        }
    }

    /// Subscribes `id` to `channel`; false if it already was. **O(1).**
    pub fn subscribe(&mut self, id: ClientId, channel: &[u8], kind: Kind) -> bool {
        let subs = self.clients.entry(id).or_default();
        let set = match kind {
            Kind::Channel => &mut subs.channels,
            Kind::Shard => &mut subs.shard,
        };
        if !set.insert(channel.to_vec()) {
            return false;
        }
        self.index(kind)
            .entry(channel.to_vec())
            .or_default()
            .insert(id);
        true
    }

    /// Unsubscribes `id` from `channel`; false if it was not subscribed. **O(subscribers of
    /// the channel).**
    pub fn unsubscribe(&mut self, id: ClientId, channel: &[u8], kind: Kind) -> bool {
        let Some(subs) = self.clients.get_mut(&id) else {
            return false;
        };
        let set = match kind {
            Kind::Channel => &mut subs.channels,
            Kind::Shard => &mut subs.shard,
        };
        if !set.shift_remove(channel) {
            return false;
        }
        self.forget_if_idle(id);
        let index = self.index(kind);
        if let Some(list) = index.get_mut(channel) {
            list.shift_remove(&id);
            if list.is_empty() {
                index.remove(channel);
            }
        }
        true
    }

    /// Subscribes `id` to `pattern`; false if it already was. **O(1).**
    pub fn psubscribe(&mut self, id: ClientId, pattern: &[u8]) -> bool {
        if !self
            .clients
            .entry(id)
            .or_default()
            .patterns
            .insert(pattern.to_vec())
        {
            return false;
        }
        self.patterns
            .entry(pattern.to_vec())
            .or_default()
            .insert(id);
        true
    }

    /// Unsubscribes `id` from `pattern`; false if it was not subscribed. **O(patterns).**
    pub fn punsubscribe(&mut self, id: ClientId, pattern: &[u8]) -> bool {
        let Some(subs) = self.clients.get_mut(&id) else {
            return false;
        };
        if !subs.patterns.shift_remove(pattern) {
            return false;
        }
        self.forget_if_idle(id);
        if let Some(list) = self.patterns.get_mut(pattern) {
            list.shift_remove(&id);
            if list.is_empty() {
                self.patterns.shift_remove(pattern);
            }
        }
        true
    }

    fn forget_if_idle(&mut self, id: ClientId) {
        if self
            .clients
            .get(&id)
            .is_some_and(|s| s.channels.is_empty() && s.patterns.is_empty() && s.shard.is_empty())
        {
            self.clients.remove(&id);
        }
    }

    /// The channels (or shard channels) `id` is subscribed to, in subscription order.
    pub fn channels_of(&self, id: ClientId, kind: Kind) -> Vec<Vec<u8>> {
        self.clients.get(&id).map_or_else(Vec::new, |s| {
            let set = match kind {
                Kind::Channel => &s.channels,
                Kind::Shard => &s.shard,
            };
            set.iter().cloned().collect()
        })
    }

    /// The patterns `id` is subscribed to, in subscription order.
    pub fn patterns_of(&self, id: ClientId) -> Vec<Vec<u8>> {
        self.clients
            .get(&id)
            .map_or_else(Vec::new, |s| s.patterns.iter().cloned().collect())
    }

    /// Redis's `clientSubscriptionsCount`: channels plus patterns of `id` (the count
    /// `SUBSCRIBE`/`PSUBSCRIBE` confirmations carry).
    pub fn count(&self, id: ClientId) -> usize {
        self.clients
            .get(&id)
            .map_or(0, |s| s.channels.len() + s.patterns.len())
    }

    /// Channels, patterns and shard channels of `id` (`sub=`, `psub=`, `ssub=` in `CLIENT
    /// LIST`).
    pub fn counts(&self, id: ClientId) -> (usize, usize, usize) {
        self.clients.get(&id).map_or((0, 0, 0), |s| {
            (s.channels.len(), s.patterns.len(), s.shard.len())
        })
    }

    /// Shard channels of `id` (the count `SSUBSCRIBE` confirmations carry).
    pub fn shard_count(&self, id: ClientId) -> usize {
        self.clients.get(&id).map_or(0, |s| s.shard.len())
    }

    /// Every subscription of `id`, of all kinds: non-zero puts a client in Redis's pub/sub
    /// mode (`CLIENT_PUBSUB`), with the RESP2 command restrictions and the `pubsub` output
    /// limits. **O(1).**
    pub fn total(&self, id: ClientId) -> usize {
        self.clients
            .get(&id)
            .map_or(0, |s| s.channels.len() + s.patterns.len() + s.shard.len())
    }

    /// Drops every subscription of `id` (on `RESET` and disconnect).
    pub fn remove_client(&mut self, id: ClientId) {
        for ch in self.channels_of(id, Kind::Channel) {
            self.unsubscribe(id, &ch, Kind::Channel);
        }
        for ch in self.channels_of(id, Kind::Shard) {
            self.unsubscribe(id, &ch, Kind::Shard);
        }
        for p in self.patterns_of(id) {
            self.punsubscribe(id, &p);
        }
        self.clients.remove(&id);
    }

    /// Active channels (with at least one subscriber) matching `pattern` (all when `None`).
    /// **O(channels).**
    pub fn active_channels(&self, pattern: Option<&[u8]>, kind: Kind) -> Vec<Vec<u8>> {
        let index = match kind {
            Kind::Channel => &self.channels,
            Kind::Shard => &self.shard,
        };
        let mut out: Vec<Vec<u8>> = index
            .keys()
            .filter(|c| pattern.is_none_or(|p| glob::matches(p, c, false)))
            .cloned()
            .collect();
        // Redis lists them in hash-table order, which is unspecified; sorted is stable.
        // (`sort_unstable`: the same order, as equal names are equal, and the same compiled
        // sort as the key index's.)
        out.sort_unstable();
        out
    }

    /// Number of channels (or shard channels) with at least one subscriber (`INFO`'s
    /// `pubsub_channels`). **O(1).**
    pub fn channel_count(&self, kind: Kind) -> usize {
        match kind {
            Kind::Channel => self.channels.len(),
            Kind::Shard => self.shard.len(),
        }
    }

    /// Number of subscribers of `channel`, patterns not counted. **O(1).**
    pub fn numsub(&self, channel: &[u8], kind: Kind) -> usize {
        let index = match kind {
            Kind::Channel => &self.channels,
            Kind::Shard => &self.shard,
        };
        index.get(channel).map_or(0, IndexSet::len)
    }

    /// Number of distinct patterns subscribed by anyone.
    pub fn numpat(&self) -> usize {
        self.patterns.len()
    }

    /// The subscribers of `channel` in namespace `kind`, in subscription (delivery) order.
    pub fn subscribers(&self, channel: &[u8], kind: Kind) -> Option<&IndexSet<ClientId>> {
        match kind {
            Kind::Channel => self.channels.get(channel),
            Kind::Shard => self.shard.get(channel),
        }
    }

    /// Every pattern with its subscribers, in the order patterns were first subscribed.
    pub fn patterns(&self) -> impl Iterator<Item = (&Vec<u8>, &IndexSet<ClientId>)> {
        self.patterns.iter()
    }

    /// Number of clients with at least one subscription (for tests: nothing left behind).
    pub fn client_count(&self) -> usize {
        self.clients.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_indexes_agree_and_empty_entries_go_away() {
        let mut p = PubSub::default();
        assert!(p.subscribe(1, b"a", Kind::Channel));
        assert!(!p.subscribe(1, b"a", Kind::Channel));
        assert!(p.subscribe(2, b"a", Kind::Channel));
        assert!(p.subscribe(1, b"a", Kind::Shard));
        assert!(p.psubscribe(1, b"a*"));
        assert_eq!((p.count(1), p.shard_count(1), p.total(1)), (2, 1, 3));
        assert_eq!(p.numsub(b"a", Kind::Channel), 2);
        assert_eq!(p.numsub(b"a", Kind::Shard), 1);
        assert_eq!(p.numpat(), 1);
        p.remove_client(1);
        assert_eq!(p.numsub(b"a", Kind::Channel), 1);
        assert_eq!(p.numsub(b"a", Kind::Shard), 0);
        assert_eq!(p.numpat(), 0);
        assert!(p.unsubscribe(2, b"a", Kind::Channel));
        assert!(!p.unsubscribe(2, b"a", Kind::Channel));
        assert_eq!(p.client_count(), 0);
        assert!(p.active_channels(None, Kind::Channel).is_empty());
    }
}
