//! Browser tests: run with `cargo test --target wasm32-unknown-unknown --test wasm`
//! (headless Chromium through wasm-bindgen-test-runner; see `.cargo/config.toml`).
//!
//! They check that the engine works on the browser's clock, that redis-cli rendering is the
//! same in wasm, that the console's state behaves like redis-cli, and finally mount the app
//! into the document and drive it with real DOM events.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;

use kvlab::engine::cli::{format_reply, split_args};
use kvlab::engine::{Clock, Engine, Reply};
use kvlab::ui::console::HelpZh;
use kvlab::ui::i18n::Lang;
use kvlab::ui::services::engine::browser_clock;
use kvlab::ui::state::{Action, Entry, LineAction, State};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, Event, EventInit, HtmlInputElement, KeyboardEvent, KeyboardEventInit};
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

/// An engine on the app's clock.
fn browser_engine() -> Engine {
    Engine::new(Box::new(browser_clock()), 7)
}

fn run(engine: &mut Engine, client: u64, line: &str) -> String {
    let argv = split_args(line).expect("balanced quotes");
    format_reply(&engine.execute(client, argv))
}

#[wasm_bindgen_test]
fn engine_runs_commands_on_the_browser_clock() {
    let mut engine = browser_engine();
    let c = engine.connect();
    assert_eq!(run(&mut engine, c, "SET greeting hello"), "OK");
    assert_eq!(run(&mut engine, c, "GET greeting"), "\"hello\"");
    assert_eq!(run(&mut engine, c, "GET missing"), "(nil)");
    assert_eq!(
        run(&mut engine, c, "SET k"),
        "(error) ERR wrong number of arguments for 'set' command"
    );
    // The clock is Date.now(): a client's connection time is the current time.
    let now = js_sys::Date::now() as i64;
    let created = engine.client(c).expect("connected").created_ms;
    assert!((now - created).abs() < 60_000, "{now} vs {created}");
    // Ticking with nothing volatile removes nothing and does not panic.
    assert_eq!(engine.tick(), 0);
}

/// The app's clock is `Date.now()`: a command's start time is the wall time of that
/// moment, and its monotonic reading never goes back.
#[wasm_bindgen_test]
fn the_browser_clock_reads_the_wall_time_and_never_goes_back() {
    let clock = browser_clock();
    let mut last = i64::MIN;
    for _ in 0..1_000 {
        let before = (js_sys::Date::now() * 1000.0) as i64;
        let (now, mono) = clock.now_and_monotonic_us();
        let after = (js_sys::Date::now() * 1000.0) as i64;
        assert!(
            before <= now && now <= after,
            "{before} <= {now} <= {after}"
        );
        assert!(last <= mono, "{last} <= {mono}");
        last = clock.monotonic_us();
        assert!(mono <= last, "{mono} <= {last}");
    }
}

