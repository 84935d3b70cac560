//! A workspace as a Redis `dump.rdb`: export ([`export_rdb`], a file redis-server loads as
//! it is) and import ([`import_rdb`]) of a file from a real Redis, picked in the workspace
//! manager or dropped anywhere on the page ([`use_rdb_drop`]).
//!
//! An import reads the whole file first, a slice of keys at a time
//! ([`crate::engine::rdb::file::Loader`]), yielding to the page between slices and reporting
//! the bytes and keys read, so a big file neither freezes the page nor hides its progress.
//! The first problem found (a damaged record, a newer RDB version, a wrong checksum) stops
//! it with its text, offset and key, and nothing has changed. Only a file read to its end
//! is imported, as commands run like typed ones (the JSON import's way): every write is
//! saved by the persistence layer and reaches the other tabs. Keys that already exist
//! here are kept, as the other imports keep them.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use yew::prelude::*;

use crate::engine::export;
use crate::engine::keyspace::Db;
use crate::engine::rdb::file::{FileOptions, LoadFileOptions, Loader, Usage};
use crate::engine::rdb::read::LoadOptions;
use crate::i18n::rdb::{fill, rdb_error_text};
use crate::ui::services::persist;
use crate::ui::state::{Action, State};

/// Keys read per slice between two yields to the page.
const STEP_KEYS: usize = 2000;

/// What an import or export has to say: the text, and whether it is an error.
pub type Report = Rc<dyn Fn(String, bool)>;

/// True when `bytes` look like an RDB file (Redis's signature).
pub fn is_rdb(bytes: &[u8]) -> bool {
    bytes.starts_with(b"REDIS")
}

/// Downloads the workspace as `dump.rdb`, or reports why it can't be.
pub fn export_rdb(state: &UseReducerHandle<State>, report: &Report) {
    let t = state.lang.rdb();
    let file = state.engine().read(|e| {
        let srv = e.server();
        let now = e.now_ms();
        let opts = FileOptions {
            values: crate::engine::rdb::write::SaveOptions::from_config(&srv.config)
                .plain_from(srv.debug.packed_threshold),
            checksum: srv.config.flag("rdbchecksum"),
            ctime_s: now.div_euclid(1000),
            used_mem: crate::engine::core::memory::used_memory(srv),
            usage: Usage::None,
        };
        crate::engine::rdb::file::write_file(e.dbs(), &srv.functions.codes(), now, &opts)
    });
    match file {
        Ok(bytes) => persist::download("dump.rdb", &bytes, "application/octet-stream"),
        Err(e) => report(fill(t.export_failed, &[&e]), true),
    }
}

/// Reads `bytes` (the file `name`) in slices, then imports it; see the module's comment.
pub async fn import_rdb(
    state: UseReducerHandle<State>,
    name: String,
    bytes: Vec<u8>,
    report: Report,
) {
    let lang = state.lang;
    let t = lang.rdb();
    let refused = |why: String| (format!("{}: {why}", fill(t.refused, &[&name])), true);
    if crate::ui::services::tabs::is_follower() {
        report(lang.workspaces().import_follower.to_string(), true);
        return;
    }
    let opts = state.engine().read(|e| LoadFileOptions {
        checksum: e.server().config.flag("rdbchecksum") && e.server().debug.checksums,
        now_ms: e.now_ms(),
        values: LoadOptions::from_config(&e.server().config),
    });
    let mut loader = match Loader::new(bytes, opts) {
        Ok(l) => l,
        Err(e) => {
            let (m, err) = refused(rdb_error_text(&e, lang));
            report(m, err);
            return;
        }
    };
    let total = loader.total_bytes();
    loop {
        let percent = (loader.done_bytes() as u64 * 100) / (total.max(1) as u64);
        let progress = fill(t.progress, &[&percent, &loader.keys()]);
        report(format!("{} {progress}", fill(t.reading, &[&name])), false);
        match loader.step(STEP_KEYS) {
            Ok(true) => break,
            Ok(false) => crate::ui::services::tabs::sleep(0).await,
            Err(e) => {
                let (m, err) = refused(rdb_error_text(&e, lang));
                report(m, err);
                return;
            }
        }
    }
    let data = match loader.finish() {
        Ok(d) => d,
        Err(e) => {
            let (m, err) = refused(rdb_error_text(&e, lang));
            report(m, err);
            return;
        }
    };
    // Keys that exist here stay as they are.
    let (dbs, kept) = state.engine().read(|e| {
        let now = e.now_ms();
        let mut kept = 0usize;
        let dbs: Vec<Db> = data
            .dbs
            .into_iter()
            .enumerate()
            .map(|(i, mut db)| {
                let here = e.dbs().get(i);
                let existing: Vec<Vec<u8>> = db
                    .iter()
                    .filter(|(k, _)| {
                        here.and_then(|h| h.get_raw(k))
                            .is_some_and(|x| !x.is_expired_at(now))
                    })
                    .map(|(k, _)| k.to_vec())
                    .collect();
                kept += existing.len();
                for k in existing {
                    db.remove(&k);
                }
                db
            })
            .collect();
        (dbs, kept)
    });
    let now = state.engine().read(|e| e.now_ms());
    let mut commands = export::to_commands(&dbs, now);
    for code in &data.functions {
        commands.push(vec![b"FUNCTION".to_vec(), b"LOAD".to_vec(), code.clone()]);
    }
    let keys = data.keys as usize - kept;
    let mut m = fill(t.imported, &[&keys, &name]);
    if kept > 0 {
        m.push(' ');
        m.push_str(&fill(t.kept, &[&kept]));
    }
    if data.expired > 0 {
        m.push(' ');
        m.push_str(&fill(t.expired, &[&data.expired]));
    }
    if !data.functions.is_empty() {
        m.push(' ');
        m.push_str(&fill(t.functions, &[&data.functions.len()]));
    }
    report(m, false);
    state.dispatch(Action::Import(Rc::new(commands)));
}

