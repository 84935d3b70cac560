//! DEBUG: Redis 7.0's tools for looking inside the server and for tests — a key's low-level
//! facts, signatures of the data, a save-and-reload round trip, switches for background
//! work, replies of every RESP3 type.
//!
//! # Which subcommands, and why
//! Redis's own test suite leans on `DEBUG` (its `needs:debug` tests), and a learner who
//! reads about `DEBUG OBJECT` or `DEBUG RELOAD` should be able to try them. kvlab has the
//! ones that mean something for its engine:
//! * `OBJECT`, `DIGEST`, `DIGEST-VALUE` ([`digest`]): what Redis would report. `OBJECT`'s
//!   `Value at:` is where kvlab keeps the value, `serializedlength` the length of its RDB
//!   encoding, `lru` Redis's 24-bit clock (or LFU word) for the key.
//! * `RELOAD [MERGE] [NOFLUSH] [NOSAVE]`: saves `dump.rdb` (through the host's storage,
//!   as `SAVE`) and loads it back. Where the host has no files (the browser) the
//!   encoded bytes are loaded straight back, which is the same round trip without the
//!   file. Unlike Redis, a file that fails to load changes nothing: it is read whole
//!   before anything is replaced, and `NOFLUSH` without `MERGE` refuses a key or library
//!   that exists (Redis would crash on it).
//! * `SLEEP`: stops the whole server, as in Redis ([`crate::engine::clock::Clock::sleep_us`]).
//! * switches in [`DebugSwitches`]: `SET-ACTIVE-EXPIRE`, `PAUSE-CRON`,
//!   `SET-SKIP-CHECKSUM-VALIDATION`, `SET-DISABLE-DENY-SCRIPTS`,
//!   `QUICKLIST-PACKED-THRESHOLD` (which changes how DUMP, RDB files and MEMORY USAGE cut
//!   a list into nodes; kvlab's lists have no nodes of their own).
//! * `REPLYBUFFER PEAK-RESET-TIME` and `RESIZING`: how the cron sizes each client's reply
//!   buffer, which kvlab models as Redis does (see [`crate::engine::outbox`]).
//! * `POPULATE`, `PROTOCOL`, `LOG`, `ERROR`, `STRINGMATCH-TEST`, `HELP`.
//!
//! Left out, each answering Redis's unknown-subcommand error: the ones that crash or
//! restart the server on purpose (`SEGFAULT`, `PANIC`, `ASSERT`, `OOM`, `RESTART`,
//! `CRASH-AND-RECOVER`; no input may crash kvlab), `LEAK`, the append-only file's
//! (`LOADAOF`, `AOF-FLUSH-SLEEP`), replication's and cluster's (`REPLICATE`,
//! `CHANGE-REPL-ID`, `DROP-CLUSTER-PACKET-FILTER`, `CLUSTERLINK`), and the ones that
//! print C structures kvlab does not have (`SDSLEN`, `LISTPACK`, `QUICKLIST`,
//! `STRUCTSIZE`, `HTSTATS`, `HTSTATS-KEY`, `MALLCTL`, `MALLCTL-STR`, `CLIENT-EVICTION`,
//! `CONFIG-REWRITE-FORCE-ALL`).
//!
//! `DEBUG` is protected: it runs only where `enable-debug-command` allows (`no` by
//! default, as in Redis; kvlab-server takes `--enable-debug-command yes|local`, and the
//! browser's engine starts with `local`, which its panes are). Dispatch checks that.
//!
//! POPULATE's keys are recorded as `SET`s for the browser's stored log (Redis does not
//! propagate them: it has replicas to keep apart, kvlab has a store that must not lose a
//! key the console showed).

pub mod digest;

