//! The HyperLogLog group: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST.
//!
//! A HyperLogLog lives in a string, in Redis's own byte layout (see
//! [`crate::engine::types::hll`]), so GET, SET, DUMP-like copies and the bit commands all
//! see the same bytes a real Redis would hold. Every command first checks that the string
//! is one: another type is the usual WRONGTYPE, a string without a valid header is
//! `WRONGTYPE Key is not a valid HyperLogLog string value.`, and sparse registers that do
//! not add up are `INVALIDOBJ Corrupted HLL object detected`. Commands that touch a value
//! leave it `raw`, as Redis's in-place edits do.
//!
//! **Effects.** PFADD, PFMERGE and PFDEBUG replay as themselves: they are deterministic,
//! so the replayed value is byte-identical, including when it turned dense on the way.
//! PFCOUNT of one key is flagged read-only but stores the estimate in the header when the
//! cache was stale, which GET can see; Redis counts that as a change and propagates the
//! PFCOUNT. We do the same: its effect is the `PFCOUNT key` itself, whose replay stores the
//! same cache. PFCOUNT of several keys never writes.
//!
//! **Notifications.** `pfadd` for PFADD when it changed something and for PFMERGE (after
//! `new` when the key was created). PFCOUNT's cache update and PFDEBUG send none; WATCH
//! sees PFADD, PFMERGE and the cache update as modifications, as in Redis. (PFDEBUG's
//! conversions are too, here: the engine signals the keys of any command that changed
//! something, where Redis signals none for PFDEBUG.)

use crate::engine::args::{c_bytes, Args};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::hll::{self, Encoding, HllError};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const DENYOOM: Flags = Flags::DENYOOM;
const FAST: Flags = Flags::FAST;

