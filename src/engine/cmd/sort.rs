//! `SORT` and `SORT_RO`: sorting the elements of a list, set or sorted set.
//!
//! ```text
//! SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]]
//!          [ASC | DESC] [ALPHA] [STORE destination]
//! ```
//!
//! Semantics, following Redis 7.0's `sort.c`:
//!
//! * **Weights.** Without `BY`, elements sort by their own value; with `BY pattern`, by the
//!   value found by substituting the element for the first `*` in the pattern: a string key
//!   (`weight_*`) or a hash field (`obj_*->field`). A `BY` pattern without `*` (such as
//!   `nosort`) skips sorting: lists and sorted sets keep their native order (reversed by
//!   `DESC`), sets their iteration order — except that with `STORE`, or called from a
//!   script, a set is sorted `ALPHA` anyway, so that what is stored (or what the script
//!   sees) does not depend on hash order.
//! * **Numeric** (default): weights are read with C's `strtod`; a weight that is not a whole
//!   number (or overflows, or is NaN) fails the command with `ERR One or more scores can't be
//!   converted into double`. A missing `BY` key weighs 0. Ties are broken by comparing the
//!   elements' bytes, so the result is deterministic.
//! * **ALPHA**: elements (or their `BY` values) compare as strings, byte by byte up to the
//!   first NUL (`strcoll` in the C.UTF-8 locale; `STORE` compares whole binary strings).
//!   With `BY`, elements whose `BY` key is missing sort first. Equal keys keep the input
//!   order (the sort is stable, like glibc's `qsort`).
//! * `DESC` reverses the comparison. `LIMIT offset count` selects a slice of the sorted
//!   result (negative count = to the end); it is clamped to the collection.
//! * `GET pattern` (repeatable) replaces each element in the reply by the looked-up value
//!   (nil when missing); `GET #` is the element itself. A `GET` pattern without `*` always
//!   gives nil.
//! * `STORE destination` (not in `SORT_RO`) stores the result as a list (missing `GET`
//!   values as empty strings) and replies with its length; an empty result deletes the
//!   destination.
//! * Sorting a small sorted set converts it to the skiplist encoding, as Redis does.
//!
//! Cost: O(N + M log M) for N elements and M returned (O(N) without sorting), plus one
//! O(1) key lookup per element per `BY`/`GET` pattern.
//!
//! `STORE` is recorded as `DEL destination` + `RPUSH destination …` so that replay does
//! not depend on set iteration order.

use std::cmp::Ordering;

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::num::strtod;
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};
use crate::engine::types::Value;
use crate::engine::{Ctx, Reply};

/// The SORT commands.
pub const COMMANDS: &[Command] = &[
    Command::new("sort", -2, Group::Generic, sort)
        .acl(&["set", "sortedset", "list", "dangerous"])
        .no_group_acl()
        .key_specs(&[
            KeySpec::index(1, "RO access"),
            KeySpec::unknown("RO access")
                .notes("For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort"),
            KeySpec::unknown("OW update")
                .notes("For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array"),
        ])
        .getkeys(GetKeys::Sort)
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .doc(
            "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]",
            "Sorts a list, set or sorted set, optionally by external weights, and returns or stores the result.",
            "O(N + M log M) for N elements and M returned; O(N) without sorting",
            "1.0.0",
        ),
    Command::new("sort_ro", -2, Group::Generic, sort_ro)
        .acl(&["set", "sortedset", "list", "dangerous"])
        .no_group_acl()
        .key_specs(&[
            KeySpec::index(1, "RO access"),
            KeySpec::unknown("RO access")
                .notes("For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort"),
        ])
        .getkeys(GetKeys::SortRo)
        .flags(Flags::READONLY)
        .doc(
            "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]",
            "Read-only SORT: the same without STORE.",
            "O(N + M log M) for N elements and M returned; O(N) without sorting",
            "7.0.0",
        ),
];

/// `SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC | DESC] [ALPHA]
/// [STORE destination]` — see the module documentation.
fn sort(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    sort_generic(ctx, args, false)
}

