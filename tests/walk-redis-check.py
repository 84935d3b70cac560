#!/usr/bin/env python3
"""Cross-checks the KV side of every walkthrough against a real redis-server.

    python3 tests/walk-redis-check.py PORT [www/walkthroughs/*.walk]

For each file it sends FLUSHALL, the [seed] commands and every step's kv> command to the
server (through tests/transcripts/record.py, which renders replies as redis-cli does) and
compares each reply with the file's expected text. tests/walkthroughs.rs checks the same
files against kvlab's engine, so together they show the engine answers as Redis does.
Start the server fresh on a free port; the script flushes it.
"""

import glob
import os
import subprocess
import sys

DIRECTIVES = ("#", "[", "sql>", "kv>", "en:", "zh:", "title.")


def kv_checks(path):
    """([seed commands], [(line, command, expected)]) of a walkthrough file."""
    lines = open(path, encoding="utf-8").read().splitlines()
    seed, checks, section, i = [], [], None, 0
    while i < len(lines):
        t = lines[i].rstrip()
        i += 1
        if t.startswith("["):
            section = t.strip("[]").strip()
            continue
        if section == "seed" and t and not t.startswith("#"):
            seed.append(t[3:].strip() if t.startswith("kv>") else t)
        elif section == "step" and t.startswith("kv>"):
            start, exp = i, []
            while i < len(lines) and lines[i].rstrip() and not lines[i].startswith(DIRECTIVES):
                exp.append(lines[i].rstrip())
                i += 1
            checks.append((start, t[3:].strip(), "\n".join(exp)))
    return seed, checks


def main():
    port = sys.argv[1]
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(
        os.path.dirname(__file__), "..", "www", "walkthroughs", "*.walk")))
    record = os.path.join(os.path.dirname(__file__), "transcripts", "record.py")
    bad = 0
    for f in files:
        seed, checks = kv_checks(f)
        script = ["> FLUSHALL"] + ["> " + c for c in seed] + ["> " + c for _, c, _ in checks]
        out = subprocess.run([sys.executable, record, port], input="\n".join(script),
                             capture_output=True, text=True, check=True).stdout
        blocks, cur = [], None
        for line in out.splitlines():
            if line.startswith("> "):
                cur = []
                blocks.append(cur)
            elif cur is not None:
                cur.append(line.rstrip())
        got = blocks[1 + len(seed):]
        for (line, cmd, exp), g in zip(checks, got):
            g = "\n".join(g)
            if g != exp:
                bad += 1
                print(f"{os.path.basename(f)}:{line}: kv> {cmd}\n--- file\n{exp}\n--- redis\n{g}\n")
        print(f"{os.path.basename(f)}: {len(checks)} KV replies checked")
    if bad:
        print(f"{bad} differences from redis-server")
        sys.exit(1)


if __name__ == "__main__":
    main()
