//! Style sheets that only some views need, loaded when the first of them opens instead of
//! with the page: every byte before the console is interactive counts (see
//! `scripts/test.sh`, the first load).

use std::cell::RefCell;

use yew::Callback;

/// A sheet asked for: its address, whether it is in, and who waits for it meanwhile.
type Sheet = (&'static str, Option<()>, Vec<Callback<()>>);

thread_local! {
    /// The sheets asked for.
    static SHEETS: RefCell<Vec<Sheet>> = const { RefCell::new(Vec::new()) };
}

/// True once the sheet at `href` (relative to the page) has loaded.
pub fn loaded(href: &'static str) -> bool {
    SHEETS.with_borrow(|s| s.iter().any(|(h, done, _)| *h == href && done.is_some()))
}

/// Adds `<link rel="stylesheet" href=…>` to the document's head once, and calls `done` when
/// it has loaded (at once if it has). A sheet that fails to load counts as loaded (the
/// view then shows unstyled rather than not at all).
pub fn load(href: &'static str, done: Callback<()>) {
    let known = SHEETS.with_borrow_mut(|s| match s.iter_mut().find(|(h, ..)| *h == href) {
        Some((_, Some(()), _)) => Some(true),
        Some((_, None, waiting)) => {
            waiting.push(done.clone());
            Some(false)
        }
        None => {
            s.push((href, None, vec![done.clone()]));
            None
        }
    });
    match known {
        Some(true) => done.emit(()),
        Some(false) => {}
        None => insert(href),
    }
}

fn finish(href: &'static str) {
    let waiting = SHEETS.with_borrow_mut(|s| {
        s.iter_mut()
            .find(|(h, ..)| *h == href)
            .map(|(_, done, waiting)| {
                *done = Some(());
                std::mem::take(waiting)
            })
            .unwrap_or_default()
    });
    for w in waiting {
        w.emit(());
    }
}

fn insert(href: &'static str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return finish(href);
    };
    let (Ok(link), Some(head)) = (doc.create_element("link"), doc.head()) else {
        return finish(href);
    };
    let _ = link.set_attribute("rel", "stylesheet");
    let _ = link.set_attribute("href", href);
    gloo_events::EventListener::once(&link, "load", move |_| finish(href)).forget();
    gloo_events::EventListener::once(&link, "error", move |_| finish(href)).forget();
    let _ = head.append_child(&link);
}
