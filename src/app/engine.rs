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
//!
//! Two more things are handed out after each command, to observers of their own: what the
//! server logged (a script's `redis.log`, [`EngineService::observe_log`]; the browser
//! writes it to its console), and how the script cache changed
//! ([`EngineService::observe_scripts`]): Redis keeps no script across a restart, but the
//! web app keeps a learner's `SCRIPT LOAD`ed and `EVAL`ed scripts across reloads, and puts
//! them back with [`EngineService::restore_scripts`] before the first command.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::engine::scripting::Script;
use crate::engine::{ClientId, Effect, Engine, Interrupted, Reply};

/// What the learner asks of a script stopped in the debugger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugCmd {
    /// Run to the next line (F10).
    Step,
    /// Run on to the end (F8).
    Continue,
    /// Stop it where it is (Shift+F5, Esc).
    Stop,
}

/// A function told of every batch of write effects, in the order they happened.
pub type Observer = Rc<dyn Fn(&[Effect])>;

/// A function told of the lines the server logged, `(level, line)`, levels 0 (debug) to 3
/// (warning), oldest first.
pub type LogObserver = Rc<dyn Fn(&[(i32, Vec<u8>)])>;

/// A function told of every change of the script cache.
pub type ScriptObserver = Rc<dyn Fn(&ScriptChange)>;

/// How the script cache changed since the last command (or tick).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptChange {
    /// `SCRIPT FLUSH` ran: every script known before is gone.
    pub flushed: bool,
    /// Scripts cached since (after the flush, if there was one), in load order: SHA-1 and
    /// body.
    pub added: Vec<(String, Vec<u8>)>,
}

/// The script cache as observers last heard of it: its SHA-1s in load order. Scripts are
/// only ever added at the end or all flushed (`SCRIPT FLUSH`; Redis 7.0 never evicts an
/// `EVAL` script), so a change is a flush, additions, or a flush and additions (a
/// transaction can do both).
#[derive(Debug, Default)]
struct ScriptSync {
    known: Vec<String>,
}

impl ScriptSync {
    /// What changed between what was known and `cache`; `None` when nothing did. **O(n)**
    /// in the scripts cached (a comparison of names; a learner's cache holds a few).
    fn diff(&mut self, cache: &indexmap::IndexMap<String, Script>) -> Option<ScriptChange> {
        if self.known.is_empty() && cache.is_empty() {
            return None;
        }
        self.changes(cache)
    }

    /// [`ScriptSync::diff`] once there are scripts (out of line: a session that never
    /// scripts never runs it).
    #[inline(never)]
    fn changes(&mut self, cache: &indexmap::IndexMap<String, Script>) -> Option<ScriptChange> {
        let kept = self.known.len() <= cache.len()
            && self.known.iter().zip(cache.keys()).all(|(a, b)| a == b);
        let from = if kept { self.known.len() } else { 0 };
        if kept && from == cache.len() {
            return None;
        }
        let added: Vec<(String, Vec<u8>)> = cache
            .iter()
            .skip(from)
            .map(|(sha, s)| (sha.clone(), s.body.clone()))
            .collect();
        self.known = cache.keys().cloned().collect();
        Some(ScriptChange {
            flushed: !kept,
            added,
        })
    }
}

