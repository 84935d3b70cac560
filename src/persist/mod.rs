//! Persistence in the browser: the effect log and snapshots of [`crate::engine::snapshot`]
//! kept in IndexedDB, one database per workspace. Compiled for `wasm32` only.
//!
//! # How a write is kept
//! After each command the host hands the command's effects to [`Persister::record`]. The
//! first effect starts an append at once (a microtask later); effects that arrive while an
//! append is in flight are gathered and written as the next record when it completes. So a
//! record is one command or one burst of commands, each append is one IndexedDB transaction
//! with `durability: "strict"`, and a reply is committed a few milliseconds after it is
//! shown — within the frame that paints it, under normal load (the benchmark in
//! `bench/persist.mjs` measures it). When the log passes [`COMPACT_BYTES`] or
//! [`COMPACT_RECORDS`], a snapshot replaces it, once the page has been quiet for
//! [`COMPACT_IDLE_MS`] (snapshot and log truncation are one transaction).
//!
//! # Scripts
//! Redis keeps no script across a restart; the web app keeps the learner's cached scripts
//! (`SCRIPT LOAD`, `EVAL`) across reloads. [`Persister::record_scripts`] takes each change
//! of the engine's script cache (`app::engine::ScriptChange`) and writes it in the same
//! transaction as the log record of the same moment, under `meta` keys `script:<sha1>`;
//! `SCRIPT FLUSH` deletes them all. Like a write, a script is pending until committed
//! ([`Status::pending`]). [`Persister::take_scripts`] gives the stored bodies to put back
//! (with `SCRIPT LOAD`) before the first command.
//!
//! # Load
//! [`open`] takes the workspace's Web Lock, opens its database, reads the snapshot and the
//! log and rebuilds the dataset ([`snapshot::recover`]). Keys whose deadline passed while the
//! page was closed are dropped by [`snapshot::install`].
//!
//! # When storage fails ([`Mode`])
//! * IndexedDB missing or refused (private mode, blocked by settings): [`Mode::Memory`] —
//!   the app works, nothing is saved, and the status says so plainly.
//! * Data saved by a newer kvlab: [`Mode::Refused`] — the stored data is neither read nor
//!   written; the app runs in memory and says why.
//! * Another tab holds the workspace: [`Mode::OtherTab`] — that tab runs the workspace and
//!   saves it; this one does not write to IndexedDB. The web app then forwards this tab's
//!   commands to that tab and keeps a replica of its data ([`crate::tabs`],
//!   `src/ui/services/tabs.rs`), and takes the workspace over when that tab goes
//!   ([`wait_for_lock`], then [`open`] again).
//! * Quota exceeded or another write failure: [`Mode::WriteFailed`] — the command has
//!   already answered as Redis would; the write (and later ones) stay in memory, a warning
//!   stays visible, and nothing already saved is touched (the failed transaction aborted
//!   whole). We chose this over an OOM error reply because the reply is shown before the
//!   commit completes: turning it into an error afterwards would rewrite history.
//! * A damaged record: the data before it is recovered, the damage is reported
//!   ([`Status::problems`]), the damaged record and those after it are moved to the
//!   `quarantine` store, and a snapshot of what was recovered replaces the log.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::app::engine::ScriptChange;
use crate::engine::keyspace::Db;
use crate::engine::snapshot::{self, FormatError, TimedEffect};
use crate::engine::{Effect, Engine};

/// Log size (bytes) past which a snapshot replaces the log.
pub const COMPACT_BYTES: usize = 4 << 20;
/// Log records past which a snapshot replaces the log.
pub const COMPACT_RECORDS: usize = 20_000;
/// Quiet time before a compaction starts, so that it never lands in the middle of typing.
pub const COMPACT_IDLE_MS: u32 = 400;

