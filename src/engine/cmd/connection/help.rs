//! The `HELP` reply of container commands, as Redis's `addReplyHelp` builds it.

use crate::engine::Reply;

/// A `<CMD> HELP` reply as Redis's `addReplyHelp` builds it: a title line, the given
/// lines, and the `HELP` entry, each a status reply.
///
/// The lines are written with [`help_lines!`](crate::help_lines), which leaves them out of
/// the browser build: there they come from the fetched `help.en.json`
/// (`engine::table::docs::help`, browser build only), and until it is in the reply says so.
pub fn help_reply(command: &str, lines: &[&'static str]) -> Reply {
    let mut out = Vec::with_capacity(lines.len() + 3);
    out.push(Reply::status(format!(
        "{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    )));
    #[cfg(target_arch = "wasm32")]
    {
        let _ = lines;
        match crate::engine::table::docs::help(command) {
            Some(fetched) => out.extend(fetched.into_iter().map(Reply::status)),
            None => out.push(Reply::status(
                "    (the subcommands' descriptions are still loading: ask again in a moment)",
            )),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    out.extend(lines.iter().map(|l| Reply::status(*l)));
    out.push(Reply::status("HELP"));
    out.push(Reply::status("    Prints this help."));
    Reply::Array(out)
}

/// The lines of a `HELP` reply: the list natively, nothing in the browser build, which
/// fetches them instead (see [`help_reply`]).
#[macro_export]
macro_rules! help_lines {
    ($($line:expr),* $(,)?) => {{
        #[cfg(not(target_arch = "wasm32"))]
        let lines: &[&str] = &[$($line),*];
        #[cfg(target_arch = "wasm32")]
        let lines: &[&str] = &[];
        lines
    }};
}
