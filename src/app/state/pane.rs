//! A console pane and what its command line does: editing, history, Tab completion,
//! Ctrl+C.

use std::rc::Rc;

use crate::app::script::{DraftError, ScriptDraft, ScriptField, ScriptRun};
use crate::engine::ClientId;
use crate::i18n::Lang;
use crate::tabs::Session;

/// Blocks kept in a pane before the oldest are dropped.
pub const MAX_LOG: usize = 1000;
/// Lines kept in the history, as linenoise's default in redis-cli.
pub const MAX_HISTORY: usize = 100;

/// One block of a pane's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The welcome banner, rendered in the current language.
    Welcome,
    /// A line the user typed (or a view issued) and what came back.
    Command {
        /// The prompt in effect when the line was typed (`127.0.0.1:6379[2]> `).
        prompt: String,
        /// The line as typed.
        line: String,
        /// The reply as redis-cli prints it; `None` for an empty line, or while blocked.
        output: Option<String>,
        /// True if the output is an error (an error reply or an unsplittable line).
        error: bool,
    },
    /// A note of the console itself, not of the server: what Ctrl+C stopped.
    Note(String),
    /// Output that arrived later: a published message, the late reply of a blocked command.
    Late {
        /// As redis-cli prints it.
        output: String,
        /// True for an error reply.
        error: bool,
    },
    /// An invalidation the pane's client received because it tracks keys (`CLIENT
    /// TRACKING`): a RESP3 `invalidate` push, or a message on `__redis__:invalidate` for
    /// the clients redirecting to it. Shown labelled, with redis-cli's text.
    Invalidation {
        /// As redis-cli prints it.
        output: String,
        /// A flush (every key at once) rather than a list of keys.
        flush: bool,
    },
}

/// Identifies a console pane; never reused.
pub type PaneId = u32;

/// One console pane: a client of the engine with its own output and draft.
#[derive(Debug, Clone, PartialEq)]
pub struct Pane {
    /// Stable id (a Yew key).
    pub id: PaneId,
    /// The engine client it speaks as.
    pub client: ClientId,
    /// Its title once renamed; until then it is called "client N" in the UI language
    /// ([`Pane::title`]).
    pub name: Option<String>,
    /// Output blocks, oldest first, at most [`MAX_LOG`].
    pub log: Vec<Rc<Entry>>,
    /// A stable number for `log[0]`, so dropping old blocks does not re-render the rest.
    pub log_base: u64,
    /// The text in the command box.
    pub draft: String,
    /// Index into the history while browsing it with ↑/↓.
    pub(super) history_pos: Option<usize>,
    /// The line being edited when history browsing started.
    pub(super) stash: String,
    /// The Tab completion list, while it is open.
    pub(super) completion: Option<Completion>,
    /// Replies are printed as `redis-cli --raw` prints them.
    pub raw: bool,
    /// The last reply held UTF-8 text shown as `\xHH` escapes (the pane offers `--raw`).
    pub escaped_text: bool,
    /// In a follower tab: the pane's session on the leader, as of its last reply
    /// (`None` before the first, and after a failover).
    pub session: Option<Session>,
    /// In a follower tab: commands sent to the leader and not answered yet — their number
    /// and the absolute index (`log_base` + position) of their block.
    pub(super) waiting: Vec<(u64, u64)>,
    /// The script editor's text (kept while the editor is closed).
    pub script: ScriptDraft,
    /// The script editor is open.
    pub script_open: bool,
    /// Bumped when the editor should take the focus (opened by its button, or by Enter on
    /// an `EVAL "…` line whose quote is open).
    pub script_focus: u32,
    /// The editor's last run failed before it ran: a line that does not split.
    pub script_error: Option<DraftError>,
    /// The script this pane's client runs under the debugger, while it runs
    /// ([`crate::app::debug`]).
    pub debug: Option<std::rc::Rc<crate::app::debug::DebugView>>,
}

