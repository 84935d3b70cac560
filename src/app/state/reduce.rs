//! The reducer: [`State::apply`] takes an [`Action`] and returns the next state with the
//! [`Command`]s the browser must carry out.

use std::rc::Rc;

use super::model::{Action, Command, State, TabCtx, ViewData};
use super::pane::{Entry, Pane, PaneId};
use crate::app::console;
use crate::app::engine::Outcome;
use crate::engine::Reply;
use crate::tabs::Msg;

impl State {
    /// Reduces `action`: the next state, and what the browser must do for it, in order.
    /// `tabs` is this tab's part among the workspace's tabs at this moment.
    ///
    /// When nothing visible changed (a tick within the same second, with nothing expired)
    /// the very `Rc` given comes back, which tells Yew to skip rendering.
    pub fn apply(self: Rc<Self>, action: Action, tabs: &TabCtx) -> (Rc<Self>, Vec<Command>) {
        if action == Action::Tick && tabs.follower() {
            // Only the leader's clock expires keys and times blocked clients out; the
            // replica receives the effects.
            let now = self.ws.engine.read(|e| e.server().clock.now_ms());
            if now / 1000 == self.now_ms / 1000 {
                return (self, Vec::new());
            }
            let mut next = Rc::unwrap_or_clone(self);
            next.now_ms = now;
            return (Rc::new(next), Vec::new());
        }
        if action == Action::ResumeScript {
            if tabs.follower() || !self.ws.engine.script_running() {
                return (self, Vec::new());
            }
            let outcome = self.ws.engine.resume_script();
            let mut next = Rc::unwrap_or_clone(self);
            next.tabs = *tabs;
            next.absorb(outcome, None);
            next.script_slice += u64::from(next.slices_wanted());
            next.sync_debug();
            let out = std::mem::take(&mut next.out);
            return (Rc::new(next), out);
        }
        if action == Action::Tick {
            // A script stopped in the debugger still passes busy-reply-threshold on time.
            let outcome = if self.ws.engine.debug_stopped() && !tabs.follower() {
                self.ws.engine.resume_script()
            } else {
                self.ws.engine.tick()
            };
            let now = self.ws.engine.read(|e| e.server().clock.now_ms());
            if outcome.is_empty() && now / 1000 == self.now_ms / 1000 {
                // Nothing visible changed: the same Rc tells Yew to skip rendering.
                return (self, Vec::new());
            }
            let mut next = Rc::unwrap_or_clone(self);
            next.tabs = *tabs;
            next.now_ms = now;
            next.absorb(outcome, None);
            let out = std::mem::take(&mut next.out);
            return (Rc::new(next), out);
        }
        let mut next = Rc::unwrap_or_clone(self);
        next.tabs = *tabs;
        match action {
            Action::Line(id, a) => next.line_action(id, a),
            Action::Run(line) => {
                let id = next.ws.active;
                next.run(id, line);
            }
            Action::AddPane => next.add_pane(),
            Action::ClosePane(id) => {
                if next.ws.panes.len() > 1 {
                    if let Some(client) = next.pane(id).map(|p| p.client) {
                        next.ws.engine.disconnect(client);
                        next.pane_closed(id);
                    }
                    next.ws.panes.retain(|p| p.id != id);
                    if next.ws.active == id {
                        next.ws.active = next.first_pane().id;
                        next.sync_db();
                    }
                }
            }
            Action::ResetPane(id) => next.reset_pane(id),
            Action::SetRaw(id, raw) => {
                if let Some(p) = next.pane_mut(id) {
                    p.raw = raw;
                    p.escaped_text &= !raw;
                }
            }
            Action::RenamePane(id, name) => {
                if let Some(p) = next.pane_mut(id) {
                    p.name = Some(name).filter(|n| !n.trim().is_empty());
                }
            }
            Action::Focus(id) => {
                if next.ws.active != id && next.pane(id).is_some() {
                    next.ws.active = id;
                    next.sync_db();
                }
            }
            Action::SetLang(lang) => {
                next.lang = lang;
                next.store("lang", lang.tag());
            }
            Action::SetTheme(theme) => {
                next.theme = theme;
                next.store("theme", theme.name());
            }
            Action::SetCluster(on) => {
                // A follower's change is the leader's to make.
                if let Some(to) = next.tabs.leader {
                    next.out.push(Command::Post(Msg::Config {
                        to,
                        name: "cluster-enabled".to_string(),
                        value: if on { "yes" } else { "no" }.to_string(),
                    }));
                }
                let _ = next
                    .ws
                    .engine
                    .configure("cluster-enabled", if on { "yes" } else { "no" });
                next.store("cluster", if on { "1" } else { "0" });
            }
            Action::SetTab(tab) => next.tab = tab,
            Action::SetFilter(f) => {
                next.ws.index.borrow_mut().set_filter(f.as_bytes());
                next.filter = f;
                next.refresh_rows();
            }
            Action::SetDelim(d) => {
                next.delim = d;
                next.refresh_rows();
            }
            Action::SetFlat(flat) => {
                next.flat = flat;
                next.refresh_rows();
            }
            Action::ToggleFolder(prefix) => {
                next.ws.index.borrow_mut().toggle(&prefix);
                next.refresh_rows();
            }
            Action::Select(key) => {
                next.view = Some(Rc::new(ViewData {
                    key,
                    meta: None,
                    value: None,
                    prev: None,
                    changed_by: None,
                }));
                next.refresh_view(None);
                // A fresh selection shows no change marks.
                if let Some(v) = next.view.take() {
                    let mut v = (*v).clone();
                    v.prev = None;
                    v.changed_by = None;
                    next.view = Some(Rc::new(v));
                }
            }
            Action::CloseVenn => next.venn = None,
            Action::HelpZh(help) => {
                next.help_zh = Some(help);
                next.help_texts_arrived();
            }
            Action::HelpTexts => next.help_texts_arrived(),
            Action::Import(commands) => {
                let client = next.ws.engine.connect();
                let mut report = crate::engine::export::ImportReport::default();
                for (n, argv) in commands.iter().enumerate() {
                    let outcome = next.ws.engine.submit(client, argv.clone());
                    report.commands += 1;
                    if let Some(Reply::Error(e)) = outcome.output_of(client).next() {
                        report.errors.push((n + 1, e.clone()));
                    }
                    next.absorb(outcome, Some(client));
                }
                next.ws.engine.disconnect(client);
                next.import_report = Some(Rc::new(report));
                next.sync_db();
                next.rebuild_index();
                next.refresh_view(None);
            }
            Action::Tick => {}
            Action::Remote(msg) => next.remote(msg),
            Action::Replicated(Some(effects)) => next.absorb(
                Outcome {
                    effects,
                    dropped: Vec::new(),
                    output: Vec::new(),
                },
                None,
            ),
            Action::Replicated(None) => {
                next.rebuild_index();
                next.refresh_view(None);
            }
            Action::Reconnected(promoted) => {
                next.reconnected(promoted);
                next.tabs_version += 1;
            }
            Action::TabsChanged => next.tabs_version += 1,
            Action::ResumeScript => {}
        }
        if next.slices_wanted() {
            next.script_slice += 1;
        }
        next.sync_debug();
        let out = std::mem::take(&mut next.out);
        (Rc::new(next), out)
    }

