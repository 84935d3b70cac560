#!/usr/bin/env python3
"""Compares the CPU time per request of several servers under redis-benchmark, side by side.

    python3 bench/cpu-ab.py "new=target/release/kvlab-server --port {port} --save ''" \
        "old=/tmp/kvlab-old --port {port} --save ''" \
        "redis=redis-server --port {port} --save '' --appendonly no"

Each argument is NAME=COMMAND; {port} is replaced by a free loopback port. All servers are
started at once and kept running; each round runs every test on every server in turn
(the order reversed every other round, so that a change in machine load hits all alike),
after a FLUSHALL. For each run it reads the server's CPU time from
/proc/PID/task/*/schedstat (all threads, user and kernel, in nanoseconds) and its user
and system ticks from /proc/PID/stat, and prints per test the median CPU microseconds per
request over the rounds, the median requests per second, and the mean user / system
microseconds per request. CPU per request hardly depends on what else runs on the
machine; requests per second do. Then come the ratios to the last server: CPU per
request, and requests per second (the median of the rounds' ratios, with the lowest and
highest). Last comes the CPU that redis-benchmark itself used per request. At -P 1 the
client, not the server, is usually what runs out of CPU, so requests per second measure the
client as much as the server: a server that sleeps more often between requests costs the
client a wake-up on its next send.

Environment (all optional): N=200000 requests per run, ROUNDS=5, P=16 (pipeline depth),
CLIENTS=50, TESTS=set,get,incr,lpush,lpop,sadd,hset,zadd,zpopmin,lrange_100.
Needs redis-benchmark and redis-cli (Debian: redis-tools); Linux (/proc).
"""
import os
import resource
import socket
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing tools.py
from tools import require  # noqa: E402  (bench/ is first on sys.path)

N = int(os.environ.get("N", "200000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
P = os.environ.get("P", "16")
CLIENTS = os.environ.get("CLIENTS", "50")
TESTS = os.environ.get("TESTS", "set,get,incr,lpush,lpop,sadd,hset,zadd,zpopmin,lrange_100").split(",")
TICK_US = 1_000_000 / os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ns(pid):
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{t}/schedstat") as f:
            total += int(f.read().split()[0])
    return total


def user_sys_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def wait_for(port, deadline=10.0):
    end = time.time() + deadline
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing listens on port {port}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    require("redis-benchmark", "redis-cli")
    servers = []
    try:
        for spec in sys.argv[1:]:
            name, cmd = spec.split("=", 1)
            port = free_port()
            # exec: the shell becomes the server, so that its PID is the server's.
            proc = subprocess.Popen("exec " + cmd.format(port=port), shell=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            servers.append((name, port, proc))
        for _, port, _ in servers:
            wait_for(port)
        cpu = {n: {t: [] for t in TESTS} for n, _, _ in servers}
        rps = {n: {t: [] for t in TESTS} for n, _, _ in servers}
        usr = {n: {t: [] for t in TESTS} for n, _, _ in servers}
        sys_ = {n: {t: [] for t in TESTS} for n, _, _ in servers}
        client = {n: {t: [] for t in TESTS} for n, _, _ in servers}
        for r in range(ROUNDS):
            for t in TESTS:
                for name, port, proc in (servers if r % 2 == 0 else servers[::-1]):
                    subprocess.run(["redis-cli", "-p", str(port), "FLUSHALL"],
                                   stdout=subprocess.DEVNULL, check=True)
                    c0, (u0, s0) = cpu_ns(proc.pid), user_sys_ticks(proc.pid)
                    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    out = subprocess.run(["redis-benchmark", "-p", str(port), "-t", t, "-n", str(N),
                                          "-P", P, "-c", CLIENTS, "-q", "--csv"],
                                         capture_output=True, text=True, check=True).stdout
                    c1, (u1, s1) = cpu_ns(proc.pid), user_sys_ticks(proc.pid)
                    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    client[name][t].append((k1.ru_utime + k1.ru_stime - k0.ru_utime - k0.ru_stime)
                                           * 1e6 / N)
                    cpu[name][t].append((c1 - c0) / 1000 / N)
                    usr[name][t].append((u1 - u0) * TICK_US / N)
                    sys_[name][t].append((s1 - s0) * TICK_US / N)
                    rows = [line for line in out.strip().splitlines() if not line.startswith('"test"')]
                    rps[name][t].append(float(rows[-1].split(",")[1].strip('"')))
        print(f"redis-benchmark -n {N} -c {CLIENTS} -P {P}, {ROUNDS} interleaved rounds; "
              "cpu = server CPU µs per request (median), user/sys = mean µs per request")
        print("test".ljust(12) + "".join(f"{n:>34}" for n, _, _ in servers))
        print("".ljust(12) + "".join(f"{'cpu':>8} {'rps':>9} {'user':>7} {'sys':>7}" for _ in servers))
        for t in TESTS:
            print(t.ljust(12) + "".join(
                f"{statistics.median(cpu[n][t]):>8.3f} {statistics.median(rps[n][t]):>9.0f} "
                f"{statistics.mean(usr[n][t]):>7.3f} {statistics.mean(sys_[n][t]):>7.3f}"
                for n, _, _ in servers))
        if len(servers) > 1:
            base = servers[-1][0]
            print(f"\ncpu ratio to {base} (below 1.0: less CPU than {base})")
            print("test".ljust(12) + "".join(f"{n:>10}" for n, _, _ in servers[:-1]))
            for t in TESTS:
                b = statistics.median(cpu[base][t])
                print(t.ljust(12) + "".join(f"{statistics.median(cpu[n][t]) / b:>10.2f}" for n, _, _ in servers[:-1]))
            print(f"\nrequests/s ratio to {base}, median of the rounds [lowest, highest] "
                  f"(above 1.0: more requests/s than {base})")
            print("test".ljust(12) + "".join(f"{n:>22}" for n, _, _ in servers[:-1]))
            for t in TESTS:
                cells = []
                for n, _, _ in servers[:-1]:
                    ratios = [a / b for a, b in zip(rps[n][t], rps[base][t])]
                    cells.append(f"{statistics.median(ratios):.2f} [{min(ratios):.2f}, {max(ratios):.2f}]")
                print(t.ljust(12) + "".join(f"{c:>22}" for c in cells))
        print("\nredis-benchmark's own CPU µs per request (median), against each server")
        print("test".ljust(12) + "".join(f"{n:>10}" for n, _, _ in servers))
        for t in TESTS:
            print(t.ljust(12) + "".join(f"{statistics.median(client[n][t]):>10.3f}" for n, _, _ in servers))
    finally:
        for _, _, proc in servers:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
