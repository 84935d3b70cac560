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
use super::components::status_bar::{Memory, StatusBar};
use super::components::value_view::ValueView;
use super::components::workspaces::Workspaces;
use super::services::engine::EngineService;
use super::services::location;
use super::share_view::{ShareBox, SharePage};
use super::state::{Action, Pane, State, Tab};
use super::walkthrough::{use_walk_route, WalkRoute, WalkthroughPage};
use crate::app::route::{Embed, Route};
use crate::tabs::{blocked_until, WaitsFor};

/// Active-expiry period: Redis's default `hz 10`.
pub const TICK_MS: u32 = 100;

/// The web app.
#[component]
pub fn App() -> Html {
    let state = use_reducer(State::boot);
    // Walkthroughs: `#/walk…` shows them instead of the workbench.
    let walk_route = use_walk_route();
    // Embed mode (`#/embed?…`, inside a tutorial's iframe) is fixed for the page's life.
    let embed = use_memo((), |_| location::embed());
    // A share link (`#/share?s=…`) or a Try-it link (`#/try?commands=…`) shows what it
    // would run until run or cancelled: (the link, is it a Try-it link, autorun).
    let share_route = use_state(|| match location::route() {
        Route::Share(r) => Some((r, false, false)),
        Route::Try { link, autorun } => Some((link, true, autorun)),
        _ => None,
    });

    // The engine's clock keeps running: expire keys actively, time out blocked clients.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let interval = Interval::new(TICK_MS, move || dispatcher.dispatch(Action::Tick));
            move || drop(interval)
        });
    }

    // A script that paused runs on slice by slice, each after the page has repainted, so
    // the page stays usable (other panes get BUSY past busy-reply-threshold, Ctrl+C or
    // SCRIPT KILL reach it).
    {
        let dispatcher = state.dispatcher();
        use_effect_with(state.script_slice, move |slice| {
            let next = (*slice > 0).then(|| {
                gloo_timers::callback::Timeout::new(0, move || {
                    dispatcher.dispatch(Action::ResumeScript)
                })
            });
            move || drop(next)
        });
    }

    // Once the workbench is on screen, the rest of a split build's wasm loads behind it.
    use_effect_with((), |_| super::split::load_in_background());

    // Messages from the workspace's other tabs reach the state (see `ui::services::tabs`).
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            super::services::tabs::set_dispatch(std::rc::Rc::new(move |a| dispatcher.dispatch(a)));
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
        super::services::persist::set_lang(*lang);
    });

    // The command table's English prose (HELP, COMMAND DOCS): fetched once the page is on
    // screen, outside the wasm (see `engine::table::docs`).
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            super::console::load_help_en(Callback::from(move |()| {
                dispatcher.dispatch(Action::HelpTexts)
            }));
        });
    }

    // Chinese HELP texts: fetched (once, outside the wasm) when Chinese mode first needs them.
    {
        let dispatcher = state.dispatcher();
        use_effect_with(state.wants_help_zh(), move |wants| {
            if *wants {
                super::console::load_help_zh(Callback::from(move |help| {
                    dispatcher.dispatch(Action::HelpZh(help))
                }));
            }
        });
    }

    // One callback for the page's life (the dispatcher never changes): views whose other
    // props are unchanged skip re-rendering, so a read-only command (a GET) re-renders only
    // the console pane it ran in, not the keyspace browser or the value view.
    let on_action = use_callback(state.dispatcher(), |a: Action, d| d.dispatch(a));
    let s = state.lang.strings();
    let engine = state.engine().clone();
    let active_client = state.pane(state.ws.active).map_or(0, |p| p.client);
    let db = state.db_of(active_client);
    // Countdowns (TTLs, blocked clients) count whole seconds: the time of this render,
    // down to the second, so views that show no countdown skip re-rendering within it.
    let now_ms = engine.read(|e| e.server().clock.now_ms()).div_euclid(1000) * 1000;

    if let Some(e) = embed.as_ref() {
        return html! { <EmbedApp embed={e.clone()} state={state.clone()} /> };
    }

    if let Some((shared, try_link, autorun)) = (*share_route).clone() {
        let on_done = {
            let share_route = share_route.clone();
            Callback::from(move |()| share_route.set(None))
        };
        return html! {
            <div class="app">
                <Header lang={state.lang} theme={state.theme} tab={state.tab} walk={false}
                    on_lang={on_action.reform(Action::SetLang)}
                    on_theme={on_action.reform(Action::SetTheme)}
                    on_tab={on_action.reform(Action::SetTab)} />
                <SharePage {shared} state={state.clone()} {on_done} {try_link} {autorun} />
            </div>
        };
    }

    let content = match state.tab {
        Tab::Workbench => {
            let closable = state.ws.panes.len() > 1;
            let panes = state.ws.panes.iter().map(|p| {
                let status = pane_status(&engine, p);
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
                        <div class="pane-actions">
                            <button type="button" class="add-pane" onclick={add}>{ s.add_client }</button>
                            <ShareBox state={state.clone()} />
                        </div>
                    </div>
                    <ValueView view={state.view.clone()} venn={state.venn.clone()}
                        {now_ms} lang={state.lang} cluster={engine.read(|e| e.cluster_enabled())}
                        on_action={on_action.clone()} />
                </main>
            }
        }
    };

    let keys = state.ws.index.borrow().len();
    let memory = engine.read(|e| {
        let srv = e.server();
        let s = *srv.config.eviction();
        (s.maxmemory > 0).then(|| Memory {
            used: crate::engine::cmd::server::used_memory(srv),
            max: s.maxmemory,
            evicted: srv.stats.evicted_keys,
            policy: srv.config.maxmemory_policy().to_string(),
        })
    });
    if let Some(route) = walk_route {
        return html! {
            <div class="app">
                <Header lang={state.lang} theme={state.theme} tab={state.tab} walk={true}
                    on_lang={on_action.reform(Action::SetLang)}
                    on_theme={on_action.reform(Action::SetTheme)}
                    on_tab={on_action.reform(Action::SetTab)} />
                <WalkthroughPage {route} lang={state.lang} />
            </div>
        };
    }
    html! {
        <div class="app">
            <Header lang={state.lang} theme={state.theme} tab={state.tab} walk={false}
                on_lang={on_action.reform(Action::SetLang)}
                on_theme={on_action.reform(Action::SetTheme)}
                on_tab={on_action.reform(Action::SetTab)}
                extra={html! { <Workspaces state={state.clone()} /> }} />
            <super::components::tab_badge::TabBadge lang={state.lang} version={state.tabs_version} />
            { content }
            <StatusBar lang={state.lang} {db} {keys} {memory} />
        </div>
    }
}

