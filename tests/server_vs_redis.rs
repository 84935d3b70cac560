//! The native server against a real `redis-server` 7.0, over raw sockets: the same bytes go
//! to both, and everything each sends back (up to closing the connection) must be equal.
//! For what only the network layer decides: limits on what a client that has not
//! authenticated may send, the connection-level fields of `CLIENT LIST`, `CONFIG SET port`.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use support::process::{self, ServerGuard};
use support::resp::encode_command;

/// Both servers, started fresh.
fn servers() -> [ServerGuard; 2] {
    let redis = process::redis_server(&[]);
    let kvlab = process::kvlab_server(env!("CARGO_BIN_EXE_kvlab-server"))
        .unwrap_or_else(|e| panic!("kvlab-server did not start: {e:?}"));
    [redis, kvlab]
}

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_nodelay(true).unwrap();
    s
}

/// Sends `input`, then reads until the server closes the connection or stays silent for
/// `quiet_ms`; returns what arrived and whether the connection was closed.
fn exchange(s: &mut TcpStream, input: &[u8], quiet_ms: u64) -> (Vec<u8>, bool) {
    s.write_all(input).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(quiet_ms)))
        .unwrap();
    let mut all = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (all, true),
            Ok(n) => all.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return (all, true),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return (all, false)
            }
            Err(e) => panic!("read: {e}"),
        }
    }
}

/// One command on `s`, its raw reply (read until 200 ms of silence).
fn call(s: &mut TcpStream, args: &[&[u8]]) -> Vec<u8> {
    exchange(s, &encode_command(args), 200).0
}

fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.len() > 300 {
        format!("{}… ({} bytes)", &s[..300], s.len())
    } else {
        s.into_owned()
    }
}

/// The `name:value` lines of an INFO section whose name starts with one of `prefixes`.
fn info_lines(s: &mut TcpStream, section: &str, prefixes: &[&str]) -> Vec<String> {
    let raw = call(s, &[b"INFO", section.as_bytes()]);
    String::from_utf8_lossy(&raw)
        .lines()
        .filter(|l| prefixes.iter().any(|p| l.starts_with(p)))
        .map(str::to_string)
        .collect()
}

#[test]
fn unauthenticated_clients_may_not_send_big_headers() {
    let mut big_after_auth =
        b"*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20000\r\n".to_vec();
    big_after_auth.extend_from_slice(&[b'x'; 20000]);
    big_after_auth.extend_from_slice(b"\r\n");
    let cases: Vec<Vec<u8>> = vec![
        b"*11\r\n".to_vec(),
        b"*10\r\n".to_vec(),
        b"*1\r\n$16385\r\n".to_vec(),
        b"*1\r\n$16384\r\n".to_vec(),
        b"*1\r\n$99999999999\r\n".to_vec(),
        b"*2147483648\r\n".to_vec(),
        b"*2\r\n$4\r\nPING\r\n$16385\r\n".to_vec(),
        b"PING\r\n*11\r\n".to_vec(),
        b"*12\r\n$4\r\nAUTH\r\n".to_vec(),
        // AUTH earlier in the same pipeline lifts the limits for what follows it.
        b"*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*11\r\n$1\r\na\r\n".to_vec(),
        big_after_auth,
        // Inline requests keep their own 64 KB line limit only.
        b"a b c d e f g h i j k l\r\n".to_vec(),
    ];
    let mut got: Vec<Vec<(Vec<u8>, bool)>> = Vec::new();
    let mut stats = Vec::new();
    for srv in servers() {
        let mut admin = connect(srv.port);
        // A client connected before the password was set stays authenticated.
        assert_eq!(
            call(&mut admin, &[b"CONFIG", b"SET", b"requirepass", b"pw"]),
            b"+OK\r\n"
        );
        call(&mut admin, &[b"CONFIG", b"RESETSTAT"]);
        let mut replies = Vec::new();
        for input in &cases {
            replies.push(exchange(&mut connect(srv.port), input, 300));
        }
        // The errors were counted like any other error reply.
        stats.push(info_lines(&mut admin, "errorstats", &["errorstat_"]));
        stats.push(info_lines(&mut admin, "stats", &["total_error_replies"]));
        call(&mut admin, &[b"CONFIG", b"SET", b"requirepass", b""]);
        got.push(replies);
    }
    for (i, input) in cases.iter().enumerate() {
        let (redis, kvlab) = (&got[0][i], &got[1][i]);
        assert_eq!(
            (show(&kvlab.0), kvlab.1),
            (show(&redis.0), redis.1),
            "input {}",
            show(input)
        );
    }
    assert_eq!(stats[2..], stats[..2]);
}

