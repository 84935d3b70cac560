//! The browser's part of the console: fetching the `HELP` texts once, outside the wasm
//! (the command table's English prose and the Chinese texts). Hints, completion and `HELP` itself are host code in [`crate::app::console`],
//! re-exported here.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use yew::Callback;

pub use crate::app::console::*;

use super::i18n::Lang;
use crate::engine::table::docs;

/// The object `name` of a parsed JSON file as a map of its string members (others are
/// skipped); `None` if there is no such object.
fn string_map(file: &wasm_bindgen::JsValue, name: &str) -> Option<BTreeMap<String, String>> {
    let obj = js_sys::Reflect::get(file, &name.into()).ok()?;
    let obj: js_sys::Object = obj.dyn_into().ok()?;
    // Inserted one by one (a later duplicate wins, as with `collect`): `collect` would
    // sort first, compiling one more copy of the standard sort into the app.
    let mut map = BTreeMap::new();
    for pair in js_sys::Object::entries(&obj).iter() {
        let Ok(pair) = pair.dyn_into::<js_sys::Array>() else {
            continue;
        };
        if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            map.insert(k, v);
        }
    }
    Some(map)
}

impl HelpZh {
    /// Reads the JSON file's three string maps; `None` if it is not such a file.
    pub fn from_json(text: &str) -> Option<HelpZh> {
        let file = js_sys::JSON::parse(text).ok()?;
        Some(HelpZh {
            summary: string_map(&file, "summary")?,
            complexity: string_map(&file, "complexity")?,
            groups: string_map(&file, "groups")?,
        })
    }
}

/// Reads `help.en.json`: the command table's prose (see `engine::table::docs`).
pub fn prose_from_json(text: &str) -> Option<docs::Prose> {
    let file = js_sys::JSON::parse(text).ok()?;
    Some(docs::Prose {
        summary: string_map(&file, "summary")?,
        complexity: string_map(&file, "complexity")?,
        syntax: string_map(&file, "syntax")?,
        since: string_map(&file, "since")?,
        help: string_map(&file, "help")?,
    })
}

thread_local! {
    /// The Chinese help texts once fetched, shared by every state.
    static HELP_ZH: RefCell<Option<Rc<HelpZh>>> = const { RefCell::new(None) };
    /// A fetch is under way.
    static HELP_ZH_LOADING: Cell<bool> = const { Cell::new(false) };
    /// A fetch of the English prose is under way.
    static HELP_EN_LOADING: Cell<bool> = const { Cell::new(false) };
}

/// Fetches the Chinese help texts once and hands them to `done` (at once if already
/// fetched). A failed fetch is forgotten, so the next need tries again; until then HELP
/// stays in English.
pub fn load_help_zh(done: Callback<Rc<HelpZh>>) {
    if let Some(help) = HELP_ZH.with_borrow(Clone::clone) {
        done.emit(help);
        return;
    }
    if HELP_ZH_LOADING.replace(true) {
        return;
    }
    spawn_local(async move {
        let help = fetch_text(HELP_ZH_URL)
            .await
            .and_then(|t| HelpZh::from_json(&t));
        HELP_ZH_LOADING.set(false);
        if let Some(help) = help {
            let help = Rc::new(help);
            HELP_ZH.set(Some(help.clone()));
            done.emit(help);
        }
    });
}

/// Fetches the command table's English prose once (`engine::table::docs`: kept out of
/// the wasm), installs it, and calls `done` (at once if it is in). Every page fetches it
/// as soon as it is on screen; a failed fetch is forgotten, so the next call tries again.
pub fn load_help_en(done: Callback<()>) {
    if docs::available() {
        done.emit(());
        return;
    }
    if HELP_EN_LOADING.replace(true) {
        return;
    }
    spawn_local(async move {
        let prose = fetch_text(HELP_EN_URL)
            .await
            .and_then(|t| prose_from_json(&t));
        HELP_EN_LOADING.set(false);
        if let Some(prose) = prose {
            docs::install(prose);
            done.emit(());
        }
    });
}

async fn fetch_text(url: &str) -> Option<String> {
    let window = web_sys::window()?;
    let resp = JsFuture::from(window.fetch_with_str(url)).await.ok()?;
    let resp: web_sys::Response = resp.dyn_into().ok()?;
    if !resp.ok() {
        return None;
    }
    JsFuture::from(resp.text().ok()?).await.ok()?.as_string()
}

/// A complexity text of the command table in `lang`: Chinese once the HELP texts have been
/// fetched ([`load_help_zh`]), the table's English until then.
pub fn complexity_text(en: &str, lang: Lang) -> String {
    let zh = (lang == Lang::Zh)
        .then(|| HELP_ZH.with_borrow(|h| h.as_ref().and_then(|h| h.complexity.get(en).cloned())))
        .flatten();
    zh.unwrap_or_else(|| en.to_string())
}
