//! What every type's view shares: [`Ctx`] (the key, the last value, the add form's
//! fields, how to run a command), the add form, the mode and remove buttons, the "showing
//! the first N of M" line and the list of removed elements.

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::engine::inspect::ValueView as Snapshot;
use crate::ui::i18n::{Lang, Strings};

/// How a string or sorted set is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Auto,
    Text,
    Json,
    Hex,
    Bits,
    Table,
    Map,
}

pub(super) type Run = dyn Fn(Vec<Vec<u8>>);

pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(super) fn setter(state: &UseStateHandle<String>) -> Callback<InputEvent> {
    let state = state.clone();
    Callback::from(move |e: InputEvent| {
        state.set(e.target_unchecked_into::<HtmlInputElement>().value())
    })
}

pub(super) fn mode_buttons(
    modes: &[(Mode, &'static str)],
    current: Mode,
    handle: &UseStateHandle<Mode>,
) -> Html {
    html! {
        <div class="seg" role="group">
            { for modes.iter().map(|&(m, label)| {
                let handle = handle.clone();
                let onclick = Callback::from(move |_: MouseEvent| handle.set(m));
                html! { <button type="button" aria-pressed={(m == current).to_string()} {onclick}>{ label }</button> }
            }) }
        </div>
    }
}

pub(super) fn remove_button(s: &Strings, run: &Rc<Run>, words: Vec<Vec<u8>>) -> Html {
    let run = run.clone();
    let onclick = Callback::from(move |_: MouseEvent| run(words.clone()));
    html! { <button type="button" class="icon-button" aria-label={s.remove} title={s.remove} {onclick}>{ "×" }</button> }
}

pub(super) fn more(shown: usize, total: usize, s: &Strings) -> Html {
    if shown < total {
        html! { <p class="more">{ format!("{} {shown} {} {total}", s.showing_first, s.of) }</p> }
    } else {
        html! {}
    }
}

/// What every type's view needs: the value before the last change, the key, the mode, the
/// add form's two fields, and how to run a command.
pub(super) struct Ctx<'a> {
    /// The value before the last change, to show what it changed.
    pub(super) prev: Option<&'a Snapshot>,
    /// The key.
    pub(super) key: Vec<u8>,
    /// How a string or sorted set is asked to be shown.
    pub(super) mode: Mode,
    /// Where the mode buttons set it.
    pub(super) mode_handle: &'a UseStateHandle<Mode>,
    /// The add form's first field.
    pub(super) a: &'a UseStateHandle<String>,
    /// The add form's second field.
    pub(super) b: &'a UseStateHandle<String>,
    /// Runs a command in the active pane.
    pub(super) run: Rc<Run>,
    /// The texts.
    pub(super) s: &'a Strings,
    /// The language.
    pub(super) lang: Lang,
}

impl Ctx<'_> {
    /// The add form: `cmd key [a] [b]` for the type's insert command(s).
    pub(super) fn form(
        &self,
        cmds: &[(&'static str, &'static str)],
        a_ph: &'static str,
        b_ph: Option<&'static str>,
    ) -> Html {
        let (run, k, a, b) = (&self.run, &self.key, self.a, self.b);
        let buttons = cmds.iter().map(|&(cmd, label)| {
            let (run, k, a, b) = (run.clone(), k.clone(), a.clone(), b.clone());
            let two = b_ph.is_some();
            let onclick = Callback::from(move |_: MouseEvent| {
                let mut words = vec![cmd.as_bytes().to_vec(), k.clone(), a.as_bytes().to_vec()];
                if two {
                    words.push(b.as_bytes().to_vec());
                }
                run(words);
                a.set(String::new());
                b.set(String::new());
            });
            html! { <button type="button" {onclick}>{ label }</button> }
        });
        html! {
            <div class="add-form">
                <input type="text" placeholder={a_ph} aria-label={a_ph} value={(**a).clone()} oninput={setter(a)} />
                if let Some(ph) = b_ph {
                    <input type="text" placeholder={ph} aria-label={ph} value={(**b).clone()} oninput={setter(b)} />
                }
                { for buttons }
            </div>
        }
    }
}

pub(super) fn removed_html(removed: &[Vec<u8>], s: &Strings) -> Html {
    if removed.is_empty() {
        return html! {};
    }
    html! {
        <div class="removed">
            <h3>{ s.removed }</h3>
            <ul>{ for removed.iter().map(|r| html! { <li><del>{ text(r) }</del></li> }) }</ul>
        </div>
    }
}
