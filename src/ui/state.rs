//! The console's state and the actions that change it.
//!
//! [`State`] is a Yew [`Reducible`]: every change goes through [`State::reduce`] with an
//! [`Action`], so the whole behaviour of the console (running a line, history, clearing,
//! language) can be tested without a DOM.
//!
//! The [`Engine`] is not `Clone` and is mutated in place, so it lives behind
//! `Rc<RefCell<…>>` shared by every version of the state. Yew 0.23 skips re-rendering when a
//! reducer returns the very `Rc` it was given, so a reducer that changed something visible
//! returns a **new** `Rc` (see [`Action::Tick`], which deliberately returns the old one when
//! nothing expired).

use std::cell::RefCell;
use std::rc::Rc;

use yew::Reducible;

use super::i18n::Lang;
use crate::engine::cli::{format_reply, split_args, INVALID_ARGUMENTS};
use crate::engine::{table, ClientId, Engine, FnClock, Reply};

/// Lines kept in the console before the oldest are dropped.
pub const MAX_LOG: usize = 1000;
/// Lines kept in the history, as linenoise's default in redis-cli.
pub const MAX_HISTORY: usize = 100;

/// One block of the console's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The welcome banner, rendered in the current language.
    Welcome,
    /// A line the user typed and what came back.
    Command {
        /// The prompt in effect when the line was typed (`127.0.0.1:6379[2]> `).
        prompt: String,
        /// The line as typed.
        line: String,
        /// The reply as redis-cli prints it; `None` for an empty line.
        output: Option<String>,
        /// True if the output is an error (an error reply or an unsplittable line).
        error: bool,
    },
}

/// The console's state.
#[derive(Clone)]
pub struct State {
    engine: Rc<RefCell<Engine>>,
    client: ClientId,
    /// Output blocks, oldest first, at most [`MAX_LOG`].
    pub log: Vec<Rc<Entry>>,
    /// A stable number for `log[0]`; `log[i]` is `log_base + i`. Views use it as the key
    /// of each block, so dropping old blocks does not re-render the rest.
    pub log_base: u64,
    /// Lines run, oldest first, at most [`MAX_HISTORY`], without consecutive duplicates.
    pub history: Vec<String>,
    /// Index into `history` while browsing it with ↑/↓; `None` while editing a new line.
    history_pos: Option<usize>,
    /// The line being edited when history browsing started, restored by ↓ past the end.
    stash: String,
    /// The text in the command box.
    pub draft: String,
    /// The UI language.
    pub lang: Lang,
    /// Keys removed by active expiry so far (changes when a tick removed something).
    pub expired: u64,
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.engine, &other.engine)
            && self.client == other.client
            && self.log == other.log
            && self.log_base == other.log_base
            && self.history == other.history
            && self.history_pos == other.history_pos
            && self.draft == other.draft
            && self.lang == other.lang
            && self.expired == other.expired
    }
}

/// What can happen to the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The command box's text changed.
    Input(String),
    /// Enter: run the command box's line.
    Submit,
    /// ↑: the previous history line.
    HistoryPrev,
    /// ↓: the next history line, or back to the line being edited.
    HistoryNext,
    /// Ctrl+L or `clear`: empty the screen.
    Clear,
    /// Switch the UI language.
    SetLang(Lang),
    /// The 100 ms timer: one active-expiry cycle.
    Tick,
}

impl State {
    /// A console over `engine` with one connected client, showing the welcome banner.
    pub fn new(mut engine: Engine, lang: Lang) -> State {
        let client = engine.connect();
        State {
            engine: Rc::new(RefCell::new(engine)),
            client,
            log: vec![Rc::new(Entry::Welcome)],
            log_base: 0,
            history: Vec::new(),
            history_pos: None,
            stash: String::new(),
            draft: String::new(),
            lang,
            expired: 0,
        }
    }

    /// The state the page starts with: an engine on the browser's clock (`Date.now()`),
    /// seeded from `Math.random()`, in the browser's language.
    pub fn boot() -> State {
        let clock = FnClock(js_sys::Date::now);
        let seed = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        let state = State::new(Engine::new(Box::new(clock), seed), Lang::detect());
        super::persist_hook::install(&state.engine);
        state
    }

    /// The shared engine, for read access by views (and tests).
    pub fn engine(&self) -> &Rc<RefCell<Engine>> {
        &self.engine
    }

