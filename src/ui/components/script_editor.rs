//! A pane's script editor: a multi-line Lua box with light syntax highlighting, a line for
//! the keys and one for the arguments, and buttons that run the script with `EVAL` or cache
//! it with `SCRIPT LOAD`. What it runs is a command line of the pane
//! ([`crate::app::script::eval_line`]), echoed and remembered like a typed one.
//!
//! Keys: Enter inserts a line break, Ctrl+Enter (⌘+Enter) runs, Enter in the keys or
//! arguments line runs, Escape closes the editor (the script is kept) and returns to the
//! command line. The highlighting is a `<pre>` under a transparent `<textarea>` with the
//! same font and wrapping, so the caret and selection are the textarea's own.

use web_sys::{HtmlElement, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::app::script::{self, DraftError, ScriptDraft, ScriptField, ScriptRun};
use crate::ui::i18n::Lang;
use crate::ui::state::LineAction;

/// Lua source as highlighted HTML: each marked token a `<span>` of its class.
pub fn lua_html(src: &str) -> Html {
    script::pieces(src)
        .into_iter()
        .map(|(tok, text)| match tok {
            Some(t) => html! { <span class={t.class()}>{ text.to_string() }</span> },
            None => html! { { text.to_string() } },
        })
        .collect()
}

/// Properties of [`ScriptEditor`].
#[derive(Properties, PartialEq)]
pub struct ScriptEditorProps {
    /// The draft.
    pub draft: ScriptDraft,
    /// Why the last run did not start, if it did not.
    pub error: Option<DraftError>,
    /// Changes when the editor should take the focus.
    pub focus: u32,
    /// The language.
    pub lang: Lang,
    /// Receives the editor's actions.
    pub on_action: Callback<LineAction>,
    /// The command box, focused again when the editor closes.
    pub command_ref: NodeRef,
}

/// The script editor (a `group` named "Lua script").
#[component]
pub fn ScriptEditor(props: &ScriptEditorProps) -> Html {
    let t = props.lang.script();
    let d_t = props.lang.debug();
    let area_ref = use_node_ref();
    {
        let area_ref = area_ref.clone();
        use_effect_with(props.focus, move |_| {
            if let Some(area) = area_ref.cast::<HtmlTextAreaElement>() {
                let _ = area.focus();
                let end = area.value().encode_utf16().count() as u32;
                let _ = area.set_selection_range(end, end);
            }
        });
    }
    let keys = {
        let on_action = props.on_action.clone();
        let command_ref = props.command_ref.clone();
        move |single_line: bool| {
            let on_action = on_action.clone();
            let command_ref = command_ref.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.is_composing() {
                    return;
                }
                let run = e.key() == "Enter"
                    && (e.ctrl_key() || e.meta_key() || single_line)
                    && !e.shift_key();
                if run {
                    e.prevent_default();
                    on_action.emit(LineAction::ScriptRun(ScriptRun::Eval));
                } else if e.key() == "Escape" {
                    e.prevent_default();
                    on_action.emit(LineAction::ScriptOpen(false));
                    if let Some(c) = command_ref.cast::<HtmlElement>() {
                        let _ = c.focus();
                    }
                }
            })
        }
    };
    let on_body = props.on_action.reform(|e: InputEvent| {
        let v = e.target_unchecked_into::<HtmlTextAreaElement>().value();
        LineAction::ScriptEdit(ScriptField::Body, v)
    });
    let field = |f: ScriptField| {
        props.on_action.reform(move |e: InputEvent| {
            LineAction::ScriptEdit(f, e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let run = |r: ScriptRun| {
        props
            .on_action
            .reform(move |_: MouseEvent| LineAction::ScriptRun(r))
    };
    let on_close = {
        let on_action = props.on_action.clone();
        let command_ref = props.command_ref.clone();
        Callback::from(move |_: MouseEvent| {
            on_action.emit(LineAction::ScriptOpen(false));
            if let Some(c) = command_ref.cast::<HtmlElement>() {
                let _ = c.focus();
            }
        })
    };
    let d = &props.draft;
    let numkeys = crate::engine::splitargs::split_args(&d.keys).map_or(0, |k| k.len());
    let error = props.error.map(|e| match e {
        DraftError::Keys => t.bad_keys,
        DraftError::Args => t.bad_args,
    });
    let name = if d.read_only { "EVAL_RO" } else { "EVAL" };
    html! {
        <div class="script-editor" role="group" aria-label={t.editor}>
            <div class="code">
                <pre class="code-hl" aria-hidden="true">{ lua_html(&d.body) }{ "\n" }</pre>
                <textarea ref={area_ref} class="code-box" aria-label={t.editor}
                    placeholder={t.placeholder} spellcheck="false" autocapitalize="off"
                    autocomplete="off" value={d.body.clone()} oninput={on_body}
                    onkeydown={keys(false)} />
            </div>
            <div class="script-fields">
                <label>
                    <span class="script-label">{ t.keys }</span>
                    <input type="text" aria-label={t.keys_label} placeholder={t.keys_placeholder}
                        value={d.keys.clone()} oninput={field(ScriptField::Keys)}
                        onkeydown={keys(true)} spellcheck="false" autocomplete="off" />
                </label>
                <label>
                    <span class="script-label">{ t.args }</span>
                    <input type="text" aria-label={t.args_label} placeholder={t.args_placeholder}
                        value={d.args.clone()} oninput={field(ScriptField::Args)}
                        onkeydown={keys(true)} spellcheck="false" autocomplete="off" />
                </label>
            </div>
            <div class="script-actions">
                <span class="script-help">{ t.keys_help }</span>
                if let Some(msg) = error {
                    <span class="script-error" role="alert">{ msg }</span>
                }
                <button type="button" class="primary" title={t.run_title} onclick={run(ScriptRun::Eval)}>
                    { format!("{name} · numkeys {numkeys}") }
                </button>
                <button type="button" class="debug-button" title={d_t.debug_title}
                    onclick={run(ScriptRun::Debug)}>{ d_t.debug }</button>
                <button type="button" title={t.load_title} onclick={run(ScriptRun::Load)}>
                    { "SCRIPT LOAD" }
                </button>
                <button type="button" class="icon-button" aria-label={t.close} title={t.close}
                    onclick={on_close}>{ "×" }</button>
            </div>
        </div>
    }
}
