//! Several browser tabs on one workspace: the messages they exchange and the follower's
//! sequence rule. No I/O here — the web app sends these messages over a
//! `BroadcastChannel` (`src/ui/services/tabs.rs`); this module only frames them, so that the
//! protocol is tested on the host.
//!
//! # The protocol (see also `docs/persistence.md`)
//! One tab of a workspace, the **leader**, holds the workspace's Web Lock: it runs the real
//! engine and saves it. Every other tab is a **follower**: it waits for the lock and keeps
//! a **replica** of the dataset for its views.
//!
//! * A follower's console pane sends each command to the leader ([`Msg::Command`]); the
//!   leader runs it for a client it keeps for that pane, so transactions, subscriptions,
//!   blocking commands and `SELECT` are that pane's own session, and answers with
//!   [`Msg::Reply`] (`req` = the command's number). Later output of that client (published
//!   messages, a woken `BLPOP`, a timeout) comes as [`Msg::Reply`] with `req` 0.
//! * Each batch of write effects the leader's engine produces (a command, an expiry cycle)
//!   is broadcast as [`Msg::Effects`], numbered 1, 2, 3, … by the leader. A follower applies
//!   batch `n + 1` after `n`, skips batches it already has, and on a gap asks again
//!   ([`Follow`]).
//! * A follower that starts, or that found a gap, sends [`Msg::Hello`]; the leader answers
//!   with [`Msg::Snapshot`] of its dataset at batch `seq`; the follower replaces its replica
//!   and applies the batches after `seq`.
//! * The leader posts everything in order, and only once the writes it reports are
//!   committed to IndexedDB: a reply (or a replicated value) on screen is on disk.
//! * A tab that becomes leader (the old one closed or crashed) re-reads the workspace from
//!   IndexedDB and announces itself with [`Msg::Leader`]; the followers' sessions on the old
//!   leader are gone, and commands still waiting for a reply are answered with an error
//!   (they may or may not have run), never dropped silently or run twice.
//!
//! # Framing
//! `"KT" version:u8 tag:u8 field*`, fields in the order of the variant's declaration;
//! integers are LEB128 varints (`i64` zigzag), byte strings and texts are a varint length
//! then the bytes, a list is a varint count then its items, an option a `0`/`1` byte then
//! the value (the codec shared with snapshots, [`crate::engine::codec`]). Decoding
//! never panics: lengths are checked against what remains.

use crate::engine::codec::{self, CodecError};

/// Identifies a tab (random, chosen when the page starts).
pub type TabId = u64;

/// This tab's part in its workspace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Role {
    /// No `BroadcastChannel`: the tab works on its own (as `persist` says).
    #[default]
    Alone,
    /// Runs the engine and saves it.
    Leader,
    /// Forwards its commands to the leader and shows a replica.
    Follower,
}

impl Role {
    /// The `data-tab-role` value.
    pub fn tag(self) -> &'static str {
        match self {
            Role::Alone => "alone",
            Role::Leader => "leader",
            Role::Follower => "follower",
        }
    }
}

/// Version of the framing this build writes and reads.
pub const VERSION: u8 = 1;
const MAGIC: &[u8; 2] = b"KT";

/// One line of output, rendered as redis-cli prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The text.
    pub text: String,
    /// True for an error reply.
    pub error: bool,
}

/// What a follower's pane shows about its session on the leader (its prompt, the blocked
/// countdown, the transaction queue, pub/sub mode).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Session {
    /// The selected database.
    pub db: u64,
    /// Protocol version (2 or 3), for rendering.
    pub proto: u8,
    /// Blocked: `Some(deadline)` (Unix ms, `None` = no timeout).
    pub blocked: Option<Option<i64>>,
    /// What a blocked session waits for.
    pub waits_for: WaitsFor,
    /// Commands queued in `MULTI`, as typed; `None` outside a transaction.
    pub queued: Option<Vec<String>>,
    /// In pub/sub mode.
    pub subscribed: bool,
}

/// What a blocked client waits for, as its pane says it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WaitsFor {
    /// Data on a key (`BLPOP`, `BZPOPMIN`, `XREAD … BLOCK`, …).
    #[default]
    Data,
    /// Replicas' acknowledgements (`WAIT`), which never come here.
    Replicas,
    /// The end of a `CLIENT PAUSE`.
    Pause,
    /// The end of its own script, which paused ([`crate::engine::busy`]).
    Script,
    /// Another client's script: held until `busy-reply-threshold` or the script's end.
    Busy,
}

