//! Replay, install and recovery: rebuilding a dataset from a snapshot and the log after it, and
//! putting it into an engine.

use super::super::clock::ManualClock;
use super::super::keyspace::{Db, Key};
use super::super::{Engine, NUM_DBS};
use super::format::FormatError;
use super::image::decode_snapshot;
use super::log::{decode_log_record, LogRecord, TimedEffect};

/// Rebuilds a dataset: a snapshot's databases, then log effects applied in order, each at
/// the time it first ran (see the module docs).
pub struct Replayer {
    engine: Engine,
    clock: ManualClock,
    client: crate::engine::ClientId,
    db: usize,
    /// Effects applied so far.
    pub applied: u64,
}

impl Replayer {
    /// A replayer starting from `dbs` (a decoded snapshot's, or empty databases).
    pub fn new(dbs: Option<Vec<Db>>) -> Replayer {
        let clock = ManualClock::at_ms(0);
        let mut engine = Engine::new(Box::new(clock.clone()), 0);
        if let Some(mut dbs) = dbs {
            dbs.resize_with(NUM_DBS, Db::default);
            engine.srv.dbs = dbs;
        }
        let client = engine.connect();
        Replayer {
            engine,
            clock,
            client,
            db: 0,
            applied: 0,
        }
    }

    /// Applies one effect at the time it first ran. **As the effect's command.**
    pub fn apply(&mut self, e: &TimedEffect) {
        self.clock.set_ms(e.at_ms);
        if e.effect.db != self.db {
            // Inside a replayed MULTI this is queued and runs in order, as it did.
            self.engine.execute(
                self.client,
                vec![b"SELECT".to_vec(), e.effect.db.to_string().into_bytes()],
            );
            self.db = e.effect.db;
        }
        self.engine.execute(self.client, e.effect.argv.clone());
        self.engine.srv.effects.clear();
        self.applied += 1;
    }

    /// Applies every effect of a record.
    pub fn apply_record(&mut self, record: &LogRecord) {
        for e in &record.effects {
            self.apply(e);
        }
    }

    /// Starts from these function libraries (a decoded snapshot's).
    pub fn with_functions(mut self, codes: Vec<Vec<u8>>) -> Replayer {
        self.engine.srv.functions.load_all(codes);
        self
    }

    /// The rebuilt databases.
    pub fn finish(self) -> Vec<Db> {
        self.engine.srv.dbs
    }

    /// The rebuilt databases and function libraries' code.
    pub fn finish_all(self) -> (Vec<Db>, Vec<Vec<u8>>) {
        let codes = self.engine.srv.functions.codes();
        (self.engine.srv.dbs, codes)
    }
}

/// Applies replicated effects to a live engine's dataset (a follower tab's replica), each
/// at the time it first ran, as [`Replayer`] does while loading. Clients keep their state;
/// the effects this produces are discarded. **O(size of the effects).**
pub fn apply_effects(engine: &mut Engine, effects: &[TimedEffect]) {
    if effects.is_empty() {
        return;
    }
    let mut rp = Replayer::new(Some(std::mem::take(&mut engine.srv.dbs)));
    rp.engine.srv.functions = std::mem::take(&mut engine.srv.functions);
    for e in effects {
        rp.apply(e);
    }
    engine.srv.functions = std::mem::take(&mut rp.engine.srv.functions);
    engine.srv.dbs = rp.finish();
}

/// Replaces the function libraries of `engine` with those of `codes` (a restored
/// dataset's), compiled again; a library that no longer loads is left out. **O(size of
/// the code).**
pub fn install_functions(engine: &mut Engine, codes: Vec<Vec<u8>>) {
    engine.srv.functions.flush();
    engine.srv.functions.load_all(codes);
}

/// Replaces the databases of `engine` with `dbs` (a restored dataset), dropping the keys
/// whose deadline passed — they expired while nothing was running. Connected clients keep
/// their state; the effects this produces are discarded. **O(keys).**
pub fn install(engine: &mut Engine, dbs: Vec<Db>) {
    install_dbs(&mut engine.srv, dbs);
}

