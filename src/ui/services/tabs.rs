//! Several tabs on one workspace: the app's side of the protocol of [`crate::tabs`].
//!
//! The tab that holds the workspace's Web Lock is the **leader** ([`Role::Leader`]): it runs
//! the engine and saves it, as a lone tab does. Any other tab of the workspace is a
//! **follower**: its panes forward their commands to the leader over a `BroadcastChannel`
//! (`kvlab-ws-<workspace>`), its views show a replica kept up to date with the leader's
//! effect batches, and it waits in the lock's queue, so that when the leader closes or
//! crashes one follower takes over ([`persist::take_over`]: it re-reads IndexedDB,
//! where everything acknowledged is).
//!
//! Calls, in this order: [`prepare`] after `persist::prepare` (picks the role, opens
//! the channel), [`connect`] after `persist::connect` (numbers and broadcasts the
//! effect batches of the leader's engine), [`set_dispatch`] once the app is mounted
//! (messages for the state arrive as [`Action`]s).
//!
//! # A reply on screen is a reply on disk
//! The leader posts its messages in order through one outbox that is emptied only when
//! persistence is idle ([`persist::idle`]): a reply or an effect batch leaves only once
//! the writes before it are committed. A follower thus never shows a write that a crash of
//! the leader could lose.
//!
//! `<html>` carries `data-tab-role` (`leader`, `follower`, `alone` without
//! `BroadcastChannel`), `data-tab-synced` on a follower whose replica is current, and
//! `data-tab-followers` on a leader; `components::tab_badge` shows the role ([`badge`]).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::{Rc, Weak};

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

use super::engine::EngineService;
use super::persist;
use crate::app::state::{Action, TabCtx};
use crate::engine::snapshot::{self, TimedEffect};
use crate::engine::{Effect, Engine};
pub use crate::tabs::Role;
use crate::tabs::{Follow, Msg, Step, TabId};

#[wasm_bindgen(module = "/src/ui/tabs.js")]
extern "C" {
    fn tabs_open(workspace: &str, onmessage: &Closure<dyn FnMut(Uint8Array)>) -> JsValue;
    fn tabs_post(ch: &JsValue, bytes: &[u8]);
    fn tabs_on_leave(f: &Closure<dyn FnMut()>);
    fn tabs_random_id() -> f64;
}

enum Out {
    Msg(Msg),
    /// A snapshot for a follower, encoded when it is posted (then the engine's dataset is
    /// exactly what the batches posted so far add up to).
    SnapshotFor(TabId),
}

struct Hub {
    me: TabId,
    channel: JsValue,
    role: Role,
    follow: Follow,
    /// Leader: the number of the last effect batch.
    seq: u64,
    outbox: Vec<Out>,
    draining: bool,
    dispatch: Option<Rc<dyn Fn(Action)>>,
    early: Vec<Action>,
    engine: Weak<RefCell<Engine>>,
    followers: BTreeSet<TabId>,
}

thread_local! {
    static HUB: RefCell<Option<Hub>> = const { RefCell::new(None) };
}

fn with<R>(f: impl FnOnce(&mut Hub) -> R) -> Option<R> {
    HUB.with(|h| h.borrow_mut().as_mut().map(f))
}

/// This tab's role ([`Role::Alone`] before [`prepare`]).
pub fn role() -> Role {
    with(|h| h.role).unwrap_or(Role::Alone)
}

/// True on a follower: commands go to the leader ([`forward`]).
pub fn is_follower() -> bool {
    role() == Role::Follower
}

/// This tab's part among the workspace's tabs, for the reducer ([`State::apply`]).
///
/// [`State::apply`]: crate::app::state::State::apply
pub fn context() -> TabCtx {
    with(|h| TabCtx {
        role: h.role,
        me: h.me,
        leader: h.follow.leader,
    })
    .unwrap_or_default()
}

/// True on a follower whose replica is current: forwarded commands reach a leader.
pub fn connected() -> bool {
    with(|h| h.role == Role::Follower && h.follow.synced()).unwrap_or(false)
}

/// This tab's id.
pub fn me() -> TabId {
    with(|h| h.me).unwrap_or(0)
}