/// `CONFIG GET port/bind` tell where the server listens; `CONFIG SET port` moves it there
/// (the old port stops listening) or, on a port in use, fails with Redis's error and
/// changes nothing; a bad `bind` fails the same way.
#[test]
fn config_set_port_moves_the_listener_or_fails_like_redis() {
    let mut seen = Vec::new();
    for srv in servers() {
        let mut log = Vec::new();
        let mut c = connect(srv.port);
        let port = srv.port.to_string();
        log.push(show(&call(&mut c, &[b"CONFIG", b"GET", b"bind"])));
        let got_port = call(&mut c, &[b"CONFIG", b"GET", b"port"]);
        assert_eq!(
            got_port,
            format!("*2\r\n$4\r\nport\r\n${}\r\n{port}\r\n", port.len()).into_bytes(),
            "{}",
            srv.name
        );
        // A port in use: refused, and the maxmemory set with it rolled back.
        let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let busy_port = busy.local_addr().unwrap().port().to_string();
        log.push(show(&call(
            &mut c,
            &[
                b"CONFIG",
                b"SET",
                b"maxmemory",
                b"12345",
                b"port",
                busy_port.as_bytes(),
            ],
        )));
        log.push(show(&call(&mut c, &[b"CONFIG", b"GET", b"maxmemory"])));
        assert_eq!(call(&mut connect(srv.port), &[b"PING"]), b"+PONG\r\n");
        drop(busy);
        // A free port: the server moves there.
        let free = process::free_port().to_string();
        log.push(show(&call(
            &mut c,
            &[b"CONFIG", b"SET", b"port", free.as_bytes()],
        )));
        let new_port: u16 = free.parse().unwrap();
        assert_eq!(call(&mut connect(new_port), &[b"PING"]), b"+PONG\r\n");
        assert!(
            TcpStream::connect(("127.0.0.1", srv.port)).is_err(),
            "{} still listens on its old port",
            srv.name
        );
        // The connection that moved it stays open.
        log.push(show(&call(&mut c, &[b"PING"])));
        log.push(show(&call(
            &mut c,
            &[b"CONFIG", b"SET", b"bind", b"999.999.999.999"],
        )));
        log.push(show(&call(&mut c, &[b"CONFIG", b"GET", b"bind"])));
        assert_eq!(call(&mut connect(new_port), &[b"PING"]), b"+PONG\r\n");
        // It stays on the new port: the guard stops the process wherever it listens, and
        // a move back would race with the other tests of this file, which may have taken
        // the freed port meanwhile (seen once under load: "Unable to listen on this port").
        seen.push(log);
    }
    assert_eq!(seen[1], seen[0]);
}

/// The `qbuf=` field of the line of client `id` in `CLIENT LIST`'s raw reply.
fn qbuf_of(list: &[u8], id: &str) -> String {
    let text = String::from_utf8_lossy(list);
    let line = text
        .lines()
        .find(|l| l.contains(&format!("id={id} ")))
        .unwrap_or_else(|| panic!("no client {id} in {text}"));
    line.split(' ')
        .find_map(|f| f.strip_prefix("qbuf="))
        .unwrap_or("?")
        .to_string()
}

