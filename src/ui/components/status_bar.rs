//! The line under the console: where the engine runs, the selected database and its size,
//! and with `maxmemory` set, memory against the limit and the keys evicted.

use yew::prelude::*;

use crate::engine::cmd::server::bytes_to_human;
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
    /// With `maxmemory` set: memory used and the limit.
    #[prop_or_default]
    pub memory: Option<Memory>,
}

/// Memory against `maxmemory`, for the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    /// `used_memory`, bytes.
    pub used: u64,
    /// `maxmemory`, bytes.
    pub max: u64,
    /// `evicted_keys`.
    pub evicted: u64,
    /// `maxmemory-policy`.
    pub policy: String,
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
            if let Some(m) = &props.memory {
                <span class={classes!("memory", (m.used > m.max).then_some("over"))}
                    title={format!("{} {}", s.memory_title, m.policy)}>
                    { format!("{} {} / {} · {} {}", s.memory, bytes_to_human(m.used),
                        bytes_to_human(m.max), m.evicted, s.evicted) }
                </span>
            }
            <span class="db">{ format!("db{}", props.db) }</span>
            <span>{ format!("{} {}", props.keys, if props.keys == 1 { s.key } else { s.keys }) }</span>
        </footer>
    }
}
