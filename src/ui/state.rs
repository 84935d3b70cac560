//! The app's state and the actions that change it.
//!
//! [`State`] is a Yew [`Reducible`]: every change goes through [`State::reduce`] with an
//! [`Action`], so the whole behaviour (running lines in panes, history, completion, the
//! keyspace browser, the value view) can be tested without a DOM.
//!
//! The data lives in a [`Workspace`]: one engine (behind its [`EngineService`]), the
//! console panes connected to it as clients, and the key index the browser shows. The app
//! has one workspace today; nothing below assumes there is only one engine.
//!
//! Big or shared things (the engine, the key index, the tree rows) sit behind `Rc`, so
//! cloning the state for each action is cheap. Yew 0.23 skips re-rendering when a reducer
//! returns the very `Rc` it was given: a tick that changed nothing visible does that.

use std::cell::RefCell;
use std::rc::Rc;

use yew::Reducible;

use super::console;
use super::i18n::Lang;
use super::services::engine::{EngineService, Outcome};
use super::services::storage;
use super::tabs_hook;
use crate::engine::cli::{
    format_reply_for, format_reply_raw, has_utf8_text, split_args, INVALID_ARGUMENTS,
};
use crate::engine::inspect::{self, KeyIndex, KeyMeta, Row, ValueView};
use crate::engine::{ClientId, Effect, Engine, Reply};
use crate::tabs::{blocked_until, Line, Msg, Session, TabId, WaitsFor};

/// Blocks kept in a pane before the oldest are dropped.
pub const MAX_LOG: usize = 1000;
/// Lines kept in the history, as linenoise's default in redis-cli.
pub const MAX_HISTORY: usize = 100;
/// Elements a value view copies from a value.
pub const VIEW_LIMIT: usize = 200;

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
    history_pos: Option<usize>,
    /// The line being edited when history browsing started.
    stash: String,
    /// The Tab completion list, while it is open.
    completion: Option<Completion>,
    /// Replies are printed as `redis-cli --raw` prints them.
    pub raw: bool,
    /// The last reply held UTF-8 text shown as `\xHH` escapes (the pane offers `--raw`).
    pub escaped_text: bool,
    /// In a follower tab: the pane's session on the leader, as of its last reply
    /// (`None` before the first, and after a failover).
    pub session: Option<Session>,
    /// In a follower tab: commands sent to the leader and not answered yet — their number
    /// and the absolute index (`log_base` + position) of their block.
    waiting: Vec<(u64, u64)>,
}

/// The candidates Tab found for the word being typed, shown as a list under the line.
#[derive(Debug, Clone, PartialEq)]
struct Completion {
    /// The line before the word.
    head: String,
    /// The candidates, sorted.
    cands: Vec<String>,
    /// The candidate chosen with Tab or the arrows (shown in the line), if any.
    selected: Option<usize>,
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

    /// Fills in the output of the command block at absolute index `abs` (a forwarded
    /// command's reply), if it is still in the log.
    fn answer(&mut self, abs: u64, text: String, is_error: bool) {
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

/// The leader's clients for the panes of follower tabs.
#[derive(Debug, Default)]
pub struct RemoteClients {
    by_pane: std::collections::HashMap<(TabId, PaneId), ClientId>,
    by_client: std::collections::HashMap<ClientId, (TabId, PaneId)>,
}

/// What the value view shows: the selected key's value, and what it was before the last
/// change (to mark what came and went).
#[derive(Debug, Clone, PartialEq)]
pub struct ViewData {
    /// The key.
    pub key: Vec<u8>,
    /// Its type and deadline; `None` once the key is gone.
    pub meta: Option<KeyMeta>,
    /// Its value, bounded by [`VIEW_LIMIT`].
    pub value: Option<ValueView>,
    /// The value before the last change, if it changed since it was selected.
    pub prev: Option<ValueView>,
    /// What made the last change: its command (`LPUSH`), or the keyspace event `expired`
    /// or `evicted` (lowercase) when the server removed the key on its own.
    pub changed_by: Option<String>,
}

/// A set operation to draw as overlapping circles: the sets, and the result.
#[derive(Debug, Clone, PartialEq)]
pub struct Venn {
    /// `SINTER`, `SUNION` or `SDIFF`.
    pub op: String,
    /// The sets (two or three), with their members (bounded).
    pub sets: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    /// The members of the result.
    pub result: Vec<Vec<u8>>,
}

/// A list shared by `Rc` that compares by identity: cheap to pass as a prop.
#[derive(Debug, Clone, Default)]
pub struct Shared<T>(pub Rc<T>);

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The engine and what is attached to it: client panes and the key index of the
/// database the browser shows.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The engine service: every command goes through it.
    pub engine: EngineService,
    /// Console panes, left to right.
    pub panes: Vec<Pane>,
    /// The pane that last had focus: views issue their commands there.
    pub active: PaneId,
    next_pane: PaneId,
    /// The sorted keys of the database the active pane selected.
    pub index: Rc<RefCell<KeyIndex>>,
    /// Which database `index` holds.
    pub index_db: usize,
    /// Leader: the clients of follower tabs' panes (see `tabs_hook`).
    pub remote: Rc<RefCell<RemoteClients>>,
}

/// The page's top-level sections. Walkthroughs will add theirs here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// Consoles, keyspace browser and value views.
    Workbench,
}

