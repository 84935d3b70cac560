#!/usr/bin/env bash
# Persistence benchmark in headless Chromium (tests/wasm_persist.rs, bench_persist_100k_mixed_keys):
# restore and snapshot time for 100,000 keys of mixed types, the latency persistence adds to a
# write, and stored bytes per key. Release build; prints one "persist bench:" line.
#
#   bash bench/persist.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$ROOT"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/kvlab-bench.XXXXXX")"
trap 'rm -rf -- "$tmp"' EXIT
WASM_BINDGEN_TEST_TIMEOUT=600 TMPDIR="$tmp" cargo test --release --target wasm32-unknown-unknown --test wasm_persist \
  bench_persist_100k_mixed_keys -- --include-ignored --nocapture 2>&1 | grep -E "persist bench:|test result|FAIL|panicked"