#[wasm_bindgen(module = "/src/persist/idb.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn kv_open(workspace: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_load(db: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_append(db: &JsValue, seq: f64, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_write(
        db: &JsValue,
        seq: f64,
        bytes: &[u8],
        flush: bool,
        shas: Array,
        bodies: Array,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_compact(
        db: &JsValue,
        snapshot: &[u8],
        upto: f64,
        bad: Array,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_size(db: &JsValue) -> Result<JsValue, JsValue>;
    async fn kv_lock(workspace: &str) -> JsValue;
    async fn kv_wait_lock(workspace: &str) -> JsValue;
    fn kv_close(db: &JsValue);
    #[wasm_bindgen(catch)]
    async fn kv_list() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_delete(workspace: &str) -> Result<(), JsValue>;
    fn kv_error_name(e: &JsValue) -> String;
    #[wasm_bindgen(catch)]
    async fn kv_size_of(workspace: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_create(workspace: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_rename(from: &str, to: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_reset(workspace: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    async fn kv_remove(workspace: &str) -> Result<(), JsValue>;
    fn kv_download(name: &str, bytes: &[u8], mime: &str);
}

/// Whether writes are being saved, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Every write is appended to IndexedDB.
    Saved,
    /// IndexedDB is unavailable: nothing is saved.
    Memory {
        /// The browser's reason.
        reason: String,
    },
    /// The stored data is from a newer kvlab and was left untouched.
    Refused {
        /// The format error, with its message.
        reason: String,
    },
    /// Another tab owns this workspace: it runs and saves it, this tab does not write
    /// (the app forwards its commands there).
    OtherTab,
    /// A write failed (quota exceeded, …): writes from then on stay in memory.
    WriteFailed {
        /// The DOMException name or message (`QuotaExceededError`).
        reason: String,
    },
}

impl Mode {
    /// A short tag for scripts and tests (`data-persist` on `<html>`).
    pub fn tag(&self) -> &'static str {
        match self {
            Mode::Saved => "saved",
            Mode::Memory { .. } => "memory",
            Mode::Refused { .. } => "refused",
            Mode::OtherTab => "other-tab",
            Mode::WriteFailed { .. } => "write-failed",
        }
    }
}

/// What the persistence layer reports to the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// The workspace.
    pub workspace: String,
    /// Saving or not.
    pub mode: Mode,
    /// Damage found while loading, each a sentence (the data before it was recovered).
    pub problems: Vec<String>,
    /// Log records appended since the page opened.
    pub appended: u64,
    /// Bytes in the log since the last snapshot.
    pub log_bytes: usize,
    /// Size of the last snapshot written or read, bytes.
    pub snapshot_bytes: usize,
    /// Milliseconds the last load took (read, decode, replay).
    pub restore_ms: f64,
    /// Milliseconds the last snapshot took to encode (the part that runs on the page).
    pub snapshot_encode_ms: f64,
    /// Milliseconds from the last append's start to its commit.
    pub last_commit_ms: f64,
    /// True while a recorded write is not yet committed. A host that shows replies before
    /// their commit (the console does) can hold back the newest reply while this is true,
    /// so that nothing it shows can be lost by a crash.
    pub pending: bool,
}

/// Persistence of one workspace. Cheap to clone (shared state).
#[derive(Clone)]
pub struct Persister {
    inner: Rc<RefCell<Inner>>,
}

/// A status listener.
type StatusFn = Rc<dyn Fn(&Status)>;

struct Inner {
    db: Option<JsValue>,
    /// Releases the workspace's Web Lock (a JS function), while this tab holds it.
    release: Option<js_sys::Function>,
    next_seq: u64,
    pending: Vec<TimedEffect>,
    /// Script changes not written yet: forget the stored ones first, then these.
    pending_scripts: ScriptChange,
    /// Stored scripts' bodies read by [`open`], until [`Persister::take_scripts`].
    restored_scripts: Vec<Vec<u8>>,
    flushing: bool,
    log_records: usize,
    compact_due: bool,
    last_write_ms: f64,
    engine: Weak<RefCell<Engine>>,
    status: Status,
    on_status: Option<StatusFn>,
}

impl Inner {
    /// The state of a persister for `workspace` before anything is read or written: no
    /// database, nothing pending, all figures zero.
    fn new(workspace: &str, mode: Mode) -> Inner {
        Inner {
            db: None,
            release: None,
            next_seq: 1,
            pending: Vec::new(),
            pending_scripts: ScriptChange::default(),
            restored_scripts: Vec::new(),
            flushing: false,
            log_records: 0,
            compact_due: false,
            last_write_ms: 0.0,
            engine: Weak::new(),
            status: Status {
                workspace: workspace.to_string(),
                mode,
                problems: Vec::new(),
                appended: 0,
                log_bytes: 0,
                snapshot_bytes: 0,
                restore_ms: 0.0,
                snapshot_encode_ms: 0.0,
                last_commit_ms: 0.0,
                pending: false,
            },
            on_status: None,
        }
    }
}

fn now() -> f64 {
    js_sys::Date::now()
}

fn perf_now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(now, |p| p.now())
}

