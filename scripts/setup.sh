#!/usr/bin/env bash
# Installs what building, serving and testing kvlab need on a Debian machine that has only
# Rust (rustup), Node and Python. Idempotent: every step checks first and skips when the
# machine already has what it installs.
#
#   bash scripts/setup.sh
#
# Installs:
#   apt:    chromium chromium-driver (browser tests), redis-server redis-tools (reference
#           Redis for differential tests), clang and llvm (C code compiled and archived
#           for wasm: SQLite, Lua),
#           fonts-wqy-microhei (CJK glyphs for zh-CN screenshots)
#   rustup: the wasm32-unknown-unknown target
#   cargo:  trunk 0.22.1; wasm-bindgen-cli at exactly Cargo.lock's wasm-bindgen version
#   npm:    binaryen@132 (wasm-opt) into .tools/; playwright-core into tests/e2e/ (npm ci,
#           no browser download: the tests use Debian's chromium)
#   cargo fetch, so builds can run offline (Trunk.toml sets offline = true), also for
#           tools/wasm-split, which release builds run (scripts/split.mjs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

TRUNK_VERSION=0.22.1
BINARYEN_VERSION=132
# fonts-wqy-microhei: a CJK font (1.6 MB) so headless Chromium draws the zh-CN UI in
# screenshots instead of boxes (fonts-noto-cjk would be ~50 MB).
APT_PACKAGES=(chromium chromium-driver redis-server redis-tools clang llvm tcl dpkg-dev fonts-wqy-microhei)

for tool in cargo rustup node npm; do
  command -v "$tool" >/dev/null || die "$tool is required (install Rust with rustup, and Node.js)"
done

say "system packages: ${APT_PACKAGES[*]}"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  skip "all installed"
else
  echo "    installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  ok "installed ${missing[*]}"
fi

say "rust target wasm32-unknown-unknown"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  skip "installed"
else
  rustup target add wasm32-unknown-unknown
  ok "added"
fi

say "trunk $TRUNK_VERSION"
if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
  skip "trunk $TRUNK_VERSION found"
else
  echo "    cargo install trunk (takes about 10 minutes on 2 cores)"
  # trunk 0.22 declares a newer rust-version than it needs.
  cargo install trunk --version "$TRUNK_VERSION" --locked --ignore-rust-version
  ok "$(trunk --version)"
fi

WB_VERSION="$(locked_version wasm-bindgen)"
[ -n "$WB_VERSION" ] || die "no wasm-bindgen in Cargo.lock"
say "wasm-bindgen-cli $WB_VERSION (must equal Cargo.lock's wasm-bindgen)"
if [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WB_VERSION" ]; then
  skip "wasm-bindgen $WB_VERSION found"
else
  # Not --locked: the CLI's own lockfile pins a crate version the registry no longer has.
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
  ok "$(wasm-bindgen --version)"
fi

say "wasm-opt (npm binaryen@$BINARYEN_VERSION) in .tools/"
if "$TOOLS/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version $BINARYEN_VERSION\b"; then
  skip "$("$TOOLS/node_modules/.bin/wasm-opt" --version)"
else
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "binaryen@$BINARYEN_VERSION"
  ok "$("$TOOLS/node_modules/.bin/wasm-opt" --version)"
fi

say "e2e test dependencies (tests/e2e: npm ci)"
if [ -f tests/e2e/node_modules/.package-lock.json ] &&
  [ tests/e2e/node_modules/.package-lock.json -nt tests/e2e/package-lock.json ]; then
  skip "up to date"
else
  # No browser download: playwright-core drives Debian's /usr/bin/chromium.
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
  ok "installed"
fi

say "redis-py test dependencies (tests/py/requirements.txt) in .tools/venv"
VENV="$TOOLS/venv"
if [ -x "$VENV/bin/python" ] && [ "$VENV/.requirements" -nt tests/py/requirements.txt ]; then
  skip "up to date"
else
  mkdir -p "$TOOLS"
  if ! python3 -m venv "$VENV" 2>/dev/null; then
    # Debian's python3 splits venv into its own package.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/py/requirements.txt
  touch "$VENV/.requirements"
  ok "$("$VENV/bin/python" -m pytest --version 2>&1)"
fi

say "crates (cargo fetch), for kvlab and for tools/wasm-split"
SPLIT_MANIFEST=tools/wasm-split/Cargo.toml
if cargo fetch --offline --quiet 2>/dev/null &&
  cargo fetch --offline --quiet --manifest-path "$SPLIT_MANIFEST" 2>/dev/null; then
  skip "all crates present"
else
  cargo fetch
  cargo fetch --manifest-path "$SPLIT_MANIFEST"
  ok "fetched"
fi

say "setup done"
