//! The environment with a stand-in host: conversions, protections, the redis.* API.
use super::*;

/// A host that answers every command with its own arguments as an array, and a few
/// commands with fixed replies of each type.
#[derive(Default)]
struct Echo {
    log: Vec<(i32, Vec<u8>)>,
}

impl Host for Echo {
    fn call(&mut self, argv: Vec<Vec<u8>>, resp: u8) -> Value {
        match argv[0].as_slice() {
            b"err" => Value::Error(
                b"WRONGTYPE Operation against a key holding the wrong kind of value".to_vec(),
            ),
            b"ok" => Value::Status(b"OK".to_vec()),
            b"nil" if resp == 2 => Value::NullBulk,
            b"nil" => Value::Null,
            b"int" => Value::Int(42),
            _ => Value::Array(argv.into_iter().map(Value::Bulk).collect()),
        }
    }
    fn log(&mut self, level: i32, message: &[u8]) {
        self.log.push((level, message.to_vec()));
    }
    fn acl_check(&mut self, _argv: &[Vec<u8>]) -> Option<bool> {
        Some(true)
    }
}

fn eval(env: &mut Env, body: &str, keys: &[&str], argv: &[&str]) -> Result<Value, String> {
    let sha = crate::sha1hex(body.as_bytes());
    if !env.has_script(&sha) {
        env.create_script(&sha, body.as_bytes())
            .map_err(|e| String::from_utf8(e).unwrap())?;
    }
    let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
    let argv: Vec<&[u8]> = argv.iter().map(|k| k.as_bytes()).collect();
    env.run_script(&sha, &keys, &argv, &mut Echo::default())
        .map_err(|e| String::from_utf8(e.0).unwrap())
}

fn bulk(s: &str) -> Value {
    Value::Bulk(s.as_bytes().to_vec())
}

#[test]
fn scripts_see_keys_argv_and_call_results() {
    let mut env = Env::new();
    assert_eq!(
        eval(
            &mut env,
            "return {KEYS[1], ARGV[1], #ARGV}",
            &["k"],
            &["a", "b"]
        ),
        Ok(Value::Array(vec![bulk("k"), bulk("a"), Value::Int(2)]))
    );
    assert_eq!(
        eval(&mut env, "return redis.call('echo', 3.5, 7)", &[], &[]),
        Ok(Value::Array(vec![bulk("echo"), bulk("3.5"), bulk("7")]))
    );
    assert_eq!(
        eval(&mut env, "return redis.call('ok')", &[], &[]),
        Ok(Value::Status(b"OK".to_vec()))
    );
    assert_eq!(
        eval(&mut env, "return redis.call('nil') == false", &[], &[]),
        Ok(Value::Int(1))
    );
    assert_eq!(eval(&mut env, "return 10/3", &[], &[]), Ok(Value::Int(3)));
    assert_eq!(
        eval(&mut env, "return 1/0", &[], &[]),
        Ok(Value::Int(i64::MIN))
    );
    assert_eq!(
        eval(&mut env, "return {1, 2, nil, 4}", &[], &[]),
        Ok(Value::Array(vec![Value::Int(1), Value::Int(2)]))
    );
    assert_eq!(eval(&mut env, "return false", &[], &[]), Ok(Value::Null));
    assert_eq!(eval(&mut env, "return true", &[], &[]), Ok(Value::Int(1)));
}

