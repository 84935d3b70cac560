//! Small settings kept in `localStorage`: the console history, the theme, the language.
//!
//! Storage can be missing or refuse (private windows, quotas): every call then does nothing
//! and reads give `None`, so the app works the same, only forgetting across reloads.

/// The key prefix of every item the app stores.
const PREFIX: &str = "kvlab.";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The stored value of `name`, if any.
pub fn get(name: &str) -> Option<String> {
    storage()?
        .get_item(&format!("{PREFIX}{name}"))
        .ok()
        .flatten()
}

/// Stores `value` under `name`; failures are ignored.
pub fn set(name: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(&format!("{PREFIX}{name}"), value);
    }
}