/// Picks the role (the leader holds the workspace's lock) and opens the channel. Call it
/// after `persist::prepare`.
pub fn prepare() {
    let workspace = persist::workspace_from_url();
    let on_message = Closure::<dyn FnMut(Uint8Array)>::new(|bytes: Uint8Array| {
        if let Ok(msg) = Msg::decode(&bytes.to_vec()) {
            receive(msg);
        }
    });
    let channel = tabs_open(&workspace, &on_message);
    on_message.forget();
    let role = if channel.is_null() {
        Role::Alone
    } else if persist::holds_lock() {
        Role::Leader
    } else {
        Role::Follower
    };
    let me = tabs_random_id() as u64;
    HUB.with(|h| {
        *h.borrow_mut() = Some(Hub {
            me,
            channel,
            role,
            follow: Follow::default(),
            seq: 0,
            outbox: Vec::new(),
            draining: false,
            dispatch: None,
            early: Vec::new(),
            engine: Weak::new(),
            followers: BTreeSet::new(),
        })
    });
    match role {
        Role::Leader => post(Msg::Leader { leader: me }),
        Role::Follower => {
            post(Msg::Hello { from: me });
            wasm_bindgen_futures::spawn_local(keep_asking());
            wasm_bindgen_futures::spawn_local(async move {
                if crate::persist::wait_for_lock(&workspace).await {
                    promote().await;
                }
            });
        }
        Role::Alone => {}
    }
    let leave = Closure::<dyn FnMut()>::new(move || {
        if is_follower() {
            post(Msg::Close {
                from: me,
                pane: None,
            });
        }
    });
    tabs_on_leave(&leave);
    leave.forget();
    show_role();
}

/// Numbers and broadcasts (once committed) every batch of effects of the leader's engine.
/// Call it after `persist::connect`, so that the batch is recorded before it is posted.
pub fn connect(service: &EngineService) {
    let shared = service.shared();
    with(|h| h.engine = Rc::downgrade(&shared));
    let engine = Rc::downgrade(&shared);
    service.observe(Rc::new(move |effects: &[Effect]| {
        if role() != Role::Leader {
            return;
        }
        let at_ms = engine
            .upgrade()
            .and_then(|e| e.try_borrow().ok().map(|e| e.now_ms()))
            .unwrap_or_else(|| js_sys::Date::now() as i64);
        let timed: Vec<TimedEffect> = effects
            .iter()
            .map(|effect| TimedEffect {
                at_ms,
                effect: effect.clone(),
            })
            .collect();
        let Some((leader, seq)) = with(|h| {
            h.seq += 1;
            (h.me, h.seq)
        }) else {
            return;
        };
        send_out(Out::Msg(Msg::Effects {
            leader,
            seq,
            record: snapshot::encode_log_record(seq, &timed),
        }));
    }));
}

/// Gives the hook the app's dispatcher; actions that arrived before are delivered now.
pub fn set_dispatch(f: Rc<dyn Fn(Action)>) {
    let early = with(|h| {
        h.dispatch = Some(f.clone());
        std::mem::take(&mut h.early)
    })
    .unwrap_or_default();
    for a in early {
        f(a);
    }
}

fn dispatch(a: Action) {
    let f = with(|h| match &h.dispatch {
        Some(f) => Some(f.clone()),
        None => {
            h.early.push(a.clone());
            None
        }
    })
    .flatten();
    if let Some(f) = f {
        f(a);
    }
}

/// Follower: sends a pane's command to the leader. `false` while no leader is known yet.
pub fn forward(pane: u32, req: u64, argv: Vec<Vec<u8>>) -> bool {
    let Some(Some((from, to))) = with(|h| h.follow.leader.map(|l| (h.me, l))) else {
        return false;
    };
    post(Msg::Command {
        from,
        to,
        pane,
        req,
        argv,
    });
    true
}

/// Follower: a pane closed; the leader drops its client.
pub fn pane_closed(pane: u32) {
    if is_follower() {
        post(Msg::Close {
            from: me(),
            pane: Some(pane),
        });
    }
}

