//! Per-client output queues: what the engine has to say to a client outside the reply the
//! host is holding — pub/sub messages, further replies of a command that replies more than
//! once, and, for hosts that use [`crate::engine::Engine::submit`], every reply.
//!
//! # Why queues live in the engine
//! A `PUBLISH` from client B must reach client A, which is not the one running a command.
//! The engine cannot write to A's connection, so it appends the message to A's queue and
//! remembers that A has output ([`Outboxes::ready`]); the host asks for those clients and
//! drains their queues ([`crate::engine::Engine::take_pushes`]). Messages are appended in
//! the order the engine produced them, which is the order Redis would have written them
//! into each client's socket buffer.
//!
//! # Bounded output
//! A subscriber that never reads would make the queue grow without end. Redis bounds a
//! client's pending output by its class (`client-output-buffer-limit`, default
//! `normal 0 0 0 … pubsub 32mb 8mb 60`): over the hard limit, or over the soft limit for
//! longer than the soft seconds, the client is closed asynchronously and whatever it had
//! pending is thrown away (`CLIENT_CLOSE_ASAP`). [`Outboxes::push`] does the same check on
//! every append (Redis's `checkClientOutputBufferLimits`): a killed client's queue is
//! dropped, it accepts nothing more, and it is listed as ready so that the host notices it
//! and closes the connection (see [`crate::engine::Client::close_asap`]). Sizes are the
//! RESP2 byte length of the queued replies ([`resp_len`]), the quantity Redis counts.
//!
//! The queue is a `VecDeque`: appending and draining are O(1) per reply.
//!
//! # The reply buffer's size
//! Redis writes a reply first into a buffer of the client's own, 16 KB when the client
//! connects, and sizes it to the client in its cron (`clientsCronResizeOutputBuffer`): it
//! halves to what the client's peak needs (at least 1 KB) when the peak since the last
//! reset stayed under half of it, and doubles (up to 16 KB) when the peak filled it. The
//! peak is reset every `DEBUG REPLYBUFFER PEAK-RESET-TIME` (5 s). `CLIENT LIST` shows the
//! size and the peak (`rbs`, `rbp`). kvlab keeps the same two numbers per client
//! ([`ReplyBuffer`]): the bytes queued here between the host's drains stand for the
//! buffer's fill, capped at its size, and [`Outboxes::resize_reply_buffers`] is that cron.

use std::collections::VecDeque;

use foldhash::HashMap;

use indexmap::IndexSet;

use super::reply::Reply;
use super::ClientId;

/// A `client-output-buffer-limit` class: hard limit in bytes, soft limit in bytes, and
/// how many seconds the soft limit may be exceeded. A zero limit is no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limit {
    /// Bytes beyond which the client is closed at once (0: none).
    pub hard: u64,
    /// Bytes beyond which the client is closed if it stays above them too long (0: none).
    pub soft: u64,
    /// Seconds the soft limit may be exceeded continuously.
    pub soft_seconds: i64,
}

/// Redis's `PROTO_REPLY_CHUNK_BYTES`: a new client's reply buffer, and the most the cron
/// grows one to.
const REPLY_CHUNK_BYTES: usize = 16 * 1024;
/// Redis's `PROTO_REPLY_MIN_BYTES`: the least the cron shrinks one to.
const REPLY_MIN_BYTES: usize = 1024;

/// A client's reply buffer as Redis sizes it (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyBuffer {
    /// Its usable size (`rbs`).
    pub size: usize,
    /// The most it held since the peak was last reset (`rbp`).
    pub peak: usize,
    /// When the peak was last reset; `None` until the first cron (Redis stamps a new
    /// client's with a time in seconds that its millisecond cron always finds old).
    last_reset_ms: Option<i64>,
}

impl Default for ReplyBuffer {
    /// A new client's: 16 KB, its peak at its size.
    fn default() -> ReplyBuffer {
        ReplyBuffer {
            size: REPLY_CHUNK_BYTES,
            peak: REPLY_CHUNK_BYTES,
            last_reset_ms: None,
        }
    }
}