/// `qbuf` counts the query buffer as Redis's does: while a command runs it still holds that
/// command and what was pipelined after it; between commands, what is not parsed yet.
#[test]
fn client_list_shows_the_query_buffer() {
    let mut seen = Vec::new();
    for srv in servers() {
        let mut c = connect(srv.port);
        let id = String::from_utf8_lossy(&call(&mut c, &[b"CLIENT", b"ID"]))
            .trim()
            .trim_start_matches(':')
            .to_string();
        let alone = call(&mut c, &[b"CLIENT", b"INFO"]);
        let mut pipelined = encode_command::<&[u8]>(&[b"CLIENT", b"INFO"]);
        pipelined.extend_from_slice(&encode_command::<&[u8]>(&[b"PING"]));
        let (with_ping, _) = exchange(&mut c, &pipelined, 200);
        let inline = exchange(&mut c, b"CLIENT INFO\r\n", 200).0;
        // Another client with half a command in its buffer.
        let mut other = connect(srv.port);
        let other_id = String::from_utf8_lossy(&call(&mut other, &[b"CLIENT", b"ID"]))
            .trim()
            .trim_start_matches(':')
            .to_string();
        let mut waits = Vec::new();
        for part in [&b"*3\r\n$3\r\nSET\r\n"[..], b"$1\r\nk", b"\r\n$5\r\nab"] {
            other.write_all(part).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            let list = call(&mut c, &[b"CLIENT", b"LIST"]);
            waits.push(qbuf_of(&list, &other_id));
        }
        seen.push((
            qbuf_of(&alone, &id),
            qbuf_of(&with_ping, &id),
            qbuf_of(&inline, &id),
            waits,
        ));
    }
    assert_eq!(seen[1], seen[0]);
}

/// What a MONITOR client sees of scripts: the EVAL/EVALSHA/FCALL call first, then each
/// command the script runs (`[0 lua]`); lines compared without their time stamps and
/// client addresses.
#[test]
fn monitor_shows_the_script_call_before_its_commands() {
    let mut seen = Vec::new();
    for srv in servers() {
        let mut c = connect(srv.port);
        call(
            &mut c,
            &[
                b"FUNCTION",
                b"LOAD",
                b"REPLACE",
                b"#!lua name=mon\nredis.register_function('f', function() return redis.call('set', 'foo', 'bar') end)",
            ],
        );
        let sha = call(
            &mut c,
            &[b"SCRIPT", b"LOAD", b"return redis.call('get', KEYS[1])"],
        );
        let sha = String::from_utf8_lossy(&sha)
            .lines()
            .nth(1)
            .unwrap_or("")
            .to_string();
        let mut mon = connect(srv.port);
        assert_eq!(call(&mut mon, &[b"MONITOR"]), b"+OK\r\n");
        call(
            &mut c,
            &[
                b"EVAL",
                b"redis.call('set', KEYS[1], ARGV[1])",
                b"1",
                b"foo",
                b"bar",
            ],
        );
        call(&mut c, &[b"EVALSHA", sha.as_bytes(), b"1", b"foo"]);
        call(
            &mut c,
            &[
                b"EVAL_RO",
                b"return redis.call('get', KEYS[1])",
                b"1",
                b"foo",
            ],
        );
        call(&mut c, &[b"EVALSHA", b"nosuch", b"0"]);
        call(&mut c, &[b"FCALL", b"f", b"0"]);
        let (lines, _) = exchange(&mut mon, b"", 300);
        let lines: Vec<String> = String::from_utf8_lossy(&lines)
            .lines()
            .map(|l| {
                // "+1700000000.123456 [0 127.0.0.1:5555] ..." without time and address.
                let rest = l.split_once(' ').map_or(l, |(_, r)| r);
                match rest.split_once("] ") {
                    Some((who, cmd)) if who.contains("lua") => format!("lua {cmd}"),
                    Some((_, cmd)) => format!("client {cmd}"),
                    None => rest.to_string(),
                }
            })
            .collect();
        seen.push(lines);
    }
    assert_eq!(seen[1], seen[0]);
    assert!(seen[0].len() >= 8, "{:?}", seen[0]);
}