async fn sleep(ms: u32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        }
    });
    let _ = JsFuture::from(p).await;
}

/// Opens `workspace`: its stored dataset (empty when there is none or it cannot be read) and
/// the persister that saves the writes from now on, and its function libraries' code.
/// Never fails: every failure becomes a [`Mode`] (see the module docs). Install the
/// dataset with [`snapshot::install`] and [`snapshot::install_functions`] before the first
/// command runs, then [`Persister::attach`] the engine.
pub async fn open(workspace: &str) -> (Persister, Vec<Db>, Vec<Vec<u8>>) {
    let t0 = perf_now();
    let mut inner = Inner::new(workspace, Mode::Saved);
    let mut status = inner.status.clone();
    let lock = kv_lock(workspace).await;
    let owner = !lock.is_null();
    inner.release = lock.dyn_into::<js_sys::Function>().ok();
    let db = match kv_open(workspace).await {
        Ok(db) => db,
        Err(e) => {
            status.mode = Mode::Memory {
                reason: kv_error_name(&e),
            };
            inner.status = status;
            return (Persister::from(inner), Vec::new(), Vec::new());
        }
    };
    let loaded = match kv_load(&db).await {
        Ok(v) => Array::from(&v),
        Err(e) => {
            status.mode = Mode::Memory {
                reason: kv_error_name(&e),
            };
            inner.status = status;
            return (Persister::from(inner), Vec::new(), Vec::new());
        }
    };
    let snap = loaded.get(0);
    let snap_bytes = (!snap.is_null()).then(|| Uint8Array::new(&snap).to_vec());
    let keys = Array::from(&loaded.get(1));
    let values = Array::from(&loaded.get(2));
    let log: Vec<(u64, Vec<u8>)> = (0..keys.length())
        .map(|i| {
            let seq = keys.get(i).as_f64().unwrap_or(0.0) as u64;
            (seq, Uint8Array::new(&values.get(i)).to_vec())
        })
        .collect();
    let log_refs: Vec<(u64, &[u8])> = log.iter().map(|(s, b)| (*s, b.as_slice())).collect();
    let recovery = match snapshot::recover(snap_bytes.as_deref(), &log_refs, now() as i64) {
        Ok(r) => r,
        Err(e) => {
            status.mode = Mode::Refused {
                reason: e.to_string(),
            };
            inner.status = status;
            return (Persister::from(inner), Vec::new(), Vec::new());
        }
    };
    status.snapshot_bytes = snap_bytes.as_ref().map_or(0, Vec::len);
    status.log_bytes = log.iter().map(|(_, b)| b.len()).sum();
    status.problems = recovery.damage.iter().map(FormatError::to_string).collect();
    let scripts = Array::from(&loaded.get(3));
    if scripts.length() > 0 {
        inner.restored_scripts = read_scripts(&scripts);
    }
    inner.next_seq = recovery.last_seq + 1;
    inner.log_records = log.len();
    if !owner {
        status.mode = Mode::OtherTab;
    } else if !recovery.damage.is_empty() {
        // Set the damaged records aside and make what was recovered the new starting point,
        // so that later loads do not stop at the same damage and lose newer writes.
        let bad = Array::new();
        for (seq, bytes) in &log {
            if recovery.skipped.contains(seq) {
                let pair = Array::new();
                pair.push(&JsValue::from_f64(*seq as f64));
                pair.push(&Uint8Array::from(bytes.as_slice()));
                bad.push(&pair);
            }
        }
        let bytes = snapshot::encode_snapshot_with(
            &recovery.dbs,
            &recovery.functions,
            recovery.last_seq,
            now() as i64,
        );
        match kv_compact(&db, &bytes, recovery.last_seq as f64, bad).await {
            Ok(()) => {
                status.snapshot_bytes = bytes.len();
                status.log_bytes = 0;
                inner.log_records = 0;
            }
            Err(e) => {
                status.mode = Mode::WriteFailed {
                    reason: kv_error_name(&e),
                }
            }
        }
    }
    status.restore_ms = perf_now() - t0;
    inner.db = Some(db);
    inner.compact_due = inner.log_records > COMPACT_RECORDS || status.log_bytes > COMPACT_BYTES;
    inner.status = status;
    (Persister::from(inner), recovery.dbs, recovery.functions)
}

