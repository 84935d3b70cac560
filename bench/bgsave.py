#!/usr/bin/env python3
"""BGSAVE under load: kvlab-server against redis-server, side by side.

    python3 bench/bgsave.py [--keys N] [--repeat R] [--writes] [--kvlab-bin PATH]
    N=200000 REPEAT=3 KVLAB_BIN=/tmp/bench-target/release/kvlab-server python3 bench/bgsave.py

Each round starts both servers fresh (each in its own temp dir, on a free port, `--save ''`
so nothing saves by itself), fills them with `DEBUG POPULATE N` (keys key:0 .. key:N-1,
default N = 1,000,000), then, while a prober client sends PING in a tight loop on its own
connection (and, with --writes, a writer client SETs random existing keys), sends BGSAVE and
polls `INFO persistence` every 10 ms until `rdb_bgsave_in_progress:0`. It reports:

  BGSAVE reply ms        BGSAVE sent -> its reply. Redis forks and replies at once; a server
                         that copies the dataset first stalls here.
  longest PING gap ms    the longest time between two consecutive PING replies in the save
                         window (BGSAVE sent -> save seen done): how long a client waited.
  total save ms          BGSAVE sent -> INFO first shows no save in progress (10 ms polling;
                         Redis notices its child's exit in serverCron, up to 100 ms later).
  PINGs served           PING replies received in the save window (a Python client: ~10-40k/s).
  SETs served            (--writes) SET replies received in the save window.
  file size bytes        dump.rdb's size after the save.

and kvlab/redis (below 1.0: kvlab is faster / smaller / served fewer). It checks
`rdb_last_bgsave_status:ok`, then loads each dump.rdb into a fresh server of the same kind
and cross-loads (redis-server loads kvlab's file, kvlab-server Redis's) checking DBSIZE == N.
Without --kvlab-bin / KVLAB_BIN it builds kvlab-server in release mode first (target dir
$CARGO_TARGET_DIR or ./target). Needs redis-server. Python 3 stdlib only. Exits 1 on a failed
check.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing memory.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory import ROOT, Conn, free_port  # noqa: E402  (RESP client and port helper)
from tools import require  # noqa: E402


def server_argv(kind, kvlab, port, d):
    common = ["--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", d,
              "--enable-debug-command", "local"]
    if kind == "redis":
        return ["redis-server", *common, "--appendonly", "no"]
    return [kvlab, *common]


class Server:
    """A server process; `stop()` asks SHUTDOWN NOSAVE, then terminates, then kills."""

    def __init__(self, kind, kvlab, d, live):
        self.kind, self.dir, self.port = kind, d, free_port()
        self.log = open(os.path.join(d, f"{kind}-{self.port}.log"), "wb")
        self.proc = subprocess.Popen(server_argv(kind, kvlab, self.port, d),
                                     stdout=self.log, stderr=subprocess.STDOUT)
        live.append(self)
        self.conn = Conn(self.port)

    def call(self, *words):
        """Like Conn.call, waiting out -LOADING while a dump is read at start."""
        while True:
            try:
                return self.conn.call(*words)
            except RuntimeError as e:
                if not str(e).startswith("-LOADING"):
                    raise
                time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.conn.call("SHUTDOWN", "NOSAVE")
            except (OSError, EOFError, RuntimeError):
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        self.log.close()


class Looper(threading.Thread):
    """A client sending one command at a time on its own connection, timestamping replies."""

    def __init__(self, port, make_command):
        super().__init__(daemon=True)
        self.conn, self.make, self.times = Conn(port), make_command, []
        self.done, self.error = threading.Event(), None

    def run(self):
        try:
            while not self.done.is_set():
                self.conn.call(*self.make())
                self.times.append(time.perf_counter())
        except Exception as e:  # reported by the main thread
            self.error = e

    def stop(self):
        self.done.set()
        self.join(30)
        if self.error:
            raise RuntimeError(f"client failed: {self.error!r}")

    def in_window(self, t0, t1):
        """(replies in [t0, t1], longest gap between consecutive replies overlapping it)."""
        ts = self.times
        served = sum(1 for t in ts if t0 <= t <= t1)
        gaps = [b - a for a, b in zip(ts, ts[1:]) if b > t0 and a < t1]
        return served, max(gaps, default=t1 - t0)


def info_field(srv, section, name):
    for line in srv.call("INFO", section).decode().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    raise RuntimeError(f"{srv.kind}: INFO {section} has no {name}")


def measure(kind, kvlab, n, writes, live, dirs):
    """One server: populate, BGSAVE under a PING prober; returns (metrics, dir, problems)."""
    d = tempfile.mkdtemp(prefix=f"bgsave-{kind}-")
    dirs.append(d)
    srv = Server(kind, kvlab, d, live)
    srv.conn.s.settimeout(600)
    srv.call("DEBUG", "POPULATE", n)
    if int(srv.call("DBSIZE")) != n:
        raise RuntimeError(f"{kind}: DEBUG POPULATE {n} left a different DBSIZE")
    clients = [Looper(srv.port, lambda: ("PING",))]
    if writes:
        clients.append(Looper(srv.port, lambda: ("SET", f"key:{random.randrange(n)}", "w")))
    for c in clients:
        c.start()
    time.sleep(0.3)  # let the clients settle into their loop
    t0 = time.perf_counter()
    reply = srv.call("BGSAVE")
    t_reply = time.perf_counter()
    while info_field(srv, "persistence", "rdb_bgsave_in_progress") != "0":
        time.sleep(0.01)
    t1 = time.perf_counter()
    for c in clients:
        c.stop()
    problems = []
    status = info_field(srv, "persistence", "rdb_last_bgsave_status")
    if status != "ok":
        problems.append(f"{kind}: rdb_last_bgsave_status:{status} (BGSAVE said {reply!r})")
    path = os.path.join(d, "dump.rdb")
    size = os.path.getsize(path) if os.path.exists(path) else 0
    if not size:
        problems.append(f"{kind}: no dump.rdb after BGSAVE")
    pings, gap = clients[0].in_window(t0, t1)
    m = {"BGSAVE reply ms": (t_reply - t0) * 1e3, "longest PING gap ms": gap * 1e3,
         "total save ms": (t1 - t0) * 1e3, "PINGs served during save": pings}
    if writes:
        m["SETs served during save"] = clients[1].in_window(t0, t1)[0]
    m["file size bytes"] = size
    srv.stop()
    return m, d, problems


def reload_check(kind, kvlab, d, live):
    """Starts a fresh `kind` server on d/dump.rdb; returns its DBSIZE."""
    srv = Server(kind, kvlab, d, live)
    try:
        return int(srv.call("DBSIZE"))
    finally:
        srv.stop()


def print_table(rnd, repeat, n, redis, kvlab):
    print(f"\nround {rnd}/{repeat}, N = {n:,} keys")
    print(f"{'metric':<26} | {'redis':>12} | {'kvlab':>12} | {'kvlab/redis':>11}")
    print("-" * 70)
    for name, r in redis.items():
        k = kvlab[name]
        fmt = (lambda v: f"{v:12.1f}") if name.endswith("ms") else (lambda v: f"{v:12d}")
        ratio = f"{k / r:11.2f}" if r else f"{'-':>11}"
        print(f"{name:<26} | {fmt(r)} | {fmt(k)} | {ratio}")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=int(os.environ.get("N", 1_000_000)))
    ap.add_argument("--repeat", type=int, default=int(os.environ.get("REPEAT", 1)))
    ap.add_argument("--writes", action="store_true", default=bool(os.environ.get("WRITES")),
                    help="also SET random existing keys during the save")
    ap.add_argument("--kvlab-bin", default=os.environ.get("KVLAB_BIN"))
    args = ap.parse_args()
    require("redis-server")
    kvlab = args.kvlab_bin
    if not kvlab:
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "kvlab-server",
                        "--target-dir", target], cwd=ROOT, check=True)
        kvlab = os.path.join(target, "release", "kvlab-server")
    n, live, dirs, problems = args.keys, [], [], []
    try:
        for rnd in range(1, args.repeat + 1):
            results = {}
            for kind in ("redis", "kvlab"):
                m, d, p = measure(kind, kvlab, n, args.writes, live, dirs)
                results[kind], problems = (m, d), problems + p
            print_table(rnd, args.repeat, n, results["redis"][0], results["kvlab"][0])
            checks = []
            for loader, maker in (("redis", "redis"), ("kvlab", "kvlab"),
                                  ("redis", "kvlab"), ("kvlab", "redis")):
                got = reload_check(loader, kvlab, results[maker][1], live)
                checks.append(f"{loader}<-{maker}.rdb {'ok' if got == n else f'DBSIZE {got}'}")
                if got != n:
                    problems.append(f"{loader} loading {maker}'s dump.rdb: DBSIZE {got} != {n}")
            print("reload DBSIZE == N: " + ", ".join(checks))
    finally:
        for srv in live:
            srv.stop()
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    for p in problems:
        print("FAILED: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
