//! The pub/sub group: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, the PUBSUB
//! container, and the shard variants SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH.
//!
//! The registry and message delivery are in [`crate::engine::pubsub`]. The (un)subscribe
//! commands reply once per channel or pattern, each reply a push `[kind, name, count]`
//! (an array in RESP2), where `count` is the number of channels plus patterns the client
//! is subscribed to afterwards (shard channels only, for the shard commands). The first is
//! the command's reply; the others follow it ([`Ctx::also_reply`]). Unsubscribing from
//! everything while subscribed to nothing still replies once, with a nil name.
//!
//! While a RESP2 client has any subscription it may only run (P|S)SUBSCRIBE,
//! (P|S)UNSUBSCRIBE, PING, QUIT and RESET; [`crate::engine::Engine::execute`] enforces that.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::Kind;
use crate::engine::table::{Command, DispatchFlags, Flags, Group, KeySpec};
use crate::engine::{Ctx, Reply};

use super::connection::help_reply;

/// Flags of the (un)subscribe commands.
const SUB_FLAGS: Flags = Flags::PUBSUB
    .union(Flags::NOSCRIPT)
    .union(Flags::LOADING)
    .union(Flags::STALE);

/// Flags of PUBLISH and SPUBLISH.
const PUB_FLAGS: Flags = Flags::PUBSUB
    .union(Flags::LOADING)
    .union(Flags::STALE)
    .union(Flags::FAST)
    .union(Flags::MAY_REPLICATE);

/// Flags of the PUBSUB introspection subcommands.
const INTROSPECT: Flags = Flags::PUBSUB.union(Flags::LOADING).union(Flags::STALE);

/// The pub/sub commands.
pub const COMMANDS: &[Command] = &[
    Command::new("subscribe", -2, Group::Pubsub, subscribe)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .flags(SUB_FLAGS)
        .doc(
            "channel [channel ...]",
            "Listens to the channels: their messages are pushed to this connection.",
            "O(N) where N is the number of channels to subscribe to.",
            "2.0.0",
        ),
    Command::new("unsubscribe", -1, Group::Pubsub, unsubscribe)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .flags(SUB_FLAGS)
        .doc(
            "[channel [channel ...]]",
            "Stops listening to the channels, or to every channel.",
            "O(N) where N is the number of clients already subscribed to a channel.",
            "2.0.0",
        ),
    Command::new("psubscribe", -2, Group::Pubsub, psubscribe)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .flags(SUB_FLAGS)
        .doc(
            "pattern [pattern ...]",
            "Listens to every channel whose name matches one of the glob patterns.",
            "O(N) where N is the number of patterns the client is already subscribed to.",
            "2.0.0",
        ),
    Command::new("punsubscribe", -1, Group::Pubsub, punsubscribe)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .flags(SUB_FLAGS)
        .doc(
            "[pattern [pattern ...]]",
            "Stops listening to the patterns, or to every pattern.",
            "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).",
            "2.0.0",
        ),
    Command::new("publish", 3, Group::Pubsub, publish)
        .flags(PUB_FLAGS)
        .doc(
            "channel message",
            "Sends a message to a channel's listeners; replies how many received it.",
            "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
            "2.0.0",
        ),
    Command::container("pubsub", Group::Pubsub, PUBSUB_SUBCOMMANDS).doc(
        "",
        "Inspects the pub/sub state: active channels, subscriber and pattern counts.",
        "Depends on subcommand.",
        "2.8.0",
    ),
    Command::new("ssubscribe", -2, Group::Pubsub, ssubscribe)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .key_specs(&[KeySpec::index(1, "not_key").range(-1, 1, 0)])
        .flags(SUB_FLAGS)
        .doc(
            "shardchannel [shardchannel ...]",
            "Listens to shard channels (a namespace separate from SUBSCRIBE's).",
            "O(N) where N is the number of shard channels to subscribe to.",
            "7.0.0",
        ),
    Command::new("sunsubscribe", -1, Group::Pubsub, sunsubscribe)
        .dispatch(DispatchFlags::SUBSCRIBER_CONTEXT)
        .key_specs(&[KeySpec::index(1, "not_key").range(-1, 1, 0)])
        .flags(SUB_FLAGS)
        .doc(
            "[shardchannel [shardchannel ...]]",
            "Stops listening to the shard channels, or to every shard channel.",
            "O(N) where N is the number of clients already subscribed to a shard channel.",
            "7.0.0",
        ),
    Command::new("spublish", 3, Group::Pubsub, spublish)
        .key_specs(&[KeySpec::index(1, "not_key")])
        .flags(PUB_FLAGS)
        .doc(
            "shardchannel message",
            "Sends a message to a shard channel's listeners; replies how many received it.",
            "O(N) where N is the number of clients subscribed to the receiving shard channel.",
            "7.0.0",
        ),
];

