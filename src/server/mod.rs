//! The native RESP server: `redis-cli`, `redis-benchmark` and client libraries talk to the
//! engine over TCP exactly as they would talk to `redis-server` 7.0.
//!
//! # Threads and tasks
//! The [`Engine`] is single-threaded, like Redis's command execution. The server runs on a
//! tokio current-thread runtime inside a [`LocalSet`]: one local task accepts connections,
//! one local task per connection reads, parses and writes, and one local task calls
//! [`Engine::tick`] every 100 ms (Redis's `hz 10`) for active expiry and blocked clients'
//! timeouts. All of them share the
//! engine through [`Shared`] (`Rc` + `RefCell`); a connection borrows it only while it runs
//! the batch of commands it has just read, never across an `await`, so borrows never clash.
//!
//! # One read, one batch, one write
//! A connection reads what the socket has (16 KB at a time, more for a big argument), parses
//! every complete request in the buffer ([`request::QueryBuffer`]), hands each to
//! [`Engine::submit`] and appends what the engine queued for the client
//! ([`Engine::take_pushes`]) — replies, pub/sub messages, subscription notices, in exactly
//! the order Redis writes them — encoded for the client's protocol version as it is *after*
//! the command (`HELLO 3` answers in RESP3), to one output buffer, and writes it with one
//! call. That is Redis's own loop (`readQueryFromClient` → `processInputBuffer` → write in
//! `beforeSleep`), and what makes pipelining (`redis-benchmark -P 16`) cheap. Sockets have
//! `TCP_NODELAY`, as in Redis. What the socket does not take at once is written when it
//! becomes writable again, while the task goes on reading ([`conn`]), so a client may send
//! any amount before reading replies.
//!
//! # Other clients' output: pushes, blocked clients, kills
//! A command can give *other* clients something to send: a `PUBLISH` reaches subscribers, a
//! push serves a client blocked in `BLPOP`, every command is shown to `MONITOR` clients, a
//! `CLIENT KILL` closes a connection. The engine queues all of it per client; after each
//! batch, and after each tick, the server asks [`Engine::clients_with_pushes`] and wakes
//! those connections' tasks through their [`ConnHandle`]'s [`Notify`](tokio::sync::Notify)
//! ([`Shared::wake_ready`]); each drains its own queue and writes it. A client the engine
//! closed ([`Client::close_asap`](crate::engine::Client): killed, or over its output limit)
//! is closed at once without another byte.
//!
//! A blocked client's connection keeps reading: its requests go to the engine, which keeps
//! them until the client is unblocked and then runs them, as Redis leaves them in its
//! query buffer. Timeouts are checked by the tick loop every 100 ms and, sooner, at the
//! deadline [`Engine::next_timeout_ms`] reports. A client that hangs up while blocked or
//! subscribed is [`Engine::disconnect`]ed, which leaves nothing of it behind.
//!
//! # Closing
//! A protocol error is answered with its exact Redis text, then the connection is closed.
//! After a command that sets [`Client::close_after_reply`](crate::engine::Client) (`QUIT`,
//! `CLIENT KILL` of oneself) the replies so far are written and the connection is closed;
//! the rest of the buffer is not run. A command named `POST` or `Host:` (an HTTP request
//! sent to the port) closes the connection at once without any reply, as Redis does against
//! cross-protocol attacks. A client that hangs up is [`Engine::disconnect`]ed.
//!
//! # Seam for other parties
//! [`Shared::deliver`] and [`Shared::kill`] let code outside the engine queue bytes for a
//! connection or close it; they share the handle and its [`Notify`](tokio::sync::Notify) with the engine's
//! queues.
//!
//! # Scripts that pause
//! A script that runs longer than a slice pauses ([`crate::engine::busy`]); the server's
//! script task resumes it slice by slice, yielding to the connections in between, so
//! others get `BUSY` past `busy-reply-threshold` and `SCRIPT KILL` reaches it, as with
//! redis-server.
//!
//! # RDB files
//! `--dir` and `--dbfilename` (or their defaults: the working directory, `dump.rdb`) name
//! the file loaded at start and written by `SAVE`, `BGSAVE`, save points and `SHUTDOWN`
//! ([`storage`]). A background save is a copy of the dataset encoded in slices by a task
//! that yields between them, then written and synced on a thread; see
//! [`crate::engine::cmd::server::persist`] for why. `SHUTDOWN`, SIGTERM and SIGINT save
//! first when save points are set, as Redis does.
//!
//! # Effects
//! The engine records each write as a replayable effect. Nothing persists them natively
//! yet, so the tick task drops them, keeping memory flat; persistence or replication would
//! take them there instead.

