//! The root component: owns the [`State`] and lays the views out.
//!
//! The header holds the section tabs ([`Tab`]); the workbench shows the keyspace browser,
//! the console panes side by side, and the value view. Another section (walkthroughs)
//! adds a [`Tab`] variant and an arm in [`App`]'s `match`.

use gloo_timers::callback::Interval;
use yew::prelude::*;

use super::components::browser::Browser;
use super::components::header::Header;
use super::components::pane::{ConsolePane, PaneStatus};
use super::components::status_bar::StatusBar;
use super::components::value_view::ValueView;
use super::state::{Action, State, Tab};
use super::walkthrough::{use_walk_route, WalkthroughPage};

/// Active-expiry period: Redis's default `hz 10`.
pub const TICK_MS: u32 = 100;

/// The web app.
#[component]
pub fn App() -> Html {
    let state = use_reducer(State::boot);
    // Walkthroughs: `#/walk…` shows them instead of the workbench.
    let walk_route = use_walk_route();

    // The engine's clock keeps running: expire keys actively, time out blocked clients.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let interval = Interval::new(TICK_MS, move || dispatcher.dispatch(Action::Tick));
            move || drop(interval)
        });
    }

    // The document follows the UI language and theme: `<html lang data-theme>`, the title.
    use_effect_with((state.lang, state.theme), |(lang, theme)| {
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Some(root) = doc.document_element() {
                let _ = root.set_attribute("lang", lang.tag());
                let _ = root.set_attribute("data-theme", theme.name());
            }
            doc.set_title(lang.strings().title);
        }
    });

    let dispatcher = state.dispatcher();
    let on_action = Callback::from(move |a: Action| dispatcher.dispatch(a));
    let s = state.lang.strings();
    let engine = state.engine().clone();
    let active_client = state.pane(state.ws.active).map_or(0, |p| p.client);
    let db = state.db_of(active_client);
    // Countdowns (TTLs, blocked clients) count whole seconds: the time of this render,
    // down to the second, so views that show no countdown skip re-rendering within it.
    let now_ms = engine.read(|e| e.server().clock.now_ms()).div_euclid(1000) * 1000;

    let content = match state.tab {
        Tab::Workbench => {
            let closable = state.ws.panes.len() > 1;
            let panes = state.ws.panes.iter().map(|p| {
                let status = engine.read(|e| PaneStatus {
                    blocked: e.server().blocking.get(p.client).map(|b| b.deadline_ms),
                    queued: e.client(p.client).and_then(|c| c.multi.as_ref()).map(|m| {
                        m.queue
                            .iter()
                            .map(|q| {
                                let words: Vec<&[u8]> = q.argv.iter().map(Vec::as_slice).collect();
                                super::console::line(&words)
                            })
                            .collect()
                    }),
                    subscribed: e.server().pubsub.total(p.client) > 0,
                });
                html! {
                    <ConsolePane key={p.id}
                        pane={p.clone()}
                        prompt={state.prompt(p.client)}
                        hint={state.hint(p.id)}
                        {status}
                        {now_ms}
                        lang={state.lang}
                        {closable}
                        active={p.id == state.ws.active}
                        on_action={on_action.clone()} />
                }
            });
            let add = on_action.reform(|_: MouseEvent| Action::AddPane);
            html! {
                <main class="workbench">
                    <Browser
                        rows={state.rows.clone()}
                        keys_version={state.keys_version}
                        total={state.ws.index.borrow().len()}
                        engine={engine.clone()}
                        {db}
                        {now_ms}
                        selected={state.view.as_ref().map(|v| v.key.clone())}
                        filter={state.filter.clone()}
                        delim={state.delim.clone()}
                        flat={state.flat}
                        lang={state.lang}
                        on_action={on_action.clone()} />
                    <div class="consoles">
                        <div class="panes">{ for panes }</div>
                        <button type="button" class="add-pane" onclick={add}>{ s.add_client }</button>
                    </div>
                    <ValueView view={state.view.clone()} venn={state.venn.clone()}
                        {now_ms} lang={state.lang} on_action={on_action.clone()} />
                </main>
            }
        }
    };

    let keys = state.ws.index.borrow().len();
    if let Some(route) = walk_route {
        return html! {
            <div class="app">
                <Header lang={state.lang} theme={state.theme} tab={state.tab} walk={true}
                    on_lang={on_action.reform(Action::SetLang)}
                    on_theme={on_action.reform(Action::SetTheme)}
                    on_tab={on_action.reform(Action::SetTab)} />
                <WalkthroughPage {route} lang={state.lang} on_lang={on_action.reform(Action::SetLang)} />
            </div>
        };
    }
    html! {
        <div class="app">
            <Header lang={state.lang} theme={state.theme} tab={state.tab} walk={false}
                on_lang={on_action.reform(Action::SetLang)}
                on_theme={on_action.reform(Action::SetTheme)}
                on_tab={on_action.reform(Action::SetTab)} />
            { content }
            <StatusBar lang={state.lang} {db} {keys} />
        </div>
    }
}