/// `SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC | DESC] [ALPHA]`:
/// `SORT` without `STORE` (which is a syntax error here).
fn sort_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    sort_generic(ctx, args, true)
}

/// One element to sort with its weight.
struct Item {
    elem: Vec<u8>,
    score: f64,
    /// The `BY` value for `ALPHA` with a pattern (`None` when the key is missing).
    cmp: Option<Vec<u8>>,
}

/// The parsed options.
struct Opts {
    desc: bool,
    alpha: bool,
    limit_start: i64,
    limit_count: i64,
    sortby: Option<Vec<u8>>,
    dontsort: bool,
    gets: Vec<Vec<u8>>,
    store: Option<Vec<u8>>,
}

fn parse_opts(args: &mut Args, readonly: bool) -> CmdResult<Opts> {
    let mut o = Opts {
        desc: false,
        alpha: false,
        limit_start: 0,
        limit_count: -1,
        sortby: None,
        dontsort: false,
        gets: Vec::new(),
        store: None,
    };
    while !args.is_empty() {
        let left = args.remaining() - 1;
        if args.eat("ASC") {
            o.desc = false;
        } else if args.eat("DESC") {
            o.desc = true;
        } else if args.eat("ALPHA") {
            o.alpha = true;
        } else if left >= 2 && args.eat("LIMIT") {
            o.limit_start = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
            o.limit_count = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
        } else if !readonly && left >= 1 && args.eat("STORE") {
            o.store = Some(args.next_owned()?);
        } else if left >= 1 && args.eat("BY") {
            let p = args.next_owned()?;
            // A constant pattern means "don't sort"; the flag stays set even if a later BY
            // has a '*', as in Redis.
            if !p.contains(&b'*') {
                o.dontsort = true;
            }
            o.sortby = Some(p);
        } else if left >= 1 && args.eat("GET") {
            o.gets.push(args.next_owned()?);
        } else {
            return Err(Error::Syntax);
        }
    }
    Ok(o)
}

