//! Running a line in a pane as redis-cli does, and taking in what a command or a tick did:
//! other clients' output, the key index and the value view.

use super::model::{Command, State};
use super::pane::{Entry, PaneId};
use crate::app::console;
use crate::app::engine::Outcome;
use crate::engine::cli::{
    format_reply_for, format_reply_raw, has_utf8_text, split_args, INVALID_ARGUMENTS,
};
use crate::engine::inspect;
use crate::engine::{ClientId, Effect, Reply};
use crate::tabs::Msg;

impl State {
    /// Runs `line` in pane `id` as redis-cli would and shows the result there.
    pub(super) fn run(&mut self, id: PaneId, line: String) {
        let Some(client) = self.pane(id).map(|p| p.client) else {
            return;
        };
        self.ws.active = id;
        let debug = std::mem::take(&mut self.debug_next);
        self.remember(&line);
        let prompt = self.prompt(client);
        let trimmed = line.trim();
        // `clear` and `help` are redis-cli built-ins, not server commands.
        if trimmed.eq_ignore_ascii_case("clear") {
            if let Some(p) = self.pane_mut(id) {
                p.clear();
            }
            return;
        }
        let argv = split_args(&line);
        if let Some(words) = argv
            .as_ref()
            .filter(|a| a.first().is_some_and(|w| w.eq_ignore_ascii_case(b"help")))
        {
            let args = words.get(1..).unwrap_or(&[]).to_vec();
            let output = console::help(&args, self.lang, self.help_zh.as_deref());
            let waiting = !self.help_complete() && !args.is_empty();
            if let Some(p) = self.pane_mut(id) {
                p.push(Entry::Command {
                    prompt,
                    line,
                    output: Some(output),
                    error: false,
                });
                let at = p.log_base + p.log.len() as u64 - 1;
                if waiting {
                    self.help_waiting.push((id, at, args));
                }
            }
            return;
        }
        let mut later: Vec<Entry> = Vec::new();
        let (output, error, outcome) = match argv {
            None => (Some(INVALID_ARGUMENTS.to_string()), true, None),
            Some(argv) if argv.is_empty() => (None, false, None),
            Some(argv) if self.tabs.follower() => {
                // The leader tab runs it; the reply fills this block in (`Action::Remote`).
                self.next_req += 1;
                let req = self.next_req;
                let sent = self.forward(id, req, argv);
                let lang = self.lang;
                if let Some(p) = self.pane_mut(id) {
                    p.push(Entry::Command {
                        prompt,
                        line,
                        output: (!sent).then(|| lang.tabs().not_connected.to_string()),
                        error: !sent,
                    });
                    if sent {
                        let abs = p.log_base + p.log.len() as u64 - 1;
                        p.waiting.push((req, abs));
                    }
                }
                return;
            }
            Some(argv) => {
                let venn_keys = venn_request(&argv);
                let outcome = if debug {
                    self.ws.engine.debug_eval(client, argv)
                } else {
                    self.ws.engine.submit(client, argv)
                };
                let proto = self
                    .ws
                    .engine
                    .read(|e| e.client(client).map_or(2, |c| c.proto));
                // Invalidations of its own cache come after the reply: shown apart, below it.
                let (invalidations, replies): (Vec<&Reply>, Vec<&Reply>) = outcome
                    .output_of(client)
                    .partition(|r| invalidation(r).is_some());
                later = invalidations
                    .iter()
                    .map(|r| invalidation_entry(r, proto, raw_of(self.pane(id))))
                    .collect();
                let error = matches!(replies.first(), Some(Reply::Error(_)));
                let raw = raw_of(self.pane(id));
                let text = (!replies.is_empty()).then(|| {
                    replies
                        .iter()
                        .map(|r| reply_text(r, proto, raw))
                        .collect::<Vec<_>>()
                        .join("\n")
                });
                let escaped = !raw && replies.iter().any(|r| has_utf8_text(r));
                if let Some(p) = self.pane_mut(id) {
                    p.escaped_text = escaped;
                }
                if let (Some((op, keys)), Some(Reply::Array(items) | Reply::Set(items))) =
                    (venn_keys, replies.first())
                {
                    self.venn = self.make_venn(client, op, keys, items);
                }
                (text, error, Some(outcome))
            }
        };
        if let Some(p) = self.pane_mut(id) {
            p.push(Entry::Command {
                prompt,
                line,
                output,
                error,
            });
            for e in later {
                p.push(e);
            }
        }
        if let Some(outcome) = outcome {
            self.absorb(outcome, Some(client));
        }
        self.sync_db();
    }