/// Caches each of `bodies` in `engine` as `SCRIPT LOAD` would, on a client of its own that
/// is gone afterwards: no reply is shown, no effect is made (loading a script writes no
/// data). A body that no longer compiles is skipped. Returns how many were cached.
pub fn load_scripts(engine: &mut Engine, bodies: &[Vec<u8>]) -> usize {
    if bodies.is_empty() {
        return 0;
    }
    let client = engine.connect();
    let mut loaded = 0;
    for body in bodies {
        engine.submit(
            client,
            vec![b"SCRIPT".to_vec(), b"LOAD".to_vec(), body.clone()],
        );
        if let Some(Reply::Bulk(_)) = engine.take_pushes(client).first() {
            loaded += 1;
        }
    }
    engine.disconnect(client);
    let _ = engine.take_pushes(client);
    loaded
}

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
    log_observers: RefCell<Vec<LogObserver>>,
    script_observers: RefCell<Vec<ScriptObserver>>,
    scripts: RefCell<ScriptSync>,
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
            log_observers: RefCell::new(Vec::new()),
            script_observers: RefCell::new(Vec::new()),
            scripts: RefCell::new(ScriptSync::default()),
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

    /// Registers `observer`, called with what the server logged after every command or
    /// tick that logged something ([`Engine::take_log`]).
    pub fn observe_log(&self, observer: LogObserver) {
        self.0.log_observers.borrow_mut().push(observer);
    }

    /// Registers `observer`, called after every command that changed the script cache.
    pub fn observe_scripts(&self, observer: ScriptObserver) {
        self.0.script_observers.borrow_mut().push(observer);
    }

    /// Puts stored scripts back into the cache ([`load_scripts`]) without telling the
    /// script observers (they stored them). Call it before the first command. Returns how
    /// many were cached.
    pub fn restore_scripts(&self, bodies: &[Vec<u8>]) -> usize {
        if bodies.is_empty() {
            return 0;
        }
        let mut engine = self.0.engine.borrow_mut();
        let n = load_scripts(&mut engine, bodies);
        let _ = self
            .0
            .scripts
            .borrow_mut()
            .diff(&engine.server().scripts.cache);
        n
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

    /// Runs an `EVAL` under the debugger ([`Engine::debug_eval`]).
    pub fn debug_eval(&self, client: ClientId, argv: Vec<Vec<u8>>) -> Outcome {
        self.0.engine.borrow_mut().debug_eval(client, argv);
        self.flush()
    }

    /// True while a debugged script waits for Step, Continue or Stop
    /// ([`Engine::debug_stopped`]).
    pub fn debug_stopped(&self) -> bool {
        self.0.engine.borrow().debug_stopped()
    }

    /// Step, Continue or Stop for the debugged script ([`Engine::debug_step`],
    /// [`Engine::debug_continue`], [`Engine::debug_abort`]); when it ends, its caller's
    /// reply is in the outcome.
    pub fn debug(&self, cmd: DebugCmd) -> Outcome {
        {
            let mut e = self.0.engine.borrow_mut();
            match cmd {
                DebugCmd::Step => e.debug_step(),
                DebugCmd::Continue => e.debug_continue(),
                DebugCmd::Stop => e.debug_abort(),
            };
        }
        self.flush()
    }

    /// One timer tick: active expiry and blocked-client timeouts ([`Engine::tick`]).
    pub fn tick(&self) -> Outcome {
        self.0.engine.borrow_mut().tick();
        self.flush()
    }

    /// Drains effects (to the observers) and queued output.
    fn flush(&self) -> Outcome {
        let (effects, dropped, output, log, scripts) = {
            let mut engine = self.0.engine.borrow_mut();
            // Both are rare; the common case costs two checks.
            let log = if engine.server().log.is_empty() {
                Vec::new()
            } else {
                engine.take_log()
            };
            let scripts = self
                .0
                .scripts
                .borrow_mut()
                .diff(&engine.server().scripts.cache);
            let dropped = engine.take_dropped();
            let effects = engine.take_effects();
            let output = engine
                .clients_with_pushes()
                .into_iter()
                .map(|id| (id, engine.take_pushes(id)))
                .filter(|(_, r)| !r.is_empty())
                .collect();
            (effects, dropped, output, log, scripts)
        };
        if let Some(change) = scripts {
            let observers: Vec<ScriptObserver> = self.0.script_observers.borrow().clone();
            for o in observers {
                o(&change);
            }
        }
        if !log.is_empty() {
            let observers: Vec<LogObserver> = self.0.log_observers.borrow().clone();
            for o in observers {
                o(&log);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn service() -> EngineService {
        EngineService::new(crate::engine::testing::engine().0)
    }

    fn run(s: &EngineService, c: ClientId, words: &[&str]) -> Vec<Reply> {
        let argv = words.iter().map(|w| w.as_bytes().to_vec()).collect();
        s.submit(c, argv).output_of(c).cloned().collect()
    }

    type Seen<T> = Rc<RefCell<Vec<T>>>;
    type Record<T> = Rc<dyn Fn(&T)>;

    fn recorder<T: Clone + 'static>() -> (Seen<T>, Record<T>) {
        let seen: Rc<RefCell<Vec<T>>> = Rc::default();
        let s = seen.clone();
        (seen, Rc::new(move |x: &T| s.borrow_mut().push(x.clone())))
    }

    #[test]
    fn script_changes_reach_observers_once() {
        let s = service();
        let (seen, f) = recorder::<ScriptChange>();
        s.observe_scripts(f);
        let c = s.connect();
        run(&s, c, &["SET", "k", "v"]);
        assert!(seen.borrow().is_empty(), "no scripting, no change");
        run(&s, c, &["SCRIPT", "LOAD", "return 1"]);
        run(&s, c, &["EVAL", "return 2", "0"]);
        run(&s, c, &["EVAL", "return 2", "0"]);
        run(
            &s,
            c,
            &[
                "EVALSHA",
                &crate::engine::scripting::sha1hex(b"return 1"),
                "0",
            ],
        );
        let one = |b: &str| {
            (
                crate::engine::scripting::sha1hex(b.as_bytes()),
                b.as_bytes().to_vec(),
            )
        };
        assert_eq!(
            *seen.borrow(),
            vec![
                ScriptChange {
                    flushed: false,
                    added: vec![one("return 1")]
                },
                ScriptChange {
                    flushed: false,
                    added: vec![one("return 2")]
                },
            ]
        );
        seen.borrow_mut().clear();
        // A transaction that flushes and loads: a flush, then the one left.
        run(&s, c, &["MULTI"]);
        run(&s, c, &["SCRIPT", "FLUSH"]);
        run(&s, c, &["SCRIPT", "LOAD", "return 3"]);
        run(&s, c, &["EXEC"]);
        run(&s, c, &["SCRIPT", "FLUSH"]);
        assert_eq!(
            *seen.borrow(),
            vec![
                ScriptChange {
                    flushed: true,
                    added: vec![one("return 3")]
                },
                ScriptChange {
                    flushed: true,
                    added: vec![]
                },
            ]
        );
    }

    #[test]
    fn restored_scripts_run_by_sha_and_are_not_reported_back() {
        let s = service();
        let (seen, f) = recorder::<ScriptChange>();
        s.observe_scripts(f);
        let (effects, g) = recorder::<usize>();
        s.observe(Rc::new(move |e: &[Effect]| g(&e.len())));
        let bodies = vec![b"return ARGV[1]".to_vec(), b"this is not lua".to_vec()];
        assert_eq!(s.restore_scripts(&bodies), 1);
        let c = s.connect();
        let sha = crate::engine::scripting::sha1hex(b"return ARGV[1]");
        assert_eq!(
            run(&s, c, &["EVALSHA", &sha, "0", "hi"]),
            vec![Reply::Bulk(b"hi".to_vec())]
        );
        assert!(seen.borrow().is_empty());
        assert!(effects.borrow().is_empty());
    }

    #[test]
    fn redis_log_reaches_log_observers() {
        let s = service();
        let (seen, f) = recorder::<Vec<(i32, Vec<u8>)>>();
        s.observe_log(Rc::new(move |l: &[(i32, Vec<u8>)]| f(&l.to_vec())));
        let c = s.connect();
        run(
            &s,
            c,
            &[
                "EVAL",
                "redis.log(redis.LOG_WARNING, 'careful') redis.log(redis.LOG_NOTICE, 'fyi')",
                "0",
            ],
        );
        run(&s, c, &["PING"]);
        assert_eq!(
            *seen.borrow(),
            vec![vec![(3, b"careful".to_vec()), (2, b"fyi".to_vec())]]
        );
    }
}