    /// A script paused and should run its next slice: it is not stopped in the debugger,
    /// where it waits for the learner instead.
    fn slices_wanted(&self) -> bool {
        self.ws.engine.script_running() && !self.ws.engine.debug_stopped()
    }

    /// Brings each pane's debugger view up to date: the pane whose client runs a script
    /// under the debugger shows it; the others, and that one once the script ended, none.
    fn sync_debug(&mut self) {
        let caller = self.ws.engine.read(|e| e.debugger().map(|(c, _)| c));
        if caller.is_none() && self.ws.panes.iter().all(|p| p.debug.is_none()) {
            return;
        }
        self.sync_debug_views(caller);
    }

    #[inline(never)]
    fn sync_debug_views(&mut self, caller: Option<crate::engine::ClientId>) {
        let view = self.ws.engine.read(|e| {
            e.debugger()
                .map(|(_, d)| crate::app::debug::DebugView::of(d))
        });
        for p in &mut self.ws.panes {
            let want = view.as_ref().filter(|_| Some(p.client) == caller);
            if p.debug.as_deref() != want {
                p.debug = want.cloned().map(Rc::new);
            }
        }
    }

    /// Stores a setting in `localStorage` (see [`Command::Store`]).
    fn store(&mut self, name: &'static str, value: &str) {
        self.out.push(Command::Store {
            name,
            value: value.to_string(),
        });
    }