/// Properties of [`EmbedApp`].
#[derive(Properties, PartialEq)]
pub struct EmbedProps {
    /// What the tutorial page asked for.
    pub embed: Embed,
    /// The app state (one workspace of its own, see `ui::services::persist`).
    pub state: UseReducerHandle<State>,
}

/// Embed mode: one console with minimal chrome for a tutorial's iframe. The setup commands
/// are listed read-only above it and run, as typed commands, when the workspace is empty;
/// Reset runs `FLUSHALL` and the setup again. The content height is posted to the parent
/// page (`{type: 'kvlab:height', height}`) after every render, for `www/embed.js`.
#[component]
pub fn EmbedApp(props: &EmbedProps) -> Html {
    let state = props.state.clone();
    let embed = props.embed.clone();
    let dispatcher = state.dispatcher();
    let on_action = Callback::from(move |a: Action| dispatcher.dispatch(a));
    // Language asked for by the page.
    {
        let on_action = on_action.clone();
        let lang = embed.lang.clone();
        use_effect_with((), move |_| match lang.as_deref() {
            Some("zh-CN") => on_action.emit(Action::SetLang(super::i18n::Lang::Zh)),
            Some("en") => on_action.emit(Action::SetLang(super::i18n::Lang::En)),
            _ => {}
        });
    }
    // The setup, once per page load: on the tab that runs the workspace when it is empty
    // (a second tab would run it twice), or, on a later embed of a page whose first embed on
    // this workspace has just set it up (`then`), wherever it is: a follower forwards it once
    // it reaches the leader. The page then hears whether it ran (`kvlab:ready`), which is
    // what `embed.js` waits for before it loads the next embed on the same workspace.
    {
        let on_action = on_action.clone();
        let embed = embed.clone();
        let engine = state.engine().clone();
        let decided = use_mut_ref(|| false);
        use_effect(move || {
            if *decided.borrow() {
                return;
            }
            let ran = match (embed.then, super::services::tabs::is_follower()) {
                (true, true) if !super::services::tabs::connected() => return,
                (true, _) => true,
                (false, true) => false,
                (false, false) => engine.read(|e| e.server().dbs.iter().all(|d| d.is_empty())),
            };
            *decided.borrow_mut() = true;
            if ran {
                for line in &embed.setup {
                    on_action.emit(Action::Run(line.clone()));
                }
            }
            post_to_parent("kvlab:ready", "ran", ran.into());
        });
    }
    use_effect(post_height);
    let lang = state.lang;
    let t = lang.embed();
    if let Some((id, step)) = &embed.walk {
        let route = WalkRoute {
            id: Some(id.clone()),
            step: *step,
        };
        return html! {
            <div class="app embed">
                <WalkthroughPage {route} {lang} on_lang={Some(on_action.reform(Action::SetLang))} />
            </div>
        };
    }
    let on_reset = {
        let on_action = on_action.clone();
        let setup = embed.setup.clone();
        Callback::from(move |_: MouseEvent| {
            on_action.emit(Action::Run("FLUSHALL".to_string()));
            for line in &setup {
                on_action.emit(Action::Run(line.clone()));
            }
        })
    };
    let engine = state.engine().clone();
    let now_ms = engine.read(|e| e.server().clock.now_ms()).div_euclid(1000) * 1000;
    let pane = state.pane(state.ws.active).cloned();
    let console = pane.map(|p| {
        let status = pane_status(&engine, &p);
        html! {
            <ConsolePane key={p.id}
                pane={p.clone()}
                prompt={state.prompt(p.client)}
                hint={state.hint(p.id)}
                {status}
                {now_ms}
                {lang}
                closable={false}
                active={true}
                on_action={on_action.clone()} />
        }
    });
    let open_full = {
        let shared = crate::app::share::Shared {
            dataset: Vec::new(),
            commands: embed.setup.clone(),
        };
        format!("./#{}", Route::Share(Ok(shared)).fragment())
    };
    html! {
        <div class={classes!("app", "embed", (!embed.setup.is_empty()).then_some("has-setup"))}>
            <div class="embed-bar">
                <span class="logo" aria-hidden="true">{ "kv" }</span>
                <span class="embed-title">{ t.title }</span>
                <button type="button" class="embed-reset" onclick={on_reset}>
                    { t.reset }
                </button>
                <a class="embed-open" href={open_full} target="_blank" rel="noopener">
                    { t.open_full }
                </a>
            </div>
            if !embed.setup.is_empty() {
                <details class="embed-setup">
                    <summary>{ t.setup }</summary>
                    <pre>{ embed.setup.join("\n") }</pre>
                </details>
            }
            { for console }
        </div>
    }
}

