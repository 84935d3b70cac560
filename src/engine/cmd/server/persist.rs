//! SAVE, BGSAVE, LASTSAVE and SHUTDOWN: the dataset as a `dump.rdb`
//! ([`crate::engine::rdb::file`]) in the host's [`Storage`].
//!
//! # How a background save sees a frozen dataset without a fork or a copy
//! Redis forks: the child encodes and writes a frozen copy of memory while the parent goes
//! on serving. kvlab's crates forbid `unsafe` (no `fork`), the server runs every client on
//! one thread, and the dataset cannot move to another thread as it is (sorted sets share
//! members through `Rc`). Copying the databases would block for as long as the copy takes
//! (0.44 s per million keys). Instead `BGSAVE` only marks where the save starts, O(1) per
//! database, and the databases do copy-on-write at the level of entries: an entry still
//! to be saved is encoded just before a command changes or removes it
//! ([`crate::engine::keyspace`], [`crate::engine::rdb::file::BackgroundFile`]).
//! [`Engine::persist_step`] encodes the rest a slice of keys at a time, called by the host
//! between its other work (the native server: a task that yields to the connections after
//! each slice). The encoded bytes go to the host, which writes and syncs them off the event
//! loop ([`Storage::write_background`]) and renames the file over the old one when done.
//! `SAVE` encodes and writes in one go, blocking, as Redis's does.

use crate::engine::args::Args;
use crate::engine::core::memory::used_memory;
use crate::engine::core::persist::{Bgsave, Storage};
use crate::engine::error::{CmdResult, Error};
use crate::engine::rdb::file::{
    load_file, BackgroundFile, FileError, FileOptions, LoadFileOptions, RdbData, Usage,
};
use crate::engine::{Ctx, Engine, Reply, Server};

/// Redis's replies and log lines of this group, each written once.
const IN_PROGRESS: &str = "Background save already in progress";
const STARTED: &str = "Background saving started";
const SCHEDULED: &str = "Background saving scheduled";
const NO_SHUTDOWN: &str = "No shutdown in progress.";
const SHUTDOWN_FAILED: &str = "Errors trying to SHUTDOWN. Check logs.";
const NO_STORAGE: &str = "This host has no files to save to";

/// A failed background save is retried by the save points or a schedule after this long
/// (Redis's `CONFIG_BGSAVE_RETRY_DELAY`).
const RETRY_MS: i64 = 5000;

/// Keys encoded per slice by [`Engine::persist_step`] from the tick.
pub const SLICE_KEYS: usize = 1000;

pub(super) fn file_options(srv: &Server, now_ms: i64) -> FileOptions {
    let policy = srv.config.eviction().policy;
    let usage = if policy.is_lfu() {
        Usage::Freq
    } else if srv.config.maxmemory_policy().ends_with("-lru") {
        Usage::Idle
    } else {
        Usage::None
    };
    FileOptions {
        values: crate::engine::rdb::write::SaveOptions::from_config(&srv.config)
            .plain_from(srv.debug.packed_threshold),
        checksum: srv.config.flag("rdbchecksum"),
        ctime_s: now_ms.div_euclid(1000),
        used_mem: used_memory(srv),
        usage,
    }
}

/// How a `dump.rdb` is read at `now_ms` under the server's configuration and debug
/// switches (`rdbchecksum`, `DEBUG SET-SKIP-CHECKSUM-VALIDATION`).
pub(super) fn load_options(srv: &Server, now_ms: i64) -> LoadFileOptions {
    LoadFileOptions {
        checksum: srv.config.flag("rdbchecksum") && srv.debug.checksums,
        now_ms,
        values: crate::engine::rdb::read::LoadOptions::from_config(&srv.config),
    }
}

fn paths(srv: &Server) -> (String, String) {
    let get = |n: &str| srv.config.get(n).unwrap_or("").to_string();
    (get("dir"), get("dbfilename"))
}

/// Redis's `rdbSave`: encodes the dataset and has the host write it, logging as Redis
/// does. On success the changes count restarts from 0.
pub(crate) fn save_now(srv: &mut Server) -> Result<(), ()> {
    let now = srv.clock.now_ms();
    let opts = file_options(srv, now);
    let codes = srv.functions.codes();
    let bytes = match crate::engine::rdb::file::write_file(&srv.dbs, &codes, now, &opts) {
        Ok(b) => b,
        Err(e) => {
            srv.log(3, format!("Error saving the DB: {e}").as_bytes());
            return Err(());
        }
    };
    let (dir, name) = paths(srv);
    let result = match srv.persist.storage.as_mut() {
        Some(s) => s.write(&dir, &name, &bytes),
        None => Err(NO_STORAGE.to_string()),
    };
    match result {
        Ok(()) => {
            srv.log(2, b"DB saved on disk");
            srv.dirty = 0;
            srv.persist.lastsave_ms = now;
            srv.persist.last_bgsave_failed = false;
            srv.persist.saves += 1;
            Ok(())
        }
        Err(line) => {
            srv.log(3, line.as_bytes());
            Err(())
        }
    }
}