#[test]
fn errors_read_as_redis_writes_them() {
    let mut env = Env::new();
    let sha = crate::sha1hex(b"error('a')");
    assert_eq!(
        eval(&mut env, "error('a')", &[], &[]),
        Err(format!(
            "ERR user_script:1: a script: {sha}, on @user_script:1."
        ))
    );
    let body = "return redis.call('err')";
    let sha = crate::sha1hex(body.as_bytes());
    assert_eq!(
        eval(&mut env, body, &[], &[]),
        Err(format!("WRONGTYPE Operation against a key holding the wrong kind of value script: {sha}, on @user_script:1."))
    );
    assert_eq!(
        eval(&mut env, "return redis.pcall('err')", &[], &[]),
        Ok(Value::Error(
            b"WRONGTYPE Operation against a key holding the wrong kind of value".to_vec()
        ))
    );
    assert_eq!(
        eval(&mut env, "return (", &[], &[]),
        Err("user_script:1: unexpected symbol near '<eof>'".into())
    );
    let body = "x = 1";
    let sha = crate::sha1hex(body.as_bytes());
    assert_eq!(eval(&mut env, body, &[], &[]), Err(format!("ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1.")));
    let body = "return y";
    let sha = crate::sha1hex(body.as_bytes());
    assert_eq!(
        eval(&mut env, body, &[], &[]),
        Err(format!("ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: {sha}, on @user_script:1."))
    );
}

#[test]
fn globals_are_redis_7_0s() {
    let mut env = Env::new();
    let body = "local t = {} for k in pairs(_G) do t[#t+1] = k end table.sort(t) return t";
    let Ok(Value::Array(names)) = eval(&mut env, body, &[], &[]) else {
        panic!()
    };
    let names: Vec<String> = names
        .into_iter()
        .map(|v| match v {
            Value::Bulk(b) => String::from_utf8(b).unwrap(),
            _ => panic!(),
        })
        .collect();
    // Recorded from redis-server 7.0.15 (cjson, cmsgpack, struct and bit come from the libs module).
    for name in [
        "KEYS",
        "ARGV",
        "_G",
        "_VERSION",
        "__redis__err__handler",
        "assert",
        "collectgarbage",
        "coroutine",
        "error",
        "gcinfo",
        "getmetatable",
        "ipairs",
        "load",
        "loadstring",
        "math",
        "next",
        "pairs",
        "pcall",
        "rawequal",
        "rawget",
        "rawset",
        "redis",
        "select",
        "setmetatable",
        "string",
        "table",
        "tonumber",
        "tostring",
        "type",
        "unpack",
        "xpcall",
    ] {
        assert!(
            names.contains(&name.to_string()),
            "{name} missing from {names:?}"
        );
    }
    for gone in [
        "getfenv", "setfenv", "newproxy", "print", "dofile", "loadfile", "debug", "os", "io",
        "require", "module", "package",
    ] {
        assert!(!names.contains(&gone.to_string()), "{gone} present");
    }
}

/// A host that asks for a pause at every check, and a kill after `kill_after` of them.
#[derive(Default)]
struct Pauser {
    checks: usize,
    kill_after: Option<usize>,
}

impl Host for Pauser {
    fn call(&mut self, argv: Vec<Vec<u8>>, _resp: u8) -> Value {
        Value::Array(argv.into_iter().map(Value::Bulk).collect())
    }
    fn interrupt(&mut self) -> Interrupt {
        self.checks += 1;
        match self.kill_after {
            Some(n) if self.checks > n => Interrupt::Kill,
            _ => Interrupt::Pause,
        }
    }
    fn log(&mut self, _level: i32, _message: &[u8]) {}
    fn acl_check(&mut self, _argv: &[Vec<u8>]) -> Option<bool> {
        Some(true)
    }
}

/// Runs `body` with a host that pauses it at every check; returns the result and how
/// many times it paused.
fn eval_paused(env: &mut Env, body: &str, host: &mut Pauser) -> (Result<Value, String>, usize) {
    let sha = crate::sha1hex(body.as_bytes());
    if !env.has_script(&sha) {
        env.create_script(&sha, body.as_bytes()).unwrap();
    }
    let mut pauses = 0;
    let mut step = env.start_script(&sha, &[], &[], host);
    loop {
        match step {
            Step::Done(out) => {
                assert!(!env.is_paused());
                return (out.map_err(|e| String::from_utf8(e.0).unwrap()), pauses);
            }
            Step::Paused => {
                assert!(env.is_paused());
                pauses += 1;
                step = env.resume(host);
            }
        }
    }
}

