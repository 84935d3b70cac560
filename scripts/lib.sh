# Shared by setup.sh, serve.sh and test.sh: paths, PATH, and logging. Source it; don't run it.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"

# cargo-installed tools (trunk, wasm-bindgen) and npm's wasm-opt come first: Debian's own
# binaryen is too old for current Rust output.
export PATH="$TOOLS/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# trunk otherwise asks GitHub for its latest version on every start.
export TRUNK_SKIP_VERSION_CHECK=true

if [ -t 1 ]; then
  _bold=$'\e[1m' _green=$'\e[32m' _red=$'\e[31m' _dim=$'\e[2m' _off=$'\e[0m'
else
  _bold='' _green='' _red='' _dim='' _off=''
fi

say() { printf '%s==>%s %s\n' "$_bold" "$_off" "$*"; }
ok() { printf '    %sok%s %s\n' "$_green" "$_off" "$*"; }
skip() { printf '    %sskip%s %s\n' "$_dim" "$_off" "$*"; }
die() {
  printf '%serror:%s %s\n' "$_red" "$_off" "$*" >&2
  exit 1
}

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

# The exact version of crate $1 in Cargo.lock (first match).
locked_version() {
  awk -v name="$1" '
    $0 == "name = \"" name "\"" { found = 1; next }
    found && /^version = / { gsub(/"/, "", $3); print $3; exit }
  ' "$ROOT/Cargo.lock"
}