use crate::engine::args::c_bytes;
use crate::engine::args::Args;
use crate::engine::cmd::connection::help_reply;
use crate::engine::core::server::{DebugSwitches, REPLY_PEAK_RESET_MS};
use crate::engine::error::{CmdResult, Error};
use crate::engine::keyspace::{Db, Entry};
use crate::engine::num::{atoi_key_count, strtod};
use crate::engine::rdb::file::{load_file, RdbData};
use crate::engine::rdb::write::{write_value, Cut, NodeCutter, SaveOptions};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// Redis's `DEBUG HELP` lines for the subcommands kvlab has, in Redis's order and words.
const HELP: &[&str] = crate::help_lines![
    "DIGEST",
    "    Output a hex signature representing the current DB content.",
    "DIGEST-VALUE <key> [<key> ...]",
    "    Output a hex signature of the values of all the specified keys.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "OBJECT <key>",
    "    Show low level info about `key` and associated value.",
    "POPULATE <count> [<prefix>] [<size>]",
    "    Create <count> string keys named key:<num>. If <prefix> is specified then",
    "    it is used instead of the 'key' prefix. These are not propagated to",
    "    replicas. Cluster slots are not respected so keys not belonging to the",
    "    current node can be created in cluster mode.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "RELOAD [option ...]",
    "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
    "    * MERGE: conflicting keys will be loaded from RDB.",
    "    * NOFLUSH: the existing database will not be removed before load, but",
    "      conflicting keys will generate an exception and kill the server.",
    "    * NOSAVE: the database will be loaded from an existing RDB file.",
    "    Examples:",
    "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
    "      the database.",
    "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
    "      existing RDB file.",
    "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
    "      file to the database.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys in background when they are not",
    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    "    default.",
    "QUICKLIST-PACKED-THRESHOLD <size>",
    "    Sets the threshold for elements to be inserted as plain vs packed nodes",
    "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
    "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
    "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed.",
    "STRINGMATCH-TEST",
    "    Run a fuzz tester against the stringmatchlen() function.",
    "PAUSE-CRON <0|1>",
    "    Stop periodic cron job processing.",
    "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
    "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
    "    In case NEVER is provided the last observed peak will never be reset",
    "    In case RESET is provided the peak reset time will be restored to the default value",
    "REPLYBUFFER RESIZING <0|1>",
    "    Enable or disable the reply buffer resize cron job",
];

/// Redis's replies of this command, each written once.
const RELOAD_OPTIONS: &str = "DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.";
const LOAD_FAILED: &str = "Error trying to load the RDB dump";
const PACKED_RANGE: &str = "argument must be a memory value bigger than 1 and smaller than 4gb";
const PROTOCOL_TYPES: &str = "Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false";
const NO_RESP2: &str = "RESP2 is not supported by this command";
const STRINGMATCH_PASSED: &str = "Apparently Redis did not crash: test passed";

