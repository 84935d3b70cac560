//! The page's address: the one place the app reads or writes `location` (the walkthroughs'
//! hash listener aside, `ui::walkthrough`). What the fragment means is host code,
//! [`crate::app::route`].

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
