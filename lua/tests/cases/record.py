#!/usr/bin/env python3
"""Records the expected answers of conformance.lua's cases from a real redis-server.

    python3 lua/tests/cases/record.py [PORT]   (default 6399: redis-server 7.0.15)

Each case is a Lua chunk that returns one string; it runs as `EVAL <chunk> 0` and the
bulk string Redis replies becomes the case's expected answer in conformance.txt, which
tests/conformance.rs (host) and tests/wasm.rs (headless Chromium) both check.
"""
import socket
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def command(sock, f, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    line = f.readline()
    if line[:1] == b"$":
        n = int(line[1:])
        data = f.read(n + 2)[:-2]
        return data
    raise SystemExit(f"unexpected reply {line!r} for {args[1][:80]!r}")


def cases(text):
    """(name, code) pairs: a case is a `-- case: NAME` line and the lines up to the next."""
    out = []
    for line in text.splitlines():
        if line.startswith("-- case: "):
            out.append([line[len("-- case: "):].strip(), []])
        elif out:
            out[-1][1].append(line)
    return [(n, "\n".join(c).strip() + "\n") for n, c in out]


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 6399
    sock = socket.create_connection(("127.0.0.1", port))
    f = sock.makefile("rb")
    rows = []
    for name, code in cases((HERE / "conformance.lua").read_text()):
        want = command(sock, f, "EVAL", code, "0")
        rows.append((name, want))
    with open(HERE / "conformance.txt", "wb") as out:
        out.write(b"# name<TAB>expected answer (\\n, \\t, \\\\ and \\xNN escaped), recorded from redis-server 7.0.15\n")
        out.write(b"# by record.py from conformance.lua: do not edit by hand.\n")
        for name, want in rows:
            esc = bytearray()
            for b in want:
                if b == 0x5C:
                    esc += b"\\\\"
                elif b == 0x0A:
                    esc += b"\\n"
                elif b == 0x09:
                    esc += b"\\t"
                elif b < 0x20 or b >= 0x7F:
                    esc += b"\\x%02x" % b
                else:
                    esc.append(b)
            out.write(name.encode() + b"\t" + bytes(esc) + b"\n")
    print(f"{len(rows)} cases recorded")


main()
