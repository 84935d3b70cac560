//! Walkthroughs in the app: the list (search, language, load from a file or a URL) and the
//! side-by-side page where each step runs on SQLite (in the SQL worker, [`sql`]) and on a
//! kvlab engine of its own (a separate workspace from the console).
//!
//! # Hook for the app
//! [`use_walk_route`] reads the location hash; when it is `#/walk…` the app renders
//! [`WalkthroughPage`] instead of the console. Links: `#/walk` (the list), `#/walk/<id>`,
//! `#/walk/<id>/<step>` (deep link: the steps before `<step>` are run first).

pub mod sql;
mod tables;
mod view;

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{HtmlElement, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use self::sql::{SqlReply, SqlWorker};
use self::tables::{read_tables, tables_view, TableInfo};
use crate::engine::cli::split_args;
use crate::engine::{ClientId, Engine};
use crate::share::Route;
use crate::ui::console;
use crate::ui::i18n::{Lang, WalkText};
use crate::walk::cost::{kv_cost, KvCost};
use crate::walk::kv::{new_engine, run_kv};
use crate::walk::recap::Recap;
use crate::walk::{display_zh, parse, parse_index, WalkError, Walkthrough};

/// Where the walkthrough files are served from (trunk copies `www/walkthroughs/` there).
pub const BASE: &str = "walkthroughs/";

/// A parsed `#/walk…` location.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WalkRoute {
    /// The walkthrough's id; `None` for the list.
    pub id: Option<String>,
    /// The 1-based step shown.
    pub step: usize,
}

impl WalkRoute {
    /// Parses a location hash (see [`Route::parse`]); `None` when it is not a walkthrough
    /// link.
    pub fn parse(hash: &str) -> Option<WalkRoute> {
        match Route::parse(hash) {
            Route::Walk { id, step } => Some(WalkRoute {
                id,
                step: step.unwrap_or(1),
            }),
            _ => None,
        }
    }

    /// The hash that leads here.
    pub fn hash(&self) -> String {
        let route = Route::Walk {
            id: self.id.clone(),
            step: self.id.as_ref().map(|_| self.step.max(1)),
        };
        format!("#{}", route.fragment())
    }
}

fn current_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

fn go(route: &WalkRoute) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_hash(&route.hash());
    }
}