/// Redis's `rdbSaveBackground`: starts saving the dataset as it is now. **O(number of
/// databases).**
fn start_bgsave(srv: &mut Server) -> Result<(), ()> {
    if srv.persist.storage.is_none() {
        srv.log(3, NO_STORAGE.as_bytes());
        return Err(());
    }
    let now = srv.clock.now_ms();
    let opts = file_options(srv, now);
    srv.persist.epoch = crate::engine::keyspace::next_save_epoch(srv.persist.epoch, &mut srv.dbs);
    let file = BackgroundFile::start(
        &mut srv.dbs,
        &srv.functions.codes(),
        now,
        opts,
        srv.persist.epoch,
    );
    let keys_total = file.keys_total();
    srv.persist.last_try_ms = now;
    srv.persist.scheduled = false;
    srv.persist.bgsave = Some(Bgsave {
        file: Some(file),
        dirty_at_start: srv.dirty,
        started_ms: now,
        keys_total,
    });
    srv.log(2, STARTED.as_bytes());
    Ok(())
}

/// The end of a background save (Redis's `backgroundSaveDoneHandler`).
fn bgsave_done(srv: &mut Server, result: Result<(), String>) {
    let Some(bg) = srv.persist.bgsave.take() else {
        return;
    };
    let now = srv.clock.now_ms();
    srv.persist.last_bgsave_secs = (now - bg.started_ms).div_euclid(1000);
    match result {
        Ok(()) => {
            srv.log(2, b"DB saved on disk");
            srv.log(2, b"Background saving terminated with success");
            srv.dirty = srv.dirty.saturating_sub(bg.dirty_at_start);
            srv.persist.lastsave_ms = bg.started_ms;
            srv.persist.last_bgsave_failed = false;
            srv.persist.saves += 1;
        }
        Err(line) => {
            srv.log(3, line.as_bytes());
            srv.log(3, b"Background saving error");
            srv.persist.last_bgsave_failed = true;
        }
    }
}

/// The `save` parameter's points: (seconds, changes) pairs.
fn save_points(srv: &Server) -> Vec<(i64, u64)> {
    let words: Vec<&str> = srv
        .config
        .get("save")
        .unwrap_or("")
        .split_whitespace()
        .collect();
    words
        .chunks(2)
        .filter_map(|p| Some((p.first()?.parse().ok()?, p.get(1)?.parse().ok()?)))
        .collect()
}

impl Engine {
    /// Lends the engine the host's storage for RDB files (`SAVE`, `BGSAVE`, `SHUTDOWN`).
    pub fn set_storage(&mut self, storage: Box<dyn Storage>) {
        self.srv.persist.storage = Some(storage);
    }

    /// Background saving's share of the server's cron, for the host to call on each tick
    /// and again, yielding in between, as long as it returns true: encodes up to
    /// `max_keys` keys of a background save, hands the finished file to the storage,
    /// notices its end, and starts a save when a `save` point is reached or one was
    /// scheduled (Redis's `serverCron`). True while encoding is left to do.
    pub fn persist_step(&mut self, max_keys: usize) -> bool {
        let srv = &mut self.srv;
        if let Some(bg) = srv.persist.bgsave.as_mut() {
            if let Some(file) = bg.file.as_mut() {
                match file.step(&mut srv.dbs, max_keys) {
                    Ok(false) => return true,
                    Ok(true) => {
                        let bytes = bg
                            .file
                            .take()
                            .map(BackgroundFile::finish)
                            .unwrap_or_default();
                        let (dir, name) = paths(srv);
                        let started = match srv.persist.storage.as_mut() {
                            Some(s) => s.write_background(&dir, &name, bytes),
                            None => Err(NO_STORAGE.to_string()),
                        };
                        if let Err(line) = started {
                            bgsave_done(srv, Err(line));
                        }
                    }
                    Err(line) => bgsave_done(srv, Err(line)),
                }
            } else if let Some(result) = srv.persist.storage.as_mut().and_then(|s| s.poll()) {
                bgsave_done(srv, result);
            }
            return false;
        }
        let now = srv.clock.now_ms();
        let may_retry = !srv.persist.last_bgsave_failed || now - srv.persist.last_try_ms > RETRY_MS;
        // `DEBUG PAUSE-CRON 1`: the cron checks no save point (a save under way goes on).
        if !may_retry || srv.persist.storage.is_none() || !srv.debug.cron {
            return false;
        }
        if srv.persist.scheduled {
            return start_bgsave(srv).is_ok();
        }
        let since = now - srv.persist.lastsave_ms;
        let reached = save_points(srv)
            .into_iter()
            .find(|&(secs, changes)| srv.dirty >= changes && since > secs.saturating_mul(1000));
        if let Some((secs, changes)) = reached {
            srv.log(
                2,
                format!("{changes} changes in {secs} seconds. Saving...").as_bytes(),
            );
            return start_bgsave(srv).is_ok();
        }
        false
    }