const PUBSUB_SUBCOMMANDS: &[Command] = &[
    Command::new("channels", -2, Group::Pubsub, pubsub_channels)
        .flags(INTROSPECT)
        .doc(
            "[pattern]",
            "Lists the channels that have subscribers, optionally only those matching a pattern.",
            "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
            "2.8.0",
        ),
    Command::new("numsub", -2, Group::Pubsub, pubsub_numsub)
        .flags(INTROSPECT)
        .doc(
            "[channel [channel ...]]",
            "Counts the subscribers of each channel (pattern subscriptions not included).",
            "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
            "2.8.0",
        ),
    Command::new("numpat", 2, Group::Pubsub, pubsub_numpat)
        .flags(INTROSPECT)
        .doc(
            "",
            "Counts the distinct patterns anyone is subscribed to.",
            "O(1)",
            "2.8.0",
        ),
    Command::new("shardchannels", -2, Group::Pubsub, pubsub_shardchannels)
        .flags(INTROSPECT)
        .doc(
            "[pattern]",
            "Lists the shard channels that have subscribers, optionally matching a pattern.",
            "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).",
            "7.0.0",
        ),
    Command::new("shardnumsub", -2, Group::Pubsub, pubsub_shardnumsub)
        .flags(INTROSPECT)
        .doc(
            "[shardchannel [shardchannel ...]]",
            "Counts the subscribers of each shard channel.",
            "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
            "7.0.0",
        ),
    Command::new("help", 2, Group::Pubsub, pubsub_help)
        .no_group_acl()
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the PUBSUB subcommands.", "O(1)", "6.2.0"),
];

/// A subscription confirmation or notice: `[kind, name or nil, count]`, pushed.
fn notice(kind: &str, name: Option<&[u8]>, count: usize) -> Reply {
    Reply::Push(vec![
        Reply::bulk(kind.as_bytes()),
        Reply::bulk_or_nil(name),
        Reply::Integer(count as i64),
    ])
}

/// Replies with `replies`: the first is the command's reply, the others follow it.
fn reply_each(ctx: &mut Ctx<'_>, replies: Vec<Reply>) -> CmdResult {
    let mut it = replies.into_iter();
    let first = it.next().unwrap_or(Reply::NilArray);
    ctx.also_reply_all(it);
    Ok(first)
}

/// `SUBSCRIBE channel [channel ...]`: subscribes to each channel (again is harmless) and
/// confirms each with `["subscribe", channel, count]`. O(N) in the channels.
fn subscribe(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    subscribe_generic(ctx, args, Kind::Channel)
}

/// `SSUBSCRIBE shardchannel [shardchannel ...]`: SUBSCRIBE for shard channels, confirmed
/// with `["ssubscribe", channel, shard count]`. Refused inside a transaction's EXEC (`ERR
/// SSUBSCRIBE isn't allowed for a DENY BLOCKING client`), where Redis 7.0 makes an exception
/// for SUBSCRIBE and PSUBSCRIBE only.
fn ssubscribe(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if ctx.deny_blocking {
        return Err(Error::Err(
            "SSUBSCRIBE isn't allowed for a DENY BLOCKING client".into(),
        ));
    }
    subscribe_generic(ctx, args, Kind::Shard)
}

