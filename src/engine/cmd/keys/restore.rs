//! `RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ
//! frequency]`: creates a key from a `DUMP` payload (Redis's `restoreCommand`).
//!
//! # Order of the checks, as Redis makes them
//! 1. The options, left to right: `REPLACE`, `ABSTTL`, `IDLETIME s` (an integer ≥ 0,
//!    refused after `FREQ`), `FREQ f` (an integer 0 to 255, refused after `IDLETIME`);
//!    anything else, or a missing argument, is `ERR syntax error`.
//! 2. Without `REPLACE`, an existing key is `BUSYKEY Target key name already exists.`
//! 3. The TTL: an integer (`ERR value is not an integer or out of range`) ≥ 0 (`ERR
//!    Invalid TTL value, must be >= 0`); 0 means none.
//! 4. The payload's footer: `ERR DUMP payload version or checksum are wrong` for a payload
//!    of fewer than 10 bytes, an RDB version above 10 or a wrong CRC-64.
//! 5. The object ([`rdb::read`]): `ERR Bad data format` for anything that cannot be read,
//!    whole, into a value (an empty one included). As in Redis the object is read from the
//!    whole payload, footer included (an object a byte or two short may end in the
//!    footer), and bytes after it are ignored.
//!
//! # What it does
//! With `REPLACE` the old key goes first. A relative TTL is made absolute by adding the
//! command's time (wrapping as Redis's C arithmetic does, so a TTL near `i64::MAX` lands
//! in the past). A deadline not after now stores nothing: the reply is still `OK`, and if
//! `REPLACE` deleted a key that is a `del` event and the command replays as `DEL key`.
//! Otherwise the key is created with its deadline, the `new` and `restore` events; `IDLETIME`
//! sets its access time that many seconds back unless an LFU `maxmemory-policy` is in
//! force, and `FREQ` sets its access counter only under one (Redis's
//! `objectSetLRUOrLFU`). A relative TTL replays as the absolute deadline with `ABSTTL`
//! appended, so the effect replays exactly. The payload is read with the encoding limits
//! of the configuration in force ([`LoadOptions::from_config`]).
//!
//! **O(N)** to rebuild a value of N elements (**O(N log N)** for a large sorted set).

use super::parse::arg;
use crate::engine::args::{eq_kw, parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::keyspace::Entry;
use crate::engine::pubsub::class;
use crate::engine::rdb::prim::Reader;
use crate::engine::rdb::read::{read_value, LoadOptions};
use crate::engine::rdb::unseal;
use crate::engine::{Ctx, Reply};

/// The options after the payload.
#[derive(Debug, Default)]
struct Options {
    replace: bool,
    absttl: bool,
    idle_s: Option<i64>,
    freq: Option<u8>,
}

/// Parses the options as Redis's loop does, so the first bad one decides the error.
fn options(rest: &[Vec<u8>]) -> CmdResult<Options> {
    let mut o = Options::default();
    let mut i = 0;
    while let Some(opt) = rest.get(i) {
        let has_value = i + 1 < rest.len();
        if eq_kw(opt, "replace") {
            o.replace = true;
        } else if eq_kw(opt, "absttl") {
            o.absttl = true;
        } else if eq_kw(opt, "idletime") && has_value && o.freq.is_none() {
            i += 1;
            let v = parse_i64(&rest[i]).ok_or(Error::NotInteger)?;
            if v < 0 {
                return Err(Error::RestoreIdleTime);
            }
            o.idle_s = Some(v);
        } else if eq_kw(opt, "freq") && has_value && o.idle_s.is_none() {
            i += 1;
            let v = parse_i64(&rest[i]).ok_or(Error::NotInteger)?;
            o.freq = Some(u8::try_from(v).map_err(|_| Error::RestoreFreq)?);
        } else {
            return Err(Error::Syntax);
        }
        i += 1;
    }
    Ok(o)
}

/// `RESTORE`: see the module documentation.
pub(super) fn restore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = arg(args, 1)?.to_vec();
    let o = options(args.argv().get(4..).unwrap_or_default())?;
    if !o.replace && ctx.lookup_write(&key).is_some() {
        return Err(Error::BusyKey);
    }
    let ttl = parse_i64(arg(args, 2)?).ok_or(Error::NotInteger)?;
    if ttl < 0 {
        return Err(Error::RestoreTtl);
    }
    let payload = arg(args, 3)?;
    unseal(payload, ctx.srv.debug.checksums).ok_or(Error::DumpPayload)?;
    // Redis reads the object from the whole payload, footer included: an object cut short
    // by a byte or two may end inside the footer and still load.
    let mut r = Reader::new(payload);
    let type_byte = r.byte().ok_or(Error::BadDataFormat)?;
    let opts = LoadOptions::from_config(&ctx.srv.config);
    let value = read_value(&mut r, type_byte, &opts).map_err(|_| Error::BadDataFormat)?;

    let deleted = o.replace && ctx.db().remove(&key).is_some();
    let now = ctx.now_ms;
    let deadline = match ttl {
        0 => None,
        t if o.absttl => Some(t),
        t => Some(t.wrapping_add(now)),
    };
    if deadline.is_some_and(|t| t <= now) {
        if deleted {
            ctx.notify(class::GENERIC, "del", &key);
            ctx.propagate(vec![b"DEL".to_vec(), key]);
            ctx.dirty += 1;
        }
        return Ok(Reply::ok());
    }
    let mut entry = Entry::new(value, deadline, now);
    if ctx.srv.config.eviction().policy.is_lfu() {
        if let Some(f) = o.freq {
            entry.lfu = f;
        }
    } else if let Some(idle) = o.idle_s {
        entry.set_accessed_ms(now.saturating_sub(idle.saturating_mul(1000)));
    }
    if let (Some(t), false) = (deadline, o.absttl) {
        let mut argv = args.argv().to_vec();
        argv[2] = t.to_string().into_bytes();
        argv.push(b"ABSTTL".to_vec());
        ctx.propagate(argv);
    }
    ctx.db().insert_entry(key.clone(), entry);
    ctx.signal_ready(&key);
    ctx.notify(class::NEW, "new", &key);
    ctx.notify(class::GENERIC, "restore", &key);
    ctx.dirty += 1;
    Ok(Reply::ok())
}

