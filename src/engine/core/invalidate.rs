//! Client-side caching, the server's side (Redis's `tracking.c` acting on
//! [`crate::engine::tracking`]): the keys a read-only command read are remembered for its
//! client, a modified key's readers are sent an invalidation, a flush tells every tracking
//! client to drop everything, and the `BCAST` prefixes are broadcast after each command.
//!
//! # The messages
//! A RESP3 client is sent the push `invalidate [key …]` (a flush: `invalidate` with a
//! null). A client that redirects (`REDIRECT id`) has it sent to that client instead: as
//! the same push when that one speaks RESP3, or as a pub/sub message on
//! `__redis__:invalidate` when it speaks RESP2 and has a subscription (any); otherwise
//! nothing. A RESP2 client without redirection cannot be sent anything, but its keys are
//! forgotten all the same. When the redirection client is gone, the tracking client is
//! flagged (`broken_redirect`) and, in RESP3, sent `tracking-redir-broken <id>`. Messages
//! go through the outboxes like every push, so `CLIENT REPLY OFF` does not hold them
//! back.

use crate::engine::keyspace::Key;
use crate::engine::reply::Reply;
use crate::engine::table::Flags;
use crate::engine::tracking;

use super::client::{Client, ClientId};
use super::ctx::Command;
use super::server::Server;

impl Server {
    /// Redis's `trackingInvalidateKey`: `key` was modified, by `writer` (0: the server,
    /// expiring or evicting it). It is noted for the `BCAST` prefixes it starts with when
    /// `bcast`, and every client that may have cached it is told — at once, or after its
    /// reply if it is the client running the command — except a `NOLOOP` client about its
    /// own command's write. **O(1)** when nobody read the key.
    pub fn invalidate_key(&mut self, key: &[u8], writer: ClientId, bcast: bool) {
        if bcast && self.tracking.prefix_count() > 0 {
            self.tracking.note_for_broadcast(key, writer);
        }
        let Some(readers) = self.tracking.take_readers(key) else {
            return;
        };
        let current = self.tracking.current();
        for id in readers {
            let Some(t) = self.tracking.get(id) else {
                continue;
            };
            if t.options.bcast || (t.options.noloop && id == current) {
                continue;
            }
            if id == current && self.tracking.in_call() {
                self.tracking.hold(Some(key.to_vec()));
            } else {
                self.send_invalidation(id, Some(vec![key.to_vec()]));
            }
        }
    }

    /// Sends client `id` an invalidation of `keys` (`None`: a flush), wherever its
    /// tracking says (Redis's `sendTrackingMessage`).
    pub fn send_invalidation(&mut self, id: ClientId, keys: Option<Vec<Key>>) {
        if let Some((to, msg)) = self.invalidation_for(id, keys) {
            self.send(to, msg);
        }
    }

    /// The message an invalidation of `keys` for `id` becomes and the client it goes to,
    /// if any (see the module documentation). A broken redirection is flagged here.
    pub fn invalidation_for(
        &mut self,
        id: ClientId,
        keys: Option<Vec<Key>>,
    ) -> Option<(ClientId, Reply)> {
        let own = self.tracking.proto(id)?;
        let redirect = self.tracking.get(id).map_or(0, |t| t.options.redirect);
        let payload = match keys {
            Some(keys) => Reply::Array(keys.into_iter().map(Reply::Bulk).collect()),
            None => Reply::Nil,
        };
        if redirect == 0 {
            return (own > 2).then(|| (id, Reply::Push(vec![Reply::bulk(b"invalidate"), payload])));
        }
        let Some(proto) = self.tracking.proto(redirect) else {
            if let Some(t) = self.tracking.get_mut(id) {
                t.broken_redirect = true;
            }
            return (own > 2).then(|| {
                (
                    id,
                    Reply::Push(vec![
                        Reply::bulk(b"tracking-redir-broken"),
                        Reply::Integer(redirect as i64),
                    ]),
                )
            });
        };
        if proto > 2 {
            Some((
                redirect,
                Reply::Push(vec![Reply::bulk(b"invalidate"), payload]),
            ))
        } else if self.pubsub.total(redirect) > 0 {
            Some((
                redirect,
                Reply::Push(vec![
                    Reply::bulk(b"message"),
                    Reply::bulk(tracking::CHANNEL),
                    payload,
                ]),
            ))
        } else {
            None
        }
    }