/// `DEBUG <subcommand> [arguments]`: see the module documentation. Subcommands are matched
/// as Redis's `strcasecmp` does, with their argument counts.
pub(in crate::engine::cmd::server) fn debug(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv().to_vec();
    let sub = argv
        .get(1)
        .map(|s| c_bytes(s).to_ascii_lowercase())
        .unwrap_or_default();
    let arg = |i: usize| argv.get(i).map_or(&[][..], Vec::as_slice);
    let switch = |i: usize| atoi_key_count(c_bytes(arg(i))) != 0;
    let n = argv.len();
    match (sub.as_slice(), n) {
        (b"help", 2) => Ok(help_reply("DEBUG", HELP)),
        (b"log", 3) => {
            let line = [b"DEBUG LOG: ", c_bytes(arg(2))].concat();
            ctx.srv.log(3, &line);
            Ok(Reply::ok())
        }
        (b"error", 3) => Ok(Reply::Error(
            String::from_utf8_lossy(arg(2)).replace(['\r', '\n'], " "),
        )),
        (b"reload", _) => reload(ctx, &argv[2..]),
        (b"object", 3) => object(ctx, arg(2)),
        (b"populate", 3..=5) => populate(ctx, &argv),
        (b"digest", 2) => Ok(Reply::status(digest::hex(&digest::dataset_digest(
            &ctx.srv.dbs,
        )))),
        (b"digest-value", _) => {
            let db = ctx.client.db;
            Ok(Reply::Array(
                argv[2..]
                    .iter()
                    .map(|key| {
                        let mut d = digest::Digest::default();
                        if let Some(e) = ctx.srv.dbs[db].get_raw(key) {
                            digest::object_digest(&mut d, e);
                        }
                        Reply::status(digest::hex(&d))
                    })
                    .collect(),
            ))
        }
        (b"protocol", 3) => protocol(ctx, arg(2)),
        (b"sleep", 3) => {
            // `strtod`, then C's conversion to microseconds; a negative time sleeps none.
            let seconds = strtod(arg(2)).value;
            let us = (seconds * 1_000_000.0) as i64;
            if us > 0 {
                ctx.srv.clock.sleep_us(us);
            }
            Ok(Reply::ok())
        }
        (b"set-active-expire", 3) => {
            ctx.srv.debug.active_expire = switch(2);
            Ok(Reply::ok())
        }
        (b"pause-cron", 3) => {
            ctx.srv.debug.cron = !switch(2);
            Ok(Reply::ok())
        }
        (b"set-skip-checksum-validation", 3) => {
            ctx.srv.debug.checksums = !switch(2);
            Ok(Reply::ok())
        }
        (b"set-disable-deny-scripts", 3) => {
            ctx.srv.debug.scripts_may_call_noscript = switch(2);
            Ok(Reply::ok())
        }
        (b"quicklist-packed-threshold", 3) => {
            // Redis's `quicklistisSetPackedThreshold`: up to 4 GB less 1 MB, 0 for the
            // default.
            const LIMIT: u64 = (1 << 32) - (1 << 20);
            let size = std::str::from_utf8(c_bytes(arg(2)))
                .ok()
                .and_then(crate::engine::config::parse_memory)
                .filter(|&s| s <= LIMIT)
                .ok_or_else(|| Error::Err(PACKED_RANGE.into()))?;
            ctx.srv.debug.packed_threshold = match size {
                0 => DebugSwitches::default().packed_threshold,
                s => usize::try_from(s).unwrap_or(usize::MAX),
            };
            Ok(Reply::ok())
        }
        (b"replybuffer", 4) => {
            let value = c_bytes(arg(3)).to_ascii_lowercase();
            match c_bytes(arg(2)).to_ascii_lowercase().as_slice() {
                b"peak-reset-time" => {
                    ctx.srv.debug.reply_peak_reset_ms = match value.as_slice() {
                        b"never" => -1,
                        b"reset" => REPLY_PEAK_RESET_MS,
                        _ => crate::engine::args::parse_i64(arg(3)).ok_or(Error::NotInteger)?,
                    };
                }
                b"resizing" => ctx.srv.debug.reply_resizing = switch(3),
                _ => return Err(Error::subcommand_syntax(&argv)),
            }
            Ok(Reply::ok())
        }
        (b"stringmatch-test", 2) => {
            stringmatch_fuzz(&mut ctx.srv.rng);
            Ok(Reply::status(STRINGMATCH_PASSED))
        }
        _ => Err(Error::subcommand_syntax(&argv)),
    }
}

