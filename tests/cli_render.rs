//! `kvlab::engine::cli::format_reply` must print exactly what `redis-cli` prints.
//!
//! For each command of a corpus that together produces every reply shape (status, error,
//! integer, nil, empty and nested arrays of 10 and 100+ elements, strings that need quoting
//! or `\xHH` escapes, and in RESP3 maps, sets, doubles, booleans, null and verbatim
//! strings), the real `redis-cli` runs the command against a real `redis-server` with
//! `--no-raw` (the terminal format, forced although stdout is a pipe), and the reply of the
//! same command read with our RESP client is rendered with `format_reply`. The two must
//! be equal byte for byte.
//!
//! The corpus is read-only: every command runs twice (once per client), so it must give the
//! same reply both times. The data it reads is written first, over RESP, so keys and values
//! can hold any bytes.
//!
//! The same corpus is also printed with `--raw` and compared with `format_reply_raw_bytes`
//! (the console's `--raw` switch).
//!
//! Not covered: RESP3 big numbers (redis-cli 7.0 can't print them), attributes and pushes
//! (redis-cli 7.0 drops or fails on them in this mode).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::Command;

use kvlab::engine::cli::{format_reply, format_reply_raw_bytes};
use support::process;
use support::resp::RespClient;

type Argv = Vec<Vec<u8>>;

fn argv(parts: &[&[u8]]) -> Argv {
    parts.iter().map(|p| p.to_vec()).collect()
}

/// Writes the data the corpus reads.
fn setup(c: &mut RespClient) {
    let mut cmds: Vec<Argv> = vec![
        argv(&[b"SET", b"s", b"hello world"]),
        argv(&[b"SET", b"empty", b""]),
        argv(&[b"SET", b"counter", b"-42"]),
        argv(&[
            b"SET",
            b"bin",
            b"\x00\x01\x7f\x80\xff \"quoted\" back\\slash\r\n\t\x07\x08 caf\xc3\xa9",
        ]),
        argv(&[b"SET", b"q\"uo\\te\nkey", b"v"]),
        argv(&[b"SADD", b"set", b"a", b"b", b"c"]),
        argv(&[
            b"ZADD", b"z", b"1.5", b"a", b"0.1", b"b", b"1e300", b"c", b"inf", b"d", b"-inf", b"e",
            b"-3", b"f", b"100", b"g",
        ]),
    ];
    for (name, n) in [(&b"list10"[..], 10), (b"list105", 105), (b"list3", 3)] {
        let mut c = argv(&[b"RPUSH", name]);
        c.extend((1..=n).map(|i| format!("item {i}").into_bytes()));
        cmds.push(c);
    }
    let mut h = argv(&[b"HSET", b"h12"]);
    for i in 1..=12 {
        h.push(format!("field{i}").into_bytes());
        h.push(format!("value {i}").into_bytes());
    }
    cmds.push(h);
    cmds.push(argv(&[b"HSET", b"h1", b"only", b"one"]));
    cmds.push(argv(&[
        b"GEOADD",
        b"geo",
        b"13.361389",
        b"38.115556",
        b"Palermo",
        b"15.087269",
        b"37.502669",
        b"Catania",
        b"0",
        b"0",
        b"origin",
        b"-0.0000001",
        b"-0.0000001",
        b"tiny",
    ]));
    for cmd in cmds {
        let r = c.call(&cmd).expect("setup command");
        assert!(!r.is_error(), "setup {cmd:?} failed: {r:?}");
    }
}

