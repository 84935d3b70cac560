//! The prompt and the command box, with redis-cli's key bindings and argument hints.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::ui::state::LineAction;

/// Properties of [`CommandLine`].
#[derive(Properties, PartialEq)]
pub struct CommandLineProps {
    /// The prompt, e.g. `127.0.0.1:6379> `.
    pub prompt: String,
    /// The text in the box.
    pub draft: String,
    /// Greyed syntax shown after the draft (redis-cli's hints).
    pub hint: Option<String>,
    /// Accessible name of the box ("Command").
    pub label: AttrValue,
    /// Receives the actions the keys and edits produce.
    pub on_action: Callback<LineAction>,
    /// Lets the page focus the box.
    pub input_ref: NodeRef,
}

/// The command line.
///
/// Keys: Enter runs the line, ↑/↓ walk the history, Ctrl+L clears the pane, Tab completes
/// command names, subcommands and key names (again: the next candidate; on an empty line
/// Tab moves focus as usual). Enter while an input method is composing (Chinese,
/// Japanese…) belongs to the input method. Pasting several lines runs them in order.
#[component]
pub fn CommandLine(props: &CommandLineProps) -> Html {
    let oninput = props.on_action.reform(|e: InputEvent| {
        LineAction::Input(e.target_unchecked_into::<HtmlInputElement>().value())
    });
    let onkeydown = {
        let on_action = props.on_action.clone();
        let empty = props.draft.is_empty();
        Callback::from(move |e: KeyboardEvent| {
            if e.is_composing() {
                return;
            }
            let action = match e.key().as_str() {
                "Enter" => LineAction::Submit,
                "ArrowUp" => LineAction::HistoryPrev,
                "ArrowDown" => LineAction::HistoryNext,
                "Tab" if !empty && !e.shift_key() => LineAction::Complete,
                "l" | "L" if e.ctrl_key() && !e.alt_key() && !e.meta_key() => LineAction::Clear,
                _ => return,
            };
            e.prevent_default();
            on_action.emit(action);
        })
    };
    let onpaste = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let Some(e) = wasm_bindgen::JsCast::dyn_ref::<web_sys::ClipboardEvent>(&e) else {
                return;
            };
            let text = e
                .clipboard_data()
                .and_then(|d| d.get_data("text/plain").ok())
                .unwrap_or_default();
            if text.contains('\n') {
                e.prevent_default();
                on_action.emit(LineAction::Paste(text));
            }
        })
    };
    html! {
        <div class="command-line">
            <span class="prompt" aria-hidden="true">{ props.prompt.clone() }</span>
            <div class="field">
                <input
                    ref={props.input_ref.clone()}
                    class="command"
                    type="text"
                    aria-label={props.label.clone()}
                    value={props.draft.clone()}
                    autocomplete="off"
                    autocapitalize="off"
                    autocorrect="off"
                    spellcheck="false"
                    enterkeyhint="send"
                    {oninput}
                    {onkeydown}
                    {onpaste}
                />
                if let Some(hint) = &props.hint {
                    <div class="hint" aria-hidden="true">
                        <span class="ghost">{ props.draft.clone() }</span>
                        <span>{ hint.clone() }</span>
                    </div>
                }
            </div>
        </div>
    }
}
