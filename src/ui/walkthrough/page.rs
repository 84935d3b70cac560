//! The page of one walkthrough: the step bar and its controls, the current step with the
//! earlier and later ones collapsed, free play, the recap, and the state of both sides.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::edit::code_box_key;
use super::list::list_view;
use super::route::{go, WalkRoute};
use super::run::{KvRun, SqlRun};
use super::session::{execute, load_catalog, open, refresh_tables, run_to, Session, Shared};
use super::tables::tables_view;
use super::view::{self, keyspace_tree};
use super::view::{show, tag};
use crate::ui::console;
use crate::ui::i18n::Lang;
use crate::ui::services::style;

/// Properties of [`WalkthroughPage`].
#[derive(Properties, PartialEq, Clone)]
pub struct WalkthroughPageProps {
    /// Where we are.
    pub route: WalkRoute,
    /// The UI language.
    pub lang: Lang,
    /// Called to switch the language, where the page shows its own switch (in an embed,
    /// which has no header; the app's header has one).
    #[prop_or_default]
    pub on_lang: Option<Callback<Lang>>,
}

/// Where the walkthroughs' style sheet is (trunk copies `www/walkthrough.css` there): it
/// loads when the first walkthrough view opens, not with the console.
const STYLE: &str = "walkthrough.css";

/// The walkthroughs: the list, or one walkthrough side by side, once their style sheet is
/// in (so that nothing is laid out, scrolled to or measured unstyled).
#[component]
pub fn WalkthroughPage(props: &WalkthroughPageProps) -> Html {
    let styled = use_state(|| style::loaded(STYLE));
    {
        let styled = styled.clone();
        use_effect_with((), move |_| {
            style::load(STYLE, Callback::from(move |()| styled.set(true)));
        });
    }
    if !*styled {
        return html! { <div class="walk-loading" aria-busy="true" /> };
    }
    let props = props.clone();
    html! { <WalkthroughBody ..props /> }
}

