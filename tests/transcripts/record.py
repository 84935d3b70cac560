#!/usr/bin/env python3
"""Records a transcript against a real redis-server, for the multi-client transcripts.

redis-cli cannot interleave several connections, nor keep running commands once it is
subscribed, so this script plays redis-cli: it reads a transcript *script* (the transcript
format of tests/transcripts.rs without the expected replies), sends each command on the
connection of the current client, and writes the transcript with every reply rendered the
way redis-cli renders it on a terminal: RESP2, and the RESP3 types a connection that sent
`HELLO 3` receives (maps, sets, pushes — an `invalidate` push as redis-cli's push handler
prints it, `-> invalidate: 'key'` — nulls, doubles, booleans).

    python3 tests/transcripts/record.py PORT-OR-SOCKET < script.txt > tests/transcripts/name.txt

What is recorded after a command is everything the server sent on that connection within
WAIT seconds: the reply, further replies (SUBSCRIBE a b answers once per channel) and
messages it received meanwhile. `@pushes` records what arrived since (messages published by
other clients). `@sleep N` sleeps N ms for real. `@close` closes the current client's
connection (the next use of its name opens a new one). `{NAME}` in a command stands for the
id of client NAME (asked with CLIENT ID when its connection opens), as the driver does. `@tick` is recorded as is (real Redis
expires keys on its own). Lines that are neither commands nor directives are dropped.
Start the server fresh (`FLUSHALL` is not sent for you), on a unix socket if other
programs might talk to a TCP port.
"""

import socket
import sys
import time

WAIT = 0.15


def split_args(line):
    """Splits a line as redis-cli does (sdssplitargs): quotes, \\xHH and \\n escapes."""
    p, i, out = line.encode(), 0, []
    while True:
        while i < len(p) and p[i:i + 1].isspace():
            i += 1
        if i >= len(p):
            return out
        cur, inq, insq = b"", False, False
        while True:
            c = p[i:i + 1]
            if inq:
                if not c:
                    raise ValueError("unbalanced quotes")
                if c == b"\\" and p[i + 1:i + 2] == b"x" and len(p[i + 2:i + 4]) == 2 \
                        and all(ch in b"0123456789abcdefABCDEF" for ch in p[i + 2:i + 4]):
                    cur += bytes([int(p[i + 2:i + 4], 16)])
                    i += 3
                elif c == b"\\" and i + 1 < len(p):
                    i += 1
                    cur += {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b",
                            b"a": b"\a"}.get(p[i:i + 1], p[i:i + 1])
                elif c == b'"':
                    i += 1
                    break
                else:
                    cur += c
            elif insq:
                if not c:
                    raise ValueError("unbalanced quotes")
                if c == b"\\" and p[i + 1:i + 2] == b"'":
                    i += 1
                    cur += b"'"
                elif c == b"'":
                    i += 1
                    break
                else:
                    cur += c
            else:
                if not c or c in b" \n\r\t\0":
                    break
                if c == b'"':
                    inq = True
                elif c == b"'":
                    insq = True
                else:
                    cur += c
            i += 1
        out.append(cur)