/// Tells the embedding page how tall the content is.
fn post_height() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(height) = window
        .document()
        .and_then(|d| d.document_element())
        .map(|e| e.scroll_height())
    else {
        return;
    };
    post_to_parent("kvlab:height", "height", f64::from(height).into());
}

/// Posts `{type: kind, [field]: value}` to the page embedding this one, if any.
fn post_to_parent(kind: &str, field: &str, value: wasm_bindgen::JsValue) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    if parent == window {
        return;
    }
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"type".into(), &kind.into());
    let _ = js_sys::Reflect::set(&msg, &field.into(), &value);
    let _ = parent.post_message(&msg, "*");
}

/// What a pane's status line shows: its blocked deadline, MULTI queue and subscriptions,
/// from this tab's engine, or from its session on the leader tab in a follower tab.
fn pane_status(engine: &EngineService, p: &Pane) -> PaneStatus {
    if let Some(s) = &p.session {
        return PaneStatus {
            blocked: s.blocked,
            waits_for: s.waits_for,
            queued: s.queued.clone(),
            subscribed: s.subscribed,
            // The tabs protocol does not carry it; Ctrl+C still stops it.
            monitor: false,
        };
    }
    engine.read(|e| PaneStatus {
        blocked: blocked_until(e, p.client),
        waits_for: WaitsFor::of_client(e, p.client),
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
        monitor: e.server().monitors.contains(&p.client),
    })
}