pub mod conn;
pub mod listen;
pub mod request;
mod shared;
pub mod storage;
pub use shared::{ConnHandle, Shared};

use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::LocalSet;

use crate::engine::core::memory::HostFacts;
use crate::engine::{Engine, SystemClock};

/// Most connected clients; one more is refused (Redis's `maxclients` default).
pub const MAX_CLIENTS: usize = 10_000;

/// Interval between two active-expiry cycles (Redis's `hz 10`).
pub const TICK: Duration = Duration::from_millis(100);

/// What the command line can set.
#[derive(Debug, Clone)]
pub struct Options {
    /// Addresses to listen on, separated by spaces, as Redis's `bind` list (`--bind`,
    /// default `127.0.0.1`).
    pub bind: String,
    /// TCP port (`--port`, default 6379; 0 picks a free one, reported on start-up).
    pub port: u16,
    /// Seed of the engine's random generator (`--seed`; default: from the clock).
    pub seed: Option<u64>,
    /// Configuration parameters given as `--name value`, as redis-server takes them
    /// (`--cluster-enabled yes`, `--hz 20`), applied in order with
    /// [`Engine::configure`] before the first client connects.
    pub config: Vec<(String, String)>,
    /// The allocator the binary links, for `INFO memory`'s `mem_allocator` (the binary
    /// knows; default `libc`).
    pub allocator: &'static str,
    /// Returns the memory the allocator keeps freed to the system (`mi_collect` for the
    /// binary's mimalloc), called from the tick loop after each tick during which no command
    /// ran (an idle server with a million keys spends 0.3% of a core on its ticks). Under
    /// load it is not called: what it hands back, the next requests fault in again.
    /// Without it an idle server keeps what a burst freed (the old tables of a map that
    /// grew, a drained query buffer) resident until its next allocations; Redis's jemalloc
    /// purges the same pages from its background thread.
    pub release_freed: Option<fn()>,
    /// Turns transparent huge pages off for the process; called at start when the
    /// configuration says `disable-thp yes` (the default), as Redis does.
    pub disable_thp: Option<fn()>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bind: "127.0.0.1".to_string(),
            port: 6379,
            seed: None,
            config: Vec::new(),
            allocator: "libc",
            release_freed: None,
            disable_thp: None,
        }
    }
}

/// The process's resident set size, from `/proc/self/statm` (Linux; `None` elsewhere):
/// `INFO memory`'s `used_memory_rss`, as Redis reads it.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // The page size: 4 KiB on the machines kvlab-server runs on (x86-64, arm64 Linux
    // default); /proc/self/smaps_rollup would say it, at 20× the cost per INFO.
    Some(pages * 4096)
}

/// The command-line help.
pub const USAGE: &str =
    "Usage: kvlab-server [--bind ADDR] [--port PORT] [--seed N] [--<config> VALUE ...]
  --bind ADDR       addresses to listen on, separated by spaces, as Redis's bind
                    (default 127.0.0.1; CONFIG SET bind/port move it later)
  --port PORT       TCP port (default 6379; 0 picks a free port)
  --seed N          seed for the engine's random choices (default: from the clock)
  --<config> VALUE  any CONFIG parameter, as redis-server takes it, e.g.
                    --cluster-enabled yes (a one-node cluster: CROSSSLOT, CLUSTER KEYSLOT),
                    --dir DIR --dbfilename FILE (the dump.rdb loaded at start and written
                    by SAVE, BGSAVE, save points and SHUTDOWN; default ./dump.rdb),
                    --save \"\" (no save points)";

/// What the command line asked for.
#[derive(Debug, Clone)]
pub enum Invocation {
    /// Run the server.
    Serve(Options),
    /// Print [`USAGE`] and exit.
    Help,
}

impl Options {
    /// Parses the arguments after the program name: `--bind ADDR`, `--port N`, `--seed N`
    /// (also written `--name=value`), `--help`.
    ///
    /// # Errors
    /// A message naming the unknown option or the bad value.
    pub fn from_args<I: IntoIterator<Item = String>>(args: I) -> Result<Invocation, String> {
        let mut opts = Options::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "--help" || arg == "-h" {
                return Ok(Invocation::Help);
            }
            let (name, inline_value) = match arg.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (arg.clone(), None),
            };
            let Some(bare) = name.strip_prefix("--") else {
                return Err(format!("unknown option '{arg}'"));
            };
            let known = matches!(bare, "bind" | "port" | "seed");
            if !known && crate::engine::config::lookup(bare.as_bytes()).is_none() {
                return Err(format!("unknown option '{arg}'"));
            }
            let Some(value) = inline_value.or_else(|| args.next()) else {
                return Err(format!("option '{name}' needs a value"));
            };
            let bad = || format!("bad value '{value}' for {name}");
            match bare {
                "bind" => opts.bind = value.clone(),
                "port" => opts.port = value.parse().map_err(|_| bad())?,
                "seed" => opts.seed = Some(value.parse().map_err(|_| bad())?),
                _ => opts.config.push((bare.to_string(), value)),
            }
        }
        Ok(Invocation::Serve(opts))
    }
}