impl Tab {
    /// Every tab, in the order of the navigation bar.
    pub const ALL: &'static [Tab] = &[Tab::Workbench];
}

/// The colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Light background.
    Light,
    /// Dark background.
    Dark,
}

impl Theme {
    /// The `data-theme` value.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// The app's state.
#[derive(Debug, Clone)]
pub struct State {
    /// The engine, panes and key index.
    pub ws: Workspace,
    /// Lines run in any pane, oldest first, at most [`MAX_HISTORY`], without consecutive
    /// duplicates; kept in `localStorage`.
    pub history: Vec<String>,
    /// The UI language.
    pub lang: Lang,
    /// The colour theme.
    pub theme: Theme,
    /// The section shown.
    pub tab: Tab,
    /// Browser: the delimiter grouping keys into folders.
    pub delim: String,
    /// Browser: the glob filter.
    pub filter: String,
    /// Browser: a flat list instead of the tree.
    pub flat: bool,
    /// Browser: the rows shown.
    pub rows: Shared<Vec<Row>>,
    /// Changes whenever the keys or rows change.
    pub keys_version: u64,
    /// The selected key and its value.
    pub view: Option<Rc<ViewData>>,
    /// The last set operation, drawn as a diagram.
    pub venn: Option<Rc<Venn>>,
    /// The clock, updated by ticks (whole seconds change the TTL and timeout countdowns).
    pub now_ms: i64,
    /// The Chinese HELP texts, once fetched ([`console::load_help_zh`]).
    pub help_zh: Option<Rc<console::HelpZh>>,
    /// HELP blocks printed in English in Chinese mode while the texts were not there yet:
    /// pane, absolute log position (`log_base` + index) and the words after `HELP`. They
    /// are rewritten in Chinese when the texts arrive.
    help_waiting: Vec<(PaneId, u64, Vec<Vec<u8>>)>,
    /// What the last import ran: commands, and the errors replied (1-based command number).
    pub import_report: Option<Rc<crate::engine::export::ImportReport>>,
    /// Follower: the number of the last command forwarded.
    next_req: u64,
    /// Changes when this tab's role or its other tabs change (the role badge).
    pub tabs_version: u64,
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.ws.engine == other.ws.engine
            && self.ws.panes == other.ws.panes
            && self.ws.active == other.ws.active
            && self.history == other.history
            && self.lang == other.lang
            && self.theme == other.theme
            && self.tab == other.tab
            && self.keys_version == other.keys_version
            && self.view == other.view
            && self.venn == other.venn
            && self.now_ms == other.now_ms
            && self.filter == other.filter
            && self.delim == other.delim
            && self.flat == other.flat
            && self.import_report == other.import_report
            && self.tabs_version == other.tabs_version
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
    /// Several lines pasted: run them in order.
    Paste(String),
}

/// What can happen to the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Something in a pane's command line.
    Line(PaneId, LineAction),
    /// Run a command in the active pane, as if typed (value views use it).
    Run(String),
    /// Open another client pane.
    AddPane,
    /// Close a pane (the last one stays).
    ClosePane(PaneId),
    /// Rename a pane.
    RenamePane(PaneId, String),
    /// Reset a pane: its client disconnects (whatever it was waiting in ends) and a new one
    /// connects, as restarting redis-cli would; the output is cleared.
    ResetPane(PaneId),
    /// Print a pane's replies as `redis-cli --raw` does, or not.
    SetRaw(PaneId, bool),
    /// A pane got focus: views send their commands there.
    Focus(PaneId),
    /// Switch the UI language.
    SetLang(Lang),
    /// Switch the theme.
    SetTheme(Theme),
    /// Turn cluster mode on or off (`cluster-enabled`: CROSSSLOT for keys in different
    /// hash slots, CLUSTER KEYSLOT).
    SetCluster(bool),
    /// Show a section.
    SetTab(Tab),
    /// Browser: the filter changed.
    SetFilter(String),
    /// Browser: the delimiter changed.
    SetDelim(String),
    /// Browser: tree or flat list.
    SetFlat(bool),
    /// Browser: open or close a folder.
    ToggleFolder(Vec<u8>),
    /// Browser: show a key's value.
    Select(Vec<u8>),
    /// Close the set-operation diagram.
    CloseVenn,
    /// The 100 ms timer: active expiry, blocked-client timeouts, countdowns.
    Tick,
    /// The Chinese HELP texts were fetched.
    HelpZh(Rc<console::HelpZh>),
    /// Run imported commands on a client of their own (the workspace manager's import);
    /// the result goes to [`State::import_report`].
    Import(Rc<Vec<Vec<Vec<u8>>>>),
    /// A message from another tab of the workspace (`tabs_hook`): a follower's command or
    /// pane closing (leader), a reply or later output (follower).
    Remote(Msg),
    /// Follower: the replica changed — these effects, or everything (`None`, a snapshot).
    Replicated(Option<Vec<Effect>>),
    /// The sessions on the leader are gone: this tab took over (`true`) or another did.
    Reconnected(bool),
    /// This tab's role or its other tabs changed.
    TabsChanged,
}