/// The walkthrough route in the location hash, kept up to date on `hashchange`; `None` when
/// the hash is not a walkthrough link (the app then shows the console).
#[hook]
pub fn use_walk_route() -> Option<WalkRoute> {
    let route = use_state(|| WalkRoute::parse(&current_hash()));
    {
        let route = route.clone();
        use_effect_with((), move |_| {
            let cb =
                Closure::<dyn FnMut()>::new(move || route.set(WalkRoute::parse(&current_hash())));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ =
                    w.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = window {
                    let _ = w.remove_event_listener_with_callback(
                        "hashchange",
                        cb.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    (*route).clone()
}

/// A walkthrough text as shown in `lang` (see [`display_zh`]).
fn show(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => text.to_string(),
        Lang::Zh => display_zh(text),
    }
}

fn tag(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh",
    }
}

/// One SQL statement run.
#[derive(Clone)]
pub(crate) struct SqlRun {
    pub(crate) sql: String,
    pub(crate) reply: SqlReply,
    pub(crate) expect: Option<String>,
}

/// One KV command run.
#[derive(Clone)]
pub(crate) struct KvRun {
    pub(crate) command: String,
    pub(crate) reply: String,
    pub(crate) expect: Option<String>,
    pub(crate) cost: KvCost,
}

/// The results of one step (or one free-play run).
#[derive(Clone, Default)]
struct StepRun {
    /// 1-based step number; 0 for free play.
    step: usize,
    sql: Vec<SqlRun>,
    kv: Vec<KvRun>,
}

/// An open walkthrough.
struct Open {
    walk: Rc<Walkthrough>,
    engine: Engine,
    client: ClientId,
    runs: Vec<StepRun>,
    /// Steps run so far.
    done: usize,
    error: Option<String>,
    /// Bumped on every reset, so an older run still in flight stops.
    generation: u64,
    /// The SQL database's tables as last read (after the schema and after each run).
    tables: Vec<TableInfo>,
    /// What each side builds, from the walkthrough's data.
    recap: Rc<Recap>,
}

/// Everything the page keeps between renders.
#[derive(Default)]
struct Session {
    catalog: Vec<Rc<Walkthrough>>,
    load_errors: Vec<LoadError>,
    loaded: bool,
    worker: Option<SqlWorker>,
    worker_error: Option<String>,
    open: Option<Open>,
    busy: bool,
    generation: u64,
    /// What the learner typed in free play's boxes (kept across runs and redraws).
    free_sql: Option<String>,
    free_kv: Option<String>,
    /// Escape was pressed in a free-play box: the next Tab leaves it instead of indenting.
    tab_leaves: bool,
}

type Shared = Rc<RefCell<Session>>;

/// Why a walkthrough file could not be loaded; shown in the UI language.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LoadError {
    /// The file could not be fetched: its URL and what the browser or server said.
    Fetch {
        /// The URL asked for.
        url: String,
        /// `HTTP 404`, or the browser's own error text (kept verbatim).
        detail: String,
    },
    /// The file was read but is not a valid walkthrough.
    Walk(WalkError),
}

impl LoadError {
    fn fetch(url: &str, detail: String) -> LoadError {
        LoadError::Fetch {
            url: url.to_string(),
            detail,
        }
    }

    fn text(&self, lang: Lang) -> String {
        match self {
            LoadError::Fetch { url, detail } => WalkText::FetchFailed { url, detail }.text(lang),
            LoadError::Walk(e) => e.text(lang),
        }
    }
}

async fn fetch_text(url: &str) -> Result<String, LoadError> {
    let window = web_sys::window().ok_or_else(|| LoadError::fetch(url, "no window".into()))?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| LoadError::fetch(url, js_error_text(&e)))?;
    let resp: web_sys::Response = resp
        .dyn_into()
        .map_err(|_| LoadError::fetch(url, "not a response".into()))?;
    if !resp.ok() {
        return Err(LoadError::fetch(url, format!("HTTP {}", resp.status())));
    }
    let text = JsFuture::from(
        resp.text()
            .map_err(|e| LoadError::fetch(url, js_error_text(&e)))?,
    )
    .await
    .map_err(|e| LoadError::fetch(url, js_error_text(&e)))?;
    Ok(text.as_string().unwrap_or_default())
}

/// A thrown JS value as text: an Error's `String(e)` (`TypeError: Failed to fetch`).
fn js_error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.to_string()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Parses and validates a file's text; the error names the file and step.
fn load(name: &str, text: &str) -> Result<Walkthrough, LoadError> {
    let w = parse(name, text).map_err(LoadError::Walk)?;
    w.validate(name).map_err(LoadError::Walk)?;
    Ok(w)
}

async fn load_catalog(s: Shared, redraw: Callback<()>) {
    let mut catalog = Vec::new();
    let mut errors = Vec::new();
    match fetch_text(&format!("{BASE}index.txt")).await {
        Ok(index) => {
            for file in parse_index(&index) {
                match fetch_text(&format!("{BASE}{file}")).await {
                    Ok(text) => match load(&file, &text) {
                        Ok(w) => catalog.push(Rc::new(w)),
                        Err(e) => errors.push(e),
                    },
                    Err(e) => errors.push(e),
                }
            }
        }
        Err(e) => errors.push(e),
    }
    {
        let mut s = s.borrow_mut();
        for w in catalog {
            if !s.catalog.iter().any(|c| c.id == w.id) {
                s.catalog.push(w);
            }
        }
        s.load_errors.extend(errors);
        s.loaded = true;
    }
    redraw.emit(());
}

fn worker(s: &Shared) -> Option<SqlWorker> {
    let mut s = s.borrow_mut();
    if s.worker.is_none() && s.worker_error.is_none() {
        match SqlWorker::start() {
            Ok(w) => s.worker = Some(w),
            Err(e) => s.worker_error = Some(e),
        }
    }
    s.worker.clone()
}

/// Opens `walk` afresh (new engine, new database) and runs its first `upto` steps.
async fn open(s: Shared, walk: Rc<Walkthrough>, upto: usize, redraw: Callback<()>) {
    let generation = {
        let mut st = s.borrow_mut();
        st.generation += 1;
        st.busy = true;
        let (mut engine, client) = new_engine();
        let mut error = None;
        for c in &walk.seed {
            let reply = run_kv(&mut engine, client, &c.command);
            if reply.starts_with("(error)") {
                error = Some(format!("[seed] {}: {reply}", c.command));
            }
        }
        st.open = Some(Open {
            walk: walk.clone(),
            engine,
            client,
            runs: Vec::new(),
            done: 0,
            error,
            generation: st.generation,
            tables: Vec::new(),
            recap: Rc::new(Recap::of(&walk)),
        });
        st.free_sql = None;
        st.free_kv = None;
        st.generation
    };
    redraw.emit(());
    if let Some(w) = worker(&s) {
        if let Err(e) = w.open(&walk.schema).await {
            if let Some(o) = s.borrow_mut().open.as_mut() {
                o.error = Some(format!("[schema] {e}"));
            }
        }
    }
    run_to(s.clone(), generation, upto, redraw.clone()).await;
    s.borrow_mut().busy = false;
    redraw.emit(());
}

/// Runs steps until `upto` steps are done, then reads the SQL tables again.
async fn run_to(s: Shared, generation: u64, upto: usize, redraw: Callback<()>) {
    run_steps(s.clone(), generation, upto, redraw).await;
    refresh_tables(&s, generation).await;
}

/// Reads the SQL database's tables for the table browser.
async fn refresh_tables(s: &Shared, generation: u64) {
    let Some(w) = worker(s) else {
        return;
    };
    let tables = read_tables(&w).await;
    if let Some(o) = s
        .borrow_mut()
        .open
        .as_mut()
        .filter(|o| o.generation == generation)
    {
        o.tables = tables;
    }
}

/// Runs steps until `upto` steps are done.
async fn run_steps(s: Shared, generation: u64, upto: usize, redraw: Callback<()>) {
    loop {
        let (walk, n) = {
            let st = s.borrow();
            let Some(o) = st.open.as_ref().filter(|o| o.generation == generation) else {
                return;
            };
            if o.done >= upto || o.done >= o.walk.steps.len() {
                return;
            }
            (o.walk.clone(), o.done)
        };
        let Some(step) = walk.steps.get(n) else {
            return;
        };
        let sql: Vec<(String, Option<String>)> = step
            .sql
            .iter()
            .map(|c| (c.sql.clone(), Some(c.expect.clone())))
            .collect();
        let kv: Vec<(String, Option<String>)> = step
            .kv
            .iter()
            .map(|c| (c.command.clone(), Some(c.expect.clone())))
            .collect();
        let run = execute(&s, generation, n + 1, sql, kv).await;
        let mut st = s.borrow_mut();
        let Some(o) = st.open.as_mut().filter(|o| o.generation == generation) else {
            return;
        };
        if let Some(run) = run {
            o.runs.push(run);
        }
        o.done += 1;
        drop(st);
        redraw.emit(());
    }
}

/// Runs SQL statements in the worker and KV commands on the walkthrough's engine.
async fn execute(
    s: &Shared,
    generation: u64,
    step: usize,
    sql: Vec<(String, Option<String>)>,
    kv: Vec<(String, Option<String>)>,
) -> Option<StepRun> {
    let mut run = StepRun {
        step,
        ..StepRun::default()
    };
    let w = worker(s);
    for (statement, expect) in sql {
        let reply = match &w {
            Some(w) => w.exec(&statement).await,
            None => SqlReply {
                text: format!(
                    "error: {}",
                    s.borrow().worker_error.clone().unwrap_or_default()
                ),
                ..SqlReply::default()
            },
        };
        run.sql.push(SqlRun {
            sql: statement,
            reply,
            expect,
        });
    }
    let mut st = s.borrow_mut();
    let o = st.open.as_mut().filter(|o| o.generation == generation)?;
    for (command, expect) in kv {
        let reply = run_kv(&mut o.engine, o.client, &command);
        let cost = kv_cost(&split_args(&command).unwrap_or_default());
        run.kv.push(KvRun {
            command,
            reply,
            expect,
            cost,
        });
    }
    Some(run)
}

/// Properties of [`WalkthroughPage`].
#[derive(Properties, PartialEq)]
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

/// The walkthroughs: the list, or one walkthrough side by side.
#[component]
pub fn WalkthroughPage(props: &WalkthroughPageProps) -> Html {
    let session: Shared = use_mut_ref(Session::default);
    let update = use_force_update();
    let redraw = Callback::from(move |()| update.force_update());
    let query = use_state(String::new);
    let free = use_state(|| false);
    let sql_ref = use_node_ref();
    let kv_ref = use_node_ref();
    let lang = props.lang;

    // In Chinese the cost lines quote the command table's complexities from the HELP texts.
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

/// Keys in a free-play box: Tab indents (two spaces, or every selected line) instead of
/// leaving the box; Escape makes the next Tab leave it, as code editors do; Shift+Tab
/// always leaves. So a keyboard user can always get out.
fn code_box_key(session: &Shared, e: KeyboardEvent) {
    if e.key() == "Escape" {
        session.borrow_mut().tab_leaves = true;
        return;
    }
    if e.key() != "Tab" {
        session.borrow_mut().tab_leaves = false;
        return;
    }
    if e.shift_key() || e.ctrl_key() || e.alt_key() || e.meta_key() {
        return;
    }
    if std::mem::take(&mut session.borrow_mut().tab_leaves) {
        return;
    }
    let Some(area) = e.target_dyn_into::<HtmlTextAreaElement>() else {
        return;
    };
    e.prevent_default();
    let value = area.value();
    // Selection offsets are in UTF-16 code units.
    let units: Vec<u16> = value.encode_utf16().collect();
    let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
    let end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
    let (start, end) = (start.min(units.len()), end.min(units.len()));
    let indent: Vec<u16> = "  ".encode_utf16().collect();
    let newline = u16::from(b'\n');
    let (new, sel_start, sel_end) = if units[start..end].contains(&newline) {
        // Indent every line the selection touches.
        let line_start = units[..start]
            .iter()
            .rposition(|&c| c == newline)
            .map_or(0, |p| p + 1);
        let mut out = units[..line_start].to_vec();
        let mut added = 0;
        out.extend_from_slice(&indent);
        added += indent.len();
        for &c in &units[line_start..end] {
            out.push(c);
            if c == newline {
                out.extend_from_slice(&indent);
                added += indent.len();
            }
        }
        out.extend_from_slice(&units[end..]);
        (out, start + indent.len(), end + added)
    } else {
        let mut out = units[..start].to_vec();
        out.extend_from_slice(&indent);
        out.extend_from_slice(&units[end..]);
        let at = start + indent.len();
        (out, at, at)
    };
    let text = String::from_utf16_lossy(&new);
    area.set_value(&text);
    let _ = area.set_selection_range(sel_start as u32, sel_end as u32);
    // Setting the value fires no input event: keep the text as oninput would.
    let mut s = session.borrow_mut();
    if area.class_name().contains("walk-edit-sql") {
        s.free_sql = Some(text);
    } else {
        s.free_kv = Some(text);
    }
}

/// The walkthrough engine's keys grouped by `:` into a tree.
fn keyspace_tree(engine: &Engine, lang: Lang) -> Html {
    let mut keys: Vec<(String, &'static str)> = engine
        .server()
        .dbs
        .first()
        .map(|db| {
            db.iter()
                .take(500)
                .map(|(k, e)| (String::from_utf8_lossy(k).into_owned(), e.value.type_name()))
                .collect()
        })
        .unwrap_or_default();
    crate::sorting::sort(&mut keys);
    let ws = lang.walk();
    fn node(keys: &[(String, &'static str)], depth: usize) -> Html {
        // Group by the segment at `depth`.
        let mut out = Vec::new();
        let mut i = 0;
        while i < keys.len() {
            let parts: Vec<&str> = keys[i].0.split(':').collect();
            if parts.len() <= depth + 1 {
                out.push(html! { <li class="leaf"><span class="key">{ &keys[i].0 }</span>{ " " }<span class="type">{ keys[i].1 }</span></li> });
                i += 1;
                continue;
            }
            let seg = parts[depth].to_string();
            let mut j = i;
            while j < keys.len() {
                let p: Vec<&str> = keys[j].0.split(':').collect();
                if p.len() > depth + 1 && p[depth] == seg {
                    j += 1;
                } else {
                    break;
                }
            }
            out.push(html! {
                <li><details open={depth < 2}><summary>{ format!("{seg}: ({})", j - i) }</summary><ul>{ node(&keys[i..j], depth + 1) }</ul></details></li>
            });
            i = j;
        }
        out.into_iter().collect::<Html>()
    }
    html! {
        <section class="walk-tree" aria-label={ws.keyspace}>
            <h4>{ ws.keyspace_grouped }</h4>
            <ul>{ node(&keys, 0) }</ul>
        </section>
    }
}

fn list_view(
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

/// Focus helper kept for keyboard users (the run button after a step).
#[allow(dead_code)]
fn focus(r: &NodeRef) {
    if let Some(e) = r.cast::<HtmlElement>() {
        let _ = e.focus();
    }
}
