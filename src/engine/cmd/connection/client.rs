//! CLIENT and its subcommands: ids and names, LIST and INFO lines, REPLY, NO-EVICT, KILL,
//! PAUSE/UNPAUSE, UNBLOCK and HELP.

use crate::engine::args::{parse_i64, Args};
use crate::engine::blocking::BlockOp;
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::{Client, ClientId, Ctx, Reply, ReplyMode, Server};

use super::help::help_reply;
use super::session::set_name;

/// CLIENT ID: the connection's id.
pub(super) fn client_id(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.client.id as i64))
}

/// CLIENT SETNAME connection-name
pub(super) fn client_setname(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let name = args.next_owned()?;
    set_name(ctx.client, name)?;
    Ok(Reply::ok())
}

/// CLIENT GETNAME: the name, or nil.
pub(super) fn client_getname(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
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
pub(super) fn client_list(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
                u64::try_from(id).ok().and_then(|id| ctx.others.get(id))
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
    Ok(Reply::Verbatim(*b"txt", out.into_bytes()))
}

/// Every client, the caller included, in connection (id) order.
fn all_clients<'c>(ctx: &'c Ctx<'_>) -> Vec<&'c Client> {
    let mut all: Vec<&Client> = ctx.others.iter().collect();
    all.push(&*ctx.client);
    crate::sorting::sort_by_key(&mut all, |c| c.id);
    all
}

/// One `CLIENT LIST` line (Redis's `catClientInfoString`). `argv_mem` is the size of the
/// command being run: non-zero for the calling client only. The flags are Redis's letters
/// for the states we have, in its order: `O` monitor, `P` subscribed, `x` in MULTI, `b`
/// blocked, `t` tracking (`R` its redirection broke, `B` broadcasting), `d` a watched key
/// changed, `A` closed for its output, `e` no-evict; `N` for
/// none.
fn client_line(c: &Client, srv: &Server, now_ms: i64, argv_mem: usize) -> String {
    let age = (now_ms - c.created_ms).max(0) / 1000;
    let idle = (now_ms - c.last_cmd_ms).max(0) / 1000;
    let (sub, psub, ssub) = srv.pubsub.counts(c.id);
    let tracking = srv.tracking.get(c.id);
    let redir = tracking.map_or(-1, |t| t.options.redirect as i64);
    let mut flags = String::new();
    for (on, letter) in [
        (srv.monitors.contains(&c.id), 'O'),
        (sub + psub + ssub > 0, 'P'),
        (c.multi.is_some(), 'x'),
        (srv.blocking.is_blocked(c.id), 'b'),
        (tracking.is_some(), 't'),
        (tracking.is_some_and(|t| t.broken_redirect), 'R'),
        (tracking.is_some_and(|t| t.options.bcast), 'B'),
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
    let rbuf = srv.outboxes.reply_buffer(c.id);
    let name = c
        .name
        .as_deref()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default();
    format!(
        "id={id} addr={addr} laddr={laddr} fd={fd} name={name} age={age} idle={idle} flags={flags} db={db} sub={sub} psub={psub} ssub={ssub} multi={multi} qbuf={qbuf} qbuf-free={qbuf_free} argv-mem={argv_mem} multi-mem=0 rbs={rbs} rbp={rbp} obl=0 oll=0 omem=0 tot-mem={tot} events=r cmd={cmd} user=default redir={redir} resp={resp}",
        id = c.id,
        addr = c.addr,
        laddr = c.laddr,
        fd = c.id + 7,
        db = c.db,
        qbuf = c.qbuf.0,
        qbuf_free = c.qbuf.1,
        rbs = rbuf.size,
        rbp = rbuf.peak,
        tot = rbuf.size + argv_mem + name.len() + c.qbuf.0 + c.qbuf.1,
        cmd = c.last_cmd,
        resp = c.proto,
    )
}

/// CLIENT INFO: this connection's `CLIENT LIST` line.
pub(super) fn client_info(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv_mem: usize = args.argv().iter().map(Vec::len).sum();
    let mut line = client_line(ctx.client, ctx.srv, ctx.now_ms, argv_mem);
    line.push('\n');
    Ok(Reply::Verbatim(*b"txt", line.into_bytes()))
}

/// CLIENT NO-EVICT ON|OFF
pub(super) fn client_no_evict(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn client_reply(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn client_kill(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
        .iter()
        .filter(|c| matches(c, ctx.srv))
        .map(|c| c.id)
        .collect();
    crate::sorting::sort(&mut victims);
    let mut killed = victims.len();
    for v in victims {
        if let Some(c) = ctx.others.get_mut(v) {
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
pub(super) fn client_pause(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn client_unpause(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
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
pub(super) fn client_unblock(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    // A command held back by CLIENT PAUSE waits for the pause, not for data; one held by
    // a running script, for the script.
    let postponed = matches!(
        ctx.srv.blocking.get(target).map(|b| &b.op),
        Some(BlockOp::Postpone | BlockOp::Script)
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
    if let Some(c) = ctx.others.get(target) {
        // Redis's CLIENT UNBLOCK fails the command that waited whichever reply it sends,
        // the timeout reply too (`updateStatsOnUnblock(target, 0, 0, 1)`).
        let table = ctx.table;
        if let Reply::Error(text) = &reply {
            ctx.srv.stats.count_error(text);
        }
        ctx.srv.stats.fail_command(table, &c.last_cmd, 1);
    }
    if ctx
        .others
        .get(target)
        .is_some_and(|c| c.reply_mode != ReplyMode::Off)
    {
        ctx.srv.send(target, reply);
    }
    ctx.srv.note_unblocked(target);
    Ok(Reply::Integer(1))
}

/// CLIENT HELP
pub(super) fn client_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "CLIENT",
        crate::help_lines![
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