/// The stored scripts' bodies (out of line: a first visit has none).
#[inline(never)]
fn read_scripts(scripts: &Array) -> Vec<Vec<u8>> {
    scripts
        .iter()
        .filter(|v| v.is_object())
        .map(|v| Uint8Array::new(&v).to_vec())
        .collect()
}

impl Inner {
    /// True when a script change waits to be written.
    fn has_scripts(&self) -> bool {
        self.pending_scripts.flushed || !self.pending_scripts.added.is_empty()
    }
}

impl From<Inner> for Persister {
    fn from(inner: Inner) -> Persister {
        Persister {
            inner: Rc::new(RefCell::new(inner)),
        }
    }
}

impl Persister {
    /// A persister that saves nothing (for hosts and tests without storage).
    pub fn in_memory(workspace: &str, reason: &str) -> Persister {
        Persister::from(Inner::new(
            workspace,
            Mode::Memory {
                reason: reason.to_string(),
            },
        ))
    }

    /// Gives the persister the engine whose dataset it snapshots when compacting.
    pub fn attach(&self, engine: &Rc<RefCell<Engine>>) {
        self.inner.borrow_mut().engine = Rc::downgrade(engine);
        if self.inner.borrow().compact_due {
            self.schedule_compaction();
        }
    }

    /// Calls `f` whenever the status changes (and once now).
    pub fn on_status(&self, f: impl Fn(&Status) + 'static) {
        let f: StatusFn = Rc::new(f);
        self.inner.borrow_mut().on_status = Some(f.clone());
        let s = self.status();
        f(&s);
    }

    /// The current status.
    pub fn status(&self) -> Status {
        self.inner.borrow().status.clone()
    }

    /// True while this tab holds the workspace's Web Lock (it owns the workspace).
    pub fn holds_lock(&self) -> bool {
        self.inner.borrow().release.is_some()
    }

    /// True while writes reach IndexedDB.
    pub fn is_saving(&self) -> bool {
        let i = self.inner.borrow();
        i.status.mode == Mode::Saved && i.db.is_some()
    }

    /// True when nothing is waiting to be written or being written.
    pub fn is_idle(&self) -> bool {
        let i = self.inner.borrow();
        !i.flushing && i.pending.is_empty() && !i.has_scripts()
    }

