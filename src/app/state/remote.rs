//! Several tabs on one workspace, as the state sees them: the leader runs its followers'
//! commands for clients of their own and answers; a follower fills its panes in with the
//! answers, and is told when the leader changed.

use super::model::{Command, State};
use super::pane::{Entry, PaneId};
use crate::app::console;
use crate::engine::cli::format_reply_for;
use crate::engine::{ClientId, Reply};
use crate::tabs::{blocked_until, Line, Msg, Session, TabId, WaitsFor};

impl State {
    /// Renders replies for `client` as redis-cli prints them.
    pub(super) fn render<'a>(
        &self,
        client: ClientId,
        replies: impl Iterator<Item = &'a Reply>,
    ) -> Vec<Line> {
        let proto = self
            .ws
            .engine
            .read(|e| e.client(client).map_or(2, |c| c.proto));
        replies
            .map(|r| Line {
                text: format_reply_for(r, proto),
                error: matches!(r, Reply::Error(_)),
            })
            .collect()
    }

    /// What a follower's pane shows of its session on this (the leader's) engine.
    pub(super) fn session_of(&self, client: ClientId) -> Session {
        self.ws.engine.read(|e| {
            let c = e.client(client);
            Session {
                db: c.map_or(0, |c| c.db as u64),
                proto: c.map_or(2, |c| c.proto),
                blocked: blocked_until(e, client),
                waits_for: WaitsFor::of_client(e, client),
                queued: c.and_then(|c| c.multi.as_ref()).map(|m| {
                    m.queue
                        .iter()
                        .map(|q| {
                            let words: Vec<&[u8]> = q.argv.iter().map(Vec::as_slice).collect();
                            console::line(&words)
                        })
                        .collect()
                }),
                subscribed: e.server().pubsub.total(client) > 0,
            }
        })
    }

    /// A message from another tab (see [`Action::Remote`]).
    pub(super) fn remote(&mut self, msg: Msg) {
        match msg {
            // Leader: run a follower pane's command as that pane's client.
            Msg::Command {
                from,
                pane,
                req,
                argv,
                ..
            } => {
                let known = self.ws.remote.borrow().by_pane.get(&(from, pane)).copied();
                let client = known.unwrap_or_else(|| {
                    let c = self.ws.engine.connect();
                    let mut r = self.ws.remote.borrow_mut();
                    r.by_pane.insert((from, pane), c);
                    r.by_client.insert(c, (from, pane));
                    c
                });
                let outcome = self.ws.engine.submit(client, argv);
                let lines = self.render(client, outcome.output_of(client));
                self.out.push(Command::PostCommitted(Msg::Reply {
                    leader: self.tabs.me,
                    to: from,
                    pane,
                    req,
                    lines,
                    session: self.session_of(client),
                }));
                self.absorb(outcome, Some(client));
            }
            Msg::Close { from, pane } => {
                let gone: Vec<ClientId> = {
                    let mut r = self.ws.remote.borrow_mut();
                    let keys: Vec<(TabId, PaneId)> = r
                        .by_pane
                        .keys()
                        .filter(|(t, p)| *t == from && pane.is_none_or(|x| x == *p))
                        .copied()
                        .collect();
                    let gone: Vec<ClientId> =
                        keys.iter().filter_map(|k| r.by_pane.remove(k)).collect();
                    for c in &gone {
                        r.by_client.remove(c);
                    }
                    gone
                };
                for c in gone {
                    self.ws.engine.disconnect(c);
                }
            }
            Msg::Interrupt { from, pane } => {
                let client = self.ws.remote.borrow().by_pane.get(&(from, pane)).copied();
                if let Some(client) = client {
                    self.ws.engine.interrupt(client);
                    self.out.push(Command::PostCommitted(Msg::Reply {
                        leader: self.tabs.me,
                        to: from,
                        pane,
                        req: 0,
                        lines: Vec::new(),
                        session: self.session_of(client),
                    }));
                }
            }
            Msg::Config { name, value, .. } => {
                let _ = self.ws.engine.configure(&name, &value);
            }
            // Follower: a reply, or later output, for one of this tab's panes.
            Msg::Reply {
                pane,
                req,
                lines,
                session,
                ..
            } => {
                let Some(p) = self.pane_mut(pane) else {
                    return;
                };
                p.session = Some(session);
                if req == 0 {
                    for l in lines {
                        p.push(Entry::Late {
                            output: l.text,
                            error: l.error,
                        });
                    }
                } else if let Some(i) = p.waiting.iter().position(|(r, _)| *r == req) {
                    let (_, abs) = p.waiting.remove(i);
                    // No output: the command blocks (its reply comes later, as for a pane
                    // of this tab).
                    if !lines.is_empty() {
                        let error = lines.first().is_some_and(|l| l.error);
                        let text = lines
                            .into_iter()
                            .map(|l| l.text)
                            .collect::<Vec<_>>()
                            .join("\n");
                        p.answer(abs, text, error);
                    }
                }
                self.sync_db();
            }
            _ => {}
        }
    }

    /// The sessions of this tab's panes on the old leader are gone (see
    /// [`Action::Reconnected`]).
    pub(super) fn reconnected(&mut self, promoted: bool) {
        let t = self.lang.tabs();
        for p in &mut self.ws.panes {
            let waiting = std::mem::take(&mut p.waiting);
            for (_, abs) in &waiting {
                p.answer(*abs, t.lost.to_string(), true);
            }
            if p.session.take().is_some() || !waiting.is_empty() {
                p.push(Entry::Late {
                    output: if promoted { t.promoted } else { t.moved }.to_string(),
                    error: true,
                });
            }
        }
        self.rebuild_index();
        self.refresh_view(None);
    }
}
