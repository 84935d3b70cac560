//! Blocked clients: who waits on which keys, until when, and for what.
//!
//! # The model
//! A blocking command (`BLPOP`, `BLMOVE`, `BZPOPMIN`, …; the handlers are in
//! [`crate::engine::cmd::blocking`]) that finds no data *blocks* its client: it replies
//! nothing now and registers a [`Blocked`] record here. Redis keeps the same three indexes:
//!
//! * per client, what it waits for ([`Blocked`]: database, keys, deadline, the operation to
//!   perform once served) — Redis's `c->bpop`;
//! * per `(database, key)`, the clients waiting on it in the order they blocked (a FIFO) —
//!   `db->blocking_keys`; [`crate::engine::Server::blocking_keys`] mirrors its key set so
//!   that a write can ask in O(1) whether anyone waits on a key;
//! * the deadlines, ordered, so that the next timeout is found in O(log n) —
//!   Redis 7.0's `server.clients_timeout_table`.
//!
//! # Serving
//! A write that may give a key data records it in
//! [`crate::engine::Server::ready_keys`] (every signalled modification of a key someone
//! blocks on does: pushes, `ZADD`, `RENAME`, `MOVE`, `COPY`, `SORT … STORE`, `*STORE`,
//! and `EXEC` as a whole since its commands signal too). After the command — after the
//! whole `EXEC` — the engine walks the ready keys in order and serves each key's waiters
//! first-come first-served while the key has data of the kind they wait for, as Redis's
//! `handleClientsBlockedOnKeys` does. Serving runs the non-blocking equivalent
//! ([`BlockOp::equivalent`]: `BLPOP` → `LPOP`, `BLMOVE` → `LMOVE`, `BZPOPMIN` → `ZPOPMIN`,
//! `BLMPOP` → `LMPOP`, …) as the waiting client, so the effect recorded, the keyspace
//! events and the WATCH signals are those of that command, which is what Redis propagates.
//! A served `BLMOVE` may make its destination ready for others: the walk goes on until no
//! key is ready.
//!
//! # Ending a block otherwise
//! A deadline passing ([`crate::engine::Engine::expire_blocked`], also run by
//! [`crate::engine::Engine::tick`]) replies a null array; `CLIENT UNBLOCK` replies the same
//! or an `UNBLOCKED` error; `CLIENT KILL` and a disconnect drop the record. Each removes the
//! client from every index here, so nothing is left behind.
//!
//! # Commands sent while blocked
//! Redis stops reading a blocked client's socket; what it sent meanwhile runs once it is
//! unblocked. The engine keeps such commands for the host ([`Blocking::defer`]) and runs
//! them, in order, right after the client is unblocked (until one blocks again).

use std::collections::{BTreeSet, VecDeque};

use foldhash::HashMap;

use super::core::client::ClientId;
use super::keyspace::Key;
use super::types::list::End;

/// What a blocked client will do with the first key that can serve it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockOp {
    /// `BLPOP` / `BRPOP`: pop one element, reply `[key, element]`.
    Pop {
        /// The end popped.
        end: End,
    },
    /// `BLMOVE` / `BRPOPLPUSH`: move one element to `dst`, reply the element.
    Move {
        /// The destination list.
        dst: Key,
        /// The end of the source popped.
        from: End,
        /// The end of the destination pushed.
        to: End,
    },
    /// `BLMPOP`: pop up to `count` elements, reply `[key, [elements]]`.
    MPop {
        /// The end popped.
        end: End,
        /// Most elements popped.
        count: i64,
    },
    /// `BZPOPMIN` / `BZPOPMAX`: pop one member, reply `[key, member, score]`.
    ZPop {
        /// Highest score first.
        max: bool,
    },
    /// `BZMPOP`: pop up to `count` members, reply `[key, [[member, score], …]]`.
    ZMPop {
        /// Highest scores first.
        max: bool,
        /// Most members popped.
        count: i64,
    },
    /// `XREAD … BLOCK` / `XREADGROUP … BLOCK`: read the entries after an ID (served by
    /// the stream readers' [`crate::engine::core::waiters::Waiters`] in `cmd/stream`, not
    /// by an equivalent command).
    XRead(Box<XReadWait>),
    /// A command that arrived during `CLIENT PAUSE` (Redis's `BLOCKED_POSTPONE`): kept
    /// with the client's deferred commands and run when the pause ends. Nothing else
    /// ends it (not `CLIENT UNBLOCK`, not a timeout).
    Postpone,
    /// A script that paused ([`crate::engine::busy`]): its caller waits for its end; a
    /// client that sent a command meanwhile waits for `busy-reply-threshold` or the end,
    /// whichever comes first. Nothing else ends it.
    Script,
    /// `WAIT`: waits for replicas' acknowledgements. There are no replicas, so nothing
    /// serves it: it ends at its timeout (or `CLIENT UNBLOCK`) with the count acknowledged,
    /// 0. It waits on no key.
    Wait,
}

