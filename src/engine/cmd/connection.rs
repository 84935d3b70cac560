//! The connection group: PING, ECHO, SELECT, HELLO, QUIT, RESET and the CLIENT container.
//!
//! These commands read or change the calling client's own state ([`crate::engine::Client`]):
//! its database, protocol version, name, reply mode. `CLIENT LIST` also reads the other
//! clients through [`Ctx::others`].
//!
//! The host owns the connection, so some effects are only recorded here and carried out by
//! the host: `QUIT` sets `close_after_reply`, `CLIENT REPLY` sets the reply mode that
//! [`crate::engine::Engine::reply_wanted`] applies.

use crate::engine::args::{parse_i64, Args};
use crate::engine::blocking::BlockOp;
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::table::{Command, DispatchFlags, Flags, Group, Touches};
use crate::engine::{Client, ClientId, Ctx, Reply, ReplyMode, Server, NUM_DBS};

/// Flags shared by the connection-state commands Redis allows anywhere (`HELLO`, `QUIT`,
/// `RESET`).
const ANYTIME: Flags = Flags::NOSCRIPT
    .union(Flags::LOADING)
    .union(Flags::STALE)
    .union(Flags::FAST)
    .union(Flags::NO_AUTH)
    .union(Flags::ALLOW_BUSY);

/// Flags of most `CLIENT` subcommands.
const CLIENT_FLAGS: Flags = Flags::NOSCRIPT.union(Flags::LOADING).union(Flags::STALE);