/// The candidates Tab found for the word being typed, shown as a list under the line.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Completion {
    /// The line before the word.
    pub(super) head: String,
    /// The candidates, sorted.
    pub(super) cands: Vec<String>,
    /// The candidate chosen with Tab or the arrows (shown in the line), if any.
    pub(super) selected: Option<usize>,
}

impl Pane {
    /// The completion list while it is open: the candidates and the one selected.
    pub fn completion(&self) -> Option<(&[String], Option<usize>)> {
        self.completion
            .as_ref()
            .map(|c| (c.cands.as_slice(), c.selected))
    }

    /// The title shown: the name given, or "client N" in `lang`.
    pub fn title(&self, lang: Lang) -> String {
        match &self.name {
            Some(n) => n.clone(),
            None => format!("{} {}", lang.strings().client, self.id),
        }
    }

    pub(super) fn push(&mut self, entry: Entry) {
        self.log.push(Rc::new(entry));
        if self.log.len() > MAX_LOG {
            let excess = self.log.len() - MAX_LOG;
            self.log.drain(..excess);
            self.log_base += excess as u64;
        }
    }

    /// A multi-line script recalled from the history opens in the editor (a one-line box
    /// cannot show its line breaks); the box is left empty.
    pub(super) fn recall_script(&mut self) {
        if let Some(draft) = crate::app::script::recall(&self.draft) {
            self.script = draft;
            self.script_open = true;
            self.script_error = None;
            self.draft.clear();
        }
    }

    pub(super) fn clear(&mut self) {
        self.log_base += self.log.len() as u64;
        self.log.clear();
    }

    /// Fills in the output of the command block at absolute index `abs` (a forwarded
    /// command's reply), if it is still in the log.
    pub(super) fn answer(&mut self, abs: u64, text: String, is_error: bool) {
        let Some(i) = abs.checked_sub(self.log_base).map(|i| i as usize) else {
            return;
        };
        if let Some(slot) = self.log.get_mut(i) {
            if let Entry::Command {
                prompt,
                line,
                output: None,
                ..
            } = slot.as_ref()
            {
                *slot = Rc::new(Entry::Command {
                    prompt: prompt.clone(),
                    line: line.clone(),
                    output: Some(text),
                    error: is_error,
                });
            }
        }
    }
}

/// What a pane's command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAction {
    /// The command box's text changed.
    Input(String),
    /// Enter: run the line.
    Submit,
    /// ↑: the previous history line.
    HistoryPrev,
    /// ↓: the next history line, or back to the line being edited.
    HistoryNext,
    /// Ctrl+L or `clear`: empty the pane.
    Clear,
    /// Tab: complete the word under the cursor (the candidates' common prefix, with a list
    /// of them when there are several), or select the next candidate of the open list.
    Complete,
    /// ↑/↓ (or Shift+Tab) in the open completion list: select the previous (-1) or next (1).
    CompleteMove(i32),
    /// Enter in the open list, or a click on candidate `Some(i)`: take it into the line.
    CompleteAccept(Option<usize>),
    /// Escape: close the completion list, keeping the line.
    CompleteClose,
    /// Ctrl+C: stop what the client waits in (`BLPOP`, `SUBSCRIBE`, `MONITOR`), as
    /// redis-cli's Ctrl+C does; otherwise drop the line being typed, as a shell does.
    Interrupt,
    /// Text pasted: the commands it holds run in order (a line break inside quotes stays
    /// in its argument: a pasted multi-line `EVAL "…" 0` is one command).
    Paste(String),
    /// Open (`true`, focused) or close the script editor.
    ScriptOpen(bool),
    /// A field of the script editor changed.
    ScriptEdit(ScriptField, String),
    /// Ctrl+Enter or a button in the script editor: run the script as typed there.
    ScriptRun(ScriptRun),
    /// Step, Continue or Stop in the debugger of the script this pane runs.
    Debug(crate::app::engine::DebugCmd),
}