fn sort_generic(ctx: &mut Ctx<'_>, args: &mut Args, readonly: bool) -> CmdResult {
    let key = args.next_owned()?;
    let mut o = parse_opts(args, readonly)?;

    // Load the elements (a missing key sorts as an empty list).
    let mut is_set = false;
    let len = match ctx.lookup_read(&key) {
        None => 0,
        Some(v) => {
            let src = v.sort_source()?;
            is_set = src.is_unordered_set();
            src.len()
        }
    };
    if is_set && o.dontsort && (o.store.is_some() || ctx.client.script) {
        o.dontsort = false;
        o.alpha = true;
        o.sortby = None;
    }
    // Redis converts a listpack sorted set to a skiplist before sorting it.
    if let Some(e) = ctx.db().get_raw_mut(&key) {
        if let Value::ZSet(z) = &mut e.value {
            z.force_skiplist();
        }
    }

    // LIMIT, clamped as Redis does (in i64 to avoid overflow).
    let vlen = len as i64;
    let mut start = o.limit_start.max(0).min(vlen);
    let count = o.limit_count.max(-1).min(vlen);
    let mut end = if count < 0 {
        vlen - 1
    } else {
        start + count - 1
    };
    if start >= vlen {
        start = vlen - 1;
        end = vlen - 2;
    }
    if end >= vlen {
        end = vlen - 1;
    }

    let elems: Vec<Vec<u8>> = {
        let src = match ctx.db().get_raw(&key) {
            Some(e) => Some(e.value.sort_source()?),
            None => None,
        };
        match src {
            None => Vec::new(),
            Some(src) if o.dontsort && !src.is_unordered_set() => {
                // Native order, only the selected range, reversed for DESC.
                let n = if end >= start {
                    (end - start + 1) as usize
                } else {
                    0
                };
                let v = src.native_range(start.max(0) as usize, n, o.desc);
                end -= start;
                start = 0;
                v
            }
            Some(src) => src.all(),
        }
    };

    let mut items: Vec<Item> = elems
        .into_iter()
        .map(|elem| Item {
            elem,
            score: 0.0,
            cmp: None,
        })
        .collect();

    let mut conversion_error = false;
    if !o.dontsort {
        for it in items.iter_mut() {
            let byval = match &o.sortby {
                Some(p) => match lookup_by_pattern(ctx, p, &it.elem) {
                    Some(v) => v,
                    None => continue,
                },
                None => it.elem.clone(),
            };
            if o.alpha {
                if o.sortby.is_some() {
                    it.cmp = Some(byval);
                }
            } else {
                let r = strtod(&byval);
                let stop_ok = r.consumed == byval.len() || byval[r.consumed] == 0;
                it.score = r.value;
                if !stop_ok || r.range_error || r.value.is_nan() {
                    conversion_error = true;
                }
            }
        }
        if !conversion_error {
            let by = o.sortby.is_some();
            let store = o.store.is_some();
            let (alpha, desc) = (o.alpha, o.desc);
            items.sort_by(|a, b| {
                let c = compare(a, b, alpha, by, store);
                if desc {
                    c.reverse()
                } else {
                    c
                }
            });
        }
    }
    if conversion_error {
        return Err(Error::SortNotDouble);
    }

    // The selected slice.
    let selected: &[Item] = if end >= start && start >= 0 {
        items
            .get(start as usize..=(end as usize).min(items.len().saturating_sub(1)))
            .unwrap_or(&[])
    } else {
        &[]
    };
    let mut out: Vec<Option<Vec<u8>>> = Vec::new();
    for it in selected {
        if o.gets.is_empty() {
            out.push(Some(it.elem.clone()));
        }
        for g in &o.gets {
            out.push(lookup_by_pattern(ctx, g, &it.elem));
        }
    }

    match o.store {
        None => Ok(Reply::Array(
            out.into_iter()
                .map(|v| match v {
                    Some(b) => Reply::Bulk(b),
                    None => Reply::Nil,
                })
                .collect(),
        )),
        Some(dst) => {
            let n = out.len();
            if n > 0 {
                let items: Vec<Vec<u8>> = out.into_iter().map(Option::unwrap_or_default).collect();
                let mut rpush = Vec::with_capacity(items.len() + 2);
                rpush.push(b"RPUSH".to_vec());
                rpush.push(dst.clone());
                rpush.extend(items.iter().cloned());
                let list = make_list(items)?;
                ctx.set_value(&dst, list, false);
                ctx.notify(class::LIST, "sortstore", &dst);
                ctx.dirty += n as u64 - 1;
                ctx.propagate(vec![b"DEL".to_vec(), dst]);
                ctx.propagate(rpush);
            } else if ctx.delete(&dst) {
                ctx.notify(class::GENERIC, "del", &dst);
                ctx.propagate(vec![b"DEL".to_vec(), dst]);
            }
            Ok(Reply::Integer(n as i64))
        }
    }
}

/// Builds the list value `SORT … STORE` writes.
fn make_list(items: Vec<Vec<u8>>) -> CmdResult<Value> {
    Ok(Value::List(items.into_iter().collect()))
}

/// The comparison of Redis's `sortCompare` (before `DESC` is applied).
fn compare(a: &Item, b: &Item, alpha: bool, by: bool, store: bool) -> Ordering {
    if !alpha {
        return match a.score.partial_cmp(&b.score) {
            Some(Ordering::Equal) | None => a.elem.cmp(&b.elem),
            Some(o) => o,
        };
    }
    let (x, y) = if by {
        match (&a.cmp, &b.cmp) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => (x, y),
        }
    } else {
        (&a.elem, &b.elem)
    };
    if store {
        x.cmp(y)
    } else {
        c_str(x).cmp(c_str(y))
    }
}

/// The bytes before the first NUL, as a C string function sees them.
fn c_str(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(i) => &b[..i],
        None => b,
    }
}