impl WaitsFor {
    /// What `client` of `engine` waits for (`Data` when it is not blocked).
    pub fn of_client(engine: &crate::engine::Engine, client: crate::engine::ClientId) -> WaitsFor {
        use crate::engine::blocking::BlockOp;
        match engine.server().blocking.get(client).map(|b| &b.op) {
            Some(BlockOp::Wait) => WaitsFor::Replicas,
            Some(BlockOp::Postpone) => WaitsFor::Pause,
            Some(BlockOp::Script) => {
                let own = engine
                    .server()
                    .running
                    .as_ref()
                    .is_some_and(|r| r.caller == client);
                if own {
                    WaitsFor::Script
                } else {
                    WaitsFor::Busy
                }
            }
            _ => WaitsFor::Data,
        }
    }
}

/// When `client` of `engine` stops waiting: `None` when it is not blocked, else its
/// timeout (`Some(None)`: none), or for a command held back by `CLIENT PAUSE` the end of
/// the pause.
pub fn blocked_until(
    engine: &crate::engine::Engine,
    client: crate::engine::ClientId,
) -> Option<Option<i64>> {
    use crate::engine::blocking::BlockOp;
    let srv = engine.server();
    srv.blocking.get(client).map(|b| match b.op {
        BlockOp::Postpone => srv.pause.map(|p| p.end_ms),
        _ => b.deadline_ms,
    })
}

/// A message between the tabs of one workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    /// A follower asks the leader for a snapshot (on start, after a gap).
    Hello {
        /// The follower.
        from: TabId,
    },
    /// A tab took over the workspace (the previous leader is gone).
    Leader {
        /// The new leader.
        leader: TabId,
    },
    /// The leader's dataset, after effect batch `seq`.
    Snapshot {
        /// The leader.
        leader: TabId,
        /// The follower that asked.
        to: TabId,
        /// The last effect batch included.
        seq: u64,
        /// `engine::snapshot` format.
        bytes: Vec<u8>,
    },
    /// A batch of write effects, committed.
    Effects {
        /// The leader.
        leader: TabId,
        /// Its number (1, 2, …, per leader).
        seq: u64,
        /// A log record (`engine::snapshot::encode_log_record`).
        record: Vec<u8>,
    },
    /// A command typed in a follower's pane.
    Command {
        /// The follower.
        from: TabId,
        /// The leader it is meant for.
        to: TabId,
        /// The pane.
        pane: u32,
        /// Its number in the follower (from 1).
        req: u64,
        /// The arguments.
        argv: Vec<Vec<u8>>,
    },
    /// Output for a follower's pane: a command's reply (`req` > 0) or later output (`req` 0).
    Reply {
        /// The leader.
        leader: TabId,
        /// The follower.
        to: TabId,
        /// The pane.
        pane: u32,
        /// The command answered, or 0 for later output.
        req: u64,
        /// The output, rendered (empty while a command blocks).
        lines: Vec<Line>,
        /// The session after it.
        session: Session,
    },
    /// A follower's pane closed (`pane`), or the whole tab (`None`).
    Close {
        /// The follower.
        from: TabId,
        /// The pane, or `None` for all of the tab's.
        pane: Option<u32>,
    },
    /// Ctrl+C in a follower's pane: the leader stops what that pane's client waits in
    /// ([`crate::engine::Engine::interrupt`]), keeping the client, and answers with a
    /// [`Msg::Reply`] (`req` 0, no lines) carrying the session after it.
    Interrupt {
        /// The follower.
        from: TabId,
        /// The pane.
        pane: u32,
    },
    /// A follower changed a configuration parameter (cluster mode).
    Config {
        /// The leader it is meant for.
        to: TabId,
        /// Parameter.
        name: String,
        /// Value.
        value: String,
    },
}

/// The writer: fields appended with the shared codec ([`codec`]).
struct W(Vec<u8>);

impl W {
    fn uint(&mut self, v: u64) {
        codec::put_varint(&mut self.0, v);
    }
    fn int(&mut self, v: i64) {
        codec::put_zigzag(&mut self.0, v);
    }
    fn bytes(&mut self, b: &[u8]) {
        codec::put_bytes(&mut self.0, b);
    }
    fn flag(&mut self, b: bool) {
        self.0.push(u8::from(b));
    }
}

/// The reader: the shared codec's, with this protocol's errors.
struct R<'a>(codec::Reader<'a>);

/// Why a message could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadMessage(pub &'static str);

impl std::fmt::Display for BadMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad tab message: {}", self.0)
    }
}

