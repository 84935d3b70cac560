//! The web app's state and reducer, on the host: given a state and an action, the next
//! state and the exact commands the browser must carry out (`localStorage` writes, messages
//! to the workspace's other tabs). The reducer does no I/O, so none of this needs a browser.

use std::rc::Rc;

use kvlab::app::state::{Action, Command, Entry, LineAction, State, TabCtx, Theme};
use kvlab::engine::{Engine, ManualClock};
use kvlab::i18n::Lang;
use kvlab::tabs::{Line, Msg, Role, Session};

/// A lone tab (no other tab of the workspace).
const ALONE: TabCtx = TabCtx {
    role: Role::Alone,
    me: 7,
    leader: None,
};
/// The tab that runs the workspace.
const LEADER: TabCtx = TabCtx {
    role: Role::Leader,
    me: 1,
    leader: None,
};
/// A follower of tab 1.
const FOLLOWER: TabCtx = TabCtx {
    role: Role::Follower,
    me: 2,
    leader: Some(1),
};

fn state_at(clock: &ManualClock) -> Rc<State> {
    Rc::new(State::new(
        Engine::new(Box::new(clock.clone()), 1),
        Lang::En,
    ))
}

fn state() -> Rc<State> {
    state_at(&ManualClock::at_ms(1_700_000_000_000))
}

/// Reduces `action` as `tabs`, returning the state and the commands.
fn act(s: Rc<State>, tabs: TabCtx, action: Action) -> (Rc<State>, Vec<Command>) {
    s.apply(action, &tabs)
}

/// Types `line` into pane `pane` and presses Enter.
fn type_line(s: Rc<State>, tabs: TabCtx, pane: u32, line: &str) -> (Rc<State>, Vec<Command>) {
    let (s, typed) = act(s, tabs, Action::Line(pane, LineAction::Input(line.into())));
    assert_eq!(typed, [], "typing asks nothing of the browser");
    act(s, tabs, Action::Line(pane, LineAction::Submit))
}

fn last(s: &State, pane: u32) -> Entry {
    (**s.pane(pane).and_then(|p| p.log.last()).expect("an entry")).clone()
}

fn command(prompt: &str, line: &str, output: Option<&str>, error: bool) -> Entry {
    Entry::Command {
        prompt: prompt.into(),
        line: line.into(),
        output: output.map(str::to_string),
        error,
    }
}

const PROMPT: &str = "127.0.0.1:6379> ";

fn history(lines: &[&str]) -> Command {
    Command::SaveHistory(lines.iter().map(|l| l.to_string()).collect())
}

#[test]
fn a_command_runs_in_its_pane_and_saves_the_history() {
    let s = state();
    assert_eq!(s.first_pane().log.len(), 1);
    assert_eq!(last(&s, 1), Entry::Welcome);
    let (s, out) = type_line(s, ALONE, 1, "SET greeting hello");
    assert_eq!(
        last(&s, 1),
        command(PROMPT, "SET greeting hello", Some("OK"), false)
    );
    assert_eq!(out, [history(&["SET greeting hello"])]);
    assert_eq!(s.first_pane().draft, "");
    let (s, out) = type_line(s, ALONE, 1, "GET greeting");
    assert_eq!(
        last(&s, 1),
        command(PROMPT, "GET greeting", Some("\"hello\""), false)
    );
    assert_eq!(out, [history(&["SET greeting hello", "GET greeting"])]);
    // The same line again is not remembered twice: nothing to save.
    let (s, out) = type_line(s, ALONE, 1, "GET greeting");
    assert_eq!(out, []);
    // Errors: an unbalanced quote, an unknown command.
    let (s, _) = type_line(s, ALONE, 1, "SET \"open");
    assert_eq!(
        last(&s, 1),
        command(PROMPT, "SET \"open", Some("Invalid argument(s)"), true)
    );
    let (s, _) = type_line(s, ALONE, 1, "NOPE");
    match last(&s, 1) {
        Entry::Command {
            output: Some(o),
            error: true,
            ..
        } => assert!(o.starts_with("(error) ERR unknown command 'NOPE'"), "{o}"),
        e => panic!("{e:?}"),
    }
    // An empty line shows the prompt alone and is not remembered.
    let (s, out) = type_line(s, ALONE, 1, "  ");
    assert_eq!(last(&s, 1), command(PROMPT, "  ", None, false));
    assert_eq!(out, []);
    assert_eq!(s.history.len(), 4);
    // SELECT changes the prompt of the next line.
    let (s, _) = type_line(s, ALONE, 1, "SELECT 2");
    let (s, _) = type_line(s, ALONE, 1, "DBSIZE");
    assert_eq!(
        last(&s, 1),
        command("127.0.0.1:6379[2]> ", "DBSIZE", Some("(integer) 0"), false)
    );
    // `clear` is a console built-in: the log empties, its numbering goes on.
    let before = s.first_pane().log_base + s.first_pane().log.len() as u64;
    let (s, out) = type_line(s, ALONE, 1, "clear");
    assert!(s.first_pane().log.is_empty());
    assert_eq!(s.first_pane().log_base, before);
    assert_eq!(out.len(), 1, "clear is remembered: {out:?}");
}