    /// Follower: tells the leader that pane `id` closed (or was reset), so that it drops
    /// the pane's client there.
    pub(super) fn pane_closed(&mut self, id: PaneId) {
        if self.tabs.follower() {
            self.out.push(Command::Post(Msg::Close {
                from: self.tabs.me,
                pane: Some(id),
            }));
        }
    }

    /// Follower: sends a pane's command to the leader; `false` while no leader is known.
    pub(super) fn forward(&mut self, pane: PaneId, req: u64, argv: Vec<Vec<u8>>) -> bool {
        let Some(to) = self.tabs.leader else {
            return false;
        };
        self.out.push(Command::Post(Msg::Command {
            from: self.tabs.me,
            to,
            pane,
            req,
            argv,
        }));
        true
    }

    /// Texts HELP shows arrived: rewrite the HELP blocks printed without them, and keep
    /// waiting for the rest if some are still missing.
    pub(super) fn help_texts_arrived(&mut self) {
        let lang = self.lang;
        let waiting = std::mem::take(&mut self.help_waiting);
        if !self.help_complete() {
            self.help_waiting = waiting.clone();
        }
        for (id, at, args) in waiting {
            let zh = self.help_zh.clone();
            let Some(p) = self.pane_mut(id) else {
                continue;
            };
            let Some(slot) = at
                .checked_sub(p.log_base)
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| p.log.get_mut(i))
            else {
                continue;
            };
            if let Entry::Command {
                prompt,
                line,
                error,
                ..
            } = &**slot
            {
                *slot = Rc::new(Entry::Command {
                    prompt: prompt.clone(),
                    line: line.clone(),
                    output: Some(console::help(&args, lang, zh.as_deref())),
                    error: *error,
                });
            }
        }
    }

    pub(super) fn add_pane(&mut self) {
        let client = self.ws.engine.connect();
        let id = self.ws.next_pane;
        self.ws.next_pane += 1;
        self.ws.panes.push(Pane {
            id,
            client,
            name: None,
            log: Vec::new(),
            log_base: 0,
            draft: String::new(),
            history_pos: None,
            stash: String::new(),
            completion: None,
            raw: false,
            escaped_text: false,
            session: None,
            waiting: Vec::new(),
            script: Default::default(),
            script_open: false,
            script_focus: 0,
            script_error: None,
            debug: None,
        });
        self.ws.active = id;
    }

    /// See [`Action::ResetPane`].
    pub(super) fn reset_pane(&mut self, id: PaneId) {
        let Some(old) = self.pane(id).map(|p| p.client) else {
            return;
        };
        if self.pane(id).is_some_and(|p| p.session.is_some()) || self.tabs.follower() {
            self.pane_closed(id);
        } else {
            self.ws.engine.disconnect(old);
        }
        let client = self.ws.engine.connect();
        if let Some(p) = self.pane_mut(id) {
            p.client = client;
            p.clear();
            p.push(Entry::Welcome);
            p.draft.clear();
            p.completion = None;
            p.history_pos = None;
            p.session = None;
            p.waiting.clear();
            p.escaped_text = false;
        }
        if self.ws.active == id {
            self.sync_db();
        }
    }
}