/// The line printed on standard output once the server listens, e.g.
/// `kvlab-server ready to accept connections on 127.0.0.1:6379`.
pub fn ready_line(addr: SocketAddr) -> String {
    format!("kvlab-server ready to accept connections on {addr}")
}

/// Runs the server until SIGINT or SIGTERM: binds, prints [`ready_line`], serves.
///
/// # Errors
/// Failing to build the runtime or to bind the address.
pub fn run(opts: &Options) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = LocalSet::new();
    let seed = opts.seed.unwrap_or_else(seed_from_clock);
    let mut engine = Engine::new(Box::new(SystemClock), seed);
    // The server persists by snapshots (SAVE, BGSAVE, the save points) and has no replicas:
    // nothing would take the effects.
    engine.set_record_effects(false);
    engine.set_host_facts(HostFacts {
        allocator: opts.allocator,
        resident: Some(resident_bytes),
    });
    for (name, value) in &opts.config {
        engine.configure(name, value).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("--{name} {value}: {e}"),
            )
        })?;
    }
    if let Some(disable) = opts.disable_thp {
        if engine.server().config.flag("disable-thp") {
            disable();
        }
    }
    if !opts.config.iter().any(|(name, _)| name == "dir") {
        // Redis's default `dir` is the directory it was started in.
        let cwd = std::env::current_dir()?;
        let _ = engine.configure("dir", &cwd.to_string_lossy());
    }
    engine.set_storage(Box::new(storage::FileStorage::default()));
    load_dump(&mut engine)?;
    local.block_on(&rt, async {
        let binds: Vec<String> = opts.bind.split_whitespace().map(str::to_string).collect();
        let sockets = listen::bind_all(&binds, opts.port)?;
        let Some(first) = sockets.first() else {
            return Err(io::Error::new(
                io::ErrorKind::AddrNotAvailable,
                format!("no address of '{}' to listen on", opts.bind),
            ));
        };
        let addr = first.local_addr()?;
        // CONFIG GET port and bind tell where the server really listens.
        for (name, value) in [("port", addr.port().to_string()), ("bind", binds.join(" "))] {
            engine
                .configure(name, &value)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        }
        println!("{}", ready_line(addr));
        let listeners = Rc::new(listen::Listeners::new(sockets, binds, addr.port()));
        let mut shared = Shared::new(engine);
        shared.release_freed = opts.release_freed;
        let shared = Rc::new(shared);
        let server = serve_on(listeners, Rc::clone(&shared));
        tokio::pin!(server);
        loop {
            tokio::select! {
                r = &mut server => return r,
                () = shared.shutdown.notified() => return Ok(()),
                r = shutdown_signal() => {
                    r?;
                    // As Redis on SIGTERM/SIGINT: save when save points are set; a failed
                    // save keeps the server up.
                    let mut engine = shared.engine.borrow_mut();
                    let done = engine.shutdown(false, false, false);
                    shared.print_log(&mut engine);
                    if done {
                        return Ok(());
                    }
                }
            }
        }
    })
}

/// Loads `dir/dbfilename` if it exists (Redis's `loadDataFromDisk`), printing Redis's log
/// lines; a damaged or newer file stops the start with what is wrong and where.
fn load_dump(engine: &mut Engine) -> io::Result<()> {
    use crate::engine::core::persist::Storage;
    let get = |n: &str| engine.server().config.get(n).unwrap_or("").to_string();
    let (dir, name) = (get("dir"), get("dbfilename"));
    if !std::path::Path::new(&dir).is_dir() {
        return Err(io::Error::other(format!(
            "Can't chdir to '{dir}': No such file or directory"
        )));
    }
    let started = std::time::Instant::now();
    let bytes = storage::FileStorage::default()
        .read(&dir, &name)
        .map_err(io::Error::other)?;
    let Some(bytes) = bytes else {
        return Ok(());
    };
    let loaded = engine.load_rdb(bytes);
    for (_, line) in engine.take_log() {
        eprintln!("kvlab-server: * {}", String::from_utf8_lossy(&line));
    }
    match loaded {
        Ok(()) => {
            let secs = started.elapsed().as_secs_f64();
            eprintln!("kvlab-server: * DB loaded from disk: {secs:.3} seconds");
            Ok(())
        }
        Err(e) => Err(io::Error::other(format!(
            "Fatal error loading the DB from {dir}/{name}: {e}. Exiting."
        ))),
    }
}

