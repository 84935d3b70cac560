#!/usr/bin/env bash
# Compares kvlab-server with redis-server under redis-benchmark.
#
# Starts both servers on free loopback ports (kvlab from a release build), runs
#   redis-benchmark -t <test> -n $N -P <p> -q --csv
# for each test and pipeline depth against each server in turn (redis, then kvlab, test by
# test, so that a change in machine load hits both alike), and prints requests per second
# and the ratio kvlab/redis. A test the engine does not support yet is reported as "n/a".
# Both servers are stopped by PID on exit, however the script ends.
#
# Environment (all optional):
#   N=100000           requests per run
#   TESTS=set,get,incr,hset
#   PIPELINES="1 16"   pipeline depths (-P)
#   CLIENTS=50         parallel connections (-c)
#   REPEAT=1           runs per cell; the best rps is kept (use 3+ on a busy machine)
#   KVLAB_BIN=path     use this binary instead of building target/release/kvlab-server
#
# Needs: redis-server, redis-benchmark, redis-cli (Debian: redis-server redis-tools).
set -euo pipefail

cd "$(dirname "$0")/.."

N=${N:-100000}
TESTS=${TESTS:-set,get,incr,hset}
PIPELINES=${PIPELINES:-"1 16"}
CLIENTS=${CLIENTS:-50}
REPEAT=${REPEAT:-1}

for tool in redis-server redis-benchmark redis-cli; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install redis-server redis-tools)" >&2; exit 1; }
done

if [[ -z "${KVLAB_BIN:-}" ]]; then
    cargo build --release --quiet --bin kvlab-server
    KVLAB_BIN=target/release/kvlab-server
fi

tmp=$(mktemp -d)
redis_pid=""
kvlab_pid=""
cleanup() {
    for pid in $redis_pid $kvlab_pid; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in $redis_pid $kvlab_pid; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A loopback port nobody listens on: ask the kernel for one, else probe random ones.
free_port() {
    if command -v python3 >/dev/null; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        return
    fi
    local port
    while :; do
        port=$((20000 + RANDOM % 30000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no >"$tmp/redis.log" 2>&1 &
redis_pid=$!

"$KVLAB_BIN" --bind 127.0.0.1 --port 0 >"$tmp/kvlab.log" 2>&1 &
kvlab_pid=$!

# Wait for both: redis answers PING; kvlab prints its address once it listens.
kvlab_port=""
for _ in $(seq 100); do
    if [[ -z "$kvlab_port" ]] && grep -q "ready to accept connections on" "$tmp/kvlab.log"; then
        kvlab_port=$(grep -m1 "ready to accept connections on" "$tmp/kvlab.log" | sed 's/.*://')
    fi
    if [[ -n "$kvlab_port" ]] && [[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" == PONG ]]; then
        break
    fi
    sleep 0.1
done
[[ -n "$kvlab_port" ]] || { echo "kvlab-server did not start:" >&2; cat "$tmp/kvlab.log" >&2; exit 1; }
[[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" == PONG ]] || { echo "redis-server did not start:" >&2; cat "$tmp/redis.log" >&2; exit 1; }

# Prints the rps of one run, or "n/a" if the run failed (an unknown command stops
# redis-benchmark with an error).
rps_of() {
    local port=$1 test=$2 pipeline=$3 out name
    name=$(tr '[:lower:]' '[:upper:]' <<<"$test")
    if out=$(redis-benchmark -h 127.0.0.1 -p "$port" -c "$CLIENTS" -t "$test" -n "$N" \
        -P "$pipeline" -q --csv 2>"$tmp/err"); then
        awk -F'"' -v t="$name" '$2 == t { print $4; found = 1 } END { if (!found) print "n/a" }' <<<"$out"
    else
        echo "n/a"
    fi
}

best() { # best of the numbers given; "n/a" if none is a number
    printf '%s\n' "$@" | awk '$1 != "n/a" && $1 > m { m = $1; ok = 1 } END { print ok ? m : "n/a" }'
}

echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on port $redis_port," \
    "kvlab-server on port $kvlab_port; load average:$(uptime | sed 's/.*load average://')"
echo "redis-benchmark -n $N -c $CLIENTS, best of $REPEAT"
echo
printf '%-6s %3s %14s %14s %12s\n' test "-P" "redis rps" "kvlab rps" "kvlab/redis"
IFS=, read -r -a tests <<<"$TESTS"
for pipeline in $PIPELINES; do
    for test in "${tests[@]}"; do
        r_runs=()
        k_runs=()
        for _ in $(seq "$REPEAT"); do
            r_runs+=("$(rps_of "$redis_port" "$test" "$pipeline")")
            k_runs+=("$(rps_of "$kvlab_port" "$test" "$pipeline")")
        done
        r=$(best "${r_runs[@]}")
        k=$(best "${k_runs[@]}")
        ratio=$(awk -v r="$r" -v k="$k" 'BEGIN { if (r == "n/a" || k == "n/a" || r == 0) print "n/a"; else printf "%.2f", k / r }')
        printf '%-6s %3s %14s %14s %12s\n' "$(tr '[:lower:]' '[:upper:]' <<<"$test")" "$pipeline" "$r" "$k" "$ratio"
    done
done