fn subscribe_generic(ctx: &mut Ctx<'_>, args: &mut Args, kind: Kind) -> CmdResult {
    let id = ctx.client.id;
    let mut replies = Vec::with_capacity(args.remaining());
    for channel in args.rest() {
        let ps = &mut ctx.srv.pubsub;
        ps.subscribe(id, &channel, kind);
        let (name, count) = match kind {
            Kind::Channel => ("subscribe", ps.count(id)),
            Kind::Shard => ("ssubscribe", ps.shard_count(id)),
        };
        replies.push(notice(name, Some(&channel), count));
    }
    reply_each(ctx, replies)
}

/// `UNSUBSCRIBE [channel ...]`: unsubscribes from the channels (all of them, in subscription
/// order, when none is named), confirming each with `["unsubscribe", channel, count]`; with
/// nothing to unsubscribe from, one `["unsubscribe", nil, count]`. O(N) in the channels.
fn unsubscribe(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    unsubscribe_generic(ctx, args, Kind::Channel)
}

/// `SUNSUBSCRIBE [shardchannel ...]`: UNSUBSCRIBE for shard channels.
fn sunsubscribe(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    unsubscribe_generic(ctx, args, Kind::Shard)
}

fn unsubscribe_generic(ctx: &mut Ctx<'_>, args: &mut Args, kind: Kind) -> CmdResult {
    let id = ctx.client.id;
    let name = match kind {
        Kind::Channel => "unsubscribe",
        Kind::Shard => "sunsubscribe",
    };
    let named = args.rest();
    let channels = if named.is_empty() {
        ctx.srv.pubsub.channels_of(id, kind)
    } else {
        named
    };
    let count = |ctx: &Ctx<'_>| match kind {
        Kind::Channel => ctx.srv.pubsub.count(id),
        Kind::Shard => ctx.srv.pubsub.shard_count(id),
    };
    if channels.is_empty() {
        return Ok(notice(name, None, count(ctx)));
    }
    let mut replies = Vec::with_capacity(channels.len());
    for channel in channels {
        ctx.srv.pubsub.unsubscribe(id, &channel, kind);
        replies.push(notice(name, Some(&channel), count(ctx)));
    }
    reply_each(ctx, replies)
}

/// `PSUBSCRIBE pattern [pattern ...]`: subscribes to every channel matching each glob
/// pattern; confirms each with `["psubscribe", pattern, count]`. O(N) in the patterns.
fn psubscribe(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let id = ctx.client.id;
    let mut replies = Vec::with_capacity(args.remaining());
    for pattern in args.rest() {
        ctx.srv.pubsub.psubscribe(id, &pattern);
        replies.push(notice(
            "psubscribe",
            Some(&pattern),
            ctx.srv.pubsub.count(id),
        ));
    }
    reply_each(ctx, replies)
}

/// `PUNSUBSCRIBE [pattern ...]`: unsubscribes from the patterns (all, in subscription order,
/// when none is named); confirms each with `["punsubscribe", pattern, count]`, or once with
/// a nil pattern when there was nothing to unsubscribe from.
fn punsubscribe(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let id = ctx.client.id;
    let named = args.rest();
    let patterns = if named.is_empty() {
        ctx.srv.pubsub.patterns_of(id)
    } else {
        named
    };
    if patterns.is_empty() {
        return Ok(notice("punsubscribe", None, ctx.srv.pubsub.count(id)));
    }
    let mut replies = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        ctx.srv.pubsub.punsubscribe(id, &pattern);
        replies.push(notice(
            "punsubscribe",
            Some(&pattern),
            ctx.srv.pubsub.count(id),
        ));
    }
    reply_each(ctx, replies)
}

/// `PUBLISH channel message`: delivers `["message", channel, message]` to the channel's
/// subscribers and `["pmessage", pattern, channel, message]` for each matching pattern
/// subscription; replies with the number of deliveries.
fn publish(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let channel = args.next_owned()?;
    let message = args.next_owned()?;
    let n = ctx.srv.publish(&channel, &message, Kind::Channel);
    Ok(Reply::Integer(n as i64))
}

/// `SPUBLISH shardchannel message`: delivers `["smessage", channel, message]` to the shard
/// channel's subscribers (patterns are not consulted); replies with their number.
fn spublish(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let channel = args.next_owned()?;
    let message = args.next_owned()?;
    let n = ctx.srv.publish(&channel, &message, Kind::Shard);
    Ok(Reply::Integer(n as i64))
}

