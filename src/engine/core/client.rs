//! A connected client: its id, database, protocol, name, flags, and its open transaction.

/// Identifies a connected client. Ids start at 1 and are never reused.
pub type ClientId = u64;

/// Per-client state.
#[derive(Debug, Clone)]
pub struct Client {
    /// Unique id (`CLIENT ID`).
    pub id: ClientId,
    /// Selected database.
    pub db: usize,
    /// Protocol version, 2 or 3 (`HELLO`).
    pub proto: u8,
    /// Name set by `CLIENT SETNAME` or `HELLO … SETNAME`.
    pub name: Option<Vec<u8>>,
    /// Peer address, as shown by `CLIENT LIST` (`addr=`).
    pub addr: String,
    /// Local address (`laddr=`).
    pub laddr: String,
    /// Connection time, Unix milliseconds.
    pub created_ms: i64,
    /// Time of the last command, Unix milliseconds.
    pub last_cmd_ms: i64,
    /// Lowercase full name of the last command (`cmd=` in `CLIENT LIST`).
    pub last_cmd: std::borrow::Cow<'static, str>,
    /// Set by `QUIT`: the host closes the connection after sending the reply.
    pub close_after_reply: bool,
    /// What `CLIENT REPLY` asked for; the host honours it (see [`ReplyMode`]).
    pub reply_mode: ReplyMode,
    /// `CLIENT NO-EVICT ON`: excluded from client eviction.
    pub no_evict: bool,
    /// The open transaction, between `MULTI` and `EXEC`/`DISCARD`.
    pub multi: Option<MultiState>,
    /// Closed by the engine (its output exceeded `client-output-buffer-limit`): the host
    /// closes the connection at once, without sending anything more (Redis's
    /// `CLIENT_CLOSE_ASAP`). Such a client is listed by [`Engine::clients_with_pushes`](crate::engine::Engine::clients_with_pushes).
    pub close_asap: bool,
    /// Authenticated as the `default` user. A client starts authenticated while
    /// `requirepass` is empty (Redis's `nopass` default user), and keeps that when a
    /// password is set later; otherwise only `AUTH`/`HELLO … AUTH` authenticate it, and
    /// commands other than those Redis flags `no_auth` answer `NOAUTH`.
    pub authenticated: bool,
    /// The ACL user it is authenticated as (`default` until `AUTH` says otherwise).
    pub user: Vec<u8>,
    /// `READONLY` (cluster mode): shown as flag `r` by `CLIENT LIST`.
    pub readonly: bool,
    /// The client a script's commands run as (Redis's `CLIENT_SCRIPT`).
    pub script: bool,
    /// The host's query buffer for this client: bytes in it and room left, as `CLIENT
    /// LIST` shows them (`qbuf`, `qbuf-free`). A network host sets them before each
    /// command (the buffer then still holds that command, as Redis's does) and after each
    /// batch; 0 where commands arrive parsed (the browser).
    pub qbuf: (usize, usize),
}

impl Client {
    /// A client just connected at `now_ms` from `addr` (to `laddr`): database 0, RESP2,
    /// no name, no transaction.
    pub fn new(id: ClientId, addr: &str, laddr: &str, now_ms: i64, authenticated: bool) -> Client {
        Client {
            id,
            db: 0,
            proto: 2,
            name: None,
            addr: addr.to_string(),
            laddr: laddr.to_string(),
            created_ms: now_ms,
            last_cmd_ms: now_ms,
            last_cmd: std::borrow::Cow::Borrowed("NULL"),
            close_after_reply: false,
            reply_mode: ReplyMode::On,
            no_evict: false,
            multi: None,
            close_asap: false,
            authenticated,
            user: b"default".to_vec(),
            readonly: false,
            script: false,
            qbuf: (0, 0),
        }
    }
}

/// What [`Engine::interrupt`](crate::engine::Engine::interrupt) stopped for a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interrupted {
    /// A blocked command was dropped.
    pub blocked: bool,
    /// Its subscriptions ended (it had left pub/sub mode).
    pub subscribed: bool,
    /// It was a `MONITOR`.
    pub monitor: bool,
    /// It waits for its own script, which was asked to stop (`Some(true)`), or cannot be
    /// because it wrote (`Some(false)`); it still waits for the reply.
    pub script: Option<bool>,
}

impl Interrupted {
    /// True if the client was waiting in anything.
    pub fn any(self) -> bool {
        self.blocked || self.subscribed || self.monitor
    }
}

/// Whether the host sends replies to a client, as set by `CLIENT REPLY` (Redis's
/// `CLIENT_REPLY_OFF` and `CLIENT_REPLY_SKIP*` flags). The host asks
/// [`Engine::reply_wanted`](crate::engine::Engine::reply_wanted) after each command, which also advances the skip state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplyMode {
    /// Every reply is sent (the default, and what `CLIENT REPLY ON` restores, with `OK`).
    #[default]
    On,
    /// No reply is sent, not even to `CLIENT REPLY OFF` itself, until `CLIENT REPLY ON`.
    Off,
    /// `CLIENT REPLY SKIP` just ran (it is ignored while `Off`): neither its reply nor the
    /// next command's is sent.
    Skip,
    /// The command after `CLIENT REPLY SKIP`: its reply is not sent, then back to `On`.
    SkipThis,
}

/// A command waiting in a transaction, checked when it was queued; `EXEC` finds its table
/// row again from the name(s) ([`crate::engine::table::row::Table::resolved`]): the client
/// holds no table rows, so it sits below the table.
#[derive(Debug, Clone)]
pub struct Queued {
    /// Where the handler's arguments start (1, or 2 after a subcommand).
    pub pos: usize,
    /// The full argument vector.
    pub argv: Vec<Vec<u8>>,
}

/// A client's open transaction (Redis's `multiState` plus `CLIENT_DIRTY_EXEC`).
#[derive(Debug, Clone, Default)]
pub struct MultiState {
    /// Commands queued since MULTI, in order.
    pub queue: Vec<Queued>,
    /// A command was refused while queueing: EXEC must fail with EXECABORT.
    pub dirty_exec: bool,
}