/// The connection commands.
pub const COMMANDS: &[Command] = &[
    Command::new("ping", -1, Group::Connection, ping)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .flags(Flags::FAST)
        .doc(
            "[message]",
            "Answers PONG, or echoes the message: a liveness check.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("echo", 2, Group::Connection, echo)
        .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
        .doc(
            "message",
            "Replies with the message it was given.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("select", 2, Group::Connection, select)
        .touches(Touches::Nothing)
        .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
        .doc(
            "index",
            "Switches this connection to another logical database (0-15).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("hello", -1, Group::Connection, hello)
        .flags(ANYTIME)
        .doc(
            "[protover [AUTH username password] [SETNAME clientname]]",
            "Handshakes: picks RESP2 or RESP3, optionally authenticates and names the connection, and describes the server.",
            "O(1)",
            "6.0.0",
        ),
    Command::new("auth", -2, Group::Connection, auth)
        .flags(ANYTIME)
        .doc(
            "[username] password",
            "Authenticates the connection as the default user, whose password is `requirepass` (none by default).",
            "O(N) where N is the number of passwords defined for the user",
            "1.0.0",
        ),
    Command::new("quit", -1, Group::Connection, quit)
        .dispatch(
            DispatchFlags::SUBSCRIBER_CONTEXT
                .union(DispatchFlags::NOT_QUEUED)
                .union(DispatchFlags::ENDS_MULTI),
        )
        .flags(ANYTIME)
        .doc(
            "",
            "Answers OK and closes the connection.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("reset", 1, Group::Connection, reset)
        .dispatch(
            DispatchFlags::SUBSCRIBER_CONTEXT
                .union(DispatchFlags::NOT_QUEUED)
                .union(DispatchFlags::ENDS_MULTI),
        )
        .flags(ANYTIME)
        .doc(
            "",
            "Returns the connection to its initial state: database 0, RESP2, no name, replies on.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("monitor", 1, Group::Server, monitor)
        .flags(
            Flags::ADMIN
                .union(Flags::NOSCRIPT)
                .union(Flags::LOADING)
                .union(Flags::STALE),
        )
        .doc(
            "",
            "Streams every command the server runs, from every client, to this connection.",
            "O(1)",
            "1.0.0",
        ),
    Command::container("client", Group::Connection, CLIENT_SUBCOMMANDS).doc(
        "",
        "Inspects and changes client connections.",
        "Depends on subcommand.",
        "2.4.0",
    ),
];

const CLIENT_SUBCOMMANDS: &[Command] = &[
    Command::new("id", 2, Group::Connection, client_id)
        .flags(CLIENT_FLAGS)
        .doc("", "Returns the id of this connection.", "O(1)", "5.0.0"),
    Command::new("setname", 3, Group::Connection, client_setname)
        .flags(CLIENT_FLAGS)
        .doc(
            "connection-name",
            "Names this connection (an empty name removes it).",
            "O(1)",
            "2.6.9",
        ),
    Command::new("getname", 2, Group::Connection, client_getname)
        .flags(CLIENT_FLAGS)
        .doc(
            "",
            "Returns the name of this connection, or nil.",
            "O(1)",
            "2.6.9",
        ),
    Command::new("list", -2, Group::Connection, client_list)
        .tips(&["nondeterministic_output"])
        .flags(Flags::ADMIN.union(CLIENT_FLAGS))
        .doc(
            "[TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id [client-id ...]]",
            "Describes the connected clients, one line each.",
            "O(N) where N is the number of client connections",
            "2.4.0",
        ),
    Command::new("info", 2, Group::Connection, client_info)
        .tips(&["nondeterministic_output"])
        .flags(CLIENT_FLAGS)
        .doc(
            "",
            "Describes this connection in CLIENT LIST's format.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("no-evict", 3, Group::Connection, client_no_evict)
        .flags(Flags::ADMIN.union(CLIENT_FLAGS))
        .doc(
            "ON | OFF",
            "Exempts this connection from client eviction, or not.",
            "O(1)",
            "7.0.0",
        ),
    Command::new("reply", 3, Group::Connection, client_reply)
        .flags(CLIENT_FLAGS)
        .doc(
            "ON | OFF | SKIP",
            "Turns the server's replies to this connection on or off, or skips the next one.",
            "O(1)",
            "3.2.0",
        ),
    Command::new("kill", -3, Group::Connection, client_kill)
        .flags(Flags::ADMIN.union(CLIENT_FLAGS))
        .doc(
            "ip:port | <[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>] [[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>]]>",
            "Closes client connections chosen by address, id, type, user or local address.",
            "O(N) where N is the number of client connections",
            "2.4.0",
        ),
    Command::new("pause", -3, Group::Connection, client_pause)
        .flags(Flags::ADMIN.union(CLIENT_FLAGS))
        .doc(
            "timeout [WRITE | ALL]",
            "Holds back the commands of every client (ALL, the default) or those that write (WRITE) for timeout milliseconds; they run when the pause ends.",
            "O(1)",
            "3.0.0",
        ),
    Command::new("unpause", 2, Group::Connection, client_unpause)
        .flags(Flags::ADMIN.union(CLIENT_FLAGS))
        .doc(
            "",
            "Ends a CLIENT PAUSE: the commands held back run, in the order they arrived.",
            "O(N) Where N is the number of paused clients",
            "6.2.0",
        ),
    Command::new("unblock", -3, Group::Connection, client_unblock)
        .flags(Flags::ADMIN.union(CLIENT_FLAGS))
        .doc(
            "client-id [TIMEOUT | ERROR]",
            "Unblocks a client blocked by a blocking command, as if it timed out or with an error.",
            "O(log N) where N is the number of client connections",
            "5.0.0",
        ),
    Command::new("help", 2, Group::Connection, client_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the CLIENT subcommands.", "O(1)", "5.0.0"),
];

/// PING [message]: replies `PONG`, or the message as a bulk string. A RESP2 client with
/// subscriptions gets `["pong", message or ""]` instead, as Redis answers there.
fn ping(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.remaining() <= 1 && ctx.client.proto == 2 && ctx.in_pubsub_mode() {
        let msg = args.rest().pop().unwrap_or_default();
        return Ok(Reply::Array(vec![Reply::bulk(b"pong"), Reply::Bulk(msg)]));
    }
    match args.remaining() {
        0 => Ok(Reply::status("PONG")),
        1 => Ok(Reply::bulk(args.next_bytes()?)),
        _ => Err(Error::WrongArity("ping".into())),
    }
}

/// ECHO message: replies the message.
fn echo(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    Ok(Reply::bulk(args.next_bytes()?))
}

/// SELECT index: switches the connection to database `index` (0..16).
fn select(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    // Redis reads the index as a C int first (getIntFromObjectOrReply).
    let idx = args.next_i64()?;
    if i32::try_from(idx).is_err() {
        return Err(Error::OutOfRangeBetween(i32::MIN.into(), i32::MAX.into()));
    }
    if ctx.srv.config.cluster_enabled() && idx != 0 {
        return Err(Error::NotInCluster("SELECT"));
    }
    if idx < 0 || idx >= NUM_DBS as i64 {
        return Err(Error::DbIndexOutOfRange);
    }
    ctx.client.db = idx as usize;
    Ok(Reply::ok())
}

/// Checks credentials for the one user there is, `default`: without `requirepass` it has
/// no password (Redis's `nopass`) and any password is accepted; with it, the password must
/// equal it. On success the client is authenticated.
fn check_credentials(ctx: &mut Ctx<'_>, user: &[u8], pass: &[u8]) -> CmdResult<()> {
    let required = ctx.srv.config.get("requirepass").unwrap_or("");
    if user != b"default" || (!required.is_empty() && pass != required.as_bytes()) {
        return Err(Error::WrongPass);
    }
    ctx.client.authenticated = true;
    Ok(())
}

/// AUTH [username] password
///
/// With a password alone, authenticates the `default` user, which needs `requirepass` to
/// be set (Redis refuses a password for a user without one). With a user name, any ACL
/// user — and `default` is the only one — with its password (any password when it has
/// none). A wrong pair is `WRONGPASS`; more arguments are a syntax error.
fn auth(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    match args.remaining() {
        1 => {
            if !ctx.srv.config.password_required() {
                return Err(Error::AuthNoPassword);
            }
            let pass = args.next_owned()?;
            check_credentials(ctx, b"default", &pass)?;
        }
        2 => {
            let user = args.next_owned()?;
            let pass = args.next_owned()?;
            check_credentials(ctx, &user, &pass)?;
        }
        _ => return Err(Error::Syntax),
    }
    Ok(Reply::ok())
}

/// HELLO [protover [AUTH username password] [SETNAME clientname]]
///
/// Switches to RESP `protover` (2 or 3; otherwise `NOPROTO`), authenticates (see
/// [`check_credentials`]), names the connection, and replies with a map describing the
/// server — in the *new* protocol. Options are checked before anything changes; a failed
/// AUTH or SETNAME leaves the protocol as it was. A client that must authenticate and
/// gives no `AUTH` is refused with `NOAUTH`.
fn hello(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mut version = None;
    if !args.is_empty() {
        let v = parse_i64(args.next_bytes()?).ok_or_else(|| {
            Error::Err("Protocol version is not an integer or out of range".into())
        })?;
        if !(2..=3).contains(&v) {
            return Err(Error::Coded("NOPROTO unsupported protocol version".into()));
        }
        version = Some(v as u8);
    }
    let mut auth = None;
    let mut name = None;
    while let Some(opt) = args.peek().map(<[u8]>::to_vec) {
        args.next_bytes()?;
        let more = args.remaining();
        if opt.eq_ignore_ascii_case(b"AUTH") && more >= 2 {
            let user = args.next_owned()?;
            let pass = args.next_owned()?;
            auth = Some((user, pass));
        } else if opt.eq_ignore_ascii_case(b"SETNAME") && more >= 1 {
            name = Some(args.next_owned()?);
        } else {
            return Err(Error::Err(format!(
                "Syntax error in HELLO option '{}'",
                c_str(&opt)
            )));
        }
    }
    match auth {
        Some((user, pass)) => check_credentials(ctx, &user, &pass)?,
        None if !ctx.client.authenticated && ctx.srv.config.password_required() => {
            return Err(Error::HelloNoAuth);
        }
        None => {}
    }
    if let Some(name) = name {
        set_name(ctx.client, name)?;
    }
    if let Some(v) = version {
        ctx.client.proto = v;
    }
    Ok(Reply::Map(vec![
        (Reply::bulk(b"server"), Reply::bulk(b"redis")),
        (Reply::bulk(b"version"), Reply::bulk(b"7.0.15")),
        (
            Reply::bulk(b"proto"),
            Reply::Integer(i64::from(ctx.client.proto)),
        ),
        (Reply::bulk(b"id"), Reply::Integer(ctx.client.id as i64)),
        (Reply::bulk(b"mode"), Reply::bulk(b"standalone")),
        (Reply::bulk(b"role"), Reply::bulk(b"master")),
        (Reply::bulk(b"modules"), Reply::Array(Vec::new())),
    ]))
}

/// Sets or (with an empty name) clears the client's name. Names may only hold the
/// printable ASCII characters `!`..`~`, as Redis's `clientSetName` requires.
fn set_name(client: &mut Client, name: Vec<u8>) -> CmdResult<()> {
    if name.is_empty() {
        client.name = None;
        return Ok(());
    }
    if name.iter().any(|&c| !(b'!'..=b'~').contains(&c)) {
        return Err(Error::Err(
            "Client names cannot contain spaces, newlines or special characters.".into(),
        ));
    }
    client.name = Some(name);
    Ok(())
}

/// QUIT: replies OK; the host closes the connection after sending it.
fn quit(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.client.close_after_reply = true;
    Ok(Reply::ok())
}

/// RESET: clears the connection state as Redis's `clearClientConnectionState` does —
/// transaction discarded, keys unwatched, every subscription dropped (without notices),
/// database 0, RESP2, no name, replies on — and replies with the status `RESET`.
/// (`CLIENT NO-EVICT` survives, as in Redis.)
fn reset(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.clear_transaction_and_subscriptions();
    ctx.srv.monitors.shift_remove(&ctx.client.id);
    let c = &mut *ctx.client;
    c.db = 0;
    c.proto = 2;
    c.name = None;
    c.reply_mode = ReplyMode::On;
    c.readonly = false;
    // Back to the default user as a new connection gets it: authenticated only when it has
    // no password.
    c.authenticated = !ctx.srv.config.password_required();
    Ok(Reply::status("RESET"))
}

/// CLIENT ID: the connection's id.
fn client_id(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.client.id as i64))
}

/// CLIENT SETNAME connection-name
fn client_setname(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let name = args.next_owned()?;
    set_name(ctx.client, name)?;
    Ok(Reply::ok())
}

/// CLIENT GETNAME: the name, or nil.
fn client_getname(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::bulk_or_nil(ctx.client.name.as_deref()))
}

/// The client types `CLIENT LIST TYPE` accepts. A client with subscriptions is `pubsub`,
/// every other one `normal` (there are no replicas or masters).
fn client_type_known(name: &[u8]) -> bool {
    ["normal", "slave", "replica", "pubsub", "master"]
        .iter()
        .any(|t| t.as_bytes().eq_ignore_ascii_case(name))
}

/// CLIENT LIST [TYPE type] | [ID id [id ...]]
///
/// One line per client in connection order, fields named and ordered as Redis 7.0 prints
/// them. Fields about buffers and sockets we don't have are reported as an idle Redis
/// client shows them. `TYPE` (exactly one, alone) filters by type; `ID` lists the given
/// ids in the order given (unknown ids are skipped, an unparsable one is an error).
/// **O(N)** in the number of clients.
fn client_list(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let now = ctx.now_ms;
    let me = ctx.client.id;
    let mem: usize = args.argv().iter().map(Vec::len).sum();
    let argv_mem = |c: &Client| if c.id == me { mem } else { 0 };
    let argc = args.argv().len();
    let mut out = String::new();
    if argc == 4 && args.eat("TYPE") {
        let t = args.next_bytes()?;
        if !client_type_known(t) {
            return Err(Error::Err(format!("Unknown client type '{}'", c_str(t))));
        }
        let want_pubsub = t.eq_ignore_ascii_case(b"pubsub");
        if want_pubsub || t.eq_ignore_ascii_case(b"normal") {
            for c in all_clients(ctx) {
                if (ctx.srv.pubsub.total(c.id) > 0) == want_pubsub {
                    out.push_str(&client_line(c, ctx.srv, now, argv_mem(c)));
                    out.push('\n');
                }
            }
        }
    } else if argc > 3 && args.eat("ID") {
        let mut ids = Vec::new();
        for a in args.rest() {
            let id = parse_i64(&a).ok_or_else(|| Error::Err("Invalid client ID".into()))?;
            ids.push(id);
        }
        for id in ids {
            let found = if id == ctx.client.id as i64 {
                Some(&*ctx.client)
            } else {
                u64::try_from(id).ok().and_then(|id| ctx.others.get(&id))
            };
            if let Some(c) = found {
                out.push_str(&client_line(c, ctx.srv, now, argv_mem(c)));
                out.push('\n');
            }
        }
    } else if argc != 2 {
        return Err(Error::Syntax);
    } else {
        for c in all_clients(ctx) {
            out.push_str(&client_line(c, ctx.srv, now, argv_mem(c)));
            out.push('\n');
        }
    }
    Ok(Reply::Verbatim("txt", out.into_bytes()))
}

/// Every client, the caller included, in connection (id) order.
fn all_clients<'c>(ctx: &'c Ctx<'_>) -> Vec<&'c Client> {
    let mut all: Vec<&Client> = ctx.others.values().collect();
    all.push(&*ctx.client);
    crate::sorting::sort_by_key(&mut all, |c| c.id);
    all
}

/// One `CLIENT LIST` line (Redis's `catClientInfoString`). `argv_mem` is the size of the
/// command being run: non-zero for the calling client only. The flags are Redis's letters
/// for the states we have, in its order: `O` monitor, `P` subscribed, `x` in MULTI, `b`
/// blocked, `d` a watched key changed, `A` closed for its output, `e` no-evict; `N` for
/// none.
fn client_line(c: &Client, srv: &Server, now_ms: i64, argv_mem: usize) -> String {
    let age = (now_ms - c.created_ms).max(0) / 1000;
    let idle = (now_ms - c.last_cmd_ms).max(0) / 1000;
    let (sub, psub, ssub) = srv.pubsub.counts(c.id);
    let mut flags = String::new();
    for (on, letter) in [
        (srv.monitors.contains(&c.id), 'O'),
        (sub + psub + ssub > 0, 'P'),
        (c.multi.is_some(), 'x'),
        (srv.blocking.is_blocked(c.id), 'b'),
        (srv.watches.is_dirty(c.id), 'd'),
        (c.close_asap, 'A'),
        (c.readonly, 'r'),
        (c.no_evict, 'e'),
    ] {
        if on {
            flags.push(letter);
        }
    }
    if flags.is_empty() {
        flags.push('N');
    }
    let multi = c.multi.as_ref().map_or(-1, |m| m.queue.len() as i64);
    let name = c
        .name
        .as_deref()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default();
    format!(
        "id={id} addr={addr} laddr={laddr} fd={fd} name={name} age={age} idle={idle} flags={flags} db={db} sub={sub} psub={psub} ssub={ssub} multi={multi} qbuf=0 qbuf-free=0 argv-mem={argv_mem} multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 tot-mem={tot} events=r cmd={cmd} user=default redir=-1 resp={resp}",
        id = c.id,
        addr = c.addr,
        laddr = c.laddr,
        fd = c.id + 7,
        db = c.db,
        tot = 1024 + argv_mem + name.len(),
        cmd = c.last_cmd,
        resp = c.proto,
    )
}

/// CLIENT INFO: this connection's `CLIENT LIST` line.
fn client_info(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv_mem: usize = args.argv().iter().map(Vec::len).sum();
    let mut line = client_line(ctx.client, ctx.srv, ctx.now_ms, argv_mem);
    line.push('\n');
    Ok(Reply::Verbatim("txt", line.into_bytes()))
}

/// CLIENT NO-EVICT ON|OFF
fn client_no_evict(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let v = args.next_bytes()?;
    if v.eq_ignore_ascii_case(b"on") {
        ctx.client.no_evict = true;
    } else if v.eq_ignore_ascii_case(b"off") {
        ctx.client.no_evict = false;
    } else {
        return Err(Error::Syntax);
    }
    Ok(Reply::ok())
}

/// CLIENT REPLY ON|OFF|SKIP
///
/// `ON` replies OK. `OFF` and `SKIP` send no reply at all (the host drops it, see
/// [`crate::engine::Engine::reply_wanted`]); `SKIP` while replies are off changes nothing.
fn client_reply(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let v = args.next_bytes()?;
    let c = &mut *ctx.client;
    if v.eq_ignore_ascii_case(b"on") {
        c.reply_mode = ReplyMode::On;
    } else if v.eq_ignore_ascii_case(b"off") {
        c.reply_mode = ReplyMode::Off;
    } else if v.eq_ignore_ascii_case(b"skip") {
        if c.reply_mode != ReplyMode::Off {
            c.reply_mode = ReplyMode::Skip;
        }
    } else {
        return Err(Error::Syntax);
    }
    Ok(Reply::ok())
}

/// MONITOR: from now on this client is sent one status line per command any client runs,
/// as Redis's `replicationFeedMonitors` writes it (see [`crate::engine::core::monitor::feed_monitors`]). Replies OK; a
/// client already monitoring gets no reply at all, as in Redis; inside `EXEC`: `ERR MONITOR
/// isn't allowed for DENY BLOCKING client`. `RESET` ends the mode. O(1).
fn monitor(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    if ctx.deny_blocking {
        return Err(Error::Err(
            "MONITOR isn't allowed for DENY BLOCKING client".into(),
        ));
    }
    if !ctx.srv.monitors.insert(ctx.client.id) {
        ctx.no_reply = true;
    }
    Ok(Reply::ok())
}

/// A client's type as `CLIENT KILL TYPE` and `CLIENT LIST TYPE` see it: `pubsub` with
/// subscriptions, else `normal` (monitors included; there are no replicas or masters).
fn client_type_is(srv: &Server, c: &Client, t: &[u8]) -> bool {
    let pubsub = srv.pubsub.total(c.id) > 0;
    if t.eq_ignore_ascii_case(b"pubsub") {
        pubsub
    } else if t.eq_ignore_ascii_case(b"normal") {
        !pubsub
    } else {
        false
    }
}

/// CLIENT KILL ip:port | CLIENT KILL <filter value> [<filter value> ...]
///
/// The old form closes the client connected from `ip:port` and replies OK, or `ERR No such
/// client`. The new form takes any of `ID id` (`ERR client-id should be greater than 0`
/// unless a positive integer), `TYPE normal|master|slave|replica|pubsub` (`ERR Unknown
/// client type '…'`), `ADDR ip:port`, `LADDR ip:port`, `USER name` (only `default` exists:
/// `ERR No such user '…'`), `SKIPME yes|no` (default yes), all of which must match, and
/// replies with the number of clients closed. Another client is closed at once, sending
/// nothing more (the host sees [`Client::close_asap`]); the caller itself after this reply.
/// A killed blocked client leaves no trace. **O(N)** in the clients.
fn client_kill(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argc = args.argv().len();
    let old_form = argc == 3;
    let (mut id, mut ctype, mut addr, mut laddr) = (None, None, None, None);
    let mut skipme = true;
    if old_form {
        addr = Some(args.next_owned()?);
        skipme = false;
    } else {
        while !args.is_empty() {
            let opt = args.next_owned()?;
            let Ok(val) = args.next_owned() else {
                return Err(Error::Syntax);
            };
            if opt.eq_ignore_ascii_case(b"id") {
                let n = parse_i64(&val)
                    .filter(|n| *n > 0)
                    .ok_or_else(|| Error::Err("client-id should be greater than 0".into()))?;
                id = Some(n as u64);
            } else if opt.eq_ignore_ascii_case(b"type") {
                if !client_type_known(&val) {
                    return Err(Error::Err(format!("Unknown client type '{}'", c_str(&val))));
                }
                ctype = Some(val);
            } else if opt.eq_ignore_ascii_case(b"addr") {
                addr = Some(val);
            } else if opt.eq_ignore_ascii_case(b"laddr") {
                laddr = Some(val);
            } else if opt.eq_ignore_ascii_case(b"user") {
                if val != b"default" {
                    return Err(Error::Err(format!("No such user '{}'", c_str(&val))));
                }
            } else if opt.eq_ignore_ascii_case(b"skipme") {
                if val.eq_ignore_ascii_case(b"yes") {
                    skipme = true;
                } else if val.eq_ignore_ascii_case(b"no") {
                    skipme = false;
                } else {
                    return Err(Error::Syntax);
                }
            } else {
                return Err(Error::Syntax);
            }
        }
    }
    let matches = |c: &Client, srv: &Server| {
        id.is_none_or(|i| c.id == i)
            && addr.as_deref().is_none_or(|a| a == c.addr.as_bytes())
            && laddr.as_deref().is_none_or(|a| a == c.laddr.as_bytes())
            && ctype.as_deref().is_none_or(|t| client_type_is(srv, c, t))
    };
    let mut victims: Vec<ClientId> = ctx
        .others
        .values()
        .filter(|c| matches(c, ctx.srv))
        .map(|c| c.id)
        .collect();
    crate::sorting::sort(&mut victims);
    let mut killed = victims.len();
    for v in victims {
        if let Some(c) = ctx.others.get_mut(&v) {
            c.close_asap = true;
        }
        ctx.srv.unblock(v);
        ctx.srv.blocking.forget(v);
        ctx.srv.monitors.shift_remove(&v);
        ctx.srv.outboxes.kill(v);
    }
    if !skipme && matches(ctx.client, ctx.srv) {
        ctx.client.close_after_reply = true;
        killed += 1;
    }
    if old_form {
        return if killed == 0 {
            Err(Error::Err("No such client".into()))
        } else {
            Ok(Reply::ok())
        };
    }
    Ok(Reply::Integer(killed as i64))
}

/// CLIENT PAUSE timeout [WRITE|ALL]
///
/// Pauses for `timeout` milliseconds (an integer; 0 pauses nothing unless a pause is in
/// force already): with `ALL` (the default) every command of every client waits, the
/// caller's next ones included; with `WRITE` only commands that may write. Waiting
/// commands run, in order, when the pause ends ([`Server::unpause_clients`]); a pause in
/// force keeps the later end and the stronger mode.
fn client_pause(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::subcommand_syntax(args.argv()));
    }
    let timeout = args.next_owned()?;
    // The mode is checked before the timeout, as in Redis.
    let all = match args.next_bytes().ok() {
        None => true,
        Some(m) if m.eq_ignore_ascii_case(b"all") => true,
        Some(m) if m.eq_ignore_ascii_case(b"write") => false,
        Some(_) => return Err(Error::Err("CLIENT PAUSE mode must be WRITE or ALL".into())),
    };
    let ms = parse_i64(&timeout).ok_or(Error::TimeoutNotInteger)?;
    if ms < 0 {
        return Err(Error::TimeoutNegative);
    }
    let end = if ms > 0 {
        ctx.now_ms.saturating_add(ms)
    } else {
        0
    };
    ctx.srv.pause_clients(end, all, ctx.now_ms);
    Ok(Reply::ok())
}

/// CLIENT UNPAUSE: ends the pause (see [`client_pause`]).
fn client_unpause(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.srv.unpause_clients();
    Ok(Reply::ok())
}

/// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]
///
/// Ends the wait of a client blocked by `BLPOP` & co.: with `TIMEOUT` (the default) it gets
/// its timeout reply, with `ERROR` the error `UNBLOCKED client unblocked via CLIENT
/// UNBLOCK`. Replies 1 if the client was blocked, else 0. The reason is checked before the
/// id (`ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR`); more arguments are a
/// subcommand syntax error. O(keys the client waited on).
fn client_unblock(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argc = args.argv().len();
    if argc > 4 {
        return Err(Error::subcommand_syntax(args.argv()));
    }
    let id_arg = args.next_owned()?;
    let mut error = false;
    if argc == 4 {
        let why = args.next_bytes()?;
        if why.eq_ignore_ascii_case(b"error") {
            error = true;
        } else if !why.eq_ignore_ascii_case(b"timeout") {
            return Err(Error::Err(
                "CLIENT UNBLOCK reason should be TIMEOUT or ERROR".into(),
            ));
        }
    }
    let target = parse_i64(&id_arg).ok_or(Error::NotInteger)?;
    let Ok(target) = u64::try_from(target) else {
        return Ok(Reply::Integer(0));
    };
    // A command held back by CLIENT PAUSE waits for the pause, not for data.
    let postponed = matches!(
        ctx.srv.blocking.get(target).map(|b| &b.op),
        Some(BlockOp::Postpone)
    );
    if postponed {
        return Ok(Reply::Integer(0));
    }
    let Some(blocked) = ctx.srv.unblock(target) else {
        return Ok(Reply::Integer(0));
    };
    let reply = if error {
        Reply::Error("UNBLOCKED client unblocked via CLIENT UNBLOCK".into())
    } else {
        blocked.op.timeout_reply()
    };
    if ctx
        .others
        .get(&target)
        .is_some_and(|c| c.reply_mode != ReplyMode::Off)
    {
        ctx.srv.send(target, reply);
    }
    ctx.srv.note_unblocked(target);
    Ok(Reply::Integer(1))
}

/// CLIENT HELP
fn client_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "CLIENT",
        &[
            "CACHING (YES|NO)",
            "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
            "GETREDIR",
            "    Return the client ID we are redirecting to when tracking is enabled.",
            "GETNAME",
            "    Return the name of the current connection.",
            "ID",
            "    Return the ID of the current connection.",
            "INFO",
            "    Return information about the current client connection.",
            "KILL <ip:port>",
            "    Kill connection made from <ip:port>.",
            "KILL <option> <value> [<option> <value> [...]]",
            "    Kill connections. Options are:",
            "    * ADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made from the specified address",
            "    * LADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made to specified local address",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Kill connections by type.",
            "    * USER <username>",
            "      Kill connections authenticated by <username>.",
            "    * SKIPME (YES|NO)",
            "      Skip killing current connection (default: yes).",
            "LIST [options ...]",
            "    Return information about client connections. Options:",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Return clients of specified type.",
            "UNPAUSE",
            "    Stop the current client pause, resuming traffic.",
            "PAUSE <timeout> [WRITE|ALL]",
            "    Suspend all, or just write, clients for <timeout> milliseconds.",
            "REPLY (ON|OFF|SKIP)",
            "    Control the replies sent to the current connection.",
            "SETNAME <name>",
            "    Assign the name <name> to the current connection.",
            "UNBLOCK <clientid> [TIMEOUT|ERROR]",
            "    Unblock the specified blocked client.",
            "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
            "         [OPTIN] [OPTOUT] [NOLOOP]",
            "    Control server assisted client side caching.",
            "TRACKINGINFO",
            "    Report tracking status for the current connection.",
            "NO-EVICT (ON|OFF)",
            "    Protect current client connection from eviction.",
        ],
    ))
}

