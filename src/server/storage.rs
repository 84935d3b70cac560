//! RDB files on disk: the native server's [`Storage`] for `SAVE`, `BGSAVE` and `SHUTDOWN`,
//! and loading `dir/dbfilename` at start.
//!
//! A file is written as Redis writes it: to a temporary file in the same directory,
//! flushed and synced, then renamed over the old one, so a crash mid-save never leaves a
//! half-written `dump.rdb`. A background save's bytes are written and synced on a thread
//! of its own (the event loop goes on meanwhile); the rename happens on the event loop's
//! thread when [`Storage::poll`] sees the thread done, so a save cancelled by `SHUTDOWN`
//! can never replace the file written after it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crate::engine::core::persist::Storage;

/// Files under the `dir` parameter, which is relative to the server's working directory.
#[derive(Default)]
pub struct FileStorage {
    background: Option<Background>,
    /// Numbers the background saves' temporary files.
    seq: u64,
}

struct Background {
    thread: JoinHandle<Result<(), String>>,
    temp: PathBuf,
    target: PathBuf,
    dir: String,
}

fn temp_name(tag: &str) -> String {
    format!("temp-{}{tag}.rdb", std::process::id())
}

/// Writes and syncs `bytes` to `temp`; the error is Redis's log line.
fn write_temp(temp: &Path, dir: &str, bytes: &[u8]) -> Result<(), String> {
    let name = temp
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut f = fs::File::create(temp).map_err(|e| {
        format!(
            "Failed opening the temp RDB file {name} (in server root dir {dir}) for saving: {e}"
        )
    })?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| {
        let _ = fs::remove_file(temp);
        format!("Write error saving DB on disk: {e}")
    })
}

fn rename(temp: &Path, target: &Path, dir: &str) -> Result<(), String> {
    fs::rename(temp, target).map_err(|e| {
        let _ = fs::remove_file(temp);
        format!(
            "Error moving temp DB file {} on the final destination {} (in server root dir {dir}): {e}",
            temp.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            target.display(),
        )
    })
}

impl Storage for FileStorage {
    fn write(&mut self, dir: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
        let temp = Path::new(dir).join(temp_name(""));
        write_temp(&temp, dir, bytes)?;
        rename(&temp, &Path::new(dir).join(name), dir)
    }

    fn write_background(&mut self, dir: &str, name: &str, bytes: Vec<u8>) -> Result<(), String> {
        self.cancel();
        self.seq += 1;
        let temp = Path::new(dir).join(temp_name(&format!("-bg{}", self.seq)));
        let (t, d) = (temp.clone(), dir.to_string());
        let thread = std::thread::Builder::new()
            .name("kvlab-bgsave".into())
            .spawn(move || write_temp(&t, &d, &bytes))
            .map_err(|e| format!("Can't save in background: fork: {e}"))?;
        self.background = Some(Background {
            thread,
            temp,
            target: Path::new(dir).join(name),
            dir: dir.to_string(),
        });
        Ok(())
    }

    fn poll(&mut self) -> Option<Result<(), String>> {
        if !self.background.as_ref()?.thread.is_finished() {
            return None;
        }
        let bg = self.background.take()?;
        let written = bg
            .thread
            .join()
            .unwrap_or_else(|_| Err("Background saving thread failed".to_string()));
        Some(written.and_then(|()| rename(&bg.temp, &bg.target, &bg.dir)))
    }

    fn cancel(&mut self) {
        if let Some(bg) = self.background.take() {
            let _ = bg.thread.join();
            let _ = fs::remove_file(&bg.temp);
        }
    }

    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        match fs::read(Path::new(dir).join(name)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("Fatal error loading the DB: {e}. Exiting.")),
        }
    }
}