/// [`WalkthroughPage`]'s content.
#[component]
fn WalkthroughBody(props: &WalkthroughPageProps) -> Html {
    let session: Shared = use_mut_ref(Session::default);
    let update = use_force_update();
    let redraw = Callback::from(move |()| update.force_update());
    let query = use_state(String::new);
    let free = use_state(|| false);
    let sql_ref = use_node_ref();
    let kv_ref = use_node_ref();
    let lang = props.lang;

    // The cost lines quote the command table's complexities: its English prose is fetched
    // (see `engine::table::docs`), and in Chinese the HELP texts too.
    {
        let redraw = redraw.clone();
        use_effect_with((), move |_| {
            console::load_help_en(Callback::from(move |()| redraw.emit(())))
        });
    }
    {
        let redraw = redraw.clone();
        use_effect_with(lang, move |lang| {
            if *lang == Lang::Zh {
                console::load_help_zh(Callback::from(move |_| redraw.emit(())));
            }
        });
    }

    // Load the list once.
    {
        let session = session.clone();
        let redraw = redraw.clone();
        use_effect_with((), move |_| {
            spawn_local(load_catalog(session, redraw));
        });
    }

    // Follow the route: open the walkthrough it names and run the steps before its step.
    {
        let session = session.clone();
        let redraw = redraw.clone();
        let loaded = session.borrow().loaded;
        use_effect_with((props.route.clone(), loaded), move |(route, _)| {
            let Some(id) = &route.id else {
                return;
            };
            let (walk, open_id, done) = {
                let s = session.borrow();
                let walk = s.catalog.iter().find(|w| &w.id == id).cloned();
                let open = s.open.as_ref();
                (
                    walk,
                    open.map(|o| o.walk.id.clone()),
                    open.map_or(0, |o| o.done),
                )
            };
            let Some(walk) = walk else {
                return;
            };
            let want = route.step.saturating_sub(1).min(walk.steps.len());
            // A new walkthrough opens afresh; going back keeps the results already shown.
            if open_id.as_deref() != Some(id.as_str()) {
                spawn_local(open(session, walk, want, redraw));
            } else if done < want {
                let generation = session.borrow().generation;
                spawn_local(async move {
                    session.borrow_mut().busy = true;
                    run_to(session.clone(), generation, want, redraw.clone()).await;
                    session.borrow_mut().busy = false;
                    redraw.emit(());
                });
            }
        });
    }

    // A new step is the screen: bring it up under the sticky controls when it starts low
    // on the screen (or above it), so its narration, code and results are in view.
    {
        let opened = session.borrow().open.as_ref().map(|o| o.walk.id.clone());
        use_effect_with((props.route.clone(), opened), |_| {
            let doc = web_sys::window().and_then(|w| w.document());
            let current = doc.and_then(|d| d.query_selector(".walk-current").ok().flatten());
            if let Some(el) = current {
                let top = client_top(&el);
                let height = web_sys::window()
                    .and_then(|w| w.inner_height().ok())
                    .and_then(|h| h.as_f64())
                    .unwrap_or(800.0);
                if top < 0.0 || top > height * 0.45 {
                    el.scroll_into_view_with_bool(true);
                }
            }
        });
    }

    let s = session.borrow();
    let lang_switch = match props.on_lang.clone() {
        Some(on_lang) => {
            let other = lang.other();
            html! {
                <button class="walk-lang" type="button" lang={other.tag()}
                    onclick={move |_| on_lang.emit(other)}>
                    { other.strings().name }
                </button>
            }
        }
        None => Html::default(),
    };

    let Some(id) = props.route.id.clone() else {
        return list_view(&s, lang, &query, lang_switch, session.clone(), redraw);
    };
    let Some(o) = s.open.as_ref().filter(|o| o.walk.id == id) else {
        let msg = if s.loaded && !s.catalog.iter().any(|w| w.id == id) {
            lang.walk().not_found
        } else {
            lang.walk().loading
        };
        return html! {
            <div class="walk">
                <nav class="walk-top"><a href="#/walk">{ lang.walk().all_walkthroughs }</a>{ lang_switch }</nav>
                <p class="walk-msg">{ msg }</p>
            </div>
        };
    };
    let w = o.walk.clone();
    let total = w.steps.len();
    let cur = props.route.step.min(total.max(1));
    let step = w.steps.get(cur - 1);
    let l = tag(lang);
    let ws = lang.walk();

    let nav = |n: usize| {
        let id = id.clone();
        Callback::from(move |_: MouseEvent| {
            go(&WalkRoute {
                id: Some(id.clone()),
                step: n,
            })
        })
    };
    let run_step = {
        let session = session.clone();
        let redraw = redraw.clone();
        Callback::from(move |_: MouseEvent| {
            let session = session.clone();
            let redraw = redraw.clone();
            let generation = session.borrow().generation;
            spawn_local(async move {
                session.borrow_mut().busy = true;
                run_to(session.clone(), generation, cur, redraw.clone()).await;
                session.borrow_mut().busy = false;
                redraw.emit(());
            });
        })
    };
    let run_all = {
        let session = session.clone();
        let redraw = redraw.clone();
        let id = id.clone();
        Callback::from(move |_: MouseEvent| {
            let session = session.clone();
            let redraw = redraw.clone();
            let generation = session.borrow().generation;
            let id = id.clone();
            spawn_local(async move {
                session.borrow_mut().busy = true;
                run_to(session.clone(), generation, total, redraw.clone()).await;
                session.borrow_mut().busy = false;
                redraw.emit(());
                go(&WalkRoute {
                    id: Some(id),
                    step: total,
                });
            });
        })
    };
    let reset = {
        let session = session.clone();
        let redraw = redraw.clone();
        let w = w.clone();
        let id = id.clone();
        Callback::from(move |_: MouseEvent| {
            spawn_local(open(session.clone(), w.clone(), 0, redraw.clone()));
            go(&WalkRoute {
                id: Some(id.clone()),
                step: 1,
            });
        })
    };
    let toggle_free = {
        let free = free.clone();
        Callback::from(move |_: MouseEvent| free.set(!*free))
    };
    // The current step's code, for the free-play boxes.
    let step_sql: String = step
        .map(|st| {
            st.sql
                .iter()
                .map(|c| c.sql.clone())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let step_kv: String = step
        .map(|st| {
            st.kv
                .iter()
                .map(|c| c.command.clone())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let use_step_code = {
        let session = session.clone();
        let redraw = redraw.clone();
        let (sql, kv) = (step_sql.clone(), step_kv.clone());
        Callback::from(move |_: MouseEvent| {
            let mut s = session.borrow_mut();
            s.free_sql = Some(sql.clone());
            s.free_kv = Some(kv.clone());
            drop(s);
            redraw.emit(());
        })
    };
    let run_free = {
        let session = session.clone();
        let redraw = redraw.clone();
        let sql_ref = sql_ref.clone();
        let kv_ref = kv_ref.clone();
        Callback::from(move |_: MouseEvent| {
            let sql_text = sql_ref
                .cast::<HtmlTextAreaElement>()
                .map(|e| e.value())
                .unwrap_or_default();
            let kv_text = kv_ref
                .cast::<HtmlTextAreaElement>()
                .map(|e| e.value())
                .unwrap_or_default();
            {
                let mut s = session.borrow_mut();
                s.free_sql = Some(sql_text.clone());
                s.free_kv = Some(kv_text.clone());
            }
            let session = session.clone();
            let redraw = redraw.clone();
            spawn_local(async move {
                let generation = session.borrow().generation;
                let sql = crate::walk::recap::sql_statements(&sql_text)
                    .into_iter()
                    .map(|q| (q, None))
                    .collect();
                let kv = kv_text
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| (l.trim().to_string(), None))
                    .collect();
                let run = execute(&session, generation, 0, sql, kv).await;
                if let (Some(run), Some(o)) = (run, session.borrow_mut().open.as_mut()) {
                    o.runs.push(run);
                }
                redraw.emit(());
                refresh_tables(&session, generation).await;
                redraw.emit(());
            });
        })
    };
    // Free play's boxes keep what was typed (a redraw must not put the step's code back).
    let on_free_input = |which: bool| {
        let session = session.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(area) = e.target_dyn_into::<HtmlTextAreaElement>() {
                let mut s = session.borrow_mut();
                if which {
                    s.free_sql = Some(area.value());
                } else {
                    s.free_kv = Some(area.value());
                }
            }
        })
    };
    let on_free_key = {
        let session = session.clone();
        Callback::from(move |e: KeyboardEvent| code_box_key(&session, e))
    };

    let step_dots = (1..=total).map(|n| {
        let class = classes!(
            "walk-dot",
            (n == cur).then_some("current"),
            (n <= o.done).then_some("done")
        );
        let title = show(lang, w.steps[n - 1].title.get(l));
        html! {
            <button type="button" {class} onclick={nav(n)} {title}
                aria-current={(n == cur).then_some("step")}>{ n }</button>
        }
    });

    // A step's statements and commands, with their results once the step has run.
    let step_pair = |n: usize| -> Html {
        let Some(st) = w.steps.get(n - 1) else {
            return html! {};
        };
        let run = o.runs.iter().find(|r| r.step == n);
        let sql: Vec<(String, Option<&SqlRun>)> = st
            .sql
            .iter()
            .enumerate()
            .map(|(i, c)| (c.sql.clone(), run.and_then(|r| r.sql.get(i))))
            .collect();
        let kv: Vec<(String, Option<&KvRun>)> = st
            .kv
            .iter()
            .enumerate()
            .map(|(i, c)| (c.command.clone(), run.and_then(|r| r.kv.get(i))))
            .collect();
        view::pair(n, &sql, &kv, run.is_some(), lang)
    };
    let narration = |n: usize| -> Html {
        let Some(st) = w.steps.get(n - 1) else {
            return html! {};
        };
        html! {
            <div class="walk-say">
                { for show(lang, st.say.get(l)).split("\n\n").map(|p| html! { <p>{ p.to_string() }</p> }) }
            </div>
        }
    };
    // Every other step that is shown: collapsed, expandable.
    let collapsed = |n: usize| -> Html {
        let Some(st) = w.steps.get(n - 1) else {
            return html! {};
        };
        let ran = n <= o.done;
        html! {
            <details class="walk-past" data-step={n.to_string()}>
                <summary>
                    { format!("{n}. {}", show(lang, st.title.get(l))) }
                    <span class={classes!("walk-badge", ran.then_some("ok"))}>
                        { if ran { ws.ran } else { ws.not_run_short } }
                    </span>
                </summary>
                { narration(n) }
                { step_pair(n) }
            </details>
        }
    };
    let earlier = (1..cur).map(collapsed);
    let later = (cur + 1..=o.done.min(total)).map(collapsed);

    let current = step.map(|st| {
        html! {
            <section class="walk-current walk-step" data-step={cur.to_string()} aria-labelledby="walk-step-h">
                <h2 id="walk-step-h" tabindex="-1">{ format!("{cur}. {}", show(lang, st.title.get(l))) }</h2>
                <div aria-live="polite">{ narration(cur) }</div>
                { step_pair(cur) }
            </section>
        }
    });

    let free_html = if *free {
        let sql_text = s.free_sql.clone().unwrap_or(step_sql.clone());
        let kv_text = s.free_kv.clone().unwrap_or(step_kv.clone());
        let free_runs = o.runs.iter().filter(|r| r.step == 0).map(|r| {
            let sql: Vec<(String, Option<&SqlRun>)> =
                r.sql.iter().map(|q| (q.sql.clone(), Some(q))).collect();
            let kv: Vec<(String, Option<&KvRun>)> =
                r.kv.iter().map(|k| (k.command.clone(), Some(k))).collect();
            view::pair(0, &sql, &kv, true, lang)
        });
        html! {
            <section class="walk-free" aria-label={ws.free_play}>
                <div class="walk-pair">
                    <label>{ ws.sql_box }<textarea ref={sql_ref} class="walk-edit-sql" rows="5" spellcheck="false"
                        value={sql_text} oninput={on_free_input(true)} onkeydown={on_free_key.clone()}
                        aria-describedby="walk-edit-hint" /></label>
                    <label>{ ws.kv_box }<textarea ref={kv_ref} class="walk-edit-kv" rows="5" spellcheck="false"
                        value={kv_text} oninput={on_free_input(false)} onkeydown={on_free_key}
                        aria-describedby="walk-edit-hint" /></label>
                </div>
                <p class="walk-hint" id="walk-edit-hint">{ ws.edit_hint }</p>
                <div class="walk-free-actions">
                    <button type="button" class="walk-run-free" onclick={run_free}>{ ws.run_free }</button>
                    <button type="button" class="walk-use-step" onclick={use_step_code}>{ ws.use_step_code }</button>
                </div>
                { for free_runs.rev() }
            </section>
        }
    } else {
        html! {}
    };

    let busy = s.busy;
    let error = o.error.clone().or_else(|| s.worker_error.clone());
    let finished = cur == total && o.done >= total;
    let recap = finished.then(|| view::recap(&w, &o.recap, lang, |x| show(lang, x)));

    html! {
        <div class="walk" data-done={o.done.to_string()} data-busy={busy.to_string()}>
            <nav class="walk-top">
                <a href="#/walk">{ ws.all_walkthroughs }</a>
                <h1>{ show(lang, w.title.get(l)) }</h1>
                { lang_switch }
            </nav>
            if cur == 1 { <p class="walk-intro">{ show(lang, w.intro.get(l)) }</p> }
            <div class="walk-bar">
                <div class="walk-steps" role="group" aria-label={ws.steps_nav}>{ for step_dots }</div>
                <div class="walk-controls">
                    <button type="button" disabled={cur <= 1} onclick={nav(cur.saturating_sub(1).max(1))}>{ ws.previous }</button>
                    <button type="button" class="walk-run-step" disabled={busy || o.done >= cur} onclick={run_step}>{ ws.run_step }</button>
                    <button type="button" disabled={cur >= total} class="walk-next" onclick={nav((cur + 1).min(total))}>{ ws.next }</button>
                    <button type="button" class="walk-run-all" disabled={busy} onclick={run_all}>{ ws.run_all }</button>
                    <button type="button" class="walk-reset" onclick={reset}>{ ws.reset }</button>
                    <button type="button" class="walk-free-toggle" aria-pressed={free.to_string()} onclick={toggle_free}>{ ws.free_play }</button>
                </div>
            </div>
            if let Some(e) = error { <p class="walk-error" role="alert">{ e }</p> }
            { view::setup(&w, cur == 1 && o.done == 0, lang) }
            { for earlier }
            { for current }
            { for later }
            { free_html }
            { for recap }
            <div class="walk-pair walk-state">
                { tables_view(&o.tables, lang) }
                { keyspace_tree(&o.engine, lang) }
            </div>
        </div>
    }
}

/// `el.getBoundingClientRect().top` (through JS: web-sys's `DomRect` is not among the
/// features built).
fn client_top(el: &web_sys::Element) -> f64 {
    js_sys::Reflect::get(el, &JsValue::from_str("getBoundingClientRect"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call0(el).ok())
        .and_then(|r| js_sys::Reflect::get(&r, &JsValue::from_str("top")).ok())
        .and_then(|t| t.as_f64())
        .unwrap_or(0.0)
}

/// Focus helper kept for keyboard users (the run button after a step).
#[allow(dead_code)]
fn focus(r: &NodeRef) {
    if let Some(e) = r.cast::<HtmlElement>() {
        let _ = e.focus();
    }
}
