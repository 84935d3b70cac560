//! The script debugger through the web app's reducer, on the host: the editor's Debug,
//! then Step, Continue and Stop, and what the pane shows at each (the e2e test,
//! tests/e2e/debugger.test.mjs, does the same in Chromium).

use std::rc::Rc;

use kvlab::app::engine::DebugCmd;
use kvlab::app::script::{ScriptField, ScriptRun};
use kvlab::app::state::{Action, Entry, LineAction, State, TabCtx};
use kvlab::engine::{Engine, ManualClock};
use kvlab::i18n::Lang;
use kvlab::tabs::Role;

const ALONE: TabCtx = TabCtx {
    role: Role::Alone,
    me: 7,
    leader: None,
};

/// The e2e test's script; its reply recorded from redis-server 7.0.15 with redis-cli.
const SCRIPT: &str = "local n = redis.call('INCRBY', KEYS[1], ARGV[1])\nlocal doubled = n * 2\nredis.call('SET', 'last', doubled)\nreturn {n, doubled}";
const REPLY: &str = "1) (integer) 5\n2) (integer) 10";

fn act(s: Rc<State>, action: Action) -> Rc<State> {
    s.apply(action, &ALONE).0
}

fn debugging() -> Rc<State> {
    let clock = ManualClock::at_ms(1_700_000_000_000);
    let s = Rc::new(State::new(Engine::new(Box::new(clock), 1), Lang::En));
    let edit = |f, t: &str| Action::Line(1, LineAction::ScriptEdit(f, t.into()));
    let s = act(s, edit(ScriptField::Body, SCRIPT));
    let s = act(s, edit(ScriptField::Keys, "dbg:counter"));
    let s = act(s, edit(ScriptField::Args, "5"));
    act(s, Action::Line(1, LineAction::ScriptRun(ScriptRun::Debug)))
}

fn step(s: Rc<State>, cmd: DebugCmd) -> Rc<State> {
    act(s, Action::Line(1, LineAction::Debug(cmd)))
}

fn locals(s: &State) -> Vec<String> {
    let v = s.first_pane().debug.as_ref().expect("the debugger view");
    v.locals.iter().map(|(n, v)| format!("{n}={v}")).collect()
}

fn line(s: &State) -> Option<i32> {
    s.first_pane()
        .debug
        .as_ref()
        .expect("the debugger view")
        .line
}

fn last_output(s: &State) -> (String, bool) {
    match &**s.first_pane().log.last().unwrap() {
        Entry::Late { output, error } => (output.clone(), *error),
        other => panic!("{other:?}"),
    }
}

#[test]
fn debug_steps_through_the_script_and_ends_with_evals_reply() {
    let s = debugging();
    let v = s.first_pane().debug.clone().unwrap();
    assert_eq!(v.lines.len(), 4);
    assert_eq!(line(&s), Some(1));
    assert_eq!(locals(&s), ["KEYS[1]=\"dbg:counter\"", "ARGV[1]=\"5\""]);
    assert_eq!(s.script_slice, 0, "stopped: no slice is asked for");
    let s = step(s, DebugCmd::Step);
    assert_eq!(line(&s), Some(2));
    assert_eq!(locals(&s)[2..], ["n=5"]);
    let calls = &s.first_pane().debug.as_ref().unwrap().calls;
    assert_eq!(
        (
            calls[0].line,
            calls[0].command.as_str(),
            calls[0].reply.as_str()
        ),
        (1, "INCRBY dbg:counter 5", "(integer) 5")
    );
    let s = step(s, DebugCmd::Step);
    assert_eq!(line(&s), Some(3));
    assert_eq!(locals(&s)[2..], ["n=5", "doubled=10"]);
    let s = step(s, DebugCmd::Continue);
    assert!(s.first_pane().debug.is_none(), "the view closes at the end");
    assert_eq!(last_output(&s), (REPLY.to_string(), false));
}

#[test]
fn stop_ends_it_and_the_pane_runs_commands_again() {
    let s = debugging();
    let s = step(s, DebugCmd::Step);
    let s = step(s, DebugCmd::Stop);
    assert!(s.first_pane().debug.is_none());
    let (out, error) = last_output(&s);
    assert!(
        error && out.contains("script aborted for user request"),
        "{out}"
    );
    let s = act(
        s,
        Action::Line(1, LineAction::Input("GET dbg:counter".into())),
    );
    let s = act(s, Action::Line(1, LineAction::Submit));
    match &**s.first_pane().log.last().unwrap() {
        Entry::Command { output, .. } => assert_eq!(output.as_deref(), Some("\"5\"")),
        other => panic!("{other:?}"),
    }
}