impl From<CodecError> for BadMessage {
    fn from(e: CodecError) -> BadMessage {
        match e {
            CodecError::Truncated => BadMessage("truncated"),
            CodecError::VarintTooLong => BadMessage("varint too long"),
        }
    }
}

type Res<T> = Result<T, BadMessage>;

impl R<'_> {
    fn u8(&mut self) -> Res<u8> {
        Ok(self.0.u8()?)
    }
    fn uint(&mut self) -> Res<u64> {
        Ok(self.0.varint()?)
    }
    fn int(&mut self) -> Res<i64> {
        Ok(self.0.zigzag()?)
    }
    fn u32(&mut self) -> Res<u32> {
        u32::try_from(self.uint()?).map_err(|_| BadMessage("number too large"))
    }
    fn bytes(&mut self) -> Res<Vec<u8>> {
        Ok(self.0.bytes()?)
    }
    fn text(&mut self) -> Res<String> {
        String::from_utf8(self.bytes()?).map_err(|_| BadMessage("text is not UTF-8"))
    }
    fn flag(&mut self) -> Res<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(BadMessage("bad flag")),
        }
    }
    /// A count of items each at least `min` bytes long, checked against what remains.
    fn count(&mut self, min: usize) -> Res<usize> {
        Ok(self.0.count(min)?)
    }
}

impl Msg {
    /// Frames the message.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = W(Vec::with_capacity(32));
        w.0.extend_from_slice(MAGIC);
        w.0.push(VERSION);
        match self {
            Msg::Hello { from } => {
                w.0.push(1);
                w.uint(*from);
            }
            Msg::Leader { leader } => {
                w.0.push(2);
                w.uint(*leader);
            }
            Msg::Snapshot {
                leader,
                to,
                seq,
                bytes,
            } => {
                w.0.push(3);
                w.uint(*leader);
                w.uint(*to);
                w.uint(*seq);
                w.bytes(bytes);
            }
            Msg::Effects {
                leader,
                seq,
                record,
            } => {
                w.0.push(4);
                w.uint(*leader);
                w.uint(*seq);
                w.bytes(record);
            }
            Msg::Command {
                from,
                to,
                pane,
                req,
                argv,
            } => {
                w.0.push(5);
                w.uint(*from);
                w.uint(*to);
                w.uint(u64::from(*pane));
                w.uint(*req);
                w.uint(argv.len() as u64);
                for a in argv {
                    w.bytes(a);
                }
            }
            Msg::Reply {
                leader,
                to,
                pane,
                req,
                lines,
                session,
            } => {
                w.0.push(6);
                w.uint(*leader);
                w.uint(*to);
                w.uint(u64::from(*pane));
                w.uint(*req);
                w.uint(lines.len() as u64);
                for l in lines {
                    w.bytes(l.text.as_bytes());
                    w.flag(l.error);
                }
                w.uint(session.db);
                w.0.push(session.proto);
                match session.blocked {
                    None => w.0.push(0),
                    Some(None) => w.0.push(1),
                    Some(Some(t)) => {
                        w.0.push(2);
                        w.int(t);
                    }
                }
                w.0.push(match session.waits_for {
                    WaitsFor::Data => 0,
                    WaitsFor::Replicas => 1,
                    WaitsFor::Pause => 2,
                    WaitsFor::Script => 3,
                    WaitsFor::Busy => 4,
                });
                w.flag(session.queued.is_some());
                if let Some(q) = &session.queued {
                    w.uint(q.len() as u64);
                    for line in q {
                        w.bytes(line.as_bytes());
                    }
                }
                w.flag(session.subscribed);
            }
            Msg::Close { from, pane } => {
                w.0.push(7);
                w.uint(*from);
                w.flag(pane.is_some());
                if let Some(p) = pane {
                    w.uint(u64::from(*p));
                }
            }
            Msg::Interrupt { from, pane } => {
                w.0.push(9);
                w.uint(*from);
                w.uint(u64::from(*pane));
            }
            Msg::Config { to, name, value } => {
                w.0.push(8);
                w.uint(*to);
                w.bytes(name.as_bytes());
                w.bytes(value.as_bytes());
            }
        }
        w.0
    }

    /// Reads a framed message.
    ///
    /// # Errors
    /// A wrong magic or version, an unknown tag, truncated or trailing bytes.
    pub fn decode(buf: &[u8]) -> Result<Msg, BadMessage> {
        if buf.get(..2) != Some(MAGIC.as_slice()) {
            return Err(BadMessage("bad magic"));
        }
        let mut r = R(codec::Reader::at(buf, 2));
        if r.u8()? != VERSION {
            return Err(BadMessage("unknown version"));
        }
        let msg = match r.u8()? {
            1 => Msg::Hello { from: r.uint()? },
            2 => Msg::Leader { leader: r.uint()? },
            3 => Msg::Snapshot {
                leader: r.uint()?,
                to: r.uint()?,
                seq: r.uint()?,
                bytes: r.bytes()?,
            },
            4 => Msg::Effects {
                leader: r.uint()?,
                seq: r.uint()?,
                record: r.bytes()?,
            },
            5 => {
                let (from, to, pane, req) = (r.uint()?, r.uint()?, r.u32()?, r.uint()?);
                let n = r.count(1)?;
                let mut argv = Vec::with_capacity(n);
                for _ in 0..n {
                    argv.push(r.bytes()?);
                }
                Msg::Command {
                    from,
                    to,
                    pane,
                    req,
                    argv,
                }
            }
            6 => {
                let (leader, to, pane, req) = (r.uint()?, r.uint()?, r.u32()?, r.uint()?);
                let n = r.count(2)?;
                let mut lines = Vec::with_capacity(n);
                for _ in 0..n {
                    lines.push(Line {
                        text: r.text()?,
                        error: r.flag()?,
                    });
                }
                let db = r.uint()?;
                let proto = r.u8()?;
                let blocked = match r.u8()? {
                    0 => None,
                    1 => Some(None),
                    2 => Some(Some(r.int()?)),
                    _ => return Err(BadMessage("bad blocked state")),
                };
                let waits_for = match r.u8()? {
                    0 => WaitsFor::Data,
                    1 => WaitsFor::Replicas,
                    2 => WaitsFor::Pause,
                    3 => WaitsFor::Script,
                    4 => WaitsFor::Busy,
                    _ => return Err(BadMessage("bad blocked state")),
                };
                let queued = if r.flag()? {
                    let n = r.count(1)?;
                    let mut q = Vec::with_capacity(n);
                    for _ in 0..n {
                        q.push(r.text()?);
                    }
                    Some(q)
                } else {
                    None
                };
                let subscribed = r.flag()?;
                Msg::Reply {
                    leader,
                    to,
                    pane,
                    req,
                    lines,
                    session: Session {
                        db,
                        proto,
                        blocked,
                        waits_for,
                        queued,
                        subscribed,
                    },
                }
            }
            7 => Msg::Close {
                from: r.uint()?,
                pane: if r.flag()? { Some(r.u32()?) } else { None },
            },
            8 => Msg::Config {
                to: r.uint()?,
                name: r.text()?,
                value: r.text()?,
            },
            9 => Msg::Interrupt {
                from: r.uint()?,
                pane: r.u32()?,
            },
            _ => return Err(BadMessage("unknown message")),
        };
        if r.0.remaining() != 0 {
            return Err(BadMessage("trailing bytes"));
        }
        Ok(msg)
    }
}

