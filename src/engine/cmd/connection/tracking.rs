//! CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO: client-side caching's commands
//! (Redis's `clientCommand`, the tracking parts). The state is
//! [`crate::engine::tracking`]; the messages [`crate::engine::core::invalidate`].

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::tracking::Options;
use crate::engine::{Ctx, Reply};

/// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX prefix …] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
///
/// Options are read first, in any order (an unknown one, or one missing its value, is a
/// syntax error; `REDIRECT` given twice, or naming no connected client, is refused at once),
/// then checked against each other and against the tracking already on, in Redis's order:
/// `PREFIX` needs `BCAST`; `BCAST` cannot be switched on or off, nor `OPTIN` and `OPTOUT`
/// swapped, without turning tracking off first; `OPTIN`/`OPTOUT` exclude `BCAST` and each
/// other; no two prefixes of the client may overlap. `ON` again keeps the prefixes and adds
/// the new ones. **O(1)**, plus O(prefixes) for `BCAST`.
pub(super) fn client_tracking(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let toggle = args.next_owned()?;
    let mut options = Options::default();
    let mut redirect: Option<i64> = None;
    let mut prefixes = Vec::new();
    while let Some(opt) = args.peek().map(<[u8]>::to_vec) {
        args.next_bytes()?;
        let more = args.remaining() > 0;
        if opt.eq_ignore_ascii_case(b"REDIRECT") && more {
            if redirect.is_some() {
                return Err(Error::Err(
                    "A client can only redirect to a single other client".into(),
                ));
            }
            let id = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
            let exists =
                u64::try_from(id).is_ok_and(|id| id == ctx.client.id || ctx.others.contains(id));
            if !exists {
                return Err(Error::Err(
                    "The client ID you want redirect to does not exist".into(),
                ));
            }
            redirect = Some(id);
        } else if opt.eq_ignore_ascii_case(b"BCAST") {
            options.bcast = true;
        } else if opt.eq_ignore_ascii_case(b"OPTIN") {
            options.optin = true;
        } else if opt.eq_ignore_ascii_case(b"OPTOUT") {
            options.optout = true;
        } else if opt.eq_ignore_ascii_case(b"NOLOOP") {
            options.noloop = true;
        } else if opt.eq_ignore_ascii_case(b"PREFIX") && more {
            prefixes.push(args.next_owned()?);
        } else {
            return Err(Error::Syntax);
        }
    }
    // Redis keeps the id as given: 0 means none.
    options.redirect = redirect.map_or(0, |id| id as u64);
    let id = ctx.client.id;
    if toggle.eq_ignore_ascii_case(b"on") {
        if !options.bcast && !prefixes.is_empty() {
            return Err(Error::Err(
                "PREFIX option requires BCAST mode to be enabled".into(),
            ));
        }
        if let Some(t) = ctx.srv.tracking.get(id) {
            if t.options.bcast != options.bcast {
                return Err(Error::Err("You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.".into()));
            }
        }
        if options.bcast && (options.optin || options.optout) {
            return Err(Error::Err(
                "OPTIN and OPTOUT are not compatible with BCAST".into(),
            ));
        }
        if options.optin && options.optout {
            return Err(Error::Err(
                "You can't specify both OPTIN mode and OPTOUT mode".into(),
            ));
        }
        if let Some(t) = ctx.srv.tracking.get(id) {
            if (options.optin && t.options.optout) || (options.optout && t.options.optin) {
                return Err(Error::Err("You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.".into()));
            }
        }
        if options.bcast {
            if let Err((new, other, existing)) = ctx.srv.tracking.check_prefixes(id, &prefixes) {
                let with = if existing {
                    "an existing prefix"
                } else {
                    "another provided prefix"
                };
                return Err(Error::Err(format!(
                    "Prefix '{}' overlaps with {with} '{}'. Prefixes for a single client must not overlap.",
                    c_str(&new),
                    c_str(&other)
                )));
            }
        }
        ctx.srv.tracking.enable(id, options, &prefixes);
    } else if toggle.eq_ignore_ascii_case(b"off") {
        ctx.srv.tracking.disable(id);
    } else {
        return Err(Error::Syntax);
    }
    Ok(Reply::ok())
}

/// CLIENT CACHING YES|NO: whether the next command (or transaction) of a client tracking
/// in `OPTIN` mode (`YES`) or `OPTOUT` mode (`NO`) remembers the keys it reads. **O(1).**
pub(super) fn client_caching(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let opt = args.next_bytes()?;
    let Some(t) = ctx.srv.tracking.get_mut(ctx.client.id) else {
        return Err(Error::Err("CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled".into()));
    };
    if opt.eq_ignore_ascii_case(b"yes") {
        if !t.options.optin {
            return Err(Error::Err(
                "CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.".into(),
            ));
        }
    } else if opt.eq_ignore_ascii_case(b"no") {
        if !t.options.optout {
            return Err(Error::Err(
                "CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.".into(),
            ));
        }
    } else {
        return Err(Error::Syntax);
    }
    t.caching = true;
    Ok(Reply::ok())
}

/// CLIENT GETREDIR: the client invalidations are redirected to, 0 for none, -1 when
/// tracking is off. **O(1).**
pub(super) fn client_getredir(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(redirect_of(ctx)))
}

fn redirect_of(ctx: &Ctx<'_>) -> i64 {
    ctx.srv
        .tracking
        .get(ctx.client.id)
        .map_or(-1, |t| t.options.redirect as i64)
}

/// CLIENT TRACKINGINFO: a map of `flags` (a set: `off`, or `on` and the options, in
/// Redis's order), `redirect` (as GETREDIR) and `prefixes` (in byte order). **O(prefixes).**
pub(super) fn client_trackinginfo(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let t = ctx.srv.tracking.get(ctx.client.id);
    let mut flags = vec![if t.is_some() { "on" } else { "off" }];
    if let Some(t) = t {
        let o = &t.options;
        for (on, name) in [
            (o.bcast, "bcast"),
            (o.optin, "optin"),
            (o.optin && t.caching, "caching-yes"),
            (o.optout, "optout"),
            (o.optout && t.caching, "caching-no"),
            (o.noloop, "noloop"),
            (t.broken_redirect, "broken_redirect"),
        ] {
            if on {
                flags.push(name);
            }
        }
    }
    let prefixes = t.map_or_else(Vec::new, |t| {
        t.prefixes.iter().map(|p| Reply::bulk(p)).collect()
    });
    Ok(Reply::Map(vec![
        (
            Reply::bulk(b"flags"),
            Reply::Set(
                flags
                    .into_iter()
                    .map(|f| Reply::bulk(f.as_bytes()))
                    .collect(),
            ),
        ),
        (Reply::bulk(b"redirect"), Reply::Integer(redirect_of(ctx))),
        (Reply::bulk(b"prefixes"), Reply::Array(prefixes)),
    ]))
}
