//! The root component: owns the [`State`] and wires the views to it.

use gloo_timers::callback::Interval;
use web_sys::HtmlElement;
use yew::prelude::*;

use super::components::command_line::CommandLine;
use super::components::header::Header;
use super::components::log::Log;
use super::components::status_bar::StatusBar;
use super::state::{Action, State};
use super::walkthrough::{use_walk_route, WalkthroughPage};

/// Active-expiry period: Redis's default `hz 10`.
pub const TICK_MS: u32 = 100;

/// The web app.
#[component]
pub fn App() -> Html {
    let state = use_reducer(State::boot);
    let input_ref = use_node_ref();
    let screen_ref = use_node_ref();
    // Walkthroughs hook: `#/walk…` shows them instead of the console.
    let walk_route = use_walk_route();

    // The engine's clock keeps running: expire keys actively, as redis-server does.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let interval = Interval::new(TICK_MS, move || dispatcher.dispatch(Action::Tick));
            move || drop(interval)
        });
    }

    // The document follows the UI language: `<html lang>` and the title.
    use_effect_with(state.lang, |lang| {
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Some(root) = doc.document_element() {
                let _ = root.set_attribute("lang", lang.tag());
            }
            doc.set_title(lang.strings().title);
        }
    });

    // Ready to type as soon as the page shows.
    {
        let input_ref = input_ref.clone();
        use_effect_with((), move |_| focus(&input_ref));
    }

    // Like a terminal, the newest output stays in view.
    {
        let screen_ref = screen_ref.clone();
        use_effect(move || {
            if let Some(screen) = screen_ref.cast::<HtmlElement>() {
                screen.set_scroll_top(screen.scroll_height());
            }
        });
    }

    let dispatcher = state.dispatcher();
    let on_action = Callback::from(move |a: Action| dispatcher.dispatch(a));
    let on_lang = on_action.reform(Action::SetLang);
    let on_example = {
        let on_action = on_action.clone();
        let input_ref = input_ref.clone();
        Callback::from(move |ex: String| {
            on_action.emit(Action::Input(ex));
            focus(&input_ref);
        })
    };
    // A click on the console focuses the command box, unless the user is selecting text.
    let on_screen_click = {
        let input_ref = input_ref.clone();
        Callback::from(move |_: MouseEvent| {
            let selecting = web_sys::window()
                .and_then(|w| w.get_selection().ok().flatten())
                .is_some_and(|s| !s.is_collapsed());
            if !selecting {
                focus(&input_ref);
            }
        })
    };

    let (db, keys) = {
        let engine = state.engine().borrow();
        let db = engine.client(state.client()).map_or(0, |c| c.db);
        let keys = engine.server().dbs.get(db).map_or(0, |d| d.len());
        (db, keys)
    };
    let s = state.lang.strings();

    if let Some(route) = walk_route {
        return html! {
            <div class="app">
                <Header lang={state.lang} on_lang={on_lang.clone()} />
                <WalkthroughPage {route} lang={state.lang} {on_lang} />
            </div>
        };
    }
    html! {
        <div class="app">
            <Header lang={state.lang} {on_lang} />
            <main class="console">
                <div class="screen" ref={screen_ref} onclick={on_screen_click}>
                    <Log entries={state.log.clone()} first_key={state.log_base} lang={state.lang} {on_example} />
                    <CommandLine
                        prompt={state.prompt()}
                        draft={state.draft.clone()}
                        hint={state.hint()}
                        label={s.command}
                        {on_action}
                        {input_ref}
                    />
                </div>
                <StatusBar lang={state.lang} {db} {keys} />
            </main>
        </div>
    }
}

fn focus(input_ref: &NodeRef) {
    if let Some(input) = input_ref.cast::<HtmlElement>() {
        let _ = input.focus();
    }
}
