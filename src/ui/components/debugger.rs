//! A pane's script debugger: the script with its line numbers and the line it stopped
//! before, buttons to step (F10), continue (F8) and stop (Shift+F5 or Esc), a table of
//! KEYS, ARGV and the locals in scope, and the `redis.call`s so far with their replies.
//! What it shows is the pane's [`DebugView`], brought up to date by the reducer; the
//! buttons send [`LineAction::Debug`].
//!
//! Kept out of the first load: start-up never renders it (see `pane.rs`'s `debugger`).

use std::rc::Rc;

use web_sys::HtmlElement;
use yew::prelude::*;

use super::script_editor::lua_html;
use crate::app::debug::DebugView;
use crate::app::engine::DebugCmd;
use crate::ui::i18n::Lang;
use crate::ui::state::LineAction;

/// Properties of [`Debugger`].
#[derive(Properties, PartialEq)]
pub struct DebuggerProps {
    /// What to show.
    pub view: Rc<DebugView>,
    /// The language.
    pub lang: Lang,
    /// Receives Step, Continue and Stop.
    pub on_action: Callback<LineAction>,
}

/// The debugger (a `group` named "Script debugger").
#[component]
pub fn Debugger(props: &DebuggerProps) -> Html {
    let t = props.lang.debug();
    let root = use_node_ref();
    {
        // It takes the focus when it opens, so that its keys work at once.
        let root = root.clone();
        use_effect_with((), move |_| {
            if let Some(el) = root.cast::<HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let v = &props.view;
    let send = |cmd: DebugCmd| {
        props
            .on_action
            .reform(move |_: MouseEvent| LineAction::Debug(cmd))
    };
    let on_key = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            let cmd = match e.key().as_str() {
                "F10" => DebugCmd::Step,
                "F8" => DebugCmd::Continue,
                "F5" if e.shift_key() => DebugCmd::Stop,
                "Escape" => DebugCmd::Stop,
                _ => return,
            };
            e.prevent_default();
            on_action.emit(LineAction::Debug(cmd));
        })
    };
    let stopped = v.line.is_some();
    let status = match v.line {
        Some(n) => format!("{}{n}{}", t.stopped_at, t.stopped_after),
        None => t.running.to_string(),
    };
    let lines = v.lines.iter().enumerate().map(|(i, text)| {
        let n = i as i32 + 1;
        let here = v.line == Some(n);
        html! {
            <li class={classes!("debug-line", here.then_some("current"))}
                aria-current={here.then_some("step")}>
                <span class="debug-ln" aria-hidden="true">{ n }</span>
                <code class="debug-code">{ lua_html(text) }{ "\u{200b}" }</code>
            </li>
        }
    });
    let locals = v.locals.iter().map(|(name, value)| {
        html! {
            <tr><th scope="row"><code>{ name.clone() }</code></th><td><code>{ value.clone() }</code></td></tr>
        }
    });
    let calls = v.calls.iter().map(|c| {
        html! {
            <li class="debug-call">
                <span class="debug-call-line">{ format!("{} {}", t.line, c.line) }</span>
                <code class="debug-call-cmd">{ c.command.clone() }</code>
                <pre class="debug-call-reply">{ c.reply.clone() }</pre>
            </li>
        }
    });
    html! {
        <div class="debugger" role="group" aria-label={t.debugger} tabindex="-1" ref={root}
            onkeydown={on_key}>
            <div class="debug-toolbar">
                <span class="debug-status" role="status">{ status }</span>
                <button type="button" class="primary" title={t.step_title} disabled={!stopped}
                    onclick={send(DebugCmd::Step)}>{ t.step }</button>
                <button type="button" title={t.cont_title} disabled={!stopped}
                    onclick={send(DebugCmd::Continue)}>{ t.cont }</button>
                <button type="button" title={t.stop_title}
                    onclick={send(DebugCmd::Stop)}>{ t.stop }</button>
            </div>
            <ol class="debug-source" aria-label={t.source}>{ for lines }</ol>
            <div class="debug-panels">
                <table class="debug-locals">
                    <caption>{ t.locals }</caption>
                    <thead><tr><th scope="col">{ t.name }</th><th scope="col">{ t.value }</th></tr></thead>
                    <tbody>
                        { for locals }
                    </tbody>
                </table>
                <section class="debug-calls" aria-label={t.calls}>
                    <h3 class="debug-calls-title">{ t.calls }</h3>
                    if v.calls.is_empty() {
                        <p class="debug-empty">{ t.no_calls }</p>
                    } else {
                        <ol>{ for calls }</ol>
                    }
                </section>
            </div>
        </div>
    }
}
