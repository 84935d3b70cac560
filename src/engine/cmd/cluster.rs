//! The `CLUSTER` command, as a one-node cluster that owns every slot answers it, and the
//! connection's cluster flags: `READONLY`, `READWRITE`, `ASKING`.
//!
//! Only with `cluster-enabled yes` (see [`cluster`]); otherwise, as
//! in Redis, every subcommand fails with `ERR This instance has cluster support disabled`.
//! The subcommands a learner uses to see how keys spread are here — `KEYSLOT`,
//! `COUNTKEYSINSLOT`, `GETKEYSINSLOT`, `INFO`, `MYID` and `HELP`; those that manage nodes and slots (`MEET`, `ADDSLOTS`, `SETSLOT`, …)
//! have nothing to act on in a one-node playground and are not offered.

use crate::engine::args::Args;
use crate::engine::cluster;
use crate::engine::cmd::connection::help_reply;
use crate::engine::error::{CmdResult, Error};
use crate::engine::reply::Reply;
use crate::engine::table::{Command, Flags, Group};
use crate::engine::Ctx;

/// The group's rows of the command table.
pub const COMMANDS: &[Command] =
    &[
        Command::container("cluster", Group::Cluster, CLUSTER_SUBCOMMANDS).doc(
            "subcommand [arguments]",
            "Inspects the cluster: hash slots of keys, cluster state, node id.",
            "Depends on subcommand.",
            "3.0.0",
        ),
        Command::new("readonly", 1, Group::Cluster, readonly)
            .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
            .acl(&["connection"])
            .doc(
                "",
                "Lets this connection read from a replica node of a cluster (flag `r` in CLIENT LIST; this one node is a master, so reads are served as before).",
                "O(1)",
                "3.0.0",
            ),
        Command::new("readwrite", 1, Group::Cluster, readwrite)
            .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
            .acl(&["connection"])
            .doc(
                "",
                "Ends READONLY for this connection.",
                "O(1)",
                "3.0.0",
            ),
        Command::new("asking", 1, Group::Cluster, asking)
            .flags(Flags::FAST)
            .acl(&["connection"])
            .doc(
                "",
                "Marks the next command as following an ASK redirection (there are none with one node).",
                "O(1)",
                "3.0.0",
            ),
    ];

const CLUSTER_SUBCOMMANDS: &[Command] = &[
    Command::new("countkeysinslot", 3, Group::Cluster, cluster_countkeysinslot)
        .flags(Flags::STALE)
        .doc(
            "slot",
            "Counts the keys of this node that hash to a slot.",
            "O(1)",
            "3.0.0",
        ),
    Command::new("getkeysinslot", 4, Group::Cluster, cluster_getkeysinslot)
        .flags(Flags::STALE)
        .tips(&["nondeterministic_output"])
        .doc(
            "slot count",
            "Lists up to count keys of this node that hash to a slot, most recently added first.",
            "O(log(N)) where N is the number of requested keys",
            "3.0.0",
        ),
    Command::new("help", 2, Group::Cluster, cluster_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Shows what CLUSTER can do.", "O(1)", "5.0.0"),
    Command::new("info", 2, Group::Cluster, cluster_info)
        .tips(&["nondeterministic_output"])
        .flags(Flags::STALE)
        .doc(
            "",
            "Reports the state of the cluster: slots assigned, nodes, epochs.",
            "O(1)",
            "3.0.0",
        ),
    Command::new("keyslot", 3, Group::Cluster, cluster_keyslot)
        .flags(Flags::STALE)
        .doc(
            "key",
            "Replies with the hash slot (0-16383) a key belongs to: CRC16 of the key, or of its {hash tag}, modulo 16384.",
            "O(N) where N is the number of bytes in the key",
            "3.0.0",
        ),
    Command::new("myid", 2, Group::Cluster, cluster_myid)
        .flags(Flags::STALE)
        .doc("", "Replies with this node's id.", "O(1)", "3.0.0"),
    Command::new("reset", -2, Group::Cluster, cluster_reset)
        .flags(Flags::ADMIN.union(Flags::NOSCRIPT).union(Flags::STALE))
        .doc(
            "[HARD | SOFT]",
            "Resets the node's cluster state; refused while it holds keys.",
            "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect.",
            "3.0.0",
        ),
];

/// `CLUSTER RESET [HARD | SOFT]`: refused while this (master) node holds keys, as Redis
/// refuses it. With none, a one-node cluster has nothing to forget: it keeps its id and,
/// being the whole cluster, takes every slot back at once.
fn cluster_reset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    let rest = args.rest();
    match rest.as_slice() {
        [] => {}
        [m] if m.eq_ignore_ascii_case(b"hard") || m.eq_ignore_ascii_case(b"soft") => {}
        _ => return Err(Error::Syntax),
    }
    if ctx.srv.dbs.iter().any(|db| !db.is_empty()) {
        return Err(Error::Err(
            "CLUSTER RESET can't be called with master nodes containing keys".into(),
        ));
    }
    Ok(Reply::ok())
}

