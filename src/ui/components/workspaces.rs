//! The workspace manager: a dialog opened from the header that lists the stored
//! workspaces (one IndexedDB database each, see [`crate::persist`]) with their stored
//! size, and creates, switches, renames, resets and deletes them; it also exports the
//! current workspace (JSON, redis-cli commands, RESP) and imports a file into it.
//!
//! Switching navigates to `?ws=<name>` (the page reloads into the other dataset). An
//! operation on the page's own workspace first leaves it (pending writes committed, the
//! Web Lock released) — except reset, which runs the real `FLUSHALL` in the active pane,
//! so it shows in the console and is saved like a typed command. Workspaces open in
//! another tab are refused (`WorkspaceBusy`). Tutorial embeds' workspaces (`embed-…`) are
//! listed apart.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use yew::prelude::*;

use super::rdb_io;
use crate::app::units::human_bytes;
use crate::engine::export;
use crate::ui::i18n::WorkspaceStrings;
use crate::ui::services::location;
use crate::ui::services::persist;
use crate::ui::state::{Action, State};

/// Longest workspace name.
pub const MAX_NAME: usize = 64;

/// Why a workspace name is refused, if it is (the message key, see [`WorkspaceStrings`]).
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Some("length");
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Some("chars");
    }
    if name.starts_with("embed-") {
        return Some("embed");
    }
    None
}

fn fill(t: &str, x: impl std::fmt::Display) -> String {
    t.replacen("{}", &x.to_string(), 1)
}

fn error_text(t: &WorkspaceStrings, e: &str) -> String {
    match e {
        "WorkspaceExists" => t.exists.to_string(),
        "WorkspaceBusy" => t.busy.to_string(),
        other => format!("{}: {other}", t.failed),
    }
}

/// Goes to workspace `name` (the page reloads into it).
pub fn navigate_to(name: &str) {
    let enc: String = js_sys::encode_uri_component(name).into();
    location::load(&format!("{}?ws={enc}", location::path()));
}

/// One listed workspace.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    name: String,
    bytes: Option<u64>,
}

/// A confirmation being asked.
#[derive(Debug, Clone, PartialEq)]
enum Ask {
    Reset(String),
    Delete(String),
    Rename(String),
}

/// Properties of [`Workspaces`].
#[derive(Properties, PartialEq)]
pub struct WorkspacesProps {
    /// The app state (engine, active pane, language).
    pub state: UseReducerHandle<State>,
}

/// The header button and the workspace manager dialog.
///
/// The dialog is a component of its own, mounted only while it is open: start-up renders
/// the button alone, so the dialog's code stays out of the first load (`scripts/split.mjs`
/// keeps in the primary wasm only what start-up runs), and each opening starts with no
/// message and no question, as a fresh dialog should.
#[component]
pub fn Workspaces(props: &WorkspacesProps) -> Html {
    let state = props.state.clone();
    let t = state.lang.workspaces();
    let open = use_state(|| false);
    let current = persist::current_workspace();
    let rdb_t = state.lang.rdb();
    // A dump.rdb dropped on the page opens the dialog, which imports it (`drops` counts the
    // drops, so an open dialog sees the next one too).
    let dropped = use_mut_ref(|| None::<web_sys::File>);
    let drops = use_state(|| 0u32);
    let dragging = rdb_io::use_rdb_drop({
        let open = open.clone();
        let dropped = dropped.clone();
        let drops = drops.clone();
        Callback::from(move |file: web_sys::File| {
            *dropped.borrow_mut() = Some(file);
            drops.set(*drops + 1);
            open.set(true);
        })
    });
    // Give the focus back to the header button when the dialog closes (Escape, ✕ or a
    // choice), so the keyboard is where it was.
    let opener = use_node_ref();
    {
        let opener = opener.clone();
        let was_open = use_mut_ref(|| false);
        use_effect_with(*open, move |open| {
            if !*open && *was_open.borrow() {
                if let Some(el) = opener.cast::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
            }
            *was_open.borrow_mut() = *open;
        });
    }
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let on_close = {
        let open = open.clone();
        Callback::from(move |()| open.set(false))
    };
    html! {
        <>
            if dragging {
                <div class="rdb-drop" aria-hidden="true"><span>{ rdb_t.drop }</span></div>
            }
            <button type="button" class="lang ws-button" ref={opener} onclick={toggle} aria-haspopup="dialog"
                aria-expanded={(*open).to_string()} title={t.open}>
                <span aria-hidden="true">{ "▤ " }</span>{ current.clone() }
                <span class="visually-hidden">{ format!(" — {}", t.open) }</span>
            </button>
            if *open {
                <WorkspaceDialog state={state.clone()} {on_close} dropped={Dropped(dropped.clone())}
                    drops={*drops} />
            }
        </>
    }
}

