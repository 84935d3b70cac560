#!/usr/bin/env python3
"""Instructions per request of several servers under redis-benchmark, counted by valgrind.

    python3 bench/instructions.py "new=target/release/kvlab-server --port {port} --save ''" \
        "redis=redis-server --port {port} --save '' --appendonly no"

Each argument is NAME=COMMAND; {port} is replaced by a free loopback port. For every test
each server runs twice under `valgrind --tool=cachegrind --cache-sim=no`, once for N1 and
once for N2 requests (redis-benchmark -P P -c CLIENTS -t TEST), and the difference of the
two instruction totals over N2 - N1 is its user-space instructions per request: start-up
and shutdown cancel out. Unlike CPU time, the count does not depend on what else the
machine runs (the same binary and inputs give the same count within a fraction of a
percent), so it tells a change's effect apart from the machine's noise; it leaves out the
kernel's share and what the processor's caches make of the instructions, which
bench/cpu-ab.py measures. The last server is the reference of the ratio column.

Environment (all optional): N1=30000, N2=90000, P=16, CLIENTS=50,
TESTS=set,get,incr,lpush,lpop,sadd,hset,zadd,zpopmin. Needs valgrind, redis-benchmark and
redis-cli; runs at about 1/50 of native speed.
"""
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing tools.py
from tools import require  # noqa: E402  (bench/ is first on sys.path)

N1 = int(os.environ.get("N1", "30000"))
N2 = int(os.environ.get("N2", "90000"))
P = os.environ.get("P", "16")
CLIENTS = os.environ.get("CLIENTS", "50")
TESTS = os.environ.get("TESTS", "set,get,incr,lpush,lpop,sadd,hset,zadd,zpopmin").split(",")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, proc):
    for _ in range(600):
        if proc.poll() is not None:
            sys.exit(f"server on port {port} exited with {proc.returncode}")
        r = subprocess.run(["redis-cli", "-p", str(port), "PING"], capture_output=True, text=True)
        if r.stdout.strip() == "PONG":
            return
        time.sleep(0.1)
    sys.exit(f"server on port {port} did not answer PING")


def count(command, test, n, tmp):
    """Instructions valgrind counted in a fresh server that served `n` requests of `test`."""
    port = free_port()
    out = os.path.join(tmp, "cachegrind.out")
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}"]
    proc = subprocess.Popen(
        argv + shlex.split(command.replace("{port}", str(port))),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_ready(port, proc)
        subprocess.run(
            ["redis-benchmark", "-p", str(port), "-t", test, "-n", str(n), "-P", P, "-c", CLIENTS, "-q"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        subprocess.run(["redis-cli", "-p", str(port), "SHUTDOWN", "NOSAVE"], capture_output=True)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    found = re.search(r"I\s+refs:\s+([\d,]+)", err)
    if not found:
        sys.exit(f"no instruction count from valgrind for {command!r}:\n{err[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main():
    servers = []
    for arg in sys.argv[1:]:
        name, sep, command = arg.partition("=")
        if not sep:
            sys.exit(f"expected NAME=COMMAND, got {arg!r}")
        servers.append((name, command))
    if not servers:
        sys.exit(__doc__)
    require("valgrind", "redis-benchmark", "redis-cli")
    print(f"redis-benchmark -P {P} -c {CLIENTS}: user-space instructions per request, "
          f"(count at {N2} - count at {N1}) / {N2 - N1}")
    names = [n for n, _ in servers]
    ref = names[-1]
    print(f"{'test':<12}" + "".join(f"{n:>12}" for n in names)
          + "".join(f"{n + '/' + ref:>14}" for n in names[:-1]))
    with tempfile.TemporaryDirectory() as tmp:
        for test in TESTS:
            per = {}
            for name, command in servers:
                per[name] = (count(command, test, N2, tmp) - count(command, test, N1, tmp)) / (N2 - N1)
            print(f"{test:<12}" + "".join(f"{per[n]:>12.0f}" for n in names)
                  + "".join(f"{per[n] / per[ref]:>14.2f}" for n in names[:-1]), flush=True)


if __name__ == "__main__":
    main()
