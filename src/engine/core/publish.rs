//! Sending to clients: a reply queued under its output limit, `PUBLISH`'s delivery to
//! channel and pattern subscribers, and keyspace notifications (Redis's
//! `notifyKeyspaceEvent`). Who subscribes to what is [`crate::engine::pubsub`]'s; this is the
//! server acting on it.

use crate::engine::glob;
use crate::engine::outbox::Limit;
use crate::engine::pubsub::{class, Kind};
use crate::engine::reply::Reply;

use super::client::ClientId;
use super::server::Server;

impl Server {
    /// The output limit for client `id` now: the `pubsub` class of
    /// `client-output-buffer-limit` if it has subscriptions, else the `normal` class.
    pub fn output_limit(&self, id: ClientId) -> Limit {
        let classes = self.config.client_output_buffer_limits();
        let (hard, soft, soft_seconds) = if self.pubsub.total(id) > 0 {
            classes[2]
        } else {
            classes[0]
        };
        Limit {
            hard,
            soft,
            soft_seconds,
        }
    }

    /// True when `id`'s replies may bypass its queue ([`crate::engine::Engine::submit_into`]):
    /// nothing waits in it, it was not killed, and no output limit is there to enforce.
    pub(crate) fn may_write_direct(&self, id: ClientId) -> bool {
        self.outboxes.is_idle(id) && self.output_limit(id).is_none()
    }

    /// Encodes `replies` for client `id` in protocol `proto` into the host's `buf`, counted
    /// as written (`CLIENT LIST`'s reply buffer peak).
    pub(crate) fn write_direct<'r>(
        &mut self,
        id: ClientId,
        proto: u8,
        replies: impl IntoIterator<Item = &'r Reply>,
        buf: &mut Vec<u8>,
    ) {
        let start = buf.len();
        for r in replies {
            r.write_resp(proto, buf);
        }
        self.outboxes.note_written(id, buf.len() - start);
    }

    /// Queues `reply` for client `id`, enforcing its output limit. Returns false if the
    /// client is (now) closed for exceeding it.
    pub fn send(&mut self, id: ClientId, reply: Reply) -> bool {
        let limit = self.output_limit(id);
        // The time matters only to a soft limit's clock (the normal class has none): no
        // clock read per reply otherwise.
        let now = if limit.soft > 0 {
            self.clock.now_ms()
        } else {
            0
        };
        self.outboxes.push(id, reply, limit, now)
    }

    /// `PUBLISH`/`SPUBLISH`: delivers `message` to the subscribers of `channel` (and, for
    /// [`Kind::Channel`], of every matching pattern) and returns how many deliveries were
    /// made (a client subscribed through several patterns counts, and receives, once per
    /// pattern). **O(subscribers + patterns).**
    pub fn publish(&mut self, channel: &[u8], message: &[u8], kind: Kind) -> usize {
        let mut deliveries: Vec<(ClientId, Reply)> = Vec::new();
        let bulk = match kind {
            Kind::Channel => "message",
            Kind::Shard => "smessage",
        };
        if let Some(subs) = self.pubsub.subscribers(channel, kind) {
            for &id in subs {
                deliveries.push((
                    id,
                    Reply::Push(vec![
                        Reply::bulk(bulk.as_bytes()),
                        Reply::bulk(channel),
                        Reply::bulk(message),
                    ]),
                ));
            }
        }
        if kind == Kind::Channel {
            for (pattern, subs) in self.pubsub.patterns() {
                if !glob::matches(pattern, channel, false) {
                    continue;
                }
                for &id in subs {
                    deliveries.push((
                        id,
                        Reply::Push(vec![
                            Reply::bulk(b"pmessage"),
                            Reply::bulk(pattern),
                            Reply::bulk(channel),
                            Reply::bulk(message),
                        ]),
                    ));
                }
            }
        }
        let receivers = deliveries.len();
        if receivers > 0 {
            let classes = self.config.client_output_buffer_limits();
            let (hard, soft, soft_seconds) = classes[2];
            let limit = Limit {
                hard,
                soft,
                soft_seconds,
            };
            let now = self.clock.now_ms();
            for (id, msg) in deliveries {
                self.outboxes.push(id, msg, limit, now);
            }
        }
        receivers
    }

    /// Redis's `notifyKeyspaceEvent`: publishes `event` about `key` in database `db` if the
    /// class is enabled in `notify-keyspace-events` (see the module documentation). Costs
    /// nothing beyond reading the setting when notifications are off.
    pub fn notify_keyspace_event(&mut self, class: u32, event: &str, key: &[u8], db: usize) {
        let flags = self.config.keyspace_events();
        if flags & class == 0 {
            return;
        }
        if flags & class::KEYSPACE != 0 {
            let mut chan = format!("__keyspace@{db}__:").into_bytes();
            chan.extend_from_slice(key);
            self.publish(&chan, event.as_bytes(), Kind::Channel);
        }
        if flags & class::KEYEVENT != 0 {
            let chan = format!("__keyevent@{db}__:{event}").into_bytes();
            self.publish(&chan, key, Kind::Channel);
        }
    }
}
