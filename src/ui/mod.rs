//! The web app (Yew, client-side rendered), compiled for `wasm32` only.
//!
//! The whole engine runs in the page: [`state::State`] holds a workspace with an
//! [`Engine`](crate::engine::Engine) on the browser's clock, reached only through
//! [`services::engine::EngineService`], and a 100 ms timer runs its active-expiry cycle.
//! The workbench shows consoles that behave like `redis-cli` (several clients side by
//! side), a keyspace browser and live value views.
//!
//! # Layout
//! - [`app`]: the root component; owns the state and wires views to it.
//! - [`state`]: [`State`](state::State) (a Yew `Reducible`) and its [`Action`](state::Action)s.
//! - [`components`]: views that take data and callbacks.
//! - [`console`]: redis-cli's hints, Tab completion and `HELP`, from the command table.
//! - [`services`]: the engine service (all commands and their effects go through it) and
//!   browser storage.
//! - [`i18n`]: every UI string, in English and Chinese (the crate's [`crate::i18n`],
//!   re-exported here).
//! - [`tabs_hook`]: several tabs on one workspace — one runs it, the others forward their
//!   commands to it and show a replica.
//! - [`walkthrough`]: SQL and KV side by side (`#/walk…`), with the SQL worker's client.
//! - [`split`]: loads the second half of a release build's wasm after start-up.

pub mod app;
pub mod components;
pub mod console;
pub use crate::i18n;
pub mod persist_hook;
pub mod services;
pub mod share_view;
pub mod split;
pub mod state;
pub mod tabs_hook;
pub mod walkthrough;

/// Opens the saved workspace (see [`persist_hook`]), then mounts the app into
/// `<div id="app">` (or `<body>` if there is none).
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        persist_hook::prepare().await;
        tabs_hook::prepare();
        mount();
    });
}

fn mount() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<app::App>::with_root(root).render(),
        None => yew::Renderer::<app::App>::new().render(),
    };
}
