//! Debug runs (debug.rs): stepping line by line, the position and locals at each stop.
use super::*;

/// A host that records each line it is asked about, pauses at every line (or not), and
/// pauses at every count event (or not); `redis.call` answers its arguments.
#[derive(Default)]
struct Stepper {
    lines: Vec<i32>,
    pause_lines: bool,
    pause_count: bool,
}

impl Host for Stepper {
    fn call(&mut self, argv: Vec<Vec<u8>>, _resp: u8) -> Value {
        Value::Array(argv.into_iter().map(Value::Bulk).collect())
    }
    fn interrupt(&mut self) -> Interrupt {
        if self.pause_count {
            Interrupt::Pause
        } else {
            Interrupt::Continue
        }
    }
    fn on_line(&mut self, line: i32) -> Interrupt {
        self.lines.push(line);
        if self.pause_lines {
            Interrupt::Pause
        } else {
            Interrupt::Continue
        }
    }
    fn log(&mut self, _level: i32, _message: &[u8]) {}
    fn acl_check(&mut self, _argv: &[Vec<u8>]) -> Option<bool> {
        Some(true)
    }
}

fn compile(env: &mut Env, body: &str) -> String {
    let sha = crate::sha1hex(body.as_bytes());
    env.create_script(&sha, body.as_bytes()).unwrap();
    sha
}

/// Steps `body` to its end: the position at each stop, and the result.
fn step_through(
    body: &str,
    keys: &[&[u8]],
    argv: &[&[u8]],
) -> (Vec<Position>, Result<Value, ScriptError>) {
    let mut env = Env::new();
    let sha = compile(&mut env, body);
    let mut host = Stepper {
        pause_lines: true,
        ..Stepper::default()
    };
    let mut stops = Vec::new();
    let mut step = env.start_debug(&sha, keys, argv, &mut host);
    loop {
        match step {
            Step::Done(out) => {
                assert!(env.position().is_none());
                return (stops, out);
            }
            Step::Paused => {
                let at = env.position().expect("a paused debug run has a position");
                assert_eq!(Some(&at.line), host.lines.last());
                stops.push(at.clone());
                step = env.resume(&mut host);
            }
        }
    }
}

/// The lines Lua's own line hook (`debug.sethook`) reports for `body`'s chunk.
fn reference_lines(body: &str) -> Vec<i32> {
    let mut lua = crate::Lua::new();
    let src = format!(
        "local f = assert(loadstring({body:?}, '=s'))\n\
         local lines = {{}}\n\
         KEYS, ARGV = {{}}, {{}}\n\
         debug.sethook(function(_, l)\n\
           if debug.getinfo(2, 'S').source == '=s' then lines[#lines + 1] = l end\n\
         end, 'l')\n\
         f()\n\
         debug.sethook()\n\
         return table.concat(lines, ',')"
    );
    let out = lua.run("@ref", src.as_bytes()).unwrap();
    let s = String::from_utf8(out[0].clone()).unwrap();
    s.split(',').map(|n| n.parse().unwrap()).collect()
}