/// The queue of one client.
#[derive(Debug, Default)]
struct Outbox {
    /// Its reply buffer's size and peak.
    rbuf: ReplyBuffer,
    queue: VecDeque<Reply>,
    /// Sum of [`resp_len`] over `queue`.
    bytes: u64,
    /// When the queue first went over the soft limit, if it still is (Redis's
    /// `obuf_soft_limit_reached_time`, in milliseconds here).
    soft_since_ms: Option<i64>,
    /// Closed for exceeding its limit: accepts nothing more.
    killed: bool,
}

/// Every client's queue, plus the set of clients with something for the host.
#[derive(Debug, Default)]
pub struct Outboxes {
    boxes: HashMap<ClientId, Outbox>,
    /// Clients whose queue is non-empty or who were killed, in the order they became so.
    ready: IndexSet<ClientId, foldhash::fast::RandomState>,
    /// Clients killed since the engine last looked (it then flags their [`Client`]).
    ///
    /// [`Client`]: crate::engine::Client
    newly_killed: Vec<ClientId>,
}

impl Limit {
    /// True when neither limit is set: nothing to enforce (the `normal` class's default).
    pub fn is_none(&self) -> bool {
        self.hard == 0 && self.soft == 0
    }
}

impl Outboxes {
    /// Appends `reply` to the queue of `id` and enforces `limit` at `now_ms`. Returns false
    /// if the client is (now) killed and the reply was dropped. **O(1)**, plus the size of
    /// the reply to measure it.
    pub fn push(&mut self, id: ClientId, reply: Reply, limit: Limit, now_ms: i64) -> bool {
        let b = self.boxes.entry(id).or_default();
        if b.killed {
            return false;
        }
        b.bytes = b.bytes.saturating_add(resp_len(&reply));
        let fill = usize::try_from(b.bytes)
            .unwrap_or(usize::MAX)
            .min(b.rbuf.size);
        b.rbuf.peak = b.rbuf.peak.max(fill);
        b.queue.push_back(reply);
        self.ready.insert(id);
        if over_limit(b, limit, now_ms) {
            b.killed = true;
            b.queue = VecDeque::new();
            b.bytes = 0;
            self.newly_killed.push(id);
            return false;
        }
        true
    }

    /// Takes everything queued for `id`, oldest first, and clears its ready mark. **O(n)**
    /// in what is returned.
    pub fn take(&mut self, id: ClientId) -> Vec<Reply> {
        self.ready.shift_remove(&id);
        match self.boxes.get_mut(&id) {
            Some(b) => {
                b.bytes = 0;
                b.soft_since_ms = None;
                Vec::from(std::mem::take(&mut b.queue))
            }
            None => Vec::new(),
        }
    }

    /// Hands everything queued for `id` to `each`, oldest first, and clears its ready mark,
    /// keeping the queue's room for the next replies ([`Outboxes::take`] gives the queue
    /// away, so a host draining after every command would allocate one each time). **O(n)**
    /// in what is handed over.
    pub fn drain_each(&mut self, id: ClientId, mut each: impl FnMut(Reply)) {
        // Not ready: nothing queued (every push marks it ready), nothing to reset.
        if !self.ready.shift_remove(&id) {
            return;
        }
        if let Some(b) = self.boxes.get_mut(&id) {
            b.bytes = 0;
            b.soft_since_ms = None;
            for reply in b.queue.drain(..) {
                each(reply);
            }
        }
    }

    /// True when nothing is queued for `id` and it was not killed: what it is sent next
    /// may bypass the queue ([`Outboxes::note_written`]). **O(1).**
    pub fn is_idle(&self, id: ClientId) -> bool {
        // Every client with a non-empty queue, and every killed one not yet drained, is
        // in `ready`; a drained killed client accepts nothing, so its box is checked too.
        !self.ready.contains(&id) && !self.is_killed(id)
    }

