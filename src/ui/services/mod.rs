//! Everything the views reach outside themselves: the engine and the browser's storage.
//!
//! - [`engine`]: [`EngineService`](engine::EngineService), the one door to an engine. All
//!   commands go through it, and after each it hands the engine's write effects to the
//!   registered observers (persistence subscribes there).
//! - [`location`]: the page's address (the URL fragment's routes are [`crate::app::route`]).
//! - [`storage`]: small settings in `localStorage` (history, theme, language).
//!
//! [`perform`] carries out what the reducer asks for ([`Command`]).

use crate::app::state::Command;

pub mod engine;
pub mod location;
pub mod storage;

/// Carries out the reducer's commands, in order.
pub fn perform(commands: Vec<Command>) {
    for command in commands {
        match command {
            Command::Store { name, value } => storage::set(name, &value),
            Command::SaveHistory(history) => {
                storage::set_later("history", move || history.join("\n"))
            }
            Command::Post(msg) => super::tabs_hook::post(msg),
            Command::PostCommitted(msg) => super::tabs_hook::send(msg),
        }
    }
}