def encode(argv):
    out = b"*%d\r\n" % len(argv)
    for a in argv:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class Reader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def fill(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return False
        if not data:
            return False
        self.buf += data
        return True

    def drain(self, timeout):
        """Reads until nothing arrives for `timeout` seconds; returns parsed replies."""
        while self.fill(timeout):
            pass
        out = []
        while self.buf:
            r, rest = parse(self.buf)
            if r is INCOMPLETE:
                if not self.fill(1.0):
                    raise RuntimeError("incomplete reply")
                continue
            out.append(r)
            self.buf = rest
        return out


INCOMPLETE = object()


def parse(buf):
    nl = buf.find(b"\r\n")
    if nl < 0:
        return INCOMPLETE, buf
    kind, line, rest = buf[:1], buf[1:nl], buf[nl + 2:]
    if kind == b"+":
        return ("status", line.decode()), rest
    if kind == b"-":
        return ("error", line.decode()), rest
    if kind == b":":
        return ("int", int(line)), rest
    if kind == b"$":
        n = int(line)
        if n < 0:
            return ("nil",), rest
        if len(rest) < n + 2:
            return INCOMPLETE, buf
        return ("bulk", rest[:n]), rest[n + 2:]
    if kind == b"_":
        return ("nil",), rest
    if kind == b"#":
        return ("bool", line == b"t"), rest
    if kind == b",":
        return ("double", line.decode()), rest
    if kind in b"*~>%":
        n = int(line)
        if n < 0:
            return ("nil",), rest
        items = []
        for _ in range(n * 2 if kind == b"%" else n):
            item, rest = parse(rest)
            if item is INCOMPLETE:
                return INCOMPLETE, buf
            items.append(item)
        name = {b"*": "array", b"~": "set", b">": "push", b"%": "map"}[kind]
        return (name, items), rest
    raise RuntimeError("unexpected reply %r" % buf[:40])


def quote(b):
    s = '"'
    for c in b:
        if c == 0x5C:
            s += "\\\\"
        elif c == 0x22:
            s += '\\"'
        elif c == 0x0A:
            s += "\\n"
        elif c == 0x0D:
            s += "\\r"
        elif c == 0x09:
            s += "\\t"
        elif c == 0x07:
            s += "\\a"
        elif c == 0x08:
            s += "\\b"
        elif 0x20 <= c <= 0x7E:
            s += chr(c)
        else:
            s += "\\x%02x" % c
    return s + '"'


def multiline(r):
    """redis-cli's cliIsMultilineValueTTY."""
    if r[0] in ("array", "set", "push"):
        return len(r[1]) > 1 or (len(r[1]) == 1 and multiline(r[1][0]))
    if r[0] == "map":
        return len(r[1]) > 2 or (len(r[1]) == 2 and multiline(r[1][1]))
    return False


def fmt_push(r):
    """What redis-cli's push handler prints: an invalidation its own way, others as replies."""
    items = r[1]
    if len(items) == 2 and items[0] == ("bulk", b"invalidate") and items[1][0] == "array":
        keys = ", ".join("'%s'" % k[1].decode("latin-1") for k in items[1][1])
        return "-> invalidate: " + keys + "\n"
    return fmt(r)


def fmt(r, prefix=""):
    kind = r[0]
    if kind == "bool":
        return "(true)\n" if r[1] else "(false)\n"
    if kind == "double":
        return "(double) %s\n" % r[1]
    if kind == "map":
        pairs = list(zip(r[1][0::2], r[1][1::2]))
        if not pairs:
            return "(empty hash)\n"
        width = len(str(len(pairs)))
        child = prefix + " " * (width + 2)
        out = ""
        for i, (k, v) in enumerate(pairs):
            p = "" if i == 0 else prefix
            out += "%s%*d# " % (p, width, i + 1) + fmt(k, child).rstrip("\n") + " => "
            if multiline(v):
                out += "\n" + child
            out += fmt(v, child)
        return out
    if kind == "status":
        return r[1] + "\n"
    if kind == "error":
        return "(error) " + r[1] + "\n"
    if kind == "int":
        return "(integer) %d\n" % r[1]
    if kind == "bulk":
        return quote(r[1]) + "\n"
    if kind == "nil":
        return "(nil)\n"
    items = r[1]
    if not items:
        return {"set": "(empty set)", "push": "(empty push)"}.get(kind, "(empty array)") + "\n"
    sep = "~" if kind == "set" else ")"
    width = len(str(len(items)))
    child = prefix + " " * (width + 2)
    out = ""
    for i, item in enumerate(items):
        p = "" if i == 0 else prefix
        out += "%s%*d%s " % (p, width, i + 1, sep) + fmt(item, child)
    return out


def show(r):
    return fmt_push(r) if r[0] == "push" else fmt(r)


def main():
    where = sys.argv[1]
    conns = {}
    ids = {}

    def conn(name):
        if name not in conns:
            if where.isdigit():
                s = socket.create_connection(("127.0.0.1", int(where)))
            else:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(where)
            conns[name] = Reader(s)
            s.sendall(encode([b"CLIENT", b"ID"]))
            conns[name].fill(2.0)
            reply, conns[name].buf = parse(conns[name].buf)
            ids[name] = reply[1]
        return conns[name]

    current = "A"
    conn(current)
    out = []
    for line in sys.stdin.read().splitlines():
        t = line.rstrip()
        if not t or t.startswith("#"):
            out.append(t)
            continue
        if t.startswith("@"):
            out.append(t)
            parts = t[1:].split()
            if parts[0] == "client":
                current = parts[1]
                conn(current)
            elif parts[0] == "sleep":
                time.sleep(int(parts[1]) / 1000)
            elif parts[0] == "pushes":
                for r in conn(current).drain(WAIT):
                    out.append(show(r).rstrip("\n"))
            elif parts[0] == "close":
                conns.pop(current).sock.close()
                ids.pop(current, None)
            continue
        if not t.startswith("> "):
            continue
        out.append(t)
        c = conn(current)
        text = t[2:]
        for name, cid in ids.items():
            text = text.replace("{%s}" % name, str(cid))
        c.sock.sendall(encode(split_args(text)))
        replies = c.drain(WAIT)
        for r in replies:
            out.append(show(r).rstrip("\n"))
    print("\n".join(out))


if __name__ == "__main__":
    main()