/// `DEBUG OBJECT key`: Redis's one-line summary of the value (no lazy expiry, no access).
fn object(ctx: &mut Ctx<'_>, key: &[u8]) -> CmdResult {
    let now = ctx.now_ms;
    let db = ctx.client.db;
    let srv = &*ctx.srv;
    let Some(e) = srv.dbs[db].get_raw(key) else {
        return Err(Error::NoSuchKey);
    };
    let opts = SaveOptions::from_config(&srv.config).plain_from(srv.debug.packed_threshold);
    let mut body = Vec::new();
    write_value(&mut body, &e.value, &opts);
    let lru = lru_word(srv, e);
    let idle = {
        // Redis's `estimateObjectIdleTime`, in seconds, on the 24-bit clock.
        const MAX: i64 = (1 << 24) - 1;
        let clock = now.div_euclid(1000) & MAX;
        if clock >= lru {
            clock - lru
        } else {
            clock + (MAX - lru)
        }
    };
    let mut line = format!(
        "Value at:{:p} refcount:{} encoding:{} serializedlength:{} lru:{lru} lru_seconds_idle:{idle}",
        &e.value as *const Value,
        crate::engine::cmd::keys::object::refcount(&srv.config, &e.value),
        e.value.encoding(),
        body.len().saturating_sub(1),
    );
    if let Value::List(l) = &e.value {
        let fill = srv.config.list_max_listpack_size();
        let mut cut = NodeCutter::new(fill, srv.debug.packed_threshold);
        let (mut nodes, mut bytes) = (0usize, 0usize);
        for item in l.iter() {
            let (place, closed) = cut.place(item);
            if let Some(b) = closed {
                nodes += 1;
                bytes += b;
            }
            if place == Cut::Plain {
                nodes += 1;
                bytes += item.len();
            }
        }
        if let Some(b) = cut.finish() {
            nodes += 1;
            bytes += b;
        }
        let avg = l.len() as f64 / nodes.max(1) as f64;
        let compressed = u8::from(srv.config.list_compress_depth() != 0);
        line.push_str(&format!(
            " ql_nodes:{nodes} ql_avg_node:{avg:.2} ql_listpack_max:{fill} ql_compressed:{compressed} ql_uncompressed_size:{bytes}"
        ));
    }
    Ok(Reply::status(line))
}

/// The object's `lru` field as Redis keeps it: the 24-bit LRU clock (seconds) of the last
/// access, or under an LFU policy the access minute (16 bits) and the counter (8 bits).
fn lru_word(srv: &crate::engine::Server, e: &Entry) -> i64 {
    if srv.config.eviction().policy.is_lfu() {
        let minutes = e.accessed_ms().div_euclid(60_000) & 0xFFFF;
        (minutes << 8) | i64::from(e.lfu)
    } else {
        e.accessed_ms().div_euclid(1000) & ((1 << 24) - 1)
    }
}

/// `DEBUG POPULATE count [prefix] [size]`: string keys `prefix:N` (C's 128-byte buffer
/// cuts the name at 127 bytes) holding `value:N`, or `size` bytes starting with that
/// text and then zeros; a key that exists is left alone.
fn populate(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> CmdResult {
    // Redis's `getPositiveLongFromObjectOrReply`: one error for both a non-number and a
    // negative one.
    let positive = |a: &[u8]| -> CmdResult<u64> {
        crate::engine::args::parse_i64(a)
            .and_then(|n| u64::try_from(n).ok())
            .ok_or(Error::MustBePositive)
    };
    let count = positive(&argv[2])?;
    let size = match argv.get(4) {
        Some(a) => positive(a)?,
        None => 0,
    };
    let prefix = argv.get(3).map_or(&b"key"[..], |p| c_bytes(p)).to_vec();
    // Redis would try to allocate any size (and die of it); kvlab refuses what a string
    // may not hold.
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s as u64 <= ctx.srv.config.proto_max_bulk_len())
        .ok_or(Error::StringTooLong)?;
    for j in 0..count {
        let mut key = [&prefix[..], format!(":{j}").as_bytes()].concat();
        key.truncate(127);
        if ctx.lookup_write(&key).is_some() {
            continue;
        }
        let text = format!("value:{j}").into_bytes();
        let value = if size == 0 {
            text
        } else {
            let mut v = vec![0u8; size];
            let n = size.min(text.len());
            v[..n].copy_from_slice(&text[..n]);
            v
        };
        ctx.propagate(vec![b"SET".to_vec(), key.clone(), value.clone()]);
        ctx.set_value(&key, Value::Str(StrValue::new(value)), false);
    }
    ctx.propagate_none();
    Ok(Reply::ok())
}

