//! What a pane's command line does: editing, history, Tab completion, Ctrl+C.

use super::model::{Command, State};
use super::pane::{Completion, Entry, LineAction, PaneId, MAX_HISTORY};
use crate::app::console;
use crate::app::script::{self, ScriptField, ScriptRun};
use crate::tabs::Msg;

impl State {
    pub(super) fn remember(&mut self, line: &str) {
        if line.trim().is_empty() || self.history.last().map(String::as_str) == Some(line) {
            return;
        }
        self.history.push(line.to_string());
        if self.history.len() > MAX_HISTORY {
            self.history.remove(0);
        }
        // Written a moment later, not before the reply is painted.
        self.out.push(Command::SaveHistory(self.history.clone()));
    }

    pub(super) fn line_action(&mut self, id: PaneId, action: LineAction) {
        let history_len = self.history.len();
        let keys = self.ws.index.clone();
        let Some(p) = self.ws.panes.iter_mut().find(|p| p.id == id) else {
            return;
        };
        if !matches!(
            action,
            LineAction::Complete | LineAction::CompleteMove(_) | LineAction::CompleteAccept(_)
        ) {
            p.completion = None;
        }
        match action {
            LineAction::Input(text) => {
                p.draft = text;
                p.history_pos = None;
            }
            LineAction::Submit => {
                // `EVAL "local n = 1` ⏎: the script goes on in the editor.
                if let Some(draft) = script::handover(&p.draft) {
                    p.draft.clear();
                    p.script = draft;
                    p.script_open = true;
                    p.script_focus += 1;
                    p.script_error = None;
                    return;
                }
                let line = std::mem::take(&mut p.draft);
                p.history_pos = None;
                p.stash.clear();
                self.run(id, line);
            }
            LineAction::Paste(text) => {
                let first = std::mem::take(&mut p.draft);
                for line in script::split_commands(&first, &text) {
                    self.run(id, line);
                }
            }
            LineAction::ScriptOpen(open) => {
                p.script_open = open;
                if open {
                    p.script_focus += 1;
                }
            }
            LineAction::ScriptEdit(field, text) => {
                p.script_error = None;
                match field {
                    ScriptField::Body => p.script.body = text,
                    ScriptField::Keys => p.script.keys = text,
                    ScriptField::Args => p.script.args = text,
                }
            }
            LineAction::ScriptRun(run) => match script::eval_line(&p.script, run) {
                Ok(line) => {
                    p.script_error = None;
                    self.debug_next = run == ScriptRun::Debug;
                    self.run(id, line);
                }
                Err(e) => p.script_error = Some(e),
            },
            LineAction::Debug(cmd) => {
                let client = p.client;
                if self.ws.engine.read(|e| e.debugger().map(|(c, _)| c)) == Some(client) {
                    let outcome = self.ws.engine.debug(cmd);
                    self.absorb(outcome, None);
                    self.sync_db();
                }
            }
            LineAction::HistoryPrev => {
                let pos = match p.history_pos {
                    None if history_len == 0 => return,
                    None => {
                        p.stash = p.draft.clone();
                        history_len - 1
                    }
                    Some(pos) => pos.saturating_sub(1),
                };
                p.history_pos = Some(pos);
                p.draft = self.history.get(pos).cloned().unwrap_or_default();
                p.recall_script();
            }
            LineAction::HistoryNext => match p.history_pos {
                None => {}
                Some(pos) if pos + 1 < history_len => {
                    p.history_pos = Some(pos + 1);
                    p.draft = self.history.get(pos + 1).cloned().unwrap_or_default();
                    p.recall_script();
                }
                Some(_) => {
                    p.history_pos = None;
                    p.draft = std::mem::take(&mut p.stash);
                }
            },
            LineAction::Clear => p.clear(),
            LineAction::Complete => {
                if let Some(c) = p.completion.as_mut() {
                    // The first Tab into the list moves to a candidate not already typed
                    // (`lpus` → `lpush`, then `lpushx`); later ones walk on, round.
                    let typed = p.draft.get(c.head.len()..).unwrap_or("");
                    let next = match c.selected {
                        Some(i) => (i + 1) % c.cands.len().max(1),
                        None => c.cands.iter().position(|w| w != typed).unwrap_or(0),
                    };
                    c.selected = Some(next);
                    p.draft = format!("{}{}", c.head, c.cands[next]);
                    return;
                }
                let (head, cands) = console::completions(&p.draft, &keys.borrow());
                match cands.len() {
                    0 => {}
                    1 => p.draft = format!("{head}{} ", cands[0]),
                    _ => {
                        p.draft = format!("{head}{}", console::common_prefix(&cands));
                        p.completion = Some(Completion {
                            head,
                            cands,
                            selected: None,
                        });
                    }
                }
            }
            LineAction::CompleteMove(step) => {
                if let Some(c) = p.completion.as_mut() {
                    let n = c.cands.len() as i64;
                    let at = match c.selected {
                        None if step < 0 => n - 1,
                        None => 0,
                        Some(i) => (i as i64 + i64::from(step)).rem_euclid(n),
                    };
                    let at = at as usize;
                    c.selected = Some(at);
                    p.draft = format!("{}{}", c.head, c.cands[at]);
                }
            }
            LineAction::CompleteAccept(pick) => {
                if let Some(c) = p.completion.take() {
                    if let Some(word) = pick.or(c.selected).and_then(|i| c.cands.get(i)) {
                        p.draft = format!("{}{word} ", c.head);
                    }
                }
            }
            LineAction::CompleteClose => {}
            LineAction::Interrupt => self.interrupt(id),
        }
    }