/// What a follower does with an effect batch ([`Follow::effects`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The next batch: apply it.
    Apply,
    /// Already included (or not synced yet, a snapshot is on its way): ignore it.
    Skip,
    /// A batch is missing: ask for a snapshot ([`Msg::Hello`]) and ignore batches until it
    /// comes.
    Resync,
}

/// A follower's position in the leader's stream of effect batches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Follow {
    /// The leader followed, once known.
    pub leader: Option<TabId>,
    /// The last batch applied; `None` until a snapshot arrived (or after a gap).
    pub last: Option<u64>,
}

impl Follow {
    /// True once the replica holds a snapshot and the batches since.
    pub fn synced(&self) -> bool {
        self.last.is_some()
    }

    /// A snapshot from `leader` after batch `seq` was installed.
    pub fn snapshot(&mut self, leader: TabId, seq: u64) {
        self.leader = Some(leader);
        self.last = Some(seq);
    }

    /// Batch `seq` from `leader` arrived.
    pub fn effects(&mut self, leader: TabId, seq: u64) -> Step {
        if self.leader != Some(leader) {
            return Step::Skip;
        }
        match self.last {
            None => Step::Skip,
            Some(last) if seq <= last => Step::Skip,
            Some(last) if seq == last + 1 => {
                self.last = Some(seq);
                Step::Apply
            }
            Some(_) => {
                self.last = None;
                Step::Resync
            }
        }
    }