/// What a blocked stream reader waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XReadWait {
    /// Each key with the ID after which entries are wanted (for `XREADGROUP … >` the
    /// group's last delivered ID is used instead, as it is when served).
    pub ids: Vec<(Key, crate::engine::types::stream::StreamId)>,
    /// Most entries replied.
    pub count: i64,
    /// `XREADGROUP`: the group and the consumer.
    pub group: Option<(Vec<u8>, Vec<u8>)>,
    /// `XREADGROUP … NOACK`.
    pub noack: bool,
}

impl BlockOp {
    /// The reply when the wait times out (or `CLIENT UNBLOCK … TIMEOUT` ends it): a null
    /// array for the list, sorted-set and stream commands (RESP2 `*-1`, RESP3 `_`), the
    /// number of replicas that acknowledged (none) for `WAIT`.
    pub fn timeout_reply(&self) -> crate::engine::reply::Reply {
        match self {
            BlockOp::Wait => crate::engine::reply::Reply::Integer(0),
            _ => crate::engine::reply::Reply::NilArray,
        }
    }

    /// True if the operation needs a sorted set (else a list).
    pub fn wants_zset(&self) -> bool {
        matches!(self, BlockOp::ZPop { .. } | BlockOp::ZMPop { .. })
    }

    /// The non-blocking command that serves this operation from `key`, as Redis propagates
    /// a served blocking command.
    pub fn equivalent(&self, key: &[u8]) -> Vec<Vec<u8>> {
        let side = |e: End| match e {
            End::Left => b"LEFT".to_vec(),
            End::Right => b"RIGHT".to_vec(),
        };
        let minmax = |max: bool| {
            if max {
                b"MAX".to_vec()
            } else {
                b"MIN".to_vec()
            }
        };
        match self {
            BlockOp::Pop { end } => vec![
                match end {
                    End::Left => b"LPOP".to_vec(),
                    End::Right => b"RPOP".to_vec(),
                },
                key.to_vec(),
            ],
            BlockOp::Move { dst, from, to } => vec![
                b"LMOVE".to_vec(),
                key.to_vec(),
                dst.clone(),
                side(*from),
                side(*to),
            ],
            BlockOp::MPop { end, count } => vec![
                b"LMPOP".to_vec(),
                b"1".to_vec(),
                key.to_vec(),
                side(*end),
                b"COUNT".to_vec(),
                count.to_string().into_bytes(),
            ],
            BlockOp::ZPop { max } => vec![
                if *max {
                    b"ZPOPMAX".to_vec()
                } else {
                    b"ZPOPMIN".to_vec()
                },
                key.to_vec(),
            ],
            BlockOp::ZMPop { max, count } => vec![
                b"ZMPOP".to_vec(),
                b"1".to_vec(),
                key.to_vec(),
                minmax(*max),
                b"COUNT".to_vec(),
                count.to_string().into_bytes(),
            ],
            // Served directly, or never served: there is no one-command equivalent.
            BlockOp::XRead(_) | BlockOp::Wait | BlockOp::Postpone | BlockOp::Script => Vec::new(),
        }
    }
}

