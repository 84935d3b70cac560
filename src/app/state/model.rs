//! The state's data: [`State`], its [`Workspace`], the [`Action`]s that change it and the
//! [`Command`]s the reducer returns; the value view's and the tabs' data.

use std::cell::RefCell;
use std::rc::Rc;

use crate::app::console;
use crate::app::engine::EngineService;
use crate::engine::inspect::{KeyIndex, Row};
use crate::engine::{ClientId, Effect, Engine};
use crate::i18n::Lang;
use crate::tabs::{Msg, Role, TabId};

use super::pane::{Entry, LineAction, Pane, PaneId};
use crate::engine::inspect::{KeyMeta, ValueView};

/// What the reducer asks the browser to do, in order, once it has returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Store a setting in `localStorage` now (under the app's prefix).
    Store {
        /// The setting: `lang`, `theme` or `cluster`.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// Store the console history (a line each) a moment later, off the path from Enter to
    /// the reply on screen: it can hold a line of megabytes (a pasted `MSET`).
    SaveHistory(Vec<String>),
    /// Post a message to the workspace's other tabs now (a follower's messages).
    Post(Msg),
    /// Leader: post a message once every write before it is committed to IndexedDB (a
    /// reply on screen is a reply on disk).
    PostCommitted(Msg),
}

/// This tab's part among the tabs of its workspace, as the tabs service knows it when an
/// action is reduced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TabCtx {
    /// Alone, leader or follower.
    pub role: Role,
    /// This tab's id.
    pub me: TabId,
    /// The leader a follower follows, once known.
    pub leader: Option<TabId>,
}

impl TabCtx {
    /// True on a follower: commands go to the leader.
    pub fn follower(&self) -> bool {
        self.role == Role::Follower
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
    pub(super) next_pane: PaneId,
    /// The sorted keys of the database the active pane selected.
    pub index: Rc<RefCell<KeyIndex>>,
    /// Which database `index` holds.
    pub index_db: usize,
    /// Leader: the clients of follower tabs' panes (see `ui::services::tabs`).
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
    /// Lines run in any pane, oldest first, at most [`MAX_HISTORY`](crate::app::state::MAX_HISTORY), without consecutive
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
    /// The Chinese HELP texts, once fetched (`ui::console::load_help_zh`).
    pub help_zh: Option<Rc<console::HelpZh>>,
    /// HELP blocks printed while texts they need were not there yet (the table's English
    /// prose in the browser, see `engine::table::docs`; the Chinese texts in Chinese mode):
    /// pane, absolute log position (`log_base` + index) and the words after `HELP`. They
    /// are rewritten when the texts arrive.
    pub(super) help_waiting: Vec<(PaneId, u64, Vec<Vec<u8>>)>,
    /// The next line [`State::run`] runs goes under the debugger (the editor's Debug).
    pub(super) debug_next: bool,
    /// What the last import ran: commands, and the errors replied (1-based command number).
    pub import_report: Option<Rc<crate::engine::export::ImportReport>>,
    /// Follower: the number of the last command forwarded.
    pub(super) next_req: u64,
    /// Changes when this tab's role or its other tabs change (the role badge).
    pub tabs_version: u64,
    /// Moves after each action that leaves a script paused: the page then schedules
    /// [`Action::ResumeScript`] (after a repaint, so the page stays usable).
    pub script_slice: u64,
    /// This tab's part among the workspace's tabs, as of the action being reduced.
    pub(super) tabs: TabCtx,
    /// What the action being reduced asks the browser to do (empty between actions).
    pub(super) out: Vec<Command>,
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
            && self.script_slice == other.script_slice
    }
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
    /// Run the next slice of a script that paused ([`crate::engine::busy`]); the page
    /// asks for it, a repaint after the last one, while [`State::script_slice`] moves.
    ResumeScript,
    /// The Chinese HELP texts were fetched.
    HelpZh(Rc<console::HelpZh>),
    /// The command table's English prose was fetched and installed (the browser build,
    /// `engine::table::docs`).
    HelpTexts,
    /// Run imported commands on a client of their own (the workspace manager's import);
    /// the result goes to [`State::import_report`].
    Import(Rc<Vec<Vec<Vec<u8>>>>),
    /// A message from another tab of the workspace (`ui::services::tabs`): a follower's command or
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
            debug_next: false,
            import_report: None,
            next_req: 0,
            tabs_version: 0,
            script_slice: 0,
            tabs: TabCtx::default(),
            out: Vec::new(),
        };
        s.add_pane();
        if let Some(p) = s.ws.panes.first_mut() {
            p.push(Entry::Welcome);
        }
        s.rebuild_index();
        s
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

    /// True when HELP has every text it shows in the current language: the table's
    /// English prose (fetched in the browser, see `engine::table::docs`) and, in Chinese
    /// mode, the Chinese texts.
    pub fn help_complete(&self) -> bool {
        crate::engine::table::docs::available() && (self.lang != Lang::Zh || self.help_zh.is_some())
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

    /// redis-cli's hint for a pane's draft.
    pub fn hint(&self, pane: PaneId) -> Option<String> {
        self.pane(pane).and_then(|p| console::hint(&p.draft))
    }

    pub(super) fn pane_mut(&mut self, id: PaneId) -> Option<&mut Pane> {
        self.ws.panes.iter_mut().find(|p| p.id == id)
    }
}

/// Elements a value view copies from a value.
pub const VIEW_LIMIT: usize = 200;

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

/// The leader's clients for the panes of follower tabs.
#[derive(Debug, Default)]
pub struct RemoteClients {
    pub(super) by_pane: std::collections::HashMap<(TabId, PaneId), ClientId>,
    pub(super) by_client: std::collections::HashMap<ClientId, (TabId, PaneId)>,
}

/// The redis-cli prompt for database `db` on the default address.
pub fn prompt_for(db: usize) -> String {
    if db == 0 {
        "127.0.0.1:6379> ".to_string()
    } else {
        format!("127.0.0.1:6379[{db}]> ")
    }
}
