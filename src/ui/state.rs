//! The app's state on the Yew side. [`State`] and its reducer are host code
//! ([`crate::app::state`], re-exported here); this file makes it a Yew [`Reducible`] whose
//! `reduce` carries out the [`Command`]s the reducer returns, through the services, and
//! builds the state the page starts with from the browser's settings.

use std::rc::Rc;

use yew::Reducible;

pub use crate::app::state::*;

use super::i18n::Lang;
use super::services::engine::EngineService;
use super::services::storage;

impl State {
    /// The state the page starts with: a fresh engine on the browser's clock, the
    /// browser's language (or the one chosen before), the saved history and theme.
    pub fn boot() -> State {
        let lang = match storage::get("lang").as_deref() {
            Some("en") => Lang::En,
            Some("zh-CN") => Lang::Zh,
            _ => Lang::detect(),
        };
        let history = storage::get("history")
            .map(|h| crate::app::script::history_from_text(&h))
            .unwrap_or_default();
        let theme = match storage::get("theme").as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => {
                let light = web_sys::window()
                    .and_then(|w| {
                        w.match_media("(prefers-color-scheme: light)")
                            .ok()
                            .flatten()
                    })
                    .is_some_and(|m| m.matches());
                if light {
                    Theme::Light
                } else {
                    Theme::Dark
                }
            }
        };
        let engine = EngineService::boot();
        if storage::get("cluster").as_deref() == Some("1") {
            let _ = engine.configure("cluster-enabled", "yes");
        }
        super::services::persist::connect(&engine);
        super::services::tabs::connect(&engine);
        State::with_service(engine, lang, history, theme)
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let (next, commands) = self.apply(action, &super::services::tabs::context());
        super::services::perform(commands);
        next
    }
}