#[test]
fn a_paused_script_ends_as_it_would_have_in_one_go() {
    let cases = [
        // At the script's own level.
        "local n = 0 for i = 1, 500000 do n = n + i end return n",
        // Inside pcall, nested, with results and errors passing out.
        "local n = 0 local f = function(k) for i = 1, 300000 do n = n + 1 end return k, n end \
         local a, b, c = pcall(f, 'x') local d, e = pcall(function() f() error('boom') end) \
         return {tostring(a), b, c, tostring(d), e}",
        "local f = function() for i = 1, 300000 do end error({err='MY error'}) end \
         return {pcall(function() return pcall(f) end)}",
        // An error after pauses keeps its place.
        "for i = 1, 300000 do end\nlocal t = nil\nreturn t.x",
        "for i = 1, 300000 do end error('plain')",
        "for i = 1, 300000 do end return redis.call('echo', 'hi')",
        // What the script sees of its thread.
        "for i = 1, 300000 do end return tostring(coroutine.running())",
        "for i = 1, 300000 do end coroutine.yield(1)",
        "return {pcall(coroutine.yield, 1)}",
        // The script's own coroutines still work, and do not pause.
        "local co = coroutine.create(function() for i = 1, 300000 do end coroutine.yield(5) return 7 end) \
         local _, a = coroutine.resume(co) local _, b = coroutine.resume(co) return {a, b}",
        // A comparator is a C boundary: no pause inside, the same result.
        "local t = {} for i = 1, 2000 do t[i] = (i * 7919) % 2003 end \
         table.sort(t, function(a, b) for i = 1, 50 do end return a < b end) return {t[1], t[2000]}",
    ];
    for body in cases {
        let expected = eval(&mut Env::new(), body, &[], &[]);
        let mut env = Env::new();
        let (got, _) = eval_paused(&mut env, body, &mut Pauser::default());
        assert_eq!(got, expected, "{body}");
        // The environment is fine afterwards.
        assert_eq!(eval(&mut env, "return 1", &[], &[]), Ok(Value::Int(1)));
    }
    let mut env = Env::new();
    let (_, pauses) = eval_paused(
        &mut env,
        "local n = 0 for i = 1, 500000 do n = n + i end return n",
        &mut Pauser::default(),
    );
    assert!(pauses >= 4, "paused {pauses} times");
    let (_, pauses) = eval_paused(
        &mut env,
        "local f = function() for i = 1, 500000 do end end pcall(f) return 1",
        &mut Pauser::default(),
    );
    assert!(pauses >= 4, "inside pcall: paused {pauses} times");
}

#[test]
fn a_kill_reaches_a_script_looping_in_pcall_across_pauses() {
    let mut env = Env::new();
    let mut host = Pauser {
        kill_after: Some(3),
        ..Pauser::default()
    };
    let (got, pauses) = eval_paused(
        &mut env,
        "local f = function() while true do end end while true do pcall(f) end",
        &mut host,
    );
    assert_eq!(pauses, 3);
    let err = got.unwrap_err();
    assert!(
        err.starts_with("ERR Script killed by user with SCRIPT KILL..."),
        "{err}"
    );
    assert_eq!(eval(&mut env, "return 2", &[], &[]), Ok(Value::Int(2)));
}

#[test]
fn an_abandoned_run_leaves_the_environment_usable() {
    let mut env = Env::new();
    let body = "while true do end";
    let sha = crate::sha1hex(body.as_bytes());
    env.create_script(&sha, body.as_bytes()).unwrap();
    assert_eq!(
        env.start_script(&sha, &[], &[], &mut Pauser::default()),
        Step::Paused
    );
    env.abandon();
    assert!(!env.is_paused());
    assert_eq!(eval(&mut env, "return 3", &[], &[]), Ok(Value::Int(3)));
}
