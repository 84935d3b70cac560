//! The script debugger's view as plain data ([`DebugView`]), made from the engine's
//! [`Debugger`] after each action, so the pane shows it and host tests can read it.

use crate::app::console;
use crate::engine::busy::Debugger;
use crate::engine::cli::quote;

/// What the debugger view of a pane shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugView {
    /// The script's lines (line 1 first).
    pub lines: Vec<String>,
    /// Stopped before this line; `None` while the script runs (after Continue, or a step
    /// that takes longer than a slice).
    pub line: Option<i32>,
    /// KEYS and ARGV (`KEYS[1]`, …), then the locals in scope: name and value, values as
    /// Redis's debugger prints them (strings quoted).
    pub locals: Vec<(String, String)>,
    /// The `redis.call`s so far, oldest first.
    pub calls: Vec<CallView>,
}

/// One `redis.call` in the view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallView {
    /// The script's line it ran on.
    pub line: i32,
    /// The command as redis-cli would take it (`INCRBY counter 5`).
    pub command: String,
    /// Its reply as redis-cli prints it.
    pub reply: String,
}

impl DebugView {
    /// The view of `d`.
    #[inline(never)]
    pub fn of(d: &Debugger) -> DebugView {
        let body = String::from_utf8_lossy(&d.body);
        let mut locals: Vec<(String, String)> = Vec::new();
        for (name, list) in [("KEYS", &d.keys), ("ARGV", &d.argv)] {
            for (i, v) in list.iter().enumerate() {
                locals.push((format!("{name}[{}]", i + 1), quote(v)));
            }
        }
        let position = d.position.as_ref().filter(|_| d.stopped);
        if let Some(p) = position {
            locals.extend(p.locals.iter().cloned());
        }
        DebugView {
            lines: body.split('\n').map(str::to_string).collect(),
            line: position.map(|p| p.line),
            locals,
            calls: d
                .calls
                .iter()
                .map(|c| CallView {
                    line: c.line,
                    command: c
                        .argv
                        .iter()
                        .map(|a| console::arg(a))
                        .collect::<Vec<_>>()
                        .join(" "),
                    reply: c.reply.clone(),
                })
                .collect(),
        }
    }
}
