//! The `ACL SETUSER` rules (Redis's `ACLSetUser` and `ACLSetSelector`), applied to a user
//! one at a time; an error is the reason text `ACL SETUSER` puts after the modifier.
//!
//! Not supported: selectors `(...)` and `clearselectors`, and first arguments of a command
//! that is not a container (`+select|0`, deprecated in Redis) — both answer `Syntax error`.

use super::RowHandler;
use super::{sha256_hex, KeyPattern, User, CATEGORIES};
use crate::engine::table::row::Table as RowTable;
use crate::engine::table::CommandRow;

/// `Syntax error`.
pub const SYNTAX: &str = "Syntax error";
/// An unknown command or category.
pub const UNKNOWN: &str = "Unknown command or category name in ACL";
/// A key pattern after `allkeys`.
pub const AFTER_ALLKEYS: &str = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
/// A channel pattern after `allchannels`.
pub const AFTER_ALLCHANNELS: &str = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels";
/// `<pass` or `!hash` for a password the user does not have.
pub const NO_SUCH_PASSWORD: &str =
    "The password you are trying to remove from the user does not exist";
/// A `#hash` that is not 64 lowercase hex digits.
pub const BAD_HASH: &str =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
/// `+cmd|sub|arg`.
pub const SUBCOMMAND_FIRSTARG: &str = "Allowing first-arg of a subcommand is not supported";

fn is(op: &[u8], word: &str) -> bool {
    op.eq_ignore_ascii_case(word.as_bytes())
}

fn has_spaces(s: &[u8]) -> bool {
    s.iter().any(|&c| c.is_ascii_whitespace() || c == 0)
}

fn check_hash(h: &[u8]) -> Result<String, &'static str> {
    if h.len() != 64 || !h.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(BAD_HASH);
    }
    Ok(String::from_utf8_lossy(h).into_owned())
}

/// A command or `container|subcommand` by name, as Redis's `ACLLookupCommand`.
fn lookup<H: RowHandler>(
    table: &'static RowTable<H>,
    name: &[u8],
) -> Option<&'static CommandRow<H>> {
    let mut parts = name.split(|&c| c == b'|');
    let top = table.lookup(parts.next()?)?;
    match (parts.next(), parts.next()) {
        (None, _) => Some(top),
        (Some(sub), None) if !top.subcommands.is_empty() => top.subcommand(sub),
        _ => None,
    }
}

/// Applies one rule to `u`.
pub fn apply<H: RowHandler>(
    u: &mut User,
    table: &'static RowTable<H>,
    op: &[u8],
) -> Result<(), &'static str> {
    if is(op, "on") {
        u.enabled = true;
    } else if is(op, "off") {
        u.enabled = false;
    } else if is(op, "skip-sanitize-payload") {
        u.sanitize = Some(false);
    } else if is(op, "sanitize-payload") {
        u.sanitize = Some(true);
    } else if is(op, "nopass") {
        u.nopass = true;
        u.passwords.clear();
    } else if is(op, "resetpass") {
        u.nopass = false;
        u.passwords.clear();
    } else if let Some((&first, rest)) = op.split_first().filter(|(c, _)| b"><#!".contains(c)) {
        let hash = if first == b'>' || first == b'<' {
            sha256_hex(rest)
        } else {
            check_hash(rest)?
        };
        if first == b'>' || first == b'#' {
            if !u.passwords.contains(&hash) {
                u.passwords.push(hash);
            }
            u.nopass = false;
        } else {
            let at = u.passwords.iter().position(|h| *h == hash);
            u.passwords.remove(at.ok_or(NO_SUCH_PASSWORD)?);
        }
    } else if is(op, "reset") {
        for r in [
            "resetpass",
            "resetkeys",
            "resetchannels",
            "off",
            "sanitize-payload",
            "-@all",
        ] {
            apply(u, table, r.as_bytes())?;
        }
    } else {
        apply_selector(u, table, op)?;
    }
    Ok(())
}

/// The rules of Redis's root selector: keys, channels, commands.
fn apply_selector<H: RowHandler>(
    u: &mut User,
    table: &'static RowTable<H>,
    op: &[u8],
) -> Result<(), &'static str> {
    if op.is_empty() {
        return Err(SYNTAX);
    }
    if is(op, "allkeys") || is(op, "~*") {
        u.all_keys = true;
        u.keys.clear();
    } else if is(op, "resetkeys") {
        u.all_keys = false;
        u.keys.clear();
    } else if is(op, "allchannels") || is(op, "&*") {
        u.all_channels = true;
        u.channels.clear();
    } else if is(op, "resetchannels") {
        u.all_channels = false;
        u.channels.clear();
    } else if is(op, "allcommands") || is(op, "+@all") {
        u.allow_all(table);
    } else if is(op, "nocommands") || is(op, "-@all") {
        u.allowed.clear();
        u.all_commands = false;
        u.future = false;
    } else if op[0] == b'~' || op[0] == b'%' {
        if u.all_keys {
            return Err(AFTER_ALLKEYS);
        }
        let (mut read, mut write, mut at) = (false, false, 1);
        if op[0] == b'%' {
            let mut ok = true;
            while at < op.len() {
                let c = op[at].to_ascii_uppercase();
                at += 1;
                if c == b'R' && !read {
                    read = true;
                } else if c == b'W' && !write {
                    write = true;
                } else if c == b'~' {
                    break;
                } else {
                    ok = false;
                    break;
                }
            }
            if !ok || !(read || write) {
                return Err(SYNTAX);
            }
        } else {
            (read, write) = (true, true);
        }
        let pattern = &op[at..];
        if has_spaces(pattern) {
            return Err(SYNTAX);
        }
        match u.keys.iter_mut().find(|p| p.pattern == pattern) {
            Some(p) => {
                p.read |= read;
                p.write |= write;
            }
            None => u.keys.push(KeyPattern {
                pattern: pattern.to_vec(),
                read,
                write,
            }),
        }
    } else if op[0] == b'&' {
        if u.all_channels {
            return Err(AFTER_ALLCHANNELS);
        }
        let pattern = &op[1..];
        if has_spaces(pattern) {
            return Err(SYNTAX);
        }
        if !u.channels.iter().any(|c| c == pattern) {
            u.channels.push(pattern.to_vec());
        }
    } else if op.len() > 1 && (op[0] == b'+' || op[0] == b'-') && op[1] == b'@' {
        let name = String::from_utf8_lossy(&op[2..]).to_ascii_lowercase();
        let cat = CATEGORIES.iter().find(|c| **c == name).ok_or(UNKNOWN)?;
        u.set_category(table, cat, op[0] == b'+');
    } else if op[0] == b'-' {
        let cmd = lookup(table, &op[1..]).ok_or(UNKNOWN)?;
        u.set_row(cmd, false);
    } else if op[0] == b'+' {
        let name = &op[1..];
        match name.iter().rposition(|&c| c == b'|') {
            None => {
                let cmd = lookup(table, name).ok_or(UNKNOWN)?;
                u.set_row(cmd, true);
            }
            Some(bar) => {
                let parent = lookup(table, &name[..bar]).ok_or(UNKNOWN)?;
                if name[..bar].contains(&b'|') {
                    return Err(SUBCOMMAND_FIRSTARG);
                }
                if bar + 1 == name.len() || parent.subcommands.is_empty() {
                    // An empty subcommand; or a first argument, not supported here.
                    return Err(SYNTAX);
                }
                let cmd = lookup(table, name).ok_or(UNKNOWN)?;
                u.set_row(cmd, true);
            }
        }
    } else {
        return Err(SYNTAX);
    }
    Ok(())
}
