//! The connection commands on the caller's own session: PING, ECHO, SELECT, AUTH, HELLO,
//! QUIT, RESET, and MONITOR.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::{Client, Ctx, Reply, ReplyMode, NUM_DBS};

/// PING [message]: replies `PONG`, or the message as a bulk string. A RESP2 client with
/// subscriptions gets `["pong", message or ""]` instead, as Redis answers there.
pub(super) fn ping(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn echo(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    Ok(Reply::bulk(args.next_bytes()?))
}

/// SELECT index: switches the connection to database `index` (0..16).
pub(super) fn select(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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

/// Checks `user`/`pass` against the users table (Redis's `ACLCheckUserCredentials`): the
/// user exists, is on, and has `nopass` or that password. On success the client is
/// authenticated as it; otherwise `WRONGPASS`.
fn check_credentials(ctx: &mut Ctx<'_>, user: &[u8], pass: &[u8]) -> CmdResult<()> {
    if !ctx.srv.acl.get(user).is_some_and(|u| u.accepts(pass)) {
        return Err(Error::WrongPass);
    }
    ctx.client.authenticated = true;
    ctx.client.user = user.to_vec();
    Ok(())
}

/// AUTH [username] password
///
/// With a password alone, authenticates the `default` user, which must have a password
/// (`requirepass`; Redis refuses one for a `nopass` default user). With a user name, that
/// ACL user. A wrong pair or a user that is off is `WRONGPASS`; more arguments are a
/// syntax error.
pub(super) fn auth(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    match args.remaining() {
        1 => {
            if ctx.srv.acl.default_user().nopass {
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
pub(super) fn hello(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
        None if !ctx.client.authenticated && ctx.srv.acl.auth_required() => {
            return Err(Error::HelloNoAuth);
        }
        None => {}
    }
    if let Some(name) = name {
        set_name(ctx.client, name)?;
    }
    if let Some(v) = version {
        ctx.client.proto = v;
        ctx.srv.tracking.set_proto(ctx.client.id, v);
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
pub(super) fn set_name(client: &mut Client, name: Vec<u8>) -> CmdResult<()> {
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
pub(super) fn quit(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.client.close_after_reply = true;
    Ok(Reply::ok())
}

/// RESET: clears the connection state as Redis's `clearClientConnectionState` does —
/// transaction discarded, keys unwatched, every subscription dropped (without notices),
/// tracking off,
/// database 0, RESP2, no name, replies on, the default user — and replies with the status `RESET`.
/// (`CLIENT NO-EVICT` survives, as in Redis.)
pub(super) fn reset(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.clear_transaction_and_subscriptions();
    ctx.srv.monitors.shift_remove(&ctx.client.id);
    let c = &mut *ctx.client;
    c.db = 0;
    c.proto = 2;
    ctx.srv.tracking.set_proto(c.id, 2);
    c.name = None;
    c.reply_mode = ReplyMode::On;
    c.readonly = false;
    // Back to the default user as a new connection gets it: authenticated only when it has
    // no password and is on (Redis's clearClientConnectionState).
    c.user = b"default".to_vec();
    c.authenticated = !ctx.srv.acl.auth_required();
    Ok(Reply::status("RESET"))
}

/// MONITOR: from now on this client is sent one status line per command any client runs,
/// as Redis's `replicationFeedMonitors` writes it (see [`crate::engine::core::monitor::feed_monitors`]). Replies OK; a
/// client already monitoring gets no reply at all, as in Redis; inside `EXEC`: `ERR MONITOR
/// isn't allowed for DENY BLOCKING client`. `RESET` ends the mode. O(1).
pub(super) fn monitor(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
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