    /// Shows what other clients were sent, and brings the key index and value view up to
    /// date with the effects.
    pub(super) fn absorb(&mut self, outcome: Outcome, except: Option<ClientId>) {
        for (client, replies) in &outcome.output {
            if Some(*client) == except {
                continue;
            }
            let remote = self.ws.remote.borrow().by_client.get(client).copied();
            if let Some((tab, pane)) = remote {
                // A follower tab's pane: its later output goes there.
                let lines = self.render(*client, replies.iter());
                self.out.push(Command::PostCommitted(Msg::Reply {
                    leader: self.tabs.me,
                    to: tab,
                    pane,
                    req: 0,
                    lines,
                    session: self.session_of(*client),
                }));
                continue;
            }
            let proto = self
                .ws
                .engine
                .read(|e| e.client(*client).map_or(2, |c| c.proto));
            if let Some(p) = self.ws.panes.iter_mut().find(|p| p.client == *client) {
                for r in replies {
                    if invalidation(r).is_some() {
                        p.push(invalidation_entry(r, proto, p.raw));
                        continue;
                    }
                    p.push(Entry::Late {
                        output: reply_text(r, proto, p.raw),
                        error: matches!(r, Reply::Error(_)),
                    });
                }
            }
        }
        if outcome.effects.is_empty() {
            return;
        }
        let db = self.ws.index_db;
        // Keys changed in the shown database, and the command that changed the viewed key.
        let mut full = false;
        let mut touched: Vec<&[u8]> = Vec::new();
        let mut touched_view = None;
        for effect in &outcome.effects {
            match inspect::touched_keys(effect) {
                None => full = true,
                Some(keys) if effect.db == db => {
                    for k in keys {
                        if self.view.as_ref().is_some_and(|v| v.key == k) {
                            touched_view = self.change_of(effect, k, &outcome.dropped);
                        }
                        touched.push(k);
                    }
                }
                Some(_) => {}
            }
        }
        // Past a few thousand keys (a big MSET), one re-read beats as many insertions.
        full |= touched.len() > 4096;
        if !full {
            let mut index = self.ws.index.borrow_mut();
            self.ws.engine.read(|e| {
                if let Some(d) = e.server().dbs.get(db) {
                    for k in &touched {
                        index.update(d, k);
                    }
                }
            });
        }
        if full {
            self.rebuild_index();
            touched_view = Some(String::new());
        } else {
            self.refresh_rows();
        }
        if let Some(cmd) = touched_view {
            self.refresh_view((!cmd.is_empty()).then_some(cmd));
        }
    }

    /// What to tell the learner changed the viewed key `key` in `effect`: the command
    /// (`LPUSH`), or `expired`/`evicted` when the server removed it on its own. Such a
    /// removal is replayed as a `DEL` nobody typed; `dropped` names them (a follower tab,
    /// which receives only the `DEL`, knows an expiry by the deadline the key had passed).
    pub(super) fn change_of(
        &self,
        effect: &Effect,
        key: &[u8],
        dropped: &[(usize, Vec<u8>, &'static str)],
    ) -> Option<String> {
        let name = String::from_utf8_lossy(effect.argv.first()?).to_ascii_uppercase();
        if name == "DEL" {
            if let Some((_, _, event)) = dropped
                .iter()
                .find(|(db, k, _)| *db == effect.db && k == key)
            {
                return Some(event.to_string());
            }
            let now = self.ws.engine.read(|e| e.server().clock.now_ms());
            let deadline = self.view.as_ref().and_then(|v| v.meta?.expire_at);
            if deadline.is_some_and(|at| at <= now) {
                return Some("expired".to_string());
            }
        }
        Some(name)
    }
}

/// Whether a pane prints replies with `--raw`.
fn raw_of(pane: Option<&super::pane::Pane>) -> bool {
    pane.is_some_and(|p| p.raw)
}

/// If `reply` is an invalidation (client-side caching), whether it is a flush: a RESP3
/// push `invalidate`, or a pub/sub message on `__redis__:invalidate` (to a client others
/// redirect to), whose payload is the keys or, for a flush, a null.
fn invalidation(reply: &Reply) -> Option<bool> {
    let (Reply::Push(items) | Reply::Array(items)) = reply else {
        return None;
    };
    let payload = match items.as_slice() {
        [Reply::Bulk(kind), payload]
            if matches!(reply, Reply::Push(_)) && kind == b"invalidate" =>
        {
            payload
        }
        [Reply::Bulk(kind), Reply::Bulk(channel), payload]
            if kind == b"message" && channel == crate::engine::tracking::CHANNEL =>
        {
            payload
        }
        _ => return None,
    };
    match payload {
        Reply::Array(_) => Some(false),
        Reply::Nil | Reply::NilArray => Some(true),
        _ => None,
    }
}

/// The pane entry of an invalidation (see [`invalidation`]).
fn invalidation_entry(reply: &Reply, proto: u8, raw: bool) -> Entry {
    Entry::Invalidation {
        output: reply_text(reply, proto, raw),
        flush: invalidation(reply) == Some(true),
    }
}

/// A reply as redis-cli prints it, with `--raw` or without.
fn reply_text(reply: &Reply, proto: u8, raw: bool) -> String {
    if raw {
        format_reply_raw(reply, proto)
    } else {
        format_reply_for(reply, proto)
    }
}

/// `SINTER`/`SUNION`/`SDIFF` of two or three keys: the operation and the keys.
fn venn_request(argv: &[Vec<u8>]) -> Option<(&'static str, Vec<Vec<u8>>)> {
    let name = argv.first()?.to_ascii_lowercase();
    let op = match name.as_slice() {
        b"sinter" => "SINTER",
        b"sunion" => "SUNION",
        b"sdiff" => "SDIFF",
        _ => return None,
    };
    let keys = argv.get(1..)?.to_vec();
    (2..=3).contains(&keys.len()).then_some((op, keys))
}