/// `PUBSUB CHANNELS [pattern]`: the channels with at least one subscriber (pattern
/// subscriptions don't count), matching the glob if given. Redis lists them in hash-table
/// order; we list them sorted. O(N) in active channels.
fn pubsub_channels(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    list_channels(ctx, args, Kind::Channel)
}

/// `PUBSUB SHARDCHANNELS [pattern]`: PUBSUB CHANNELS for shard channels.
fn pubsub_shardchannels(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    list_channels(ctx, args, Kind::Shard)
}

fn list_channels(ctx: &mut Ctx<'_>, args: &mut Args, kind: Kind) -> CmdResult {
    if args.remaining() > 1 {
        return Err(Error::subcommand_syntax(args.argv()));
    }
    let pattern = args.rest().pop();
    let found = ctx.srv.pubsub.active_channels(pattern.as_deref(), kind);
    Ok(Reply::bulk_array(found))
}

/// `PUBSUB NUMSUB [channel ...]`: a flat array of channel, subscriber count pairs, in the
/// order asked (repeats included). O(N) in the channels named.
fn pubsub_numsub(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    count_subscribers(ctx, args, Kind::Channel)
}

/// `PUBSUB SHARDNUMSUB [shardchannel ...]`: PUBSUB NUMSUB for shard channels.
fn pubsub_shardnumsub(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    count_subscribers(ctx, args, Kind::Shard)
}

fn count_subscribers(ctx: &mut Ctx<'_>, args: &mut Args, kind: Kind) -> CmdResult {
    let mut out = Vec::new();
    for channel in args.rest() {
        let n = ctx.srv.pubsub.numsub(&channel, kind);
        out.push(Reply::Bulk(channel));
        out.push(Reply::Integer(n as i64));
    }
    Ok(Reply::Array(out))
}

/// `PUBSUB NUMPAT`: the number of distinct patterns subscribed to, by any client.
fn pubsub_numpat(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.srv.pubsub.numpat() as i64))
}

