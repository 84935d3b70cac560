//! The engine service: the single door through which the app reaches an [`Engine`].
//!
//! Every command the app runs — typed in any console pane, or issued by a click in a value
//! view — goes through [`EngineService::submit`], and every timer tick through
//! [`EngineService::tick`]. After each, the service drains the engine's write effects
//! ([`Engine::take_effects`]) and hands them, in order, to every registered observer
//! ([`EngineService::observe`]) before returning them to the caller. Effects are never
//! dropped: persistence registers an observer and sees every write, whoever made it.
//!
//! The service is a cheap handle (`Rc`) and compares by identity, so Yew props holding it
//! re-render only when it is replaced. One service wraps one engine; a workspace owns one
//! service, so several workspaces can each run their own engine.
//!
//! Reads for views go through [`EngineService::read`], which lends `&Engine` for the
//! duration of a closure and never changes the engine.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::engine::{ClientId, Effect, Engine, Interrupted, Reply};

/// A function told of every batch of write effects, in the order they happened.
pub type Observer = Rc<dyn Fn(&[Effect])>;

/// Identifies a registered observer, to remove it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObserverId(u64);

/// What one command or tick did, beyond the engine's own state.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The write effects, in order (observers have already seen them).
    pub effects: Vec<Effect>,
    /// The keys among them the server removed on its own: database, key, and `expired`
    /// or `evicted` ([`Engine::take_dropped`]).
    pub dropped: Vec<(usize, Vec<u8>, &'static str)>,
    /// What each client was sent, oldest first: replies, late replies of blocked commands,
    /// pub/sub messages.
    pub output: Vec<(ClientId, Vec<Reply>)>,
}

impl Outcome {
    /// True if nothing was written and nobody was sent anything.
    pub fn is_empty(&self) -> bool {
        self.effects.is_empty() && self.output.is_empty()
    }

    /// What `client` was sent.
    pub fn output_of(&self, client: ClientId) -> impl Iterator<Item = &Reply> {
        self.output
            .iter()
            .filter(move |(c, _)| *c == client)
            .flat_map(|(_, r)| r.iter())
    }
}

struct Inner {
    engine: Rc<RefCell<Engine>>,
    observers: RefCell<Vec<(ObserverId, Observer)>>,
    next_observer: Cell<u64>,
    /// Bumped after each batch of effects: anything derived from the data is stale.
    version: Cell<u64>,
}

/// A shared handle on one engine (see the module documentation).
#[derive(Clone)]
pub struct EngineService(Rc<Inner>);

impl PartialEq for EngineService {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for EngineService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineService")
            .field("version", &self.0.version.get())
            .finish_non_exhaustive()
    }
}

impl EngineService {
    /// A service over `engine`, with no observers (the browser's start-up builds it with
    /// `EngineService::boot`, in `ui::services::engine`).
    pub fn new(engine: Engine) -> EngineService {
        EngineService(Rc::new(Inner {
            engine: Rc::new(RefCell::new(engine)),
            observers: RefCell::new(Vec::new()),
            next_observer: Cell::new(1),
            version: Cell::new(0),
        }))
    }

    /// The engine itself, for a component that must hold it beyond one call: persistence
    /// snapshots it in the background (see `ui::services::persist`). Everything else goes through
    /// the service's methods.
    pub fn shared(&self) -> Rc<RefCell<Engine>> {
        self.0.engine.clone()
    }

    /// Registers `observer`, called after every command or tick that wrote something.
    pub fn observe(&self, observer: Observer) -> ObserverId {
        let id = ObserverId(self.0.next_observer.get());
        self.0.next_observer.set(id.0 + 1);
        self.0.observers.borrow_mut().push((id, observer));
        id
    }

    /// Removes an observer.
    pub fn unobserve(&self, id: ObserverId) {
        self.0.observers.borrow_mut().retain(|(o, _)| *o != id);
    }

    /// Counts the batches of effects so far: it changes whenever the data may have.
    pub fn version(&self) -> u64 {
        self.0.version.get()
    }

    /// Lends the engine for reading.
    pub fn read<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        f(&self.0.engine.borrow())
    }

    /// Sets a configuration parameter as a start-up option would (see
    /// [`Engine::configure`]): the web app's cluster-mode switch uses it.
    pub fn configure(&self, name: &str, value: &str) -> Result<(), String> {
        self.0.engine.borrow_mut().configure(name, value)
    }

    /// Connects a new client (a console pane).
    pub fn connect(&self) -> ClientId {
        self.0.engine.borrow_mut().connect()
    }

    /// Disconnects a client (its pane closed).
    pub fn disconnect(&self, id: ClientId) {
        self.0.engine.borrow_mut().disconnect(id);
    }

    /// Stops what `client` waits in (its pane's Ctrl+C; see [`Engine::interrupt`]).
    pub fn interrupt(&self, client: ClientId) -> Interrupted {
        self.0.engine.borrow_mut().interrupt(client)
    }

    /// Runs `argv` for `client` as a server would ([`Engine::submit`]): everything the
    /// client must be sent, its reply included, is in the outcome's output, with what
    /// other clients were sent meanwhile (published messages, woken `BLPOP`s).
    pub fn submit(&self, client: ClientId, argv: Vec<Vec<u8>>) -> Outcome {
        self.0.engine.borrow_mut().submit(client, argv);
        self.flush()
    }

    /// True while a script that paused has yet to end ([`Engine::script_running`]).
    pub fn script_running(&self) -> bool {
        self.0.engine.borrow().script_running()
    }

    /// The next slice of a script that paused ([`Engine::resume_script`]): when it ends,
    /// its caller's reply is in the outcome.
    pub fn resume_script(&self) -> Outcome {
        self.0.engine.borrow_mut().resume_script();
        self.flush()
    }

    /// One timer tick: active expiry and blocked-client timeouts ([`Engine::tick`]).
    pub fn tick(&self) -> Outcome {
        self.0.engine.borrow_mut().tick();
        self.flush()
    }

    /// Drains effects (to the observers) and queued output.
    fn flush(&self) -> Outcome {
        let (effects, dropped, output) = {
            let mut engine = self.0.engine.borrow_mut();
            let dropped = engine.take_dropped();
            let effects = engine.take_effects();
            let output = engine
                .clients_with_pushes()
                .into_iter()
                .map(|id| (id, engine.take_pushes(id)))
                .filter(|(_, r)| !r.is_empty())
                .collect();
            (effects, dropped, output)
        };
        if !effects.is_empty() {
            self.0.version.set(self.0.version.get() + 1);
            // Clone the list: an observer may register or remove observers.
            let observers: Vec<Observer> = self
                .0
                .observers
                .borrow()
                .iter()
                .map(|(_, o)| o.clone())
                .collect();
            for o in observers {
                o(&effects);
            }
        }
        Outcome {
            effects,
            dropped,
            output,
        }
    }
}
