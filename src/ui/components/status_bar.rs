//! The line under the console: where the engine runs, the selected database and its size.

use yew::prelude::*;

use crate::ui::i18n::Lang;

/// Properties of [`StatusBar`].
#[derive(Properties, PartialEq)]
pub struct StatusBarProps {
    /// The current language.
    pub lang: Lang,
    /// The selected database.
    pub db: usize,
    /// Keys in the selected database (`DBSIZE`).
    pub keys: usize,
}

/// The status line.
#[component]
pub fn StatusBar(props: &StatusBarProps) -> Html {
    let s = props.lang.strings();
    html! {
        <footer class="status">
            <span class="dot" aria-hidden="true"></span>
            <span>{ s.engine_status }</span>
            <span class="spacer"></span>
            <span class="db">{ format!("db{}", props.db) }</span>
            <span>{ format!("{} {}", props.keys, if props.keys == 1 { s.key } else { s.keys }) }</span>
        </footer>
    }
}
