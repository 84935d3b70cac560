//! Share links in the app: the **Share** box that turns the active pane's session into a
//! link, and the page a `#/share?s=…` link opens (see [`crate::app::share`] for the format).
//!
//! Opening a link never runs anything by itself: the page lists what would run, and runs
//! it — as typed commands, so they appear in the console — only when asked, and only into
//! an empty workspace. When the current workspace holds data, the button opens the link in
//! a fresh workspace (`?ws=shared-…`) instead, so a link never clobbers a learner's data.
//!
//! A Try-it link (`#/try?commands=…`, as redis.io writes them) opens the same page; with
//! `autorun=true` it runs at once, by the same rules: into this workspace when it is empty,
//! else into the link's fresh workspace, where it runs on arrival. If that workspace holds
//! data too (the link was opened before), the page waits for the learner instead of
//! running the commands a second time.

use yew::prelude::*;

use super::i18n::share_error_text;
use super::services::location;
use super::state::{Action, Entry, State};
use crate::app::route::Route;
use crate::app::share::{self, ShareError, Shared};

/// The lines typed in the active pane, oldest first (what a share link carries).
pub fn session_commands(state: &State) -> Vec<String> {
    state
        .pane(state.ws.active)
        .map(|p| {
            p.log
                .iter()
                .filter_map(|e| match &**e {
                    Entry::Command { line, .. } if !line.trim().is_empty() => Some(line.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Properties of [`ShareBox`].
#[derive(Properties, PartialEq)]
pub struct ShareBoxProps {
    /// The app state.
    pub state: UseReducerHandle<State>,
}

/// A disclosure with the share link of the active pane's session, its length, and a
/// warning when it is long enough for chat apps to cut it.
#[component]
pub fn ShareBox(props: &ShareBoxProps) -> Html {
    let lang = props.state.lang;
    let t = lang.share();
    let open = use_state(|| false);
    // What the Copy button last did: None, Some(true) copied, Some(false) refused.
    let copied = use_state(|| None::<bool>);
    let toggle = {
        let open = open.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            copied.set(None);
            open.set(!*open)
        })
    };
    let body = (*open).then(|| {
        let shared = Shared {
            dataset: Vec::new(),
            commands: session_commands(&props.state),
        };
        let link = format!("{}#{}", location::base_url(), Route::Share(Ok(shared.clone())).fragment());
        let long = link.len() > share::LONG_LINK;
        let select = Callback::from(|e: FocusEvent| {
            if let Some(input) = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
            {
                input.select();
            }
        });
        html! {
            <div class="share-box">
                <label>
                    { t.link_before }
                    { shared.commands.len() }
                    { t.link_commands }
                    { link.len() }
                    { t.link_chars }
                    <input type="text" readonly=true value={link.clone()} onfocus={select} />
                </label>
                <button type="button" class="share-copy" onclick={copy_link(link.clone(), copied.clone())}>
                    { t.copy }
                </button>
                <span class="share-copied" role="status">{ match *copied {
                    Some(true) => t.copied,
                    Some(false) => t.copy_failed,
                    None => "",
                } }</span>
                if long {
                    <p class="warn">{ t.long_link }</p>
                }
            </div>
        }
    });
    // Escape inside the open box closes it and gives the focus back to its button, once
    // the closed box is rendered (the render may replace the button's element).
    let button = use_node_ref();
    let refocus = use_mut_ref(|| false);
    {
        let button = button.clone();
        let refocus = refocus.clone();
        use_effect(move || {
            if std::mem::take(&mut *refocus.borrow_mut()) {
                if let Some(el) = button.cast::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
            }
        });
    }
    let onkeydown = {
        let open = open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" && *open {
                e.prevent_default();
                *refocus.borrow_mut() = true;
                open.set(false);
            }
        })
    };
    html! {
        <div class="share" {onkeydown}>
            <button type="button" class="share-toggle" ref={button} aria-expanded={(*open).to_string()} onclick={toggle}>
                { t.share }
            </button>
            { for body }
        </div>
    }
}

/// Copies `link` to the clipboard, then reports in `copied` whether that worked.
fn copy_link(link: String, copied: UseStateHandle<Option<bool>>) -> Callback<MouseEvent> {
    Callback::from(move |_: MouseEvent| {
        let Some(window) = web_sys::window() else {
            return;
        };
        let promise = window.navigator().clipboard().write_text(&link);
        let copied = copied.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
            copied.set(Some(ok));
        });
    })
}

