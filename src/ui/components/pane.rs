//! One console pane: a client of the engine with its name, output and command line, and
//! what it is waiting for (a blocked `BLPOP` with its countdown, a `MULTI` queue, pub/sub).

use web_sys::{HtmlElement, HtmlInputElement};
use yew::prelude::*;

use super::command_line::CommandLine;
use super::debugger::Debugger;
use super::log::Log;
use super::script_editor::ScriptEditor;
use crate::tabs::WaitsFor;
use crate::ui::i18n::Lang;
use crate::ui::state::{Action, LineAction, Pane};

/// What a client is waiting for, read from the engine for display.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PaneStatus {
    /// Blocked: `Some(deadline)` (Unix ms, `None` = no timeout).
    pub blocked: Option<Option<i64>>,
    /// What a blocked client waits for.
    pub waits_for: WaitsFor,
    /// Commands queued in `MULTI`, as typed; `None` outside a transaction.
    pub queued: Option<Vec<String>>,
    /// In pub/sub mode.
    pub subscribed: bool,
    /// Running `MONITOR` (known in the tab that runs the engine only).
    pub monitor: bool,
}

/// Properties of [`ConsolePane`].
#[derive(Properties, PartialEq)]
pub struct ConsolePaneProps {
    /// The pane.
    pub pane: Pane,
    /// Its prompt.
    pub prompt: String,
    /// The hint for its draft.
    pub hint: Option<String>,
    /// What the client waits for.
    pub status: PaneStatus,
    /// The clock, for countdowns.
    pub now_ms: i64,
    /// The language.
    pub lang: Lang,
    /// True if it can be closed (not the last pane).
    pub closable: bool,
    /// True if it is the pane views send commands to.
    pub active: bool,
    /// Receives the pane's actions.
    pub on_action: Callback<Action>,
}

