//! Every text the app shows, in English and Simplified Chinese: the one place they live.
//!
//! Texts are data, grouped by where they show, and rendered per [`Lang`]:
//! - fixed texts are fields of a table struct with one `const` per language, so the two
//!   stay in step (a missing one is a compile error): [`Strings`] for the workbench
//!   ([`strings`]), [`WalkStrings`] for the walkthrough page ([`walk`]), [`ConsoleStrings`]
//!   for the console ([`console`]), and one per part of the workbench: [`TabStrings`]
//!   ([`tabs`]), [`ShareStrings`] and [`EmbedStrings`] ([`share`]), [`WorkspaceStrings`] and
//!   [`PersistStrings`] ([`workspace`]), [`HelpStrings`] ([`help`]), [`ScriptStrings`]
//!   ([`script`], the script editor), [`DebugStrings`] ([`debug`], its debugger), [`RdbStrings`]
//!   ([`rdb`], dump.rdb import and export), each reached through a
//!   method of [`Lang`] (`lang.tabs()`, `lang.share()`, …);
//! - texts that take a value are enum variants with their parameters, whose `text(lang)`
//!   has one arm per language: [`WalkMsg`] (what is wrong with a walkthrough file, made by
//!   [`crate::walk`]) and [`WalkText`] (the walkthrough page's counts and labels).
//!
//! Redis's own replies (`(error) ERR …`, `Invalid argument(s)`) are never translated — they
//! are what a real `redis-cli` prints. The Chinese `HELP` texts of the commands are data of
//! their own (`www/i18n/help.zh-CN.json`, fetched when the console first needs them).
//!
//! This module has no web dependencies (only `Lang::detect` reads the browser), so its
//! rendering is tested by plain `cargo test`; the web app reaches it as `crate::ui::i18n`.

pub mod console;
pub mod debug;
pub mod help;
mod lang;
pub mod rdb;
pub mod script;
pub mod share;
pub mod strings;
pub mod tabs;
pub mod walk;
pub mod workspace;

pub use console::ConsoleStrings;
pub use debug::DebugStrings;
pub use help::HelpStrings;
pub use lang::Lang;
pub use rdb::{rdb_error_text, RdbStrings};
pub use script::ScriptStrings;
pub use share::{share_error_text, EmbedStrings, ShareStrings};
pub use strings::Strings;
pub use tabs::TabStrings;
pub use walk::{WalkMsg, WalkStrings, WalkText};
pub use workspace::{PersistStrings, WorkspaceStrings};

#[cfg(test)]
mod tests {
    use super::*;

    /// No text of a table is empty, in either language (`Debug` lists every field).
    #[test]
    fn every_fixed_text_is_written_in_both_languages() {
        for lang in [Lang::En, Lang::Zh] {
            for table in [
                format!("{:?}", lang.strings()),
                format!("{:?}", lang.walk()),
                format!("{:?}", lang.console()),
                format!("{:?}", lang.tabs()),
                format!("{:?}", lang.share()),
                format!("{:?}", lang.embed()),
                format!("{:?}", lang.workspaces()),
                format!("{:?}", lang.persist()),
                format!("{:?}", lang.help()),
                format!("{:?}", lang.script()),
                format!("{:?}", lang.rdb()),
            ] {
                assert!(
                    !table.contains(": \"\""),
                    "{lang:?}: an empty text in {table}"
                );
            }
        }
    }

    #[test]
    fn tags_pick_the_language() {
        assert_eq!(Lang::from_tag("zh-TW"), Lang::Zh);
        assert_eq!(Lang::from_tag("ZH"), Lang::Zh);
        assert_eq!(Lang::from_tag("en-GB"), Lang::En);
        assert_eq!(Lang::from_tag(""), Lang::En);
        assert_eq!(Lang::Zh.tag(), "zh-CN");
        assert_eq!(Lang::En.other(), Lang::Zh);
    }
}