/// Reads a picked or dropped file and imports it.
pub fn import_file(state: UseReducerHandle<State>, file: web_sys::File, report: Report) {
    let name = file.name();
    spawn_local(async move {
        let Ok(buf) = JsFuture::from(file.array_buffer()).await else {
            let t = state.lang.rdb();
            report(fill(t.refused, &[&name]), true);
            return;
        };
        let bytes = js_sys::Uint8Array::new(&buf).to_vec();
        import_rdb(state, name, bytes, report).await;
    });
}

/// Files dropped anywhere on the page are imported (`on_drop` gets each before it is read,
/// so the caller can open its dialog); `dragging` is true while a file is over the page.
#[hook]
pub fn use_rdb_drop(on_drop: Callback<web_sys::File>) -> bool {
    let dragging = use_state(|| false);
    // The listeners outlive renders: they call the latest callback.
    let latest = use_mut_ref(|| on_drop.clone());
    *latest.borrow_mut() = on_drop;
    {
        let dragging = dragging.clone();
        use_effect_with((), move |_| {
            let doc = web_sys::window().and_then(|w| w.document());
            let listeners = doc.map(|doc| {
                let files = |e: &web_sys::Event| {
                    js_sys::Reflect::get(e, &"dataTransfer".into())
                        .ok()
                        .and_then(|d| d.dyn_into::<web_sys::DataTransfer>().ok())
                };
                let has_files = move |e: &web_sys::Event| {
                    files(e).is_some_and(|d| {
                        d.types()
                            .iter()
                            .any(|t| t.as_string().as_deref() == Some("Files"))
                    })
                };
                let over = {
                    let dragging = dragging.clone();
                    gloo_events::EventListener::new_with_options(
                        &doc,
                        "dragover",
                        gloo_events::EventListenerOptions::enable_prevent_default(),
                        move |e| {
                            if has_files(e) {
                                e.prevent_default();
                                dragging.set(true);
                            }
                        },
                    )
                };
                let leave = {
                    let dragging = dragging.clone();
                    gloo_events::EventListener::new(&doc, "dragleave", move |e| {
                        // Leaving the window, not moving between elements.
                        let to = js_sys::Reflect::get(e, &"relatedTarget".into()).ok();
                        if to.is_none_or(|t| t.is_null()) {
                            dragging.set(false);
                        }
                    })
                };
                let drop = {
                    let dragging = dragging.clone();
                    gloo_events::EventListener::new_with_options(
                        &doc,
                        "drop",
                        gloo_events::EventListenerOptions::enable_prevent_default(),
                        move |e| {
                            let Some(file) =
                                files(e).and_then(|d| d.files()).and_then(|f| f.get(0))
                            else {
                                return;
                            };
                            e.prevent_default();
                            dragging.set(false);
                            latest.borrow().emit(file);
                        },
                    )
                };
                [over, leave, drop]
            });
            move || drop(listeners)
        });
    }
    *dragging
}