/// The HyperLogLog commands.
pub const COMMANDS: &[Command] = &[
    Command::new("pfadd", -2, Group::Hyperloglog, pfadd)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key [element [element ...]]",
            "Adds elements to a HyperLogLog, creating it if missing; replies 1 if its estimate may have changed.",
            "O(1) to add every element.",
            "2.8.9",
        ),
    Command::new("pfcount", -2, Group::Hyperloglog, pfcount)
        .key_specs(&[
            KeySpec::index(1, "RW access").range(-1, 1, 0)
                .notes("RW because it may change the internal representation of the key, and propagate to replicas"),
        ])
        .flags(R.union(Flags::MAY_REPLICATE))
        .doc(
            "key [key ...]",
            "Estimates the number of distinct elements added to a HyperLogLog, or to the union of several.",
            "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
            "2.8.9",
        ),
    Command::new("pfdebug", 3, Group::Hyperloglog, pfdebug)
        .key_specs(&[KeySpec::index(2, "RW access")])
        .flags(W.union(DENYOOM).union(Flags::ADMIN))
        .doc(
            "subcommand key",
            "Inspects a HyperLogLog's representation: GETREG, DECODE, ENCODING or TODENSE.",
            "N/A",
            "2.8.9",
        ),
    Command::new("pfselftest", 1, Group::Hyperloglog, pfselftest)
        .flags(Flags::ADMIN)
        .doc(
            "",
            "Checks the HyperLogLog implementation: register access and estimate accuracy.",
            "N/A",
            "2.8.9",
        ),
    Command::new("pfmerge", -2, Group::Hyperloglog, pfmerge)
        .key_specs(&[
            KeySpec::index(1, "RW access insert"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(W.union(DENYOOM))
        .doc(
            "destkey [sourcekey [sourcekey ...]]",
            "Stores at a destination the union of HyperLogLogs (the destination's own included).",
            "O(N) to merge N HyperLogLogs, but with high constant times.",
            "2.8.9",
        ),
];

/// `hll-sparse-max-bytes`: the longest a sparse value may grow before it turns dense.
fn sparse_max(ctx: &Ctx<'_>) -> u64 {
    u64::try_from(ctx.srv.config.int("hll-sparse-max-bytes")).unwrap_or(0)
}

/// Redis's `isHLLObjectOrReply` on a value: WRONGTYPE for other types, then the header.
fn check(v: &Value) -> CmdResult<Encoding> {
    hll::check(v.as_str()?.as_bytes()).map_err(|_| Error::NotHll)
}

/// The engine error for a failed HyperLogLog operation.
fn fault(e: HllError) -> Error {
    match e {
        HllError::Corrupt => Error::HllCorrupt,
        HllError::OutOfMemory => Error::OutOfMemory,
    }
}

/// The HyperLogLog at `key` for writing, created empty (sparse, with the `new` event) if
/// missing, and marked `raw`. Returns its bytes and whether it was created. The caller
/// signals the change and sends its event.
fn hll_for_write<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<(&'c mut Vec<u8>, bool)> {
    let exists = match ctx.lookup_write(key) {
        Some(e) => {
            check(&e.value)?;
            true
        }
        None => false,
    };
    if !exists {
        let now = ctx.now_ms;
        ctx.notify(class::NEW, "new", key);
        ctx.db().set(
            key,
            Value::Str(StrValue::raw(hll::new_sparse())),
            false,
            now,
        );
    }
    let s = ctx
        .db()
        .get_raw_mut(key)
        .ok_or(Error::NoSuchKey)?
        .value
        .as_str_mut()?;
    Ok((s.edit(), !exists))
}

/// `PFADD key [element ...]`: adds the elements to the HyperLogLog at `key` (created
/// empty if missing, even with no elements) and replies 1 if the key was created or a
/// register grew, else 0. A sparse value turns dense when a register exceeds 32 or it
/// would grow past `hll-sparse-max-bytes`. Any change invalidates the cached
/// cardinality. **O(1)** per element.
fn pfadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let max = sparse_max(ctx);
    let (bytes, created) = hll_for_write(ctx, &key)?;
    let mut updated = u64::from(created);
    let mut failed = None;
    for element in &args.argv()[2..] {
        match hll::add(bytes, element, max) {
            Ok(true) => updated += 1,
            Ok(false) => {}
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    if failed.is_none() && updated > 0 {
        hll::invalidate_cache(bytes);
    }
    // What was added before a corrupt value stopped the loop stays, as in Redis; the
    // replayed PFADD stops at the same element.
    ctx.dirty += updated;
    if let Some(e) = failed {
        return Err(fault(e));
    }
    if updated > 0 {
        ctx.signal_modified(&key);
        ctx.notify(class::STRING, "pfadd", &key);
    }
    Ok(Reply::Integer(i64::from(updated > 0)))
}

/// `PFCOUNT key [key ...]`: the estimated number of distinct elements.
///
/// With one key: 0 if missing; otherwise the cached cardinality if valid, else the
/// estimate, which is then stored in the header (a change that is propagated, see the
/// module docs). With several keys: the estimate of their union, computed on a temporary
/// register array without writing anything; missing keys count as empty. **O(1)** per key
/// (16384 registers).
fn pfcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv();
    if argv.len() > 2 {
        let mut max = vec![0u8; hll::REGISTERS];
        for key in &argv[1..] {
            let Some(v) = ctx.lookup_read(key) else {
                continue;
            };
            check(v)?;
            hll::merge_into(&mut max, v.as_str()?.as_bytes()).map_err(fault)?;
        }
        return Ok(Reply::Integer(hll::count_registers(&max) as i64));
    }
    let key = argv[1].clone();
    if ctx.lookup_read(&key).is_none() {
        return Ok(Reply::Integer(0));
    }
    let s = ctx
        .db()
        .get_raw_mut(&key)
        .ok_or(Error::NoSuchKey)?
        .value
        .as_str_mut()?;
    hll::check(s.as_bytes()).map_err(|_| Error::NotHll)?;
    // Redis makes the value raw before it looks at the cache (`dbUnshareStringValue`).
    let bytes = s.edit();
    if let Some(card) = hll::cached(bytes) {
        return Ok(Reply::Integer(card as i64));
    }
    let card = hll::count(bytes).map_err(fault)?;
    hll::store_cache(bytes, card);
    ctx.dirty += 1;
    ctx.signal_modified(&key);
    ctx.propagate(argv.to_vec());
    Ok(Reply::Integer(card as i64))
}

/// `PFMERGE destkey [sourcekey ...]`: stores at `destkey` the register-wise maximum of
/// all the HyperLogLogs named, `destkey` included (missing keys count as empty), and
/// replies OK. The destination is created sparse if missing and made dense first if any
/// input is dense; then each non-zero register is raised in index order, as Redis does, so
/// a sparse result has the same bytes. The cache is invalidated. **O(N)** in the number of
/// keys (16384 registers each).
fn pfmerge(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv();
    let max_bytes = sparse_max(ctx);
    let mut max = vec![0u8; hll::REGISTERS];
    let mut use_dense = false;
    for key in &argv[1..] {
        let Some(v) = ctx.lookup_read(key) else {
            continue;
        };
        if check(v)? == Encoding::Dense {
            use_dense = true;
        }
        hll::merge_into(&mut max, v.as_str()?.as_bytes()).map_err(fault)?;
    }
    let dest = argv[1].clone();
    let (bytes, _) = hll_for_write(ctx, &dest)?;
    if use_dense {
        hll::to_dense(bytes).map_err(fault)?;
    }
    for (i, &m) in max.iter().enumerate() {
        if m != 0 {
            // Redis ignores failures here: every input, the destination included, was
            // validated by the merge above.
            let _ = hll::set_register(bytes, i, m, max_bytes);
        }
    }
    hll::invalidate_cache(bytes);
    ctx.dirty += 1;
    ctx.signal_modified(&dest);
    // Redis sends `pfadd` for PFMERGE too: in effect it adds many elements.
    ctx.notify(class::STRING, "pfadd", &dest);
    Ok(Reply::ok())
}

/// `PFDEBUG <GETREG | DECODE | ENCODING | TODENSE> key`: Redis's internal inspection of a
/// HyperLogLog. GETREG converts a sparse value to dense (a change) and replies with the
/// 16384 register values; DECODE shows the sparse opcodes (`z:` ZERO, `Z:` XZERO,
/// `v:value,len` VAL; `ERR HLL encoding is not sparse` for dense); ENCODING replies
/// `sparse` or `dense`; TODENSE converts and replies 1, or 0 if already dense. The key is
/// checked before the subcommand: `ERR The specified key does not exist`.
fn pfdebug(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv();
    let sub = c_bytes(&argv[1]).to_ascii_lowercase();
    let key = argv[2].clone();
    if ctx.lookup_write(&key).is_none() {
        return Err(Error::Err("The specified key does not exist".into()));
    }
    let (bytes, _) = hll_for_write(ctx, &key)?;
    let encoding = hll::check(bytes).map_err(|_| Error::NotHll)?;
    let mut converted = false;
    let reply = match sub.as_slice() {
        b"getreg" => {
            converted = hll::to_dense(bytes).map_err(fault)?;
            let regs = hll::registers(bytes).map_err(fault)?;
            Reply::Array(
                regs.into_iter()
                    .map(|r| Reply::Integer(i64::from(r)))
                    .collect(),
            )
        }
        b"decode" => {
            if encoding != Encoding::Sparse {
                return Err(Error::Err("HLL encoding is not sparse".into()));
            }
            Reply::Bulk(hll::decode_sparse(bytes).into_bytes())
        }
        b"encoding" => Reply::status(encoding.name()),
        b"todense" => {
            converted = hll::to_dense(bytes).map_err(fault)?;
            Reply::Integer(i64::from(converted))
        }
        _ => {
            return Err(Error::Err(format!(
                "Unknown PFDEBUG subcommand '{}'",
                c_str(&argv[1])
            )))
        }
    };
    if converted {
        ctx.dirty += 1;
    }
    Ok(reply)
}

/// `PFSELFTEST`: Redis's self test of the HyperLogLog code (see [`hll::self_test`]):
/// OK, or an error starting with `TESTFAILED`. It touches no key. It adds ten million
/// elements to two register arrays, so it takes about a second natively (Redis takes as
/// long); in the browser it blocks the page for a few seconds.
fn pfselftest(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let max = sparse_max(ctx);
    let rng = &mut ctx.srv.rng;
    hll::self_test(hll::SelfTestSize::REDIS, max, || rng.u32(..) >> 1).map_err(Error::Err)?;
    Ok(Reply::ok())
}