/// Fails unless the engine runs in cluster mode.
fn require_cluster(ctx: &Ctx<'_>) -> Result<(), Error> {
    if ctx.srv.config.cluster_enabled() {
        Ok(())
    } else {
        Err(Error::ClusterDisabled)
    }
}

/// `READONLY`: sets the connection's read-only flag (cluster mode only).
fn readonly(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    ctx.client.readonly = true;
    Ok(Reply::ok())
}

/// `READWRITE`: clears the connection's read-only flag (cluster mode only).
fn readwrite(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    ctx.client.readonly = false;
    Ok(Reply::ok())
}

/// `ASKING`: answers OK in cluster mode. It would let the next command reach a slot being
/// imported; a one-node cluster never migrates slots, so there is nothing to remember.
fn asking(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    Ok(Reply::ok())
}

/// `CLUSTER HELP`: the subcommands offered, in Redis's help format.
fn cluster_help(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    Ok(help_reply(
        "CLUSTER",
        crate::help_lines![
            "COUNTKEYSINSLOT <slot>",
            "    Return the number of keys in <slot>.",
            "GETKEYSINSLOT <slot> <count>",
            "    Return key names stored by current node in a slot.",
            "INFO",
            "    Return information about the cluster.",
            "KEYSLOT <key>",
            "    Return the hash slot for <key>.",
            "MYID",
            "    Return the node id.",
        ],
    ))
}

/// `CLUSTER INFO`: a healthy one-node cluster owning all 16,384 slots, in Redis's fields.
fn cluster_info(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    let slots = cluster::SLOTS;
    let text = format!(
        "cluster_state:ok\r\ncluster_slots_assigned:{slots}\r\ncluster_slots_ok:{slots}\r\n\
         cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:1\r\n\
         cluster_size:1\r\ncluster_current_epoch:0\r\ncluster_my_epoch:0\r\n\
         cluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n\
         total_cluster_links_buffer_limit_exceeded:0\r\n"
    );
    Ok(Reply::Verbatim(*b"txt", text.into_bytes()))
}

/// `CLUSTER KEYSLOT key`: the key's hash slot.
fn cluster_keyslot(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    let key = args.next_bytes()?;
    Ok(Reply::Integer(i64::from(cluster::key_slot(key))))
}

/// `CLUSTER COUNTKEYSINSLOT slot`: how many keys hash to `slot` (`ERR Invalid slot` outside
/// 0–16383).
fn cluster_countkeysinslot(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    let slot = args.next_i64()?;
    let slot = u16::try_from(slot)
        .ok()
        .filter(|&s| s < cluster::SLOTS)
        .ok_or_else(|| Error::Err("Invalid slot".into()))?;
    let n = ctx.db().count_keys_in_slot(slot).unwrap_or(0);
    Ok(Reply::Integer(n as i64))
}

