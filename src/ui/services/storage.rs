//! Small settings kept in `localStorage`: the console history, the theme, the language.
//!
//! Storage can be missing or refuse (private windows, quotas): every call then does nothing
//! and reads give `None`, so the app works the same, only forgetting across reloads.
//!
//! Hand-written on `web_sys::Storage` rather than `gloo-storage`: its `LocalStorage::raw()`
//! throws where the page has no `localStorage`, and its `get`/`set` go through serde_json,
//! which the first load does not carry otherwise.

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

/// A write waiting for [`set_later`]'s timer: the name and how to make the value.
type Pending = (&'static str, Box<dyn FnOnce() -> String>);

thread_local! {
    /// Writes waiting for [`set_later`]'s timer: the name and how to make the value.
    static PENDING: std::cell::RefCell<Vec<Pending>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The armed timer, if any.
    static TIMER: std::cell::RefCell<Option<gloo_timers::callback::Timeout>> =
        const { std::cell::RefCell::new(None) };
    /// True once the `pagehide` listener that flushes pending writes is installed.
    static HOOKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How long [`set_later`] waits, in ms: well after the frame that shows a reply.
pub const LATER_MS: u32 = 250;

/// Stores the value `make` returns under `name`, [`LATER_MS`] from now, off the path from
/// Enter to the reply on screen: `localStorage` writes are synchronous, and the history can
/// hold a line of megabytes (a pasted `MSET`). A later call for the same name replaces the
/// pending one; leaving the page (`pagehide`) writes everything pending at once.
pub fn set_later(name: &'static str, make: impl FnOnce() -> String + 'static) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        p.retain(|(n, _)| *n != name);
        p.push((name, Box::new(make)));
    });
    hook_pagehide();
    TIMER.with(|t| {
        let mut t = t.borrow_mut();
        if t.is_none() {
            *t = Some(gloo_timers::callback::Timeout::new(LATER_MS, flush));
        }
    });
}

/// Writes every pending [`set_later`] value now.
pub fn flush() {
    // Forgotten, not dropped: this may run inside that very timer's callback.
    if let Some(t) = TIMER.with(|t| t.borrow_mut().take()) {
        t.forget();
    }
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    for (name, make) in pending {
        set(name, &make());
    }
}

fn hook_pagehide() {
    if HOOKED.with(|h| h.replace(true)) {
        return;
    }
    if let Some(w) = web_sys::window() {
        // For the page's life.
        gloo_events::EventListener::new(&w, "pagehide", |_| flush()).forget();
    }
}
