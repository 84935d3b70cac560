//! The console's output: the welcome banner and every command with its reply, as
//! redis-cli shows them.

use std::rc::Rc;

use yew::prelude::*;

use crate::ui::i18n::Lang;
use crate::ui::state::Entry;

/// Commands offered in the welcome banner; a click puts one in the command box.
pub const EXAMPLES: &[&str] = &["SET greeting hello", "GET greeting", "PING", "SELECT 1"];

/// Properties of [`Log`].
#[derive(Properties, PartialEq)]
pub struct LogProps {
    /// The entries, oldest first.
    pub entries: Vec<Rc<Entry>>,
    /// The key of the first entry; the others follow in order.
    pub first_key: u64,
    /// The current language.
    pub lang: Lang,
    /// Called with an example command the user picked.
    pub on_example: Callback<String>,
}

/// The output log (`role="log"`, so screen readers announce new replies).
#[component]
pub fn Log(props: &LogProps) -> Html {
    let s = props.lang.strings();
    html! {
        <div class="log" role="log" aria-label={s.output}>
            { for props.entries.iter().zip(props.first_key..).map(|(e, key)| html! {
                <EntryView {key} entry={e.clone()} lang={props.lang} on_example={props.on_example.clone()} />
            }) }
        </div>
    }
}

/// Properties of [`EntryView`].
#[derive(Properties)]
pub struct EntryProps {
    /// The block.
    pub entry: Rc<Entry>,
    /// The current language.
    pub lang: Lang,
    /// Called with an example command the user picked.
    pub on_example: Callback<String>,
}

/// Blocks never change once written: a block re-renders only when the language does, so a
/// new reply costs one block, not the whole log. (The callback is left out of the
/// comparison: every pane render makes a new one that does the same thing.)
impl PartialEq for EntryProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.entry, &other.entry) && self.lang == other.lang
    }
}

/// One block of the log.
#[component]
pub fn EntryView(props: &EntryProps) -> Html {
    html! {
        <div class="entry">{ entry(&props.entry, props.lang, &props.on_example) }</div>
    }
}

fn entry(e: &Entry, lang: Lang, on_example: &Callback<String>) -> Html {
    match e {
        Entry::Welcome => welcome(lang, on_example),
        Entry::Command {
            prompt,
            line,
            output,
            error,
        } => html! {
            <>
                <div class="echo">
                    <span class="prompt">{ prompt.clone() }</span>
                    <span class="line">{ echo(line) }</span>
                </div>
                if let Some(out) = output {
                    <pre class={classes!("out", error.then_some("error"))}>{ lines(out) }</pre>
                }
            </>
        },
        Entry::Late { output, error } => html! {
            <pre class={classes!("out", "late", error.then_some("error"))}>{ lines(output) }</pre>
        },
        Entry::Note(text) => html! { <p class="note">{ text.clone() }</p> },
        Entry::Invalidation { output, flush } => {
            let c = lang.console();
            let label = if *flush {
                c.invalidated_all
            } else {
                c.invalidated
            };
            html! {
                <div class={classes!("invalidation", flush.then_some("flush"))} title={c.invalidated_title}>
                    <span class="tag">{ label }</span>
                    <pre class="out late">{ lines(output) }</pre>
                </div>
            }
        }
    }
}

/// A command line as typed, with the script it carries (`EVAL "…"`) highlighted as Lua.
/// (Kept out of line: start-up renders no command, so this stays out of the first load.)
#[inline(never)]
fn echo(line: &str) -> Html {
    match crate::app::script::script_in_line(line) {
        Some(r) => html! {
            <>
                { line[..r.start].to_string() }
                { super::script_editor::lua_html(&line[r.clone()]) }
                { line[r.end..].to_string() }
            </>
        },
        None => html! { { line.to_string() } },
    }
}

/// A reply's lines, each a box that wraps under its own text: a long value in a nested
/// reply continues below where it started (after `1)  2) `), not at the left edge, so
/// redis-cli's alignment holds in a narrow pane. The boxes are inline blocks a line wide,
/// joined by the `\n`s of the text, so the text reads and copies exactly as printed.
fn lines(text: &str) -> Html {
    let mut out = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(html! { { "\n" } });
        }
        let indent = hang(line);
        let style = (indent > 0).then(|| format!("--hang:{indent}ch"));
        out.push(html! { <span class="ln" {style}>{ line.to_string() }</span> });
    }
    out.into_iter().collect()
}

/// How many columns of `line` are redis-cli's index markers (`1) `, ` 2~ `, `3# `,
/// nested: `1)  1) `) and their padding: where the value starts.
fn hang(line: &str) -> usize {
    let b = line.as_bytes();
    let (mut i, mut end) = (0, 0);
    loop {
        let mut j = i;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        let digits = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let marked =
            j > digits && j + 1 < b.len() && matches!(b[j], b')' | b'~' | b'#') && b[j + 1] == b' ';
        if !marked {
            return end;
        }
        i = j + 2;
        end = i;
    }
}

fn welcome(lang: Lang, on_example: &Callback<String>) -> Html {
    let s = lang.strings();
    html! {
        <div class="welcome">
            <p class="lead">{ s.welcome }</p>
            <p class="examples">
                <span class="label">{ s.try_it }</span>
                { for EXAMPLES.iter().map(|ex| {
                    let onclick = on_example.reform(move |_: MouseEvent| ex.to_string());
                    html! { <button type="button" class="chip" {onclick}>{ *ex }</button> }
                }) }
            </p>
            <p class="keys">
                <span class="key">{ kbd(&["Enter"]) }{ " " }{ s.key_run }</span>
                <span class="sep">{ "·" }</span>
                <span class="key"><kbd>{ "↑" }</kbd><kbd>{ "↓" }</kbd>{ " " }{ s.key_history }</span>
                <span class="sep">{ "·" }</span>
                <span class="key">{ kbd(&["Ctrl", "L"]) }{ " " }{ s.key_clear }</span>
                <span class="sep">{ "·" }</span>
                <span class="key">{ kbd(&["Tab"]) }{ " " }{ lang.console().key_complete }</span>
                <span class="sep">{ "·" }</span>
                <span class="key">{ kbd(&["Ctrl", "C"]) }{ " " }{ lang.console().key_stop }</span>
            </p>
        </div>
    }
}

/// A key or a combination (`Ctrl`+`C`) as `<kbd>`s joined by `+`.
fn kbd(keys: &[&'static str]) -> Html {
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            html! { <>{ if i > 0 { "+" } else { "" } }<kbd>{ *k }</kbd></> }
        })
        .collect()
}
