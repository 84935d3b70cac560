//! The slow log: the most recent commands that took at least `slowlog-log-slower-than`
//! microseconds, as Redis's `slowlog.c` keeps them.
//!
//! The engine times every command it runs (the handler, not the wait of a blocked client)
//! on the clock's monotonic reading ([`crate::engine::Clock::monotonic_us`]) and offers
//! the duration here. An entry is added at the head when the duration reaches the
//! threshold (a negative threshold turns the log off; 0 logs everything), and the oldest
//! entries are dropped while the log is longer than `slowlog-max-len` (so with a length
//! of 0 every entry goes at once, though it still takes an id, as in Redis). Commands
//! flagged `skip_slowlog` (`EXEC`, whose commands are logged one by one) are not offered.
//!
//! An entry keeps at most 32 arguments (the last of them then says `... (N more
//! arguments)`) and at most 128 bytes of each (`... (N more bytes)`), and shows
//! passwords as `(redacted)` (see [`crate::engine::core::monitor::redacted`]).

use std::collections::VecDeque;

use super::reply::Reply;

/// Most arguments kept per entry (Redis's `SLOWLOG_ENTRY_MAX_ARGC`).
const MAX_ARGC: usize = 32;
/// Most bytes kept per argument (Redis's `SLOWLOG_ENTRY_MAX_STRING`).
const MAX_STRING: usize = 128;

/// One logged command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Unique, increasing id (never reset, not even by `SLOWLOG RESET`).
    pub id: u64,
    /// Unix seconds when it was logged.
    pub time_s: i64,
    /// How long it ran, microseconds.
    pub duration_us: i64,
    /// The arguments, shortened as described in the module documentation.
    pub argv: Vec<Vec<u8>>,
    /// The client's address (`ip:port`).
    pub peer: String,
    /// The client's name, or empty.
    pub name: Vec<u8>,
}

impl Entry {
    /// The entry as `SLOWLOG GET` replies it: id, time, duration, arguments, peer, name.
    pub fn to_reply(&self) -> Reply {
        Reply::Array(vec![
            Reply::Integer(self.id as i64),
            Reply::Integer(self.time_s),
            Reply::Integer(self.duration_us),
            Reply::Array(self.argv.iter().map(|a| Reply::bulk(a)).collect()),
            Reply::bulk(self.peer.as_bytes()),
            Reply::bulk(&self.name),
        ])
    }
}

/// The log, newest entry first.
#[derive(Debug, Default)]
pub struct SlowLog {
    entries: VecDeque<Entry>,
    next_id: u64,
}

/// A command offered to the log.
pub struct Command<'a> {
    /// Its arguments, name first.
    pub argv: &'a [Vec<u8>],
    /// Which arguments to show as `(redacted)`.
    pub redacted: &'a [bool],
    /// How long it ran, microseconds.
    pub duration_us: i64,
    /// Unix seconds now.
    pub time_s: i64,
    /// The client's address.
    pub peer: &'a str,
    /// The client's name after the command.
    pub name: Option<&'a [u8]>,
}

impl SlowLog {
    /// Logs `cmd` if it ran for at least `slower_than` µs (never when that is negative),
    /// then trims the log to `max_len` entries. **O(1)** amortized (plus the arguments
    /// copied, at most 32 × 128 bytes).
    pub fn offer(&mut self, cmd: &Command<'_>, slower_than: i64, max_len: usize) {
        if slower_than < 0 || cmd.duration_us < slower_than {
            return;
        }
        let argc = cmd.argv.len();
        let kept = argc.min(MAX_ARGC);
        let argv = (0..kept)
            .map(|j| {
                if kept != argc && j == kept - 1 {
                    return format!("... ({} more arguments)", argc - kept + 1).into_bytes();
                }
                if cmd.redacted.get(j).copied().unwrap_or(false) {
                    return b"(redacted)".to_vec();
                }
                let a = &cmd.argv[j];
                if a.len() > MAX_STRING {
                    let mut s = a[..MAX_STRING].to_vec();
                    s.extend(format!("... ({} more bytes)", a.len() - MAX_STRING).bytes());
                    s
                } else {
                    a.clone()
                }
            })
            .collect();
        self.entries.push_front(Entry {
            id: self.next_id,
            time_s: cmd.time_s,
            duration_us: cmd.duration_us,
            argv,
            peer: cmd.peer.to_string(),
            name: cmd.name.unwrap_or_default().to_vec(),
        });
        self.next_id += 1;
        self.entries.truncate(max_len);
    }

    /// The newest `count` entries, newest first. **O(count).**
    pub fn newest(&self, count: usize) -> impl Iterator<Item = &Entry> {
        self.entries.iter().take(count)
    }

    /// Number of entries. **O(1).**
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every entry; ids go on from where they were. **O(N).**
    pub fn reset(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(log: &mut SlowLog, argv: &[Vec<u8>], us: i64, threshold: i64, max: usize) {
        let redacted = vec![false; argv.len()];
        log.offer(
            &Command {
                argv,
                redacted: &redacted,
                duration_us: us,
                time_s: 7,
                peer: "127.0.0.1:1",
                name: None,
            },
            threshold,
            max,
        );
    }

    #[test]
    fn keeps_the_newest_within_the_threshold_and_length() {
        let mut log = SlowLog::default();
        let cmd = vec![b"GET".to_vec(), b"k".to_vec()];
        offer(&mut log, &cmd, 5, 10, 128);
        assert!(log.is_empty());
        offer(&mut log, &cmd, 10, 10, 128);
        offer(&mut log, &cmd, 0, -1, 128);
        assert_eq!(log.len(), 1);
        for us in 0..5 {
            offer(&mut log, &cmd, us, 0, 3);
        }
        let ids: Vec<u64> = log.newest(10).map(|e| e.id).collect();
        assert_eq!(ids, [5, 4, 3]);
        offer(&mut log, &cmd, 0, 0, 0);
        assert!(log.is_empty());
        log.reset();
        offer(&mut log, &cmd, 0, 0, 10);
        assert_eq!(log.newest(1).next().map(|e| e.id), Some(7));
    }

    #[test]
    fn shortens_long_commands_as_redis_does() {
        let mut log = SlowLog::default();
        let mut argv: Vec<Vec<u8>> = vec![b"RPUSH".to_vec(), vec![b'x'; 200]];
        argv.extend((0..40).map(|i| i.to_string().into_bytes()));
        offer(&mut log, &argv, 1, 0, 10);
        let e = log
            .newest(1)
            .next()
            .cloned()
            .unwrap_or_else(|| panic!("logged"));
        assert_eq!(e.argv.len(), 32);
        assert_eq!(e.argv[1].len(), 128 + "... (72 more bytes)".len());
        assert!(e.argv[1].ends_with(b"... (72 more bytes)"));
        assert_eq!(e.argv[31], b"... (11 more arguments)");
    }
}