/// `PUBSUB HELP`
fn pubsub_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "PUBSUB",
        crate::help_lines![
            "CHANNELS [<pattern>]",
            "    Return the currently active channels matching a <pattern> (default: '*').",
            "NUMPAT",
            "    Return number of subscriptions to patterns.",
            "NUMSUB [<channel> ...]",
            "    Return the number of subscribers for the specified channels, excluding",
            "    pattern subscriptions(default: no channels).",
            "SHARDCHANNELS [<pattern>]",
            "    Return the currently active shard level channels matching a <pattern> (default: '*').",
            "SHARDNUMSUB [<shardchannel> ...]",
            "    Return the number of subscribers for the specified shard level channel(s)",
        ],
    ))
}

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::testing::{self, run, verbatim};
    use crate::engine::{ClientId, Engine, ManualClock, Reply};

    fn engine() -> (Engine, ManualClock, ClientId, ClientId) {
        let (mut e, clock) = testing::engine();
        let a = e.connect();
        let b = e.connect();
        (e, clock, a, b)
    }

    fn submit(e: &mut Engine, c: ClientId, line: &str) -> Vec<Reply> {
        e.submit(c, split_args(line).expect("valid line"));
        e.take_pushes(c)
    }

    fn push(items: &[&str]) -> Reply {
        Reply::Push(items.iter().map(|s| Reply::bulk(s.as_bytes())).collect())
    }

    fn notice(kind: &str, name: &str, n: i64) -> Reply {
        Reply::Push(vec![
            Reply::bulk(kind.as_bytes()),
            Reply::bulk(name.as_bytes()),
            Reply::Integer(n),
        ])
    }

    #[test]
    fn execute_returns_the_first_reply_and_queues_the_rest() {
        let (mut e, _, a, b) = engine();
        assert_eq!(run(&mut e, a, "SUBSCRIBE x y"), notice("subscribe", "x", 1));
        assert_eq!(e.clients_with_pushes(), vec![a]);
        assert_eq!(e.take_pushes(a), vec![notice("subscribe", "y", 2)]);
        assert!(e.clients_with_pushes().is_empty());
        assert_eq!(run(&mut e, b, "PUBLISH y hi"), Reply::Integer(1));
        assert_eq!(e.clients_with_pushes(), vec![a]);
        assert_eq!(e.take_pushes(a), vec![push(&["message", "y", "hi"])]);
        // RESP2 encodes pushes as arrays.
        assert_eq!(
            push(&["message", "y", "hi"]).to_resp(2),
            b"*3\r\n$7\r\nmessage\r\n$1\r\ny\r\n$2\r\nhi\r\n"
        );
    }

    #[test]
    fn submit_keeps_redis_order_for_a_resp3_client_publishing_to_itself() {
        let (mut e, _, a, _) = engine();
        submit(&mut e, a, "HELLO 3");
        assert_eq!(
            submit(&mut e, a, "SUBSCRIBE c d"),
            vec![notice("subscribe", "c", 1), notice("subscribe", "d", 2)]
        );
        // The message is written before the reply, as redis-server does.
        assert_eq!(
            submit(&mut e, a, "PUBLISH c m"),
            vec![push(&["message", "c", "m"]), Reply::Integer(1)]
        );
        // RESP3 clients may run anything while subscribed.
        assert_eq!(submit(&mut e, a, "GET k"), vec![Reply::Nil]);
        assert_eq!(submit(&mut e, a, "PING"), vec![Reply::status("PONG")]);
        // CLIENT REPLY OFF silences replies, not pushes.
        assert!(submit(&mut e, a, "CLIENT REPLY OFF").is_empty());
        assert_eq!(
            submit(&mut e, a, "PUBLISH c m2"),
            vec![push(&["message", "c", "m2"])]
        );
    }

    #[test]
    fn messages_wait_in_order_for_the_host() {
        let (mut e, _, a, b) = engine();
        submit(&mut e, a, "PSUBSCRIBE n*");
        submit(&mut e, a, "SUBSCRIBE news");
        for i in 0..3 {
            submit(&mut e, b, &format!("PUBLISH news m{i}"));
        }
        let got = e.take_pushes(a);
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], push(&["message", "news", "m0"]));
        assert_eq!(got[1], push(&["pmessage", "n*", "news", "m0"]));
        assert_eq!(got[5], push(&["pmessage", "n*", "news", "m2"]));
    }

    #[test]
    fn a_subscriber_over_its_output_limit_is_closed_and_forgotten_by_delivery() {
        let (mut e, clock, a, b) = engine();
        run(
            &mut e,
            b,
            "CONFIG SET client-output-buffer-limit \"pubsub 1000 500 2\"",
        );
        submit(&mut e, a, "SUBSCRIBE c");
        let big = "x".repeat(300);
        // Under the soft limit: fine, however long.
        submit(&mut e, b, &format!("PUBLISH c {big}"));
        clock.advance_ms(10_000);
        submit(&mut e, b, "PUBLISH c small");
        assert!(!e.client(a).is_some_and(|c| c.close_asap));
        e.take_pushes(a);
        // Over the soft limit for longer than 2 seconds: closed.
        submit(&mut e, b, &format!("PUBLISH c {big}"));
        submit(&mut e, b, &format!("PUBLISH c {big}"));
        clock.advance_ms(2_000);
        submit(&mut e, b, "PUBLISH c small");
        assert!(!e.client(a).is_some_and(|c| c.close_asap));
        clock.advance_ms(1_000);
        submit(&mut e, b, "PUBLISH c small");
        assert!(e.client(a).is_some_and(|c| c.close_asap));
        assert_eq!(e.clients_with_pushes(), vec![a]);
        assert!(e.take_pushes(a).is_empty(), "the queue is dropped");
        // Still counted as a receiver until the host disconnects it, as in Redis.
        assert_eq!(run(&mut e, b, "PUBLISH c more"), Reply::Integer(1));
        assert!(e.take_pushes(a).is_empty());
        e.disconnect(a);
        assert_eq!(run(&mut e, b, "PUBLISH c more"), Reply::Integer(0));
        assert!(e.clients_with_pushes().is_empty());
    }

    #[test]
    fn the_hard_limit_closes_at_once_and_normal_clients_are_unbounded() {
        let (mut e, _, a, b) = engine();
        run(
            &mut e,
            b,
            "CONFIG SET client-output-buffer-limit \"pubsub 1000 0 0\"",
        );
        submit(&mut e, a, "SUBSCRIBE c");
        let big = "x".repeat(600);
        submit(&mut e, b, &format!("PUBLISH c {big}"));
        assert!(!e.client(a).is_some_and(|c| c.close_asap));
        submit(&mut e, b, &format!("PUBLISH c {big}"));
        assert!(e.client(a).is_some_and(|c| c.close_asap));
        // A client without subscriptions falls in the `normal` class (no limit by
        // default): a big reply queued by submit does not close it.
        submit(&mut e, b, &format!("SET k {}", "y".repeat(5000)));
        e.submit(b, split_args("GET k").unwrap());
        assert!(!e.client(b).is_some_and(|c| c.close_asap));
        assert_eq!(e.take_pushes(b).len(), 1);
    }

    #[test]
    fn client_list_shows_subscriptions_and_transactions() {
        let (mut e, _, a, b) = engine();
        let c = e.connect();
        run(&mut e, a, "SUBSCRIBE x y");
        run(&mut e, a, "PSUBSCRIBE p*");
        run(&mut e, a, "SSUBSCRIBE s");
        run(&mut e, b, "WATCH k");
        run(&mut e, c, "SET k 1");
        run(&mut e, b, "MULTI");
        run(&mut e, b, "SET a 1");
        let list = verbatim(&mut e, c, "CLIENT LIST");
        let lines: Vec<&str> = list.lines().collect();
        assert!(lines[0].contains(" flags=P db=0 sub=2 psub=1 ssub=1 multi=-1 "));
        // A doomed transaction queues nothing, as Redis (multi=0).
        assert!(lines[1].contains(" flags=xd db=0 sub=0 psub=0 ssub=0 multi=0 "));
        assert!(lines[1].contains(" cmd=set "));
        assert!(lines[2].contains(" flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 "));
        assert_eq!(
            verbatim(&mut e, c, "CLIENT LIST TYPE pubsub")
                .lines()
                .count(),
            1
        );
        assert_eq!(
            verbatim(&mut e, c, "CLIENT LIST TYPE normal")
                .lines()
                .count(),
            2
        );
    }

    #[test]
    fn disconnect_drops_every_subscription() {
        let (mut e, _, a, b) = engine();
        run(&mut e, a, "SUBSCRIBE c d");
        run(&mut e, a, "PSUBSCRIBE p*");
        run(&mut e, a, "SSUBSCRIBE s");
        run(&mut e, b, "SUBSCRIBE c");
        e.disconnect(a);
        let ps = &e.server().pubsub;
        assert_eq!(ps.client_count(), 1);
        assert_eq!(ps.numpat(), 0);
        assert_eq!(ps.numsub(b"c", crate::engine::pubsub::Kind::Channel), 1);
        assert_eq!(ps.numsub(b"d", crate::engine::pubsub::Kind::Channel), 0);
        assert_eq!(ps.numsub(b"s", crate::engine::pubsub::Kind::Shard), 0);
        assert!(e.server().outboxes.is_empty(a));
    }

    #[test]
    fn keyspace_events_reach_the_writer_too() {
        let (mut e, clock, a, _) = engine();
        submit(&mut e, a, "CONFIG SET notify-keyspace-events KEA");
        submit(&mut e, a, "HELLO 3");
        submit(&mut e, a, "SUBSCRIBE __keyevent@0__:set");
        assert_eq!(
            submit(&mut e, a, "SET k v"),
            vec![push(&["message", "__keyevent@0__:set", "k"]), Reply::ok()]
        );
        // Expiry from the active cycle is published too (no client is running).
        submit(&mut e, a, "SUBSCRIBE __keyevent@0__:expired");
        submit(&mut e, a, "SET t v PX 1");
        clock.advance_ms(5);
        assert_eq!(e.tick(), 1);
        assert_eq!(e.clients_with_pushes(), vec![a]);
        assert_eq!(
            e.take_pushes(a),
            vec![push(&["message", "__keyevent@0__:expired", "t"])]
        );
    }
}