    /// The console's client id in the engine.
    pub fn client(&self) -> ClientId {
        self.client
    }

    /// The prompt redis-cli would show now: `127.0.0.1:6379> `, or `127.0.0.1:6379[n]> `
    /// when database `n` ≠ 0 is selected.
    pub fn prompt(&self) -> String {
        let db = self.engine.borrow().client(self.client).map_or(0, |c| c.db);
        prompt_for(db)
    }

    /// redis-cli's hint for the draft: the command's argument syntax, shown while only the
    /// command name has been typed. `None` when there is nothing to hint.
    pub fn hint(&self) -> Option<String> {
        let argv = split_args(&self.draft)?;
        let [name] = argv.as_slice() else {
            return None;
        };
        let cmd = table::lookup(name)?;
        if cmd.syntax.is_empty() {
            return None;
        }
        let sep = if self.draft.ends_with(' ') { "" } else { " " };
        Some(format!("{sep}{}", cmd.syntax))
    }

    /// Runs `line` as redis-cli would and appends the result to the log.
    fn run(&mut self, line: String) {
        let prompt = self.prompt();
        let trimmed = line.trim();
        if !trimmed.is_empty() && self.history.last().map(String::as_str) != Some(line.as_str()) {
            self.history.push(line.clone());
            if self.history.len() > MAX_HISTORY {
                self.history.remove(0);
            }
        }
        // `clear` is a redis-cli built-in, not a server command.
        if trimmed.eq_ignore_ascii_case("clear") {
            self.clear();
            return;
        }
        let (output, error) = match split_args(&line) {
            None => (Some(INVALID_ARGUMENTS.to_string()), true),
            Some(argv) if argv.is_empty() => (None, false),
            Some(argv) => {
                let mut engine = self.engine.borrow_mut();
                let reply = engine.execute(self.client, argv);
                super::persist_hook::record(engine.take_effects(), engine.now_ms());
                (Some(format_reply(&reply)), matches!(reply, Reply::Error(_)))
            }
        };
        self.push(Entry::Command {
            prompt,
            line,
            output,
            error,
        });
    }

    fn push(&mut self, entry: Entry) {
        self.log.push(Rc::new(entry));
        if self.log.len() > MAX_LOG {
            let excess = self.log.len() - MAX_LOG;
            self.log.drain(..excess);
            self.log_base += excess as u64;
        }
    }

    fn clear(&mut self) {
        self.log_base += self.log.len() as u64;
        self.log.clear();
    }
}

/// The redis-cli prompt for database `db` on the default address.
pub fn prompt_for(db: usize) -> String {
    if db == 0 {
        "127.0.0.1:6379> ".to_string()
    } else {
        format!("127.0.0.1:6379[{db}]> ")
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        if action == Action::Tick {
            let removed = self.engine.borrow_mut().tick();
            if removed == 0 {
                // Nothing visible changed: the same Rc tells Yew to skip rendering.
                return self;
            }
            {
                let mut engine = self.engine.borrow_mut();
                super::persist_hook::record(engine.take_effects(), engine.now_ms());
            }
            let mut next = Rc::unwrap_or_clone(self);
            next.expired += removed as u64;
            return Rc::new(next);
        }
        let mut next = Rc::unwrap_or_clone(self);
        match action {
            Action::Input(text) => {
                next.draft = text;
                next.history_pos = None;
            }
            Action::Submit => {
                let line = std::mem::take(&mut next.draft);
                next.history_pos = None;
                next.stash.clear();
                next.run(line);
            }
            Action::HistoryPrev => {
                let pos = match next.history_pos {
                    None if next.history.is_empty() => return Rc::new(next),
                    None => {
                        next.stash = next.draft.clone();
                        next.history.len() - 1
                    }
                    Some(p) => p.saturating_sub(1),
                };
                next.history_pos = Some(pos);
                next.draft = next.history.get(pos).cloned().unwrap_or_default();
            }
            Action::HistoryNext => match next.history_pos {
                None => {}
                Some(p) if p + 1 < next.history.len() => {
                    next.history_pos = Some(p + 1);
                    next.draft = next.history.get(p + 1).cloned().unwrap_or_default();
                }
                Some(_) => {
                    next.history_pos = None;
                    next.draft = std::mem::take(&mut next.stash);
                }
            },
            Action::Clear => next.clear(),
            Action::SetLang(lang) => next.lang = lang,
            Action::Tick => {}
        }
        Rc::new(next)
    }
}
