//! LCS: the longest common subsequence of two strings, with its LEN, IDX, MINMATCHLEN and
//! WITHMATCHLEN options.

use super::common::{is_opt, max_bulk_len};
use crate::engine::args::Args;
use crate::engine::cmd::hash::map_reply;
use crate::engine::error::{CmdResult, Error};
use crate::engine::types::Value;
use crate::engine::{Ctx, Reply};

/// `LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]`.
///
/// The longest common subsequence of two strings (missing keys are empty strings; other
/// types give `ERR The specified keys must contain string values`), computed with the
/// classic O(N·M) table as Redis does, so the same subsequence is chosen when there are
/// several. LEN replies with its length; IDX with the matching ranges, last first
/// (`[[a_start, a_end], [b_start, b_end], (len)]`), keeping ranges at least MINMATCHLEN long
/// and adding their length with WITHMATCHLEN. LEN with IDX is an error. The table must fit
/// in `proto-max-bulk-len` bytes (4 bytes per cell).
pub(super) fn lcs(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key_a = args.next_bytes()?.to_vec();
    let key_b = args.next_bytes()?.to_vec();
    let not_strings = || Error::Err("The specified keys must contain string values".into());
    let a = match ctx.lookup_read(&key_a) {
        Some(Value::Str(s)) => Some(s.as_bytes().to_vec()),
        Some(_) => None,
        None => Some(Vec::new()),
    };
    let b = match ctx.lookup_read(&key_b) {
        Some(Value::Str(s)) => Some(s.as_bytes().to_vec()),
        Some(_) => None,
        None => Some(Vec::new()),
    };
    let (Some(a), Some(b)) = (a, b) else {
        return Err(not_strings());
    };

    let (mut get_len, mut get_idx, mut with_match_len) = (false, false, false);
    let mut min_match_len: u64 = 0;
    while let Some(arg) = args.peek() {
        if is_opt(arg, "IDX") {
            get_idx = true;
        } else if is_opt(arg, "LEN") {
            get_len = true;
        } else if is_opt(arg, "WITHMATCHLEN") {
            with_match_len = true;
        } else if is_opt(arg, "MINMATCHLEN") && args.remaining() > 1 {
            args.next_bytes()?;
            min_match_len = args.next_i64()?.max(0) as u64;
            continue;
        } else {
            return Err(Error::Syntax);
        }
        args.next_bytes()?;
    }
    if get_len && get_idx {
        return Err(Error::Err(
            "If you want both the length and indexes, please just use IDX.".into(),
        ));
    }
    if a.len() as u64 >= u64::from(u32::MAX) - 1 || b.len() as u64 >= u64::from(u32::MAX) - 1 {
        return Err(Error::Err("String too long for LCS".into()));
    }
    let (alen, blen) = (a.len(), b.len());
    let cells = (alen as u64 + 1) * (blen as u64 + 1);
    if cells.saturating_mul(4) > max_bulk_len(ctx) {
        return Err(Error::Err(
            "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len".into(),
        ));
    }
    let mut table: Vec<u32> = Vec::new();
    let alloc_failed =
        || Error::Err("Insufficient memory, failed allocating transient memory for LCS".into());
    let cells = usize::try_from(cells).map_err(|_| alloc_failed())?;
    table.try_reserve_exact(cells).map_err(|_| alloc_failed())?;
    table.resize(cells, 0);
    let w = blen + 1;
    for i in 1..=alen {
        for j in 1..=blen {
            table[i * w + j] = if a[i - 1] == b[j - 1] {
                table[(i - 1) * w + (j - 1)] + 1
            } else {
                table[(i - 1) * w + j].max(table[i * w + (j - 1)])
            };
        }
    }
    let total = table[alen * w + blen];

    // Walk back from the end, collecting the subsequence and the matching ranges exactly
    // as Redis's loop does (ranges are emitted from the end of the strings backwards).
    let compute = get_idx || !get_len;
    let mut result = vec![0u8; if compute { total as usize } else { 0 }];
    let mut idx = total as usize;
    let mut matches = Vec::new();
    let (mut i, mut j) = (alen, blen);
    // `arange_start == alen` means "no range open", as in Redis.
    let (mut a_start, mut a_end, mut b_start, mut b_end) = (alen, 0usize, 0usize, 0usize);
    while compute && i > 0 && j > 0 {
        let mut emit = false;
        if a[i - 1] == b[j - 1] {
            result[idx - 1] = a[i - 1];
            if a_start == alen {
                a_start = i - 1;
                a_end = i - 1;
                b_start = j - 1;
                b_end = j - 1;
            } else if a_start == i && b_start == j {
                a_start -= 1;
                b_start -= 1;
            } else {
                emit = true;
            }
            if a_start == 0 || b_start == 0 {
                emit = true;
            }
            idx -= 1;
            i -= 1;
            j -= 1;
        } else {
            if table[(i - 1) * w + j] > table[i * w + (j - 1)] {
                i -= 1;
            } else {
                j -= 1;
            }
            if a_start != alen {
                emit = true;
            }
        }
        if emit {
            let match_len = (a_end - a_start + 1) as u64;
            if get_idx && (min_match_len == 0 || match_len >= min_match_len) {
                let mut range = vec![
                    Reply::Array(vec![
                        Reply::Integer(a_start as i64),
                        Reply::Integer(a_end as i64),
                    ]),
                    Reply::Array(vec![
                        Reply::Integer(b_start as i64),
                        Reply::Integer(b_end as i64),
                    ]),
                ];
                if with_match_len {
                    range.push(Reply::Integer(match_len as i64));
                }
                matches.push(Reply::Array(range));
            }
            a_start = alen;
        }
    }

    Ok(if get_idx {
        map_reply(
            ctx.client.proto,
            vec![
                (Reply::bulk(b"matches"), Reply::Array(matches)),
                (Reply::bulk(b"len"), Reply::Integer(i64::from(total))),
            ],
        )
    } else if get_len {
        Reply::Integer(i64::from(total))
    } else {
        Reply::Bulk(result)
    })
}
