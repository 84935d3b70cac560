//! Scripts for the differential stream: EVAL, EVALSHA, EVAL_RO and FCALL over the
//! generator's keys and values. Each script is one of a fixed set (so its digest, which
//! error replies name, is the same on both sides); what varies is the keys and arguments
//! it gets, which hit every type, missing keys and bad numbers. They cover what a script
//! sees of replies (nil as false, status and error tables, numbers, nested arrays), what
//! it gives back (truncated numbers, arrays cut at the first nil, status and error
//! replies), `redis.pcall` catching a command's error, the classic patterns (release a
//! lock if it is still yours, a counter with a deadline), shebang flags and read-only
//! runs, and scripts' own errors with their line.

use super::{exact, Cmd, G};

/// The scripts; `{}` marks none — each takes its keys and arguments from KEYS and ARGV.
const SCRIPTS: &[&str] = &[
    "return redis.call('GET', KEYS[1])",
    "return redis.call('SET', KEYS[1], ARGV[1])",
    "return redis.call('INCRBY', KEYS[1], ARGV[1])",
    "return redis.pcall('INCRBY', KEYS[1], ARGV[1])",
    "local ok, e = pcall(redis.call, 'LPUSH', KEYS[1], ARGV[1]) return {tostring(ok), type(e)}",
    "return redis.pcall('LPUSH', KEYS[1], ARGV[1])",
    "local t = redis.call('LRANGE', KEYS[1], 0, -1) return #t",
    "return {redis.call('TYPE', KEYS[1]), redis.call('EXISTS', KEYS[1])}",
    "return redis.call('TYPE', KEYS[1])['ok']",
    "return {redis.call('HLEN', KEYS[1]), redis.call('HGET', KEYS[1], 'f1')}",
    "return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')",
    "return redis.call('ZSCORE', KEYS[1], ARGV[1])",
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
    "local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], 1000) end return c",
    "return tonumber(ARGV[1])",
    "return {tonumber(ARGV[1]), 2.9, -2.9, 'x', false, true, nil, 3}",
    "return redis.call('GET', KEYS[1]) == false",
    "return redis.status_reply(ARGV[1])",
    "return redis.error_reply(ARGV[1])",
    "return {err = 'MINE ' .. ARGV[1]}",
    "return redis.call('NOSUCH', KEYS[1])",
    "return redis.call('GET')",
    "local x = nil\nreturn x.y",
    "error(ARGV[1])",
    "return string.format('%.14g|%d|%s', tonumber(ARGV[1]) or 0, #ARGV, KEYS[1])",
    "return cjson.encode({redis.call('EXISTS', KEYS[1]), ARGV[1]})",
    "return redis.sha1hex(ARGV[1])",
    "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('STRLEN', KEYS[1])",
    "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])",
    "#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'x')",
    "#!lua\nreturn redis.call('DEL', KEYS[1])",
];

/// `EVAL script numkeys key [arg]`.
pub fn g_eval(g: &mut G) -> Cmd {
    let script = g.pick(SCRIPTS);
    call(g, "EVAL", script.as_bytes().to_vec())
}

/// `EVAL_RO` of the same scripts: writes are refused.
pub fn g_eval_ro(g: &mut G) -> Cmd {
    let script = g.pick(SCRIPTS);
    call(g, "EVAL_RO", script.as_bytes().to_vec())
}

/// `EVALSHA` of a script run before (cached on both sides), or of one never seen
/// (`NOSCRIPT`).
pub fn g_evalsha(g: &mut G) -> Cmd {
    let sha = if g.chance(0.8) {
        let script = g.pick(SCRIPTS);
        sha1_hex(script.as_bytes())
    } else {
        "ffffffffffffffffffffffffffffffffffffffff".to_string()
    };
    call(g, "EVALSHA", sha.into_bytes())
}

/// `FCALL` of the harness's library (`FUNCTION LOAD`ed at the start of each seed on both
/// sides, see [`LIBRARY`]) or of a missing function.
pub fn g_fcall(g: &mut G) -> Cmd {
    let name = g.pick(&["kv_get", "kv_incr", "kv_missing"]);
    let ro = g.chance(0.3);
    call(
        g,
        if ro { "FCALL_RO" } else { "FCALL" },
        name.as_bytes().to_vec(),
    )
}

/// The library the stream's FCALLs call.
pub const LIBRARY: &str = "#!lua name=kvdiff\n\
redis.register_function{function_name='kv_get', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}}\n\
redis.register_function('kv_incr', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)";

fn call(g: &mut G, name: &str, what: Vec<u8>) -> Cmd {
    let mut argv = vec![g.word(name), what];
    match g.pick(&[0u8, 1, 1, 1, 2]) {
        0 => argv.push(b"0".to_vec()),
        1 => {
            argv.push(b"1".to_vec());
            argv.push(g.key());
        }
        _ => {
            argv.push(b"1".to_vec());
            argv.push(g.key());
            argv.push(g.val());
        }
    }
    if argv.len() == 4 && g.chance(0.7) {
        argv.push(g.val());
    }
    exact(argv)
}

/// SHA-1 in hex (the digest EVALSHA names a script by).
fn sha1_hex(data: &[u8]) -> String {
    kvlab::engine::scripting::sha1hex(data)
}
