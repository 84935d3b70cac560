//! ZSCAN.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::reply::format_double;
use crate::engine::scan;
use crate::engine::{Ctx, Reply};

use super::parse::d2string;
use super::reply::read_zset;

/// `ZSCAN key cursor [MATCH pattern] [COUNT count]`: iterates members and scores. A small
/// (listpack) set comes back whole, in order, with cursor 0 and scores as the listpack
/// stores them (`d2string`); a large one is walked by dict position with `COUNT` as the
/// work hint (see [`crate::engine::scan`]).
pub(super) fn zscan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let cursor = scan::parse_cursor(args.next_bytes()?)?;
    let empty = || Reply::Array(vec![Reply::bulk(b"0"), Reply::Array(Vec::new())]);
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(empty());
    };
    let opts = scan::parse_opts(args, false)?;
    let mut out = Vec::new();
    let next = if z.is_listpack() {
        for (m, s) in z.iter() {
            if scan::pattern_ok(&opts, m) {
                out.push(Reply::bulk(m));
                out.push(Reply::Bulk(d2string(s).into_bytes()));
            }
        }
        0
    } else {
        let (positions, next) = scan::step(z.len(), cursor, opts.count);
        for p in positions {
            if let Some((m, s)) = z.get_index(p) {
                if scan::pattern_ok(&opts, m) {
                    out.push(Reply::bulk(m));
                    out.push(Reply::Bulk(format_double(s).into_bytes()));
                }
            }
        }
        next
    };
    Ok(Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(out),
    ]))
}