/// `CLUSTER GETKEYSINSLOT slot count`: up to `count` keys hashing to `slot`, most recently
/// added first, as Redis walks its per-slot key list.
fn cluster_getkeysinslot(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    let slot = args.next_i64()?;
    let count = args.next_i64()?;
    let slot = u16::try_from(slot)
        .ok()
        .filter(|&s| s < cluster::SLOTS && count >= 0)
        .ok_or_else(|| Error::Err("Invalid slot or number of keys".into()))?;
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let keys = ctx.db().keys_in_slot(slot, count).unwrap_or_default();
    Ok(Reply::Array(keys.into_iter().map(Reply::bulk).collect()))
}

/// `CLUSTER MYID`: the node id (Redis makes one up at start; kvlab uses its run id).
fn cluster_myid(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    require_cluster(ctx)?;
    Ok(Reply::bulk(ctx.srv.run_id.as_bytes()))
}

#[cfg(test)]
mod tests {
    use crate::engine::{Engine, ManualClock, Reply};

    fn run(e: &mut Engine, c: crate::engine::ClientId, line: &[&str]) -> Reply {
        e.execute(c, line.iter().map(|a| a.as_bytes().to_vec()).collect())
    }

    #[test]
    fn info_reports_cluster_mode() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let c = e.connect();
        let text = |r: Reply| match r {
            Reply::Verbatim(_, t) | Reply::Bulk(t) => String::from_utf8(t).unwrap_or_default(),
            other => panic!("unexpected {other:?}"),
        };
        assert!(text(run(&mut e, c, &["INFO", "cluster"])).contains("cluster_enabled:0\r\n"));
        e.configure("cluster-enabled", "yes").unwrap();
        assert!(e.cluster_enabled());
        assert!(text(run(&mut e, c, &["INFO", "cluster"])).contains("cluster_enabled:1\r\n"));
        let id = run(&mut e, c, &["CLUSTER", "MYID"]);
        assert!(matches!(id, Reply::Bulk(ref b) if b.len() == 40));
    }

    #[test]
    fn readonly_sets_the_client_flag_until_readwrite_or_reset() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        e.configure("cluster-enabled", "yes").unwrap();
        let c = e.connect();
        let flags = |e: &mut Engine| match run(e, c, &["CLIENT", "INFO"]) {
            Reply::Bulk(b) | Reply::Verbatim(_, b) => String::from_utf8(b)
                .unwrap_or_default()
                .split(' ')
                .find_map(|f| f.strip_prefix("flags=").map(str::to_string))
                .unwrap_or_default(),
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(flags(&mut e), "N");
        assert_eq!(run(&mut e, c, &["READONLY"]), Reply::ok());
        assert_eq!(flags(&mut e), "r");
        assert_eq!(run(&mut e, c, &["READWRITE"]), Reply::ok());
        assert_eq!(flags(&mut e), "N");
        run(&mut e, c, &["READONLY"]);
        run(&mut e, c, &["RESET"]);
        assert_eq!(flags(&mut e), "N");
        assert_eq!(run(&mut e, c, &["ASKING"]), Reply::ok());
    }

    #[test]
    fn slots_are_indexed_when_cluster_mode_starts_on_existing_data() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let c = e.connect();
        run(&mut e, c, &["MSET", "{t}a", "1", "{t}b", "2", "x", "3"]);
        e.configure("cluster-enabled", "yes").unwrap();
        assert_eq!(
            run(&mut e, c, &["CLUSTER", "COUNTKEYSINSLOT", "15891"]),
            Reply::Integer(2)
        );
        run(&mut e, c, &["DEL", "{t}a"]);
        assert_eq!(
            run(&mut e, c, &["CLUSTER", "GETKEYSINSLOT", "15891", "5"]),
            Reply::Array(vec![Reply::bulk(b"{t}b")])
        );
        e.configure("cluster-enabled", "no").unwrap();
        e.configure("cluster-enabled", "yes").unwrap();
        assert_eq!(
            run(&mut e, c, &["CLUSTER", "COUNTKEYSINSLOT", "15891"]),
            Reply::Integer(1)
        );
    }

    #[test]
    fn configure_refuses_bad_values_and_unknown_names() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        assert!(e.configure("cluster-enabled", "maybe").is_err());
        assert!(e.configure("no-such-thing", "1").is_err());
        assert!(!e.cluster_enabled());
    }
}
