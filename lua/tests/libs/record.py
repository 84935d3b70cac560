#!/usr/bin/env python3
"""Records the expected outputs of the library cases from a real redis-server 7.0.15.

    python3 lua/tests/libs/record.py PORT lua/tests/libs/*.txt

A case file holds cases separated by lines; each case is one line of Lua, then the line
"=> <output>" this script writes (or rewrites). A line starting with "!" is a statement
body, any other an expression list; lines starting with "#" are comments. Every case runs
in a fresh Lua state (SCRIPT FLUSH), as `<prelude> return show(pcall(function() ... end))`,
so its output is whether it raised and what it returned or raised, as text (see
prelude.lua). tests/libs.rs runs the same chunks through kvlab_lua and compares.
"""
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def chunk(prelude, line):
    body = line[1:] if line.startswith("!") else "return " + line
    return prelude + " return show(pcall(function() " + body + " end))"


class Redis:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else a.encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self.reply()

    def reply(self):
        line = self.f.readline()[:-2]
        kind, rest = line[:1], line[1:]
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            return data
        if kind in (b"+", b":"):
            return rest
        if kind == b"-":
            return b"ERR! " + rest
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise ValueError(line)


def main():
    port = int(sys.argv[1])
    prelude = open(os.path.join(HERE, "prelude.lua")).read().rstrip("\n")
    r = Redis(port)
    for path in sys.argv[2:]:
        lines = [l for l in open(path).read().split("\n")]
        out = []
        for line in lines:
            if line.startswith("=> "):
                continue
            out.append(line)
            if line.strip() and not line.startswith("#"):
                r.call("SCRIPT", "FLUSH")
                got = r.call("EVAL", chunk(prelude, line), "0")
                if isinstance(got, list) or got is None:
                    got = repr(got).encode()
                out.append("=> " + got.decode("latin-1").replace("\n", "\\n"))
        while out and out[-1] == "":
            out.pop()
        open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
