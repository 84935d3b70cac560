//! CONFIG GET, SET, RESETSTAT, REWRITE and HELP over the parameter table of
//! [`crate::engine::config`].

use super::super::connection::help_reply;
use crate::engine::args::Args;
use crate::engine::config::{self, HIDDEN, IMMUTABLE, PROTECTED};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::glob;
use crate::engine::{Config, Ctx, Reply};
use std::collections::HashSet;

/// CONFIG GET parameter [parameter ...]
///
/// Each argument is an exact name or alias (any case; the reply uses it as given, and finds
/// hidden parameters too) or, when it has `*`, `?` or `[`, a case-insensitive glob pattern
/// over the names and aliases of the visible parameters. Replies a map of name → value
/// (a flat array in RESP2), each name once. Redis lists matches in its hash table's
/// order, which changes from run to run; we list them in table order.
pub(super) fn config_get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let cfg = &ctx.srv.config;
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for arg in args.rest() {
        let text = String::from_utf8_lossy(&arg).into_owned();
        if !text.contains(['[', '*', '?']) {
            if seen.contains(&text.to_ascii_lowercase()) {
                continue;
            }
            if let Some(p) = config::lookup(&arg) {
                seen.insert(text.to_ascii_lowercase());
                out.push((text, value_of(cfg, p)));
            }
            continue;
        }
        for p in config::PARAMS.iter().filter(|p| p.flags & HIDDEN == 0) {
            for key in std::iter::once(p.name).chain(p.alias) {
                if !seen.contains(key) && glob::matches(&arg, key.as_bytes(), true) {
                    seen.insert(key.to_string());
                    out.push((key.to_string(), value_of(cfg, p)));
                }
            }
        }
    }
    Ok(Reply::Map(
        out.into_iter()
            .map(|(k, v)| (Reply::Bulk(k.into_bytes()), Reply::Bulk(v.into_bytes())))
            .collect(),
    ))
}

fn value_of(cfg: &Config, p: &config::Param) -> String {
    let stored = cfg.get(p.name).unwrap_or(p.default);
    if p.name == "notify-keyspace-events" {
        // Stored losslessly; shown as Redis shows it (`A` hides `n`).
        return config::keyspace_event_string(cfg.keyspace_events());
    }
    stored.to_string()
}

/// CONFIG SET parameter value [parameter value ...]
///
/// All or nothing, checked in Redis's order: an odd argument count is a syntax error;
/// then every name is looked up and the first problem found wins — an unknown name
/// (`Unknown option or number of arguments for CONFIG SET - '<name>'`), an immutable or
/// protected parameter, or a name given twice (an alias counts as a name of its own, as in
/// Redis 7.0); then each value is checked against its parameter and the first bad one fails
/// the whole command (`CONFIG SET failed (possibly related to argument '<name>') -
/// <reason>`) with nothing changed. Values are applied in order, so a later alias wins.
pub(super) fn config_set(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let pairs = args.rest();
    if pairs.len() % 2 != 0 {
        return Err(Error::Syntax);
    }
    let mut chosen: Vec<(&'static str, &'static config::Param)> = Vec::new();
    for pair in pairs.chunks(2) {
        let given = c_str(&pair[0]);
        let Some((name, p)) = config::lookup_named(&pair[0]) else {
            return Err(Error::Err(format!(
                "Unknown option or number of arguments for CONFIG SET - '{given}'"
            )));
        };
        if p.flags & IMMUTABLE != 0 {
            return Err(set_failed(&given, "can't set immutable config"));
        } else if p.flags & PROTECTED != 0 {
            return Err(set_failed(&given, "can't set protected config"));
        } else if chosen.iter().any(|(n, _)| *n == name) {
            return Err(set_failed(&given, "duplicate parameter"));
        }
        chosen.push((name, p));
    }
    // Values are checked in order against the value the earlier pairs leave behind.
    let mut staged = ctx.srv.config.clone();
    for ((name, p), pair) in chosen.iter().zip(pairs.chunks(2)) {
        let current = value_of(&staged, p);
        match Config::normalize(p, &pair[1], &current) {
            Ok(v) => staged.set_normalized(p.name, v),
            Err(why) => return Err(set_failed(name, &why)),
        }
    }
    relisten(ctx, &staged, &chosen)?;
    if staged.get("requirepass") != ctx.srv.config.get("requirepass") {
        // The default user's password is `requirepass` (Redis's updateRequirePass).
        ctx.srv
            .acl
            .set_requirepass(staged.get("requirepass").unwrap_or(""));
    }
    ctx.srv.config = staged;
    Ok(Reply::ok())
}

/// Moves the host's listening sockets when `port` or `bind` changed (Redis's `updatePort`
/// and `applyBind`, which run after every value was set); if that fails, the error names
/// the first of the two given, with Redis's reason, and nothing is changed.
fn relisten(
    ctx: &mut Ctx<'_>,
    staged: &Config,
    chosen: &[(&'static str, &'static config::Param)],
) -> Result<(), Error> {
    let changed = |name: &str| staged.get(name) != ctx.srv.config.get(name);
    if !changed("port") && !changed("bind") {
        return Ok(());
    }
    let Some(relisten) = ctx.srv.relisten.as_mut() else {
        return Ok(());
    };
    let binds: Vec<String> = staged
        .get("bind")
        .unwrap_or("")
        .split(' ')
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .collect();
    let port = u16::try_from(staged.int("port")).unwrap_or(0);
    if relisten(&binds, port).is_ok() {
        return Ok(());
    }
    let (name, why) = chosen
        .iter()
        .find_map(|(name, p)| match p.name {
            "port" => Some((*name, "Unable to listen on this port. Check server logs.")),
            "bind" => Some((*name, "Failed to bind to specified addresses.")),
            _ => None,
        })
        .unwrap_or(("port", "Unable to listen on this port. Check server logs."));
    Err(set_failed(name, why))
}

fn set_failed(name: &str, why: &str) -> Error {
    Error::Err(format!(
        "CONFIG SET failed (possibly related to argument '{name}') - {why}"
    ))
}

/// CONFIG RESETSTAT: zeroes the counters INFO reports (commands, connections, expired
/// keys, hits and misses, the per-command counts, the error replies and their codes).
pub(super) fn config_resetstat(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    // The histograms go with the counts (they share an entry).
    ctx.srv.stats.reset();
    Ok(Reply::ok())
}

/// CONFIG REWRITE: there is no configuration file, so this fails as Redis does without one.
pub(super) fn config_rewrite(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Err(Error::Err(
        "The server is running without a config file".into(),
    ))
}

/// CONFIG HELP
pub(super) fn config_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "CONFIG",
        crate::help_lines![
            "GET <pattern>",
            "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>",
            "    Set the configuration <directive> to <value>.",
            "RESETSTAT",
            "    Reset statistics reported by the INFO command.",
            "REWRITE",
            "    Rewrite the configuration file.",
        ],
    ))
}