/// A `<CMD> HELP` reply as Redis's `addReplyHelp` builds it: a title line, the given
/// lines, and the `HELP` entry, each a status reply.
pub fn help_reply(command: &str, lines: &[&str]) -> Reply {
    let mut out = Vec::with_capacity(lines.len() + 3);
    out.push(Reply::Status(format!(
        "{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    )));
    out.extend(lines.iter().map(|l| Reply::status(l)));
    out.push(Reply::status("HELP"));
    out.push(Reply::status("    Prints this help."));
    Reply::Array(out)
}

#[cfg(test)]
mod tests {
    use crate::engine::{Engine, ManualClock, Reply};

    fn run(e: &mut Engine, id: u64, line: &str) -> Reply {
        let argv = crate::engine::cli::split_args(line).unwrap();
        e.execute(id, argv)
    }

    #[test]
    fn client_list_shows_every_client_in_id_order() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_000_000)), 1);
        let a = e.connect();
        let b = e.connect_from("10.0.0.2:5000", "10.0.0.1:6379");
        run(&mut e, b, "CLIENT SETNAME bee");
        run(&mut e, b, "SELECT 3");
        let Reply::Verbatim(_, text) = run(&mut e, a, "CLIENT LIST") else {
            panic!("not verbatim")
        };
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("id=1 addr=127.0.0.1:0 laddr=127.0.0.1:6379 fd=8 name= age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=10 "));
        assert!(lines[0].ends_with(" events=r cmd=client|list user=default redir=-1 resp=2"));
        assert!(lines[1].contains(" name=bee "));
        assert!(lines[1].contains(" db=3 "));
        assert!(lines[1].contains(" cmd=select "));
        assert!(lines[1].starts_with("id=2 addr=10.0.0.2:5000 laddr=10.0.0.1:6379 "));
        let Reply::Verbatim(_, text) = run(&mut e, a, "CLIENT LIST ID 2 99 2") else {
            panic!("not verbatim")
        };
        assert_eq!(String::from_utf8(text).unwrap().lines().count(), 2);
    }

    #[test]
    fn client_reply_off_and_skip_silence_replies() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let mut sent = Vec::new();
        for line in [
            "CLIENT REPLY SKIP",
            "PING 1",
            "PING 2",
            "CLIENT REPLY OFF",
            "PING 3",
            "CLIENT REPLY SKIP",
            "PING 4",
            "CLIENT REPLY ON",
            "PING 5",
        ] {
            let r = run(&mut e, a, line);
            if e.reply_wanted(a) {
                sent.push(crate::engine::cli::format_reply(&r));
            }
        }
        assert_eq!(sent, ["\"2\"", "OK", "\"5\""]);
    }

    #[test]
    fn quit_and_reset_change_the_connection() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        run(&mut e, a, "HELLO 3 SETNAME x");
        run(&mut e, a, "SELECT 4");
        assert_eq!(run(&mut e, a, "RESET"), Reply::status("RESET"));
        let c = e.client(a).unwrap();
        assert_eq!((c.db, c.proto, c.name.is_none()), (0, 2, true));
        assert_eq!(run(&mut e, a, "QUIT"), Reply::ok());
        assert!(e.client(a).unwrap().close_after_reply);
    }
}
