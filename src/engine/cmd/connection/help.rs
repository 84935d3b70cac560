//! The `HELP` reply of container commands, as Redis's `addReplyHelp` builds it.

use crate::engine::Reply;

/// A `<CMD> HELP` reply as Redis's `addReplyHelp` builds it: a title line, the given
/// lines, and the `HELP` entry, each a status reply.
pub fn help_reply(command: &str, lines: &[&str]) -> Reply {
    let mut out = Vec::with_capacity(lines.len() + 3);
    out.push(Reply::Status(format!(
        "{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    )));
    out.extend(lines.iter().map(|l| Reply::status(l)));
    out.push(Reply::status("HELP"));
    out.push(Reply::status("    Prints this help."));
    Reply::Array(out)
}
