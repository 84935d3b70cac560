//! Everything the views reach outside themselves. Components go through these services
//! only, never through `crate::persist` or web APIs of their own.
//!
//! - [`engine`]: [`EngineService`](engine::EngineService), the one door to an engine. All
//!   commands go through it, and after each it hands the engine's write effects to the
//!   registered observers (persistence subscribes there).
//! - [`location`]: the page's address (the URL fragment's routes are [`crate::app::route`]).
//! - [`storage`]: small settings in `localStorage` (history, theme, language).
//! - [`persist`]: the workspace in IndexedDB (`crate::persist`): opening it, recording every
//!   write, the save status, and the workspace manager's operations.
//! - [`style`]: style sheets loaded when the first view that needs them opens.
//! - [`tabs`]: several tabs on one workspace — the leader runs it, the followers forward
//!   their commands to it and show a replica.
//!
//! [`perform`] carries out what the reducer asks for ([`Command`]).

use crate::app::state::Command;

pub mod engine;
pub mod location;
pub mod persist;
pub mod storage;
pub mod style;
pub mod tabs;

/// Carries out the reducer's commands, in order.
pub fn perform(commands: Vec<Command>) {
    for command in commands {
        match command {
            Command::Store { name, value } => storage::set(name, &value),
            Command::SaveHistory(history) => storage::set_later("history", move || {
                crate::app::script::history_text(&history)
            }),
            Command::Post(msg) => tabs::post(msg),
            Command::PostCommitted(msg) => tabs::send(msg),
        }
    }
}