    /// Ctrl+C in pane `id` (see [`LineAction::Interrupt`]).
    pub(super) fn interrupt(&mut self, id: PaneId) {
        let lang = self.lang;
        let Some(p) = self.pane(id) else {
            return;
        };
        let client = p.client;
        if p.debug.is_some() {
            // Ctrl+C (or the status bar's Stop) on a script in the debugger is its Stop.
            self.line_action(id, LineAction::Debug(crate::app::engine::DebugCmd::Stop));
            return;
        }
        let follower = p.session.is_some() || self.tabs.follower();
        let stopped = if follower {
            // The leader tab holds this pane's client: it stops the wait there, keeping
            // the client (its database, its name).
            let waiting = p
                .session
                .as_ref()
                .is_some_and(|s| s.blocked.is_some() || s.subscribed);
            if waiting && self.tabs.follower() {
                self.out.push(Command::Post(Msg::Interrupt {
                    from: self.tabs.me,
                    pane: id,
                }));
            }
            crate::engine::Interrupted {
                blocked: waiting,
                ..Default::default()
            }
        } else {
            self.ws.engine.interrupt(client)
        };
        let prompt = self.prompt(client);
        let Some(p) = self.pane_mut(id) else {
            return;
        };
        if follower && stopped.any() {
            p.session = None;
            p.waiting.clear();
        }
        let t = lang.console();
        if let Some(asked) = stopped.script {
            let what = if asked {
                t.interrupted_script
            } else {
                t.unkillable_script
            };
            p.push(Entry::Note(format!("^C {what}")));
        } else if stopped.any() {
            let what = if stopped.monitor {
                t.interrupted_monitor
            } else if stopped.subscribed {
                t.interrupted_subscribe
            } else {
                t.interrupted_block
            };
            p.push(Entry::Note(format!("^C {what}")));
        } else if !p.draft.is_empty() {
            // A shell's Ctrl+C: the line is dropped, shown with ^C.
            let line = std::mem::take(&mut p.draft);
            p.push(Entry::Command {
                prompt,
                line: format!("{line}^C"),
                output: None,
                error: false,
            });
        }
        p.history_pos = None;
    }
}