/// A file dropped on the page, waiting for the dialog to import it (compared by identity).
#[derive(Clone)]
pub struct Dropped(Rc<std::cell::RefCell<Option<web_sys::File>>>);

impl PartialEq for Dropped {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Properties of [`WorkspaceDialog`].
#[derive(Properties, PartialEq)]
pub struct WorkspaceDialogProps {
    /// The app state (engine, active pane, language).
    pub state: UseReducerHandle<State>,
    /// Closes the dialog.
    pub on_close: Callback<()>,
    /// A dropped file to import, taken when `drops` changes (and when the dialog opens).
    pub dropped: Dropped,
    /// How many files were dropped so far.
    pub drops: u32,
}

/// The workspace manager dialog (see [`Workspaces`]).
#[component]
fn WorkspaceDialog(props: &WorkspaceDialogProps) -> Html {
    let state = props.state.clone();
    let t = state.lang.workspaces();
    let on_close = props.on_close.clone();
    let rows = use_state(Vec::<Row>::new);
    let message = use_state(|| None::<(String, bool)>);
    let ask = use_state(|| None::<Ask>);
    let draft = use_state(String::new);
    let rename_draft = use_state(String::new);
    let busy = use_state(|| false);
    let version = use_state(|| 0u32);
    let dialog = use_node_ref();
    let current = persist::current_workspace();
    let rdb_t = state.lang.rdb();
    let report: rdb_io::Report = {
        let message = message.clone();
        Rc::new(move |m: String, err: bool| message.set(Some((m, err))))
    };
    // Import the file dropped on the page (the one that opened the dialog, or a later one).
    {
        let state = state.clone();
        let report = report.clone();
        let dropped = props.dropped.clone();
        use_effect_with(props.drops, move |_| {
            if let Some(file) = dropped.0.borrow_mut().take() {
                rdb_io::import_file(state, file, report);
            }
        });
    }
    let on_rdb_file = {
        let state = state.clone();
        let report = report.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                input.set_value("");
                rdb_io::import_file(state.clone(), file, report.clone());
            }
        })
    };
    let on_rdb_export = {
        let state = state.clone();
        let report = report.clone();
        Callback::from(move |_: MouseEvent| rdb_io::export_rdb(&state, &report))
    };

    // (Re)load the list with sizes while the dialog is open.
    {
        let rows = rows.clone();
        let current = current.clone();
        use_effect_with(*version, move |_| {
            spawn_local(async move {
                let mut names = persist::list_workspaces().await;
                if !names.contains(&current) {
                    names.push(current.clone());
                }
                names.sort();
                let mut out = Vec::new();
                for name in names {
                    let bytes = if name == current {
                        persist::current_bytes().await
                    } else {
                        persist::workspace_bytes(&name).await
                    };
                    out.push(Row { name, bytes });
                }
                rows.set(out);
            });
        });
    }
    // Escape anywhere while the dialog is open: close the question, else the dialog (a
    // document listener, so it works wherever the focus went).
    {
        let on_close = on_close.clone();
        let ask = ask.clone();
        let dialog = dialog.clone();
        use_effect_with((*ask).is_some(), move |asking| {
            let asking = *asking;
            let doc = web_sys::window().and_then(|w| w.document());
            // Removed when dropped: when the dialog closes or the question changes.
            let listener = doc.map(|doc| {
                gloo_events::EventListener::new(&doc, "keydown", move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    if e.key() != "Escape" {
                        return;
                    }
                    if asking {
                        if let Some(el) = dialog.cast::<web_sys::HtmlElement>() {
                            let _ = el.focus();
                        }
                        ask.set(None);
                    } else {
                        on_close.emit(());
                    }
                })
            });
            move || drop(listener)
        });
    }
    // Focus the dialog when it opens (the header button takes it back when it closes).
    {
        let dialog = dialog.clone();
        use_effect_with((), move |_| {
            if let Some(el) = dialog.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    // A confirmation takes the focus (its name field, else Cancel), so the keyboard is
    // where the question is and Escape reaches the dialog.
    {
        let dialog = dialog.clone();
        use_effect_with((*ask).clone(), move |ask| {
            if ask.is_some() {
                let target = dialog.cast::<web_sys::Element>().and_then(|d| {
                    d.query_selector(".ws-confirm input, .ws-confirm .ws-cancel")
                        .ok()
                        .flatten()
                });
                if let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            }
        });
    }
    // Report an import's result once the reducer has run it.
    {
        let message = message.clone();
        let version = version.clone();
        // Not the report already there when the dialog opened: that one was shown before.
        let opened = use_mut_ref(|| true);
        use_effect_with(state.import_report.clone(), move |r| {
            if std::mem::replace(&mut *opened.borrow_mut(), false) {
                return;
            }
            if let Some(r) = r {
                if !r.errors.is_empty() {
                    let (n, e) = &r.errors[0];
                    message.set(Some((
                        format!("{} / {}: #{n} {e}", r.errors.len(), r.commands),
                        true,
                    )));
                }
                version.set(*version + 1);
            }
        });
    }

    let close = {
        let on_close = on_close.clone();
        Callback::from(move |_: MouseEvent| on_close.emit(()))
    };

    // Runs an async operation, then shows its message and reloads the list.
    let run = {
        let message = message.clone();
        let busy = busy.clone();
        let version = version.clone();
        let ask = ask.clone();
        let dialog = dialog.clone();
        Rc::new(
            move |fut: std::pin::Pin<
                Box<dyn std::future::Future<Output = Result<String, String>>>,
            >| {
                let message = message.clone();
                let busy = busy.clone();
                let version = version.clone();
                // The confirmation (and its focused button) goes away: keep the keyboard
                // in the dialog.
                if let Some(el) = dialog.cast::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
                ask.set(None);
                busy.set(true);
                message.set(Some((t.working.to_string(), false)));
                spawn_local(async move {
                    let r = fut.await;
                    busy.set(false);
                    message.set(Some(match r {
                        Ok(m) => (m, false),
                        Err(e) => (error_text(t, &e), true),
                    }));
                    version.set(*version + 1);
                });
            },
        )
    };

    let on_draft = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                draft.set(i.value());
            }
        })
    };
    let on_rename_draft = {
        let d = rename_draft.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                d.set(i.value());
            }
        })
    };
    let problem_text = |p: &str| match p {
        "length" => t.bad_length,
        "chars" => t.bad_chars,
        _ => t.bad_embed,
    };
    let draft_name = draft.trim().to_string();
    let draft_problem = (!draft_name.is_empty())
        .then(|| name_problem(&draft_name))
        .flatten();
    let on_create = {
        let run = run.clone();
        let draft = draft.clone();
        let message = message.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let name = draft.trim().to_string();
            if let Some(p) = name_problem(&name) {
                message.set(Some((problem_text(p).to_string(), true)));
                return;
            }
            draft.set(String::new());
            run(Box::pin(async move {
                persist::create_workspace(&name).await?;
                Ok(fill(t.created, &name))
            }));
        })
    };

    let do_confirm = {
        let run = run.clone();
        let ask = ask.clone();
        let state = state.clone();
        let current = current.clone();
        let rename_draft = rename_draft.clone();
        let message = message.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(a) = (*ask).clone() else {
                return;
            };
            let is_current = |n: &str| n == current;
            match a {
                Ask::Reset(name) if is_current(&name) => {
                    state.dispatch(Action::Run("FLUSHALL".to_string()));
                    let name2 = name.clone();
                    run(Box::pin(async move {
                        persist::flushed().await;
                        Ok(fill(t.reset_done, &name2))
                    }));
                }
                Ask::Reset(name) => run(Box::pin(async move {
                    persist::reset_workspace(&name).await?;
                    Ok(fill(t.reset_done, &name))
                })),
                Ask::Delete(name) => {
                    let here = is_current(&name);
                    run(Box::pin(async move {
                        if here {
                            persist::leave().await;
                            persist::delete_workspace(&name).await?;
                            navigate_to("default");
                        } else {
                            persist::remove_workspace(&name).await?;
                        }
                        Ok(fill(t.deleted, &name))
                    }));
                }
                Ask::Rename(name) => {
                    let to = rename_draft.trim().to_string();
                    if let Some(p) = name_problem(&to) {
                        message.set(Some((problem_text(p).to_string(), true)));
                        return;
                    }
                    let here = is_current(&name);
                    run(Box::pin(async move {
                        if here {
                            persist::leave().await;
                            match persist::rename_workspace(&name, &to).await {
                                Ok(()) => navigate_to(&to),
                                // Back into the old one (nothing changed there).
                                Err(e) => {
                                    navigate_to(&name);
                                    return Err(e);
                                }
                            }
                        } else {
                            persist::rename_workspace(&name, &to).await?;
                        }
                        Ok(format!("{name} → {to}"))
                    }));
                }
            }
        })
    };
    let cancel_ask = {
        let ask = ask.clone();
        let dialog = dialog.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(el) = dialog.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
            ask.set(None);
        })
    };

    // Export of the current workspace.
    let export_btn = |kind: &'static str, label: &'static str| {
        let state = state.clone();
        let current = current.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            let (bytes, ext, mime) = state.engine().read(|e| {
                let now = e.now_ms();
                match kind {
                    "json" => (
                        export::to_json(e.dbs(), now).into_bytes(),
                        "json",
                        "application/json",
                    ),
                    "cli" => (
                        export::to_cli_text(&export::to_commands(e.dbs(), now)).into_bytes(),
                        "redis",
                        "text/plain",
                    ),
                    _ => (
                        export::to_resp(&export::to_commands(e.dbs(), now)),
                        "resp",
                        "application/octet-stream",
                    ),
                }
            });
            persist::download(&format!("kvlab-{current}.{ext}"), &bytes, mime);
        });
        html! {
            <button type="button" class={classes!("ws-export", format!("ws-export-{kind}"))} {onclick}>
                { label }
            </button>
        }
    };

    let on_file = {
        let state = state.clone();
        let message = message.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() else {
                return;
            };
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            // A follower tab's engine is a replica: an import must run where the workspace
            // is run and saved.
            if crate::ui::services::tabs::is_follower() {
                message.set(Some((t.import_follower.to_string(), true)));
                return;
            }
            let state = state.clone();
            let message = message.clone();
            spawn_local(async move {
                let Ok(buf) = JsFuture::from(file.array_buffer()).await else {
                    message.set(Some((t.import_failed.to_string(), true)));
                    return;
                };
                let bytes = js_sys::Uint8Array::new(&buf).to_vec();
                if rdb_io::is_rdb(&bytes) {
                    let report: rdb_io::Report =
                        Rc::new(move |m: String, err: bool| message.set(Some((m, err))));
                    rdb_io::import_rdb(state, file.name(), bytes, report).await;
                    return;
                }
                let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
                let commands = match first {
                    Some(b'{') => {
                        let plan = state.engine().read(|en| {
                            let now = en.now_ms();
                            export::json_plan(&bytes, now, |db, key| {
                                en.dbs()
                                    .get(db)
                                    .and_then(|d| d.get_raw(key))
                                    .is_some_and(|x| !x.is_expired_at(now))
                            })
                        });
                        match plan {
                            Ok(p) => {
                                let mut m = fill(t.imported, p.keys);
                                if p.expired > 0 {
                                    m.push(' ');
                                    m.push_str(&fill(t.skipped_expired, p.expired));
                                }
                                if !p.existing.is_empty() {
                                    m.push(' ');
                                    m.push_str(&fill(t.skipped_existing, p.existing.len()));
                                }
                                message.set(Some((m, false)));
                                p.commands
                            }
                            Err(err) => {
                                message.set(Some((format!("{}: {err}", t.import_failed), true)));
                                return;
                            }
                        }
                    }
                    Some(b'*') => {
                        let (cmds, stop) = export::parse_resp(&bytes);
                        if let Some(at) = stop {
                            message.set(Some((
                                format!("{}: RESP, byte {at}", t.import_failed),
                                true,
                            )));
                            return;
                        }
                        message.set(None);
                        cmds
                    }
                    _ => {
                        let mut cmds = Vec::new();
                        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                            let line = line.strip_suffix(b"\r").unwrap_or(line);
                            match crate::engine::cli::split_args_bytes(line) {
                                Some(a) if !a.is_empty() => cmds.push(a),
                                Some(_) => {}
                                None => {
                                    message.set(Some((
                                        format!(
                                            "{}: line {}: Invalid argument(s)",
                                            t.import_failed,
                                            i + 1
                                        ),
                                        true,
                                    )));
                                    return;
                                }
                            }
                        }
                        message.set(None);
                        cmds
                    }
                };
                state.dispatch(Action::Import(Rc::new(commands)));
            });
        })
    };

    let keys_here: usize = state
        .engine()
        .read(|e| e.dbs().iter().map(|d| d.len()).sum());
    let row_html = |r: &Row| {
        let here = r.name == current;
        let name = r.name.clone();
        let open_ws = Callback::from({
            let name = name.clone();
            move |_: MouseEvent| {
                let name = name.clone();
                spawn_local(async move {
                    persist::flushed().await;
                    navigate_to(&name);
                });
            }
        });
        let ask_for = |a: Ask| {
            let ask = ask.clone();
            let rename_draft = rename_draft.clone();
            let name = name.clone();
            Callback::from(move |_: MouseEvent| {
                if matches!(a, Ask::Rename(_)) {
                    rename_draft.set(name.clone());
                }
                ask.set(Some(a.clone()));
            })
        };
        let disabled = *busy;
        html! {
            <li class={classes!("ws-row", here.then_some("current"))} data-ws={r.name.clone()}
                aria-current={here.then_some("true")}>
                <span class="ws-name">{ &r.name }</span>
                if here {
                    <span class="ws-badge">{ t.current }</span>
                }
                <span class="ws-size" title={r.bytes.map(|b| format!("{b} bytes"))} data-bytes={r.bytes.map(|b| b.to_string())}>
                    { r.bytes.map(human_bytes).unwrap_or_else(|| "—".into()) }
                </span>
                if here {
                    <span class="ws-keys">{ format!("{keys_here} {}", t.keys) }</span>
                }
                <span class="ws-actions">
                    if !here {
                        <button type="button" class="ws-open" onclick={open_ws} {disabled}>{ t.switch }</button>
                    }
                    <button type="button" class="ws-rename" onclick={ask_for(Ask::Rename(name.clone()))} {disabled}
                        aria-label={format!("{} {}", t.rename, r.name)}>{ t.rename }</button>
                    <button type="button" class="ws-reset" onclick={ask_for(Ask::Reset(name.clone()))} {disabled}
                        aria-label={format!("{} {}", t.reset, r.name)}>{ t.reset }</button>
                    <button type="button" class="ws-delete" onclick={ask_for(Ask::Delete(name.clone()))} {disabled}
                        aria-label={format!("{} {}", t.delete, r.name)}>{ t.delete }</button>
                </span>
            </li>
        }
    };
    let (embeds, own): (Vec<&Row>, Vec<&Row>) =
        rows.iter().partition(|r| r.name.starts_with("embed-"));

    let confirm = (*ask).clone().map(|a| {
        let (text, rename) = match &a {
            Ask::Reset(n) => (fill(t.confirm_reset, n), false),
            Ask::Delete(n) => (fill(t.confirm_delete, n), false),
            Ask::Rename(n) => (format!("{} “{n}”", t.rename), true),
        };
        html! {
            <form class="ws-confirm" role="alertdialog" aria-label={text.clone()} onsubmit={do_confirm.clone()}>
                <p>{ text }</p>
                if rename {
                    <label>{ t.rename_to }
                        <input class="ws-rename-input" value={(*rename_draft).clone()} oninput={on_rename_draft.clone()}
                            maxlength="64" autofocus=true />
                    </label>
                }
                <button type="submit" class="ws-yes">{ if rename { t.rename } else { t.yes } }</button>
                <button type="button" class="ws-cancel" onclick={cancel_ask.clone()}>{ t.cancel }</button>
            </form>
        }
    });

    html! {
        <div class="ws-overlay">
            <div class="ws-dialog" role="dialog" aria-modal="true" aria-labelledby="ws-title"
                tabindex="-1" ref={dialog}>
                <div class="ws-head">
                    <h2 id="ws-title">{ t.title }</h2>
                    <button type="button" class="icon-button ws-close" onclick={close}
                        aria-label={t.close} title={t.close}>{ "✕" }</button>
                </div>
                <ul class="ws-list" aria-label={t.title}>
                    { for own.iter().map(|r| row_html(r)) }
                </ul>
                if !embeds.is_empty() {
                    <h3>{ t.embeds }</h3>
                    <ul class="ws-list ws-embeds" aria-label={t.embeds}>
                        { for embeds.iter().map(|r| row_html(r)) }
                    </ul>
                }
                { for confirm }
                <form class="ws-create" onsubmit={on_create}>
                    <label for="ws-new">{ t.new_name }</label>
                    <input id="ws-new" value={(*draft).clone()} oninput={on_draft} maxlength="64"
                        aria-invalid={draft_problem.is_some().then_some("true")} />
                    <button type="submit" disabled={*busy}>{ t.create }</button>
                </form>
                if let Some(p) = draft_problem {
                    <p class="ws-hint error">{ problem_text(p) }</p>
                }
                <div class="ws-io">
                    <span>{ t.export }</span>
                    { export_btn("json", "JSON") }
                    { export_btn("cli", "redis-cli") }
                    { export_btn("resp", "RESP") }
                    <button type="button" class="ws-export ws-export-rdb" onclick={on_rdb_export}
                        title={rdb_t.export_title}>{ rdb_t.export }</button>
                    <label class="ws-import">
                        { t.import }
                        <input type="file" class="ws-import-file" accept=".json,.redis,.txt,.resp,application/json,text/plain"
                            onchange={on_file} />
                    </label>
                </div>
                <div class="ws-io">
                    <label class="ws-import ws-import-rdb">
                        { rdb_t.import }
                        <input type="file" class="ws-import-rdb-file" accept=".rdb,application/octet-stream"
                            onchange={on_rdb_file} />
                    </label>
                </div>
                <p class="ws-hint">{ t.import_hint }</p>
                <p class="ws-hint">{ rdb_t.hint }</p>
                <p class={classes!("ws-message", message.as_ref().is_some_and(|m| m.1).then_some("error"))}
                    role="status" aria-live="polite">
                    { message.as_ref().map(|m| m.0.clone()).unwrap_or_default() }
                </p>
            </div>
        </div>
    }
}
