//! The value view: the selected key's value, live, with what the last command changed.
//!
//! One view per type: strings (text, JSON pretty-printed when it parses, hex for binary,
//! a grid of bits for bitmaps), HyperLogLogs (their estimate), lists (indexed, head and
//! tail marked), sets, sorted sets (rank, member, score with a bar; a map when the scores
//! are geohashes), hashes and streams (the last entries, newest last, and each consumer
//! group with its consumers and pending entries).
//!
//! Every edit made here runs the real command in the active console pane — it shows up
//! there, so clicking teaches the command.
//!
//! # Layout
//! One file per kind of view: `string` (strings and HyperLogLogs, with `json`'s
//! pretty-printer), `collections` (lists, sets, hashes), `zset` (with `geo`'s map),
//! `stream`, and `venn` (the set-operation diagram). This file holds the component, the
//! key's tools (TTL, delete); `parts` holds what every view shares (`Ctx`, the add form,
//! the buttons).

mod collections;
mod geo;
mod json;
mod parts;
mod stream;
mod string;
mod venn;
mod zset;

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use self::parts::{Ctx, Mode};
use self::venn::venn_html;
use super::browser::short_ttl;
use crate::engine::inspect::ValueView as Snapshot;
use crate::ui::console::line;
use crate::ui::i18n::{Lang, Strings};
use crate::ui::state::{Action, Venn, ViewData};

pub use self::json::pretty_json;

/// Properties of [`ValueView`].
#[derive(Properties, PartialEq)]
pub struct ValueViewProps {
    /// The selected key and its value.
    pub view: Option<Rc<ViewData>>,
    /// The last set operation, if any.
    pub venn: Option<Rc<Venn>>,
    /// The clock, for the TTL.
    pub now_ms: i64,
    /// The language.
    pub lang: Lang,
    /// Cluster mode is on: the key's hash slot is shown.
    #[prop_or_default]
    pub cluster: bool,
    /// Receives commands to run, and other actions.
    pub on_action: Callback<Action>,
}

/// The value view.
#[component]
pub fn ValueView(props: &ValueViewProps) -> Html {
    let s = props.lang.strings();
    let mode = use_state(|| Mode::Auto);
    let a = use_state(String::new);
    let b = use_state(String::new);
    let ttl = use_state(String::new);
    let venn = props
        .venn
        .as_ref()
        .map(|v| venn_html(v, s, &props.on_action));
    let Some(view) = &props.view else {
        return html! {
            <section class="value" aria-label={s.value}>
                { venn }
                <div class="panel-head"><h2>{ s.value }</h2></div>
                <p class="empty">{ s.pick_key }</p>
                { start_cards(s) }
            </section>
        };
    };
    selected(props, view, venn, (&mode, &a, &b, &ttl))
}

