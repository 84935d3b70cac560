//! The web app (Yew, client-side rendered), compiled for `wasm32` only.
//!
//! The whole engine runs in the page: [`state::State`] owns an [`Engine`](crate::engine::Engine)
//! on the browser's clock, and a 100 ms timer runs its active-expiry cycle. The first screen
//! is a console that behaves like `redis-cli`.
//!
//! # Layout
//! - [`app`]: the root component; owns the state and wires views to it.
//! - [`state`]: [`State`](state::State) (a Yew `Reducible`) and its [`Action`](state::Action)s.
//! - [`components`]: views that take data and callbacks.
//! - [`i18n`]: every UI string, in English and Chinese.

pub mod app;
pub mod components;
pub mod i18n;
pub mod persist_hook;
pub mod state;

/// Opens the saved workspace (see [`persist_hook`]), then mounts the app into
/// `<div id="app">` (or `<body>` if there is none).
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        persist_hook::prepare().await;
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