    /// True while a background save has keys left to encode: the host should call
    /// [`Engine::persist_step`] again soon.
    pub fn saving_in_background(&self) -> bool {
        self.srv
            .persist
            .bgsave
            .as_ref()
            .is_some_and(|bg| bg.file.is_some())
    }

    /// True once `SHUTDOWN` (or [`Engine::shutdown`]) succeeded: the host should exit.
    pub fn shutdown_requested(&self) -> bool {
        self.srv.persist.shutdown
    }

    /// Redis's `prepareForShutdown`, for `SHUTDOWN` and the host's signals: saves first
    /// when asked (`save`) or, unless `nosave`, when save points are set; a failed save
    /// stops the shutdown unless `force`. True when the host should exit.
    pub fn shutdown(&mut self, save: bool, nosave: bool, force: bool) -> bool {
        shutdown(&mut self.srv, save, nosave, force).is_ok()
    }

    /// Replaces the dataset and the function libraries with those of a `dump.rdb`, whole
    /// or not at all, logging what Redis logs as it loads one. **O(size of the file).**
    ///
    /// # Errors
    /// What is wrong with the file, where; the dataset is then untouched.
    pub fn load_rdb(&mut self, bytes: Vec<u8>) -> Result<(), FileError> {
        let now = self.srv.clock.now_ms();
        let data = load_file(bytes, load_options(&self.srv, now))?;
        self.install_rdb(data);
        Ok(())
    }

    /// Installs a file read to its end ([`RdbData`], from a [`crate::engine::rdb::file::Loader`]
    /// run in steps), logging as Redis does.
    pub fn install_rdb(&mut self, data: RdbData) {
        let now = self.srv.clock.now_ms();
        let srv = &mut self.srv;
        if let Some(v) = data.aux("redis-ver") {
            let line = format!(
                "Loading RDB produced by version {}",
                String::from_utf8_lossy(v)
            );
            srv.log(2, line.as_bytes());
        }
        let number = |k: &str| {
            data.aux(k)
                .and_then(|v| std::str::from_utf8(v).ok()?.parse::<i64>().ok())
        };
        if let Some(ctime) = number("ctime") {
            let age = (now.div_euclid(1000) - ctime).max(0);
            srv.log(2, format!("RDB age {age} seconds").as_bytes());
        }
        if let Some(mem) = number("used-mem") {
            let mb = mem as f64 / (1024.0 * 1024.0);
            srv.log(
                2,
                format!("RDB memory usage when created {mb:.2} Mb").as_bytes(),
            );
        }
        if data.unchecked && data.version >= 5 {
            srv.log(
                3,
                b"RDB file was saved with checksum disabled: no check performed.",
            );
        }
        srv.log(
            2,
            format!(
                "Done loading RDB, keys loaded: {}, keys expired: {}.",
                data.keys, data.expired
            )
            .as_bytes(),
        );
        srv.persist.loaded_keys = data.keys;
        srv.persist.loaded_expired = data.expired;
        crate::engine::snapshot::install(self, data.dbs);
        crate::engine::snapshot::install_functions(self, data.functions);
    }
}

fn shutdown(srv: &mut Server, save: bool, nosave: bool, force: bool) -> Result<(), ()> {
    srv.log(3, b"User requested shutdown...");
    if let Some(bg) = srv.persist.bgsave.take() {
        srv.log(3, b"There is a child saving an .rdb. Killing it!");
        if let Some(file) = bg.file {
            file.cancel(&mut srv.dbs);
        }
        if let Some(s) = srv.persist.storage.as_mut() {
            s.cancel();
        }
    }
    if save || (!nosave && !save_points(srv).is_empty()) {
        srv.log(2, b"Saving the final RDB snapshot before exiting.");
        if save_now(srv).is_err() {
            if force {
                srv.log(3, b"Error trying to save the DB. Exit anyway.");
            } else {
                srv.log(3, b"Error trying to save the DB, can't exit.");
                srv.log(3, SHUTDOWN_FAILED.as_bytes());
                return Err(());
            }
        }
    }
    if srv.persist.storage.is_none() {
        // Nothing to exit: the browser's engine lives as long as its page.
        srv.log(3, NO_STORAGE.as_bytes());
        return Err(());
    }
    srv.log(3, b"Redis is now ready to exit, bye bye...");
    srv.persist.shutdown = true;
    Ok(())
}

