//! `kvlab-sql`: the SQL side of walkthroughs — SQLite compiled to wasm, running in a web
//! worker. The app starts it only when a walkthrough opens, so the console's first load does
//! not download SQLite. trunk builds it with `data-type="worker" data-loader-shim`
//! (index.html), which emits `kvlab-sql_loader.js` for `new Worker(…)`.
//!
//! # Protocol
//! This is the one place the main-thread ↔ worker messages are defined. Every message is a
//! plain object `{type, …}`; the worker answers each request with one message carrying the
//! same `id`.
//!
//! | direction | message | meaning |
//! | --- | --- | --- |
//! | worker → main | `{type: "ready"}` | the worker's wasm is loaded |
//! | main → worker | `{type: "open", id, schema}` | drop any database, open a fresh in-memory one and run `schema` (several statements) |
//! | worker → main | `{type: "opened", id, error?}` | `error` is SQLite's message if the schema failed |
//! | main → worker | `{type: "exec", id, sql}` | run one statement |
//! | worker → main | `{type: "result", id, text, fullscan, sort, autoindex, vm}` | `text` is the result as a walkthrough file writes it ([`kvlab::walk::SqlOutcome::to_text`]: grid, `changes:`, `plan:` lines) or `error: <message>`; the numbers are the statement's `sqlite3_stmt_status` counters |
//!
//! On other targets this program does nothing.

#[cfg(target_arch = "wasm32")]
#[path = "../sql/exec.rs"]
mod exec;

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
}

#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::RefCell;

    use js_sys::{Object, Reflect};
    use rusqlite::Connection;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    thread_local! {
        static DB: RefCell<Option<Connection>> = const { RefCell::new(None) };
    }

    fn get(obj: &JsValue, key: &str) -> JsValue {
        Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    fn set(obj: &Object, key: &str, value: JsValue) {
        let _ = Reflect::set(obj, &JsValue::from_str(key), &value);
    }

    /// Answers one request.
    fn handle(data: &JsValue) -> Object {
        let reply = Object::new();
        set(&reply, "id", get(data, "id"));
        match get(data, "type").as_string().as_deref() {
            Some("open") => {
                set(&reply, "type", "opened".into());
                let schema = get(data, "schema").as_string().unwrap_or_default();
                let result = Connection::open_in_memory().and_then(|c| {
                    c.execute_batch(&schema)?;
                    Ok(c)
                });
                match result {
                    Ok(c) => DB.with(|db| *db.borrow_mut() = Some(c)),
                    Err(e) => set(&reply, "error", e.to_string().into()),
                }
            }
            Some("exec") => {
                set(&reply, "type", "result".into());
                let sql = get(data, "sql").as_string().unwrap_or_default();
                let outcome = DB.with(|db| match db.borrow().as_ref() {
                    Some(c) => super::exec::run_sql(c, &sql),
                    None => Err("no database: send open first".to_string()),
                });
                match outcome {
                    Ok(o) => {
                        set(&reply, "text", o.to_text().into());
                        set(
                            &reply,
                            "fullscan",
                            (o.counters.fullscan_steps as f64).into(),
                        );
                        set(&reply, "sort", (o.counters.sorts as f64).into());
                        set(&reply, "autoindex", (o.counters.autoindex as f64).into());
                        set(&reply, "vm", (o.counters.vm_steps as f64).into());
                    }
                    Err(e) => set(&reply, "text", format!("error: {e}").into()),
                }
            }
            _ => set(&reply, "type", "unknown".into()),
        }
        reply
    }

    /// Installs the message handler and says it is ready.
    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let out = scope.clone();
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let _ = out.post_message(&handle(&e.data()));
        });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        let ready = Object::new();
        set(&ready, "type", "ready".into());
        let _ = scope.post_message(&ready);
    }
}
