//! The list of walkthroughs: search, the cards, and loading a file or a URL.

use std::rc::Rc;

use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::route::{go, WalkRoute};
use super::session::{fetch_text, load, Session, Shared};
use super::view::{show, tag};
use crate::ui::i18n::Lang;

pub(super) fn list_view(
    s: &Session,
    lang: Lang,
    query: &UseStateHandle<String>,
    lang_switch: Html,
    session: Shared,
    redraw: Callback<()>,
) -> Html {
    let l = tag(lang);
    let ws = lang.walk();
    let on_search = {
        let query = query.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                query.set(input.value());
            }
        })
    };
    let add = {
        let session = session.clone();
        let redraw = redraw.clone();
        move |name: String, text: String| {
            let result = load(&name, &text);
            let mut s = session.borrow_mut();
            match result {
                Ok(w) => {
                    let id = w.id.clone();
                    s.catalog.retain(|c| c.id != id);
                    s.catalog.push(Rc::new(w));
                    drop(s);
                    go(&WalkRoute {
                        id: Some(id),
                        step: 1,
                    });
                }
                Err(e) => s.load_errors.push(e),
            }
            redraw.emit(());
        }
    };
    let on_file = {
        let add = add.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            let add = add.clone();
            spawn_local(async move {
                let text = JsFuture::from(file.text())
                    .await
                    .ok()
                    .and_then(|t| t.as_string());
                add(file.name(), text.unwrap_or_default());
            });
        })
    };
    let url_ref = use_node_ref_static();
    let on_url = {
        let url_ref = url_ref.clone();
        let session = session.clone();
        let redraw = redraw.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(url) = url_ref.cast::<HtmlInputElement>().map(|i| i.value()) else {
                return;
            };
            let add = add.clone();
            let session = session.clone();
            let redraw = redraw.clone();
            spawn_local(async move {
                match fetch_text(&url).await {
                    Ok(text) => {
                        let name = url.rsplit('/').next().unwrap_or(&url).to_string();
                        add(name, text);
                    }
                    Err(e) => {
                        session.borrow_mut().load_errors.push(e);
                        redraw.emit(());
                    }
                }
            });
        })
    };
    let items = s.catalog.iter().filter(|w| w.matches(query)).map(|w| {
        html! {
            <li class="walk-card">
                <a href={format!("#/walk/{}/1", w.id)}>
                    <strong>{ show(lang, w.title.get(l)) }</strong>
                    <span class="walk-count">{ format!(" · {} {}", w.steps.len(), ws.steps_unit) }</span>
                </a>
                <p>{ show(lang, w.intro.get(l)).split("\n\n").next().unwrap_or("").to_string() }</p>
            </li>
        }
    });
    html! {
        <div class="walk walk-list">
            <nav class="walk-top">
                <a href="#/">{ ws.workbench }</a>
                <h1>{ ws.list_title }</h1>
                { lang_switch }
            </nav>
            <input class="walk-search" type="search" placeholder={ws.search}
                aria-label={ws.search} value={(**query).clone()} oninput={on_search} />
            if !s.loaded { <p class="walk-msg">{ ws.loading }</p> }
            <ul class="walk-cards">{ for items }</ul>
            <details class="walk-load">
                <summary>{ ws.load_file }</summary>
                <p><input type="file" accept=".walk,.txt" onchange={on_file} /></p>
                <p>
                    <input ref={url_ref} type="url" placeholder="https://…/my.walk" aria-label="URL" />
                    <button type="button" onclick={on_url}>{ ws.load_url }</button>
                </p>
                <p class="walk-hint">{ ws.format_hint }</p>
            </details>
            { for s.load_errors.iter().map(|e| html! { <p class="walk-error" role="alert">{ e.text(lang) }</p> }) }
        </div>
    }
}

/// A node ref for a plain function (not a hook): list_view is called from the component
/// after all its hooks ran, so it may not call hooks itself.
fn use_node_ref_static() -> NodeRef {
    NodeRef::default()
}
