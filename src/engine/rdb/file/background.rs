//! A background save's file ([`BackgroundFile`]), written while commands go on changing
//! the dataset, without copying it.
//!
//! Each database being saved encodes its own records into a body of its own: an entry is
//! written when the walk ([`Db::save_step`]) reaches it, or earlier, just before a command
//! changes or removes it (see [`crate::engine::keyspace`]). So every body holds the
//! database as it was when the save began, whatever ran since; `SWAPDB` moves a body with
//! its database, and it still goes under the index it was saved from. Once no database
//! has an entry left to write, the bodies are joined behind the header in index order and
//! the checksum is computed over the file a slice at a time. The result is the file
//! [`write_file`](super::write_file) gives for the dataset at the start, record for
//! record (a database's records may come in another order).

use std::any::Any;

use crc::{Digest, NoTable};

use super::save::{header, put_db_start, put_key, SaveError, CRC64};
use super::FileOptions;
use crate::engine::keyspace::{Db, Entry, EntrySink};
use crate::engine::rdb::opcode;

/// Bytes checksummed per key of a step's budget, once the bodies are joined.
const CRC_BYTES_PER_KEY: usize = 1024;

/// One database's records, as its save hands entries over.
struct Body {
    index: usize,
    out: Vec<u8>,
    now_ms: i64,
    opts: FileOptions,
    /// The first entry that could not be encoded.
    error: Option<SaveError>,
}

impl EntrySink for Body {
    fn put(&mut self, key: &[u8], entry: &Entry) {
        if self.error.is_some() {
            return;
        }
        if let Err(type_name) = put_key(&mut self.out, key, entry, self.now_ms, &self.opts) {
            self.error = Some(SaveError {
                db: self.index,
                key: key.to_vec(),
                type_name,
            });
        }
    }
}

/// The joined file and how far its checksum has got.
struct Joined {
    out: Vec<u8>,
    digest: Digest<'static, u64, NoTable>,
    digested: usize,
}

/// A background save's file (see the module docs).
pub struct BackgroundFile {
    opts: FileOptions,
    header: Vec<u8>,
    /// Each database's key and deadline counts when the save began (its RESIZEDB), by
    /// index; `None` for one that was empty and is left out of the file.
    sizes: Vec<Option<(u64, u64)>>,
    keys_total: u64,
    /// Databases replaced while the save ran (a load): nothing changes them any more, the
    /// walk finishes them.
    orphans: Vec<Db>,
    /// The bodies of replaced databases that had nothing left to write, with their counts.
    ended: Vec<(Box<dyn EntrySink>, u64)>,
    joined: Option<Joined>,
}

impl BackgroundFile {
    /// Starts saving `dbs` as they are now, with these function libraries, as the save
    /// numbered `epoch` (greater than any earlier save's). **O(number of databases).**
    pub fn start(
        dbs: &mut [Db],
        functions: &[Vec<u8>],
        now_ms: i64,
        opts: FileOptions,
        epoch: u16,
    ) -> BackgroundFile {
        let mut sizes = Vec::with_capacity(dbs.len());
        for (index, db) in dbs.iter_mut().enumerate() {
            db.end_save();
            if db.is_empty() {
                sizes.push(None);
                continue;
            }
            sizes.push(Some((db.len() as u64, db.volatile_len() as u64)));
            let body = Body {
                index,
                out: Vec::new(),
                now_ms,
                opts,
                error: None,
            };
            db.start_save(epoch, Box::new(body));
        }
        BackgroundFile {
            opts,
            header: header(functions, &opts),
            keys_total: sizes.iter().flatten().map(|&(n, _)| n).sum(),
            sizes,
            orphans: Vec::new(),
            ended: Vec::new(),
            joined: None,
        }
    }

    /// Keys in the dataset saved (`current_save_keys_total`).
    pub fn keys_total(&self) -> u64 {
        self.keys_total
    }

