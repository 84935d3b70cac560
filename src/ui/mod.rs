//! The web app (Yew, client-side rendered), compiled for `wasm32` only: the views and the
//! services that do the browser work. What the app *is* — its state, reducer, routes and
//! strings — is host code in [`crate::app`] and [`crate::i18n`].
//!
//! The whole engine runs in the page: [`state::State`] holds a workspace with an
//! [`Engine`](crate::engine::Engine) on the browser's clock, reached only through
//! [`services::engine::EngineService`], and a 100 ms timer runs its active-expiry cycle.
//! The workbench shows consoles that behave like `redis-cli` (several clients side by
//! side), a keyspace browser and live value views.
//!
//! # Layout
//! - [`app`]: the root component; owns the state and wires views to it.
//! - [`state`]: [`State`](state::State) as a Yew `Reducible`: the reducer is host code
//!   ([`crate::app::state`]); its `reduce` has the services carry out what it returns.
//! - [`components`]: views that take data and callbacks.
//! - [`console`]: fetching the Chinese `HELP` texts (hints, completion and `HELP` are
//!   [`crate::app::console`]).
//! - [`services`]: everything outside the views — the engine service, `localStorage`, the
//!   page's address, persistence (IndexedDB) and the other tabs of the workspace; they
//!   carry out the reducer's [`Command`](crate::app::state::Command)s.
//! - [`i18n`]: every UI string, in English and Chinese (the crate's [`crate::i18n`],
//!   re-exported here).
//! - [`walkthrough`]: SQL and KV side by side (`#/walk…`), with the SQL worker's client.
//! - [`split`]: loads the second half of a release build's wasm after start-up.

pub mod app;
pub mod components;
pub mod console;
pub use crate::i18n;
pub mod services;
pub mod share_view;
pub mod split;
pub mod state;
pub mod walkthrough;

/// Opens the saved workspace (see [`services::persist`]), then mounts the app into
/// `<div id="app">` (or `<body>` if there is none).
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        services::persist::prepare().await;
        services::tabs::prepare();
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
