//! The persistence service: the app's link to [`crate::persist`], the only UI code that
//! knows about it (components, the workspace manager included, go through here). Two
//! calls, in this order:
//!
//! 1. [`prepare`] (async, before the app mounts): opens the workspace named by `?ws=` in
//!    the page address (default `default`) and reads its dataset.
//! 2. [`connect`] (when the engine service is created): puts the dataset into the engine,
//!    lets the persister snapshot it later, and registers an observer of the service, so
//!    the effects of every command and expiry cycle, from any pane or view, are saved
//!    ([`record`]) in order.
//!
//! A reply is shown once its write is committed: while a write is pending, `<html>` has
//! `data-persist-pending` and the newest output is hidden (a rule in `www/style.css`); the
//! commit takes a few milliseconds. The rewritten UI should instead wait for
//! [`crate::persist::Status::pending`] to clear before showing a write's reply.
//!
//! The status (saving, or why not) is shown in a banner (`#persist-status`, `role=status`)
//! outside the Yew tree, and mirrored in `data-persist*` attributes of `<html>` for tests
//! and benchmarks.

use std::cell::RefCell;
use std::rc::Rc;

use crate::app::engine::{load_scripts, ScriptChange};
use crate::app::units::tenths;
use crate::engine::keyspace::Db;
use crate::engine::snapshot;
use crate::engine::{Effect, Engine};
use crate::persist::{self, Persister, Status};
use crate::ui::i18n::Lang;

/// The workspace manager's operations on the stored workspaces.
pub use crate::persist::{
    create_workspace, delete_workspace, download, list_workspaces, remove_workspace,
    rename_workspace, reset_workspace, workspace_bytes,
};

/// A stored dataset read at start-up: the databases and the function libraries' code.
type Restored = (Vec<Db>, Vec<Vec<u8>>);

thread_local! {
    static PERSISTER: RefCell<Option<Persister>> = const { RefCell::new(None) };
    static RESTORED: RefCell<Option<Restored>> = const { RefCell::new(None) };
    /// The banner's language (the app's, see [`set_lang`]) and the status it shows.
    static BANNER: RefCell<(Option<Lang>, Option<Status>)> = const { RefCell::new((None, None)) };
}

/// Shows the persistence banner in `lang` from now on (the app calls it whenever its
/// language changes; before that, the language saved or asked for by the browser).
pub fn set_lang(lang: Lang) {
    let last = BANNER.with(|b| {
        let mut b = b.borrow_mut();
        b.0 = Some(lang);
        b.1.clone()
    });
    if let Some(s) = last {
        show_status(&s);
    }
}

fn banner_lang() -> Lang {
    BANNER
        .with(|b| b.borrow().0)
        .unwrap_or_else(|| match super::storage::get("lang").as_deref() {
            Some("en") => Lang::En,
            Some("zh-CN") => Lang::Zh,
            _ => Lang::detect(),
        })
}

/// The banner's lines for `s` in `lang`: why writes are not saved, then each damage found.
pub fn status_lines(s: &Status, lang: Lang) -> Vec<String> {
    let t = lang.persist();
    let fill = |template: &str, x: &str| template.replacen("{}", x, 1);
    let mode = match &s.mode {
        persist::Mode::Saved => None,
        persist::Mode::Memory { reason } => Some(fill(t.memory, reason)),
        persist::Mode::Refused { reason } => Some(fill(t.refused, reason)),
        persist::Mode::OtherTab => Some(t.other_tab.to_string()),
        persist::Mode::WriteFailed { reason } => Some(fill(t.write_failed, reason)),
    };
    let mut lines: Vec<String> = mode.into_iter().collect();
    lines.extend(s.problems.iter().map(|p| fill(t.damaged, &p.to_string())));
    lines
}

/// The workspace named in the page address: `embed-<ws>` in embed mode (`#/embed?ws=…`),
/// else `?ws=name`, or `default`.
pub fn workspace_from_url() -> String {
    if let Some(e) = super::location::embed() {
        return format!("embed-{}", e.workspace);
    }
    Some(super::location::search())
        .and_then(|q| {
            q.trim_start_matches('?').split('&').find_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                (k == "ws" && !v.is_empty()).then(|| {
                    js_sys::decode_uri_component(v)
                        .ok()
                        .and_then(|s| s.as_string())
                        .unwrap_or_else(|| v.to_string())
                })
            })
        })
        .unwrap_or_else(|| "default".to_string())
}

/// Opens the workspace and reads its dataset. Await it before mounting the app.
pub async fn prepare() {
    let (p, dbs, functions) = persist::open(&workspace_from_url()).await;
    p.on_status(show_status);
    PERSISTER.with(|x| *x.borrow_mut() = Some(p));
    RESTORED.with(|x| *x.borrow_mut() = Some((dbs, functions)));
}

/// Installs the dataset [`prepare`] read into `engine` (once) and attaches the persister.
pub fn install(engine: &Rc<RefCell<Engine>>) {
    if let Some((dbs, functions)) = RESTORED.with(|x| x.borrow_mut().take()) {
        if let Ok(mut e) = engine.try_borrow_mut() {
            snapshot::install(&mut e, dbs);
            snapshot::install_functions(&mut e, functions);
        }
    }
    PERSISTER.with(|x| {
        if let Some(p) = x.borrow().as_ref() {
            p.attach(engine);
        }
    });
}

