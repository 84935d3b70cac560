#!/usr/bin/env python3
"""Memory per element: kvlab-server against redis-server, side by side (issue 20).

    python3 bench/memory.py [--scale 1.0] [--only strings,hashes,zset]

For each workload both servers start fresh (kvlab from a release build, redis-server with no
save points), are loaded as a client would load them, with 1,000 commands in flight on one
connection, and report the growth of their resident memory (VmRSS from /proc) per element,
with INFO's used_memory beside it, and the ratio kvlab/Redis (below 1.0: kvlab is leaner).

Workloads (the issue's three; --scale multiplies the element counts):
  strings  1,000,000 keys key:N -> a 10-byte value             (SET)
  hashes   100,000 hashes of 10 small fields, per field         (HSET h:N f0 v0 ... f9 v9)
  zset     one sorted set of 500,000 members                    (ZADD z score member)

and two more for lists (beyond the issue's three; --only lists,smalllists):
  lists       one list of 1,000,000 elements item:N             (RPUSH l item:N)
  smalllists  100,000 lists of 10 elements, per element         (RPUSH l:N e0 ... e9)

The browser side of the same loads is bench/memory.mjs. Needs redis-server.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing tools.py
from tools import require  # noqa: E402  (bench/ is first on sys.path)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
IN_FLIGHT = 1000


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def resp(*words):
    out = [b"*%d\r\n" % len(words)]
    for w in words:
        w = w if isinstance(w, bytes) else str(w).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(w), w))
    return b"".join(out)


class Conn:
    def __init__(self, port):
        deadline = time.time() + 20
        while True:
            try:
                self.s = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(1 << 16)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self._line()
        kind = line[:1]
        if kind == b"-":
            raise RuntimeError(line.decode())
        if kind == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 16)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            return [self.reply() for _ in range(int(line[1:]))]
        return line[1:]

    def call(self, *words):
        self.s.sendall(resp(*words))
        return self.reply()

    def pipeline(self, commands):
        """Sends `commands` keeping IN_FLIGHT of them unanswered at most."""
        pending = 0
        batch = []
        for c in commands:
            batch.append(c)
            if len(batch) == 100:
                self.s.sendall(b"".join(batch))
                pending += len(batch)
                batch = []
                while pending > IN_FLIGHT:
                    self.reply()
                    pending -= 1
        if batch:
            self.s.sendall(b"".join(batch))
            pending += len(batch)
        while pending:
            self.reply()
            pending -= 1


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def used_memory(conn):
    info = conn.call("INFO", "memory").decode()
    for line in info.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    return 0


def workloads(scale):
    n_str = int(1_000_000 * scale)
    n_hash = int(100_000 * scale)
    n_z = int(500_000 * scale)

    def strings():
        for i in range(n_str):
            yield resp("SET", f"key:{i}", "x" * 10)

    def hashes():
        for i in range(n_hash):
            words = ["HSET", f"h:{i}"]
            for f in range(10):
                words += [f"f{f}", f"v{f}"]
            yield resp(*words)

    def zset():
        for i in range(n_z):
            yield resp("ZADD", "z", (i * 7919) % 1_000_003, f"member:{i}")

    n_list = int(1_000_000 * scale)
    n_small = int(100_000 * scale)

    def lists():
        for i in range(n_list):
            yield resp("RPUSH", "l", f"item:{i}")

    def smalllists():
        for i in range(n_small):
            yield resp("RPUSH", f"l:{i}", *[f"e{e}" for e in range(10)])

    return {
        "strings": ("1M strings key:N -> 10 bytes", n_str, strings),
        "hashes": ("100k hashes x 10 fields (per field)", n_hash * 10, hashes),
        "zset": ("one zset, 500k members", n_z, zset),
        "lists": ("one list, 1M elements", n_list, lists),
        "smalllists": ("100k lists x 10 (per element)", n_small * 10, smalllists),
    }


def measure(argv, port, gen, elements):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        conn = Conn(port)
        conn.call("PING")
        time.sleep(0.2)
        before, used_before = rss(proc.pid), used_memory(conn)
        conn.pipeline(gen())
        time.sleep(0.5)
        after, used_after = rss(proc.pid), used_memory(conn)
        return (after - before) / elements, (used_after - used_before) / elements
    finally:
        proc.terminate()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="strings,hashes,zset")
    ap.add_argument("--kvlab-bin", default=os.environ.get("KVLAB_BIN"))
    args = ap.parse_args()
    require("redis-server")
    kvlab = args.kvlab_bin
    if not kvlab:
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "kvlab-server"],
                       cwd=ROOT, check=True)
        kvlab = os.path.join(ROOT, "target", "release", "kvlab-server")
    table = workloads(args.scale)
    tmp = tempfile.mkdtemp()
    print(f"{'workload':<38} {'redis B/el':>10} {'kvlab B/el':>10} {'kvlab/redis':>11}"
          f"   used_memory B/el: redis, kvlab")
    for name in args.only.split(","):
        label, elements, gen = table[name]
        p = free_port()
        redis = measure(["redis-server", "--port", str(p), "--bind", "127.0.0.1", "--save", "",
                         "--appendonly", "no", "--dir", tmp], p, gen, elements)
        p = free_port()
        ours = measure([kvlab, "--bind", "127.0.0.1", "--port", str(p), "--save", "",
                        "--dir", tmp], p, gen, elements)
        print(f"{label:<38} {redis[0]:>10.1f} {ours[0]:>10.1f} {ours[0] / redis[0]:>11.2f}"
              f"   {redis[1]:.1f}, {ours[1]:.1f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
