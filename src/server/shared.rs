//! What the server's tasks share: [`Shared`] (the engine and the connections by client id)
//! and each connection's reachable part, [`ConnHandle`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use tokio::sync::Notify;

use crate::engine::{ClientId, Engine, Reply};

/// What the server's tasks share: the engine and a handle to each connection.
pub struct Shared {
    /// The engine; borrowed only between `await`s.
    pub engine: RefCell<Engine>,
    /// Connected clients' handles by client id.
    pub conns: RefCell<HashMap<ClientId, Rc<ConnHandle>>>,
    /// Wakes the tick loop to look at the blocked clients' deadlines again.
    pub timer: Notify,
    /// Wakes the script loop: a script paused and must be resumed.
    pub script: Notify,
    /// Wakes the save loop: a background save has keys left to encode.
    pub persist: Notify,
    /// Set off by a successful `SHUTDOWN`: the server stops.
    pub shutdown: Notify,
    /// Hands the pages the allocator holds free back to the system; the tick loop calls
    /// it after each tick that found no command run since the one before (see
    /// [`Options::release_freed`](super::Options::release_freed)).
    pub release_freed: Option<fn()>,
}

impl Shared {
    /// Shares `engine` with no connections yet.
    pub fn new(engine: Engine) -> Shared {
        Shared {
            engine: RefCell::new(engine),
            conns: RefCell::new(HashMap::new()),
            timer: Notify::new(),
            script: Notify::new(),
            persist: Notify::new(),
            shutdown: Notify::new(),
            release_freed: None,
        }
    }

    /// Wakes the connection of every client the engine queued something for (or closed),
    /// except `me` (the caller, which drains its own queue), and the tick loop when a
    /// blocked client's deadline may have come closer. Called after each batch of commands
    /// and each tick, and the script loop when a script paused. **O(clients woken).**
    pub fn wake_ready(&self, engine: &Engine, me: ClientId) {
        let conns = self.conns.borrow();
        for id in engine.clients_with_pushes() {
            if id != me {
                if let Some(h) = conns.get(&id) {
                    h.wake.notify_one();
                }
            }
        }
        if me != 0 && engine.next_timeout_ms().is_some() {
            self.timer.notify_one();
        }
        if engine.script_running() {
            self.script.notify_one();
        }
        if engine.saving_in_background() {
            self.persist.notify_one();
        }
        if engine.shutdown_requested() {
            self.shutdown.notify_one();
        }
    }

    /// Redis's `clientsCron` share of the query buffers, at the server's tick (`hz 10`): wakes
    /// each connection whose buffer has room to give back, to trim it. A timer per
    /// connection did this before, at a cost on every one of its waits for input.
    pub fn request_trims(&self) {
        for handle in self.conns.borrow().values() {
            if handle.wasting.get() {
                handle.trim.set(true);
                handle.wake.notify_one();
            }
        }
    }

    /// Prints what the engine logged (a script's `redis.log`) to stderr, marked by level
    /// as Redis's log marks it (`.` debug, `-` verbose, `*` notice, `#` warning).
    pub fn print_log(&self, engine: &mut Engine) {
        for (level, line) in engine.take_log() {
            let mark = match level {
                0 => '.',
                1 => '-',
                2 => '*',
                _ => '#',
            };
            eprintln!("kvlab-server: {mark} {}", String::from_utf8_lossy(&line));
        }
    }

    /// Queues `reply` for client `id`, encoded for its protocol version, and wakes its
    /// connection to write it. For messages that are not the answer to the client's own
    /// command (pub/sub messages, an unblocked client's reply); the caller holds the engine
    /// borrow it is running under. Returns false if the client is not connected.
    pub fn deliver(&self, engine: &Engine, id: ClientId, reply: &Reply) -> bool {
        let Some(client) = engine.client(id) else {
            return false;
        };
        let conns = self.conns.borrow();
        let Some(handle) = conns.get(&id) else {
            return false;
        };
        reply.write_resp(client.proto, &mut handle.outbox.borrow_mut());
        handle.wake.notify_one();
        true
    }

    /// Closes the connection of client `id` as soon as its task runs, dropping replies not
    /// yet written, as Redis's `CLIENT KILL` does. Returns false if the client is not
    /// connected.
    pub fn kill(&self, id: ClientId) -> bool {
        let conns = self.conns.borrow();
        let Some(handle) = conns.get(&id) else {
            return false;
        };
        handle.kill.set(true);
        handle.wake.notify_one();
        true
    }
}

/// The part of a connection that others can reach: see the `server` module's "Seam" section.
#[derive(Debug, Default)]
pub struct ConnHandle {
    /// Wakes the connection's task.
    pub wake: Notify,
    /// RESP bytes to write to the client before its next reply.
    pub outbox: RefCell<Vec<u8>>,
    /// Set to close the connection (see [`Shared::kill`]).
    pub kill: Cell<bool>,
    /// Set by the connection after each batch: its query buffer has room to give back.
    pub wasting: Cell<bool>,
    /// Set by the server's tick (see [`Shared::request_trims`]): look at the query buffer's
    /// spare room now.
    pub trim: Cell<bool>,
}