/// Follower: Ctrl+C in a pane; the leader stops what its client waits in, keeping it.
pub fn pane_interrupted(pane: u32) {
    if is_follower() {
        post(Msg::Interrupt { from: me(), pane });
    }
}

/// Follower: a configuration change (cluster mode) is the leader's to make.
pub fn configure(name: &str, value: &str) {
    if let Some(Some(to)) = with(|h| h.follow.leader) {
        post(Msg::Config {
            to,
            name: name.to_string(),
            value: value.to_string(),
        });
    }
}

/// Leader: posts `msg` once every write before it is committed.
pub fn send(msg: Msg) {
    send_out(Out::Msg(msg));
}

fn send_out(out: Out) {
    enum Next {
        Now(Out),
        Drain,
        Queued,
    }
    let next = with(|h| {
        if h.outbox.is_empty() && !h.draining && persist::idle() {
            Next::Now(out)
        } else {
            h.outbox.push(out);
            if std::mem::replace(&mut h.draining, true) {
                Next::Queued
            } else {
                Next::Drain
            }
        }
    });
    match next {
        Some(Next::Now(out)) => post_out(out),
        Some(Next::Drain) => wasm_bindgen_futures::spawn_local(drain()),
        _ => {}
    }
}

async fn drain() {
    loop {
        persist::flushed().await;
        // Persistence is idle: everything recorded before these messages is committed.
        let items = with(|h| {
            let items = std::mem::take(&mut h.outbox);
            if items.is_empty() {
                h.draining = false;
            }
            items
        })
        .unwrap_or_default();
        if items.is_empty() {
            return;
        }
        for out in items {
            post_out(out);
        }
    }
}

fn post_out(out: Out) {
    match out {
        Out::Msg(m) => post(m),
        Out::SnapshotFor(to) => {
            let Some((engine, leader, seq)) = with(|h| (h.engine.upgrade(), h.me, h.seq)) else {
                return;
            };
            // Busy or gone: the follower asks again.
            let Some(bytes) = engine.as_ref().and_then(|e| {
                e.try_borrow()
                    .ok()
                    .map(|e| snapshot::encode_engine(&e, seq))
            }) else {
                return;
            };
            post(Msg::Snapshot {
                leader,
                to,
                seq,
                bytes,
            });
        }
    }
}

/// Posts `msg` to the workspace's other tabs now.
pub fn post(msg: Msg) {
    let ch = with(|h| h.channel.clone());
    if let Some(ch) = ch.filter(|c| !c.is_null()) {
        tabs_post(&ch, &msg.encode());
    }
}

