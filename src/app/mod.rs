//! The web app as plain data, compiled for the host and for `wasm32`.
//!
//! Everything here is tested by plain `cargo test`: no DOM, no `localStorage`, no
//! `BroadcastChannel`. The Yew side (`src/ui`) renders this data and carries out what the
//! reducer asks for ([`state::Command`]) through its services.
//!
//! - [`state`]: [`State`](state::State), its [`Action`](state::Action)s and the reducer,
//!   [`State::apply`](state::State::apply), which returns its side effects as
//!   [`Command`](state::Command)s instead of performing them.
//! - [`engine`]: [`EngineService`](engine::EngineService), the one door to an engine.
//! - [`route`]: the URL fragment's routes, parsed and written in one place.
//! - [`share`]: share links and Try-it links (the payloads of two routes).
//! - [`console`]: redis-cli's hints, Tab completion and `HELP`, from the command table.
//! - [`script`]: multi-line Lua scripts in the console: the editor's `EVAL` line, pasted
//!   commands, the Lua highlighter.
//! - [`units`]: byte counts and milliseconds as the page shows them.

pub mod console;
pub mod debug;
pub mod engine;
pub mod route;
pub mod script;
pub mod share;
pub mod state;
pub mod units;
