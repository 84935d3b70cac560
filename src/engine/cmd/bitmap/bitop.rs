//! BITOP: AND, OR, XOR and NOT over whole strings.

use super::common::is_opt;
use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// The four BITOP operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BitOp {
    And,
    Or,
    Xor,
    Not,
}

/// `BITOP <AND | OR | XOR | NOT> destkey key [key ...]`: stores the bitwise operation of
/// the source strings at `destkey` and replies with its length.
///
/// Missing sources are empty strings; shorter sources are padded with zero bytes to the
/// longest, which is the result's length. NOT takes exactly one source (`ERR BITOP NOT must
/// be called with a single source key.`, checked after the operation name and before any
/// key). A source of another type is WRONGTYPE and nothing is written. An empty result
/// deletes `destkey`; otherwise it replaces whatever was there (clearing its TTL).
/// **O(N)** in the total length of the sources.
pub(super) fn bitop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv();
    let name = &argv[1];
    let op = if is_opt(name, "and") {
        BitOp::And
    } else if is_opt(name, "or") {
        BitOp::Or
    } else if is_opt(name, "xor") {
        BitOp::Xor
    } else if is_opt(name, "not") {
        BitOp::Not
    } else {
        return Err(Error::Syntax);
    };
    if op == BitOp::Not && argv.len() != 4 {
        return Err(Error::Err(
            "BITOP NOT must be called with a single source key.".into(),
        ));
    }
    let dest = argv[2].clone();
    let mut acc: Vec<u8> = Vec::new();
    for (j, key) in argv[3..].iter().enumerate() {
        let src: &[u8] = match ctx.lookup_read(key) {
            Some(v) => v.as_str()?.as_bytes(),
            None => &[],
        };
        if src.len() > acc.len() {
            acc.try_reserve_exact(src.len() - acc.len())
                .map_err(|_| Error::OutOfMemory)?;
            // Redis pads the first source with zero bytes too, so NOT of the padding is
            // 0xff; NOT has one source only, so there is never padding to invert.
            acc.resize(src.len(), 0);
        }
        if j == 0 {
            acc[..src.len()].copy_from_slice(src);
            if op == BitOp::Not {
                acc.iter_mut().for_each(|b| *b = !*b);
            }
            continue;
        }
        match op {
            BitOp::And => {
                for (a, &s) in acc.iter_mut().zip(src) {
                    *a &= s;
                }
                if let Some(rest) = acc.get_mut(src.len()..) {
                    rest.fill(0);
                }
            }
            BitOp::Or => acc.iter_mut().zip(src).for_each(|(a, &s)| *a |= s),
            BitOp::Xor => acc.iter_mut().zip(src).for_each(|(a, &s)| *a ^= s),
            BitOp::Not => {}
        }
    }
    let len = acc.len();
    if len == 0 {
        if ctx.delete(&dest) {
            ctx.notify(class::GENERIC, "del", &dest);
        }
    } else {
        ctx.set_value(&dest, Value::Str(StrValue::raw(acc)), false);
        ctx.notify(class::STRING, "set", &dest);
    }
    Ok(Reply::Integer(len as i64))
}
