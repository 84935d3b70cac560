//! The main thread's side of the SQL worker (`src/bin/kvlab-sql.rs`, which documents the
//! message protocol). The worker is started the first time a walkthrough needs SQL, so the
//! console never downloads SQLite unless a walkthrough is opened.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker};

/// The loader script trunk emits for the worker (`data-loader-shim`).
pub const WORKER_URL: &str = "./kvlab-sql_loader.js";

/// One statement's result from the worker.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SqlReply {
    /// The result as a walkthrough file writes it (grid, `changes:`, `plan:`), or `error: …`.
    pub text: String,
    /// `SQLITE_STMTSTATUS_FULLSCAN_STEP`.
    pub fullscan: i64,
    /// `SQLITE_STMTSTATUS_SORT`.
    pub sort: i64,
    /// `SQLITE_STMTSTATUS_AUTOINDEX`.
    pub autoindex: i64,
    /// `SQLITE_STMTSTATUS_VM_STEP`.
    pub vm: i64,
}

struct Inner {
    worker: Worker,
    next_id: u32,
    pending: HashMap<u32, Function>,
    /// False until the worker says `ready`: a message posted before its wasm has loaded
    /// and installed the handler would be dropped, so requests wait here until then.
    ready: bool,
    queued: Vec<Object>,
    _onmessage: Closure<dyn FnMut(MessageEvent)>,
}

/// A handle on the SQL worker; clones share it.
#[derive(Clone)]
pub struct SqlWorker(Rc<RefCell<Inner>>);

impl PartialEq for SqlWorker {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn set(obj: &Object, key: &str, value: JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value);
}

impl SqlWorker {
    /// Starts the worker.
    ///
    /// # Errors
    /// The browser's message when the worker cannot be created.
    pub fn start() -> Result<SqlWorker, String> {
        let worker = Worker::new(WORKER_URL).map_err(|e| format!("{e:?}"))?;
        let cell: Rc<RefCell<Option<std::rc::Weak<RefCell<Inner>>>>> = Rc::new(RefCell::new(None));
        let weak_slot = cell.clone();
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let Some(inner) = weak_slot.borrow().as_ref().and_then(|w| w.upgrade()) else {
                return;
            };
            if get(&data, "type").as_string().as_deref() == Some("ready") {
                let mut inner = inner.borrow_mut();
                inner.ready = true;
                for msg in std::mem::take(&mut inner.queued) {
                    let _ = inner.worker.post_message(&msg);
                }
                return;
            }
            let Some(id) = get(&data, "id").as_f64() else {
                return;
            };
            let resolve = inner.borrow_mut().pending.remove(&(id as u32));
            if let Some(resolve) = resolve {
                let _ = resolve.call1(&JsValue::NULL, &data);
            }
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        let inner = Rc::new(RefCell::new(Inner {
            worker,
            next_id: 1,
            pending: HashMap::new(),
            ready: false,
            queued: Vec::new(),
            _onmessage: onmessage,
        }));
        *cell.borrow_mut() = Some(Rc::downgrade(&inner));
        Ok(SqlWorker(inner))
    }

    /// Sends `msg` (with a fresh id) and waits for the answer with that id.
    async fn request(&self, msg: Object) -> JsValue {
        let promise = {
            let mut inner = self.0.borrow_mut();
            let id = inner.next_id;
            inner.next_id += 1;
            set(&msg, "id", f64::from(id).into());
            let mut resolve_fn = None;
            let promise = Promise::new(&mut |resolve, _reject| resolve_fn = Some(resolve));
            if let Some(f) = resolve_fn {
                inner.pending.insert(id, f);
            }
            if inner.ready {
                let _ = inner.worker.post_message(&msg);
            } else {
                inner.queued.push(msg);
            }
            promise
        };
        JsFuture::from(promise).await.unwrap_or(JsValue::UNDEFINED)
    }

    /// Opens a fresh database and runs `schema` in it.
    ///
    /// # Errors
    /// SQLite's message when the schema fails.
    pub async fn open(&self, schema: &str) -> Result<(), String> {
        let msg = Object::new();
        set(&msg, "type", "open".into());
        set(&msg, "schema", schema.into());
        let reply = self.request(msg).await;
        match get(&reply, "error").as_string() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs one statement.
    pub async fn exec(&self, sql: &str) -> SqlReply {
        let msg = Object::new();
        set(&msg, "type", "exec".into());
        set(&msg, "sql", sql.into());
        let r = self.request(msg).await;
        let num = |k: &str| get(&r, k).as_f64().unwrap_or(0.0) as i64;
        SqlReply {
            text: get(&r, "text").as_string().unwrap_or_default(),
            fullscan: num("fullscan"),
            sort: num("sort"),
            autoindex: num("autoindex"),
            vm: num("vm"),
        }
    }
}