    /// Keys written so far (`current_save_keys_processed`), `dbs` being the live databases.
    pub fn keys(&self, dbs: &[Db]) -> u64 {
        if self.joined.is_some() {
            return self.keys_total;
        }
        let live: u64 = dbs.iter().chain(&self.orphans).map(Db::saved_entries).sum();
        live + self.ended.iter().map(|(_, n)| n).sum::<u64>()
    }

    /// Takes over databases that were replaced while the save ran, so that it finishes
    /// them. **O(1)** per database.
    pub fn adopt(&mut self, dbs: Vec<Db>) {
        for mut db in dbs {
            if db.save_pending() {
                self.orphans.push(db);
            } else if let Some(ended) = db.end_save() {
                self.ended.push(ended);
            }
        }
    }

    /// Does up to `max_keys` keys' worth of work — entries written, or once they all are,
    /// bytes checksummed; true once the file is complete ([`BackgroundFile::finish`]).
    ///
    /// # Errors
    /// The line to log when the file cannot be made (the save is then over: `dbs` no
    /// longer save).
    pub fn step(&mut self, dbs: &mut [Db], max_keys: usize) -> Result<bool, String> {
        let Some(joined) = self.joined.as_mut() else {
            let mut budget = max_keys.max(1);
            for db in self.orphans.iter_mut().chain(dbs.iter_mut()) {
                while budget > 0 && db.save_pending() {
                    match db.save_step(budget) {
                        0 => break,
                        n => budget = budget.saturating_sub(n),
                    }
                }
            }
            if self.orphans.iter().chain(dbs.iter()).any(Db::save_pending) {
                return Ok(false);
            }
            self.join(dbs)?;
            return Ok(!self.opts.checksum);
        };
        let end = joined
            .out
            .len()
            .min(joined.digested + max_keys.max(1).saturating_mul(CRC_BYTES_PER_KEY));
        joined.digest.update(&joined.out[joined.digested..end]);
        joined.digested = end;
        Ok(end == joined.out.len())
    }

    /// Ends every database's save and puts the file together (all but its checksum).
    fn join(&mut self, dbs: &mut [Db]) -> Result<(), String> {
        let mut sinks = std::mem::take(&mut self.ended);
        sinks.extend(dbs.iter_mut().filter_map(Db::end_save));
        sinks.extend(self.orphans.drain(..).filter_map(|mut db| db.end_save()));
        let mut bodies: Vec<Option<Vec<u8>>> = vec![None; self.sizes.len()];
        let mut written = 0;
        for (sink, n) in sinks {
            let any: Box<dyn Any> = sink;
            let Ok(body) = any.downcast::<Body>() else {
                return Err("Error saving the DB: a database saved into a foreign sink".into());
            };
            if let Some(e) = body.error {
                return Err(format!("Error saving the DB: {e}"));
            }
            written += n;
            if let Some(slot) = bodies.get_mut(body.index) {
                *slot = Some(body.out);
            }
        }
        if written != self.keys_total {
            return Err(format!(
                "Error saving the DB: {written} keys written of the {} saved",
                self.keys_total
            ));
        }
        let size = self.header.len() + bodies.iter().flatten().map(Vec::len).sum::<usize>();
        let mut out = Vec::with_capacity(size + 16 * 32 + 9);
        out.append(&mut self.header);
        for (index, (sizes, body)) in self.sizes.iter().zip(bodies).enumerate() {
            if let (Some((keys, volatile)), Some(body)) = (sizes, body) {
                put_db_start(&mut out, index, *keys, *volatile);
                out.extend_from_slice(&body);
            }
        }
        out.push(opcode::EOF);
        self.joined = Some(Joined {
            out,
            digest: CRC64.digest(),
            digested: 0,
        });
        Ok(())
    }

    /// The complete file, once [`BackgroundFile::step`] returned true.
    pub fn finish(self) -> Vec<u8> {
        let Some(joined) = self.joined else {
            return Vec::new();
        };
        let mut out = joined.out;
        let crc = if self.opts.checksum {
            joined.digest.finalize()
        } else {
            0
        };
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Drops the save: `dbs` stop saving. **O(number of databases).**
    pub fn cancel(self, dbs: &mut [Db]) {
        for db in dbs {
            db.end_save();
        }
    }
}