    /// The stored scripts' bodies [`open`] read (once; empty afterwards). Cache them before
    /// the first command (`EngineService::restore_scripts`).
    pub fn take_scripts(&self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.inner.borrow_mut().restored_scripts)
    }

    /// Saves a change of the engine's script cache. Call it right after the command that
    /// made it, like [`Persister::record`]; it is written with the next log record, or on
    /// its own.
    pub fn record_scripts(&self, change: &ScriptChange) {
        if !self.is_saving() {
            return;
        }
        let start = {
            let mut i = self.inner.borrow_mut();
            let p = &mut i.pending_scripts;
            if change.flushed {
                p.flushed = true;
                p.added.clear();
            }
            p.added.extend(change.added.iter().cloned());
            !std::mem::replace(&mut i.flushing, true)
        };
        if start {
            self.notify();
            let me = self.clone();
            wasm_bindgen_futures::spawn_local(async move { me.flush().await });
        }
    }

    fn notify(&self) {
        let (f, s) = {
            let mut i = self.inner.borrow_mut();
            i.status.pending = i.flushing || !i.pending.is_empty() || i.has_scripts();
            (i.on_status.clone(), i.status.clone())
        };
        if let Some(f) = f {
            f(&s);
        }
    }

    /// Saves the effects of one command (or one expiry cycle) that ran at `at_ms`. Call it
    /// right after every command with [`Engine::take_effects`], in order, before the next
    /// command runs. Returns at once; the append completes asynchronously.
    pub fn record(&self, effects: Vec<Effect>, at_ms: i64) {
        if effects.is_empty() || !self.is_saving() {
            return;
        }
        let start = {
            let mut i = self.inner.borrow_mut();
            i.pending.extend(
                effects
                    .into_iter()
                    .map(|effect| TimedEffect { at_ms, effect }),
            );
            i.last_write_ms = now();
            !std::mem::replace(&mut i.flushing, true)
        };
        if start {
            self.notify();
            let me = self.clone();
            wasm_bindgen_futures::spawn_local(async move { me.flush().await });
        }
    }

    async fn flush(&self) {
        loop {
            let (db, seq, bytes, scripts) = {
                let mut i = self.inner.borrow_mut();
                if (i.pending.is_empty() && !i.has_scripts()) || i.status.mode != Mode::Saved {
                    i.flushing = false;
                    drop(i);
                    self.notify();
                    break;
                }
                let effects = std::mem::take(&mut i.pending);
                let scripts = std::mem::take(&mut i.pending_scripts);
                let seq = (!effects.is_empty()).then(|| {
                    i.next_seq += 1;
                    i.next_seq - 1
                });
                let Some(db) = i.db.clone() else {
                    i.flushing = false;
                    break;
                };
                let bytes = seq.map(|seq| snapshot::encode_log_record(seq, &effects));
                (db, seq, bytes, scripts)
            };
            let t0 = perf_now();
            let result = match (&bytes, scripts.flushed || !scripts.added.is_empty()) {
                (Some(bytes), false) => kv_append(&db, seq.unwrap_or(0) as f64, bytes).await,
                (bytes, _) => {
                    let (shas, bodies) = (Array::new(), Array::new());
                    for (sha, body) in &scripts.added {
                        shas.push(&JsValue::from_str(sha));
                        bodies.push(&Uint8Array::from(body.as_slice()));
                    }
                    let seq = seq.map_or(-1.0, |s| s as f64);
                    let bytes = bytes.as_deref().unwrap_or(&[]);
                    kv_write(&db, seq, bytes, scripts.flushed, shas, bodies).await
                }
            };
            {
                let mut i = self.inner.borrow_mut();
                match result {
                    Ok(()) if bytes.is_none() => i.status.last_commit_ms = perf_now() - t0,
                    Ok(()) => {
                        let bytes = bytes.as_deref().unwrap_or(&[]);
                        i.status.appended += 1;
                        i.status.log_bytes += bytes.len();
                        i.status.last_commit_ms = perf_now() - t0;
                        i.log_records += 1;
                        if i.log_records > COMPACT_RECORDS || i.status.log_bytes > COMPACT_BYTES {
                            i.compact_due = true;
                        }
                    }
                    Err(e) => {
                        i.status.mode = Mode::WriteFailed {
                            reason: kv_error_name(&e),
                        };
                        i.flushing = false;
                    }
                }
            }
            if self.inner.borrow().status.mode != Mode::Saved {
                self.notify();
                return;
            }
        }
        if self.inner.borrow().compact_due {
            self.schedule_compaction();
        }
    }

    fn schedule_compaction(&self) {
        let me = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                sleep(COMPACT_IDLE_MS).await;
                let ready = {
                    let i = me.inner.borrow();
                    !i.flushing
                        && i.pending.is_empty()
                        && now() - i.last_write_ms >= COMPACT_IDLE_MS as f64
                };
                if ready && me.compact().await.is_some() {
                    return;
                }
                if !me.is_saving() {
                    return;
                }
            }
        });
    }

    /// Writes a snapshot of the attached engine and drops the log it includes. Returns
    /// `None` if it could not run now (a write in flight, the engine busy or gone).
    pub async fn compact(&self) -> Option<()> {
        let (db, upto, bytes, ms) = {
            let i = self.inner.borrow();
            if i.flushing || !i.pending.is_empty() || !self.is_saving() {
                return None;
            }
            let engine = i.engine.upgrade()?;
            let engine = engine.try_borrow().ok()?;
            let t0 = perf_now();
            // Everything up to next_seq - 1 is appended and nothing is pending, so the
            // engine's dataset is exactly the log's result.
            let upto = i.next_seq - 1;
            let bytes = snapshot::encode_engine(&engine, upto);
            (i.db.clone()?, upto, bytes, perf_now() - t0)
        };
        let result = kv_compact(&db, &bytes, upto as f64, Array::new()).await;
        {
            let mut i = self.inner.borrow_mut();
            i.status.snapshot_encode_ms = ms;
            match result {
                Ok(()) => {
                    i.compact_due = false;
                    i.status.snapshot_bytes = bytes.len();
                    // Records appended while the snapshot was written stay in the log.
                    i.status.log_bytes = 0;
                    i.log_records = 0;
                }
                Err(e) => {
                    i.status.mode = Mode::WriteFailed {
                        reason: kv_error_name(&e),
                    };
                }
            }
        }
        self.notify();
        Some(())
    }

    /// Resolves once every recorded write is committed (or has failed). Await it before
    /// switching workspaces or closing the persister.
    pub async fn flushed(&self) {
        while !self.is_idle() {
            sleep(1).await;
        }
    }

    /// Leaves the workspace: waits for pending writes, releases the tab's lock (another tab
    /// may then take the workspace over) and closes the database. Later records are ignored.
    pub async fn close(&self) {
        self.flushed().await;
        let (release, db) = {
            let mut i = self.inner.borrow_mut();
            (i.release.take(), i.db.take())
        };
        if let Some(db) = db {
            kv_close(&db);
        }
        if let Some(released) = release.and_then(|r| r.call0(&JsValue::NULL).ok()) {
            let _ = JsFuture::from(js_sys::Promise::resolve(&released)).await;
        }
    }

    /// Bytes stored for this workspace (snapshot plus log), read from IndexedDB.
    pub async fn stored_bytes(&self) -> Option<u64> {
        let db = self.inner.borrow().db.clone()?;
        kv_size(&db).await.ok()?.as_f64().map(|n| n as u64)
    }
}

