#!/usr/bin/env bash
# Runs every test kvlab has, stopping at the first failure:
#   formatting, the source layout (scripts/layout.py), clippy (host and wasm32), host tests (unit, doc, transcripts, integration),
#   the scale tests in release mode (every collection at a million elements),
#   browser tests (wasm-bindgen-test in headless Chromium), the release web build, and the
#   end-to-end test (playwright-core + Chromium against the built dist/).
#
#   bash scripts/test.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

START=$SECONDS
SUMMARY=()

# step NAME COMMAND...: runs one stage, timing it; stops everything if it fails.
step() {
  local name="$1"
  shift
  local t0=$SECONDS
  say "$name"
  printf '    %s$ %s%s\n' "$_dim" "$*" "$_off"
  if "$@"; then
    SUMMARY+=("$(printf '%-38s %4ss' "$name" $((SECONDS - t0)))")
  else
    local rc=$?
    echo
    die "FAILED: $name (exit $rc) — command: $*"
  fi
}

# Chromium leaves a profile per run in $TMPDIR (/tmp/org.chromium.Chromium.*): give the
# browser tests a private TMPDIR and remove it afterwards, leaving other runs' profiles alone.
BROWSER_TMP="$(mktemp -d "${TMPDIR:-/tmp}/kvlab-browser-tests.XXXXXX")"
cleanup() { rm -rf -- "$BROWSER_TMP"; }
trap cleanup EXIT

step "setup" bash scripts/setup.sh
SPLIT_TOOL=(--manifest-path tools/wasm-split/Cargo.toml)
step "cargo fmt --check" cargo fmt --all --check
step "cargo fmt --check (tools/wasm-split)" cargo fmt "${SPLIT_TOOL[@]}" --check
step "layout: no import cycle, no file over 800 lines" python3 scripts/layout.py --check
step "clippy (host)" cargo clippy --workspace --all-targets -- -D warnings
step "clippy (wasm32)" cargo clippy --workspace --all-targets --target wasm32-unknown-unknown -- -D warnings
step "clippy (tools/wasm-split)" cargo clippy "${SPLIT_TOOL[@]}" --target-dir target/tools --all-targets -- -D warnings
step "tools/wasm-split on a test module (node)" node --test tools/wasm-split/tests/
step "cargo test (host)" cargo test --workspace
# The scale tests at full size (a million live elements per collection, against plain
# models and against redis-server); plain `cargo test` ran them at a fiftieth.
step "scale tests, release (tests/scale.rs, tests/scale_diff.rs)" \
  cargo test --release --test scale --test scale_diff -- --nocapture
step "walkthroughs' KV vs redis-server" bash tests/walk-redis-check.sh
step "redis-py integration (pytest)" "$ROOT/.tools/venv/bin/python" -m pytest -q tests/py
step "Redis 7.0's own test suite (tests/redis-suite)" env KVLAB_SUITE_STRICT=1 bash tests/redis-suite/run.sh
# A test there restores a 1,000,000-member sorted set (about 50 s in a debug build):
# past wasm-bindgen-test's 20 s default.
step "browser tests (wasm-bindgen-test)" env TMPDIR="$BROWSER_TMP" WASM_BINDGEN_TEST_TIMEOUT=300 cargo test --target wasm32-unknown-unknown --test wasm --test wasm_persist
# kvlab-lua's conformance cases in the browser: the same answers as natively, with Lua's
# errors unwinding through the host.
step "Lua in the browser (kvlab-lua, wasm-bindgen-test)" env TMPDIR="$BROWSER_TMP" WASM_BINDGEN_TEST_TIMEOUT=300 cargo test -p kvlab-lua --target wasm32-unknown-unknown --test wasm
step "trunk build --release" trunk build --release
# Screenshots of the main screens are kept as artifacts in target/e2e-shots/.
SHOTS="$ROOT/target/e2e-shots"
mkdir -p "$SHOTS"
step "e2e (playwright-core + chromium)" env TMPDIR="$BROWSER_TMP" KVLAB_SHOTS="$SHOTS" \
  KVLAB_SCREENSHOT="$SHOTS/console.png" node --test tests/e2e/

# What a visitor downloads, gzip -9: the console's first load (every file of dist/ the console
# page may fetch before it is interactive), what it fetches only on demand, then all of dist/.
# A first visit in headless Chromium fetched 13 files, 279 KB gzip, before the command box
# appeared (2026-12-02); this count is an upper bound of that (it adds sw.js, say).
raw=0 gz=0 craw=0 cgz=0 lraw=0 lgz=0 draw=0 dgz=0
while IFS= read -r -d '' f; do
  r=$(stat -c %s "$f") g=$(gzip -9 -c "$f" | wc -c)
  raw=$((raw + r)) gz=$((gz + g))
  case "$f" in
    # Walkthroughs: the SQL worker, the files and their style sheet load when a
    # walkthrough opens.
    dist/kvlab-sql* | dist/walkthroughs/* | dist/walkthrough.css) ;;
    # On demand: the geo map's world outline (when a map is first shown), the Chinese HELP
    # texts (when a learner in Chinese starts typing HELP), the icons a browser fetches to
    # install the app; and what only tutorial pages load (embed.js, the example tutorial).
    dist/geo/* | dist/i18n/* | dist/icons/icon-*.png | dist/embed.js | dist/examples/*)
      draw=$((draw + r)) dgz=$((dgz + g)) ;;
    # Once the console is interactive: the secondary half of the split wasm, and the
    # command table's English summaries and complexities (src/engine/table/docs.rs).
    dist/kvlab-web-cold-* | dist/i18n/help.en.json) lraw=$((lraw + r)) lgz=$((lgz + g)) ;;
    *) craw=$((craw + r)) cgz=$((cgz + g)) ;;
  esac
done < <(find dist -type f ! -name '.*' -print0)

say "summary"
printf '    %s\n' "${SUMMARY[@]}"
printf '    console first load: %d KB raw, %d KB gzip -9\n' $((craw / 1024)) $((cgz / 1024))
printf '    then, once the console is interactive, the rest of its wasm and the command docs: %d KB raw, %d KB gzip -9\n' $((lraw / 1024)) $((lgz / 1024))
printf '    on demand (map outline, Chinese HELP, install icons) and for tutorial pages: %d KB raw, %d KB gzip -9\n' $((draw / 1024)) $((dgz / 1024))
printf '    with walkthroughs (SQL worker + files): %d KB raw, %d KB gzip -9 (all of dist/)\n' $((raw / 1024)) $((gz / 1024))
printf '    screenshots: %s\n' "$SHOTS"
printf '    %sall tests passed%s in %ss\n' "$_green" "$_off" $((SECONDS - START))