impl State {
    /// An app over `engine` with one console pane, in `lang`, with no saved history.
    pub fn new(engine: Engine, lang: Lang) -> State {
        State::with_service(EngineService::new(engine), lang, Vec::new(), Theme::Dark)
    }

    /// An app over an engine service, with the history and theme given.
    pub fn with_service(
        engine: EngineService,
        lang: Lang,
        history: Vec<String>,
        theme: Theme,
    ) -> State {
        let now_ms = engine.read(|e| e.server().clock.now_ms());
        let mut s = State {
            ws: Workspace {
                engine,
                panes: Vec::new(),
                active: 1,
                next_pane: 1,
                index: Rc::new(RefCell::new(KeyIndex::default())),
                index_db: 0,
                remote: Rc::default(),
            },
            history,
            lang,
            theme,
            tab: Tab::Workbench,
            delim: ":".to_string(),
            filter: String::new(),
            flat: false,
            rows: Shared::default(),
            keys_version: 0,
            view: None,
            venn: None,
            now_ms,
            help_zh: None,
            help_waiting: Vec::new(),
            import_report: None,
            next_req: 0,
            tabs_version: 0,
        };
        s.add_pane();
        if let Some(p) = s.ws.panes.first_mut() {
            p.push(Entry::Welcome);
        }
        s.rebuild_index();
        s
    }

