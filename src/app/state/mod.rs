//! The app's state and the actions that change it.
//!
//! Every change goes through [`State::apply`] with an [`Action`], so the whole behaviour
//! (running lines in panes, history, completion, the keyspace browser, the value view, the
//! messages between tabs) is plain data, tested by `cargo test`. The reducer does no I/O:
//! what the browser must do — write a setting to `localStorage`, post a message to the
//! workspace's other tabs — comes back from [`State::apply`] as [`Command`]s, which the
//! Yew side (`ui::state`, `ui::services`) carries out. What the reducer needs to know of
//! the browser, this tab's part among the workspace's tabs, comes in as a [`TabCtx`].
//!
//! The data lives in a [`Workspace`]: one engine (behind its [`EngineService`](crate::app::engine::EngineService)), the
//! console panes connected to it as clients, and the key index the browser shows. The app
//! has one workspace today; nothing below assumes there is only one engine.
//!
//! Big or shared things (the engine, the key index, the tree rows) sit behind `Rc`, so
//! cloning the state for each action is cheap. Yew 0.23 skips re-rendering when a reducer
//! returns the very `Rc` it was given: a tick that changed nothing visible does that.
//!
//! # Files
//! - `model.rs`: the data — [`State`], [`Action`], [`Command`], [`TabCtx`], [`ViewData`].
//! - `pane.rs`: a pane ([`Pane`], its log [`Entry`]s) and its command line's actions
//!   ([`LineAction`]).
//! - `line.rs`: what the command line does: editing, history, completion, Ctrl+C.
//! - `run.rs`: running a line, and taking in what a command or a tick did.
//! - `view.rs`: the keyspace browser's rows and the value view.
//! - `remote.rs`: the leader's and the follower's side of the tabs protocol.
//! - `reduce.rs`: [`State::apply`], the reducer.

mod line;
mod model;
mod pane;
mod reduce;
mod remote;
mod run;
mod view;

pub use model::{
    prompt_for, Action, Command, RemoteClients, Shared, State, Tab, TabCtx, Theme, Venn, ViewData,
    Workspace, VIEW_LIMIT,
};
pub use pane::{Entry, LineAction, Pane, PaneId, MAX_HISTORY, MAX_LOG};