#[wasm_bindgen_test]
fn cli_rendering_matches_redis_cli() {
    assert_eq!(
        split_args(r#"SET "a b" 'it\'s' "\x41""#),
        Some(vec![
            b"SET".to_vec(),
            b"a b".to_vec(),
            b"it's".to_vec(),
            b"A".to_vec()
        ])
    );
    assert_eq!(split_args(r#"GET "open"#), None);
    let nested = Reply::Array(vec![
        Reply::bulk(b"x\n"),
        Reply::Array(vec![Reply::Integer(1), Reply::Nil]),
    ]);
    assert_eq!(
        format_reply(&nested),
        "1) \"x\\n\"\n2) 1) (integer) 1\n   2) (nil)"
    );
}

fn state() -> Rc<State> {
    Rc::new(State::new(browser_engine(), Lang::En))
}

fn submit(s: Rc<State>, line: &str) -> Rc<State> {
    s.reduce(Action::Line(1, LineAction::Input(line.to_string())))
        .reduce(Action::Line(1, LineAction::Submit))
}

fn last_output(s: &State) -> (String, bool) {
    match s.first_pane().log.last().map(|e| (**e).clone()) {
        Some(Entry::Command { output, error, .. }) => (output.unwrap_or_default(), error),
        other => panic!("no command entry: {other:?}"),
    }
}

#[wasm_bindgen_test]
fn console_state_runs_lines_like_redis_cli() {
    let s = state();
    assert_eq!(
        s.first_pane().log.len(),
        1,
        "starts with the welcome banner"
    );
    let s = submit(s, "SET greeting hello");
    assert_eq!(last_output(&s), ("OK".to_string(), false));
    assert_eq!(s.first_pane().draft, "", "the box empties after Enter");
    let s = submit(s, "GET greeting");
    assert_eq!(last_output(&s), ("\"hello\"".to_string(), false));
    let s = submit(s, "SET \"unbalanced");
    assert_eq!(last_output(&s), ("Invalid argument(s)".to_string(), true));
    let s = submit(s, "NOPE");
    let (text, error) = last_output(&s);
    assert!(error && text.starts_with("(error) ERR unknown command 'NOPE'"));
    // The prompt shows the selected database as redis-cli does.
    assert_eq!(s.prompt(s.first_pane().client), "127.0.0.1:6379> ");
    let s = submit(s, "SELECT 3");
    assert_eq!(s.prompt(s.first_pane().client), "127.0.0.1:6379[3]> ");
    match &*s.first_pane().log[s.first_pane().log.len() - 1] {
        Entry::Command { prompt, .. } => assert_eq!(prompt, "127.0.0.1:6379> "),
        e => panic!("{e:?}"),
    }
    // An empty line echoes the prompt with no output and is not remembered.
    let s = submit(s, "   ");
    assert!(matches!(
        &*s.first_pane().log[s.first_pane().log.len() - 1],
        Entry::Command { output: None, .. }
    ));
    assert_eq!(s.history.len(), 5);
    // `clear` is redis-cli's built-in; Ctrl+L does the same.
    let before = s.first_pane().log.len() as u64;
    let s = submit(s, "clear");
    assert!(s.first_pane().log.is_empty());
    assert_eq!(
        s.first_pane().log_base,
        before,
        "keys of later blocks never reuse old ones"
    );
    let s = submit(s, "PING").reduce(Action::Line(1, LineAction::Clear));
    assert!(s.first_pane().log.is_empty());
}

#[wasm_bindgen_test]
fn history_walks_back_and_restores_the_draft() {
    let s = submit(submit(state(), "SET a 1"), "GET a");
    let s = s.reduce(Action::Line(1, LineAction::Input("half-typed".into())));
    let s = s.reduce(Action::Line(1, LineAction::HistoryPrev));
    assert_eq!(s.first_pane().draft, "GET a");
    let s = s.reduce(Action::Line(1, LineAction::HistoryPrev));
    assert_eq!(s.first_pane().draft, "SET a 1");
    let s = s.reduce(Action::Line(1, LineAction::HistoryPrev));
    assert_eq!(s.first_pane().draft, "SET a 1", "stops at the oldest line");
    let s = s.reduce(Action::Line(1, LineAction::HistoryNext));
    assert_eq!(s.first_pane().draft, "GET a");
    let s = s.reduce(Action::Line(1, LineAction::HistoryNext));
    assert_eq!(s.first_pane().draft, "half-typed");
    // Repeating a line does not add a duplicate.
    let s = submit(submit(s, "PING"), "PING");
    assert_eq!(s.history, ["SET a 1", "GET a", "PING"]);
}

/// Installs the command table's English prose as the page does once it has fetched it.
fn install_prose() {
    let prose = kvlab::ui::console::prose_from_json(include_str!("../www/i18n/help.en.json"))
        .expect("help.en.json parses");
    kvlab::engine::table::docs::install(prose);
}

#[wasm_bindgen_test]
fn hints_and_ticks() {
    // Hints read the syntax from the fetched prose; before it is in there is none.
    kvlab::engine::table::docs::forget();
    let s = state().reduce(Action::Line(1, LineAction::Input("get".into())));
    assert_eq!(s.hint(1), None);
    install_prose();
    let s = state().reduce(Action::Line(1, LineAction::Input("get".into())));
    assert_eq!(s.hint(1).as_deref(), Some(" key"));
    let s = s.reduce(Action::Line(1, LineAction::Input("get k".into())));
    assert_eq!(s.hint(1), None);
    let s = s.reduce(Action::Line(1, LineAction::Input("get k ".into())));
    assert_eq!(s.hint(1), None, "nothing left to hint");
    let s = s.reduce(Action::Line(1, LineAction::Input("set k ".into())));
    assert!(s.hint(1).is_some_and(|h| h.starts_with("value")));
    // A tick that expires nothing hands back the same Rc, so Yew skips the render.
    let before = state().reduce(Action::Tick);
    let after = before.clone().reduce(Action::Tick);
    assert!(Rc::ptr_eq(&before, &after));
    // Switching language changes the accessible names.
    let s = state().reduce(Action::SetLang(Lang::Zh));
    assert_eq!(s.lang.strings().command, "命令");
    assert_eq!(Lang::from_tag("zh-TW"), Lang::Zh);
    assert_eq!(Lang::from_tag("en-GB"), Lang::En);
}

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("document")
}

fn bubbling(kind: &str) -> Event {
    let init = EventInit::new();
    init.set_bubbles(true);
    Event::new_with_event_init_dict(kind, &init).expect("event")
}

fn press_enter(input: &HtmlInputElement) {
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    init.set_cancelable(true);
    let e = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("keydown");
    input.dispatch_event(&e).expect("dispatch");
}

async fn type_line(root: &Element, line: &str) {
    let input: HtmlInputElement = root
        .query_selector("input[aria-label='Command']")
        .expect("query")
        .expect("the command box is labelled 'Command'")
        .dyn_into()
        .expect("an <input>");
    input.set_value(line);
    input.dispatch_event(&bubbling("input")).expect("dispatch");
    yew::scheduler::flush().await;
    press_enter(&input);
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn mounted_console_runs_typed_commands() {
    let root = document().create_element("div").expect("div");
    document()
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    let handle = yew::Renderer::<kvlab::ui::app::App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;

    // The UI starts in the browser's language; make it English for the labels below.
    if root
        .query_selector("input[aria-label='Command']")
        .ok()
        .flatten()
        .is_none()
    {
        let button: web_sys::HtmlElement = root
            .query_selector("button.lang:not(.ws-button)")
            .expect("query")
            .expect("language button")
            .dyn_into()
            .expect("button");
        button.click();
        yew::scheduler::flush().await;
    }

    type_line(&root, "SET greeting hello").await;
    type_line(&root, "GET greeting").await;
    type_line(&root, "GETT greeting").await;

    let log = root
        .query_selector("[role='log']")
        .expect("query")
        .expect("an output log");
    let text = log.text_content().unwrap_or_default();
    assert!(text.contains("127.0.0.1:6379> GET greeting"), "{text}");
    assert!(text.contains("\"hello\""), "{text}");
    let error = log
        .query_selector(".out.error")
        .expect("query")
        .expect("the error is styled");
    assert!(error
        .text_content()
        .unwrap_or_default()
        .starts_with("(error) ERR unknown command 'GETT'"));

    // The language switch renames the command box.
    let button: web_sys::HtmlElement = root
        .query_selector("button.lang:not(.ws-button)")
        .expect("query")
        .expect("language button")
        .dyn_into()
        .expect("button");
    button.click();
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("input[aria-label='命令']")
        .expect("query")
        .is_some());

    handle.destroy();
    root.remove();
}

#[wasm_bindgen_test]
fn engine_service_hands_every_write_to_its_observers() {
    use kvlab::ui::services::engine::EngineService;
    use std::cell::RefCell;
    let service = EngineService::new(browser_engine());
    let seen: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
    let sink = seen.clone();
    let id = service.observe(Rc::new(move |effects: &[kvlab::engine::Effect]| {
        sink.borrow_mut()
            .extend(effects.iter().map(|e| e.argv.concat()));
    }));
    let c = service.connect();
    let argv = |line: &str| split_args(line).expect("balanced");
    let v0 = service.version();
    service.submit(c, argv("SET k v"));
    service.submit(c, argv("GET k"));
    assert_eq!(*seen.borrow(), [b"SETkv".to_vec()], "reads have no effects");
    assert_eq!(service.version(), v0 + 1);
    service.unobserve(id);
    service.submit(c, argv("DEL k"));
    assert_eq!(seen.borrow().len(), 1, "a removed observer hears nothing");
}

#[wasm_bindgen_test]
fn panes_are_clients_that_see_each_others_messages() {
    let s = state().reduce(Action::AddPane);
    assert_eq!(s.ws.panes.len(), 2);
    let line = |s: Rc<State>, pane: u32, text: &str| {
        s.reduce(Action::Line(pane, LineAction::Input(text.into())))
            .reduce(Action::Line(pane, LineAction::Submit))
    };
    let s = line(s, 1, "SUBSCRIBE news");
    let s = line(s, 2, "PUBLISH news hi");
    let last = s
        .pane(1)
        .and_then(|p| p.log.last().cloned())
        .expect("an entry");
    assert_eq!(
        *last,
        Entry::Late {
            output: "1) \"message\"\n2) \"news\"\n3) \"hi\"".into(),
            error: false
        }
    );
    // Closing a pane disconnects its client: nobody hears the next message.
    let s = s.reduce(Action::ClosePane(1));
    assert_eq!(s.ws.panes.len(), 1);
    let s = line(s, 2, "PUBLISH news again");
    match s.pane(2).and_then(|p| p.log.last().cloned()).as_deref() {
        Some(Entry::Command { output, .. }) => assert_eq!(output.as_deref(), Some("(integer) 0")),
        e => panic!("{e:?}"),
    }
}

#[wasm_bindgen_test]
fn completion_help_paste_and_the_key_tree() {
    let s = state().reduce(Action::Line(1, LineAction::Input("RPOPL".into())));
    let s = s.reduce(Action::Line(1, LineAction::Complete));
    assert_eq!(s.first_pane().draft, "RPOPLPUSH ");
    // The browser build fetches the table's English prose (engine::table::docs): a HELP
    // printed before it is in names the command only, and is rewritten when it arrives.
    kvlab::engine::table::docs::forget();
    assert!(!kvlab::engine::table::docs::available());
    let es = Rc::new(State::new(browser_engine(), Lang::En));
    let es = submit(es, "HELP SET");
    assert!(last_output(&es).0.contains("SET"));
    assert!(!last_output(&es).0.contains("SET key value"));
    assert!(!last_output(&es).0.contains("Stores a string"));
    install_prose();
    let es = es.reduce(Action::HelpTexts);
    assert!(last_output(&es).0.contains("SET key value"));
    assert!(
        last_output(&es).0.contains("Stores a string"),
        "{}",
        last_output(&es).0
    );
    // A container's HELP lines come with the same file: until then the reply says so.
    kvlab::engine::table::docs::forget();
    let es = submit(es, "OBJECT HELP");
    assert!(
        last_output(&es).0.contains("still loading"),
        "{:?}",
        last_output(&es)
    );
    install_prose();
    let es = submit(es, "OBJECT HELP");
    assert!(
        last_output(&es).0.contains("ENCODING <key>") && !last_output(&es).0.contains("loading"),
        "{:?}",
        last_output(&es)
    );
    // Chinese labels always; Chinese summaries once the texts are fetched, English until.
    let zh = kvlab::ui::console::help(&[b"set".to_vec()], Lang::Zh, None);
    assert!(
        zh.contains("概要：") && zh.contains("SET key value") && zh.contains("Stores a string"),
        "{zh}"
    );
    let texts = HelpZh::from_json(include_str!("../www/i18n/help.zh-CN.json")).expect("parses");
    let zh = kvlab::ui::console::help(&[b"set".to_vec()], Lang::Zh, Some(&texts));
    assert!(
        zh.contains("在键中存入字符串") && zh.contains("string（字符串）"),
        "{zh}"
    );
    let en = kvlab::ui::console::help(&[b"set".to_vec()], Lang::En, Some(&texts));
    assert!(
        en.contains("Stores a string") && !en.contains("字符串"),
        "{en}"
    );
    // A HELP printed in English while the texts load is rewritten when they arrive.
    let zs = Rc::new(State::new(browser_engine(), Lang::Zh));
    let zs = zs.reduce(Action::Line(1, LineAction::Input("h".into())));
    assert!(zs.wants_help_zh());
    let zs = submit(zs, "HELP CONFIG GET");
    assert!(last_output(&zs).0.contains("Returns the parameters"));
    let zs = zs.reduce(Action::HelpZh(Rc::new(texts)));
    assert!(!zs.wants_help_zh());
    assert!(
        last_output(&zs)
            .0
            .contains("返回名称或通配符模式匹配的参数"),
        "{:?}",
        last_output(&zs)
    );
    let s = s.reduce(Action::Line(1, LineAction::Input(String::new())));
    let s = s.reduce(Action::Line(
        1,
        LineAction::Paste("\nSET user:1 a\nSET user:2 b\n".into()),
    ));
    assert_eq!(last_output(&s), ("OK".to_string(), false));
    assert_eq!(s.ws.index.borrow().len(), 2);
    assert_eq!(s.rows.0.len(), 1, "one folder: user");
    let s = s.reduce(Action::ToggleFolder(b"user:".to_vec()));
    assert_eq!(s.rows.0.len(), 3);
    let s = s.reduce(Action::Select(b"user:1".to_vec()));
    let s = submit(s, "APPEND user:1 z");
    let view = s.view.clone().expect("a view");
    assert_eq!(view.changed_by.as_deref(), Some("APPEND"));
}
