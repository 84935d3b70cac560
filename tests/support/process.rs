//! Starting servers for tests: `redis-server` (the reference) and `kvlab-server` (ours),
//! each on a free port of 127.0.0.1, killed when its [`ServerGuard`] is dropped.

use std::net::TcpListener;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::resp::RespClient;

/// A running server process; dropping the guard kills it (by its own PID) and reaps it.
pub struct ServerGuard {
    child: Child,
    /// The loopback port it listens on.
    pub port: u16,
    /// What was started, for messages (`redis-server`, `kvlab-server`).
    pub name: &'static str,
}

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServerGuard {
    /// A new connection to the server.
    pub fn client(&self) -> RespClient {
        RespClient::connect(self.port)
            .unwrap_or_else(|e| panic!("connect to {} on port {}: {e}", self.name, self.port))
    }

    /// True while the process has not exited.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// Why a server did not come up.
#[derive(Debug)]
pub enum StartError {
    /// The program could not be run at all (not installed).
    NotFound(String),
    /// It exited before accepting connections.
    Exited(ExitStatus),
    /// It was still not answering PING after the timeout.
    Timeout,
}

/// A port that was free a moment ago (the OS picks it; the listener is closed again).
/// With `KVLAB_TEST_PORTS=lo-hi` set (machines shared by several test runs), the port is
/// taken from that range instead, starting at a random place in it.
pub fn free_port() -> u16 {
    if let Some((lo, hi)) = std::env::var("KVLAB_TEST_PORTS").ok().and_then(|r| {
        let (lo, hi) = r.split_once('-')?;
        Some((
            lo.trim().parse::<u16>().ok()?,
            hi.trim().parse::<u16>().ok()?,
        ))
    }) {
        let span = u32::from(hi.saturating_sub(lo)) + 1;
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
            % span;
        for i in 0..span {
            let port = lo + ((start + i) % span) as u16;
            if TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
        panic!("KVLAB_TEST_PORTS={lo}-{hi}: no free port in the range");
    }
    let l = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port on 127.0.0.1");
    l.local_addr().expect("local addr").port()
}

/// Starts `program args…` (with `{port}` in an argument replaced by a free port) and
/// waits until it answers PING. Retries a few times with other ports in case another
/// process took the port in between.
pub fn start(
    name: &'static str,
    program: &str,
    args: &[&str],
    inherit_stderr: bool,
) -> Result<ServerGuard, StartError> {
    let mut last = StartError::Timeout;
    for _ in 0..3 {
        let port = free_port();
        let args: Vec<String> = args
            .iter()
            .map(|a| a.replace("{port}", &port.to_string()))
            .collect();
        let child = Command::new(program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(if inherit_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .map_err(|e| StartError::NotFound(format!("{program}: {e}")))?;
        let mut guard = ServerGuard { child, port, name };
        match wait_ready(&mut guard, Duration::from_secs(10)) {
            Ok(()) => return Ok(guard),
            Err(StartError::Exited(status)) if status.success() => {
                return Err(StartError::Exited(status))
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn wait_ready(guard: &mut ServerGuard, timeout: Duration) -> Result<(), StartError> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = guard.child.try_wait() {
            return Err(StartError::Exited(status));
        }
        if let Ok(mut c) = RespClient::connect(guard.port) {
            if let Ok(kvlab::engine::Reply::Status(s)) = c.call(&["PING"]) {
                if s == "PONG" {
                    return Ok(());
                }
            }
        }
        if Instant::now() > deadline {
            return Err(StartError::Timeout);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Fails the test with a clear message unless Debian's `redis-server` 7.0 is installed.
pub fn require_redis() {
    match Command::new("redis-server").arg("--version").output() {
        Ok(out) if out.status.success() => {
            let v = String::from_utf8_lossy(&out.stdout);
            if !v.contains("v=7.0.") {
                eprintln!("warning: kvlab targets Redis 7.0, but redis-server reports: {v}");
            }
        }
        _ => panic!(
            "redis-server is not installed; the differential and rendering tests compare kvlab \
             with a real Redis 7.0. Install it with scripts/setup.sh \
             (or: apt-get install -y redis-server redis-tools)."
        ),
    }
}

/// Starts a throwaway `redis-server` (no persistence, debug commands allowed from
/// loopback) on a free port. `extra` adds configuration arguments.
pub fn redis_server(extra: &[&str]) -> ServerGuard {
    require_redis();
    // Nothing should be saved, but if it were, it must not land in the repository.
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap_or("/tmp");
    let mut args = vec![
        "--dir",
        dir,
        "--port",
        "{port}",
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--enable-debug-command",
        "local",
    ];
    args.extend_from_slice(extra);
    match start("redis-server", "redis-server", &args, false) {
        Ok(g) => g,
        Err(e) => panic!("redis-server did not start: {e:?}"),
    }
}

/// Starts the `kvlab-server` binary at `path` on a free port.
pub fn kvlab_server(path: &str) -> Result<ServerGuard, StartError> {
    kvlab_server_with(path, &[])
}

/// [`kvlab_server`] with more configuration arguments (`--dir`, …).
pub fn kvlab_server_with(path: &str, extra: &[&str]) -> Result<ServerGuard, StartError> {
    // No save points: a test server never leaves a dump.rdb behind. DEBUG from loopback,
    // as the redis-server above.
    let mut args = vec![
        "--bind",
        "127.0.0.1",
        "--port",
        "{port}",
        "--save",
        "",
        "--enable-debug-command",
        "local",
    ];
    args.extend_from_slice(extra);
    start("kvlab-server", path, &args, true)
}