#[cfg(test)]
mod tests {
    use crate::engine::rdb::seal;
    use crate::engine::testing::{self, exec_survives};
    use crate::engine::{ClientId, Engine, Reply};

    const NOW: i64 = 1_704_067_200_000;

    fn run(e: &mut Engine, c: ClientId, args: &[&[u8]]) -> Reply {
        e.execute(c, args.iter().map(|a| a.to_vec()).collect())
    }

    fn hello() -> Vec<u8> {
        seal(b"\x00\x05hello".to_vec())
    }

    #[test]
    fn effects_replay_exactly() {
        let (mut e, c) = testing::connected_at(NOW);
        let p = hello();
        run(&mut e, c, &[b"RESTORE", b"k", b"5000", &p]);
        let abs = (NOW + 5000).to_string();
        let fx = e.take_effects();
        assert_eq!(fx.len(), 1);
        let want: Vec<&[u8]> = vec![b"RESTORE", b"k", abs.as_bytes(), &p, b"ABSTTL"];
        assert_eq!(fx[0].argv, want);
        // Replayed later on another engine, the effect gives the same deadline.
        let (mut b, cb) = testing::connected_at(NOW + 1000);
        b.execute(cb, fx[0].argv.clone());
        assert_eq!(
            b.server().dbs[0].get_raw(b"k").unwrap().expire_at(),
            Some(NOW + 5000)
        );
        // ABSTTL and no TTL replay as they are.
        run(&mut e, c, &[b"RESTORE", b"a", b"0", &p, b"IDLETIME", b"3"]);
        assert_eq!(testing::effects(&mut e).len(), 1);
        // A past deadline: nothing, or DEL of the key REPLACE removed.
        run(&mut e, c, &[b"RESTORE", b"x", b"1", &p, b"ABSTTL"]);
        assert_eq!(testing::effects(&mut e), Vec::<String>::new());
        run(
            &mut e,
            c,
            &[b"RESTORE", b"a", b"1", &p, b"ABSTTL", b"REPLACE"],
        );
        assert_eq!(testing::effects(&mut e), ["DEL a"]);
        // Errors record nothing.
        run(&mut e, c, &[b"RESTORE", b"k", b"0", &p]);
        run(&mut e, c, &[b"RESTORE", b"n", b"0", b"junk"]);
        assert_eq!(testing::effects(&mut e), Vec::<String>::new());
    }

    #[test]
    fn restore_touches_watchers_and_wakes_blocked_pops() {
        let (mut e, c) = testing::connected_at(NOW);
        let p = hello();
        let line = |key: &str| {
            let quoted: String = p.iter().map(|b| format!("\\x{b:02x}")).collect();
            format!("RESTORE {key} 0 \"{quoted}\" REPLACE")
        };
        assert!(!exec_survives(&mut e, c, "w", &line("w")));
        assert!(exec_survives(&mut e, c, "w", &line("other")));
        // A list payload (type 18, one listpack node holding "a") serves BLPOP.
        let list = seal(b"\x12\x01\x02\x0a\x0a\x00\x00\x00\x01\x00\x81a\x02\xff".to_vec());
        let waiter = e.connect();
        run(&mut e, waiter, &[b"BLPOP", b"l", b"0"]);
        assert_eq!(
            run(&mut e, c, &[b"RESTORE", b"l", b"0", &list]),
            Reply::ok()
        );
        assert_eq!(run(&mut e, c, &[b"EXISTS", b"l"]), Reply::Integer(0));
        let served = Reply::Array(vec![Reply::Bulk(b"l".to_vec()), Reply::Bulk(b"a".to_vec())]);
        assert_eq!(e.take_pushes(waiter), [served]);
    }
}