    /// The state the page starts with: a fresh engine on the browser's clock, the
    /// browser's language (or the one chosen before), the saved history and theme.
    pub fn boot() -> State {
        let lang = match storage::get("lang").as_deref() {
            Some("en") => Lang::En,
            Some("zh-CN") => Lang::Zh,
            _ => Lang::detect(),
        };
        let history = storage::get("history")
            .map(|h| h.lines().map(str::to_string).collect())
            .unwrap_or_default();
        let theme = match storage::get("theme").as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => {
                let light = web_sys::window()
                    .and_then(|w| {
                        w.match_media("(prefers-color-scheme: light)")
                            .ok()
                            .flatten()
                    })
                    .is_some_and(|m| m.matches());
                if light {
                    Theme::Light
                } else {
                    Theme::Dark
                }
            }
        };
        let engine = EngineService::boot();
        if storage::get("cluster").as_deref() == Some("1") {
            let _ = engine.configure("cluster-enabled", "yes");
        }
        super::persist_hook::connect(&engine);
        tabs_hook::connect(&engine);
        State::with_service(engine, lang, history, theme)
    }

    /// The engine service.
    pub fn engine(&self) -> &EngineService {
        &self.ws.engine
    }

    /// The pane with `id`.
    pub fn pane(&self, id: PaneId) -> Option<&Pane> {
        self.ws.panes.iter().find(|p| p.id == id)
    }

    /// The first pane (there is always one).
    pub fn first_pane(&self) -> &Pane {
        &self.ws.panes[0]
    }

    /// The database a client has selected.
    pub fn db_of(&self, client: ClientId) -> usize {
        // A follower's pane: its session on the leader.
        if let Some(s) = self
            .ws
            .panes
            .iter()
            .find(|p| p.client == client)
            .and_then(|p| p.session.as_ref())
        {
            return usize::try_from(s.db).unwrap_or(0);
        }
        self.ws
            .engine
            .read(|e| e.client(client).map_or(0, |c| c.db))
    }

    /// The prompt redis-cli would show for a pane's client.
    pub fn prompt(&self, client: ClientId) -> String {
        prompt_for(self.db_of(client))
    }

    /// True while the Chinese HELP texts are needed and not here: in Chinese mode, once a
    /// HELP was printed in English for want of them, or as soon as a command line starts
    /// with `h` (the app then fetches them, so `HELP` usually finds them ready).
    pub fn wants_help_zh(&self) -> bool {
        self.lang == Lang::Zh
            && self.help_zh.is_none()
            && (!self.help_waiting.is_empty()
                || self.ws.panes.iter().any(|p| {
                    p.draft
                        .trim_start()
                        .get(..1)
                        .is_some_and(|c| c.eq_ignore_ascii_case("h"))
                }))
    }

    /// The Chinese HELP texts arrived: keep them and rewrite the HELP blocks printed in
    /// English meanwhile (if the page is still in Chinese).
    fn help_zh_loaded(&mut self, help: Rc<console::HelpZh>) {
        self.help_zh = Some(help);
        let lang = self.lang;
        for (id, at, args) in std::mem::take(&mut self.help_waiting) {
            if lang != Lang::Zh {
                continue;
            }
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

    /// redis-cli's hint for a pane's draft.
    pub fn hint(&self, pane: PaneId) -> Option<String> {
        self.pane(pane).and_then(|p| console::hint(&p.draft))
    }

    fn add_pane(&mut self) {
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
        });
        self.ws.active = id;
    }

    /// See [`Action::ResetPane`].
    fn reset_pane(&mut self, id: PaneId) {
        let Some(old) = self.pane(id).map(|p| p.client) else {
            return;
        };
        if self.pane(id).is_some_and(|p| p.session.is_some()) || tabs_hook::is_follower() {
            tabs_hook::pane_closed(id);
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

    fn pane_mut(&mut self, id: PaneId) -> Option<&mut Pane> {
        self.ws.panes.iter_mut().find(|p| p.id == id)
    }

    fn remember(&mut self, line: &str) {
        if line.trim().is_empty() || self.history.last().map(String::as_str) == Some(line) {
            return;
        }
        self.history.push(line.to_string());
        if self.history.len() > MAX_HISTORY {
            self.history.remove(0);
        }
        // Written a moment later, not before the reply is painted (see `storage::set_later`).
        let history = self.history.clone();
        storage::set_later("history", move || history.join("\n"));
    }

    /// Runs `line` in pane `id` as redis-cli would and shows the result there.
    fn run(&mut self, id: PaneId, line: String) {
        let Some(client) = self.pane(id).map(|p| p.client) else {
            return;
        };
        self.ws.active = id;
        self.remember(&line);
        let prompt = self.prompt(client);
        let trimmed = line.trim();
        // `clear` and `help` are redis-cli built-ins, not server commands.
        if trimmed.eq_ignore_ascii_case("clear") {
            if let Some(p) = self.pane_mut(id) {
                p.clear();
            }
            return;
        }
        let argv = split_args(&line);
        if let Some(words) = argv
            .as_ref()
            .filter(|a| a.first().is_some_and(|w| w.eq_ignore_ascii_case(b"help")))
        {
            let args = words.get(1..).unwrap_or(&[]).to_vec();
            let output = console::help(&args, self.lang, self.help_zh.as_deref());
            let waiting = self.lang == Lang::Zh && self.help_zh.is_none() && !args.is_empty();
            if let Some(p) = self.pane_mut(id) {
                p.push(Entry::Command {
                    prompt,
                    line,
                    output: Some(output),
                    error: false,
                });
                let at = p.log_base + p.log.len() as u64 - 1;
                if waiting {
                    self.help_waiting.push((id, at, args));
                }
            }
            return;
        }
        let (output, error, outcome) = match argv {
            None => (Some(INVALID_ARGUMENTS.to_string()), true, None),
            Some(argv) if argv.is_empty() => (None, false, None),
            Some(argv) if tabs_hook::is_follower() => {
                // The leader tab runs it; the reply fills this block in (`Action::Remote`).
                self.next_req += 1;
                let req = self.next_req;
                let sent = tabs_hook::forward(id, req, argv);
                let lang = self.lang;
                if let Some(p) = self.pane_mut(id) {
                    p.push(Entry::Command {
                        prompt,
                        line,
                        output: (!sent).then(|| tabs_hook::texts(lang).not_connected.to_string()),
                        error: !sent,
                    });
                    if sent {
                        let abs = p.log_base + p.log.len() as u64 - 1;
                        p.waiting.push((req, abs));
                    }
                }
                return;
            }
            Some(argv) => {
                let venn_keys = venn_request(&argv);
                let outcome = self.ws.engine.submit(client, argv);
                let proto = self
                    .ws
                    .engine
                    .read(|e| e.client(client).map_or(2, |c| c.proto));
                let replies: Vec<&Reply> = outcome.output_of(client).collect();
                let error = matches!(replies.first(), Some(Reply::Error(_)));
                let raw = self.pane(id).is_some_and(|p| p.raw);
                let text = (!replies.is_empty()).then(|| {
                    replies
                        .iter()
                        .map(|r| reply_text(r, proto, raw))
                        .collect::<Vec<_>>()
                        .join("\n")
                });
                let escaped = !raw && replies.iter().any(|r| has_utf8_text(r));
                if let Some(p) = self.pane_mut(id) {
                    p.escaped_text = escaped;
                }
                if let (Some((op, keys)), Some(Reply::Array(items) | Reply::Set(items))) =
                    (venn_keys, replies.first())
                {
                    self.venn = self.make_venn(client, op, keys, items);
                }
                (text, error, Some(outcome))
            }
        };
        if let Some(p) = self.pane_mut(id) {
            p.push(Entry::Command {
                prompt,
                line,
                output,
                error,
            });
        }
        if let Some(outcome) = outcome {
            self.absorb(outcome, Some(client));
        }
        self.sync_db();
    }

    /// Shows what other clients were sent, and brings the key index and value view up to
    /// date with the effects.
    fn absorb(&mut self, outcome: Outcome, except: Option<ClientId>) {
        for (client, replies) in &outcome.output {
            if Some(*client) == except {
                continue;
            }
            let remote = self.ws.remote.borrow().by_client.get(client).copied();
            if let Some((tab, pane)) = remote {
                // A follower tab's pane: its later output goes there.
                let lines = self.render(*client, replies.iter());
                tabs_hook::send(Msg::Reply {
                    leader: tabs_hook::me(),
                    to: tab,
                    pane,
                    req: 0,
                    lines,
                    session: self.session_of(*client),
                });
                continue;
            }
            let proto = self
                .ws
                .engine
                .read(|e| e.client(*client).map_or(2, |c| c.proto));
            if let Some(p) = self.ws.panes.iter_mut().find(|p| p.client == *client) {
                for r in replies {
                    p.push(Entry::Late {
                        output: reply_text(r, proto, p.raw),
                        error: matches!(r, Reply::Error(_)),
                    });
                }
            }
        }
        if outcome.effects.is_empty() {
            return;
        }
        let db = self.ws.index_db;
        // Keys changed in the shown database, and the command that changed the viewed key.
        let mut full = false;
        let mut touched: Vec<&[u8]> = Vec::new();
        let mut touched_view = None;
        for effect in &outcome.effects {
            match inspect::touched_keys(effect) {
                None => full = true,
                Some(keys) if effect.db == db => {
                    for k in keys {
                        if self.view.as_ref().is_some_and(|v| v.key == k) {
                            touched_view = self.change_of(effect, k, &outcome.dropped);
                        }
                        touched.push(k);
                    }
                }
                Some(_) => {}
            }
        }
        // Past a few thousand keys (a big MSET), one re-read beats as many insertions.
        full |= touched.len() > 4096;
        if !full {
            let mut index = self.ws.index.borrow_mut();
            self.ws.engine.read(|e| {
                if let Some(d) = e.server().dbs.get(db) {
                    for k in &touched {
                        index.update(d, k);
                    }
                }
            });
        }
        if full {
            self.rebuild_index();
            touched_view = Some(String::new());
        } else {
            self.refresh_rows();
        }
        if let Some(cmd) = touched_view {
            self.refresh_view((!cmd.is_empty()).then_some(cmd));
        }
    }

    /// What to tell the learner changed the viewed key `key` in `effect`: the command
    /// (`LPUSH`), or `expired`/`evicted` when the server removed it on its own. Such a
    /// removal is replayed as a `DEL` nobody typed; `dropped` names them (a follower tab,
    /// which receives only the `DEL`, knows an expiry by the deadline the key had passed).
    fn change_of(
        &self,
        effect: &Effect,
        key: &[u8],
        dropped: &[(usize, Vec<u8>, &'static str)],
    ) -> Option<String> {
        let name = String::from_utf8_lossy(effect.argv.first()?).to_ascii_uppercase();
        if name == "DEL" {
            if let Some((_, _, event)) = dropped
                .iter()
                .find(|(db, k, _)| *db == effect.db && k == key)
            {
                return Some(event.to_string());
            }
            let now = self.ws.engine.read(|e| e.server().clock.now_ms());
            let deadline = self.view.as_ref().and_then(|v| v.meta?.expire_at);
            if deadline.is_some_and(|at| at <= now) {
                return Some("expired".to_string());
            }
        }
        Some(name)
    }

    /// Renders replies for `client` as redis-cli prints them.
    fn render<'a>(&self, client: ClientId, replies: impl Iterator<Item = &'a Reply>) -> Vec<Line> {
        let proto = self
            .ws
            .engine
            .read(|e| e.client(client).map_or(2, |c| c.proto));
        replies
            .map(|r| Line {
                text: format_reply_for(r, proto),
                error: matches!(r, Reply::Error(_)),
            })
            .collect()
    }

    /// What a follower's pane shows of its session on this (the leader's) engine.
    fn session_of(&self, client: ClientId) -> Session {
        self.ws.engine.read(|e| {
            let c = e.client(client);
            Session {
                db: c.map_or(0, |c| c.db as u64),
                proto: c.map_or(2, |c| c.proto),
                blocked: blocked_until(e, client),
                waits_for: WaitsFor::of_client(e, client),
                queued: c.and_then(|c| c.multi.as_ref()).map(|m| {
                    m.queue
                        .iter()
                        .map(|q| {
                            let words: Vec<&[u8]> = q.argv.iter().map(Vec::as_slice).collect();
                            console::line(&words)
                        })
                        .collect()
                }),
                subscribed: e.server().pubsub.total(client) > 0,
            }
        })
    }

    /// A message from another tab (see [`Action::Remote`]).
    fn remote(&mut self, msg: Msg) {
        match msg {
            // Leader: run a follower pane's command as that pane's client.
            Msg::Command {
                from,
                pane,
                req,
                argv,
                ..
            } => {
                let known = self.ws.remote.borrow().by_pane.get(&(from, pane)).copied();
                let client = known.unwrap_or_else(|| {
                    let c = self.ws.engine.connect();
                    let mut r = self.ws.remote.borrow_mut();
                    r.by_pane.insert((from, pane), c);
                    r.by_client.insert(c, (from, pane));
                    c
                });
                let outcome = self.ws.engine.submit(client, argv);
                let lines = self.render(client, outcome.output_of(client));
                tabs_hook::send(Msg::Reply {
                    leader: tabs_hook::me(),
                    to: from,
                    pane,
                    req,
                    lines,
                    session: self.session_of(client),
                });
                self.absorb(outcome, Some(client));
            }
            Msg::Close { from, pane } => {
                let gone: Vec<ClientId> = {
                    let mut r = self.ws.remote.borrow_mut();
                    let keys: Vec<(TabId, PaneId)> = r
                        .by_pane
                        .keys()
                        .filter(|(t, p)| *t == from && pane.is_none_or(|x| x == *p))
                        .copied()
                        .collect();
                    let gone: Vec<ClientId> =
                        keys.iter().filter_map(|k| r.by_pane.remove(k)).collect();
                    for c in &gone {
                        r.by_client.remove(c);
                    }
                    gone
                };
                for c in gone {
                    self.ws.engine.disconnect(c);
                }
            }
            Msg::Interrupt { from, pane } => {
                let client = self.ws.remote.borrow().by_pane.get(&(from, pane)).copied();
                if let Some(client) = client {
                    self.ws.engine.interrupt(client);
                    tabs_hook::send(Msg::Reply {
                        leader: tabs_hook::me(),
                        to: from,
                        pane,
                        req: 0,
                        lines: Vec::new(),
                        session: self.session_of(client),
                    });
                }
            }
            Msg::Config { name, value, .. } => {
                let _ = self.ws.engine.configure(&name, &value);
            }
            // Follower: a reply, or later output, for one of this tab's panes.
            Msg::Reply {
                pane,
                req,
                lines,
                session,
                ..
            } => {
                let Some(p) = self.pane_mut(pane) else {
                    return;
                };
                p.session = Some(session);
                if req == 0 {
                    for l in lines {
                        p.push(Entry::Late {
                            output: l.text,
                            error: l.error,
                        });
                    }
                } else if let Some(i) = p.waiting.iter().position(|(r, _)| *r == req) {
                    let (_, abs) = p.waiting.remove(i);
                    // No output: the command blocks (its reply comes later, as for a pane
                    // of this tab).
                    if !lines.is_empty() {
                        let error = lines.first().is_some_and(|l| l.error);
                        let text = lines
                            .into_iter()
                            .map(|l| l.text)
                            .collect::<Vec<_>>()
                            .join("\n");
                        p.answer(abs, text, error);
                    }
                }
                self.sync_db();
            }
            _ => {}
        }
    }

    /// The sessions of this tab's panes on the old leader are gone (see
    /// [`Action::Reconnected`]).
    fn reconnected(&mut self, promoted: bool) {
        let t = tabs_hook::texts(self.lang);
        for p in &mut self.ws.panes {
            let waiting = std::mem::take(&mut p.waiting);
            for (_, abs) in &waiting {
                p.answer(*abs, t.lost.to_string(), true);
            }
            if p.session.take().is_some() || !waiting.is_empty() {
                p.push(Entry::Late {
                    output: if promoted { t.promoted } else { t.moved }.to_string(),
                    error: true,
                });
            }
        }
        self.rebuild_index();
        self.refresh_view(None);
    }

    /// Follows the active pane's database.
    fn sync_db(&mut self) {
        let Some(client) = self.pane(self.ws.active).map(|p| p.client) else {
            return;
        };
        if self.db_of(client) != self.ws.index_db {
            self.rebuild_index();
            self.view = None;
        }
    }

    fn rebuild_index(&mut self) {
        let db = self
            .pane(self.ws.active)
            .map_or(0, |p| self.db_of(p.client));
        self.ws.index_db = db;
        self.ws.engine.read(|e| {
            if let Some(d) = e.server().dbs.get(db) {
                let mut index = self.ws.index.borrow_mut();
                index.rebuild(d);
                index.set_filter(self.filter.as_bytes());
            }
        });
        self.refresh_rows();
    }

    fn refresh_rows(&mut self) {
        let delim = if self.flat { "" } else { self.delim.as_str() };
        self.rows = Shared(Rc::new(self.ws.index.borrow().rows(delim.as_bytes())));
        self.keys_version += 1;
    }

    fn refresh_view(&mut self, changed_by: Option<String>) {
        let Some(old) = self.view.clone() else {
            return;
        };
        let (meta, value) = self.ws.engine.read(|e| {
            let d = e.server().dbs.get(self.ws.index_db);
            (
                d.and_then(|d| inspect::meta(d, &old.key)),
                d.and_then(|d| inspect::snapshot(d, &old.key, VIEW_LIMIT)),
            )
        });
        let changed = value != old.value;
        self.view = Some(Rc::new(ViewData {
            key: old.key.clone(),
            meta,
            prev: if changed {
                old.value.clone()
            } else {
                old.prev.clone()
            },
            changed_by: if changed {
                changed_by.or(old.changed_by.clone())
            } else {
                old.changed_by.clone()
            },
            value,
        }));
    }

    fn make_venn(
        &self,
        client: ClientId,
        op: &'static str,
        keys: Vec<Vec<u8>>,
        result: &[Reply],
    ) -> Option<Rc<Venn>> {
        let db = self.db_of(client);
        let sets = self.ws.engine.read(|e| {
            let d = e.server().dbs.get(db)?;
            keys.into_iter()
                .map(|k| match inspect::snapshot(d, &k, VIEW_LIMIT) {
                    Some(ValueView::Set(m, _)) => Some((k, m)),
                    None => Some((k, Vec::new())),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
        })?;
        let result = result
            .iter()
            .filter_map(|r| match r {
                Reply::Bulk(b) => Some(b.clone()),
                _ => None,
            })
            .collect();
        Some(Rc::new(Venn {
            op: op.to_string(),
            sets,
            result,
        }))
    }

    fn line_action(&mut self, id: PaneId, action: LineAction) {
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
                let line = std::mem::take(&mut p.draft);
                p.history_pos = None;
                p.stash.clear();
                self.run(id, line);
            }
            LineAction::Paste(text) => {
                let first = std::mem::take(&mut p.draft);
                let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
                if let Some(l) = lines.first_mut() {
                    *l = format!("{first}{l}");
                }
                for line in lines.into_iter().filter(|l| !l.trim().is_empty()) {
                    self.run(id, line);
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
            }
            LineAction::HistoryNext => match p.history_pos {
                None => {}
                Some(pos) if pos + 1 < history_len => {
                    p.history_pos = Some(pos + 1);
                    p.draft = self.history.get(pos + 1).cloned().unwrap_or_default();
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
    fn interrupt(&mut self, id: PaneId) {
        let lang = self.lang;
        let Some(p) = self.pane(id) else {
            return;
        };
        let client = p.client;
        let follower = p.session.is_some() || tabs_hook::is_follower();
        let stopped = if follower {
            // The leader tab holds this pane's client: it stops the wait there, keeping
            // the client (its database, its name).
            let waiting = p
                .session
                .as_ref()
                .is_some_and(|s| s.blocked.is_some() || s.subscribed);
            if waiting {
                tabs_hook::pane_interrupted(id);
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
        if stopped.any() {
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

/// A reply as redis-cli prints it, with `--raw` or without.
fn reply_text(reply: &Reply, proto: u8, raw: bool) -> String {
    if raw {
        format_reply_raw(reply, proto)
    } else {
        format_reply_for(reply, proto)
    }
}

/// `SINTER`/`SUNION`/`SDIFF` of two or three keys: the operation and the keys.
fn venn_request(argv: &[Vec<u8>]) -> Option<(&'static str, Vec<Vec<u8>>)> {
    let name = argv.first()?.to_ascii_lowercase();
    let op = match name.as_slice() {
        b"sinter" => "SINTER",
        b"sunion" => "SUNION",
        b"sdiff" => "SDIFF",
        _ => return None,
    };
    let keys = argv.get(1..)?.to_vec();
    (2..=3).contains(&keys.len()).then_some((op, keys))
}

fn storage_set(name: &str, value: &str) {
    storage::set(name, value);
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
        if action == Action::Tick && tabs_hook::is_follower() {
            // Only the leader's clock expires keys and times blocked clients out; the
            // replica receives the effects.
            let now = self.ws.engine.read(|e| e.server().clock.now_ms());
            if now / 1000 == self.now_ms / 1000 {
                return self;
            }
            let mut next = Rc::unwrap_or_clone(self);
            next.now_ms = now;
            return Rc::new(next);
        }
        if action == Action::Tick {
            let outcome = self.ws.engine.tick();
            let now = self.ws.engine.read(|e| e.server().clock.now_ms());
            if outcome.is_empty() && now / 1000 == self.now_ms / 1000 {
                // Nothing visible changed: the same Rc tells Yew to skip rendering.
                return self;
            }
            let mut next = Rc::unwrap_or_clone(self);
            next.now_ms = now;
            next.absorb(outcome, None);
            return Rc::new(next);
        }
        let mut next = Rc::unwrap_or_clone(self);
        match action {
            Action::Line(id, a) => next.line_action(id, a),
            Action::Run(line) => {
                let id = next.ws.active;
                next.run(id, line);
            }
            Action::AddPane => next.add_pane(),
            Action::ClosePane(id) => {
                if next.ws.panes.len() > 1 {
                    if let Some(p) = next.pane(id) {
                        next.ws.engine.disconnect(p.client);
                        tabs_hook::pane_closed(id);
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
                storage_set("lang", lang.tag());
            }
            Action::SetTheme(theme) => {
                next.theme = theme;
                storage_set("theme", theme.name());
            }
            Action::SetCluster(on) => {
                tabs_hook::configure("cluster-enabled", if on { "yes" } else { "no" });
                let _ = next
                    .ws
                    .engine
                    .configure("cluster-enabled", if on { "yes" } else { "no" });
                storage_set("cluster", if on { "1" } else { "0" });
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
            Action::HelpZh(help) => next.help_zh_loaded(help),
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
        }
        Rc::new(next)
    }
}
