//! What the hash handlers share: the RESP2/RESP3 map reply, the conversion limits, and
//! looking a hash up for reading, writing or creating.

use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::hash::HashLimits;
use crate::engine::types::{HashValue, Value};
use crate::engine::{Ctx, Reply};

/// Most elements HRANDFIELD with a negative count may return. Redis has no limit and would
/// stream them until the client disconnects; a browser tab would run out of memory first,
/// so larger requests get `ERR value is out of range` (the text Redis uses for counts too
/// large with WITHVALUES).
pub const MAX_RANDOM_REPLY: u64 = 1_000_000;

/// A map reply for protocol `proto`: a RESP3 map, or the flat `[k1, v1, k2, v2, …]` array
/// that a RESP2 client receives (and redis-cli prints as such).
pub fn map_reply(proto: u8, pairs: Vec<(Reply, Reply)>) -> Reply {
    if proto >= 3 {
        Reply::Map(pairs)
    } else {
        Reply::Array(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect())
    }
}

/// The conversion thresholds from the configuration (parsed when they were set).
pub(super) fn limits(ctx: &Ctx<'_>) -> HashLimits {
    HashLimits {
        max_listpack_entries: ctx.srv.config.hash_max_listpack_entries(),
        max_listpack_value: ctx.srv.config.hash_max_listpack_value(),
    }
}

/// The hash at `key` for reading: `Ok(None)` if missing, WRONGTYPE for other types.
/// Counts a keyspace hit or miss.
pub(super) fn read_hash<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c HashValue>> {
    ctx.read_as(key, Value::as_hash)
}

/// The hash at `key` for writing: `Ok(None)` if missing, WRONGTYPE for other types.
pub(super) fn write_hash<'c>(
    ctx: &'c mut Ctx<'_>,
    key: &[u8],
) -> CmdResult<Option<&'c mut HashValue>> {
    ctx.write_as(key, Value::as_hash_mut)
}

/// The hash at `key`, created empty if missing (Redis's `hashTypeLookupWriteOrCreate`).
/// Call only when the write will happen, so no empty hash is left behind.
pub(super) fn hash_or_create<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<&'c mut HashValue> {
    ctx.expire_if_needed(key);
    let now = ctx.now_ms;
    let db = ctx.db();
    if db.get_raw(key).is_none() {
        db.set(key, Value::Hash(HashValue::default()), false, now);
        ctx.notify(class::NEW, "new", key);
    }
    let idx = ctx.client.db;
    let srv = &mut *ctx.srv;
    match srv.dbs[idx].get_raw_mut(key) {
        Some(e) => {
            crate::engine::evict::touch(e, now, srv.config.eviction(), &mut srv.rng);
            e.value.as_hash_mut()
        }
        None => Err(Error::NoSuchKey),
    }
}