/// One blocked client's wait (Redis's `c->bpop`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The database of the keys.
    pub db: usize,
    /// The keys, in the order given, without repeats.
    pub keys: Vec<Key>,
    /// Unix milliseconds after which the wait times out; `None` waits forever.
    pub deadline_ms: Option<i64>,
    /// What to do when served.
    pub op: BlockOp,
    /// The command that blocked, kept (while the slow log is on) for the slow log, which
    /// records it when it is served, as Redis does.
    pub argv: Vec<Vec<u8>>,
}

/// Every blocked client, the waiters of each key, the deadlines, and the commands that
/// blocked clients sent meanwhile. See the module documentation.
#[derive(Debug, Default)]
pub struct Blocking {
    pub(crate) clients: HashMap<ClientId, Blocked>,
    pub(crate) waiters: HashMap<(usize, Key), VecDeque<ClientId>>,
    pub(crate) deadlines: BTreeSet<(i64, ClientId)>,
    pub(crate) pending: HashMap<ClientId, VecDeque<Vec<Vec<u8>>>>,
    pub(crate) unblocked: VecDeque<ClientId>,
}

impl Blocking {
    /// True if `id` is blocked. **O(1).**
    pub fn is_blocked(&self, id: ClientId) -> bool {
        self.clients.contains_key(&id)
    }

    /// What `id` waits for.
    pub fn get(&self, id: ClientId) -> Option<&Blocked> {
        self.clients.get(&id)
    }

    /// Keeps the command `id` blocked in, for the slow log.
    pub fn keep_argv(&mut self, id: ClientId, argv: &[Vec<u8>]) {
        if let Some(b) = self.clients.get_mut(&id) {
            b.argv = argv.to_vec();
        }
    }

    /// Number of blocked clients (`blocked_clients` in INFO).
    pub fn count(&self) -> usize {
        self.clients.len()
    }

    /// Number of blocked clients with a deadline (`clients_in_timeout_table` in INFO).
    pub fn with_timeout(&self) -> usize {
        self.deadlines.len()
    }

    /// The clients blocked on `key` of `db`, first come first. **O(n)** in them.
    pub fn waiters_of(&self, db: usize, key: &[u8]) -> Vec<ClientId> {
        self.waiters
            .get(&(db, key.to_vec()))
            .map(|q| q.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The earliest deadline of a blocked client, Unix milliseconds. **O(log n).**
    pub fn next_deadline(&self) -> Option<i64> {
        self.deadlines.first().map(|&(at, _)| at)
    }

    /// The clients whose deadline is before `now_ms` (Redis times a client out once
    /// `deadline < now`), earliest first. **O(k log n)** for k of them.
    pub fn timed_out(&self, now_ms: i64) -> Vec<ClientId> {
        self.deadlines
            .range(..(now_ms, 0))
            .map(|&(_, id)| id)
            .collect()
    }

    /// Keeps a command that `id` sent while blocked, to run once it is unblocked.
    pub fn defer(&mut self, id: ClientId, argv: Vec<Vec<u8>>) {
        self.pending.entry(id).or_default().push_back(argv);
    }

    /// The next command `id` sent while it was blocked.
    pub fn next_deferred(&mut self, id: ClientId) -> Option<Vec<Vec<u8>>> {
        let q = self.pending.get_mut(&id)?;
        let argv = q.pop_front();
        if q.is_empty() {
            self.pending.remove(&id);
        }
        argv
    }

    /// The next client unblocked since the engine last looked, to run its deferred commands.
    pub fn next_unblocked(&mut self) -> Option<ClientId> {
        self.unblocked.pop_front()
    }

    /// Forgets the deferred commands of `id` (on disconnect or kill).
    pub fn forget(&mut self, id: ClientId) {
        self.pending.remove(&id);
        self.unblocked.retain(|&c| c != id);
    }
}
