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
# On a shared or busy machine requests per second swing with whatever else runs, so the
# table also gives each server's own CPU time per request (from /proc/PID/task/*/schedstat,
# in microseconds), which hardly depends on load, and the ratio redis/kvlab of those: above
# 1.0 means kvlab spends less CPU than Redis on the same requests.
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

"$KVLAB_BIN" --bind 127.0.0.1 --port 0 --save "" >"$tmp/kvlab.log" 2>&1 &
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

# CPU time used so far by all threads of process $1, in nanoseconds.
cpu_ns() {
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# Prints "<rps> <cpu microseconds per request>" of one run against the server with PID $1
# on port $2, or "n/a n/a" if the run failed (an unknown command stops redis-benchmark).
run_one() {
    local pid=$1 port=$2 test=$3 pipeline=$4 out name before after rps
    name=$(tr '[:lower:]' '[:upper:]' <<<"$test")
    before=$(cpu_ns "$pid")
    if out=$(redis-benchmark -h 127.0.0.1 -p "$port" -c "$CLIENTS" -t "$test" -n "$N" \
        -P "$pipeline" -q --csv 2>"$tmp/err"); then
        after=$(cpu_ns "$pid")
        # A test's CSV name is its own (SET) or has a note after it ("LRANGE_100 (first 100
        # elements)", after the "LPUSH (needed to benchmark LRANGE)" that fills the list).
        rps=$(awk -F'"' -v t="$name" '($2 == t || index($2, t " (") == 1) && !found { print $4; found = 1 } END { if (!found) print "n/a" }' <<<"$out")
        if [[ "$rps" == n/a ]]; then
            echo "n/a n/a"
        else
            awk -v r="$rps" -v b="$before" -v a="$after" -v n="$N" 'BEGIN { printf "%s %.2f\n", r, (a - b) / n / 1000 }'
        fi
    else
        echo "n/a n/a"
    fi
}

best_max() { # largest of the numbers given; "n/a" if none is a number
    printf '%s\n' "$@" | awk '$1 != "n/a" && (!ok || $1 > m) { m = $1; ok = 1 } END { print ok ? m : "n/a" }'
}

best_min() { # smallest of the numbers given; "n/a" if none is a number
    printf '%s\n' "$@" | awk '$1 != "n/a" && (!ok || $1 < m) { m = $1; ok = 1 } END { print ok ? m : "n/a" }'
}

ratio() { # $1 / $2 with two decimals, or "n/a"
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on port $redis_port," \
    "kvlab-server on port $kvlab_port; load average:$(uptime | sed 's/.*load average://')"
echo "redis-benchmark -n $N -c $CLIENTS, best of $REPEAT; cpu = server CPU microseconds per request"
echo "(LRANGE_100 first fills its list with LPUSH: its cpu covers both phases, so compare ratios only)"
echo
printf '%-10s %3s %11s %11s %7s   %9s %9s %10s\n' \
    test "-P" "redis rps" "kvlab rps" "ratio" "redis cpu" "kvlab cpu" "cpu ratio"
IFS=, read -r -a tests <<<"$TESTS"
for pipeline in $PIPELINES; do
    for test in "${tests[@]}"; do
        r_rps=() r_cpu=() k_rps=() k_cpu=()
        for _ in $(seq "$REPEAT"); do
            read -r rps cpu < <(run_one "$redis_pid" "$redis_port" "$test" "$pipeline")
            r_rps+=("$rps") r_cpu+=("$cpu")
            read -r rps cpu < <(run_one "$kvlab_pid" "$kvlab_port" "$test" "$pipeline")
            k_rps+=("$rps") k_cpu+=("$cpu")
        done
        r=$(best_max "${r_rps[@]}")
        k=$(best_max "${k_rps[@]}")
        rc=$(best_min "${r_cpu[@]}")
        kc=$(best_min "${k_cpu[@]}")
        printf '%-10s %3s %11s %11s %7s   %9s %9s %10s\n' "$(tr '[:lower:]' '[:upper:]' <<<"$test")" \
            "$pipeline" "$r" "$k" "$(ratio "$k" "$r")" "$rc" "$kc" "$(ratio "$rc" "$kc")"
    done
done
