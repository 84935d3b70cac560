//! The prompt and the command box, with redis-cli's key bindings, argument hints and the
//! Tab completion list.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::ui::state::LineAction;

/// Candidates shown in the completion list; the rest are counted.
pub const MAX_SHOWN: usize = 60;

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
    /// The open completion list: the candidates and the one selected.
    #[prop_or_default]
    pub completion: Option<(Vec<String>, Option<usize>)>,
    /// A page-unique id for the completion list (its options' ids derive from it).
    pub list_id: AttrValue,
    /// Accessible name of the completion list, and the "… n more" text (`{n}`).
    pub list_texts: (&'static str, &'static str),
    /// Receives the actions the keys and edits produce.
    pub on_action: Callback<LineAction>,
    /// Lets the page focus the box.
    pub input_ref: NodeRef,
}

/// The command line.
///
/// Keys: Enter runs the line, ↑/↓ walk the history, Ctrl+L clears the pane, Ctrl+C stops a
/// blocked command, a subscription or `MONITOR` (else drops the line; with text selected in
/// the box it copies, as usual). Tab completes command names, subcommands, help topics and
/// key names: the common prefix of the candidates, with a list of them when there are
/// several; in the list, Tab/↓ and Shift+Tab/↑ select, Enter takes the selection, Escape
/// closes it, a click takes a candidate. On an empty line Tab moves focus as usual. Enter
/// while an input method is composing (Chinese, Japanese…) belongs to the input method.
/// Pasting several lines runs them in order.
#[component]
pub fn CommandLine(props: &CommandLineProps) -> Html {
    let oninput = props.on_action.reform(|e: InputEvent| {
        LineAction::Input(e.target_unchecked_into::<HtmlInputElement>().value())
    });
    let open = props.completion.is_some();
    let selected = props.completion.as_ref().and_then(|(_, s)| *s);
    let onkeydown = {
        let on_action = props.on_action.clone();
        let empty = props.draft.is_empty();
        Callback::from(move |e: KeyboardEvent| {
            if e.is_composing() {
                return;
            }
            let ctrl = e.ctrl_key() && !e.alt_key() && !e.meta_key();
            let action = match e.key().as_str() {
                "Enter" if open && selected.is_some() => LineAction::CompleteAccept(None),
                "Enter" => LineAction::Submit,
                "ArrowUp" if open => LineAction::CompleteMove(-1),
                "ArrowDown" if open => LineAction::CompleteMove(1),
                "ArrowUp" => LineAction::HistoryPrev,
                "ArrowDown" => LineAction::HistoryNext,
                "Escape" if open => LineAction::CompleteClose,
                "Tab" if open && e.shift_key() => LineAction::CompleteMove(-1),
                "Tab" if (open || !empty) && !e.shift_key() => LineAction::Complete,
                "l" | "L" if ctrl => LineAction::Clear,
                "c" | "C" if ctrl && !has_selection(&e) => LineAction::Interrupt,
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
    let option_id = |i: usize| format!("{}-{i}", props.list_id);
    let list = props.completion.as_ref().map(|(cands, selected)| {
        let (label, more) = props.list_texts;
        let rest = cands.len().saturating_sub(MAX_SHOWN);
        html! {
            <div class="completions">
                <ul id={props.list_id.clone()} role="listbox" aria-label={label}>
                    { for cands.iter().take(MAX_SHOWN).enumerate().map(|(i, c)| {
                        let chosen = *selected == Some(i);
                        let onclick = props.on_action.reform(move |_: MouseEvent| {
                            LineAction::CompleteAccept(Some(i))
                        });
                        // Keeps the focus (and the list) in the command box.
                        let onmousedown = Callback::from(|e: MouseEvent| e.prevent_default());
                        html! {
                            <li id={option_id(i)} role="option" aria-selected={chosen.to_string()}
                                class={classes!(chosen.then_some("selected"))} {onclick} {onmousedown}>
                                { c.clone() }
                            </li>
                        }
                    }) }
                </ul>
                if rest > 0 {
                    <p class="more">{ more.replace("{n}", &rest.to_string()) }</p>
                }
            </div>
        }
    });
    let active = selected.filter(|&i| i < MAX_SHOWN).map(option_id);
    html! {
        <div class="command-line">
            <span class="prompt" aria-hidden="true">{ props.prompt.clone() }</span>
            <div class="field">
                <input
                    ref={props.input_ref.clone()}
                    class="command"
                    type="text"
                    aria-label={props.label.clone()}
                    aria-autocomplete="list"
                    aria-controls={open.then(|| props.list_id.clone())}
                    aria-activedescendant={active}
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
            { for list }
        </div>
    }
}

/// True when text is selected in the box: Ctrl+C then copies it, as everywhere.
fn has_selection(e: &KeyboardEvent) -> bool {
    let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
        return false;
    };
    let start = input.selection_start().ok().flatten();
    let end = input.selection_end().ok().flatten();
    start.is_some() && start != end
}