fn seed_from_clock() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

async fn shutdown_signal() -> io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r,
        _ = term.recv() => Ok(()),
    }
}

/// Serves the engine in `shared` on `listener` until the future is dropped. Must run inside
/// a [`LocalSet`] (connections are local tasks).
///
/// # Errors
/// Only if accepting fails in a way that retrying can't fix.
pub async fn serve(listener: TcpListener, shared: Rc<Shared>) -> io::Result<()> {
    let addr = listener.local_addr()?;
    let listeners =
        listen::Listeners::new(vec![listener], vec![addr.ip().to_string()], addr.port());
    serve_on(Rc::new(listeners), shared).await
}

/// Like [`serve`], on every socket of `listeners`, which `CONFIG SET port` and `bind`
/// move ([`listen::Listeners::relisten`]).
///
/// # Errors
/// Only if accepting fails in a way that retrying can't fix.
pub async fn serve_on(listeners: Rc<listen::Listeners>, shared: Rc<Shared>) -> io::Result<()> {
    let moved = Rc::clone(&listeners);
    shared
        .engine
        .borrow_mut()
        .set_relisten(Box::new(move |binds, port| {
            moved.relisten(binds, port).map_err(|e| {
                eprintln!("kvlab-server: # {e}");
                e.to_string()
            })
        }));
    let ticker = tokio::task::spawn_local(tick_loop(Rc::clone(&shared)));
    let scripts = tokio::task::spawn_local(script_loop(Rc::clone(&shared)));
    let saves = tokio::task::spawn_local(save_loop(Rc::clone(&shared)));
    let result = accept_loop(&listeners, &shared).await;
    ticker.abort();
    scripts.abort();
    saves.abort();
    result
}

async fn accept_loop(listeners: &listen::Listeners, shared: &Rc<Shared>) -> io::Result<()> {
    loop {
        let (stream, peer) = match listeners.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors or an aborted handshake: log, pause, go on.
                eprintln!("kvlab-server: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        if shared.conns.borrow().len() >= MAX_CLIENTS {
            tokio::task::spawn_local(conn::refuse(stream));
            continue;
        }
        let _ = stream.set_nodelay(true);
        let local = stream
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let id = shared
            .engine
            .borrow_mut()
            .connect_from(&peer.to_string(), &local);
        let handle = Rc::new(ConnHandle::default());
        shared.conns.borrow_mut().insert(id, Rc::clone(&handle));
        tokio::task::spawn_local(conn::serve_connection(
            Rc::clone(shared),
            stream,
            id,
            handle,
        ));
    }
}

/// Runs a script that paused ([`crate::engine::busy`]) slice by slice, yielding to the
/// other tasks between slices so that connections are read meanwhile (and answered
/// `BUSY` past `busy-reply-threshold`, or allowed `SCRIPT KILL`), until it ends.
async fn script_loop(shared: Rc<Shared>) {
    loop {
        shared.script.notified().await;
        loop {
            let running = {
                let mut engine = shared.engine.borrow_mut();
                let running = engine.resume_script();
                shared.wake_ready(&engine, 0);
                shared.print_log(&mut engine);
                running
            };
            if !running {
                break;
            }
            tokio::task::yield_now().await;
        }
    }
}

/// Encodes a background save slice by slice ([`Engine::persist_step`]), yielding to the
/// connections after each, from the moment a `BGSAVE` (or a save point) started one until
/// its file is handed to the storage's writer thread.
async fn save_loop(shared: Rc<Shared>) {
    loop {
        shared.persist.notified().await;
        loop {
            let more = {
                let mut engine = shared.engine.borrow_mut();
                let more = engine.persist_step(crate::engine::cmd::server::persist::SLICE_KEYS);
                shared.print_log(&mut engine);
                more
            };
            if !more {
                break;
            }
            tokio::task::yield_now().await;
        }
    }
}