/// `DEBUG PROTOCOL type`: a reply of each RESP3 type, as Redis 7.0 sends them.
fn protocol(ctx: &mut Ctx<'_>, name: &[u8]) -> CmdResult {
    let ints = || (0..3).map(Reply::Integer).collect::<Vec<_>>();
    Ok(match c_bytes(name).to_ascii_lowercase().as_slice() {
        b"string" => Reply::bulk(b"Hello World"),
        b"integer" => Reply::Integer(12345),
        // Redis's test value, not an approximation of pi.
        #[allow(clippy::approx_constant)]
        b"double" => Reply::Double(3.141),
        b"bignum" => Reply::BigNumber("1234567999999999999999999999999999999".into()),
        b"null" => Reply::Nil,
        b"array" => Reply::Array(ints()),
        b"set" => Reply::Set(ints()),
        b"map" => Reply::Map(
            (0..3)
                .map(|j| (Reply::Integer(j), Reply::Bool(j == 1)))
                .collect(),
        ),
        b"attrib" => {
            let reply = Reply::bulk(b"Some real reply following the attribute");
            if ctx.client.proto >= 3 {
                Reply::Attributed(
                    vec![(
                        Reply::bulk(b"key-popularity"),
                        Reply::Array(vec![Reply::bulk(b"key:123"), Reply::Integer(90)]),
                    )],
                    Box::new(reply),
                )
            } else {
                reply
            }
        }
        b"push" => {
            if ctx.client.proto < 3 {
                return Err(Error::Err(NO_RESP2.into()));
            }
            ctx.also_reply(Reply::bulk(b"Some real reply following the push reply"));
            Reply::Push(vec![Reply::bulk(b"server-cpu-usage"), Reply::Integer(42)])
        }
        b"true" => Reply::Bool(true),
        b"false" => Reply::Bool(false),
        // A plain bulk string to a RESP2 client, as on the wire (the console shows other
        // commands' verbatim texts raw, as redis-cli does for them).
        b"verbatim" if ctx.client.proto < 3 => Reply::bulk(b"This is a verbatim\nstring"),
        b"verbatim" => Reply::Verbatim(*b"txt", b"This is a verbatim\nstring".to_vec()),
        _ => return Err(Error::Err(PROTOCOL_TYPES.into())),
    })
}

/// `DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]`: see the module documentation.
fn reload(ctx: &mut Ctx<'_>, options: &[Vec<u8>]) -> CmdResult {
    let (mut merge, mut flush, mut save) = (false, true, true);
    for o in options {
        match c_bytes(o).to_ascii_lowercase().as_slice() {
            b"merge" => merge = true,
            b"noflush" => flush = false,
            b"nosave" => save = false,
            _ => return Err(Error::Err(RELOAD_OPTIONS.into())),
        }
    }
    let has_files = ctx.srv.persist.storage.is_some();
    let bytes = if save && !has_files {
        // No files here: the same round trip through the encoded bytes.
        let now = ctx.now_ms;
        let srv = &*ctx.srv;
        let opts = super::persist::file_options(srv, now);
        match crate::engine::rdb::file::write_file(&srv.dbs, &srv.functions.codes(), now, &opts) {
            Ok(b) => b,
            Err(e) => {
                ctx.srv
                    .log(3, format!("Error saving the DB: {e}").as_bytes());
                return Ok(Reply::Error("ERR".into()));
            }
        }
    } else {
        if save && super::persist::save_now(ctx.srv).is_err() {
            return Ok(Reply::Error("ERR".into()));
        }
        let dir = ctx.srv.config.get("dir").unwrap_or("").to_string();
        let name = ctx.srv.config.get("dbfilename").unwrap_or("").to_string();
        let read = match ctx.srv.persist.storage.as_mut() {
            Some(s) => s.read(&dir, &name),
            None => Ok(None),
        };
        match read {
            Ok(Some(b)) => b,
            Ok(None) => {
                return failed(
                    ctx,
                    format!("Fatal error loading the DB: {name} does not exist"),
                )
            }
            Err(line) => return failed(ctx, line),
        }
    };
    let opts = super::persist::load_options(ctx.srv, ctx.now_ms);
    let data = match load_file(bytes, opts) {
        Ok(d) => d,
        Err(e) => return failed(ctx, format!("Short read or OOM loading DB. {e}")),
    };
    if !flush && !merge {
        if let Some(line) = duplicate(&ctx.srv.dbs, &ctx.srv.functions, &data) {
            return failed(ctx, line);
        }
    }
    install(ctx, data, flush);
    ctx.srv.log(3, b"DB reloaded by DEBUG RELOAD");
    ctx.propagate_none();
    Ok(Reply::ok())
}

