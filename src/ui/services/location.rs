//! The page's address: the one place the app reads or writes `location`, and listens for
//! it to change. What the fragment means is host code, [`crate::app::route`].

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::route::{Embed, Route};

fn location() -> Option<web_sys::Location> {
    web_sys::window().map(|w| w.location())
}

/// The fragment, with its `#` (empty when there is none).
pub fn hash() -> String {
    location().and_then(|l| l.hash().ok()).unwrap_or_default()
}

/// Where the fragment points.
pub fn route() -> Route {
    Route::parse(&hash())
}

/// The embed options when the page was opened as `#/embed?…`.
pub fn embed() -> Option<Embed> {
    match route() {
        Route::Embed(e) => Some(e),
        _ => None,
    }
}

/// Sets the fragment (without `#`), as a link to it would.
pub fn set_hash(fragment: &str) {
    if let Some(l) = location() {
        let _ = l.set_hash(fragment);
    }
}

/// Goes to `route`.
pub fn go(route: &Route) {
    set_hash(&route.fragment());
}

/// The query string, with its `?` (empty when there is none).
pub fn search() -> String {
    location().and_then(|l| l.search().ok()).unwrap_or_default()
}

/// The page's address without its fragment.
pub fn base_url() -> String {
    let href = location().and_then(|l| l.href().ok()).unwrap_or_default();
    href.split('#').next().unwrap_or("").to_string()
}

/// The page's path (`./` if unknown).
pub fn path() -> String {
    location()
        .and_then(|l| l.pathname().ok())
        .unwrap_or_else(|| "./".into())
}

/// Loads `href` (the page reloads there).
pub fn load(href: &str) {
    if let Some(l) = location() {
        let _ = l.set_href(href);
    }
}

/// Calls a function on every `hashchange` until dropped. A closure kept by hand rather than
/// gloo-events' `EventListener`: this one is set up at start-up, where gloo-events measured
/// 575 bytes gzip more on the first load.
pub struct HashListener {
    window: Option<web_sys::Window>,
    callback: Closure<dyn FnMut()>,
}

impl HashListener {
    /// Starts calling `f` when the fragment changes.
    pub fn new(f: impl FnMut() + 'static) -> HashListener {
        let callback = Closure::<dyn FnMut()>::new(f);
        let window = web_sys::window();
        if let Some(w) = &window {
            let _ =
                w.add_event_listener_with_callback("hashchange", callback.as_ref().unchecked_ref());
        }
        HashListener { window, callback }
    }
}

impl Drop for HashListener {
    fn drop(&mut self) {
        if let Some(w) = &self.window {
            let _ = w.remove_event_listener_with_callback(
                "hashchange",
                self.callback.as_ref().unchecked_ref(),
            );
        }
    }
}