/// Waits until this tab may own `workspace` (the tab that holds it closed or crashed);
/// the next [`open`] of it then takes the lock. `false` without the Web Locks API.
pub async fn wait_for_lock(workspace: &str) -> bool {
    kv_wait_lock(workspace).await.as_bool().unwrap_or(false)
}

/// The stored workspaces' names (empty where the browser cannot list them).
pub async fn list_workspaces() -> Vec<String> {
    match kv_list().await {
        Ok(v) => Array::from(&v)
            .iter()
            .filter_map(|x| x.as_string())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Deletes a workspace's stored data (reset = delete, then open again).
///
/// # Errors
/// The browser's error name when deletion fails.
pub async fn delete_workspace(workspace: &str) -> Result<(), String> {
    kv_delete(workspace).await.map_err(|e| kv_error_name(&e))
}

/// Bytes stored for a workspace by name (0 when it has no database).
pub async fn workspace_bytes(workspace: &str) -> Option<u64> {
    kv_size_of(workspace).await.ok()?.as_f64().map(|n| n as u64)
}

/// Creates an empty workspace.
///
/// # Errors
/// `WorkspaceExists`, or the browser's error name.
pub async fn create_workspace(workspace: &str) -> Result<(), String> {
    kv_create(workspace).await.map_err(|e| kv_error_name(&e))
}

/// Renames a workspace: copies its records into the new name's database in one
/// transaction, then deletes the old one, so a failure midway loses nothing. Leave the
/// workspace first ([`Persister::close`]) if it is this page's.
///
/// # Errors
/// `WorkspaceExists`, `WorkspaceBusy` (open in another tab), or the browser's error name.
pub async fn rename_workspace(from: &str, to: &str) -> Result<(), String> {
    kv_rename(from, to).await.map_err(|e| kv_error_name(&e))
}

/// Empties another workspace's stored data (it stays listed). For the page's own
/// workspace, run `FLUSHALL` instead: the engine and the log then agree.
///
/// # Errors
/// `WorkspaceBusy` (open in another tab), or the browser's error name.
pub async fn reset_workspace(workspace: &str) -> Result<(), String> {
    kv_reset(workspace).await.map_err(|e| kv_error_name(&e))
}

/// Deletes a workspace unless another tab has it open ([`delete_workspace`] does not ask).
///
/// # Errors
/// `WorkspaceBusy`, or the browser's error name.
pub async fn remove_workspace(workspace: &str) -> Result<(), String> {
    kv_remove(workspace).await.map_err(|e| kv_error_name(&e))
}

/// Offers `bytes` to the user as a downloaded file.
pub fn download(name: &str, bytes: &[u8], mime: &str) {
    kv_download(name, bytes, mime);
}