/// Logs `line` and answers RELOAD's failure; nothing was changed.
fn failed(ctx: &mut Ctx<'_>, line: String) -> CmdResult {
    ctx.srv.log(3, line.as_bytes());
    Err(Error::Err(LOAD_FAILED.into()))
}

/// The first key or library of `data` that already exists, as Redis's log names it.
fn duplicate(
    dbs: &[Db],
    functions: &crate::engine::functions::Functions,
    data: &RdbData,
) -> Option<String> {
    for (i, db) in data.dbs.iter().enumerate() {
        if let Some((key, _)) = db
            .iter()
            .find(|(k, _)| dbs.get(i).is_some_and(|have| have.get_raw(k).is_some()))
        {
            return Some(format!(
                "RDB has duplicated key '{}' in DB {i}",
                String::from_utf8_lossy(key)
            ));
        }
    }
    let have = functions.codes();
    let name = |code: &[u8]| {
        crate::engine::functions::metadata(code)
            .ok()
            .map(|(n, _)| n)
    };
    let have: Vec<String> = have.iter().filter_map(|c| name(c)).collect();
    data.functions
        .iter()
        .filter_map(|c| name(c))
        .find(|n| have.contains(n))
        .map(|n| format!("Failed loading library {n}: Library {n} already exists"))
}

/// Puts the loaded data in place: instead of everything (`flush`, functions included, as
/// Redis's `emptyData` does) or over it, key by key and library by library.
fn install(ctx: &mut Ctx<'_>, data: RdbData, flush: bool) {
    let now = ctx.now_ms;
    if flush {
        ctx.signal_flushed(None);
        crate::engine::snapshot::install_dbs(ctx.srv, data.dbs);
        ctx.srv.functions.flush();
        ctx.srv.functions.load_all(data.functions);
        return;
    }
    for (i, db) in data.dbs.into_iter().enumerate() {
        if i >= ctx.srv.dbs.len() {
            break;
        }
        for (key, entry) in db.iter() {
            if entry.is_expired_at(now) {
                continue;
            }
            ctx.srv.dbs[i].insert_entry(key.to_vec(), entry.clone());
            ctx.signal_modified_in(i, key);
        }
    }
    ctx.srv.index_slots();
    ctx.srv.functions.load_all(data.functions);
}

/// Redis's `stringmatchlen_fuzz_test`: random patterns against random strings, to show
/// the matcher survives anything. kvlab's matcher is [`crate::engine::glob::matches`].
fn stringmatch_fuzz(rng: &mut fastrand::Rng) {
    const ALPHABET: &[u8] = b"*?[]^-\\abc\0";
    fn random(rng: &mut fastrand::Rng) -> Vec<u8> {
        let len = rng.usize(0..32);
        (0..len)
            .map(|_| ALPHABET[rng.usize(0..ALPHABET.len())])
            .collect()
    }
    for _ in 0..1000 {
        let pattern = random(rng);
        let string = random(rng);
        let _ = crate::engine::glob::matches(&pattern, &string, rng.bool());
    }
}