/// Properties of [`SharePage`].
#[derive(Properties, PartialEq)]
pub struct SharePageProps {
    /// The decoded link (or why it could not be read).
    pub shared: Result<Shared, ShareError>,
    /// The app state.
    pub state: UseReducerHandle<State>,
    /// Called when the page is done (ran or cancelled): back to the workbench.
    pub on_done: Callback<()>,
    /// A Try-it link (`#/try`) rather than a share link.
    #[prop_or_default]
    pub try_link: bool,
    /// `autorun=true`: run without waiting for the button.
    #[prop_or_default]
    pub autorun: bool,
}

/// What a share link would run, with Run / Open fresh / Cancel.
#[component]
pub fn SharePage(props: &SharePageProps) -> Html {
    let lang = props.state.lang;
    let t = lang.share();
    let done = props.on_done.clone();
    let cancel = {
        let done = done.clone();
        Callback::from(move |_: MouseEvent| {
            location::go(&Route::Console);
            done.emit(());
        })
    };
    let shared = match &props.shared {
        Ok(s) => s.clone(),
        Err(e) => {
            return html! {
                <main class="share-page">
                    <h2>{ if props.try_link { t.try_unreadable }
                          else { t.share_unreadable } }</h2>
                    <p class="error">{ share_error_text(e, lang) }</p>
                    <button type="button" onclick={cancel}>{ t.back }</button>
                </main>
            };
        }
    };
    let empty = props
        .state
        .engine()
        .read(|e| e.server().dbs.iter().all(|d| d.is_empty()));
    // The link's own workspace: named after the fragment, without `autorun` so that a
    // link with and without it share one.
    let fresh = Route::link_workspace(&location::hash());
    let in_fresh = super::services::persist::workspace_from_url() == fresh;
    let run = {
        let dispatcher = props.state.dispatcher();
        let shared = shared.clone();
        let done = done.clone();
        let fresh = fresh.clone();
        Callback::from(move |()| {
            // Into this workspace when it is empty, or is already the link's own.
            if empty || in_fresh {
                for line in shared.dataset.iter().chain(&shared.commands) {
                    dispatcher.dispatch(Action::Run(line.clone()));
                }
                location::go(&Route::Console);
                done.emit(());
            } else {
                // A fresh workspace named after the link, with the same fragment.
                location::load(&format!("?ws={fresh}{}", location::hash()));
            }
        })
    };
    // autorun: once, on arrival — unless that would open the workspace it is already in.
    let waits = props.autorun && !empty && in_fresh;
    {
        let run = run.clone();
        let go = props.autorun && !waits;
        use_effect_with((), move |_| {
            if go {
                run.emit(());
            }
        });
    }
    let run = run.reform(|_: MouseEvent| ());
    let lines = shared.dataset.len() + shared.commands.len();
    html! {
        <main class="share-page">
            <h2>{ if props.try_link { t.try_heading }
                  else { t.share_heading } }</h2>
            <p>{ t.nothing_ran }</p>
            if !shared.dataset.is_empty() {
                <p>{ shared.dataset.len() }{ t.dataset_first }</p>
            }
            <ol class="share-lines">
                { for shared.dataset.iter().chain(&shared.commands).take(500).map(|l| html! { <li><code>{ l.clone() }</code></li> }) }
            </ol>
            if lines > 500 {
                <p>{ t.and_more }</p>
            }
            <div class="share-actions">
                <button type="button" class="primary" onclick={run}>
                    { if empty { t.run }
                      else if in_fresh { t.run_again }
                      else { t.open_fresh } }
                </button>
                <button type="button" onclick={cancel}>{ t.cancel }</button>
            </div>
            if waits {
                <p class="note">{ t.waits }</p>
            } else if !empty && !in_fresh {
                <p class="note">{ t.other_workspace }</p>
            }
        </main>
    }
}