/// The read-only corpus: (RESP version, command).
fn corpus() -> Vec<(u8, Argv)> {
    let nested_lua = b"local t = {} for i = 1, 12 do t[i] = {i, 'x' .. i, {}} end return t";
    let deep_lua = b"return {1, {2, {3, {4, {}}}}, 'end'}";
    let big_nested_lua =
        b"local t = {} for i = 1, 103 do local u = {} for j = 1, 11 do u[j] = j end t[i] = u end return t";
    let mixed_lua = b"return {redis.status_reply('FINE'), redis.error_reply('ERR inner failure'), 7, 'str', false}";
    let mut v: Vec<(u8, Argv)> = Vec::new();
    for proto in [2u8, 3] {
        let cmds: Vec<Argv> = vec![
            argv(&[b"PING"]),
            argv(&[b"PING", b"with \"quotes\" and \\"]),
            argv(&[b"ECHO", b""]),
            argv(&[b"GET", b"s"]),
            argv(&[b"GET", b"empty"]),
            argv(&[b"GET", b"counter"]),
            argv(&[b"GET", b"bin"]),
            argv(&[b"GET", b"nosuchkey"]),
            argv(&[b"STRLEN", b"s"]),
            argv(&[b"TTL", b"nosuchkey"]),
            argv(&[b"DBSIZE"]),
            argv(&[b"NOSUCHCOMMAND", b"a", b"b"]),
            argv(&[b"GET", b"set"]),
            argv(&[b"GET"]),
            argv(&[b"MGET", b"s", b"nosuchkey", b"bin", b"empty"]),
            argv(&[b"LRANGE", b"nosuchkey", b"0", b"-1"]),
            argv(&[b"LRANGE", b"list3", b"0", b"-1"]),
            argv(&[b"LRANGE", b"list10", b"0", b"-1"]),
            argv(&[b"LRANGE", b"list105", b"0", b"-1"]),
            argv(&[b"KEYS", b"q*"]),
            argv(&[b"SMEMBERS", b"set"]),
            argv(&[b"SMEMBERS", b"nosuchkey"]),
            argv(&[b"HGETALL", b"h12"]),
            argv(&[b"HGETALL", b"h1"]),
            argv(&[b"HGETALL", b"nosuchkey"]),
            argv(&[b"ZSCORE", b"z", b"a"]),
            argv(&[b"ZSCORE", b"z", b"b"]),
            argv(&[b"ZSCORE", b"z", b"c"]),
            argv(&[b"ZSCORE", b"z", b"d"]),
            argv(&[b"ZSCORE", b"z", b"e"]),
            argv(&[b"ZSCORE", b"z", b"nosuchmember"]),
            argv(&[b"ZRANGE", b"z", b"0", b"-1", b"WITHSCORES"]),
            argv(&[b"ZMSCORE", b"z", b"a", b"nosuchmember", b"f"]),
            argv(&[b"ZRANGEBYSCORE", b"z", b"-inf", b"+inf", b"WITHSCORES"]),
            argv(&[b"ZREVRANGE", b"z", b"0", b"2", b"WITHSCORES"]),
            argv(&[b"ZUNION", b"2", b"z", b"z", b"WITHSCORES"]),
            // Coordinates: RESP3 doubles whose text is not `%.17g` (17 decimals).
            argv(&[
                b"GEOPOS",
                b"geo",
                b"Palermo",
                b"nosuchmember",
                b"origin",
                b"tiny",
            ]),
            argv(&[b"GEODIST", b"geo", b"Palermo", b"Catania", b"km"]),
            argv(&[
                b"GEOSEARCH",
                b"geo",
                b"FROMLONLAT",
                b"15",
                b"37",
                b"BYRADIUS",
                b"200",
                b"km",
                b"ASC",
                b"WITHCOORD",
                b"WITHDIST",
                b"WITHHASH",
            ]),
            argv(&[
                b"GEORADIUS_RO",
                b"geo",
                b"15",
                b"37",
                b"200",
                b"km",
                b"WITHCOORD",
            ]),
            argv(&[b"EVAL", nested_lua, b"0"]),
            argv(&[b"EVAL", deep_lua, b"0"]),
            argv(&[b"EVAL", big_nested_lua, b"0"]),
            argv(&[b"EVAL", mixed_lua, b"0"]),
            argv(&[b"COMMAND", b"INFO", b"get", b"nosuchcommand"]),
            argv(&[b"COMMAND", b"DOCS", b"get", b"set"]),
            argv(&[b"CONFIG", b"GET", b"*"]),
            argv(&[b"CONFIG", b"GET", b"maxmemory"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"string"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"integer"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"double"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"null"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"array"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"set"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"map"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"true"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"false"]),
            argv(&[b"DEBUG", b"PROTOCOL", b"verbatim"]),
        ];
        v.extend(cmds.into_iter().map(|c| (proto, c)));
    }
    v
}

/// What `redis-cli` prints for one command, with `mode` `--no-raw` or `--raw`.
fn redis_cli(port: u16, proto: u8, cmd: &Argv, mode: &str) -> Vec<u8> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), mode])
        .arg(if proto == 3 { "-3" } else { "-2" })
        .args(cmd.iter().map(|a| OsStr::from_bytes(a)))
        .output()
        .expect("run redis-cli");
    assert!(
        !out.stdout.is_empty(),
        "redis-cli printed nothing for {cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn require_redis_cli() {
    let ok = Command::new("redis-cli")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "redis-cli is not installed; install it with scripts/setup.sh (or: apt-get install -y redis-tools)"
    );
}

#[test]
fn format_reply_prints_what_redis_cli_prints() {
    compare("--no-raw", |reply, _| format_reply(reply).into_bytes());
}

#[test]
fn format_reply_raw_prints_what_redis_cli_raw_prints() {
    compare("--raw", format_reply_raw_bytes);
}

/// Runs the corpus through `redis-cli <mode>` and through `ours`; every output must match.
fn compare(mode: &str, ours: fn(&kvlab::engine::Reply, u8) -> Vec<u8>) {
    let started = std::time::Instant::now();
    require_redis_cli();
    let server = process::redis_server(&[]);
    let mut c2 = server.client();
    setup(&mut c2);
    let mut c3 = server.client();
    let hello = c3.call(&["HELLO", "3"]).expect("HELLO 3");
    assert!(!hello.is_error(), "HELLO 3: {hello:?}");

    let corpus = corpus();
    let mut failures = Vec::new();
    for (proto, cmd) in &corpus {
        let client = if *proto == 3 { &mut c3 } else { &mut c2 };
        let reply = client.call(cmd).expect("command");
        let mut ours = ours(&reply, *proto);
        ours.push(b'\n');
        let theirs = redis_cli(server.port, *proto, cmd, mode);
        if ours != theirs {
            failures.push(format!(
                "RESP{proto} {:?}\n--- redis-cli {mode}\n{}\n--- ours\n{}\n",
                cmd.iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>(),
                String::from_utf8_lossy(&theirs),
                String::from_utf8_lossy(&ours),
            ));
        }
    }
    println!(
        "{mode}: {} commands rendered, {} differ, {:.2} s",
        corpus.len(),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} renderings differ from redis-cli {mode}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