/// Runs [`Engine::tick`] every [`TICK`] (active expiry, blocked clients' timeouts), and
/// [`Engine::expire_blocked`] in between when a blocked client's deadline comes sooner
/// ([`Engine::next_timeout_ms`]); a connection whose client just blocked with an earlier
/// deadline wakes this loop through [`Shared::timer`]. After each, the connections that
/// were sent something are woken.
async fn tick_loop(shared: Rc<Shared>) {
    use tokio::time::Instant;
    let mut next_tick = Instant::now() + TICK;
    // `total_commands_processed` at the last tick: a tick that finds it unchanged ends an
    // idle period.
    let mut commands_at_tick = u64::MAX;
    loop {
        let wake_at = {
            let engine = shared.engine.borrow();
            match engine.next_timeout_ms() {
                Some(at) => {
                    let wait = at.saturating_sub(engine.server().clock.now_ms()).max(0);
                    next_tick.min(Instant::now() + Duration::from_millis(wait as u64))
                }
                None => next_tick,
            }
        };
        tokio::select! {
            () = tokio::time::sleep_until(wake_at) => {}
            () = shared.timer.notified() => continue,
        }
        let mut engine = shared.engine.borrow_mut();
        if Instant::now() >= next_tick {
            engine.tick();
            if engine.persist_step(crate::engine::cmd::server::persist::SLICE_KEYS) {
                shared.persist.notify_one();
            }
            shared.print_log(&mut engine);
            shared.request_trims();
            // Only on an idle tick: under load, handing pages back cost 7,000 page faults
            // in 400,000 pipelined SETs (Redis: 150), the next requests faulting them in.
            let commands = engine.server().stats.commands;
            if commands == commands_at_tick {
                if let Some(release) = shared.release_freed {
                    release();
                }
            }
            commands_at_tick = commands;
            next_tick = Instant::now() + TICK;
        } else {
            engine.expire_blocked();
        }
        shared.wake_ready(&engine, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{ManualClock, Reply};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    async fn read_exactly(s: &mut TcpStream, n: usize) -> Vec<u8> {
        let mut buf = vec![0; n];
        s.read_exact(&mut buf).await.expect("read");
        buf
    }

    fn parse(args: &[&str]) -> Result<Invocation, String> {
        Options::from_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn options_take_config_parameters_like_redis_server() {
        let Ok(Invocation::Serve(o)) =
            parse(&["--port", "0", "--cluster-enabled", "yes", "--hz=20"])
        else {
            panic!("should parse");
        };
        assert_eq!(o.port, 0);
        assert_eq!(
            o.config,
            vec![
                ("cluster-enabled".to_string(), "yes".to_string()),
                ("hz".to_string(), "20".to_string())
            ]
        );
        assert!(parse(&["--no-such-option", "1"]).is_err());
        assert!(parse(&["--cluster-enabled"]).is_err());
        assert!(parse(&["port", "1"]).is_err());
        assert!(matches!(parse(&["--help"]), Ok(Invocation::Help)));
    }

    /// The seam: another party can push a message to a connection and close it.
    #[test]
    fn deliver_and_kill_reach_a_connection() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let test = async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let engine = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), 7);
            let shared = Rc::new(Shared::new(engine));
            let server = tokio::task::spawn_local(serve(listener, Rc::clone(&shared)));

            let mut c = TcpStream::connect(addr).await.unwrap();
            c.write_all(b"PING\r\n").await.unwrap();
            assert_eq!(read_exactly(&mut c, 7).await, b"+PONG\r\n");
            let id = *shared.conns.borrow().keys().next().unwrap();
            let local = c.local_addr().unwrap().to_string();
            assert_eq!(shared.engine.borrow().client(id).unwrap().addr, local);

            let push = Reply::Push(vec![Reply::bulk(b"message"), Reply::bulk(b"hi")]);
            assert!(shared.deliver(&shared.engine.borrow(), id, &push));
            assert_eq!(
                read_exactly(&mut c, 25).await,
                b"*2\r\n$7\r\nmessage\r\n$2\r\nhi\r\n"
            );
            assert!(shared.kill(id));
            let mut rest = Vec::new();
            c.read_to_end(&mut rest).await.unwrap();
            assert!(rest.is_empty());
            // The task ended and the client is gone from the engine and the table.
            tokio::task::yield_now().await;
            assert!(shared.conns.borrow().is_empty());
            assert_eq!(shared.engine.borrow().client_count(), 0);
            assert!(!shared.kill(id));
            server.abort();
        };
        LocalSet::new().block_on(&rt, async {
            tokio::time::timeout(Duration::from_secs(20), test)
                .await
                .expect("test timed out");
        });
    }
}
