#!/usr/bin/env bash
# Cross-checks every walkthrough's KV replies against a real redis-server 7.0: starts one on
# a free 127.0.0.1 port, runs tests/walk-redis-check.py, stops it by its PID.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
python3 tests/walk-redis-check.py "$port"