#[test]
fn history_walks_back_and_forth_and_restores_the_draft() {
    let (s, _) = type_line(state(), ALONE, 1, "SET a 1");
    let (s, _) = type_line(s, ALONE, 1, "GET a");
    let (s, _) = act(s, ALONE, Action::Line(1, LineAction::Input("half".into())));
    let step = |s: Rc<State>, a: LineAction| {
        let (s, out) = act(s, ALONE, Action::Line(1, a));
        assert_eq!(out, []);
        s
    };
    let s = step(s, LineAction::HistoryPrev);
    assert_eq!(s.first_pane().draft, "GET a");
    let s = step(s, LineAction::HistoryPrev);
    let s = step(s, LineAction::HistoryPrev);
    assert_eq!(s.first_pane().draft, "SET a 1", "stops at the oldest");
    let s = step(s, LineAction::HistoryNext);
    assert_eq!(s.first_pane().draft, "GET a");
    let s = step(s, LineAction::HistoryNext);
    assert_eq!(s.first_pane().draft, "half");
    // Ctrl+C on a typed line drops it, shown with ^C; nothing is run or saved.
    let (s, out) = act(s, ALONE, Action::Line(1, LineAction::Interrupt));
    assert_eq!(out, []);
    assert_eq!(last(&s, 1), command(PROMPT, "half^C", None, false));
    assert_eq!(s.first_pane().draft, "");
}