/// [`install`] on the server alone (`DEBUG RELOAD` runs inside a command).
pub fn install_dbs(srv: &mut crate::engine::Server, mut dbs: Vec<Db>) {
    let now = srv.clock.now_ms();
    dbs.resize_with(NUM_DBS, Db::default);
    dbs.truncate(NUM_DBS);
    for db in &mut dbs {
        let expired: Vec<Key> = db
            .iter()
            .filter(|(_, e)| e.is_expired_at(now))
            .map(|(k, _)| k.to_vec())
            .collect();
        for k in expired {
            db.remove(&k);
        }
    }
    let replaced = std::mem::replace(&mut srv.dbs, dbs);
    // A background save under way still has to write the replaced data.
    if let Some(file) = srv.persist.bgsave.as_mut().and_then(|b| b.file.as_mut()) {
        file.adopt(replaced);
    }
    srv.index_slots();
}

/// What loading stored data found: the dataset to install and what went wrong on the way.
pub struct Recovery {
    /// The rebuilt databases (pass to [`install`]).
    pub dbs: Vec<Db>,
    /// The rebuilt function libraries' code (pass to [`install_functions`]).
    pub functions: Vec<Vec<u8>>,
    /// The highest sequence number seen (snapshot or log, good or bad): new records must
    /// be numbered after it.
    pub last_seq: u64,
    /// Damage found (a corrupt snapshot chunk, a corrupt log record): reported to the user;
    /// everything before the damage was recovered.
    pub damage: Vec<FormatError>,
    /// Sequence numbers of the log records that were not replayed (the first damaged one
    /// and every one after it), to be set aside.
    pub skipped: Vec<u64>,
    /// Log records replayed.
    pub replayed: usize,
    /// Effects replayed.
    pub effects: u64,
}

/// Loads stored data: the snapshot (if any), then the log records after it in ascending
/// sequence order, stopping at the first damaged record (those after it depend on it).
/// Records the snapshot already includes are ignored. Version 0 log records are stamped
/// with `now_ms`.
///
/// # Errors
/// [`FormatError::Newer`] (or a bad snapshot header) if the data must not be touched: the
/// host keeps it as it is and runs in memory.
pub fn recover(
    snapshot: Option<&[u8]>,
    log: &[(u64, &[u8])],
    now_ms: i64,
) -> Result<Recovery, FormatError> {
    let mut damage = Vec::new();
    let (dbs, functions, snap_seq) = match snapshot {
        Some(bytes) => {
            let d = decode_snapshot(bytes)?;
            damage.extend(d.error);
            (Some(d.value.dbs), d.value.functions, d.value.last_seq)
        }
        None => (None, Vec::new(), 0),
    };
    // Refuse before replaying anything if any record is from a newer version.
    for (_, bytes) in log {
        if let Err(e @ FormatError::Newer { .. }) = decode_log_record(bytes, now_ms) {
            return Err(e);
        }
    }
    let mut sorted: Vec<&(u64, &[u8])> = log.iter().collect();
    sorted.sort_by_key(|(seq, _)| *seq);
    let mut rp = Replayer::new(dbs).with_functions(functions);
    let mut last_seq = snap_seq;
    let mut skipped = Vec::new();
    let mut replayed = 0;
    for &&(seq, bytes) in &sorted {
        last_seq = last_seq.max(seq);
        if !skipped.is_empty() {
            skipped.push(seq);
            continue;
        }
        if seq <= snap_seq {
            continue;
        }
        match decode_log_record(bytes, now_ms) {
            Ok(rec) if rec.seq == seq => {
                rp.apply_record(&rec);
                replayed += 1;
            }
            Ok(rec) => {
                damage.push(FormatError::Invalid {
                    what: format!("log record {seq} says it is record {}", rec.seq),
                });
                skipped.push(seq);
            }
            Err(e) => {
                damage.push(match e {
                    FormatError::Checksum { .. } => FormatError::Checksum {
                        what: format!("log record {seq}"),
                    },
                    FormatError::Truncated { .. } => FormatError::Truncated {
                        what: format!("log record {seq}"),
                    },
                    other => other,
                });
                skipped.push(seq);
            }
        }
    }
    let effects = rp.applied;
    let (dbs, functions) = rp.finish_all();
    Ok(Recovery {
        dbs,
        functions,
        last_seq,
        damage,
        skipped,
        replayed,
        effects,
    })
}