pub(super) fn info_fields(srv: &Server) -> Vec<(&'static str, String)> {
    let p = &srv.persist;
    let now = srv.clock.now_ms();
    let (processed, total) = match &p.bgsave {
        Some(bg) => (
            bg.file.as_ref().map_or(bg.keys_total, |f| f.keys(&srv.dbs)),
            bg.keys_total,
        ),
        None => (0, 0),
    };
    vec![
        ("current_save_keys_processed", processed.to_string()),
        ("current_save_keys_total", total.to_string()),
        ("rdb_changes_since_last_save", srv.dirty.to_string()),
        (
            "rdb_bgsave_in_progress",
            u8::from(p.bgsave.is_some()).to_string(),
        ),
        (
            "rdb_last_save_time",
            p.lastsave_ms.div_euclid(1000).to_string(),
        ),
        (
            "rdb_last_bgsave_status",
            if p.last_bgsave_failed { "err" } else { "ok" }.to_string(),
        ),
        ("rdb_last_bgsave_time_sec", p.last_bgsave_secs.to_string()),
        (
            "rdb_current_bgsave_time_sec",
            p.bgsave
                .as_ref()
                .map_or(-1, |bg| (now - bg.started_ms).div_euclid(1000))
                .to_string(),
        ),
        ("rdb_saves", p.saves.to_string()),
        ("rdb_last_cow_size", "0".to_string()),
        ("rdb_last_load_keys_expired", p.loaded_expired.to_string()),
        ("rdb_last_load_keys_loaded", p.loaded_keys.to_string()),
    ]
}

/// SAVE: encodes and writes the dataset now, blocking (refused while a background save
/// runs). `OK`, or a bare `ERR` when it failed (the reason is logged), as Redis replies.
pub(super) fn save(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    if ctx.srv.persist.bgsave.is_some() {
        return Err(Error::Err(IN_PROGRESS.into()));
    }
    match save_now(ctx.srv) {
        Ok(()) => Ok(Reply::ok()),
        Err(()) => Ok(Reply::Error("ERR".into())),
    }
}

/// BGSAVE [SCHEDULE]: starts a background save; inside a transaction it is scheduled
/// instead, as Redis does while another child runs (there is never another here).
pub(super) fn bgsave(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    match args.remaining() {
        0 => {}
        1 if args.next_bytes()?.eq_ignore_ascii_case(b"schedule") => {}
        _ => return Err(Error::Syntax),
    }
    if ctx.srv.persist.bgsave.is_some() {
        return Err(Error::Err(IN_PROGRESS.into()));
    }
    if ctx.deny_blocking {
        ctx.srv.persist.scheduled = true;
        return Ok(Reply::status(SCHEDULED));
    }
    match start_bgsave(ctx.srv) {
        Ok(()) => Ok(Reply::status(STARTED)),
        Err(()) => Ok(Reply::Error("ERR".into())),
    }
}

/// LASTSAVE: Unix seconds of the last successful save (the server's start before any).
pub(super) fn lastsave(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.srv.persist.lastsave_ms.div_euclid(1000)))
}

/// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT], as Redis 7.0 parses it. There are no
/// replicas to wait for, so NOW changes nothing and there is never a shutdown in progress
/// to ABORT. On success the client gets no reply: the host exits.
pub(super) fn shutdown_cmd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (mut save, mut nosave, mut force, mut abort, mut now) = (false, false, false, false, false);
    for arg in args.rest() {
        let flag = match arg.to_ascii_lowercase().as_slice() {
            b"nosave" => &mut nosave,
            b"save" => &mut save,
            b"now" => &mut now,
            b"force" => &mut force,
            b"abort" => &mut abort,
            _ => return Err(Error::Syntax),
        };
        *flag = true;
    }
    if (abort && (save || nosave || force || now)) || (save && nosave) {
        return Err(Error::Syntax);
    }
    if abort {
        return Err(Error::Err(NO_SHUTDOWN.into()));
    }
    if !nosave {
        if let Some(running) = ctx.srv.running.as_ref() {
            return Err(Error::Coded(running.busy_error().into()));
        }
    }
    match shutdown(ctx.srv, save, nosave, force) {
        Ok(()) => {
            ctx.no_reply = true;
            Ok(Reply::ok())
        }
        Err(()) => Err(Error::Err(SHUTDOWN_FAILED.into())),
    }
}