/// A console pane (a `region` named after the client).
#[component]
pub fn ConsolePane(props: &ConsolePaneProps) -> Html {
    let s = props.lang.strings();
    let id = props.pane.id;
    let input_ref = use_node_ref();
    let screen_ref = use_node_ref();

    // Like a terminal, the newest output (and an opened completion list) stays in view.
    {
        let screen_ref = screen_ref.clone();
        let listed = props.pane.completion().map(|(c, _)| c.len());
        let hinted = props.pane.escaped_text;
        use_effect_with(
            (props.pane.log_base, props.pane.log.len(), listed, hinted),
            move |_| {
                if let Some(screen) = screen_ref.cast::<HtmlElement>() {
                    screen.set_scroll_top(screen.scroll_height());
                }
            },
        );
    }
    // A new pane is ready to type in.
    {
        let input_ref = input_ref.clone();
        use_effect_with((), move |_| focus(&input_ref));
    }

    let on_line = props
        .on_action
        .reform(move |a: LineAction| Action::Line(id, a));
    let on_example = {
        let on_action = props.on_action.clone();
        let input_ref = input_ref.clone();
        Callback::from(move |ex: String| {
            on_action.emit(Action::Line(id, LineAction::Input(ex)));
            focus(&input_ref);
        })
    };
    let on_screen_click = {
        let input_ref = input_ref.clone();
        Callback::from(move |_: MouseEvent| {
            let selecting = web_sys::window()
                .and_then(|w| w.get_selection().ok().flatten())
                .is_some_and(|s| !s.is_collapsed());
            if !selecting {
                focus(&input_ref);
            }
        })
    };
    let onfocusin = {
        let on_action = props.on_action.clone();
        let active = props.active;
        Callback::from(move |_: FocusEvent| {
            if !active {
                on_action.emit(Action::Focus(id));
            }
        })
    };
    let on_rename = props.on_action.reform(move |e: Event| {
        Action::RenamePane(id, e.target_unchecked_into::<HtmlInputElement>().value())
    });
    let on_close = props
        .on_action
        .reform(move |_: MouseEvent| Action::ClosePane(id));
    let t = props.lang.console();
    let on_reset = {
        let on_action = props.on_action.clone();
        let input_ref = input_ref.clone();
        Callback::from(move |_: MouseEvent| {
            on_action.emit(Action::ResetPane(id));
            focus(&input_ref);
        })
    };
    let raw = props.pane.raw;
    let set_raw = |on: bool| {
        let on_action = props.on_action.clone();
        let input_ref = input_ref.clone();
        Callback::from(move |_: MouseEvent| {
            on_action.emit(Action::SetRaw(id, on));
            focus(&input_ref);
        })
    };
    let on_stop = {
        let on_action = props.on_action.clone();
        let input_ref = input_ref.clone();
        Callback::from(move |_: MouseEvent| {
            on_action.emit(Action::Line(id, LineAction::Interrupt));
            focus(&input_ref);
        })
    };
    let script_open = props.pane.script_open;
    let on_script = props
        .on_action
        .reform(move |_: MouseEvent| Action::Line(id, LineAction::ScriptOpen(!script_open)));
    let stop = html! {
        <button type="button" class="stop" title={t.stop_title} onclick={on_stop}>
            { t.stop }<kbd>{ "Ctrl+C" }</kbd>
        </button>
    };

    let status = match &props.status {
        PaneStatus {
            blocked: Some(deadline),
            ..
        } => {
            let left = match deadline {
                Some(at) => format!("{} {} s", s.timeout_in, (at - props.now_ms).max(0) / 1000),
                None => s.no_timeout.to_string(),
            };
            html! {
                <div class="pane-status blocked">
                    <span role="status">
                        <span class="spinner" aria-hidden="true"></span>
                        { match props.status.waits_for {
                            WaitsFor::Data => format!("{} · {left}", s.blocked),
                            WaitsFor::Replicas => format!("{} · {left}", s.blocked_wait),
                            WaitsFor::Pause => format!("{} · {left}", s.blocked_pause),
                            // No timeout applies: the script decides.
                            WaitsFor::Script => s.blocked_script.to_string(),
                            WaitsFor::Busy => s.blocked_busy.to_string(),
                        } }
                    </span>
                    { stop }
                </div>
            }
        }
        PaneStatus {
            queued: Some(q), ..
        } => html! {
            <div class="pane-status multi" role="status">
                <strong>{ format!("{} ({})", s.queued, q.len()) }</strong>
                <ol>{ for q.iter().map(|l| html! { <li>{ l.clone() }</li> }) }</ol>
            </div>
        },
        PaneStatus {
            subscribed: true, ..
        } => html! {
            <div class="pane-status subscribed">
                <span role="status">{ s.subscribed }</span>
                { stop }
            </div>
        },
        PaneStatus { monitor: true, .. } => html! {
            <div class="pane-status subscribed monitor">
                <span role="status">{ t.monitoring }</span>
                { stop }
            </div>
        },
        _ => html! {},
    };

    html! {
        <section class={classes!("pane", props.active.then_some("active"))}
            aria-label={props.pane.title(props.lang)} {onfocusin}>
            <div class="pane-head">
                <input class="pane-name" type="text" aria-label={s.rename_client}
                    value={props.pane.title(props.lang)} onchange={on_rename} spellcheck="false" />
                <button type="button" class={classes!("raw-toggle", raw.then_some("on"))}
                    aria-pressed={raw.to_string()} title={t.raw_title} onclick={set_raw(!raw)}>
                    { "--raw" }
                </button>
                <button type="button" class={classes!("raw-toggle", script_open.then_some("on"))}
                    aria-pressed={script_open.to_string()} aria-label={props.lang.script().editor}
                    title={props.lang.script().open_title} onclick={on_script}>
                    { props.lang.script().open }
                </button>
                <button type="button" class="icon-button" aria-label={t.reset}
                    title={t.reset} onclick={on_reset}>{ "↺" }</button>
                if props.closable {
                    <button type="button" class="icon-button" aria-label={s.close_client}
                        title={s.close_client} onclick={on_close}>{ "×" }</button>
                }
            </div>
            <div class="screen" ref={screen_ref} onclick={on_screen_click}>
                <Log entries={props.pane.log.clone()} first_key={props.pane.log_base}
                    lang={props.lang} {on_example} />
                <CommandLine
                    prompt={props.prompt.clone()}
                    draft={props.pane.draft.clone()}
                    hint={props.hint.clone()}
                    label={s.command}
                    completion={props.pane.completion().map(|(c, sel)| (c.to_vec(), sel))}
                    list_id={format!("completions-{id}")}
                    list_texts={(t.completions, t.more)}
                    on_action={on_line}
                    input_ref={input_ref.clone()}
                />
                if props.pane.escaped_text && !raw {
                    <p class="raw-hint">
                        { t.raw_hint }{ " " }
                        <button type="button" class="link" onclick={set_raw(true)}>{ t.raw_on }</button>
                    </p>
                }
            </div>
            if let Some(view) = props.pane.debug.clone() {
                { debugger(props, view) }
            } else if script_open {
                { editor(props, &input_ref) }
            }
            { status }
        </section>
    }
}

/// The pane's script editor. (Kept out of line: start-up renders none, so this stays out
/// of the first load.)
#[inline(never)]
fn editor(props: &ConsolePaneProps, input_ref: &NodeRef) -> Html {
    let id = props.pane.id;
    html! {
        <ScriptEditor draft={props.pane.script.clone()} error={props.pane.script_error}
            focus={props.pane.script_focus} lang={props.lang}
            on_action={props.on_action.reform(move |a: LineAction| Action::Line(id, a))}
            command_ref={input_ref.clone()} />
    }
}

/// The pane's script debugger, while its script runs under it. (Kept out of line, as the
/// editor is.)
#[inline(never)]
fn debugger(props: &ConsolePaneProps, view: std::rc::Rc<crate::app::debug::DebugView>) -> Html {
    let id = props.pane.id;
    html! {
        <Debugger view={view} lang={props.lang}
            on_action={props.on_action.reform(move |a: LineAction| Action::Line(id, a))} />
    }
}

fn focus(input_ref: &NodeRef) {
    if let Some(input) = input_ref.cast::<HtmlElement>() {
        let _ = input.focus();
    }
}