/// The view of the selected key. A function of its own that is never inlined: start-up
/// shows no key, so this code stays out of the first load (`scripts/split.mjs` keeps in
/// the primary wasm only the functions start-up runs, whole).
#[inline(never)]
fn selected(
    props: &ValueViewProps,
    view: &ViewData,
    venn: Option<Html>,
    (mode, a, b, ttl): (
        &UseStateHandle<Mode>,
        &UseStateHandle<String>,
        &UseStateHandle<String>,
        &UseStateHandle<String>,
    ),
) -> Html {
    let s = props.lang.strings();
    let key = view.key.clone();
    let run = {
        let on_action = props.on_action.clone();
        move |words: Vec<Vec<u8>>| {
            let refs: Vec<&[u8]> = words.iter().map(Vec::as_slice).collect();
            on_action.emit(Action::Run(line(&refs)));
        }
    };
    let name = String::from_utf8_lossy(&key).into_owned();
    let head = match view.meta {
        None => html! { <p class="empty">{ s.gone }</p> },
        Some(meta) => {
            let ttl_text = match meta.expire_at {
                Some(at) => short_ttl(at - props.now_ms),
                None => s.persistent.to_string(),
            };
            let on_ttl = {
                let ttl = ttl.clone();
                Callback::from(move |e: InputEvent| {
                    ttl.set(e.target_unchecked_into::<HtmlInputElement>().value())
                })
            };
            let expire = {
                let (run, key, ttl) = (run.clone(), key.clone(), ttl.clone());
                Callback::from(move |e: SubmitEvent| {
                    e.prevent_default();
                    if !ttl.trim().is_empty() {
                        run(vec![
                            b"EXPIRE".to_vec(),
                            key.clone(),
                            ttl.trim().as_bytes().to_vec(),
                        ]);
                    }
                })
            };
            let persist = {
                let (run, key) = (run.clone(), key.clone());
                Callback::from(move |_: MouseEvent| run(vec![b"PERSIST".to_vec(), key.clone()]))
            };
            let delete = {
                let (run, key) = (run.clone(), key.clone());
                Callback::from(move |_: MouseEvent| run(vec![b"DEL".to_vec(), key.clone()]))
            };
            html! {
                <div class="key-tools">
                    <span class={classes!("badge", "type", meta.kind.name())}>{ meta.kind.name() }</span>
                    <span class="ttl-label">{ format!("{}{}", s.ttl, s.colon) }<strong class="ttl">{ ttl_text }</strong></span>
                    <form class="inline" onsubmit={expire}>
                        <input type="number" min="1" placeholder={s.seconds} aria-label={s.seconds}
                            value={(**ttl).clone()} oninput={on_ttl} />
                        <button type="submit">{ s.expire }</button>
                    </form>
                    if meta.expire_at.is_some() {
                        <button type="button" onclick={persist}>{ s.persist }</button>
                    }
                    <button type="button" class="danger" onclick={delete}>{ s.delete }</button>
                </div>
            }
        }
    };
    // The server's own removals are named as what they are, not as the `DEL` they
    // replay as (see `ViewData::changed_by`).
    let changed = view.changed_by.as_ref().map(|c| match c.as_str() {
        "expired" => html! { <p class="changed gone-note">{ s.expired_note }</p> },
        "evicted" => html! { <p class="changed gone-note">{ s.evicted_note }</p> },
        _ => html! {
            <p class="changed">{ format!("{} ", s.changed_by) }<code>{ c.clone() }</code></p>
        },
    });
    let body = match (&view.value, view.meta) {
        (Some(v), Some(_)) => body(
            v,
            view.prev.as_ref(),
            &key,
            (**mode, mode),
            (a, b),
            &run,
            s,
            props.lang,
        ),
        _ => html! {},
    };
    html! {
        <section class="value" aria-label={s.value}>
            { venn }
            <div class="panel-head">
                <h2 class="key-name" title={name.clone()}>{ name.clone() }</h2>
                if props.cluster {
                    <span class="badge slot" title={format!("CLUSTER KEYSLOT {name}")}>{ format!("{} {}", s.hash_slot, crate::engine::cluster::key_slot(&key)) }</span>
                }
            </div>
            { head }
            { changed }
            <div class="value-body">{ body }</div>
        </section>
    }
}

/// The first screen's pointer for newcomers: two walkthroughs as cards, and the list.
fn start_cards(s: &Strings) -> Html {
    let card = |id: &str, title: &str, blurb: &str| {
        html! {
            <li>
                <a class="start-card" href={format!("#/walk/{id}")}>
                    <strong>{ title.to_string() }</strong>
                    <span>{ blurb.to_string() }</span>
                </a>
            </li>
        }
    };
    html! {
        <section class="start" aria-labelledby="start-title">
            <h3 id="start-title">{ s.start_title }</h3>
            <p class="start-hint">{ s.start_hint }</p>
            <ul class="start-cards">
                { card("login", s.start_login, s.start_login_blurb) }
                { card("tags", s.start_tags, s.start_tags_blurb) }
            </ul>
            <a class="start-all" href="#/walk">{ format!("{} →", s.start_all) }</a>
        </section>
    }
}

/// The body for one type. It makes the [`Ctx`] itself, so that [`ValueView`], which
/// start-up runs, keeps none of this code: the first load carries only what start-up runs
/// (measured: with the `Ctx` made in `ValueView`, it was 295 bytes gzip -9 bigger).
#[allow(clippy::too_many_arguments)]
fn body(
    v: &Snapshot,
    prev: Option<&Snapshot>,
    key: &[u8],
    (mode, mode_handle): (Mode, &UseStateHandle<Mode>),
    (a, b): (&UseStateHandle<String>, &UseStateHandle<String>),
    run: &(impl Fn(Vec<Vec<u8>>) + Clone + 'static),
    s: &Strings,
    lang: Lang,
) -> Html {
    let c = &Ctx {
        prev,
        key: key.to_vec(),
        mode,
        mode_handle,
        a,
        b,
        run: Rc::new(run.clone()),
        s,
        lang,
    };
    match v {
        Snapshot::String(bytes, len) => string::string(c, bytes, len),
        Snapshot::Hll(estimate, encoding, size) => string::hll(c, estimate, encoding, size),
        Snapshot::List(items, len) => collections::list(c, items, len),
        Snapshot::Set(members, len) => collections::set(c, members, len),
        Snapshot::ZSet(pairs, len) => zset::zset(c, pairs, len),
        Snapshot::Hash(fields, len) => collections::hash(c, fields, len),
        Snapshot::Stream(st) => stream::stream(c, st),
        Snapshot::Other(_) => html! { <p class="empty">{ c.s.no_view }</p> },
    }
}
