//! What the engine keeps about saving the dataset as an RDB file (`SAVE`, `BGSAVE`,
//! `LASTSAVE`, the `save` points, `SHUTDOWN`), and the [`Storage`] a host lends it to
//! store the files: the engine makes and reads the bytes, the host does the I/O (the
//! native server writes files under `dir`; the browser has none).

use crate::engine::rdb::file::BackgroundFile;

/// Where RDB files go: the host's side of `SAVE`, `BGSAVE` and `DEBUG RELOAD`. Paths are
/// the `dir` and `dbfilename` parameters as they are when the command runs.
pub trait Storage {
    /// Replaces `dir/name` with `bytes` as Redis does: writes a temporary file in `dir`,
    /// flushes it to disk, renames it over the old one. The error is the line to log.
    fn write(&mut self, dir: &str, name: &str, bytes: &[u8]) -> Result<(), String>;
    /// Starts the same off the engine's thread; [`Storage::poll`] tells when it ended.
    fn write_background(&mut self, dir: &str, name: &str, bytes: Vec<u8>) -> Result<(), String>;
    /// The background write's result, once, when it has ended (the rename is done here,
    /// on the engine's thread, so that a cancelled write never replaces a newer file).
    fn poll(&mut self) -> Option<Result<(), String>>;
    /// Drops a background write in flight (its temporary file is removed).
    fn cancel(&mut self);
    /// The file's bytes, `None` if there is no such file.
    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String>;
}

/// A background save in progress: the dataset as it was when `BGSAVE` ran (what Redis's
/// forked child sees), encoded a slice at a time
/// ([`Engine::persist_step`](crate::engine::Engine::persist_step)) and, before a command
/// changes an entry, that entry first ([`BackgroundFile`]); then written by the host.
pub struct Bgsave {
    /// The file so far; `None` once it was handed to the host.
    pub file: Option<BackgroundFile>,
    /// `dirty` when it started: the changes made meanwhile stay unsaved.
    pub dirty_at_start: u64,
    /// When it started, Unix ms.
    pub started_ms: i64,
    /// Keys in the dataset saved (`current_save_keys_total`).
    pub keys_total: u64,
}

/// The state of saving (Redis's `server.lastsave`, `rdb_child_*`, `lastbgsave_status`, …).
#[derive(Default)]
pub struct Persist {
    /// Where files go; `None` in a host without files (`SAVE` then fails).
    pub storage: Option<Box<dyn Storage>>,
    /// The last successful save, Unix ms (the start of the server before any).
    pub lastsave_ms: i64,
    /// The last background save failed (`rdb_last_bgsave_status:err`).
    pub last_bgsave_failed: bool,
    /// The last background save's duration in seconds, -1 before any.
    pub last_bgsave_secs: i64,
    /// When the last background save was tried, Unix ms (a failed one is retried after
    /// 5 seconds, as Redis's `CONFIG_BGSAVE_RETRY_DELAY`).
    pub last_try_ms: i64,
    /// The save in progress.
    pub bgsave: Option<Bgsave>,
    /// `BGSAVE SCHEDULE` (or `BGSAVE` in a transaction): start one as soon as possible.
    pub scheduled: bool,
    /// The number of the last background save started: each save's is greater, so that
    /// entries marked by an earlier one are pending in the next (see
    /// [`next_save_epoch`](crate::engine::keyspace::next_save_epoch)).
    pub epoch: u16,
    /// Saves done (`rdb_saves`).
    pub saves: u64,
    /// What the last load found (`rdb_last_load_keys_loaded`, `…_expired`).
    pub loaded_keys: u64,
    /// See `loaded_keys`.
    pub loaded_expired: u64,
    /// `SHUTDOWN` succeeded: the host should exit.
    pub shutdown: bool,
}

impl Persist {
    /// A fresh state at the server's start.
    pub fn new(start_ms: i64) -> Persist {
        Persist {
            lastsave_ms: start_ms,
            last_bgsave_secs: -1,
            ..Persist::default()
        }
    }
}