    /// Redis's `trackingInvalidateKeysOnFlush`, for `FLUSHALL` and `FLUSHDB`: every tracking
    /// client is told to drop everything (the client running the command after its reply),
    /// and the table is emptied. **O(tracking clients).**
    pub fn invalidate_on_flush(&mut self) {
        let current = self.tracking.current();
        for id in self.tracking.tracking_clients() {
            if id == current {
                self.tracking.hold(None);
            } else {
                self.send_invalidation(id, None);
            }
        }
        self.tracking.clear_table();
    }

    /// Redis's `trackingRememberKeys`, after a read-only command `cmd` with `argv` run by
    /// `client`: its keys are remembered for it. A command a script called remembers, for
    /// the script's caller, the keys the script's command declares; `EVAL_RO` and its
    /// kind, and pub/sub commands, remember nothing themselves.
    pub fn remember_read(&mut self, client: &Client, cmd: &Command, argv: &[Vec<u8>]) {
        if client.script {
            if let Some((caller, keys)) = self.tracking.script().cloned() {
                self.tracking
                    .remember(caller, keys.iter().map(Vec::as_slice));
            }
            return;
        }
        if cmd.group == crate::engine::table::Group::Scripting
            || cmd.flags.contains(Flags::PUBSUB)
            || self.tracking.get(client.id).is_none()
        {
            return;
        }
        let Some(positions) = cmd.key_indexes(argv) else {
            return;
        };
        let keys = positions
            .iter()
            .filter_map(|&i| argv.get(i).map(Vec::as_slice));
        self.tracking.remember(client.id, keys);
    }

    /// The invalidations held for `current`, the client whose command just ended (see
    /// [`crate::engine::tracking::Tracking::hold`]), as messages to send after its reply:
    /// those that go to it, in order; those redirected elsewhere are sent now.
    pub fn take_held_invalidations(&mut self, current: ClientId) -> Vec<Reply> {
        let held = self.tracking.take_held(current);
        let mut mine = Vec::new();
        for key in held {
            match self.invalidation_for(current, key.map(|k| vec![k])) {
                Some((to, msg)) if to == current => mine.push(msg),
                Some((to, msg)) => {
                    self.send(to, msg);
                }
                None => {}
            }
        }
        mine
    }

    /// Redis's `trackingBroadcastInvalidationMessages`: the keys each `BCAST` prefix
    /// collected go to its listeners. Runs after every command and tick.
    pub fn broadcast_invalidations(&mut self) {
        if !self.tracking.has_broadcasts() {
            return;
        }
        for (id, keys) in self.tracking.take_broadcasts() {
            self.send_invalidation(id, Some(keys));
        }
    }

