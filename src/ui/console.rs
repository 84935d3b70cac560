//! The browser's part of the console: fetching the Chinese `HELP` texts once, outside the
//! wasm. Hints, completion and `HELP` itself are host code in [`crate::app::console`],
//! re-exported here.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use yew::Callback;

pub use crate::app::console::*;

use super::i18n::Lang;

impl HelpZh {
    /// Reads the JSON file's three string maps; `None` if it is not such a file.
    pub fn from_json(text: &str) -> Option<HelpZh> {
        let file = js_sys::JSON::parse(text).ok()?;
        let section = |name: &str| -> Option<BTreeMap<String, String>> {
            let obj = js_sys::Reflect::get(&file, &name.into()).ok()?;
            let obj: js_sys::Object = obj.dyn_into().ok()?;
            // Inserted one by one (a later duplicate wins, as with `collect`): `collect`
            // would sort first, compiling one more copy of the standard sort into the app.
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
        };
        Some(HelpZh {
            summary: section("summary")?,
            complexity: section("complexity")?,
            groups: section("groups")?,
        })
    }
}

thread_local! {
    /// The Chinese help texts once fetched, shared by every state.
    static HELP_ZH: RefCell<Option<Rc<HelpZh>>> = const { RefCell::new(None) };
    /// A fetch is under way.
    static HELP_ZH_LOADING: Cell<bool> = const { Cell::new(false) };
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
        let help = fetch_help_zh().await;
        HELP_ZH_LOADING.set(false);
        if let Some(help) = help {
            let help = Rc::new(help);
            HELP_ZH.set(Some(help.clone()));
            done.emit(help);
        }
    });
}

async fn fetch_help_zh() -> Option<HelpZh> {
    let window = web_sys::window()?;
    let resp = JsFuture::from(window.fetch_with_str(HELP_ZH_URL))
        .await
        .ok()?;
    let resp: web_sys::Response = resp.dyn_into().ok()?;
    if !resp.ok() {
        return None;
    }
    let text = JsFuture::from(resp.text().ok()?).await.ok()?;
    HelpZh::from_json(&text.as_string()?)
}

/// A complexity text of the command table in `lang`: Chinese once the HELP texts have been
/// fetched ([`load_help_zh`]), the table's English until then.
pub fn complexity_text(en: &'static str, lang: Lang) -> String {
    let zh = (lang == Lang::Zh)
        .then(|| HELP_ZH.with_borrow(|h| h.as_ref().and_then(|h| h.complexity.get(en).cloned())))
        .flatten();
    zh.unwrap_or_else(|| en.to_string())
}
