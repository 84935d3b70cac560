//! The command table's prose: each command's argument syntax, one-sentence summary, time
//! complexity and since-version, as `COMMAND DOCS`, the console's hints and `HELP`, and the
//! walkthroughs' cost lines show them.
//!
//! # Why it is not always in the rows
//! Natively the texts are fields of the rows ([`CommandRow::doc`](super::row::CommandRow::doc) stores them). The
//! browser build leaves them out of its wasm: summaries and complexities are 32 KB (9 KB
//! gzip) of data, syntaxes and versions 17 KB with their row fields (about 4 KB gzip), and
//! a wasm module's data, unlike its code, cannot be split off the console's first load
//! (`tools/wasm-split` moves functions only). There the app fetches
//! `www/i18n/help.en.json` once the console is interactive (`ui::console::load_help_en`)
//! and hands it to `install` (browser build only); until it arrives the texts read as
//! empty (no hint yet, `COMMAND DOCS` without arguments). `tests/help_en.rs` keeps that
//! file equal to the table, so the rows stay the one place they are written.
//!
//! Texts are keyed by the command's full name in lower case, a subcommand as
//! `container sub` (`config get`), as the Chinese file is.
//!
//! The containers' `HELP` replies (`CLIENT HELP`, `DEBUG HELP` …: 12 KB of text, 4 KB
//! gzip) go the same way: natively the handlers hold their lines, the browser build reads
//! them from the file's `help` map (`help`, browser build only).

use std::collections::BTreeMap;

use crate::engine::core::ctx::Command;

/// The prose of the whole table, by full name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prose {
    /// One sentence on what each command does.
    pub summary: BTreeMap<String, String>,
    /// Each command's time complexity.
    pub complexity: BTreeMap<String, String>,
    /// The arguments after each command's name, in Redis's documentation syntax.
    pub syntax: BTreeMap<String, String>,
    /// The Redis version that introduced each command.
    pub since: BTreeMap<String, String>,
    /// The lines of each container's `HELP` reply between its title and the closing
    /// `HELP` entry, joined by newlines, keyed by the command's name as the title spells it
    /// (`CLIENT`, `XINFO`). Natively they are in the handlers ([`help_lines`](crate::help_lines));
    /// `tests/help_en.rs` collects them by asking each command for its `HELP`.
    pub help: BTreeMap<String, String>,
}

/// The `HELP` lines of `command` ([`Prose::help`]) once fetched; `None` before.
#[cfg(target_arch = "wasm32")]
pub fn help(command: &str) -> Option<Vec<String>> {
    INSTALLED.with_borrow(|p| {
        let p = p.as_deref()?;
        Some(
            p.help
                .get(command)
                .map(|t| t.split('\n').map(str::to_string).collect())
                .unwrap_or_default(),
        )
    })
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The prose the app fetched, once [`install`]ed.
    static INSTALLED: std::cell::RefCell<Option<std::rc::Rc<Prose>>> =
        const { std::cell::RefCell::new(None) };
}

/// Makes `prose` the texts every later reading gets (the browser build, once fetched).
#[cfg(target_arch = "wasm32")]
pub fn install(prose: Prose) {
    INSTALLED.set(Some(std::rc::Rc::new(prose)));
}

/// Forgets the installed texts, as on a page that has not fetched them yet (for tests of
/// that state; the app never calls it).
#[cfg(target_arch = "wasm32")]
pub fn forget() {
    INSTALLED.set(None);
}

/// True once the texts can be read: always natively, after `install` in the browser.
pub fn available() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        INSTALLED.with_borrow(Option::is_some)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        true
    }
}

#[cfg(target_arch = "wasm32")]
fn installed(full_name: &str, pick: fn(&Prose) -> &BTreeMap<String, String>) -> String {
    INSTALLED.with_borrow(|p| {
        p.as_deref()
            .and_then(|p| pick(p).get(full_name).cloned())
            .unwrap_or_default()
    })
}

/// Defines the reader of one text of the rows: natively the row's field of that name, in
/// the browser the fetched map of that name ([`install`]), empty until it is in.
macro_rules! prose_text {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub fn $name(cmd: &Command, full_name: &str) -> String {
            #[cfg(target_arch = "wasm32")]
            {
                let _ = cmd;
                installed(full_name, |p| &p.$name)
            }
            #[cfg(not(target_arch = "wasm32"))]
            {
                let _ = full_name;
                cmd.$name.to_string()
            }
        }
    };
}

prose_text!(
    /// The summary of `cmd`, named `full_name` (`set`, `config get`).
    summary
);
prose_text!(
    /// The time complexity of `cmd`, named `full_name`.
    complexity
);
prose_text!(
    /// The argument syntax of `cmd` (`key value [NX | XX]`), named `full_name`.
    syntax
);
prose_text!(
    /// The Redis version that introduced `cmd`, named `full_name`.
    since
);

/// The prose of the commands `rows` and their subcommands (of the whole table, what
/// `help.en.json` holds).
#[cfg(not(target_arch = "wasm32"))]
pub fn all<'a>(rows: impl IntoIterator<Item = &'a Command>) -> Prose {
    let mut prose = Prose::default();
    let mut add = |name: String, c: &Command| {
        prose.summary.insert(name.clone(), c.summary.to_string());
        prose
            .complexity
            .insert(name.clone(), c.complexity.to_string());
        prose.syntax.insert(name.clone(), c.syntax.to_string());
        prose.since.insert(name, c.since.to_string());
    };
    for c in rows {
        add(c.name.to_string(), c);
        for s in c.subcommands {
            add(format!("{} {}", c.name, s.name), s);
        }
    }
    prose
}