/// Installs the restored dataset into the service's engine, caches the stored scripts
/// again (`SCRIPT LOAD`, before any command), and saves every later write and script: the
/// service's observers see each batch of effects and each change of the script cache, in
/// order, right after it happens.
pub fn connect(service: &super::engine::EngineService) {
    let shared = service.shared();
    install(&shared);
    let scripts = PERSISTER.with(|x| x.borrow().as_ref().map(Persister::take_scripts));
    service.restore_scripts(&scripts.unwrap_or_default());
    service.observe_scripts(Rc::new(|change: &ScriptChange| {
        PERSISTER.with(|x| {
            if let Some(p) = x.borrow().as_ref() {
                p.record_scripts(change);
            }
        });
    }));
    let engine = Rc::downgrade(&shared);
    service.observe(Rc::new(move |effects: &[Effect]| {
        let at = engine
            .upgrade()
            .and_then(|e| e.try_borrow().ok().map(|e| e.now_ms()))
            .unwrap_or_else(|| js_sys::Date::now() as i64);
        record(effects.to_vec(), at);
    }));
}

/// Saves the effects of a command (or expiry cycle) that ran at `at_ms`.
pub fn record(effects: Vec<Effect>, at_ms: i64) {
    PERSISTER.with(|x| {
        if let Some(p) = x.borrow().as_ref() {
            p.record(effects, at_ms);
        }
    });
}

/// True while this tab owns the workspace (holds its Web Lock): it runs it and saves it.
pub fn holds_lock() -> bool {
    PERSISTER.with(|x| x.borrow().as_ref().is_some_and(Persister::holds_lock))
}

/// True when every recorded write is committed.
pub fn idle() -> bool {
    PERSISTER.with(|x| x.borrow().as_ref().is_none_or(Persister::is_idle))
}

/// Resolves once every write recorded so far is committed (or failed).
pub async fn flushed() {
    let p = PERSISTER.with(|x| x.borrow().clone());
    if let Some(p) = p {
        p.flushed().await;
    }
}

/// This tab takes the workspace over (the tab that owned it is gone; see [`super::tabs`]):
/// opens it again — the lock is this tab's now — replaces the engine's dataset with what is
/// stored, and saves every later write.
pub async fn take_over(engine: &Rc<RefCell<Engine>>) {
    let old = PERSISTER.with(|x| x.borrow_mut().take());
    if let Some(old) = old {
        old.close().await;
    }
    let (p, dbs, functions) = persist::open(&workspace_from_url()).await;
    p.on_status(show_status);
    if let Ok(mut e) = engine.try_borrow_mut() {
        snapshot::install(&mut e, dbs);
        snapshot::install_functions(&mut e, functions);
        // The scripts are stored already: the service reports them once more at the next
        // command (its record of the cache is the replica's, empty), an idempotent put.
        load_scripts(&mut e, &p.take_scripts());
    }
    p.attach(engine);
    PERSISTER.with(|x| *x.borrow_mut() = Some(p));
}

fn show_status(s: &Status) {
    BANNER.with(|b| b.borrow_mut().1 = Some(s.clone()));
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(root) = doc.document_element() {
        let _ = root.set_attribute("data-persist", s.mode.tag());
        let _ = root.set_attribute("data-persist-workspace", &s.workspace);
        let _ = root.set_attribute("data-persist-appended", &s.appended.to_string());
        let _ = root.set_attribute("data-persist-restore-ms", &tenths(s.restore_ms));
        let _ = root.set_attribute("data-persist-commit-ms", &tenths(s.last_commit_ms));
        let _ = root.set_attribute("data-persist-snapshot-ms", &tenths(s.snapshot_encode_ms));
        let _ = root.set_attribute("data-persist-snapshot-bytes", &s.snapshot_bytes.to_string());
        let _ = root.set_attribute("data-persist-log-bytes", &s.log_bytes.to_string());
        // While a write is uncommitted its reply stays hidden (www/style.css), so that a
        // reply on screen is a reply on disk.
        if s.pending {
            let _ = root.set_attribute("data-persist-pending", "");
        } else {
            let _ = root.remove_attribute("data-persist-pending");
        }
    }
    let lang = banner_lang();
    let mut lines = status_lines(s, lang);
    // Embeds of one tutorial page share workspaces by design: a reader needs no word about
    // which frame runs it.
    if s.mode == persist::Mode::OtherTab && super::location::embed().is_some() && !lines.is_empty()
    {
        lines.remove(0);
    }
    let banner = match doc.get_element_by_id("persist-status") {
        Some(b) => b,
        None => {
            if lines.is_empty() {
                return;
            }
            let Ok(b) = doc.create_element("div") else {
                return;
            };
            b.set_id("persist-status");
            let _ = b.set_attribute("role", "status");
            let _ = b.set_attribute("class", "persist-status");
            let _ = b.set_attribute("lang", lang.tag());
            if let Some(body) = doc.body() {
                let _ = body.prepend_with_node_1(&b);
            }
            b
        }
    };
    let _ = banner.set_attribute("lang", lang.tag());
    b_set_text(&banner, &lines.join("\n"));
}

fn b_set_text(el: &web_sys::Element, text: &str) {
    el.set_text_content(Some(text));
    if text.is_empty() {
        let _ = el.set_attribute("hidden", "");
    } else {
        let _ = el.remove_attribute("hidden");
    }
}

/// The page's workspace (as opened by [`prepare`]).
pub fn current_workspace() -> String {
    PERSISTER
        .with(|x| x.borrow().as_ref().map(|p| p.status().workspace))
        .unwrap_or_else(workspace_from_url)
}

/// Bytes stored for the page's workspace.
pub async fn current_bytes() -> Option<u64> {
    let p = PERSISTER.with(|x| x.borrow().clone())?;
    p.stored_bytes().await
}

/// Leaves the page's workspace before it is renamed or deleted, or the page moves to
/// another: waits for pending writes and releases the workspace. Writes after this are
/// not saved, so navigate away next.
pub async fn leave() {
    let p = PERSISTER.with(|x| x.borrow().clone());
    if let Some(p) = p {
        p.close().await;
    }
}