    /// Counts `bytes` written to idle client `id` without passing through its queue (the
    /// host drains after every command, so they are all it has pending) in its reply
    /// buffer's peak, as [`Outboxes::push`] counts queued ones. **O(1).**
    pub fn note_written(&mut self, id: ClientId, bytes: usize) {
        let b = self.boxes.entry(id).or_default();
        b.rbuf.peak = b.rbuf.peak.max(bytes.min(b.rbuf.size));
    }

    /// Number of replies queued for `id`.
    pub fn len(&self, id: ClientId) -> usize {
        self.boxes.get(&id).map_or(0, |b| b.queue.len())
    }

    /// True when nothing is queued for `id`.
    pub fn is_empty(&self, id: ClientId) -> bool {
        self.len(id) == 0
    }

    /// Bytes queued for `id` (as [`resp_len`] counts them).
    pub fn bytes(&self, id: ClientId) -> u64 {
        self.boxes.get(&id).map_or(0, |b| b.bytes)
    }

    /// True if `id` was closed for exceeding its output limit.
    pub fn is_killed(&self, id: ClientId) -> bool {
        self.boxes.get(&id).is_some_and(|b| b.killed)
    }

    /// Clients with queued output or killed, in the order they became so. **O(n)** in them.
    pub fn ready(&self) -> Vec<ClientId> {
        self.ready.iter().copied().collect()
    }

    /// The clients killed since the last call.
    pub fn take_newly_killed(&mut self) -> Vec<ClientId> {
        std::mem::take(&mut self.newly_killed)
    }

    /// Closes `id` as one over its limit is closed (`CLIENT KILL`): its queue is dropped,
    /// it accepts nothing more, and it is listed as ready so that the host closes it.
    pub fn kill(&mut self, id: ClientId) {
        let b = self.boxes.entry(id).or_default();
        b.killed = true;
        b.queue = VecDeque::new();
        b.bytes = 0;
        self.ready.insert(id);
    }

    /// The reply buffer of `id` (`rbs`, `rbp`).
    pub fn reply_buffer(&self, id: ClientId) -> ReplyBuffer {
        self.boxes
            .get(&id)
            .map_or_else(ReplyBuffer::default, |b| b.rbuf)
    }

    /// The clients' cron's sizing of their reply buffers (Redis's
    /// `clientsCronResizeOutputBuffer`) at `now_ms`: unless `resizing` is off, each buffer
    /// shrinks or grows by its peak; then the peak is reset to the buffer's fill if
    /// `reset_ms` (negative: never) passed since the last reset. Returns the shrinks and
    /// the expansions. **O(clients).**
    pub fn resize_reply_buffers(
        &mut self,
        ids: impl IntoIterator<Item = ClientId>,
        now_ms: i64,
        reset_ms: i64,
        resizing: bool,
    ) -> (u64, u64) {
        let (mut shrinks, mut expands) = (0, 0);
        for id in ids {
            let b = self.boxes.entry(id).or_default();
            let r = &mut b.rbuf;
            if resizing {
                let (half, double) = (r.size / 2, r.size * 2);
                if half >= REPLY_MIN_BYTES && r.peak < half {
                    let want = REPLY_MIN_BYTES.max(r.peak + 1);
                    r.size = usize::try_from(crate::engine::alloc::jemalloc_size(want as u64))
                        .unwrap_or(want);
                    shrinks += 1;
                } else if double < REPLY_CHUNK_BYTES * 2 && r.peak == r.size {
                    r.size = REPLY_CHUNK_BYTES.min(double);
                    expands += 1;
                }
            }
            if reset_ms >= 0 && r.last_reset_ms.is_none_or(|t| now_ms - t >= reset_ms) {
                r.peak = usize::try_from(b.bytes).unwrap_or(usize::MAX).min(r.size);
                r.last_reset_ms = Some(now_ms);
            }
        }
        (shrinks, expands)
    }