/// Redis's `lookupKeyByPattern`: `#` is the element itself; otherwise the element replaces
/// the first `*` and the resulting key is read — as a string, or with `->field` (after the
/// `*`, with a non-empty field name) as a hash field. `None` for no `*`, a missing key or
/// field, or a key of another type.
fn lookup_by_pattern(ctx: &mut Ctx<'_>, pattern: &[u8], subst: &[u8]) -> Option<Vec<u8>> {
    if pattern == b"#" {
        return Some(subst.to_vec());
    }
    let star = pattern.iter().position(|&c| c == b'*')?;
    let after = &pattern[star + 1..];
    let (post, field) = match after.windows(2).position(|w| w == b"->") {
        Some(i) if i + 2 < after.len() => (&after[..i], Some(&after[i + 2..])),
        _ => (after, None),
    };
    let mut key = Vec::with_capacity(star + subst.len() + post.len());
    key.extend_from_slice(&pattern[..star]);
    key.extend_from_slice(subst);
    key.extend_from_slice(post);
    match (ctx.lookup_read(&key)?, field) {
        (Value::Hash(h), Some(f)) => h.get(f).map(<[u8]>::to_vec),
        (Value::Str(s), None) => Some(s.as_bytes().to_vec()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::cli;
    use crate::engine::types::{HashValue, Value};
    use crate::engine::{Engine, ManualClock};

    fn hset(e: &mut Engine, key: &str, pairs: &[(&str, &str)]) {
        let mut h = HashValue::default();
        for (f, v) in pairs {
            h.insert(
                f.as_bytes().to_vec(),
                v.as_bytes().to_vec(),
                Default::default(),
            );
        }
        e.srv.dbs[0].set(key.as_bytes(), Value::Hash(h), false, 0);
    }

    /// Expected replies produced by redis-cli against Redis 7.0.15 with the same data
    /// (HSET instead of the direct inserts; the hash commands live elsewhere).
    #[test]
    fn by_and_get_read_hash_fields() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let c = e.connect();
        hset(&mut e, "h_alice", &[("age", "30"), ("city", "Rome")]);
        hset(&mut e, "h_bob", &[("age", "25")]);
        hset(&mut e, "h_carol", &[("city", "Oslo")]);
        cli(&mut e, c, "ZADD people 1 alice 2 bob 3 carol");
        assert_eq!(
            cli(&mut e, c, "SORT people BY h_*->age"),
            "1) \"carol\"\n2) \"bob\"\n3) \"alice\""
        );
        assert_eq!(
            cli(
                &mut e,
                c,
                "SORT people BY h_*->age DESC GET # GET h_*->city"
            ),
            "1) \"alice\"\n2) \"Rome\"\n3) \"bob\"\n4) (nil)\n5) \"carol\"\n6) \"Oslo\""
        );
        assert_eq!(
            cli(&mut e, c, "SORT people BY h_*->city ALPHA GET h_*->city"),
            "1) (nil)\n2) \"Oslo\"\n3) \"Rome\""
        );
        assert_eq!(
            cli(&mut e, c, "SORT people BY h_*->nosuch GET #"),
            "1) \"alice\"\n2) \"bob\"\n3) \"carol\""
        );
        // A hash read without ->field, or a string read with one, is missing.
        assert_eq!(
            cli(&mut e, c, "SORT people BY nosort GET h_*"),
            "1) (nil)\n2) (nil)\n3) (nil)"
        );
    }

    #[test]
    fn store_writes_a_list_and_replays_as_del_then_rpush() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let c = e.connect();
        cli(&mut e, c, "ZADD z 2 b 1 a");
        e.take_effects();
        assert_eq!(cli(&mut e, c, "SORT z ALPHA STORE dst"), "(integer) 2");
        assert_eq!(cli(&mut e, c, "LRANGE dst 0 -1"), "1) \"a\"\n2) \"b\"");
        let effects: Vec<Vec<Vec<u8>>> = e.take_effects().into_iter().map(|x| x.argv).collect();
        assert_eq!(
            effects,
            vec![
                vec![b"DEL".to_vec(), b"dst".to_vec()],
                vec![
                    b"RPUSH".to_vec(),
                    b"dst".to_vec(),
                    b"a".to_vec(),
                    b"b".to_vec()
                ],
            ]
        );
    }
}
