//! What the walkthrough page keeps between renders — the catalog, the open walkthrough with
//! its engine and runs, free play's text — and the async work on it: fetching and checking
//! files, opening a walkthrough, running steps on the SQL worker and on the engine.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use super::route::BASE;
use super::run::{KvRun, SqlRun, StepRun};
use super::sql::{SqlReply, SqlWorker};
use super::tables::{read_tables, TableInfo};
use crate::engine::cli::split_args;
use crate::engine::{ClientId, Engine};
use crate::ui::i18n::{Lang, WalkText};
use crate::walk::cost::kv_cost;
use crate::walk::kv::{new_engine, run_kv};
use crate::walk::recap::Recap;
use crate::walk::{parse, parse_index, WalkError, Walkthrough};

/// An open walkthrough.
pub(super) struct Open {
    pub(super) walk: Rc<Walkthrough>,
    pub(super) engine: Engine,
    pub(super) client: ClientId,
    pub(super) runs: Vec<StepRun>,
    /// Steps run so far.
    pub(super) done: usize,
    pub(super) error: Option<String>,
    /// Bumped on every reset, so an older run still in flight stops.
    pub(super) generation: u64,
    /// The SQL database's tables as last read (after the schema and after each run).
    pub(super) tables: Vec<TableInfo>,
    /// What each side builds, from the walkthrough's data.
    pub(super) recap: Rc<Recap>,
}

/// Everything the page keeps between renders.
#[derive(Default)]
pub(super) struct Session {
    pub(super) catalog: Vec<Rc<Walkthrough>>,
    pub(super) load_errors: Vec<LoadError>,
    pub(super) loaded: bool,
    pub(super) worker: Option<SqlWorker>,
    pub(super) worker_error: Option<String>,
    pub(super) open: Option<Open>,
    pub(super) busy: bool,
    pub(super) generation: u64,
    /// What the learner typed in free play's boxes (kept across runs and redraws).
    pub(super) free_sql: Option<String>,
    pub(super) free_kv: Option<String>,
    /// Escape was pressed in a free-play box: the next Tab leaves it instead of indenting.
    pub(super) tab_leaves: bool,
}

pub(super) type Shared = Rc<RefCell<Session>>;

/// Why a walkthrough file could not be loaded; shown in the UI language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LoadError {
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

    pub(super) fn text(&self, lang: Lang) -> String {
        match self {
            LoadError::Fetch { url, detail } => WalkText::FetchFailed { url, detail }.text(lang),
            LoadError::Walk(e) => e.text(lang),
        }
    }
}

pub(super) async fn fetch_text(url: &str) -> Result<String, LoadError> {
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
pub(super) fn js_error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.to_string()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Parses and validates a file's text; the error names the file and step.
pub(super) fn load(name: &str, text: &str) -> Result<Walkthrough, LoadError> {
    let w = parse(name, text).map_err(LoadError::Walk)?;
    w.validate(name).map_err(LoadError::Walk)?;
    Ok(w)
}

pub(super) async fn load_catalog(s: Shared, redraw: Callback<()>) {
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

pub(super) fn worker(s: &Shared) -> Option<SqlWorker> {
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
pub(super) async fn open(s: Shared, walk: Rc<Walkthrough>, upto: usize, redraw: Callback<()>) {
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
pub(super) async fn run_to(s: Shared, generation: u64, upto: usize, redraw: Callback<()>) {
    run_steps(s.clone(), generation, upto, redraw).await;
    refresh_tables(&s, generation).await;
}

/// Reads the SQL database's tables for the table browser.
pub(super) async fn refresh_tables(s: &Shared, generation: u64) {
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
pub(super) async fn run_steps(s: Shared, generation: u64, upto: usize, redraw: Callback<()>) {
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
pub(super) async fn execute(
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