fn receive(msg: Msg) {
    let Some((me, role)) = with(|h| (h.me, h.role)) else {
        return;
    };
    match (role, msg) {
        (Role::Leader, Msg::Hello { from }) => {
            with(|h| h.followers.insert(from));
            send_out(Out::SnapshotFor(from));
            show_role();
        }
        (Role::Leader, m @ Msg::Command { .. }) => {
            if let Msg::Command { from, to, .. } = &m {
                if *to != me {
                    return;
                }
                with(|h| h.followers.insert(*from));
            }
            dispatch(Action::Remote(m));
        }
        (Role::Leader, m @ Msg::Close { .. }) => {
            if let Msg::Close { from, pane: None } = &m {
                with(|h| h.followers.remove(from));
                show_role();
            }
            dispatch(Action::Remote(m));
        }
        (Role::Leader, m @ Msg::Interrupt { .. }) => dispatch(Action::Remote(m)),
        (Role::Leader, m @ Msg::Config { .. }) => {
            if matches!(&m, Msg::Config { to, .. } if *to == me) {
                dispatch(Action::Remote(m));
            }
        }
        (
            Role::Follower,
            Msg::Snapshot {
                leader,
                to,
                seq,
                bytes,
            },
        ) if to == me => {
            // A snapshot from another leader than the one followed (one that took over
            // meanwhile) is fine: following it is the point.
            let Ok(decoded) = snapshot::decode_snapshot(&bytes) else {
                return;
            };
            let Some(engine) = with(|h| h.engine.upgrade()).flatten() else {
                return;
            };
            let lost = with(|h| {
                let old = h.follow.leader;
                h.follow.snapshot(leader, seq);
                old.is_some_and(|o| o != leader)
            })
            .unwrap_or(false);
            if let Ok(mut e) = engine.try_borrow_mut() {
                snapshot::install(&mut e, decoded.value.dbs);
                snapshot::install_functions(&mut e, decoded.value.functions);
            }
            if lost {
                dispatch(Action::Reconnected(false));
            }
            dispatch(Action::Replicated(None));
            show_role();
        }
        (
            Role::Follower,
            Msg::Effects {
                leader,
                seq,
                record,
            },
        ) => {
            let step = with(|h| h.follow.effects(leader, seq)).unwrap_or(Step::Skip);
            match step {
                Step::Skip => {}
                Step::Resync => {
                    post(Msg::Hello { from: me });
                    show_role();
                }
                Step::Apply => {
                    let Ok(rec) = snapshot::decode_log_record(&record, 0) else {
                        with(|h| h.follow.last = None);
                        post(Msg::Hello { from: me });
                        return;
                    };
                    let Some(engine) = with(|h| h.engine.upgrade()).flatten() else {
                        return;
                    };
                    if let Ok(mut e) = engine.try_borrow_mut() {
                        snapshot::apply_effects(&mut e, &rec.effects);
                    }
                    dispatch(Action::Replicated(Some(
                        rec.effects.into_iter().map(|t| t.effect).collect(),
                    )));
                }
            }
        }
        (Role::Follower, m @ Msg::Reply { .. }) => {
            if matches!(&m, Msg::Reply { to, .. } if *to == me) {
                dispatch(Action::Remote(m));
            }
        }
        (Role::Follower, Msg::Leader { leader }) => {
            let lost = with(|h| {
                let old = h.follow.leader;
                if old == Some(leader) {
                    return false;
                }
                h.follow.new_leader(leader);
                old.is_some()
            })
            .unwrap_or(false);
            post(Msg::Hello { from: me });
            if lost {
                dispatch(Action::Reconnected(false));
            }
            show_role();
        }
        _ => {}
    }
}

/// Waits `ms` milliseconds. Hand-written: `gloo_timers::future` (its `futures` feature)
/// made the release build's first load 307 bytes (gzip) bigger, measured 2026-12-02.
pub(crate) async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// Follower: asks for a snapshot until one comes (the leader may still be starting).
async fn keep_asking() {
    loop {
        sleep(400).await;
        let Some((me, role, synced)) = with(|h| (h.me, h.role, h.follow.synced())) else {
            return;
        };
        if role != Role::Follower {
            return;
        }
        if !synced {
            post(Msg::Hello { from: me });
        }
    }
}

/// The leader is gone and this tab holds the lock: re-read the workspace from IndexedDB,
/// take persistence over, announce it, and tell the panes.
async fn promote() {
    let Some(engine) = with(|h| h.engine.upgrade()).flatten() else {
        return;
    };
    persist::take_over(&engine).await;
    let Some(me) = with(|h| {
        h.role = Role::Leader;
        h.seq = 0;
        h.follow = Follow::default();
        h.followers.clear();
        h.me
    }) else {
        return;
    };
    post(Msg::Leader { leader: me });
    dispatch(Action::Reconnected(true));
    show_role();
}

fn show_role() {
    let Some((role, synced, followers)) = with(|h| (h.role, h.follow.synced(), h.followers.len()))
    else {
        return;
    };
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("data-tab-role", role.tag());
        if role == Role::Follower && synced {
            let _ = root.set_attribute("data-tab-synced", "");
        } else {
            let _ = root.remove_attribute("data-tab-synced");
        }
        let _ = root.set_attribute("data-tab-followers", &followers.to_string());
    }
    dispatch(Action::TabsChanged);
}

/// What the role badge shows: this tab's role, whether a follower's replica is current,
/// and how many followers a leader has.
pub fn badge() -> (Role, bool, usize) {
    with(|h| (h.role, h.follow.synced(), h.followers.len())).unwrap_or((Role::Alone, false, 0))
}