    /// Another tab took over: everything from the old leader is void until its snapshot.
    pub fn new_leader(&mut self, leader: TabId) {
        self.leader = Some(leader);
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Msg> {
        vec![
            Msg::Hello { from: u64::MAX },
            Msg::Leader { leader: 7 },
            Msg::Snapshot {
                leader: 1,
                to: 2,
                seq: 300,
                bytes: vec![0, 1, 255],
            },
            Msg::Effects {
                leader: 1,
                seq: 1,
                record: b"KL...".to_vec(),
            },
            Msg::Command {
                from: 2,
                to: 1,
                pane: 3,
                req: 9,
                argv: vec![b"SET".to_vec(), b"k\0\xff".to_vec(), Vec::new()],
            },
            Msg::Reply {
                leader: 1,
                to: 2,
                pane: 3,
                req: 0,
                lines: vec![
                    Line {
                        text: "1) \"message\"".into(),
                        error: false,
                    },
                    Line {
                        text: "(error) ERR x — 错误".into(),
                        error: true,
                    },
                ],
                session: Session {
                    db: 15,
                    proto: 3,
                    blocked: Some(Some(-5)),
                    waits_for: WaitsFor::Pause,
                    queued: Some(vec!["INCR n".into()]),
                    subscribed: true,
                },
            },
            Msg::Reply {
                leader: 1,
                to: 2,
                pane: 1,
                req: 4,
                lines: Vec::new(),
                session: Session {
                    blocked: Some(None),
                    ..Session::default()
                },
            },
            Msg::Close {
                from: 2,
                pane: None,
            },
            Msg::Close {
                from: 2,
                pane: Some(u32::MAX),
            },
            Msg::Interrupt {
                from: u64::MAX,
                pane: 3,
            },
            Msg::Config {
                to: 1,
                name: "cluster-enabled".into(),
                value: "yes".into(),
            },
        ]
    }

    #[test]
    fn every_message_round_trips() {
        for m in all() {
            assert_eq!(Msg::decode(&m.encode()), Ok(m));
        }
    }

    #[test]
    fn truncated_extended_or_corrupt_input_is_an_error_not_a_panic() {
        for m in all() {
            let b = m.encode();
            for n in 0..b.len() {
                assert!(Msg::decode(&b[..n]).is_err(), "{m:?} cut at {n}");
            }
            let mut longer = b.clone();
            longer.push(0);
            assert_eq!(Msg::decode(&longer), Err(BadMessage("trailing bytes")));
            // Flipping any byte never panics (it may still decode to another message).
            for i in 0..b.len() {
                let mut c = b.clone();
                c[i] ^= 0xff;
                let _ = Msg::decode(&c);
            }
        }
        assert_eq!(
            Msg::decode(b"KT\x02\x01\x00"),
            Err(BadMessage("unknown version"))
        );
        assert_eq!(
            Msg::decode(b"KT\x01\x63"),
            Err(BadMessage("unknown message"))
        );
        // A huge count with no bytes behind it is refused before anything is reserved.
        assert_eq!(
            Msg::decode(b"KT\x01\x05\x01\x01\x01\x01\xff\xff\xff\xff\x0f"),
            Err(BadMessage("truncated"))
        );
    }

    #[test]
    fn a_follower_applies_batches_in_order_skips_old_ones_and_resyncs_on_a_gap() {
        let mut f = Follow::default();
        // Before the first snapshot nothing applies: the snapshot will include it.
        assert_eq!(f.effects(1, 1), Step::Skip);
        f.snapshot(1, 3);
        assert!(f.synced());
        assert_eq!(f.effects(1, 2), Step::Skip);
        assert_eq!(f.effects(1, 3), Step::Skip);
        assert_eq!(f.effects(1, 4), Step::Apply);
        assert_eq!(f.effects(1, 5), Step::Apply);
        // From another leader (a stale one): ignored.
        assert_eq!(f.effects(9, 6), Step::Skip);
        // 6 lost: resync, and ignore everything until the snapshot.
        assert_eq!(f.effects(1, 7), Step::Resync);
        assert!(!f.synced());
        assert_eq!(f.effects(1, 8), Step::Skip);
        f.snapshot(1, 8);
        assert_eq!(f.effects(1, 9), Step::Apply);
        // A new leader numbers from 1 again, after its snapshot.
        f.new_leader(2);
        assert_eq!(f.effects(1, 10), Step::Skip);
        assert_eq!(f.effects(2, 1), Step::Skip);
        f.snapshot(2, 1);
        assert_eq!(f.effects(2, 2), Step::Apply);
    }
}
