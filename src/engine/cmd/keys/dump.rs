//! DUMP: a key's value in Redis's serialization format.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::rdb::seal;
use crate::engine::rdb::write::{write_value, SaveOptions};
use crate::engine::{Ctx, Reply};

/// `DUMP key`: the value as Redis 7.0's `createDumpPayload` writes it — the RDB type byte
/// and object ([`write_value`], under the current `rdbcompression`,
/// `list-max-listpack-size` and `list-compress-depth`), the RDB version (10) as two
/// little-endian bytes and the CRC-64 of all that, little-endian — or nil for a missing
/// key. No deadline is included (RESTORE takes one as an argument). A read: it counts a
/// hit or miss and refreshes the access time, as Redis's `lookupKeyRead`. **O(N)** in the
/// value's size.
pub(super) fn dump(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let opts = SaveOptions::from_config(&ctx.srv.config);
    let Some(value) = ctx.lookup_read(key) else {
        return Ok(Reply::Nil);
    };
    let mut body = Vec::new();
    write_value(&mut body, value, &opts);
    Ok(Reply::Bulk(seal(body)))
}