#[test]
fn the_history_keeps_the_last_hundred_lines() {
    let mut s = state();
    for i in 0..105 {
        s = type_line(s, ALONE, 1, &format!("ECHO {i}")).0;
    }
    assert_eq!(s.history.len(), 100);
    assert_eq!(s.history[0], "ECHO 5");
    let (_, out) = type_line(s, ALONE, 1, "PING");
    match &out[..] {
        [Command::SaveHistory(h)] => {
            assert_eq!(h.len(), 100);
            assert_eq!(h.first().map(String::as_str), Some("ECHO 6"));
            assert_eq!(h.last().map(String::as_str), Some("PING"));
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn settings_are_stored() {
    let (s, out) = act(state(), ALONE, Action::SetLang(Lang::Zh));
    assert_eq!(s.lang, Lang::Zh);
    assert_eq!(
        out,
        [Command::Store {
            name: "lang",
            value: "zh-CN".into()
        }]
    );
    assert_eq!(s.first_pane().title(s.lang), "客户端 1");
    let (s, out) = act(s, ALONE, Action::SetTheme(Theme::Light));
    assert_eq!(s.theme, Theme::Light);
    assert_eq!(
        out,
        [Command::Store {
            name: "theme",
            value: "light".into()
        }]
    );
    // Cluster mode: the engine's switch, stored; a lone tab tells nobody.
    let (s, out) = act(s, ALONE, Action::SetCluster(true));
    assert!(s.engine().read(|e| e.cluster_enabled()));
    assert_eq!(
        out,
        [Command::Store {
            name: "cluster",
            value: "1".into()
        }]
    );
    // A follower asks the leader to make the change too.
    let (s, out) = act(s, FOLLOWER, Action::SetCluster(false));
    assert!(!s.engine().read(|e| e.cluster_enabled()));
    assert_eq!(
        out,
        [
            Command::Post(Msg::Config {
                to: 1,
                name: "cluster-enabled".into(),
                value: "no".into()
            }),
            Command::Store {
                name: "cluster",
                value: "0".into()
            }
        ]
    );
}

#[test]
fn panes_are_clients_and_the_browser_follows_the_active_one() {
    let (s, out) = act(state(), ALONE, Action::AddPane);
    assert_eq!(out, []);
    assert_eq!(s.ws.panes.len(), 2);
    assert_eq!(s.ws.active, 2, "a new pane takes the focus");
    assert_ne!(s.pane(1).unwrap().client, s.pane(2).unwrap().client);
    let (s, _) = type_line(s, ALONE, 1, "SUBSCRIBE news");
    let (s, _) = type_line(s, ALONE, 2, "PUBLISH news hi");
    assert_eq!(
        last(&s, 1),
        Entry::Late {
            output: "1) \"message\"\n2) \"news\"\n3) \"hi\"".into(),
            error: false
        }
    );
    assert_eq!(
        last(&s, 2),
        command(PROMPT, "PUBLISH news hi", Some("(integer) 1"), false)
    );
    // Pane 2 selects db 1 and writes there: the browser shows db 1 while pane 2 is active.
    let (s, _) = type_line(s, ALONE, 2, "SELECT 1");
    let (s, _) = type_line(s, ALONE, 2, "SET only:here 1");
    assert_eq!(s.ws.index_db, 1);
    assert_eq!(s.ws.index.borrow().len(), 1);
    let (s, out) = act(s, ALONE, Action::Focus(1));
    assert_eq!(out, []);
    assert_eq!((s.ws.active, s.ws.index_db), (1, 0));
    assert_eq!(s.ws.index.borrow().len(), 0);
    // Renaming, and an empty name going back to "client N".
    let (s, _) = act(s, ALONE, Action::RenamePane(2, "writer".into()));
    assert_eq!(s.pane(2).unwrap().title(Lang::En), "writer");
    let (s, _) = act(s, ALONE, Action::RenamePane(2, "  ".into()));
    assert_eq!(s.pane(2).unwrap().title(Lang::En), "client 2");
    // Closing pane 1 disconnects its client; the last pane stays.
    let (s, out) = act(s, ALONE, Action::ClosePane(1));
    assert_eq!(out, []);
    assert_eq!(s.ws.panes.len(), 1);
    assert_eq!((s.ws.active, s.ws.index_db), (2, 1));
    let (s, _) = type_line(s, ALONE, 2, "PUBLISH news again");
    assert_eq!(
        last(&s, 2),
        command(
            "127.0.0.1:6379[1]> ",
            "PUBLISH news again",
            Some("(integer) 0"),
            false
        )
    );
    let (s, _) = act(s, ALONE, Action::ClosePane(2));
    assert_eq!(s.ws.panes.len(), 1, "the last pane stays");
}

#[test]
fn ctrl_c_stops_a_blocked_client_and_reset_reconnects() {
    let (s, _) = type_line(state(), ALONE, 1, "BLPOP q 0");
    assert_eq!(last(&s, 1), command(PROMPT, "BLPOP q 0", None, false));
    let (s, out) = act(s, ALONE, Action::Line(1, LineAction::Interrupt));
    assert_eq!(out, []);
    assert_eq!(
        last(&s, 1),
        Entry::Note("^C (interrupted: the command no longer waits)".into())
    );
    let (s, _) = type_line(s, ALONE, 1, "SELECT 4");
    let old = s.first_pane().client;
    let (s, out) = act(s, ALONE, Action::ResetPane(1));
    assert_eq!(out, []);
    assert_ne!(s.first_pane().client, old);
    assert_eq!(s.first_pane().log.len(), 1);
    assert_eq!(last(&s, 1), Entry::Welcome);
    assert_eq!(s.prompt(s.first_pane().client), PROMPT);
}

#[test]
fn completion_opens_walks_and_takes_a_candidate() {
    let line = |s: Rc<State>, a: LineAction| act(s, ALONE, Action::Line(1, a)).0;
    let s = line(state(), LineAction::Input("RPOPL".into()));
    let s = line(s, LineAction::Complete);
    assert_eq!(s.first_pane().draft, "RPOPLPUSH ");
    assert_eq!(s.first_pane().completion(), None);
    let s = line(s, LineAction::Input("lpus".into()));
    let s = line(s, LineAction::Complete);
    let (cands, selected) = s.first_pane().completion().expect("a list");
    assert_eq!(
        (cands.to_vec(), selected),
        (vec!["lpush".into(), "lpushx".into()], None)
    );
    assert_eq!(s.first_pane().draft, "lpush");
    let s = line(s, LineAction::Complete);
    assert_eq!(
        s.first_pane().draft,
        "lpushx",
        "the first Tab skips what is typed"
    );
    let s = line(s, LineAction::CompleteMove(1));
    assert_eq!(s.first_pane().draft, "lpush");
    let s = line(s, LineAction::CompleteAccept(None));
    assert_eq!(s.first_pane().draft, "lpush ");
    assert_eq!(s.first_pane().completion(), None);
    assert_eq!(s.hint(1).as_deref(), Some("key element [element ...]"));
}

#[test]
fn help_paste_the_key_tree_and_the_value_view() {
    let (s, out) = type_line(state(), ALONE, 1, "HELP SET");
    assert_eq!(out, [history(&["HELP SET"])]);
    match last(&s, 1) {
        Entry::Command {
            output: Some(o),
            error: false,
            ..
        } => assert!(o.contains("SET key value") && o.contains("summary:"), "{o}"),
        e => panic!("{e:?}"),
    }
    let (s, out) = act(
        s,
        ALONE,
        Action::Line(
            1,
            LineAction::Paste("SET user:1 a\n\nSET user:2 b\n".into()),
        ),
    );
    assert_eq!(out.len(), 2, "each pasted line is remembered: {out:?}");
    assert_eq!(s.ws.index.borrow().len(), 2);
    assert_eq!(s.rows.0.len(), 1, "one folder: user:");
    let (s, _) = act(s, ALONE, Action::ToggleFolder(b"user:".to_vec()));
    assert_eq!(s.rows.0.len(), 3);
    let (s, _) = act(s, ALONE, Action::SetFlat(true));
    assert_eq!(s.rows.0.len(), 2);
    let (s, _) = act(s, ALONE, Action::SetFilter("*2".into()));
    assert_eq!(s.rows.0.len(), 1);
    let (s, _) = act(s, ALONE, Action::Select(b"user:1".to_vec()));
    let view = s.view.clone().expect("a view");
    assert_eq!((view.prev.clone(), view.changed_by.clone()), (None, None));
    let (s, _) = type_line(s, ALONE, 1, "APPEND user:1 z");
    let view = s.view.clone().expect("a view");
    assert_eq!(view.changed_by.as_deref(), Some("APPEND"));
    assert!(view.prev.is_some() && view.prev != view.value);
}

#[test]
fn a_set_operation_draws_its_diagram() {
    let (s, _) = type_line(state(), ALONE, 1, "SADD a 1 2");
    let (s, _) = type_line(s, ALONE, 1, "SADD b 2 3");
    let (s, _) = type_line(s, ALONE, 1, "SINTER a b");
    let venn = s.venn.clone().expect("a diagram");
    assert_eq!(venn.op, "SINTER");
    assert_eq!(venn.result, [b"2".to_vec()]);
    assert_eq!(venn.sets.len(), 2);
    let (s, _) = act(s, ALONE, Action::CloseVenn);
    assert!(s.venn.is_none());
}

#[test]
fn ticks_expire_keys_on_the_leader_only() {
    let clock = ManualClock::at_ms(1_700_000_000_000);
    let (s, _) = type_line(state_at(&clock), ALONE, 1, "SET k v PX 50");
    let (s, _) = act(s, ALONE, Action::Select(b"k".to_vec()));
    // Nothing changed within the second: the very same Rc (Yew skips the render).
    let (t, out) = act(s.clone(), ALONE, Action::Tick);
    assert!(Rc::ptr_eq(&s, &t));
    assert_eq!(out, []);
    // A follower's clock never expires keys: its replica gets the leader's effects.
    clock.advance_ms(2000);
    let (f, out) = act(s.clone(), FOLLOWER, Action::Tick);
    assert_eq!(out, []);
    assert_eq!(f.ws.index.borrow().len(), 1);
    assert_eq!(f.now_ms, 1_700_000_002_000);
    // The leader's tick expires the key, and the value view says so.
    let (s, out) = act(s, LEADER, Action::Tick);
    assert_eq!(out, []);
    assert_eq!(s.ws.index.borrow().len(), 0);
    let view = s.view.clone().expect("the view stays");
    assert_eq!(
        (view.value.clone(), view.changed_by.as_deref()),
        (None, Some("expired"))
    );
}

#[test]
fn a_follower_forwards_its_commands_and_shows_the_replies() {
    // Before a leader is known, the command fails at once and nothing is posted.
    let unknown = TabCtx {
        leader: None,
        ..FOLLOWER
    };
    let (s, out) = type_line(state(), unknown, 1, "GET k");
    assert_eq!(out, [history(&["GET k"])]);
    assert_eq!(
        last(&s, 1),
        command(
            PROMPT,
            "GET k",
            Some("Error: not connected yet to the tab that runs this workspace. Try again in a moment."),
            true
        )
    );
    // With a leader: posted, and the block waits for the reply (commands are numbered
    // whether they could be sent or not).
    let (s, out) = type_line(s, FOLLOWER, 1, "SET k v");
    assert_eq!(
        out,
        [
            history(&["GET k", "SET k v"]),
            Command::Post(Msg::Command {
                from: 2,
                to: 1,
                pane: 1,
                req: 2,
                argv: vec![b"SET".to_vec(), b"k".to_vec(), b"v".to_vec()],
            })
        ]
    );
    assert_eq!(last(&s, 1), command(PROMPT, "SET k v", None, false));
    let (s, out) = type_line(s, FOLLOWER, 1, "SELECT 3");
    assert!(
        matches!(&out[1], Command::Post(Msg::Command { req: 3, .. })),
        "{out:?}"
    );
    // The replies come back in any order; each fills its block in.
    let reply = |req, text: &str, db| {
        Action::Remote(Msg::Reply {
            leader: 1,
            to: 2,
            pane: 1,
            req,
            lines: vec![Line {
                text: text.into(),
                error: false,
            }],
            session: Session {
                db,
                proto: 2,
                ..Session::default()
            },
        })
    };
    let (s, out) = act(s, FOLLOWER, reply(3, "OK", 3));
    assert_eq!(out, []);
    assert_eq!(last(&s, 1), command(PROMPT, "SELECT 3", Some("OK"), false));
    assert_eq!(s.prompt(s.first_pane().client), "127.0.0.1:6379[3]> ");
    let (s, _) = act(s, FOLLOWER, reply(2, "OK", 3));
    let log = &s.first_pane().log;
    assert_eq!(
        *log[log.len() - 2],
        command(PROMPT, "SET k v", Some("OK"), false)
    );
    // Later output (req 0) is appended.
    let (s, _) = act(s, FOLLOWER, reply(0, "1) \"message\"", 3));
    assert_eq!(
        last(&s, 1),
        Entry::Late {
            output: "1) \"message\"".into(),
            error: false
        }
    );
    // Closing and resetting panes tell the leader; Ctrl+C while not waiting does not.
    let (s, out) = act(s, FOLLOWER, Action::Line(1, LineAction::Interrupt));
    assert_eq!(out, []);
    let (s, _) = act(s, FOLLOWER, Action::AddPane);
    let (s, out) = act(s, FOLLOWER, Action::ClosePane(2));
    assert_eq!(
        out,
        [Command::Post(Msg::Close {
            from: 2,
            pane: Some(2)
        })]
    );
    let (_, out) = act(s, FOLLOWER, Action::ResetPane(1));
    assert_eq!(
        out,
        [Command::Post(Msg::Close {
            from: 2,
            pane: Some(1)
        })]
    );
}

#[test]
fn a_follower_interrupts_a_wait_on_the_leader() {
    let (s, _) = type_line(state(), FOLLOWER, 1, "BLPOP q 0");
    let (s, _) = act(
        s,
        FOLLOWER,
        Action::Remote(Msg::Reply {
            leader: 1,
            to: 2,
            pane: 1,
            req: 1,
            lines: Vec::new(),
            session: Session {
                blocked: Some(None),
                ..Session::default()
            },
        }),
    );
    assert_eq!(last(&s, 1), command(PROMPT, "BLPOP q 0", None, false));
    let (s, out) = act(s, FOLLOWER, Action::Line(1, LineAction::Interrupt));
    assert_eq!(out, [Command::Post(Msg::Interrupt { from: 2, pane: 1 })]);
    assert_eq!(
        last(&s, 1),
        Entry::Note("^C (interrupted: the command no longer waits)".into())
    );
    assert_eq!(s.first_pane().session, None);
}

#[test]
fn when_the_leader_goes_waiting_commands_are_answered_with_an_error() {
    let (s, _) = type_line(state(), FOLLOWER, 1, "INCR n");
    let (s, out) = act(s, ALONE, Action::Reconnected(true));
    assert_eq!(out, []);
    let log = &s.first_pane().log;
    match &*log[log.len() - 2] {
        Entry::Command {
            output: Some(o),
            error: true,
            ..
        } => assert!(
            o.starts_with("Error: the tab that ran this workspace closed"),
            "{o}"
        ),
        e => panic!("{e:?}"),
    }
    match last(&s, 1) {
        Entry::Late {
            output,
            error: true,
        } => {
            assert!(output.contains("this tab runs it now"), "{output}")
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(s.tabs_version, 1);
}

fn follower_command(req: u64, pane: u32, line: &str) -> Action {
    Action::Remote(Msg::Command {
        from: 2,
        to: 1,
        pane,
        req,
        argv: line.split(' ').map(|w| w.as_bytes().to_vec()).collect(),
    })
}

#[test]
fn the_leader_runs_followers_commands_and_answers_once_committed() {
    let (s, out) = act(state(), LEADER, follower_command(4, 1, "SELECT 5"));
    match &out[..] {
        [Command::PostCommitted(Msg::Reply {
            leader: 1,
            to: 2,
            pane: 1,
            req: 4,
            lines,
            session,
        })] => {
            assert_eq!(
                lines,
                &[Line {
                    text: "OK".into(),
                    error: false
                }]
            );
            assert_eq!(session.db, 5, "the pane's own session");
        }
        o => panic!("{o:?}"),
    }
    // The follower pane's client is kept: it stays in db 5.
    let (s, out) = act(s, LEADER, follower_command(5, 1, "SET k v"));
    assert!(
        matches!(&out[..], [Command::PostCommitted(Msg::Reply { req: 5, session, .. })] if session.db == 5),
        "{out:?}"
    );
    assert_eq!(s.engine().read(|e| e.server().dbs[5].len()), 1);
    // A follower's subscriber hears what the leader's own pane publishes, later (req 0).
    let (s, _) = act(s, LEADER, follower_command(6, 2, "SUBSCRIBE news"));
    let (s, out) = type_line(s, LEADER, 1, "PUBLISH news hi");
    assert_eq!(
        out,
        [
            history(&["PUBLISH news hi"]),
            Command::PostCommitted(Msg::Reply {
                leader: 1,
                to: 2,
                pane: 2,
                req: 0,
                lines: vec![Line {
                    text: "1) \"message\"\n2) \"news\"\n3) \"hi\"".into(),
                    error: false
                }],
                session: Session {
                    db: 0,
                    proto: 2,
                    subscribed: true,
                    ..Session::default()
                },
            })
        ]
    );
    assert_eq!(
        last(&s, 1),
        command(PROMPT, "PUBLISH news hi", Some("(integer) 1"), false)
    );
    // The follower closes: its clients are gone, nobody hears the next message.
    let (s, out) = act(
        s,
        LEADER,
        Action::Remote(Msg::Close {
            from: 2,
            pane: None,
        }),
    );
    assert_eq!(out, []);
    let (s, out) = type_line(s, LEADER, 1, "PUBLISH news again");
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        last(&s, 1),
        command(PROMPT, "PUBLISH news again", Some("(integer) 0"), false)
    );
    // Config from a follower is applied here.
    let (s, out) = act(
        s,
        LEADER,
        Action::Remote(Msg::Config {
            to: 1,
            name: "cluster-enabled".into(),
            value: "yes".into(),
        }),
    );
    assert_eq!(out, []);
    assert!(s.engine().read(|e| e.cluster_enabled()));
}

#[test]
fn the_leader_interrupts_a_followers_blocked_client() {
    let (s, out) = act(state(), LEADER, follower_command(1, 3, "BLPOP q 0"));
    match &out[..] {
        [Command::PostCommitted(Msg::Reply { lines, session, .. })] => {
            assert!(lines.is_empty(), "it blocks");
            assert_eq!(session.blocked, Some(None));
        }
        o => panic!("{o:?}"),
    }
    let (_, out) = act(
        s,
        LEADER,
        Action::Remote(Msg::Interrupt { from: 2, pane: 3 }),
    );
    match &out[..] {
        [Command::PostCommitted(Msg::Reply {
            req: 0,
            lines,
            session,
            ..
        })] => {
            assert!(lines.is_empty());
            assert_eq!(session.blocked, None, "no longer blocked");
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn a_replica_follows_the_leaders_effects() {
    let s = state();
    let (s, _) = act(s, FOLLOWER, Action::Select(b"k".to_vec()));
    // The tabs service applied a batch to the replica's engine, then tells the state.
    let other = s.engine().connect();
    let outcome = s
        .engine()
        .submit(other, vec![b"SET".to_vec(), b"k".to_vec(), b"v".to_vec()]);
    let (s, out) = act(s, FOLLOWER, Action::Replicated(Some(outcome.effects)));
    assert_eq!(out, []);
    assert_eq!(s.ws.index.borrow().len(), 1);
    assert_eq!(
        s.view.as_ref().and_then(|v| v.changed_by.as_deref()),
        Some("SET")
    );
    // A snapshot: everything is re-read.
    let outcome = s.engine().submit(other, vec![b"FLUSHALL".to_vec()]);
    assert_eq!(outcome.effects.len(), 1);
    let (s, out) = act(s, FOLLOWER, Action::Replicated(None));
    assert_eq!(out, []);
    assert_eq!(s.ws.index.borrow().len(), 0);
    let (s, _) = act(s, FOLLOWER, Action::TabsChanged);
    assert_eq!(s.tabs_version, 1);
}

#[test]
fn an_import_runs_on_a_client_of_its_own_and_reports_errors() {
    let argv = |l: &str| l.split(' ').map(|w| w.as_bytes().to_vec()).collect();
    let commands = Rc::new(vec![argv("SET a 1"), argv("INCR a x"), argv("SET b 2")]);
    let (s, out) = act(state(), ALONE, Action::Import(commands));
    assert_eq!(out, []);
    let report = s.import_report.clone().expect("a report");
    assert_eq!(report.commands, 3);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].0, 2);
    assert_eq!(s.ws.index.borrow().len(), 2);
    assert_eq!(s.ws.panes.len(), 1, "no pane for the import");
}

#[test]
fn help_speaks_both_languages() {
    use kvlab::app::console::help;
    assert!(help(&[], Lang::En, None).starts_with("redis-cli 7.0.15 (kvlab)\nTo get help about"));
    assert!(help(&[], Lang::Zh, None).contains("获取 Redis 命令的帮助"));
    assert_eq!(
        help(&[b"NOPE".to_vec()], Lang::En, None),
        "No help for 'nope'. Try \"help @<group>\", e.g. help @list"
    );
    assert_eq!(
        help(&[b"nope".to_vec()], Lang::Zh, None),
        "没有 'nope' 的帮助。试试 \"help @<分组>\"，例如 help @list"
    );
    let en = help(&[b"get".to_vec()], Lang::En, None);
    assert!(en.starts_with("\n  GET key\n  summary: "), "{en}");
    assert!(en.contains("\n  group: string\n"), "{en}");
    let zh = help(&[b"get".to_vec()], Lang::Zh, None);
    assert!(
        zh.contains("\n  概要： ") && zh.contains("\n  分组： string\n"),
        "{zh}"
    );
}

#[test]
fn the_script_editor_runs_eval_as_one_command_line() {
    use kvlab::app::script::{ScriptField, ScriptRun};
    let s = state();
    // Enter on an EVAL line whose quote is open: the script goes on in the editor.
    let (s, out) = type_line(s, ALONE, 1, "EVAL \"local n = redis.call('INCR', KEYS[1])");
    assert_eq!(out, []);
    let p = s.first_pane();
    assert!(p.script_open);
    assert_eq!(p.script.body, "local n = redis.call('INCR', KEYS[1])\n");
    assert_eq!(p.draft, "");
    assert_eq!(last(&s, 1), Entry::Welcome, "nothing ran");
    let body = "local n = redis.call('INCR', KEYS[1])\nreturn n * 2";
    let edit = |f, t: &str| Action::Line(1, LineAction::ScriptEdit(f, t.into()));
    let (s, _) = act(s, ALONE, edit(ScriptField::Body, body));
    let (s, _) = act(s, ALONE, edit(ScriptField::Keys, "hits"));
    let (s, out) = act(
        s,
        ALONE,
        Action::Line(1, LineAction::ScriptRun(ScriptRun::Eval)),
    );
    let line = format!("EVAL \"{body}\" 1 hits");
    assert_eq!(
        last(&s, 1),
        command(PROMPT, &line, Some("(integer) 2"), false)
    );
    assert_eq!(out, [history(&[&line])]);
    assert!(s.first_pane().script_open, "the editor stays open");
    // ↑ brings the multi-line script back into the editor, not the one-line box.
    let (s, _) = act(s, ALONE, Action::Line(1, LineAction::ScriptOpen(false)));
    let (s, _) = act(s, ALONE, Action::Line(1, LineAction::HistoryPrev));
    let p = s.first_pane();
    assert!(p.script_open);
    assert_eq!(
        (p.script.body.as_str(), p.script.keys.as_str()),
        (body, "hits")
    );
    assert_eq!(p.draft, "");
    // A pasted multi-line EVAL is one command.
    let (s, _) = act(
        s,
        ALONE,
        Action::Line(
            1,
            LineAction::Paste("EVAL 'return\n{1,\n2}' 0\nGET hits\n".into()),
        ),
    );
    let log = &s.first_pane().log;
    assert_eq!(
        *log[log.len() - 2],
        command(
            PROMPT,
            "EVAL 'return\n{1,\n2}' 0",
            Some("1) (integer) 1\n2) (integer) 2"),
            false
        )
    );
    assert_eq!(
        last(&s, 1),
        command(PROMPT, "GET hits", Some("\"1\""), false)
    );
}

#[test]
fn a_tracking_pane_shows_the_invalidations_it_receives() {
    let (s, _) = act(state(), ALONE, Action::AddPane);
    let s = [
        "HELLO 3",
        "CLIENT TRACKING on",
        "GET cached",
        "SET mine 1",
        "GET mine",
    ]
    .iter()
    .fold(s, |s, l| type_line(s, ALONE, 1, l).0);
    // Another client's write: the invalidation arrives later, labelled.
    let (s, _) = type_line(s, ALONE, 2, "SET cached 1");
    assert_eq!(
        last(&s, 1),
        Entry::Invalidation {
            output: "-> invalidate: 'cached'".into(),
            flush: false
        }
    );
    // Its own write: the reply, then the invalidation as an entry of its own.
    let (s, _) = type_line(s, ALONE, 1, "SET mine 2");
    let log = &s.pane(1).unwrap().log;
    assert_eq!(
        *log[log.len() - 2],
        command(PROMPT, "SET mine 2", Some("OK"), false)
    );
    assert_eq!(
        last(&s, 1),
        Entry::Invalidation {
            output: "-> invalidate: 'mine'".into(),
            flush: false
        }
    );
    // A flush: every key at once.
    let (s, _) = type_line(s, ALONE, 2, "FLUSHALL");
    assert_eq!(
        last(&s, 1),
        Entry::Invalidation {
            output: "1) \"invalidate\"\n2) (nil)".into(),
            flush: true
        }
    );
    // A RESP2 pane subscribed to __redis__:invalidate, that pane 1 redirects to.
    let (s, _) = type_line(s, ALONE, 2, "SUBSCRIBE __redis__:invalidate");
    let id2 = s.pane(2).unwrap().client;
    let (s, _) = type_line(s, ALONE, 1, "CLIENT TRACKING off");
    let (s, _) = type_line(s, ALONE, 1, &format!("CLIENT TRACKING on REDIRECT {id2}"));
    let (s, _) = type_line(s, ALONE, 1, "GET k");
    let (s, _) = type_line(s, ALONE, 1, "SET k 1");
    assert_eq!(
        last(&s, 2),
        Entry::Invalidation {
            output: "1) \"message\"\n2) \"__redis__:invalidate\"\n3) 1) \"k\"".into(),
            flush: false
        }
    );
}
