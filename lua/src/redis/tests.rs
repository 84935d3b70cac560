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