    /// Redis's `trackingLimitUsedSlots`: while the table holds more keys than
    /// `tracking-table-max-keys` (0: no limit), random keys are invalidated, up to 100
    /// per consecutive time the table was found over the limit. Runs before each command
    /// and on each tick.
    pub fn limit_tracking_table(&mut self) {
        let max = self
            .config
            .get("tracking-table-max-keys")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        if max == 0 {
            return;
        }
        if self.tracking.key_count() <= max {
            self.tracking.note_limit(true);
            return;
        }
        let mut effort = 100 * (u64::from(self.tracking.over_limit_runs()) + 1);
        while effort > 0 {
            effort -= 1;
            let rng = &mut self.rng;
            let Some(key) = self.tracking.random_key(|n| rng.usize(0..n)) else {
                break;
            };
            self.invalidate_key(&key, 0, false);
            if self.tracking.key_count() <= max {
                self.tracking.note_limit(true);
                return;
            }
        }
        self.tracking.note_limit(false);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::cli::format_replies;
    use crate::engine::testing::{cli, connected_at, run, T0};
    use crate::engine::{Engine, Reply};

    fn pushes(e: &mut Engine, id: u64) -> String {
        let proto = e.client(id).map_or(2, |c| c.proto);
        let sent = e.take_pushes(id);
        format_replies(&sent, proto)
    }

    #[test]
    fn a_gone_redirection_is_flagged_and_told_in_resp3() {
        let (mut e, a) = connected_at(T0);
        let b = e.connect();
        let c = e.connect();
        run(&mut e, a, "HELLO 3");
        run(&mut e, a, &format!("CLIENT TRACKING on REDIRECT {b}"));
        run(&mut e, a, "GET k");
        e.disconnect(b);
        run(&mut e, c, "SET k 1");
        assert_eq!(
            pushes(&mut e, a),
            format!("1) \"tracking-redir-broken\"\n2) (integer) {b}")
        );
        let info = cli(&mut e, a, "CLIENT TRACKINGINFO");
        assert!(info.contains("broken_redirect"), "{info}");
        let line = cli(&mut e, a, "CLIENT INFO");
        assert!(
            line.contains(" flags=tR ") && line.contains(&format!(" redir={b} ")),
            "{line}"
        );
        assert_eq!(run(&mut e, a, "CLIENT GETREDIR"), Reply::Integer(b as i64));
    }

    #[test]
    fn client_list_shows_tracking_flags_and_redirection() {
        let (mut e, a) = connected_at(T0);
        run(&mut e, a, "CLIENT TRACKING on BCAST PREFIX x");
        let line = cli(&mut e, a, "CLIENT INFO");
        assert!(
            line.contains(" flags=tB ") && line.contains(" redir=0 "),
            "{line}"
        );
        run(&mut e, a, "RESET");
        let line = cli(&mut e, a, "CLIENT INFO");
        assert!(
            line.contains(" flags=N ") && line.contains(" redir=-1 "),
            "{line}"
        );
        assert_eq!(e.server().tracking.prefix_count(), 0);
    }

    #[test]
    fn the_table_is_kept_under_tracking_table_max_keys() {
        let (mut e, a) = connected_at(T0);
        let b = e.connect();
        run(&mut e, a, "HELLO 3");
        run(&mut e, a, "CLIENT TRACKING on");
        for i in 0..250 {
            run(&mut e, a, &format!("GET key{i}"));
        }
        assert_eq!(e.server().tracking.key_count(), 250);
        run(&mut e, b, "CONFIG SET tracking-table-max-keys 10");
        // The next command (of anyone) or tick evicts: 100, then 200 at the next try.
        run(&mut e, b, "PING");
        assert_eq!(e.server().tracking.key_count(), 150);
        e.tick();
        assert_eq!(e.server().tracking.key_count(), 10);
        let sent = e.take_pushes(a);
        assert_eq!(sent.len(), 240);
        assert!(sent.iter().all(|r| matches!(r, Reply::Push(_))));
    }

    #[test]
    fn a_served_blocked_client_is_told_after_its_reply() {
        let (mut e, a) = connected_at(T0);
        let b = e.connect();
        run(&mut e, a, "HELLO 3");
        run(&mut e, b, "RPUSH dst x");
        run(&mut e, a, "CLIENT TRACKING on");
        run(&mut e, a, "LRANGE dst 0 -1");
        e.submit(
            a,
            vec![
                b"BLMOVE".to_vec(),
                b"src".to_vec(),
                b"dst".to_vec(),
                b"LEFT".to_vec(),
                b"LEFT".to_vec(),
                b"0".to_vec(),
            ],
        );
        run(&mut e, b, "RPUSH src foo");
        assert_eq!(pushes(&mut e, a), "\"foo\"\n-> invalidate: 'dst'");
    }

    #[test]
    fn nobody_tracking_leaves_nothing_behind() {
        let (mut e, a) = connected_at(T0);
        run(&mut e, a, "CLIENT TRACKING on");
        run(&mut e, a, "GET k");
        run(&mut e, a, "CLIENT TRACKING off");
        assert!(e.server().tracking.active());
        run(&mut e, a, "SET k 1");
        assert!(!e.server().tracking.active());
        assert_eq!(e.server().tracking.item_count(), 0);
        assert!(e.take_pushes(a).is_empty());
    }
}
