#!/usr/bin/env python3
"""Records the DUMP payloads of tests/restore/cases.txt from a real redis-server 7.0.15.

    redis-server --port P --daemonize yes --save '' --enable-debug-command yes
    python3 tests/restore/record.py P < tests/restore/cases.txt > tests/restore/payloads.txt

For each case: FLUSHALL, CONFIG RESETSTAT-free defaults put back (every parameter a case
sets is set back to its default afterwards), the case's record-config and record-debug
lines, its build commands, then DUMP k; the case is written out with a `payload` line
holding the hex of what DUMP replied. Cases that already have a payload (taken from
Redis's own tests) keep it. Commands use redis-cli's quoting (see tests/transcripts/record.py).
"""

import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "transcripts"))
from record import split_args  # noqa: E402


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", int(port)))
        self.f = self.s.makefile("rb")

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self.read()

    def read(self):
        line = self.f.readline()[:-2]
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest
        if t == b"-":
            raise RuntimeError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            return data
        if t == b"*":
            return [self.read() for _ in range(int(rest))]
        raise RuntimeError("bad reply %r" % line)


DEFAULTS = {}


def main():
    c = Conn(sys.argv[1])
    cases, cur = [], None
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("case "):
            cur = {"lines": [line], "build": [], "config": [], "debug": [], "payload": None}
            cases.append(cur)
        elif cur is None:
            print(line)
        elif line.startswith("payload "):
            cur["payload"] = line.split(" ", 1)[1]
        else:
            cur["lines"].append(line)
            word, _, rest = line.partition(" ")
            if word == "build":
                cur["build"].append(split_args(rest))
            elif word == "record-config":
                cur["config"].append(split_args(rest))
            elif word == "record-debug":
                cur["debug"].append(split_args(rest))
    for case in cases:
        if case["payload"] is None:
            c.call("FLUSHALL")
            saved = []
            for p, v in case["config"]:
                saved.append((p, c.call("CONFIG", "GET", p)[1]))
                c.call("CONFIG", "SET", p, v)
            for args in case["debug"]:
                c.call("DEBUG", *args)
            for args in case["build"]:
                c.call(*args)
            case["payload"] = c.call("DUMP", "k").hex()
            for p, v in saved:
                c.call("CONFIG", "SET", p, v)
            for args in case["debug"]:
                if args[0].upper() == b"QUICKLIST-PACKED-THRESHOLD":
                    c.call("DEBUG", args[0], "1073741824")
        # Blank lines and comments go with the case they follow.
        trailing = []
        while case["lines"] and (not case["lines"][-1].strip() or case["lines"][-1].startswith("#")):
            trailing.insert(0, case["lines"].pop())
        for line in case["lines"]:
            print(line)
        print("payload " + case["payload"])
        for line in trailing:
            print(line)


if __name__ == "__main__":
    main()