    /// Forgets `id` entirely (on disconnect).
    pub fn remove(&mut self, id: ClientId) {
        self.boxes.remove(&id);
        self.ready.shift_remove(&id);
        self.newly_killed.retain(|&k| k != id);
    }
}

/// Redis's `checkClientOutputBufferLimits`: over the hard limit, or over the soft limit for
/// more than the soft seconds (the first time over only starts the clock). Dropping below
/// the soft limit resets the clock.
fn over_limit(b: &mut Outbox, limit: Limit, now_ms: i64) -> bool {
    if limit.hard > 0 && b.bytes >= limit.hard {
        return true;
    }
    if limit.soft > 0 && b.bytes >= limit.soft {
        match b.soft_since_ms {
            None => {
                b.soft_since_ms = Some(now_ms);
                false
            }
            Some(since) => (now_ms - since) / 1000 > limit.soft_seconds,
        }
    } else {
        b.soft_since_ms = None;
        false
    }
}

/// The length of `reply` encoded as RESP2, computed without encoding it. **O(n)** in the
/// number of elements.
pub fn resp_len(reply: &Reply) -> u64 {
    fn line(n: i64) -> u64 {
        // prefix + digits (+ sign) + CRLF, counted without formatting
        let digits = n
            .unsigned_abs()
            .checked_ilog10()
            .map_or(1, |d| u64::from(d) + 1);
        3 + digits + u64::from(n < 0)
    }
    fn bulk(len: usize) -> u64 {
        line(len as i64) + len as u64 + 2
    }
    match reply {
        Reply::Status(s) => 3 + s.len() as u64,
        Reply::Error(s) => 3 + s.len() as u64,
        Reply::Integer(n) => line(*n),
        Reply::Bulk(b) | Reply::Verbatim(_, b) => bulk(b.len()),
        Reply::Nil | Reply::NilArray => 5,
        // RESP2's length: the reply alone.
        Reply::Attributed(_, inner) => resp_len(inner),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            line(items.len() as i64) + items.iter().map(resp_len).sum::<u64>()
        }
        Reply::Map(pairs) => {
            line(2 * pairs.len() as i64)
                + pairs
                    .iter()
                    .map(|(k, v)| resp_len(k) + resp_len(v))
                    .sum::<u64>()
        }
        Reply::Double(d) => bulk(super::reply::format_double(*d).len()),
        Reply::Bool(_) => 4,
        Reply::BigNumber(n) | Reply::DoubleText(n) => bulk(n.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resp_len_matches_the_encoding() {
        let samples = [
            Reply::ok(),
            Reply::Integer(-123),
            Reply::Integer(0),
            Reply::bulk(b"hello"),
            Reply::Nil,
            Reply::Push(vec![
                Reply::bulk(b"message"),
                Reply::bulk(b"ch"),
                Reply::bulk(&[0u8; 300]),
            ]),
            Reply::Map(vec![(Reply::bulk(b"a"), Reply::Double(1.5))]),
        ];
        for r in samples {
            assert_eq!(resp_len(&r), r.to_resp(2).len() as u64, "{r:?}");
        }
    }

    /// What redis-server 7.0.15 shows in `CLIENT LIST` for one client: 16384/16384 when
    /// new, 1024/0 after two crons of idleness, back to 16384 by doublings while it reads
    /// 32 KB replies with the peak never reset.
    #[test]
    fn reply_buffers_shrink_when_idle_and_grow_when_filled() {
        let mut o = Outboxes::default();
        let rb = |o: &Outboxes| (o.reply_buffer(1).size, o.reply_buffer(1).peak);
        assert_eq!(rb(&o), (16384, 16384));
        assert_eq!(o.resize_reply_buffers([1], 0, 5000, true), (0, 0));
        assert_eq!(rb(&o), (16384, 0), "the first cron resets the peak");
        assert_eq!(o.resize_reply_buffers([1], 100, 5000, true), (1, 0));
        assert_eq!(rb(&o), (1024, 0));
        assert_eq!(o.resize_reply_buffers([1], 200, 5000, true), (0, 0));
        assert_eq!(rb(&o).0, 1024, "never below 1 KB");
        let mut sizes = Vec::new();
        for t in 0..6 {
            o.push(1, Reply::bulk(&[b'x'; 32768]), Limit::default(), 300 + t);
            o.take(1);
            o.resize_reply_buffers([1], 300 + t, -1, true);
            sizes.push(rb(&o).0);
        }
        assert_eq!(sizes, [2048, 4096, 8192, 16384, 16384, 16384]);
        // A small peak shrinks it to the peak's allocation (jemalloc's size class).
        o.resize_reply_buffers([1], 10_000, 0, true);
        o.push(1, Reply::bulk(&[b'x'; 1500]), Limit::default(), 10_001);
        o.resize_reply_buffers([1], 10_002, -1, true);
        assert_eq!(rb(&o), (1536, 1509));
        // Resizing off: nothing changes.
        o.take(1);
        o.resize_reply_buffers([1], 20_000, 0, false);
        assert_eq!(o.resize_reply_buffers([1], 20_001, 0, false), (0, 0));
        assert_eq!(rb(&o), (1536, 0));
    }

    /// What may bypass the queue: a client with nothing queued that was not killed; bytes
    /// written that way count in the reply buffer's peak as queued ones do.
    #[test]
    fn idle_clients_may_be_written_directly() {
        let mut o = Outboxes::default();
        assert!(o.is_idle(1), "a new client");
        o.resize_reply_buffers([1], 0, 0, false);
        o.note_written(1, 700);
        assert_eq!(o.reply_buffer(1).peak, 700);
        o.note_written(1, 100_000);
        assert_eq!(o.reply_buffer(1).peak, 16384, "capped at the buffer's size");
        o.push(1, Reply::ok(), Limit::default(), 0);
        assert!(!o.is_idle(1), "a reply is queued: the next goes behind it");
        assert!(o.is_idle(2), "others are not affected");
        let mut n = 0;
        o.drain_each(1, |_| n += 1);
        assert_eq!(n, 1);
        assert!(o.is_idle(1));
        o.drain_each(1, |_| n += 1);
        assert_eq!(n, 1, "nothing more");
        o.kill(1);
        assert!(!o.is_idle(1));
        o.drain_each(1, |_| {});
        assert!(!o.is_idle(1), "a killed client stays closed once drained");
    }

    #[test]
    fn hard_limit_kills_and_drops_the_queue() {
        let mut o = Outboxes::default();
        let limit = Limit {
            hard: 100,
            soft: 0,
            soft_seconds: 0,
        };
        assert!(o.push(7, Reply::bulk(&[1; 40]), limit, 0));
        assert!(!o.push(7, Reply::bulk(&[1; 60]), limit, 0));
        assert!(o.is_killed(7));
        assert_eq!(o.len(7), 0);
        assert_eq!(o.take_newly_killed(), vec![7]);
        assert!(!o.push(7, Reply::ok(), Limit::default(), 0));
        assert_eq!(o.ready(), vec![7]);
    }

    #[test]
    fn soft_limit_needs_to_last_longer_than_its_seconds() {
        let mut o = Outboxes::default();
        let limit = Limit {
            hard: 0,
            soft: 10,
            soft_seconds: 2,
        };
        assert!(o.push(1, Reply::bulk(b"0123456789"), limit, 0));
        assert!(o.push(1, Reply::ok(), limit, 2_999));
        // Draining resets the clock.
        o.take(1);
        assert!(o.push(1, Reply::bulk(b"0123456789"), limit, 10_000));
        assert!(o.push(1, Reply::ok(), limit, 12_000));
        assert!(!o.push(1, Reply::ok(), limit, 13_000));
    }
}