fn locals(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

fn normal_run(body: &str, keys: &[&[u8]], argv: &[&[u8]]) -> Result<Value, ScriptError> {
    let mut env = Env::new();
    let sha = compile(&mut env, body);
    env.run_script(&sha, keys, argv, &mut Stepper::default())
}

#[test]
fn a_four_line_script_stops_before_each_line_with_its_locals() {
    let body = "local a = 1\nlocal b = a + 1 .. ''\nlocal t = {a, b, 'x\\n', {1}, true}\nreturn redis.call('echo', b, KEYS[1], ARGV[1])";
    let (k, v): (&[u8], &[u8]) = (b"key", b"arg");
    let (stops, out) = step_through(body, &[k], &[v]);
    let lines: Vec<i32> = stops.iter().map(|p| p.line).collect();
    assert_eq!(lines, [1, 2, 3, 4]);
    assert_eq!(stops[0].locals, locals(&[]));
    assert_eq!(stops[1].locals, locals(&[("a", "1")]));
    assert_eq!(stops[2].locals, locals(&[("a", "1"), ("b", "\"2\"")]));
    assert_eq!(
        stops[3].locals,
        locals(&[
            ("a", "1"),
            ("b", "\"2\""),
            ("t", "{1; \"2\"; \"x\\n\"; {1}; true}")
        ])
    );
    assert_eq!(out, normal_run(body, &[k], &[v]));
    assert_eq!(
        out,
        Ok(Value::Array(
            ["echo", "2", "key", "arg"]
                .iter()
                .map(|s| Value::Bulk(s.as_bytes().to_vec()))
                .collect()
        ))
    );
}

#[test]
fn a_loop_revisits_its_lines_as_luas_own_hook_reports_them() {
    let body =
        "local s = 0\nfor i = 1, 3 do\n  s = s + i\nend\nlocal m = {k = s, [1.5] = 'x'}\nreturn s";
    let (stops, out) = step_through(body, &[], &[]);
    let lines: Vec<i32> = stops.iter().map(|p| p.line).collect();
    assert_eq!(lines, reference_lines(body));
    assert_eq!(lines.iter().filter(|&&l| l == 3).count(), 3);
    // Inside the loop, its counter is a local; Lua's internal ones are not shown.
    let in_loop: Vec<_> = stops.iter().filter(|p| p.line == 3).collect();
    assert_eq!(in_loop[1].locals, locals(&[("s", "1"), ("i", "2")]));
    let last = stops.last().unwrap();
    assert_eq!(last.line, 6);
    let m = &last.locals[1];
    assert!(
        m == &("m".to_string(), "{[\"k\"]=6; [1.5]=\"x\"}".to_string())
            || m == &("m".to_string(), "{[1.5]=\"x\"; [\"k\"]=6}".to_string()),
        "{m:?}"
    );
    assert_eq!(out, Ok(Value::Int(6)));
    assert_eq!(out, normal_run(body, &[], &[]));
}

#[test]
fn pcalled_functions_are_stepped_too() {
    let body = "local function f(x)\n  local y = x * 2\n  return y\nend\nlocal ok, v = pcall(f, 21)\nreturn v";
    let (stops, out) = step_through(body, &[], &[]);
    let lines: Vec<i32> = stops.iter().map(|p| p.line).collect();
    assert_eq!(lines, reference_lines(body));
    assert!(lines.contains(&2) && lines.contains(&3), "{lines:?}");
    // Inside f, its own locals.
    let at3 = stops.iter().find(|p| p.line == 3).unwrap();
    assert_eq!(at3.locals, locals(&[("x", "21"), ("y", "42")]));
    assert_eq!(out, Ok(Value::Int(42)));
}

#[test]
fn pauses_for_time_slices_do_not_repeat_or_lose_line_events() {
    // A count pause every 100,000 instructions, amid line events: each line's event
    // comes exactly once, as Lua's own hook sends them.
    let body = "local n = 0\nfor i = 1, 150000 do\n  n = n + 1\n  n = n - 1\nend\nreturn n";
    let mut env = Env::new();
    let sha = compile(&mut env, body);
    for pause_lines in [false, true] {
        let mut host = Stepper {
            pause_lines,
            pause_count: true,
            ..Stepper::default()
        };
        let mut pauses = 0;
        let mut step = env.start_debug(&sha, &[], &[], &mut host);
        while step == Step::Paused {
            pauses += 1;
            step = env.resume(&mut host);
        }
        assert_eq!(step, Step::Done(Ok(Value::Int(0))));
        assert!(pauses > 1, "{pauses} pauses, pause_lines {pause_lines}");
        assert_eq!(
            host.lines,
            reference_lines(body),
            "pause_lines {pause_lines}"
        );
    }
}

#[test]
fn a_normal_run_after_a_debug_run_gets_no_line_events() {
    let body = "local a = 1\nreturn a";
    let mut env = Env::new();
    let sha = compile(&mut env, body);
    let mut host = Stepper {
        pause_lines: true,
        ..Stepper::default()
    };
    assert_eq!(env.start_debug(&sha, &[], &[], &mut host), Step::Paused);
    env.abandon();
    assert!(env.position().is_none());
    let mut host = Stepper {
        pause_lines: true,
        ..Stepper::default()
    };
    assert_eq!(env.run_script(&sha, &[], &[], &mut host), Ok(Value::Int(1)));
    assert!(host.lines.is_empty());
}
