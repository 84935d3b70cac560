//! The connection group: PING, ECHO, SELECT, HELLO, QUIT, RESET and the CLIENT container.
//!
//! These commands read or change the calling client's own state ([`crate::engine::Client`]):
//! its database, protocol version, name, reply mode. `CLIENT LIST` also reads the other
//! clients through [`Ctx::others`](crate::engine::Ctx::others).
//!
//! The host owns the connection, so some effects are only recorded here and carried out by
//! the host: `QUIT` sets `close_after_reply`, `CLIENT REPLY` sets the reply mode that
//! [`crate::engine::Engine::reply_wanted`] applies.
//!
//! # Layout
//! - [`session`]: PING, ECHO, SELECT, AUTH, HELLO, QUIT, RESET and MONITOR.
//! - [`client`]: CLIENT and its subcommands.
//! - [`tracking`]: CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO (client-side caching).
//! - [`help`]: the `HELP` reply every container command shares.

pub mod client;
pub mod help;
pub mod session;
pub mod tracking;

use crate::engine::table::{Command, DispatchFlags, Flags, Group, Touches};

use client::{
    client_getname, client_help, client_id, client_info, client_kill, client_list, client_no_evict,
    client_pause, client_reply, client_setname, client_unblock, client_unpause,
};
pub use help::help_reply;
use session::{auth, echo, hello, monitor, ping, quit, reset, select};
use tracking::{client_caching, client_getredir, client_tracking, client_trackinginfo};
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
            "Authenticates the connection as an ACL user (the default user alone: its password is `requirepass`).",
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
    Command::new("tracking", -3, Group::Connection, client_tracking)
        .flags(CLIENT_FLAGS)
        .doc(
            "<ON | OFF> [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]",
            "Turns client-side caching on or off: the server tells this connection (or the one it redirects to) when keys it read change.",
            "O(1). Some options may introduce additional complexity.",
            "6.0.0",
        ),
    Command::new("caching", 3, Group::Connection, client_caching)
        .flags(CLIENT_FLAGS)
        .doc(
            "<YES | NO>",
            "In OPTIN or OPTOUT tracking mode, says whether the keys the next command reads are tracked.",
            "O(1)",
            "6.0.0",
        ),
    Command::new("getredir", 2, Group::Connection, client_getredir)
        .flags(CLIENT_FLAGS)
        .doc(
            "",
            "Returns the client this connection's invalidations are redirected to (0: none, -1: tracking off).",
            "O(1)",
            "6.0.0",
        ),
    Command::new("trackinginfo", 2, Group::Connection, client_trackinginfo)
        .flags(CLIENT_FLAGS)
        .doc(
            "",
            "Describes this connection's client-side caching: flags, redirection, prefixes.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("help", 2, Group::Connection, client_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the CLIENT subcommands.", "O(1)", "5.0.0"),
];

#[cfg(test)]
mod tests {
    use crate::engine::testing::{engine, run, text, verbatim};
    use crate::engine::{Engine, ManualClock, Reply};

    /// The ids `CLIENT LIST` shows, in order.
    fn listed(reply: Reply) -> Vec<String> {
        text(reply)
            .lines()
            .map(|l| l.split(' ').next().unwrap_or("").to_string())
            .collect()
    }

    /// Whichever way a command runs — directly, served after blocking, queued in a
    /// transaction, or from inside another's check-out — its handler sees every client
    /// once: the caller as itself, the others through the view, never the spare box.
    #[test]
    fn every_client_is_seen_once_however_the_command_runs() {
        let (mut e, _clock) = engine();
        let [a, b, c] = [e.connect(), e.connect(), e.connect()];
        let all = vec!["id=1", "id=2", "id=3"];
        for id in [a, b, c] {
            assert_eq!(listed(run(&mut e, id, "CLIENT LIST")), all);
        }
        let info = verbatim(&mut e, b, "INFO clients");
        assert!(info.contains("connected_clients:3\r\n"), "{info}");
        run(&mut e, b, "CLIENT SETNAME bee");
        // By id, in the order asked, the caller among them.
        let by_id = listed(run(&mut e, a, "CLIENT LIST ID 2 1 9"));
        assert_eq!(by_id, vec!["id=2", "id=1"]);
        // In a transaction: EXEC runs CLIENT LIST from inside its own command.
        run(&mut e, c, "MULTI");
        run(&mut e, c, "CLIENT LIST");
        let Reply::Array(mut items) = run(&mut e, c, "EXEC") else {
            panic!("EXEC")
        };
        assert_eq!(listed(items.swap_remove(0)), all);
        // Served after blocking: the blocked client is checked out by the writer's command.
        run(&mut e, a, "BLPOP q 0");
        assert!(e.is_blocked(a));
        run(&mut e, b, "RPUSH q x");
        assert!(!e.is_blocked(a));
        assert_eq!(listed(run(&mut e, c, "CLIENT LIST")), all);
        assert_eq!(run(&mut e, a, "CLIENT GETNAME"), Reply::Nil);
        assert_eq!(run(&mut e, b, "CLIENT GETNAME"), Reply::bulk(b"bee"));
        // Killing another client finds it through the view; the caller is found as itself.
        assert_eq!(run(&mut e, b, "CLIENT KILL ID 3"), Reply::Integer(1));
        assert_eq!(
            run(&mut e, b, "CLIENT KILL ID 2 SKIPME no"),
            Reply::Integer(1)
        );
        e.disconnect(c);
        e.disconnect(b);
        assert_eq!(listed(run(&mut e, a, "CLIENT LIST")), vec!["id=1"]);
    }

    #[test]
    fn client_list_shows_every_client_in_id_order() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_000_000)), 1);
        let a = e.connect();
        let b = e.connect_from("10.0.0.2:5000", "10.0.0.1:6379");
        run(&mut e, b, "CLIENT SETNAME bee");
        run(&mut e, b, "SELECT 3");
        let list = verbatim(&mut e, a, "CLIENT LIST");
        let lines: Vec<&str> = list.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("id=1 addr=127.0.0.1:0 laddr=127.0.0.1:6379 fd=8 name= age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=10 "));
        assert!(lines[0].ends_with(" events=r cmd=client|list user=default redir=-1 resp=2"));
        assert!(lines[1].contains(" name=bee "));
        assert!(lines[1].contains(" db=3 "));
        assert!(lines[1].contains(" cmd=select "));
        assert!(lines[1].starts_with("id=2 addr=10.0.0.2:5000 laddr=10.0.0.1:6379 "));
        assert_eq!(
            verbatim(&mut e, a, "CLIENT LIST ID 2 99 2").lines().count(),
            2
        );
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
